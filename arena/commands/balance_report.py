"""The report of ``arena balance``: the comparison of the variants against the
baseline (rows of rates and means with their differences), its words as text, its
figures, and the self-contained HTML page; also what the web face's reports show."""

from __future__ import annotations

import argparse
import html
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Final

from markupsafe import Markup

from arena.commands.balance_exercise import (
    EXERCISE_TITLE,
    exercise_rows,
    stopped_line,
)
from arena.commands.numbers import json_ready
from arena.plural import counted
from arena.sim.balance import (
    TRIBUTE_KINDS,
    change_order,
    family,
    rate,
)
from arena.sim.differences import FAMILY_ERROR, holm, mean_difference, rate_difference
from arena.sim.exercise import not_exercised
from arena.web.plots import Dot, interval_dots

NO_VALUE = "—"
"""A cell with nothing to show."""


# ------------------------------------------------------------------ comparison table

Cell = dict[str, Any] | None


@dataclass(frozen=True)
class Label:
    """A section title or row label of the comparison: a stable ``key`` (the web face
    looks its words up by it, ``balance.<key>`` in its catalogs), the ``fields`` its
    text is filled with (numbers, or labels of their own), and the English ``text`` the
    command line prints."""

    key: str
    text: str
    fields: Mapping[str, Label | int | str] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.text


Row = tuple[Label, list[Cell], str]
"""A row: its label, one cell per variant (a rate, a mean, or None), and its kind."""


def _pct(value: float, digits: int) -> str:
    return f"{100 * value:.{digits}f}"


def format_cell(cell: Cell, kind: str = "rate") -> str:
    """``51.2% [49.9, 52.5]`` for a rate, ``106.1 [96.4, 115.8]`` for a mean."""
    if cell is None:
        return NO_VALUE
    if kind == "rate":
        if cell.get("rate") is None:
            return "n/a"
        digits = 2 if cell["high"] < 0.01 else 1  # rare events stay visible
        low, high = _pct(cell["low"], digits), _pct(cell["high"], digits)
        return f"{_pct(cell['rate'], digits)}% [{low}, {high}]"
    if cell.get("mean") is None:
        return "n/a"
    if cell.get("low") is None:
        return f"{cell['mean']:.2f} [one value: no interval]"
    return f"{cell['mean']:.2f} [{cell['low']:.2f}, {cell['high']:.2f}]"


def format_difference(cell: Cell, kind: str = "rate") -> str:
    """A difference from the baseline: ``+2.3 [+0.5, +4.1] *`` for rates (percentage
    points), ``-1.20 [-2.31, -0.09]`` for means; ``*`` when it is significant."""
    if cell is None:
        return NO_VALUE
    if cell.get("not_exercised"):
        return f"not exercised: {', '.join(cell['not_exercised'])}"
    mark = " *" if cell.get("significant") else ""
    if kind == "rate":
        diff, low, high = (100 * cell[key] for key in ("diff", "low", "high"))
        return f"{diff:+.1f} [{low:+.1f}, {high:+.1f}]{mark}"
    return f"{cell['diff']:+.2f} [{cell['low']:+.2f}, {cell['high']:+.2f}]{mark}"


def shown_cell(cell: Cell, kind: str, column: int) -> str:
    """A cell of :func:`against_baseline`: the baseline's figure in the first column,
    a difference from it in the others."""
    return format_cell(cell, kind) if column == 0 else format_difference(cell, kind)


Step = str | int | Callable[[Any], Any]
"""A step into a variant's report: a key, a list index, or a lookup function."""


def _dig(data: Any, path: Sequence[Step]) -> Cell:
    try:
        for step in path:
            data = step(data) if callable(step) else data[step]
    except (KeyError, IndexError, TypeError):
        return None
    cell: dict[str, Any] | None = data
    return cell


