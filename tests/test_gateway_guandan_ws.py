"""The Guandan competition platform's WebSocket gateway (``arena.gateways.guandan_ws.server``)
on real servers on 127.0.0.1: our platform client (``tests/guandan_ws_client.py``) plays
whole matches over a real WebSocket through the gateway in front of a real arena server.

Checked: every kind of message reaches the bots (GD-13 … GD-15's tribute, anti-tribute
and back among them); at every decision the ``actionList`` is the engine's legal list
and the index chosen is the action the record shows; no message to a seat names a card
hidden from it (C-5, the server tests' statement of what is public); a seat that leaves
comes back to its match; bad answers (an index out of range, garbage, silence, a closed
socket) are what they are for gRPC bots; a handshake without a seat or token is
refused; the local series with two platform clients and two of our bots.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from guandan_ws_client import (
    MATCH_KINDS,
    PlatformClient,
    entry_problems,
    is_code,
    our_text,
    play_websocket,
)
from public_cards import statement_for
from test_server_play import held_cards
from test_server_seats import Arena, clock
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from arena import games
from arena.cards import parse_card
from arena.client.runner import run_bot_async
from arena.games.base import Action
from arena.gateways.guandan_ws.series import SeriesConfig, run_series
from arena.gateways.guandan_ws.server import GatewayConfig, GuandanWsGateway, parse_tokens
from arena.match import AUTO_MARK, FLED_MARK
from arena.replay import verify_stored
from arena.server.play import PlayConfig
from arena.server.session import MatchPlan
from arena.store import Store
from bots.simple import RandomBot

SEED = 0
"""A seed whose first three deals, every seat answering with its first action, have a
tribute, a return and a refused tribute (GD-13 … GD-15)."""
DEALS = 3
ALL_KINDS = MATCH_KINDS
WAIT = 120.0


class Recorded(PlatformClient):
    """Our platform client, keeping every message it was sent and each ``act`` it
    answered with the index it chose."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self.answered: list[tuple[dict[str, Any], int]] = []

    def feed(self, text: str | bytes) -> str | None:
        self.texts.append(text if isinstance(text, str) else text.decode())
        answer = super().feed(text)
        if answer is not None and self.last_act is not None:
            self.answered.append((self.last_act, self.last_index))
        return answer


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "arena.sqlite") as store:
        yield store


@contextlib.contextmanager
def arena(store: Store, **clock_options: float) -> Iterator[Arena]:
    server = Arena(store, PlayConfig(clock=clock(**clock_options)))
    try:
        yield server
    finally:
        server.close()


@contextlib.asynccontextmanager
async def gateway(server: Arena, **options: Any) -> AsyncIterator[GuandanWsGateway]:
    config = GatewayConfig(server=server.address, answer_seconds=30.0, rated=False, **options)
    served = GuandanWsGateway(config)
    await served.start("127.0.0.1", 0)
    try:
        yield served
    finally:
        await served.close()


def fixture(server: Arena, names: list[str], match_id: str, deals: int = DEALS) -> None:
    """The match ``match_id`` between ``names`` in seat order, seeded :data:`SEED`."""
    plan = MatchPlan("guandan", tuple(names), False, match_id=match_id, seed=SEED, max_deals=deals)

    async def schedule() -> None:
        server.running.play.schedule([plan])

    server.run(schedule())


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, WAIT))


def url(port: int, name: str, token: str = "") -> str:
    return f"ws://127.0.0.1:{port}/game/{name}" + (f"?token={token}" if token else "")


def seat_streams(store: Store, match_id: str, clients: list[Recorded]) -> list[str]:
    """Every way the four clients' messages disagree with the stored match: the index
    mapping at each decision, a hidden card named, the client's own inconsistencies."""
    stored = store.match(match_id)
    assert stored is not None
    problems = [p for c in clients for p in c.problems]
    problems += mapping_problems(stored.record, clients)
    problems += hidden_problems(stored.record, clients)
    return problems


