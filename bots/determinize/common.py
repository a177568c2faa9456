"""What the per-game samplers share: card multisets, and the draw-check-retry loop."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from arena.cards import Card, deck
from arena.errors import ArenaError, ConfigError, IllegalActionError
from arena.games.base import Game, Observation, State
from bots.determinize.assign import NoAssignment


class SampleError(ArenaError):
    """No full state consistent with an observation was found."""


class Inconsistent(ValueError):
    """One drawn world contradicts the observation; the caller draws again."""


Draw = Callable[[random.Random], State]
"""Draws one state for a prepared observation (may raise :class:`Inconsistent`)."""
Prepare = Callable[[Observation, Game], Draw]
"""Works out once what an observation decides; returns its :data:`Draw`."""


def counter(cards: Iterable[Card]) -> Counter[Card]:
    return Counter(cards)


def minus(whole: Counter[Card], part: Counter[Card]) -> Counter[Card]:
    """``whole - part`` as multisets; :class:`Inconsistent` if ``part`` is not inside."""
    left = Counter(whole)
    for card, n in part.items():
        if left[card] < n:
            raise Inconsistent(f"card {card} used more often than the decks hold")
        left[card] -= n
    return +left


def full_deck(copies: int) -> Counter[Card]:
    return Counter(deck(copies))


def expand(cards: Counter[Card]) -> list[Card]:
    return sorted(cards.elements())


def observed_form(observation: Observation) -> dict[str, Any]:
    """The observation in its JSON form, so observations built by different code
    (tuples or lists, dicts or mapping proxies) compare by content."""
    return observation.to_dict()


class Determinizer:
    """Draws states consistent with one observation.

    What the observation alone decides (known cards, constraints, the replay script)
    is worked out once, by the game's ``prepare``, and shared by every draw: only the
    hidden cards are drawn again.
    """

    def __init__(self, observation: Observation, game: Game, prepare: Prepare) -> None:
        self.observation = observation
        self._draw = prepare(observation, game)
        self._wanted: dict[str, Any] | None = None

    def _shows_the_seat(self, state: State) -> bool:
        """Whether ``state`` shows the seat exactly the observation (same content)."""
        seen = state.observe(self.observation.seat)
        if seen == self.observation:
            return True
        if self._wanted is None:
            self._wanted = observed_form(self.observation)
        return observed_form(seen) == self._wanted

    def sample(self, rng: random.Random, attempts: int) -> State:
        """A drawn state whose observation for the seat equals the observation.

        Draws are retried up to ``attempts`` times; a draw that contradicts what the
        seat saw (an illegal replayed action, a different observation) is thrown away.
        """
        observation = self.observation
        last = "no attempt made"
        for _ in range(attempts):
            try:
                state = self._draw(rng)
            except (Inconsistent, NoAssignment, IllegalActionError, ConfigError) as err:
                last = str(err)
                continue
            if self._shows_the_seat(state):
                return state
            last = "the replayed deal shows the seat something else"
        raise SampleError(
            f"no {observation.game} deal consistent with seat {observation.seat}'s "
            f"observation in {attempts} draws (last: {last})"
        )
