"""The ``arena`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from arena.cards import RANKS
from arena.commands import EXIT_USAGE
from arena.errors import ArenaError


def parse_level(text: str) -> int:
    """A level given as a rank: ``2`` … ``10`` (or ``T``) … ``A``."""
    token = "T" if text == "10" else text.upper()
    if len(token) != 1 or token not in RANKS:
        raise argparse.ArgumentTypeError(f"level must be a rank 2..10, J, Q, K or A, got {text!r}")
    return RANKS.index(token)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Bots play Chinese partnership card games: rules engines, matches, replays.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    play = sub.add_parser("play", help="play one match between built-in bots and print its log")
    play.add_argument("game", help="game name, e.g. guandan")
    play.add_argument(
        "--bots",
        default="random,random,random,random",
        help="four comma-separated bot names for seats 0-3 (default: four random bots)",
    )
    play.add_argument("--seed", type=int, default=0, help="match seed (default 0)")
    play.add_argument("--deals", type=int, default=None, help="stop after this many deals")
    play.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="game option, e.g. a_fail_limit=3 (repeatable)",
    )
    play.add_argument("--record", metavar="FILE", help="write the match record (JSON) here")
    play.add_argument("--quiet", action="store_true", help="print only each deal's result")

    replay = sub.add_parser("replay", help="re-play a match record and check it")
    replay.add_argument("file", help="a record written by 'arena play --record'")

    rules = sub.add_parser("rules", help="rules oracle: how cards read and what beats what")
    rules_sub = rules.add_subparsers(dest="rules_game", required=True, metavar="GAME")
    guandan = rules_sub.add_parser("guandan", help="Guandan combinations (GD-5 … GD-9)")
    guandan_sub = guandan.add_subparsers(dest="rules_command", required=True, metavar="QUESTION")
    classify = guandan_sub.add_parser("classify", help="every reading of CARDS as a combination")
    classify.add_argument("--level", type=parse_level, default=0, help="level rank (default 2)")
    classify.add_argument("cards", help='cards, e.g. "3s 3d 4s 4h 2h 2h"')
    beats = guandan_sub.add_parser("beats", help="whether PLAY beats ON_TABLE")
    beats.add_argument("--level", type=parse_level, default=0, help="level rank (default 2)")
    beats.add_argument("play", help="the cards played")
    beats.add_argument("on_table", help="the cards on the table")

    bench = sub.add_parser("bench", help="measure engine speed with random bots")
    bench.add_argument("game", help="game name, e.g. guandan")
    bench.add_argument("--deals", type=int, default=300, help="deals to play (default 300)")
    bench.add_argument("--seed", type=int, default=1, help="first deal seed (default 1)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.command == "play":
            from arena.commands.play import run_play

            return run_play(args)
        if args.command == "replay":
            from arena.commands.replay import run_replay

            return run_replay(args)
        if args.command == "rules":
            from arena.commands.rules import run_rules

            return run_rules(args)
        if args.command == "bench":
            from arena.commands.bench import run_bench

            return run_bench(args)
    except ArenaError as err:
        print(f"arena: {err}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        sys.stderr.close()  # the reader went away (e.g. `| head`): nothing more to say
        return 0
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        return 130
    parser.error(f"unknown command {args.command!r}")
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
