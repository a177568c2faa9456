"""The contract is checkable: what docs/protocol.md and the .proto's comments document is
what a real server (127.0.0.1, any port) does.

* Statuses: the doc's per-method table and its table of Play ``Error`` codes are read,
  and each row is produced in its situation by a scenario below; a row without a
  scenario, or a scenario without a row, fails (a status documented but never returned,
  or returned but not documented), as does a status code named in a server module that
  its services do not document.
* Fields: a session is played (register, connect, join, decide, watch, list, rate), and
  every field of every message the server sent is set somewhere unless its comment says
  when it may be empty, unset or 0.
* Enum values: each is documented, each status or reason the server sent is one.
* Example values: the limits, clock defaults, error texts, identifiers, versions and
  prose numbers of docs/protocol.md are the server's; its example session, sent to a
  real server, gets the same answers.
* Records: every entry a record holds is an action or one of the documented marks.
* The .proto's comments name only statuses the doc's tables give their methods, and any
  request (property-based) ends with one of those, in plain words.
"""

from __future__ import annotations

import dataclasses
import json
import queue
import random
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format, message_factory, struct_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_proto import elements, source_descriptor
from test_server import ADMIN, OTHER_KEY, OWNER_KEY, ServerThread, bearer, register

import bots
from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.cards import format_cards, parse_cards
from arena.errors import IllegalActionError, ParseError
from arena.games import make
from arena.games.base import NOBODY, NUM_SEATS, Action, Event, Outcome
from arena.match import AUTO_MARK, AUTO_PLAYS_TO_FLEE, FLED_MARK, Clock, play_match
from arena.protocol import (
    MAX_ATTEMPTS,
    PROTOCOL,
    action_from_proto,
    action_of_reply,
    action_to_proto,
)
from arena.server import session as session_module
from arena.server.app import DRAIN_SECONDS, MAX_RECEIVE_BYTES, MAX_SEND_BYTES
from arena.server.limits import RateLimit
from arena.server.play import PlayConfig
from arena.server.remote import observation_to_proto
from arena.server.results import end_of_match
from arena.server.services import DEFAULT_PAGE, MAX_PAGE, REGISTRATIONS_PER_MINUTE
from arena.server.session import (
    DEFAULT_DECISION_SECONDS,
    DEFAULT_GRACE_SECONDS,
    DEFAULT_TIME_BANK_SECONDS,
)
from arena.store import RatingUpdate, Store, StoredMatch

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
SERVER = ROOT / "arena" / "server"
CORRUPT = b"\xff\xff\xff"
GUARDED = ("Registry", "Play", "Admin")


# -- the doc's tables ------------------------------------------------------------------


def table_after(header: str) -> list[list[str]]:
    """The rows of the Markdown table whose header line starts with ``header``."""
    lines = DOC.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip().replace("`", "") for cell in line.strip("|").split("|")])
    return rows


def status_rows() -> set[tuple[str, str]]:
    """(method, status) for every row of the per-method table."""
    return {(row[0], row[1]) for row in table_after("| method | status | when |")}


def error_codes() -> set[str]:
    return {row[0] for row in table_after("| `Error.code` | when |")}


# -- a server and its calls ----------------------------------------------------------------


@dataclass
class Arena:
    """A running server with a registered bot, a stored finished match and a scheduled one."""

    server: ServerThread
    store: Store
    channel: grpc.Channel
    token: str
    token_id: str
    finished: str
    scheduled: str
    extra: list[ServerThread] = field(default_factory=list)

    @property
    def registry(self) -> arena_pb2_grpc.RegistryStub:
        return arena_pb2_grpc.RegistryStub(self.channel)

    @property
    def admin(self) -> arena_pb2_grpc.AdminStub:
        return arena_pb2_grpc.AdminStub(self.channel)

    @property
    def board(self) -> arena_pb2_grpc.LeaderboardStub:
        return arena_pb2_grpc.LeaderboardStub(self.channel)

    @property
    def spectate(self) -> arena_pb2_grpc.SpectateStub:
        return arena_pb2_grpc.SpectateStub(self.channel)

    def another(self, **options: Any) -> ServerThread:
        """Another server on the same store, with its own options (closed at the end)."""
        server = ServerThread(self.store, **options)
        self.extra.append(server)
        return server


def stored_match(match_id: str, seed: int = 7, tamper: bool = False) -> StoredMatch:
    """A finished one-deal Guandan match between random bots; ``tamper``: its record no
    longer re-plays (its fourth action is replaced by one the deal refuses)."""
    game = make("guandan")
    players = ["random"] * 4
    result = play_match(
        game,
        [bots.make("random", seed + p) for p in range(4)],
        seed=seed,
        players=players,
        max_deals=1,
    )
    record = result.record.to_dict()
    if tamper:
        record["deals"][0]["actions"][3] = "play BJ BJ BJ BJ BJ BJ BJ"
    return StoredMatch(
        id=match_id,
        tournament_id=None,
        variant="guandan",
        options=dict(game.options),
        seed=seed,
        seating=tuple(players),
        outcome={"winner": None, "totals": [0, 0, 0, 0], "team_score": 0.5},
        record=record,
        deals=1,
        decisions=len(record["deals"][0]["actions"]),
    )


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Arena]:
    with Store.open(tmp_path_factory.mktemp("contract") / "arena.sqlite") as store:
        store.add_bot("random", "builtin")
        store.add_match(
            stored_match("finished-1"), [RatingUpdate("random", "guandan", "elo", 1510.0)]
        )
        store.add_match(stored_match("broken-1", tamper=True))
        server = ServerThread(store, play=PlayConfig(max_deals=1))
        with grpc.insecure_channel(server.address) as channel:
            bot = register(channel, "contract-bot")
            waiting = arena_pb2_grpc.AdminStub(channel).CreateFixture(
                WAITING_FIXTURE, metadata=bearer(ADMIN)
            )
            running = Arena(
                server, store, channel, bot.token, bot.token_id, "finished-1", waiting.match_ids[0]
            )
            yield running
        for extra in running.extra:
            extra.close()
        server.close()


WAITING_FIXTURE = arena_pb2.CreateFixtureRequest(
    name="waiting",
    variant="guandan",
    players=["contract-bot", "random", "contract-bot", "random"],
    seed=1,
)
"""A fixture of a bot that never connects: its match stays scheduled."""


