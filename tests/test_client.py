"""The bot SDK: a Bot subclass plays in process (FakeArena) and on a real server."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator

import grpc
import pytest
from test_server import OTHER_KEY, register
from test_server_play import PlayServer

from arena.client import Bot, ClientError, FakeArena, run_bot, run_bot_async
from arena.client.wire import observation_from_proto
from arena.errors import ArenaError
from arena.games import make
from arena.games.base import Action, Observation
from arena.games.views import SoFar
from arena.server.remote import observation_to_proto
from arena.store import Store

ILLEGAL = "play BJ BJ BJ BJ BJ BJ BJ"


class Lowest(Bot):
    """The first legal action; remembers what it saw."""

    def __init__(self) -> None:
        self.seen: list[Observation] = []
        self.refusals: list[tuple[Action | str, str]] = []

    def act(self, observation: Observation) -> Action | str:
        self.seen.append(observation)
        return observation.legal_actions[0]

    def on_illegal(self, action: Action | str, reason: str) -> None:
        self.refusals.append((action, reason))


class Stubborn(Lowest):
    """First answers something illegal, then plays properly."""

    def act(self, observation: Observation) -> Action | str:
        if not self.refusals:
            self.seen.append(observation)
            return ILLEGAL
        return super().act(observation)


class AsyncText(Bot):
    async def act(self, observation: Observation) -> Action | str:
        await asyncio.sleep(0)
        return str(observation.legal_actions[-1])


def test_fake_arena_plays_a_match() -> None:
    bot = Lowest()
    result = FakeArena("guandan", seed=3).play(bot, max_deals=2)
    assert len(result.outcomes) == 2 and result.record.players[0] == "Lowest"
    assert bot.seen and all(o.seat == 0 and o.legal_actions for o in bot.seen)
    assert not bot.refusals


def test_fake_arena_async_bot_and_illegal_answers() -> None:
    result = FakeArena("shengji-1", seed=1).play(
        AsyncText(), ("first", "random", "first"), max_deals=1
    )
    assert len(result.outcomes) == 1
    bot = Stubborn()
    FakeArena("guandan").play(bot, max_deals=1)
    assert len(bot.refusals) == 1
    action, reason = bot.refusals[0]
    assert action == ILLEGAL and "illegal" in reason.lower()


def test_observations_survive_the_wire() -> None:
    """Engine → wire (the server's converters) → engine (the SDK's) is the identity."""
    for variant in ("guandan", "shengji-2", "sanfu"):
        state = make(variant).new_deal(seed=5)
        for _ in range(12):
            if state.is_terminal():
                break
            seen = state.observe(state.to_act)
            message = observation_to_proto(seen, 0)
            back = observation_from_proto(message, seen.events)
            assert back._replace(public={}, private={}) == seen._replace(public={}, private={})
            assert back.to_dict() == seen.to_dict()
            kept = list(seen.events)  # the SDK keeps the carried events first, then views them
            viewed = observation_from_proto(message, SoFar(kept, len(kept)), kept=True)
            assert viewed == back and isinstance(viewed.events, SoFar)
            state.apply(seen.legal_actions[0])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    with Store.open(tmp_path_factory.mktemp("client") / "arena.sqlite") as store:
        running = PlayServer(store)
        yield running.running.port
        running.close()


def tokens(port: int, prefix: str) -> list[str]:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        return [
            register(channel, f"{prefix}-ada-1").token,
            register(channel, f"{prefix}-grace-1", OTHER_KEY).token,
            register(channel, f"{prefix}-ada-2").token,
            register(channel, f"{prefix}-grace-2", OTHER_KEY).token,
        ]


def test_four_sdk_bots_play_a_match(server: int) -> None:
    port = server
    bots = [Stubborn(), Lowest(), Lowest(), Lowest()]

    async def four() -> list[object]:
        return list(
            await asyncio.gather(
                *(
                    run_bot_async(bot, f"127.0.0.1:{port}", token, ["shengji-1"], matches=1)
                    for bot, token in zip(bots, tokens(port, "sdk"), strict=True)
                )
            )
        )

    summaries = asyncio.run(asyncio.wait_for(four(), 120))
    ids = set()
    for summary in summaries:
        assert summary.matches == 1 and summary.reconnects == 0  # type: ignore[attr-defined]
        played = summary.results[0]  # type: ignore[attr-defined]
        assert played.variant == "shengji-1" and played.result.deals == 2
        assert played.result.rated and played.total is not None
        ids.add(played.match_id)
    assert len(ids) == 1

    # the illegal first answer: on_illegal with the engine's reason, then it went on
    stubborn = bots[0]
    assert len(stubborn.refusals) == 1
    action, reason = stubborn.refusals[0]
    assert action == ILLEGAL and "illegal" in reason.lower()
    assert len(stubborn.seen) > 2

    # observations as the engine gives them: own seat, own hand, the deal's events
    for bot in bots:
        assert bot.seen and all(o.game == "shengji-1" and o.legal_actions for o in bot.seen)
        assert len({o.seat for o in bot.seen}) == 1
        assert any(o.events for o in bot.seen)
        assert all(e.seat in (-1, 0, 1, 2, 3) for o in bot.seen for e in o.events)


def test_refused_token_and_unreachable_server(server: int) -> None:
    with pytest.raises(ClientError, match="UNAUTHENTICATED"):
        run_bot(Lowest(), f"127.0.0.1:{server}", "nope", ["shengji-1"], matches=1)
    with pytest.raises(ClientError, match="UNAVAILABLE"):
        run_bot(Lowest(), "127.0.0.1:1", "t", matches=1, backoff=(0.01, 0.02), max_retries=2)


def _closed_port() -> int:
    """A port of 127.0.0.1 that was free a moment ago and that nobody listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_an_unreachable_server_is_given_up_after_a_bounded_time() -> None:
    """``arena bot run`` against a closed port stops by itself, saying why in one last
    line, exit status 2 (without a bound it retries until the subprocess times out);
    ``run_bot_async`` raises the same as a :class:`ClientError`."""
    port = _closed_port()
    command = [sys.executable, "-m", "arena.cli", "bot", "run", "bots.simple:RandomBot"]
    command += ["--server", f"127.0.0.1:{port}", "--token", "t", "--give-up-after", "0.5"]
    env = {**os.environ, "ARENA_LOG_FORMAT": "console"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
    last = done.stderr.strip().splitlines()[-1]
    assert done.returncode == 2, done.stderr
    assert last.startswith(f"arena: UNAVAILABLE: 127.0.0.1:{port}: "), last
    assert last.endswith("(at most 0.5 s): giving up"), last
    assert "Connection refused" in last and "no Welcome" not in last  # the true reason
    assert done.stdout == ""
    bound = r"UNAVAILABLE: .*no connection for [\d.]+ s \(at most 0\.2 s\): giving up"
    with pytest.raises(ClientError, match=bound):
        asyncio.run(
            run_bot_async(
                Lowest(), f"127.0.0.1:{port}", "t", backoff=(0.05, 0.1), give_up_after=0.2
            )
        )


def test_bot_run_gives_up_by_default() -> None:
    """Without ``--give-up-after`` the run is bounded too (0 asks for no bound)."""
    from arena.cli import build_parser
    from arena.commands.bot import GIVE_UP_AFTER

    parser = build_parser()
    args = parser.parse_args(["bot", "run", "bots.simple:RandomBot"])
    assert args.give_up_after == GIVE_UP_AFTER and 0 < GIVE_UP_AFTER < float("inf")
    forever = parser.parse_args(["bot", "run", "x:Y", "--give-up-after", "0"])
    assert forever.give_up_after == 0


def test_a_server_that_never_answers_is_given_up_too() -> None:
    """A listener that accepts the connection and never speaks gRPC ends the run within
    the bound: the attempt itself is cut when no Welcome came in time (gRPC alone waits
    for its handshake far longer), and the line says so."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        address = f"127.0.0.1:{silent.getsockname()[1]}"
        with pytest.raises(ClientError, match=r"no Welcome from the server; .*giving up"):
            asyncio.run(run_bot_async(Lowest(), address, "t", give_up_after=0.3))


def test_bot_run_command(server: int, capsys: pytest.CaptureFixture[str]) -> None:
    import argparse
    import threading

    from arena.commands.bot import add_parser, load_bot, run_bot_command

    parser = argparse.ArgumentParser(prog="arena")
    add_parser(parser.add_subparsers(dest="command"))
    keys = tokens(server, "cli")
    others = [
        threading.Thread(
            target=run_bot, args=(Lowest(), f"127.0.0.1:{server}", t, ["shengji-1"], False, 1)
        )
        for t in keys[1:]
    ]
    for thread in others:
        thread.start()
    args = parser.parse_args(
        [
            "bot",
            "run",
            "bots.simple:RandomBot",
            "--server",
            f"127.0.0.1:{server}",
            "--token",
            keys[0],
            "--variant",
            "shengji-1",
            "--casual",
            "--matches",
            "1",
        ]
    )
    assert run_bot_command(args) == 0
    for thread in others:
        thread.join(60)
    out, err = capsys.readouterr()
    assert out == "1 match played\n"  # what happened went to stderr, as log events
    events = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    finished = [e for e in events if e["event"] == "match_result"]
    assert len(finished) == 1 and finished[0]["match_id"].startswith("casual-shengji-1-")
    assert type(load_bot("bots.simple:FirstBot")).__name__ == "FirstBot"
    with pytest.raises(ArenaError, match="MODULE:CLASS"):
        load_bot("bots.simple")


def test_register_with_a_wrong_owner_key_says_the_key_is_wrong(server: int) -> None:
    """``arena bot register`` with a key the server does not know: one line saying the
    owner key is wrong (never a generic "unknown token"), exit status 2, nothing on stdout."""
    command = [sys.executable, "-m", "arena.cli", "bot", "register", "wrong-key-bot"]
    command += ["--server", f"127.0.0.1:{server}", "--owner-key", "not-a-key"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr.splitlines() == [
        "arena: UNAUTHENTICATED: wrong owner key: no owner key of this server matches"
    ]


def test_register_gives_a_token_that_plays(server: int, capsys: pytest.CaptureFixture[str]) -> None:
    from test_server import OWNER_KEY

    from arena.cli import main
    from arena.client import ClientError, register

    address = f"127.0.0.1:{server}"
    done = register(address, OWNER_KEY, "sdk-registered", version="2.0", games=["guandan"])
    assert done.bot_id == "sdk-registered" and done.created
    assert done.token.startswith("arena_") and done.token_id
    again = register(address, OWNER_KEY, "sdk-registered", version="2.1")
    assert not again.created and again.token != done.token
    with pytest.raises(ClientError, match="UNAUTHENTICATED"):
        register(address, "not-a-key", "sdk-other")
    with pytest.raises(ClientError, match=r"INVALID_ARGUMENT.*bad bot name"):
        register(address, OWNER_KEY, "no spaces")

    assert (
        main(["bot", "register", "cli-registered", "--server", address, "--owner-key", OWNER_KEY])
        == 0
    )
    out, err = capsys.readouterr()
    assert out.strip().startswith("arena_") and "registered cli-registered" in err
    assert main(["bot", "register", "cli-x", "--server", address, "--owner-key", "bad"]) == 2
    assert "UNAUTHENTICATED" in capsys.readouterr().err


def test_a_wait_of_zero_before_filling_asks_for_filling_at_once() -> None:
    """``--fill-after 0`` fills at once: the wire's 0 would ask for no filling at all
    (the bot waited for seats for ever)."""
    from arena.client.runner import fill_after_ms

    assert fill_after_ms(None) == 0
    assert fill_after_ms(0.0) == 1
    assert fill_after_ms(0.0001) == 1
    assert fill_after_ms(0.05) == 50


def test_a_lone_bot_plays_with_built_in_bots_after_a_wait(
    server: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``arena bot run`` as read in a terminal: what happens, one line each, on stderr."""
    from arena.cli import main

    monkeypatch.setenv("ARENA_LOG_FORMAT", "console")  # as in a terminal

    (token,) = tokens(server, "alone")[:1]
    code = main(
        [
            "bot",
            "run",
            "bots.heuristic:HeuristicBot",
            "--server",
            f"127.0.0.1:{server}",
            "--token",
            token,
            "--variant",
            "guandan",
            "--casual",
            "--matches",
            "1",
            "--fill-after",
            "0.05",
            "--fill-bot",
            "first",
        ]
    )
    assert code == 0
    out, err = capsys.readouterr()
    assert out == "1 match played\n"
    lines = err.splitlines()
    told = [
        rf"connected to 127\.0\.0\.1:{server} as alone-ada-1 \(server ",
        r"waiting for seats: casual guandan, 1 match to play; 'first' fills empty seats after",
        r"seated: match casual-guandan-\S+ \(guandan, casual\), player \d, partner first, "
        r"opponents first and first$",
        r"deal 1: .+; totals ",
        r"deal 2: .+; totals ",
        r"match casual-guandan-\S+: (won|lost|drawn)",
    ]
    at = 0
    for pattern in told:  # in this order; the server's own log lines may come between
        found = [i for i in range(at, len(lines)) if re.match(pattern, lines[i])]
        assert found, f"no line matching {pattern!r} after line {at} of:\n{err}"
        at = found[0] + 1
