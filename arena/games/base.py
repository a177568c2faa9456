"""The interface every game shares: actions, events, observations, states, games.

A :class:`Game` is a rules variant with its options (found by name in the
registry). It builds the :class:`State` of a deal from a seed or from explicit
hands, and carries a match from one deal to the next through an immutable,
game-specific *setup* (levels, the next dealer or leader, tribute owed…).

A :class:`State` is the engine proper: pure and deterministic. It says whose
decision it is, lists the legal actions (sorted), applies one (``apply`` is the
only way the state changes), gives the :class:`Observation` of a seat (only what
that seat may see, rules/common.md C-5), and at the end an :class:`Outcome`.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from types import MappingProxyType
from typing import Any, ClassVar, Final, NamedTuple

from mypy_extensions import mypyc_attr

from arena.cards import NUM_KINDS as NUM_CARD_KINDS
from arena.cards import Card, format_cards, from_counts, parse_cards
from arena.errors import IllegalActionError, ParseError
from arena.games.views import NO_FACTS
from arena.plural import counted

Seat = int
NUM_SEATS = 4
NOBODY: Final[Seat] = -1
"""``to_act`` of a finished deal; ``seat`` of an event that belongs to no seat."""


def team_of(seat: Seat) -> int:
    """Team of a seat (rules/common.md C-2): 0 for seats 0 and 2, 1 for seats 1 and 3."""
    return seat & 1


def partner_of(seat: Seat) -> Seat:
    return (seat + 2) & 3


def next_seat(seat: Seat) -> Seat:
    """The player after ``seat``, to whom the turn passes (下家, C-2)."""
    return (seat + 1) & 3


def previous_seat(seat: Seat) -> Seat:
    """The player before ``seat``, from whom the turn comes (上家, C-2)."""
    return (seat + 3) & 3


class Action(NamedTuple):
    """One decision: a verb, the cards it involves and an optional tag.

    This tuple is the compact form the engines use; ``str(action)`` is the text
    form (``pass``, ``play 3s 3d 3h``, ``tribute Ah``, ``play 3s 3d 4s 4d 2h 2h as
    pair_run``) and :meth:`from_str` reads it back. Cards are kept sorted, so two
    actions that use the same multiset of cards are equal.
    """

    verb: str
    cards: tuple[Card, ...] = ()
    tag: str = ""

    def __str__(self) -> str:
        text = self.verb
        if self.cards:
            text += " " + format_cards(self.cards)
        if self.tag:
            text += " as " + self.tag
        return text

    @classmethod
    def make(cls, verb: str, cards: Sequence[Card] = (), tag: str = "") -> Action:
        return cls(verb, tuple(sorted(cards)), tag)

    @classmethod
    def from_str(cls, text: str) -> Action:
        """Parse the text form; raises :class:`ParseError` quoting what is wrong."""
        words = text.split()
        if not words:
            raise ParseError("empty action: expected a verb such as 'pass' or 'play 3s 3d'")
        verb, rest = words[0], words[1:]
        if not verb.isalpha() or not verb.islower():
            raise ParseError(f"bad action {text!r}: {verb!r} is not a verb")
        tag = ""
        if "as" in rest:
            at = rest.index("as")
            if at != len(rest) - 2:
                raise ParseError(f"bad action {text!r}: 'as' must be followed by one word")
            tag = rest[-1]
            rest = rest[:at]
        try:
            cards = parse_cards(" ".join(rest))
        except ParseError as err:
            raise ParseError(f"bad action {text!r}: {err}") from None
        return cls(verb, tuple(sorted(cards)), tag)


PASS = Action("pass")

new_action: Callable[[tuple[str, tuple[Card, ...], str]], Action] = partial(tuple.__new__, Action)
"""An action from its fields ``(verb, cards, tag)``, cards sorted: the same value as
``Action(verb, cards, tag)`` made without a call of Python code (engines make many)."""

MAX_DEAL_CARDS = 4 * NUM_CARD_KINDS
"""The most cards any deal holds (four decks): no action names more."""


@dataclass(frozen=True, slots=True)
class Verb:
    """What one verb of a game's actions takes: a number of cards, and the kinds its
    ``as …`` tag may name (none: it takes no tag)."""

    min_cards: int
    max_cards: int = MAX_DEAL_CARDS
    tags: frozenset[str] = frozenset()

    def takes(self) -> str:
        """How many cards, in words."""
        if self.max_cards == 0:
            return "no cards"
        if self.min_cards == self.max_cards:
            return f"exactly {counted(self.min_cards, 'card')}"
        return f"at least {counted(self.min_cards, 'card')}"


class ActionSyntax:
    """The shape of a game's actions: its verbs, their card counts and tags.

    An action outside it is *malformed* (:class:`ParseError`: it cannot be read as an
    action of the game at all), as opposed to *illegal* (a well-formed action the rules
    refuse in the position, :class:`IllegalActionError`).
    """

    def __init__(self, game: str, verbs: Mapping[str, Verb]) -> None:
        self.game = game
        self.verbs: Mapping[str, Verb] = MappingProxyType(dict(verbs))

    def check(self, action: Action) -> None:
        """Raise :class:`ParseError`, quoting the action, unless it has the game's shape."""
        verb = self.verbs.get(action.verb)
        if verb is None:
            raise ParseError(
                f"bad action {_quoted(action)}: {action.verb[:40]!r} is not a {self.game} verb "
                f"(verbs: {', '.join(self.verbs)})"
            )
        count = len(action.cards)
        if not verb.min_cards <= count <= verb.max_cards:
            raise ParseError(
                f"bad action {_quoted(action)}: {action.verb!r} takes {verb.takes()}, not {count}"
            )
        if action.tag and action.tag not in verb.tags:
            known = f"one of {', '.join(sorted(verb.tags))}" if verb.tags else "none"
            raise ParseError(
                f"bad action {_quoted(action)}: {action.tag[:40]!r} is not a kind "
                f"{action.verb!r} may name in {self.game} (kinds: {known})"
            )


