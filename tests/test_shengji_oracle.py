"""``arena rules shengji``: shapes, trick winner, follow check, kitty multiplier.

Every test names the rule of rules/shengji.md it checks (SJ-14 … SJ-29). The engine's
follow decisions are checked against tests/shengji_follow_reference.py, a second and
independent statement of SJ-19, SJ-28 and SJ-29: on the rules' worked examples, on
random leads and hands (hypothesis) and during random deals.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from itertools import combinations
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from shengji_follow_reference import Deal, follow_is_legal

from arena.cards import RANKS, Card, format_cards, parse_cards
from arena.cli import main
from arena.games import make
from arena.games.shengji.follow import follow_error
from arena.games.shengji.order import TrumpOrder
from arena.games.shengji.shapes import decompose
from arena.games.shengji.state import ShengjiState

# playing 10 with hearts trump, 2 not constant: the SJ-15 examples
TEN_HEARTS = ["rules", "shengji", "--decks", "2", "--level", "10", "--trump", "h"]
# playing 5 with 3 decks: the SJ-16 Titanic examples
FIVE_SPADES_3 = ["rules", "shengji", "--decks", "3", "--level", "5", "--trump", "s"]
# the SJ-21 ruffs: spades trump, plain hearts led
SPADES = ["rules", "shengji", "--decks", "2", "--level", "10", "--trump", "s"]
THROW = ["--lead", "Ah Kh", "--play", "As Ks"]


def answer(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0 and err == "", (out, err)
    return json.loads(out)


def fails(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run a command that must exit 2 with one line on stderr; return that line."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 2 and out == "", (out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: "), err
    return lines[0]


def shapes(
    capsys: pytest.CaptureFixture[str], base: list[str], cards: str
) -> list[tuple[int, int]]:
    units = answer(capsys, *base, "classify", cards)["units"]
    return [(u["width"], u["length"]) for u in units]


# ------------------------------------------------------------------ classify (SJ-15, SJ-16)


@pytest.mark.parametrize(
    ("cards", "suit", "top", "length"),
    [
        ("Ks Ks Qs Qs", "s", "Ks", 2),
        ("Js Js 9s 9s", "s", "Js", 2),  # the 10 is skipped
        ("5s 5s 4s 4s 3s 3s", "s", "5s", 3),
        ("SJ SJ Th Th", "trump", "SJ", 2),
        ("Th Th Ts Ts", "trump", "Th", 2),  # trump 10 + off 10
        ("Ts Ts Ah Ah", "trump", "Ts", 2),  # off 10 + trump A
        ("Th Th Ts Ts Ah Ah", "trump", "Th", 3),
        ("BJ BJ SJ SJ", "trump", "BJ", 2),
    ],
)
def test_sj15_tractors(
    capsys: pytest.CaptureFixture[str], cards: str, suit: str, top: str, length: int
) -> None:
    assert answer(capsys, *TEN_HEARTS, "classify", cards) == {
        "suit": suit,
        "units": [{"width": 2, "length": length, "top": top}],
    }


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("5s 5s 4s", [(2, 1), (1, 1)]),
        ("5s 4s 4s", [(2, 1), (1, 1)]),
        ("5s 5s 3s 3s", [(2, 1), (2, 1)]),
        ("Js Js Qs", [(2, 1), (1, 1)]),
        ("Ts Ts Td Td", [(2, 1), (2, 1)]),  # off-suit 10s of different suits
        ("As As 2s 2s", [(2, 1), (2, 1)]),  # no wrap
    ],
)
def test_sj15_not_tractors(
    capsys: pytest.CaptureFixture[str], cards: str, expected: list[tuple[int, int]]
) -> None:
    assert shapes(capsys, TEN_HEARTS, cards) == expected


def test_sj15_classify_units_largest_first_with_tops(capsys: pytest.CaptureFixture[str]) -> None:
    assert answer(capsys, *TEN_HEARTS, "classify", "3s Ks Ks Qs Qs 7s 7s As") == {
        "suit": "s",
        "units": [
            {"width": 2, "length": 2, "top": "Ks"},
            {"width": 2, "length": 1, "top": "7s"},
            {"width": 1, "length": 1, "top": "As"},
            {"width": 1, "length": 1, "top": "3s"},
        ],
    }


def test_sj15_a_plain_j_and_a_trump_10_mix_suits(capsys: pytest.CaptureFixture[str]) -> None:
    line = fails(capsys, *TEN_HEARTS, "classify", "Js Js Ts Ts")
    assert "mixes suits" in line and "Js is s" in line and "Ts is trump" in line


@pytest.mark.parametrize(
    ("cards", "top"),
    [
        ("3s 3s 3s 4s 4s 4s", "4s"),
        ("4s 4s 4s 6s 6s 6s", "6s"),  # 5 is skipped
        ("5h 5h 5h 5s 5s 5s", "5s"),  # off 5s + trump 5s
        ("SJ SJ SJ BJ BJ BJ", "BJ"),
        ("As As As 5h 5h 5h", "5h"),  # trump A + off 5s
    ],
)
def test_sj16_titanic(capsys: pytest.CaptureFixture[str], cards: str, top: str) -> None:
    classified = answer(capsys, *FIVE_SPADES_3, "classify", cards)
    assert classified["units"] == [{"width": 3, "length": 2, "top": top}]


def test_sj16_not_titanic(capsys: pytest.CaptureFixture[str]) -> None:
    # the 5s are trumps, the 6s plain
    assert "mixes suits" in fails(capsys, *FIVE_SPADES_3, "classify", "5h 5h 5h 6h 6h 6h")
    notrump = ["rules", "shengji", "--decks", "3", "--level", "5", "--trump", "none"]
    assert shapes(capsys, notrump, "5h 5h 5h 5s 5s 5s") == [(3, 1), (3, 1)]


def test_options_after_the_question_and_two_colour(capsys: pytest.CaptureFixture[str]) -> None:
    after = ["rules", "shengji", "classify", "--level", "10", "--trump", "h", "Th Th Ts Ts"]
    assert answer(capsys, *after)["units"] == [{"width": 2, "length": 2, "top": "Th"}]
    red = ["rules", "shengji", "--decks", "1", "--two-colour", "--trump", "red"]
    assert answer(capsys, *red, "classify", "7s 7c 8s 8c") == {  # SJ-31
        "suit": "black",
        "units": [{"width": 2, "length": 2, "top": "8s"}],
    }
    assert answer(capsys, *red, "classify", "Kh Kd")["suit"] == "trump"
    assert shapes(capsys, red, "Kh Kd") == [(2, 1)]  # same rank and colour: a pair


# ------------------------------------------------------------------ beats (SJ-20, SJ-21)


def beats(capsys: pytest.CaptureFixture[str], lead: str, play: str, best: str = "") -> bool:
    extra = ["--best", best] if best else []
    result = answer(capsys, *SPADES, "beats", "--lead", lead, *extra, "--play", play)
    assert isinstance(result["beats"], bool)
    return bool(result["beats"])


def test_sj21_ruffs_a_throw_with_pairs(capsys: pytest.CaptureFixture[str]) -> None:
    assert beats(capsys, "Ah Kh 5h 5h 4h 4h", "9s 9s 8s 8s 7s 2s")
    # the lead's AA and 55 44 need a pair and a tractor: 99 88 is only the tractor
    assert not beats(capsys, "Ah Ah 5h 5h 4h 4h", "9s 9s 8s 8s 7s 2s")


def test_sj21_over_ruffs(capsys: pytest.CaptureFixture[str]) -> None:
    assert beats(capsys, "5h 4h 4h", "9s 7s 7s")
    assert beats(capsys, "5h 4h 4h", "8s 8s 4s", best="9s 7s 7s")
    # singles led: the main part is the highest single, 9 over 8
    assert beats(capsys, "5h 6h 7h", "9s 7s 7s")
    assert not beats(capsys, "5h 6h 7h", "8s 8s 4s", best="9s 7s 7s")


def test_sj20_follows_in_suit_and_discards(capsys: pytest.CaptureFixture[str]) -> None:
    assert beats(capsys, "Kh Kh", "Ah Ah")
    assert not beats(capsys, "Kh Kh", "Ah Qh")  # does not cover the pair
    assert not beats(capsys, "Qh", "Kh", best="Kh")  # equal: the earlier play stands
    assert not beats(capsys, "Kh", "Ac")  # a discard never wins


def test_sj29_a_quad_beats_a_two_pair_tractor_with_4_decks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    four = ["rules", "shengji", "--decks", "4", "--level", "10", "--trump", "s", "beats"]
    lead = ["--lead", "7h 7h 6h 6h"]
    quad = ["--play", "4h 4h 4h 4h"]
    assert answer(capsys, *four, *lead, "--best", "Kh Kh Qh Qh", *quad) == {"beats": True}
    assert answer(capsys, *four, *lead, "--best", "4h 4h 4h 4h", "--play", "Kh Kh Qh Qh") == {
        "beats": False
    }


def test_beats_refuses_a_discard_as_best(capsys: pytest.CaptureFixture[str]) -> None:
    line = fails(capsys, *SPADES, "beats", "--lead", "Kh", "--best", "Ac", "--play", "Ah")
    assert "discard" in line and "SJ-20" in line


def test_beats_refuses_plays_of_another_size(capsys: pytest.CaptureFixture[str]) -> None:
    line = fails(capsys, *SPADES, "beats", "--lead", "Kh Kh", "--play", "Ah")
    assert "--play has 1 card, the lead 2" in line


# ------------------------------------------------------------------ follow (SJ-19)


def follow(capsys: pytest.CaptureFixture[str], hand: str, lead: str, play: str) -> Any:
    base = ["rules", "shengji", "--level", "2", "--trump", "s"]
    return answer(capsys, *base, "follow", "--hand", hand, "--lead", lead, "--play", play)


def test_sj19_must_play_a_pair_when_holding_one(capsys: pytest.CaptureFixture[str]) -> None:
    hand = "Qh Qh 9h 3c 4c"
    assert follow(capsys, hand, "Kh Kh", "Qh Qh") == {"legal": True, "reason": ""}
    assert follow(capsys, hand, "Kh Kh", "Qh 9h") == {
        "legal": False,
        "reason": "must follow the shape of the lead (pair) in h as far as you can (SJ-19)",
    }


def test_sj19_must_follow_suit(capsys: pytest.CaptureFixture[str]) -> None:
    assert follow(capsys, "9h 3c 4c", "Kh Kh", "3c 4c") == {
        "legal": False,
        "reason": "must play all 1 card of h (SJ-19)",
    }
    assert follow(capsys, "9h 3c 4c", "Kh Kh", "9h 4c")["legal"]
    assert follow(capsys, "9h 8h 7h 3c", "Kh Kh", "9h 3c") == {
        "legal": False,
        "reason": "must play 2 cards of h: you hold 3 (SJ-19)",
    }
    assert follow(capsys, "9h 3c", "Kh", "3c") == {
        "legal": False,
        "reason": "must follow with a card of h (SJ-19)",
    }
    assert follow(capsys, "9h 3c", "Kh Kh", "9h") == {
        "legal": False,
        "reason": "must play 2 cards, like the lead (SJ-19)",
    }


def test_sj19_a_tractor_follows_a_tractor(capsys: pytest.CaptureFixture[str]) -> None:
    hand = "Qh Qh Jh Jh 9h 9h 5h"
    assert follow(capsys, hand, "8h 8h 7h 7h", "Qh Qh Jh Jh")["legal"]
    assert not follow(capsys, hand, "8h 8h 7h 7h", "Qh Qh 9h 9h")["legal"]


def test_follow_refuses_a_play_not_in_the_hand(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["rules", "shengji", "--trump", "s", "follow"]
    line = fails(capsys, *base, "--hand", "9h 3c", "--lead", "Kh Kh", "--play", "9h 9h")
    assert "9h not in --hand" in line


# ------------------------------------------------------------------ follow vs. the rule text
#
# tests/shengji_follow_reference.py states SJ-19, SJ-28 and SJ-29 a second time, from
# the rule text alone; the engine's verdict on a follow must be the same.


def engine_allows(deal: Deal, hand: str, lead: str, play: str) -> bool:
    order = TrumpOrder(deal.level, deal.trump, deal.constant_twos)
    led = parse_cards(lead)
    units = decompose(led, order)
    suit = order.suits[led[0]]
    return follow_error(parse_cards(hand), parse_cards(play), units, suit, order, deal.decks) == ""


def reference_allows(deal: Deal, hand: str, lead: str, play: str) -> bool:
    return follow_is_legal(deal, parse_cards(hand), parse_cards(lead), parse_cards(play))


TEN = RANKS.index("T")
SPADES_TRUMP = 0


def playing_ten(decks: int, trump: int | None = SPADES_TRUMP, twos: bool = False) -> Deal:
    return Deal(decks, TEN, trump, twos or decks == 4)


FOLLOWS = [
    # rule, deal, follower's hand, lead, play, legal
    ("SJ-19a", playing_ten(2), "9h 8h 7h 3c", "Qh Qh", "9h 8h", True),
    ("SJ-19a", playing_ten(2), "9h 8h 7h 3c", "Qh Qh", "9h 3c", False),
    ("SJ-19a", playing_ten(2), "9h 3c 4c", "Qh Qh", "9h 3c", True),
    ("SJ-19a", playing_ten(2), "9h 3c 4c", "Qh Qh", "3c 4c", False),
    ("SJ-19a", playing_ten(1), "Qh 3c", "Ah Kh", "Qh 3c", True),  # a throw of singles
    ("SJ-19a", playing_ten(1), "Qh 9h 3c", "Ah Kh", "Qh 3c", False),
    ("SJ-19b pair", playing_ten(2), "Kh Kh 9h 3c", "Qh Qh", "Kh Kh", True),
    ("SJ-19b pair", playing_ten(2), "Kh Kh 9h 3c", "Qh Qh", "Kh 9h", False),
    ("SJ-19b pair in a tractor", playing_ten(2), "Kh Kh Qh Qh 9h", "5h 5h", "Qh Qh", True),
    ("SJ-19b pair in a tractor", playing_ten(2), "Kh Kh Qh Qh 9h", "5h 5h", "Kh 9h", False),
    ("SJ-19b tractor", playing_ten(2), "Kh Kh Qh Qh 9h 9h 3h", "6h 6h 5h 5h", "Kh Kh Qh Qh", True),
    ("SJ-19b tractor", playing_ten(2), "Kh Kh Qh Qh 9h 9h 3h", "6h 6h 5h 5h", "Kh Kh 9h 9h", False),
    ("SJ-19b sets", playing_ten(2), "Kh Kh 9h 9h 7h 3h", "6h 6h 5h 5h", "Kh Kh 9h 9h", True),
    ("SJ-19b sets", playing_ten(2), "Kh Kh 9h 9h 7h 3h", "6h 6h 5h 5h", "Kh Kh 7h 3h", False),
    # SJ-15: trump A, off-suit 10s, trump 10 are consecutive; an off 10 is between A and Ts
    ("SJ-15 SJ-19b", playing_ten(2), "Ts Ts Th Th As As 5s", "4s 4s 3s 3s", "As As Th Th", True),
    ("SJ-15 SJ-19b", playing_ten(2), "Ts Ts Th Th As As 5s", "4s 4s 3s 3s", "Th Th Ts Ts", True),
    ("SJ-15 SJ-19b", playing_ten(2), "Ts Ts Th Th As As 5s", "4s 4s 3s 3s", "As As Ts Ts", False),
    ("SJ-14 off 10s", playing_ten(2), "Th Td 5s", "3s 3s", "Th Td", True),
    ("SJ-14 off 10s", playing_ten(2), "Th Td 5s", "3s 3s", "Td 5s", True),  # no pair held
    # SJ-3 constant twos: trump A, other 2s, trump 2
    (
        "SJ-3 SJ-19b",
        playing_ten(2, twos=True),
        "As As 2h 2h 2s 2s 5s",
        "4s 4s 3s 3s",
        "2h 2h 2s 2s",
        True,
    ),
    (
        "SJ-3 SJ-19b",
        playing_ten(2, twos=True),
        "As As 2h 2h 2s 2s 5s",
        "4s 4s 3s 3s",
        "As As 2s 2s",
        False,
    ),
    ("SJ-5 notrump", playing_ten(2, trump=None), "Th Th Ts BJ", "SJ SJ", "Th Th", True),
    ("SJ-5 notrump", playing_ten(2, trump=None), "Th Th Ts BJ", "SJ SJ", "Ts BJ", False),
    # throws: each combination, largest first
    ("SJ-19b throw", playing_ten(2), "Qh Qh 9h 8h", "Ah Kh Kh", "Qh Qh 9h", True),
    ("SJ-19b throw", playing_ten(2), "Qh Qh 9h 8h", "Ah Kh Kh", "Qh 9h 8h", False),
    (
        "SJ-19b throw",
        playing_ten(2),
        "9h 9h 8h 8h 5h 5h 3h",
        "Ah Qh Qh Jh Jh",
        "9h 9h 8h 8h 3h",
        True,
    ),
    (
        "SJ-19b throw",
        playing_ten(2),
        "9h 9h 8h 8h 5h 5h 3h",
        "Ah Qh Qh Jh Jh",
        "9h 9h 5h 5h 3h",
        False,
    ),
    # README reading: among the ways to match the 2-pair tractor, the one that leaves the
    # triple counts (two pairs + a triple are held)
    (
        "SJ-19b throw",
        playing_ten(3),
        "Ah Ah Ah Qh Qh Qh 8h 8h 8h",
        "6h 6h 5h 5h Kh Kh Kh",
        "Ah Ah Ah Qh Qh 8h 8h",
        True,
    ),
    (
        "SJ-19b throw",
        playing_ten(3),
        "Ah Ah Ah Qh Qh 8h 8h 3h",
        "6h 6h 5h 5h Kh Kh Kh",
        "Ah Ah Qh Qh 8h 8h 3h",
        False,
    ),
    (
        "SJ-19b throw",
        playing_ten(3),
        "Ah Ah Ah Qh Qh 8h 8h 3h",
        "6h 6h 5h 5h Kh Kh Kh",
        "Ah Ah Ah Qh Qh 8h 3h",
        False,
    ),
    (
        "SJ-19b throw",
        playing_ten(3),
        "Ah Ah Ah Qh Qh 8h 8h 8h",
        "6h 6h 5h 5h Kh Kh Kh",
        "Ah Ah Qh Qh 8h 8h 8h",
        True,
    ),
    # SJ-14: four identical cards are two pairs (sets for a tractor no one can match)
    (
        "SJ-14 SJ-19b",
        playing_ten(4),
        "Qh Qh Qh Qh Ah Ah Ah Ah 9h 9h Jh",
        "3h 3h 4h 4h 5h 5h 6h 6h 7h 7h",
        "Qh Qh Qh Qh Ah Ah Ah Ah 9h 9h",
        True,
    ),
    (
        "SJ-14 SJ-19b",
        playing_ten(4),
        "Qh Qh Qh Qh Ah Ah Ah Ah 9h 9h Jh",
        "3h 3h 4h 4h 5h 5h 6h 6h 7h 7h",
        "Qh Qh Qh Ah Ah Ah Ah 9h 9h Jh",
        False,
    ),
    # SJ-28: 3 decks
    (
        "SJ-28 Titanic",
        playing_ten(3),
        "Qh Qh Qh Jh Jh Jh 3h 4h",
        "6h 6h 6h 5h 5h 5h",
        "Qh Qh Qh Jh Jh Jh",
        True,
    ),
    (
        "SJ-28 Titanic",
        playing_ten(3),
        "Qh Qh Qh Jh Jh Jh 3h 4h",
        "6h 6h 6h 5h 5h 5h",
        "Qh Qh Qh Jh Jh 4h",
        False,
    ),
    (
        "SJ-28 Titanic",
        playing_ten(3),
        "Ah Ah Ah Kh Kh 8h 8h 8h",
        "6h 6h 6h 5h 5h 5h",
        "Ah Ah Kh Kh 8h 8h",
        True,
    ),  # a tractor of pairs + any 2 before two triples
    (
        "SJ-28 Titanic",
        playing_ten(3),
        "Ah Ah Ah Kh Kh 8h 8h 8h",
        "6h 6h 6h 5h 5h 5h",
        "Ah Ah Ah 8h 8h 8h",
        False,
    ),
    (
        "SJ-28 Titanic",
        playing_ten(3),
        "Ah Ah Ah 8h 8h 3h 4h",
        "6h 6h 6h 5h 5h 5h",
        "Ah Ah Ah 8h 8h 3h",
        True,
    ),  # triple + pair + single
    (
        "SJ-28 Titanic",
        playing_ten(3),
        "Ah Ah Ah 8h 8h 3h 4h",
        "6h 6h 6h 5h 5h 5h",
        "Ah Ah Ah 8h 3h 4h",
        False,
    ),
    ("SJ-28 triple", playing_ten(3), "Kh Kh 9h 3h", "7h 7h 7h", "Kh Kh 9h", True),
    ("SJ-28 triple", playing_ten(3), "Kh Kh 9h 3h", "7h 7h 7h", "Kh 9h 3h", False),
    ("SJ-28 triple", playing_ten(3), "Kh Kh Kh 9h 9h", "7h 7h 7h", "Kh Kh 9h", False),
    # SJ-29: 4 decks
    ("SJ-29 quad", playing_ten(4), "Kh Kh Qh Qh 9h 9h 9h", "7h 7h 7h 7h", "Kh Kh Qh Qh", True),
    ("SJ-29 quad", playing_ten(4), "Kh Kh Qh Qh 9h 9h 9h", "7h 7h 7h 7h", "9h 9h 9h Kh", False),
    ("SJ-29 quad", playing_ten(4), "Kh Kh Qh Qh 9h 9h 9h", "7h 7h 7h 7h", "Kh Kh 9h 9h", False),
    ("SJ-29 quad", playing_ten(4), "Kh Kh 9h 9h 9h 3h", "7h 7h 7h 7h", "Kh Kh 9h 9h", True),
    ("SJ-29 quad", playing_ten(4), "Kh Kh 9h 9h 9h 3h", "7h 7h 7h 7h", "9h 9h 9h 3h", False),
    (
        "SJ-29 2-pair tractor",
        playing_ten(4),
        "Ah Ah Ah Ah Qh Qh Jh Jh 3h",
        "6h 6h 5h 5h",
        "Ah Ah Ah Ah",
        True,
    ),  # the follower chooses
    (
        "SJ-29 2-pair tractor",
        playing_ten(4),
        "Ah Ah Ah Ah Qh Qh Jh Jh 3h",
        "6h 6h 5h 5h",
        "Qh Qh Jh Jh",
        True,
    ),
    (
        "SJ-29 2-pair tractor",
        playing_ten(4),
        "Ah Ah Ah Ah Qh Qh Jh Jh 3h",
        "6h 6h 5h 5h",
        "Ah Ah Qh Qh",
        False,
    ),
    (
        "SJ-29 3-pair tractor",
        playing_ten(4),
        "Ah Ah Ah Kh Kh Kh 4h 4h 3h",
        "6h 6h 7h 7h 8h 8h",
        "Ah Ah Ah Kh Kh Kh",
        True,
    ),  # a triple tractor may stand for it
    (
        "SJ-29 3-pair tractor",
        playing_ten(4),
        "Ah Ah Ah Kh Kh Kh 4h 4h 3h",
        "6h 6h 7h 7h 8h 8h",
        "Ah Ah Kh Kh 4h 4h",
        False,
    ),
    (
        "SJ-29 triple tractor",
        playing_ten(4),
        "3h 3h 4h 4h 5h 5h Ah Ah Ah",
        "Jh Jh Jh Qh Qh Qh",
        "3h 3h 4h 4h 5h 5h",
        True,
    ),
    (
        "SJ-29 triple tractor",
        playing_ten(4),
        "3h 3h 4h 4h 5h 5h Ah Ah Ah",
        "Jh Jh Jh Qh Qh Qh",
        "Ah Ah Ah 3h 3h 4h",
        False,
    ),
    (
        "SJ-29 4-pair tractor",
        playing_ten(4),
        "Kh Kh Kh Qh Qh Qh 8h 8h 3h",
        "3h 3h 4h 4h 5h 5h 6h 6h",
        "Kh Kh Kh Qh Qh Qh 8h 8h",
        True,
    ),  # triple tractor + pair
    (
        "SJ-29 4-pair tractor",
        playing_ten(4),
        "Kh Kh Kh Qh Qh Qh 8h 8h 3h",
        "3h 3h 4h 4h 5h 5h 6h 6h",
        "Kh Kh Kh Qh Qh Qh 8h 3h",
        False,
    ),
    (
        "SJ-29 quad tractor",
        playing_ten(4),
        "Kh Kh Qh Qh Jh Jh 9h 9h Ah Ah Ah Ah 3h",
        "4h 4h 4h 4h 5h 5h 5h 5h",
        "Kh Kh Qh Qh Jh Jh 9h 9h",
        True,
    ),
    (
        "SJ-29 quad tractor",
        playing_ten(4),
        "Kh Kh Qh Qh Jh Jh 9h 9h Ah Ah Ah Ah 3h",
        "4h 4h 4h 4h 5h 5h 5h 5h",
        "Ah Ah Ah Ah Kh Kh Qh Qh",
        False,
    ),
    # SJ-29 Decision: a shape not listed follows SJ-19 (b), widths largest first
    ("SJ-29 triple, not listed", playing_ten(4), "Kh Kh 9h 3h", "7h 7h 7h", "Kh Kh 9h", True),
    ("SJ-29 triple, not listed", playing_ten(4), "Kh Kh 9h 3h", "7h 7h 7h", "Kh 9h 3h", False),
]


@pytest.mark.parametrize(
    ("rule", "deal", "hand", "lead", "play", "legal"),
    FOLLOWS,
    ids=[f"{case[0]}: {case[4]} on {case[3]} holding {case[2]}" for case in FOLLOWS],
)
def test_follow_rule_examples(
    rule: str, deal: Deal, hand: str, lead: str, play: str, legal: bool
) -> None:
    """The worked follows of SJ-14 … SJ-29: the rule text and the engine agree."""
    assert reference_allows(deal, hand, lead, play) is legal, rule
    assert engine_allows(deal, hand, lead, play) is legal, rule


@st.composite
def follow_questions(draw: st.DrawFn) -> tuple[Deal, list[Card], list[Card]]:
    """A deal, a lead of one suit (a throw with 1 to 3 decks) and a follower's hand.

    The follower's cards of the led suit come from a window of a few steps of that
    suit, several copies at a time, so that they hold sets and tractors often.
    """
    decks = draw(st.integers(1, 4))
    twos = decks == 4 or draw(st.booleans())
    deal = Deal(decks, draw(st.integers(0, 12)), draw(st.none() | st.integers(0, 3)), twos)
    suit = draw(st.sampled_from(sorted({deal.suit(c) for c in range(54)}, key=str)))
    ladder = deal.ladder(suit)
    left = Counter({card: decks for card in range(54)})
    lead: list[Card] = []
    for _ in range(draw(st.integers(1, 1 if decks == 4 else 3))):
        width = draw(st.integers(1, decks))
        length = 1 if width == 1 else draw(st.integers(1, min(5, len(ladder))))
        start = draw(st.integers(0, len(ladder) - length))
        cards = [draw(st.sampled_from(sorted(ladder[start + k]))) for k in range(length)]
        if all(left[c] >= width for c in cards):
            for card in cards:
                left[card] -= width
                lead += [card] * width
    assume(lead)
    low = draw(st.integers(0, len(ladder) - 1))
    window = sorted(c for step in ladder[low : low + draw(st.integers(2, 8))] for c in step)
    hand: list[Card] = []
    for card in draw(st.lists(st.sampled_from(window), max_size=len(lead) + 6)):
        copies = min(left[card], draw(st.integers(1, decks)))
        left[card] -= copies
        hand += [card] * copies
    others = [c for c in range(54) if deal.suit(c) != suit]
    hand += draw(st.lists(st.sampled_from(others), max_size=4))
    return deal, lead, hand


@settings(max_examples=600, deadline=None)
@given(follow_questions(), st.randoms(use_true_random=False))
def test_engine_follow_verdicts_equal_the_rule_text(
    question: tuple[Deal, list[Card], list[Card]], rng: random.Random
) -> None:
    """Random deals (1-4 decks, with and without trumps, constant twos), leads and hands:
    for every play of the lead's size (a sample when there are many) the engine allows
    exactly what the independent statement of SJ-19/SJ-28/SJ-29 allows."""
    deal, lead, hand = question
    order = TrumpOrder(deal.level, deal.trump, deal.constant_twos)
    units = decompose(lead, order)
    suit = order.suits[lead[0]]
    for play in plays_of_size(deal, lead, hand, rng):
        engine = follow_error(hand, play, units, suit, order, deal.decks) == ""
        assert engine is follow_is_legal(deal, hand, lead, play), (
            format_cards(hand),
            format_cards(lead),
            format_cards(play),
        )


def plays_of_size(
    deal: Deal, lead: list[Card], hand: list[Card], rng: random.Random
) -> list[tuple[Card, ...]]:
    """Plays of the lead's size from the hand: every one in the led suit when there are
    few (a sample otherwise), and a few that mix in other cards."""
    size, suit = len(lead), deal.suit(lead[0])
    held = sorted(c for c in hand if deal.suit(c) == suit)
    plays: list[tuple[Card, ...]] = []
    if len(held) > size:
        if math.comb(len(held), size) <= 300:
            plays = sorted(set(combinations(held, size)))
        else:
            plays = [tuple(sorted(rng.sample(held, size))) for _ in range(40)]
    for _ in range(3):
        plays.append(tuple(rng.sample(hand, size)) if len(hand) >= size else tuple(hand))
    return plays


def test_engine_follow_checks_in_played_deals() -> None:
    """Random deals of 1 to 4 decks: every follow question the engine answers during
    play (its legal actions and random tries) gets the rule text's answer."""
    rng = random.Random(19)
    asked = 0
    for name in ("shengji-1", "shengji-2", "shengji-3", "shengji-4"):
        game = make(name)
        for seed in range(3):
            state = game.new_deal(seed=seed)
            assert isinstance(state, ShengjiState)
            while state.phase != "over":
                trick = state._trick
                if state.phase == "play" and trick.plays:
                    asked += _cross_check(state, rng)
                state.apply(rng.choice(state.legal_actions()))
    assert asked > 1000


