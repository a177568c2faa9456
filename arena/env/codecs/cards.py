"""A fixed, factored action space that spells an action out one card at a time.

Used for Shengji (``shengji-1`` … ``shengji-4``, 1 to 4 decks), whose plays are any
multiset of the hand's cards: declarations (SJ-8 … SJ-11), burying the kitty one card at
a time (SJ-13), leads, throws (SJ-17) and follows (SJ-19). A decision is made from the
:class:`~arena.games.base.Observation` of the seat to act and reads nothing else: its
legal actions, and when those are only a sample (below), its hand and public facts.
While the engine lists every legal action the codec knows nothing of the rules beyond
that list, so it serves any game whose actions are a verb and a multiset of cards.

Layout (:data:`SIZE` = 56 indices):

=========  =====================================================================
index      meaning
=========  =====================================================================
0 … 53     one card of that card kind (the card int, ``arena.cards``: ``rank * 4 +
           suit``, 52 small joker, 53 big joker); label ``card 7h``
54         :data:`END`: the cards chosen so far are the action; label ``end``
55         :data:`PASS_INDEX`: the action ``pass``; label ``pass``
=========  =====================================================================

Spelling. An action with cards is its cards in ascending card order, one index each (a
card held twice is chosen twice), then :data:`END`: ``play 7h 7h 8h`` is ``21 21 25 54``.
Since cards are a sorted multiset, every action has exactly one spelling. ``pass`` is
:data:`PASS_INDEX` alone. A throw (SJ-17: several combinations of one suit led at once)
is spelled like any lead, its cards in ascending order: ``play 9s 9s Ks As`` is
``28 28 44 48 54``; whether it stands or the thrower must play a smaller part of it is
decided by the engine when it is applied (the other hands decide, which the codec
never sees).

Verb. All legal actions with cards of one decision share one verb (Shengji's phase
gives it: ``declare``, ``bury`` or ``play``); the decision returns its actions with that
verb. A decision whose card actions mix verbs, two legal actions with the same cards
and different ``as …`` tags, or a legal action without cards other than ``pass`` have
no spelling here: :class:`~arena.env.codecs.base.CodecError` says which (Shengji does
none of these: its actions carry no tags, and in the ``declare`` phase ``pass`` is the
only action without cards).

Mask, complete listing (``Observation.legal_complete`` true). A :class:`CardDecision`
keeps the prefix chosen so far. It allows:

* a card kind ``k`` (never below the last chosen) when some legal action's spelling
  continues the prefix with ``k``;
* :data:`END` when the prefix (not empty) is exactly a legal action's cards;
* :data:`PASS_INDEX` before any card, when ``pass`` is legal.

The complete spellings reachable through the masks are exactly the engine's list of
legal actions, no more, no fewer: throws and follows of hundreds of plays included.

Mask, sampled listing (``legal_complete`` false). Shengji lists only a sample of a play
decision with more than ``LIST_LIMIT`` = 1000 legal plays; the masks then follow the
rule every legal play obeys, not the sample, so that every legal play is spelled and
nothing else is. The rule is read from the observation alone: the hand, the trick on the
table (``public["trick"]``: the lead is its first play) and the order of the deal
(``public``'s ``level``, ``trump``, ``constant_twos``, ``two_colour``; with the engine's
own helpers, :mod:`arena.games.shengji.order`, ``shapes`` and ``follow``, for the suit of
each card and the shape a follow must match). Every legal play is a sub-multiset of
*pool* cards (of one *group*), of a fixed *size* (leads: any size), holding at least one
of a few *needs* (multisets that match what the rules demand):

* a lead (SJ-17, SJ-18: more than 1000 possible card sets; the engine then lists the
  single combinations only): any non-empty set of the hand's cards of one suit, trumps
  being one suit (SJ-2). The first card fixes the suit; after it the mask allows each
  card of that suit still held (never below the last), and :data:`END` at any point.
  Every throw is reachable; 4 decks forbid throws and list every lead;
* a follow with no more cards of the led suit than the lead (SJ-19 a): pool the whole
  hand, need every card of the led suit, size the lead's;
* any other follow (SJ-19 b, SJ-28, SJ-29): pool the cards of the led suit, size the
  lead's, needs the ways to hold what the shape rule demands: for a lead with an
  SJ-28/SJ-29 priority list, each pick of disjoint units of an alternative of the first
  line the suit's cards allow; otherwise each choice of units, lead unit by lead unit
  largest first, that reaches the best match the suit's cards allow (the engine's
  :func:`arena.games.shengji.follow.score`); none when the cards have no shape to
  match (any cards of the suit will do).

A prefix ``P`` (last card ``l``) can then be completed to a legal play exactly when a
need ``R`` is still *open*: the cards ``R`` still lacks beyond ``P`` are all ``≥ l``, at
most ``size − |P|`` of them, and the pool still holds ``size − |P|`` cards ``≥ l`` beyond
``P``. A card ``k`` is allowed when some open need stays open with ``P + k`` (``k`` is
the lowest card that need lacks, or is below it with room to spare), :data:`END` when
``|P|`` is the size and a need is complete. So the spellings reachable through the
masks are exactly the plays the engine accepts, listed or not: no legal lead, throw or
follow is left unreachable, and :meth:`CardByCardCodec.indices` spells any of them
(:meth:`CardDecision.actions` still returns only the listed sample). A game other than
Shengji that lists only a sample is spelled from its sample alone.

Speed. Each legal action's cards become a ``bytes`` key (one byte per card, so keys
compare as the card tuples do, by ``memcmp``), sorted once per decision; the actions that
continue a prefix are then one contiguous range of that list, narrowed by two bisections
per chosen card, and a step's mask visits only the current range (jumping over each card
kind's block by bisection when the range is long). A sampled listing's needs are each
kept as the sorted cards still lacking (a ``bytes`` key): a step looks at the first
card of each open one (hundreds, at most a few thousand). The codec keeps the listing
of the last observation it was given, so the indices of its actions, asked one by one,
read it once.
"""

