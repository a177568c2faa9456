"""The ``search`` built-in bot: determinized Monte Carlo over the rollout policy.

For each decision the bot draws ``samples`` full deals consistent with everything
its seat has seen (:mod:`bots.determinize`), and in each drawn deal plays every
candidate action and then the rest of the deal with the rollout policy (the
heuristic bot by default) at all four seats. The candidate with the best mean
result for its team wins, provided it beats the rollout policy's own choice in the
same deals by more than ``margin`` standard errors; ties go to the earlier candidate.

The budget is counted, not timed: ``samples`` deals times at most ``candidates``
actions, so a decision is reproducible for a seed whatever the machine. An optional
``max_seconds`` cap only cuts the work short (then the decision depends on speed).
The bot reads nothing but its observation, and keeps no memory between decisions.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from arena.chance import derive_seed
from arena.games.base import PASS, Action, Game, Observation, Outcome, State, team_of
from arena.match import Policy
from bots.determinize import SampleError, game_for, sample_state
from bots.heuristic import HeuristicBot, family_of

__all__ = [
    "DEFAULT_CANDIDATES",
    "DEFAULT_MARGIN",
    "DEFAULT_SAMPLES",
    "SearchBot",
    "SearchStats",
    "deal_value",
]

DEFAULT_SAMPLES = 8
"""Drawn deals per decision of the registered ``search`` bot."""
DEFAULT_CANDIDATES = 3
"""Most actions compared per decision (the rollout policy's choice among them)."""
DEFAULT_MARGIN = 2.0
"""Standard errors by which a candidate must beat the rollout policy's choice to be
played instead (sampling noise otherwise picks a poor move that got lucky)."""
DRAW_ATTEMPTS = 60
"""Draws tried for one consistent deal before that sample is given up."""

RolloutFactory = Callable[[int], Policy]


@dataclass
class SearchStats:
    """The work done by the last decision and in all (for tests and benchmarks)."""

    rollouts: int = 0
    samples: int = 0
    failed_samples: int = 0
    decisions: int = 0
    searched: int = 0
    """Decisions that compared several candidates (the others had one legal action)."""


def deal_value(state: State, seat: int, game: str) -> float:
    """The finished deal's result for ``seat``'s team: its score in the game's unit
    (levels or stakes) plus, for the point games, half the share of the points won."""
    outcome: Outcome = state.outcome()
    value = float(outcome.scores[state.player_at(seat)])
    details: Mapping[str, Any] = outcome.details
    family = family_of(game)
    if family == "shengji" and "defender_points" in details:
        decks = int(game.split("-")[1])
        share = float(details["defender_points"]) / (100 * decks)
        defends = team_of(seat) != int(details["declarer_team"])
        value += 0.5 * (share if defends else -share)
    elif family == "sanfu" and "team_points" in details:
        mine = float(details["team_points"][team_of(seat)])
        value += 0.5 * (mine - 150.0) / 150.0
    return value


def _as_action(answer: Action | str) -> Action:
    return Action.from_str(answer) if isinstance(answer, str) else answer


def _observation_key(observation: Observation) -> str:
    """A stable text of what the seat sees, to seed the decision from."""
    return repr(sorted(observation.to_dict().items()))


class SearchBot:
    """Determinized Monte Carlo search (perfect-information sampling with rollouts)."""

    name = "search"

    def __init__(
        self,
        seed: int = 0,
        samples: int = DEFAULT_SAMPLES,
        candidates: int = DEFAULT_CANDIDATES,
        *,
        max_seconds: float | None = None,
        rollout: RolloutFactory = HeuristicBot,
        options: Mapping[str, Mapping[str, Any]] | None = None,
        attempts: int = DRAW_ATTEMPTS,
        margin: float = DEFAULT_MARGIN,
    ) -> None:
        if samples < 1 or candidates < 1:
            raise ValueError(f"samples and candidates must be >= 1, got {samples}, {candidates}")
        if max_seconds is not None and max_seconds <= 0:
            raise ValueError(f"max_seconds must be > 0, got {max_seconds}")
        self._seed = seed
        self.samples = samples
        self.candidates = candidates
        self.max_seconds = max_seconds
        self._rollout = rollout
        self._options = dict(options or {})
        self._attempts = attempts
        self.margin = margin
        self._games: dict[str, Game] = {}
        self.last = SearchStats()
        self.total = SearchStats()

    def _game(self, observation: Observation) -> Game:
        game = self._games.get(observation.game)
        if game is None:
            game = game_for(observation, self._options.get(observation.game))
            self._games[observation.game] = game
        return game

    def act(self, observation: Observation) -> Action:
        self.last = SearchStats(decisions=1)
        try:
            return self._decide(observation)
        finally:
            for name in ("rollouts", "samples", "failed_samples", "decisions", "searched"):
                setattr(self.total, name, getattr(self.total, name) + getattr(self.last, name))

    def _decide(self, observation: Observation) -> Action:
        legal = observation.legal_actions
        if len(legal) == 1:
            return legal[0]
        seed = derive_seed(self._seed, "search", _observation_key(observation))
        guide = _as_action(self._rollout(seed).act(observation))
        choices = self._candidates(observation, guide, random.Random(seed))
        if len(choices) == 1:
            return guide
        self.last.searched = 1
        rng = random.Random(derive_seed(seed, "worlds"))
        deadline = None if self.max_seconds is None else time.monotonic() + self.max_seconds
        results: list[list[float]] = []
        for sample in range(self.samples):
            if deadline is not None and time.monotonic() > deadline:
                break
            try:
                world = sample_state(observation, rng, self._game(observation), self._attempts)
            except SampleError:
                self.last.failed_samples += 1
                continue
            values = self._evaluate(
                world, observation, choices, derive_seed(seed, sample), deadline
            )
            if values is None:
                break
            results.append(values)
        self.last.samples = len(results)
        return choices[self._pick(results)] if results else guide

    def _pick(self, results: list[list[float]]) -> int:
        """The candidate with the best mean, if it beats the rollout policy's own choice
        (candidate 0) by more than ``margin`` standard errors of their paired difference
        in the same worlds; else candidate 0. Ties go to the earlier candidate."""
        totals = [sum(column) for column in zip(*results, strict=True)]
        best = max(range(len(totals)), key=lambda i: (totals[i], -i))
        if best == 0:
            return 0
        differences = [values[best] - values[0] for values in results]
        mean = sum(differences) / len(differences)
        spread = sum((d - mean) ** 2 for d in differences) / max(1, len(differences) - 1)
        error = (spread / len(differences)) ** 0.5
        return best if mean > self.margin * error else 0

    def _candidates(
        self, observation: Observation, guide: Action, rng: random.Random
    ) -> list[Action]:
        """The rollout policy's choice, then passing (the main alternative in the
        climbing games), then a reproducible sample of the other actions."""
        others = [a for a in observation.legal_actions if a != guide]
        rng.shuffle(others)
        others.sort(key=lambda a: a != PASS)  # stable: the sample's order is kept
        return [guide, *others][: self.candidates]

    def _evaluate(
        self,
        world: State,
        observation: Observation,
        choices: list[Action],
        seed: int,
        deadline: float | None,
    ) -> list[float] | None:
        """Each candidate's deal value in one drawn world (same rollout seed for all);
        ``None`` if the time cap ran out before every candidate was played out."""
        values: list[float] = []
        for action in choices:
            if deadline is not None and values and time.monotonic() > deadline:
                return None
            state = world.clone()
            state.apply(action)
            self._play_out(state, seed)
            self.last.rollouts += 1
            values.append(deal_value(state, observation.seat, observation.game))
        return values

    def _play_out(self, state: State, seed: int) -> None:
        """Play the deal to its end with one rollout policy per seat (a policy that
        remembers the deal, like the Shengji heuristic, then reads each event once)."""
        policies: dict[int, Policy] = {}
        while not state.is_terminal():
            seat = state.to_act
            policy = policies.get(seat)
            if policy is None:
                policy = policies[seat] = self._rollout(derive_seed(seed, "seat", seat))
            state.apply(_as_action(policy.act(state.observe(seat))))
