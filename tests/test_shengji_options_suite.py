"""The shared game suite over Shengji's options (rules/shengji.md, Variants)."""

from __future__ import annotations

from typing import Any

import game_suite as suite
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import make

OPTION_SETS: list[tuple[str, dict[str, Any]]] = [
    ("shengji-1", {"two_colour": True}),
    ("shengji-1", {"constant_twos": True, "no_declaration": "flip_kitty"}),
    ("shengji-2", {"constant_twos": True, "throw_penalty": 10}),
    ("shengji-2", {"no_declaration": "flip_kitty", "match_end": "reach_a"}),
    ("shengji-3", {"constant_twos": True, "throw_penalty": 5}),
    ("shengji-4", {"match_end": "reach_a"}),
]
CHECKS = [
    suite.check_random_play_finishes,
    suite.check_cards_accounted,
    suite.check_legal_actions,
    suite.check_observations,
    suite.check_record_replays,
]


@pytest.mark.parametrize(("name", "options"), OPTION_SETS)
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_suite_with_options(name: str, options: dict[str, Any], check: Any, seed: int) -> None:
    check(make(name, **options), seed)