from __future__ import annotations

import operator
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import combinations
from typing import Any, Final

import numpy as np

from arena.cards import NUM_KINDS, SUITS, Card, format_card, format_cards, parse_cards
from arena.env.codecs.base import (
    ActionCodec,
    CodecError,
    Decision,
    Mask,
    checked_index,
    seat_to_act,
)
from arena.errors import IllegalActionError, ParseError
from arena.games.base import Action, Game, Observation, new_action, quote_action, well_formed
from arena.games.shengji.follow import holds, priority_list, score
from arena.games.shengji.order import TrumpOrder
from arena.games.shengji.shapes import Pile, Shape, Unit, decompose
from arena.plural import counted

__all__ = ["END", "PASS_INDEX", "SIZE", "CardByCardCodec", "CardDecision"]

END: Final = NUM_KINDS
"""The index that ends an action: the cards chosen so far are the action (54)."""

PASS_INDEX: Final = NUM_KINDS + 1
"""The index of ``pass`` (55)."""

SIZE: Final = NUM_KINDS + 2
"""The number of indices: one per card kind, ``end`` and ``pass`` (56)."""

_BYTES: Final = tuple(bytes((card,)) for card in range(NUM_KINDS))
"""Each card as a one-byte key."""

_ABOVE: Final = bytes((NUM_KINDS,))
"""A byte above every card: ``prefix + k + _ABOVE`` sorts after every key that continues
``prefix + k``."""

_SCAN: Final = 32
"""A step's range up to this long is scanned card by card; a longer one jumps over each
card kind's block by bisection."""

_LABELS: Final = (*(f"card {format_card(card)}" for card in range(NUM_KINDS)), "end", "pass")

_verb_of = operator.itemgetter(0)
_cards_of = operator.itemgetter(1)
_NO_CARDS: Final = b""
_ONE_GROUP: Final = (0,) * NUM_KINDS
"""Every card in one group (a follow: its pool already holds only the cards it may take)."""


