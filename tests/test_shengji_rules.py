"""Shengji rules, one test (or more) per rule of rules/shengji.md, named by its id.

Pure rules (order, shapes, follows, throws, trick winner) are checked on the functions
of ``arena.games.shengji``; dealing, declaring, the kitty, leading, following and the
end of a deal are checked on the engine with constructed deals. The scoring tables
(SJ-22 … SJ-27, SJ-30, SJ-32) and the declaration ladder (SJ-8 … SJ-12) as pure
functions live in tests/test_shengji_scoring.py and tests/test_shengji_declare.py.

Unless a test says otherwise, pure tests play 10 with hearts as the trump suit, like
the seeds' examples; engine tests play the first deal (level 2) of a match.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import pytest

from arena.cards import RANKS, SUITS, Card, deck, format_cards, make_card, parse_cards
from arena.errors import IllegalActionError
from arena.games import PASS, Action, make, team_of
from arena.games.shengji import ShengjiSetup, ShengjiState
from arena.games.shengji.declare import Declaration, declaration_options, make_declaration
from arena.games.shengji.follow import score
from arena.games.shengji.order import TRUMP, TrumpOrder, card_points
from arena.games.shengji.scoring import kitty_multiplier
from arena.games.shengji.shapes import decompose
from arena.games.shengji.trick import (
    check_throw,
    contender,
    largest_unit_cards,
    lead_contender,
    main_shape,
)

TWO, FOUR, FIVE, SIX = (RANKS.index(r) for r in "2456")
TEN, JACK, QUEEN, KING, ACE = (RANKS.index(r) for r in "TJQKA")
SPADES, HEARTS, DIAMONDS, CLUBS = range(4)
BLACK, RED = 0, 1
LAYOUT = {1: (12, 6), 2: (25, 8), 3: (39, 6), 4: (54, 0)}
"""decks → (hand size, kitty size), rules/shengji.md Variants."""


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def card(text: str) -> Card:
    (one,) = parse_cards(text)
    return one


def order(
    level: int = TEN,
    trump: str | None = "h",
    *,
    twos: bool = False,
) -> TrumpOrder:
    return TrumpOrder(
        level=level, trump=None if trump is None else SUITS.index(trump), constant_twos=twos
    )


TEN_HEARTS = order()
"""Playing 10, hearts trump, 2s not constant: the seeds' setting."""


def shape(text: str, o: TrumpOrder = TEN_HEARTS) -> list[tuple[int, int]]:
    """The lead's canonical reading as (width, length) per unit, largest first."""
    return [(u.width, u.length) for u in decompose(cards(text), o)]


def one_suit(text: str, o: TrumpOrder) -> bool:
    return len({o.suit(c) for c in cards(text)}) == 1


def is_tractor(text: str, o: TrumpOrder = TEN_HEARTS) -> bool:
    """Whether all the cards form one tractor (SJ-15) of one suit."""
    if not one_suit(text, o):
        return False
    units = decompose(cards(text), o)
    return len(units) == 1 and units[0].is_tractor and units[0].width >= 2


def assert_ladder(o: TrumpOrder, groups: Sequence[str], suit: int) -> None:
    """``groups`` high to low: equal cards share a position, positions step down by one,
    and together they are every card of ``suit``."""
    positions = []
    for group in groups:
        group_cards = cards(group)
        assert {o.suit(c) for c in group_cards} == {suit}, group
        group_positions = {o.order(c) for c in group_cards}
        assert len(group_positions) == 1, f"{group} should be equal"
        positions.append(group_positions.pop())
    top = positions[0]
    assert positions == list(range(top, top - len(groups), -1)), list(
        zip(groups, positions, strict=True)
    )
    listed = {c for group in groups for c in cards(group)}
    assert listed == {c for c in range(54) if o.suit(c) == suit}


# ----------------------------------------------------------------- engine helpers


def level_of(setup: ShengjiSetup) -> int:
    dealer = 0 if setup.dealer is None else setup.dealer
    return setup.levels[team_of(dealer)]


def build(
    decks: int,
    spec: Mapping[int, str],
    kitty: str = "",
    *,
    level: int = TWO,
    kept_suits: str = "s",
) -> list[tuple[Card, ...]]:
    """Four hands and the kitty for ``new_deal(hands=…)``.

    ``spec[seat]`` names cards of that hand: ``"As Ks"`` puts them first, ``"... 2s"``
    puts them last, ``"_"`` leaves a slot to fill. The rest of the deck fills the
    hands of seats 1, 2, 3, then the kitty, then seat 0, low cards of the other suits
    first; cards of ``kept_suits``, level cards and jokers come last, so that they end
    up in the kitty or with seat 0 (the first dealer, who buries the kitty again)
    unless a spec places them. Within a hand, level cards and jokers used as filler
    are dealt last, so they are not offered for declaration early.
    """
    hand_size, kitty_size = LAYOUT[decks]
    sizes = [hand_size] * 4 + [kitty_size]
    texts = [spec.get(seat, "") for seat in range(4)] + [kitty]
    slots: list[list[Card | None]] = []
    for text, size in zip(texts, sizes, strict=True):
        tokens = text.split()
        head, tail = (tokens, []) if "..." not in tokens else _split(tokens)
        middle = size - len(head) - len(tail)
        assert middle >= 0, text
        template = [None if t == "_" else card(t) for t in head]
        template += [None] * middle + [card(t) for t in tail]
        slots.append(template)
    pool = Counter(deck(decks))
    pool.subtract(c for template in slots for c in template if c is not None)
    assert all(n >= 0 for n in pool.values()), "more copies than the decks hold"

    def risky(c: Card) -> bool:
        return c >= 52 or c >> 2 == level or SUITS[c & 3] in kept_suits

    def special(c: Card) -> bool:
        return c >= 52 or c >> 2 == level

    rest = sorted(pool.elements(), key=lambda c: (risky(c), not special(c), c >> 2, c))
    for index in (1, 2, 3, 4, 0):
        template = slots[index]
        free = template.count(None)
        taken, rest = rest[:free], rest[free:]
        taken.sort(key=special)  # level cards and jokers dealt last
        filler = iter(taken)
        slots[index] = [next(filler) if c is None else c for c in template]
    assert not rest
    return [tuple(c for c in template if c is not None) for template in slots]


def _split(tokens: list[str]) -> tuple[list[str], list[str]]:
    at = tokens.index("...")
    return tokens[:at], tokens[at + 1 :]


def finish_declaring(st: ShengjiState, declare: tuple[int, str] | None = None) -> None:
    """Everybody passes, except ``declare = (seat, cards)`` when that seat may show them."""
    while st.phase == "declare":
        action = PASS
        if declare is not None and st.to_act == declare[0]:
            wanted = Action.make("declare", cards(declare[1]))
            if wanted in st.legal_actions():
                action = wanted
        st.apply(action)


def start(
    name: str = "shengji-2",
    spec: Mapping[int, str] | None = None,
    kitty: str = "",
    *,
    setup: ShengjiSetup | None = None,
    declare: tuple[int, str] | None = None,
    bury: str | None = None,
    kept_suits: str = "s",
    **options: object,
) -> ShengjiState:
    """A constructed deal, declared and buried, ready for the first lead."""
    game = make(name, **options)
    setup = setup or ShengjiSetup()
    hands = build(game.decks, spec or {}, kitty, level=level_of(setup), kept_suits=kept_suits)
    st = game.new_deal(setup, hands=hands)
    finish_declaring(st, declare)
    if st.phase == "bury":
        for c in cards(bury) if bury is not None else hands[4]:
            st.apply(Action("bury", (c,)))
    assert st.phase == "play"
    return st


def play(st: ShengjiState, text: str, seat: int | None = None) -> None:
    if seat is not None:
        assert st.to_act == seat
    st.apply(Action.make("play", cards(text)))


def last_trick_winner(st: ShengjiState) -> int:
    return [e for e in st.events if e.kind == "trick"][-1].seat


def last_trick_plays(st: ShengjiState) -> list[tuple[Card, ...]]:
    """The cards of the four plays of the last finished trick."""
    end = max(i for i, e in enumerate(st.events) if e.kind == "trick")
    return [e.cards for e in st.events[:end] if e.kind == "play"][-4:]


def trick(st: ShengjiState, *plays: str) -> int:
    """Plays a whole trick from the seat to act; returns its winner."""
    assert len(plays) == 4
    for text in plays:
        play(st, text)
    return last_trick_winner(st)


def suit_cards(st: ShengjiState, seat: int, suit: int) -> list[Card]:
    assert st.order is not None
    return [c for c in st.hand(seat) if st.order.suit(c) == suit]


def refused(st: ShengjiState, text: str, rule: str) -> None:
    """The play is refused with a message naming ``rule``; the state is unchanged."""
    before = (st.to_act, st.hand(st.to_act), len(st.events))
    with pytest.raises(IllegalActionError, match=rule):
        play(st, text)
    assert (st.to_act, st.hand(st.to_act), len(st.events)) == before


def play_texts(st: ShengjiState) -> list[str]:
    return [format_cards(a.cards) for a in st.legal_actions()]


# ----------------------------------------------------------------- SJ-1 levels


def test_sj01_both_teams_start_at_two_and_the_first_deal_plays_two() -> None:
    game = make("shengji-2")
    assert game.first_setup().levels == (TWO, TWO)
    st = game.new_deal(game.first_setup(), seed=5)
    assert st.level == TWO
    assert st.observe(0).public["level"] == TWO


@pytest.mark.parametrize(("dealer", "played"), [(0, FIVE), (1, JACK), (2, FIVE), (3, JACK)])
def test_sj01_the_level_played_is_the_declarers_level(dealer: int, played: int) -> None:
    setup = ShengjiSetup(levels=(FIVE, JACK), dealer=dealer)
    st = make("shengji-2").new_deal(setup, seed=11)
    assert st.level == played
    assert st.observe(dealer).public["level"] == played
    finish_declaring(st)
    assert st.dealer == dealer
    assert st.order is not None and st.order.level == played


# ----------------------------------------------------------------- SJ-2 trumps


@pytest.mark.parametrize("twos", [False, True])
@pytest.mark.parametrize("trump", ["s", "h", "d", "c", None])
def test_sj02_trumps_are_jokers_level_cards_trump_suit_and_constant_twos(
    trump: str | None, twos: bool
) -> None:
    o = order(TEN, trump, twos=twos)
    for c in range(54):
        rank, suit = c >> 2, c & 3
        expected = (
            c >= 52
            or rank == TEN
            or (trump is not None and suit == SUITS.index(trump))
            or (twos and rank == TWO)
        )
        assert o.is_trump(c) == expected, c
        # every plain card follows as its own suit; all trumps are one suit
        assert o.suit(c) == (TRUMP if expected else suit)


# ----------------------------------------------------------------- SJ-3 trump order

PLAIN_HEARTS_DOWN_TO_3 = ["Ah", "Kh", "Qh", "Jh", "9h", "8h", "7h", "6h", "5h", "4h", "3h"]


def test_sj03_trump_order_without_constant_twos() -> None:
    assert_ladder(
        order(TEN, "h"), ["BJ", "SJ", "Th", "Ts Td Tc", *PLAIN_HEARTS_DOWN_TO_3, "2h"], TRUMP
    )


def test_sj03_trump_order_with_constant_twos() -> None:
    assert_ladder(
        order(TEN, "h", twos=True),
        ["BJ", "SJ", "Th", "Ts Td Tc", "2h", "2s 2d 2c", *PLAIN_HEARTS_DOWN_TO_3],
        TRUMP,
    )


def test_sj03_other_level_cards_rank_between_trump_level_and_trump_ace() -> None:
    o = order(TEN, "s")
    assert o.order(card("Ts")) > o.order(card("Th")) > o.order(card("As"))
    assert o.order(card("Th")) == o.order(card("Td")) == o.order(card("Tc"))


@pytest.mark.parametrize("trump", ["s", "h", None])
def test_sj03_playing_two_the_two_ladders_coincide(trump: str | None) -> None:
    plain, twos = order(TWO, trump), order(TWO, trump, twos=True)
    assert plain.suits == twos.suits
    assert plain.orders == twos.orders


# ----------------------------------------------------------------- SJ-4 plain order


def test_sj04_plain_order_playing_ten_skips_the_ten() -> None:
    ladder = ["As", "Ks", "Qs", "Js", "9s", "8s", "7s", "6s", "5s", "4s", "3s", "2s"]
    assert_ladder(TEN_HEARTS, ladder, SPADES)


