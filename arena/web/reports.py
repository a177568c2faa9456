"""A balance report (the JSON ``arena balance --json`` writes) made ready for the site's
report page: the same comparison table as ``arena balance`` prints and puts in its
HTML, the rules that came into play (:mod:`arena.sim.exercise`), and a chart per section
of rates, drawn as SVG by :mod:`arena.web.plots`; every word in the page's language.
A report of several populations is :mod:`arena.web.report_populations`'s."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from arena.commands.balance_report import (
    AXES,
    Label,
    against_baseline,
    figures,
    format_cell,
    format_difference,
    lineup_label,
    provenance,
)
from arena.errors import ArenaError
from arena.sim.exercise import MIN_USES
from arena.web.i18n import catalog, translate, variant_name
from arena.web.viewer import NotFound

__all__ = [
    "ExerciseOption",
    "ReportSection",
    "ReportView",
    "cell_text",
    "difference_text",
    "exercise_view",
    "label_text",
    "report_view",
    "until_view",
]


@dataclass(frozen=True)
class ReportSection:
    """A section of the comparison: its rows (label, one text per variant)."""

    title: str
    rows: list[tuple[str, list[str]]]


@dataclass(frozen=True)
class ExerciseOption:
    """An option of the rules in play: why it is shown and its use in words, then a row
    per variant (variant, value, deals that used it, their share, status)."""

    heading: str
    rows: list[list[str]]
    statuses: list[str]
    """Each row's status (``measured``, ``too rare``, ``not exercised``, ``off``)."""


@dataclass(frozen=True)
class ReportView:
    """What the report page shows."""

    variants: list[dict[str, Any]]
    headings: list[str]
    """The columns' headings: the baseline, then each variant against it."""
    bots: str
    """Who played, in the page's language."""
    provenance: list[str]
    """The command that plays the run again and the versions that made it."""
    deals_per_variant: object
    seed: object
    complete: bool
    sections: list[ReportSection]
    charts: list[Markup]
    """A figure per question (:func:`arena.commands.balance_report.figures`), as SVG."""
    until: list[str]
    """With ``--until-resolved``: why the run stopped, then each question's answer."""
    speed: str
    """How fast the run played ('' when the report does not say)."""
    exercise: list[ExerciseOption]
    """The rules in play (none when no option differs or is switched on)."""


def label_text(label: Label, lang: str) -> str:
    """A comparison's title or row label in ``lang``: its key's words from the catalog
    (``balance.<key>``), its fields filled (labels among them in ``lang`` too); the
    command line's English text for a key the catalog lacks."""
    key = f"balance.{label.key}"
    if key not in catalog(lang):
        return label.text
    fields = {
        name: label_text(value, lang) if isinstance(value, Label) else value
        for name, value in label.fields.items()
    }
    return translate(lang, key, **fields)


def cell_text(cell: dict[str, Any] | None, kind: str, lang: str) -> str:
    """A comparison's cell as ``arena balance`` writes it, its words in ``lang``."""
    if cell is not None and cell.get("rate" if kind == "rate" else "mean") is None:
        return translate(lang, "reports.no_value")
    if cell is not None and kind != "rate" and cell.get("low") is None:
        return translate(lang, "reports.one_value", mean=f"{cell['mean']:.2f}")
    return format_cell(cell, kind)


def difference_text(cell: dict[str, Any] | None, kind: str, lang: str) -> str:
    """A difference from the baseline as ``arena balance`` writes it, or, when it measures
    no option (none came into play), the options' names in ``lang``."""
    if cell is not None and cell.get("not_exercised"):
        return translate(lang, "reports.not_exercised", options=", ".join(cell["not_exercised"]))
    return format_difference(cell, kind)


def use_text(use: str, lang: str) -> str:
    """The use ``SJ-17/failed`` in ``lang``: what a deal shows when it applied, then its id
    (the id alone for a use the catalog has no words for)."""
    key = f"reports.use.{use}"
    if key not in catalog(lang):
        return use
    return translate(lang, "reports.use_words", words=translate(lang, key), use=use)


def status_text(row: dict[str, Any], lang: str) -> str:
    """A variant's use of an option in ``lang``: its status, and the deals a run would
    need when it is not measured yet."""
    status, needed = row["status"], row["deals_needed"]
    key = f"reports.exercise_{status.replace(' ', '_')}"
    if status == "not exercised" and needed is not None:
        key += "_bound"
    return translate(lang, key, needed=f"{needed:,}" if needed is not None else "", uses=MIN_USES)