def _quoted(action: Action) -> str:
    """An action's text form quoted for a message, cut short when long."""
    text = str(action)
    return repr(text if len(text) <= 80 else text[:77] + "...")


def quote_action(action: object) -> str:
    """An action quoted for an error message: its text form, or its repr if malformed."""
    try:
        return repr(str(well_formed(action)))
    except (IllegalActionError, ParseError):
        return f"{action!r:.80}"


def well_formed(action: object) -> Action:
    """``action`` as a canonical :class:`Action` (cards sorted).

    Raises :class:`IllegalActionError` saying what is malformed: not an action,
    a verb that is not text, a card that is not a card int (0..53).
    """
    if not isinstance(action, Action):
        raise IllegalActionError(
            f"illegal action {action!r:.80}: expected an Action, got {type(action).__name__}"
        )
    verb, cards, tag = action
    if not isinstance(verb, str) or not isinstance(tag, str) or not isinstance(cards, tuple):
        raise IllegalActionError(f"illegal action {action!r:.80}: malformed verb, cards or tag")
    for card in cards:
        if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < NUM_CARD_KINDS:
            raise IllegalActionError(
                f"illegal action {action!r:.80}: {card!r} is not a card (cards are ints 0..53)"
            )
    if list(cards) != sorted(cards):
        return Action(verb, tuple(sorted(cards)), tag)
    return action


class Event(NamedTuple):
    """A public event of a deal, in order: who did what, visible to every seat.

    ``kind`` names it (``play``, ``pass``, ``tribute``, ``announce`` …), ``seat``
    is the seat it concerns, ``cards`` the cards shown, ``target`` a second seat
    (the receiver of a tribute) and ``value`` a number (a card count, a place).
    """

    kind: str
    seat: Seat = NOBODY
    cards: tuple[Card, ...] = ()
    target: Seat = NOBODY
    value: int = 0
    tag: str = ""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        if self.seat != NOBODY:
            data["seat"] = self.seat
        if self.cards:
            data["cards"] = format_cards(self.cards)
        if self.target != NOBODY:
            data["target"] = self.target
        if self.value:
            data["value"] = self.value
        if self.tag:
            data["tag"] = self.tag
        return data


class Observation(NamedTuple):
    """What one seat may see at one moment (rules/common.md C-5). Immutable.

    ``legal_actions`` is filled only for the seat whose decision it is (the
    action mask travels with the observation): an immutable sequence, a tuple or one
    that makes each action when it is asked for (see :meth:`State.legal_actions`).
    ``events`` are the public events so far: a tuple, or a read-only sequence equal to
    the tuple of them (:class:`~arena.games.views.SoFar`). ``public`` holds the facts
    every seat sees (levels, card counts, the trick on the table); ``private`` what only
    this seat knows besides its hand (e.g. a return it gave face down): read-only
    mappings, a dict or one made when first read
    (:class:`~arena.games.views.FactsOnDemand`).
    """

    game: str
    seat: Seat
    phase: str
    to_act: Seat
    hand: tuple[Card, ...]
    legal_actions: Sequence[Action]
    events: Sequence[Event]
    public: Mapping[str, Any] = NO_FACTS
    private: Mapping[str, Any] = NO_FACTS
    legal_complete: bool = True
    """``False`` when ``legal_actions`` is only a reproducible sample of a larger set."""
    legal_description: str = ""
    """When incomplete: what every legal action must satisfy, in words."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (cards in text notation)."""
        return {
            "game": self.game,
            "seat": self.seat,
            "phase": self.phase,
            "to_act": self.to_act,
            "hand": format_cards(self.hand),
            "legal_actions": [str(a) for a in self.legal_actions],
            "events": [e.to_dict() for e in self.events],
            "public": _jsonable(self.public),
            "private": _jsonable(self.private),
            "legal_complete": self.legal_complete,
            "legal_description": self.legal_description,
        }


