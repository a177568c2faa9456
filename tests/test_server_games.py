"""Every game over gRPC: four SDK bots play whole matches; no seat ever receives a card
it does not hold, and no event or public fact shows a card before the rules make it
public (tests/public_cards.py; every message of many matches inspected, and leaks
planted in the engine found on the wire)."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import leak_plants as plants
import pytest
from google.protobuf import json_format, struct_pb2
from google.protobuf.message import Message
from leak_plants import Plant
from public_cards import Statement, statement_for
from test_server_play import held_cards
from test_server_seats import Arena, Raw, clock, run

from arena import games
from arena._proto.arena.v1 import arena_pb2
from arena.cards import format_cards, parse_cards
from arena.client.runner import run_bot_async
from arena.errors import ParseError
from arena.games import NOBODY, Action, Event, Game
from arena.match import AUTO_MARK, FLED_MARK
from arena.server import session
from arena.server.play import PlayConfig
from arena.store import Store
from bots.simple import RandomBot


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "arena.sqlite") as store:
        yield store


@pytest.mark.parametrize("variant", games.names())
def test_four_sdk_bots_play_a_whole_match(store: Store, variant: str) -> None:
    server = Arena(store, PlayConfig(clock=clock()))
    try:
        tokens = server.tokens(*(f"whole-{variant}-{n}" for n in range(4)))

        async def four() -> list[Any]:
            return list(
                await asyncio.gather(
                    *(
                        run_bot_async(
                            RandomBot(n),
                            server.address,
                            token,
                            [variant],
                            rated=False,
                            matches=1,
                            inline=True,
                        )
                        for n, token in enumerate(tokens)
                    )
                )
            )

        summaries = run(four())
    finally:
        server.close()
    results = [s.results[0].result for s in summaries]
    assert len({r.match_id for r in results}) == 1
    result = results[0]
    assert result.reason in (arena_pb2.END_REASON_COMPLETE, arena_pb2.END_REASON_FORFEIT)
    stored = store.match(result.match_id)
    assert stored is not None and stored.deals == result.deals
    winner = result.winner_team if result.HasField("winner_team") else None
    assert stored.outcome["winner"] == winner


def _cards_in(message: Message, skip: frozenset[str] = frozenset()) -> Counter[int]:
    """Every card named anywhere in ``message``, leaving out the fields named in ``skip``:
    per string or list of strings (an action's cards, a hand) the cards it names; over the
    message, the most of each card any one of them names."""
    found: Counter[int] = Counter()

    def cards(text: str) -> Counter[int]:
        named: Counter[int] = Counter()
        for token in text.replace(",", " ").split():
            with contextlib.suppress(ParseError):
                named.update(parse_cards(token))
        return named

    def walk(value: Any) -> None:
        nonlocal found
        if isinstance(value, Message):
            for field, inner in value.ListFields():
                if field.name not in skip:
                    walk(inner)
        elif isinstance(value, str):
            found |= cards(value)
        elif hasattr(value, "values"):  # a map field
            for item in value.values():
                walk(item)
        elif not isinstance(value, int | float | bytes):  # a repeated field
            items = list(value)
            words = all(isinstance(item, str) and " " not in item for item in items)
            if items and words:  # a list of cards (a hand); texts count one by one
                found |= cards(" ".join(items))
            for item in items:
                walk(item)

    walk(message)
    return found


def test_the_inspection_finds_a_card_in_any_field() -> None:
    leak = arena_pb2.ServerMessage(
        decision=arena_pb2.DecisionRequest(
            observation=arena_pb2.Observation(
                hand=["3s"],
                legal=arena_pb2.LegalActions(actions=[arena_pb2.Action(verb="play", cards=["4h"])]),
            )
        )
    )
    leak.decision.observation.private_facts.update({"returned": ["5d Kc"]})
    assert _cards_in(leak, PUBLIC) == Counter(parse_cards("3s 4h 5d Kc"))
    compact = arena_pb2.Observation(
        legal=arena_pb2.LegalActions(texts=["play 6s 6s", "play 6s 7s"]),
        private_json='{"returned": ["8d"]}',
    )
    assert _cards_in(compact, PUBLIC) == Counter(parse_cards("6s 6s 7s"))  # text by text
    assert _cards_in(facts_of(compact, "private")) == Counter(parse_cards("8d"))


PUBLIC = frozenset(
    {"events", "public_facts", "public_json", "description", "text", "summary", "private_json"}
)
"""Fields left out of a seat's own cards: the public ones (checked by :func:`public_leaks`)
and protocol 2's private facts, whose JSON text is read as facts (:func:`facts_of`)."""


def facts_of(observation: arena_pb2.Observation, kind: str) -> struct_pb2.Struct:
    """An observation's public or private facts as a Struct, whichever protocol sent it."""
    text = getattr(observation, f"{kind}_json")
    if not text:
        return getattr(observation, f"{kind}_facts")  # type: ignore[no-any-return]
    return json_format.Parse(text, struct_pb2.Struct())


Streams = list[list[arena_pb2.ServerMessage]]
"""The messages each of the four seats of one match received, in order."""


def play_raw_matches(
    store: Store, variant: str, matches: int, max_deals: int, protocol: int = 1
) -> list[Streams]:
    """Four raw bots (first legal action) speaking ``protocol`` play ``matches`` matches
    on a real server on 127.0.0.1; per match, the four seats' streams."""
    server = Arena(store, PlayConfig(clock=clock(), max_deals=max_deals))
    try:
        tokens = server.tokens(*(f"hide-{variant}-{n}" for n in range(4)))

        async def one(token: str) -> Streams:
            bot = Raw(server.address, token)
            await bot.hello(protocol=protocol)
            await bot.join(variant=variant, rated=False)
            streams = []
            for _ in range(matches):
                start = len(bot.seen)
                await bot.play_out()
                streams.append(bot.seen[start:])
            await bot.close()
            return streams

        async def four() -> list[Streams]:
            return list(await asyncio.gather(*(one(t) for t in tokens)))

        by_bot = run(four())
    finally:
        server.close()
    return [[by_bot[b][m] for b in range(4)] for m in range(matches)]


def check_wire(store: Store, variant: str, streams: Streams) -> None:
    """C-5 on the wire for one match: what is public is the same for every seat; a seat
    receives no card it does not hold outside the public parts; every event and public
    fact shows only cards public at the moment it is sent (tests/public_cards.py)."""
    match_id = next(x.match_result.match_id for x in streams[0] if x.HasField("match_result"))
    stored = store.match(match_id)
    assert stored is not None
    held = held_cards(stored.record, variant)
    public = [
        [
            item
            for x in stream
            if x.WhichOneof("body") in ("events", "decision", "deal_result", "match_result")
            for item in (
                x.events.events
                if x.HasField("events")
                else x.decision.observation.events  # protocol 2: inside the requests
                if x.HasField("decision")
                else [x]
            )
        ]
        for stream in streams
    ]
    assert all(p == public[0] for p in public)  # what is public is the same for all
    inspected = 0
    for stream in streams:
        deal, seat = 0, 0
        for message in stream:
            body = message.WhichOneof("body")
            if body == "deal_started":
                deal, seat = message.deal_started.deal, message.deal_started.seat
            if body in ("deal_started", "decision", "action_result") and deal:
                cards = _cards_in(message, PUBLIC)
                if body == "decision":
                    cards |= _cards_in(facts_of(message.decision.observation, "private"))
                assert not cards - held[deal - 1][seat], (variant, body, deal, seat)
                inspected += cards.total()
    assert inspected > 100  # the hands and legal actions were read, card by card
    game = games.make(variant, **stored.record["options"])
    for stream in streams:
        leaks = public_leaks(game, stored.record["deals"], stream)
        assert not leaks, f"{variant}: hidden cards on the wire: {'; '.join(leaks)}"


class _Deal:
    """One recorded deal replayed: who took each action, and the phase after each."""

    def __init__(self, game: Game, deal: dict[str, Any]) -> None:
        setup = game.setup_from_dict(deal["setup"])
        self.start = game.new_deal(setup, seed=deal["seed"])
        state = game.new_deal(setup, seed=deal["seed"])
        self.steps: list[tuple[int, Action]] = []
        self.phases = [state.phase]
        for text in deal["actions"]:
            if text.startswith(FLED_MARK):
                break
            if text == AUTO_MARK:
                continue
            action = Action.from_str(text)
            self.steps.append((state.to_act, action))
            state.apply(action)
            self.phases.append(state.phase)


def _wire_event(event: arena_pb2.Event) -> Event:
    return Event(
        event.kind,
        event.seat if event.HasField("seat") else NOBODY,
        tuple(c for text in event.cards for c in parse_cards(text)),
    )


def public_leaks(game: Game, deals: list[dict[str, Any]], stream: list[Any]) -> list[str]:
    """The events and public facts (a decision's, a deal result's details) of one seat's
    stream that show a card hidden at the moment they were sent: each DecisionRequest is
    the seat's next decision of the record, and the events before it were sent by then."""
    replayed = [_Deal(game, deal) for deal in deals]
    problems: list[str] = []
    deal: _Deal | None = None
    statement: Statement | None = None
    events: list[Event] = []  # the deal's events received so far
    by_deal: dict[int, list[Event]] = {}
    mine: list[int] = []  # the record's moments of this seat's decisions in the deal
    number, seat, taken, decisions = 0, 0, 0, 0

    def check(moment: int, facts: Counter[int], where: str) -> None:
        nonlocal taken
        assert deal is not None and statement is not None
        for who, action in deal.steps[taken:moment]:
            statement.take(who, action)
        taken = moment
        phase = deal.phases[moment]
        problems.extend(f"{where}: {leak}" for leak in statement.leaks(events, phase))
        hidden = facts - statement.pool(events, phase)
        if hidden:
            problems.append(f"{where}: public facts show {format_cards(sorted(hidden.elements()))}")

    for message in stream:
        body = message.WhichOneof("body")
        if body == "deal_started":
            number, seat = message.deal_started.deal, message.deal_started.seat
            deal = replayed[number - 1]
            statement = statement_for(deal.start)
            mine = [k for k, (s, _) in enumerate(deal.steps) if s == seat]
            events, taken, decisions = by_deal.setdefault(number, []), 0, 0
        elif body == "events":
            for event in message.events.events:
                by_deal.setdefault(event.deal, []).append(_wire_event(event))
        elif body == "decision" and deal is not None:
            for event in message.decision.observation.events:  # protocol 2: inside
                by_deal.setdefault(event.deal, []).append(_wire_event(event))
            moment = mine[decisions]
            decisions += 1
            facts = _cards_in(facts_of(message.decision.observation, "public"))
            check(moment, facts, f"deal {number}, decision {decisions} of seat {seat}")
        elif body == "deal_result" and deal is not None:
            facts = _cards_in(message.deal_result.details)  # e.g. Shengji's kitty, now shown
            check(len(deal.steps), facts, f"deal {number}, end")
    return problems


@pytest.mark.parametrize("protocol", [1, 2])
@pytest.mark.parametrize("variant", games.names())
def test_no_seat_receives_a_card_it_does_not_hold(
    store: Store, variant: str, protocol: int
) -> None:
    for streams in play_raw_matches(store, variant, matches=2, max_deals=2, protocol=protocol):
        check_wire(store, variant, streams)


WIRE_PLANTS: list[tuple[str, Plant]] = [
    ("guandan", plants.guandan_tribute_shown_when_given),  # GD-14, in events
    ("guandan", plants.guandan_tribute_moved_to_give_time),  # GD-14, events sent too early
    ("shengji-2", plants.shengji_kitty_shown_after_burying),  # SJ-25, events sent too early
    ("shengji-1", plants.shengji_bury_shows_the_card),  # SJ-13, in events
    ("shengji-2", plants.shengji_kitty_in_public),  # SJ-13, in public facts
    ("sanfu", plants.sanfu_third_card_turned),  # SF-2, in events
]


@pytest.mark.interpreted_engines
@pytest.mark.parametrize("protocol", [1, 2])
@pytest.mark.parametrize(
    ("variant", "plant"), WIRE_PLANTS, ids=[plant.__name__ for _, plant in WIRE_PLANTS]
)
def test_the_wire_check_finds_a_leak_planted_in_the_engine(
    store: Store, monkeypatch: pytest.MonkeyPatch, variant: str, plant: Plant, protocol: int
) -> None:
    """A real server plays with an engine that leaks; the wire check must see it. The
    match seed is pinned so that Guandan's second and third deals have tribute."""
    plant(monkeypatch)
    monkeypatch.setattr(
        session, "secrets", SimpleNamespace(randbits=lambda bits: 5, token_hex=secrets.token_hex)
    )
    (streams,) = play_raw_matches(store, variant, matches=1, max_deals=3, protocol=protocol)
    with pytest.raises(AssertionError, match="hidden cards on the wire"):
        check_wire(store, variant, streams)
