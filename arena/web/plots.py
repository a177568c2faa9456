"""Charts drawn on the server as SVG (no script, no image files): a bot's rating over time,
and, for balance reports, bars and dots with 95% intervals.

Each chart is a ``<svg>`` with a ``viewBox`` (it scales to the width of its box), axes
with ticks at round values, tick labels, axis titles and a title; colours and lines are
presentation attributes (the site's Content-Security-Policy allows no inline styles).
A rating history draws a bounded number of points however long it is; its dots carry a
``<title>`` (shown on hover) and link to their match.
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
    "Dot",
    "interval_dots",
    "nice_ticks",
    "rating_history",
    "thinned",
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
MAX_POINTS: Final = 200
"""Vertices of a history's line at most, however long the history (a longer one is
thinned by :func:`thinned`, its first, last, highest and lowest kept)."""
MAX_DOTS: Final = 60
"""A history of this many points or fewer draws each as a dot (a link to its match, its
value in its tooltip): about as many as the chart's width holds apart. A longer one dots
its first, last, highest and lowest only."""
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


def thinned(values: Sequence[float], limit: int) -> list[int]:
    """The indices of at most ``limit`` (at least 4) of ``values`` that draw the series:
    all of them if they are that few; else the first, the last, and between them, cut
    into equal runs, each run's lowest and highest in order, so that every peak and dip
    of the line stays where it is."""
    if limit < 4:
        raise ValueError(f"a thinned series keeps at least 4 points, not {limit}")
    count = len(values)
    if count <= limit:
        return list(range(count))
    runs = (limit - 2) // 2
    inner = count - 2
    kept = [0]
    for run in range(runs):
        start, end = 1 + run * inner // runs, 1 + (run + 1) * inner // runs
        span = range(start, end)
        low = min(span, key=values.__getitem__)
        high = max(span, key=values.__getitem__)
        kept.extend(sorted({low, high}))
    kept.append(count - 1)
    return kept


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
    shown = thinned(values, MAX_POINTS)
    line = " ".join(f"{x_of(xs[i]):.1f},{y_of(values[i]):.1f}" for i in shown)
    parts.append(f'<polyline points="{line}" fill="none" stroke="{COLOURS[0]}" stroke-width="2"/>')
    if len(timed) <= MAX_DOTS:
        dotted = shown
    else:
        ends = (0, len(values) - 1)
        peaks = (values.index(max(values)), values.index(min(values)))
        dotted = sorted({*ends, *peaks})
    parts.append(f'<g fill="{COLOURS[0]}">')
    for i in dotted:
        t, v, match = timed[i]
        when = datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%S")
        tip = f"{tick_label(v)} · {when} · {match}"
        href = "/matches/" + quote(match, safe="")
        parts.append(
            f'<a href="{escape(href)}"><circle cx="{x_of(xs[i]):.1f}" '
            f'cy="{y_of(v):.1f}" r="4"><title>{escape(tip)}</title></circle></a>'
        )
    parts.append("</g>")
    return _frame(parts, title, title, "rating-history")


def _axes(left: float, right: float, top: float, bottom: float) -> list[str]:
    return [
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#444"/>',
        f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#444"/>',
    ]


@dataclass(frozen=True)
class Dot:
    """A dot plot's dot: the label of its line, the value, its 95% interval (None:
    none), its series (its colour, in the legend) and whether it is marked (drawn
    filled: e.g. a significant difference)."""

    label: str
    value: float
    low: float | None
    high: float | None
    series: int = 0
    marked: bool = False


def interval_dots(
    title: str, dots: Sequence[Dot], axis: str, series: Sequence[str] = (), zero: bool = False
) -> Markup:
    """Dots with their 95% intervals as whiskers, a line per label (the dots of its
    series one under the other, coloured as in the legend), on a scale that fits them
    (and 0 with ``zero``, drawn as a line: where no difference lies); marked dots are
    filled, the others hollow. No bar starts at zero: a mean of 110 and one of 111 look
    as close as they are."""
    slot, label_width = 16, 250
    labels = list(dict.fromkeys(d.label for d in dots))
    lines = max(1, len(series))
    group = slot * lines + 8
    left, right = label_width, WIDTH - RIGHT
    top = 30 + 16 * len(series)  # the legend: a line per series
    bottom = top + group * len(labels)
    height = bottom + 44
    values = [v for d in dots for v in (d.value, d.low, d.high) if v is not None]
    low, high = min(values + ([0.0] if zero else [])), max(values + ([0.0] if zero else []))
    ticks = nice_ticks(low, high)
    digits = tick_digits(ticks)

    def x_of(value: float) -> float:
        return _scale(value, ticks[0], ticks[-1], left, right)

    parts = [_text(WIDTH / 2, 16, title, extra=' font-weight="bold"')]
    for index, name in enumerate(series):
        key_y = 26 + 16 * index
        colour = COLOURS[index % len(COLOURS)]
        parts.append(f'<circle cx="{left + 5}" cy="{key_y}" r="5" fill="{colour}"/>')
        parts.append(_text(left + 14, key_y + 4, name, anchor="start"))
    for tick in ticks:
        x = x_of(tick)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" stroke="#e3e3e3"/>')
        parts.append(_text(x, bottom + 16, tick_label(tick, digits)))
    if zero:
        x = x_of(0.0)
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" stroke="#888"/>')
    for row, label in enumerate(labels):
        y0 = top + row * group + 4
        short = label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"
        parts.append(_text(left - 6, y0 + group / 2, short, anchor="end"))
        for dot in (d for d in dots if d.label == label):
            y = y0 + dot.series * slot + slot / 2
            colour = COLOURS[dot.series % len(COLOURS)]
            if dot.low is not None and dot.high is not None:
                parts.append(
                    f'<line x1="{x_of(dot.low):.1f}" y1="{y:.1f}" x2="{x_of(dot.high):.1f}" '
                    f'y2="{y:.1f}" stroke="{colour}" stroke-width="2"/>'
                )
            fill = colour if dot.marked else "#fff"
            name = series[dot.series] if dot.series < len(series) else label
            shown = tick_label(dot.value, max(digits, 1))
            parts.append(
                f'<circle cx="{x_of(dot.value):.1f}" cy="{y:.1f}" r="4.5" fill="{fill}" '
                f'stroke="{colour}" stroke-width="2"><title>{escape(name)}: {shown}</title>'
                "</circle>"
            )
    parts.extend(_axes(left, right, top, bottom))
    parts.append(_text(WIDTH / 2, bottom + 36, axis))
    body = "".join(parts)
    return Markup(
        f'<svg class="interval-dots" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{escape(title)}</title>{body}</svg>"
    )
