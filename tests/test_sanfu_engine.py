"""The sanfu engine against recorded outputs of the reference engine.

``fixtures/sanfu_engine.json`` holds digests (``sanfu_trace.py``) of whole deals
played by the reference engine: every listed action in order (complete and brief
listings), observations, refusals, events, their text and outcomes must come out
the same here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sanfu_trace import trace_deal

from arena.games import make

RECORDS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "fixtures" / "sanfu_engine.json").read_text()
)
BATCH = 25


@pytest.mark.parametrize("start", range(0, len(RECORDS), BATCH))
def test_deals_show_exactly_what_the_reference_engine_showed(start: int) -> None:
    game = make("sanfu")
    for record in RECORDS[start : start + BATCH]:
        setup = game.setup_from_dict(record["setup"])
        digest, decisions, _ = trace_deal(game, setup, record["seed"])
        assert decisions == record["decisions"], record["seed"]
        assert digest == record["digest"], record["seed"]