class Stream:
    """One Play connection, driven synchronously."""

    def __init__(self, address: str, token: str) -> None:
        self._outbox: queue.Queue[arena_pb2.ClientMessage | None] = queue.Queue()
        self._channel = grpc.insecure_channel(address)
        connect = self._channel.stream_stream(
            "/arena.v1.Play/Connect",
            request_serializer=arena_pb2.ClientMessage.SerializeToString,
            response_deserializer=arena_pb2.ServerMessage.FromString,
        )
        self._inbox = connect(iter(self._outbox.get, None), metadata=bearer(token), timeout=60)
        self.received: list[arena_pb2.ServerMessage] = []

    def send(self, **body: Any) -> None:
        self.send_message(arena_pb2.ClientMessage(**body))

    def send_message(self, message: arena_pb2.ClientMessage) -> None:
        self._outbox.put(message)

    def hello(self, protocol: int = 1, **fields: Any) -> arena_pb2.Welcome:
        self.send(hello=arena_pb2.Hello(protocol=protocol, **fields))
        return self.until("welcome").welcome

    def until(self, kind: str) -> arena_pb2.ServerMessage:
        """The next message with body ``kind`` (every message is kept in ``received``)."""
        return self.until_any(kind)

    def until_any(self, *kinds: str) -> arena_pb2.ServerMessage:
        for message in self._inbox:
            self.received.append(message)
            if message.WhichOneof("body") in kinds:
                return message
        raise AssertionError(f"the stream ended before a {' or '.join(kinds)}")

    def status(self) -> tuple[grpc.StatusCode, str]:
        """How the call ends (reading what is left)."""
        try:
            for message in self._inbox:
                self.received.append(message)
        except grpc.RpcError as err:
            return err.code(), err.details()  # type: ignore[attr-defined]
        return grpc.StatusCode.OK, ""

    def close(self) -> None:
        self._outbox.put(None)
        self._inbox.cancel()  # type: ignore[attr-defined]
        self._channel.close()


