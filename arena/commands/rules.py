"""``arena rules …``: the rules oracle."""

from __future__ import annotations

import argparse
import sys

from arena.cards import parse_cards
from arena.commands import EXIT_USAGE, print_json
from arena.games.guandan import combos


def run_rules(args: argparse.Namespace) -> int:
    if args.rules_command == "classify":
        cards = parse_cards(args.cards)
        found = combos.readings(cards, args.level)
        if not found:
            return _no_combination(args.cards, cards, args.level)
        print_json({"readings": [r.to_dict(args.level) for r in found]})
        return 0
    play, table = parse_cards(args.play), parse_cards(args.on_table)
    play_found = combos.readings(play, args.level)
    table_found = combos.readings(table, args.level)
    for text, cards, found in ((args.play, play, play_found), (args.on_table, table, table_found)):
        if not found:
            return _no_combination(text, cards, args.level)
    print_json({"beats": combos.beats_any(play_found, table_found)})
    return 0


def _no_combination(text: str, cards: tuple[int, ...], level: int) -> int:
    reason = combos.no_combination_reason(cards, level)
    print(f"arena: {text!r} is no combination: {reason} (GD-8)", file=sys.stderr)
    return EXIT_USAGE