def _cross_check(state: ShengjiState, rng: random.Random) -> int:
    seat, trick, order = state.to_act, state._trick, state.order
    assert order is not None
    deal = Deal(state.rules.decks, order.level, order.trump, order.constant_twos)
    lead = [card for unit in trick.lead for card in unit.cards]
    hand = list(state.hand(seat))
    candidates = [a.cards for a in state.legal_actions()[:5]]
    candidates += [tuple(sorted(rng.sample(hand, trick.size))) for _ in range(5)]
    for cards in candidates:
        engine = state._follow_error(seat, cards) == ""
        assert engine is follow_is_legal(deal, hand, lead, cards), (hand, cards, lead)
    return len(candidates)


# ------------------------------------------------------------------ multiplier (SJ-25)


@pytest.mark.parametrize(
    ("decks", "cards", "multiplier"),
    [
        ("3", "4s 4s 4s 5s 5s 5s", 64),
        ("2", "4s 4s 5s 5s 6s 6s", 64),
        ("2", "4s 4s 5s 5s", 16),
        ("3", "5s 5s 5s", 8),
        ("2", "Kh Kh", 4),
        ("1", "2d", 2),
        ("2", "As Ks Qs Js Ts 9s 8s 7s 7s", 4),  # the pair 77
        ("2", "As Ks Qs Js", 2),
        ("2", "As As Js Js", 4),  # two pairs, not a tractor
    ],
)
def test_sj25_kitty_multiplier(
    capsys: pytest.CaptureFixture[str], decks: str, cards: str, multiplier: int
) -> None:
    base = ["rules", "shengji", "--decks", decks, "--level", "2", "--trump", "h"]
    assert answer(capsys, *base, "multiplier", cards) == {"multiplier": multiplier}


