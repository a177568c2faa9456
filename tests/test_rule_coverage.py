"""The rule coverage table: every rule id of rules/*.md is reached by the bots' deals.

A modest set of deals — random, first-legal and heuristic bots, every variant with the
options that bring its house rules into play, consecutive match deals (so tribute,
later dealers and one-card reveals happen) and a few deals started late in a match (so
the A-level rules happen) — is played, and :func:`arena.games.usage.rules_applied` says
which rules each deal used. Every rule id must be reached, or be listed in
:data:`UNREACHABLE` with the reason no bot deal can reach it; a listed id that is
reached fails too (its reason went stale). The use of every option
(:data:`arena.games.usage.OPTION_USES`) must be reached the same way. The table
(id → deals reached) is printed (``pytest -s``) and kept in ``COVERAGE``.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

import bots
from arena.cards import RANK_ACE
from arena.chance import derive_seed
from arena.games import make
from arena.games.guandan import GuandanSetup
from arena.games.shengji import ShengjiSetup
from arena.games.usage import OPTION_USES, PREFIXES, rule_key, rules_applied
from arena.match import Clock, deal_seed, play_deal

RULE_IDS: dict[str, tuple[str, ...]] = {
    "shengji": tuple(f"SJ-{n}" for n in range(1, 33)),
    "guandan": tuple(f"GD-{n}" for n in range(1, 18)),
    "sanfu": tuple(f"SF-{n}" for n in range(1, 18)),
}
"""Every rule id of rules/shengji.md, guandan.md and sanfu.md (checked against the rules
themselves where they are at hand: ``../shared/rules``)."""

UNREACHABLE: dict[str, str] = {
    "SJ-32": "room points are league scoring that leaderboards apply to a deal's result "
    "(arena.rating); no deal applies them",
}
"""Rule ids (or option uses) no bot deal can reach, with the reason."""

RANDOM = ("random",) * 4
FIRST = ("first",) * 4
HEURISTIC = ("heuristic",) * 4


@dataclass(frozen=True)
class Batch:
    """Consecutive match deals of a variant from a setup (``None``: a match's first)."""

    game: str
    options: dict[str, Any] = field(default_factory=dict)
    players: tuple[str, ...] = RANDOM
    deals: int = 20
    start: Callable[[], Any] | None = None
    clock: bool = False
    """A clock every answer misses (SF-12): the seats are played automatically, then flee."""


def _late_shengji() -> ShengjiSetup:
    return ShengjiSetup(levels=(RANK_ACE - 1, RANK_ACE - 1), dealer=0, deal_index=20)


def _late_guandan() -> GuandanSetup:
    return GuandanSetup(
        levels=(RANK_ACE - 1, RANK_ACE - 1), level_team=0, previous_order=(0, 1, 2, 3)
    )


PLAN = [
    Batch("shengji-1", {"two_colour": True, "constant_twos": True}, deals=60),
    Batch("shengji-1", {"no_declaration": "flip_kitty"}, FIRST, deals=10),
    Batch("shengji-2", {"throw_penalty": 5, "match_end": "reach_a"}, deals=60),
    Batch("shengji-2", {"no_declaration": "flip_kitty"}, FIRST, deals=10),
    Batch("shengji-2", {"throw_penalty": 5}, HEURISTIC, deals=20),
    Batch("shengji-2", {}, deals=20, start=_late_shengji),
    Batch("shengji-3", {"constant_twos": True}, deals=60),
    Batch("shengji-3", {}, HEURISTIC, deals=10),
    Batch("shengji-4", {}, deals=200),
    Batch("shengji-4", {}, FIRST, deals=3),
    Batch("shengji-4", {}, HEURISTIC, deals=20),
    Batch("guandan", {"a_fail_limit": 2}, deals=100),
    Batch("guandan", {"a_fail_limit": 1}, deals=30, start=_late_guandan),
    Batch("guandan", {}, HEURISTIC, deals=30),
    Batch("sanfu", {"deals": 4}, deals=100),
    Batch("sanfu", {}, HEURISTIC, deals=20),
    Batch("sanfu", {"time_limit": 30}, deals=1, clock=True),
]
"""The coverage deals (a few CPU-seconds in all)."""


def _family(game: str) -> str:
    return "shengji" if game.startswith("shengji") else game


def _late_clock(limit: float) -> Clock:
    """A clock whose every reading is ``limit`` + 1 seconds after the last: every
    answer comes too late."""
    ticks = itertools.count(0.0, limit + 1.0)
    return Clock(limit=limit, now=lambda: next(ticks))


def play_batch(number: int, batch: Batch) -> Counter[str]:
    """The deals of one batch: how many deals used each rule id and use."""
    game = make(batch.game, **batch.options)
    seed = derive_seed(34, "coverage", number)
    policies = [
        bots.make(name, derive_seed(seed, "bot", p)) for p, name in enumerate(batch.players)
    ]
    start = batch.start or game.first_setup
    setup = start()
    clock = _late_clock(float(game.options["time_limit"])) if batch.clock else None
    reached: Counter[str] = Counter()
    for deal in range(batch.deals):
        state = game.new_deal(setup, seed=deal_seed(seed, deal))
        play_deal(state, policies, clock=clock)
        reached.update(rules_applied(state))
        setup = state.outcome().next_setup or start()
    return reached


@pytest.fixture(scope="module")
def coverage() -> dict[str, Counter[str]]:
    """Per family, the deals that reached each rule id and use."""
    found: dict[str, Counter[str]] = {family: Counter() for family in RULE_IDS}
    for number, batch in enumerate(PLAN):
        found[_family(batch.game)] += play_batch(number, batch)
    return found


COVERAGE: dict[str, int] = {}
"""The last table made: rule id or use → deals that reached it (filled by the test)."""


def required() -> list[str]:
    """Every rule id, and every option's use."""
    ids = [rule for family in RULE_IDS for rule in RULE_IDS[family]]
    ids += [use for family in OPTION_USES for use in OPTION_USES[family].values()]
    return sorted(set(ids), key=rule_key)


def test_every_rule_is_reached_or_listed_unreachable_with_its_reason(
    coverage: dict[str, Counter[str]],
) -> None:
    reached: Counter[str] = Counter()
    for counts in coverage.values():
        reached += counts
    COVERAGE.clear()
    COVERAGE.update({rule: reached[rule] for rule in sorted(reached, key=rule_key)})
    width = max(len(rule) for rule in COVERAGE)
    print("\nrule coverage (deals that reached each rule id or use):")
    for rule in sorted(set(required()) | set(reached), key=rule_key):
        print(f"  {rule:<{width}}  {reached[rule] or UNREACHABLE.get(rule, 'NOT REACHED')}")
    missing = [rule for rule in required() if not reached[rule] and rule not in UNREACHABLE]
    stale = [rule for rule in UNREACHABLE if reached[rule]]
    assert not missing, f"rule ids reached by no deal and not listed in UNREACHABLE: {missing}"
    assert not stale, f"listed in UNREACHABLE but reached (the reason is stale): {stale}"


def test_every_use_returned_belongs_to_a_rule_id_of_its_family(
    coverage: dict[str, Counter[str]],
) -> None:
    for family, counts in coverage.items():
        known = set(RULE_IDS[family])
        for rule in counts:
            assert rule.startswith(PREFIXES[family] + "-"), rule
            assert rule.partition("/")[0] in known, rule


def test_unreachable_and_option_uses_name_known_ids() -> None:
    known = {rule for ids in RULE_IDS.values() for rule in ids}
    for rule in [*UNREACHABLE, *(u for uses in OPTION_USES.values() for u in uses.values())]:
        assert rule.partition("/")[0] in known, rule


def test_every_option_of_every_game_has_a_use() -> None:
    """The options each game takes (its check_options) are exactly those OPTION_USES names."""
    for name in ("shengji-1", "shengji-2", "shengji-3", "shengji-4", "guandan", "sanfu"):
        assert set(make(name).options) == set(OPTION_USES[_family(name)]), name
