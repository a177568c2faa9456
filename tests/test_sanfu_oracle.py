"""The sanfu rules oracle on the command line (SF-8, SF-9)."""

from __future__ import annotations

import json

import pytest

from arena.cli import main


def answer(capsys: pytest.CaptureFixture[str], *args: str) -> object:
    assert main(["rules", "sanfu", *args]) == 0
    return json.loads(capsys.readouterr().out)


def refusal(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["rules", "sanfu", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    return err


@pytest.mark.parametrize(
    ("cards", "kind", "rank", "size"),
    [
        ("8s 8h 8d Js Jc", "full_house", "8", 5),
        ("3s 3h 4s 4d 5c 5c", "pair_run", "5", 6),
        ("3s 3h 3d 4s 4d 4c 7s 7h 8s 8h", "plate_with_pairs", "4", 10),
        ("4c 4c 4c", "suited_triple", "4", 3),
        ("4c 4h 4d", "triple", "4", 3),
        ("BJ BJ BJ", "joker_triple", "BJ", 3),
        ("Ks Ks Kh Kh Kd", "bomb", "K", 5),
    ],
)
def test_sf08_classify(
    capsys: pytest.CaptureFixture[str], cards: str, kind: str, rank: str, size: int
) -> None:
    assert answer(capsys, "classify", cards) == {"kind": kind, "rank": rank, "size": size}


def test_sf09_beats_needs_both_parts_of_a_full_house(capsys: pytest.CaptureFixture[str]) -> None:
    assert answer(capsys, "beats", "9s 9h 9d Qs Qc", "8s 8h 8d Js Jc") == {"beats": True}
    assert answer(capsys, "beats", "9s 9h 9d Ts Tc", "8s 8h 8d Js Jc") == {"beats": False}


def test_sf09_a_same_suit_triple_beats_a_twelve_card_bomb(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bomb = "Ks Ks Ks Kh Kh Kh Kd Kd Kd Kc Kc Kc"
    assert answer(capsys, "beats", "4c 4c 4c", bomb) == {"beats": True}
    assert answer(capsys, "beats", bomb, "4c 4c 4c") == {"beats": False}


def test_sf08_no_combination_and_bad_input_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert "223344" not in refusal(capsys, "classify", "2s 2s 3s 3s 4s 4s")
    assert "no combination" in refusal(capsys, "classify", "BJ SJ")
    assert "'3x'" in refusal(capsys, "classify", "3s 3x")
    assert "more than three" in refusal(capsys, "classify", "Ks Ks Ks Ks")
