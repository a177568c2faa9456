"""Guandan rules GD-1 … GD-17 (rules/guandan.md), one or more tests per rule.

Every test names its rule id. Positions are built from small explicit hands;
levels are written as ranks ("2", "7", "T", "A"), the wild card is the heart of
the level rank.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import combinations_with_replacement, pairwise, product

import pytest

from arena.cards import (
    BIG_JOKER,
    RANKS,
    SMALL_JOKER,
    SUITS,
    Card,
    deck,
    format_card,
    format_cards,
    is_joker,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)
from arena.errors import ConfigError, IllegalActionError
from arena.games import NOBODY, PASS, Action, Event, make, next_seat, team_of
from arena.games.guandan import GuandanSetup, GuandanState
from arena.games.guandan.combos import Kind, Reading, beats, play_readings, reading, readings
from arena.games.guandan.state import level_gain, settle

GAME = make("guandan")
ACE = RANKS.index("A")


# ------------------------------------------------------------------ helpers


def lv(rank: str) -> int:
    """The level index of a rank written as in card notation ("2" … "T" … "A")."""
    return RANKS.index(rank)


def reads(text: str, level: str = "2") -> list[Reading]:
    """The readings a play of these cards can be made as (after dominance)."""
    return play_readings(parse_cards(text), lv(level))


def read(text: str, level: str = "2") -> Reading:
    """The one reading of a play; fails if the cards form no or two combinations."""
    found = reads(text, level)
    assert len(found) == 1, f"{text!r} at level {level} reads as {found}"
    return found[0]


def is_combination(text: str, level: str = "2") -> bool:
    return bool(readings(parse_cards(text), lv(level)))


def beats_text(play: str, table: str, level: str = "2") -> bool:
    return beats(read(play, level), read(table, level))


def setup_for(
    level: str = "2", *, leader: int | None = 0, order: Sequence[int] = ()
) -> GuandanSetup:
    """A setup where the level team (the team of order[0], else team 0) plays ``level``."""
    team = team_of(order[0]) if order else 0
    levels = [0, 0]
    levels[team] = lv(level)
    return GuandanSetup(
        levels=(levels[0], levels[1]),
        level_team=team,
        previous_order=tuple(order),
        leader=None if order else leader,
    )


def deal(hands: Sequence[str], *, leader: int = 0, level: str = "2") -> GuandanState:
    """A deal without tribute from explicit hands."""
    return GAME.new_deal(setup_for(level, leader=leader), hands=list(hands))


def deal_after(order: Sequence[int], hands: Sequence[str], *, level: str = "2") -> GuandanState:
    """A deal after one that finished in ``order`` (tribute is owed)."""
    return GAME.new_deal(setup_for(level, order=order), hands=list(hands))


def act(state: GuandanState, *texts: str) -> None:
    for text in texts:
        state.apply(Action.from_str(text))


def legal(state: GuandanState) -> set[Action]:
    actions = state.legal_actions()
    assert len(actions) == len(set(actions)), "an action is listed twice"
    return set(actions)


def acts(*texts: str) -> set[Action]:
    return {Action.from_str(text) for text in texts}


def plays_of(state: GuandanState) -> set[Action]:
    return legal(state) - {PASS}


def events_of(state: GuandanState, kind: str) -> list[Event]:
    return [e for e in state.events if e.kind == kind]


def hand_is(state: GuandanState, seat: int, text: str) -> bool:
    return state.hand(seat) == tuple(sorted(parse_cards(text)))


def card(text: str) -> tuple[Card]:
    return (parse_card(text),)


def sub_multisets(cards: Sequence[Card]) -> Iterator[tuple[Card, ...]]:
    items = sorted(Counter(cards).items())
    for picks in product(*(range(n + 1) for _, n in items)):
        chosen = tuple(c for (c, _), k in zip(items, picks, strict=True) for _ in range(k))
        if chosen:
            yield chosen


def expected_plays(hand: str, level: str, table: Reading | None = None) -> set[Action]:
    """Every play of a hand by brute force over its sub-multisets (the GD-8 classifier)."""
    found: set[Action] = set()
    for cards in sub_multisets(parse_cards(hand)):
        kept = play_readings(cards, lv(level))
        for r in kept:
            if table is None or beats(r, table):
                found.add(Action("play", cards, r.kind.label if len(kept) > 1 else ""))
    return found


def spare_cards(used: Sequence[str], count: int, level: str) -> list[str]:
    """Single cards still free in two decks besides ``used`` (no joker, no wild card)."""
    held = Counter(c for text in used for c in parse_cards(text))
    wild = parse_card(RANKS[lv(level)] + "h")
    free = [c for c in range(52) if c != wild and held[c] < 2]
    return [format_card(c) for c in free[:count]]


def fitted(table: str, hand: str, level: str) -> str:
    """``table`` with its suits rotated so that no card has a third copy with ``hand``."""
    held = Counter(parse_cards(hand))
    for shift in range(4):
        text = " ".join(t[:-1] + SUITS[(SUITS.index(t[-1]) + shift) % 4] for t in table.split())
        counts = Counter(parse_cards(text))
        if all(held[c] + n <= 2 for c, n in counts.items()) and reads(text, level) == reads(
            table, level
        ):
            return text
    raise AssertionError(f"no room for {table!r} beside {hand!r}")


def play_randomly(state: GuandanState, seed: int) -> list[Action]:
    """Finish a deal with random legal actions, checking turn order on the way."""
    rng = random.Random(seed)
    taken = []
    while not state.is_terminal():
        seat = state.to_act
        actions = state.legal_actions()
        plays = [a for a in actions if a.verb == "play"]
        if plays and (PASS not in actions or rng.random() < 0.6):
            choice = rng.choice(plays)
        elif PASS in actions:
            choice = PASS
        else:  # tribute or return
            choice = rng.choice(actions)
        before = len(state.events)
        state.apply(choice)
        taken.append(choice)
        new = [e.kind for e in state.events[before:]]
        if choice.verb in ("play", "pass") and not state.is_terminal() and "lead" not in new:
            # GD-10 / GD-11: the turn goes to the next player still holding cards
            nxt = next_seat(seat)
            while not state.hand(nxt):
                nxt = next_seat(nxt)
            assert state.to_act == nxt
    return taken


def finish_double_down(state: GuandanState) -> None:
    """Hands 0:'3s' 1:'5s 5d' 2:'4s' 3:'6s 6d' led by 0: seats 0 and 2 go out first."""
    act(state, "play 3s", "pass", "play 4s")


def finish_three_out(state: GuandanState) -> None:
    """Hands 0:'3s' 1:'5s' 2:'4s 4d' 3:'6s 6d' led by 0: order 0, 1, 3, then 2."""
    act(state, "play 3s", "play 5s", "pass", "play 6s", "pass", "play 6d")


DOUBLE_DOWN_HANDS = ("3s", "5s 5d", "4s", "6s 6d")
THREE_OUT_HANDS = ("3s", "5s", "4s 4d", "6s 6d")


# ================================================================== GD-1


def test_gd01_seeded_deal_gives_each_player_27_cards() -> None:
    state = GAME.new_deal(GuandanSetup(), seed=5)
    assert [len(state.hand(s)) for s in range(4)] == [27, 27, 27, 27]


@pytest.mark.parametrize("seed", [0, 1, 5, 2024, 987654321])
def test_gd01_seeded_deal_uses_two_full_decks_108_cards_no_kitty(seed: int) -> None:
    state = GAME.new_deal(GuandanSetup(), seed=seed)
    cards = [c for s in range(4) for c in state.hand(s)]
    assert len(cards) == 108
    assert sorted(cards) == deck(2)


def test_gd01_deal_is_determined_by_its_seed() -> None:
    """GD-1 with C-4: the same seed deals the same hands, another seed others."""
    a = GAME.new_deal(GuandanSetup(), seed=77)
    b = GAME.new_deal(GuandanSetup(), seed=77)
    c = GAME.new_deal(GuandanSetup(), seed=78)
    assert a.seat_cards() == b.seat_cards()
    assert a.seat_cards() != c.seat_cards()


def test_gd01_explicit_hands_may_not_hold_a_third_copy_of_a_card() -> None:
    with pytest.raises(ConfigError, match="GD-1"):
        GAME.new_deal(GuandanSetup(leader=0), hands=["As As", "As", "3s", "4s"])


def test_gd01_a_deal_has_four_hands() -> None:
    with pytest.raises(ConfigError):
        GAME.new_deal(GuandanSetup(leader=0), hands=["As", "3s", "4s"])


def test_gd01_observation_shows_only_the_own_hand() -> None:
    state = GAME.new_deal(GuandanSetup(), seed=3)
    for seat in range(4):
        assert state.observe(seat).hand == state.hand(seat)
        assert len(state.observe(seat).hand) == 27


# ================================================================== GD-2


def test_gd02_deal_ends_as_soon_as_both_partners_are_out() -> None:
    state = deal(DOUBLE_DOWN_HANDS)
    act(state, "play 3s", "pass")
    assert not state.is_terminal()
    act(state, "play 4s")
    assert state.is_terminal()
    assert state.phase == "over"
    assert state.to_act == NOBODY
    assert state.finishing_order[:2] == (0, 2)
    assert sorted(state.finishing_order) == [0, 1, 2, 3]
    assert state.hand(1) and state.hand(3)  # the losers still hold cards


def test_gd02_deal_goes_on_when_two_opponents_are_out() -> None:
    state = deal(THREE_OUT_HANDS)
    act(state, "play 3s", "play 5s")
    assert not state.is_terminal()
    assert state.finishing_order == (0, 1)
    assert state.phase == "play"


def test_gd02_deal_ends_when_three_players_are_out() -> None:
    state = deal(THREE_OUT_HANDS)
    finish_three_out(state)
    assert state.is_terminal()
    assert state.finishing_order == (0, 1, 3, 2)
    assert [e.seat for e in events_of(state, "out")] == [0, 1, 3]
    assert [e.value for e in events_of(state, "out")] == [1, 2, 3]


def test_gd02_deal_goes_on_after_the_first_player_is_out() -> None:
    state = deal(THREE_OUT_HANDS)
    act(state, "play 3s")
    assert not state.is_terminal()
    assert state.finishing_order == (0,)
    assert state.to_act == 1


def test_gd02_finished_deal_has_no_legal_action_and_refuses_actions() -> None:
    state = deal(DOUBLE_DOWN_HANDS)
    finish_double_down(state)
    assert state.legal_actions() == []
    with pytest.raises(IllegalActionError):
        state.apply(PASS)


def test_gd02_outcome_only_once_the_deal_is_over() -> None:
    state = deal(DOUBLE_DOWN_HANDS)
    with pytest.raises(IllegalActionError):
        state.outcome()
    finish_double_down(state)
    assert state.outcome().details["order"][:2] == [0, 2]


@pytest.mark.parametrize("seed", range(6))
def test_gd02_random_seeded_deals_end_by_the_rule_and_keep_every_card(seed: int) -> None:
    state = GAME.new_deal(GuandanSetup(), seed=seed)
    play_randomly(state, seed)
    order = state.finishing_order
    assert sorted(order) == [0, 1, 2, 3]
    out = [e.seat for e in events_of(state, "out")]
    assert tuple(out) == order[: len(out)]
    if len(out) == 2:
        assert team_of(out[0]) == team_of(out[1])
    else:
        assert len(out) == 3
        assert team_of(out[0]) != team_of(out[1])
    played = [c for e in events_of(state, "play") for c in e.cards]
    held = [c for s in range(4) for c in state.hand(s)]
    assert sorted(played + held) == deck(2)
    assert state.outcome() == settle(state.setup, order)


# ================================================================== GD-3


def test_gd03_first_leader_is_drawn_from_the_seed_deterministically() -> None:
    for seed in range(12):
        first = GAME.new_deal(GuandanSetup(), seed=seed)
        again = GAME.new_deal(GuandanSetup(), seed=seed)
        assert first.to_act == again.to_act
        assert first.phase == "play"
        assert events_of(first, "lead") == [Event("lead", first.to_act)]


def test_gd03_first_leader_varies_with_the_seed() -> None:
    leaders = {GAME.new_deal(GuandanSetup(), seed=seed).to_act for seed in range(60)}
    assert leaders == {0, 1, 2, 3}


def test_gd03_explicit_hands_with_a_seed_draw_the_leader_from_that_seed() -> None:
    hands = ["3s", "4s", "5s", "6s"]
    for seed in range(8):
        with_hands = GAME.new_deal(GuandanSetup(), seed=seed, hands=hands)
        assert with_hands.to_act == GAME.new_deal(GuandanSetup(), seed=seed).to_act


def test_gd03_explicit_hands_without_tribute_need_a_leader_or_a_seed() -> None:
    with pytest.raises(ConfigError, match="GD-3"):
        GAME.new_deal(GuandanSetup(), hands=["3s", "4s", "5s", "6s"])


@pytest.mark.parametrize("leader", range(4))
def test_gd03_a_given_leader_leads(leader: int) -> None:
    state = deal(["3s", "4s", "5s", "6s"], leader=leader)
    assert state.to_act == leader
    assert PASS not in legal(state)


def test_gd03_first_deal_of_a_match_has_no_tribute() -> None:
    state = GAME.new_deal(GAME.first_setup(), seed=11)
    assert state.phase == "play"
    assert not events_of(state, "tribute")


def test_gd03_same_seed_and_actions_give_the_same_events_and_result() -> None:
    """GD-3 with C-4: a deal is replayed exactly from its seed and actions."""
    state = GAME.new_deal(GuandanSetup(), seed=31)
    taken = play_randomly(state, 31)
    replay = GAME.new_deal(GuandanSetup(), seed=31)
    for action in taken:
        replay.apply(action)
    assert replay.events == state.events
    assert replay.outcome() == state.outcome()


# ================================================================== GD-4


def test_gd04_both_teams_start_at_2_and_the_first_deal_plays_2() -> None:
    setup = GAME.first_setup()
    assert setup.levels == (0, 0)
    state = GAME.new_deal(setup, seed=1)
    assert state.level == lv("2")
    assert state.events[0] == Event("deal", value=lv("2"))
    assert state.observe(0).public["level"] == lv("2")


def test_gd04_the_level_played_is_the_level_teams_level() -> None:
    setup = GuandanSetup(levels=(lv("5"), lv("9")), level_team=1, leader=0)
    state = GAME.new_deal(setup, hands=["9h 5s", "3s", "4s", "6s"])
    assert state.level == lv("9")
    assert state.observe(2).public["level"] == lv("9")
    assert state.observe(2).public["levels"] == (lv("5"), lv("9"))
    # the wild card is the heart of the level rank played: 9h makes a pair with 5s
    assert Action.from_str("play 5s 9h") in legal(state)


def test_gd04_the_other_teams_level_is_not_played() -> None:
    setup = GuandanSetup(levels=(lv("5"), lv("9")), level_team=0, leader=0)
    state = GAME.new_deal(setup, hands=["9h 5s", "3s", "4s", "6s"])
    assert state.level == lv("5")
    assert Action.from_str("play 5s 9h") not in legal(state)


def test_gd04_the_winners_team_plays_its_level_in_the_next_deal() -> None:
    state = GAME.new_deal(GuandanSetup(levels=(0, 0), level_team=0, leader=1),
                          hands=["6s 6d", "3s", "5s 5d", "4s"])
    act(state, "play 3s", "pass", "play 4s")  # seats 1 and 3 out: team 1 up 3
    outcome = state.outcome()
    following = outcome.next_setup
    assert outcome.details["winner_team"] == 1
    assert following.level_team == 1
    assert following.levels == (0, lv("5"))
    assert following.level == lv("5")
    assert following.previous_order == state.finishing_order


# ================================================================== GD-5


def natural_order(level: str) -> list[str]:
    """Singles from low to high at ``level`` as GD-5 lists them."""
    low = [f"{r}s" for r in RANKS if r != level]
    return [*low, f"{level}s", "SJ", "BJ"]


@pytest.mark.parametrize("level", list(RANKS))
def test_gd05_single_card_order_at_every_level(level: str) -> None:
    order = natural_order(level)
    values = [read(c, level).value for c in order]
    assert values == sorted(values)
    assert len(set(values)) == len(values)
    for low, high in pairwise(order):
        assert beats_text(high, low, level)
        assert not beats_text(low, high, level)


def test_gd05_level_card_is_above_the_ace_and_below_the_jokers() -> None:
    assert beats_text("7d", "As", "7")
    assert beats_text("SJ", "7d", "7")
    assert beats_text("BJ", "SJ", "7")
    assert read("7d", "7").value == 15
    assert read("7d", "7").rank_text(lv("7")) == "7"


def test_gd05_level_rank_leaves_its_natural_place() -> None:
    """Playing 7, the 7 no longer sits between 6 and 8: an 8 does not beat it."""
    assert not beats_text("8s", "7d", "7")
    assert beats_text("8s", "6d", "7")
    assert beats_text("8s", "7d", "2")  # playing 2, the 7 is ordinary


def test_gd05_playing_a_the_ace_is_the_level_card() -> None:
    assert read("As", "A").value == 15
    assert read("As", "A").rank_text(ACE) == "A"
    assert beats_text("As", "Ks", "A")
    assert beats_text("SJ", "Ad", "A")
    assert beats_text("Ks", "Qs", "A")
    assert beats_text("3s", "2s", "A")


def test_gd05_ten_level_card() -> None:
    assert beats_text("Td", "As", "T")
    assert not beats_text("Js", "Td", "T")
    assert read("Td", "T").rank_text(lv("T")) == "T"


def test_gd05_suits_never_matter() -> None:
    assert not beats_text("5h", "5s")
    assert not beats_text("5s", "5h")
    assert not beats_text("5h 5c", "5s 5d")
    assert not beats_text("2s", "2d")  # two level cards


def test_gd05_in_play_the_level_card_beats_an_ace() -> None:
    state = deal(["As 3s", "7d 4s", "5s", "6s"], level="7")
    act(state, "play As")
    assert legal(state) == acts("pass", "play 7d")


def test_gd05_in_play_an_equal_card_of_another_suit_does_not_beat() -> None:
    state = deal(["5s 3s", "5h 4s", "6d", "6c"])
    act(state, "play 5s")
    assert legal(state) == {PASS}
    with pytest.raises(IllegalActionError, match="GD-9"):
        act(state, "play 5h")


# ================================================================== GD-6


@pytest.mark.parametrize(
    ("text", "kind", "rank"),
    [
        ("3s 2h", Kind.PAIR, "3"),
        ("As 2h", Kind.PAIR, "A"),
        ("3s 2h 2h", Kind.TRIPLE, "3"),
        ("Ks Kd 2h", Kind.TRIPLE, "K"),
        ("3s 3d 3c 2h", Kind.BOMB, "3"),
        ("3s 3d 2h 2h", Kind.BOMB, "3"),
        ("3s 4d 5c 6s 2h", Kind.STRAIGHT, "7"),
        ("3s 5d 6c 2h 2h", Kind.STRAIGHT, "7"),
        ("Ts Jd Qc Ks 2h", Kind.STRAIGHT, "A"),
        ("3s 3d 4s 4d 2h", Kind.FULL_HOUSE, "4"),
        ("3s 3d 3c 4s 2h", Kind.FULL_HOUSE, "3"),
        ("3s 4d 4c 2h 2h", Kind.FULL_HOUSE, "4"),
        ("3s 3d 4s 4d 5s 2h", Kind.PAIR_RUN, "5"),
        ("3s 3d 3c 4s 4d 2h", Kind.TRIPLE_RUN, "4"),
        ("3s 4s 5s 6s 2h", Kind.STRAIGHT_FLUSH, "7"),
        ("Ts Js Qs Ks 2h", Kind.STRAIGHT_FLUSH, "A"),
        ("Js Qs As 2h 2h", Kind.STRAIGHT_FLUSH, "A"),
    ],
)
def test_gd06_wild_card_stands_for_any_card_in_any_combination(
    text: str, kind: Kind, rank: str
) -> None:
    found = read(text, "2")
    assert found.kind == kind
    assert found.rank_text(lv("2")) == rank


def test_gd06_wild_card_of_another_level() -> None:
    """Playing 9, the 9h is wild and the 2h is an ordinary 2."""
    assert read("Qs 9h", "9").kind == Kind.PAIR
    assert read("Qs 9h", "9").rank_text(lv("9")) == "Q"
    assert not is_combination("Qs 2h", "9")
    assert read("3s 3d 3c 9h", "9").kind == Kind.BOMB


def test_gd06_only_the_hearts_of_the_level_rank_are_wild() -> None:
    assert not is_combination("4s 3h", "2")
    assert read("4s 3h", "3").kind == Kind.PAIR
    assert not is_combination("4s 2s", "2")  # a spade level card is not wild
    assert not is_combination("4s 2d 2c", "2")


@pytest.mark.parametrize(
    "text",
    ["SJ 2h", "BJ 2h", "SJ SJ 2h", "BJ BJ 2h", "SJ SJ BJ 2h", "SJ BJ BJ 2h", "3s 3d 3c SJ 2h",
     "SJ BJ 2h 2h", "Ts Js Qs Ks SJ"],
)
def test_gd06_wild_card_never_stands_for_a_joker(text: str) -> None:
    assert not is_combination(text, "2")


def test_gd06_wild_card_used_as_itself_is_an_ordinary_level_card() -> None:
    assert read("2h", "2").value == 15
    assert beats_text("2h", "As", "2")
    assert beats_text("SJ", "2h", "2")
    assert not beats_text("2h", "2s", "2")
    assert not beats_text("2s", "2h", "2")
    assert read("7h", "7").value == 15


def test_gd06_two_wild_cards_are_a_pair_of_the_level_rank() -> None:
    pair = read("2h 2h", "2")
    assert (pair.kind, pair.value) == (Kind.PAIR, 15)
    assert beats_text("2h 2h", "As Ad", "2")
    assert not beats_text("2h 2h", "2s 2d", "2")
    assert beats_text("SJ SJ", "2h 2h", "2")


def test_gd06_wild_card_with_a_level_card_is_a_level_pair() -> None:
    assert read("2s 2h", "2").value == 15
    assert read("2s 2d 2h", "2").kind == Kind.TRIPLE
    bomb = read("2s 2d 2c 2h", "2")
    assert (bomb.kind, bomb.size, bomb.value) == (Kind.BOMB, 4, 15)


def test_gd06_wild_card_as_itself_in_a_sequence_takes_its_natural_place() -> None:
    straight = read("3s 4d 5c 6s 7h", "7")
    assert (straight.kind, straight.rank_text(lv("7"))) == (Kind.STRAIGHT, "7")
    flush = read("3h 4h 5h 6h 7h", "7")
    assert (flush.kind, flush.value) == (Kind.STRAIGHT_FLUSH, 7)


def test_gd06_legal_plays_use_the_wild_card() -> None:
    state = deal(["3s 3d 2h", "4s", "5s", "6s"])
    assert plays_of(state) == acts(
        "play 3s", "play 3d", "play 2h",
        "play 3s 3d", "play 3s 2h", "play 3d 2h",
        "play 3s 3d 2h",
    )


def test_gd06_wild_card_beats_the_table_as_another_rank() -> None:
    state = deal(["4s 4d", "As 2h 3c", "5s", "6s"])
    act(state, "play 4s 4d")
    assert legal(state) == acts("pass", "play As 2h")  # 3c 2h is only a pair of 3


# ================================================================== GD-7


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("Ts Jd Qc Ks Ah", Kind.STRAIGHT, 14),  # 10 J Q K A
        ("As 2d 3c 4s 5h", Kind.STRAIGHT, 5),  # A 2 3 4 5
        ("As Ad 2s 2d 3s 3c", Kind.PAIR_RUN, 3),  # AA 22 33
        ("Qs Qd Ks Kd As Ad", Kind.PAIR_RUN, 14),
        ("As Ad Ac 2s 2d 2c", Kind.TRIPLE_RUN, 2),  # AAA 222
        ("Ks Kd Kc As Ad Ac", Kind.TRIPLE_RUN, 14),
        ("Th Jh Qh Kh Ah", Kind.STRAIGHT_FLUSH, 14),
        ("Ad 2d 3d 4d 5d", Kind.STRAIGHT_FLUSH, 5),
    ],
)
def test_gd07_ace_may_be_high_or_low_in_sequences(text: str, kind: Kind, value: int) -> None:
    found = read(text, "9")
    assert (found.kind, found.value) == (kind, value)


@pytest.mark.parametrize(
    "text",
    [
        "Qs Kd Ac 2s 3h",  # Q K A 2 3
        "Ks Ad 2c 3s 4h",
        "Js Qd Kc As 2h",
        "Qs Ks As 2s 3s",
        "Ks Kd As Ad 2s 2d",
        "Ks Kd Kc 2s 2d 2c",
        "As Ad Ac Ks Kd Kc 2s",
    ],
)
def test_gd07_sequences_never_wrap(text: str) -> None:
    assert not is_combination(text, "9")


def test_gd07_a_wild_card_does_not_make_a_wrap() -> None:
    assert not is_combination("Ks As 3s 4d 2h", "2")
    assert not is_combination("Qs Kd As 3c 2h", "2")


def test_gd07_level_rank_keeps_its_natural_place_in_sequences() -> None:
    """Playing 7, 5 6 7 8 9 is a straight, and the 7 cannot sit above the A."""
    straight = read("5s 6d 7c 8s 9h", "7")
    assert (straight.kind, straight.rank_text(lv("7"))) == (Kind.STRAIGHT, "9")
    assert not is_combination("Ts Jd Qc Ks 7d", "7")
    assert not is_combination("Js Qd Kc As 7d", "7")
    assert read("6s 6d 7s 7d 8s 8d", "7").kind == Kind.PAIR_RUN
    assert read("7s 7d 7c 8s 8d 8c", "7").value == 8


def test_gd07_level_rank_ace_still_ends_or_starts_sequences() -> None:
    assert read("Ts Jd Qc Ks As", "A").value == 14
    assert read("As 2d 3c 4s 5s", "A").value == 5


@pytest.mark.parametrize(
    "text",
    [
        "Ts Js Qs Ks SJ",
        "3s 4d 5c 6s BJ",
        "3s 3d 4s 4d SJ SJ",
        "3s 3d 3c SJ SJ BJ",
        "SJ BJ 2s 3s 4s",
    ],
)
def test_gd07_sequences_never_contain_jokers(text: str) -> None:
    assert not is_combination(text, "9")


def test_gd07_sequences_need_consecutive_ranks() -> None:
    assert not is_combination("3s 4d 5c 6s 8h", "9")
    assert not is_combination("3s 3d 4s 4d 6s 6d", "9")
    assert not is_combination("3s 3d 3c 5s 5d 5c", "9")


# ================================================================== GD-8


@pytest.mark.parametrize(
    ("text", "kind", "rank"),
    [
        ("5s", Kind.SINGLE, "5"),
        ("SJ", Kind.SINGLE, "SJ"),
        ("BJ", Kind.SINGLE, "BJ"),
        ("5s 5h", Kind.PAIR, "5"),
        ("5s 5s", Kind.PAIR, "5"),
        ("SJ SJ", Kind.PAIR, "SJ"),
        ("BJ BJ", Kind.PAIR, "BJ"),
        ("5s 5d 5c", Kind.TRIPLE, "5"),
        ("5s 5d 5c 9s 9d", Kind.FULL_HOUSE, "5"),
        ("5s 5d 5c SJ SJ", Kind.FULL_HOUSE, "5"),
        ("5s 5d 5c BJ BJ", Kind.FULL_HOUSE, "5"),
        ("3s 3d 4s 4d 5s 5d", Kind.PAIR_RUN, "5"),
        ("3s 3d 3c 4s 4d 4c", Kind.TRIPLE_RUN, "4"),
        ("3s 4d 5c 6s 7h", Kind.STRAIGHT, "7"),
        ("5d 6d 7d 8d 9d", Kind.STRAIGHT_FLUSH, "9"),
        ("5s 5d 5c 5h", Kind.BOMB, "5"),
        ("SJ SJ BJ BJ", Kind.JOKER_BOMB, "BJ"),
    ],
)
def test_gd08_every_kind_of_combination(text: str, kind: Kind, rank: str) -> None:
    found = read(text, "9")
    assert found.kind == kind
    assert found.size == len(parse_cards(text))
    assert found.rank_text(lv("9")) == rank


def test_gd08_small_and_big_joker_are_not_a_pair() -> None:
    assert not is_combination("SJ BJ")


def test_gd08_only_the_four_jokers_make_a_joker_bomb() -> None:
    assert not is_combination("SJ SJ BJ")
    assert not is_combination("SJ BJ BJ")
    assert read("SJ SJ BJ BJ").kind == Kind.JOKER_BOMB


@pytest.mark.parametrize(
    "text",
    [
        "3s 3d 4s 4d",  # two consecutive pairs
        "3s 3d 4s 4d 5s 5d 6s 6d",  # four
        "3s 3d 3c 4s 4d 4c 5s 5d 5c",  # three consecutive triples
        "3s 4d 5c 6s",  # four in a row
        "3s 4d 5c 6s 7h 8c",  # six in a row
        "3s 4d 5c 6s 7h 8c 9d",
    ],
)
def test_gd08_sequences_have_exactly_their_length(text: str) -> None:
    assert not is_combination(text, "2")


@pytest.mark.parametrize(
    "text",
    [
        "3s 4s",
        "3s 3d 4s",
        "3s 3d 3c 4s 5s",
        "3s 3d 3c 3h 4s",
        "3s 3d 4s 4d 5s",
        "3s 3d 3c 4s 4d 4c 5s",
    ],
)
def test_gd08_other_sets_of_cards_are_no_combination(text: str) -> None:
    assert not is_combination(text, "9")


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("5s 5h 5d 5c", 4),
        ("5s 5h 5d 5c 5s", 5),
        ("5s 5h 5d 5c 5s 5h", 6),
        ("5s 5h 5d 5c 5s 5h 5d", 7),
        ("5s 5h 5d 5c 5s 5h 5d 5c", 8),
        ("5s 5h 5d 5c 5s 5h 5d 5c 2h", 9),
        ("5s 5h 5d 5c 5s 5h 5d 5c 2h 2h", 10),
    ],
)
def test_gd08_bombs_of_4_to_10_cards(text: str, size: int) -> None:
    bomb = read(text, "2")
    assert (bomb.kind, bomb.size, bomb.rank_text(lv("2"))) == (Kind.BOMB, size, "5")


def test_gd08_bomb_of_the_level_rank_with_both_wild_cards() -> None:
    bomb = read("2s 2d 2c 2s 2d 2c 2h 2h", "2")
    assert (bomb.kind, bomb.size, bomb.value) == (Kind.BOMB, 8, 15)


def test_gd08_bomb_tops_at_ten_cards_in_play() -> None:
    hand = "5s 5h 5d 5c 5s 5h 5d 5c 2h 2h"
    state = deal([hand + " 3s", "4s", "6s", "7s"])
    bombs = [a for a in plays_of(state) if read(format_cards(a.cards)).kind == Kind.BOMB]
    assert max(len(a.cards) for a in bombs) == 10
    assert Action.from_str("play " + hand) in bombs


def test_gd08_full_house_needs_a_triple_and_a_pair_of_another_rank() -> None:
    assert read("5s 5d 5c 2s 2d", "9").kind == Kind.FULL_HOUSE
    assert not is_combination("5s 5d 5c SJ BJ", "9")
    assert not is_combination("5s 5d 5c 9s 8d", "9")


def test_gd08_two_kinds_of_the_same_cards_must_be_named() -> None:
    """33 44 and two wild cards: 3 consecutive pairs or 2 consecutive triples."""
    kinds = {r.kind for r in reads("3s 3d 4s 4d 2h 2h", "2")}
    assert kinds == {Kind.PAIR_RUN, Kind.TRIPLE_RUN}


# ================================================================== GD-9


@pytest.mark.parametrize(
    ("higher", "lower"),
    [
        ("6s", "5s"),
        ("As", "Ks"),
        ("6s 6d", "5s 5d"),
        ("BJ BJ", "SJ SJ"),
        ("SJ SJ", "As Ad"),
        ("6s 6d 6c", "5s 5d 5c"),
        ("4s 4d 5s 5d 6s 6d", "3s 3d 4s 4d 5s 5d"),
        ("4s 4d 4c 5s 5d 5c", "3s 3d 3c 4s 4d 4c"),
        ("4s 5d 6c 7s 8h", "3s 4d 5c 6s 7h"),
        ("Ts Jd Qc Ks Ah", "9s Td Jc Qs Kh"),
        ("4d 5d 6d 7d 8d", "3c 4c 5c 6c 7c"),
    ],
)
def test_gd09_same_kind_and_size_higher_rank_beats(higher: str, lower: str) -> None:
    assert beats_text(higher, lower, "9")
    assert not beats_text(lower, higher, "9")


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("5s", "5d"),
        ("5s 5d", "5h 5c"),
        ("5s 5d 5c", "5h 5s 5d"),
        ("5s 5d 5c 8s 8d", "5h 5s 5d 3s 3d"),
        ("3s 4d 5c 6s 7h", "3d 4s 5h 6c 7d"),
        ("3s 3d 4s 4d 5s 5d", "3h 3c 4h 4c 5h 5c"),
        ("5s 5d 5c 5h", "5s 5d 5c 5h"),
        ("4s 5s 6s 7s 8s", "4d 5d 6d 7d 8d"),
    ],
)
def test_gd09_equal_does_not_beat(one: str, other: str) -> None:
    assert not beats_text(one, other, "9")
    assert not beats_text(other, one, "9")


@pytest.mark.parametrize(
    ("play", "table"),
    [
        ("As As", "3s"),
        ("3s 3d 3c", "As Ad"),
        ("As Ad Ac Ks Kd", "3s 4d 5c 6s 7h"),  # full house vs straight, both 5 cards
        ("Ts Jd Qc Ks Ah", "3s 3d 3c 4s 4d"),
        ("3s 3d 3c 4s 4d 4c", "3s 3d 4s 4d 5s 5d"),  # two kinds of six cards
        ("Ks Kd As Ad Qs Qd", "3s 3d 3c 4s 4d 4c"),
        ("BJ", "3s 3d"),
    ],
)
def test_gd09_different_kinds_never_beat_without_a_bomb(play: str, table: str) -> None:
    assert not beats_text(play, table, "9")


def test_gd09_full_house_compares_by_the_triple_only() -> None:
    assert beats_text("5s 5d 5c 3s 3d", "4s 4d 4c As Ad")
    assert not beats_text("4s 4d 4c As Ad", "5s 5d 5c 3s 3d")
    assert not beats_text("5s 5d 5c Ks Kd", "5h 5s 5d 3s 3d")
    assert beats_text("7s 7d 7c 3s 3d", "As Ad Ac Ks Kd", "7")  # a level-rank triple


def test_gd09_full_house_with_a_joker_pair_is_still_its_triple() -> None:
    assert not beats_text("4s 4d 4c BJ BJ", "5s 5d 5c 3s 3d")
    assert beats_text("6s 6d 6c 3s 3d", "5s 5d 5c BJ BJ")


@pytest.mark.parametrize(
    ("higher", "lower"),
    [
        ("2s 3d 4c 5s 6h", "As 2d 3c 4s 5h"),
        ("2s 2d 3s 3d 4s 4d", "As Ad 2s 2d 3s 3d"),
        ("2s 2d 2c 3s 3d 3c", "As Ad Ac 2s 2d 2c"),
        ("2d 3d 4d 5d 6d", "As 2s 3s 4s 5s"),
    ],
)
def test_gd09_ace_low_sequences_are_the_lowest(higher: str, lower: str) -> None:
    assert beats_text(higher, lower, "9")
    assert not beats_text(lower, higher, "9")


def test_gd09_ace_high_sequences_are_the_highest() -> None:
    assert beats_text("Ts Jd Qc Ks Ah", "9s Td Jc Qs Kh", "A")
    assert beats_text("Qs Qd Ks Kd As Ad", "Js Jd Qs Qd Ks Kd", "A")
    assert beats_text("Ks Kd Kc As Ad Ac", "Qs Qd Qc Ks Kd Kc", "A")


def test_gd09_a_sequence_holding_the_level_card_is_not_lifted() -> None:
    assert beats_text("4s 5d 6c 7s 8h", "3s 4d 5c 6s 7h", "7")
    assert not beats_text("3s 4d 5c 6s 7h", "4s 5d 6c 7s 8h", "7")
    assert not beats_text("5s 6d 7c 8s 9h", "9s Td Jc Qs Kh", "7")


# the whole bomb ladder, lowest first, at level 2
BOMB_LADDER = [
    "3s 3d 3c 3h",  # 4-card bombs by rank
    "As Ad Ac Ah",
    "2s 2d 2c 2s",  # level rank, above the A
    "3s 3d 3c 3h 3s",  # 5-card
    "As Ad Ac Ah As",
    "As 2s 3s 4s 5s",  # straight flushes by rank, A-low lowest
    "3h 4h 5h 6h 7h",
    "Td Jd Qd Kd Ad",
    "3s 3d 3c 3h 3s 3d",  # 6-card
    "3s 3d 3c 3h 3s 3d 3c",
    "3s 3d 3c 3h 3s 3d 3c 3h",
    "3s 3d 3c 3h 3s 3d 3c 3h 2h",
    "3s 3d 3c 3h 3s 3d 3c 3h 2h 2h",
    "SJ SJ BJ BJ",
]


def test_gd09_bomb_ladder_kinds() -> None:
    kinds = [read(b).kind for b in BOMB_LADDER]
    assert kinds == [Kind.BOMB] * 5 + [Kind.STRAIGHT_FLUSH] * 3 + [Kind.BOMB] * 5 + [
        Kind.JOKER_BOMB
    ]


def test_gd09_bomb_ladder_each_beats_every_lower_one() -> None:
    """4-card < 5-card < straight flush < 6 < 7 < 8 < 9 < 10 < joker bomb."""
    ladder = [read(b) for b in BOMB_LADDER]
    for i, low in enumerate(ladder):
        for high in ladder[i + 1 :]:
            assert beats(high, low), (high, low)
            assert not beats(low, high), (low, high)
        assert not beats(low, low)


@pytest.mark.parametrize("bomb", BOMB_LADDER)
@pytest.mark.parametrize(
    "table",
    ["BJ", "BJ BJ", "As Ad Ac", "Ts Jd Qc Ks Ah", "As Ad Ac Ks Kd", "Qs Qd Ks Kd As Ad",
     "Ks Kd Kc As Ad Ac"],
)
def test_gd09_every_bomb_beats_every_non_bomb(bomb: str, table: str) -> None:
    assert beats_text(bomb, table)
    assert not beats_text(table, bomb)


def test_gd09_more_cards_beat_fewer_whatever_the_rank() -> None:
    assert beats_text("3s 3d 3c 3h 3s", "2s 2d 2c 2s", "2")  # 5 threes beat 4 level cards
    assert beats_text("3s 3d 3c 3h 3s 3d", "As Ad Ac Ah As")


def test_gd09_equal_size_bombs_compare_by_rank() -> None:
    assert beats_text("4s 4d 4c 4h", "3s 3d 3c 3h")
    assert beats_text("7s 7d 7c 7h", "As Ad Ac Ah", "7")
    assert not beats_text("5s 5d 5c 5h", "5s 5d 5c 5h")


def test_gd09_straight_flush_beats_five_card_bomb_and_loses_to_six() -> None:
    sf = "As 2s 3s 4s 5s"  # the lowest straight flush
    assert beats_text(sf, "Ks Kd Kc Ks Kd", "K")  # five level cards
    assert beats_text(sf, "Ks Kd Kc Kh", "K")
    assert not beats_text(sf, "3s 3d 3c 3h 3s 3d", "K")
    assert beats_text("3s 3d 3c 3h 3s 3d", "Td Jd Qd Kd Ad", "K")


def test_gd09_straight_flushes_compare_by_rank() -> None:
    assert beats_text("4d 5d 6d 7d 8d", "3c 4c 5c 6c 7c")
    assert not beats_text("4d 5d 6d 7d 8d", "4c 5c 6c 7c 8c")
    assert beats_text("2s 3s 4s 5s 6s", "As 2d 3d 4d 5d", "9")


def test_gd09_a_plain_straight_does_not_beat_a_straight_flush() -> None:
    assert not beats_text("Ts Jd Qc Ks Ah", "3c 4c 5c 6c 7c")
    assert beats_text("3c 4c 5c 6c 7c", "Ts Jd Qc Ks Ah")


def test_gd09_joker_bomb_beats_everything() -> None:
    joker_bomb = read("SJ SJ BJ BJ")
    for other in BOMB_LADDER[:-1]:
        assert beats(joker_bomb, read(other))
    assert not beats(joker_bomb, joker_bomb)


def test_gd09_reading_powers_order_the_ladder() -> None:
    four = reading(Kind.BOMB, 14, 4)
    five = reading(Kind.BOMB, 14, 5)
    flush = reading(Kind.STRAIGHT_FLUSH, 14, 5)
    six = reading(Kind.BOMB, 3, 6)
    ten = reading(Kind.BOMB, 3, 10)
    jokers = reading(Kind.JOKER_BOMB, 17, 4)
    assert four.power < five.power < flush.power < six.power < ten.power < jokers.power


def test_gd09_in_play_only_higher_plays_of_the_same_kind_and_bombs_answer() -> None:
    state = deal(["5s 5d 3c", "4s 4d 6s 6d 9s 9d 9c 9h 7c", "8s", "8d"])
    act(state, "play 5s 5d")
    assert legal(state) == acts(
        "pass", "play 6s 6d", "play 9s 9d", "play 9s 9c", "play 9s 9h", "play 9d 9c",
        "play 9d 9h", "play 9c 9h", "play 9s 9d 9c 9h",
    )


def test_gd09_in_play_a_bomb_is_answered_only_by_a_higher_bomb() -> None:
    hands = ["5s 5d 5c 5h 3c", "6s 6d 6c 6h 4s 4d 4c 4h As Ad", "8s", "8d"]
    state = deal(hands)
    act(state, "play 5s 5d 5c 5h")
    assert legal(state) == acts("pass", "play 6s 6d 6c 6h")


def test_gd09_in_play_a_smaller_bomb_does_not_beat_a_bigger_one() -> None:
    state = deal(["5s 5d 5c 5h 5s 3c", "As Ad Ac Ah", "8s", "8d"])
    act(state, "play 5s 5d 5c 5h 5s")
    assert legal(state) == {PASS}
    with pytest.raises(IllegalActionError, match="GD-9"):
        act(state, "play As Ad Ac Ah")


# ================================================================== GD-10


TRICK_HANDS = ["3s 9s Ks 6c", "4s Qs 7c 8c", "5d 6d 7d 8d", "4d 4c 6h 6s"]


def test_gd10_the_leader_must_play() -> None:
    state = deal(TRICK_HANDS)
    assert PASS not in legal(state)
    with pytest.raises(IllegalActionError, match="GD-10"):
        state.apply(PASS)


def test_gd10_the_leader_may_play_any_combination() -> None:
    state = deal(TRICK_HANDS)
    assert plays_of(state) == expected_plays(TRICK_HANDS[0], "2")
    assert Action.from_str("play 6c") in legal(state)


def test_gd10_turns_pass_to_the_next_player() -> None:
    state = deal(TRICK_HANDS, leader=2)
    seats = [state.to_act]
    act(state, "play 5d")
    seats.append(state.to_act)
    act(state, "pass")
    seats.append(state.to_act)
    act(state, "pass")
    seats.append(state.to_act)
    assert seats == [2, 3, 0, 1]


def test_gd10_the_next_player_may_pass_or_play_only_what_beats() -> None:
    state = deal(TRICK_HANDS)
    act(state, "play 9s")
    assert legal(state) == acts("pass", "play Qs")


def test_gd10_a_play_that_does_not_beat_is_illegal() -> None:
    state = deal(TRICK_HANDS)
    act(state, "play 9s")
    with pytest.raises(IllegalActionError, match="GD-9"):
        act(state, "play 7c")
    assert state.to_act == 1
    assert hand_is(state, 1, TRICK_HANDS[1])


def test_gd10_cards_that_are_no_combination_are_illegal() -> None:
    state = deal(TRICK_HANDS)
    with pytest.raises(IllegalActionError, match="GD-8"):
        act(state, "play 3s 9s")


def test_gd10_cards_not_in_hand_are_illegal() -> None:
    state = deal(TRICK_HANDS)
    with pytest.raises(IllegalActionError, match="not in the hand"):
        act(state, "play As")
    with pytest.raises(IllegalActionError):
        state.parse_action("play As")


def test_gd10_passing_does_not_stop_a_player_from_playing_later() -> None:
    state = deal(TRICK_HANDS)
    act(state, "play 3s", "pass", "play 5d", "pass", "play 9s")
    assert state.to_act == 1  # seat 1 passed earlier in this trick
    assert Action.from_str("play Qs") in legal(state)
    act(state, "play Qs")
    assert state.table[0] == 1
    assert state.events[-1] == Event("play", 1, card("Qs"), value=12, tag="single")


def test_gd10_three_passes_in_a_row_end_the_trick_and_the_last_player_leads() -> None:
    state = deal(TRICK_HANDS)
    act(state, "play 3s", "pass", "play 5d", "pass", "play 9s", "play Qs", "pass", "pass")
    assert state.to_act == 0 and state.table[2] is not None  # two passes: the trick goes on
    act(state, "pass")
    assert state.to_act == 1
    assert state.table[2] is None
    assert state.events[-1] == Event("lead", 1)
    assert PASS not in legal(state)
    assert plays_of(state) == expected_plays("4s 7c 8c", "2")


def test_gd10_after_a_trick_the_new_leader_may_play_any_kind() -> None:
    state = deal(TRICK_HANDS)
    act(state, "play 3s", "pass", "pass", "pass")
    assert state.to_act == 0
    act(state, "play 9s")  # a single again is fine, so is anything else
    assert state.to_act == 1


def test_gd10_events_record_plays_and_passes() -> None:
    state = deal(TRICK_HANDS)
    act(state, "play 3s", "pass")
    assert state.events[-2:] == [
        Event("play", 0, card("3s"), value=3, tag="single"),
        Event("pass", 1),
    ]
    assert state.observe(3).events == tuple(state.events)


def test_gd10_observation_lists_legal_actions_only_for_the_seat_to_act() -> None:
    state = deal(TRICK_HANDS)
    assert set(state.observe(0).legal_actions) == legal(state)
    for seat in (1, 2, 3):
        assert state.observe(seat).legal_actions == ()
    act(state, "play 3s")
    table = state.observe(2).public["table"]
    assert table["seat"] == 0
    assert table["cards"] == "3s"
    assert table["kind"] == "single"


# ================================================================== GD-11


JIEFENG_HANDS = ["As", "3s 4s", "5s 6s", "7s 8s"]


def test_gd11_partner_leads_when_the_trick_winner_is_out() -> None:
    state = deal(JIEFENG_HANDS)
    act(state, "play As")
    assert events_of(state, "out") == [Event("out", 0, value=1)]
    assert legal(state) == {PASS}
    act(state, "pass", "pass", "pass")
    assert state.events[-1] == Event("lead", 2, tag="partner")
    assert state.to_act == 2
    assert state.table[2] is None


def test_gd11_players_who_are_out_are_skipped() -> None:
    state = deal(JIEFENG_HANDS)
    act(state, "play As", "pass", "pass", "pass", "play 5s")
    assert state.to_act == 3
    act(state, "play 7s")
    assert state.to_act == 1  # seat 0 is out


def test_gd11_with_a_player_out_two_passes_end_a_trick() -> None:
    state = deal(JIEFENG_HANDS)
    act(state, "play As", "pass", "pass", "pass", "play 5s", "play 7s", "pass")
    assert state.to_act == 2
    act(state, "pass")
    assert state.events[-1] == Event("lead", 3)
    assert state.to_act == 3


def test_gd11_a_player_who_beats_the_last_card_leads_not_the_partner() -> None:
    state = deal(["5s", "As 3s", "6s 7s", "8s 9s"])
    act(state, "play 5s", "play As", "pass")
    assert state.to_act == 3
    act(state, "pass")
    assert state.events[-1] == Event("lead", 1)


def test_gd11_partner_of_an_out_player_may_also_beat_before_leading() -> None:
    state = deal(["5s", "6s 3s", "As 7s", "8s 9s"])
    act(state, "play 5s", "play 6s", "play As", "pass", "pass")
    assert state.events[-1] == Event("lead", 2)  # seat 2 won the trick itself


# ================================================================== GD-12


ELEVEN = [
    "3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As",  # twelve
    "3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd",
    "3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc",
    "3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh",
]


def test_gd12_counts_above_ten_are_not_public() -> None:
    state = deal(ELEVEN)
    for seat in range(4):
        assert state.observe(seat).public["counts"] == [None, None, None, None]
    seeded = GAME.new_deal(GuandanSetup(), seed=9)
    assert seeded.observe(0).public["counts"] == [None, None, None, None]


def test_gd12_count_of_eleven_after_a_play_stays_hidden() -> None:
    state = deal(ELEVEN)
    act(state, "play 3s")
    assert state.observe(1).public["counts"][0] is None
    assert not events_of(state, "announce")


def test_gd12_count_of_ten_is_announced_and_public() -> None:
    state = deal(ELEVEN)
    act(state, "play 3s", "pass", "pass", "pass", "play 4s")
    assert events_of(state, "announce") == [Event("announce", 0, value=10)]
    assert state.events[-1] == Event("announce", 0, value=10)
    for seat in range(4):
        assert state.observe(seat).public["counts"] == [10, None, None, None]


def test_gd12_announced_count_stays_exact_and_is_announced_once() -> None:
    state = deal(ELEVEN)
    act(state, "play 3s", "pass", "pass", "pass", "play 4s", "pass", "pass", "pass", "play 5s")
    assert state.observe(2).public["counts"] == [9, None, None, None]
    assert len(events_of(state, "announce")) == 1


def test_gd12_announce_after_a_play_that_drops_below_ten() -> None:
    state = deal(ELEVEN, leader=1)
    act(state, "play 3d 4d 5d 6d 7d")  # a straight flush: 11 → 6 cards
    assert events_of(state, "announce") == [Event("announce", 1, value=6)]
    assert state.observe(0).public["counts"] == [None, 6, None, None]


# ================================================================== GD-13


def test_gd13_last_player_gives_tribute_to_the_first_player() -> None:
    state = deal_after((0, 1, 2, 3), ["3s 4s", "5d 6d", "7d 8d", "Ad 9c"])
    assert state.phase == "tribute"
    assert state.to_act == 3
    act(state, "tribute Ad")
    assert events_of(state, "tribute") == [Event("tribute", 3, card("Ad"), target=0)]
    assert hand_is(state, 0, "3s 4s Ad")
    assert hand_is(state, 3, "9c")
    assert state.phase == "return"
    assert state.to_act == 0


@pytest.mark.parametrize(
    ("hand", "level", "allowed"),
    [
        ("BJ SJ As 3s", "2", ["BJ"]),
        ("SJ SJ As", "2", ["SJ"]),
        ("Ad Ac Ks 9c", "2", ["Ad", "Ac"]),  # equal highest: any one
        ("As As Kd", "2", ["As"]),  # identical cards: one action
        ("2s 2d As", "2", ["2s", "2d"]),  # level cards are above the A
        ("2h As Ks", "2", ["As"]),  # never the wild card
        ("2h 2h 3s", "2", ["3s"]),
        ("2h 2s As", "2", ["2s"]),
        ("7s 7h Ad", "7", ["7s"]),
        ("Ah As Kd", "A", ["As"]),
        ("Ah Kd Kc", "A", ["Kd", "Kc"]),
    ],
)
def test_gd13_tribute_is_the_highest_card_never_the_wild_card(
    hand: str, level: str, allowed: list[str]
) -> None:
    state = deal_after((0, 1, 2, 3), ["3d 4d", "5d 6d", "7d 8d", hand], level=level)
    assert legal(state) == acts(*(f"tribute {c}" for c in allowed))


def test_gd13_giving_the_wild_card_is_illegal() -> None:
    state = deal_after((0, 1, 2, 3), ["3s 4s", "5d 6d", "7d 8d", "2h As Ks"])
    with pytest.raises(IllegalActionError, match="GD-13"):
        act(state, "tribute 2h")
    with pytest.raises(IllegalActionError, match="GD-13"):
        act(state, "tribute Ks")
    assert state.phase == "tribute"


def test_gd13_return_to_an_opponent_may_be_any_card() -> None:
    state = deal_after((0, 1, 2, 3), ["3s Ts Js BJ SJ", "5d 6d", "7d 8d", "Ad 9c"])
    act(state, "tribute Ad")
    assert legal(state) == acts(
        "return 3s", "return Ts", "return Js", "return SJ", "return BJ", "return Ad"
    )
    act(state, "return BJ")
    assert events_of(state, "return") == [Event("return", 0, card("BJ"), target=3)]
    assert hand_is(state, 3, "9c BJ")
    assert hand_is(state, 0, "3s Ts Js SJ Ad")


def test_gd13_return_to_a_partner_is_a_card_of_rank_2_to_10() -> None:
    """Order 0, 1, 3, 2: the last player is the first player's partner."""
    state = deal_after((0, 1, 3, 2), ["2s 9s Ts Js As SJ BJ", "5d 6d", "Ad 9c", "7d 8d"])
    assert state.to_act == 2
    act(state, "tribute Ad")
    assert events_of(state, "tribute") == [Event("tribute", 2, card("Ad"), target=0)]
    assert legal(state) == acts("return 2s", "return 9s", "return Ts")
    for bad in ("Js", "As", "Ad", "SJ", "BJ"):
        with pytest.raises(IllegalActionError, match="GD-13"):
            act(state, f"return {bad}")
    act(state, "return Ts")
    assert hand_is(state, 2, "9c Ts")


