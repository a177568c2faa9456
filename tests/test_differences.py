"""Differences from the baseline (arena/sim/differences.py): intervals against worked
examples, Holm's procedure, a real effect found in the right direction, and variants
that do not differ flagged no more often than the family-wise error rate allows."""

from __future__ import annotations

import random

import pytest

from arena.sim.balance import mean_interval, rate
from arena.sim.differences import FAMILY_ERROR, holm, mean_difference, rate_difference


def test_a_rate_difference_has_newcombes_hybrid_score_interval() -> None:
    # Newcombe (1998), Statistics in Medicine 17:873, Table II (a), method 10:
    # 56/70 - 48/80 = 0.2000, interval 0.0524 to 0.3339
    found = rate_difference(rate(48, 80), rate(56, 70))
    assert found is not None
    assert found["diff"] == pytest.approx(0.2)
    assert (round(found["low"], 4), round(found["high"], 4)) == (0.0524, 0.3339)
    assert 0 < found["p"] < 0.01  # z = 2.62 pooled


def test_a_rate_difference_of_nothing_counted_is_none_and_of_equal_rates_not_significant() -> None:
    assert rate_difference(rate(0, 0), rate(3, 10)) is None
    same = rate_difference(rate(0, 50), rate(0, 80))
    assert same is not None and same["diff"] == 0 and same["p"] == 1.0
    assert same["low"] < 0 < same["high"]


def test_a_mean_difference_is_welchs_normal_interval() -> None:
    base = mean_interval(total=100, squares=1100, n=10)  # mean 10, sd 3.33…
    other = mean_interval(total=240, squares=2960, n=20)  # mean 12, sd 1.45…
    found = mean_difference(base, other)
    assert found is not None and found["diff"] == pytest.approx(2.0)
    spread = (base["sd"] ** 2 / 10 + other["sd"] ** 2 / 20) ** 0.5
    assert found["high"] - found["diff"] == pytest.approx(1.959964 * spread, rel=1e-6)
    assert mean_difference(mean_interval(5, 25, 1), other) is None  # one value: no spread


def test_holm_steps_down_until_a_p_value_fails() -> None:
    # sorted: 0.005 <= 0.05/4, 0.01 <= 0.05/3, then 0.03 > 0.05/2 stops the procedure
    assert holm([0.01, 0.04, 0.03, 0.005]) == [True, False, False, True]
    assert holm([0.04]) == [True]
    assert holm([0.06, 0.001]) == [False, True]
    assert holm([]) == []


def test_a_real_difference_is_found_in_its_direction() -> None:
    more = rate_difference(rate(1000, 2000), rate(1200, 2000))
    fewer = rate_difference(rate(1200, 2000), rate(1000, 2000))
    assert more is not None and fewer is not None
    assert more["low"] > 0 and fewer["high"] < 0
    assert holm([more["p"], fewer["p"], 0.7]) == [True, True, False]


def test_variants_that_do_not_differ_are_flagged_no_more_than_the_error_rate() -> None:
    """Families of ten comparisons between samples of the same rates: the share of
    families with any difference flagged stays at or under 5% (Holm's guarantee)."""
    rng = random.Random(7)
    families, flagged = 1000, 0
    for _ in range(families):
        p_values = []
        for truth in (0.1, 0.25, 0.5, 0.5, 0.6, 0.3, 0.05, 0.45, 0.7, 0.2):
            a = sum(rng.random() < truth for _ in range(150))
            b = sum(rng.random() < truth for _ in range(150))
            found = rate_difference(rate(a, 150), rate(b, 150))
            assert found is not None
            p_values.append(found["p"])
        flagged += any(holm(p_values))
    # 5% of 1000 is 50; the binomial's sd is about 7: 3 sd above is still far below 80
    assert flagged / families <= FAMILY_ERROR + 0.025
