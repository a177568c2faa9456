"""The ``search`` built-in bot: determinized Monte Carlo over the rollout policy.

The candidates of a decision are the rollout policy's (the heuristic bot's by
default) own choice, passing when legal, then the policy's next choices — what it
picks once the actions already chosen are taken from the legal ones. The bot draws
``samples`` deals (by default per game, :data:`DEFAULT_SAMPLES`) consistent with
everything its seat has seen (:mod:`bots.determinize`), and in each plays every
candidate and then the rest of the deal with the rollout policy at all four seats
(same deals, same rollout seeds for every candidate). The candidate with the best
mean result for its team is played if it beats the policy's own choice by more than
``margin`` standard errors of their paired difference; while it leads without that
margin, more deals are drawn for the two of them, up to ``max_samples`` — so close
decisions get the budget. A decision whose candidates all came to the same result in
each of its first ``settle`` deals stops there: they do not matter in it.

Only plays made with at most ``reach`` cards in hand are searched (by default per
game, :data:`DEFAULT_REACH`): the end of a deal, where rollouts are short and decide
most; the decisions before the play only where ``early`` says so
(:data:`DEFAULT_EARLY`); the others play the rollout policy's choice, unless
``urgent`` says to search a Guandan play whatever the hand while an opponent holds that
many cards or fewer (with ``urgent_samples`` deals). A rollout may
also stop once ``horizon`` tricks have been led after the candidate (default 0: at
the deal's end); a deal in which some rollout stopped short scores every candidate
by :func:`static_value` (points won and cards left, a function of the state alone)
instead of the deal's result — cheaper, but a weaker guide than the deal's end.

In Guandan the drawn deals also read the opponents' urgent passes as the heuristic
bot's (``infer``, by default per game, :data:`DEFAULT_INFER`): a seat that passed
when the heuristic would have beaten holds nothing to beat with. A finished deal is
worth its levels (or stakes) to the team; ``win`` adds that much for a won deal (and
takes it off a lost one), for matches decided by who goes out first.

The budget is counted, not timed (:meth:`SearchBot.budget`: its ``rollouts`` at
most), so a decision is reproducible for a seed whatever the machine. An optional
``max_seconds`` cap only cuts the work short (then the decision depends on speed).
The bot reads nothing but its observation, and keeps no memory between decisions.
"""

from __future__ import annotations

import itertools
import math
import random
import time
from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from arena.chance import derive_seed
from arena.games.base import PASS, Action, Game, Observation, Outcome, State, team_of
from arena.match import Policy
from bots.determinize import Determinizer, SampleError, determinizer, game_for
from bots.determinize.guandan_passes import fewest_rival_cards
from bots.heuristic import HeuristicBot, family_of
from bots.sanfu.actions import pattern_of

__all__ = [
    "DEFAULT_CANDIDATES",
    "DEFAULT_EARLY",
    "DEFAULT_HORIZON",
    "DEFAULT_INFER",
    "DEFAULT_MARGIN",
    "DEFAULT_REACH",
    "DEFAULT_SAMPLES",
    "DEFAULT_URGENT",
    "DEFAULT_URGENT_SAMPLES",
    "Budget",
    "SearchBot",
    "SearchStats",
    "deal_value",
    "static_value",
]