def mapping_problems(record: dict[str, Any], clients: list[Recorded]) -> list[str]:
    """At each decision of the record, the seat's ``act`` lists the engine's legal actions
    in order and its chosen index is the action taken (the play's type and rank too)."""
    game = games.make("guandan", **record["options"])
    asked = [iter(c.answered) for c in clients]
    problems: list[str] = []
    decisions = 0
    for deal in record["deals"]:
        state = game.new_deal(game.setup_from_dict(deal["setup"]), seed=deal["seed"])
        for text in deal["actions"]:
            assert text != AUTO_MARK, "no seat was played for"
            seat = state.to_act
            legal = list(state.legal_actions())
            act, index = next(asked[seat])
            entries = act["actionList"]
            if len(entries) != len(legal):
                problems.append(f"{len(entries)} entries for {len(legal)} legal actions")
            for entry, action in zip(entries, legal, strict=False):
                problems += entry_problems(entry, action)
            taken = Action.from_str(text)
            state.apply(taken)
            if legal[index] != taken:
                problems.append(f"index {index} is {legal[index]}, the record {taken}")
            event = state.events[-1] if taken.verb == "play" else None
            problems += entry_problems(entries[index], taken, event, act["curRank"])
            decisions += 1
    assert decisions > 100
    return problems


def hidden_problems(record: dict[str, Any], clients: list[Recorded]) -> list[str]:
    """C-5 on the wire: the messages of each seat, taken by the decision (or the deal's
    end) they were sent at, name only cards it holds or held in the deal, or cards
    public at that moment (tests/public_cards.py)."""
    game = games.make("guandan", **record["options"])
    held = held_cards(record, "guandan")
    problems: list[str] = []
    for seat, client in enumerate(clients):
        messages = iter(json.loads(t) for t in client.texts)
        for number, deal in enumerate(record["deals"]):
            state = game.new_deal(game.setup_from_dict(deal["setup"]), seed=deal["seed"])
            statement = statement_for(state)

            mine = held[number][seat]
            for text in deal["actions"]:
                action = Action.from_str(text)
                if state.to_act == seat:
                    problems += _sent_now(
                        messages, seat, mine | statement.pool(state.events, state.phase)
                    )
                statement.take(state.to_act, action)
                state.apply(action)
            problems += _sent_now(messages, seat, mine | statement.pool(state.events, state.phase))
    return problems


def _sent_now(messages: Iterator[dict[str, Any]], seat: int, allowed: Counter[int]) -> list[str]:
    """The hidden cards named by the messages up to the next ``act`` or the deal's end."""
    problems: list[str] = []
    while True:
        message = next(messages)
        problems += _hidden(message, seat, allowed)
        if message["type"] == "act" or message["stage"] == "episodeOver":
            return problems


def _hidden(message: dict[str, Any], seat: int, allowed: Counter[int]) -> list[str]:
    shown: Counter[int] = Counter()
    for codes in _code_lists(message):
        shown |= Counter(parse_card(our_text(c)) for c in codes)
    excess = shown - allowed
    return [f"{message['stage']} to seat {seat} names hidden {sorted(excess)}"] if excess else []


def _code_lists(value: Any) -> Iterator[list[str]]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _code_lists(item)
    elif isinstance(value, list):
        codes = [item for item in value if is_code(item)]
        if codes:
            yield codes
        for item in value:
            if not is_code(item):
                yield from _code_lists(item)
    elif is_code(value):
        yield [value]


# -- whole matches ----------------------------------------------------------------------


def test_gd13_gd15_platform_clients_play_a_whole_match_through_the_gateway(
    store: Store,
) -> None:
    """Four platform clients, every kind of message (tribute, anti-tribute, back, episode
    and game over), the index mapping at every decision, no hidden card on the wire."""
    with arena(store) as server:
        names = [f"ws-{n}" for n in range(4)]
        tokens = server.tokens(*names)
        fixture(server, names, "ws-whole")
        clients = [Recorded() for _ in names]

        async def main() -> None:
            async with gateway(server, matches=lambda name: 1) as served:
                await asyncio.gather(
                    *(
                        play_websocket(url(served.port, f"client{n}", tokens[n]), clients[n])
                        for n in range(4)
                    )
                )

        run(main())
    kinds = set().union(*(c.kinds for c in clients))
    assert kinds >= ALL_KINDS, ALL_KINDS - kinds
    assert [c.game_overs for c in clients] == [[(1, 0)]] * 4
    assert [len(c.orders) for c in clients] == [DEALS] * 4
    assert seat_streams(store, "ws-whole", clients) == []


