"""Charts drawn on the server as SVG (no script, no image files): a bot's rating over time,
and bars with 95% intervals for balance reports.

Each chart is a ``<svg>`` with a ``viewBox`` (it scales to the width of its box), axes
with ticks at round values, tick labels, axis titles and a title; colours and lines are
presentation attributes (the site's Content-Security-Policy allows no inline styles).
Points carry a ``<title>`` (shown on hover) and link to their match.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final
from urllib.parse import quote

from markupsafe import Markup, escape

from arena.web.i18n import translate

__all__ = [
    "interval_bars",
    "nice_ticks",
    "rating_history",
    "tick_digits",
    "tick_label",
    "time_ticks",
]

WIDTH: Final = 640
HEIGHT: Final = 260
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 28, 48
TIME_AXIS_SECONDS: Final = 3600
"""A history spanning this long or more is drawn over time (else by rated match)."""
LABEL_CHARS: Final = 34
"""A bar chart's category labels are cut to this many characters (the table has them
whole)."""
MAX_POINTS: Final = 300
"""Points drawn as dots (and links); beyond that the line alone."""
MAX_LINE: Final = 1000
"""Vertices of the line at most (a longer history is thinned evenly)."""
COLOURS: Final = ("#1f6fb2", "#d2691e", "#2e8b57", "#8e44ad", "#c0392b", "#7f8c8d")
TIME_STEPS: Final = (
    1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200,
    86400, 2 * 86400, 7 * 86400, 14 * 86400, 30 * 86400, 91 * 86400, 182 * 86400, 365 * 86400,
)  # fmt: skip
"""Seconds between time ticks, from which the one giving about five ticks is taken."""


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round values covering ``low``…``high`` (1, 2, 2.5 or 5 × a power of ten apart)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return [0.0]
    if high - low <= 1e-6 * max(1.0, abs(low), abs(high)):  # flat: a band around it
        low, high = low - 1, high + 1
    raw = (high - low) / max(count, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    first = math.floor(low / step) * step
    steps = max(1, math.ceil((high - first) / step - 1e-9))
    return [first + i * step for i in range(steps + 1)]


def tick_digits(ticks: Sequence[float]) -> int:
    """Decimals that tell ticks apart (2.5 apart needs one more than 2)."""
    if len(ticks) < 2 or ticks[1] == ticks[0]:
        return 0
    step = abs(ticks[1] - ticks[0])
    digits = max(0, -math.floor(math.log10(step) + 1e-9))
    return digits + (1 if not math.isclose(step * 10**digits % 1, 0, abs_tol=1e-6) else 0)


def time_ticks(low: float, high: float, count: int = 5) -> tuple[list[float], str]:
    """Tick times (seconds since the epoch) and their ``strftime`` format."""
    span = max(high - low, 1.0)
    step = next((s for s in TIME_STEPS if span / s <= count), TIME_STEPS[-1])
    first = float(math.ceil(low / step) * step)
    ticks = [first + i * step for i in range(int((high - first) // step) + 1)]
    if step < 60:
        fmt = "%H:%M:%S"
    elif step < 86400:
        fmt = "%H:%M"
    else:
        fmt = "%Y-%m-%d"
    return ticks, fmt


def tick_label(value: float, digits: int = 2) -> str:
    """A number as a chart shows it: ``digits`` decimals at most, a true minus sign."""
    text = f"{value:,.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "−0") else text.replace("-", "−")


def _scale(value: float, low: float, high: float, start: float, end: float) -> float:
    if high == low:
        return (start + end) / 2
    return start + (value - low) / (high - low) * (end - start)


def _parse_time(text: str) -> float | None:
    try:
        moment = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _frame(parts: list[str], title: str, label: str, css: str) -> Markup:
    body = "".join(parts)
    return Markup(
        f'<svg class="{css}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="{escape(label)}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(title)}</title>{body}</svg>"
    )


def _text(x: float, y: float, text: str, anchor: str = "middle", extra: str = "") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="13" '
        f'fill="#444"{extra}>{escape(text)}</text>'
    )


@dataclass(frozen=True)
class _XAxis:
    """Where the points of a history go across: their x values, the axis's range, ticks
    (value, label) and title."""

    values: list[float]
    low: float
    high: float
    ticks: list[tuple[float, str]]
    title: str


def _time_axis(times: list[float], lang: str) -> _XAxis:
    low, high = min(times), max(times)
    ticks, fmt = time_ticks(low, high)
    if fmt != "%Y-%m-%d" and _day(low) != _day(high):  # hours across days: say the day
        fmt = "%m-%d %H:%M"
    labelled = [(tick, datetime.fromtimestamp(tick, UTC).strftime(fmt)) for tick in ticks]
    return _XAxis(times, low, high, labelled, translate(lang, "plot.time_axis", day=_day(low)))


def _day(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%d")


def _count_axis(count: int, lang: str) -> _XAxis:
    ticks = [
        tick for tick in nice_ticks(1, max(count, 2)) if 1 <= tick <= count and tick == int(tick)
    ]
    labelled = [(float(tick), f"{int(tick)}") for tick in ticks or [1.0]]
    values = [float(n) for n in range(1, count + 1)]
    return _XAxis(values, 0.5, count + 0.5, labelled, translate(lang, "plot.count_axis"))


def rating_history(points: Sequence[Sequence[Any]], variant: str, system: str, lang: str) -> Markup:
    """A line chart of ``(time ISO, value, match id)`` points: a bot's rating in one
    system of one variant after each of its rated matches.

    Across goes the time when the history spans at least :data:`TIME_AXIS_SECONDS`;
    a shorter one (a tournament played in a minute would be one vertical line) goes by
    rated match, first to last. Each point's time and match are in its tooltip."""
    timed = [
        (t, float(v), str(m))
        for t, v, m in ((_parse_time(p[0]), p[1], p[2]) for p in points)
        if t is not None and v is not None and math.isfinite(float(v))
    ]
    system_name = (
        translate(lang, f"rating.{system}") if system in ("elo", "skill", "room") else system
    )
    title = translate(lang, "plot.history_title", system=system_name, variant=variant)
    parts: list[str] = [_text(WIDTH / 2, 16, title, extra=' font-weight="bold"')]
    if not timed:
        parts.append(_text(WIDTH / 2, HEIGHT / 2, translate(lang, "plot.no_data")))
        return _frame(parts, title, title, "rating-history")
    times = [t for t, _, _ in timed]
    values = [v for _, v, _ in timed]
    if max(times) - min(times) >= TIME_AXIS_SECONDS:
        axis = _time_axis(times, lang)
    else:
        axis = _count_axis(len(timed), lang)
    y_ticks = nice_ticks(min(values), max(values))
    y_low, y_high = y_ticks[0], y_ticks[-1]
    digits = tick_digits(y_ticks)
    left, right, top, bottom = LEFT, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM

    def x_of(x: float) -> float:
        return _scale(x, axis.low, axis.high, left + 4, right - 4)

    def y_of(v: float) -> float:
        return _scale(v, y_low, y_high, bottom, top)

    parts.extend(_axes(left, right, top, bottom))
    for tick in y_ticks:
        y = y_of(tick)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="#e3e3e3"/>')
        parts.append(_text(left - 6, y + 4, tick_label(tick, digits), anchor="end"))
    for tick, label in axis.ticks:
        x = x_of(tick)
        parts.append(
            f'<line x1="{x:.1f}" y1="{bottom}" x2="{x:.1f}" y2="{bottom + 5}" stroke="#444"/>'
        )
        parts.append(_text(x, bottom + 19, label))
    parts.append(_text((left + right) / 2, HEIGHT - 8, axis.title))
    middle = (top + bottom) / 2
    parts.append(_text(16, middle, system_name, extra=f' transform="rotate(-90 16 {middle:.1f})"'))
    xs = axis.values
    stride = max(1, math.ceil(len(timed) / MAX_LINE))
    shown = [*range(0, len(timed), stride), len(timed) - 1]
    line = " ".join(f"{x_of(xs[i]):.1f},{y_of(values[i]):.1f}" for i in shown)
    parts.append(f'<polyline points="{line}" fill="none" stroke="{COLOURS[0]}" stroke-width="2"/>')
    if len(timed) <= MAX_POINTS:
        for x, (t, v, match) in zip(xs, timed, strict=True):
            when = datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%S")
            tip = f"{tick_label(v)} · {when} · {match}"
            href = "/matches/" + quote(match, safe="")
            parts.append(
                f'<a href="{escape(href)}"><circle cx="{x_of(x):.1f}" cy="{y_of(v):.1f}" '
                f'r="4" fill="{COLOURS[0]}"><title>{escape(tip)}</title></circle></a>'
            )
    return _frame(parts, title, title, "rating-history")