def status_of(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    try:
        result = call()
        if isinstance(result, Iterator):
            list(result)
    except grpc.RpcError as err:
        return err.code(), err.details()  # type: ignore[attr-defined]
    return grpc.StatusCode.OK, ""


def play_status(
    address: str, token: str, *messages: arena_pb2.ClientMessage
) -> tuple[grpc.StatusCode, str]:
    """How a Play call that sends ``messages`` ends."""
    stream = Stream(address, token)
    for message in messages:
        stream.send_message(message)
    try:
        return stream.status()
    finally:
        stream.close()


def hello(protocol: int = 1, **fields: Any) -> arena_pb2.ClientMessage:
    return arena_pb2.ClientMessage(hello=arena_pb2.Hello(protocol=protocol, **fields))


# -- statuses: one scenario per documented row ------------------------------------------

Ended = tuple[grpc.StatusCode, str]
Scenario = Callable[[Arena, pytest.MonkeyPatch], Ended]
SCENARIOS: dict[tuple[str, str], Scenario] = {}


def scenario(method: str, status: str) -> Callable[[Scenario], Scenario]:
    def add(function: Scenario) -> Scenario:
        SCENARIOS[method, status] = function
        return function

    return add


@scenario("every method", "INVALID_ARGUMENT")
def _corrupt_body(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    call = arena.channel.unary_unary("/arena.v1.Leaderboard/GetRatings")
    return status_of(lambda: call(CORRUPT))


@scenario("every method", "RESOURCE_EXHAUSTED")
def _oversized(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    big = arena_pb2.GetMatchRecordRequest(match_id="x" * (1024 * 1024 + 10))
    return status_of(lambda: arena.board.GetMatchRecord(big))


@scenario("Registry, Play, Admin", "UNAUTHENTICATED")
def _no_token(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    return status_of(lambda: arena.admin.ListMatches(arena_pb2.ListMatchesRequest()))


@scenario("Registry, Play, Admin", "PERMISSION_DENIED")
def _wrong_kind(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    request = arena_pb2.ListMatchesRequest()
    return status_of(lambda: arena.admin.ListMatches(request, metadata=bearer(OWNER_KEY)))


@scenario("Registry.Register", "INVALID_ARGUMENT")
def _bad_name(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    request = arena_pb2.RegisterRequest(name="no spaces!")
    return status_of(lambda: arena.registry.Register(request, metadata=bearer(OWNER_KEY)))


@scenario("Registry.Register", "ALREADY_EXISTS")
def _name_taken(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    request = arena_pb2.RegisterRequest(name="contract-bot")
    return status_of(lambda: arena.registry.Register(request, metadata=bearer(OTHER_KEY)))


@scenario("Registry.Register", "RESOURCE_EXHAUSTED")
def _too_many_registrations(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    server = arena.another(registrations_per_minute=1)
    with grpc.insecure_channel(server.address) as channel:
        register(channel, "once-a-minute")
        return status_of(lambda: register(channel, "twice-a-minute"))


@scenario("Registry.RevokeToken", "INVALID_ARGUMENT")
def _revoke_nothing(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    request = arena_pb2.RevokeTokenRequest()
    return status_of(lambda: arena.registry.RevokeToken(request, metadata=bearer(OWNER_KEY)))


@scenario("Registry.RevokeToken", "NOT_FOUND")
def _revoke_unknown(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    request = arena_pb2.RevokeTokenRequest(token_id="tok-0000000000000000")
    return status_of(lambda: arena.registry.RevokeToken(request, metadata=bearer(OWNER_KEY)))


@scenario("Registry.RevokeToken", "PERMISSION_DENIED")
def _revoke_anothers(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    request = arena_pb2.RevokeTokenRequest(bot_id="contract-bot")
    return status_of(lambda: arena.registry.RevokeToken(request, metadata=bearer(OTHER_KEY)))


@scenario("Play.Connect", "INVALID_ARGUMENT")
def _no_hello(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    join = arena_pb2.ClientMessage(join=arena_pb2.Join())
    return play_status(arena.server.address, arena.token, join)


@scenario("Play.Connect", "FAILED_PRECONDITION")
def _another_protocol(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    return play_status(arena.server.address, arena.token, hello(protocol=3))


@scenario("Play.Connect", "NOT_FOUND")
def _nothing_to_resume(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    return play_status(arena.server.address, arena.token, hello(resume_match_id="no-such-match"))


@scenario("Play.Connect", "RESOURCE_EXHAUSTED")
def _too_many_connections(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    server = arena.another(play=PlayConfig(max_connections_per_bot=1))
    first = Stream(server.address, arena.token)
    try:
        first.hello()
        return play_status(server.address, arena.token, hello())
    finally:
        first.close()


@scenario("Play.Connect", "UNAUTHENTICATED")
def _revoked_while_open(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    issued = register(arena.channel, "contract-bot")  # another token of the same bot
    stream = Stream(arena.server.address, issued.token)
    try:
        stream.hello()
        request = arena_pb2.RevokeTokenRequest(token_id=issued.token_id)
        revoked = arena.registry.RevokeToken(request, metadata=bearer(OWNER_KEY))
        assert revoked.revoked == 1 and revoked.connections_closed == 1
        return stream.status()
    finally:
        stream.close()


@scenario("Play.Connect", "UNAVAILABLE")
def _shutting_down(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    server = arena.another()
    stream = Stream(server.address, arena.token)
    try:
        stream.hello()
        server.run(server.running.play.drain("the contract test stops", 0))
        open_code, _text = stream.status()
        assert open_code == grpc.StatusCode.UNAVAILABLE  # the open call ends so
        assert stream.received[-1].WhichOneof("body") == "draining"
    finally:
        stream.close()
    return play_status(server.address, arena.token, hello())  # and a new one at Hello


@scenario("Spectate.Watch", "INVALID_ARGUMENT")
def _watch_nothing(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    return status_of(lambda: arena.spectate.Watch(arena_pb2.WatchRequest()))


@scenario("Spectate.Watch", "NOT_FOUND")
def _watch_unknown(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    return status_of(lambda: arena.spectate.Watch(arena_pb2.WatchRequest(match_id="nope")))


@scenario("Spectate.Watch", "INTERNAL")
def _watch_broken(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    return status_of(lambda: arena.spectate.Watch(arena_pb2.WatchRequest(match_id="broken-1")))


@scenario("Spectate.ListMatches", "INVALID_ARGUMENT")
def _list_bad_page(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    request = arena_pb2.ListMatchesRequest(page_token="not-a-page")
    return status_of(lambda: arena.spectate.ListMatches(request))


@scenario("Leaderboard.GetRatings", "INVALID_ARGUMENT")
def _ratings_of_nothing(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    return status_of(lambda: arena.board.GetRatings(arena_pb2.GetRatingsRequest()))


@scenario("Leaderboard.GetRatingHistory", "INVALID_ARGUMENT")
def _history_of_nothing(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    request = arena_pb2.GetRatingHistoryRequest(bot="random", variant="guandan", system="chess")
    return status_of(lambda: arena.board.GetRatingHistory(request))


@scenario("Leaderboard.GetMatchRecord", "INVALID_ARGUMENT")
def _record_of_nothing(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    return status_of(lambda: arena.board.GetMatchRecord(arena_pb2.GetMatchRecordRequest()))


@scenario("Leaderboard.GetMatchRecord", "NOT_FOUND")
def _record_unknown(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    request = arena_pb2.GetMatchRecordRequest(match_id="nope")
    return status_of(lambda: arena.board.GetMatchRecord(request))


@scenario("Leaderboard.GetMatchRecord", "FAILED_PRECONDITION")
def _record_not_yet(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    request = arena_pb2.GetMatchRecordRequest(match_id=arena.scheduled)
    return status_of(lambda: arena.board.GetMatchRecord(request))


@scenario("Admin.CreateFixture", "INVALID_ARGUMENT")
def _fixture_of_three(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    request = arena_pb2.CreateFixtureRequest(
        name="three", variant="guandan", players=["random"] * 3
    )
    return status_of(lambda: arena.admin.CreateFixture(request, metadata=bearer(ADMIN)))


@scenario("Admin.CreateFixture", "ALREADY_EXISTS")
def _fixture_again(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    return status_of(lambda: arena.admin.CreateFixture(WAITING_FIXTURE, metadata=bearer(ADMIN)))


TOURNAMENT = """
name = "contract-cup"
variant = "guandan"
teams = [["contract-bot", "contract-bot"], ["random", "random"]]
format = "round_robin"
matches = 1
seed = 1
"""


@scenario("Admin.CreateTournament", "INVALID_ARGUMENT")
def _tournament_of_nothing(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    request = arena_pb2.CreateTournamentRequest()
    return status_of(lambda: arena.admin.CreateTournament(request, metadata=bearer(ADMIN)))


@scenario("Admin.CreateTournament", "ALREADY_EXISTS")
def _tournament_again(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    request = arena_pb2.CreateTournamentRequest(toml=TOURNAMENT)
    first = arena.admin.CreateTournament(request, metadata=bearer(ADMIN))
    assert first.matches == 1
    return status_of(lambda: arena.admin.CreateTournament(request, metadata=bearer(ADMIN)))


@scenario("Admin.ListMatches", "INVALID_ARGUMENT")
def _admin_list_bad_page(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    request = arena_pb2.ListMatchesRequest(page_token="-1")
    return status_of(lambda: arena.admin.ListMatches(request, metadata=bearer(ADMIN)))


@scenario("Admin.CancelMatch", "INVALID_ARGUMENT")
def _cancel_nothing(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    request = arena_pb2.CancelMatchRequest()
    return status_of(lambda: arena.admin.CancelMatch(request, metadata=bearer(ADMIN)))


@scenario("Admin.CancelMatch", "NOT_FOUND")
def _cancel_unknown(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    request = arena_pb2.CancelMatchRequest(match_id="nope")
    return status_of(lambda: arena.admin.CancelMatch(request, metadata=bearer(ADMIN)))


@scenario("Admin.CancelMatch", "FAILED_PRECONDITION")
def _cancel_finished(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    request = arena_pb2.CancelMatchRequest(match_id=arena.finished)
    return status_of(lambda: arena.admin.CancelMatch(request, metadata=bearer(ADMIN)))


@scenario("Admin.RevokeToken", "INVALID_ARGUMENT")
def _admin_revoke_nothing(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    request = arena_pb2.RevokeTokenRequest()
    return status_of(lambda: arena.admin.RevokeToken(request, metadata=bearer(ADMIN)))


@scenario("Admin.RevokeToken", "NOT_FOUND")
def _admin_revoke_unknown(arena: Arena, _: pytest.MonkeyPatch) -> Ended:
    request = arena_pb2.RevokeTokenRequest(bot_id="nobody")
    return status_of(lambda: arena.admin.RevokeToken(request, metadata=bearer(ADMIN)))


# -- Play stream Error codes: one scenario per documented code ---------------------------

ErrorScenario = Callable[[Arena, pytest.MonkeyPatch], arena_pb2.Error]
ERROR_SCENARIOS: dict[str, ErrorScenario] = {}


def error_scenario(code: str) -> Callable[[ErrorScenario], ErrorScenario]:
    def add(function: ErrorScenario) -> ErrorScenario:
        ERROR_SCENARIOS[code] = function
        return function

    return add


def first_error(address: str, token: str, *bodies: dict[str, Any]) -> arena_pb2.Error:
    """The first Error a connection gets after Hello and ``bodies``."""
    stream = Stream(address, token)
    try:
        stream.hello()
        for body in bodies:
            stream.send(**body)
        return stream.until("error").error
    finally:
        stream.close()


@error_scenario("INVALID_ARGUMENT")
def _join_unknown_variant(arena: Arena, _: pytest.MonkeyPatch) -> arena_pb2.Error:
    join = arena_pb2.Join(variants=["gandan"])
    return first_error(arena.server.address, arena.token, {"join": join})


@error_scenario("FAILED_PRECONDITION")
def _second_hello(arena: Arena, _: pytest.MonkeyPatch) -> arena_pb2.Error:
    again = arena_pb2.Hello(protocol=1)
    return first_error(arena.server.address, arena.token, {"hello": again})


@error_scenario("RESOURCE_EXHAUSTED")
def _too_many_messages(arena: Arena, _: pytest.MonkeyPatch) -> arena_pb2.Error:
    server = arena.another(play=PlayConfig(max_messages_per_second=1))
    pings = [{"ping": arena_pb2.Ping(nonce=n)} for n in range(40)]
    return first_error(server.address, arena.token, *pings)


@error_scenario("UNAVAILABLE")
def _join_while_draining(arena: Arena, _: pytest.MonkeyPatch) -> arena_pb2.Error:
    server = arena.another()
    stream = Stream(server.address, arena.token)
    try:
        stream.hello()

        async def start_draining() -> None:  # drain()'s first step, held there
            server.running.play.draining = True

        server.run(start_draining())
        stream.send(join=arena_pb2.Join(variants=["guandan"]))
        return stream.until("error").error
    finally:
        stream.close()


@error_scenario("INTERNAL")
def _match_cannot_start(arena: Arena, monkeypatch: pytest.MonkeyPatch) -> arena_pb2.Error:
    def broken(name: str, **options: Any) -> Any:
        raise RuntimeError("the contract test breaks the game registry")

    server = arena.another()
    monkeypatch.setattr(session_module.games, "make", broken)
    join = arena_pb2.Join(variants=["guandan"], fill_after_ms=1)
    return first_error(server.address, arena.token, {"join": join})


# -- the tests of statuses --------------------------------------------------------------


def test_every_documented_status_has_a_scenario_and_every_scenario_a_row() -> None:
    documented = status_rows()
    assert documented - set(SCENARIOS) == set(), "documented statuses no test produces"
    assert set(SCENARIOS) - documented == set(), "statuses produced but not documented"
    assert error_codes() == set(ERROR_SCENARIOS)


@pytest.mark.parametrize("row", sorted(SCENARIOS), ids=lambda row: f"{row[0]}:{row[1]}")
def test_each_documented_status_is_produced_in_its_situation(
    arena: Arena, monkeypatch: pytest.MonkeyPatch, row: tuple[str, str]
) -> None:
    code, details = SCENARIOS[row](arena, monkeypatch)
    assert code.name == row[1], (row, code, details)
    assert details and "Traceback" not in details and "<class" not in details


@pytest.mark.parametrize("code", sorted(ERROR_SCENARIOS))
def test_each_documented_error_code_is_sent_in_its_situation(
    arena: Arena, monkeypatch: pytest.MonkeyPatch, code: str
) -> None:
    error = ERROR_SCENARIOS[code](arena, monkeypatch)
    assert error.code == code, error
    assert error.message and "Traceback" not in error.message


SERVICE_MODULES = {
    "services.py": ("Registry", "Leaderboard", "Spectate", "Admin"),
    "admin.py": ("Admin",),
    "spectate.py": ("Spectate",),
    "play.py": ("Play",),
    "interceptor.py": GUARDED,
    "decoding.py": ("every method",),
}
"""The services each module of the server answers for (its status codes must be theirs)."""


def documented_for(service: str) -> set[str]:
    """The statuses documented for a service (its methods, the guarded ones, every method),
    and for Play the Error codes too."""
    codes = set()
    for method, status in status_rows():
        names = {name.strip() for name in method.split(",")}
        if (
            method == "every method"
            or service in names
            or any(name.startswith(f"{service}.") for name in names)
        ):
            codes.add(status)
    if service == "Play":
        codes |= error_codes()
    return codes


def test_every_status_a_server_module_names_is_documented_for_its_services() -> None:
    everything = {status for _, status in status_rows()} | error_codes()
    for path in sorted(SERVER.glob("*.py")):
        used = set(re.findall(r"StatusCode\.([A-Z_]+)", path.read_text(encoding="utf-8")))
        services = SERVICE_MODULES.get(path.name)
        allowed = (
            everything
            if services is None
            else set().union(*(documented_for(service) for service in services))
        )
        assert used <= allowed, f"{path.name} names undocumented statuses {used - allowed}"


# -- fields: every field the server sends is set where documented --------------------------

EXEMPT = re.compile(
    r"unset|empty|\bnone\b|\bfalse\b|if any|otherwise|usually|when not|\b0(:| when| means)",
    re.IGNORECASE,
)
"""Words by which a field's comment says it may be left at its default."""


@dataclass
class Seen:
    """Per message type, the fields set in at least one message the server sent."""

    types: dict[str, Any] = field(default_factory=dict)
    set_fields: dict[str, set[str]] = field(default_factory=dict)
    enum_values: set[str] = field(default_factory=set)
    """Every enum value sent, by name."""

    def add(self, message: Any) -> None:
        descriptor = message.DESCRIPTOR
        if descriptor.file.package != "arena.v1":
            return
        self.types[descriptor.name] = descriptor
        fields = self.set_fields.setdefault(descriptor.name, set())
        for described, value in message.ListFields():
            fields.add(described.name)
            if described.enum_type is not None:
                values = value if described.is_repeated else [value]
                self.enum_values |= {described.enum_type.values_by_number[v].name for v in values}
            if described.message_type is None:
                continue
            for item in value if described.is_repeated else [value]:
                self.add(item)


def walk_a_session(arena: Arena) -> Seen:
    """Everything a bot, a spectator, an owner and an operator are sent in one session."""
    seen = Seen()
    clock = session_module.ClockConfig(decision_seconds=4.0, time_bank_seconds=0.5)
    server = arena.another(play=PlayConfig(max_deals=1, clock=clock))
    with grpc.insecure_channel(server.address) as channel:
        issued = register(channel, "walker")
        seen.add(issued)
        spectate = arena_pb2_grpc.SpectateStub(channel)
        listed = arena_pb2.ListMatchesRequest(statuses=[arena_pb2.MATCH_STATUS_RUNNING])
        play_a_compact_match(server, issued.token, seen)
        match_id = play_a_match(
            server, issued.token, seen, during=lambda: seen.add(spectate.ListMatches(listed))
        )
        for message in spectate.Watch(arena_pb2.WatchRequest(match_id=match_id)):
            seen.add(message)
        seen.add(spectate.ListMatches(arena_pb2.ListMatchesRequest(page_size=1)))
        board = arena_pb2_grpc.LeaderboardStub(channel)
        seen.add(board.GetRatings(arena_pb2.GetRatingsRequest(variant="guandan")))
        history = arena_pb2.GetRatingHistoryRequest(
            bot="walker", variant="guandan", system="openskill"
        )
        seen.add(board.GetRatingHistory(history))
        seen.add(board.GetMatchRecord(arena_pb2.GetMatchRecordRequest(match_id=match_id)))
        admin = arena_pb2_grpc.AdminStub(channel)
        fixture = arena_pb2.CreateFixtureRequest(
            name="walk", variant="guandan", players=["walker"] * 4, seed=3
        )
        created = admin.CreateFixture(fixture, metadata=bearer(ADMIN))
        seen.add(created)
        seen.add(admin.ListMatches(arena_pb2.ListMatchesRequest(), metadata=bearer(ADMIN)))
        cancel = arena_pb2.CancelMatchRequest(match_id=created.match_ids[0], reason="walked")
        seen.add(admin.CancelMatch(cancel, metadata=bearer(ADMIN)))
        cup = arena_pb2.CreateTournamentRequest(
            toml=TOURNAMENT.replace("contract-bot", "walker").replace("contract-cup", "walk-cup")
        )
        seen.add(admin.CreateTournament(cup, metadata=bearer(ADMIN)))
        revoke = arena_pb2.RevokeTokenRequest(token_id=issued.token_id)
        seen.add(
            arena_pb2_grpc.RegistryStub(channel).RevokeToken(revoke, metadata=bearer(OWNER_KEY))
        )
    return seen


def play_a_match(server: ServerThread, token: str, seen: Seen, during: Callable[[], None]) -> str:
    """One rated Guandan deal beside built-in bots, answered in every way a reply can be
    (malformed, illegal, stale, too many, late, accepted), the seat lost and taken back,
    then the server drained; every message goes to ``seen``. ``during`` is called while
    the match runs."""
    stream = Stream(server.address, token)
    stream.hello()
    stream.send(ping=arena_pb2.Ping(nonce=7))
    stream.until("pong")
    stream.send(join=arena_pb2.Join(variants=["gandan"]))
    stream.until("error")
    stream.send(join=arena_pb2.Join(variants=["guandan"], rated=True, matches=1, fill_after_ms=1))
    decision = stream.until("decision").decision
    during()
    for received in stream.received:
        seen.add(received)
    stream.close()  # the connection breaks: the seat waits for its bot
    stream = Stream(server.address, token)
    stream.hello(resume_match_id=decision.match_id)
    decision = stream.until("decision").decision
    tries = ["fold", "play BJ BJ BJ BJ BJ BJ BJ"] * 5 + ["pass"]
    stream.send(
        action=arena_pb2.ActionReply(request_id="r-none", action=arena_pb2.Action(text="pass"))
    )
    for text in tries:  # ten refused, an eleventh too many: then automatic play
        reply = arena_pb2.ActionReply(
            request_id=decision.request_id, action=arena_pb2.Action(text=text)
        )
        stream.send(action=reply)
    while True:
        message = stream.until_any("decision", "match_result")
        if message.WhichOneof("body") == "match_result":
            break
        first = message.decision.observation.legal.actions[0]
        stream.send(
            action=arena_pb2.ActionReply(request_id=message.decision.request_id, action=first)
        )
    match_id = message.match_result.match_id
    server.run(server.running.play.drain("the walk is over", 0))
    stream.status()
    for received in stream.received:
        seen.add(received)
    stream.close()
    return match_id


def play_a_compact_match(server: ServerThread, token: str, seen: Seen) -> None:
    """One casual Guandan deal beside built-in bots in protocol 2, answered by index (the
    first answer an index beyond the list: refused); every message goes to ``seen``."""
    stream = Stream(server.address, token)
    try:
        assert stream.hello(protocol=2).protocol == 2
        stream.send(join=arena_pb2.Join(variants=["guandan"], matches=1, fill_after_ms=1))
        beyond = True
        while True:
            message = stream.until_any("decision", "match_result")
            if message.WhichOneof("body") == "match_result":
                break
            request = message.decision
            texts = request.observation.legal.texts
            index = len(texts) if beyond else 0
            stream.send(action=arena_pb2.ActionReply(request_id=request.request_id, index=index))
            if beyond:
                refused = stream.until("action_result").action_result
                assert refused.status == arena_pb2.ACTION_STATUS_MALFORMED, refused
                assert f"index {index} names no legal action" in refused.reason
                stream.send(action=arena_pb2.ActionReply(request_id=request.request_id, index=0))
                beyond = False
        for received in stream.received:
            seen.add(received)
    finally:
        stream.close()


def field_comments(tmp_path: Path) -> dict[str, str]:
    proto = source_descriptor(tmp_path)
    comments = {
        tuple(location.path): (location.leading_comments + location.trailing_comments)
        for location in proto.source_code_info.location
    }
    return {name: " ".join(comments.get(path, "").split()) for name, path in elements(proto)}


@pytest.fixture(scope="module")
def walked(arena: Arena) -> Seen:
    return walk_a_session(arena)


def test_every_field_the_server_sends_is_set_where_its_comment_says(
    walked: Seen, tmp_path: Path
) -> None:
    comments = field_comments(tmp_path)
    never = [
        f"{name}.{described.name}: {comments[f'{name}.{described.name}']}"
        for name, descriptor in sorted(walked.types.items())
        for described in descriptor.fields
        if described.name not in walked.set_fields[name]
        and not EXEMPT.search(comments[f"{name}.{described.name}"])
    ]
    assert never == [], "fields documented as set that the server never set"


def test_every_server_message_body_was_sent(walked: Seen) -> None:
    bodies = {f.name for f in arena_pb2.ServerMessage.DESCRIPTOR.fields}
    assert bodies <= walked.set_fields["ServerMessage"]


ENUMS = (arena_pb2.ActionStatus, arena_pb2.EndReason, arena_pb2.MatchStatus)


def test_every_enum_value_is_documented_and_every_value_sent_is_one(walked: Seen) -> None:
    for enum in ENUMS:
        for value in enum.DESCRIPTOR.values:
            if value.number == 0:
                continue  # proto3's default: never sent
            short = value.name.split("_STATUS_")[-1].split("END_REASON_")[-1]
            assert value.name in DOC or f"`{short}`" in DOC, f"{value.name} is not in the doc"
    statuses = {v.name for v in arena_pb2.ActionStatus.DESCRIPTOR.values if v.number}
    assert statuses <= walked.enum_values, "an ActionStatus the session did not produce"
    assert not any(name.endswith("_UNSPECIFIED") for name in walked.enum_values)


# -- example values: the doc's examples and numbers are the server's ---------------------

EXAMPLE = re.compile(r"^```json (arena\.v1\.\w+)\n(.*?)^```", re.M | re.S)
PROTOCOL_2_SESSION = re.compile(r"^### A session in protocol 2\n.*?(?=^#{1,3} )", re.M | re.S)
"""The doc's protocol 2 session, which tests/test_docs_protocol.py compares with one
recorded on a real server; the examples read here are the rest: the protocol 1 session
(with its decision in protocol 2), each sent to a real server, and every other section's."""


def examples(kind: str) -> list[Any]:
    """The doc's examples of message ``kind`` (e.g. ``ServerMessage``), parsed, in order."""
    found = []
    for name, text in EXAMPLE.findall(PROTOCOL_2_SESSION.sub("", DOC, count=1)):
        if name == f"arena.v1.{kind}":
            message = getattr(arena_pb2, kind)()
            json_format.Parse(text, message)
            found.append(message)
    return found


def bodies(kind: str, body: str) -> list[Any]:
    """The ``body`` parts of the doc's ``kind`` examples (ServerMessage, ClientMessage)."""
    return [getattr(m, body) for m in examples(kind) if m.WhichOneof("body") == body]


def shape(identifier: str) -> str:
    """An identifier with its random or counted parts blanked: ``c-7-5c1e9a`` → ``c-N-H``."""
    return re.sub(r"\d+", "N", re.sub(r"[0-9a-f]{6,}", "H", identifier))


def one_deal_state() -> Any:
    """The state of a first Guandan deal (level 2), as the examples' deal 1."""
    game = make("guandan")
    return game, game.new_deal(game.first_setup(), seed=1)


def engine_event(event: arena_pb2.Event) -> Event:
    return Event(
        event.kind,
        event.seat if event.HasField("seat") else NOBODY,
        tuple(sorted(parse_cards(" ".join(event.cards)))),
        event.target if event.HasField("target") else NOBODY,
        event.value,
        event.tag,
    )


def example_events() -> list[arena_pb2.Event]:
    events = [e for batch in bodies("ServerMessage", "events") for e in batch.events]
    for decision in bodies("ServerMessage", "decision"):
        events.extend(decision.observation.events)
    for resume in bodies("ServerMessage", "resume"):
        events.extend(resume.observation.events)
    return events


def test_the_examples_event_descriptions_are_the_servers() -> None:
    game, state = one_deal_state()
    events = example_events()
    assert events
    for event in events:
        assert event.description == game.describe_event(engine_event(event), state), event


def test_the_examples_results_are_worded_as_the_server_words_them() -> None:
    game = make("guandan")
    for result in bodies("ServerMessage", "deal_result"):
        details = json_format.MessageToDict(result.details)
        winner = details.get("match_winner")
        outcome = Outcome(
            scores=tuple(result.scores),  # type: ignore[arg-type]
            summary="",
            details=normalized(details),
            next_setup=None if result.match_over else game.first_setup(),
            match_winner=None if winner is None else int(winner),
        )
        assert result.summary == game.describe_outcome(outcome)
    for ended in bodies("ServerMessage", "match_result"):
        reason, summary = end_of_match(
            aborted=None,
            forfeit=False,
            complete=ended.reason == arena_pb2.END_REASON_COMPLETE,
            winner=ended.winner_team if ended.HasField("winner_team") else None,
            deals=ended.deals,
        )
        assert (ended.reason, ended.summary) == (reason, summary)


def normalized(value: Any) -> Any:
    """Struct numbers (doubles) back to the integers the engines wrote."""
    if isinstance(value, dict):
        return {key: normalized(item) for key, item in value.items()}
    if isinstance(value, list):
        return [normalized(item) for item in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def example_position(asked: arena_pb2.DecisionRequest) -> Any:
    """The example's request ``r-17`` in play: seat 2 leads the bomb on the table, the
    others pass; seat 1 holds the request's hand."""
    mine = Counter(parse_cards(" ".join(asked.observation.hand)))
    bomb = parse_cards(str(asked.observation.public_facts["table"]["cards"]))
    rest = sorted((Counter(dict.fromkeys(range(54), 2)) - mine - Counter(bomb)).elements())
    hands = [rest[:27], sorted(mine.elements()), [*bomb, *rest[27:50]], rest[50:]]
    game = make("guandan")
    state = game.new_deal(
        dataclasses.replace(game.first_setup(), leader=2), hands=[format_cards(h) for h in hands]
    )
    for text in (f"play {format_cards(bomb)}", "pass", "pass"):
        state.apply(Action.from_str(text))
    return state


def test_the_examples_protocol_2_request_and_refusal_are_the_servers() -> None:
    """The example's request in protocol 2: the facts, the legal texts and the events are
    those the server sends in that position, and the index beyond the list is refused in
    the example's words; the facts are the protocol 1 request's."""
    first, compact = [d for d in bodies("ServerMessage", "decision") if d.request_id == "r-17"]
    state = example_position(first)
    made = observation_to_proto(state.observe(1), compact.observation.seq, compact=True)
    assert json.loads(compact.observation.public_json) == json.loads(made.public_json)
    assert json_format.MessageToDict(first.observation.public_facts) == json.loads(made.public_json)
    assert compact.observation.private_json == made.private_json == "{}"
    assert list(compact.observation.legal.texts) == list(made.legal.texts)
    assert [a.text for a in first.observation.legal.actions] == list(made.legal.texts)
    assert compact.accepted and compact.observation.hand == first.observation.hand
    (refused,) = [
        r
        for r in bodies("ServerMessage", "action_result")
        if r.status == arena_pb2.ACTION_STATUS_MALFORMED and r.request_id == "r-17"
    ]
    beyond, chosen = [r for r in bodies("ClientMessage", "action") if r.HasField("index")]
    with pytest.raises(ParseError) as refusal:
        action_of_reply(beyond, state.observe(1).legal_actions)
    assert refused.reason == str(refusal.value)
    assert refused.attempts_left == MAX_ATTEMPTS - 1
    assert str(state.observe(1).legal_actions[chosen.index]) == "play Ts Js Qs Ks As"


def test_the_examples_refusal_is_the_engines() -> None:
    """The illegal reply of the example session, made in its position: seat 2 leads the
    bomb on the table, the others pass, seat 1 answers with the example's reply."""
    (refused,) = [
        result
        for result in bodies("ServerMessage", "action_result")
        if result.status == arena_pb2.ACTION_STATUS_ILLEGAL
    ]
    asked, *_ = [  # the protocol 1 request (its protocol 2 form follows it)
        d for d in bodies("ServerMessage", "decision") if d.request_id == refused.request_id
    ]
    (reply,) = [
        r
        for r in bodies("ClientMessage", "action")
        if r.request_id == refused.request_id and r.action.text
    ]
    state = example_position(asked)
    with pytest.raises(IllegalActionError) as refusal:
        state.apply(action_from_proto(reply.action))
    assert refused.reason == str(refusal.value)
    assert refused.action == action_to_proto(action_from_proto(reply.action))
    assert refused.attempts_left == MAX_ATTEMPTS - 1


def test_the_examples_setups_options_and_clocks_are_the_defaults() -> None:
    game = make("guandan")
    for started in [
        *bodies("ServerMessage", "deal_started"),
        *(
            w.deal_started
            for w in examples("WatchMessage")
            if w.WhichOneof("body") == "deal_started"
        ),
    ]:
        if started.deal == 1:
            assert normalized(json_format.MessageToDict(started.setup)) == game.setup_to_dict(
                game.first_setup()
            )
    infos = [s.match for s in bodies("ServerMessage", "seat_assigned")]
    infos += [r.seat.match for r in bodies("ServerMessage", "resume")]
    infos += [w.match for w in examples("WatchMessage") if w.WhichOneof("body") == "match"]
    assert infos
    clock = arena_pb2.ClockSettings(
        decision_ms=int(DEFAULT_DECISION_SECONDS * 1000),
        time_bank_ms=int(DEFAULT_TIME_BANK_SECONDS * 1000),
        grace_ms=int(DEFAULT_GRACE_SECONDS * 1000),
        auto_plays_to_flee=AUTO_PLAYS_TO_FLEE,
    )
    for info in infos:
        assert info.clock == clock
        assert normalized(json_format.MessageToDict(info.options)) == dict(
            make(info.variant).options
        )


def test_the_example_session_is_what_a_real_server_answers(arena: Arena) -> None:
    """The example's registration, hello, join refused and accepted, sent to a real
    server: the same answers, identifiers of the same shape."""
    server = arena.another()
    (register_request,) = examples("RegisterRequest")
    (registered_example,) = examples("RegisterResponse")
    with grpc.insecure_channel(server.address) as channel:
        stub = arena_pb2_grpc.RegistryStub(channel)
        registered = stub.Register(register_request, metadata=bearer(OWNER_KEY))
    for name in ("bot_id", "name", "created"):
        assert getattr(registered, name) == getattr(registered_example, name), name
    assert shape(registered.token_id) == shape(registered_example.token_id)
    assert registered.token[:6] == registered_example.token[:6]
    assert len(registered.token) == len(registered_example.token)

    hello_example, refused_join, join, *_ = examples("ClientMessage")
    welcome_example, error_example, joined_example = (
        m
        for m in examples("ServerMessage")
        if m.WhichOneof("body") in ("welcome", "error", "joined")
    )
    stream = Stream(server.address, registered.token)
    try:
        stream.send(hello=hello_example.hello)
        welcome = stream.until("welcome").welcome
        expected = welcome_example.welcome
        assert shape(welcome.connection_id) == shape(expected.connection_id)
        welcome.connection_id = expected.connection_id
        assert welcome == expected
        stream.send(join=refused_join.join)
        assert stream.until("error").error == error_example.error
        stream.send(join=join.join)
        assert stream.until("joined").joined == joined_example.joined
        stream.send(join=arena_pb2.Join(variants=["guandan"], fill_after_ms=1))
        seated = stream.until("seat_assigned").seat_assigned
        decision = stream.until("decision").decision
        stream.send(leave=arena_pb2.Leave(now=True))
    finally:
        stream.close()
    (seated_example, *_) = bodies("ServerMessage", "seat_assigned")
    assert shape(seated.match.match_id) == shape(seated_example.match.match_id)
    assert seated.match.clock == seated_example.match.clock
    assert seated.match.options == seated_example.match.options
    assert {shape(d.request_id) for d in bodies("ServerMessage", "decision")} == {
        shape(decision.request_id)
    }


def test_the_example_fixture_is_what_a_real_server_creates(arena: Arena) -> None:
    server = arena.another()
    (request,) = examples("CreateFixtureRequest")
    (expected,) = examples("CreateFixtureResponse")
    with grpc.insecure_channel(server.address) as channel:
        for bot in {*request.players} - set(bots.names()):
            register(channel, bot)
        created = arena_pb2_grpc.AdminStub(channel).CreateFixture(request, metadata=bearer(ADMIN))
    assert shape(created.tournament_id) == shape(expected.tournament_id)
    assert [shape(m) for m in created.match_ids] == [shape(m) for m in expected.match_ids]


PROSE: list[tuple[str, float]] = [
    (r"`max_receive_bytes` \((\d+) MiB\)", MAX_RECEIVE_BYTES / 2**20),
    (r"`max_send_bytes` \((\d+) MiB\)", MAX_SEND_BYTES / 2**20),
    (r"`max_connections_per_bot` \((\d+)\)", PlayConfig().max_connections_per_bot),
    (r"`max_attempts_per_request` \((\d+)\)", MAX_ATTEMPTS),
    (r"`max_messages_per_second` \((\d+)\)", PlayConfig().max_messages_per_second),
    (r"limited per owner \((\d+) a minute", REGISTRATIONS_PER_MINUTE),
    (r"may make \((\d+) a minute\)", REGISTRATIONS_PER_MINUTE),
    (r"at most (\d+) messages queued", PlayConfig().send_queue_limit),
    (r"`decision_ms` — the time for each decision \(default (\d+) s", DEFAULT_DECISION_SECONDS),
    (r"`time_bank_ms` — .*? \(default (\d+) s\)", DEFAULT_TIME_BANK_SECONDS),
    (r"`grace_ms` — .*? \(default (\d+) s\)", DEFAULT_GRACE_SECONDS),
    (r"`auto_plays_to_flee` — .*? \((\d+), SF-12\)", AUTO_PLAYS_TO_FLEE),
    (r"a `Draining` message with a deadline \(default (\d+) s\)", DRAIN_SECONDS),
    (r"`page_size`: (\d+) by default", DEFAULT_PAGE),
    (r"`page_size`: \d+ by default, at most (\d+)", MAX_PAGE),
    (r"a new connection within (\d+) s", DEFAULT_GRACE_SECONDS),
    (r"name the version spoken \((\d+)\)", PROTOCOL),
    (r"a `Hello` \(`protocol: (\d+)`\)", PROTOCOL),
]
"""Numbers the doc's prose states, and the constants they must be."""


@pytest.mark.parametrize(("pattern", "value"), PROSE, ids=[p for p, _ in PROSE])
def test_the_docs_numbers_are_the_servers(pattern: str, value: float) -> None:
    text = " ".join(DOC.split())
    found = re.findall(pattern, text)
    assert found, f"the doc no longer says {pattern!r}"
    assert {float(number) for number in found} == {float(value)}


def test_the_example_limits_are_the_servers(arena: Arena) -> None:
    stream = Stream(arena.server.address, arena.token)
    try:
        limits = stream.hello().limits
    finally:
        stream.close()
    (welcome,) = bodies("ServerMessage", "welcome")
    assert welcome.limits == limits
    burst = PlayConfig().max_messages_per_second * 2  # "bursts of twice as many"
    assert RateLimit(1.0, burst).burst == burst


# -- records: every entry a record holds is documented ------------------------------------


class LatePolicy:
    """Answers every decision too late (it moves a fake clock past the limit)."""

    def __init__(self, clock: list[float]) -> None:
        self.clock = clock

    def act(self, observation: Any) -> Action:
        self.clock[0] += 10.0
        return observation.legal_actions[0]  # type: ignore[no-any-return]


def record_entry_forms() -> list[re.Pattern[str]]:
    """The entries the doc's record table lists, as patterns (``SEAT`` a seat 0..3)."""
    rows = table_after("| entry | meaning |")
    return [re.compile(re.escape(row[0]).replace("SEAT", "[0-3]") + "$") for row in rows]


def test_every_entry_a_record_holds_is_an_action_or_a_documented_mark() -> None:
    forms = record_entry_forms()
    assert {form.pattern for form in forms} == {
        re.escape(AUTO_MARK) + "$",
        re.escape(f"{FLED_MARK} ") + "[0-3]$",
    }
    now = [0.0]
    game = make("guandan")
    policies = [LatePolicy(now), *(bots.make("random", p) for p in range(1, 4))]
    clock = Clock(limit=1.0, now=lambda: now[0])
    record = play_match(game, policies, seed=5, max_deals=2, clock=clock).record.to_dict()
    entries = [entry for deal in record["deals"] for entry in deal["actions"]]
    marks = [entry for entry in entries if entry.startswith("!")]
    assert marks.count(AUTO_MARK) == AUTO_PLAYS_TO_FLEE and marks[-1] == f"{FLED_MARK} 0"
    syntax = type(game.new_deal(game.first_setup(), seed=1)).syntax
    for deal in record["deals"]:
        actions = deal["actions"]
        for index, entry in enumerate(actions):
            if entry.startswith("!"):
                assert any(form.match(entry) for form in forms), entry
                if entry == AUTO_MARK:  # the action automatic play made follows
                    assert not actions[index + 1].startswith("!")
                else:  # fled: the deal's last entry
                    assert index == len(actions) - 1
            else:
                syntax.check(Action.from_str(entry))


# -- the .proto's comments name only statuses the doc's tables give their methods ----------

STATUS_NAMES = re.compile(
    r"(?<![A-Z_])(" + "|".join(code.name for code in grpc.StatusCode) + r")(?![A-Z_])"
)


def reachable(message: Any, seen: set[str] | None = None) -> set[str]:
    """The message types a message holds, itself included (arena.v1 only)."""
    seen = set() if seen is None else seen
    if message.file.package != "arena.v1" or message.name in seen:
        return seen
    seen.add(message.name)
    for described in message.fields:
        if described.message_type is not None:
            reachable(described.message_type, seen)
    return seen


def test_the_statuses_the_proto_comments_name_are_the_docs(tmp_path: Path) -> None:
    methods = {
        f"{service.name}.{method.name}": reachable(method.input_type)
        | reachable(method.output_type)
        for service in arena_pb2.DESCRIPTOR.services_by_name.values()
        for method in service.methods
    }
    documented: dict[str, set[str]] = {}
    for method, status in status_rows():
        for name in methods:
            service = name.partition(".")[0]
            cells = {cell.strip() for cell in method.split(",")}
            if method == "every method" or name in cells or service in cells:
                documented.setdefault(name, set()).add(status)
    documented["Play.Connect"] |= error_codes()
    for element, comment in field_comments(tmp_path).items():
        named = set(STATUS_NAMES.findall(comment)) - {"OK"}
        owner = element.split(".")[0]
        concerned = [m for m, types in methods.items() if owner in types or element == m]
        if not named or not concerned:
            continue  # the file's header speaks of every service
        allowed = set().union(*(documented.get(m, set()) for m in concerned))
        assert named <= allowed, f"{element} names {named - allowed}, not in the doc's tables"
    general = {row[0] for row in table_after("| status | when |")}
    assert general == {status for _, status in status_rows()} | error_codes() - {"OK"}


def test_the_examples_incomplete_legal_list_is_described_as_the_engine_does() -> None:
    """The Shengji three-deck lead of the LegalActions example: its description is the
    engine's, and the listed actions are among the engine's at such a lead."""
    (example,) = examples("LegalActions")
    game = make("shengji-3")
    rng = random.Random(3)
    state = game.new_deal(game.first_setup(), seed=3)
    while not (state.phase == "play" and not state.observe(state.to_act).legal_complete):
        state.apply(rng.choice(state.legal_actions()))
    observation = state.observe(state.to_act)
    assert not example.complete
    assert example.description == observation.legal_description
    for action in example.actions:
        assert action.text == str(action_from_proto(action))


# -- any request: only documented statuses, plain messages ---------------------------------

WORDS = st.sampled_from(["", "guandan", "sanfu", "shengji-2", "elo", "x", "no such", "-1", "7"])
PYTHON_TRACES = ("Traceback", "<class", "object at 0x", "__init__", "keyword argument", "NoneType")


def message_strategy(descriptor: Any, depth: int = 0) -> st.SearchStrategy[Any]:
    """Requests of ``descriptor``'s type with arbitrary field values (known words often)."""
    message_class = message_factory.GetMessageClass(descriptor)
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for described in descriptor.fields:
        value = field_strategy(described, depth)
        if value is None:
            continue
        if described.is_repeated:
            value = st.lists(value, max_size=4)
        fields[described.name] = st.one_of(st.none(), value)

    def build(values: dict[str, Any]) -> Any:
        message = message_class()
        for name, value in values.items():
            if value is None:
                continue
            target = getattr(message, name) if descriptor.fields_by_name[name].is_repeated else None
            if target is not None:
                if descriptor.fields_by_name[name].message_type is not None:
                    for item in value:
                        target.add().CopyFrom(item)
                else:
                    target.extend(value)
            elif descriptor.fields_by_name[name].message_type is not None:
                getattr(message, name).CopyFrom(value)
            else:
                setattr(message, name, value)
        return message

    return st.fixed_dictionaries(fields).map(build)


def field_strategy(described: Any, depth: int) -> st.SearchStrategy[Any] | None:
    kind = described.type
    if described.message_type is not None:
        if described.message_type.full_name == "google.protobuf.Struct":
            return st.just(struct_pb2.Struct())
        if described.message_type.file.package != "arena.v1" or depth > 2:
            return None
        return message_strategy(described.message_type, depth + 1)
    if described.enum_type is not None:
        return st.sampled_from([v.number for v in described.enum_type.values])
    if kind == described.TYPE_STRING:
        return st.one_of(WORDS, st.text(max_size=20))
    if kind == described.TYPE_BOOL:
        return st.booleans()
    if kind in (described.TYPE_UINT32, described.TYPE_UINT64):
        return st.integers(0, 2**32 - 1)
    if kind == described.TYPE_INT64:
        return st.integers(-(2**63), 2**63 - 1)
    return st.integers(-(2**31), 2**31 - 1)


UNARY = [
    method
    for service in arena_pb2.DESCRIPTOR.services_by_name.values()
    for method in service.methods
    if not method.client_streaming
]


def allowed_statuses(method: Any) -> set[str]:
    name = f"{method.containing_service.name}.{method.name}"
    service = method.containing_service.name
    codes = {"OK"}
    for cell, status in status_rows():
        cells = {c.strip() for c in cell.split(",")}
        if cell == "every method" or name in cells or service in cells:
            codes.add(status)
    return codes


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_request_ends_with_a_documented_status_and_a_plain_message(
    arena: Arena, data: st.DataObject
) -> None:
    method = data.draw(st.sampled_from(UNARY), label="method")
    request = data.draw(message_strategy(method.input_type), label="request")
    path = f"/{method.containing_service.full_name}/{method.name}"
    secret = ADMIN if method.containing_service.name == "Admin" else OWNER_KEY
    call = (
        arena.channel.unary_stream(path)
        if method.server_streaming
        else arena.channel.unary_unary(path)
    )
    code, text = status_of(
        lambda: call(request.SerializeToString(), metadata=bearer(secret), timeout=30)
    )
    assert code.name in allowed_statuses(method), (method.full_name, code, text)
    assert not any(trace in text for trace in PYTHON_TRACES), text


def test_a_watched_match_ends_with_its_result_when_the_server_stops(arena: Arena) -> None:
    """Graceful shutdown, as documented: a Watch of a running match gets the match's
    MatchResult and ends with OK."""
    server = arena.another()
    fixture = arena_pb2.CreateFixtureRequest(
        name="stopped", variant="guandan", players=["random"] * NUM_SEATS, seed=2
    )
    with grpc.insecure_channel(server.address) as channel:
        (match_id,) = (
            arena_pb2_grpc.AdminStub(channel)
            .CreateFixture(fixture, metadata=bearer(ADMIN))
            .match_ids
        )
        watch = arena_pb2_grpc.SpectateStub(channel).Watch(
            arena_pb2.WatchRequest(match_id=match_id), timeout=60
        )
        first = next(watch)
        assert first.WhichOneof("body") == "match"
        server.run(server.running.stop(1.0, drain=0))
        rest = [message.WhichOneof("body") for message in watch]
    assert rest[-1] == "match_result"


def test_leave_without_a_match_ends_the_call_with_ok(arena: Arena) -> None:
    """``Leave { now: false }`` takes no new match; with none running the call ends OK."""
    stream = Stream(arena.server.address, arena.token)
    try:
        stream.hello()
        stream.send(leave=arena_pb2.Leave(now=False))
        assert stream.status() == (grpc.StatusCode.OK, "")
    finally:
        stream.close()
