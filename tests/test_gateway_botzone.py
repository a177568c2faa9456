"""``arena bot run --botzone``: a Botzone Tractor program plays shengji-2 as a seat on a
real server, in Botzone's simple and long-running modes; its card numbers and requests
are Botzone's; it sees only its own cards and the cards played; mistakes are refused and
counted, failures played automatically, its processes cleaned up."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from gateway_programs import PYTHON, held_by, play_one

from arena.cards import parse_cards
from arena.games.base import Action
from arena.gateways.botzone import BotzoneBot
from arena.gateways.botzone.cards import card_of, number_of
from arena.store import Store

PLAYER = str(Path(__file__).resolve().parent / "botzone_player.py")


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "arena.sqlite")


def botzone(tmp_path: Path, *options: str) -> tuple[BotzoneBot, Path]:
    log = tmp_path / "inputs.log"
    return BotzoneBot([PYTHON, PLAYER, "--log", str(log), *options]), log


def deals_of(log: Path) -> list[list[dict[str, Any]]]:
    """Per deal, every request of it the program read (an envelope holds the deal so far;
    one that does not extend the last starts a new deal)."""
    deals: list[list[dict[str, Any]]] = []
    for line in log.read_text().splitlines():
        data = json.loads(line)
        if "requests" not in data:
            deals[-1].append(data)  # long-running: the next request alone
        elif deals and data["requests"][: len(deals[-1])] == deals[-1]:
            deals[-1] = data["requests"]
        else:
            deals.append(data["requests"])
    return deals


def check_seen(requests: list[dict[str, Any]], held: Counter[int], played: Counter[int]) -> None:
    """C-5: a program is delivered only its own cards (the kitty when it is the dealer),
    and the history shows only cards played."""
    delivered: Counter[int] = Counter()
    for request in requests:
        delivered.update(card_of(n) for n in request.get("deliver", []))
        history = request.get("history", [[], []])[:2]
        shown = Counter(card_of(n) for trick in history for play in trick for n in play)
        assert not shown - played, request
    assert not delivered - held


@pytest.mark.parametrize("mode", ["simple", "long-running"])
def test_a_botzone_program_plays_shengji_2_with_no_refusal(
    store: Store, tmp_path: Path, mode: str
) -> None:
    """SJ-7 … SJ-22 through Botzone's format: every card number maps to the card meant,
    so the program's legal plays are all accepted; two deals (the first and a later
    one, whose dealer is known from the start)."""
    bot, log = botzone(tmp_path, *(["--long"] if mode == "long-running" else []))
    played = play_one(store, bot, "shengji-2", deals=2)
    player = played.player()
    assert played.match.deals == 2
    conduct = played.conduct
    assert conduct["malformed"][player] == conduct["illegal"][player] == 0
    assert conduct["timeouts"][player] == 0
    deals = deals_of(log)
    assert len(deals) == 2
    for requests in deals:
        stages = Counter(r["stage"] for r in requests)
        assert stages["deal"] == 25 and stages["play"] == 25  # a card each, a play each trick
        assert stages["cover"] in (0, 1)
    if mode == "long-running":
        assert bot.started == 2  # one program per deal
    else:
        assert bot.started == len(log.read_text().splitlines()) > 2 * 25
    record = played.match.record
    cards_played: Counter[int] = Counter()
    for deal in record["deals"]:
        for text in deal["actions"]:
            if text.startswith("play"):
                cards_played.update(Action.from_str(text).cards)
    held = held_by(played, "shengji-2")
    for requests, cards in zip(deals, held, strict=True):
        check_seen(requests, cards, cards_played)


def test_garbage_is_refused_and_asked_again(store: Store, tmp_path: Path) -> None:
    bot, _ = botzone(tmp_path, "--garbage-once", str(tmp_path / "done"))
    played = play_one(store, bot, "shengji-2")
    player = played.player()
    assert played.conduct["malformed"][player] == 1
    assert played.conduct["timeouts"][player] == 0


def test_a_long_running_program_that_exits_is_started_again(store: Store, tmp_path: Path) -> None:
    bot, _ = botzone(tmp_path, "--long", "--exit-at", "30")
    played = play_one(store, bot, "shengji-2", decision=1.0)
    assert played.conduct["timeouts"][played.player()] >= 1
    assert bot.started >= 2 and not bot.programs


def test_card_numbers_are_botzones() -> None:
    """0..53: rank A 2 … K times 4 plus suit s h c d; jokers 52, 53; the second deck +54."""
    ace_spades, ten_hearts, king_diamonds = parse_cards("As Th Kd")
    assert number_of(ace_spades, 0) == 0
    assert number_of(ten_hearts, 0) == 9 * 4 + 1
    assert number_of(king_diamonds, 1) == 54 + 12 * 4 + 3
    assert number_of(53, 1) == 107
    assert all(card_of(number_of(c, d)) == c for c in range(54) for d in range(3))
