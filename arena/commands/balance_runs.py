"""Stored balance runs: a run's definition and each finished batch kept in the store.

Running the same command again, or ``arena balance --resume NAME``, plays only the
batches not stored yet; batches are determined by their seeds and summaries add up
exactly, so a resumed run's figures are those of a run never interrupted.
``--list`` shows the runs of a store and ``--open NAME`` a run's last report.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
from collections.abc import Callable, Sequence
from typing import Any, Final

import arena
from arena.commands.balance_until import DEFAULT_ASKED
from arena.errors import ConfigError
from arena.plural import counted
from arena.sim.balance import BalanceJob, Summary, VariantSpec
from arena.store import BalanceBatch, BalanceRun, Store

DEFAULT_BOTS: Final = "heuristic"
"""The bots of a balance run when --bots is not given."""

__all__ = [
    "DEFINING",
    "again_words",
    "defining_words",
    "definition",
    "list_lines",
    "restore",
    "run_name",
    "stored_batch",
    "stored_progress",
]

DEFINING: Final = (
    "balance_items",
    "deals",
    "seed",
    "batch",
    "bots",
    "until_resolved",
    "asked",
    "margin",
)
"""The arguments that decide a run's figures (where it plays and what it writes do not)."""


def defining_words(args: argparse.Namespace) -> list[str]:
    """The arguments that decide the figures, every one spelled out (defaults included):
    each variant, option and sweep as given, then the deals, seed, batch and bots."""
    words: list[str] = []
    for kind, text in args.balance_items or ():
        words += [f"--{kind}", text]
    words += ["--deals", str(args.deals), "--seed", str(args.seed)]
    if args.batch is not None:  # None: not sized yet
        words += ["--batch", str(args.batch)]
    words += ["--bots", args.bots]
    if args.until_resolved:
        words += ["--until-resolved", "--margin", str(args.margin)]
        for row in args.asked or DEFAULT_ASKED:
            words += ["--ask", row]
    return words


def definition(
    args: argparse.Namespace, specs: Sequence[VariantSpec], players: Sequence[str]
) -> dict[str, Any]:
    """What a stored run is: its variants, bots, deals, seed, batch size and questions,
    the arguments that say so (``arena balance`` + them plays it again), and the arena
    version whose engines and bots play its batches (another version is another run)."""
    asked = {"asked": list(args.asked or DEFAULT_ASKED), "margin": args.margin}
    return {
        "arena": arena.__version__,
        "variants": [
            {"name": spec.name, "game": spec.game, "options": dict(spec.options)} for spec in specs
        ],
        "bots": list(players),
        "deals_per_variant": args.deals,
        "seed": args.seed,
        "batch": args.batch,
        "until_resolved": asked if args.until_resolved else None,
        "arguments": defining_words(args),
    }


def run_name(given: str | None, defined: dict[str, Any]) -> str:
    """The run's name: the one given, else one made from its definition, so the same
    command names the same run (and resumes it)."""
    if given:
        return given
    text = json.dumps(defined, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "balance-" + hashlib.sha256(text.encode()).hexdigest()[:10]


def restore(
    args: argparse.Namespace, run: BalanceRun, parse: Callable[[list[str]], argparse.Namespace]
) -> None:
    """``--resume NAME``: the stored run's defining arguments in ``args`` (read by
    ``parse``, the command's own parser)."""
    if args.balance_items:
        raise ConfigError(
            f"--resume {run.id}: the run's variants are stored; give no --variant with it"
        )
    stored = parse(list(run.definition["arguments"]))
    for dest in DEFINING:
        setattr(args, dest, getattr(stored, dest))
    args.name = run.id


def stored_batch(job: BalanceJob, summary: Summary) -> BalanceBatch:
    """A finished batch as the store keeps it."""
    return BalanceBatch(job.variant, job.index, summary["deals"], dict(summary.counts))


def stored_progress(store: Store, run_id: str, summaries: list[Summary]) -> set[tuple[int, int]]:
    """Merge a run's stored batches into ``summaries`` (one per variant); the
    (variant, batch) pairs stored, which are not played again."""
    done: set[tuple[int, int]] = set()
    for batch in store.balance_batches(run_id):
        if batch.variant >= len(summaries):
            raise ConfigError(f"balance run {run_id}: a stored batch of variant {batch.variant}")
        game = summaries[batch.variant].game
        summaries[batch.variant] = summaries[batch.variant] + Summary(game, dict(batch.counts))
        done.add((batch.variant, batch.number))
    return done


def list_lines(runs: Sequence[BalanceRun]) -> list[str]:
    """``--list``: a line per run, newest first: name, status, deals stored of those
    asked, when it was last changed, its variants and bots."""
    if not runs:
        return ["no balance runs stored yet"]
    width = max(len(run.id) for run in runs)
    lines = []
    for run in runs:
        defined = run.definition
        asked = defined["deals_per_variant"] * len(defined["variants"])
        variants = " | ".join(v["name"] for v in defined["variants"])
        bots = ",".join(dict.fromkeys(defined["bots"]))
        lines.append(
            f"{run.id:<{width}}  {run.status:<11}  {run.deals:>9,} of "
            f"{counted(asked, 'deal', spec=',')}  "
            f"{run.updated_at[:19].replace('T', ' ')}  {variants}  (bots {bots})"
        )
    return lines


def again_words(run: BalanceRun) -> str:
    """How to play the run's missing batches."""
    return shlex.join(["arena", "balance", "--resume", run.id])


def rerun_command(args: argparse.Namespace) -> str:
    """The command line that plays this run again: every variant, option and sweep as
    given, and every setting the figures depend on spelled out (defaults included)."""
    return shlex.join(["arena", "balance", *defining_words(args), *(["--local"] * args.local)])