def test_gd13_the_tributer_leads_the_first_trick() -> None:
    state = deal_after((1, 2, 3, 0), ["Ad 9c", "3s 4s", "5d 6d", "7d 8d"])
    act(state, "tribute Ad", "return 3s")
    assert state.phase == "play"
    assert state.to_act == 0
    assert state.events[-1] == Event("lead", 0)
    assert PASS not in legal(state)


def test_gd13_tribute_and_return_must_be_one_card_of_the_right_verb() -> None:
    state = deal_after((0, 1, 2, 3), ["3s 4s", "5d 6d", "7d 8d", "Ad 9c"])
    with pytest.raises(IllegalActionError):
        act(state, "play Ad")
    with pytest.raises(IllegalActionError):
        act(state, "tribute Ad 9c")
    with pytest.raises(IllegalActionError):
        act(state, "tribute BJ")
    act(state, "tribute Ad")
    with pytest.raises(IllegalActionError):
        act(state, "return 5d")  # not in the receiver's hand


def test_gd04_gd14_next_deal_tribute_is_read_at_the_winners_level() -> None:
    """The next deal of a match owes tribute; its level is the winner's (5 here)."""
    first = GAME.new_deal(GuandanSetup(leader=0), hands=list(DOUBLE_DOWN_HANDS))
    finish_double_down(first)
    following = first.outcome().next_setup
    assert following.previous_order == (0, 2, 3, 1)
    assert following.level == lv("5")
    state = GAME.new_deal(following, hands=["3s 4s", "As 5s 6s", "8s 9s", "Ad 5h 7d"])
    assert state.phase == "tribute"
    offered = {}
    while state.phase == "tribute":
        seat = state.to_act
        (only,) = state.legal_actions()
        offered[seat] = only
        state.apply(only)
    assert offered == {1: Action.from_str("tribute 5s"), 3: Action.from_str("tribute Ad")}
    assert tribute_targets(state) == {1: (0, "5s"), 3: (2, "Ad")}  # the 5 is above the A


