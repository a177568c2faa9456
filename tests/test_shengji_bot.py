"""The Shengji heuristic bot (bots/shengji_bot.py): legal, deterministic, observation-only,
and playing by its named rules in constructed situations.

Situations are built on the engine with explicit hands (the first deal of a match:
level 2, seat 0 declares the 2 of spades, so spades are trump and seat 0 deals).
"""

from __future__ import annotations

from collections import Counter

import pytest

from arena.cards import Card, deck, parse_cards
from arena.games import PASS, Action, Observation, make
from arena.games.base import Event
from arena.games.shengji import ShengjiSetup, ShengjiState
from arena.games.shengji.order import TRUMP, TrumpOrder, card_points
from arena.match import Policy, play_deal, play_match
from bots.heuristic import HeuristicBot
from bots.shengji.burying import bury_plan
from bots.shengji.declaring import trump_share
from bots.shengji.memory import Memory
from bots.shengji_bot import ShengjiHeuristic
from bots.simple import RandomBot
from bots.style import Style

SPADES_TRUMP = TrumpOrder(level=0, trump=0)


class Recorder:
    """A policy that records every observation it is shown and the action it gives."""

    def __init__(self, inner: ShengjiHeuristic) -> None:
        self.inner = inner
        self.seen: list[tuple[Observation, Action]] = []

    def act(self, observation: Observation) -> Action:
        action = self.inner.act(observation)
        self.seen.append((observation, action))
        return action


def build_hands(variant: str, given: dict[int, str], kitty: str | None = None) -> list[list[Card]]:
    """Four hands and the kitty: ``given`` hands as they are, the other hands filled one
    card at a time from the rest of the decks (sorted), what is left in the kitty."""
    decks = int(variant.rsplit("-", 1)[1])
    hand_size = {1: 12, 2: 25, 3: 39, 4: 54}[decks]
    rest = Counter(deck(decks))
    hands: list[list[Card]] = [[] for _ in range(4)]
    for seat, text in given.items():
        hands[seat] = list(parse_cards(text))
        rest -= Counter(hands[seat])
    kitty_cards = list(parse_cards(kitty)) if kitty else []
    rest -= Counter(kitty_cards)
    pool = sorted(rest.elements())
    open_seats = [s for s in range(4) if s not in given]
    turn = 0
    while any(len(hands[s]) < hand_size for s in open_seats):
        seat = open_seats[turn % len(open_seats)]
        if len(hands[seat]) < hand_size:
            hands[seat].append(pool.pop(0))
        turn += 1
    return [*hands, kitty_cards + pool] if kitty_cards or pool else hands


def deal(
    variant: str,
    given: dict[int, str],
    kitty: str | None = None,
    declarer: int = 0,
    declaration: str = "2s",
) -> ShengjiState:
    """A deal of :func:`build_hands` where ``declarer`` declares ``declaration`` when
    offered and the others pass; returned when the dealing is over."""
    state = make(variant).new_deal(hands=build_hands(variant, given, kitty))
    assert isinstance(state, ShengjiState)
    wanted = Action.make("declare", parse_cards(declaration))
    while state.phase == "declare":
        ok = state.to_act == declarer and wanted in state.legal_actions()
        state.apply(wanted if ok else PASS)
    return state


def bury_back(state: ShengjiState, kitty: str) -> None:
    for card in parse_cards(kitty):
        state.apply(Action("bury", (card,)))


def play(state: ShengjiState, *plays: str) -> None:
    for text in plays:
        state.apply(Action.from_str(f"play {text}"))


def bot_play(state: ShengjiState) -> tuple[Card, ...]:
    action = ShengjiHeuristic(0).act(state.observe(state.to_act))
    state.check_legal(action)
    return action.cards


# ----------------------------------------------------------------- legality