def _axes(left: float, right: float, top: float, bottom: float) -> list[str]:
    return [
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#444"/>',
        f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#444"/>',
    ]


BarRow = tuple[str, Sequence[dict[str, Any] | None]]
"""A category of a bar chart: its label and one cell per series (``rate``, ``low``,
``high``, fractions), None where the series has none."""


def interval_bars(title: str, series: Sequence[str], rows: Sequence[BarRow]) -> Markup:
    """Horizontal bars of rates (in %) with their 95% intervals as whiskers: one group
    per row, one bar per series, a legend of the series."""
    slot = 14
    group = slot * len(series) + 10
    label_width = 250
    left, right, top = label_width, WIDTH - RIGHT, 40
    bottom = top + group * len(rows)
    height = bottom + 44
    cells = [c for _, cs in rows for c in cs if c is not None and c.get("rate") is not None]
    high = max([100 * float(c.get("high") or c["rate"]) for c in cells] + [1.0])
    ticks = nice_ticks(0.0, high)
    x_high = ticks[-1]

    def x_of(value: float) -> float:
        return _scale(value, 0.0, x_high, left, right)

    parts = [_text(WIDTH / 2, 16, title, extra=' font-weight="bold"')]
    for index, name in enumerate(series):
        key_x = left + index * 120
        colour = COLOURS[index % len(COLOURS)]
        parts.append(f'<rect x="{key_x}" y="24" width="10" height="10" fill="{colour}"/>')
        parts.append(_text(key_x + 14, 33, name, anchor="start"))
    for tick in ticks:
        x = x_of(tick)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" stroke="#e3e3e3"/>')
        parts.append(_text(x, bottom + 16, f"{tick_label(tick, tick_digits(ticks))}%"))
    for row_index, (label, row_cells) in enumerate(rows):
        y0 = top + row_index * group + 5
        short = label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"
        parts.append(_text(left - 6, y0 + group / 2, short, anchor="end"))
        for index, cell in enumerate(row_cells):
            if cell is None or cell.get("rate") is None:
                continue
            y = y0 + index * slot
            colour = COLOURS[index % len(COLOURS)]
            rate = 100 * float(cell["rate"])
            parts.append(
                f'<rect x="{left}" y="{y:.1f}" width="{x_of(rate) - left:.1f}" height="{slot - 3}" '
                f'fill="{colour}"><title>{escape(series[index])}: {rate:.1f}%</title></rect>'
            )
            if cell.get("low") is not None and cell.get("high") is not None:
                lo, hi = x_of(100 * float(cell["low"])), x_of(100 * float(cell["high"]))
                mid = y + (slot - 3) / 2
                parts.append(
                    f'<line x1="{lo:.1f}" y1="{mid:.1f}" x2="{hi:.1f}" y2="{mid:.1f}" '
                    'stroke="#222"/>'
                )
    parts.extend(_axes(left, right, top, bottom))
    body = "".join(parts)
    return Markup(
        f'<svg class="interval-bars" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(title)}</title>{body}</svg>"
    )