def test_sj04_plain_order_with_constant_twos_also_skips_the_two() -> None:
    ladder = ["Ad", "Kd", "Qd", "Jd", "9d", "8d", "7d", "6d", "5d", "4d", "3d"]
    assert_ladder(order(TEN, "h", twos=True), ladder, DIAMONDS)


def test_sj04_every_plain_suit_has_the_same_order() -> None:
    o = TEN_HEARTS
    for rank in "AKQJ98765432":
        assert o.order(card(rank + "s")) == o.order(card(rank + "d")) == o.order(card(rank + "c"))


# ----------------------------------------------------------------- SJ-5 notrump


def test_sj05_notrump_trumps_are_jokers_then_all_level_cards_equal() -> None:
    assert_ladder(order(TEN, None), ["BJ", "SJ", "Ts Th Td Tc"], TRUMP)


def test_sj05_notrump_with_constant_twos_adds_all_twos_equal() -> None:
    assert_ladder(order(TEN, None, twos=True), ["BJ", "SJ", "Ts Th Td Tc", "2s 2h 2d 2c"], TRUMP)


def test_sj05_notrump_leaves_all_four_suits_plain() -> None:
    o = order(TEN, None)
    for suit in "shdc":
        ladder = [r + suit for r in "AKQJ98765432"]
        assert_ladder(o, ladder, SUITS.index(suit))


# ----------------------------------------------------------------- SJ-6 equal cards


def test_sj06_off_suit_level_cards_never_outrank_each_other() -> None:
    o = TEN_HEARTS
    lead = decompose(cards("Ts"), o)
    best = lead_contender(lead, TRUMP)
    same = contender(cards("Td"), lead, TRUMP, o)
    assert same is not None and not same.beats(best)
    higher = contender(cards("Th"), lead, TRUMP, o)
    assert higher is not None and higher.beats(best)


def test_sj06_engine_the_first_of_equal_level_cards_wins_the_trick() -> None:
    # notrump playing 2: every 2 is an equal trump
    st = start(spec={0: "2s", 1: "2h", 2: "2d", 3: "2c"})
    assert st.order is not None and st.order.trump is None
    assert trick(st, "2s", "2h", "2d", "2c") == 0


# ----------------------------------------------------------------- SJ-7 dealing


def offers(
    st: ShengjiState, answers: Mapping[tuple[int, int], str] | None = None
) -> list[tuple[int, int]]:
    """Runs the declaration phase; returns (seat, cards dealt so far) for every offer.

    ``answers[(seat, dealt)]`` is a declaration to make at that offer; otherwise pass.
    """
    seen = []
    while st.phase == "declare":
        seat = st.to_act
        dealt = sum(st.observe(seat).public["counts"])
        seen.append((seat, dealt))
        legal = st.legal_actions()
        assert legal[0] == PASS  # SJ-11: a player may always decline
        assert len(legal) > 1  # SJ-11: offered only when a declaration is possible
        wanted = (answers or {}).get((seat, dealt))
        st.apply(PASS if wanted is None else Action.make("declare", cards(wanted)))
    return seen


@pytest.mark.parametrize(
    ("dealer", "first_seat", "counts"),
    [(None, 2, [1, 1, 1, 0]), (2, 2, [0, 0, 1, 0]), (1, 2, [0, 1, 1, 0])],
)
def test_sj07_cards_are_dealt_one_at_a_time_from_the_dealer(
    dealer: int | None, first_seat: int, counts: list[int]
) -> None:
    # seat 2's first card is the only level card dealt early: the first offer comes
    # right after it, and the counts show who has been dealt a card before it
    spec = {2: "2h"}
    setup = ShengjiSetup(dealer=dealer)
    hands = build(2, spec, "2s 2s 2d 2d 2c 2c SJ SJ")
    st = make("shengji-2").new_deal(setup, hands=hands)
    assert st.phase == "declare" and st.to_act == first_seat
    assert st.observe(first_seat).public["counts"] == counts
    assert st.hand(first_seat) == cards("2h")


@pytest.mark.parametrize("dealer", [None, 1, 3])
def test_sj07_every_player_ends_with_their_hand_and_the_rest_is_the_kitty(
    dealer: int | None,
) -> None:
    hands = build(2, {1: "2h 2h", 3: "... BJ"}, "Ks Ks Qs Qs Js Js 9s 9s")
    st = make("shengji-2").new_deal(ShengjiSetup(dealer=dealer), hands=hands)
    offers(st)
    assert st.phase == "bury"
    for seat in range(4):
        expected = Counter(hands[seat])
        if seat == st.dealer:
            expected += Counter(hands[4])
        assert Counter(st.hand(seat)) == expected
    assert st.kitty == hands[4]


def test_sj07_hand_and_kitty_sizes_of_every_variant() -> None:
    for decks, (hand_size, kitty_size) in LAYOUT.items():
        st = make(f"shengji-{decks}").new_deal(ShengjiSetup(), seed=3)
        finish_declaring(st)
        sizes = [len(st.hand(s)) for s in range(4)]
        assert sizes == [hand_size + (kitty_size if s == st.dealer else 0) for s in range(4)]
        assert len(st.kitty) == kitty_size


# ----------------------------------------------------------------- SJ-8 / SJ-10 in a deal


def test_sj08_engine_flip_kitty_without_declaration_uses_the_kitty_4th_card() -> None:
    st = start(kitty="Ks Qs 2s 7d", no_declaration="flip_kitty")
    assert st.order is not None and st.order.trump == DIAMONDS and st.dealer == 0
    trump_events = [e for e in st.events if e.kind == "trump"]
    assert [(e.cards, e.tag) for e in trump_events] == [(cards("7d"), "d")]


def test_sj10_engine_four_deck_declarations_hide_the_suit_until_the_deal_ends() -> None:
    st = start("shengji-4", spec={1: "_ 2h ..."}, declare=(1, "2h"), kept_suits="h")
    declared = [e for e in st.events if e.kind == "declare"]
    assert [(e.seat, e.cards, e.value, e.tag) for e in declared] == [(1, (), 1, "hidden")]
    assert st.order is not None and st.order.trump == HEARTS
    assert st.dealer == 1 and st.phase == "play"  # SJ-13: no kitty


# ----------------------------------------------------------------- SJ-11 offers

# seats 1 and 2 get a pair of level cards as their first two cards, seat 3 a level
# card as its very last card; the other level cards and jokers are in the kitty
OFFER_SPEC = {1: "2h 2h", 2: "2d 2d", 3: "... 2s"}
OFFER_KITTY = "2s 2c 2c SJ SJ BJ BJ"


def expected_offers(
    hands: Sequence[Sequence[Card] | str],
    start: int,
    answers: Mapping[tuple[int, int], str],
    decks: int = 2,
    level: int = TWO,
) -> list[tuple[int, int]]:
    """SJ-11 written out: after each card a seat receives, and once more for every seat
    in order from the dealer after the dealing, an offer whenever the seat could make a
    declaration stronger than the standing one."""
    parsed = [cards(h) if isinstance(h, str) else tuple(h) for h in hands[:4]]
    held: list[list[Card]] = [[] for _ in range(4)]
    standing: Declaration | None = None
    seen: list[tuple[int, int]] = []

    def ask(seat: int, dealt: int) -> None:
        nonlocal standing
        if declaration_options(sorted(held[seat]), seat, level, decks, standing):
            seen.append((seat, dealt))
            if (seat, dealt) in answers:
                standing = make_declaration(seat, cards(answers[(seat, dealt)]), level, decks)

    dealt = 0
    for k in range(len(parsed[0])):
        for i in range(4):
            seat = (start + i) % 4
            held[seat].append(parsed[seat][k])
            dealt += 1
            ask(seat, dealt)
    for i in range(4):
        ask((start + i) % 4, dealt)
    return seen


def test_sj11_offered_after_each_card_while_possible_and_once_more_in_seat_order() -> None:
    hands = build(2, OFFER_SPEC, OFFER_KITTY)
    st = make("shengji-2").new_deal(ShengjiSetup(), hands=hands)
    answers = {(3, 100): "2s"}
    seen = offers(st, answers)
    assert seen == expected_offers(hands, 0, answers)
    # seat 1 is asked first after its first level card; seat 3 declares with the last card;
    # then, after every card is dealt, seats 1 and 2 are asked once more (pairs override)
    assert seen[0] == (1, 2)
    assert seen[-3:] == [(3, 100), (1, 100), (2, 100)]
    assert "dealt" in [e.kind for e in st.events]
    assert st.dealer == 3
    assert st.order is not None and st.order.trump == SPADES


def test_sj11_only_stronger_declarations_are_offered() -> None:
    st = make("shengji-2").new_deal(ShengjiSetup(), hands=build(2, OFFER_SPEC, OFFER_KITTY))
    while (st.to_act, sum(st.observe(0).public["counts"])) != (1, 100):
        st.apply(Action.make("declare", cards("2s")) if st.to_act == 3 else PASS)
    # after seat 3's single 2s, seat 1 is offered only its pair, not its single 2h
    assert st.to_act == 1
    assert [str(a) for a in st.legal_actions()] == ["pass", "declare 2h 2h"]
    with pytest.raises(IllegalActionError, match="SJ-8"):
        st.apply(Action.make("declare", cards("2h")))


def test_sj11_a_single_level_card_under_a_standing_pair_is_never_offered() -> None:
    spec = {1: "2h 2h", 2: "_ _ 2d", 3: "... SJ SJ"}
    hands = build(2, spec, "2s 2s 2d 2c 2c BJ BJ")
    st = make("shengji-2").new_deal(ShengjiSetup(), hands=hands)
    seen = offers(st, {(1, 6): "2h 2h"})
    # seat 2's 2d (dealt 11th) is weaker than the pair: never offered; seat 3's
    # small-joker pair (the last card) is stronger: offered, declined, asked once more
    assert seen == expected_offers(hands, 0, {(1, 6): "2h 2h"})
    assert all(seat != 2 for seat, _ in seen)
    assert seen[-2:] == [(3, 100), (3, 100)]
    assert st.dealer == 1


def test_sj11_the_final_round_starts_from_the_dealer_of_a_later_deal() -> None:
    setup = ShengjiSetup(levels=(TWO, TWO), dealer=2)
    st = make("shengji-2").new_deal(setup, hands=build(2, OFFER_SPEC, OFFER_KITTY))
    seen = offers(st, {(3, 98): "2s"})
    # dealing starts with seat 2, so seat 3's last card is the 98th; then seats 0 and 1
    # get their last cards and the final round runs 2, 3, 0, 1
    hands = build(2, OFFER_SPEC, OFFER_KITTY)
    assert seen == expected_offers(hands, 2, {(3, 98): "2s"})
    assert seen[-2:] == [(2, 100), (1, 100)]


# ----------------------------------------------------------------- SJ-12 dealer


def test_sj12_first_deal_dealer_is_the_standing_declarer() -> None:
    st = start(spec={2: "_ 2d ..."}, declare=(2, "2d"))
    assert st.dealer == 2
    assert st.to_act == 2  # SJ-18: the dealer leads
    assert st.order is not None and st.order.trump == DIAMONDS
    assert [e.seat for e in st.events if e.kind == "kitty_taken"] == [2]


def test_sj12_first_deal_without_declaration_is_dealt_by_seat_0_in_notrump() -> None:
    st = start()
    assert st.dealer == 0 and st.to_act == 0
    assert st.observe(1).public["trump"] == "notrump"


def test_sj12_later_deal_declaration_only_chooses_the_trump_suit() -> None:
    setup = ShengjiSetup(levels=(TWO, TWO), dealer=3)
    st = start(spec={1: "_ 2c ..."}, setup=setup, declare=(1, "2c"))
    assert st.dealer == 3
    assert st.order is not None and st.order.trump == CLUBS


def test_sj12_declarers_are_the_dealer_and_partner() -> None:
    st = start(spec={1: "_ 2d ..."}, declare=(1, "2d"))
    assert st.dealer == 1 and st.declarer_team == 1


# ----------------------------------------------------------------- SJ-13 kitty


def dealt_to_bury(**options: object) -> ShengjiState:
    hands = build(2, {1: "_ 2h ..."}, "Ks Ks 5s 5s BJ SJ 3c 3c")
    st = make("shengji-2", **options).new_deal(ShengjiSetup(), hands=hands)
    finish_declaring(st, (1, "2h"))
    return st


