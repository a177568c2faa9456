"""A balance report of several populations (``arena balance --bots A --bots B …
--json``) made ready for the site: the verdicts' table (each difference from the
baseline, a column per population, then whether the effect holds in every population,
depends on the style, shows in none or was not exercised: :mod:`arena.sim.populations`)
and each population's own report (:func:`arena.web.reports.report_view`), every word in
the page's language."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from arena.commands.balance_populations import style_figures
from arena.commands.balance_report import AXES, NO_VALUE, against_baseline, lineup_label
from arena.errors import ArenaError
from arena.web.i18n import translate, variant_name
from arena.web.reports import ReportView, difference_text, label_text, report_view
from arena.web.viewer import NotFound

__all__ = [
    "PopulationsView",
    "VerdictGroup",
    "VerdictRow",
    "is_populations",
    "populations_view",
    "verdict_text",
]


@dataclass(frozen=True)
class VerdictRow:
    """A difference: its label, a cell per population, its verdict."""

    label: str
    cells: list[str]
    verdict: str
    key: str
    """The verdict's key (``holds``, ``depends``, ``none``, ``not_exercised``)."""


@dataclass(frozen=True)
class VerdictGroup:
    """A variant against the baseline: where it was not exercised, then its sections."""

    title: str
    unused: list[str]
    sections: list[tuple[str, list[VerdictRow]]]


@dataclass(frozen=True)
class PopulationsView:
    """What the page of several populations shows."""

    names: list[str]
    complete: bool
    intro: str
    groups: list[VerdictGroup]
    differs: bool
    """Whether some row's populations' effects differ (the note says what that means)."""
    charts: list[Markup]
    """A figure per variant and section: each row's difference in each population."""
    command: str
    reports: list[tuple[str, ReportView]]
    """Each population's heading and report."""


def is_populations(data: dict[str, Any]) -> bool:
    """Whether ``data`` is a report of several populations."""
    return isinstance(data, dict) and "populations" in data and "population_names" in data


def verdict_text(row: dict[str, Any], lang: str) -> str:
    """A row's verdict in ``lang``: ``holds`` says in how many populations when some did
    not bring the options into play; the populations where they did not are named, and
    whether the populations' effects differ."""
    cells = row["populations"]
    exercised = sum(1 for cell in cells if cell["exercised"])
    key = row["verdict"]
    if key == "holds" and exercised < len(cells):
        text = translate(lang, "reports.verdict_holds_where", exercised=exercised, count=len(cells))
    else:
        text = translate(lang, f"reports.verdict_{key}")
    unused = [cell["population"] for cell in cells if not cell["exercised"]]
    if unused and exercised:
        text = translate(
            lang, "reports.verdict_unused", verdict=text, populations=", ".join(unused)
        )
    if row.get("differs"):
        text = translate(lang, "reports.verdict_differs", verdict=text)
    return text


def _cell(cell: dict[str, Any], kind: str, lang: str) -> str:
    if not cell["exercised"]:
        return translate(lang, "reports.population_not_exercised")
    if cell["diff"] is None:
        return NO_VALUE
    return difference_text(cell, kind, lang)


def _labels(reports: list[dict[str, Any]], lang: str) -> dict[tuple[str, str], str]:
    """Every section title and row label of the populations' reports in ``lang``, by its
    key and English text (a key alone names several rows: ``wins.team`` for each team)."""
    found: dict[tuple[str, str], str] = {}
    for data in reports:
        for title, rows in against_baseline(data):
            found.setdefault((title.key, title.text), label_text(title, lang))
            for label, _, _ in rows:
                found.setdefault((label.key, label.text), label_text(label, lang))
    return found


def _groups(
    data: dict[str, Any], labels: dict[tuple[str, str], str], lang: str
) -> list[VerdictGroup]:
    groups: list[VerdictGroup] = []
    for row in data["style"]:
        head = f"{variant_name(lang, row['variant'])} − {variant_name(lang, row['baseline'])}"
        if not groups or groups[-1].title != head:
            unused = [
                translate(
                    lang,
                    "reports.population_unused",
                    population=cell["population"],
                    options=", ".join(cell["not_exercised"]),
                )
                for cell in row["populations"]
                if not cell["exercised"]
            ]
            groups.append(VerdictGroup(head, unused, []))
        sections = groups[-1].sections
        section = labels.get((row["section"], row["section_text"]), row["section_text"])
        if not sections or sections[-1][0] != section:
            sections.append((section, []))
        sections[-1][1].append(
            VerdictRow(
                labels.get((row["row"], row["row_text"]), row["row_text"]),
                [_cell(cell, row["kind"], lang) for cell in row["populations"]],
                verdict_text(row, lang),
                str(row["verdict"]),
            )
        )
    return groups


def populations_view(data: dict[str, Any], lang: str, name: str = "") -> PopulationsView:
    """The page's view of a report of several populations in ``lang``; a broken one is
    :class:`NotFound`, naming what is wrong."""
    try:
        names = [str(n) for n in data["population_names"]]
        test = data["style_test"]
        labels = _labels(list(data["populations"]), lang)
        axes = {key: translate(lang, f"reports.axis_{key}") for key in AXES}
        figures = style_figures(data, lambda key, text: labels.get((key, text), text), axes)
        reports = [
            (
                translate(
                    lang,
                    "reports.population_heading",
                    index=index,
                    bots=label_text(lineup_label(report.get("bots", "random")), lang),
                ),
                report_view(report, lang, name),
            )
            for index, report in enumerate(data["populations"], start=1)
        ]
        return PopulationsView(
            names=names,
            complete=bool(data.get("complete", True)),
            intro=translate(
                lang,
                "reports.populations_intro",
                error=f"{test['family_error']:.0%}",
                count=test["differences"],
            ),
            groups=_groups(data, labels, lang),
            differs=any(row.get("differs") for row in data["style"]),
            charts=[figure.svg() for figure in figures],
            command=translate(lang, "reports.again", command=data["command"]),
            reports=reports,
        )
    except (KeyError, TypeError, ValueError, IndexError, ArenaError) as err:
        problem = f"not a balance report of populations: {type(err).__name__} {err}"
        raise NotFound(problem, "report", name) from None
