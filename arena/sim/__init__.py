"""Many matches in parallel on Ray: jobs, the worker task, the runner, tournaments."""

from arena.sim.jobs import MatchJob, MatchReport, team_players
from arena.sim.runner import RayError, RayOptions, Runner, cores
from arena.sim.tournament import TournamentConfig, plan
from arena.sim.worker import play_job, play_jobs

__all__ = [
    "MatchJob",
    "MatchReport",
    "RayError",
    "RayOptions",
    "Runner",
    "TournamentConfig",
    "cores",
    "plan",
    "play_job",
    "play_jobs",
    "team_players",
]
