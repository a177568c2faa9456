"""``arena rules sanfu …``: how cards read and what beats what (SF-7 … SF-9)."""

from __future__ import annotations

import argparse
from collections import Counter

from arena.cards import Card, format_cards, parse_cards
from arena.commands import Subcommands, print_json, refuse
from arena.errors import ParseError
from arena.games.sanfu import combos

DECKS = 3


def add_sanfu_parser(games: Subcommands) -> None:
    """``arena rules sanfu classify|beats``."""
    sanfu = games.add_parser("sanfu", help="sanfu combinations (SF-7 … SF-9)")
    questions = sanfu.add_subparsers(dest="rules_command", required=True, metavar="QUESTION")
    classify = questions.add_parser("classify", help="what CARDS are as one combination")
    classify.add_argument("cards", help='cards, e.g. "8s 8h 8d Js Jc"')
    beats = questions.add_parser("beats", help="whether PLAY beats ON_TABLE")
    beats.add_argument("play", help="the cards played")
    beats.add_argument("on_table", help="the cards on the table")


def run_sanfu(args: argparse.Namespace) -> int:
    if args.rules_command == "classify":
        cards = _cards(args.cards)
        found = combos.reading(cards)
        if found is None:
            return _no_combination(args.cards, cards)
        print_json(found.to_dict())
        return 0
    play, table = _cards(args.play), _cards(args.on_table)
    readings = []
    for text, cards in ((args.play, play), (args.on_table, table)):
        found = combos.reading(cards)
        if found is None:
            return _no_combination(text, cards)
        readings.append(found)
    print_json({"beats": combos.beats(readings[0], readings[1])})
    return 0


def _cards(text: str) -> tuple[Card, ...]:
    cards = parse_cards(text)
    extra = [c for c, n in Counter(cards).items() if n > DECKS]
    if extra:
        raise ParseError(f"more than three of {format_cards(extra)} in {text!r} (three decks)")
    return cards


def _no_combination(text: str, cards: tuple[Card, ...]) -> int:
    reason = combos.no_combination_reason(cards)
    return refuse(f"{text!r} is no combination: {reason}")
