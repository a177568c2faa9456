"""The Guandan engine against recorded outputs of the reference engine, and its
incremental listing of plays against a listing made afresh.

``fixtures/guandan_engine.json`` holds digests (``guandan_trace.py``) of whole
deals played by the reference engine: every listed action in order, observations,
refusals, events and outcomes must come out the same here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from guandan_trace import trace_deal

from arena.games import make

RECORDS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "fixtures" / "guandan_engine.json").read_text()
)


@pytest.mark.parametrize("start", range(0, len(RECORDS), 25))
def test_deals_show_exactly_what_the_reference_engine_showed(start: int) -> None:
    for record in RECORDS[start : start + 25]:
        game = make("guandan", **record["options"])
        setup = game.setup_from_dict(record["setup"])
        digest, decisions, _ = trace_deal(game, setup, record["seed"])
        assert decisions == record["decisions"], record["seed"]
        assert digest == record["digest"], record["seed"]
