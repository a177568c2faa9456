"""A selection's reading before it is sent (arena.web.readings): a Shengji throw read as
safe to try always stands when the engine plays it (SJ-17), over many real leads."""

from __future__ import annotations

import random

from arena.cards import format_card
from arena.games import make
from arena.games.base import State
from arena.web.readings import read_selection

SAFE = "A throw safe to try"


def leads(variant: str, deals: int) -> list[State]:
    """States where a seat leads a trick in the play, from random deals."""
    found = []
    game = make(variant)
    for seed in range(deals):
        state = game.new_deal(game.first_setup(), seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            observation = state.observe(state.to_act)
            if observation.phase == "play" and not observation.public["trick"]["plays"]:
                found.append(state.clone())
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
    return found


def throws_of(state: State) -> list[list[int]]:
    """Two-card and three-card leads of one plain suit from the hand (its highest cards)."""
    observation = state.observe(state.to_act)
    by_suit: dict[str, list[int]] = {}
    for card in observation.hand:
        code = format_card(card)
        if code not in ("SJ", "BJ"):
            by_suit.setdefault(code[-1], []).append(card)
    found = []
    for cards in by_suit.values():
        ranked = sorted(set(cards), reverse=True)
        if len(ranked) >= 2:
            found.append(ranked[:2])
        if len(ranked) >= 3:
            found.append(ranked[:3])
    return found


def test_a_throw_read_as_safe_stands_when_played_sj_17() -> None:
    safe = risky = 0
    for state in leads("shengji-2", 12):
        observation = state.observe(state.to_act)
        for cards in throws_of(state):
            codes = [format_card(card) for card in cards]
            reading = read_selection(observation, codes, "en")
            if reading.get("throw") is None:
                continue  # not a throw there (one unit, or trumps mixed in)
            played = state.clone()
            seat = played.to_act
            played.apply(played.parse_action("play " + " ".join(codes)))
            last = [e for e in played.events if e.kind == "play" and e.seat == seat][-1]
            if reading["throw"].startswith(SAFE):
                safe += 1
                assert sorted(last.cards) == sorted(cards), (codes, reading)
            else:
                risky += 1
                assert "may fail" in reading["throw"]
    assert safe > 0 and risky > 0  # both answers were met
