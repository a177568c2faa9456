"""``arena compare BOT_A BOT_B --variant V``: paired matches until an SPRT decides."""

from __future__ import annotations

import argparse
import json

from rich.console import Console
from rich.progress import Progress, TextColumn

from arena.commands.play import parse_options
from arena.rating import SprtConfig
from arena.sim import RayOptions, Runner
from arena.sim.compare import Comparison, compare
from arena.sim.tournament import TournamentConfig


def run_compare(args: argparse.Namespace) -> int:
    options = parse_options(args.option)
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
        print(json.dumps(summary))
        return 0
    verdict = {
        "H1": f"{args.bot_a} is stronger by at least {args.elo1:g} Elo (H1 accepted)",
        "H0": f"{args.bot_a} is not stronger by more than {args.elo0:g} Elo (H0 accepted)",
        None: f"undecided after {summary['pairs']} pairs",
    }[summary["decision"]]
    low, high = summary["elo_95"]
    print(
        f"{args.bot_a} vs {args.bot_b} on {args.variant}: {verdict}\n"
        f"  {summary['pairs']} pairs, A {summary['wins']} wins, {summary['losses']} losses, "
        f"{summary['draws']} draws\n"
        f"  Elo difference {summary['elo']:+.1f} (95%: {low:+.1f} … {high:+.1f}), "
        f"likelihood of superiority {summary['los']:.1%}"
    )
    narrowing = summary["narrowing"]
    if narrowing is not None:
        print(
            f"  pairing: score interval ±{narrowing['paired_half_width']:.3f} against "
            f"±{narrowing['unpaired_half_width']:.3f} for the same matches unpaired "
            f"({1 - narrowing['ratio']:+.0%} narrower)"
        )
    return 0
