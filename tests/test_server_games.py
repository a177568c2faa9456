"""Every game over gRPC: four SDK bots play whole matches; no seat ever receives a card
it does not hold (every message of many matches inspected); the SDK takes its seat back
after its connection breaks."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.message import Message
from test_server_play import held_cards
from test_server_seats import Arena, Raw, clock, run

from arena import games
from arena._proto.arena.v1 import arena_pb2
from arena.cards import parse_cards
from arena.client.runner import run_bot_async
from arena.errors import ParseError
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
            if items and all(isinstance(item, str) for item in items):
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


PUBLIC = frozenset({"events", "public_facts", "description", "text", "summary"})


@pytest.mark.parametrize("variant", games.names())
def test_no_seat_receives_a_card_it_does_not_hold(store: Store, variant: str) -> None:
    server = Arena(store, PlayConfig(clock=clock(), max_deals=2))
    matches = 2
    try:
        tokens = server.tokens(*(f"hide-{variant}-{n}" for n in range(4)))

        async def one(token: str) -> list[list[arena_pb2.ServerMessage]]:
            bot = Raw(server.address, token)
            await bot.hello()
            await bot.join(variant=variant, rated=False)
            streams = []
            for _ in range(matches):
                start = len(bot.seen)
                await bot.play_out()
                streams.append(bot.seen[start:])
            await bot.close()
            return streams

        async def four() -> list[Any]:
            return list(await asyncio.gather(*(one(t) for t in tokens)))

        by_bot = run(four())
    finally:
        server.close()
    for m in range(matches):
        streams = [by_bot[b][m] for b in range(4)]
        match_id = next(x.match_result.match_id for x in streams[0] if x.HasField("match_result"))
        stored = store.match(match_id)
        assert stored is not None
        held = held_cards(stored.record, variant)
        public = [
            [
                item
                for x in stream
                if x.WhichOneof("body") in ("events", "deal_result", "match_result")
                for item in (x.events.events if x.HasField("events") else [x])
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
                    assert not cards - held[deal - 1][seat], (variant, body, deal, seat)
                    inspected += cards.total()
        assert inspected > 100  # the hands and legal actions were read, card by card
