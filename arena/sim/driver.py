"""Playing a tournament: each of its matches stored exactly once, whatever fails.

Units
    The plan is cut into units: a match, or the two halves of a paired deal. A
    unit is stored and rated whole, in one transaction
    (:meth:`~arena.sim.league.League.add_unit`), so the halves of a pair count
    together or not at all, across crashes. A rerun skips the units stored whole
    and plays the others from their start.

Order
    Results come back from Ray in any order (batches finish, die and are retried
    at their own pace); they are stored in plan order, a unit waiting until every
    unit before it is in. The ratings therefore come out the same however the run
    went: straight through, with workers or nodes lost, or with the driver killed
    and resumed.

Rounds
    A rated tournament plays round after round. A round's meetings are made from
    the ratings the rounds before it left and fixed in the store
    (:meth:`~arena.store.Store.fix_round`) before any of its matches is played; a
    resumed round plays its fixed meetings, so no team meets twice in a round and
    the total never exceeds the definition.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

from arena.errors import ArenaError
from arena.sim.jobs import MatchJob, MatchReport
from arena.sim.league import League
from arena.sim.tournament import Meeting, TournamentConfig, pair_round, plan, round_jobs
from arena.store import Store

Unit = tuple[MatchJob, ...]
"""Matches that count together: one match, or both halves of a pair."""


class MatchRunner(Protocol):
    """What playing a tournament needs of a runner (:class:`arena.sim.Runner` has it)."""

    def run(self, jobs: Sequence[MatchJob], batch_size: int) -> Iterator[MatchReport]: ...


def units(jobs: Sequence[MatchJob]) -> list[Unit]:
    """The jobs cut into units: consecutive jobs of one pair together, any other alone."""
    cut: list[list[MatchJob]] = []
    for job in jobs:
        if cut and job.pair is not None and cut[-1][-1].pair == job.pair:
            cut[-1].append(job)
        else:
            cut.append([job])
    return [tuple(unit) for unit in cut]


def in_plan_order(
    planned: Sequence[Unit], reports: Iterable[MatchReport]
) -> Iterator[list[MatchReport]]:
    """Each unit's reports, complete and in plan order, as soon as every unit before
    it is complete; an error if the reports end before every unit is."""
    wanted = {job.id for unit in planned for job in unit}
    arrived: dict[str, MatchReport] = {}
    head = 0
    for report in reports:
        if report.job.id not in wanted:
            raise ArenaError(f"a result for match {report.job.id!r}, which was not asked for")
        arrived[report.job.id] = report
        while head < len(planned) and all(job.id in arrived for job in planned[head]):
            yield [arrived.pop(job.id) for job in planned[head]]
            head += 1
    if head < len(planned):
        missing = [job.id for unit in planned[head:] for job in unit if job.id not in arrived]
        raise ArenaError(f"{len(missing)} results never came back, e.g. {missing[0]!r}")


def expected_matches(config: TournamentConfig) -> int:
    """The matches the definition means, all rounds and both halves of pairs included."""
    if config.format != "rated":
        return len(plan(config))
    per_round = len(config.teams) // 2 * (2 if config.paired else 1)
    return config.matches * per_round


def stages(config: TournamentConfig, store: Store, league: League) -> Iterator[list[MatchJob]]:
    """The matches to play, stage by stage: all at once, or one rated round at a time,
    its meetings fixed in the store before it is played (a resumed round keeps them).
    A round is planned only once the stage before it is stored, from the ratings and
    the meetings of the rounds before it."""
    if config.format != "rated":
        yield plan(config)
        return
    earlier: list[list[Meeting]] = []
    for number in range(config.matches):
        proposed = pair_round(config, league.elo, earlier)
        fixed = store.fix_round(config.id, number, proposed)
        meetings: list[Meeting] = [
            ((first[0], first[1]), (second[0], second[1])) for first, second in fixed
        ]
        earlier.append(meetings)
        yield round_jobs(config, number, meetings)


def play_tournament(
    config: TournamentConfig, store: Store, league: League, runner: MatchRunner, batch_size: int
) -> Iterator[tuple[list[MatchReport], int]]:
    """Play what is not stored yet on ``runner``; yield each unit's reports, in plan
    order, with the number of matches storing it stored."""
    for stage in stages(config, store, league):
        done = store.stored_ids(job.id for job in stage)
        todo = [unit for unit in units(stage) if not all(job.id in done for job in unit)]
        jobs = [job for unit in todo for job in unit]
        for reports in in_plan_order(todo, runner.run(jobs, batch_size)):
            yield reports, league.add_unit(reports, config.id)