DEFAULT_SAMPLES: Mapping[str, int] = {"guandan": 8, "sanfu": 8, "shengji": 8, "shengji-4": 6}
"""Per variant (or game family): deals drawn for every candidate of a decision."""
DEFAULT_REACH: Mapping[str, int] = {
    "guandan": 14,
    "sanfu": 15,
    "shengji": 10,
    "shengji-1": 6,
    "shengji-2": 14,
    "shengji-3": 18,
}
"""Per variant (or game family): most cards in hand for a play to be searched (0: any
play is; see also :data:`DEFAULT_URGENT`). The end of a deal is where whole-deal
rollouts are short and where the search finds most of its gain; earlier plays are the
rollout policy's choice. Set so
that a decision costs at most 20 ms on average over whole deals (``arena bench bots
--bots search``)."""
DEFAULT_URGENT: Mapping[str, int] = {"guandan": 0, "sanfu": 0, "shengji": 0}
"""Per variant (or game family): a play beyond ``reach`` is searched all the same
while an opponent holds at most this many cards (0: never), with
:data:`DEFAULT_URGENT_SAMPLES` deals — the plays that decide whether an opponent
goes out first."""
DEFAULT_URGENT_SAMPLES: Mapping[str, int] = {"guandan": 4, "sanfu": 4, "shengji": 4}
"""Per variant (or game family): deals drawn for every candidate of a play searched
only because an opponent is close to going out (longer rollouts: fewer of them)."""
DEFAULT_EARLY: Mapping[str, int] = {"guandan": 0, "sanfu": 0, "shengji": 0, "shengji-1": 1}
"""Per variant (or game family): 1 if the decisions before the play are searched
(Shengji's declaring and burying, Guandan's tribute) whatever the hand, else 0."""
DEFAULT_INFER: Mapping[str, int] = {"guandan": 1, "sanfu": 0, "shengji": 0}
"""Per variant (or game family): 1 if the drawn deals read the opponents' plays as the
heuristic bot's where the sampler can (:func:`bots.determinize.determinizer`; Guandan:
the urgent passes), 0 if they only respect what the rules reveal."""
DEFAULT_HORIZON: Mapping[str, int] = {"guandan": 0, "sanfu": 0, "shengji": 0}
"""Per variant (or game family): tricks led after the candidate before a rollout
stops (0: the deal's end). Stopping short with :func:`static_value` is cheaper but,
measured against the heuristic bot, weaker than searching fewer decisions to the end:
the default plays every rollout out."""
DEFAULT_CANDIDATES = 3
"""Most actions compared per decision (the rollout policy's choice among them)."""
SETTLE = 2
"""Deals after which a decision whose candidates all came to the same result in
each of them stops (no candidate matters)."""
DEFAULT_MARGIN = 2.0
"""Standard errors by which a candidate must beat the rollout policy's choice to be
played instead (sampling noise otherwise picks a poor move that got lucky)."""
EXTEND = 4
"""Without an explicit ``max_samples``: most deals drawn for a close decision, in
multiples of ``samples``."""
DRAW_ATTEMPTS = 60
"""Draws tried for one consistent deal before that sample is given up."""
SHENGJI_LEVELS_PER_SHARE = 5.5
"""Levels (and half a level for the points) that the whole deal's points are worth
in Shengji, where 20 points a deck move the result by a level."""
CARDS_PER_LEVEL = 18
"""Cards left in a climbing game's team hands that are worth a level."""

RolloutFactory = Callable[[int], Policy]


class Budget(NamedTuple):
    """A decision's counted work in one game."""

    samples: int
    """Deals drawn for every candidate."""
    max_samples: int
    """Most deals drawn in all (the further ones for the leader and the policy's choice)."""
    horizon: int
    """Tricks led after the candidate before a rollout stops (0: the deal's end)."""
    candidates: int
    reach: int = 0
    """Most cards in the seat's hand for a play to be searched (0: any play is)."""
    early: bool = True
    """Whether the decisions before the play (declaring, burying, tribute) are searched."""
    infer: bool = False
    """Whether the drawn deals read the opponents' plays as the heuristic's."""
    urgent: int = 0
    """Most cards an opponent holds for a play beyond ``reach`` to be searched (0: never)."""
    urgent_samples: int = 0
    """Deals drawn for every candidate of such a play."""

    @property
    def rollouts(self) -> int:
        """Most rollouts of one decision: ``samples`` deals for every candidate, then
        more deals, up to ``max_samples``, for the leading one and the rollout
        policy's choice."""
        extra = (self.max_samples - self.samples) * min(2, self.candidates)
        return self.samples * self.candidates + extra


def _for_game(table: Mapping[str, int], game: str) -> int:
    """The variant's entry of a per-game table, else its family's."""
    return table[game] if game in table else table[family_of(game)]


def _itself(action: Action) -> Hashable:
    return action


_FEWEST: dict[str, Callable[[Observation], int]] = {"guandan": fewest_rival_cards}
"""Per family, the fewest cards an opponent of the observing seat holds (families
without an entry never search a play beyond ``reach``)."""