class _Rule:
    """The legal plays of a decision whose listing is a sample (module docstring):
    sub-multisets of the pool, of one group, of :attr:`size` cards (0: any number, at
    least one), holding one of :attr:`needs`. Immutable, shared by a decision's copies."""

    __slots__ = ("above", "group", "held", "needs", "open_at_start", "size", "what")

    def __init__(
        self, held: list[int], group: Sequence[int], size: int, needs: Sequence[bytes], what: str
    ) -> None:
        self.held = held
        """Per card kind, how many copies a play may take."""
        self.group = group
        """Per card kind, its group: a play's cards are all of one group."""
        self.size = size
        """How many cards a play has (0: any number)."""
        self.needs: tuple[bytes, ...] = tuple(sorted(set(needs)))
        """What a play must hold, one of them (sorted cards, one byte each; ``b""``:
        nothing)."""
        self.open_at_start = tuple(n for n in self.needs if not size or len(n) <= size)
        """The needs open before any card is chosen: those no larger than a play."""
        self.what = what
        """The rule in words, for messages."""
        above = [0] * (NUM_KINDS + 1)
        for card in range(NUM_KINDS - 1, -1, -1):
            above[card] = above[card + 1] + held[card]
        self.above = above
        """Per card kind, how many pool cards are of it or above."""


def _shengji_rule(observation: Observation) -> _Rule:
    """The rule of a Shengji play decision whose listing is a sample, from the
    observation alone: the hand, the trick on the table, the order of the deal."""
    public = observation.public
    try:
        decks = int(observation.game.rsplit("-", 1)[1])
        two_colour = bool(public["two_colour"])
        order = _order(
            int(public["level"]),
            _trump_suit(public["trump"], two_colour),
            bool(public["constant_twos"]) or decks == 4,  # 4 decks: 2s always trumps (SJ-10)
            two_colour,
        )
        plays = public["trick"]["plays"]
        lead = parse_cards(plays[0][1]) if plays else ()
    except (KeyError, IndexError, TypeError, ValueError, ParseError) as err:
        raise CodecError(
            f"the {observation.game} observation lists only a sample of the legal actions, "
            f"and its public facts do not give the rule they obey ({type(err).__name__}: "
            f"{err}); the card-by-card codec needs level, trump, constant_twos, two_colour "
            "and the trick's plays"
        ) from None
    hand, suits = observation.hand, order.suits
    held = [0] * NUM_KINDS
    for card in hand:
        held[card] += 1
    if not lead:  # SJ-17, SJ-18: any cards of one suit
        return _Rule(held, suits, 0, (_NO_CARDS,), "a lead is any cards of one suit (SJ-18)")
    suit, size = suits[lead[0]], len(lead)
    suited = [card for card in hand if suits[card] == suit]  # a hand is sorted
    name = order.suit_name(suit)
    if len(suited) <= size:  # SJ-19 (a): all of the suit, any others to make up
        return _Rule(
            held,
            _ONE_GROUP,
            size,
            (bytes(suited),),
            f"a follow of {counted(size, 'card')} holds all your cards of {name} (SJ-19)",
        )
    pool = [0] * NUM_KINDS
    for card in suited:
        pool[card] += 1
    return _Rule(
        pool,
        _ONE_GROUP,
        size,
        _shape_needs(suited, decompose(lead, order), order, decks),
        f"a follow of {counted(size, 'card')} of {name} matches the lead's shape as far as your "
        "cards allow (SJ-19)",
    )


def _trump_suit(name: Any, two_colour: bool) -> int | None:
    """The trump suit a ``trump`` public fact names (``None``: notrump)."""
    if name == "notrump":
        return None
    names = ("black", "red") if two_colour else tuple(SUITS)
    if name not in names:
        raise ValueError(f"trump {name!r} is not one of notrump, {', '.join(names)}")
    return names.index(name)


