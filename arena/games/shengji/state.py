"""The Shengji deal as a state machine: dealing with declarations, the kitty, the tricks.

Phases: ``declare`` (a player who just received a card, or is asked once more
when the dealing is over, may declare trump or pass, SJ-7 … SJ-12), ``bury``
(the dealer, holding the kitty, buries cards one at a time, SJ-13), ``play``
(leads and follows, SJ-17 … SJ-22) and ``over`` (SJ-23 … SJ-30).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final, NoReturn, final

from arena.cards import BIG_JOKER, NUM_KINDS, SMALL_JOKER, Card, format_cards, make_card, rank_label
from arena.errors import IllegalActionError
from arena.games.base import (
    NOBODY,
    NUM_SEATS,
    PASS,
    Action,
    ActionSyntax,
    CardState,
    Event,
    Observation,
    Outcome,
    Seat,
    Verb,
    next_seat,
    quote_action,
    team_of,
    well_formed,
)
from arena.games.shengji import scoring
from arena.games.shengji.declare import (
    Declaration,
    declaration_options,
    make_declaration,
    trump_when_undeclared,
)
from arena.games.shengji.follow import follow_error, follow_is_legal, suit_members
from arena.games.shengji.leads import all_leads, unit_leads
from arena.games.shengji.moves import (
    LIST_LIMIT,
    follow_actions,
)
from arena.games.shengji.order import CARD_POINTS, TrumpOrder
from arena.games.shengji.plays import LazyPlays
from arena.games.shengji.shapes import Unit, decompose
from arena.games.shengji.trick import (
    Contender,
    check_throw,
    contender,
    largest_unit_cards,
    lead_contender,
    widest_set,
)
from arena.games.views import NO_FACTS, FactsOnDemand, SoFar
from arena.plural import counted


@dataclass(frozen=True)
class ShengjiRules:
    """A variant's fixed facts and options (see rules/shengji.md, Variants)."""

    decks: int
    hand_size: int
    kitty_size: int
    constant_twos: bool = False
    two_colour: bool = False
    no_declaration: str = "notrump"
    throw_penalty: int = 0
    match_end: str = "pass_a"

    @property
    def max_width(self) -> int:
        return 2 if self.two_colour else self.decks

    @property
    def throws_allowed(self) -> bool:
        return self.decks != 4  # SJ-17: 4 decks forbid throws


@dataclass(frozen=True, slots=True)
class ShengjiSetup:
    """What a deal needs from the match: the levels and the dealer (``None``: first deal)."""

    levels: tuple[int, int] = (0, 0)
    dealer: Seat | None = None
    deal_index: int = 0


class _Trick:
    """The trick on the table: its leader, lead, plays and the best play so far."""

    def __init__(
        self,
        leader: Seat = NOBODY,
        lead: list[Unit] | None = None,
        suit: int = -1,
        size: int = 0,
        plays: list[tuple[Seat, tuple[Card, ...]]] | None = None,
        shown: list[tuple[Seat, str]] | None = None,
        best_seat: Seat = NOBODY,
        best: Contender | None = None,
    ) -> None:
        self.leader = leader
        self.lead: list[Unit] = [] if lead is None else lead
        self.suit = suit
        self.size = size
        self.plays: list[tuple[Seat, tuple[Card, ...]]] = [] if plays is None else plays
        self.shown: list[tuple[Seat, str]] = [] if shown is None else shown
        """The first plays with their cards in text form (made when first observed)."""
        self.best_seat = best_seat
        self.best = best

    def shown_plays(self, count: int) -> list[tuple[Seat, str]]:
        """The first ``count`` plays with their cards in text form."""
        shown, plays = self.shown, self.plays
        while len(shown) < count:
            seat, cards = plays[len(shown)]
            shown.append((seat, _cards_text(cards)))
        return shown[:count]

    def copy(self) -> _Trick:
        """A copy whose plays can grow apart (the lead is replaced, never changed)."""
        return _Trick(
            self.leader,
            self.lead,
            self.suit,
            self.size,
            self.plays[:],
            self.shown[:],
            self.best_seat,
            self.best,
        )


def _cards_text(cards: tuple[Card, ...]) -> str:
    """A play's cards in text form, remembered (the same plays recur across deals)."""
    text = _CARDS_TEXT.get(cards)
    if text is None:
        if len(_CARDS_TEXT) >= _CARDS_TEXT_KEPT:
            _CARDS_TEXT.clear()
        text = _CARDS_TEXT[cards] = format_cards(cards)
    return text


