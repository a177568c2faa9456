"""Guandan's fixed, flat action space: one index per pass, tribute card, return card and
play key.

Every Guandan action maps to exactly one index. The space is enumerated once, up front,
from every combination two decks make possible (GD-1, GD-8), at every level, so it is
the same in every state: it depends on neither the hand, the table, the deal nor the
level played.

Layout (:data:`SIZE` = 1120 indices)
------------------------------------

=================  =========  =========================================================
field              indices    what varies
=================  =========  =========================================================
pass               0          one index (GD-10: legal only when following)
tribute            1-54       the card given (GD-13, GD-14): ``1 + card``, card ints
                              ``0 … 53`` of :mod:`arena.cards` (``rank * 4 + suit``,
                              ``52`` SJ, ``53`` BJ): suits matter here
return             55-108     the card given back (GD-13): ``55 + card``
single             109-125    value, then wild cards
pair               126-156    value, then wild cards
triple             157-198    value, then wild cards
full_house         199-737    triple value, then pair value (``second``), then wild cards
pair_run           738-773    highest pair, then wild cards
triple_run         774-812    highest triple, then wild cards
straight           813-842    highest card, then wild cards
straight_flush     843-872    highest card, then wild cards
bomb               873-1118   size 4 … 10, then value, then wild cards
joker_bomb         1119       the four jokers
=================  =========  =========================================================

A play's index is that of its *key*, :class:`PlayKey`, five fields:

``kind``
    the kind of the reading the engine plays the cards at (GD-8): its only reading, or
    the one the action's ``as KIND`` tag names when the cards read as two kinds
    (``3 3 4 4`` and both wild cards: ``as pair_run`` or ``as triple_run``; the two
    are two indices). Readings are those of
    :func:`~arena.games.guandan.combos.play_readings`: a play is made at its strongest
    reading (cards that read as a bomb are a bomb; a run the wild cards can extend
    upwards is read at its highest window).
``size``
    the number of cards: fixed by the kind except for bombs (4 … 10 cards).
``value``
    the reading's value (:mod:`arena.games.guandan.combos`). Rank-based kinds (single,
    pair, triple, full house, bomb) use the GD-5 order with the level lifted out: ``2``
    … ``A`` are 2 … 14 and *the level rank is always 15*, whatever the level (so a
    value's meaning is level-free: 15 is "the level rank"), SJ 16, BJ 17. Sequences
    (straights, straight flushes, pair runs, triple runs) use the natural rank of their
    highest card, the level rank included (GD-7): 2 (``A 2`` triple run) … 14
    (``10 … A``); an ``A 2 3 4 5`` straight is 5.
``second``
    for a full house, the value of its pair (GD-8; 16 or 17 for a joker pair, 15 for a
    pair of the level rank); 0 for every other kind. The pair does not decide what a
    full house beats (GD-9) but it decides what the hand keeps.
``wilds``
    how many of the play's cards are the wild card, the heart of the level rank (GD-6):
    0, 1 or 2, counted whether it stands for another card or for itself (the single
    heart level card is ``single 15`` with 1 wild, another level card ``single 15``
    with none).

Plays are laid out in key order (kind in :class:`~arena.games.guandan.combos.Kind`
order, then size, value, second, wilds). The space holds exactly the keys some cards
make at some level, no more:

* single, pair, triple, bomb: values 2 … 15 with ``n`` cards of which ``w`` wild leave
  ``n - w`` natural cards of the rank: at least one (only the level rank, 15, may be
  all wild cards: the single wild card, the pair of both) and at most 8 (two decks), 6
  for the level rank (its two hearts are the wild cards). Single and pair also 16 and
  17 (jokers, no wild card: a wild card never stands for a joker, GD-6).
* full house: triple 2 … 15, pair 2 … 17 other than the triple, 0 … 2 wild cards,
  but for a triple below a pair of 2 … 15 with both wild cards: the pair keeps a
  natural card, so a wild card is in the triple, the cards read as a triple of either
  rank, and the play is made at the higher (GD-9, ``play_readings``). The pair is
  never the two wild cards alone (with a natural triple they are a 5-card bomb), so a
  pair value 15 is a natural level card and another or a wild card.
* pair runs: highest pair 3 (``A A 2 2 3 3``) … 14; triple runs: 2 (``A A A 2 2 2``)
  … 14; straights and straight flushes: 5 … 14 (GD-7); each with 0 … 2 wild cards.
* joker bomb: one key.

Decisions
---------

A decision is made from the observation of the seat to act
(``state.observe(state.to_act)``) and reads nothing else: its legal actions
(``observation.legal_actions``), the level played (``observation.public["level"]``)
and, to say why an index is masked out, the play to beat (``observation.public["table"]``).
Several engine actions can share an index: the same key in other suits (or with the
wild card standing for another card). :meth:`GuandanDecision.choose` returns the
canonical action of an index: the *first* legal action, in the engine's order, whose
key it is. The mask holds exactly the indices of the legal actions' keys. A decision
reads the legal actions once (linear in their number, up to some 1,500 when a full
hand leads); the codec reads each play *pattern* once per level, the cards with the
suits left out (:func:`pattern_of`: a play's key depends on nothing else), so the
thousands of plays of a hand cost hundreds of readings, once. An index's key depends
on the level alone, so :meth:`GuandanCodec.indices` takes any seat's observation.

Labels (:meth:`GuandanCodec.label`): ``pass``, ``tribute 7h``, ``return SJ``,
``single level, 1 wild``, ``pair 7``, ``full_house 8 with J, 1 wild``,
``pair_run 3-5``, ``straight A-5``, ``straight_flush 10-A, 2 wilds``,
``bomb 5 (6 cards)``, ``joker_bomb``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple

import numpy as np

from arena.cards import NUM_KINDS, SMALL_JOKER, Card, format_card, rank_label
from arena.errors import IllegalActionError
from arena.games import family_of
from arena.games.base import Action, Game, Observation, quote_action, well_formed
from arena.games.guandan.combos import (
    BIG_JOKER_VALUE,
    IS_SEQUENCE,
    KIND_BY_LABEL,
    KIND_LABELS,
    LEVEL_VALUE,
    SMALL_JOKER_VALUE,
    Kind,
    Reading,
    card_value,
    no_combination_reason,
    play_readings,
    wild_card,
)
from arena.plural import counted

from .base import ActionCodec, CodecError, Decision, Mask, checked_index, seat_to_act

__all__ = [
    "PASS_INDEX",
    "PLAY_BASE",
    "RETURN_BASE",
    "SIZE",
    "TRIBUTE_BASE",
    "GuandanCodec",
    "GuandanDecision",
    "Pattern",
    "PlayKey",
    "key_of_play",
    "pattern_of",
    "play_keys",
]

PASS_INDEX: Final = 0
"""The index of ``pass``."""
TRIBUTE_BASE: Final = 1
"""The index of ``tribute CARD`` is ``TRIBUTE_BASE + CARD``."""
RETURN_BASE: Final = TRIBUTE_BASE + NUM_KINDS
"""The index of ``return CARD`` is ``RETURN_BASE + CARD``."""
PLAY_BASE: Final = RETURN_BASE + NUM_KINDS
"""The first play's index: plays follow in :func:`play_keys` order."""