def test_gd13_seeded_next_deal_of_a_match_starts_with_single_tribute() -> None:
    first = GAME.new_deal(GuandanSetup(), seed=21)
    play_randomly(first, 21)
    following = first.outcome().next_setup
    assert following.previous_order == (0, 3, 2, 1)  # partners not first and second
    state = GAME.new_deal(following, seed=22)
    assert state.phase == "tribute"
    assert state.to_act == 1  # the last player
    wild = parse_card(RANKS[state.level] + "h")
    values = {c: play_readings((c,), state.level)[0].value for c in state.hand(1) if c != wild}
    top = max(values.values())
    assert legal(state) == {Action("tribute", (c,)) for c, v in values.items() if v == top}


# ================================================================== GD-14


def double_tribute(order: Sequence[int], hands: Sequence[str], level: str = "2") -> GuandanState:
    state = deal_after(order, hands, level=level)
    assert state.phase == "tribute"
    while state.phase == "tribute":
        actions = state.legal_actions()
        state.apply(actions[0])
    return state


def tribute_targets(state: GuandanState) -> dict[int, tuple[int, str]]:
    return {e.seat: (e.target, format_cards(e.cards)) for e in events_of(state, "tribute")}


def test_gd14_both_losers_give_tribute_after_a_double_down() -> None:
    state = deal_after((0, 2, 1, 3), ["3s 4s", "BJ 6s", "8s 9s", "Ad 7d"])
    assert state.phase == "tribute"
    givers = []
    while state.phase == "tribute":
        givers.append(state.to_act)
        state.apply(state.legal_actions()[0])
    assert sorted(givers) == [1, 3]


