"""A full Shengji deal (1 to 4 decks) consistent with what one seat has seen.

Known: the seat's own hand (and, for the dealer, what it buried), every card played,
every declaration shown (cards that were dealt to the declarer), the card turned up
from the kitty, every seat's card count, and the voids: a follower that played fewer
cards of the led suit than the lead had none left (SJ-19). Hidden 4-deck declarations
(SJ-10) get a suit drawn among those the declarer can show (the last one takes the
trump suit once it is public). The rest is dealt at random: the other hands, the
dealer's buried cards, the undealt cards while dealing goes on.

The deal is rebuilt as a dealing order (each seat's declared cards dealt to it first)
and re-run through the engine: a seat declares when the next declaration of the
observation is its own and legal, passes otherwise, until the observed moment; then
the buries and plays are re-applied.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, replace

from arena.cards import SUITS, Card, make_card, parse_cards
from arena.games.base import NOBODY, NUM_SEATS, PASS, Action, Event, Game, Observation, Seat
from arena.games.shengji import ShengjiGame, ShengjiRules, ShengjiSetup, ShengjiState
from arena.games.shengji.order import TrumpOrder
from bots.determinize.assign import Assignment, Bin
from bots.determinize.common import Draw, Inconsistent, expand, full_deck, minus


def trump_suit(name: str, two_colour: bool) -> int | None:
    """The suit (or colour) a public trump name stands for; ``None`` for notrump."""
    if name == "notrump":
        return None
    if two_colour:
        return ("black", "red").index(name)
    return SUITS.index(name)


@dataclass(frozen=True)
class Cap:
    """From event ``since`` on, the seat held at most ``copies`` of each card of ``suit``
    but those in ``exempt`` (counting the cards it played from then on)."""

    suit: int
    since: int
    copies: int
    exempt: frozenset[Card]


@dataclass
class FollowFacts:
    """What the follows of the tricks tell about the hands (SJ-19).

    ``void[s]``: the suits seat ``s`` showed it no longer holds (it followed with fewer
    cards of the led suit than the lead had). ``caps[s]``: the shapes it showed it did
    not hold: following a lead with pairs with enough cards of the suit but fewer pairs
    (no other pair: SJ-19, SJ-28 and SJ-29 put every option with more pairs first), or
    following a lone triple without a triple (no triple: SJ-28, SJ-29).
    """

    void: list[set[int]]
    caps: list[list[Cap]]


def follow_facts(events: tuple[Event, ...], order: TrumpOrder) -> FollowFacts:
    void: list[set[int]] = [set() for _ in range(NUM_SEATS)]
    caps: list[list[Cap]] = [[] for _ in range(NUM_SEATS)]
    suit, size, pairs, triple, in_trick = -1, 0, 0, False, 0
    for index, event in enumerate(events):
        if event.kind == "lead":
            in_trick = 0
        elif event.kind == "play":
            if in_trick == 0:
                suit, size = order.suits[event.cards[0]], len(event.cards)
                pairs = sum(n // 2 for n in Counter(event.cards).values())
                triple = size == 3 and len(set(event.cards)) == 1
            else:
                same = Counter(c for c in event.cards if order.suits[c] == suit)
                count = sum(same.values())
                if count < size:
                    void[event.seat].add(suit)
                shown = sum(n // 2 for n in same.values())
                if pairs and shown < pairs and count >= 2 * pairs:
                    paired = frozenset(c for c, n in same.items() if n >= 2)
                    caps[event.seat].append(Cap(suit, index, 1, paired))
                if triple and count == 3 and max(same.values()) < 3:
                    caps[event.seat].append(Cap(suit, index, 2, frozenset()))
            in_trick += 1
    return FollowFacts(void, caps)


@dataclass(frozen=True)
class _SeatCaps:
    """A seat's caps, each with the cards the seat played from its event on."""

    seat: Seat
    caps: list[tuple[Cap, Counter[Card]]]