def test_multiplier_has_no_kitty_with_4_decks(capsys: pytest.CaptureFixture[str]) -> None:
    line = fails(capsys, "rules", "shengji", "--decks", "4", "--trump", "s", "multiplier", "As")
    assert "SJ-30" in line


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        ([*SPADES, "classify", "As Kh"], "mixes suits"),
        ([*SPADES, "multiplier", "As Kh"], "mixes suits"),
        ([*SPADES, "beats", "--lead", "As Kh", "--play", "Ah Kh"], "mixes suits"),
        ([*SPADES, "classify", "As Xx"], "unknown card 'Xx' at position 2"),
        ([*SPADES, "classify", ""], "no cards"),
        ([*SPADES, "classify", "As As As"], "3 copies of As, but there are only 2 decks"),
        (
            [*SPADES, "beats", "--lead", "Kh", "--best", "Kh", "--play", "Kh"],
            "--lead, --best and --play together: 3 copies of Kh",
        ),
        (["rules", "shengji", "--trump", "x", "classify", "As"], "--trump must be s, h, d, c"),
        (["rules", "shengji", "--trump", "red", "classify", "As"], "--trump must be s, h, d, c"),
        (["rules", "shengji", "classify", "As"], "--trump is required"),
        (
            ["rules", "shengji", "--two-colour", "--trump", "red", "classify", "As"],
            "1-deck option",
        ),
        (
            ["rules", "shengji", "--decks", "1", "--two-colour", "--trump", "h", "classify", "As"],
            "black, red or none",
        ),
        (
            ["rules", "shengji", "--decks", "4", "--trump", "s", "beats", *THROW],
            "throw",
        ),
    ],
)
def test_bad_input_exits_2(capsys: pytest.CaptureFixture[str], argv: list[str], words: str) -> None:
    assert words in fails(capsys, *argv)


def test_decks_are_1_to_4(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["rules", "shengji", "--decks", "5", "--trump", "s", "classify", "As"])
    assert refused.value.code == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.endswith("argument --decks: must be an integer from 1 to 4, got 5")