_CARDS_TEXT: dict[tuple[Card, ...], str] = {}
_CARDS_TEXT_KEPT: Final = 4096


def _declaring_kinds(level: int) -> tuple[Card, ...]:
    """The cards that can make a declaration at ``level``: its four level cards, the jokers."""
    return (*(make_card(level, suit) for suit in range(4)), SMALL_JOKER, BIG_JOKER)


@lru_cache(maxsize=512)
def _order_of(
    level: int, trump: int | None, constant_twos: bool, two_colour: bool
) -> tuple[TrumpOrder, tuple[tuple[Card, ...], ...]]:
    """A deal's order and its suits' cards (both immutable, so shared by the deals of
    the same level and trump)."""
    order = TrumpOrder(level, trump, constant_twos, two_colour)
    return order, suit_members(order)


@lru_cache(maxsize=4096)
def _declaration_options(
    declarable: tuple[Card, ...],
    seat: Seat,
    level: int,
    decks: int,
    standing: Declaration | None,
    two_colour: bool,
) -> list[Declaration]:
    """:func:`declaration_options`, remembered (the lists are only read)."""
    return declaration_options(declarable, seat, level, decks, standing, two_colour)


_new_tuple = tuple.__new__
_Listing = tuple[Sequence[Action], bool, str]
"""A decision's legal actions, whether they are all of them, and if not what they obey."""
_NOT_ASKED: _Listing = ((), True, "")
"""The listing a seat whose decision it is not sees."""
_BURIALS = [Action("bury", (card,)) for card in range(NUM_KINDS)]
"""The action burying each card."""
_GAME_NAMES: Final = ("", "shengji-1", "shengji-2", "shengji-3", "shengji-4")
"""The variant's name by its number of decks."""
_TRICK = 1 << NUM_SEATS
_SHARED = (1 << NUM_SEATS) - 1 | _TRICK


@final
class _PublicFacts(FactsOnDemand):
    """An observation's public facts, made when first read from the state as it stood:
    the entries that change at most once per trick (shared, never changed), the hand
    sizes, and the trick with the plays made so far and who was winning it."""

    def __init__(
        self, head: dict[str, Any], held: list[int], trick: _Trick, best_seat: Seat
    ) -> None:
        super().__init__()
        self._head, self._held, self._trick = head, held, trick
        self._played, self._best_seat = len(trick.plays), best_seat

    def _make(self) -> dict[str, Any]:
        trick, played = self._trick, self._played
        facts = self._head.copy()
        facts["counts"] = self._held
        facts["trick"] = {
            "leader": trick.leader,
            "plays": trick.shown_plays(played),
            "winning": self._best_seat if played else None,
        }
        return facts


SYNTAX = ActionSyntax(
    "shengji",
    {
        "pass": Verb(0, 0),
        "declare": Verb(1),  # SJ-7 … SJ-9
        "bury": Verb(1, 1),  # SJ-13: one card at a time
        "play": Verb(1),
    },
)


