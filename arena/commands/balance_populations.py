"""``arena balance --bots A --bots B …``: the same variants played by several populations
of bots, and whether each difference holds in every population or depends on the style.

Each ``--bots`` is a population, played as a balance run of its own, stored and resumed
as any run: the same command again plays only what is missing. ``--name NAME`` names
them ``NAME.1``, ``NAME.2``, …; ``--resume NAME`` and ``--open NAME`` take them all,
``--resume NAME.2`` one. One ``--bots`` is a run exactly as before. The report
(:func:`populations_report`) holds each population's own report and the verdicts of
:func:`arena.sim.populations.style_rows`; the text prints each population's report,
then one table of every difference by population with its verdict.
"""

from __future__ import annotations

import argparse
import html
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import bots
from arena.commands import arguments
from arena.commands.balance_report import (
    AXES,
    NO_VALUE,
    STYLE,
    Figure,
    format_difference,
    lineup_label,
    publish,
    render_html,
    render_text,
)
from arena.commands.balance_runs import DEFAULT_BOTS, rerun_command, restore
from arena.errors import ConfigError
from arena.plural import counted
from arena.sim.differences import FAMILY_ERROR
from arena.sim.populations import style_rows, verdict_words
from arena.store import BalanceRun, Store
from arena.web.plots import Dot

__all__ = [
    "open_group",
    "play_populations",
    "population_runs",
    "populations_report",
    "publish_populations",
    "restore_group",
    "stored_group",
    "style_lines",
    "unused_lines",
]

NOT_EXERCISED: Final = "not exercised"


def population_runs(args: argparse.Namespace) -> list[argparse.Namespace]:
    """One set of arguments per ``--bots`` (the default bots when none is given), each
    with that population's bots as its only ``bots``; every population is checked
    before any is played, and none may seat the same players as another."""
    given = list(args.bots or [DEFAULT_BOTS])
    seen: dict[tuple[str, ...], str] = {}
    for text in given:
        lineup = bots.lineup(arguments.bot_names(text, "--bots"))
        if lineup in seen:
            raise ConfigError(f"--bots {text}: the same players as --bots {seen[lineup]}")
        seen[lineup] = text
    runs = []
    for index, text in enumerate(given, start=1):
        run = argparse.Namespace(**vars(args))
        run.bots = text
        if args.name and len(given) > 1:
            run.name = f"{args.name}.{index}"
        runs.append(run)
    return runs


def play_populations(
    runs: Sequence[argparse.Namespace],
    play: Callable[[argparse.Namespace], tuple[int, dict[str, Any]]],
    args: argparse.Namespace,
) -> int:
    """Play (or resume) each population's run with ``play`` in turn and publish their
    report; an interrupt stops at the population it stopped (its exit code is returned)
    and reports what was played."""
    played: list[dict[str, Any]] = []
    exit_code = 0
    for index, run in enumerate(runs, start=1):
        print(f"population {index} of {len(runs)}: {run.bots}", file=sys.stderr)
        exit_code, data = play(run)
        played.append(data)
        if exit_code:
            print(
                f"interrupted in population {index} of {len(runs)}: the same command again "
                "plays what every population is missing",
                file=sys.stderr,
            )
            break
    publish_populations(played, runs, args)
    return exit_code


def stored_group(store: Store, name: str) -> list[BalanceRun]:
    """The stored runs of the populations named ``name`` (``NAME.1``, ``NAME.2``, …);
    none when ``name`` is a run of its own or names no population. (A population whose
    run never started is not among them: the command that named them plays it.)"""
    if store.balance_run(name) is not None:
        return []
    group: list[BalanceRun] = []
    while (run := store.balance_run(f"{name}.{len(group) + 1}")) is not None:
        group.append(run)
    return group


def restore_group(
    args: argparse.Namespace,
    group: Sequence[BalanceRun],
    parse: Callable[[list[str]], argparse.Namespace],
) -> None:
    """``--resume NAME`` of populations (``args`` restored from the first one's run):
    every population's bots, under the group's name."""
    if group:
        args.bots = [_population(run, parse) for run in group]
        args.name = group[0].id.rpartition(".")[0]


def _population(run: BalanceRun, parse: Callable[[list[str]], argparse.Namespace]) -> str:
    """The --bots a stored run was played with."""
    population: str = parse(list(run.definition["arguments"])).bots[0]
    return population