_ACE: Final = 14
"""The natural value of the ace (the highest card of a ``10 … A`` sequence)."""
_MOST_WILDS: Final = 2
"""Two decks hold two wild cards (GD-6)."""
_MOST_NATURALS: Final = 8
"""Two decks hold 8 cards of a rank."""
_MOST_LEVEL_NATURALS: Final = 6
"""... and 6 of the level rank besides its two hearts, the wild cards."""
_RUN_LENGTH: Final = {
    Kind.STRAIGHT: 5,
    Kind.STRAIGHT_FLUSH: 5,
    Kind.PAIR_RUN: 3,
    Kind.TRIPLE_RUN: 2,
}
"""How many ranks each sequence kind spans (GD-8); also its lowest highest card, as the
lowest sequence starts with the low ace, 1 (GD-7)."""

Pattern = tuple[str, int, bool, tuple[int, ...]]
"""What a play's index depends on, suits aside (:func:`pattern_of`)."""


def pattern_of(cards: Sequence[Card], tag: str, wild: Card) -> Pattern:
    """A play's cards with the suits left out: its tag, its number of wild cards, whether
    its other suited cards are all of one suit, and their ranks (jokers as themselves).

    A play's readings (:func:`~arena.games.guandan.combos.readings`) and so its key
    depend on nothing else: suits matter only for a straight flush, whose natural cards
    share one suit (GD-8). A hand leading lists thousands of plays but only hundreds of
    patterns, and two full decks make 1,775 at a level: the codec reads each pattern
    once.
    """
    ranks: list[int] = []
    suits = 0
    wilds = 0
    for card in cards:
        if card == wild:
            wilds += 1
        elif card < SMALL_JOKER:
            ranks.append(card >> 2)
            suits |= 1 << (card & 3)
        else:
            ranks.append(card)
    return (tag, wilds, suits & (suits - 1) == 0, tuple(ranks))