class ShengjiState(CardState):
    """One Shengji deal."""

    game_name = "shengji"
    syntax = SYNTAX

    def __init__(
        self,
        deal_order: Sequence[Card],
        setup: ShengjiSetup,
        rules: ShengjiRules,
        copy_of: ShengjiState | None = None,
    ) -> None:
        """The deal dealt from ``deal_order``; or, given ``copy_of``, a copy of that state
        (the other arguments then being its own)."""
        if copy_of is not None:
            self._copy(copy_of)
            return
        self.rules, self.setup = rules, setup
        # the first deal is dealt from seat 0 and played at the level both teams start at
        self._start: Seat = 0 if setup.dealer is None else setup.dealer
        self.level = setup.levels[team_of(self._start)]
        dealt = rules.hand_size * NUM_SEATS
        self._deck = list(deal_order[:dealt])
        self.kitty: tuple[Card, ...] = tuple(deal_order[dealt:])
        self._counts = [[0] * NUM_KINDS for _ in range(NUM_SEATS)]
        self._hands: list[tuple[Card, ...] | None] = [None] * NUM_SEATS
        self._held = [0] * NUM_SEATS  # how many cards each seat holds
        self._next_card = 0
        self._final_round: list[Seat] | None = None
        # per seat, the declarations it could make, until its level cards or jokers
        # or the standing declaration change
        self._option_cache: list[list[Declaration] | None] = [None] * NUM_SEATS
        self.standing: Declaration | None = None
        self.dealer: Seat = NOBODY
        self.order: TrumpOrder | None = None
        self._members: tuple[tuple[Card, ...], ...] = ()
        """Per suit, its cards (:func:`suit_members`), once the order is known."""
        self._events: list[Event] = [Event("deal", self._start, value=self.level)]
        self._phase = "declare"
        self._to_act = NOBODY
        self._buried: list[Card] = []
        self._buried_text = ""  # the buried cards in text form, once all are buried
        self._trick = _Trick()
        self._shared = 0
        """Bits 0–3: the counts of that seat, bit 4 (:data:`_TRICK`): the trick, are shared
        with a copy (copied before they change)."""
        self.defender_points = 0
        self.declarer_points = 0
        self._listing: _Listing | None = None
        self._public_head: dict[str, Any] = {}
        """The observations' public entries before ``counts`` (copied into each), made
        again when the dealer (with the trump) or the defenders' points change."""
        self._head_dealer, self._head_points = NOBODY, -1
        """The dealer and the defenders' points ``_public_head`` was made for."""
        self._outcome_data: dict[str, Any] = {}
        self._deal_cards()

    # ------------------------------------------------------------------ dealing

    def _options(self, seat: Seat) -> list[Declaration]:
        options = self._option_cache[seat]
        if options is None:
            counts = self._counts[seat]
            # only the level cards and the jokers can declare (SJ-8 … SJ-10, SJ-31)
            declarable = tuple([c for c in _declaring_kinds(self.level) for _ in range(counts[c])])
            rules = self.rules
            options = self._option_cache[seat] = _declaration_options(
                declarable, seat, self.level, rules.decks, self.standing, rules.two_colour
            )
        return options

    def _deal_cards(self) -> None:
        """Deal until someone may declare, then ask every player once more (SJ-11).

        A player is asked after each card they receive, and once more in seat order
        from the dealer when the dealing is over, whenever they could make a
        declaration stronger than the standing one.
        """
        deck, hands, cached = self._deck, self._hands, self._option_cache
        counts = [self._counts_of(seat) for seat in range(NUM_SEATS)]
        level, start, next_card = self.level, self._start, self._next_card
        while next_card < len(deck):
            seat = (start + next_card) % NUM_SEATS
            card = deck[next_card]
            next_card += 1
            counts[seat][card] += 1
            self._held[seat] += 1
            hands[seat] = None
            if card >= SMALL_JOKER or card >> 2 == level:  # only these change what one can declare
                cached[seat] = None
            options = cached[seat]
            if options is None:
                options = self._options(seat)
            if options:
                self._next_card, self._to_act = next_card, seat
                return
        self._next_card = next_card
        if self._final_round is None:
            self._final_round = [(self._start + k) % NUM_SEATS for k in range(NUM_SEATS)]
            self._events.append(Event("dealt", self._start))
        while self._final_round:
            seat = self._final_round.pop(0)
            if self._options(seat):
                self._to_act = seat
                return
        self._end_dealing()

    def _declare(self, seat: Seat, cards: tuple[Card, ...]) -> None:
        declaration = make_declaration(
            seat, cards, self.level, self.rules.decks, self.rules.two_colour
        )
        allowed = {d.cards for d in self._options(seat)}
        if declaration is None or cards not in allowed:
            raise IllegalActionError(
                f"illegal action {quote_action(Action('declare', cards))}: not a declaration "
                f"stronger than the standing one (SJ-8); allowed: "
                + "; ".join(format_cards(c) for c in sorted(allowed))
            )
        self.standing = declaration
        self._option_cache = [None] * NUM_SEATS
        hidden = self.rules.decks == 4  # SJ-10: the suit stays hidden
        self._events.append(
            Event(
                "declare",
                seat,
                () if hidden else cards,
                value=len(cards),
                tag="hidden" if hidden else "",
            )
        )

    def _end_dealing(self) -> None:
        standing, rules = self.standing, self.rules
        if standing is not None:
            trump = standing.suit
        else:
            trump = trump_when_undeclared(
                rules.decks, rules.no_declaration, self.kitty, rules.two_colour
            )
        self.dealer = (
            self.setup.dealer
            if self.setup.dealer is not None
            else (standing.seat if standing is not None else 0)
        )
        self.order, self._members = _order_of(
            self.level, trump, rules.constant_twos or rules.decks == 4, rules.two_colour
        )
        shown = self.kitty[3:4] if standing is None and rules.no_declaration == "flip_kitty" else ()
        self._events.append(
            Event("trump", self.dealer, shown, value=self.level, tag=self.order.trump_name())
        )
        if self.kitty:
            for card in self.kitty:
                self._counts_of(self.dealer)[card] += 1
            self._hands[self.dealer] = None
            self._held[self.dealer] += len(self.kitty)
            self._events.append(Event("kitty_taken", self.dealer, value=len(self.kitty)))
            self._phase = "bury"
            self._to_act = self.dealer
        else:
            self._start_play()

    def _bury(self, card: Card) -> None:
        self._counts_of(self.dealer)[card] -= 1
        self._held[self.dealer] -= 1
        hand = self._hands[self.dealer]
        if hand is not None:  # the sorted hand without the card
            rest = list(hand)
            rest.remove(card)
            self._hands[self.dealer] = tuple(rest)
        self._buried.append(card)
        self._events.append(Event("bury", self.dealer))
        if len(self._buried) == len(self.kitty):
            self._buried_text = format_cards(self._buried)
            self._start_play()

    def _start_play(self) -> None:
        self._phase = "play"
        self._new_trick(self.dealer)  # SJ-18: the dealer leads the first trick

    def _new_trick(self, leader: Seat) -> None:
        self._trick = _Trick(leader, [], -1, 0, [], [], NOBODY, None)
        self._shared &= ~_TRICK
        self._to_act = leader
        self._events.append(_new_tuple(Event, ("lead", leader, (), NOBODY, 0, "")))

    # --------------------------------------------------------------------- play

    @property
    def buried(self) -> tuple[Card, ...]:
        """The cards the dealer buried (the kitty that counts at the end, SJ-13, SJ-25)."""
        return tuple(self._buried)

    @property
    def declarer_team(self) -> int:
        return team_of(self.dealer)

    def _suit_cards(self, seat: Seat, suit: int) -> list[Card]:
        counts = self._counts[seat]
        return [c for c in self._members[suit] if counts[c] for _ in range(counts[c])]

    def _lead(self, seat: Seat, cards: tuple[Card, ...]) -> None:
        order = self.order
        assert order is not None
        suits = {order.suits[c] for c in cards}
        if len(suits) != 1:
            raise IllegalActionError(
                f"illegal action {quote_action(Action('play', cards))}: "
                "a lead is of one suit (SJ-18)"
            )
        suit = suits.pop()
        units = decompose(cards, order)
        if len(units) > 1:
            if not self.rules.throws_allowed:
                raise IllegalActionError(
                    f"illegal action {quote_action(Action('play', cards))}: throws are not "
                    "allowed with 4 decks; lead one set or tractor (SJ-17)"
                )
            others = [self._suit_cards(s, suit) for s in range(NUM_SEATS) if s != seat]
            forced = check_throw(units, others, order)
            if forced is not None:
                self._events.append(Event("throw_failed", seat, cards))
                self._penalise_throw(seat, len(cards))
                cards, units = forced.cards, [forced]
        trick = self._own_trick()
        trick.lead, trick.suit, trick.size = units, suit, len(cards)
        trick.best_seat, trick.best = seat, lead_contender(units, suit)
        self._put(seat, cards)

    def _penalise_throw(self, seat: Seat, cards: int) -> None:
        penalty = self.rules.throw_penalty
        if penalty:
            thrower_defends = team_of(seat) != self.declarer_team
            self.defender_points = scoring.throw_penalty_points(
                penalty, cards, thrower_defends, self.defender_points
            )

    def _follow(self, seat: Seat, cards: tuple[Card, ...], listed: bool) -> None:
        reason = "" if listed else self._follow_error(seat, cards)
        if reason:
            raise IllegalActionError(
                f"illegal action {quote_action(Action('play', cards))}: {reason}"
            )
        order, trick = self.order, self._trick
        assert order is not None and trick.best is not None
        challenger = contender(cards, trick.lead, trick.suit, order, self.rules.decks)
        if challenger is not None and challenger.beats(trick.best):
            trick = self._own_trick()
            trick.best_seat, trick.best = seat, challenger
        self._put(seat, cards)

    def _follow_error(self, seat: Seat, cards: tuple[Card, ...]) -> str:
        """Why a follow breaks SJ-19, or ``""`` if it is legal."""
        order, trick = self.order, self._trick
        assert order is not None
        members, decks = self._members[trick.suit], self.rules.decks
        if follow_is_legal(
            self._counts[seat], members, cards, trick.lead, trick.suit, order, decks
        ):
            return ""
        return follow_error(self.hand(seat), cards, trick.lead, trick.suit, order, decks)

    def _put(self, seat: Seat, cards: tuple[Card, ...]) -> None:
        counts = self._counts_of(seat)
        for card in cards:
            counts[card] -= 1
        self._held[seat] -= len(cards)
        hand = self._hands[seat]
        if hand is not None:  # the sorted hand without the cards played
            rest = list(hand)
            for card in cards:
                rest.remove(card)
            self._hands[seat] = tuple(rest)
        trick = self._own_trick()
        trick.plays.append((seat, cards))
        self._events.append(_new_tuple(Event, ("play", seat, cards, NOBODY, 0, "")))
        if len(trick.plays) < NUM_SEATS:
            self._to_act = next_seat(seat)
            return
        points = sum([CARD_POINTS[c] for _, played in trick.plays for c in played])
        winner = trick.best_seat
        if team_of(winner) == self.declarer_team:
            self.declarer_points += points
        else:
            self.defender_points += points
        self._events.append(_new_tuple(Event, ("trick", winner, (), NOBODY, points, "")))
        if not any(self._counts[0]):
            self._finish(winner, dict(trick.plays)[winner])
            return
        self._new_trick(winner)

    def _counts_of(self, seat: Seat) -> list[int]:
        """The seat's counts, to change (copied first if a copy shares them)."""
        counts = self._counts[seat]
        if self._shared >> seat & 1:
            counts = self._counts[seat] = counts[:]
            self._shared &= ~(1 << seat)
        return counts

    def _own_trick(self) -> _Trick:
        """The trick, to change (copied first if a copy shares it)."""
        trick = self._trick
        if self._shared & _TRICK:
            trick = self._trick = trick.copy()
            self._shared &= ~_TRICK
        return trick

    def _finish(self, last_winner: Seat, winning_play: tuple[Card, ...]) -> None:
        order = self.order
        assert order is not None
        defenders_won_last = team_of(last_winner) != self.declarer_team
        points = self.defender_points
        bonus = 0
        if self.rules.decks == 4:  # SJ-30
            width = widest_set(winning_play, order)
            points = scoring.settle_four_decks(
                points, self.declarer_points, defenders_won_last, width
            )
            bonus = points - self.defender_points
        elif defenders_won_last:  # SJ-25
            bonus = scoring.kitty_points(self._buried, largest_unit_cards(winning_play, order))
            points += bonus
        self._events.append(Event("kitty", self.dealer, tuple(self._buried), value=bonus))
        self._outcome_data = {
            "defender_points": points,
            "last_bonus": bonus,
            "last_winner": last_winner,
        }
        self._phase = "over"
        self._to_act = NOBODY

    # ---------------------------------------------------------------- interface

    def set_aside(self) -> tuple[Card, ...]:
        """Cards not dealt yet, the kitty before the dealer takes it, and the buried cards."""
        undealt = self._deck[self._next_card :]
        kitty = self.kitty if self.order is None else ()
        return tuple(sorted([*undealt, *kitty, *self._buried]))

    def legal_actions(self) -> Sequence[Action]:
        legal = self._listed()[0]
        return legal if isinstance(legal, LazyPlays) else list(legal)

    def _listed(self) -> _Listing:
        """The decision's listing, made once."""
        listing = self._listing
        if listing is None:
            listing = self._listing = self._compute_legal()
        return listing

    def _compute_legal(self) -> _Listing:
        seat, phase = self._to_act, self._phase
        if phase == "declare":
            actions = [PASS] + [Action("declare", d.cards) for d in self._options(seat)]
        elif phase == "bury":
            actions = [_BURIALS[c] for c in sorted(set(self.hand(seat)))]
        elif phase == "play":
            plays, complete, description = self._legal_plays(seat)
            return plays if isinstance(plays, LazyPlays) else tuple(plays), complete, description
        else:
            actions = []
        return tuple(actions), True, ""

    def _legal_plays(self, seat: Seat) -> tuple[Sequence[Action], bool, str]:
        order, trick, hand = self.order, self._trick, self.hand(seat)
        assert order is not None
        if not trick.plays:
            if self.rules.throws_allowed:
                leads = all_leads(hand, order, LIST_LIMIT)
                if leads is not None:
                    return leads, True, ""
            actions = unit_leads(hand, order, self.rules.max_width)
            if not self.rules.throws_allowed:
                return actions, True, ""
            return (
                actions,
                False,
                (
                    "lead any cards of one suit; several combinations at once are a throw, "
                    "checked against the other hands (SJ-17); listed: every single combination"
                ),
            )
        return follow_actions(
            hand, trick.lead, trick.suit, trick.size, order, self.rules.decks, LIST_LIMIT
        )

    def apply(self, action: Action) -> None:
        seat = self._to_act
        if seat == NOBODY:
            raise IllegalActionError(f"illegal action {quote_action(action)}: the deal is over")
        action = well_formed(action)
        if action.tag:
            raise IllegalActionError(
                f"illegal action {quote_action(action)}: Shengji actions take no 'as …' kind"
            )
        phase = self._phase
        if phase == "declare":
            if action == PASS:
                self._to_act = NOBODY
                self._deal_cards()
            elif action.verb == "declare":
                self._declare(seat, action.cards)
                self._deal_cards()
            else:
                self._wrong_verb(action, "'pass' or 'declare CARDS'")
        elif phase == "bury":
            if action.verb != "bury" or len(action.cards) != 1:
                self._wrong_verb(action, "'bury CARD' (one card at a time, SJ-13)")
            if not self._counts[seat][action.cards[0]]:
                raise IllegalActionError(f"illegal action {quote_action(action)}: not in your hand")
            self._bury(action.cards[0])
        else:
            if action.verb != "play" or not action.cards:
                self._wrong_verb(action, "'play CARDS'")
            if self._trick.plays:
                # a listed follow is legal: listing it proved what the check would
                listing = self._listing
                listed = listing is not None and action in listing[0]
                if not listed:
                    self._check_held(seat, action)
                self._follow(seat, action.cards, listed)
            else:
                self._check_held(seat, action)
                self._lead(seat, action.cards)
        self._listing = None

    def _check_held(self, seat: Seat, action: Action) -> None:
        """Raise unless the seat holds the action's cards (sorted), as many of each."""
        counts, cards = self._counts[seat], action.cards
        previous, copies = -1, 0
        for card in cards:
            copies = copies + 1 if card == previous else 1
            previous = card
            if counts[card] < copies:
                missing = [c for c, n in Counter(cards).items() if counts[c] < n]
                raise IllegalActionError(
                    f"illegal action {quote_action(action)}: "
                    f"{format_cards(sorted(missing))} not (or not that many) in the hand "
                    f"of seat {seat}"
                )

    def _wrong_verb(self, action: Action, expected: str) -> NoReturn:
        raise IllegalActionError(
            f"illegal action {quote_action(action)}: seat {self._to_act} must answer {expected} "
            f"in the {self._phase} phase"
        )

    # ------------------------------------------------------------ observation

    def _make_public_head(self) -> dict[str, Any]:
        """The public entries that change at most once per trick (see ``_public_head``)."""
        rules = self.rules
        return {
            "level": self.level,
            "levels": self.setup.levels,
            "dealer": self.dealer,
            "trump": None if self.order is None else self.order.name,
            "defender_points": self.defender_points,
            "constant_twos": rules.constant_twos,
            "two_colour": rules.two_colour,
        }

    def observe(self, seat: Seat) -> Observation:
        trick = self._trick
        hidden = self.rules.decks == 4 and self._phase == "declare"
        head = self._public_head
        if self._head_dealer != self.dealer or self._head_points != self.defender_points:
            head = self._public_head = self._make_public_head()
            self._head_dealer, self._head_points = self.dealer, self.defender_points
        public = _PublicFacts(head, self._held[:], trick, trick.best_seat)
        private = NO_FACTS
        if seat == self.dealer and self._buried and self._phase != "over":
            private = {"buried": self._buried_text or format_cards(self._buried)}
        elif hidden and self.standing is not None and self.standing.seat == seat:
            private = {"declaration": format_cards(self.standing.cards)}
        to_act = self._to_act
        legal, complete, description = self._listed() if seat == to_act else _NOT_ASKED
        return _new_tuple(  # Observation(game, seat, …) without its Python-level constructor
            Observation,
            (
                _GAME_NAMES[self.rules.decks],
                seat,
                self._phase,
                to_act,
                self.hand(seat),
                legal,
                SoFar(self._events, len(self._events)),
                public,
                private,
                complete,
                description,
            ),
        )

    # ---------------------------------------------------------------- outcome

    def outcome(self) -> Outcome:
        if self._phase != "over":
            raise IllegalActionError("the deal is not over")
        if self.fled != NOBODY:
            return self.forfeit_outcome()
        return settle(self)

    def clone(self) -> ShengjiState:
        return ShengjiState(self._deck, self.setup, self.rules, self)

    def _copy(self, other: ShengjiState) -> None:
        """Become an independent copy of ``other``: what changes is copied, what never
        changes once made (the deck, the order, tuples, the listing) is shared."""
        self.rules, self.setup, self._start, self.level = (
            other.rules,
            other.setup,
            other._start,
            other.level,
        )
        self._deck, self.kitty, self._next_card = other._deck, other.kitty, other._next_card
        self._counts = other._counts[:]  # the lists themselves copied before they change
        self._hands = other._hands[:]
        self._held = other._held[:]
        final_round = other._final_round
        self._final_round = None if final_round is None else final_round[:]
        self._option_cache = other._option_cache[:]
        self.standing, self.dealer, self.order = other.standing, other.dealer, other.order
        self._members = other._members
        self._events = other._events[:]
        self._phase, self._to_act, self.fled = other._phase, other._to_act, other.fled
        # buried cards are only added in the bury phase (and none before: declare)
        self._buried = other._buried if other._phase in ("play", "over") else other._buried[:]
        self._buried_text = other._buried_text
        self._trick = other._trick
        self._shared = other._shared = _SHARED
        self.defender_points, self.declarer_points = other.defender_points, other.declarer_points
        self._listing = other._listing
        self._public_head = other._public_head  # replaced, never changed
        self._head_dealer, self._head_points = other._head_dealer, other._head_points
        self._outcome_data = other._outcome_data  # replaced, never changed


