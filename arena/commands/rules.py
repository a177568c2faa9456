"""``arena rules …``: the rules oracle."""

from __future__ import annotations

import argparse
import sys

from arena.cards import parse_cards
from arena.cli import EXIT_USAGE, print_json
from arena.games.guandan import combos


def run_rules(args: argparse.Namespace) -> int:
    if args.rules_command == "classify":
        cards = parse_cards(args.cards)
        found = combos.readings(cards, args.level)
        if not found:
            print(f"arena: {args.cards!r} is no combination (GD-8)", file=sys.stderr)
            return EXIT_USAGE
        print_json({"readings": [r.to_dict(args.level) for r in found]})
        return 0
    play, table = parse_cards(args.play), parse_cards(args.on_table)
    play_found = combos.readings(play, args.level)
    table_found = combos.readings(table, args.level)
    for cards, found in ((args.play, play_found), (args.on_table, table_found)):
        if not found:
            print(f"arena: {cards!r} is no combination (GD-8)", file=sys.stderr)
            return EXIT_USAGE
    print_json({"beats": combos.beats_any(play_found, table_found)})
    return 0