def _rank_name(value: int) -> str:
    """A rank-based value as people say it; 15 is the level rank, whatever it is."""
    if value == LEVEL_VALUE:
        return "level"
    if value == SMALL_JOKER_VALUE:
        return "SJ"
    if value == BIG_JOKER_VALUE:
        return "BJ"
    return rank_label(value - 2)


def _natural_name(value: int) -> str:
    """A sequence position's natural rank: 1 is the low ace, 2 … 14 are 2 … A."""
    return "A" if value == 1 else rank_label(value - 2)


class PlayKey(NamedTuple):
    """What a play's index stands for (see the module docstring, field by field)."""

    kind: Kind
    size: int
    value: int
    second: int = 0
    wilds: int = 0

    @property
    def label(self) -> str:
        """``full_house 8 with J, 1 wild``, ``bomb 5 (6 cards)``, ``straight 10-A``."""
        kind = self.kind
        text = KIND_LABELS[kind]
        if kind == Kind.JOKER_BOMB:
            pass
        elif IS_SEQUENCE[kind]:
            low = self.value - _RUN_LENGTH[kind] + 1
            text += f" {_natural_name(low)}-{_natural_name(self.value)}"
        else:
            text += f" {_rank_name(self.value)}"
            if kind == Kind.FULL_HOUSE:
                text += f" with {_rank_name(self.second)}"
            elif kind == Kind.BOMB:
                text += f" ({counted(self.size, 'card')})"
        if self.wilds:
            text += f", {counted(self.wilds, 'wild')}"
        return text


def _sets(kind: Kind, size: int) -> list[PlayKey]:
    """Keys of ``size`` cards of one rank (the wild cards filling in), value 2 … 15."""
    found: list[PlayKey] = []
    for value in range(2, LEVEL_VALUE + 1):
        most = _MOST_LEVEL_NATURALS if value == LEVEL_VALUE else _MOST_NATURALS
        fewest = 0 if value == LEVEL_VALUE else 1  # only the level rank may be all wild
        for wilds in range(min(_MOST_WILDS, size) + 1):
            if fewest <= size - wilds <= most:
                found.append(PlayKey(kind, size, value, 0, wilds))
    return found


def play_keys() -> list[PlayKey]:
    """Every play key two decks make possible at some level (GD-1, GD-6 … GD-8), in
    order (see the module docstring for what is left out and why)."""
    keys: list[PlayKey] = []
    jokers = (SMALL_JOKER_VALUE, BIG_JOKER_VALUE)
    ranks = range(2, LEVEL_VALUE + 1)
    for kind, size in ((Kind.SINGLE, 1), (Kind.PAIR, 2), (Kind.TRIPLE, 3)):
        keys += _sets(kind, size)
        if kind != Kind.TRIPLE:
            keys += [PlayKey(kind, size, value) for value in jokers]
    for triple in ranks:
        for pair in (*ranks, *jokers):
            if pair == triple:
                continue
            for wilds in range(_MOST_WILDS + 1):
                # with both wild cards one is in the triple (a pair keeps a natural card):
                # the cards read as a triple of the pair's rank too, and the higher triple
                # is played (a joker pair is never a triple)
                if wilds == _MOST_WILDS and triple < pair <= LEVEL_VALUE:
                    continue
                keys.append(PlayKey(Kind.FULL_HOUSE, 5, triple, pair, wilds))
    for kind in (Kind.PAIR_RUN, Kind.TRIPLE_RUN, Kind.STRAIGHT, Kind.STRAIGHT_FLUSH):
        size = 6 if kind in (Kind.PAIR_RUN, Kind.TRIPLE_RUN) else 5
        keys += [
            PlayKey(kind, size, top, 0, wilds)
            for top in range(_RUN_LENGTH[kind], _ACE + 1)
            for wilds in range(_MOST_WILDS + 1)
        ]
    for size in range(4, _MOST_NATURALS + _MOST_WILDS + 1):
        keys += _sets(Kind.BOMB, size)
    keys.append(PlayKey(Kind.JOKER_BOMB, 4, BIG_JOKER_VALUE))
    return sorted(keys)


_PLAY_KEYS: Final = tuple(play_keys())
SIZE: Final = PLAY_BASE + len(_PLAY_KEYS)
"""The number of indices: pass, 54 tribute cards, 54 return cards and the play keys."""