new_event: Callable[[tuple[str, Seat, tuple[Card, ...], Seat, int, str]], Event] = partial(
    tuple.__new__, Event
)
"""An event from its fields ``(kind, seat, cards, target, value, tag)`` (see :func:`new_action`)."""

new_observation: Callable[[tuple[Any, ...]], Observation] = partial(tuple.__new__, Observation)
"""An observation from its eleven fields in order (see :func:`new_action`)."""


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of one deal.

    ``scores`` is the per-seat result in the game's own unit (Guandan: levels
    gained, Shengji: levels gained, sanfu: stakes won or paid). ``next_setup`` is
    the setup of the following deal of the match, or ``None`` when this deal
    ended the match; ``match_winner`` is then the winning team (``None`` for a
    match that ended without a winner, e.g. after a fixed number of deals).
    """

    scores: tuple[int, int, int, int]
    summary: str
    details: Mapping[str, Any]
    next_setup: Any
    match_winner: int | None = None

    @property
    def match_over(self) -> bool:
        return self.next_setup is None


@mypyc_attr(allow_interpreted_subclasses=True)
class State(abc.ABC):
    """The state of one deal. Mutable, changed only by :meth:`apply`."""

    game_name: ClassVar[str]
    syntax: ClassVar[ActionSyntax]
    """The shape of the game's actions (verbs, card counts, tags)."""

    @property
    @abc.abstractmethod
    def to_act(self) -> Seat:
        """The seat whose decision it is, or :data:`NOBODY` once the deal is over."""

    @property
    @abc.abstractmethod
    def phase(self) -> str:
        """The name of the current phase (``tribute``, ``return``, ``play``, ``over``…)."""

    def is_terminal(self) -> bool:
        return self.to_act == NOBODY

    @abc.abstractmethod
    def legal_actions(self) -> Sequence[Action]:
        """Every legal action of the seat to act, each once, in the game's fixed order.

        A sequence (a list, or where a decision has very many, an immutable sequence
        that spells out an action only when it is asked for, indexed or iterated):
        ``len``, indexing, iteration, ``in`` and equality with a list of the same
        actions all hold."""

    @abc.abstractmethod
    def apply(self, action: Action) -> None:
        """Apply a legal action; raise :class:`IllegalActionError` naming the rule broken."""

    @abc.abstractmethod
    def observe(self, seat: Seat) -> Observation:
        """What ``seat`` may see now."""

    @abc.abstractmethod
    def outcome(self) -> Outcome:
        """The result of the finished deal; raises if the deal is not over."""

    @abc.abstractmethod
    def clone(self) -> State:
        """An independent copy (for search and tests)."""

    @abc.abstractmethod
    def hand(self, seat: Seat) -> tuple[Card, ...]:
        """The full-information hand of a seat (engine side only; bots get observations)."""

    @property
    @abc.abstractmethod
    def events(self) -> Sequence[Event]:
        """The public events so far."""

    def player_at(self, seat: Seat) -> int:
        """The player (policy) sitting at ``seat``; seats move only in games that say so."""
        return seat

    @abc.abstractmethod
    def note_automatic(self, seat: Seat) -> None:
        """The seat's decision is made by automatic play (it ran out of time): public."""

    @abc.abstractmethod
    def flee(self, seat: Seat) -> None:
        """The seat has fled (left, or played automatically too often): the deal ends."""

    def set_aside(self) -> tuple[Card, ...]:
        """Cards in no hand and not played face up: undealt, in a kitty, in transit.

        The hands, the cards of ``play`` events and these make up the whole deal at
        every moment (conservation of cards).
        """
        return ()

    def parse_action(self, text: str) -> Action:
        """Read an action's text form (:class:`ParseError` if it is no action of this
        game) and check that it is legal here (:class:`IllegalActionError`)."""
        action = Action.from_str(text)
        self.syntax.check(action)
        self.check_legal(action)
        return action

    def check_legal(self, action: Action) -> None:
        """Raise :class:`IllegalActionError` (naming the rule broken) unless ``action`` is
        legal now. Listed actions are legal; any other is tried on a copy, since a
        decision may list only a sample of its legal actions."""
        if self.is_terminal():
            raise IllegalActionError(f"illegal action {str(action)!r}: the deal is over")
        if action not in self.legal_actions():
            self.clone().apply(action)

    def list_briefly(self, brief: bool = True) -> None:
        """From now on list as few legal actions as the game's incomplete listing allows
        (for simulations whose policies need no complete list), or again all of them
        (``brief`` false); by default a no-op."""
        return None

    def seat_cards(self) -> list[tuple[Card, ...]]:
        """Every seat's hand (full information)."""
        return [self.hand(s) for s in range(NUM_SEATS)]