def test_sj13_the_dealer_takes_the_kitty_into_their_hand() -> None:
    st = dealt_to_bury()
    assert st.phase == "bury" and st.to_act == st.dealer == 1
    assert len(st.hand(1)) == 25 + 8
    assert Counter(st.hand(1)) >= Counter(cards("Ks Ks 5s 5s BJ SJ 3c 3c"))
    assert [(e.seat, e.value) for e in st.events if e.kind == "kitty_taken"] == [(1, 8)]
    # any card of the hand may be buried
    assert {a.cards[0] for a in st.legal_actions()} == set(st.hand(1))
    assert all(a.verb == "bury" and len(a.cards) == 1 for a in st.legal_actions())


def test_sj13_the_dealer_buries_the_same_number_card_by_card_face_down() -> None:
    st = dealt_to_bury()
    buried = cards("BJ 2h Ks Ks 5s 5s SJ 3c")  # any cards: trumps and points too
    for n, c in enumerate(buried):
        assert st.phase == "bury" and st.to_act == 1
        st.apply(Action("bury", (c,)))
        assert len(st.hand(1)) == 33 - n - 1
    assert st.phase == "play" and len(st.hand(1)) == 25
    bury_events = [e for e in st.events if e.kind == "bury"]
    assert len(bury_events) == 8 and all(e.cards == () for e in bury_events)
    assert st.observe(1).private["buried"] == format_cards(buried)
    assert all("buried" not in st.observe(s).private for s in (0, 2, 3))
    assert Counter(st.set_aside()) == Counter(buried)


def test_sj13_bury_one_card_at_a_time_and_only_held_cards() -> None:
    st = dealt_to_bury()
    with pytest.raises(IllegalActionError, match="SJ-13"):
        st.apply(Action.make("bury", cards("Ks Ks")))
    absent = next(c for c in range(54) if c not in st.hand(1))
    with pytest.raises(IllegalActionError, match="not in your hand"):
        st.apply(Action("bury", (absent,)))
    with pytest.raises(IllegalActionError):
        st.apply(Action.make("play", cards("Ks")))
    assert st.phase == "bury" and len(st.hand(1)) == 33


def test_sj13_four_decks_have_no_kitty() -> None:
    st = make("shengji-4").new_deal(ShengjiSetup(), seed=2)
    finish_declaring(st)
    assert st.phase == "play" and st.kitty == ()
    assert not [e for e in st.events if e.kind in ("kitty_taken", "bury")]
    assert all(len(st.hand(s)) == 54 for s in range(4))


# ----------------------------------------------------------------- SJ-14 sets


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("As As", [(2, 1)]),  # a plain pair
        ("Ah Ah", [(2, 1)]),  # a trump pair
        ("Th Th", [(2, 1)]),  # the trump level pair
        ("Ts Ts", [(2, 1)]),  # an off-suit level pair
        ("SJ SJ", [(2, 1)]),
        ("Ts Td", [(1, 1), (1, 1)]),  # equal order, different suits: NOT a pair
        ("SJ BJ", [(1, 1), (1, 1)]),
        ("Ks Qs", [(1, 1), (1, 1)]),
    ],
)
def test_sj14_a_pair_is_two_identical_cards(text: str, expected: list[tuple[int, int]]) -> None:
    assert shape(text) == expected


def test_sj14_cards_of_different_suits_are_never_a_set() -> None:
    assert not one_suit("Ks Kh", TEN_HEARTS)  # plain K and trump K
    assert not one_suit("Ks Kd", TEN_HEARTS)  # two plain suits


def test_sj14_triples_with_three_decks_and_quads_with_four() -> None:
    assert shape("Ks Ks Ks") == [(3, 1)]
    assert shape("Ks Ks Ks Ks") == [(4, 1)]
    assert shape("Ts Ts Ts") == [(3, 1)]
    assert shape("Ts Ts Td") == [(2, 1), (1, 1)]


# ----------------------------------------------------------------- SJ-15 tractors


@pytest.mark.parametrize(
    "text",
    [
        "Ks Ks Qs Qs",
        "Js Js 9s 9s",  # the 10 (level) is skipped
        "5s 5s 4s 4s 3s 3s",
        "SJ SJ Th Th",  # small joker + trump 10
        "Th Th Ts Ts",  # trump 10 + off 10
        "Ts Ts Ah Ah",  # off 10 + trump A
        "Td Td Ah Ah",
        "Th Th Ts Ts Ah Ah",  # trump 10 + off 10 + trump A
        "BJ BJ SJ SJ",
    ],
)
def test_sj15_tractors(text: str) -> None:
    assert is_tractor(text)
    n = len(cards(text)) // 2
    assert shape(text) == [(2, n)]


@pytest.mark.parametrize(
    "text",
    [
        "5s 5s 4s",
        "5s 4s 4s",
        "5s 5s 3s 3s",  # not consecutive
        "Js Js Qs",
        "Ts Ts Td Td",  # two pairs of off-suit 10s of different suits
        "Js Js Ts Ts",  # the 10 is trump, the J plain
        "As As 2s 2s",  # no wrap
    ],
)
def test_sj15_not_tractors(text: str) -> None:
    assert not is_tractor(text)


def test_sj15_pairs_of_equal_position_read_as_separate_pairs() -> None:
    assert shape("Ts Ts Td Td") == [(2, 1), (2, 1)]
    assert shape("5s 5s 3s 3s") == [(2, 1), (2, 1)]


def test_sj15_the_j_and_the_trump_ten_are_different_suits() -> None:
    assert TEN_HEARTS.suit(card("Js")) == SPADES
    assert TEN_HEARTS.suit(card("Ts")) == TRUMP


def test_sj15_with_constant_twos_the_twos_sit_between_levels_and_the_trump_ace() -> None:
    o = order(TEN, "h", twos=True)
    for text in ("Ts Ts 2h 2h", "2h 2h 2s 2s", "2d 2d Ah Ah", "Th Th Ts Ts 2h 2h", "4s 4s 3s 3s"):
        assert is_tractor(text, o), text
    for text in ("As As 3s 3s", "2s 2s Th Th", "2h 2h Ah Ah"):
        assert not is_tractor(text, o), text


def test_sj15_a_tractor_needs_sets_of_one_width() -> None:
    assert shape("5s 5s 5s 4s 4s") == [(3, 1), (2, 1)]
    assert not is_tractor("5s 5s 5s 4s 4s")


def test_sj15_engine_refuses_a_lead_of_plain_j_and_trump_ten() -> None:
    setup = ShengjiSetup(levels=(TEN, TEN), dealer=0)
    st = start(spec={0: "Js Js Ts Ts"}, setup=setup)
    refused(st, "Js Js Ts Ts", "SJ-18")


# ----------------------------------------------------------------- SJ-16 Titanic

FIVE_HEARTS = order(FIVE, "h")


@pytest.mark.parametrize(
    "text",
    [
        "3s 3s 3s 4s 4s 4s",
        "4s 4s 4s 6s 6s 6s",  # the 5 is skipped
        "5s 5s 5s 5h 5h 5h",  # off 5 + trump 5
        "SJ SJ SJ BJ BJ BJ",
        "Ah Ah Ah 5s 5s 5s",  # trump A + off 5
    ],
)
def test_sj16_titanics(text: str) -> None:
    assert is_tractor(text, FIVE_HEARTS)
    assert shape(text, FIVE_HEARTS) == [(3, 2)]


def test_sj16_fives_are_trumps_and_sixes_plain_so_not_a_titanic() -> None:
    assert not one_suit("5s 5s 5s 6s 6s 6s", FIVE_HEARTS)
    assert not is_tractor("5s 5s 5s 6s 6s 6s", FIVE_HEARTS)


def test_sj16_notrump_triples_of_fives_in_two_suits_are_not_a_titanic() -> None:
    o = order(FIVE, None)
    assert shape("5s 5s 5s 5d 5d 5d", o) == [(3, 1), (3, 1)]
    assert not is_tractor("5s 5s 5s 5d 5d 5d", o)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4s 4s 5s 5s", [(2, 2)]),
        ("4s 4s 4s 5s 5s 5s", [(3, 2)]),
        ("4s 4s 4s 4s 5s 5s 5s 5s", [(4, 2)]),
        ("4s 4s 4s 4s 5s 5s 5s 5s 6s 6s 6s 6s", [(4, 3)]),
        ("4s 4s 4s 4s 5s 5s 5s", [(4, 1), (3, 1)]),
    ],
)
def test_sj16_four_decks_tractors_of_pairs_triples_and_quads(
    text: str, expected: list[tuple[int, int]]
) -> None:
    assert shape(text, order(TEN, "h", twos=True)) == expected


# ----------------------------------------------------------------- SJ-17 throws


def forced(throw: str, *others: str, o: TrumpOrder = TEN_HEARTS) -> str | None:
    """The combination a throw is cut down to, given the other players' cards of its suit."""
    holdings = [cards(h) for h in others] + [()] * (3 - len(others))
    unit = check_throw(decompose(cards(throw), o), holdings, o)
    return None if unit is None else format_cards(unit.cards)


@pytest.mark.parametrize(
    ("throw", "others"),
    [
        ("As As Ks", ["Ks Qs Qs", "Js Js", "9s"]),  # nobody has an A
        ("As Ks Ks", ["As Qs Qs", "Js 9s", ""]),  # the other A only ties; QQ < KK
        ("As Qs Qs Js Js", ["As Ks Ks", "9s 9s 8s 8s", "7s"]),  # a lower tractor, a pair
        ("9s 8s 8s 4s 4s", ["8s 3s 3s", "2s 2s", "6s 5s"]),
    ],
)
def test_sj17_a_throw_of_top_combinations_stands(throw: str, others: list[str]) -> None:
    assert decompose(cards(throw), TEN_HEARTS)[1:]  # really several combinations
    assert forced(throw, *others) is None


def test_sj17_seed_example_someone_holds_the_j_forces_the_9() -> None:
    assert forced("9s 8s 8s 4s 4s", "Js") == "9s"
    assert forced("9s 8s 8s 4s 4s", "", "", "Js 2s") == "9s"


def test_sj17_seed_example_someone_holds_qq_forces_44() -> None:
    assert forced("9s 8s 8s 4s 4s", "Qs Qs") == "4s 4s"


def test_sj17_seed_example_someone_holds_55_forces_44() -> None:
    assert forced("9s 8s 8s 4s 4s", "", "5s 5s") == "4s 4s"


def test_sj17_decision_the_lowest_highest_card_is_forced_before_fewer_cards() -> None:
    # the K loses to an A and the 99 to JJ: the 99 (lower) is forced, though bigger
    assert forced("Ks 9s 9s", "As", "Js Js") == "9s 9s"


def test_sj17_decision_on_a_tie_the_combination_with_fewer_cards_is_forced() -> None:
    # a single and a pair of off-suit level cards, equal order; the trump 10s beat both
    assert forced("Ts Td Td", "Th Th") == "Ts"
    # a tractor (trump A + off 10) and a pair of off 10s share their top order
    unit = check_throw(
        decompose(cards("Ah Ah Ts Ts Td Td"), TEN_HEARTS),
        [cards("Th Th Tc Tc"), (), ()],
        TEN_HEARTS,
    )
    assert unit is not None and (unit.width, unit.length) == (2, 1)
    assert {format_cards(unit.cards)} <= {"Ts Ts", "Td Td"}


def test_sj17_engine_a_throw_of_top_cards_stands_for_the_whole_trick() -> None:
    st = start(spec={0: "As As Ks", 1: "Ks"})
    play(st, "As As Ks", seat=0)
    assert not [e for e in st.events if e.kind == "throw_failed"]
    assert st.events[-1].kind == "play" and st.events[-1].cards == cards("Ks As As")
    # seat 1 holds one spade: it must play it and two other cards (SJ-19 a)
    assert all(card("Ks") in a.cards and len(a.cards) == 3 for a in st.legal_actions())


@pytest.mark.parametrize(
    ("where", "forced_play"),
    [({3: "Js"}, "9s"), ({2: "Qs Qs"}, "4s 4s"), ({1: "5s 5s"}, "4s 4s")],
)
def test_sj17_engine_a_failed_throw_is_public_and_the_smallest_beatable_unit_is_played(
    where: dict[int, str], forced_play: str
) -> None:
    st = start(spec={0: "9s 8s 8s 4s 4s", **where})
    for seat in (1, 2, 3):
        assert suit_cards(st, seat, SPADES) == sorted(cards(where.get(seat, "")))
    play(st, "9s 8s 8s 4s 4s", seat=0)
    failed = [e for e in st.events if e.kind == "throw_failed"]
    assert [(e.seat, e.cards) for e in failed] == [(0, cards("4s 4s 8s 8s 9s"))]
    assert st.events[-1].kind == "play" and st.events[-1].cards == cards(forced_play)
    assert st.events[-2] == failed[0]
    # the rest of the throw goes back to the hand; the trick is the forced play's size
    remaining = Counter(cards("9s 8s 8s 4s 4s")) - Counter(cards(forced_play))
    assert Counter(st.hand(0)) >= remaining
    assert st.observe(1).public["trick"]["plays"] == [(0, forced_play)]