def key_of_play(cards: Sequence[Card], combo: Reading, level: int) -> PlayKey:
    """The key of a play of ``cards`` made at the reading ``combo`` at ``level``."""
    wild = wild_card(level)
    second = 0
    if combo.kind == Kind.FULL_HOUSE:
        # the cards that are not of the triple's value are the pair; none (both wild
        # cards standing as themselves) is a pair of the level rank
        second = LEVEL_VALUE
        for card in cards:
            if card != wild:
                value = card_value(card, level)
                if value != combo.value:
                    second = value
                    break
    return PlayKey(combo.kind, combo.size, combo.value, second, cards.count(wild))


def _no_index(action: Action, why: str) -> CodecError:
    return CodecError(f"action {quote_action(action)} has no index: {why}")


def _reading(action: Action, level: int) -> Reading:
    """The reading the engine plays ``action`` (a play) at, as ``GuandanState`` reads it."""
    cards, tag = action.cards, action.tag
    kept = play_readings(cards, level)
    if not kept:
        raise _no_index(action, f"no combination: {no_combination_reason(cards, level)} (GD-8)")
    if tag:
        kind = KIND_BY_LABEL.get(tag)
        chosen = [combo for combo in kept if combo.kind == kind]
        if not chosen or len(kept) == 1:
            readable = " or ".join(KIND_LABELS[combo.kind] for combo in kept)
            raise _no_index(
                action,
                f"these cards are played as {readable}; a play names a kind only when "
                "its cards read as two (GD-8)",
            )
        return chosen[0]
    if len(kept) > 1:
        options = " or ".join(f"'as {KIND_LABELS[combo.kind]}'" for combo in kept)
        raise _no_index(action, f"ambiguous play: it must name its kind, {options} (GD-8)")
    return kept[0]


class GuandanDecision(Decision):
    """The decision of the seat to act in a Guandan deal: its mask and canonical actions.

    Made from the observation of the seat to act (its legal actions and the level), as
    immutable as it: it stands for that moment of the deal.
    """

    __slots__ = ("_codec", "_first", "_legal", "_mask", "_observation", "level", "phase", "seat")

    def __init__(self, codec: GuandanCodec, observation: Observation) -> None:
        self.seat = seat_to_act(observation)
        self.phase = observation.phase
        self.level: int = observation.public["level"]
        self._codec = codec
        self._observation = observation
        self._legal = legal = observation.legal_actions
        self._first = first = codec._first_positions(legal, self.level)
        mask = np.zeros(SIZE, dtype=np.int8)
        mask[list(first)] = 1
        self._mask: Mask = mask

    @property
    def mask(self) -> Mask:
        return self._mask

    def legal_indices(self) -> list[int]:
        """The indices masked 1, in order."""
        return sorted(self._first)

    def choose(self, index: int) -> Action:
        index = checked_index(index, SIZE, "Guandan")
        position = self._first.get(index)
        if position is None:
            raise CodecError(
                f"index {index} ({self._codec.label(index)}) is masked out: {self._why(index)}"
            )
        return self._legal[position]

    def _why(self, index: int) -> str:
        """Why ``index`` is not legal now, in words."""
        seat, phase = self.seat, self.phase
        if phase == "tribute":
            if TRIBUTE_BASE <= index < RETURN_BASE:
                return (
                    f"seat {seat} gives the highest card of its hand as tribute, never the "
                    "heart level card (GD-13)"
                )
            return f"seat {seat} gives tribute now (GD-13)"
        if phase == "return":
            if RETURN_BASE <= index < PLAY_BASE:
                return (
                    f"seat {seat} does not hold that card, or returns to its partner and "
                    "must give a card of rank 2 to 10 (GD-13)"
                )
            return f"seat {seat} returns a card now (GD-13)"
        if index == PASS_INDEX:
            return f"seat {seat} leads the trick and must play (GD-10)"
        if index < PLAY_BASE:
            return "tribute and returns are made before the play (GD-13)"
        table = self._observation.public["table"]
        if table is None:
            return f"the hand of seat {seat} cannot make it"
        # the play to beat as the engine describes it: its kind and deciding rank
        return (
            f"the hand of seat {seat} cannot make it, or it does not beat "
            f"{table['kind']} {table['rank']} (GD-9)"
        )


