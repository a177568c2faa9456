"""The ``arena`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from arena.cards import RANKS
from arena.commands import EXIT_USAGE
from arena.commands.balance import add_parser as add_balance_parser
from arena.commands.bot import add_parser as add_bot_parser
from arena.commands.metrics_endpoint import add_metrics_arguments
from arena.commands.serve import add_parser as add_serve_parser
from arena.errors import ArenaError
from arena.sim.tournament import EXAMPLE as TOURNAMENT_EXAMPLE

DEFAULT_DB = "arena.sqlite"


def parse_level(text: str) -> int:
    """A level given as a rank: ``2`` … ``10`` (or ``T``) … ``A``."""
    token = "T" if text == "10" else text.upper()
    if len(token) != 1 or token not in RANKS:
        raise argparse.ArgumentTypeError(f"level must be a rank 2..10, J, Q, K or A, got {text!r}")
    return RANKS.index(token)


def _shengji_options(parser: argparse.ArgumentParser, defaults: bool) -> None:
    """The deal's facts; given before or after the question (after wins)."""

    def default(value: object) -> object:
        return value if defaults else argparse.SUPPRESS

    parser.add_argument(
        "--decks", type=int, default=default(2), help="number of decks, 1 to 4 (default 2)"
    )
    parser.add_argument(
        "--level", type=parse_level, default=default(0), help="level rank (default 2)"
    )
    parser.add_argument(
        "--trump",
        default=default(None),
        help="trump suit: s, h, d, c or none (notrump); with --two-colour: black, red or none",
    )
    parser.add_argument(
        "--constant-twos",
        action="store_true",
        default=default(False),
        help="2s are permanent trumps (always on with 4 decks)",
    )
    parser.add_argument(
        "--two-colour",
        action="store_true",
        default=default(False),
        help="1 deck: hearts+diamonds are one suit 'red', spades+clubs 'black' (SJ-31)",
    )


