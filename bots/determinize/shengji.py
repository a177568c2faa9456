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
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace

from arena.cards import SUITS, Card, make_card, parse_cards
from arena.games.base import NOBODY, NUM_SEATS, PASS, Action, Event, Game, Observation, Seat
from arena.games.shengji import ShengjiGame, ShengjiSetup, ShengjiState
from arena.games.shengji.order import TrumpOrder
from bots.determinize.assign import Assignment, Bin, shuffle
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


def follow_facts(events: Sequence[Event], order: TrumpOrder) -> FollowFacts:
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


def _seat_caps(facts: FollowFacts, events: Sequence[Event], seat: Seat) -> _SeatCaps:
    caps: list[tuple[Cap, Counter[Card]]] = []
    for cap in facts.caps[seat]:
        later: Counter[Card] = Counter()
        for event in events[cap.since :]:
            if event.kind == "play" and event.seat == seat:
                later.update(event.cards)
        caps.append((cap, later))
    return _SeatCaps(seat, caps)


def _capped(caps: _SeatCaps, held: list[int], order: TrumpOrder) -> dict[Card, int]:
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


@dataclass(frozen=True)
class _Declaring:
    """What the declarations of an observation decide before their hidden suits are
    drawn (SJ-10): the level cards known in each seat's deal, per suit, and per
    declaration its seat, size, shown cards (none if hidden) and the suits it may have
    shown when the observation alone decides them (``None``: by the cards claimed)."""

    level: int
    claimed: list[list[int]]
    steps: list[tuple[Seat, int, tuple[Card, ...], list[int] | None]]

    def draw(self, rng: random.Random) -> list[tuple[Card, ...]]:
        """The cards of each declaration, hidden ones drawn among the suits of which
        enough level cards can be in the declarer's hand."""
        level = self.level
        claimed = [list(row) for row in self.claimed]
        totals = [sum(row[suit] for row in claimed) for suit in range(4)]
        shown: list[tuple[Card, ...]] = []
        for seat, value, cards, suits in self.steps:
            mine = claimed[seat]
            if cards:
                shown.append(cards)
                for suit in range(4):
                    _claim(mine, totals, suit, cards.count(make_card(level, suit)))
                continue
            if suits is None:
                suits = [s for s in range(4) if 4 - (totals[s] - mine[s]) >= value]
            if not suits:
                raise Inconsistent(f"seat {seat} cannot have shown {value} level cards")
            suit = rng.choice(suits)
            shown.append((make_card(level, suit),) * value)
            _claim(mine, totals, suit, value)
        return shown


def _claim(claimed: list[int], totals: list[int], suit: int, copies: int) -> None:
    """Raise a seat's ``claimed`` level cards of ``suit`` to ``copies`` (and the
    ``totals`` over the seats with them)."""
    if copies > claimed[suit]:
        totals[suit] += copies - claimed[suit]
        claimed[suit] = copies


def _declaring(
    observation: Observation,
    level: int,
    trump: int | None,
    dealt_mine: Counter[Card],
    played: list[Counter[Card]],
) -> _Declaring:
    """The declarations' facts (see :class:`_Declaring`), ``trump`` being the public
    trump suit once dealing is over."""
    declares = [e for e in observation.events if e.kind == "declare"]
    claimed: list[Counter[Card]] = [Counter(p) for p in played]
    claimed[observation.seat] = Counter(dealt_mine)
    own_standing = observation.private.get("declaration")
    if declares and not declares[-1].cards and trump is not None:  # the standing one: trump
        claimed[declares[-1].seat] |= Counter({make_card(level, trump): declares[-1].value})
    steps: list[tuple[Seat, int, tuple[Card, ...], list[int] | None]] = []
    for index, event in enumerate(declares):
        suits: list[int] | None = None
        last = index == len(declares) - 1
        if event.cards:
            pass
        elif last and trump is not None:
            suits = [trump]
        elif last and own_standing and event.seat == observation.seat:
            suits = [parse_cards(own_standing)[0] & 3]
        elif event.seat == observation.seat:
            suits = [s for s in range(4) if dealt_mine[make_card(level, s)] >= event.value]
        steps.append((event.seat, event.value, event.cards, suits))
    counts = [[c[make_card(level, suit)] for suit in range(4)] for c in claimed]
    return _Declaring(level, counts, steps)


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