_ALIKE: dict[str, Callable[[Action], Hashable]] = {"sanfu": pattern_of}
"""Per family, what tells two actions apart as candidates (default: the action)."""


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


def static_value(state: State, seat: int, game: str) -> float:
    """A deal's standing for ``seat``'s team, finished or not, from the state alone:
    in Shengji the share of the points the defenders hold so far (for the defenders,
    its negative for the declarers) in levels, points decide them; in the climbing
    games the cards the opponents still hold less the team's own, in levels (sanfu:
    plus the share of the points captured)."""
    family = family_of(game)
    if family == "shengji":
        public = state.observe(seat).public
        if int(public["dealer"]) < 0:
            return 0.0
        decks = int(game.split("-")[1])
        share = float(public["defender_points"]) / (100 * decks)
        defends = team_of(seat) != team_of(int(public["dealer"]))
        return SHENGJI_LEVELS_PER_SHARE * (share if defends else -share)
    held = [0, 0]
    for other in range(4):
        held[team_of(other)] += len(state.hand(other))
    mine = team_of(seat)
    value = (held[1 - mine] - held[mine]) / CARDS_PER_LEVEL
    if family == "sanfu":
        captured = [0, 0]
        for other, points in enumerate(state.observe(seat).public["captured"]):
            captured[team_of(other)] += int(points)
        value += 0.5 * (captured[mine] - captured[1 - mine]) / 150.0
    return value


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


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
        samples: int | None = None,
        candidates: int = DEFAULT_CANDIDATES,
        *,
        max_seconds: float | None = None,
        rollout: RolloutFactory = HeuristicBot,
        options: Mapping[str, Mapping[str, Any]] | None = None,
        attempts: int = DRAW_ATTEMPTS,
        margin: float = DEFAULT_MARGIN,
        max_samples: int | None = None,
        horizon: int | None = None,
        settle: int = SETTLE,
        reach: int | None = None,
        early: int | None = None,
        infer: int | None = None,
        urgent: int | None = None,
        urgent_samples: int | None = None,
        win: float = 0.0,
    ) -> None:
        if (samples is not None and samples < 1) or candidates < 1:
            raise ValueError(f"samples and candidates must be >= 1, got {samples}, {candidates}")
        if max_samples is not None and max_samples < (samples or 1):
            raise ValueError(f"max_samples must be >= samples ({samples or 1}), got {max_samples}")
        if max_seconds is not None and max_seconds <= 0:
            raise ValueError(f"max_seconds must be > 0, got {max_seconds}")
        if horizon is not None and horizon < 0:
            raise ValueError(f"horizon must be >= 0 (0: to the deal's end), got {horizon}")
        if reach is not None and reach < 0:
            raise ValueError(f"reach must be >= 0 (0: any hand), got {reach}")
        if urgent is not None and urgent < 0:
            raise ValueError(f"urgent must be >= 0 (0: never), got {urgent}")
        if urgent_samples is not None and urgent_samples < 1:
            raise ValueError(f"urgent_samples must be >= 1, got {urgent_samples}")
        if settle < 1:
            raise ValueError(f"settle must be >= 1, got {settle}")
        self._seed = seed
        self.samples = samples
        self.candidates = candidates
        self.max_seconds = max_seconds
        self._rollout = rollout
        self._options = dict(options or {})
        self._attempts = attempts
        self.margin = margin
        self.max_samples = max_samples
        self.horizon = horizon
        self.reach = reach
        self.early = early
        self.infer = infer
        self.urgent = urgent
        self.urgent_samples = urgent_samples
        self.win = win
        self.settle = settle
        self._games: dict[str, Game] = {}
        self.last = SearchStats()
        self.total = SearchStats()

    def budget(self, game: str) -> Budget:
        """The counted work of a decision in ``game``: the parameters given, the
        game's defaults for the others (``max_samples``: ``EXTEND`` × ``samples``)."""
        samples = _for_game(DEFAULT_SAMPLES, game) if self.samples is None else self.samples
        most = EXTEND * samples if self.max_samples is None else max(samples, self.max_samples)
        horizon = _for_game(DEFAULT_HORIZON, game) if self.horizon is None else self.horizon
        reach = _for_game(DEFAULT_REACH, game) if self.reach is None else self.reach
        early = bool(_for_game(DEFAULT_EARLY, game) if self.early is None else self.early)
        infer = bool(_for_game(DEFAULT_INFER, game) if self.infer is None else self.infer)
        urgent = _for_game(DEFAULT_URGENT, game) if self.urgent is None else self.urgent
        few = self.urgent_samples
        few = _for_game(DEFAULT_URGENT_SAMPLES, game) if few is None else few
        budget = Budget(samples, most, horizon, self.candidates, reach, early, infer)
        return budget._replace(urgent=urgent, urgent_samples=min(few, samples))

    def _searched(self, observation: Observation, budget: Budget) -> Budget | None:
        """The budget of a decision, or ``None`` if it plays the rollout policy's
        choice unsearched: a play beyond ``reach`` is searched with ``urgent_samples``
        deals (at most ``EXTEND`` times as many in all) while an opponent is close to
        going out, else not."""
        if observation.phase != "play":
            return budget if budget.early else None
        if not budget.reach or len(observation.hand) <= budget.reach:
            return budget
        fewest = _FEWEST.get(family_of(observation.game))
        if not budget.urgent or fewest is None or fewest(observation) > budget.urgent:
            return None
        few = budget.urgent_samples
        return budget._replace(samples=few, max_samples=min(budget.max_samples, EXTEND * few))

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
        budget = self._searched(observation, self.budget(observation.game))
        if budget is None:
            return guide
        choices = self._candidates(observation, guide, seed)
        if len(choices) == 1:
            return guide
        self.last.searched = 1
        deadline = None if self.max_seconds is None else time.monotonic() + self.max_seconds
        worlds = self._worlds(observation, random.Random(derive_seed(seed, "worlds")), seed)
        first = min(self.settle, budget.samples)
        results = self._round(worlds, observation, choices, first, deadline)
        if len(results) < first or any(len(set(values)) > 1 for values in results):
            results += self._round(worlds, observation, choices, budget.samples - first, deadline)
        if not results:
            return guide
        differences = {
            i: [values[i] - values[0] for values in results] for i in range(1, len(choices))
        }
        best = max(differences, key=lambda i: (_mean(differences[i]), -i))
        while _mean(differences[best]) > 0 and not self._clear(differences[best]):
            drawn = self.last.samples + self.last.failed_samples
            wanted = min(budget.samples, budget.max_samples - drawn)
            if wanted <= 0:
                break
            more = self._round(worlds, observation, [guide, choices[best]], wanted, deadline)
            if not more:
                break  # the time cap ran out (or no draw succeeded)
            differences[best] += [values[1] - values[0] for values in more]
        return choices[best] if self._clear(differences[best]) else guide

    def _clear(self, differences: list[float]) -> bool:
        """Whether a candidate beats the rollout policy's choice by more than ``margin``
        standard errors of their paired difference (in the same deals, same seeds);
        one deal is no evidence of that."""
        mean = _mean(differences)
        count = len(differences)
        if mean <= 0 or count < 2:
            return False
        spread = sum((d - mean) ** 2 for d in differences) / max(1, count - 1)
        return mean > self.margin * math.sqrt(spread / count)

    def _worlds(
        self, observation: Observation, rng: random.Random, seed: int
    ) -> Iterator[tuple[State, int] | None]:
        """Drawn deals consistent with the observation, each with its rollout seed;
        ``None`` for a draw that found no consistent deal."""
        try:  # what the observation decides, worked out once for every draw
            infer = self.budget(observation.game).infer
            drawer: Determinizer | None = determinizer(
                observation, self._game(observation), infer=infer
            )
        except SampleError:  # a game without a sampler: no draw succeeds
            drawer = None
        for sample in itertools.count():
            world = None if drawer is None else self._draw(drawer, rng)
            if world is None:
                yield None
                continue
            world.list_briefly()  # the rollout policy needs no complete lists
            yield world, derive_seed(seed, sample)

    def _draw(self, drawer: Determinizer, rng: random.Random) -> State | None:
        """One drawn deal, or ``None`` if no consistent one turned up."""
        try:
            return drawer.sample(rng, self._attempts)
        except SampleError:
            return None

    def _round(
        self,
        worlds: Iterator[tuple[State, int] | None],
        observation: Observation,
        choices: list[Action],
        count: int,
        deadline: float | None,
    ) -> list[list[float]]:
        """``choices`` played out in ``count`` more drawn deals (those whose draw
        failed are left out; none once the time cap has run out): a row per deal."""
        rows: list[list[float]] = []
        for drawn in itertools.islice(worlds, count):
            if deadline is not None and time.monotonic() > deadline:
                break
            if drawn is None:
                self.last.failed_samples += 1
                continue
            values = self._evaluate(drawn[0], observation, choices, drawn[1], deadline)
            if values is None:
                break
            rows.append(values)
            self.last.samples += 1
        return rows

    def _candidates(self, observation: Observation, guide: Action, seed: int) -> list[Action]:
        """The rollout policy's choice, then passing (the main alternative in the
        climbing games), then the policy's next choices (its pick once the actions
        chosen so far are taken from the legal ones), then a reproducible sample —
        never two plays that differ only where the game does not tell them apart
        (sanfu's suits outside same-suit triples)."""
        legal = observation.legal_actions
        alike = _ALIKE.get(family_of(observation.game), _itself)
        key = {action: alike(action) for action in (*legal, guide)}  # guide: maybe unlisted
        chosen = [guide]
        if guide != PASS and PASS in legal:
            chosen.append(PASS)
        taken = {key[a] for a in chosen}
        left = [a for a in legal if key[a] not in taken]
        while len(chosen) < self.candidates and len(left) > 1:
            fewer = observation._replace(legal_actions=tuple(left))
            answer = _as_action(self._rollout(seed).act(fewer))
            if answer not in left:
                break  # the policy keeps to a choice of its own, whatever is legal
            chosen.append(answer)
            taken.add(key[answer])
            left = [a for a in left if key[a] not in taken]
        random.Random(seed).shuffle(left)
        for action in left:
            if len(chosen) >= self.candidates:
                break
            if key[action] not in taken:
                chosen.append(action)
                taken.add(key[action])
        return chosen

    def _evaluate(
        self,
        world: State,
        observation: Observation,
        choices: list[Action],
        seed: int,
        deadline: float | None,
    ) -> list[float] | None:
        """Each candidate's value in one drawn world (same rollout seed for all): the
        deal's result, or if some rollout stopped at the horizon every candidate's
        :func:`static_value`; ``None`` if the time cap ran out before every candidate
        was played out."""
        horizon = self.budget(observation.game).horizon
        ends: list[State] = []
        for action in choices:
            if deadline is not None and ends and time.monotonic() > deadline:
                return None
            state = world.clone()
            state.apply(action)
            self._play_out(state, seed, horizon)
            self.last.rollouts += 1
            ends.append(state)
        seat, game = observation.seat, observation.game
        if not all(s.is_terminal() for s in ends):
            return [static_value(state, seat, game) for state in ends]
        values = [deal_value(state, seat, game) for state in ends]
        if self.win:
            values = [v + math.copysign(self.win, v) if v else v for v in values]
        return values

    def _play_out(self, state: State, seed: int, horizon: int = 0) -> None:
        """Play the deal on with one rollout policy per seat (a policy that remembers
        the deal, like the Shengji heuristic, then reads each event once): to its end,
        or with a ``horizon`` until that many tricks have been led."""
        policies: dict[int, Policy] = {}
        led = 0
        seen = len(state.events)
        while not state.is_terminal():
            if horizon:
                events = state.events
                led += sum(events[i].kind == "lead" for i in range(seen, len(events)))
                seen = len(events)
                if led >= horizon:
                    return
            seat = state.to_act
            policy = policies.get(seat)
            if policy is None:
                policy = policies[seat] = self._rollout(derive_seed(seed, "seat", seat))
            state.apply(_as_action(policy.act(state.observe(seat))))