def exercise_view(options: list[dict[str, Any]], lang: str) -> list[ExerciseOption]:
    """The rules in play of a report (its ``exercise``) in ``lang``."""
    shown = []
    for option in options:
        why = translate(
            lang, "reports.exercise_differs" if option["differs"] else "reports.exercise_house"
        )
        heading = translate(
            lang,
            "reports.exercise_option",
            option=option["option"],
            why=why,
            use=use_text(option["use"], lang),
        )
        rows = []
        for row in option["variants"]:
            value = f"{option['option']}={row['value']}"
            if row["default"]:
                value = translate(lang, "reports.exercise_default", value=value)
            rows.append(
                [
                    str(row["variant"]),
                    value,
                    translate(lang, "reports.exercise_count", count=row["count"], n=row["n"]),
                    format_cell(row, "rate"),
                    status_text(row, lang),
                ]
            )
        statuses = [str(row["status"]) for row in option["variants"]]
        shown.append(ExerciseOption(heading, rows, statuses))
    return shown


def speed_text(speed: dict[str, Any] | None, lang: str) -> str:
    """How fast the run played, in ``lang``; '' for a report without it."""
    if not speed or not speed.get("deals"):
        return ""
    busy = speed.get("busy")
    return translate(
        lang,
        "reports.speed",
        deals=f"{speed['deals']:,}",
        seconds=f"{speed['seconds']:.1f}",
        rate=f"{speed['deals_per_second']:,.0f}",
        workers=speed["workers"],
        busy="—" if busy is None else f"{busy:.0%}",
    )


def until_view(data: dict[str, Any], lang: str) -> list[str]:
    """``--until-resolved``'s verdicts in ``lang``: why the run stopped, then each question
    (its row's label as the comparison's, its difference, status and the level it was
    tested at); nothing for a run without them."""
    until = data.get("until_resolved")
    if not until:
        return []
    labels = {  # by key and English text: a key alone names several rows (``wins.team``)
        (label.key, label.text): label_text(label, lang)
        for _, rows in against_baseline(data)
        for label, _, _ in rows
    }
    deals = min(v["deals"] for v in data["variants"])
    why = translate(lang, f"reports.until_{until['stopped']}")
    lines = [translate(lang, "reports.until_stopped", deals=deals, why=why)]
    for q in until["questions"]:
        shown = format_difference(q if q["diff"] is not None else None, q["kind"])
        lines.append(
            translate(
                lang,
                "reports.until_question",
                row=labels.get((q["row"], q["row_text"]), q["row_text"]),
                variant=variant_name(lang, str(q["variant"])),
                status=translate(lang, f"reports.status_{q['status'].replace(' ', '_')}"),
                difference=shown.removesuffix(" *"),
                level=f"{q['level']:.3%}",
                look=q["look"],
                rounds=until["rounds"],
            )
        )
    return lines


def report_view(data: dict[str, Any], lang: str, name: str = "") -> ReportView:
    """The page's view of a balance report in ``lang``; a report that is not one (a JSON
    file of another kind, or broken) is :class:`NotFound`, naming what is missing."""
    try:
        variants = list(data["variants"])
        names = [variant_name(lang, str(v["name"])) for v in variants]
        sections = []
        for title, rows in against_baseline(data):
            shown = [
                (
                    label_text(label, lang),
                    [
                        cell_text(c, kind, lang) if column == 0 else difference_text(c, kind, lang)
                        for column, c in enumerate(cells)
                    ],
                )
                for label, cells, kind in rows
            ]
            sections.append(ReportSection(label_text(title, lang), shown))
        axes = {key: translate(lang, f"reports.axis_{key}") for key in AXES}
        charts = [
            figure.svg() for figure in figures(data, lambda label: label_text(label, lang), axes)
        ]
        headings = names[:1]
        if len(names) > 1:
            headings = [
                translate(lang, "reports.baseline", name=names[0]),
                *(translate(lang, "reports.against_baseline", name=name) for name in names[1:]),
            ]
        return ReportView(
            variants=variants,
            headings=headings,
            bots=label_text(lineup_label(data.get("bots", "random")), lang),
            provenance=provenance(
                data, catalog(lang)["reports.again"], catalog(lang)["reports.made_by"]
            ),
            deals_per_variant=data.get("deals_per_variant"),
            seed=data.get("seed"),
            complete=bool(data.get("complete", True)),
            sections=sections,
            charts=charts,
            until=until_view(data, lang),
            speed=speed_text(data.get("speed"), lang),
            exercise=exercise_view(list(data.get("exercise", [])), lang),
        )
    except (KeyError, TypeError, ValueError, IndexError, ArenaError) as err:
        problem = f"not a balance report: {type(err).__name__} {err}"
        raise NotFound(problem, "report", name) from None
