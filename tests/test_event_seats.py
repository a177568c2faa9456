"""One seat numbering per deal, in every game: every seat an event names is a seat of the
table the deal is played at — the seating ``player_at`` gives and a DealStarted shows —
including the events of the deal's set-up (sanfu's turned cards and seat changes)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import grpc
import pytest
from game_suite import profile_of, random_action, start_states
from hypothesis import given, settings
from hypothesis import strategies as st
from test_server import ServerThread

import bots
from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.cards import Card, format_cards
from arena.games import make, names
from arena.games.base import NOBODY, NUM_SEATS, Event, State
from arena.match import play_match
from arena.store import Store, StoredMatch

FROM_HAND = frozenset({"play", "tribute", "return", "declare", "turn", "throw_failed"})
"""Kinds whose cards come out of (or are shown from) the hand of the event's seat (a
tribute is shown once every tribute is given: out of the hand by then)."""
PLAYER_VALUE = {"sanfu": frozenset({"turn", "swap", "fled"})}
"""Per game, the kinds whose ``value`` is the player sitting at the event's seat."""


def check_event(
    game: str, state: State, event: Event, held: Sequence[Counter[Card]], where: str
) -> None:
    """``event`` names seats of the table ``state`` is played at; ``held`` are, per seat,
    the cards it has held in the deal so far."""
    seat, target = event.seat, event.target
    assert seat == NOBODY or 0 <= seat < NUM_SEATS, where
    assert target == NOBODY or 0 <= target < NUM_SEATS, where
    if event.kind in FROM_HAND and event.cards:
        missing = Counter(event.cards) - held[seat]
        assert not missing, (
            f"{where}: {event} shows {format_cards(sorted(missing.elements()))}, "
            f"not in the hand of seat {seat}"
        )
    if event.kind in PLAYER_VALUE.get(game, ()):
        assert event.value == state.player_at(seat), f"{where}: {event} names another player"
        if target != NOBODY:
            assert event.tag == str(state.player_at(target)), f"{where}: {event}"


def check_leads(events: Sequence[Event], where: str) -> None:
    """The seat a ``lead`` names is the seat whose play or pass comes next."""
    for index, event in enumerate(events):
        if event.kind != "lead":
            continue
        after = next((e for e in events[index + 1 :] if e.kind in ("play", "pass")), None)
        assert after is None or after.seat == event.seat, f"{where}: {event} then {after}"


@pytest.mark.parametrize("name", names())
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_seat_an_event_names_is_a_seat_of_the_table_played_at(name: str, seed: int) -> None:
    game = make(name)
    rng = random.Random(seed)
    for number, state in enumerate(start_states(game, seed)):
        where = f"{name} seed {seed} deal {number}"
        seating = [state.player_at(s) for s in range(NUM_SEATS)]
        held = [Counter(hand) for hand in state.seat_cards()]
        for event in state.events:  # the set-up: dealt, turned, seats changed
            check_event(name, state, event, held, where)
        for _ in range(profile_of(game).max_decisions):
            if state.is_terminal():
                break
            seen = len(state.events)
            state.apply(random_action(state, rng))
            for seat, hand in enumerate(state.seat_cards()):
                held[seat] |= Counter(hand)
            for event in state.events[seen:]:
                check_event(name, state, event, held, where)
        check_leads(state.events, where)
        assert [state.player_at(s) for s in range(NUM_SEATS)] == seating  # fixed for the deal
        for seat in range(NUM_SEATS):
            assert state.observe(seat).seat == seat


def test_on_the_wire_a_sanfu_events_seats_are_those_of_its_deal_started(
    tmp_path: Path,
) -> None:
    """A stored sanfu match watched from a real server: each turn, swap and fled event
    names the player DealStarted.players seats where the event says."""
    game = make("sanfu")
    players = ["random"] * NUM_SEATS
    policies = [bots.make("random", seed) for seed in range(NUM_SEATS)]
    played = play_match(game, policies, seed=11, players=players, max_deals=3)
    record = played.record.to_dict()
    stored = StoredMatch(
        id="sanfu-1",
        tournament_id=None,
        variant="sanfu",
        options=dict(game.options),
        seed=11,
        seating=tuple(players),
        outcome={"winner": None, "totals": [0] * NUM_SEATS, "team_score": 0.5},
        record=record,
        deals=len(record["deals"]),
        decisions=sum(len(deal["actions"]) for deal in record["deals"]),
    )
    with Store.open(tmp_path / "arena.sqlite") as store:
        store.add_match(stored)
        server = ServerThread(store)
        try:
            with grpc.insecure_channel(server.address) as channel:
                request = arena_pb2.WatchRequest(match_id="sanfu-1")
                messages = list(arena_pb2_grpc.SpectateStub(channel).Watch(request))
        finally:
            server.close()
    seated: list[int] = []
    checked = 0
    for message in messages:
        if message.WhichOneof("body") == "deal_started":
            seated = list(message.deal_started.players)
        for event in message.events.events:
            if event.kind in PLAYER_VALUE["sanfu"]:
                assert event.value == seated[event.seat], event
                if event.HasField("target"):
                    assert event.tag == str(seated[event.target]), event
                checked += 1
    assert checked >= 6  # two turned cards a deal (one after a sweep), and the swaps