def test_a_seat_that_leaves_comes_back_to_its_match(store: Store) -> None:
    """A client closes its socket mid-deal and connects again to the same address: the
    seat waits for it (the grace period), is taken back, and the client, told the deal
    so far (``beginning`` and every notice), plays the match out with a state that agrees
    with the engine's."""
    with arena(store) as server:
        names = [f"back-{n}" for n in range(4)]
        tokens = server.tokens(*names)
        fixture(server, names, "ws-back", deals=1)
        first, again = Recorded(), Recorded()
        others = [Recorded() for _ in range(3)]

        async def leaver(port: int) -> None:
            address = url(port, "client0", tokens[0])
            await play_websocket(address, first, until=lambda c: len(c.answered) == 5)
            await play_websocket(address, again)

        async def main() -> None:
            async with gateway(server, matches=lambda name: 1) as served:
                await asyncio.gather(
                    leaver(served.port),
                    *(
                        play_websocket(url(served.port, f"client{n}", tokens[n]), others[n - 1])
                        for n in (1, 2, 3)
                    ),
                )

        run(main())
    stored = store.match("ws-back")
    assert stored is not None and stored.deals == 1
    assert not {AUTO_MARK, FLED_MARK} & set(stored.record["deals"][0]["actions"])
    assert again.kinds[("notify", "beginning")] == 1 and again.answered
    assert again.kinds[("notify", "play")] >= 5  # told the deal so far
    assert again.problems == [] and again.game_overs == [(1, 0)]
    assert len(first.answered) + len(again.answered) == sum(
        1 for a in stored.record["deals"][0]["actions"] if a != AUTO_MARK
    ) - sum(len(c.answered) for c in others)


# -- bad answers ------------------------------------------------------------------------


def test_bad_answers_are_refused_counted_and_asked_again(store: Store) -> None:
    """An index out of range, a non-integer index and text that is no JSON are refused by
    the server and counted (the stored conduct), the same ``act`` is sent again, and the
    match goes on: as for a gRPC bot's malformed answers."""
    with arena(store) as server:
        names = [f"bad-{n}" for n in range(4)]
        tokens = server.tokens(*names)
        fixture(server, names, "ws-bad", deals=1)
        bad = ['{"actIndex": 999}', '{"actIndex": "zero"}', "not json at all"]
        acts: list[dict[str, Any]] = []

        async def wrong_then_right(port: int) -> None:
            async with connect(url(port, "client0", tokens[0])) as socket:
                client = PlatformClient()
                async for text in socket:
                    message = json.loads(text)
                    if message["type"] == "act":
                        acts.append(message)
                    answer = client.feed(text)
                    if answer is not None:
                        await socket.send(bad[len(acts) - 1] if len(acts) <= len(bad) else answer)

        async def main() -> None:
            async with gateway(server, matches=lambda name: 1) as served:
                await asyncio.gather(
                    wrong_then_right(served.port),
                    *(
                        play_websocket(url(served.port, f"client{n}", tokens[n]), Recorded())
                        for n in (1, 2, 3)
                    ),
                )

        run(main())
    stored = store.match("ws-bad")
    assert stored is not None
    assert stored.outcome["conduct"]["malformed"][0] == len(bad)
    assert acts[0] == acts[1] == acts[2] == acts[3]  # asked again, the same act
    assert stored.deals == 1 and FLED_MARK not in stored.record["deals"][0]["actions"]