def test_gd14_higher_card_goes_to_the_first_player_lower_to_the_second() -> None:
    state = double_tribute((0, 2, 1, 3), ["3s 4s", "BJ 6s", "8s 9s", "Ad 7d"])
    assert tribute_targets(state) == {1: (0, "BJ"), 3: (2, "Ad")}
    assert hand_is(state, 0, "3s 4s BJ")
    assert hand_is(state, 2, "8s 9s Ad")


def test_gd14_higher_card_of_either_loser_goes_to_the_first_player() -> None:
    state = double_tribute((0, 2, 1, 3), ["3s 4s", "Ad 6s", "8s 9s", "SJ 7d"])
    assert tribute_targets(state) == {3: (0, "SJ"), 1: (2, "Ad")}


def test_gd14_second_player_sitting_before_the_first() -> None:
    state = double_tribute((2, 0, 3, 1), ["3s 4s", "Ad 6s", "8s 9s", "BJ 7d"])
    assert tribute_targets(state) == {3: (2, "BJ"), 1: (0, "Ad")}


def test_gd14_higher_uses_the_level_order() -> None:
    """Playing 7, a 7 is higher than an A."""
    state = double_tribute((0, 2, 1, 3), ["3s 4s", "7s 3d", "8s 9s", "As 4d"], level="7")
    assert tribute_targets(state) == {1: (0, "7s"), 3: (2, "As")}


