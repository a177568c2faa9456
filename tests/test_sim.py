"""Tournament planning and playing matches on Ray."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest

from arena.errors import ConfigError
from arena.sim import RayError, RayOptions, Runner, TournamentConfig, plan, play_job
from arena.sim.jobs import MatchJob


def config(**changes: object) -> TournamentConfig:
    data: dict[str, object] = {
        "name": "t",
        "variant": "guandan",
        "bots": ["random", "first"],
        "matches": 3,
        "deals": 2,
        "seed": 4,
    }
    data.update(changes)
    return TournamentConfig.from_mapping(data)


def test_plan_is_deterministic_with_unique_ids() -> None:
    jobs = plan(config())
    assert [j.id for j in jobs] == [j.id for j in plan(config())]
    assert len({j.id for j in jobs}) == len(jobs) == 3
    assert all(j.id.startswith(config().id) for j in jobs)
    # unpaired: the teams change sides every match
    assert jobs[0].players[0] != jobs[1].players[0]


def teams_of(job: MatchJob) -> tuple[tuple[str, str], tuple[str, str]]:
    """The job's two teams: players 0 and 2, then 1 and 3."""
    return (job.players[0], job.players[2]), (job.players[1], job.players[3])


@pytest.mark.parametrize("paired", [False, True])
def test_a_round_robin_meets_every_pair_of_teams_as_often_on_each_side(paired: bool) -> None:
    """Four teams, four matches a pair: each of the six pairs meets four times (twice as
    many matches paired), each team as often on either side, every pair's seeds its own:
    fails if a pair is left out or met twice as often, or one team keeps a side."""
    teams = [["random", "random"], ["first", "first"], ["heuristic", "heuristic"],
             ["random", "first"]]  # fmt: skip
    jobs = plan(config(bots=[], teams=teams, matches=4, paired=paired))
    copies = 2 if paired else 1
    meetings = Counter(frozenset(teams_of(job)) for job in jobs)
    expected = {frozenset((tuple(a), tuple(b))): 4 * copies for a, b in combinations(teams, 2)}
    assert meetings == expected
    sides = Counter(teams_of(job) for job in jobs)
    assert set(sides.values()) == {2 * copies}
    assert len({job.seed for job in jobs}) == 6 * 4


def test_a_gauntlet_plays_each_team_against_the_reference_only() -> None:
    reference = ("heuristic", "heuristic")
    gauntlet = config(format="gauntlet", reference=list(reference), matches=2)
    meetings = Counter(frozenset(teams_of(job)) for job in plan(gauntlet))
    assert meetings == {
        frozenset((("random", "random"), reference)): 2,
        frozenset((("first", "first"), reference)): 2,
    }


def test_paired_plan_plays_each_seed_twice_with_the_partnerships_swapped() -> None:
    jobs = plan(config(paired=True))
    assert len(jobs) == 6
    for a, b in zip(jobs[::2], jobs[1::2], strict=True):
        assert a.seed == b.seed and a.pair == b.pair is not None
        assert a.players == (b.players[1], b.players[0], b.players[3], b.players[2])


def test_a_paired_run_really_swaps_the_hands() -> None:
    """Both matches deal each seat the same cards (same seed) while the teams sitting
    there are swapped: the cards team A held go to team B."""
    a, b = plan(config(paired=True, matches=1, deals=1))
    record_a, record_b = play_job(a).record, play_job(b).record
    assert record_a["deals"][0]["seed"] == record_b["deals"][0]["seed"]
    assert record_a["players"][0] == record_b["players"][1]


def test_bad_definitions_are_refused() -> None:
    with pytest.raises(ConfigError, match="unknown bot"):
        config(bots=["random", "nobody"])
    with pytest.raises(ConfigError, match="unknown game"):
        config(variant="poker")
    with pytest.raises(ConfigError, match="gauntlet needs a reference"):
        config(format="gauntlet")
    with pytest.raises(ConfigError, match="unknown tournament field"):
        TournamentConfig.from_mapping({"bots": ["random", "first"], "colour": "red"})


@pytest.mark.usefixtures("ray_session")
def test_matches_played_on_ray_equal_matches_played_here() -> None:
    jobs = plan(config(matches=4))
    with Runner() as runner:
        reports = {r.job.id: r for r in runner.run(jobs, batch_size=2)}
    assert set(reports) == {j.id for j in jobs}
    for job in jobs:
        assert reports[job.id].record == play_job(job).record


def test_a_joined_clusters_lost_driver_node_ends_the_run_in_one_resumable_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The node a driver runs on is not its to restart on a cluster it joined: the run
    ends with a RayError (one line on the command line), not Ray's traceback."""
    import ray
    from ray.exceptions import LocalRayletDiedError

    class Task:
        def remote(self, item: int) -> int:
            return item

    def get(ref: int) -> None:
        raise LocalRayletDiedError

    monkeypatch.setattr(ray, "wait", lambda refs, num_returns: (refs[:num_returns], refs[1:]))
    monkeypatch.setattr(ray, "get", get)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    runner = Runner(RayOptions(address="10.0.0.5:6379"))
    with pytest.raises(RayError) as failure:
        list(runner.stream([1, 2], Task(), max_in_flight=2))
    message = str(failure.value)
    assert "\n" not in message
    assert message.startswith("the Ray node of this driver died (LocalRayletDiedError")
    assert message.endswith("run the same command again to resume")