def _find(key: str, value: object, items: list[dict[str, Any]]) -> dict[str, Any]:
    """The item of a list whose ``key`` is ``value``; a zero count if there is none."""
    for item in items:
        if item[key] == value:
            return item
    n = int(items[0]["n"]) if items else 0
    return {"count": 0, "n": n, **rate(0, n)} if n else rate(0, 0)


def _multiplier_name(group: str, multiplier: int | None) -> Label:
    if multiplier is None:
        return Label("kitty.none", "no kitty count (declarers took it)")
    if group == "4 decks":
        return Label("kitty.widest", f"4 decks: widest set ×{multiplier}", {"n": multiplier})
    return Label("kitty.multiplier", f"kitty multiplier ×{multiplier}", {"n": multiplier})


CHANGE_LABELS: Final = (
    ("change.defenders", re.compile(r"defenders \+(\d+)")),
    ("change.declarers", re.compile(r"declarers \+(\d+)")),
    ("change.sweep", re.compile(r"sweep ×(\d+)")),
    ("change.stake", re.compile(r"×(\d+)")),
    ("change.gain", re.compile(r"\+(\d+)")),
)
"""The level-change buckets a deal's facts name (:func:`arena.sim.balance.deal_facts`)
and their keys; ``wins the match`` is ``change.match``, anything else ``change.other``."""


def _change_name(_: str, change: Any) -> Label:
    text = str(change)
    if text == "wins the match":
        return Label("change.match", text)
    for key, pattern in CHANGE_LABELS:
        found = pattern.fullmatch(text)
        if found:
            return Label(key, text, {"n": int(found.group(1))})
    return Label("change.other", text, {"text": text})


REVEAL_ROWS: Final = (
    ("two_cards", "two cards turned"),
    ("same_receiver", "one player got both (of two-card deals)"),
    ("same_receiver_won", "… and that player's team won"),
    ("one_card", "one card turned (after a sweep)"),
    ("receiver_was_first", "… the previous first finisher got it"),
    ("swapped", "seats changed"),
    ("sweep", "sweep (one team first and second)"),
    ("sweep_all_points", "sweep with all 300 points"),
    ("joker_bonus", "joker bonus paid"),
)
"""sanfu's partner-reveal rows: the report's key and the row's English label."""


_FAMILY_WORDS: Final[dict[str, dict[str, Label]]] = {
    "changes": {
        "guandan": Label("section.changes_levels", "Level change, share of deals"),
        "shengji": Label("section.changes_levels", "Level change, share of deals"),
        "sanfu": Label("section.changes_stakes", "Stake, share of deals"),
        "": Label(
            "section.changes", "Level change (Guandan, Shengji) / stake (sanfu), share of deals"
        ),
    },
    "gain": {
        "guandan": Label("means.gain_levels", "levels gained"),
        "shengji": Label("means.gain_levels", "levels gained"),
        "sanfu": Label("means.gain_stake", "stake won"),
        "": Label("means.gain", "levels gained (stake in sanfu)"),
    },
    "points": {
        "shengji": Label("means.points_defenders", "defenders' points"),
        "sanfu": Label("means.points_winners", "winners' points"),
        "guandan": Label("means.points", "points (Shengji defenders, sanfu winners)"),
        "": Label("means.points", "points (Shengji defenders, sanfu winners)"),
    },
}
"""Labels in the words of the report's game when all its variants are of one family
(``""``: of several)."""


