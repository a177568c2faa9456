"""A game's fixed action space: the interface every action codec implements.

An RL agent picks an *index* in a space of fixed size, masked to what is legal now.
A codec maps the engine's actions to indices and back:

* a *flat* codec gives every action one index: :meth:`ActionCodec.indices` returns one
  index, and a :class:`Decision` turns it into an action at once;
* a *factored* codec spells an action out in several indices (one card at a time, say):
  the decision takes them one by one, each masked by what can still be completed, and
  returns the action with the last.

A decision is made from the :class:`~arena.games.base.Observation` of the seat to act
(``observation.to_act == observation.seat``: ``state.observe(state.to_act)``), the very
thing a bot receives: a codec reads nothing else, so it never sees hidden information
and a bot can use it as an environment does. An observation is immutable, and so is the
decision made from it: it stands for that moment of the deal, and the caller makes a new
one after every move. Masks are ``numpy.int8`` arrays of the codec's size (1: may be
taken now), the form PettingZoo's and RLlib's masked models take.
"""

from __future__ import annotations

import abc
import operator

import numpy as np
import numpy.typing as npt

from arena.cards import Card
from arena.games.base import NOBODY, Action, Game, Observation, Seat

__all__ = ["ActionCodec", "CodecError", "Decision", "Mask", "checked_index", "seat_to_act"]

Mask = npt.NDArray[np.int8]


class CodecError(ValueError):
    """An index that is not legal now, or an action the codec cannot encode; the
    message names the index or the action and why; also a decision asked for in an
    observation that has none to make (the deal is over, or another seat is to act)."""


def checked_index(index: object, size: int, space: str) -> int:
    """``index`` as an int of the action space ``0 … size - 1`` called ``space``
    (:class:`CodecError` naming it otherwise)."""
    try:
        value = operator.index(index)  # type: ignore[arg-type]
    except TypeError:
        raise CodecError(f"index {index!r} is not an integer") from None
    if not 0 <= value < size:
        raise CodecError(f"index {value} is outside the {space} action space 0 … {size - 1}")
    return value


def seat_to_act(observation: Observation) -> Seat:
    """The seat whose decision ``observation`` is: the seat to act, which must be the
    observing seat (only its observation holds the legal actions and the hand the
    decision is made of). :class:`CodecError` when the deal is over, when the
    observation is another seat's, or when it is no observation at all (a state)."""
    if not isinstance(observation, Observation):
        raise CodecError(
            f"a decision is made from the observation of the seat to act "
            f"(state.observe(state.to_act)), not from {type(observation).__name__}"
        )
    seat = observation.to_act
    if seat == NOBODY:
        raise CodecError("the deal is over: no seat has a decision to make")
    if observation.seat != seat:
        raise CodecError(
            f"this is the observation of seat {observation.seat}, but seat {seat} is to "
            "act: a decision is made from the observation of the seat to act"
        )
    return seat


class Decision(abc.ABC):
    """One seat's decision in progress, in the codec's indices."""

    @property
    @abc.abstractmethod
    def mask(self) -> Mask:
        """The indices that may be taken now (1) and the others (0)."""

    @property
    def selected(self) -> tuple[int, ...]:
        """The indices taken so far in this decision (always empty for a flat codec)."""
        return ()

    @property
    def selected_cards(self) -> tuple[Card, ...]:
        """The cards the indices taken so far stand for (a codec that spells an action
        out card by card); empty for the others. Agents see them in their tensor."""
        return ()

    @abc.abstractmethod
    def choose(self, index: int) -> Action | None:
        """Take ``index``: the engine's action once the decision is complete, else
        ``None`` (a factored codec needs more). :class:`CodecError` if it is masked out."""


class ActionCodec(abc.ABC):
    """A game's fixed action space of :attr:`size` indices."""

    factored: bool = False
    """Whether an action takes several indices."""

    def __init__(self, game: Game) -> None:
        self.game = game

    @property
    @abc.abstractmethod
    def size(self) -> int:
        """The number of indices."""

    @abc.abstractmethod
    def label(self, index: int) -> str:
        """What ``index`` means, in words (``pair 7, 1 wild``, ``card 7h``, ``pass``)."""

    @abc.abstractmethod
    def decision(self, observation: Observation) -> Decision:
        """The decision of the seat to act, made from its ``observation`` alone
        (``observation.to_act == observation.seat``, see :func:`seat_to_act`);
        :class:`CodecError` if the deal is over or the observation is another seat's."""

    @abc.abstractmethod
    def indices(self, action: Action, observation: Observation) -> tuple[int, ...]:
        """The indices that spell ``action`` out at the moment of ``observation`` (one for
        a flat codec), from the observation alone; :class:`CodecError` if the codec has
        none for it. A codec that spells actions out from the legal ones needs the
        observation of the seat to act, as :meth:`decision` does; one whose indices
        depend only on public facts may take any seat's."""
