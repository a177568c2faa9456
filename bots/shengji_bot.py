"""The Shengji (Tractor, 1–4 decks) heuristic: a good human player's explicit rules.

Each phase has its own rules, named in the docstrings of the modules that hold
them: :mod:`bots.shengji.declaring` (declare trump, or contest a declaration, when
the hand supports it; SJ-8 … SJ-11), :mod:`bots.shengji.burying` (void a short suit,
keep points unless the kitty is safe, trumps and sets; SJ-13),
:mod:`bots.shengji.leading` (safe throws and, at the style's rate, risky ones, SJ-17;
top tractors and cards, lead to the partner's ruff, draw trumps, lead low) and
:mod:`bots.shengji.following` (feed a winning partner, win when it pays, ruff and
over-ruff, play low when losing).
Cards seen are tracked from the public events (:mod:`bots.shengji.memory`).

Its style (:class:`bots.style.Style`) moves it through :mod:`bots.shengji.levers`,
which lists every lever with its rule ids: ``risk`` sets how often a throw the shared
reading calls risky is tried (SJ-17), how eagerly it declares and contests a
declaration (SJ-8 … SJ-11), how readily it buries points (SJ-13) and gambles in a
follow (SJ-20); ``points`` weighs points fed, saved and kept out of the kitty against
the tempo of taking and keeping the lead (SJ-18, SJ-22).

The bot reads its observation only; its few chosen risks are drawn from its seed and
the decision itself (:func:`bots.style.chance`): the same observation always gets the
same action, from any instance with the same seed and style.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.cards import Card, parse_cards
from arena.games.base import Action, Observation, Seat
from arena.games.shengji import LAYOUT
from arena.games.shengji.order import RANK_TWO, TRUMP, TrumpOrder
from arena.games.shengji.shapes import decompose
from bots.shengji.burying import bury_plan, kitty_safe
from bots.shengji.declaring import choose_declaration
from bots.shengji.following import choose_follow, constructed_follows
from bots.shengji.leading import choose_lead
from bots.shengji.levers import Levers
from bots.shengji.memory import Memory, new_memory
from bots.shengji.view import View
from bots.style import DEFAULT_STYLE, Style, chance

__all__ = ["ShengjiHeuristic"]


class ShengjiHeuristic:
    """Plays every ``shengji-N`` variant by explicit rules (see the module docstring)."""

    name = "heuristic"

    def __init__(self, seed: int = 0, style: Style = DEFAULT_STYLE) -> None:
        self.seed = seed
        self.style = style
        self.levers = Levers.of(style)
        self._memories: dict[Seat, Memory] = {}

    def act(self, observation: Observation) -> Action:
        memory = self._memory_for(observation)
        decks = memory.decks
        if observation.phase == "declare":
            return choose_declaration(observation, memory, LAYOUT[decks][0], self.levers)
        if observation.phase == "bury":
            return self._bury(observation, memory)
        if observation.phase == "play":
            return self._play(observation, memory)
        return observation.legal_actions[0]

    def _memory_for(self, observation: Observation) -> Memory:
        """The seat's memory of this deal, brought up to date: only the events that are
        new since its last observation are read, and a new memory reads them all when
        the observation does not continue what it read (a new deal, another world).

        One memory per seat, so a bot playing several seats of a deal (a rollout with
        one policy) also reads each event once per seat.
        """
        seat = observation.seat
        memory = self._memories.get(seat)
        if memory is None or not _continues(memory, observation):
            decks = int(observation.game.rsplit("-", 1)[1])
            memory = self._memories[seat] = new_memory(decks, seat, observation.events)
        memory.update(observation)
        return memory

    # ------------------------------------------------------------------ bury

    def _bury(self, observation: Observation, memory: Memory) -> Action:
        assert memory.order is not None
        hand = observation.hand
        count = len(hand) - LAYOUT[memory.decks][0]
        levers = self.levers
        safe = kitty_safe(hand, memory.order)
        point_cost = levers.safe_point_cost if safe else levers.point_cost
        plan = bury_plan(hand, max(count, 1), memory.order, point_cost)
        return Action("bury", (plan[0],))

    # ------------------------------------------------------------------ play

    def _play(self, observation: Observation, memory: Memory) -> Action:
        assert memory.order is not None
        legal = observation.legal_actions
        leading = not memory.trick.plays
        if leading and observation.legal_complete and _has_plain_twos(observation, memory):
            memory.note_leads([a.cards for a in legal])
        buried = _buried(observation)
        view = View.of(observation, memory, buried)
        decks = memory.decks
        if leading:
            seed = self.seed

            def draw(what: str, rate: float) -> bool:
                return chance(seed, observation, what, rate)

            cards = choose_lead(view, decks != 4, self.levers, draw)
            action = Action.make("play", cards)
            if action in legal or (
                not observation.legal_complete and _valid_lead(view, cards, decks != 4)
            ):
                return action
            return Action.make("play", choose_lead_from(view, legal))
        plays = [a.cards for a in legal]
        if not observation.legal_complete and not _twos_uncertain(view):
            known = set(plays)
            plays += [p for p in constructed_follows(view, self.levers) if p not in known]
        return Action.make("play", choose_follow(view, plays, self.levers))


def _continues(memory: Memory, observation: Observation) -> bool:
    """Whether the observation is a later moment of the deal the memory has read."""
    read, events = memory.events, observation.events
    if memory.seat != observation.seat or f"shengji-{memory.decks}" != observation.game:
        return False
    if len(events) < len(read):
        return False
    if not read or (events[0] is read[0] and events[len(read) - 1] is read[-1]):
        return True  # the same event objects: the engine's own growing list
    return events[: len(read)] == read


def choose_lead_from(view: View, legal: Sequence[Action]) -> tuple[Card, ...]:
    """A listed lead when the preferred one is not available: the cheapest single card."""
    singles: list[tuple[Card, ...]] = [a.cards for a in legal if len(a.cards) == 1]
    if not singles:
        singles = [a.cards for a in legal]
    return min(singles, key=lambda cards: (view.cost(cards), cards))


def _buried(observation: Observation) -> tuple[Card, ...]:
    shown = observation.private.get("buried")
    return parse_cards(shown) if isinstance(shown, str) and shown else ()


def _has_plain_twos(observation: Observation, memory: Memory) -> bool:
    order = memory.order
    assert order is not None
    return not order.constant_twos and any(
        c >> 2 == RANK_TWO and not order.is_trump(c) for c in observation.hand if c < 52
    )


def _plain_twos(order: TrumpOrder, cards: Sequence[Card]) -> list[Card]:
    """The 2s among ``cards`` that this seat's order takes for plain cards."""
    if order.constant_twos or order.level == RANK_TWO:
        return []
    return [c for c in cards if c < 52 and c >> 2 == RANK_TWO and not order.is_trump(c)]