def test_a_silent_bot_is_played_for_by_the_server(store: Store) -> None:
    """A client that never answers: the server plays for its seat when the decision's
    time is up (the record's automatic plays), as for a silent gRPC bot; the seat is
    not dropped and its later messages still come."""
    with arena(store, decision=0.3, bank=0.0) as server:
        names = [f"mute-{n}" for n in range(4)]
        tokens = server.tokens(*names)
        fixture(server, names, "ws-mute", deals=1)
        heard: list[dict[str, Any]] = []

        async def silent(port: int) -> None:
            async with connect(url(port, "client0", tokens[0])) as socket:
                async for text in socket:
                    heard.append(json.loads(text))

        async def main() -> None:
            async with gateway(server, matches=lambda name: 1) as served:
                await asyncio.gather(
                    silent(served.port),
                    *(
                        play_websocket(url(served.port, f"client{n}", tokens[n]), Recorded())
                        for n in (1, 2, 3)
                    ),
                )

        run(main())
    stored = store.match("ws-mute")
    assert stored is not None
    actions = stored.record["deals"][0]["actions"]
    assert AUTO_MARK in actions or stored.outcome.get("forfeit") is not None
    assert stored.outcome["conduct"]["timeouts"][0] >= 1
    assert sum(1 for m in heard if m["type"] == "act") >= 1
    assert heard[-1]["stage"] == "gameOver"


# -- the handshake ----------------------------------------------------------------------


