"""The SDK says what is happening: a bot played on a real server (127.0.0.1, any free
port) with built-in bots in the other seats; every fact of its run is told as a line
for people (:class:`HumanReporter`) and as a structured event (:class:`LogReporter`)."""

from __future__ import annotations

import asyncio
import io
import re
import secrets
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import grpc
import pytest
from structlog.testing import capture_logs
from test_client import ILLEGAL, Lowest, Stubborn
from test_server import ServerThread, register
from test_server_seats import Raw

import bots
from arena import match as engine
from arena._proto.arena.v1 import arena_pb2
from arena.client import ClientError, run_bot_async
from arena.client.report import (
    DealOver,
    DecisionLost,
    Draining,
    Fact,
    HumanReporter,
    LogReporter,
    MatchOver,
    Refused,
    Resumed,
    Seated,
    ServerError,
    Waiting,
    end_reason,
    match_outcome,
    reporter_for,
)
from arena.errors import ConfigError
from arena.games.base import Action, Observation
from arena.server import session
from arena.server.play import ClockConfig, PlayConfig
from arena.store import Store

WAIT = 60.0
"""Seconds a scenario may take before the test fails (never reached when all is well)."""


class Recording:
    """Every fact told at once to a HumanReporter (its lines kept) and a LogReporter;
    ``when`` runs a hook on the first fact that matches."""

    def __init__(self) -> None:
        self.out = io.StringIO()
        self.human = HumanReporter(self.out)
        self.log = LogReporter()
        self.facts: list[Fact] = []
        self.hooks: list[tuple[Callable[[Fact], bool], Callable[[], None]]] = []

    def when(self, matches: Callable[[Fact], bool], then: Callable[[], None]) -> None:
        self.hooks.append((matches, then))

    def report(self, fact: Fact) -> None:
        self.facts.append(fact)
        self.human.report(fact)
        self.log.report(fact)
        for hook in [h for h in self.hooks if h[0](fact)]:
            self.hooks.remove(hook)
            hook[1]()

    @property
    def lines(self) -> list[str]:
        return self.out.getvalue().splitlines()


def index(lines: list[str], pattern: str, start: int = 0) -> int:
    """The first line from ``start`` on that matches ``pattern`` (a regex, from its
    start); fails naming the lines when there is none."""
    for i in range(start, len(lines)):
        if re.match(pattern, lines[i]):
            return i
    raise AssertionError(
        f"no line matching {pattern!r} after line {start} in:\n" + "\n".join(lines)
    )


def mine(logs: Sequence[Mapping[str, Any]], bot: str) -> list[Mapping[str, Any]]:
    """The captured events of the SDK's run (the server logs to the same capture)."""
    return [e for e in logs if e.get("bot") == bot]


@dataclass
class Relay:
    """A TCP relay to the server that can cut every connection through it; after a cut,
    a new connection goes through once the server has let go of the bot's old one."""

    server: ServerThread
    bot: str
    port: int = 0
    writers: list[asyncio.StreamWriter] = field(default_factory=list)
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    cuts: int = 0
    listening: asyncio.Server | None = None

    async def start(self) -> None:
        self.listening = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = self.listening.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self.listening is not None:
            self.listening.close()
        self.cut()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    def cut(self) -> None:
        self.cuts += 1
        for writer in self.writers:
            writer.transport.abort()
        self.writers.clear()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.tasks.append(task)
        play = self.server.running.play
        while self.cuts and any(c.bot == self.bot for c in list(play.connections)):
            await asyncio.sleep(0.01)
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.server.port)
        self.writers += [writer, up_writer]
        await asyncio.gather(
            self._pipe(reader, up_writer), self._pipe(up_reader, writer), return_exceptions=True
        )

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        writer.close()


class Arena(ServerThread):
    def __init__(self, store: Store, **play: Any) -> None:
        clock = ClockConfig(decision_seconds=20.0, time_bank_seconds=0.0, grace_seconds=30.0)
        super().__init__(store, play=PlayConfig(clock=clock, **play))

    def token(self, name: str) -> str:
        with grpc.insecure_channel(self.address) as channel:
            return register(channel, name).token


@pytest.fixture
def store(tmp_path: Any) -> Iterator[Store]:
    with Store.open(tmp_path / "arena.sqlite") as store:
        yield store