def test_sj17_engine_ruffing_does_not_count_against_a_throw() -> None:
    # seat 0 holds every spade; seat 1 is void and could ruff with a trump pair
    st = start(spec={0: "9s 8s 8s 4s 4s", 1: "2h 2h SJ"})
    assert all(not suit_cards(st, s, SPADES) for s in (1, 2, 3))
    play(st, "9s 8s 8s 4s 4s", seat=0)
    assert not [e for e in st.events if e.kind == "throw_failed"]
    assert st.events[-1].cards == cards("4s 4s 8s 8s 9s")


def test_sj17_engine_a_failed_declarer_throw_gives_the_penalty_to_the_defenders() -> None:
    st = start(spec={0: "9s 8s 8s 4s 4s", 3: "Js"}, throw_penalty=10)
    assert st.defender_points == 0
    play(st, "9s 8s 8s 4s 4s", seat=0)
    assert st.defender_points == 50  # 10 per card of the failed throw
    assert st.observe(2).public["defender_points"] == 50


def test_sj17_engine_no_penalty_by_default() -> None:
    st = start(spec={0: "9s 8s 8s 4s 4s", 3: "Js"})
    play(st, "9s 8s 8s 4s 4s", seat=0)
    assert st.defender_points == 0


def test_sj17_engine_a_failed_defender_throw_is_deducted_from_the_defenders() -> None:
    # seat 1 (defender) wins the first trick, with points, then throws and fails
    spec = {0: "Kc", 1: "Ac 9s 8s 8s", 2: "3c", 3: "4c"}
    st = start(spec=spec, throw_penalty=3)
    assert trick(st, "Kc", "Ac", "3c", "4c") == 1
    before = st.defender_points
    assert before == 10
    play(st, "9s 8s 8s", seat=1)  # seat 0 holds higher spades
    assert [e.seat for e in st.events if e.kind == "throw_failed"] == [1]
    assert st.defender_points == before - 9


def test_sj17_engine_a_defender_penalty_never_takes_the_defenders_below_zero() -> None:
    spec = {0: "3c", 1: "Ac 9s 8s 8s", 2: "4c", 3: "6c"}
    st = start(spec=spec, throw_penalty=10)
    assert trick(st, "3c", "Ac", "4c", "6c") == 1
    assert st.defender_points == 0
    play(st, "9s 8s 8s", seat=1)
    assert st.defender_points == 0


def test_sj17_engine_four_decks_refuse_throws() -> None:
    st = start("shengji-4", spec={0: "Ah Ah Kh"}, kept_suits="h")
    assert st.order is not None and st.order.trump == SPADES  # SJ-10: nobody declared
    refused(st, "Ah Ah Kh", "SJ-17")
    observation = st.observe(0)
    assert observation.legal_complete
    assert all(len(decompose(a.cards, st.order)) == 1 for a in st.legal_actions())
    play(st, "Ah Ah", seat=0)  # a single combination is fine


@pytest.mark.parametrize("name", ["shengji-1", "shengji-3"])
def test_sj17_throws_are_allowed_with_one_and_three_decks(name: str) -> None:
    st = start(name, spec={0: "As Ks"})
    play(st, "As Ks", seat=0)
    assert st.events[-1].cards == cards("Ks As")


# ----------------------------------------------------------------- SJ-18 leading


def test_sj18_the_dealer_leads_the_first_trick_and_the_winner_the_next() -> None:
    st = start(spec={3: "3h _ 2d ...", 0: "4h", 1: "Ah", 2: "5h"}, declare=(3, "2d"))
    assert st.dealer == 3 and st.to_act == 3
    assert trick(st, "3h", "4h", "Ah", "5h") == 1
    assert st.to_act == 1


def test_sj18_a_lead_is_of_one_suit() -> None:
    st = start(spec={0: "As Ah 2h"})
    refused(st, "As Ah", "SJ-18")
    refused(st, "As 2h", "SJ-18")  # plain spade and a trump (notrump: 2s are trumps)


# ----------------------------------------------------------------- SJ-19 following


def may_follow(
    follow: str, holding: str, lead: str, o: TrumpOrder = TEN_HEARTS, decks: int = 2
) -> bool:
    """SJ-19 (b): whether ``follow`` (cards of the led suit) matches the lead's shape as
    far as ``holding`` (all the follower's cards of that suit) allows."""
    played, held = cards(follow), cards(holding)
    assert len(played) == len(cards(lead)) and not Counter(played) - Counter(held)
    units = decompose(cards(lead), o)
    return score(played, units, o, decks) == score(held, units, o, decks)


def check_follows(
    lead: str,
    holding: str,
    legal: Sequence[str],
    illegal: Sequence[str],
    o: TrumpOrder = TEN_HEARTS,
    decks: int = 2,
) -> None:
    for follow in legal:
        assert may_follow(follow, holding, lead, o, decks), f"{follow} should follow {lead}"
    for follow in illegal:
        assert not may_follow(follow, holding, lead, o, decks), f"{follow} may not follow {lead}"


def test_sj19_lead_a_pair_play_a_pair() -> None:
    check_follows("3s 3s", "Ks Ks 9s 5s", legal=["Ks Ks"], illegal=["9s 5s", "Ks 9s"])


def test_sj19_lead_a_pair_pairs_inside_tractors_count() -> None:
    check_follows("3s 3s", "Qs Qs Js Js 4s", legal=["Qs Qs", "Js Js"], illegal=["Qs Js", "Js 4s"])


def test_sj19_lead_a_pair_without_a_pair_any_cards_of_the_suit() -> None:
    check_follows("3s 3s", "Ks Qs 9s", legal=["Ks Qs", "Qs 9s", "Ks 9s"], illegal=[])


def test_sj19_lead_a_trump_pair_off_suit_level_cards_are_no_pair() -> None:
    check_follows("3h 3h", "Ts Td 9h", legal=["Ts Td", "Ts 9h", "Td 9h"], illegal=[])
    check_follows("3h 3h", "Ts Ts 9h", legal=["Ts Ts"], illegal=["Ts 9h"])


def test_sj19_lead_a_tractor_play_a_tractor() -> None:
    check_follows(
        "4s 4s 3s 3s",
        "9s 9s 8s 8s Ks Ks",
        legal=["9s 9s 8s 8s"],
        illegal=["Ks Ks 9s 9s", "Ks Ks 8s 8s"],
    )


def test_sj19_lead_a_tractor_without_one_play_as_many_pairs_as_you_have() -> None:
    check_follows(
        "4s 4s 3s 3s",
        "Ks Ks 9s 9s 6s",
        legal=["Ks Ks 9s 9s"],
        illegal=["Ks Ks 9s 6s", "Ks 9s 9s 6s"],
    )


def test_sj19_lead_a_tractor_pairs_up_to_the_number_in_the_lead() -> None:
    check_follows(
        "4s 4s 3s 3s",
        "Ks Ks 9s 9s 6s 6s",
        legal=["Ks Ks 9s 9s", "Ks Ks 6s 6s", "9s 9s 6s 6s"],
        illegal=["Ks Ks 9s 6s"],
    )


def test_sj19_lead_a_tractor_with_one_pair_the_pair_then_singles() -> None:
    check_follows(
        "4s 4s 3s 3s",
        "Ks Ks 9s 6s 3s",
        legal=["Ks Ks 9s 6s", "Ks Ks 9s 3s", "Ks Ks 6s 3s"],
        illegal=["Ks 9s 6s 3s"],
    )


def test_sj19_lead_a_tractor_without_pairs_any_cards_of_the_suit() -> None:
    check_follows("4s 4s 3s 3s", "As Ks 9s 6s 3s", legal=["As Ks 9s 6s", "Ks 9s 6s 3s"], illegal=[])


def test_sj19_lead_a_long_tractor_a_shorter_tractor_is_only_pairs() -> None:
    # no 3-pair tractor: as many pairs as held, whether or not two of them are a tractor
    check_follows(
        "5s 5s 4s 4s 3s 3s",
        "Ks Ks Qs Qs 8s 8s 6s",
        legal=["Ks Ks Qs Qs 8s 8s"],
        illegal=["Ks Ks Qs Qs 8s 6s"],
    )


def test_sj19_lead_a_trump_tractor_with_level_cards() -> None:
    check_follows(
        "4h 4h 3h 3h",
        "Th Th Ts Ts Ah Ah 5h",  # trump 10 + off 10 + trump A: a 3-pair tractor
        legal=["Th Th Ts Ts", "Ts Ts Ah Ah"],
        illegal=["Th Th Ah Ah", "Th Th Ah 5h"],
    )


def test_sj19_lead_a_throw_pair_and_single() -> None:
    check_follows("As As Ks", "Qs Qs 9s 6s", legal=["Qs Qs 9s", "Qs Qs 6s"], illegal=["Qs 9s 6s"])


def test_sj19_lead_a_throw_tractor_first_then_single() -> None:
    check_follows(
        "As Qs Qs Js Js",
        "9s 9s 8s 8s 6s 6s 3s",
        legal=["9s 9s 8s 8s 3s", "9s 9s 8s 8s 6s"],
        illegal=["9s 9s 6s 6s 3s", "9s 8s 8s 6s 6s"],
    )


def test_sj19_lead_a_throw_no_card_counted_twice() -> None:
    # tractor + pair led; the follower's only pairs are one tractor: it answers the
    # tractor, and nothing is left for the pair
    check_follows(
        "Ks Ks Qs Qs 9s 9s",
        "8s 8s 7s 7s 4s 3s 2s",
        legal=["8s 8s 7s 7s 4s 3s", "8s 8s 7s 7s 3s 2s"],
        illegal=["8s 8s 4s 3s 2s 7s"],
    )


def test_sj19_lead_a_throw_largest_first_three_loose_pairs() -> None:
    check_follows(
        "Ks Ks Qs Qs 9s 9s",
        "8s 8s 6s 6s 3s 3s 2s",
        legal=["8s 8s 6s 6s 3s 3s"],
        illegal=["8s 8s 6s 6s 3s 2s"],
    )
    check_follows(
        "Ks Ks Qs Qs 9s 9s",
        "8s 8s 7s 7s 4s 4s 2s",
        legal=["8s 8s 7s 7s 4s 4s"],
        illegal=["8s 8s 7s 7s 4s 2s"],
    )


def test_sj19_three_decks_a_triple_holds_a_pair() -> None:
    check_follows("3s 3s", "9s 9s 9s 5s", ["9s 9s"], ["9s 5s"], decks=3)
    check_follows("4s 4s 3s 3s", "9s 9s 9s 8s 8s 8s", ["9s 9s 8s 8s"], ["9s 9s 9s 8s"], decks=3)


def test_sj19_engine_must_follow_a_pair_with_a_pair() -> None:
    st = start(spec={0: "3s 3s", 1: "Ks Ks 9s 5s"})
    play(st, "3s 3s", seat=0)
    assert suit_cards(st, 1, SPADES) == sorted(cards("Ks Ks 9s 5s"))
    assert play_texts(st) == ["Ks Ks"]
    refused(st, "9s 5s", "SJ-19")
    refused(st, "Ks 9s", "SJ-19")
    play(st, "Ks Ks", seat=1)


def test_sj19_engine_must_play_as_many_cards_as_the_lead() -> None:
    st = start(spec={0: "3s 3s", 1: "Ks Ks 9s 5s"})
    play(st, "3s 3s", seat=0)
    refused(st, "Ks", "SJ-19")
    refused(st, "Ks Ks 9s", "SJ-19")


def test_sj19_engine_with_enough_cards_of_the_suit_play_only_that_suit() -> None:
    st = start(spec={0: "3s 3s", 1: "Ks 9s 5s 3h"})
    play(st, "3s 3s", seat=0)
    refused(st, "Ks 3h", "SJ-19")
    play(st, "Ks 5s", seat=1)


