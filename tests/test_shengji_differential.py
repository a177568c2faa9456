"""The Shengji engine against recorded outputs of its reference version.

``tests/fixtures/record_shengji.py`` played consecutive deals of every variant with
seeded random choices (``tests/shengji_trace.py``) and digested every legal action
list, observation, refusal of an unlisted play and outcome; this test plays them
again and compares, so a faster listing or ``apply`` changes nothing a seat can see.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from shengji_trace import CASES, case_key, play_case

RECORDED: dict[str, list[list[Any]]] = json.loads(
    (Path(__file__).parent / "fixtures" / "shengji_engine.json").read_text()
)


@pytest.mark.parametrize(("variant", "options", "count"), CASES, ids=[c[0] for c in CASES])
def test_deals_play_as_recorded(variant: str, options: dict[str, Any], count: int) -> None:
    played = play_case(variant, options, count)
    recorded = RECORDED[case_key(variant, options)]
    assert len(played) == len(recorded)
    for n, (deal, expected) in enumerate(zip(played, recorded, strict=True)):
        assert deal == expected, f"deal {n} (seed {expected[0]}) differs"