@dataclass(frozen=True)
class _Split:
    """The dealer among the other seats, whose known cards are in its hand or buried:
    each of ``cards`` (sorted) goes to the kitty when ``void`` says it must, or by
    chance in proportion to the room left in the hand and in the kitty."""

    seat: Seat
    in_hand: list[Card]
    cards: list[tuple[Card, bool]]
    room: int
    """The hand's room for known cards beyond ``in_hand``."""

    def divide(self, buries: int, rng: random.Random) -> tuple[list[Card], list[Card]]:
        """The cards kept in hand and those buried (of ``buries`` buried cards)."""
        kept: list[Card] = []
        buried: list[Card] = []
        for card, in_void in self.cards:
            room = self.room - len(kept)
            if in_void or rng.random() * (room + buries) >= room:
                buried.append(card)
            else:
                kept.append(card)
        return kept, buried


@dataclass(frozen=True)
class _Plan:
    """What one choice of declared cards decides about every draw, worked out once."""

    required: list[Counter[Card]]
    """Each seat's declared cards: dealt to it first."""
    leading: list[list[Card]]
    """The same, sorted."""
    split: _Split | None
    pool_error: str | None
    """Why the known cards cannot all be in the decks, if they cannot."""
    hidden: list[Card]
    """The cards the draw deals (sorted)."""
    bins: dict[Seat, Bin | str]
    """Each other seat's bin (the split dealer's without its size and limits), or why
    it holds more than its known shapes allow."""
    extra: list[Card] | str
    """The observing seat's known cards beyond its declared ones (sorted): its hand
    while dealing, its dealt hand after (as the dealer, with the kitty's cards and
    without the turned ones), or why its declared cards are not among them."""
    fixed: list[list[Card]]
    """Each other seat's known cards beyond its declared ones (after dealing with those
    it played, the split dealer's with those it kept or buried), besides those drawn."""


class _Draw:
    """Draws Shengji states for one observation (see :func:`prepare`)."""

    def __init__(self, observation: Observation, game: Game) -> None:
        self.observation = observation
        self.game = game
        self._facts: _Facts | None = None
        self._plans: dict[tuple[tuple[Card, ...], ...], _Plan] = {}
        self._declaring: _Declaring | None = None
        self._assignments: dict[Hashable, Assignment] = {}

    def _plan(self, known: _Facts, declared: list[tuple[Card, ...]]) -> _Plan:
        key = tuple(declared)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = _make_plan(known, self.observation.seat, declared)
        return plan

    def _assignment(
        self,
        known: _Facts,
        plan: _Plan,
        declared: list[tuple[Card, ...]],
        kept: list[Card],
        buried_known: list[Card],
    ) -> Assignment:
        """The assignment of the hidden cards to the other seats' hands and the rest
        (the same ones recur draw after draw), the split dealer having ``kept`` known
        cards in hand and buried ``buried_known``."""
        me, rules, counts, split = self.observation.seat, known.rules, known.counts, plan.split
        bins: list[Bin] = []
        limits_key: tuple[tuple[Card, int], ...] = ()
        for s in known.others:
            made = plan.bins[s]
            if isinstance(made, str):
                raise Inconsistent(made)
            if split is not None and s == split.seat:
                limits: dict[Card, int] = {}
                if known.order is not None:
                    held = _count_list(split.in_hand + kept)
                    limits = _capped(known.caps[s], held, known.order)
                limits_key = tuple(sorted(limits.items()))
                made = Bin(counts[s] - len(split.in_hand) - len(kept), made.refuses, limits)
            bins.append(made)
        extra_bin = 0
        if known.dealing:
            extra_bin = rules.decks * 54 - sum(counts)
        elif known.dealer != me and rules.kitty_size:
            extra_bin = known.buries - len(buried_known)
        bins.append(Bin(extra_bin))
        key = (tuple(declared), len(kept), limits_key, extra_bin)
        assignment = self._assignments.get(key)
        if assignment is None:
            assignment = self._assignments[key] = Assignment(plan.hidden, bins)
        return assignment

    def __call__(self, rng: random.Random) -> ShengjiState:
        game = self.game
        if not isinstance(game, ShengjiGame):
            raise Inconsistent(f"shengji observation for a {game.name} game")
        if self._facts is None:
            self._facts = _Facts(self.observation, game)
        known = self._facts
        me = self.observation.seat
        rules, dealer = known.rules, known.dealer
        if known.shown is not None:
            declared = known.shown
        else:
            trump = known.trump if not known.dealing else None
            if self._declaring is None:
                self._declaring = _declaring(
                    self.observation, known.level, trump, known.mine, known.played
                )
            declared = self._declaring.draw(rng)
        plan = self._plan(known, declared)

        kept, buried_known = plan.split.divide(known.buries, rng) if plan.split else ([], [])
        if plan.pool_error is not None:
            raise Inconsistent(plan.pool_error)
        assignment = self._assignment(known, plan, declared, kept, buried_known)
        drawn = assignment.draw(rng)
        rest = drawn[-1]
        got: list[list[Card]] = [[] for _ in range(NUM_SEATS)]
        for s, cards in zip(known.others, drawn, strict=False):
            got[s] = cards
        if known.dealing:
            deal_order = _dealing_order(known, plan, me, got, kept, rest, rng)
            own_buried = known.own_buried
        else:
            own_buried = known.own_buried
            if dealer != me:
                own_buried = rest + buried_known
                shuffle(rng, own_buried)
            deal_order = _dealt_order(known, plan, me, got, rest, rng)
        state = ShengjiState(deal_order, known.setup, rules)
        replay(state, known.script, declared, own_buried, len(deal_order))
        return state