@pytest.mark.parametrize(
    ("variant", "options", "seeds"),
    [
        ("shengji-1", {}, range(12)),
        ("shengji-1", {"two_colour": True}, range(4)),
        ("shengji-2", {}, range(6)),
        ("shengji-2", {"constant_twos": True}, range(4)),
        ("shengji-2", {"no_declaration": "flip_kitty", "throw_penalty": 5}, range(3)),
        ("shengji-3", {}, range(3)),
        ("shengji-4", {}, range(2)),
    ],
)
def test_only_legal_actions_against_random_bots(
    variant: str, options: dict[str, object], seeds: range
) -> None:
    """Whole deals against random bots (declaring, burying, leads, follows, throws):
    the match driver refuses any illegal action, so finishing is the check."""
    game = make(variant, **options)
    for seed in seeds:
        seats: list[Policy] = [
            HeuristicBot(seed),
            RandomBot(seed),
            HeuristicBot(seed + 1),
            RandomBot(seed),
        ]
        if seed % 2:
            seats = seats[1:] + seats[:1]
        result = play_match(game, seats, seed=seed, max_deals=2)
        assert len(result.outcomes) >= 1
        assert all(deal.actions for deal in result.record.deals)


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("shengji-1", {"constant_twos": True}),
        ("shengji-2", {"constant_twos": True}),
        ("shengji-3", {"constant_twos": True}),
        ("shengji-3", {}),
        ("shengji-4", {}),
    ],
)
def test_only_legal_actions_at_other_levels(variant: str, options: dict[str, object]) -> None:
    """Deals played at levels other than 2, where constant 2s are trumps of their own
    (an option the observation does not show: the bot infers it from what it sees)."""
    game = make(variant, **options)
    for seed, level in ((1, 5), (2, 9), (3, 12)):
        setup = ShengjiSetup(levels=(level, 3), dealer=seed % 4, deal_index=1)
        state = game.new_deal(setup, seed=seed)
        seats: list[Policy] = [HeuristicBot(seed), RandomBot(seed)] * 2
        assert play_deal(state, seats)
        assert state.is_terminal()


def test_a_match_of_heuristic_bots_only_is_legal() -> None:
    game = make("shengji-2")
    result = play_match(game, [ShengjiHeuristic(s) for s in range(4)], seed=5, max_deals=2)
    assert len(result.outcomes) == 2


def test_deterministic_for_a_seed() -> None:
    """The same seeds give the same match, action for action."""

    def record(seed: int) -> list[list[str]]:
        seats: list[Policy] = [HeuristicBot(seed), RandomBot(1), HeuristicBot(seed), RandomBot(2)]
        result = play_match(make("shengji-2"), seats, seed=9, max_deals=2)
        return [deal.actions for deal in result.record.deals]

    assert record(3) == record(3)


@pytest.mark.parametrize("risk", [0.0, 0.2, 1.0])
def test_decisions_depend_only_on_the_observation(risk: float) -> None:
    """Each observation shown to a fresh bot of the same seed and style gets the same
    action (its risks are drawn from the seed and the decision); a cautious bot (risk 0)
    draws nothing, so a bot of any seed answers alike."""
    style = Style(risk=risk)
    recorders = [Recorder(ShengjiHeuristic(seed, style)) for seed in range(4)]
    play_match(make("shengji-2"), recorders, seed=21, max_deals=1)
    seen = [(r.inner.seed, pair) for r in recorders for pair in r.seen]
    assert len(seen) > 60
    for seed, (observation, action) in seen[::3]:
        assert ShengjiHeuristic(seed, style).act(observation) == action
        if risk == 0:
            assert ShengjiHeuristic(99, style).act(observation) == action