def open_group(
    group: Sequence[BalanceRun],
    args: argparse.Namespace,
    parse: Callable[[list[str]], argparse.Namespace],
) -> None:
    """``--open NAME`` of populations: their stored reports, published together."""
    runs, reports = [], []
    for run in group:
        if run.report is None:
            raise ConfigError(
                f"balance run {run.id} has no report yet ({run.status}): play the rest with "
                f"arena balance --resume {run.id.rpartition('.')[0]}"
            )
        restored = argparse.Namespace(**vars(args))
        restore(restored, run, parse)
        restored.bots = _population(run, parse)
        runs.append(restored)
        reports.append(run.report)
    publish_populations(reports, runs, args)


def populations_report(
    played: Sequence[dict[str, Any]], runs: Sequence[argparse.Namespace]
) -> dict[str, Any]:
    """The report of several populations: each one's own report (``populations``, in the
    order of ``--bots``; fewer than asked when interrupted), their names, the verdict of
    every difference (``style``), how significance was decided (``style_test``) and the
    command that plays them all again."""
    names = [run.bots for run in runs[: len(played)]]
    style = style_rows(played, names) if len(played) > 1 else []  # one: nothing to compare
    cells = [cell for row in style for cell in row["populations"]]
    tested = sum(1 for cell in cells if cell["exercised"] and cell["diff"] is not None)
    return {
        "command": _command(played, runs),
        "complete": len(played) == len(runs) and all(data["complete"] for data in played),
        "population_names": names,
        "populations": list(played),
        "style": style,
        "style_test": {
            "family_error": FAMILY_ERROR,
            "procedure": "holm",
            "differences": tested,
            "differs": "largest pairwise z-test of the populations' differences, Bonferroni "
            "over the pairs, Holm over the rows",
        },
    }


def _command(played: Sequence[dict[str, Any]], runs: Sequence[argparse.Namespace]) -> str:
    """The command that plays every population again: the first one's, with every
    population's --bots (and its batch size only if every population played batches of
    that size)."""
    words = shlex.split(played[0]["command"]) if played else []
    if "--bots" not in words:  # a report written before its command was recorded
        words = shlex.split(rerun_command(runs[0]))
    at = words.index("--bots")
    words[at : at + 2] = [word for run in runs for word in ("--bots", run.bots)]
    if len({data.get("batch") for data in played}) > 1 and "--batch" in words:
        at = words.index("--batch")
        del words[at : at + 2]
    return shlex.join(words)


def style_lines(data: dict[str, Any]) -> list[str]:
    """The verdicts as one table: a line per difference, a column per population (the
    difference from the baseline with its 95% interval, ``*`` significant across
    populations), then the verdict."""
    names: list[str] = data["population_names"]
    rows: list[dict[str, Any]] = data["style"]
    if len(names) < 2:
        return ["across populations: interrupted in the first population, nothing to compare"]
    if not rows:
        return ["across populations: no difference to compare (one variant)"]
    test = data["style_test"]
    table: list[list[str]] = []
    heads: set[int] = set()
    variant = section = None
    for row in rows:
        if row["variant"] != variant:
            variant, section = row["variant"], None
            heads.add(len(table))
            table.append([f"{variant} − {row['baseline']}", *names, "verdict"])
            table.extend([line] for line in unused_lines(row))
        if row["section_text"] != section:
            section = row["section_text"]
            table.append([section])
        cells = [_shown(cell, row["kind"]) for cell in row["populations"]]
        table.append([f"  {row['row_text']}", *cells, _verdict(row)])
    width = max(len(r[0]) for r in table if len(r) > 1)
    cols = [max(len(r[i]) for r in table if len(r) > 1) for i in range(1, len(names) + 1)]
    lines = [
        "",
        f"Across populations ({', '.join(names)}): each difference from the baseline in "
        f"each population; * significant at a {test['family_error']:.0%} family-wise error "
        f"rate over all {counted(test['differences'], 'difference')} of the populations "
        "(Holm's procedure).",
    ]
    for index, r in enumerate(table):
        if len(r) == 1:
            lines.append(r[0])
            continue
        if index in heads:
            lines.append("")
        shown = "  ".join(c.rjust(w) for c, w in zip(r[1:-1], cols, strict=True))
        lines.append(f"{r[0].ljust(width)}  {shown}  {r[-1]}".rstrip())
    if any(row["differs"] for row in rows):
        lines.append(
            "The populations' effects differ: the largest gap between two populations' "
            "differences is significant (z-test, Bonferroni over the pairs, Holm over the "
            "rows)."
        )
    return lines


def unused_lines(row: dict[str, Any]) -> list[str]:
    """A line for each population where the row's variant was not exercised."""
    return [
        f"  not exercised in {cell['population']}: {', '.join(cell['not_exercised'])} came "
        "into play in neither variant (its differences there measure nothing of it)"
        for cell in row["populations"]
        if not cell["exercised"]
    ]