def comparison(data: dict[str, Any]) -> list[tuple[Label, list[Row]]]:
    """The report as sections of rows, one cell per variant (None: not in this game)."""
    variants: list[dict[str, Any]] = data["variants"]

    def row(label: Label, *path: Step, kind: str = "rate") -> Row:
        return (label, [_dig(v, path) for v in variants], kind)

    def has(key: str) -> bool:
        return any(key in v for v in variants)

    def bucket_rows(
        section: str,
        items: str,
        key: str,
        name: Callable[[str, Any], Label],
        group: Callable[[str], str],
        order: Callable[[Any], Any],
    ) -> list[Row]:
        """A row per bucket seen in any variant, grouped (e.g. by game family) and sorted;
        a variant of another group has no cell there, one of the same group a zero count."""
        seen: list[tuple[str, Any]] = []
        for v in variants:
            for item in v.get(section, {}).get(items, []):
                if (group(v["game"]), item[key]) not in seen:
                    seen.append((group(v["game"]), item[key]))
        groups = list(dict.fromkeys(where for where, _ in seen))
        seen.sort(key=lambda bucket: (groups.index(bucket[0]), order(bucket[1])))
        rows: list[Row] = []
        for where, value in seen:
            cells = [
                _dig(v, (section, items, partial(_find, key, value)))
                if section in v and group(v["game"]) == where
                else None
                for v in variants
            ]
            rows.append((name(where, value), cells, "rate"))
        return rows

    families = {family(v["game"]) for v in variants}
    only = families.pop() if len(families) == 1 else ""
    sections: list[tuple[Label, list[Row]]] = []
    wins = [row(Label("wins.dealer_team", "dealer's team (see notes)"), "dealer_team")]
    wins += [  # partners sit opposite: a seat's team is its partner's
        row(Label("wins.team", f"seats {s} and {s + 2}", {"seat": s, "partner": s + 2}), "seats", s)
        for s in range(2)
    ]
    sections.append((Label("section.wins", "Win rate of the deal"), wins))
    if has("first_out"):
        first = [
            row(Label("first_out.seat", f"seat {s}", {"seat": s}), "first_out", s) for s in range(4)
        ]
        sections.append((Label("section.first_out", "First out (climbing games)"), first))
    changes = bucket_rows("level_changes", "buckets", "change", _change_name, family, change_order)
    sections.append((_FAMILY_WORDS["changes"][only], changes))
    means = [row(_FAMILY_WORDS["gain"][only], "gain", kind="mean")]
    if has("points"):
        means.append(row(_FAMILY_WORDS["points"][only], "points", kind="mean"))
    means.append(row(Label("means.length", "decisions per deal"), "length", kind="mean"))
    sections.append((Label("section.means", "Means"), means))
    if has("kitty"):
        last = Label("kitty.defenders_won_last", "defenders took the last trick")
        kitty = [row(last, "kitty", "defenders_won_last")]
        kitty += bucket_rows(
            "kitty",
            "multipliers",
            "multiplier",
            _multiplier_name,
            lambda game: "4 decks" if game == "shengji-4" else "kitty",
            lambda m: 0 if m is None else int(m),
        )
        bonus = Label("kitty.bonus", "defenders' points from it")
        kitty.append(row(bonus, "kitty", "bonus", kind="mean"))
        sections.append(
            (Label("section.kitty", "Shengji: kitty / last trick (share of deals)"), kitty)
        )
    if has("play"):
        play = [
            row(Label("play.failed_throw", "deals with a failed throw"), "play", "failed_throw"),
            *(
                row(Label(f"play.{key}", text), "play", key, kind="mean")
                for key, text in (
                    ("failed_throws", "failed throws per deal"),
                    ("declarers_failed_throws", "the declarers' failed throws per deal"),
                    ("room_points", "room points of each declarer per deal"),
                )
            ),
        ]
        sections.append((Label("section.play", "Shengji: throws and room points"), play))
    if has("tribute"):
        double = Label("tribute.double_down", "double-down: the winners out first and second")
        tribute: list[Row] = [row(double, "tribute", "double_down")]
        for kind in TRIBUTE_KINDS:
            name = Label(f"tribute_kind.{kind}", kind.replace("_", " "))
            entry = ("tribute", "kinds", partial(_find, "kind", kind))
            fields = {"kind": name}
            share = Label("tribute.share", f"{name}: share of deals", fields)
            tribute.append(row(share, *entry, "share"))
            if kind != "first":
                wins_after = Label("tribute.receiver_wins", f"{name}: previous winners win", fields)
                tribute.append(row(wins_after, *entry, "receiver_wins"))
                gain = Label("tribute.receiver_gain", f"{name}: their levels gained", fields)
                tribute.append(row(gain, *entry, "receiver_gain", kind="mean"))
        refused = Label("tribute.refused", "tribute refused (after a first deal)")
        tribute.append(row(refused, "tribute", "refused"))
        sections.append((Label("section.tribute", "Guandan: tribute and the next deal"), tribute))
    if has("reveal"):
        reveal = [row(Label(f"reveal.{key}", text), "reveal", key) for key, text in REVEAL_ROWS]
        moved = Label("reveal.transferred", "points transferred")
        reveal.append(row(moved, "reveal", "transferred", kind="mean"))
        sections.append((Label("section.reveal", "sanfu: partner reveal and sweeps"), reveal))
    return sections