def play(coroutine: Any, recording: Recording) -> Any:
    """Run a scenario; if it never ends, fail with what the bot was told so far."""
    try:
        return asyncio.run(asyncio.wait_for(coroutine, WAIT))
    except TimeoutError:
        told = "\n".join(recording.lines)
        raise AssertionError(f"not over after {WAIT:g} s; told so far:\n{told}") from None


def test_a_run_with_a_refusal_and_a_lost_connection_is_told_line_by_line(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Refused answer, deals, a cut connection, reconnection, resumed seat, the result:
    the match's seed is pinned to one whose totals are not even, so that the outcome told
    is the bot's team's (won or lost), not the other team's or any of the three."""
    monkeypatch.setattr(
        session, "secrets", SimpleNamespace(randbits=lambda bits: 3, token_hex=secrets.token_hex)
    )
    server = Arena(store, max_deals=2)
    try:
        token = server.token("rep-me")
        recording = Recording()
        relay = Relay(server, "rep-me")
        recording.when(lambda f: isinstance(f, DealOver) and f.deal == 1, relay.cut)

        async def main() -> Any:
            await relay.start()
            try:
                return await run_bot_async(
                    Stubborn(),
                    f"127.0.0.1:{relay.port}",
                    token,
                    ["guandan"],
                    rated=False,
                    matches=1,
                    fill_after=0.05,
                    fill_bot="first",
                    backoff=(0.5, 1.0),
                    reporter=recording,
                )
            finally:
                await relay.close()

        with capture_logs() as logs:
            summary = play(main(), recording)
    finally:
        server.close()
    assert summary.matches == 1 and summary.reconnects == 1
    match_id = summary.results[0].match_id
    lines = recording.lines
    at = index(lines, rf"connected to 127\.0\.0\.1:{relay.port} as rep-me \(server .*protocol 2\)$")
    at = index(
        lines,
        r"waiting for seats: casual guandan, 1 match to play; "
        r"'first' fills empty seats after 0\.05 s$",
        at,
    )
    seated = next(f for f in recording.facts if isinstance(f, Seated))
    # on totals, the partners' against the opponents', as stored: not any of the three
    stored = store.match(match_id)
    assert stored is not None and stored.seating[seated.player] == "rep-me"
    totals = stored.outcome["totals"]
    ours = totals[seated.player] + totals[(seated.player + 2) % 4]
    assert 2 * ours != sum(totals), "an even match: the team's outcome goes unseen"
    outcome = "won" if 2 * ours > sum(totals) else "lost"
    at = index(
        lines,
        rf"seated: match {match_id} \(guandan, casual\), player {seated.player}, "
        rf"partner {seated.partner}, opponents {seated.opponents[0]} and "
        rf"{seated.opponents[1]}$",
        at,
    )
    assert {seated.partner, *seated.opponents} == {"first"}  # the built-in bot named
    at = index(lines, rf"answer '{ILLEGAL}' to \S+ refused \(ILLEGAL\): .+; 9 attempts left$", at)
    at = index(lines, r"deal 1: .+; totals -?\d+ -?\d+ -?\d+ -?\d+ \(yours -?\d+\)$", at)
    at = index(
        lines,
        rf"connection to 127\.0\.0\.1:{relay.port} lost \(.+\); "
        r"connecting again in 0\.5 s \(attempt 1\)$",
        at,
    )
    at = index(lines, "connected to ", at)
    at = index(
        lines, rf"resumed: match {match_id} \(guandan\), player {seated.player}, deal 2$", at
    )
    at = index(lines, r"deal 2: ", at)
    index(
        lines,
        rf"match {match_id}: {outcome} on totals \(.+\); "
        r"totals .+ \(yours -?\d+\)$",
        at,
    )

    events = mine(logs, "rep-me")
    names = [e["event"] for e in events]
    expected = [
        "connected",
        "waiting_for_seats",
        "seated",
        "answer_refused",
        "deal_result",
        "reconnecting",
        "connected",
        "resumed",
        "deal_result",
        "match_result",
    ]
    position = 0
    for name in expected:  # in this order, others between
        position = names.index(name, position) + 1
    refused = next(e for e in events if e["event"] == "answer_refused")
    assert refused["log_level"] == "warning" and refused["bot"] == "rep-me"
    assert refused["answer"] == ILLEGAL and refused["status"] == "ILLEGAL"
    assert refused["attempts_left"] == 9 and "illegal" in refused["reason"].lower()
    reconnecting = next(e for e in events if e["event"] == "reconnecting")
    assert reconnecting["attempt"] == 1 and reconnecting["delay"] == 0.5
    seated_event = next(e for e in events if e["event"] == "seated")
    assert seated_event["match_id"] == match_id and seated_event["rated"] is False
    assert seated_event["partner"] == "first" and seated_event["opponents"] == ("first", "first")
    result = next(e for e in events if e["event"] == "match_result")
    assert result["match_id"] == match_id and result["reason"] == "deal_limit"
    assert result["winner_team"] is None  # two deals cannot reach A: decided on totals
    assert result["outcome"] == outcome and result["deals"] == 2
    assert list(result["totals"]) == totals


def test_a_match_lost_to_a_fled_seat_is_told_as_a_forfeit(store: Store) -> None:
    server = Arena(store, max_deals=2)
    try:
        mine_token, leaver_token = server.token("rep-stay"), server.token("rep-flee")
        recording = Recording()

        async def main() -> Any:
            leaver = Raw(server.address, leaver_token)
            await leaver.hello()
            await leaver.join(rated=False)
            await leaver.until("joined")
            run = asyncio.ensure_future(
                run_bot_async(
                    Lowest(),
                    server.address,
                    mine_token,
                    ["guandan"],
                    rated=False,
                    matches=1,
                    fill_after=0.05,
                    fill_bot="first",
                    reporter=recording,
                )
            )
            await leaver.until("seat_assigned")
            await leaver.send(leave=arena_pb2.Leave(now=True))
            summary = await run
            await leaver.close()
            return summary

        with capture_logs() as logs:
            summary = play(main(), recording)
    finally:
        server.close()
    match_id = summary.results[0].match_id
    seated = next(f for f in recording.facts if isinstance(f, Seated))
    assert "rep-flee" in (seated.partner, *seated.opponents)
    outcome = "lost" if seated.partner == "rep-flee" else "won"
    index(recording.lines, rf"match {match_id}: {outcome} by forfeit \(.+\); totals ")
    [result] = [e for e in mine(logs, "rep-stay") if e["event"] == "match_result"]
    assert result["reason"] == "forfeit" and result["outcome"] == outcome


class Slow(Lowest):
    """Takes its time: a whole match lasts long, and the server's last messages come
    while it thinks (they must not be lost when the server then ends the call)."""

    def act(self, observation: Observation) -> Action | str:
        time.sleep(0.05)
        return super().act(observation)


def test_a_shutdown_mid_match_then_an_unreachable_server_is_told(store: Store) -> None:
    """Draining, the match cut short (no won or lost), reconnections, then the error."""
    server = Arena(store)  # a whole match: many deals
    try:
        token = server.token("rep-down")
        recording = Recording()
        started = asyncio.Event()
        recording.when(lambda f: isinstance(f, Seated), started.set)

        async def main() -> None:
            run = asyncio.ensure_future(
                run_bot_async(
                    Slow(),
                    server.address,
                    token,
                    ["guandan"],
                    rated=False,
                    matches=2,
                    fill_after=0.05,
                    fill_bot="first",
                    backoff=(0.05, 0.1),
                    max_retries=2,
                    reporter=recording,
                )
            )
            await started.wait()
            # as `arena serve` stops: half a second to drain (far too little for a whole
            # match of a slow bot), then a grace period for the calls
            await asyncio.to_thread(server.run, server.running.stop(5.0, drain=0.5))
            await run

        with capture_logs() as logs, pytest.raises(ClientError, match="UNAVAILABLE"):
            play(main(), recording)
    finally:
        server.close()
    lines = recording.lines
    at = index(
        lines, r"the server is draining \(.+\); running matches end by \d{4}-\d\d-\d\dT[\d:]{8}Z$"
    )
    at = index(lines, r"match \S+ ended \(shutdown\): ", at)
    at = index(
        lines, r"connection to .+ lost \(.+\); connecting again in 0\.05 s \(attempt 1\)$", at
    )
    index(lines, r"connection to .+ lost \(.+\); connecting again in 0\.1 s \(attempt 2\)$", at)
    events = mine(logs, "rep-down")
    [result] = [e for e in events if e["event"] == "match_result"]
    assert result["reason"] == "shutdown" and result["outcome"] == ""
    assert any(e["event"] == "server_draining" and e["log_level"] == "warning" for e in events)
    assert [e["attempt"] for e in events if e["event"] == "reconnecting"] == [1, 2]


def test_a_match_that_cannot_start_then_one_that_fails_are_told_and_play_goes_on(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server cannot set up the first match (an Error: the bot joins again), fails
    in the middle of the second (ended with the reason ``error``) and plays the third."""
    made: list[str] = []
    make = bots.make

    def make_but_fail_first(name: str, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs:  # with a seed: a seat of a match being set up (not a name check)
            made.append(name)
            if len(made) == 1:
                raise ConfigError(f"cannot make {name!r}")
        return make(name, *args, **kwargs)

    matches: list[str] = []

    async def play_but_fail_first(*args: Any, on_event: Callable[..., None], **kwargs: Any) -> Any:
        matches.append("played")
        first = len(matches) == 1

        def event(*event_args: Any) -> None:
            if first:
                raise RuntimeError("an engine bug")
            on_event(*event_args)

        return await engine.play_match_async(*args, on_event=event, **kwargs)

    monkeypatch.setattr(bots, "make", make_but_fail_first)
    monkeypatch.setattr(session, "play_match_async", play_but_fail_first)
    server = Arena(store, max_deals=1)
    try:
        token = server.token("rep-fail")
        recording = Recording()
        with capture_logs() as logs:
            summary = play(
                run_bot_async(
                    Lowest(),
                    server.address,
                    token,
                    ["guandan"],
                    rated=False,
                    matches=2,
                    fill_after=0.05,
                    fill_bot="first",
                    reporter=recording,
                ),
                recording,
            )
    finally:
        server.close()
    failed, played = summary.results
    assert failed.result.reason == arena_pb2.END_REASON_ERROR
    lines = recording.lines
    at = index(lines, "waiting for seats: ")
    at = index(lines, r"server error INTERNAL: the server could not start a guandan match", at)
    at = index(lines, "waiting for seats: ", at)  # joined again
    at = index(lines, rf"seated: match {failed.match_id} ", at)
    at = index(lines, rf"match {failed.match_id} ended \(error\): .+; totals ", at)
    at = index(lines, rf"seated: match {played.match_id} ", at)
    index(lines, rf"match {played.match_id}: (won|lost|drawn)", at)
    events = mine(logs, "rep-fail")
    [error] = [e for e in events if e["event"] == "server_error"]
    assert error["code"] == "INTERNAL" and error["log_level"] == "warning"
    reasons = [e["reason"] for e in events if e["event"] == "match_result"]
    assert reasons[0] == "error" and reasons[1] in ("complete", "deal_limit")


def result(reason: int, winner: int | None = None, totals: tuple[int, ...] = (0, 0, 0, 0)) -> Any:
    return arena_pb2.MatchResult(reason=reason, winner_team=winner, totals=totals)  # type: ignore[arg-type]


def test_the_outcome_of_a_match_for_its_player() -> None:
    complete, limit = arena_pb2.END_REASON_COMPLETE, arena_pb2.END_REASON_DEAL_LIMIT
    assert match_outcome(result(complete, 1), 3, partnered=True) == "won"
    assert match_outcome(result(complete, 1), 2, partnered=True) == "lost"
    assert match_outcome(result(limit, None, (3, 1, 0, 1)), 2, partnered=True) == "won"
    assert match_outcome(result(limit, None, (2, 1, 0, 1)), 1, partnered=True) == "drawn"
    # partners change every deal (sanfu): the player's own total against the others'
    assert match_outcome(result(limit, None, (6, -2, -2, -2)), 0, partnered=False) == "won"
    assert match_outcome(result(limit, None, (6, -2, -2, -2)), 2, partnered=False) == "lost"
    assert match_outcome(result(limit, None, (0, 0, 0, 0)), 2, partnered=False) == "drawn"
    for cut_short in ("CANCELLED", "SHUTDOWN", "ERROR"):
        reason = arena_pb2.EndReason.Value(f"END_REASON_{cut_short}")
        assert match_outcome(result(reason, 0), 0, partnered=True) == ""
        assert end_reason(reason) == cut_short.lower()
    assert match_outcome(result(complete, 0), None, partnered=True) == ""
    assert end_reason(99) == "reason 99"  # a reason newer than the SDK


def test_a_failed_match_and_a_server_error_are_one_line_each() -> None:
    failed = MatchOver(
        match_id="m-1",
        variant="sanfu",
        reason=end_reason(arena_pb2.END_REASON_ERROR),
        outcome="",
        winner_team=None,
        summary="the server failed after 1 deal (store unavailable): not stored, not rated",
        deals=1,
        totals=(3, -1, -1, -1),
        player=0,
        rated=False,
    )
    assert failed.line() == (
        "match m-1 ended (error): the server failed after 1 deal (store unavailable): "
        "not stored, not rated; totals 3 -1 -1 -1 (yours 3)"
    )
    error = ServerError("INVALID_ARGUMENT", "unknown request 'r-9'", "r-9")
    assert error.line() == "server error INVALID_ARGUMENT about r-9: unknown request 'r-9'"
    refused = Refused("r-2", "play", "MALFORMED", "expected cards after 'play'", 8)
    assert refused.line() == (
        "answer 'play' to r-2 refused (MALFORMED): expected cards after 'play'; 8 attempts left"
    )
    for fact in (failed, error, refused):
        assert "\n" not in fact.line()


def test_every_fact_is_one_line_naming_what_happened() -> None:
    sanfu = Seated("m-2", "sanfu", True, 1, ("ada", "me", "bo", "cy"), "", ("ada", "bo"))
    assert sanfu.line() == (
        "seated: match m-2 (sanfu, rated), player 1, partners change every deal, "
        "with ada, bo and cy"
    )
    lost = DecisionLost("r-7", "TIMED_OUT", "pass")
    assert lost.line() == "r-7 timed out: the server played 'pass'"
    too_many = DecisionLost("r-8", "TOO_MANY_ATTEMPTS", "play 3s")
    assert too_many.line() == "r-8 had too many refused answers: the server played 'play 3s'"
    waiting = Waiting(("guandan", "sanfu"), True, 0, None, "random")
    assert waiting.line() == "waiting for seats: rated guandan or sanfu"
    assert (
        Resumed("m-3", "guandan", 2, 4).line() == "resumed: match m-3 (guandan), player 2, deal 4"
    )
    assert Draining("", "").line() == "the server is draining (no reason given)"
    assert sanfu.fields()["players"] == ("ada", "me", "bo", "cy")
    assert lost.fields() == {"request_id": "r-7", "status": "TIMED_OUT", "played": "pass"}


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_lines_in_a_terminal_structured_logs_otherwise() -> None:
    assert isinstance(reporter_for(Tty(), environ={}), HumanReporter)
    assert isinstance(reporter_for(io.StringIO(), environ={}), LogReporter)
    assert isinstance(reporter_for(Tty(), environ={"ARENA_LOG_FORMAT": "json"}), LogReporter)
    console = {"ARENA_LOG_FORMAT": "console"}
    assert isinstance(reporter_for(io.StringIO(), environ=console), HumanReporter)


class FailsOnce(Lowest):
    """Raises on its first decision, plays like :class:`Lowest` after."""

    def __init__(self) -> None:
        super().__init__()
        self.failed = False

    def act(self, observation: Observation) -> Action | str:
        if not self.failed:
            self.failed = True
            raise ValueError("boom")
        return super().act(observation)


def test_a_bot_that_raises_is_told_with_its_traceback_and_play_goes_on(store: Store) -> None:
    """The bot's own exception ends neither the run nor the match: it is told (line and
    traceback; an error event), no answer goes out, and the server's automatic play
    takes that decision when its time is up."""
    clock = ClockConfig(decision_seconds=0.3, time_bank_seconds=0.0, grace_seconds=30.0)
    server = ServerThread(store, play=PlayConfig(clock=clock, max_deals=1))
    try:
        with grpc.insecure_channel(server.address) as channel:
            token = register(channel, "rep-raise").token
        recording = Recording()
        coroutine = run_bot_async(
            FailsOnce(),
            server.address,
            token,
            ["guandan"],
            rated=False,
            matches=1,
            fill_after=0.05,
            fill_bot="first",
            reporter=recording,
        )
        with capture_logs() as logs:
            summary = play(coroutine, recording)
    finally:
        server.close()
    assert summary.matches == 1
    lines = recording.lines
    at = index(lines, r"your bot raised ValueError: boom deciding \S+; no answer sent")
    at = index(lines, r'.*raise ValueError\("boom"\)$', at)  # the traceback follows
    at = index(lines, r"\S+ timed out: the server played '.+'$", at)
    index(lines, rf"match {summary.results[0].match_id}: ", at)
    [failed] = [e for e in mine(logs, "rep-raise") if e["event"] == "bot_failed"]
    assert failed["log_level"] == "error" and failed["error"] == "ValueError: boom"
    assert "Traceback" in failed["traceback"]