def test_gd14_double_tributers_never_give_the_wild_card() -> None:
    state = deal_after((0, 2, 1, 3), ["3s 4s", "7h 7s 3d", "8s 9s", "7h Kd"], level="7")
    offered = {}
    while state.phase == "tribute":
        offered[state.to_act] = legal(state)
        state.apply(state.legal_actions()[0])
    assert offered == {1: acts("tribute 7s"), 3: acts("tribute Kd")}
    assert tribute_targets(state) == {1: (0, "7s"), 3: (2, "Kd")}


@pytest.mark.parametrize(
    ("order", "hands", "receivers"),
    [
        # seat s + 1 is s's 下家, on s's right (C-2; seed 位于右方的对手为下家), so clockwise
        # is to the left, to the 上家 s - 1: loser 1 gives to seat 0, loser 3 to seat 2
        ((0, 2, 1, 3), ["3s 4s", "Ad 6s", "8s 9s", "As 7d"], {1: 0, 3: 2}),
        ((2, 0, 3, 1), ["3s 4s", "Ad 6s", "8s 9s", "As 7d"], {1: 0, 3: 2}),
        ((0, 2, 3, 1), ["3s 4s", "Ad 6s", "8s 9s", "Ad 7d"], {1: 0, 3: 2}),
        ((1, 3, 0, 2), ["Ad 6s", "3s 4s", "As 7d", "8s 9s"], {0: 3, 2: 1}),
        ((3, 1, 2, 0), ["Ad 6s", "3s 4s", "As 7d", "8s 9s"], {0: 3, 2: 1}),
    ],
)
def test_gd14_equal_tribute_cards_go_clockwise_to_each_losers_shangjia(
    order: tuple[int, ...], hands: list[str], receivers: dict[int, int]
) -> None:
    """GD-14: equal tribute cards go clockwise (顺时针): each loser gives to the winner
    sitting before them in the turn (their 上家), whoever of the two finished first."""
    state = double_tribute(order, hands)
    assert {giver: target for giver, (target, _) in tribute_targets(state).items()} == receivers


