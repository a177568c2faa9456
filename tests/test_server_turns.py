"""Whose turn it is, told to a running match's spectators: each time the session asks a
seat, the events so far and then a ``Turn`` naming the seat the engine has to act, the
deal's phase and the time it has (its decision's own, its time bank, a deadline); a
spectator who comes in mid-deal gets it after the catch-up. Built-in bots play a whole
match in process, a spectator watching from before its start."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from arena import games
from arena._proto.arena.v1 import arena_pb2
from arena.games.base import NUM_SEATS
from arena.record import MatchRecord, start_deal
from arena.replay import replay_entry
from arena.server.session import ClockConfig, MatchPlan, MatchSession
from arena.store import Store

CLOCK = ClockConfig(decision_seconds=30.0, time_bank_seconds=12.0)


def watched_match(path: Path, variant: str) -> tuple[list[arena_pb2.WatchMessage], MatchRecord]:
    """A one-deal match of built-in bots, every message a spectator was sent, and its
    stored record."""
    with Store.open(path) as store:
        plan = MatchPlan(
            variant, ("heuristic",) * NUM_SEATS, rated=False, seed=5, max_deals=1, clock=CLOCK
        )
        session = MatchSession(
            store, plan, [None] * NUM_SEATS, clock=CLOCK, league_lock=threading.Lock()
        )
        seen: list[arena_pb2.WatchMessage] = []

        async def play() -> None:
            session.watch(lambda message: seen.append(message) if message else None, 0)
            await session.start()

        asyncio.run(play())
        stored = store.match(session.match_id)
        assert stored is not None
        return seen, MatchRecord.from_dict(stored.record)


@pytest.mark.parametrize("variant", ["guandan", "shengji-2", "sanfu"])
def test_each_seat_asked_is_told_after_the_events_with_its_clock(
    tmp_path: Path, variant: str
) -> None:
    started = time.time()
    seen, record = watched_match(tmp_path / "arena.sqlite", variant)
    game = games.make(record.game, **record.options)
    state = start_deal(game, record.deals[0])
    asked = []
    for text in record.deals[0].actions:
        if not text.startswith("!"):
            asked.append((state.to_act, state.phase))
        replay_entry(state, text)
    turns = [m.turn for m in seen if m.WhichOneof("body") == "turn"]
    assert [(t.seat, t.phase) for t in turns] == asked, "one Turn per decision, the engine's"
    seq = 0
    for message in seen:
        body = message.WhichOneof("body")
        if body == "events":
            seq = message.events.events[-1].seq
        elif body == "turn":
            turn = message.turn
            assert turn.after_seq == seq, "a Turn comes after the events that led to it"
            assert 0 < turn.decision_ms <= 30_000 and turn.time_bank_ms == 12_000
            deadline = turn.deadline.ToMilliseconds() / 1000
            assert started < deadline < time.time() + 43
            assert message.live and turn.deal == 1


def test_a_spectator_coming_in_mid_deal_is_told_whose_turn_it_is(tmp_path: Path) -> None:
    with Store.open(tmp_path / "arena.sqlite") as store:
        plan = MatchPlan("guandan", ("heuristic",) * NUM_SEATS, rated=False, seed=5, max_deals=1)
        session = MatchSession(
            store, plan, [None] * NUM_SEATS, clock=CLOCK, league_lock=threading.Lock()
        )
        late: list[arena_pb2.WatchMessage] = []

        async def play() -> None:
            task = session.start()
            while session._seq < 20:  # a few plays in
                await asyncio.sleep(0)
            session.watch(lambda message: late.append(message) if message else None, 0)
            await task

        asyncio.run(play())
    bodies = [m.WhichOneof("body") for m in late]
    assert bodies[:4] == ["match", "deal_started", "events", "turn"]
    catch_up = late[3].turn
    assert not late[3].live and catch_up.after_seq == late[2].events.events[-1].seq
    assert catch_up.decision_ms > 0