def _verdict(row: dict[str, Any]) -> str:
    """A row's verdict in a table whose variant heading names where it was not exercised."""
    differ = "; the populations' effects differ" if row["differs"] else ""
    return verdict_words(row["verdict"], row["populations"]) + differ


def _shown(cell: dict[str, Any], kind: str) -> str:
    if not cell["exercised"]:
        return NOT_EXERCISED
    if cell["diff"] is None:
        return NO_VALUE
    return format_difference(cell, kind)


def render_populations_text(data: dict[str, Any]) -> str:
    """Each population's report, then the verdicts' table."""
    parts = []
    count = len(data["population_names"])
    for index, report in enumerate(data["populations"], start=1):
        parts.append(f"population {index} of {count}: {lineup_label(report['bots'])}\n")
        parts.append(render_text(report) + "\n")
    if not data["complete"]:
        parts.append("interrupted: the populations' verdicts are of the deals played\n")
    parts.append("\n".join(style_lines(data)).lstrip("\n") + "\n")
    parts.append(f"again: {data['command']}\n")
    return "".join(parts)


def style_figures(
    data: dict[str, Any],
    words: Callable[[str, str], str] = lambda key, text: text,
    axes: Mapping[str, str] = AXES,
) -> list[Figure]:
    """A figure per variant and section: each row's difference in each population (a
    series per population, significant ones filled); ``words`` gives a section's or
    row's words from its key and English text, ``axes`` the axes' (another language's)."""
    names: list[str] = data["population_names"]
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for row in data["style"]:
        groups.setdefault((row["variant"], row["section_text"], row["kind"]), []).append(row)
    drawn = []
    for (variant, section, kind), rows in groups.items():
        scale = 100.0 if kind == "rate" else 1.0
        dots = [
            Dot(
                words(row["row"], row["row_text"]),
                scale * cell["diff"],
                scale * cell["low"],
                scale * cell["high"],
                index,
                bool(cell.get("significant")),
            )
            for row in rows
            for index, cell in enumerate(row["populations"])
            if cell["exercised"] and cell["diff"] is not None
        ]
        if dots:
            axis = axes[f"{kind}_difference"]
            title = f"{variant}: {words(rows[0]['section'], section)}"
            drawn.append(Figure(title, dots, names, axis, True))
    return drawn


def render_populations_html(data: dict[str, Any]) -> str:
    """One HTML page: the verdicts' table and figures, then each population's report."""
    esc = html.escape
    names: list[str] = data["population_names"]
    title = f"Balance by population: {' | '.join(names)}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{esc(title)}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>{esc(title)}</h1>",
        f"<p>{esc(style_lines(data)[1])}</p>",
        "<h2>Across populations</h2>",
        "<table><tr><th></th>"
        + "".join(f"<th>{esc(name)}</th>" for name in names)
        + "<th>verdict</th></tr>",
    ]
    variant = section = None
    for row in data["style"]:
        if row["variant"] != variant:
            variant, section = row["variant"], None
            head = f"{row['variant']} − {row['baseline']}"
            parts.append(
                f'<tr><th class="section" colspan="{len(names) + 2}">{esc(head)}</th></tr>'
            )
            parts.extend(
                f'<tr><td colspan="{len(names) + 2}">{esc(line.strip())}</td></tr>'
                for line in unused_lines(row)
            )
        if row["section_text"] != section:
            section = row["section_text"]
            parts.append(f'<tr><td colspan="{len(names) + 2}"><i>{esc(section)}</i></td></tr>')
        tds = "".join(f"<td>{esc(_shown(cell, row['kind']))}</td>" for cell in row["populations"])
        verdict = esc(_verdict(row))
        parts.append(f"<tr><td>{esc(row['row_text'])}</td>{tds}<td>{verdict}</td></tr>")
    parts.append("</table>")
    parts.extend(f"<figure>{figure.svg()}</figure>" for figure in style_figures(data))
    parts.append(f"<p><code>again: {esc(data['command'])}</code></p>")
    for index, report in enumerate(data["populations"], start=1):
        body = render_html(report).partition("<body>")[2].rpartition("</body>")[0]
        parts.append(f'<section id="population-{index}">')
        parts.append(f"<h2>Population {index}: {esc(lineup_label(report['bots']).text)}</h2>")
        parts.append(body)
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def publish_populations(
    played: Sequence[dict[str, Any]], runs: Sequence[argparse.Namespace], args: argparse.Namespace
) -> None:
    """The report of several populations as text, and as JSON and HTML files when
    asked."""
    publish(
        populations_report(played, runs), args, render_populations_text, render_populations_html
    )