def test_sj19_engine_with_fewer_cards_of_the_suit_play_them_all_and_any_others() -> None:
    st = start(spec={0: "As Qs Qs", 1: "Ks"})
    play(st, "As Qs Qs", seat=0)  # seat 0 holds every other spade: the throw stands
    assert suit_cards(st, 1, SPADES) == [card("Ks")]
    others = [c for c in st.hand(1) if c != card("Ks")]
    refused(st, format_cards(others[:3]), "SJ-19")
    assert all(card("Ks") in a.cards for a in st.legal_actions())
    play(st, format_cards([card("Ks"), *others[-2:]]), seat=1)


def test_sj19_engine_void_players_play_any_cards() -> None:
    st = start(spec={0: "3s 3s", 1: "3h 4d 2c"})
    play(st, "3s 3s", seat=0)
    assert not suit_cards(st, 1, SPADES)
    play(st, "4d 2c", seat=1)


# ----------------------------------------------------------------- SJ-20 winning


def contends(play_text: str, lead: str, o: TrumpOrder = TEN_HEARTS) -> bool:
    units = decompose(cards(lead), o)
    return contender(cards(play_text), units, o.suit(cards(lead)[0]), o) is not None


def beats(play_text: str, other: str | None, lead: str, o: TrumpOrder = TEN_HEARTS) -> bool:
    """Whether ``play_text`` beats ``other`` (``None``: the lead itself) on this lead."""
    units = decompose(cards(lead), o)
    suit = o.suit(cards(lead)[0])
    challenger = contender(cards(play_text), units, suit, o)
    assert challenger is not None, f"{play_text} is a discard on {lead}"
    if other is None:
        best = lead_contender(units, suit)
    else:
        found = contender(cards(other), units, suit, o)
        assert found is not None
        best = found
    return challenger.beats(best)


def test_sj20_a_higher_pair_beats_a_pair_two_singles_cannot() -> None:
    assert beats("Ks Ks", None, "3s 3s")
    assert not contends("Ks Qs", "3s 3s")  # higher cards, wrong shape: a discard


def test_sj20_a_tractor_is_beaten_only_by_a_higher_tractor() -> None:
    assert beats("9s 9s 8s 8s", None, "4s 4s 3s 3s")
    assert not contends("Ks Ks 9s 9s", "4s 4s 3s 3s")  # two pairs, not a tractor
    assert contends("4s 4s 3s 3s", "9s 9s 8s 8s")
    assert not beats("4s 4s 3s 3s", None, "9s 9s 8s 8s")


def test_sj20_the_main_part_decides() -> None:
    # lead pair + single: the pair is the main part; a higher single does not help
    assert beats("Ks Ks 2s", None, "Qs Qs 3s")
    assert contends("As Js Js", "Qs Qs 3s")
    assert not beats("As Js Js", None, "Qs Qs 3s")


def test_sj20_main_part_is_the_longest_widest_tractor_else_widest_set_else_single() -> None:
    assert main_shape(decompose(cards("As Qs Qs Js Js"), TEN_HEARTS)) == (2, 2)
    long_and_short = decompose(cards("Ks Ks Qs Qs Js Js 5s 5s 4s 4s"), TEN_HEARTS)
    assert main_shape(long_and_short) == (2, 3)
    assert main_shape(decompose(cards("As As Ks"), TEN_HEARTS)) == (2, 1)
    assert main_shape(decompose(cards("As Ks Qs"), TEN_HEARTS)) == (1, 1)
    assert main_shape(decompose(cards("As As As Ks Ks"), order(TEN, "h"))) == (3, 1)


def test_sj20_two_ruffs_compare_by_their_tractors_not_their_singles() -> None:
    lead = "As Qs Qs Js Js"
    assert beats("5h 5h 6h 6h 2h", "3h 3h 4h 4h Ah", lead)
    assert not beats("3h 3h 4h 4h Ah", "5h 5h 6h 6h 2h", lead)


def test_sj20_a_pair_may_serve_as_two_singles() -> None:
    assert beats("3h 3h", None, "As Ks")  # a ruff of a two-single throw
    assert contends("Qs Qs", "Ks 9s")


def test_sj20_mixed_suits_and_plain_cards_on_a_trump_lead_are_discards() -> None:
    assert not contends("3h 4d", "3s 3s")  # part trump, part other suit
    assert not contends("As", "3h")  # a plain card on a trump lead
    assert not contends("As Ks", "3h 4h")


def test_sj20_equal_plays_the_earlier_wins() -> None:
    assert not beats("Td", None, "Ts")
    assert not beats("Ts Ts", "Td Td", "3h 3h")
    assert beats("Th Th", "Td Td", "3h 3h")


# ----------------------------------------------------------------- SJ-21 ruffing


def test_sj21_seed_example_99_88_7_2_ruffs_a_k_55_44() -> None:
    lead = "As Ks 5s 5s 4s 4s"
    units = decompose(cards(lead), TEN_HEARTS)
    ruff = contender(cards("9h 9h 8h 8h 7h 2h"), units, SPADES, TEN_HEARTS)
    assert ruff is not None and ruff.ruff
    assert ruff.beats(lead_contender(units, SPADES))


def test_sj21_seed_example_99_88_7_2_does_not_ruff_aa_55_44() -> None:
    assert not contends("9h 9h 8h 8h 7h 2h", "As As 5s 5s 4s 4s")


def test_sj21_seed_example_9_77_ruffs_5_44_and_88_4_over_ruffs_it() -> None:
    lead = "5s 4s 4s"
    assert beats("9h 7h 7h", None, lead)
    assert beats("8h 8h 4h", "9h 7h 7h", lead)
    assert not beats("9h 7h 7h", "8h 8h 4h", lead)


def test_sj21_seed_example_9_7_7_ruffs_5_6_7_and_8_8_4_does_not_over_ruff() -> None:
    lead = "5s 6s 7s"
    assert shape(lead) == [(1, 1)] * 3
    assert beats("9h 7h 7h", None, lead)
    assert contends("8h 8h 4h", lead)
    assert not beats("8h 8h 4h", "9h 7h 7h", lead)


def test_sj21_a_ruff_of_a_pair_lead_needs_a_trump_pair() -> None:
    assert not contends("3h 4h", "3s 3s")
    assert beats("3h 3h", None, "As As")


def test_sj21_a_ruff_of_a_tractor_lead_needs_a_trump_tractor() -> None:
    assert not contends("3h 3h 5h 5h", "4s 4s 3s 3s")
    assert beats("3h 3h 4h 4h", None, "As As Ks Ks")


def test_sj21_a_trump_tractor_holds_as_many_pairs_as_a_two_pair_throw() -> None:
    assert beats("3h 3h 4h 4h", None, "As As 9s 9s")
    assert beats("3h 3h 4h 4h 5h 5h", None, "Ks Ks Qs Qs 9s 9s")  # tractor + pair
    assert not contends("3h 3h 4h 4h 6h 7h", "Ks Ks Qs Qs 9s 9s")


def test_sj21_any_ruff_beats_a_plain_follow() -> None:
    assert beats("2h", "As", "3s")
    assert not beats("As", "2h", "3s")


def test_sj21_engine_ruff_over_ruff_and_an_equal_ruff() -> None:
    st = start(spec={0: "As As", 1: "2h 2h", 2: "2d 2d", 3: "SJ SJ"})
    for seat in (1, 2, 3):
        assert not suit_cards(st, seat, SPADES)
    play(st, "As As", seat=0)
    play(st, "2h 2h", seat=1)
    assert st.observe(0).public["trick"]["winning"] == 1  # ruff
    play(st, "2d 2d", seat=2)
    assert st.observe(0).public["trick"]["winning"] == 1  # equal: the earlier stands
    play(st, "SJ SJ", seat=3)
    assert last_trick_winner(st) == 3  # over-ruff


def test_sj21_engine_trump_singles_on_a_pair_lead_are_a_discard() -> None:
    st = start(spec={0: "As As", 1: "2h SJ", 2: "3h 4h", 3: "3d 4d"})
    assert trick(st, "As As", "2h SJ", "3h 4h", "3d 4d") == 0


# ----------------------------------------------------------------- SJ-22 points


def lowest(st: ShengjiState, seat: int, suit: int) -> str:
    return format_cards(suit_cards(st, seat, suit)[:1])


def test_sj22_trick_points_go_to_the_winners_team() -> None:
    spec = {0: "Ks Ks", 1: "2h 2h 5d", 2: "Ad Ad 5h", 3: "Kd 3h"}
    st = start(spec=spec)
    assert st.declarer_team == 0
    # seat 1 (defender) ruffs a trick holding 35 points: the defenders get them
    assert trick(st, "Ks Ks", "2h 2h", "Ad 5h", "Kd 3h") == 1
    assert [e.value for e in st.events if e.kind == "trick"] == [35]
    assert st.defender_points == 35 == st.observe(0).public["defender_points"]
    # seat 2 (declarer) wins the next: the defenders' total does not move
    play(st, "5d", seat=1)
    play(st, "Ad", seat=2)
    play(st, lowest(st, 3, DIAMONDS), seat=3)
    assert not suit_cards(st, 0, DIAMONDS)
    play(st, lowest(st, 0, SPADES), seat=0)
    assert last_trick_winner(st) == 2
    points = sum(card_points(c) for played in last_trick_plays(st) for c in played)
    assert [e.value for e in st.events if e.kind == "trick"][-1] == points >= 5
    assert st.defender_points == 35
    assert st.declarer_points == points


# ----------------------------------------------------------------- SJ-28 3 decks


TITANIC_FOLLOWS = [
    # (holding, legal, illegal), in the order of the SJ-28 list
    (
        "9s 9s 9s 8s 8s 8s 2s 2s",
        ["9s 9s 9s 8s 8s 8s"],
        ["9s 9s 9s 8s 8s 2s", "9s 9s 8s 8s 2s 2s"],
    ),
    (
        "9s 9s 8s 8s 6s 6s 6s Ks",  # tractor of pairs + any 2
        ["9s 9s 8s 8s 6s 6s", "9s 9s 8s 8s 6s Ks"],
        ["6s 6s 6s 9s 9s 8s", "6s 6s 6s 9s 9s Ks"],
    ),
    (
        "9s 9s 9s 6s 6s 6s Ks Qs 3s",  # two triples
        ["9s 9s 9s 6s 6s 6s"],
        ["9s 9s 9s 6s 6s Ks", "9s 9s 9s Ks Qs 3s"],
    ),
    (
        "9s 9s 9s 6s 6s Ks Qs 3s",  # triple + pair + single
        ["9s 9s 9s 6s 6s Ks", "9s 9s 9s 6s 6s 3s"],
        ["9s 9s 9s Ks Qs 3s", "9s 9s 6s 6s Ks Qs"],
    ),
    ("9s 9s 9s Ks Qs 6s 3s", ["9s 9s 9s Ks Qs 3s"], ["9s 9s Ks Qs 6s 3s"]),  # triple + 3
    ("9s 9s 6s 6s Ks Qs 3s", ["9s 9s 6s 6s Ks 3s"], ["9s 9s Ks Qs 6s 3s"]),  # 2 pairs + 2
    ("9s 9s Ks Qs 6s 4s 2s", ["9s 9s Ks Qs 6s 4s"], ["9s Ks Qs 6s 4s 2s"]),  # pair + 4
    ("As Ks Qs Js 9s 7s 5s", ["As Ks Qs Js 9s 7s", "Ks Qs Js 9s 7s 5s"], []),  # 6 singles
]


@pytest.mark.parametrize(("holding", "legal", "illegal"), TITANIC_FOLLOWS)
def test_sj28_following_a_titanic(holding: str, legal: list[str], illegal: list[str]) -> None:
    check_follows("3s 3s 3s 4s 4s 4s", holding, legal, illegal, TEN_HEARTS, 3)


@pytest.mark.parametrize(
    ("holding", "legal", "illegal"),
    [
        ("9s 9s 9s 6s 6s Ks", ["9s 9s 9s"], ["6s 6s Ks", "9s 9s Ks"]),
        ("6s 6s Ks Qs", ["6s 6s Ks", "6s 6s Qs"], ["6s Ks Qs"]),
        ("Ks Qs 9s 6s", ["Ks Qs 9s", "Qs 9s 6s"], []),
    ],
)
def test_sj28_following_a_triple(holding: str, legal: list[str], illegal: list[str]) -> None:
    check_follows("5s 5s 5s", holding, legal, illegal, TEN_HEARTS, 3)