@mypyc_attr(allow_interpreted_subclasses=True)
class CardState(State):
    """Plumbing shared by the engines: whose turn, the phase, the events, the hands.

    Subclasses keep ``_counts`` (per seat, a counts vector of 54) and set the
    seat's ``_hands`` entry (a cached sorted hand) to ``None`` when they change it.
    """

    _to_act: Seat
    _phase: str
    _events: list[Event]
    _counts: list[list[int]]
    _hands: list[tuple[Card, ...] | None]

    @property
    def to_act(self) -> Seat:
        return self._to_act

    @property
    def phase(self) -> str:
        return self._phase

    @property
    def events(self) -> Sequence[Event]:
        return self._events

    def hand(self, seat: Seat) -> tuple[Card, ...]:
        cards = self._hands[seat]
        if cards is None:
            cards = self._hands[seat] = from_counts(self._counts[seat])
        return cards

    def note_automatic(self, seat: Seat) -> None:
        self._events.append(Event("auto", seat))

    def flee(self, seat: Seat) -> None:
        """The seat's team forfeits the match (partnerships fixed for the match).

        Games whose partnerships change every deal override this (sanfu, SF-15).
        """
        if self.is_terminal():
            raise IllegalActionError("the deal is already over")
        self.fled = seat
        self._events.append(Event("fled", seat))
        self._phase = "over"
        self._to_act = NOBODY

    fled: Seat = NOBODY
    """The seat that fled, or NOBODY."""

    def forfeit_outcome(self) -> Outcome:
        """The outcome of a match ended by the flight of :attr:`fled`: its team forfeits."""
        loser = team_of(self.fled)
        return Outcome(
            scores=(0, 0, 0, 0),
            summary=f"forfeit by seat {self.fled}: team {1 - loser} wins the match",
            details={"forfeit": self.fled, "match_winner": 1 - loser},
            next_setup=None,
            match_winner=1 - loser,
        )


@mypyc_attr(allow_interpreted_subclasses=True)
class Game(abc.ABC):
    """A rules variant with its options, able to set up deals and carry a match."""

    name: ClassVar[str]
    seats: ClassVar[int] = NUM_SEATS
    hands_shown_at: ClassVar[str] = "deal"
    """The event after which a match log shows the four hands."""
    turn: ClassVar[str]
    """Where the turn goes round the table seen from above, as the game's seed says:
    ``counter-clockwise`` (the next player, C-2, sits on a player's right hand) or
    ``clockwise`` (on the left hand). A table is drawn so."""

    def __init__(self, **options: Any) -> None:
        self.options: Mapping[str, Any] = self.check_options(options)

    @classmethod
    @abc.abstractmethod
    def check_options(cls, options: Mapping[str, Any]) -> Mapping[str, Any]:
        """Validate options, fill defaults; raise ``ConfigError`` naming a bad one."""

    @abc.abstractmethod
    def first_setup(self) -> Any:
        """The setup of the first deal of a match."""

    @abc.abstractmethod
    def new_deal(
        self,
        setup: Any = None,
        *,
        seed: int | None = None,
        hands: Sequence[Sequence[Card]] | None = None,
    ) -> State:
        """The state at the start of a deal, from a seed or explicit hands."""

    @abc.abstractmethod
    def setup_to_dict(self, setup: Any) -> dict[str, Any]:
        """A JSON-ready form of a setup (for records)."""

    @abc.abstractmethod
    def setup_from_dict(self, data: Mapping[str, Any]) -> Any:
        """Inverse of :meth:`setup_to_dict`."""

    def describe_event(self, event: Event, state: State) -> str:
        """A short readable phrase for an event (games override for their own events)."""
        text = event.kind
        if event.cards:
            text += " " + format_cards(event.cards)
        return text

    def describe_outcome(self, outcome: Outcome) -> str:
        return outcome.summary

    def describe(self) -> str:
        opts = ", ".join(f"{k}={v}" for k, v in sorted(self.options.items()))
        return f"{self.name}({opts})" if opts else self.name
