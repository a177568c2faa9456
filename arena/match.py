"""Play a match — deal after deal — between four policies, and record it.

The driver is the same for every game and every kind of policy (in-process
bot, Ray worker, remote bot): it asks the seat to act for each decision,
passing only that seat's observation, applies the action, and carries the
match from one deal to the next through the game's setup.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from arena.chance import derive_seed
from arena.errors import IllegalActionError, ParseError
from arena.games.base import NUM_SEATS, Action, Event, Game, Observation, Outcome, State
from arena.replay import DealRecord, MatchRecord, match_summary, outcome_to_dict


class Policy(Protocol):
    """Anything that chooses an action from an observation."""

    def act(self, observation: Observation) -> Action | str: ...


class PolicyError(IllegalActionError):
    """A policy answered with an action the rules do not allow."""


EventSink = Callable[[State, Event], None]


@dataclass
class MatchResult:
    """The outcome of each deal, the match winner (team) if any, and the record."""

    outcomes: list[Outcome]
    record: MatchRecord
    decisions: int = 0

    @property
    def winner(self) -> int | None:
        winner: int | None = self.record.result["match_winner"]
        return winner

    @property
    def totals(self) -> list[int]:
        totals: list[int] = self.record.result["totals"]
        return totals

    @property
    def complete(self) -> bool:
        return bool(self.record.result["complete"])


def play_deal(
    state: State, policies: Sequence[Policy], on_event: EventSink | None = None
) -> list[str]:
    """Play one deal to its end; return the actions in text form."""
    actions: list[str] = []
    seen = len(state.events)
    if on_event is not None:
        for event in state.events:
            on_event(state, event)
    while not state.is_terminal():
        seat = state.to_act
        action = policies[seat].act(state.observe(seat))
        try:
            if isinstance(action, str):  # a policy may answer in the text form
                action = Action.from_str(action)
            state.apply(action)
        except (IllegalActionError, ParseError) as err:
            raise PolicyError(f"seat {seat}: {err}") from None
        actions.append(str(action))
        if on_event is not None:
            events = state.events
            for event in events[seen:]:
                on_event(state, event)
            seen = len(events)
    return actions


def play_match(
    game: Game,
    policies: Sequence[Policy],
    *,
    seed: int,
    players: Sequence[str] | None = None,
    max_deals: int | None = None,
    on_event: EventSink | None = None,
) -> MatchResult:
    """Play deals until the game ends the match, or ``max_deals`` have been played.

    Deal ``i`` is shuffled with a seed derived from the match seed, so a match
    is fully determined by the game, its options, the seed and the policies.
    """
    if len(policies) != NUM_SEATS:
        raise ValueError(f"a match needs {NUM_SEATS} policies, got {len(policies)}")
    names = list(players) if players is not None else [type(p).__name__ for p in policies]
    record = MatchRecord(game.name, dict(game.options), seed, names)
    result = MatchResult([], record)
    setup = game.first_setup()
    while setup is not None and (max_deals is None or len(result.outcomes) < max_deals):
        deal_seed = derive_seed(seed, "deal", len(result.outcomes))
        state = game.new_deal(setup, seed=deal_seed)
        deal = DealRecord(setup=game.setup_to_dict(setup), seed=deal_seed)
        deal.actions = play_deal(state, policies, on_event)
        outcome = state.outcome()
        deal.result = outcome_to_dict(outcome)
        record.deals.append(deal)
        result.outcomes.append(outcome)
        result.decisions += len(deal.actions)
        setup = outcome.next_setup
    record.result = match_summary(result.outcomes)
    return result