def test_sj28_engine_refuses_a_follow_below_the_titanic_list() -> None:
    spec = {0: "3s 3s 3s 4s 4s 4s", 1: "9s 9s 8s 8s 6s 6s 6s Ks"}
    st = start("shengji-3", spec=spec)
    assert suit_cards(st, 1, SPADES) == sorted(cards(spec[1]))
    play(st, "3s 3s 3s 4s 4s 4s", seat=0)
    refused(st, "6s 6s 6s 9s 9s 8s", "SJ-19")
    play(st, "9s 9s 8s 8s 6s Ks", seat=1)


# ----------------------------------------------------------------- SJ-29 4 decks

FOUR_DECKS = order(TEN, "h", twos=True)  # 4 decks: the 2s are always trumps


def check_four(lead: str, holding: str, legal: Sequence[str], illegal: Sequence[str]) -> None:
    check_follows(lead, holding, legal, illegal, FOUR_DECKS, 4)


@pytest.mark.parametrize(
    ("holding", "legal", "illegal"),
    [
        ("9s 9s 9s 9s 8s 8s Ks", ["9s 9s 9s 9s"], ["9s 9s 8s 8s"]),  # quad
        ("9s 9s 9s 8s 8s 8s Ks", ["9s 9s 8s 8s"], ["9s 9s 9s Ks", "9s 9s 9s 8s"]),  # 2-tractor
        ("9s 9s 6s 6s Ks Qs", ["9s 9s 6s 6s"], ["9s 9s Ks Qs"]),  # two pairs
        ("9s 9s 9s 6s 6s Ks", ["9s 9s 6s 6s"], ["9s 9s 9s 6s", "9s 9s 9s Ks"]),  # ... before 3+1
        ("9s 9s 9s Ks Qs 6s", ["9s 9s 9s Ks", "9s 9s 9s 6s"], ["9s 9s Ks Qs"]),  # triple + 1
        ("9s 9s Ks Qs 6s", ["9s 9s Ks Qs", "9s 9s Qs 6s"], ["9s Ks Qs 6s"]),  # pair + 2
        ("As Ks Qs 9s 6s", ["As Ks Qs 9s", "Ks Qs 9s 6s"], []),  # 4 singles
    ],
)
def test_sj29_following_a_quad(holding: str, legal: list[str], illegal: list[str]) -> None:
    check_four("4s 4s 4s 4s", holding, legal, illegal)


@pytest.mark.parametrize(
    ("holding", "legal", "illegal"),
    [
        ("9s 9s 9s 9s Ks Ks Qs Qs 3s", ["9s 9s 9s 9s", "Ks Ks Qs Qs"], ["9s 9s Ks Ks"]),
        ("9s 9s 9s 9s Ks Ks 3s", ["9s 9s 9s 9s"], ["9s 9s Ks Ks"]),  # the quad may answer
        ("9s 9s 6s 6s Ks", ["9s 9s 6s 6s"], ["9s 9s 6s Ks"]),  # two pairs
        ("9s 9s 9s 6s 6s 6s", ["9s 9s 6s 6s"], ["9s 9s 9s 6s"]),
        ("9s 9s Ks 6s 3s", ["9s 9s Ks 6s", "9s 9s 6s 3s"], ["Ks 9s 6s 3s"]),  # pair + 2
        ("As Ks 9s 6s 3s", ["As Ks 9s 6s"], []),  # 4 singles
    ],
)
def test_sj29_following_a_two_pair_tractor(
    holding: str, legal: list[str], illegal: list[str]
) -> None:
    check_four("4s 4s 5s 5s", holding, legal, illegal)


FOUR_PAIR_FOLLOWS = [
    # (holding, legal, illegal), in the order of the SJ-29 list
    (
        "As As Ks Ks Qs Qs Js Js 3s 3s 3s 3s 8s 8s 8s 8s",  # 4-pair tractor or two quads
        ["As As Ks Ks Qs Qs Js Js", "3s 3s 3s 3s 8s 8s 8s 8s"],
        ["As As Ks Ks Qs Qs 3s 3s", "3s 3s 3s 3s 8s 8s As As"],
    ),
    (
        "9s 9s 9s 8s 8s 8s Ks Ks 3s",  # triple tractor + pair
        ["9s 9s 9s 8s 8s 8s Ks Ks"],
        ["9s 9s 9s 8s 8s 8s Ks 3s"],
    ),
    (
        "9s 9s 9s 8s 8s 8s Ks Qs 3s",  # triple tractor + 2 singles
        ["9s 9s 9s 8s 8s 8s Ks 3s"],
        ["9s 9s 9s 8s 8s Ks Qs 3s"],
    ),
    (
        "9s 9s 8s 8s Ks Ks 5s 5s 3s",  # pair tractor + two pairs
        ["9s 9s 8s 8s Ks Ks 5s 5s"],
        ["9s 9s 8s 8s Ks Ks 5s 3s"],
    ),
    (
        "9s 9s 8s 8s Ks Ks Qs 5s 3s",  # pair tractor + pair + 2 singles
        ["9s 9s 8s 8s Ks Ks Qs 3s"],
        ["9s 9s 8s 8s Ks Qs 5s 3s"],
    ),
    (
        "9s 9s 8s 8s As Qs 6s 5s 3s",  # pair tractor + 4 singles
        ["9s 9s 8s 8s As Qs 6s 5s"],
        ["9s 9s 8s As Qs 6s 5s 3s"],
    ),
    (
        "9s 9s 9s 9s Ks Ks 5s 5s 3s",  # quad + two pairs
        ["9s 9s 9s 9s Ks Ks 5s 5s"],
        ["9s 9s 9s 9s Ks Ks 5s 3s"],
    ),
    (
        "9s 9s 9s 9s Ks Ks Qs 5s 3s",  # quad + pair + 2 singles
        ["9s 9s 9s 9s Ks Ks Qs 5s"],
        ["9s 9s 9s 9s Ks Qs 5s 3s"],
    ),
    (
        "9s 9s 9s 9s As Qs 6s 5s 3s",  # quad + 4 singles
        ["9s 9s 9s 9s As Qs 6s 5s"],
        ["9s 9s 9s As Qs 6s 5s 3s"],
    ),
    (
        "9s 9s 9s 6s 6s 6s Ks Qs 3s",  # two triples + 2 singles
        ["9s 9s 9s 6s 6s 6s Ks 3s"],
        ["9s 9s 9s 6s 6s Ks Qs 3s"],
    ),
    (
        "9s 9s 9s Ks Ks 6s 6s Qs 3s",  # triple + two pairs + single
        ["9s 9s 9s Ks Ks 6s 6s 3s"],
        ["9s 9s 9s Ks Ks 6s Qs 3s"],
    ),
    (
        "9s 9s 9s Ks Ks As 6s 4s 3s",  # triple + pair + 3 singles
        ["9s 9s 9s Ks Ks As 6s 4s"],
        ["9s 9s 9s Ks As 6s 4s 3s"],
    ),
    (
        "9s 9s 9s As Ks 6s 4s 3s Js",  # triple + 5 singles
        ["9s 9s 9s As Ks 6s 4s 3s"],
        ["9s 9s As Ks 6s 4s 3s Js"],
    ),
    (
        "Ks Ks 9s 9s 6s 6s 3s 3s As",  # four pairs
        ["Ks Ks 9s 9s 6s 6s 3s 3s"],
        ["Ks Ks 9s 9s 6s 6s 3s As"],
    ),
    (
        "Ks Ks 9s 9s 6s 6s As Js 4s",  # three pairs + 2 singles
        ["Ks Ks 9s 9s 6s 6s As 4s"],
        ["Ks Ks 9s 9s 6s As Js 4s"],
    ),
    (
        "Ks Ks 9s 9s As Js 6s 4s 3s",  # two pairs + 4 singles
        ["Ks Ks 9s 9s As Js 6s 4s"],
        ["Ks Ks 9s As Js 6s 4s 3s"],
    ),
    (
        "Ks Ks As Js 9s 6s 4s 3s Qs",  # pair + 6 singles
        ["Ks Ks As Js 9s 6s 4s 3s"],
        ["Ks As Qs Js 9s 6s 4s 3s"],
    ),
    ("As Ks Qs Js 9s 8s 7s 6s 5s", ["As Ks Qs Js 9s 8s 7s 6s", "Ks Qs Js 9s 8s 7s 6s 5s"], []),
]


@pytest.mark.parametrize(("holding", "legal", "illegal"), FOUR_PAIR_FOLLOWS)
def test_sj29_following_a_four_pair_tractor(
    holding: str, legal: list[str], illegal: list[str]
) -> None:
    check_four("4s 4s 5s 5s 6s 6s 7s 7s", holding, legal, illegal)


def test_sj29_following_a_quad_tractor_two_quads_come_before_a_four_pair_tractor() -> None:
    lead = "4s 4s 4s 4s 5s 5s 5s 5s"
    holding = "9s 9s 9s 9s 6s 6s 6s 6s As As Ks Ks Qs Qs Js Js"
    check_four(lead, holding, ["9s 9s 9s 9s 6s 6s 6s 6s"], ["As As Ks Ks Qs Qs Js Js"])
    check_four(
        lead,
        "9s 9s 9s 9s 8s 8s 8s 8s As As Ks Ks Qs Qs Js Js",
        ["9s 9s 9s 9s 8s 8s 8s 8s"],
        ["As As Ks Ks Qs Qs Js Js"],
    )
    # without two quads the 4-pair tractor comes first, then the general 8-card list
    check_four(
        lead,
        "As As Ks Ks Qs Qs Js Js 9s 9s 9s 8s 8s 8s",
        ["As As Ks Ks Qs Qs Js Js"],
        ["9s 9s 9s 8s 8s 8s As As"],
    )


@pytest.mark.parametrize(
    ("holding", "legal", "illegal"),
    [
        (
            "Js Js Js Qs Qs Qs 5s 5s 4s 4s 3s 3s",  # 3-pair or triple tractor: a choice
            ["Js Js Js Qs Qs Qs", "5s 5s 4s 4s 3s 3s"],
            ["Js Js Qs Qs 5s 5s"],
        ),
        ("9s 9s 9s 9s Ks Ks 3s", ["9s 9s 9s 9s Ks Ks"], ["9s 9s 9s Ks Ks 3s"]),  # quad + pair
        ("Ks Ks Qs Qs 6s 6s 3s", ["Ks Ks Qs Qs 6s 6s"], ["Ks Ks Qs Qs 6s 3s"]),  # 2-tractor + 2
        ("Ks Ks 9s 9s 6s 6s 3s", ["Ks Ks 9s 9s 6s 6s"], ["Ks Ks 9s 9s 6s 3s"]),  # three pairs
        ("Ks Ks 9s 9s 6s 3s As", ["Ks Ks 9s 9s 6s 3s"], ["Ks Ks 9s 6s 3s As"]),  # 2 pairs + 2
        ("Ks Ks 9s 6s 4s 3s As", ["Ks Ks 9s 6s 4s 3s"], ["Ks 9s 6s 4s 3s As"]),  # pair + 4
        ("As Ks 9s 6s 4s 3s", ["As Ks 9s 6s 4s 3s"], []),  # 6 singles
    ],
)
def test_sj29_following_a_three_pair_tractor(
    holding: str, legal: list[str], illegal: list[str]
) -> None:
    check_four("6s 6s 7s 7s 8s 8s", holding, legal, illegal)


@pytest.mark.parametrize(
    ("holding", "legal", "illegal"),
    [
        ("5s 5s 5s 4s 4s 4s Ks Ks", ["5s 5s 5s 4s 4s 4s"], ["5s 5s 4s 4s Ks Ks"]),
        ("5s 5s 4s 4s 3s 3s 9s 9s 9s 9s", ["5s 5s 4s 4s 3s 3s"], ["9s 9s 9s 9s 5s 5s"]),
        (
            "9s 9s 9s 9s Ks Ks 5s 5s 3s",  # quad + pair
            ["9s 9s 9s 9s Ks Ks", "9s 9s 9s 9s 5s 5s"],
            ["9s 9s 9s Ks Ks 5s", "9s 9s Ks Ks 5s 5s"],
        ),
        ("As As Ks Ks 9s 9s 6s", ["As As Ks Ks 9s 9s"], ["As As Ks Ks 9s 6s"]),  # 2-tractor + 2
        (
            "9s 9s 9s 6s 6s 6s As As Ks Ks",  # a 2-pair tractor + pair comes before two triples
            ["As As Ks Ks 9s 9s", "As As Ks Ks 6s 6s"],
            ["9s 9s 9s 6s 6s 6s"],
        ),
        ("9s 9s 9s 6s 6s 6s Ks", ["9s 9s 9s 6s 6s 6s"], ["9s 9s 9s 6s 6s Ks"]),  # two triples
        ("9s 9s 9s 6s 6s Ks 3s", ["9s 9s 9s 6s 6s Ks"], ["9s 9s 9s 6s Ks 3s"]),  # 3 + 2 + 1
        ("9s 9s 6s 6s 3s 3s As", ["9s 9s 6s 6s 3s 3s"], ["9s 9s 6s 6s 3s As"]),  # three pairs
        ("9s 9s 6s 6s 3s As Ks", ["9s 9s 6s 6s 3s As"], ["9s 9s 6s 3s As Ks"]),  # 2 pairs + 2
        ("9s 9s 6s 4s 3s As Ks", ["9s 9s 6s 4s 3s As"], ["9s 6s 4s 3s As Ks"]),  # pair + 4
    ],
)
def test_sj29_following_a_triple_tractor(
    holding: str, legal: list[str], illegal: list[str]
) -> None:
    check_four("Js Js Js Qs Qs Qs", holding, legal, illegal)