def _seat_caps(facts: FollowFacts, events: tuple[Event, ...], seat: Seat) -> _SeatCaps:
    caps: list[tuple[Cap, Counter[Card]]] = []
    for cap in facts.caps[seat]:
        later: Counter[Card] = Counter()
        for event in events[cap.since :]:
            if event.kind == "play" and event.seat == seat:
                later.update(event.cards)
        caps.append((cap, later))
    return _SeatCaps(seat, caps)


def _capped(caps: _SeatCaps, held: Counter[Card], order: TrumpOrder) -> dict[Card, int]:
    """How many more copies of a card the seat may hold, by the shapes it did not show."""
    limits: dict[Card, int] = {}
    suits = order.suits
    for cap, later in caps.caps:
        for card in range(54):
            if suits[card] == cap.suit and card not in cap.exempt:
                room = cap.copies - later[card] - held[card]
                if room < 0:
                    raise Inconsistent(
                        f"seat {caps.seat} would have held a set it did not follow with"
                    )
                limits[card] = min(room, limits.get(card, room))
    return limits


def _setup(observation: Observation, start: Seat) -> ShengjiSetup:
    levels = tuple(int(x) for x in observation.public["levels"])
    dealer = int(observation.public["dealer"])
    if dealer != NOBODY:
        fixed: Seat | None = start if dealer == start else None
    else:
        fixed = None if start == 0 and levels == (0, 0) else start
    return ShengjiSetup(levels=(levels[0], levels[1]), dealer=fixed)


def _declared(
    observation: Observation,
    rng: random.Random,
    level: int,
    trump: int | None,
    dealt_mine: Counter[Card],
    played: list[Counter[Card]],
) -> list[tuple[Card, ...]]:
    """The cards of each declaration, hidden 4-deck ones drawn (SJ-10) among the suits
    of which enough level cards can be in the declarer's hand."""
    declares = [e for e in observation.events if e.kind == "declare"]
    shown: list[tuple[Card, ...]] = []
    claimed: list[Counter[Card]] = [Counter(p) for p in played]
    claimed[observation.seat] = Counter(dealt_mine)
    own_standing = observation.private.get("declaration")
    if declares and not declares[-1].cards and trump is not None:  # the standing one: trump
        claimed[declares[-1].seat] |= Counter({make_card(level, trump): declares[-1].value})
    for index, event in enumerate(declares):
        if event.cards:
            shown.append(event.cards)
            claimed[event.seat] |= Counter(event.cards)
            continue
        last = index == len(declares) - 1
        if last and trump is not None:
            suits = [trump]
        elif last and own_standing and event.seat == observation.seat:
            suits = [parse_cards(own_standing)[0] & 3]
        elif event.seat == observation.seat:
            suits = [s for s in range(4) if dealt_mine[make_card(level, s)] >= event.value]
        else:
            suits = [
                s
                for s in range(4)
                if 4 - sum(c[make_card(level, s)] for i, c in enumerate(claimed) if i != event.seat)
                >= event.value
            ]
        if not suits:
            raise Inconsistent(f"seat {event.seat} cannot have shown {event.value} level cards")
        cards = (make_card(level, rng.choice(suits)),) * event.value
        shown.append(cards)
        claimed[event.seat] |= Counter(cards)
    return shown