def _twos_uncertain(view: View) -> bool:
    """Whether the 2s might be trumps without this seat knowing it (the option is not in
    the observation), in a way that changes what may follow this trick: the lead holds a
    2, trumps were led, or the led suit is that of a 2 in the hand."""
    trick = view.memory.trick
    if not trick.plays:
        return False
    hand_twos = _plain_twos(view.order, view.hand)
    if _plain_twos(view.order, trick.plays[0][1]):
        return True
    return bool(hand_twos) and (
        trick.suit == TRUMP or any(view.order.suits[c] == trick.suit for c in hand_twos)
    )


def _holds(held: Sequence[int], cards: Sequence[Card]) -> bool:
    """Whether a hand holding ``held`` (counts by card) has every one of ``cards``."""
    return all([held[card] >= cards.count(card) for card in cards])


def _valid_lead(view: View, cards: tuple[Card, ...], throws_allowed: bool) -> bool:
    """A lead built from the hand: held, of one suit, one unit unless throws are allowed."""
    order = view.order
    if not cards or not _holds(view.held, cards):
        return False
    if len({order.suits[c] for c in cards}) != 1:
        return False
    if len(cards) > 1 and _plain_twos(order, cards):
        return False  # with constant 2s these would be trumps: maybe not one suit
    return throws_allowed or len(decompose(cards, order)) == 1
