"""sanfu's fixed, flat action space: one index per combination reading, and pass.

Every sanfu action maps to exactly one index. The space is enumerated once, up front,
from every combination three decks make possible (SF-8), so it is the same in every
state; it does not depend on the hand, the table or the deal.

Layout (:data:`SIZE` = 669 indices), in the order of :class:`~arena.games.sanfu.combos.Reading`
(kind, then size, then value, then second), after ``pass``:

====================  =======  ==================================================
field                 indices  what varies (values: ``3`` … ``A`` = 3 … 14, ``2`` = 15,
                               ``SJ`` = 16, ``BJ`` = 17, SF-7)
====================  =======  ==================================================
pass                  0        one index (SF-10: legal only when following)
single                1-15     value 3 … 17
pair                  16-30    value 3 … 17 (``SJ SJ``, ``BJ BJ`` included)
triple                31-43    value 3 … 15: three cards of a rank, not identical
suited_triple         44-56    value 3 … 15: three identical cards (丁子, SF-9 ladder)
full_house            57-238   triple value 3 … 15, then pair value 3 … 17 other
                               than the triple's (``second``)
pair_run              239-293  length 3 … 12 pairs (6 … 24 cards), then highest
                               pair 5 … 14
plate                 294-359  length 2 … 12 triples (6 … 36 cards), then highest
                               triple 4 … 14
plate_with_pairs      360-549  length 2 … 6 (10 … 30 cards), then highest triple,
                               then highest carried pair (``second``); the carried
                               pairs are consecutive, within 3 … 14 and of other
                               ranks than the plate (combos.py), so at most 6 of each
bomb                  550-666  size 4 … 12 cards, then value 3 … 15
joker_triple          667-668  value 16 (three SJ), 17 (three BJ)
====================  =======  ==================================================

A play's index is its reading's (``combos.reading``: unique per multiset), so plays of
the same ranks in different suits share an index; a same-suit triple and a plain triple
of one rank are different kinds and never do. :meth:`SanfuCodec.label` is ``pass`` or
the reading's description: ``bomb 7 (5 cards)``, ``full_house 8 with J``,
``pair_run A (6 cards)``.

A decision is made from the observation of the seat to act
(``state.observe(state.to_act)``) and reads nothing else: the seat's hand
(``observation.hand``), the play to beat (the trick's last play among
``observation.events``, :func:`table_reading`) and whether the engine lists every legal
play (``observation.legal_complete``: it does up to the engine's ``LIST_LIMIT`` plays,
else one per rank pattern). The mask is exact: it is computed from the hand and the play
to beat with the generator of ``moves.py`` (one rank pattern per reading: the ranks a
play takes and how), not from the observation's list of legal actions, so it holds every
reading the seat may play even when the engine lists only a sample (``legal_complete``
false). :meth:`SanfuDecision.choose` returns the canonical action of an index: the first
action of the engine's order with that reading, i.e. the first play of its pattern when
the engine lists every play, and the pattern's canonical play (the one the engine lists
for it) when the engine lists one play per pattern. Either way it is a play the engine
accepts at that moment. An index depends on the action alone, so
:meth:`SanfuCodec.indices` reads nothing of the observation.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from arena.cards import NUM_KINDS
from arena.env.codecs.base import (
    ActionCodec,
    CodecError,
    Decision,
    Mask,
    checked_index,
    seat_to_act,
)
from arena.errors import IllegalActionError
from arena.games import family_of
from arena.games.base import PASS, Action, Game, Observation, quote_action, well_formed
from arena.games.sanfu.combos import (
    ACE_VALUE,
    BIG_JOKER_VALUE,
    LOWEST_VALUE,
    MAX_BOMB,
    SMALL_JOKER_VALUE,
    TWO_VALUE,
    Kind,
    Reading,
    make_reading,
    no_combination_reason,
    reading,
)
from arena.games.sanfu.moves import Pattern, patterns, ranks_in

__all__ = ["PASS_INDEX", "SIZE", "SanfuCodec", "SanfuDecision", "all_readings", "table_reading"]

PASS_INDEX: Final = 0
"""The index of ``pass``."""

_RUN_RANKS: Final = ACE_VALUE - LOWEST_VALUE + 1
"""Ranks ``3`` … ``A``: the ranks of consecutive pairs and steel plates (12)."""


def all_readings() -> list[Reading]:
    """Every reading three decks make possible (SF-8), in reading order."""
    found: list[Reading] = []
    every = range(LOWEST_VALUE, BIG_JOKER_VALUE + 1)
    suited = range(LOWEST_VALUE, TWO_VALUE + 1)
    found += [make_reading(Kind.SINGLE, 1, v) for v in every]
    found += [make_reading(Kind.PAIR, 2, v) for v in every]
    found += [make_reading(Kind.TRIPLE, 3, v) for v in suited]
    found += [make_reading(Kind.SUITED_TRIPLE, 3, v) for v in suited]
    found += [make_reading(Kind.FULL_HOUSE, 5, t, p) for t in suited for p in every if p != t]
    for n in range(3, _RUN_RANKS + 1):  # consecutive pairs: 3 or more
        found += [
            make_reading(Kind.PAIR_RUN, 2 * n, top)
            for top in range(LOWEST_VALUE + n - 1, ACE_VALUE + 1)
        ]
    for n in range(2, _RUN_RANKS + 1):  # steel plates: 2 or more triples
        found += [
            make_reading(Kind.PLATE, 3 * n, top)
            for top in range(LOWEST_VALUE + n - 1, ACE_VALUE + 1)
        ]
    for n in range(2, _RUN_RANKS // 2 + 1):  # a plate and as many pairs, on other ranks
        tops = range(LOWEST_VALUE + n - 1, ACE_VALUE + 1)
        found += [
            make_reading(Kind.PLATE_WITH_PAIRS, 5 * n, top, second)
            for top in tops
            for second in tops
            if abs(top - second) >= n  # the two runs share no rank
        ]
    for size in range(4, MAX_BOMB + 1):
        found += [make_reading(Kind.BOMB, size, v) for v in suited]
    found += [make_reading(Kind.JOKER_TRIPLE, 3, v) for v in (SMALL_JOKER_VALUE, BIG_JOKER_VALUE)]
    return found


_READINGS: Final = tuple(all_readings())
SIZE: Final = 1 + len(_READINGS)
"""The number of indices: ``pass`` and one per reading."""

_INDEX: Final = {combo: 1 + i for i, combo in enumerate(_READINGS)}
_LABELS: Final = ("pass", *[combo.describe() for combo in _READINGS])


def table_reading(observation: Observation) -> Reading | None:
    """The play to beat (the trick's last play), or ``None`` when the seat leads: read from
    the observation's public events, back to the trick's ``lead``."""
    for event in reversed(observation.events):
        if event.kind == "play":
            return reading(event.cards)
        if event.kind == "lead":
            return None
    return None


def _counts(cards: tuple[int, ...]) -> list[int]:
    counts = [0] * NUM_KINDS
    for card in cards:
        counts[card] += 1
    return counts


class SanfuDecision(Decision):
    """The decision of the seat to act in a sanfu deal: its mask and canonical actions.

    Made from the observation of the seat to act: its hand, the play to beat and whether
    the engine lists every play (see the module docstring); as immutable as the
    observation, it stands for that moment of the deal.
    """

    __slots__ = ("_complete", "_mask", "_patterns", "seat", "table")

    def __init__(self, observation: Observation) -> None:
        self.seat = seat_to_act(observation)
        self.table = table = table_reading(observation)
        found = patterns(ranks_in(_counts(observation.hand)), table)
        # the engine lists every play up to its LIST_LIMIT, else one per pattern: the
        # canonical action follows its listing
        self._complete = observation.legal_complete
        self._patterns: dict[int, Pattern] = {_INDEX[p.reading]: p for p in found}
        mask = np.zeros(SIZE, dtype=np.int8)
        mask[list(self._patterns)] = 1
        if table is not None:
            mask[PASS_INDEX] = 1
        self._mask: Mask = mask

    @property
    def mask(self) -> Mask:
        return self._mask

    @property
    def complete(self) -> bool:
        """Whether the engine lists every legal play here (else one per reading)."""
        return self._complete

    def legal_indices(self) -> list[int]:
        """The indices masked 1, in order."""
        passing = [PASS_INDEX] if self.table is not None else []
        return passing + sorted(self._patterns)

    def choose(self, index: int) -> Action:
        index = checked_index(index, SIZE, "sanfu")
        if index == PASS_INDEX:
            if self.table is None:
                raise CodecError(
                    f"index {index} (pass) is masked out: seat {self.seat} leads and must "
                    "play (SF-10)"
                )
            return PASS
        pattern = self._patterns.get(index)
        if pattern is None:
            why = (
                "the seat's hand cannot make it"
                if self.table is None
                else f"the seat's hand cannot make it or it does not beat "
                f"{self.table.describe()} (SF-9)"
            )
            raise CodecError(f"index {index} ({_LABELS[index]}) is masked out: {why}")
        # the engine's first action with this reading: its pattern's first play when it
        # lists every play, else the one play it lists for the pattern
        plays = pattern.plays() if self._complete else pattern.canonical()
        return plays[0]


class SanfuCodec(ActionCodec):
    """sanfu's flat action space: ``pass`` and one index per reading (module docstring)."""

    factored = False

    def __init__(self, game: Game) -> None:
        if family_of(game.name) != "sanfu":
            raise CodecError(f"SanfuCodec encodes sanfu, not {game.name!r}")
        super().__init__(game)

    @property
    def size(self) -> int:
        return SIZE

    def label(self, index: int) -> str:
        if not 0 <= index < SIZE:
            raise CodecError(f"index {index} is outside the sanfu action space 0 … {SIZE - 1}")
        return _LABELS[index]

    def reading(self, index: int) -> Reading | None:
        """The reading of ``index``, ``None`` for ``pass``."""
        if not 0 <= index < SIZE:
            raise CodecError(f"index {index} is outside the sanfu action space 0 … {SIZE - 1}")
        return None if index == PASS_INDEX else _READINGS[index - 1]

    def index_of(self, combo: Reading) -> int:
        """The index of a reading."""
        try:
            return _INDEX[combo]
        except KeyError:
            raise CodecError(f"{combo!r} is no reading of the sanfu action space") from None

    def decision(self, observation: Observation) -> SanfuDecision:
        if not isinstance(observation, Observation):
            raise CodecError(
                "SanfuCodec decides from an observation (state.observe(seat)), not from "
                f"{type(observation).__name__}"
            )
        if observation.game != "sanfu" and not observation.game.startswith("sanfu-"):
            raise CodecError(f"SanfuCodec decides in sanfu deals, not in {observation.game!r}")
        return SanfuDecision(observation)

    def indices(self, action: Action, observation: Observation) -> tuple[int, ...]:
        """The index of ``action``'s reading, or of ``pass`` (it depends on the action
        alone: ``observation`` is not read)."""
        try:
            action = well_formed(action)
        except IllegalActionError as err:
            raise CodecError(str(err)) from None
        verb, cards, tag = action
        if verb == "pass" and not cards and not tag:
            return (PASS_INDEX,)
        if verb != "play" or not cards or tag:
            raise CodecError(
                f"action {quote_action(action)} is not a sanfu action: expected 'pass' or "
                "'play CARDS'"
            )
        combo = reading(cards)
        if combo is None:
            raise CodecError(
                f"action {quote_action(action)} has no reading, so no index: "
                f"{no_combination_reason(cards)} (SF-8)"
            )
        return (self.index_of(combo),)