def _count_list(cards: list[Card]) -> list[int]:
    counts = [0] * 54
    for card in cards:
        counts[card] += 1
    return counts


def _make_plan(known: _Facts, me: Seat, declared: list[tuple[Card, ...]]) -> _Plan:
    rules, dealer, played = known.rules, known.dealer, known.played
    required: list[Counter[Card]] = [Counter() for _ in range(NUM_SEATS)]
    for seat, cards in zip(known.declarers, declared, strict=True):
        required[seat] |= Counter(cards)
    turned = known.turned
    held: dict[Seat, Counter[Card]] = {}
    hold_of: dict[Seat, Counter[Card]] = {}
    split: _Split | None = None
    for s in known.others:
        in_hand = known.thrown[s]
        hold = (required[s] + (turned if s == dealer else Counter())) - played[s]
        hold |= in_hand
        hold_of[s] = hold
        flexible = hold - in_hand
        if s == dealer and rules.kitty_size:
            void = known.facts.void[s] if known.facts is not None else set()
            suits = known.order.suits if known.order is not None else None
            placed = [(c, suits is not None and suits[c] in void) for c in expand(flexible)]
            split = _Split(s, expand(in_hand), placed, known.counts[s] - sum(in_hand.values()))
        else:
            held[s] = in_hand + flexible
    pool_error: str | None = None
    hidden: list[Card] = []
    try:
        pool = minus(full_deck(rules.decks), known.mine)
        for s in known.others:
            pool = minus(pool, played[s] + hold_of[s])
        hidden = expand(pool)
    except Inconsistent as err:
        pool_error = str(err)
    bins: dict[Seat, Bin | str] = {}
    for s in known.others:
        refuses: frozenset[Card] = known.void_cards.get(s, frozenset())
        if split is not None and s == split.seat:
            bins[s] = Bin(0, refuses)
            continue
        limits: dict[Card, int] = {}
        try:
            if known.order is not None:
                limits = _capped(known.caps[s], _count_list(expand(held[s])), known.order)
        except Inconsistent as err:
            bins[s] = str(err)
            continue
        bins[s] = Bin(known.counts[s] - sum(held[s].values()), refuses, limits)
    fixed: list[list[Card]] = [[] for _ in range(NUM_SEATS)]
    extra: list[Card] | str = []
    try:
        if known.dealing:
            extra = expand(minus(known.hand, required[me]))
        elif dealer == me and rules.kitty_size:
            pool = known.hand + played[me] + Counter(known.own_buried)
            extra = expand(minus(minus(pool, required[me]), turned))
        else:
            extra = expand(minus(known.hand + played[me], required[me]))
    except Inconsistent as err:
        extra = str(err)
    for s in known.others:
        if s in held:
            fixed[s] = expand(held[s] + played[s] - required[s])
        elif not known.dealing:  # the split dealer: its known cards, kept or buried
            fixed[s] = expand(hold_of[s] + played[s] - required[s] - turned)
    return _Plan(
        required=required,
        leading=[expand(r) for r in required],
        split=split,
        pool_error=pool_error,
        hidden=hidden,
        bins=bins,
        extra=extra,
        fixed=fixed,
    )


def prepare(observation: Observation, game: Game) -> Draw:
    """Draws of Shengji states consistent with ``observation`` (each may raise
    :class:`Inconsistent`): the known cards, the follows' facts, the setup and the
    actions to re-apply are worked out once."""
    return _Draw(observation, game)


def _interleave(sequences: list[list[Card]], start: Seat, dealt: int) -> list[Card]:
    """SJ-7: one card at a time from ``start``, ``dealt`` cards in all."""
    order: list[Card] = [0] * dealt
    for k in range(min(NUM_SEATS, dealt)):
        places = range(k, dealt, NUM_SEATS)
        order[k::NUM_SEATS] = sequences[(start + k) % NUM_SEATS][: len(places)]
    return order


