"""``arena rules shengji``: shapes, trick winner, follow check, kitty multiplier.

Every test names the rule of rules/shengji.md it checks (SJ-15 … SJ-25). The engine
cross-check plays random deals and asks :func:`follow_error` and the engine the same
follow questions.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from arena.cli import main
from arena.games import make
from arena.games.shengji.follow import follow_error
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
    assert "--play has 1 cards, the lead 2" in line


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
        "reason": "must play all 1 cards of h (SJ-19)",
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


def test_follow_error_agrees_with_the_engine() -> None:
    """Random deals of 2, 3 and 4 decks: every follow question gets the engine's answer."""
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
    hand = state.hand(seat)
    candidates = [a.cards for a in state.legal_actions()[:5]]
    candidates += [tuple(sorted(rng.sample(hand, trick.size))) for _ in range(5)]
    candidates.append(hand[: trick.size + 1])
    for cards in candidates:
        engine = state._follow_error(seat, cards)
        pure = follow_error(hand, cards, trick.lead, trick.suit, order, state.rules.decks)
        assert pure == engine, (state.hand(seat), cards, trick.lead)
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