class _Facts:
    """What a Shengji observation decides about the deal, worked out once."""

    def __init__(self, observation: Observation, game: ShengjiGame) -> None:
        rules = game.rules
        events, me, public = observation.events, observation.seat, observation.public
        self.start, self.level = events[0].seat, events[0].value
        trump_event = next((e for e in events if e.kind == "trump"), None)
        if trump_event is not None and trump_event.cards:  # SJ-8: the kitty's 4th card turned
            rules = replace(rules, no_declaration="flip_kitty")
        self.rules = rules
        self.dealing = trump_event is None
        self.trump = None if self.dealing else trump_suit(str(public["trump"]), rules.two_colour)
        self.dealer = int(public["dealer"])
        self.counts = [int(n) for n in public["counts"]]
        played: list[Counter[Card]] = [Counter() for _ in range(NUM_SEATS)]
        for event in events:
            if event.kind == "play":
                played[event.seat].update(event.cards)
        self.played = played
        self.own_buried = list(parse_cards(observation.private.get("buried", "")))
        self.buries = sum(1 for e in events if e.kind == "bury")
        self.hand = Counter(observation.hand)
        self.mine = self.hand + played[me] + Counter(self.own_buried)
        self.declarers = [e.seat for e in events if e.kind == "declare"]
        declares = [e for e in events if e.kind == "declare"]
        self.shown: list[tuple[Card, ...]] | None = (
            [e.cards for e in declares] if all(e.cards for e in declares) else None
        )
        """The declared cards when every declaration showed its cards (none drawn)."""
        self.turned = Counter(trump_event.cards) if trump_event is not None else Counter()
        order = (
            None
            if self.dealing
            else TrumpOrder(
                self.level, self.trump, rules.constant_twos or rules.decks == 4, rules.two_colour
            )
        )
        self.order = order
        facts = follow_facts(events, order) if order is not None else None
        self.facts = facts
        thrown: list[Counter[Card]] = [Counter() for _ in range(NUM_SEATS)]
        for index, event in enumerate(events):
            if event.kind == "throw_failed":  # the thrower held every card it tried to throw:
                later: Counter[Card] = Counter()  # those it did not play since, it still holds
                for after in events[index:]:
                    if after.kind == "play" and after.seat == event.seat:
                        later.update(after.cards)
                thrown[event.seat] |= Counter(event.cards) - later
        self.thrown = thrown
        self.others = [s for s in range(NUM_SEATS) if s != me]
        self.void_cards: dict[Seat, frozenset[Card]] = {}
        self.caps: dict[Seat, _SeatCaps] = {}
        if facts is not None and order is not None:
            for s in self.others:
                void = facts.void[s]
                self.void_cards[s] = frozenset(c for c in range(54) if order.suits[c] in void)
                self.caps[s] = _seat_caps(facts, events, s)
        self.setup = _setup(observation, self.start)
        self.script = _script(observation)