@lru_cache(maxsize=256)
def _order(level: int, trump: int | None, constant_twos: bool, two_colour: bool) -> TrumpOrder:
    return TrumpOrder(level, trump, constant_twos, two_colour)


def _shape_needs(
    suited: list[Card], lead: list[Unit], order: TrumpOrder, decks: int
) -> list[bytes]:
    """What a follow of ``suited`` (more cards than the lead) must hold, one of them: the
    sorted cards of each way to reach the best match of the lead's shape (module
    docstring); ``[b""]`` when any cards of the suit will do."""
    pile = Pile(suited, order)
    found: set[bytes] = set()
    listed = priority_list(lead, decks)
    if listed is not None:  # SJ-28, SJ-29: the first line the cards allow
        line = next(alts for alts in listed if any(holds(pile, pattern) for pattern in alts))
        for pattern in line:
            for cards in _picks(pile, pattern, 0, ()):
                found.add(bytes(sorted(cards)))
        return list(found)
    best = score(suited, lead, order, decks)
    if best == score((), lead, order, decks):
        return [_NO_CARDS]
    shapes = [(unit.width, unit.length) for unit in lead]
    for cards in _matches(pile, shapes, best, 0, 0, ()):
        found.add(bytes(sorted(cards)))
    return list(found)


def _picks(
    pile: Pile, pattern: Sequence[Shape], at: int, previous: tuple[Card, ...]
) -> Iterator[list[Card]]:
    """The cards of every way to take disjoint units of ``pattern[at:]`` from the pile;
    units of one shape in a row taken in ascending order (``previous``: the last one's
    cards), since their order does not matter."""
    if at == len(pattern):
        yield []
        return
    shape = pattern[at]
    same = at > 0 and pattern[at - 1] == shape
    for unit in list(pile.units(shape[0], shape[1])):
        if same and unit.cards < previous:
            continue
        rest = pile.copy()
        rest.take(unit)
        for more in _picks(rest, pattern, at + 1, unit.cards):
            yield [*unit.cards, *more]


