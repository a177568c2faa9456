"""A full Guandan deal consistent with what one seat has seen.

Each seat is dealt 27 cards. What a seat is known to have held at the deal is what it
sent out (plays, tribute, returns) beyond what it received; the seat's own deal is
its hand plus what it sent out minus what it received. The rest is dealt at random,
respecting the tribute facts: a tribute is the giver's highest card (GD-13), and a
refused tribute means the givers held both big jokers (GD-15). With ``infer``, the
opponents' urgent passes are read as the heuristic bot's (:mod:`.guandan_passes`): no
hidden card above a single they passed on, no pair, triple or bomb they would have
played (a draw against them is thrown away; facts that leave no deal are dropped).
The previous deal's
finishing order — which decides the tribute — is read from the tribute events, or
drawn among the orders the seat cannot tell apart (a tribute still face down).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from itertools import permutations

from arena.cards import BIG_JOKER, Card, parse_card
from arena.errors import IllegalActionError
from arena.games.base import (
    NUM_SEATS,
    PASS,
    Action,
    Event,
    Game,
    Observation,
    Seat,
    next_seat,
    partner_of,
    team_of,
)
from arena.games.guandan import GuandanGame, GuandanSetup, GuandanState
from arena.games.guandan.combos import card_value, wild_card
from bots.determinize.assign import Assignment, Bin
from bots.determinize.common import Draw, Inconsistent, expand, full_deck, minus
from bots.determinize.guandan_passes import PassFact, breaks, pass_facts, refused_singles

DECKS = 2
HAND_SIZE = 27
REJECTIONS = 30
"""Draws in a row thrown away by the passes' facts after which these are no longer read
(the singles' facts stay: they are refusals, every draw keeps them)."""


def previous_orders(observation: Observation) -> list[tuple[Seat, ...]]:
    """Finishing orders of the previous deal that fit the observation's tribute facts.

    ``()`` is the first deal of a match (no tribute). Orders that lead to the same
    tribute are given once.
    """
    events = observation.events
    level = events[0].value
    tributes = [e for e in events if e.kind == "tribute"]
    refused = next((e for e in events if e.kind == "refuse_tribute"), None)
    leads = [e.seat for e in events if e.kind == "lead"]
    returns = [e.seat for e in events if e.kind == "return"]
    if refused is not None:
        first = leads[0]
        if refused.tag == "double":
            return [_double(first)]
        return [_single(first, refused.seat)]
    if len(tributes) == 1:
        return [_single(tributes[0].target, tributes[0].seat)]
    if len(tributes) == 2:
        a, b = tributes
        va, vb = card_value(a.cards[0], level), card_value(b.cards[0], level)
        if va != vb:
            high, low = (a, b) if va > vb else (b, a)
            return [(high.target, low.target, high.seat, low.seat)]
        firsts = [a.target, b.target]
        if returns:
            firsts = [returns[0]]
        elif leads:
            firsts = [s for s in firsts if next_seat(s) == leads[0]]
        return [_double(f) for f in firsts]
    if observation.phase == "tribute":
        winners = [s for s in range(NUM_SEATS) if team_of(s) == observation.public["level_team"]]
        loser = observation.to_act
        return [_single(f, loser) for f in winners] + [_double(f) for f in winners]
    return [()]


def _single(first: Seat, giver: Seat) -> tuple[Seat, ...]:
    """An order with ``first`` first and ``giver`` last, the partner not second."""
    for order in permutations(range(NUM_SEATS)):
        if order[0] == first and order[3] == giver and team_of(order[1]) != team_of(first):
            return order
    raise Inconsistent(f"no single tribute from seat {giver} to seat {first}")


def _double(first: Seat) -> tuple[Seat, ...]:
    losers = [s for s in range(NUM_SEATS) if team_of(s) != team_of(first)]
    return (first, partner_of(first), *losers)


def _givers(order: tuple[Seat, ...]) -> list[Seat]:
    if not order:
        return []
    double = team_of(order[1]) == team_of(order[0])
    return list(order[2:] if double else order[3:])


class _Deal:
    """What a Guandan observation decides about the deal, worked out once."""

    def __init__(self, observation: Observation) -> None:
        events, me = observation.events, observation.seat
        self.level = events[0].value
        sent: list[Counter[Card]] = [Counter() for _ in range(NUM_SEATS)]
        got: list[Counter[Card]] = [Counter() for _ in range(NUM_SEATS)]
        for event in events:
            if event.kind in ("play", "tribute", "return"):
                sent[event.seat].update(event.cards)
            if event.kind in ("tribute", "return"):
                got[event.target].update(event.cards)
        hidden_return = observation.private.get("return_given")
        if hidden_return:
            sent[me][parse_card(hidden_return)] += 1
        known = [sent[s] - got[s] for s in range(NUM_SEATS)]
        mine = minus(Counter(observation.hand) + sent[me], got[me])
        if sum(mine.values()) != HAND_SIZE:
            raise Inconsistent(f"seat {me}'s deal does not make {HAND_SIZE} cards")
        known[me] = mine
        pool = full_deck(DECKS)
        for seen in known:
            pool = minus(pool, seen)
        self.pool = expand(pool)
        self.known = [expand(cards) for cards in known]
        self.others = [s for s in range(NUM_SEATS) if s != me]
        self.sizes = [HAND_SIZE - sum(known[s].values()) for s in self.others]
        self.leads = [e.seat for e in events if e.kind == "lead"]


class _Draw:
    """Draws Guandan states for one observation (see :func:`prepare`)."""

    def __init__(self, observation: Observation, game: Game, infer: bool = False) -> None:
        self.observation = observation
        self.game = game
        self._infer = infer
        self._passes: list[PassFact] | None = None
        self._rejected = 0
        self._orders: list[tuple[Seat, ...]] | None = None
        self._deal: _Deal | None = None
        self._by_order: dict[tuple[Seat, ...], tuple[Assignment, GuandanSetup]] = {}
        self._replay = _script(observation)

    def _previous_orders(self) -> list[tuple[Seat, ...]]:
        if self._orders is None:
            self._orders = previous_orders(self.observation)
        return self._orders

    def _facts(self) -> _Deal:
        if self._deal is None:
            self._deal = _Deal(self.observation)
        return self._deal

    def _pass_facts(self, deal: _Deal) -> list[PassFact]:
        """The opponents' urgent passes read as the heuristic's (none without ``infer``),
        but for a seat whose own plays since contradict them."""
        if self._passes is None:
            self._passes = []
            if self._infer:
                me = self.observation.seat
                rivals = [s for s in deal.others if team_of(s) != team_of(me)]
                facts = pass_facts(self.observation, rivals)
                wrong = {f.seat for f in facts if breaks(f, (), deal.level)}
                self._passes = [f for f in facts if f.seat not in wrong]
        return self._passes

    def _check_passes(self, drawn: list[list[Card]], deal: _Deal) -> None:
        """:class:`Inconsistent` if a drawn hand would not have passed as its seat did;
        after :data:`REJECTIONS` such draws in a row the facts are no longer read."""
        for fact in self._pass_facts(deal):
            if breaks(fact, drawn[deal.others.index(fact.seat)], deal.level):
                self._rejected += 1
                if self._rejected >= REJECTIONS:
                    self._passes = [f for f in self._passes or () if f.size == 1 and not f.no_bomb]
                raise Inconsistent(f"seat {fact.seat} would not have passed with the drawn hand")
        self._rejected = 0

    def _for_order(self, order: tuple[Seat, ...], deal: _Deal) -> tuple[Assignment, GuandanSetup]:
        """The hidden cards' assignment and the setup, given the previous order."""
        prepared = self._by_order.get(order)
        if prepared is None:
            refuses = _refusals(self.observation.events, order, deal.level, deal.others)
            inferred = refused_singles(self._pass_facts(deal), deal.level)
            assignment = _assignment(deal, refuses, inferred)
            if inferred and not assignment.feasible():
                self._passes = []  # the facts leave no deal: not read
                assignment = _assignment(deal, refuses, {})
            levels = self.observation.public["levels"]
            setup = GuandanSetup(
                levels=(int(levels[0]), int(levels[1])),
                level_team=int(self.observation.public["level_team"]),
                previous_order=order,
                leader=None if order else deal.leads[0],
            )
            prepared = self._by_order[order] = (assignment, setup)
        return prepared

    def __call__(self, rng: random.Random) -> GuandanState:
        game = self.game
        if not isinstance(game, GuandanGame):
            raise Inconsistent(f"guandan observation for a {game.name} game")
        order = rng.choice(self._previous_orders())
        deal = self._facts()
        assignment, setup = self._for_order(order, deal)
        drawn = assignment.draw(rng)
        self._check_passes(drawn, deal)
        known = deal.known
        hands: list[list[Card]] = [list(known[self.observation.seat]) for _ in range(NUM_SEATS)]
        for s, cards in zip(deal.others, drawn, strict=True):
            hands[s] = cards + known[s]
        state = game.new_deal(setup, hands=hands)
        replay(state, self._replay, self.observation, rng)
        return state


def _assignment(
    deal: _Deal, refuses: dict[Seat, frozenset[Card]], inferred: dict[Seat, frozenset[Card]]
) -> Assignment:
    """The hidden cards into the other seats' hands, each refusing the cards given."""
    bins = [
        Bin(size, refuses[s] | inferred.get(s, frozenset()))
        for s, size in zip(deal.others, deal.sizes, strict=True)
    ]
    return Assignment(deal.pool, bins)


def prepare(observation: Observation, game: Game) -> Draw:
    """Draws of Guandan states consistent with ``observation`` (each may raise
    :class:`Inconsistent`): the known cards, the tribute facts and the actions to
    re-apply are worked out once."""
    return _Draw(observation, game)


def prepare_inferring(observation: Observation, game: Game) -> Draw:
    """:func:`prepare`, the opponents' urgent passes read as the heuristic's too."""
    return _Draw(observation, game, infer=True)


def _refusals(
    events: Sequence[Event], order: tuple[Seat, ...], level: int, others: list[Seat]
) -> dict[Seat, frozenset[Card]]:
    """Cards each other seat cannot have been dealt, by the tribute rules."""
    refused: dict[Seat, set[Card]] = {s: set() for s in others}
    wild = wild_card(level)
    for event in events:
        if event.kind == "tribute" and event.seat in refused:  # GD-13: the highest card
            top = card_value(event.cards[0], level)
            refused[event.seat].update(
                c for c in range(54) if c != wild and card_value(c, level) > top
            )
        if event.kind == "refuse_tribute":  # GD-15: the givers hold both big jokers
            givers = _givers(order)
            for s in others:
                if s not in givers:
                    refused[s].add(BIG_JOKER)
    return {s: frozenset(cards) for s, cards in refused.items()}


_Step = tuple[str, Seat, Action, Action]
"""A public action to re-apply: its kind, seat, action and the same play named with
its kind (played so when the cards read as two combinations, and the plain play is
refused)."""


def _script(observation: Observation) -> list[_Step]:
    """The public actions of ``observation`` to re-apply, in order."""
    steps: list[_Step] = []
    for event in observation.events:
        kind = event.kind
        if kind in ("auto", "pass"):
            steps.append((kind, event.seat, PASS, PASS))
        elif kind == "play":
            plain = Action("play", event.cards)
            named = Action("play", event.cards, event.tag) if event.tag else plain
            steps.append((kind, event.seat, plain, named))
        elif kind in ("tribute", "return"):
            action = Action(kind, event.cards)
            steps.append((kind, event.seat, action, action))
    return steps


def replay(
    state: GuandanState, steps: list[_Step], observation: Observation, rng: random.Random
) -> None:
    """Re-apply ``steps`` (the public actions of ``observation``), then any face-down
    tribute or return made since (drawn among the legal ones; the seat's own from
    ``private``)."""
    state.list_briefly()  # re-applied actions are checked one by one, no list needed
    for kind, seat, action, named in steps:
        if kind == "auto":
            state.note_automatic(seat)
            continue
        if state.to_act != seat:
            raise Inconsistent(f"seat {seat} is not to act in the drawn deal")
        if action is named:
            state.apply(action)
            continue
        try:  # the plain play when the cards read one way only, else the named one
            state.apply(action)
        except IllegalActionError:
            state.apply(named)
    state.list_briefly(False)  # a face-down tribute or return is drawn from the full list
    own = observation.private.get("return_given")
    while state.to_act != observation.to_act and state.phase in ("tribute", "return"):
        if state.to_act == observation.seat and own:
            state.apply(Action("return", (parse_card(own),)))
        else:
            state.apply(rng.choice(state.legal_actions()))