def test_a_url_without_a_seat_or_a_token_is_refused_saying_why(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """Each refusal says why in the handshake's answer; the refusals are logged without
    the URL's query (a token there stays secret)."""
    with arena(store) as server:
        (token,) = server.tokens("shake-0")

        async def status(address: str) -> tuple[int, str]:
            with pytest.raises(InvalidStatus) as refused:
                async with connect(address):
                    pass
            response = refused.value.response
            return response.status_code, response.body.decode()

        async def main() -> list[tuple[int, str]]:
            async with gateway(server, tokens={"client3": token}) as served:
                port = served.port
                found = [
                    await status(f"ws://127.0.0.1:{port}/other/client0?token={token}"),
                    await status(url(port, "client0")),
                    await status(url(port, "client0", token) + "&rated=maybe"),
                ]
                async with connect(url(port, "client3")):  # its token given per name
                    found.append(await status(url(port, "client3", token)))
                async with connect(url(port, "client1", "no-such-token")) as socket:
                    with pytest.raises(ConnectionClosed):
                        await socket.recv()
                    assert socket.close_code == 1008 and "UNAUTHENTICATED" in (
                        socket.close_reason or ""
                    )
                return found

        found = run(main())
    assert [code for code, _ in found] == [404, 401, 400, 409]
    assert "/game/<name>" in found[0][1] and "?token=" in found[1][1]
    assert "connected already" in found[3][1]
    assert "guandan_ws_refused" in caplog.text and token not in caplog.text


def test_a_tokens_file_names_each_line_it_refuses() -> None:
    assert parse_tokens("# seats\nclient0 t0\n\nclient1 t1\n", "f") == {
        "client0": "t0",
        "client1": "t1",
    }
    for text, words in [
        ("client0\n", "line 1: expected 'NAME TOKEN'"),
        ("client0 a b\n", "line 1"),
        ("x/y t\n", "line 1"),
        ("a t\na u\n", "line 2: name 'a' given twice"),
    ]:
        with pytest.raises(ValueError, match=re.escape(words)):
            parse_tokens(text, "f")


# -- the local series -------------------------------------------------------------------


def test_a_series_of_two_platform_clients_against_two_of_our_bots(store: Store) -> None:
    """Seats 0 and 2 are platform clients at /game/client0 and client2, seat 1 a built-in
    bot and seat 3 a gRPC bot with the token the series printed: two games, each stored,
    replayable and rated; the clients hear gameOver after each (``curTimes`` counting the
    series' games) and gameResult at the end; the result counts the stored winners."""
    lines: list[str] = []
    clients = [Recorded(), Recorded()]
    config = SeriesConfig(games=2, seats=(None, "random", None, "grpc"), port=0, deals=1)

    async def main() -> Any:
        series = asyncio.create_task(run_series(store, config, announce=lines.append))
        while not any("--token" in line for line in lines):
            await asyncio.sleep(0.05)
        port = int(re.search(r"ws://127\.0\.0\.1:(\d+)/", "\n".join(lines))[1])  # type: ignore[index]
        grpc_line = next(line for line in lines if "--token" in line)
        address = re.search(r"--server (\S+)", grpc_line)[1]  # type: ignore[index]
        token = re.search(r"--token (\S+)", grpc_line)[1]  # type: ignore[index]
        await asyncio.gather(
            play_websocket(url(port, "client0"), clients[0]),
            play_websocket(url(port, "client2"), clients[1]),
            run_bot_async(RandomBot(3), address, token, ["guandan"], True, 2, inline=True),
        )
        return await series

    result = run(main())
    assert len(result.winners) == 2 and result.match_ids == config.match_ids()
    for match_id in config.match_ids():
        stored = store.match(match_id)
        assert stored is not None
        assert stored.seating == ("client0", "random", "client2", "grpc3")
        verify_stored(stored)  # replayable: every action legal, every result the same
    wins, draws = result.seat_counts()
    for client in clients:
        assert client.problems == []
        assert client.game_overs == [(1, 2), (2, 2)]
        assert client.result == (wins, draws)
    summary = result.summary()
    assert summary["games"] == 2 and summary["wins"] + summary["losses"] + summary["draws"] == 2
    assert 0.0 <= summary["score_95"][0] <= summary["score_95"][1] <= 1.0
    assert store.ratings("guandan")  # rated like any match


def test_an_sdk_bot_hears_each_deals_end_with_every_event_and_whole_numbers(
    store: Store,
) -> None:
    """``Bot.on_deal_over`` (what the gateway's ``episodeOver`` is made from): every public
    event of the deal, the last ones after the bot's last decision included, and the
    details in the engine's shape (the finishing order as ints, GD-2)."""
    heard: list[tuple[int, dict[str, Any]]] = []

    class Hearing(RandomBot):
        def on_deal_over(self, events: Any, details: Any) -> None:
            heard.append((len(events), dict(details)))

    with arena(store) as server:
        names = [f"sdk-{n}" for n in range(4)]
        tokens = server.tokens(*names)
        fixture(server, names, "sdk-deals", deals=2)

        async def main() -> None:
            await asyncio.gather(
                *(
                    run_bot_async(Hearing(n), server.address, token, ["guandan"], False, 1)
                    for n, token in enumerate(tokens)
                )
            )

        run(main())
    stored = store.match("sdk-deals")
    assert stored is not None
    game = games.make("guandan", **stored.record["options"])
    ends = []
    for deal in stored.record["deals"]:
        state = game.new_deal(game.setup_from_dict(deal["setup"]), seed=deal["seed"])
        for text in deal["actions"]:
            state.apply(Action.from_str(text))
        ends.append(len(state.events))
    assert sorted(count for count, _ in heard) == sorted(ends * 4)
    for _, details in heard:
        assert sorted(details["order"]) == [0, 1, 2, 3]
        assert all(type(seat) is int for seat in details["order"])


def test_a_bot_that_closes_its_socket_for_good_flees_and_its_connection_is_let_go(
    store: Store,
) -> None:
    """A client that closes its socket and never comes back: its SDK bot's stream ends
    with it, the seat waits for the grace period and then flees (the team forfeits, as a
    gRPC bot that never reconnects), and the gateway holds nothing of it."""
    with arena(store, decision=2.0, grace=0.5) as server:
        names = [f"gone-{n}" for n in range(4)]
        tokens = server.tokens(*names)
        fixture(server, names, "ws-gone", deals=1)
        left = Recorded()

        async def main() -> GuandanWsGateway:
            async with gateway(server, matches=lambda name: 1) as served:
                await asyncio.gather(
                    play_websocket(
                        url(served.port, "client0", tokens[0]),
                        left,
                        until=lambda c: len(c.answered) == 3,
                    ),
                    *(
                        play_websocket(url(served.port, f"client{n}", tokens[n]), Recorded())
                        for n in (1, 2, 3)
                    ),
                )
                async with asyncio.timeout(5):  # each handler's end follows its socket's
                    while served.seats:
                        await asyncio.sleep(0.01)
                return served

        run(main())
    stored = store.match("ws-gone")
    assert stored is not None
    assert any(a.startswith(FLED_MARK) for a in stored.record["deals"][0]["actions"])
    assert stored.outcome["winner"] == 1  # seat 0's team forfeits