def against_baseline(data: dict[str, Any]) -> list[tuple[Label, list[Row]]]:
    """The comparison with the first variant as the baseline: its own figures in the
    first column, and in every other column that variant's difference from it
    (:mod:`arena.sim.differences`: ``diff``, ``low``, ``high``, ``p`` and
    ``significant``, by Holm's procedure over every difference in the report; None
    where either has no figure). A variant whose differing options came into play in
    neither it nor the baseline measures none of them: its differences name those
    options (``not_exercised``) and are left out of Holm's procedure, never significant."""
    found: list[dict[str, Any]] = []
    shown: list[tuple[Label, list[Row]]] = []
    variants = data["variants"]
    unused = [not_exercised(data.get("exercise", []), variants[0], other) for other in variants]
    for title, rows in comparison(data):
        compared: list[Row] = []
        for label, cells, kind in rows:
            base = cells[0]
            differences: list[Cell] = [base]
            for cell in cells[1:]:
                difference = None
                if base is not None and cell is not None:
                    measure = rate_difference if kind == "rate" else mean_difference
                    difference = measure(base, cell)
                column = len(differences)
                if difference is not None and unused[column]:
                    difference = {**difference, "significant": False}
                    difference["not_exercised"] = unused[column]
                elif difference is not None:
                    found.append(difference)
                differences.append(difference)
            compared.append((label, differences, kind))
        shown.append((title, compared))
    for difference, significant in zip(found, holm([d["p"] for d in found]), strict=True):
        difference["significant"] = significant
    return shown