class _Draw:
    """Draws Shengji states for one observation (see :func:`prepare`)."""

    def __init__(self, observation: Observation, game: Game) -> None:
        self.observation = observation
        self.game = game
        self._facts: _Facts | None = None
        self._assignments: dict[Hashable, Assignment] = {}

    def _assignment(self, pool: list[Card], bins: list[Bin]) -> Assignment:
        """The assignment of ``pool`` to ``bins`` (the same ones recur draw after draw)."""
        key = (
            tuple(pool),
            tuple((b.size, b.refuses, tuple(sorted(b.limits.items()))) for b in bins),
        )
        assignment = self._assignments.get(key)
        if assignment is None:
            assignment = self._assignments[key] = Assignment(pool, bins)
        return assignment

    def __call__(self, rng: random.Random) -> ShengjiState:
        game = self.game
        if not isinstance(game, ShengjiGame):
            raise Inconsistent(f"shengji observation for a {game.name} game")
        if self._facts is None:
            self._facts = _Facts(self.observation, game)
        known = self._facts
        observation, me = self.observation, self.observation.seat
        rules, dealer, counts, played = known.rules, known.dealer, known.counts, known.played
        buries, order, facts = known.buries, known.order, known.facts
        if known.shown is not None:
            declared = known.shown
        else:
            trump = known.trump if not known.dealing else None
            declared = _declared(observation, rng, known.level, trump, known.mine, played)
        required: list[Counter[Card]] = [Counter() for _ in range(NUM_SEATS)]
        for seat, cards in zip(known.declarers, declared, strict=True):
            required[seat] |= Counter(cards)
        turned = known.turned

        # known cards of the other seats' current hands (and of the buried cards)
        others = known.others
        held: dict[Seat, Counter[Card]] = {}
        buried_known: Counter[Card] = Counter()
        for s in others:
            in_hand = known.thrown[s]
            hold = (required[s] + (turned if s == dealer else Counter())) - played[s]
            hold |= in_hand
            held[s] = Counter(in_hand)
            flexible = hold - in_hand
            if s == dealer and rules.kitty_size:  # dealt to the dealer: in hand or buried
                for card in expand(flexible):
                    room = counts[s] - sum(held[s].values())
                    in_void = (
                        facts is not None
                        and order is not None
                        and (order.suits[card] in facts.void[s])
                    )
                    if in_void or rng.random() * (room + buries) >= room:
                        buried_known[card] += 1
                    else:
                        held[s][card] += 1
            else:
                held[s] += flexible
        pool = full_deck(rules.decks)
        pool = minus(pool, known.mine)
        for s in others:
            pool = minus(pool, played[s] + held[s])
        pool = minus(pool, buried_known)
        bins = []
        for s in others:
            refuses: frozenset[Card] = known.void_cards.get(s, frozenset())
            limits: dict[Card, int] = {}
            if order is not None:
                limits = _capped(known.caps[s], held[s], order)
            bins.append(Bin(counts[s] - sum(held[s].values()), refuses, limits))
        extra_bin = 0
        if known.dealing:
            extra_bin = rules.decks * 54 - sum(counts)
        elif dealer != me and rules.kitty_size:
            extra_bin = buries - sum(buried_known.values())
        bins.append(Bin(extra_bin))
        hidden = expand(pool)
        drawn = self._assignment(hidden, bins).draw(rng)
        current: list[Counter[Card]] = [Counter() for _ in range(NUM_SEATS)]
        current[me] = known.hand
        for s, got in zip(others, drawn[:-1], strict=True):
            current[s] = Counter(got) + held[s]
        rest = drawn[-1]
        own_buried = known.own_buried
        if known.dealing:
            deal_order = _dealing_order(current, required, rest, known.start, rules, rng)
        else:
            buried = own_buried
            if dealer != me:
                buried = rest + expand(buried_known)
                rng.shuffle(buried)
            deal_order = _dealt_order(
                current, played, required, buried, turned, dealer, known.start, rules, rng
            )
            own_buried = buried
        state = ShengjiState(deal_order, known.setup, rules)
        replay(state, known.script, declared, own_buried)
        return state


def prepare(observation: Observation, game: Game) -> Draw:
    """Draws of Shengji states consistent with ``observation`` (each may raise
    :class:`Inconsistent`): the known cards, the follows' facts, the setup and the
    actions to re-apply are worked out once."""
    return _Draw(observation, game)


def _sequence(cards: Counter[Card], first: Counter[Card], rng: random.Random) -> list[Card]:
    """The order a seat received ``cards``: ``first`` (its declared cards), then the rest."""
    rest = expand(minus(cards, first))
    rng.shuffle(rest)
    return expand(first) + rest