def test_sj29_decision_an_unlisted_lead_follows_the_general_rule_widest_first() -> None:
    # a triple led with 4 decks: triple, else a pair, else singles
    check_four("5s 5s 5s", "9s 9s 9s 6s 6s Ks", ["9s 9s 9s"], ["6s 6s Ks"])
    check_four("5s 5s 5s", "6s 6s Ks Qs", ["6s 6s Ks"], ["6s Ks Qs"])


def beats_lead_four_decks(follow: str, lead: str) -> bool:
    units = decompose(cards(lead), FOUR_DECKS)
    challenger = contender(cards(follow), units, SPADES, FOUR_DECKS, decks=4)
    return challenger is not None and challenger.beats(lead_contender(units, SPADES))


def test_sj29_comparison_a_triple_tractor_outranks_a_pair_tractor_of_equal_size() -> None:
    assert beats_lead_four_decks("Js Js Js Qs Qs Qs", "6s 6s 7s 7s 8s 8s")
    assert not beats_lead_four_decks("As As Ks Ks Qs Qs", "5s 5s 5s 6s 6s 6s")


def test_sj29_comparison_a_quad_beats_a_two_pair_tractor() -> None:
    assert beats_lead_four_decks("9s 9s 9s 9s", "4s 4s 5s 5s")
    assert not beats_lead_four_decks("9s 9s 8s 8s", "4s 4s 4s 4s")


def test_sj29_comparison_a_quad_tractor_beats_a_four_pair_tractor() -> None:
    assert beats_lead_four_decks("9s 9s 9s 9s 8s 8s 8s 8s", "4s 4s 5s 5s 6s 6s 7s 7s")


QUAD_TRACTOR_OF_3 = "9s 9s 9s 9s 8s 8s 8s 8s 7s 7s 7s 7s"
TRIPLE_TRACTOR_OF_4 = "As As As Ks Ks Ks Qs Qs Qs Js Js Js"
PAIR_TRACTOR_OF_6 = "3s 3s 4s 4s 5s 5s 6s 6s 7s 7s 8s 8s"


def test_sj29_comparison_twelve_cards_a_quad_tractor_beats_a_triple_tractor() -> None:
    assert beats_lead_four_decks(QUAD_TRACTOR_OF_3, "3s 3s 3s 4s 4s 4s 5s 5s 5s 6s 6s 6s")


def test_sj29_comparison_twelve_cards_a_triple_tractor_beats_a_pair_tractor() -> None:
    assert beats_lead_four_decks(TRIPLE_TRACTOR_OF_4, PAIR_TRACTOR_OF_6)


def test_sj29_comparison_twelve_cards_a_quad_tractor_beats_a_pair_tractor() -> None:
    assert beats_lead_four_decks("As As As As Ks Ks Ks Ks Qs Qs Qs Qs", PAIR_TRACTOR_OF_6)


def test_sj29_comparison_a_higher_pair_tractor_does_not_beat_a_triple_tractor() -> None:
    high_pairs = "As As Ks Ks Qs Qs Js Js 9s 9s 8s 8s"
    assert not beats_lead_four_decks(high_pairs, "3s 3s 3s 4s 4s 4s 5s 5s 5s 6s 6s 6s")


def test_sj29_engine_a_triple_tractor_wins_over_a_led_three_pair_tractor() -> None:
    spec = {0: "4h 4h 5h 5h 6h 6h", 1: "Jh Jh Jh Qh Qh Qh"}
    st = start("shengji-4", spec=spec, kept_suits="h")
    assert suit_cards(st, 1, HEARTS) == sorted(cards(spec[1]))
    play(st, "4h 4h 5h 5h 6h 6h", seat=0)
    play(st, "Jh Jh Jh Qh Qh Qh", seat=1)  # legal: the first line of the list
    for seat in (2, 3):
        assert not suit_cards(st, seat, HEARTS)
        plain = [c for c in st.hand(seat) if st.order and not st.order.is_trump(c)]
        play(st, format_cards(plain[:6]), seat=seat)  # discards
    assert last_trick_winner(st) == 1


def test_sj29_engine_a_triple_tractor_of_four_wins_over_a_led_six_pair_tractor() -> None:
    lead = "3h 3h 4h 4h 5h 5h 6h 6h 7h 7h 8h 8h"
    follow = "Ah Ah Ah Kh Kh Kh Qh Qh Qh Jh Jh Jh"
    st = start("shengji-4", spec={0: lead, 1: follow}, kept_suits="h")
    assert suit_cards(st, 1, HEARTS) == sorted(cards(follow))
    play(st, lead, seat=0)
    play(st, follow, seat=1)
    for seat in (2, 3):
        assert not suit_cards(st, seat, HEARTS)
        plain = [c for c in st.hand(seat) if st.order and not st.order.is_trump(c)]
        play(st, format_cards(plain[:12]), seat=seat)  # discards
    assert last_trick_winner(st) == 1


# ----------------------------------------------------------------- SJ-31 two colours

RED_TRUMP = TrumpOrder(level=TEN, trump=RED, two_colour=True)


def test_sj31_two_suits_red_and_black() -> None:
    assert RED_TRUMP.plain_suits() == (BLACK, RED)
    assert {RED_TRUMP.suit(c) for c in cards("Kh Kd 3h 3d Ts Tc SJ BJ")} == {TRUMP}
    assert {RED_TRUMP.suit(c) for c in cards("Ks Kc 3s 3c As Ac")} == {BLACK}
    black = TrumpOrder(level=TEN, trump=BLACK, two_colour=True)
    assert {black.suit(c) for c in cards("Kh Kd 3h 3d")} == {RED}


def test_sj31_same_rank_and_colour_is_a_pair() -> None:
    assert shape("Kh Kd", RED_TRUMP) == [(2, 1)]
    assert shape("Ks Kc", RED_TRUMP) == [(2, 1)]
    assert not one_suit("Kh Ks", RED_TRUMP)
    notrump = TrumpOrder(level=TEN, trump=None, two_colour=True)
    assert shape("Kh Kd", notrump) == [(2, 1)]
    assert not one_suit("Kh Ks", notrump)
    assert shape("Kh Qd", notrump) == [(1, 1), (1, 1)]


def test_sj31_consecutive_same_colour_pairs_are_tractors() -> None:
    assert is_tractor("7s 7c 8s 8c", RED_TRUMP)
    assert is_tractor("7h 7d 8d 8h", RED_TRUMP)
    assert not is_tractor("7s 7c 9s 9c", RED_TRUMP)


def test_sj31_follow_a_two_colour_pair_with_a_two_colour_pair() -> None:
    lead, o = "7s 7c", RED_TRUMP
    assert may_follow("Ks Kc", "Ks Kc 9s", lead, o, 1)
    assert not may_follow("Ks 9s", "Ks Kc 9s", lead, o, 1)


def test_sj31_engine_one_deck_two_colours() -> None:
    st = start("shengji-1", spec={0: "7s 7c", 1: "Ks Kc 9s"}, kept_suits="sc", two_colour=True)
    assert st.order is not None and st.order.two_colour
    assert suit_cards(st, 1, BLACK) == sorted(cards("Ks Kc 9s"))
    play(st, "7s 7c", seat=0)
    assert play_texts(st) == ["Ks Kc"]
    refused(st, "Ks 9s", "SJ-19")
    play(st, "Ks Kc", seat=1)


# ----------------------------------------------------------------- whole deals

SMALL, BIG = card("SJ"), card("BJ")


def quiet(st: ShengjiState, seat: int, keep: Counter[Card]) -> Action:
    """A legal follow that leaves ``keep`` in hand and does not take the trick.

    In the led suit: its lowest cards. Void: other cards of distinct kinds (never a
    set, so never a ruff of a pair or a tractor), the most plentiful first; a single
    is a card that is not a trump.
    """
    o = st.order
    assert o is not None
    plays = st.observe(seat).public["trick"]["plays"]
    lead = cards(plays[0][1])
    n, led = len(lead), o.suit(lead[0])
    available = Counter(st.hand(seat)) - keep
    suited = sorted((c for c in available.elements() if o.suit(c) == led), key=o.sort_key)
    choice = suited[:n]
    if len(choice) < n:
        rest = Counter(c for c in available.elements() if o.suit(c) != led)
        need = n - len(choice)
        kinds = sorted(rest, key=lambda c: (need == 1 and o.is_trump(c), -rest[c], c))
        assert len(kinds) >= need, f"seat {seat} cannot follow quietly"
        choice += kinds[:need]
    action = Action.make("play", choice)
    trial = st.clone()
    tricks = sum(e.kind == "trick" for e in trial.events)
    trial.apply(action)
    if sum(e.kind == "trick" for e in trial.events) > tricks:
        winner = last_trick_winner(trial)
    else:
        winner = trial.observe(seat).public["trick"]["winning"]
    assert winner != seat, f"seat {seat} would take the trick with {action}"
    return action


def play_out(
    st: ShengjiState, scripts: Mapping[int, Sequence[str]], keep: Mapping[int, str]
) -> None:
    """Plays the deal to its end: each seat plays its script in order (leads and chosen
    follows), then follows quietly keeping ``keep[seat]``, which it plays last."""
    queues = {seat: list(script) for seat, script in scripts.items()}
    kept = {seat: Counter(cards(text)) for seat, text in keep.items()}
    while st.phase == "play":
        seat = st.to_act
        if queues.get(seat):
            play(st, queues[seat].pop(0))
        elif seat in kept and Counter(st.hand(seat)) == kept[seat]:
            play(st, format_cards(sorted(kept[seat].elements())))
        else:
            st.apply(quiet(st, seat, kept.get(seat, Counter())))
    assert not any(queues.values())


def pairs_of(suit: int, ranks: Sequence[int]) -> list[Card]:
    return [make_card(rank, suit) for rank in ranks for _ in range(2)]


def two_deck_deal(ending: str, level: int) -> tuple[list[list[Card]], dict[int, list[str]], dict]:
    """A 2-deck deal seen from the dealer (relative seat 0), played notrump.

    The dealer holds every spade and the top club; it leads the club, then spade pairs
    from the top, which nobody can follow, and ends with its lowest spades. The kitty
    (50 points) is buried as dealt. In the last trick the next player (a defender)
    ruffs with its level-heart pair (``ending="pair"``) or with that pair and the small
    jokers as a tractor (``"tractor"``); with ``"over_ruff"`` the dealer's partner
    over-ruffs the pair with two small jokers. The other defender keeps Kh Kh (20
    points) for the last trick.
    """
    plain = [r for r in range(13) if r != level]
    assert not {level} & {FOUR, FIVE, SIX, TEN, KING}
    level_card = {suit: make_card(level, suit) for suit in range(4)}
    top_club = make_card(plain[-1], CLUBS)
    kitty = list(cards("5d 5d Td Td Kd Kd BJ BJ"))
    clubs = pairs_of(CLUBS, plain)
    clubs.remove(top_club)
    hearts = pairs_of(HEARTS, plain)
    diamonds = list((Counter(pairs_of(DIAMONDS, plain)) - Counter(kitty)).elements())
    low = plain[:2] if ending == "tractor" else plain[:1]
    leads = [format_cards([top_club])]
    leads += [format_cards(pairs_of(SPADES, [r])) for r in reversed(plain) if r not in low]
    leads.append(format_cards(pairs_of(SPADES, low)))
    dealer = [*pairs_of(SPADES, plain), top_club]
    if ending == "tractor":
        ruff = [level_card[HEARTS]] * 2 + [SMALL] * 2
        spare = pairs_of(CLUBS, plain[:1])  # the two lowest clubs go to the other defender
        for c in spare:
            clubs.remove(c)
        right = ruff + clubs
        hearts.remove(make_card(plain[0], HEARTS))  # one low heart goes to the partner
        left = hearts + spare
        partner = diamonds + [level_card[s] for s in (SPADES, DIAMONDS, CLUBS) for _ in range(2)]
        partner.append(make_card(plain[0], HEARTS))
        keep = {1: format_cards(ruff), 2: "4d 4d 6d 6d", 3: "Kh Kh Qh Qh"}
    else:
        ruff = [level_card[HEARTS]] * 2
        right = ruff + clubs
        left = [*hearts, level_card[CLUBS]]
        partner = [*diamonds, SMALL, SMALL]
        partner += [level_card[s] for s in (SPADES, SPADES, DIAMONDS, DIAMONDS, CLUBS)]
        keep = {1: format_cards(ruff), 2: "SJ SJ" if ending == "over_ruff" else "4d 4d"}
        keep[3] = "Kh Kh"
    hands = [dealer, right, partner, left, kitty]
    assert [len(h) for h in hands] == [25, 25, 25, 25, 8], [len(h) for h in hands]
    assert Counter(c for h in hands for c in h) == Counter(deck(2))
    return hands, {0: leads}, keep