def difference_records(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Every difference of :func:`against_baseline` as a flat record (for notebooks):
    its section and row (key and English words), the variant, and the figures."""
    names = [v["name"] for v in data["variants"]]
    return [
        {
            "section": title.key,
            "section_text": title.text,
            "row": label.key,
            "row_text": label.text,
            "kind": kind,
            "baseline": names[0],
            "variant": names[column],
            **cell,
        }
        for title, rows in against_baseline(data)
        for label, cells, kind in rows
        for column, cell in enumerate(cells)
        if column > 0 and cell is not None
    ]


def _compared_names(data: dict[str, Any]) -> list[str]:
    """The columns' headings: the baseline, then each variant's difference from it."""
    names = [v["name"] for v in data["variants"]]
    if len(names) == 1:
        return names
    return [f"{names[0]} (baseline)", *(f"{name} − baseline" for name in names[1:])]


def _difference_note(data: dict[str, Any]) -> list[str]:
    if len(data["variants"]) == 1:
        return []
    return [
        "Columns after the first: the difference from the baseline (rates in percentage "
        "points) with its 95% interval; * marks a difference significant at a "
        f"{FAMILY_ERROR:.0%} family-wise error rate over all the report's differences "
        "(Holm's procedure)."
    ]


def until_lines(data: dict[str, Any]) -> list[str]:
    """With ``--until-resolved``: why the run stopped, and each question's answer."""
    until = data.get("until_resolved")
    if not until:
        return []
    variants = data["variants"]
    lines = [stopped_line(until, min(v["deals"] for v in variants))]
    unused = {v["name"]: not_exercised(data.get("exercise", []), variants[0], v) for v in variants}
    for q in until["questions"]:
        if unused.get(q["variant"]):
            options = ", ".join(unused[q["variant"]])
            lines.append(f"  {q['row_text']}, {q['variant']}: unanswered, {options} not exercised")
            continue
        shown = format_difference(q if q["diff"] is not None else None, q["kind"])
        lines.append(
            f"  {q['row_text']}, {q['variant']}: {q['status']} ({shown.removesuffix(' *')}; "
            f"tested at {q['level']:.3%} after round {q['look']} of {until['rounds']})"
        )
    return lines


def provenance(
    data: dict[str, Any], again: str = "again: {command}", made_by: str = "made by {versions}"
) -> list[str]:
    """The command that plays the run again and the versions that made it, in the words
    of ``again`` and ``made_by`` (a report written before they were recorded has
    neither)."""
    lines = []
    if "command" in data:
        lines.append(again.format(command=data["command"]))
    if "versions" in data:
        made = ", ".join(f"{k} {v}" for k, v in dict(data["versions"]).items())
        lines.append(made_by.format(versions=made))
    return lines


def _notes(data: dict[str, Any]) -> list[str]:
    notes: dict[str, str] = {}
    for v in data["variants"]:
        kind = family(v["game"])
        notes.setdefault(kind, f"dealer's team in {kind}: {v['dealer_team']['label']}")
    return list(notes.values())


def lineup_label(players: str | Sequence[str]) -> Label:
    """Who played, as a label: one bot for all, one per team, or each player's (a report
    written before the bots could be chosen names one bot, as text)."""
    if isinstance(players, str) or len(set(players)) == 1:
        bot = players if isinstance(players, str) else players[0]
        return Label("bots.all", f"{bot} bots", {"bot": bot})
    if len(players) == 4 and players[0] == players[2] and players[1] == players[3]:
        first, second = players[0], players[1]
        text = f"{first} (players 0 and 2) against {second} (1 and 3)"
        return Label("bots.teams", text, {"first": first, "second": second})
    text = ", ".join(f"player {p}: {bot}" for p, bot in enumerate(players))
    return Label("bots.each", text, {f"p{p}": bot for p, bot in enumerate(players)})


def render_text(data: dict[str, Any]) -> str:
    """The comparison as a plain-text table (95% intervals in brackets, percentages)."""
    variants = data["variants"]
    names = [v["name"] for v in variants]
    lines = [
        f"balance: {lineup_label(data['bots'])}, {counted(data['deals_per_variant'], 'deal')} per "
        "variant asked, "
        f"seed {data['seed']}" + ("" if data["complete"] else " (interrupted)"),
        *until_lines(data),
    ]
    table: list[list[str]] = [["", *_compared_names(data)]]
    table.append(["deals played", *(str(v["deals"]) for v in variants)])
    table.append(["matches completed", *(str(v["matches_completed"]) for v in variants)])
    heads: set[int] = set()
    for title, rows in against_baseline(data):
        heads.add(len(table))
        table.append([title.text])
        for label, values, kind in rows:
            shown = [shown_cell(c, kind, column) for column, c in enumerate(values)]
            table.append([f"  {label.text}", *shown])
    width = max(len(r[0]) for r in table if len(r) > 1)
    cols = [max(len(r[i]) for r in table if len(r) > i) for i in range(1, len(names) + 1)]
    for i, r in enumerate(table):
        if i in heads:
            lines.append("")
            lines.append(r[0])
            continue
        cells = "  ".join(c.rjust(w) for c, w in zip(r[1:], cols, strict=True))
        lines.append(f"{r[0].ljust(width)}  {cells}".rstrip())
    lines.extend(_exercise_text(data))
    lines.append("")
    lines.append("Rates in %, 95% Wilson intervals in brackets; means with 95% intervals.")
    lines.extend(_difference_note(data))
    lines.extend(_notes(data))
    lines.extend(speed_lines(data))
    lines.extend(provenance(data))
    return "\n".join(lines) + "\n"


def _exercise_text(data: dict[str, Any]) -> list[str]:
    """The rules in play as a text table (a report from before they were counted, or
    with no option to show, has none)."""
    shown = exercise_rows(data.get("exercise", []), format_cell)
    if not shown:
        return []
    lines = ["", f"{EXERCISE_TITLE} (rates in %, 95% Wilson intervals)"]
    cells = [row for _, rows in shown for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(4)]
    for heading, rows in shown:
        lines.append(f"  {heading}")
        for row in rows:
            fixed = "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False))
            lines.append(f"    {fixed}  {row[4]}")
    return lines


def speed_lines(data: dict[str, Any]) -> list[str]:
    """How fast the run played (a report written before it was recorded says nothing)."""
    speed = data.get("speed")
    if not speed or not speed["deals"]:
        return []
    workers = speed["workers"]
    busy = "" if speed["busy"] is None else f", busy {speed['busy']:.0%} of the time"
    return [
        f"played {counted(speed['deals'], 'deal', spec=',')} in {speed['seconds']:.1f} s: "
        f"{speed['deals_per_second']:,.0f} deals/s on "
        f"{counted(workers, 'worker')}{busy}"
    ]


# ------------------------------------------------------------------ HTML with plots


AXES: Final = {
    "rate_difference": "difference from the baseline, percentage points (95% interval)",
    "mean_difference": "difference from the baseline (95% interval)",
    "rate": "% of deals (95% Wilson interval)",
    "mean": "mean (95% interval)",
}
"""The figures' axis titles, in English (the site has them in its catalogs)."""


@dataclass(frozen=True)
class Figure:
    """A figure of a report: its title, dots (a line per row, a dot per variant),
    the variants' names (its legend), its axis title, and whether 0 is drawn."""

    title: str
    dots: list[Dot]
    series: list[str]
    axis: str
    zero: bool

    def svg(self) -> Markup:
        return interval_dots(self.title, self.dots, self.axis, self.series, self.zero)


def figures(
    data: dict[str, Any], words: Callable[[Label], str], axes: Mapping[str, str] = AXES
) -> list[Figure]:
    """One figure per question: a section's rates together, each mean alone. With a
    baseline, the dots are the other variants' differences from it (significant ones
    filled, none for a difference that measures no option: not exercised); with one
    variant, its figures. ``words`` gives a label's words."""
    names = [v["name"] for v in data["variants"]]
    compared = len(names) > 1
    shown = against_baseline(data) if compared else comparison(data)
    series = names[1:] if compared else names
    drawn: list[Figure] = []
    for title, rows in shown:
        for kind in ("rate", "mean"):
            chosen = [(label, cells) for label, cells, k in rows if k == kind]
            groups = [chosen] if kind == "rate" else [[one] for one in chosen]
            for group in groups:
                dots = [
                    _dot(words(label), cell, kind, compared, index)
                    for label, cells in group
                    for index, cell in enumerate(cells[1:] if compared else cells)
                    if cell is not None
                    and cell.get("diff" if compared else kind) is not None
                    and not cell.get("not_exercised")
                ]
                if not dots:
                    continue
                caption = (
                    words(title) if kind == "rate" else f"{words(title)}: {words(group[0][0])}"
                )
                axis = axes[f"{kind}_difference" if compared else kind]
                drawn.append(Figure(caption, dots, series, axis, compared))
    return drawn


def _dot(label: str, cell: dict[str, Any], kind: str, compared: bool, series: int) -> Dot:
    scale = 100.0 if kind == "rate" else 1.0
    centre = cell["diff"] if compared else cell[kind]
    low, high = cell.get("low"), cell.get("high")
    return Dot(
        label,
        scale * centre,
        None if low is None else scale * low,
        None if high is None else scale * high,
        series,
        bool(cell.get("significant")),
    )


STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th.section { background: #eee; text-align: left; }
figure { margin: 1em 0; max-width: 48em; }
"""


def _exercise_html(data: dict[str, Any]) -> list[str]:
    """The rules in play as an HTML table (nothing when there is none to show)."""
    shown = exercise_rows(data.get("exercise", []), format_cell)
    if not shown:
        return []
    esc = html.escape
    parts = [f"<h2>{esc(EXERCISE_TITLE)}</h2>", "<table>"]
    heads = ("variant", "value", "deals", "share (95% Wilson)", "status")
    parts.append("<tr>" + "".join(f"<th>{h}</th>" for h in heads) + "</tr>")
    for heading, rows in shown:
        parts.append(f'<tr><th class="section" colspan="5">{esc(heading)}</th></tr>')
        for row in rows:
            parts.append("<tr>" + "".join(f"<td>{esc(cell)}</td>" for cell in row) + "</tr>")
    parts.append("</table>")
    return parts


def render_html(data: dict[str, Any]) -> str:
    """A self-contained HTML report: the comparison table and its figures (inline SVG)."""
    names = [v["name"] for v in data["variants"]]
    esc = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Balance: {esc(' vs '.join(names))}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>Balance: {esc(' vs '.join(names))}</h1>",
        f"<p>Bots: {esc(lineup_label(data['bots']).text)}; consecutive match deals; "
        f"{counted(data['deals_per_variant'], 'deal')} per "
        f"variant asked, seed {data['seed']}, batches of {counted(data['batch'], 'deal')}"
        + ("" if data["complete"] else " — <strong>interrupted: partial results</strong>")
        + ". Rates in %, 95% Wilson intervals in brackets; means with 95% intervals.</p>",
        *(f"<p>{esc(line)}</p>" for line in until_lines(data)),
        "<ul>",
    ]
    for v in data["variants"]:
        options = ", ".join(f"{k}={val}" for k, val in sorted(v["options"].items()))
        parts.append(
            f"<li><b>{esc(v['name'])}</b>: {counted(v['deals'], 'deal')}, "
            f"{counted(v['matches_completed'], 'match')} completed; options "
            f"{esc(options) or 'none'}</li>"
        )
    parts.append("</ul>")
    heads = "".join(f"<th>{esc(n)}</th>" for n in _compared_names(data))
    parts.append(f"<table><tr><th></th>{heads}</tr>")
    for title, rows in against_baseline(data):
        head = esc(title.text)
        parts.append(f'<tr><th class="section" colspan="{len(names) + 1}">{head}</th></tr>')
        for label, cells, kind in rows:
            tds = "".join(
                f"<td>{esc(shown_cell(c, kind, column))}</td>" for column, c in enumerate(cells)
            )
            parts.append(f"<tr><td>{esc(label.text)}</td>{tds}</tr>")
    parts.append("</table>")
    parts.extend(_exercise_html(data))
    notes = [*_difference_note(data), *_notes(data), *speed_lines(data)]
    parts.extend(f"<p>{esc(note)}</p>" for note in notes)
    parts.extend(f"<p><code>{esc(line)}</code></p>" for line in provenance(data))
    parts.append("<h2>Plots</h2>")
    parts.extend(f"<figure>{figure.svg()}</figure>" for figure in figures(data, str))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def publish(
    data: dict[str, Any],
    args: argparse.Namespace,
    text: Callable[[dict[str, Any]], str] = render_text,
    page: Callable[[dict[str, Any]], str] = render_html,
) -> None:
    """A report printed as ``text``, and written as JSON (``--json``) and as the HTML
    ``page`` (``--html``) when asked."""
    print(text(data), end="")
    if args.json:
        written = json.dumps(json_ready(data), ensure_ascii=False, indent=2, allow_nan=False)
        Path(args.json).write_text(written + "\n")
        print(f"statistics written to {args.json}")
    if args.html:
        Path(args.html).write_text(page(data), encoding="utf-8")
        print(f"report written to {args.html}")