def _dealing_order(
    known: _Facts,
    plan: _Plan,
    me: Seat,
    got: list[list[Card]],
    kept: list[Card],
    undealt: list[Card],
    rng: random.Random,
) -> list[Card]:
    """While dealing: the cards dealt so far (each seat's declared ones first, then the
    rest in a random order), then the undealt ones in a random order."""
    sequences: list[list[Card]] = []
    dealt = 0
    for s in range(NUM_SEATS):
        if s == me:
            if isinstance(plan.extra, str):
                raise Inconsistent(plan.extra)
            rest = list(plan.extra)
        elif plan.split is not None and s == plan.split.seat:
            hand = Counter(got[s]) + Counter(plan.split.in_hand) + Counter(kept)
            rest = expand(minus(hand, plan.required[s]))
        else:
            rest = sorted(got[s] + plan.fixed[s])
        shuffle(rng, rest)
        sequence = plan.leading[s] + rest
        dealt += len(sequence)
        sequences.append(sequence)
    return _interleave(sequences, known.start, dealt) + undealt


def _dealt_order(
    known: _Facts,
    plan: _Plan,
    me: Seat,
    got: list[list[Card]],
    rest: list[Card],
    rng: random.Random,
) -> list[Card]:
    """After dealing: each seat's dealt hand (its declared cards first, then the rest in
    a random order), and a kitty drawn from the dealer's cards."""
    rules, dealer, turned = known.rules, known.dealer, known.turned
    kitty: list[Card] = []
    mine_with_kitty = bool(rules.kitty_size) and dealer == me
    tails = [got[s] + plan.fixed[s] for s in range(NUM_SEATS)]
    if rules.kitty_size:
        if mine_with_kitty:
            if isinstance(plan.extra, str):
                raise Inconsistent(plan.extra)
            free = list(plan.extra)
        else:
            free = sorted(tails[dealer] + rest)
        shuffle(rng, free)
        cut = rules.kitty_size - sum(turned.values())
        kitty = free[:cut]
        if turned:
            kitty[3:3] = expand(turned)
        tails[dealer] = free[cut:]
    sequences: list[list[Card]] = []
    for s in range(NUM_SEATS):
        if s == me and not mine_with_kitty:
            if isinstance(plan.extra, str):
                raise Inconsistent(plan.extra)
            tail = list(plan.extra)
        else:
            tail = sorted(tails[s])
        shuffle(rng, tail)
        sequences.append(plan.leading[s] + tail)
    if any(len(seq) != rules.hand_size for seq in sequences):
        raise Inconsistent("a dealt hand of the wrong size")
    return _interleave(sequences, known.start, rules.hand_size * NUM_SEATS) + kitty


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
    steps: list[tuple[str, Seat, Action]]
    """The automatic plays, buries, failed throws and plays (with the play made), in order."""


def _script(observation: Observation) -> _Script:
    declares: list[tuple[Seat, bool]] = []
    after_dealing = False
    steps: list[tuple[str, Seat, Action]] = []
    for event in observation.events:
        after_dealing = after_dealing or event.kind == "dealt"
        if event.kind == "declare":
            declares.append((event.seat, after_dealing))
        elif event.kind in ("auto", "bury", "throw_failed", "play"):
            steps.append((event.kind, event.seat, Action("play", event.cards)))
    return _Script(
        declares=declares,
        final_round=after_dealing,
        wanted=sum(int(n) for n in observation.public["counts"]),
        phase=observation.phase,
        to_act=observation.to_act,
        steps=steps,
    )


_BURIALS = [Action("bury", (card,)) for card in range(54)]
"""The action burying each card."""


def replay(
    state: ShengjiState,
    script: _Script,
    declared: list[tuple[Card, ...]],
    buried: list[Card],
    dealt: int,
) -> None:
    """Re-run the dealing (declaring as the observation did) and re-apply buries and
    plays (``script``: the observation's) on ``state``, fresh from a deal order of
    ``dealt`` cards."""
    pending = [
        (seat, cards, after) for (seat, after), cards in zip(script.declares, declared, strict=True)
    ]
    pending.reverse()  # the next one last
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
            and dealt - len(state.set_aside()) == script.wanted
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
    for kind, seat, play in script.steps:
        if kind == "auto":
            state.note_automatic(seat)
        elif kind == "bury":
            state.apply(_BURIALS[buried[next_bury]])
            next_bury += 1
        elif kind == "throw_failed":
            state.apply(play)
            skip_play = True
        else:
            if skip_play:  # the forced play of a failed throw follows from the throw
                skip_play = False
                continue
            if state.to_act != seat:
                raise Inconsistent(f"seat {seat} is not to act in the drawn deal")
            state.apply(play)
    state.list_briefly(False)