def test_gd14_equal_level_cards_go_clockwise() -> None:
    state = double_tribute((0, 2, 1, 3), ["3s 4s", "2s 6s", "8s 9s", "2d 7d"])
    assert {g: t for g, (t, _) in tribute_targets(state).items()} == {1: 0, 3: 2}
    assert hand_is(state, 0, "3s 4s 2s")
    assert hand_is(state, 2, "8s 9s 2d")


@pytest.mark.parametrize(
    ("order", "returns"),
    [((0, 2, 1, 3), {0: 1, 2: 3}), ((2, 0, 3, 1), {0: 1, 2: 3}), ((1, 3, 0, 2), {3: 0, 1: 2})],
)
def test_gd14_equal_tribute_returns_go_counter_clockwise_to_each_giver(
    order: tuple[int, ...], returns: dict[int, int]
) -> None:
    """GD-14: after an equal double tribute each winner returns to the loser who gave to
    them, counter-clockwise (逆时针): to the winner's 下家; returns are revealed together."""
    hands = ["3s 4s", "Ad 6s", "8s 9s", "As 7d"]
    if order[0] % 2:
        hands = ["Ad 6s", "3s 4s", "As 7d", "8s 9s"]
    state = double_tribute(order, hands)
    returned = {}
    while state.phase == "return":
        seat = state.to_act
        action = min(state.legal_actions(), key=lambda a: a.cards[0])
        returned[seat] = action.cards[0]
        state.apply(action)
    assert {e.seat: e.target for e in events_of(state, "return")} == returns
    for winner, loser in returns.items():
        assert returned[winner] in state.hand(loser)


def test_gd14_returns_go_back_to_each_giver_and_may_be_any_card() -> None:
    state = double_tribute((0, 2, 1, 3), ["3s BJ", "SJ 6s", "8s 9s", "Ad 7d"])
    assert state.phase == "return"
    returns = {}
    while state.phase == "return":
        seat = state.to_act
        actions = legal(state)
        assert actions == {Action("return", (c,)) for c in set(state.hand(seat))}
        choice = max(actions, key=lambda a: a.cards[0])
        returns[seat] = choice.cards[0]
        state.apply(choice)
    assert {e.seat: e.target for e in events_of(state, "return")} == {0: 1, 2: 3}
    assert parse_card("BJ") in state.hand(1)  # seat 0 returned its big joker


def test_gd14_returns_are_face_down_until_both_are_made() -> None:
    state = double_tribute((0, 2, 1, 3), ["3s 4s", "BJ 6s", "8s 9s", "Ad 7d"])
    first_returner = state.to_act
    second_returner = 2 if first_returner == 0 else 0
    giver_of_first = 1 if first_returner == 0 else 3
    hand_before = state.hand(giver_of_first)
    returned = min(state.legal_actions(), key=lambda a: a.cards[0])
    state.apply(returned)
    assert state.phase == "return"
    assert state.to_act == second_returner
    assert not events_of(state, "return")
    for seat in range(4):
        observation = state.observe(seat)
        assert all(e.kind != "return" for e in observation.events)
        if seat != first_returner:
            assert "return_given" not in observation.private
    assert state.observe(first_returner).private["return_given"] == format_cards(returned.cards)
    assert state.hand(giver_of_first) == hand_before  # not yet received
    assert set(state.observe(second_returner).legal_actions) == legal(state)
    state.apply(state.legal_actions()[0])
    returns = events_of(state, "return")
    assert len(returns) == 2
    assert {e.seat for e in returns} == {0, 2}
    kinds = [e.kind for e in state.events]
    assert kinds[-3:] == ["return", "return", "lead"]  # revealed at once
    assert returned.cards[0] in state.hand(giver_of_first)


@pytest.mark.parametrize(
    ("order", "leader"),
    [((0, 2, 1, 3), 1), ((2, 0, 3, 1), 3), ((1, 3, 0, 2), 2), ((3, 1, 2, 0), 0)],
)
def test_gd14_the_first_players_next_seat_leads(order: tuple[int, ...], leader: int) -> None:
    hands = ["3s 4s", "5d 6d", "7d 8d", "9c Tc"]
    state = double_tribute(order, hands)
    while state.phase == "return":
        state.apply(state.legal_actions()[0])
    assert state.phase == "play"
    assert state.to_act == leader
    assert state.events[-1] == Event("lead", leader)


def test_gd14_equal_tribute_still_led_by_the_first_players_next_seat() -> None:
    state = double_tribute((0, 2, 1, 3), ["3s 4s", "Ad 6s", "8s 9s", "As 7d"])
    while state.phase == "return":
        state.apply(state.legal_actions()[0])
    assert state.to_act == 1


# ================================================================== GD-15


def test_gd15_single_tributer_with_both_big_jokers_refuses() -> None:
    hands = ["3s 4s", "5d 6d", "7d 8d", "BJ BJ 9c"]
    state = deal_after((0, 1, 2, 3), hands)
    assert state.phase == "play"
    assert state.to_act == 0  # the first player leads
    assert events_of(state, "refuse_tribute") == [Event("refuse_tribute", 3)]
    assert not events_of(state, "tribute")
    for seat, hand in enumerate(hands):
        assert hand_is(state, seat, hand)
        assert any(e.kind == "refuse_tribute" for e in state.observe(seat).events)


