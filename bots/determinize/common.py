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


Sampler = Callable[[Observation, random.Random, Game], State]


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


def draw(
    observation: Observation,
    rng: random.Random,
    game: Game,
    sampler: Sampler,
    attempts: int,
) -> State:
    """A state drawn by ``sampler`` whose observation for the seat equals ``observation``.

    Draws are retried up to ``attempts`` times; a draw that contradicts what the seat
    saw (an illegal replayed action, a different observation) is thrown away.
    """
    wanted = observed_form(observation)
    last = "no attempt made"
    for _ in range(attempts):
        try:
            state = sampler(observation, rng, game)
        except (Inconsistent, NoAssignment, IllegalActionError, ConfigError) as err:
            last = str(err)
            continue
        if observed_form(state.observe(observation.seat)) == wanted:
            return state
        last = "the replayed deal shows the seat something else"
    raise SampleError(
        f"no {observation.game} deal consistent with seat {observation.seat}'s observation "
        f"in {attempts} draws (last: {last})"
    )