def run_two_deck_deal(
    ending: str, setup: ShengjiSetup | None = None, **options: object
) -> ShengjiState:
    setup = setup or ShengjiSetup()
    dealer = 0 if setup.dealer is None else setup.dealer
    relative, scripts, keep = two_deck_deal(ending, level_of(setup))
    hands = [relative[(seat - dealer) % 4] for seat in range(4)] + [relative[4]]
    st = make("shengji-2", **options).new_deal(setup, hands=hands)
    finish_declaring(st)
    assert st.dealer == dealer and st.order is not None and st.order.trump is None
    for c in relative[4]:
        st.apply(Action("bury", (c,)))
    play_out(
        st,
        {(dealer + r) % 4: s for r, s in scripts.items()},
        {(dealer + r) % 4: k for r, k in keep.items()},
    )
    assert st.phase == "over"
    return st


def test_sj22_sj25_defenders_ruff_the_last_trick_with_a_pair_kitty_times_4() -> None:
    st = run_two_deck_deal("pair")
    assert last_trick_winner(st) == 1
    assert [e.seat for e in st.events if e.kind == "trick"][:-1] == [0] * 12
    details = st.outcome().details
    assert details["kitty"] == "5d 5d Td Td Kd Kd BJ BJ"
    assert details["last_bonus"] == 50 * 4
    assert details["defender_points"] == 20 + 50 * 4  # Kh Kh in the last trick + kitty
    kitty_events = [e for e in st.events if e.kind == "kitty"]
    assert [(e.cards, e.value) for e in kitty_events] == [(cards(details["kitty"]), 200)]


def test_sj25_a_tractor_ruff_of_the_last_trick_multiplies_the_kitty_by_16() -> None:
    st = run_two_deck_deal("tractor")
    assert last_trick_winner(st) == 1
    assert last_trick_plays(st)[1] == cards("2h 2h SJ SJ")
    details = st.outcome().details
    assert details["last_bonus"] == 50 * 16
    assert details["defender_points"] == 20 + 50 * 16


def test_sj25_declarers_winning_the_last_trick_leaves_the_kitty_alone() -> None:
    st = run_two_deck_deal("over_ruff")
    assert last_trick_winner(st) == 2  # the partner over-ruffs (SJ-21)
    details = st.outcome().details
    assert details["last_bonus"] == 0
    assert details["defender_points"] == 0
    assert details["kitty"] == "5d 5d Td Td Kd Kd BJ BJ"


@pytest.mark.parametrize(
    ("play_text", "largest"),
    [
        ("4s 4s 4s 5s 5s 5s", 6),
        ("4s 4s 5s 5s 6s 6s", 6),
        ("4s 4s 5s 5s", 4),
        ("5s 5s 5s", 3),
        ("5s 5s", 2),
        ("5s", 1),
        ("As Ks Qs Js Ts 9s 8s 7s 7s", 2),  # the throw A K Q J 10 9 8 77: the pair
        ("As Ks Qs Js", 1),
        ("As As Js Js", 2),  # two pairs, not a tractor
    ],
)
def test_sj25_seed_examples_the_largest_combination_of_the_winning_play(
    play_text: str, largest: int
) -> None:
    o = order(TWO, "h")  # the seeds' throw holds a 10: not the level here
    assert largest_unit_cards(cards(play_text), o) == largest
    multiplier = {6: 64, 4: 16, 3: 8, 2: 4, 1: 2}[largest]
    assert kitty_multiplier(largest) == multiplier


# ----------------------------------------------------------------- SJ-23 next dealer


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_sj23_declarers_going_up_the_partner_deals_next(dealer: int) -> None:
    st = run_two_deck_deal("over_ruff", ShengjiSetup(levels=(TWO, TWO), dealer=dealer))
    outcome = st.outcome()
    assert outcome.details["take_over"] is False and outcome.details["gain"] == 3  # 大光
    assert outcome.next_setup is not None
    assert outcome.next_setup.dealer == (dealer + 2) % 4
    declarers = team_of(dealer)
    expected = [TWO, TWO]
    expected[declarers] = TWO + 3
    assert outcome.next_setup.levels == tuple(expected)


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_sj23_defenders_taking_over_the_next_player_deals(dealer: int) -> None:
    st = run_two_deck_deal("pair", ShengjiSetup(levels=(TWO, TWO), dealer=dealer))
    outcome = st.outcome()
    # 220 points with 2 decks: take over at 80, +1 at 120, +2 at 160, +3 at 200
    assert outcome.details["take_over"] is True and outcome.details["gain"] == 3
    assert outcome.next_setup is not None
    assert outcome.next_setup.dealer == (dealer + 1) % 4
    expected = [TWO, TWO]
    expected[1 - team_of(dealer)] = TWO + 3
    assert outcome.next_setup.levels == tuple(expected)
    assert outcome.next_setup.deal_index == 1


def test_sj23_the_first_deal_counts_from_its_declared_dealer() -> None:
    st = run_two_deck_deal("pair")  # first deal, nobody declares: seat 0 deals
    outcome = st.outcome()
    assert outcome.next_setup is not None and outcome.next_setup.dealer == 1
    scores = outcome.scores
    assert scores[1] == scores[3] == 3 and scores[0] == scores[2] == -3


# ----------------------------------------------------------------- SJ-24 match end


def test_sj24_pass_a_declarers_winning_while_playing_a_win_the_match() -> None:
    st = run_two_deck_deal("over_ruff", ShengjiSetup(levels=(ACE, FIVE), dealer=0))
    assert st.level == ACE
    outcome = st.outcome()
    assert outcome.match_winner == 0 and outcome.next_setup is None
    assert outcome.details["levels_after"] == [ACE, FIVE]  # never past A


def test_sj24_pass_a_reaching_a_is_not_enough() -> None:
    st = run_two_deck_deal("over_ruff", ShengjiSetup(levels=(QUEEN, FIVE), dealer=2))
    outcome = st.outcome()
    assert outcome.match_winner is None
    assert outcome.next_setup is not None
    assert outcome.next_setup.levels == (ACE, FIVE)  # Q + 3 capped at A
    assert outcome.next_setup.dealer == 0


def test_sj24_pass_a_losing_while_playing_a_does_not_end_the_match() -> None:
    st = run_two_deck_deal("pair", ShengjiSetup(levels=(ACE, FIVE), dealer=0))
    outcome = st.outcome()
    assert outcome.match_winner is None
    assert outcome.next_setup is not None
    assert outcome.next_setup.levels == (ACE, FIVE + 3)
    assert outcome.next_setup.dealer == 1


def test_sj24_reach_a_the_declarers_reaching_a_win() -> None:
    setup = ShengjiSetup(levels=(QUEEN, FIVE), dealer=0)
    outcome = run_two_deck_deal("over_ruff", setup, match_end="reach_a").outcome()
    assert outcome.match_winner == 0 and outcome.next_setup is None
    assert outcome.details["levels_after"] == [ACE, FIVE]


def test_sj24_reach_a_the_defenders_reaching_a_win() -> None:
    setup = ShengjiSetup(levels=(TWO, JACK), dealer=0)
    outcome = run_two_deck_deal("pair", setup, match_end="reach_a").outcome()
    assert outcome.match_winner == 1 and outcome.next_setup is None
    assert outcome.details["levels_after"] == [TWO, ACE]  # J + 3 capped at A
    outcome = run_two_deck_deal("pair", setup).outcome()  # pass_a: play on
    assert outcome.match_winner is None


# ----------------------------------------------------------------- SJ-30 4 decks


def four_deck_deal(ruff: bool) -> ShengjiState:
    """A 4-deck deal (level 2, nobody declares: spades trump), played to the end.

    Trick 1: seat 0 leads Kc, seat 1 (defender) takes it with Ac: 10 points to the
    defenders. Trick 2: seat 1 leads Kd, seat 0 takes it with Ad. Then seat 0 leads
    its diamonds and heart pairs, which nobody can follow, and ends with 3h 3h: seat 1
    ruffs it with BJ BJ (``ruff``) or discards. Seat 3 keeps Kd Kd for the last trick,
    seat 2 keeps 4d 6d.
    """
    plain = [r for r in range(13) if r != TWO]
    hearts = [make_card(r, HEARTS) for r in plain for _ in range(4)]
    hands = [
        [*hearts, *cards("Kc Ad Ad Ad Ad Kd")],
        list(cards("Ac Kd BJ BJ")),
        list(cards("3c 3d 4d 6d")),
        list(cards("3c 3d Kd Kd")),
    ]
    rest = sorted((Counter(deck(4)) - Counter(c for h in hands for c in h)).elements())
    seats = [1, 2, 3]
    for n, c in enumerate(rest):
        open_seats = [s for s in seats if len(hands[s]) < 54]
        hands[open_seats[n % len(open_seats)]].append(c)
    assert [len(h) for h in hands] == [54] * 4
    st = make("shengji-4").new_deal(ShengjiSetup(), hands=hands)
    finish_declaring(st)
    assert st.dealer == 0 and st.order is not None and st.order.trump == SPADES
    leads = ["Kc", "Ad", "Ad", "Ad", "Ad", "Kd"]
    leads += [format_cards([h, h]) for h in sorted(hearts, reverse=True)[::2]]
    keep = {2: "4d 6d", 3: "Kd Kd"}
    if ruff:
        keep[1] = "BJ BJ"
    play_out(st, {0: leads, 1: ["Ac", "Kd"], 2: ["3c", "3d"], 3: ["3c", "3d"]}, keep)
    return st


def test_sj30_defenders_winning_the_last_trick_take_the_declarers_points_times_width() -> None:
    st = four_deck_deal(ruff=True)
    winners = [e.seat for e in st.events if e.kind == "trick"]
    assert winners[0] == 1 and winners[-1] == 1
    assert set(winners[1:-1]) == {0}
    assert last_trick_plays(st) == [cards("3h 3h"), cards("BJ BJ"), cards("4d 6d"), cards("Kd Kd")]
    details = st.outcome().details
    # defenders: 10 (trick 1) + 20 (last trick); declarers: the other 370 of 400 points;
    # the last trick is won with a pair: the defenders take 370 × 2
    assert details["last_bonus"] == 370 * 2
    assert details["defender_points"] == 30 + 370 * 2
    assert details["kitty"] == ""
    # SJ-27: 160 take over +1, then +1 per 80: 770 → +8
    assert details["take_over"] is True and details["gain"] == 8
    assert details["levels_after"] == [TWO, TWO + 8]


def test_sj30_declarers_winning_the_last_trick_can_make_the_defenders_total_negative() -> None:
    st = four_deck_deal(ruff=False)
    winners = [e.seat for e in st.events if e.kind == "trick"]
    assert winners[0] == 1 and set(winners[1:]) == {0}
    assert last_trick_plays(st)[0] == cards("3h 3h")  # won by the led pair: width 2
    details = st.outcome().details
    assert details["last_bonus"] == -10 * 2
    assert details["defender_points"] == 10 - 10 * 2
    # SJ-27: P <= 0 → declarers +3
    assert details["take_over"] is False and details["gain"] == 3
    assert details["levels_after"] == [TWO + 3, TWO]
