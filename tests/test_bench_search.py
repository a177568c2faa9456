"""The search bench: clone, determinized sample and decision costs of a variant."""

from __future__ import annotations

import json

import pytest

from arena.commands.bench_search import bench_search, describe_search, positions
from arena.errors import ConfigError
from bots.search import SearchBot


def test_positions_are_reproducible_and_give_the_seat_a_choice() -> None:
    first = positions("shengji-1", 5, seed=3)
    again = positions("shengji-1", 5, seed=3)
    assert [p.observation for p in first] == [p.observation for p in again]
    for position in first:
        observation = position.observation
        assert len(observation.legal_actions) > 1
        assert position.state.observe(observation.seat) == observation


def test_bench_search_reports_its_figures_as_json() -> None:
    """The decisions and rollouts reported are those of a search bot of the bench's seed
    deciding the same positions: fails if the bench reports another bot's choices, any
    legal action, or a rollout count that is not the work done (none, say)."""
    result = bench_search("shengji-1", decisions=2, samples=3, repeats=2, seed=1)
    assert json.loads(json.dumps(result)) == result
    assert result["variant"] == "shengji-1" and result["positions"] == 3
    assert result["clone_us"] > 0 and result["sample_us"] > 0 and result["decision_ms"] > 0
    assert result["decisions"] == 2
    bot = SearchBot(1, reach=0, early=1)  # the bench searches every position
    observations = [p.observation for p in positions("shengji-1", 3, seed=1)][:2]
    assert result["chosen"] == [str(bot.act(observation)) for observation in observations]
    assert result["rollouts"] == bot.total.rollouts > 0
    line = describe_search(result)
    assert line.startswith("shengji-1: clone ") and "search decision" in line
    assert f"{result['rollouts']} rollouts" in line


def test_the_same_seed_makes_the_same_decisions() -> None:
    first = bench_search("sanfu", decisions=2, samples=2, repeats=1, seed=5)
    second = bench_search("sanfu", decisions=2, samples=2, repeats=1, seed=5)
    assert first["chosen"] == second["chosen"] and first["rollouts"] == second["rollouts"]


@pytest.mark.parametrize("name", ["decisions", "samples", "repeats"])
def test_counts_below_one_are_refused_by_name(name: str) -> None:
    with pytest.raises(ConfigError, match=f"{name} must be at least 1, got 0"):
        bench_search("guandan", **{name: 0})


def test_an_unknown_variant_is_refused() -> None:
    with pytest.raises(ConfigError, match="whist"):
        bench_search("whist", decisions=1, samples=1, repeats=1)