def _matches(
    pile: Pile,
    shapes: list[Shape],
    best: tuple[int, ...],
    at: int,
    position: int,
    previous: tuple[Card, ...],
) -> Iterator[list[Card]]:
    """The cards of every way to match ``shapes[at:]`` (the lead's units, largest first)
    reaching ``best[position:]``, the best score (:func:`follow.score`: per unit of width
    2 or more, ``(2, length)`` a tractor of its shape, ``(1, n)`` ``n`` sets of its width
    in its place, ``(2, w)`` a set of width ``w`` for a set, ``(0, 0)`` nothing; per
    single ``(0,)``). Units of one shape in a row reaching the same score are taken in
    ascending order (``previous``: the last one's cards)."""
    if at == len(shapes):
        yield []
        return
    width, length = shapes[at]
    if width == 1:  # singles: any cards, later
        yield from _matches(pile, shapes, best, at + 1, position + 1, ())
        return
    kind, amount = best[position], best[position + 1]
    options: list[tuple[Unit, ...]]
    if kind == 0:
        options = [()]
    elif length >= 2 and kind == 2:
        options = [(unit,) for unit in pile.units(width, length)]
    elif length >= 2:  # as many sets of its width as the cards hold (a quad is two pairs)
        identities, counts = pile.order.identities, pile.counts
        sets = [
            unit
            for unit in pile.units(width, 1)
            for _ in range(counts[identities[unit.cards[0]]] // width)
        ]
        options = sorted(set(combinations(sets, amount)))
    else:  # a set of the widest width held, up to the lead's
        options = [(unit,) for unit in pile.units(amount, 1)]
    same = (
        at > 0 and shapes[at - 1] == shapes[at] and best[position - 2 : position] == (kind, amount)
    )
    for option in options:
        cards = tuple(sorted(card for unit in option for card in unit.cards))
        if same and cards < previous:
            continue
        rest = pile
        if option:
            rest = pile.copy()
            for unit in option:
                rest.take(unit)
        for more in _matches(rest, shapes, best, at + 1, position + 2, cards):
            yield [*cards, *more]


class _Listing:
    """A decision's legal actions, by their cards, and the rule they obey when they are a
    sample: immutable, shared by its copies."""

    __slots__ = ("actions", "complete", "keys", "pass_action", "phase", "rule", "verb")

    def __init__(self, observation: Observation) -> None:
        seat_to_act(observation)  # the deal goes on, and this is the seat to act
        self.phase = phase = observation.phase
        legal = observation.legal_actions
        actions: Sequence[Action] = legal if isinstance(legal, list | tuple) else list(legal)
        by_cards: dict[bytes, Action]
        by_cards = dict(zip(map(bytes, map(_cards_of, actions)), actions, strict=True))
        if len(by_cards) != len(actions):
            _check_collisions(actions, phase)  # raises unless they are exact repeats
        no_cards = by_cards.pop(_NO_CARDS, None)
        if no_cards is not None and no_cards.verb != "pass":
            raise CodecError(
                f"legal action {quote_action(no_cards)} (phase {phase}) has no cards and is not "
                "'pass': the card-by-card codec has no index for it"
            )
        verbs = set(map(_verb_of, by_cards.values()))
        if len(verbs) > 1:
            examples = ", ".join(
                quote_action(next(a for a in by_cards.values() if a.verb == verb))
                for verb in sorted(verbs)
            )
            raise CodecError(
                f"the legal actions with cards (phase {phase}) mix the verbs "
                f"{', '.join(sorted(verbs))} (e.g. {examples}): the card-by-card codec "
                "spells out the actions of one verb per decision"
            )
        self.verb: str | None = verbs.pop() if verbs else None
        """The verb of every action with cards (``None``: there is none)."""
        self.pass_action: Action | None = no_cards
        """The legal ``pass``, if it is legal."""
        self.actions = by_cards
        """The legal actions with cards listed, by the key of their cards (one byte a card)."""
        self.keys: list[bytes] = sorted(by_cards)
        """Those keys, in ascending order (a spelling's prefixes sort first)."""
        self.complete = observation.legal_complete
        """Whether the listing holds every legal action."""
        self.rule: _Rule | None = None
        """The rule of a Shengji play decision listed as a sample (the masks follow it)."""
        if not self.complete and observation.game.startswith("shengji") and phase == "play":
            self.rule = _shengji_rule(observation)
            self.verb = "play"


def _check_collisions(actions: Sequence[Action], phase: str) -> None:
    """Raise :class:`CodecError` if two different legal actions have the same cards (they
    would have the same spelling); repeats of one action are harmless."""
    seen: dict[tuple[Card, ...], Action] = {}
    for action in actions:
        other = seen.setdefault(action.cards, action)
        if other == action:
            continue
        if not action.cards:
            raise CodecError(
                f"legal actions {quote_action(other)} and {quote_action(action)} (phase "
                f"{phase}) both have no cards: the card-by-card codec has one index, 'pass'"
            )
        raise CodecError(
            f"legal actions {quote_action(other)} and {quote_action(action)} (phase {phase}) "
            "have the same cards but differ in verb or tag: the card-by-card codec cannot "
            "tell them apart"
        )


def _check_index(index: object) -> int:
    return checked_index(index, SIZE, "card-by-card")


class CardDecision(Decision):
    """One seat's decision, its action spelled out card by card (module docstring).

    Made from the observation of the seat to act, it stands for that moment of the deal:
    make a new one after every move. :meth:`copy` gives an independent decision at the
    same step.
    """

    __slots__ = ("_done", "_hi", "_listing", "_lo", "_mask", "_open", "_prefix")

    def __init__(self, observation: Observation, listing: _Listing | None = None) -> None:
        """The decision in ``observation``; ``listing``: its listing, if already made."""
        if listing is None:
            listing = _Listing(observation)
        self._listing = listing
        self._prefix = _NO_CARDS
        """The cards chosen so far, one byte each."""
        self._lo, self._hi = 0, len(listing.keys)
        """The listed actions that continue the prefix: those of ``keys[lo:hi]``."""
        rule = listing.rule
        self._open: tuple[bytes, ...] = () if rule is None else rule.open_at_start
        """With a rule: its open needs, each as the cards it still lacks (module docstring)."""
        self._done: Action | None = None
        self._mask: Mask | None = None

    # ------------------------------------------------------------------ reading

    @property
    def verb(self) -> str | None:
        """The verb of the decision's actions with cards (``None``: only ``pass``)."""
        return self._listing.verb

    @property
    def complete(self) -> bool:
        """Whether the observation listed every legal action (else the masks follow the
        rule they obey, module docstring)."""
        return self._listing.complete

    @property
    def selected(self) -> tuple[int, ...]:
        return tuple(self._prefix)

    @property
    def selected_cards(self) -> tuple[Card, ...]:
        return tuple(self._prefix)  # a card's index is the card

    @property
    def done(self) -> Action | None:
        """The action this decision returned, once complete; else ``None``."""
        return self._done

    @property
    def mask(self) -> Mask:
        """The indices allowed now (module docstring); all 0 once complete. Made once per
        step: read it, do not change it."""
        mask = self._mask
        if mask is None:
            mask = self._mask = self._make_mask()
        return mask

    def _make_mask(self) -> Mask:
        allowed = bytearray(SIZE)
        if self._done is None:
            if self._listing.rule is not None:
                self._rule_mask(self._listing.rule, allowed)
            else:
                self._listed_mask(allowed)
        return np.frombuffer(allowed, dtype=np.int8)

    def _listed_mask(self, allowed: bytearray) -> None:
        listing, prefix = self._listing, self._prefix
        keys, lo, hi, depth = listing.keys, self._lo, self._hi, len(prefix)
        if not depth:
            if listing.pass_action is not None:
                allowed[PASS_INDEX] = 1
        elif lo < hi and len(keys[lo]) == depth:  # the prefix itself sorts first
            allowed[END] = 1
            lo += 1
        if hi - lo <= _SCAN:
            for i in range(lo, hi):
                allowed[keys[i][depth]] = 1
        else:
            while lo < hi:
                card = keys[lo][depth]
                allowed[card] = 1
                lo = bisect_left(keys, prefix + _BYTES[card] + _ABOVE, lo + 1, hi)

    def _rule_mask(self, rule: _Rule, allowed: bytearray) -> None:
        prefix, held = self._prefix, rule.held
        depth = len(prefix)
        last = prefix[-1] if depth else 0
        repeats = depth - len(prefix.rstrip(_BYTES[last])) if depth else 0  # copies of it
        size = rule.size
        if not size:  # a lead: any cards of the first card's group
            if depth:
                allowed[END] = 1
                group = rule.group
                wanted = group[prefix[0]]
                for card in range(last, NUM_KINDS):
                    if group[card] == wanted and held[card] > (repeats if card == last else 0):
                        allowed[card] = 1
            else:
                for card in range(NUM_KINDS):
                    if held[card]:
                        allowed[card] = 1
            return
        if depth == size:
            if _NO_CARDS in self._open:
                allowed[END] = 1
            return
        # a card k keeps a need open when it is the lowest card the need lacks, or lies
        # below it with room to spare (below: any k up to ``ceiling``)
        ceiling, lowest = 0, set()
        room = size - depth - 1  # the cards still to choose after k
        for lacking in self._open:
            if lacking:
                lowest.add(lacking[0])
                if len(lacking) <= room and lacking[0] > ceiling:
                    ceiling = lacking[0]
            elif room >= 0:
                ceiling = NUM_KINDS
        above, needed = rule.above, size - depth
        for card in range(last, NUM_KINDS):
            if card >= ceiling and card not in lowest:
                continue
            used = repeats if card == last else 0
            # held beyond the prefix, and enough cards from k up to complete the play
            if held[card] > used and above[card] - used >= needed:
                allowed[card] = 1

    def actions(self) -> list[Action]:
        """The listed actions that the prefix can still become, in card order (``pass``
        first, before any card is chosen). When the listing is a sample (not
        :attr:`complete`), so are these: the masks spell more."""
        if self._done is not None:
            return []
        listing = self._listing
        found = [listing.actions[key] for key in listing.keys[self._lo : self._hi]]
        if not self._prefix and listing.pass_action is not None:
            found.insert(0, listing.pass_action)
        return found

    def copy(self) -> CardDecision:
        """An independent decision at the same step (for search over the spellings)."""
        twin = CardDecision.__new__(CardDecision)
        twin._listing, twin._prefix, twin._open = self._listing, self._prefix, self._open
        twin._lo, twin._hi = self._lo, self._hi
        twin._done, twin._mask = self._done, None
        return twin

    # ------------------------------------------------------------------ choosing

    def choose(self, index: int) -> Action | None:
        index = _check_index(index)
        if self._done is not None:
            raise CodecError(
                f"index {index} ({_LABELS[index]}): this decision is complete (it gave "
                f"{quote_action(self._done)}); make a new decision"
            )
        listing, prefix = self._listing, self._prefix
        rule = listing.rule
        if index < NUM_KINDS:
            keys, longer = listing.keys, prefix + _BYTES[index]
            lo = bisect_left(keys, longer, self._lo, self._hi)
            hi = bisect_left(keys, longer + _ABOVE, lo, self._hi)
            if rule is None:
                if lo == hi:
                    raise CodecError(self._card_refused(index))
            else:
                if not self.mask[index]:
                    raise CodecError(self._card_refused(index))
                if rule.size:
                    self._open = _still_open(self._open, index, rule.size - len(longer))
            self._prefix, self._lo, self._hi, self._mask = longer, lo, hi, None
            return None
        if index == END:
            if not prefix:
                raise CodecError(
                    f"index {index} (end) is masked out: no card is chosen yet (an action "
                    "with cards is its cards, then end)"
                )
            if rule is not None:
                if not self.mask[END]:
                    raise CodecError(
                        f"index {index} (end) is masked out: the cards chosen so far "
                        f"({format_cards(prefix)}) are no legal play yet: {rule.what}; "
                        "choose more cards"
                    )
                action = listing.actions.get(prefix) or new_action(("play", tuple(prefix), ""))
            elif self._lo == self._hi or listing.keys[self._lo] != prefix:
                raise CodecError(
                    f"index {index} (end) is masked out: no legal {listing.verb} has exactly "
                    f"the cards chosen so far ({format_cards(prefix)}) in phase "
                    f"{listing.phase}; choose more cards"
                )
            else:
                action = listing.actions[prefix]
        else:
            if prefix:
                raise CodecError(
                    f"index {index} (pass) is masked out: pass is taken before any card, and "
                    f"{format_cards(prefix)} are chosen"
                )
            if listing.pass_action is None:
                raise CodecError(
                    f"index {index} (pass) is masked out: pass is not legal now (phase "
                    f"{listing.phase})"
                )
            action = listing.pass_action
        self._done, self._mask = action, None
        return action

    def _card_refused(self, card: int) -> str:
        listing, prefix = self._listing, self._prefix
        head = f"index {card} ({_LABELS[card]}) is masked out: "
        if listing.verb is None:
            return head + f"no legal action has cards (phase {listing.phase}; only pass)"
        if prefix and card < prefix[-1]:
            return head + (
                f"cards are chosen in ascending order and the last chosen is "
                f"{format_card(prefix[-1])} (index {prefix[-1]})"
            )
        rule = listing.rule
        if rule is not None:
            chosen = f" after {format_cards(prefix)}" if prefix else ""
            copies = prefix.count(card) + 1
            if rule.held[card] < copies:
                return head + (
                    f"{format_card(card)} is not among the cards a legal play may take "
                    f"{counted(copies, 'time')} ({rule.what})"
                )
            return head + f"no legal play takes {format_card(card)}{chosen}: {rule.what}"
        if not prefix:
            return head + f"no legal {listing.verb} has {format_card(card)} (phase {listing.phase})"
        return head + (
            f"no legal {listing.verb} has {format_cards((*prefix, card))} among its cards "
            f"(chosen so far: {format_cards(prefix)}; phase {listing.phase})"
        )


def _still_open(needs: tuple[bytes, ...], card: Card, room: int) -> tuple[bytes, ...]:
    """The needs still open once ``card`` is chosen with ``room`` cards left to choose:
    each as the cards it then lacks (module docstring)."""
    kept: dict[bytes, None] = {}
    for lacking in needs:
        if lacking and lacking[0] == card:
            kept[lacking[1:]] = None
        elif (not lacking or card < lacking[0]) and len(lacking) <= room:
            kept[lacking] = None
    return tuple(kept)


class CardByCardCodec(ActionCodec):
    """A fixed action space of :data:`SIZE` indices that spells each action out card by
    card (module docstring)."""

    factored = True

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self._recent: tuple[Observation, _Listing] | None = None
        """The last observation a decision was made in, with its listing: the indices of
        its actions, asked one by one, read it once."""

    @property
    def size(self) -> int:
        return SIZE

    def _listing(self, observation: Observation) -> _Listing:
        recent = self._recent
        if recent is not None and recent[0] is observation:
            return recent[1]
        listing = _Listing(observation)
        self._recent = (observation, listing)
        return listing

    def label(self, index: int) -> str:
        return _LABELS[_check_index(index)]

    def decision(self, observation: Observation) -> CardDecision:
        return CardDecision(observation, self._listing(observation))

    def indices(self, action: Action, observation: Observation) -> tuple[int, ...]:
        """The cards of ``action`` in ascending order then :data:`END`, or
        (:data:`PASS_INDEX`,) for ``pass``; :class:`CodecError` unless ``action`` is
        legal in ``observation`` (the seat to act's): one of its listed actions, or when
        those are a sample, a play the rule they obey allows (module docstring). An
        action of another verb than the decision's is refused, naming both."""
        try:
            action = well_formed(action)
        except IllegalActionError as err:
            raise CodecError(str(err)) from None
        listing = self._listing(observation)
        cards = action.cards
        if not cards:
            if action.verb != "pass":
                raise CodecError(
                    f"action {quote_action(action)} has no cards and is not 'pass': the "
                    "card-by-card codec has no index for it"
                )
            if listing.pass_action != action:
                raise CodecError(
                    f"action {quote_action(action)} is not legal now (phase {listing.phase}), "
                    "so it has no spelling"
                )
            return (PASS_INDEX,)
        if action.verb != listing.verb:
            expected = (
                f"its actions with cards are '{listing.verb} …'"
                if listing.verb is not None
                else "it has no action with cards"
            )
            raise CodecError(
                f"action {quote_action(action)} is not of this decision's verb: {expected} "
                f"(phase {listing.phase})"
            )
        if listing.rule is None:
            if listing.actions.get(bytes(cards)) != action:
                raise CodecError(
                    f"action {quote_action(action)} is not among the legal actions listed "
                    f"now (phase {listing.phase}), so it has no spelling"
                )
        elif action.tag or not _spells(CardDecision(observation, listing), cards):
            raise CodecError(
                f"action {quote_action(action)} is not legal now (phase {listing.phase}: "
                f"{listing.rule.what}), so it has no spelling"
            )
        return (*cards, END)


def _spells(decision: CardDecision, cards: tuple[Card, ...]) -> bool:
    """Whether ``cards`` (sorted) then :data:`END` step through the decision's masks."""
    for card in cards:
        if not decision.mask[card]:
            return False
        decision.choose(card)
    return bool(decision.mask[END])