def _check_game(observation: Observation, verb: str) -> None:
    """:class:`CodecError` unless ``observation`` is an observation of a Guandan deal."""
    if not isinstance(observation, Observation):
        raise CodecError(
            f"GuandanCodec {verb} from an observation (state.observe(seat)), not from "
            f"{type(observation).__name__}"
        )
    if observation.game != "guandan" and not observation.game.startswith("guandan-"):
        raise CodecError(f"GuandanCodec {verb} in Guandan deals, not in {observation.game!r}")


class GuandanCodec(ActionCodec):
    """Guandan's flat action space: pass, tribute and return cards, play keys (module
    docstring)."""

    factored = False

    def __init__(self, game: Game) -> None:
        if family_of(game.name) != "guandan":
            raise CodecError(f"GuandanCodec encodes guandan, not {game.name!r}")
        super().__init__(game)
        self.play_keys: tuple[PlayKey, ...] = _PLAY_KEYS
        """The play keys, in index order from :data:`PLAY_BASE`."""
        self._index: dict[PlayKey, int] = {
            key: PLAY_BASE + i for i, key in enumerate(self.play_keys)
        }
        cards = [format_card(card) for card in range(NUM_KINDS)]
        self._labels: tuple[str, ...] = (
            "pass",
            *[f"tribute {name}" for name in cards],
            *[f"return {name}" for name in cards],
            *[key.label for key in self.play_keys],
        )
        self._known: dict[int, dict[Pattern, int]] = {}
        """Per level, the index of each play pattern met in a decision so far (at most
        1,775 a level)."""

    @property
    def size(self) -> int:
        return SIZE

    def _check(self, index: int) -> int:
        return checked_index(index, SIZE, "Guandan")

    def label(self, index: int) -> str:
        return self._labels[self._check(index)]

    def key(self, index: int) -> PlayKey | None:
        """The play key of ``index``; ``None`` for pass, tribute and return."""
        index = self._check(index)
        return self.play_keys[index - PLAY_BASE] if index >= PLAY_BASE else None

    def index_of(self, key: PlayKey) -> int:
        """The index of a play key."""
        try:
            return self._index[key]
        except KeyError:
            raise CodecError(
                f"{key!r} ({key.label}) is no play two decks can make (GD-1, GD-8)"
            ) from None

    def decision(self, observation: Observation) -> GuandanDecision:
        _check_game(observation, "decides")
        return GuandanDecision(self, observation)

    def indices(self, action: Action, observation: Observation) -> tuple[int, ...]:
        """The index of ``action`` at the level of ``observation`` (any seat's: an index
        depends on the level alone)."""
        _check_game(observation, "encodes")
        try:
            action = well_formed(action)
        except IllegalActionError as err:
            raise CodecError(str(err)) from None
        verb, cards, tag = action
        level: int = observation.public["level"]
        index = None
        if verb == "play" and cards:  # what decisions met (not kept: any cards come here)
            index = self._known.get(level, {}).get(pattern_of(cards, tag, wild_card(level)))
        return (index if index is not None else self._encode(action, level),)

    def _first_positions(self, legal: Sequence[Action], level: int) -> dict[int, int]:
        """For each index of the legal actions' keys, the position of its first action."""
        known = self._known.get(level)
        if known is None:
            known = self._known[level] = {}
        wild = wild_card(level)
        first: dict[int, int] = {}
        for position, action in enumerate(legal):
            verb, cards, tag = action
            if verb == "play":
                pattern = pattern_of(cards, tag, wild)
                index = known.get(pattern)
                if index is None:
                    index = known[pattern] = self._encode(action, level)
            else:
                index = self._encode(action, level)
            if index not in first:
                first[index] = position
        return first

    def _encode(self, action: Action, level: int) -> int:
        """The index of a well-formed action (:class:`CodecError` if it has none)."""
        verb, cards, tag = action
        if verb == "pass":
            if cards or tag:
                raise _no_index(action, "a pass takes no cards and names no kind")
            return PASS_INDEX
        if verb == "tribute" or verb == "return":
            if len(cards) != 1 or tag:
                raise _no_index(action, f"a {verb} is exactly one card, naming no kind (GD-13)")
            return (TRIBUTE_BASE if verb == "tribute" else RETURN_BASE) + cards[0]
        if verb != "play" or not cards:
            raise _no_index(
                action,
                "not a Guandan action: expected 'pass', 'play CARDS', 'tribute CARD' or "
                "'return CARD'",
            )
        key = key_of_play(cards, _reading(action, level), level)
        index = self._index.get(key)
        if index is None:
            raise _no_index(
                action, f"{key.label} is no play two decks can make (GD-1: 8 cards a rank)"
            )
        return index
