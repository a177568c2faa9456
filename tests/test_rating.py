"""Ratings and statistics: partnership Elo, OpenSkill, SPRT, intervals (arena.rating)."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import pytest

from arena.rating import (
    DEFAULT_MU,
    DEFAULT_SIGMA,
    SCORES,
    EloConfig,
    RatingError,
    SkillRating,
    Sprt,
    SprtConfig,
    elo_difference,
    elo_interval,
    expected,
    likelihood_of_superiority,
    team_rating,
    update_skill,
    update_teams,
    wilson_interval,
)

# ---------------------------------------------------------------------------- Elo


def test_expected_by_hand() -> None:
    assert expected(1500, 1500) == 0.5
    # 10^(-400/400) = 0.1, E = 1 / 1.1
    assert expected(1600, 1200) == pytest.approx(1 / 1.1)
    # 10^(400/400) = 10, E = 1 / 11
    assert expected(1200, 1600) == pytest.approx(1 / 11)
    # another scale: 10^(-100/200) = 0.316228, E = 1 / 1.316228 = 0.759747
    assert expected(1600, 1500, scale=200) == pytest.approx(0.759747, abs=1e-6)
    assert expected(0, 1e9) == 0.0
    assert expected(1e9, 0) == 1.0


def test_team_rating_is_the_mean() -> None:
    assert team_rating({"a": 1600, "b": 1400}, ["a", "b"]) == 1500
    assert team_rating({"a": 1600}, ["a", "new"]) == 1550
    assert team_rating({}, ["new"], initial=1000) == 1000


def test_elo_even_teams_win() -> None:
    # Teams 1600/1400 (mean 1500) against 1500/1500 (mean 1500): E = 0.5.
    # A win: each partner of A gains 16·(1 − 0.5) = 8, each of B loses 8.
    ratings = {"a": 1600.0, "b": 1400.0, "c": 1500.0, "d": 1500.0}
    new = update_teams(ratings, ["a", "b"], ["c", "d"], 1.0)
    assert new == {"a": 1608.0, "b": 1408.0, "c": 1492.0, "d": 1492.0}
    assert ratings["a"] == 1600.0  # the input is left alone


def test_elo_uneven_teams_by_hand() -> None:
    # A = 1600/1500 (mean 1550), B = 1500/1400 (mean 1450).
    # E_A = 1 / (1 + 10^(−100/400)) = 1 / (1 + 0.56234133) = 0.64006500
    # win:  16·(1 − 0.64006500) = +5.758960
    # draw: 16·(0.5 − 0.64006500) = −2.241040
    # loss: 16·(0 − 0.64006500) = −10.241040
    ratings = {"a": 1600.0, "b": 1500.0, "c": 1500.0, "d": 1400.0}
    for score, delta in ((1.0, 5.758960), (0.5, -2.241040), (0.0, -10.241040)):
        new = update_teams(ratings, ["a", "b"], ["c", "d"], score)
        assert new["a"] == pytest.approx(1600 + delta, abs=1e-6)
        assert new["b"] == pytest.approx(1500 + delta, abs=1e-6)
        assert new["c"] == pytest.approx(1500 - delta, abs=1e-6)
        assert new["d"] == pytest.approx(1400 - delta, abs=1e-6)


def test_elo_config_k_and_new_bots() -> None:
    # Four new bots at 1500: E = 0.5, K = 32, a win gives ±16.
    new = update_teams({}, ["a", "b"], ["c", "d"], 1.0, EloConfig(k=32))
    assert new == {"a": 1516.0, "b": 1516.0, "c": 1484.0, "d": 1484.0}
    new = update_teams({}, ["a", "b"], ["c", "d"], 0.5, EloConfig(initial=1000))
    assert new == {"a": 1000.0, "b": 1000.0, "c": 1000.0, "d": 1000.0}


def test_elo_is_zero_sum_and_symmetric() -> None:
    rng = random.Random(7)
    for _ in range(200):
        ratings = {bot: rng.uniform(1000, 2000) for bot in "abcd"}
        score = rng.choice([0.0, 0.5, 1.0])
        new = update_teams(ratings, ["a", "b"], ["c", "d"], score)
        assert sum(new.values()) == pytest.approx(sum(ratings.values()), abs=1e-9)
        # Seen from the other side, with the opposite score, nothing changes.
        assert update_teams(ratings, ["c", "d"], ["a", "b"], 1.0 - score) == pytest.approx(new)
        # Both partners move by the same amount.
        assert new["a"] - ratings["a"] == pytest.approx(new["b"] - ratings["b"])


def test_elo_self_play() -> None:
    # The same bot in all four seats: unchanged whatever the result.
    assert update_teams({"x": 1700.0}, ["x", "x"], ["x", "x"], 1.0) == {"x": 1700.0}
    # A bot on both teams keeps its rating; the others move as usual (E = 0.5 here).
    new = update_teams({}, ["x", "y"], ["x", "z"], 1.0)
    assert new == {"x": 1500.0, "y": 1508.0, "z": 1492.0}
    # A bot filling both seats of a team is the team: X, X against Y, Y is one-on-one Elo.
    # E = 1 / (1 + 10^(−200/400)) = 0.7597469; a loss costs 16·0.7597469 = 12.155951.
    new = update_teams({"x": 1700.0, "y": 1500.0}, ["x", "x"], ["y", "y"], 0.0)
    assert new["x"] == pytest.approx(1700 - 12.155951, abs=1e-6)
    assert new["y"] == pytest.approx(1500 + 12.155951, abs=1e-6)


@pytest.mark.parametrize("score", [-0.1, 1.5, math.nan])
def test_elo_rejects_bad_scores(score: float) -> None:
    with pytest.raises(RatingError, match="score_a"):
        update_teams({}, ["a", "b"], ["c", "d"], score)


def test_elo_rejects_bad_teams_and_config() -> None:
    with pytest.raises(RatingError, match="at least one bot"):
        update_teams({}, [], ["c", "d"], 1.0)
    with pytest.raises(RatingError, match="one string"):
        update_teams({}, "ab", ["c", "d"], 1.0)
    with pytest.raises(RatingError, match="scale"):
        EloConfig(scale=0)
    with pytest.raises(RatingError, match="k"):
        EloConfig(k=-1)
    assert isinstance(RatingError("x"), ValueError)


def test_elo_difference() -> None:
    assert elo_difference(0.5) == 0.0
    # −400·log10(1/0.75 − 1) = −400·log10(1/3) = 400·0.4771213 = 190.8485
    assert elo_difference(0.75) == pytest.approx(190.8485, abs=1e-4)
    assert elo_difference(0.25) == pytest.approx(-190.8485, abs=1e-4)
    # 1 / (1 + 10^(−1)) = 10/11: a 400-point difference
    assert elo_difference(10 / 11) == pytest.approx(400.0)
    assert elo_difference(10 / 11, scale=200) == pytest.approx(200.0)
    assert elo_difference(1.0) == math.inf
    assert elo_difference(0.0) == -math.inf
    for diff in (-300.0, -25.0, 0.0, 60.0, 250.0):
        assert elo_difference(expected(diff, 0.0)) == pytest.approx(diff)
    with pytest.raises(RatingError):
        elo_difference(1.2)


# ------------------------------------------------------------------------ OpenSkill


def test_skill_defaults_and_conservative() -> None:
    assert DEFAULT_MU == 25.0
    assert pytest.approx(25 / 3) == DEFAULT_SIGMA
    assert SkillRating() == SkillRating(25.0, 25 / 3)
    assert SkillRating().conservative == pytest.approx(0.0)
    assert SkillRating(30.0, 2.0).conservative == 24.0
    with pytest.raises(RatingError, match="sigma"):
        SkillRating(25.0, 0.0)


def test_skill_win_moves_mu_and_shrinks_sigma() -> None:
    new = update_skill({}, [["a", "b"], ["c", "d"]], [0, 1])
    assert set(new) == {"a", "b", "c", "d"}
    for bot in "ab":
        assert new[bot].mu > DEFAULT_MU
    for bot in "cd":
        assert new[bot].mu < DEFAULT_MU
    for rating in new.values():
        assert rating.sigma < DEFAULT_SIGMA
    # Equal teams: the winners gain what the losers lose.
    assert new["a"].mu - DEFAULT_MU == pytest.approx(DEFAULT_MU - new["c"].mu)
    assert new["a"] == new["b"]
    assert new["a"].conservative > new["c"].conservative


def test_skill_matches_openskill() -> None:
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {"a": SkillRating(30.0, 5.0), "b": SkillRating(22.0, 7.0)}
    teams = [["a", "b"], ["c", "d"]]
    new = update_skill(ratings, teams, [1, 0])
    players = [
        [model.rating(30.0, 5.0), model.rating(22.0, 7.0)],
        [model.rating(), model.rating()],
    ]
    expected_teams = model.rate(players, ranks=[1.0, 0.0])
    for team, rated in zip(teams, expected_teams, strict=True):
        for bot, player in zip(team, rated, strict=True):
            assert new[bot] == SkillRating(player.mu, player.sigma)
    assert ratings["a"] == SkillRating(30.0, 5.0)  # the input is left alone


def test_skill_upset_moves_more() -> None:
    strong = {"a": SkillRating(35.0, 4.0), "b": SkillRating(35.0, 4.0)}
    expected_win = update_skill(strong, [["a", "b"], ["c", "d"]], [0, 1])
    upset = update_skill(strong, [["a", "b"], ["c", "d"]], [1, 0])
    assert upset["a"].mu < 35.0
    assert 35.0 - upset["a"].mu > expected_win["a"].mu - 35.0


def test_skill_ties() -> None:
    # A tie between equal teams leaves every mu and shrinks every sigma.
    new = update_skill({}, [["a", "b"], ["c", "d"]], [0, 0])
    for rating in new.values():
        assert rating.mu == pytest.approx(DEFAULT_MU)
        assert rating.sigma < DEFAULT_SIGMA
    # A tie against a weaker team costs the stronger one.
    ratings = {"a": SkillRating(30.0, 5.0), "b": SkillRating(30.0, 5.0)}
    new = update_skill(ratings, [["a", "b"], ["c", "d"]], [0, 0])
    assert new["a"].mu < 30.0
    assert new["c"].mu > DEFAULT_MU
    # Three teams, the last two tied.
    new = update_skill({}, [["a"], ["b"], ["c"]], [0, 1, 1])
    assert new["a"].mu > DEFAULT_MU > new["b"].mu
    assert new["b"] == new["c"]


def test_skill_repeated_bots() -> None:
    # A bot in both seats of a team moves as each of its seats does.
    new = update_skill({}, [["x", "x"], ["c", "d"]], [0, 1])
    four = update_skill({}, [["a", "b"], ["c", "d"]], [0, 1])
    assert new == {"x": four["a"], "c": four["c"], "d": four["d"]}
    # A bot on both teams keeps its rating; its partner's result still counts.
    ratings = {"x": SkillRating(28.0, 6.0)}
    new = update_skill(ratings, [["x", "y"], ["x", "z"]], [0, 1])
    assert new["x"] == SkillRating(28.0, 6.0)
    assert new["y"].mu > DEFAULT_MU > new["z"].mu
    assert update_skill({}, [["x", "x"], ["x", "x"]], [1, 0]) == {"x": SkillRating()}


def test_skill_rejects_bad_input() -> None:
    with pytest.raises(RatingError, match="two teams"):
        update_skill({}, [["a", "b"]], [0])
    with pytest.raises(RatingError, match="ranks given"):
        update_skill({}, [["a"], ["b"]], [0])
    with pytest.raises(RatingError, match="at least one bot"):
        update_skill({}, [["a"], []], [0, 1])
    with pytest.raises(RatingError, match="integers"):
        update_skill({}, [["a"], ["b"]], [0, -1])
    with pytest.raises(RatingError, match="sequence of teams"):
        update_skill({}, ["ab", "cd"], [0, 1])


# ------------------------------------------------------------------------------ SPRT


def game_scores(elo: float, draw_rate: float, seed: int) -> Iterator[float]:
    """An endless seeded stream of game scores whose expected score matches ``elo``."""
    rng = random.Random(seed)
    win_rate = expected(elo, 0.0) - draw_rate / 2
    while True:
        u = rng.random()
        yield 1.0 if u < win_rate else 0.5 if u < win_rate + draw_rate else 0.0


def pair_scores(elo: float, draw_rate: float, seed: int) -> Iterator[float]:
    """Pair scores: the mean of two consecutive game scores."""
    games = game_scores(elo, draw_rate, seed)
    while True:
        yield (next(games) + next(games)) / 2


def run(sprt: Sprt, scores: Iterator[float], limit: int = 200_000) -> str | None:
    for _ in range(limit):
        if sprt.add(next(scores)) is not None:
            break
    return sprt.decision


def test_sprt_bounds_by_hand() -> None:
    # alpha = beta = 0.05: log(0.05/0.95) = −2.944439, log(0.95/0.05) = +2.944439
    low, high = Sprt().bounds
    assert low == pytest.approx(-2.944439, abs=1e-6)
    assert high == pytest.approx(2.944439, abs=1e-6)
    # alpha = 0.05, beta = 0.1: log(0.1/0.95) = −2.251292, log(0.9/0.05) = +2.890372
    low, high = SprtConfig(alpha=0.05, beta=0.1).bounds
    assert low == pytest.approx(-2.251292, abs=1e-6)
    assert high == pytest.approx(2.890372, abs=1e-6)


def test_sprt_llr_by_hand() -> None:
    # elo0 = 0, elo1 = 10: s0 = 0.5, s1 = 1/(1 + 10^(−10/400)) = 0.5143872
    # 60 wins, 20 draws, 20 losses: n = 100, mean = 0.7,
    # variance = (60·0.3² + 20·0.2² + 20·0.7²)/100 = (5.4 + 0.8 + 9.8)/100 = 0.16
    # LLR = 100·0.0143872·(1.4 − 0.5 − 0.5143872)/(2·0.16) = 1.7337
    sprt = Sprt()
    for score in [1.0, 1.0, 1.0, 0.5, 0.0] * 20:
        sprt.add(score)
    assert sprt.n == 100
    assert sprt.mean == pytest.approx(0.7)
    assert sprt.variance == pytest.approx(0.16)
    assert sprt.counts == {0.0: 20, 0.25: 0, 0.5: 20, 0.75: 0, 1.0: 60}
    assert sprt.llr == pytest.approx(1.7337, abs=1e-4)
    assert sprt.decision is None


def test_sprt_a_one_sided_stream_decides_after_a_few_results() -> None:
    sprt = Sprt(SprtConfig(elo0=0.0, elo1=50.0))
    assert sprt.llr == 0.0 and sprt.mean == 0.5
    sprt.add(1.0)
    assert sprt.llr == 0.0  # one result is no evidence
    # all wins: variance floored at 1/(4n); with s0 = 0.5, s1 = E(50) = 0.571463,
    # LLR(n) = n·(s1 − s0)·(2 − s0 − s1)/(2/(4n)) = 2n²·0.071463·0.928537 → H1 once ≥ 2.944
    assert sprt.extend([1.0] * 4) == "H1"
    assert sprt.decided_at == 5
    losing = Sprt(SprtConfig(elo0=0.0, elo1=50.0))
    assert losing.extend([0.0] * 10) == "H0"


def test_sprt_strong_player_decides_h1() -> None:
    sprt = Sprt()
    assert run(sprt, game_scores(elo=60, draw_rate=0.3, seed=1)) == "H1"
    assert sprt.llr >= sprt.bounds[1]
    assert sprt.decided_at == sprt.n


def test_sprt_player_at_elo0_decides_h0() -> None:
    sprt = Sprt()
    assert run(sprt, game_scores(elo=0, draw_rate=0.3, seed=1)) == "H0"
    assert sprt.llr <= sprt.bounds[0]


def test_sprt_pair_scores() -> None:
    sprt = Sprt(SprtConfig(elo0=0, elo1=20))
    assert run(sprt, pair_scores(elo=80, draw_rate=0.1, seed=3)) == "H1"
    sprt = Sprt(SprtConfig(elo0=0, elo1=20))
    assert run(sprt, pair_scores(elo=-20, draw_rate=0.1, seed=3)) == "H0"


def test_sprt_error_rates() -> None:
    # With alpha = beta = 0.1, about one test in ten may go wrong at elo0 and at elo1;
    # out of 30 seeded tests, at most 8 wrong answers is far inside what chance allows.
    config = SprtConfig(elo0=0, elo1=30, alpha=0.1, beta=0.1)
    at_elo0 = [run(Sprt(config), game_scores(0, 0.2, seed)) for seed in range(30)]
    at_elo1 = [run(Sprt(config), game_scores(30, 0.2, seed)) for seed in range(30)]
    assert None not in at_elo0 and None not in at_elo1
    assert at_elo0.count("H1") <= 8
    assert at_elo1.count("H0") <= 8


def test_sprt_decision_is_kept() -> None:
    sprt = Sprt()
    assert run(sprt, game_scores(elo=100, draw_rate=0.0, seed=5)) == "H1"
    decided_at = sprt.decided_at
    sprt.extend([0.0] * 500)
    assert sprt.llr < sprt.bounds[0]
    assert sprt.decision == "H1" and sprt.decided_at == decided_at


def test_sprt_rejects_bad_input() -> None:
    assert SCORES == (0.0, 0.25, 0.5, 0.75, 1.0)
    with pytest.raises(RatingError, match="score"):
        Sprt().add(0.3)
    with pytest.raises(RatingError, match="elo0 < elo1"):
        SprtConfig(elo0=5, elo1=5)
    with pytest.raises(RatingError, match="alpha"):
        SprtConfig(alpha=0)
    with pytest.raises(RatingError, match="alpha \\+ beta"):
        SprtConfig(alpha=0.6, beta=0.5)


# ----------------------------------------------------------------------- statistics


def test_wilson_interval_known_values() -> None:
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4)
    assert high == pytest.approx(0.5962, abs=1e-4)
    # 0 of 10: (0, z²/(n + z²)) = (0, 3.841459/13.841459) = (0, 0.2775)
    low, high = wilson_interval(0, 10)
    assert low == 0.0
    assert high == pytest.approx(0.2775, abs=1e-4)
    # 10 of 10 mirrors it.
    low, high = wilson_interval(10, 10)
    assert low == pytest.approx(0.7225, abs=1e-4)
    assert high == 1.0
    # 81 of 263 (a textbook example): (0.2553, 0.3662)
    low, high = wilson_interval(81, 263)
    assert (low, high) == pytest.approx((0.2553, 0.3662), abs=1e-4)
    # 90% is narrower: 50/100 → 0.5 ± 1.644854·sqrt(0.0025 + 2.705543/40000)/1.027055
    low, high = wilson_interval(50, 100, confidence=0.90)
    assert (low, high) == pytest.approx((0.4188, 0.5812), abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(RatingError):
        wilson_interval(11, 10)
    with pytest.raises(RatingError, match="confidence"):
        wilson_interval(5, 10, confidence=1.0)


def test_likelihood_of_superiority_known_values() -> None:
    assert likelihood_of_superiority(0, 0) == 0.5
    assert likelihood_of_superiority(30, 30) == 0.5
    # (60 − 40)/√100 = 2: Φ(2) = 0.977250
    assert likelihood_of_superiority(60, 40) == pytest.approx(0.977250, abs=1e-6)
    assert likelihood_of_superiority(40, 60) == pytest.approx(0.022750, abs=1e-6)
    # (10 − 0)/√10 = 3.162278: Φ = 0.999217
    assert likelihood_of_superiority(10, 0) == pytest.approx(0.999217, abs=1e-6)
    # (55 − 45)/√100 = 1: Φ(1) = 0.841345
    assert likelihood_of_superiority(55, 45) == pytest.approx(0.841345, abs=1e-6)
    with pytest.raises(RatingError):
        likelihood_of_superiority(-1, 3)


def test_elo_interval() -> None:
    # 3 wins, 1 loss repeated 25 times: n = 100, mean = 0.75,
    # sample variance = 100·0.1875/99 = 0.1893939, se = sqrt(0.1893939/100) = 0.0435194,
    # 95%: 0.75 ± 1.959964·0.0435194 = (0.664704, 0.835296)
    scores = [1.0, 1.0, 1.0, 0.0] * 25
    elo, low, high = elo_interval(scores)
    assert elo == pytest.approx(190.8485, abs=1e-4)
    assert expected(low, 0.0) == pytest.approx(0.664704, abs=1e-6)
    assert expected(high, 0.0) == pytest.approx(0.835296, abs=1e-6)
    assert low < elo < high
    # Even results: centred on 0.
    elo, low, high = elo_interval([1.0, 0.0] * 50)
    assert elo == 0.0
    assert low == pytest.approx(-high)
    # A bound beyond a score of 1 is infinite.
    assert elo_interval([1.0, 1.0, 1.0, 0.5])[2] == math.inf
    # Scores all alike (two games, both lost): no spread, so Wilson's interval on their
    # mean, not a point at minus infinity; all drawn, an interval about 0.
    elo, low, high = elo_interval([0.0, 0.0])
    assert elo == low == -math.inf
    assert expected(high, 0.0) == pytest.approx(wilson_interval(0, 2)[1])
    assert 0.5 < expected(high, 0.0) < 1.0
    elo, low, high = elo_interval([0.5] * 4)
    assert low < elo == 0.0 < high
    assert expected(low, 0.0) == pytest.approx(wilson_interval(2, 4)[0])
    # Wider with more confidence.
    _, low95, high95 = elo_interval(scores)
    _, low99, high99 = elo_interval(scores, confidence=0.99)
    assert low99 < low95 and high99 > high95
    with pytest.raises(RatingError, match="two scores"):
        elo_interval([1.0])
    with pytest.raises(RatingError):
        elo_interval([1.0, 2.0])