def settle(state: ShengjiState) -> Outcome:
    """SJ-23 … SJ-26: levels, next dealer and match end from the defenders' points."""
    rules, setup = state.rules, state.setup
    points = int(state._outcome_data["defender_points"])
    declarers = state.declarer_team
    change = scoring.level_change(points, rules.decks, rules.two_colour)
    levels = scoring.apply_levels(setup.levels, declarers, change)
    winner = scoring.match_winner(setup.levels, levels, declarers, change, rules.match_end)
    winning_team = change.winning_team(declarers)
    gain = change.defenders_up if change.take_over else change.declarers_up
    scores = tuple(gain if team_of(s) == winning_team else -gain for s in range(NUM_SEATS))
    if change.take_over:
        verdict = f"defenders take over, +{change.defenders_up}"
    else:
        verdict = f"declarers up {change.declarers_up}"
    summary = (
        f"defenders {counted(points, 'point')}: {verdict}; levels "
        f"{rank_label(levels[0])} / {rank_label(levels[1])}"
    )
    details = {
        "dealer": state.dealer,
        "declarer_team": declarers,
        "trump": state.order.trump_name() if state.order else None,
        "level_played": state.level,
        "defender_points": points,
        "last_bonus": state._outcome_data["last_bonus"],
        "kitty": format_cards(state._buried),
        "levels_before": list(setup.levels),
        "levels_after": list(levels),
        "take_over": change.take_over,
        "gain": gain,
        "match_winner": winner,
    }
    next_setup = (
        None
        if winner is not None
        else ShengjiSetup(
            levels=levels,
            dealer=scoring.next_dealer(state.dealer, change),
            deal_index=setup.deal_index + 1,
        )
    )
    return Outcome(
        scores=(scores[0], scores[1], scores[2], scores[3]),
        summary=summary,
        details=details,
        next_setup=next_setup,
        match_winner=winner,
    )


__all__ = ["ShengjiRules", "ShengjiSetup", "ShengjiState", "settle"]