def _add_shengji_rules(rules_sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    shengji = rules_sub.add_parser(
        "shengji", help="Shengji shapes, trick winner, follow check, kitty (SJ-14 … SJ-25)"
    )
    _shengji_options(shengji, defaults=True)
    questions = shengji.add_subparsers(dest="rules_command", required=True, metavar="QUESTION")
    classify = questions.add_parser("classify", help="CARDS as sets and tractors (SJ-14 … SJ-16)")
    classify.add_argument("cards", help='cards of one suit, e.g. "Ks Ks Qs Qs 5s"')
    beats = questions.add_parser("beats", help="whether PLAY beats the best play so far (SJ-20)")
    beats.add_argument("--lead", required=True, help="the lead of the trick")
    beats.add_argument("--best", help="the best play so far (default: the lead)")
    beats.add_argument("--play", required=True, help="the play, assumed a legal follow")
    follow = questions.add_parser("follow", help="whether PLAY from HAND is a legal follow (SJ-19)")
    follow.add_argument("--hand", required=True, help="the follower's hand, holding PLAY")
    follow.add_argument("--lead", required=True, help="the lead of the trick")
    follow.add_argument("--play", required=True, help="the cards played")
    multiplier = questions.add_parser(
        "multiplier", help="kitty multiplier when CARDS win the last trick (SJ-25)"
    )
    multiplier.add_argument("cards", help="the winning play of the last trick")
    for question in (classify, beats, follow, multiplier):
        _shengji_options(question, defaults=False)


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
    play.add_argument(
        "--time-limit",
        type=float,
        default=None,
        metavar="SECONDS",
        help="decision time limit; late decisions are played automatically, five in a row "
        "is fleeing (default: the game's time_limit option, if it has one)",
    )

    replay = sub.add_parser("replay", help="re-play a match record and check it")
    replay.add_argument(
        "file", help="a record written by 'arena play --record', or the id of a stored match"
    )
    replay.add_argument("--db", default=DEFAULT_DB, help=f"the store (default {DEFAULT_DB})")

    tournament = sub.add_parser(
        "tournament",
        help="a league between bots, played on Ray, stored and rated",
        description="Play a tournament on Ray (a local instance unless --address), store "
        "every match once, rate the bots (Elo, OpenSkill), and print the leaderboard. "
        "Rerun the same command to resume an interrupted tournament. "
        "A definition file looks like this:\n\n" + TOURNAMENT_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    tournament.add_argument("file", nargs="?", help="a tournament definition (TOML)")
    tournament.add_argument("--example", action="store_true", help="print an example file")
    tournament.add_argument("--name", default="tournament", help="tournament name")
    tournament.add_argument("--variant", default="guandan", help="game variant (default guandan)")
    tournament.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="game option"
    )
    tournament.add_argument("--bots", help="bots, each partnered with itself: random,first")
    tournament.add_argument(
        "--team", action="append", default=[], metavar="A,B", help="a team of two bots"
    )
    tournament.add_argument(
        "--format", default="round_robin", choices=["round_robin", "gauntlet", "rated"]
    )
    tournament.add_argument("--reference", metavar="A,B", help="the gauntlet's reference team")
    tournament.add_argument(
        "--matches", type=int, default=10, help="matches per pairing ('rated': rounds)"
    )
    tournament.add_argument("--deals", type=int, default=None, help="deals per match")
    tournament.add_argument("--seed", type=int, default=0, help="tournament seed")
    tournament.add_argument(
        "--paired", action="store_true", help="each seed twice, partnerships swapped"
    )
    tournament.add_argument("--db", default=DEFAULT_DB, help=f"the store (default {DEFAULT_DB})")
    tournament.add_argument(
        "--address", default=None, help="Ray cluster: 'auto' or ray://HOST:PORT (default: local)"
    )
    tournament.add_argument("--batch", type=int, default=None, help="matches per Ray task")
    add_metrics_arguments(tournament)

    versus = sub.add_parser("compare", help="paired matches between two bots until an SPRT decides")
    versus.add_argument(
        "bot_a", help="the candidate bot, e.g. search or search:samples=16,candidates=4"
    )
    versus.add_argument("bot_b", help="the reference bot (NAME or NAME:key=value,...)")
    versus.add_argument("--variant", required=True, help="game variant, e.g. guandan")
    versus.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="game option"
    )
    versus.add_argument("--deals", type=int, default=1, help="deals per match (default 1)")
    versus.add_argument("--elo0", type=float, default=0.0, help="H0: at most this Elo (0)")
    versus.add_argument("--elo1", type=float, default=50.0, help="H1: at least this Elo (50)")
    versus.add_argument("--alpha", type=float, default=0.05, help="false positive rate")
    versus.add_argument("--beta", type=float, default=0.05, help="false negative rate")
    versus.add_argument("--max-pairs", type=int, default=20_000, help="stop undecided after")
    versus.add_argument("--seed", type=int, default=0, help="seed of the deals")
    versus.add_argument("--address", default=None, help="Ray cluster (default: local)")
    versus.add_argument("--json", action="store_true", help="JSON for machines")

    board = sub.add_parser("leaderboard", help="ratings of a variant")
    board.add_argument("--variant", required=True, help="game variant, e.g. guandan")
    board.add_argument("--db", default=DEFAULT_DB, help=f"the store (default {DEFAULT_DB})")
    board.add_argument("--json", action="store_true", help="JSON for machines")

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
    _add_shengji_rules(rules_sub)
    sanfu = rules_sub.add_parser("sanfu", help="sanfu combinations (SF-7 … SF-9)")
    sanfu_sub = sanfu.add_subparsers(dest="rules_command", required=True, metavar="QUESTION")
    sanfu_sub.add_parser("classify", help="what CARDS are as one combination").add_argument(
        "cards", help='cards, e.g. "8s 8h 8d Js Jc"'
    )
    sanfu_beats = sanfu_sub.add_parser("beats", help="whether PLAY beats ON_TABLE")
    sanfu_beats.add_argument("play", help="the cards played")
    sanfu_beats.add_argument("on_table", help="the cards on the table")

    bench = sub.add_parser(
        "bench",
        help="measure engine speed with random bots ('bench scale': Ray, 'bench grpc': remote, "
        "'bench bots': the built-in bots' cost)",
        description="arena bench GAME: engine speed in one process. "
        "arena bench scale --variant V: deals/s on Ray with 1 and N workers. "
        "arena bench grpc --variant V: remote SDK bots against the same matches in process. "
        "arena bench bots --variant V --bots heuristic: deals by built-in bots against "
        "random bots.",
    )
    bench.add_argument("game", help="game name, e.g. guandan, or 'scale', 'grpc' or 'bots'")
    bench.add_argument(
        "--variant", default="guandan", help="with 'scale'/'grpc'/'bots': the variant"
    )
    bench.add_argument(
        "--bots", default="heuristic", help="with 'bots': bots to time, comma-separated"
    )
    bench.add_argument(
        "--matches", type=int, default=None, help="with 'scale': matches (96); 'grpc': at once (32)"
    )
    bench.add_argument("--workers", type=int, default=None, help="with 'scale': N (cores)")
    bench.add_argument(
        "--deals", type=int, default=None, help="deals (300); per match: 'scale' 5, 'grpc' 2"
    )
    bench.add_argument("--seed", type=int, default=1, help="first deal seed (default 1)")
    bench.add_argument(
        "--one-process", action="store_true", help="with 'grpc': the bots in the server's process"
    )
    bench.add_argument(
        "--threads", action="store_true", help="with 'grpc': the bots' act in worker threads"
    )
    bench.add_argument("--json", action="store_true", help="with 'grpc'/'bots': the report as JSON")
    add_balance_parser(sub)
    add_serve_parser(sub)
    add_bot_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        from arena.log import configure as configure_logging

        configure_logging()
        if args.command == "play":
            from arena.commands.play import run_play

            return run_play(args)
        if args.command == "replay":
            from arena.commands.replay import run_replay

            return run_replay(args)
        if args.command == "rules":
            from arena.commands.rules import run_rules

            return run_rules(args)
        if args.command == "tournament":
            from arena.commands.tournament import run_tournament

            return run_tournament(args)
        if args.command == "serve":
            from arena.commands.serve import run_serve

            return run_serve(args)
        if args.command == "bot":
            from arena.commands.bot import run_bot_command

            return run_bot_command(args)
        if args.command == "balance":
            from arena.commands.balance import run_balance

            return run_balance(args)
        if args.command == "compare":
            from arena.commands.compare import run_compare

            return run_compare(args)
        if args.command == "leaderboard":
            from arena.commands.leaderboard import run_leaderboard

            return run_leaderboard(args)
        if args.command == "bench" and args.game == "scale":
            from arena.commands.bench_scale import run_scale

            args.deals = 5 if args.deals is None else args.deals  # deals per match here
            args.matches = 96 if args.matches is None else args.matches
            return run_scale(args)
        if args.command == "bench" and args.game == "grpc":
            from arena.commands.bench_grpc import run_grpc_bench

            args.deals = 2 if args.deals is None else args.deals  # deals per match here
            args.matches = 32 if args.matches is None else args.matches
            return run_grpc_bench(args)
        if args.command == "bench" and args.game == "bots":
            from arena.commands.bench_bots import run_bench_bots

            args.deals = 50 if args.deals is None else args.deals
            return run_bench_bots(args)
        if args.command == "bench":
            from arena.commands.bench import run_bench

            args.deals = 300 if args.deals is None else args.deals
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