def test_gd15_single_tributer_with_one_big_joker_pays() -> None:
    state = deal_after((0, 1, 2, 3), ["3s 4s", "BJ 6d", "7d 8d", "BJ 9c"])
    assert state.phase == "tribute"
    assert legal(state) == acts("tribute BJ")


def test_gd15_small_jokers_do_not_refuse_tribute() -> None:
    state = deal_after((0, 1, 2, 3), ["3s 4s", "5d 6d", "7d 8d", "SJ SJ 9c"])
    assert state.phase == "tribute"
    assert legal(state) == acts("tribute SJ")


@pytest.mark.parametrize(
    "hands",
    [
        ["3s 4s", "BJ 6s", "8s 9s", "BJ 7d"],  # one each
        ["3s 4s", "BJ BJ 6s", "8s 9s", "7d"],  # one holds both
        ["3s 4s", "6s", "8s 9s", "BJ BJ 7d"],
    ],
)
def test_gd15_double_tribute_refused_when_the_losers_hold_both_big_jokers(
    hands: list[str],
) -> None:
    state = deal_after((0, 2, 1, 3), hands)
    assert state.phase == "play"
    assert state.to_act == 0
    refusals = events_of(state, "refuse_tribute")
    assert len(refusals) == 1
    assert not events_of(state, "tribute")
    for seat, hand in enumerate(hands):
        assert hand_is(state, seat, hand)
    assert all(refusals[0] in state.observe(seat).events for seat in range(4))


def test_gd15_double_tribute_refused_first_player_leads_when_seated_later() -> None:
    state = deal_after((3, 1, 0, 2), ["BJ 3s", "4s", "BJ 5s", "6s"])
    assert state.phase == "play"
    assert state.to_act == 3


def test_gd15_double_tribute_paid_with_only_one_big_joker_among_losers() -> None:
    state = deal_after((0, 2, 1, 3), ["BJ 3s 4s", "BJ 6s", "8s 9s", "7d"])
    assert state.phase == "tribute"
    assert not events_of(state, "refuse_tribute")


# ================================================================== GD-16


@pytest.mark.parametrize(
    ("order", "gain"),
    [
        ((0, 2, 1, 3), 3),
        ((0, 2, 3, 1), 3),
        ((0, 1, 2, 3), 2),
        ((0, 3, 2, 1), 2),
        ((0, 1, 3, 2), 1),
        ((0, 3, 1, 2), 1),
        ((1, 3, 0, 2), 3),
        ((3, 0, 1, 2), 2),
        ((2, 1, 3, 0), 1),
    ],
)
def test_gd16_gain_by_the_first_players_partner_place(order: tuple[int, ...], gain: int) -> None:
    assert level_gain(order) == gain
    outcome = settle(GuandanSetup(), order)
    winner = team_of(order[0])
    assert outcome.details["gain"] == gain
    assert outcome.details["winner_team"] == winner
    levels = [0, 0]
    levels[winner] = gain
    assert outcome.details["levels_after"] == levels
    assert outcome.next_setup.levels == tuple(levels)


def test_gd16_only_the_first_players_team_goes_up() -> None:
    setup = GuandanSetup(levels=(lv("5"), lv("9")), level_team=1)
    outcome = settle(setup, (0, 1, 2, 3))
    assert outcome.next_setup.levels == (lv("7"), lv("9"))
    outcome = settle(setup, (1, 2, 3, 0))
    assert outcome.next_setup.levels == (lv("5"), lv("J"))


def test_gd16_scores_are_the_gain_for_winners_and_minus_gain_for_losers() -> None:
    assert settle(GuandanSetup(), (1, 3, 0, 2)).scores == (-3, 3, -3, 3)
    assert settle(GuandanSetup(), (0, 1, 3, 2)).scores == (1, -1, 1, -1)


@pytest.mark.parametrize(
    ("start", "order", "after"),
    [
        ("Q", (0, 2, 1, 3), "A"),  # the rules' example: Q + 3 stops at A
        ("K", (0, 2, 1, 3), "A"),
        ("K", (0, 1, 2, 3), "A"),
        ("J", (0, 2, 1, 3), "A"),
        ("T", (0, 2, 1, 3), "K"),
        ("Q", (0, 1, 3, 2), "K"),
    ],
)
def test_gd16_levels_stop_at_a(start: str, order: tuple[int, ...], after: str) -> None:
    setup = GuandanSetup(levels=(lv(start), 0), level_team=1)  # not playing its own A
    outcome = settle(setup, order)
    assert outcome.next_setup.levels == (lv(after), 0)
    assert outcome.match_winner is None


def test_gd16_outcome_of_a_played_deal() -> None:
    state = deal(THREE_OUT_HANDS)
    finish_three_out(state)
    outcome = state.outcome()
    assert outcome.details["order"] == [0, 1, 3, 2]
    assert outcome.details["gain"] == 1
    assert outcome.details["levels_after"] == [1, 0]
    assert outcome.next_setup.previous_order == (0, 1, 3, 2)
    assert outcome.next_setup.level_team == 0
    assert outcome.next_setup.level == lv("3")


def test_gd16_double_down_in_play_gains_three() -> None:
    state = deal(DOUBLE_DOWN_HANDS)
    finish_double_down(state)
    outcome = state.outcome()
    assert outcome.details["gain"] == 3
    assert outcome.next_setup.levels == (lv("5"), lv("2"))


# ================================================================== GD-17


def at_a(level_team: int = 0, other: str = "9", failures: tuple[int, int] = (0, 0)) -> GuandanSetup:
    levels = [lv(other), lv(other)]
    levels[0] = ACE
    return GuandanSetup(
        levels=(levels[0], levels[1]), level_team=level_team, a_failures=failures
    )


@pytest.mark.parametrize("order", [(0, 2, 1, 3), (0, 2, 3, 1), (0, 1, 2, 3), (2, 3, 0, 1)])
def test_gd17_winning_own_a_with_partner_not_last_wins_the_match(order: tuple[int, ...]) -> None:
    outcome = settle(at_a(), order)
    assert outcome.match_winner == 0
    assert outcome.match_over
    assert outcome.next_setup is None
    assert outcome.details["match_winner"] == 0


@pytest.mark.parametrize("order", [(0, 1, 3, 2), (2, 3, 1, 0), (0, 3, 1, 2)])
def test_gd17_winning_own_a_with_partner_last_plays_a_again(order: tuple[int, ...]) -> None:
    outcome = settle(at_a(), order)
    assert outcome.match_winner is None
    assert not outcome.match_over
    assert outcome.next_setup.levels[0] == ACE
    assert outcome.next_setup.level_team == 0
    assert outcome.next_setup.level == ACE


def test_gd17_winning_at_the_other_teams_level_does_not_end_the_match() -> None:
    outcome = settle(at_a(level_team=1), (0, 2, 1, 3))
    assert outcome.match_winner is None
    assert outcome.next_setup.levels == (ACE, lv("9"))
    assert outcome.next_setup.level_team == 0
    assert outcome.next_setup.level == ACE  # now it plays its own A


def test_gd17_reaching_a_does_not_win_the_match() -> None:
    outcome = settle(GuandanSetup(levels=(lv("Q"), 0), level_team=0), (0, 2, 1, 3))
    assert outcome.match_winner is None
    assert outcome.next_setup.levels[0] == ACE


def test_gd17_losing_at_own_a_gives_the_opponents_their_gain() -> None:
    outcome = settle(at_a(), (1, 3, 0, 2))
    assert outcome.match_winner is None
    assert outcome.next_setup.levels == (ACE, lv("Q"))
    assert outcome.next_setup.level_team == 1


def test_gd17_opponents_at_a_win_only_at_their_own_a() -> None:
    setup = GuandanSetup(levels=(lv("5"), ACE), level_team=1)
    assert settle(setup, (1, 3, 0, 2)).match_winner == 1
    assert settle(setup, (3, 0, 1, 2)).match_winner == 1
    assert settle(setup, (1, 0, 2, 3)).match_winner is None


def test_gd17_match_won_in_play() -> None:
    setup = GuandanSetup(levels=(ACE, 0), level_team=0, leader=0)
    state = GAME.new_deal(setup, hands=list(DOUBLE_DOWN_HANDS))
    finish_double_down(state)
    outcome = state.outcome()
    assert outcome.match_winner == 0
    assert outcome.next_setup is None


def test_gd17_option_a_fail_limit_is_off_by_default() -> None:
    assert GAME.options["a_fail_limit"] == 0
    outcome = settle(at_a(failures=(50, 0)), (0, 1, 3, 2), 0)
    assert outcome.next_setup.levels[0] == ACE
    assert outcome.next_setup.a_failures == (51, 0)


def test_gd17_failed_deals_at_a_are_counted() -> None:
    outcome = settle(at_a(), (0, 1, 3, 2), 3)
    assert outcome.next_setup.a_failures == (1, 0)
    assert outcome.next_setup.levels[0] == ACE


def test_gd17_a_fail_limit_drops_the_team_back_to_2() -> None:
    outcome = settle(at_a(failures=(2, 0)), (0, 1, 3, 2), 3)
    assert outcome.next_setup.levels == (lv("2"), lv("9"))
    assert outcome.next_setup.a_failures == (0, 0)
    assert outcome.match_winner is None


def test_gd17_a_fail_limit_counts_a_deal_at_a_lost_to_the_opponents() -> None:
    outcome = settle(at_a(failures=(1, 0)), (1, 0, 3, 2), 2)
    assert outcome.next_setup.levels == (lv("2"), lv("J"))


def test_gd17_a_fail_limit_does_not_count_deals_at_the_other_level() -> None:
    outcome = settle(at_a(level_team=1, failures=(1, 0)), (1, 0, 3, 2), 2)
    assert outcome.next_setup.levels == (ACE, lv("J"))
    assert outcome.next_setup.a_failures == (1, 0)


def test_gd17_a_fail_limit_option_in_play() -> None:
    game = make("guandan", a_fail_limit=1)
    setup = GuandanSetup(levels=(ACE, lv("4")), level_team=0, leader=0)
    state = game.new_deal(setup, hands=list(THREE_OUT_HANDS))
    finish_three_out(state)  # team 0 first, partner last: a failed deal at A
    outcome = state.outcome()
    assert outcome.match_winner is None
    assert outcome.next_setup.levels == (lv("2"), lv("4"))
    plain = GAME.new_deal(setup, hands=list(THREE_OUT_HANDS))
    finish_three_out(plain)
    assert plain.outcome().next_setup.levels == (ACE, lv("4"))


@pytest.mark.parametrize("bad", [-1, 1.5, "2", True])
def test_gd17_a_fail_limit_must_be_a_whole_number(bad: object) -> None:
    with pytest.raises(ConfigError):
        make("guandan", a_fail_limit=bad)


def test_gd17_unknown_options_are_refused() -> None:
    with pytest.raises(ConfigError):
        make("guandan", fail_limit=2)


# ====================================================== legal-action properties


def test_gd08_identical_cards_give_each_distinct_play_once() -> None:
    state = deal(["3s 3s 3d 4s 4s", "5d", "6d", "7d"])
    assert plays_of(state) == acts(
        "play 3s", "play 3d", "play 4s",
        "play 3s 3s", "play 3s 3d", "play 4s 4s",
        "play 3s 3s 3d",
        "play 3s 3s 3d 4s 4s",
    )
    assert len(state.legal_actions()) == 8