def _interleave(sequences: list[list[Card]], start: Seat, dealt: int) -> list[Card]:
    """SJ-7: one card at a time from ``start``."""
    return [sequences[(start + k) % NUM_SEATS][k // NUM_SEATS] for k in range(dealt)]


def _dealing_order(
    current: list[Counter[Card]],
    required: list[Counter[Card]],
    undealt: list[Card],
    start: Seat,
    rules: ShengjiRules,
    rng: random.Random,
) -> list[Card]:
    """While dealing: the cards dealt so far, then the undealt ones in a random order."""
    dealt = sum(sum(c.values()) for c in current)
    sequences = [_sequence(current[s], required[s], rng) for s in range(NUM_SEATS)]
    return _interleave(sequences, start, dealt) + undealt


def _dealt_order(
    current: list[Counter[Card]],
    played: list[Counter[Card]],
    required: list[Counter[Card]],
    buried: list[Card],
    turned: Counter[Card],
    dealer: Seat,
    start: Seat,
    rules: ShengjiRules,
    rng: random.Random,
) -> list[Card]:
    """After dealing: each seat's dealt hand, and a kitty drawn from the dealer's cards."""
    dealt = [current[s] + played[s] for s in range(NUM_SEATS)]
    kitty: list[Card] = []
    if rules.kitty_size:
        pool = dealt[dealer] + Counter(buried)
        free = expand(minus(minus(pool, required[dealer]), turned))
        rng.shuffle(free)
        kitty = free[: rules.kitty_size - len(turned)]
        if turned:
            kitty[3:3] = expand(turned)
        dealt[dealer] = minus(pool, Counter(kitty))
    sequences = [_sequence(dealt[s], required[s], rng) for s in range(NUM_SEATS)]
    if any(len(seq) != rules.hand_size for seq in sequences):
        raise Inconsistent("a dealt hand of the wrong size")
    return _interleave(sequences, start, rules.hand_size * NUM_SEATS) + kitty


@dataclass(frozen=True)
class _Script:
    """What re-running a deal to the observed moment needs from the observation."""

    declares: list[tuple[Seat, bool]]
    """Each declaration's seat, and whether it came after the dealing's end."""
    final_round: bool
    """Whether the observation is past the dealing's end (a ``dealt`` event)."""
    wanted: int
    """The cards in the hands at the observed moment."""
    phase: str
    to_act: Seat
    steps: list[tuple[str, Seat, tuple[Card, ...]]]
    """The automatic plays, buries, failed throws and plays, in order."""


def _script(observation: Observation) -> _Script:
    declares: list[tuple[Seat, bool]] = []
    after_dealing = False
    steps: list[tuple[str, Seat, tuple[Card, ...]]] = []
    for event in observation.events:
        after_dealing = after_dealing or event.kind == "dealt"
        if event.kind == "declare":
            declares.append((event.seat, after_dealing))
        elif event.kind in ("auto", "bury", "throw_failed", "play"):
            steps.append((event.kind, event.seat, event.cards))
    return _Script(
        declares=declares,
        final_round=after_dealing,
        wanted=sum(int(n) for n in observation.public["counts"]),
        phase=observation.phase,
        to_act=observation.to_act,
        steps=steps,
    )


def replay(
    state: ShengjiState,
    script: _Script,
    declared: list[tuple[Card, ...]],
    buried: list[Card],
) -> None:
    """Re-run the dealing (declaring as the observation did) and re-apply buries and
    plays (``script``: the observation's)."""
    pending = [
        (seat, cards, after) for (seat, after), cards in zip(script.declares, declared, strict=True)
    ]
    pending.reverse()  # the next one last
    total = len(state.set_aside()) + sum(len(state.hand(s)) for s in range(NUM_SEATS))
    stops = script.phase == "declare"
    in_final_round = False
    seen = 0
    while state.phase == "declare":
        seat = state.to_act
        events = state.events
        while not in_final_round and seen < len(events):
            in_final_round = events[seen].kind == "dealt"
            seen += 1
        if (
            stops
            and not pending
            and seat == script.to_act
            and script.final_round == in_final_round
            and total - len(state.set_aside()) == script.wanted
        ):
            return
        if pending and pending[-1][0] == seat and pending[-1][2] == in_final_round:
            action = Action("declare", pending[-1][1])
            if action in state.legal_actions():
                state.apply(action)
                pending.pop()
                continue
        state.apply(PASS)
    if pending:
        raise Inconsistent("a declaration could not be made in the drawn deal")
    next_bury = 0
    skip_play = False
    state.list_briefly()  # re-applied buries and plays are checked one by one
    for kind, seat, cards in script.steps:
        if kind == "auto":
            state.note_automatic(seat)
        elif kind == "bury":
            state.apply(Action("bury", (buried[next_bury],)))
            next_bury += 1
        elif kind == "throw_failed":
            state.apply(Action("play", cards))
            skip_play = True
        else:
            if skip_play:  # the forced play of a failed throw follows from the throw
                skip_play = False
                continue
            if state.to_act != seat:
                raise Inconsistent(f"seat {seat} is not to act in the drawn deal")
            state.apply(Action("play", cards))
    state.list_briefly(False)
