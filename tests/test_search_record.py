"""The search bot draws the same states and makes the same decisions as the reference
checkout did at fixed positions (``tests/fixtures/search_record.json``, written by
``tests/fixtures/search_record.py``): speed-ups of sampling and search change no
result for a seed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fixtures import search_record

RECORDED: dict[str, Any] = json.loads(
    (Path(__file__).parent / "fixtures" / "search_record.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("variant", search_record.VARIANTS)
def test_determinized_draws_are_the_recorded_ones(variant: str) -> None:
    assert search_record.record_draws(variant) == RECORDED[variant]["draws"]


@pytest.mark.parametrize("variant", search_record.VARIANTS)
def test_search_decisions_are_the_recorded_ones(variant: str) -> None:
    assert search_record.record_decisions(variant) == RECORDED[variant]["decisions"]
