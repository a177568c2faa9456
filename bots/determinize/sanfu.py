"""A full sanfu deal consistent with what one seat has seen.

Known: the seat's own hand, every card played, each turned card and the seat its
receiver plays from, the seat swaps (so the seating before them, where the cards were
dealt), and every seat's exact card count. The
rest of the 162 cards is dealt at random into the other hands; the turned cards are
put back where the turn events say they were dealt; then the deal is built by the
engine from those hands and the public actions are re-applied.
"""

from __future__ import annotations

import random
from collections import Counter

from arena.cards import Card
from arena.games.base import NUM_SEATS, PASS, Action, Game, Observation, Seat
from arena.games.sanfu import HAND_SIZES, SanfuGame, SanfuSetup, SanfuState
from bots.determinize.assign import Assignment, Bin, shuffle
from bots.determinize.common import Draw, Inconsistent, expand, full_deck, minus

DECKS = 3


def _seatings(observation: Observation) -> tuple[list[int], list[Seat]]:
    """The seating before the swaps, and for each seat now the seat it was dealt at."""
    after = [int(p) for p in observation.public["seating"]]
    before = list(after)
    dealt_at = list(range(NUM_SEATS))
    for event in reversed(observation.events):
        if event.kind == "swap":  # two players changed seats: ``seat`` and ``target`` now
            one, two = event.seat, event.target
            before[one], before[two] = before[two], before[one]
            dealt_at[one], dealt_at[two] = dealt_at[two], dealt_at[one]
    return before, dealt_at


class _Draw:
    """Draws sanfu states for one observation (see :func:`prepare`)."""

    def __init__(self, observation: Observation, game: Game) -> None:
        self.observation = observation
        self.game = game
        self._prepared = False
        self._script = _script(observation)

    def _prepare(self, game: Game) -> None:
        """The known cards, the bins of the hidden ones and the setup (once)."""
        observation = self.observation
        events, me = observation.events, observation.seat
        before, dealt_at = _seatings(observation)
        turns = [e for e in events if e.kind == "turn"]  # seats of the table as it plays
        played: list[Counter[Card]] = [Counter() for _ in range(NUM_SEATS)]
        for event in events:
            if event.kind == "play":
                played[event.seat].update(event.cards)
        known: list[Counter[Card]] = [Counter(p) for p in played]
        for turn in turns:  # a turned card was dealt to that seat: played since, or still held
            seat, card = turn.seat, turn.cards[0]
            wanted = sum(1 for t in turns if t.seat == seat and t.cards[0] == card)
            known[seat][card] = max(known[seat][card], wanted)
        counts = [int(n) for n in observation.public["counts"]]
        mine = Counter(observation.hand) + played[me]
        if known[me] - mine:
            raise Inconsistent("a turned card of this seat is neither held nor played")
        known[me] = mine
        pool = full_deck(DECKS)
        for seen in known:
            pool = minus(pool, seen)
        others = [s for s in range(NUM_SEATS) if s != me]
        sizes = [HAND_SIZES[dealt_at[s]] - sum(known[s].values()) for s in others]
        for s, size in zip(others, sizes, strict=True):
            if HAND_SIZES[dealt_at[s]] - sum(played[s].values()) != counts[s] or size < 0:
                raise Inconsistent(f"seat {s}'s card count does not add up")
        self._assignment = Assignment(expand(pool), [Bin(size) for size in sizes])
        self._known = [expand(cards) for cards in known]
        self._others = others
        self._dealt_at = dealt_at
        self._turns = [(dealt_at[turn.seat], turn.cards[0]) for turn in turns]
        self._setup = _setup(observation, before, len(turns), game)
        self._prepared = True

    def __call__(self, rng: random.Random) -> SanfuState:
        game = self.game
        if not isinstance(game, SanfuGame):
            raise Inconsistent(f"sanfu observation for a {game.name} game")
        if not self._prepared:
            self._prepare(game)
        drawn = self._assignment.draw(rng)
        known, dealt_at = self._known, self._dealt_at
        initial: list[list[Card]] = [[] for _ in range(NUM_SEATS)]
        initial[self.observation.seat] = list(known[self.observation.seat])
        for s, cards in zip(self._others, drawn, strict=True):
            initial[s] = cards + known[s]
        for dealt in initial:
            shuffle(rng, dealt)
        hands: list[list[Card]] = [[] for _ in range(NUM_SEATS)]
        for seat in range(NUM_SEATS):
            hands[dealt_at[seat]] = initial[seat]
        turned: list[int] = []
        fixed = [0] * NUM_SEATS  # the first cards of a hand already placed as turned cards
        for position, (origin, card) in enumerate(self._turns):
            hand = hands[origin]  # the k-th card of seat s is deal index 4k + s
            hand.insert(position, hand.pop(hand.index(card, fixed[origin])))
            fixed[origin] = position + 1
            turned.append(NUM_SEATS * position + origin)
        state = game.new_deal(self._setup, hands=hands, turned=turned)
        state.list_briefly()  # re-applied plays are checked one by one, no list needed
        replay(state, self._script)
        state.list_briefly(False)
        return state


def prepare(observation: Observation, game: Game) -> Draw:
    """Draws of sanfu states consistent with ``observation`` (each may raise
    :class:`Inconsistent`): the known cards, the seating and the actions to re-apply
    are worked out once."""
    return _Draw(observation, game)


def _setup(observation: Observation, before: list[int], turned: int, game: Game) -> SanfuSetup:
    deal_index = observation.events[0].value
    previous_first = None
    if turned == 1:  # SF-5, SF-6: the previous first finisher leads
        lead = next(e for e in observation.events if e.kind == "lead")
        previous_first = int(observation.public["seating"][lead.seat])
    return SanfuSetup(
        seating=(before[0], before[1], before[2], before[3]),
        previous_first=previous_first,
        previous_sweep=turned == 1,
        deal_index=deal_index,
        deals=max(int(game.options["deals"]), deal_index + 1),
    )


_Step = tuple[bool, Seat, Action]
"""A public action to re-apply: whether it is an automatic play's note, its seat, and
the action."""


def _script(observation: Observation) -> list[_Step]:
    """The public actions of ``observation`` to re-apply, in order."""
    steps: list[_Step] = []
    for event in observation.events:
        if event.kind == "auto":
            steps.append((True, event.seat, PASS))
        elif event.kind in ("play", "pass"):
            action = Action("play", event.cards) if event.kind == "play" else PASS
            steps.append((False, event.seat, action))
    return steps


def replay(state: SanfuState, steps: list[_Step]) -> None:
    """Re-apply ``steps`` (public actions) to the fresh deal ``state``."""
    for automatic, seat, action in steps:
        if automatic:
            state.note_automatic(seat)
            continue
        if state.to_act != seat:
            raise Inconsistent(f"seat {seat} is not to act in the drawn deal")
        state.apply(action)
