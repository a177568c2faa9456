"""A balance report (the JSON ``arena balance --json`` writes) made ready for the site's
report page: the same comparison table as ``arena balance`` prints and puts in its
HTML, and a chart per section of rates, drawn as SVG by :mod:`arena.web.plots`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from arena.commands.balance import comparison, format_cell
from arena.errors import ArenaError
from arena.web import plots
from arena.web.viewer import NotFound

__all__ = ["ReportSection", "ReportView", "report_view"]


@dataclass(frozen=True)
class ReportSection:
    """A section of the comparison: its rows (label, one text per variant) and a chart
    of its rates."""

    title: str
    rows: list[tuple[str, list[str]]]
    chart: Markup | None


@dataclass(frozen=True)
class ReportView:
    """What the report page shows."""

    variants: list[dict[str, Any]]
    deals_per_variant: object
    seed: object
    complete: bool
    sections: list[ReportSection]


def report_view(data: dict[str, Any]) -> ReportView:
    """The page's view of a balance report; a report that is not one (a JSON file of
    another kind, or broken) is :class:`NotFound`, naming what is missing."""
    try:
        variants = list(data["variants"])
        names = [str(v["name"]) for v in variants]
        sections = []
        for title, rows in comparison(data):
            shown = [(label, [format_cell(c, kind) for c in cells]) for label, cells, kind in rows]
            rates = [(label, cells) for label, cells, kind in rows if kind == "rate"]
            chart = plots.interval_bars(title, names, rates) if rates else None
            sections.append(ReportSection(title, shown, chart))
        return ReportView(
            variants=variants,
            deals_per_variant=data.get("deals_per_variant"),
            seed=data.get("seed"),
            complete=bool(data.get("complete", True)),
            sections=sections,
        )
    except (KeyError, TypeError, ValueError, IndexError, ArenaError) as err:
        raise NotFound(f"not a balance report: {type(err).__name__} {err}") from None