def test_one_bot_at_every_seat_reads_each_event_once_per_seat(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A single bot playing all four seats (as a one-policy rollout does) keeps a memory
    per seat: it reads each event once per seat, and acts as fresh bots would."""
    reads = Counter[int]()
    read = Memory._read

    def counting(memory: Memory, event: Event) -> None:
        reads[memory.seat] += 1
        read(memory, event)

    monkeypatch.setattr(Memory, "_read", counting)
    bot = Recorder(ShengjiHeuristic(0))
    state = make("shengji-2").new_deal(seed=33)
    while not state.is_terminal():
        state.apply(bot.act(state.observe(state.to_act)))
    last = {observation.seat: len(observation.events) for observation, _ in bot.seen}
    assert reads == Counter(last)
    monkeypatch.undo()
    for observation, action in bot.seen[::5]:
        assert ShengjiHeuristic(0).act(observation) == action


def test_a_memory_is_rebuilt_for_observations_that_do_not_continue_it() -> None:
    """Observations of another deal, or earlier ones, between those of a deal: the bot
    answers each as a fresh bot would."""
    seen = []
    for seed in (5, 6):
        recorders = [Recorder(ShengjiHeuristic(0)) for _ in range(4)]
        play_match(make("shengji-1"), recorders, seed=seed, max_deals=1)
        seen.append([pair for recorder in recorders for pair in recorder.seen])
    mixed = [pair for pairs in zip(seen[0], seen[1], strict=False) for pair in pairs]
    mixed += seen[0][::-1][:40]
    bot = ShengjiHeuristic(0)
    for observation, action in mixed:
        assert bot.act(observation) == action


# ---------------------------------------------------------------- situations

FEED_HANDS = {
    0: "2s 3h 5s 6s 7s 8s 9s Ts Js Qs Ks As",
    1: "Ah 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc",
    2: "4h 3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd",
    3: "Kh 6h 2h 2d 2c Ac Ad 5h 7h 8h 9h Th",
}
FEED_KITTY = "3s 4s Jh Qh SJ BJ"


def test_feeds_points_to_a_winning_partner() -> None:
    """Feed the partner: the partner's ace wins the trick, so the bot adds a 10-point card."""
    state = deal("shengji-1", FEED_HANDS, FEED_KITTY)
    bury_back(state, FEED_KITTY)
    play(state, "3h", "Ah", "4h")
    cards = bot_play(state)
    assert sum(card_points(c) for c in cards) == 10


RUFF_HANDS = {
    0: "3h 5s 6s 7s 8s 9s Ts Js Qs Ks As 2s",
    1: "4h 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc",
    2: "9h 5h 6h 7h 8h Th 3d 4d 5d 6d 7d 8d",
    3: "3s 4s 2h 2d 2c Ac Ad SJ BJ 9d Td Jd",
}
RUFF_KITTY = "Kh Jh Qh Ah Qd Kd"


def test_ruffs_a_trick_with_points_when_void() -> None:
    """Win when it pays: void in hearts, the bot ruffs a 10 with its lowest trump."""
    state = deal("shengji-1", RUFF_HANDS, RUFF_KITTY)
    bury_back(state, RUFF_KITTY)
    play(state, "3h", "4h", "Th")
    assert bot_play(state) == parse_cards("3s")


def test_does_not_ruff_a_trick_without_points() -> None:
    """Play low when losing: no points on the table, the bot keeps its trumps."""
    state = deal("shengji-1", RUFF_HANDS, RUFF_KITTY)
    bury_back(state, RUFF_KITTY)
    play(state, "3h", "4h", "9h")
    cards = bot_play(state)
    assert state.order is not None
    assert not any(state.order.suits[c] == TRUMP for c in cards)
    assert sum(card_points(c) for c in cards) == 0


def test_leads_a_top_tractor() -> None:
    """Top tractor: holding both aces and both kings of hearts, the dealer leads them."""
    hand = "Ah Ah Kh Kh 4h 6h 3d 4d 6d 7d 9d Jd 3c 4c 6c 7c 8c 9c 3s 4s 6s 7s 8s 9s 2s"
    state = deal("shengji-2", {0: hand})
    while state.phase == "bury":
        state.apply(ShengjiHeuristic(0).act(state.observe(0)))
    assert bot_play(state) == tuple(sorted(parse_cards("Ah Ah Kh Kh")))


def test_leads_top_cards() -> None:
    """Safe throw / top single: the dealer's lead is made only of top cards (an ace first)."""
    hand = "2s As Ks Qs Ah Kh 5h 3h Ad Td 3d 3c"
    state = deal("shengji-1", {0: hand}, "4h 6h 7h 4d 8d 6c")
    bury_back(state, "4h 6h 7h 4d 8d 6c")
    cards = bot_play(state)
    assert any(c >> 2 == 12 for c in cards)  # an ace
    assert cards in (tuple(sorted(parse_cards("Kh Ah"))), parse_cards("Ad"), parse_cards("Ah"))


def test_buries_to_void_a_short_suit_and_keeps_points() -> None:
    """Burying: the two clubs go (a void), with the lowest plain cards; no 5, 10 or K,
    no ace and no trump is buried."""
    hand = "2s As Ks Qs Ah Kh 5h 3h Ad Td 3d 3c"
    kitty = "4h 6h 7h 4d 8d 6c"
    state = deal("shengji-1", {0: hand}, kitty)
    assert state.phase == "bury"
    while state.phase == "bury":
        state.apply(ShengjiHeuristic(0).act(state.observe(0)))
    buried = state.buried
    assert set(parse_cards("3c 6c")) <= set(buried)
    assert all(card_points(c) == 0 for c in buried)
    assert state.order is not None
    assert not any(state.order.suits[c] == TRUMP or c >> 2 == 12 for c in buried)


def test_bury_plan_uses_trumps_only_when_forced() -> None:
    hand = parse_cards("2s As Ks Qs Js Ts 9s 8s 3h 5h")
    plan = bury_plan(hand, 3, SPADES_TRUMP)
    assert set(plan[:2]) == set(parse_cards("3h 5h"))
    assert SPADES_TRUMP.suits[plan[2]] == TRUMP


def declares_of(state: ShengjiState, seat: int) -> list[tuple[Card, ...]]:
    return [e.cards for e in state.events if e.kind == "declare" and e.seat == seat]


def run_declarations(hands: dict[int, str], bot_seat: int) -> ShengjiState:
    """The dealing of a 1-deck deal in which only ``bot_seat`` (the bot) may declare."""
    state = make("shengji-1").new_deal(hands=build_hands("shengji-1", hands))
    assert isinstance(state, ShengjiState)
    bot = ShengjiHeuristic(0)
    while state.phase == "declare":
        if state.to_act == bot_seat:
            state.apply(bot.act(state.observe(bot_seat)))
        else:
            state.apply(PASS)
    return state


def test_declares_with_a_strong_suit() -> None:
    """Strong suit: eight hearts, the 2 of hearts and a joker make hearts trump."""
    state = run_declarations({1: "2h Ah Kh Qh Jh Th 9h 8h 7h BJ 3c 4d"}, bot_seat=1)
    assert declares_of(state, 1) == [parse_cards("2h")]
    assert state.order is not None and state.order.trump == 1


def test_passes_with_a_weak_suit() -> None:
    """A lone 2 of hearts in a hand without hearts is no reason to declare."""
    state = run_declarations({1: "2h As Ks Qs 3c 4c 5c 6c 7d 8d 9d Td"}, bot_seat=1)
    assert declares_of(state, 1) == []


def test_trump_share_counts_level_cards_and_jokers() -> None:
    cards = parse_cards("2h 2c SJ Ah 3s")
    assert trump_share(cards, 1, 0, 2) == pytest.approx(4 / 5)
    assert trump_share(cards, None, 0, 2) == pytest.approx(3 / 5)


@pytest.mark.parametrize("variant", ["shengji-1", "shengji-2", "shengji-3"])
def test_memory_tracks_cards_seen_and_voids(variant: str) -> None:
    """Cards seen: at every decision of a deal, the cards a defender cannot place are
    exactly the other hands and the kitty; a seat shown void never holds that suit."""
    state = make(variant).new_deal(seed=7)
    assert isinstance(state, ShengjiState)
    rng = RandomBot(3)
    memory: Memory | None = None
    while not state.is_terminal():
        if state.phase == "play":
            watcher = (state.dealer + 1) % 4  # a defender
            if memory is None:
                memory = Memory(decks=state.rules.decks, seat=watcher)
            observation = state.observe(watcher)
            memory.update(observation)
            others = Counter(c for s in range(4) if s != watcher for c in state.hand(s))
            unknown = Counter({c: n for c, n in enumerate(memory.unknown(observation.hand)) if n})
            assert unknown == others + Counter(state.buried)
            assert memory.order is not None
            for seat in range(4):
                for suit in memory.voids[seat]:
                    assert all(memory.order.suits[c] != suit for c in state.hand(seat))
        state.apply(rng.act(state.observe(state.to_act)))
    assert memory is not None and memory.tricks_done > 0