def test_gd06_wild_plays_leaving_different_cards_are_different_plays() -> None:
    state = deal(["3s 3s 2h 2h", "5d", "6d", "7d"])
    assert plays_of(state) == acts(
        "play 3s", "play 2h",
        "play 3s 3s", "play 3s 2h", "play 2h 2h",
        "play 3s 3s 2h", "play 3s 2h 2h",
        "play 3s 3s 2h 2h",
    )


def test_gd06_same_cards_read_several_ways_are_one_play_at_their_strongest() -> None:
    """3 4 5 6 and a wild card: one play, the straight to 7 (not to 6)."""
    state = deal(["3s 4d 5c 6s 2h Kc", "8d", "9d", "Td"])
    straights = [a for a in plays_of(state) if len(a.cards) == 5]
    assert straights == [Action.from_str("play 3s 4d 5c 6s 2h")]
    act(state, "play 3s 4d 5c 6s 2h")
    assert events_of(state, "play")[-1].value == 7
    assert state.table[2] == reading(Kind.STRAIGHT, 7, 5)


def test_gd08_a_bomb_reading_dominates_the_same_cards() -> None:
    """Three 3s and two wild cards are a 5-card bomb, not a full house."""
    state = deal(["3s 3d 3c 2h 2h Kc", "8d", "9d", "Td"])
    act(state, "play 3s 3d 3c 2h 2h")
    assert events_of(state, "play")[-1].tag == "bomb"
    assert state.table[2] == reading(Kind.BOMB, 3, 5)


HANDS_FOR_BRUTE_FORCE = [
    ("3s 3d 4s 4d 5s 5d 2h", "2"),
    ("As 2s 3s 4d 5c 6c 7h", "7"),
    ("9s 9d 9c Ts Td Jh 9h 9h", "9"),
    ("Ks Kd Kc As Ad Qs SJ SJ", "3"),
    ("3s 4s 5s 6s 7s 8s Ah Ah", "A"),
    ("5s 5d 5c 5h 6s 6d SJ BJ BJ 2h", "2"),
    ("Ts Jd Qc Kh Th Jh", "T"),
]


@pytest.mark.parametrize(("hand", "level"), HANDS_FOR_BRUTE_FORCE)
def test_gd08_legal_leads_are_exactly_every_combination_in_the_hand(hand: str, level: str) -> None:
    state = deal([hand, *spare_cards([hand], 3, level)], level=level)
    assert plays_of(state) == expected_plays(hand, level)


@pytest.mark.parametrize(("hand", "level"), HANDS_FOR_BRUTE_FORCE)
@pytest.mark.parametrize(
    "table",
    ["4c", "4c 4h", "4c 4h 4c", "4c 4h 4c 8c 8c", "8c 9c Tc Jh Qh", "8c 8d 9c 9d Tc Td",
     "8c 8d 8h 9c 9d 9h", "4c 4h 4c 4h", "3c 4c 5c 6c 7c"],
)
def test_gd09_legal_answers_are_exactly_the_combinations_that_beat(
    hand: str, level: str, table: str
) -> None:
    table = fitted(table, hand, level)
    table_reading = read(table, level)
    extra, *others = spare_cards([hand, table], 3, level)
    state = deal([f"{table} {extra}", hand, *others], level=level)
    act(state, "play " + table)
    assert state.table[2] == table_reading
    assert plays_of(state) == expected_plays(hand, level, table_reading)
    assert PASS in legal(state)


def test_gd08_every_legal_play_applies_and_removes_exactly_its_cards() -> None:
    state = GAME.new_deal(GuandanSetup(), seed=8)
    seat = state.to_act
    before = Counter(state.hand(seat))
    for action in state.legal_actions():
        trial = state.clone()
        trial.apply(action)
        assert Counter(trial.hand(seat)) == before - Counter(action.cards)
        assert trial.events[-1].kind == "play"
    assert state.hand(seat) == tuple(sorted(before.elements()))


@pytest.mark.parametrize("seed", range(4))
def test_gd08_seeded_hands_list_no_play_twice(seed: int) -> None:
    state = GAME.new_deal(GuandanSetup(levels=(seed, 0)), seed=seed)
    actions = state.legal_actions()
    assert len(actions) == len(set(actions))
    assert all(play_readings(a.cards, state.level) for a in actions)


# ------------------------------------------- an independent reference reading


def natural_readings(cards: Sequence[Card], level: int) -> set[tuple[Kind, int, int]]:
    """GD-5, GD-7, GD-8 for cards that hold no wild card: (kind, value, size) triples."""
    n = len(cards)
    jokers = [c for c in cards if is_joker(c)]
    ranks = Counter(rank_of(c) for c in cards if not is_joker(c))

    def value(c: Card) -> int:
        if is_joker(c):
            return 16 if c == SMALL_JOKER else 17
        return 15 if rank_of(c) == level else rank_of(c) + 2

    found: set[tuple[Kind, int, int]] = set()
    same = len(set(cards)) == 1 if jokers else len(ranks) == 1
    if n <= 2 and same:
        found.add((Kind.SINGLE if n == 1 else Kind.PAIR, value(cards[0]), n))
    if not jokers and same and n >= 3:
        found.add((Kind.TRIPLE if n == 3 else Kind.BOMB, value(cards[0]), n))
    if sorted(cards) == [SMALL_JOKER, SMALL_JOKER, BIG_JOKER, BIG_JOKER]:
        found.add((Kind.JOKER_BOMB, 17, 4))
    triple = [r for r, k in ranks.items() if k == 3]
    joker_pair = len(jokers) == 2 and jokers[0] == jokers[1]
    if n == 5 and triple and (sorted(ranks.values()) == [2, 3] or (joker_pair and len(ranks) == 1)):
        found.add((Kind.FULL_HOUSE, 15 if triple[0] == level else triple[0] + 2, 5))
    if jokers:
        return found
    shapes = ((5, 1, Kind.STRAIGHT), (3, 2, Kind.PAIR_RUN), (2, 3, Kind.TRIPLE_RUN))
    for length, width, kind in shapes:
        if length * width != n:
            continue
        for top in range(length, 15):  # positions: 1 is the low A, 2..14 are 2..A
            window = [ACE if p == 1 else p - 2 for p in range(top - length + 1, top + 1)]
            if ranks == Counter({r: width for r in window}):
                flush = kind == Kind.STRAIGHT and len({suit_of(c) for c in cards}) == 1
                found.add((Kind.STRAIGHT_FLUSH if flush else kind, top, n))
    return found


def reference_readings(cards: Sequence[Card], level: int) -> dict[tuple[Kind, int], int]:
    """GD-6: each wild card tried as every non-joker card; the best value per kind and size."""
    wild = parse_card(RANKS[level] + "h")
    naturals = [c for c in cards if c != wild]
    best: dict[tuple[Kind, int], int] = {}
    for stand_ins in combinations_with_replacement(range(52), len(cards) - len(naturals)):
        for kind, value, size in natural_readings([*naturals, *stand_ins], level):
            best[kind, size] = max(value, best.get((kind, size), 0))
    return best


def sample_card_sets(seed: int, count: int) -> Iterator[tuple[tuple[Card, ...], int]]:
    """Card sets dense in combinations: a few neighbouring ranks, jokers, wild cards."""
    rng = random.Random(seed)
    while count:
        level = rng.randrange(13)
        wild = parse_card(RANKS[level] + "h")
        low = rng.randrange(13)
        near = {low, (low + 1) % 13, (low + 2) % 13, (low + 3) % 13, (low + 4) % 13, ACE}
        pool = [c for c in deck(2) if is_joker(c) or rank_of(c) in near]
        pool += [wild, wild]
        rng.shuffle(pool)
        size = rng.choice([2, 3, 4, 5, 5, 5, 6, 6, 6, 7])
        held: Counter[Card] = Counter()
        for c in pool:
            if held.total() < size and held[c] < 2:
                held[c] += 1
        cards = tuple(sorted(held.elements()))
        if any(c != wild for c in cards):
            count -= 1
            yield cards, level


@pytest.mark.parametrize("seed", range(4))
def test_gd06_gd07_gd08_readings_match_a_reference_that_tries_every_stand_in(seed: int) -> None:
    for cards, level in sample_card_sets(seed, 300):
        best: dict[tuple[Kind, int], int] = {}
        for r in readings(cards, level):
            best[r.kind, r.size] = max(r.value, best.get((r.kind, r.size), 0))
        assert best == reference_readings(cards, level), (format_cards(cards), level)


# ------------------------------------------------ plays that must name their kind


AMBIGUOUS = "4s 4d 5s 5d 2h 2h"


def test_gd08_ambiguous_cards_are_listed_once_per_kind() -> None:
    state = deal([AMBIGUOUS, "8d", "9d", "Td"])
    named = [a for a in plays_of(state) if set(a.cards) == set(parse_cards(AMBIGUOUS))
             and len(a.cards) == 6]
    assert set(named) == acts(f"play {AMBIGUOUS} as pair_run", f"play {AMBIGUOUS} as triple_run")


def test_gd08_ambiguous_play_without_a_kind_is_refused() -> None:
    state = deal([AMBIGUOUS, "8d", "9d", "Td"])
    with pytest.raises(IllegalActionError, match="ambiguous"):
        act(state, f"play {AMBIGUOUS}")


@pytest.mark.parametrize(("tag", "value"), [("pair_run", 6), ("triple_run", 5)])
def test_gd08_ambiguous_play_named_as_a_kind(tag: str, value: int) -> None:
    state = deal([AMBIGUOUS + " Kc", "8d", "9d", "Td"])
    act(state, f"play {AMBIGUOUS} as {tag}")
    assert events_of(state, "play")[-1] == Event("play", 0, tuple(sorted(parse_cards(AMBIGUOUS))),
                                     value=value, tag=tag)
    assert state.table[2] == reading(Kind[tag.upper()], value, 6)


def test_gd08_naming_a_kind_for_plain_cards_is_refused() -> None:
    state = deal(["3s 3d 4s 4d 5s 5d", "8d", "9d", "Td"])
    with pytest.raises(IllegalActionError):
        act(state, "play 3s 3d 4s 4d 5s 5d as pair_run")
    act(state, "play 3s 3d 4s 4d 5s 5d")


def test_gd08_ambiguous_cards_answer_only_as_the_kind_on_the_table() -> None:
    state = deal(["3c 3h 4c 4h 5c 5h 7c", AMBIGUOUS, "8d", "9d"])
    act(state, "play 3c 3h 4c 4h 5c 5h")
    six_card = {a for a in plays_of(state) if len(a.cards) == 6}
    assert six_card == acts(f"play {AMBIGUOUS} as pair_run")


def test_gd08_action_text_round_trip_with_a_kind() -> None:
    action = Action.from_str(f"play {AMBIGUOUS} as triple_run")
    assert str(action) == "play 2h 2h 4s 4d 5s 5d as triple_run"
    assert Action.from_str(str(action)) == action
    assert Action.from_str("play 3d 3s") == Action.from_str("play 3s 3d")
