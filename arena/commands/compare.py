"""``arena compare BOT_A BOT_B --variant V``: paired matches until an SPRT decides."""

from __future__ import annotations

import argparse
from typing import Any

from rich.console import Console
from rich.progress import Progress, TextColumn

from arena.commands import Subcommands, arguments, print_json
from arena.commands.numbers import signed
from arena.plural import counted
from arena.rating import SprtConfig
from arena.sim import RayOptions, Runner
from arena.sim.compare import Comparison, compare
from arena.sim.tournament import TournamentConfig


def add_parser(sub: Subcommands) -> None:
    """``arena compare BOT_A BOT_B``: the candidate, the reference and the SPRT's terms."""
    parser = sub.add_parser(
        "compare",
        help="paired matches between two bots until an SPRT decides",
        description="Paired matches between two bots until a sequential test decides. "
        "With --json an unbounded end of the Elo interval (fewer than two pairs, or one "
        "bot winning every pair) is null; the text shows it as ∞.",
    )
    parser.add_argument(
        "bot_a",
        type=arguments.bot,
        help="the candidate bot, e.g. search or search:samples=16,candidates=4",
    )
    parser.add_argument(
        "bot_b", type=arguments.bot, help="the reference bot (NAME or NAME:key=value,...)"
    )
    parser.add_argument(
        "--variant", type=arguments.variant, required=True, help="game variant, e.g. guandan"
    )
    parser.add_argument(
        "--option",
        type=arguments.game_option,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="game option",
    )
    parser.add_argument(
        "--deals", type=arguments.count, default=1, help="deals per match (default 1)"
    )
    parser.add_argument("--elo0", type=arguments.elo, default=0.0, help="H0: at most this Elo (0)")
    parser.add_argument(
        "--elo1", type=arguments.elo, default=50.0, help="H1: at least this Elo (50)"
    )
    parser.add_argument(
        "--alpha", type=arguments.probability, default=0.05, help="false positive rate"
    )
    parser.add_argument(
        "--beta", type=arguments.probability, default=0.05, help="false negative rate"
    )
    parser.add_argument(
        "--max-pairs", type=arguments.count, default=20_000, help="stop undecided after"
    )
    parser.add_argument("--seed", type=arguments.seed, default=0, help="seed of the deals")
    parser.add_argument("--address", default=None, help="Ray cluster (default: local)")
    parser.add_argument("--json", action="store_true", help="JSON for machines")
    parser.set_defaults(handler=run_compare)


def run_compare(args: argparse.Namespace) -> int:
    options = arguments.game_options(args.option)
    TournamentConfig.from_mapping(  # checks the variant, its options and the bots
        {"variant": args.variant, "options": options, "bots": [args.bot_a, args.bot_b]}
    )
    config = SprtConfig(elo0=args.elo0, elo1=args.elo1, alpha=args.alpha, beta=args.beta)
    with (
        Runner(RayOptions(address=args.address)) as runner,
        Progress(TextColumn("{task.description}"), console=Console(stderr=True)) as progress,
    ):
        task = progress.add_task("starting")

        def show(result: Comparison) -> None:
            s = result.sprt
            low, high = s.bounds
            progress.update(
                task,
                description=f"pairs {s.n}  LLR {s.llr:+.2f} ({low:+.2f}, {high:+.2f})  "
                f"A {result.wins} – {result.losses} B",
            )

        result = compare(
            runner,
            args.bot_a,
            args.bot_b,
            args.variant,
            options,
            config,
            deals=args.deals,
            seed=args.seed,
            max_pairs=args.max_pairs,
            on_pair=show,
        )
    summary = result.summary()
    if args.json:
        print_json(summary)
    else:
        print(describe(summary, args.variant, config))
    return 0


def describe(summary: dict[str, Any], variant: str, config: SprtConfig) -> str:
    """The comparison's summary for people."""
    bot_a = summary["bot_a"]
    verdict = {
        "H1": f"{bot_a} is stronger by at least {config.elo1:g} Elo (H1 accepted)",
        "H0": f"{bot_a} is not stronger by more than {config.elo0:g} Elo (H0 accepted)",
        None: f"undecided after {counted(summary['pairs'], 'pair')}",
    }[summary["decision"]]
    low, high = summary["elo_95"]
    elo = "unknown" if summary["elo"] is None else signed(summary["elo"])
    lines = [
        f"{bot_a} vs {summary['bot_b']} on {variant}: {verdict}",
        f"  {counted(summary['pairs'], 'pair')}, A {summary['wins']} wins, {summary['losses']} "
        f"losses, "
        f"{summary['draws']} draws",
        f"  Elo difference {elo} (95%: {signed(low)} … {signed(high)}), "
        f"likelihood of superiority {summary['los']:.1%}",
    ]
    narrowing = summary["narrowing"]
    if narrowing is not None:
        lines.append(
            f"  pairing: score interval ±{narrowing['paired_half_width']:.3f} against "
            f"±{narrowing['unpaired_half_width']:.3f} for the same matches unpaired "
            f"({1 - narrowing['ratio']:+.0%} narrower)"
        )
    return "\n".join(lines)
