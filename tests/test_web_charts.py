"""A bot's rating history is drawn with a bounded number of points however many rated
matches it has: the line keeps the first and last ratings and every peak and dip, the
dots (links to their matches) are few, and the page's bytes stay bounded, while the
numbers shown beside the charts (the current rating, the count of matches) stay exact.

What would break it: a chart drawing one vertex or dot per rated match (a bot page
growing with the bot's history), a line thinned evenly (a one-match peak or dip falls
between the kept points), or a thinning that drops the series' first or last point."""

from __future__ import annotations

import dataclasses
import html
import itertools
import random
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Final

import httpx
import pytest
from browser import WebThread
from hypothesis import given
from hypothesis import strategies as st

from arena.sim.jobs import MatchJob
from arena.sim.worker import play_job
from arena.store import RatingUpdate, Store
from arena.web import plots

RATED: Final = 5_000
"""Rated matches of the bot whose page is read: far more than a chart draws."""
BOT: Final = "climber"
PEAK: Final = 2_343
"""The one match after which the bot's rating is highest (then falls back at once)."""
DIP: Final = 3_777
"""The one match after which it is lowest."""
PAGE_BYTES: Final = 40_000
"""The bot page's bytes at most, whatever the length of its history."""
CHART_BYTES: Final = 12_000
"""A rating chart's bytes at most, whatever the length of its history."""


def ratings() -> list[float]:
    """A random walk of Elo values (two decimals: as a tooltip prints them) with one
    match's peak and one match's dip: each a single point, not on any even stride."""
    rng = random.Random(7)
    values, value = [], 1500.0
    for _ in range(RATED):
        value += rng.uniform(-8, 8)
        values.append(round(value, 2))
    values[PEAK] = round(max(values) + 300, 2)
    values[DIP] = round(min(values) - 300, 2)
    return values


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The web face of a store where :data:`BOT` has :data:`RATED` rated Guandan matches
    (copies of one real match), its Elo after each given by :func:`ratings`."""
    played = play_job(
        MatchJob(
            id="template",
            variant="guandan",
            options={},
            seed=11,
            players=("random", "random", "random", "random"),
            max_deals=1,
        )
    ).stored(None)
    seating = (BOT, "rival-1", "partner", "rival-2")
    path = tmp_path_factory.mktemp("charts") / "charts.sqlite"
    with Store.open(path) as store:
        for name in seating:
            store.add_bot(name, "test")
        batch = [
            (
                dataclasses.replace(
                    played,
                    id=f"m-{number:05d}",
                    seating=seating,
                    record={**played.record, "players": list(seating)},
                ),
                [RatingUpdate(BOT, "guandan", "elo", value)],
            )
            for number, value in enumerate(ratings())
        ]
        for start in range(0, RATED, 1000):
            store.add_matches(batch[start : start + 1000])
    with Store.open(path, read_only=True) as store:
        served = WebThread(store)
        try:
            yield served.url
        finally:
            served.close()


def number(text: str) -> float:
    """A number as a chart or a table prints it (thousands commas, a true minus)."""
    return float(html.unescape(text).replace(",", "").replace("−", "-"))


def decoded_line(chart: str) -> list[tuple[float, float]]:
    """The line's vertices as (x, rating): y read back through the rating axis's ticks."""
    ticks = [
        (float(y), number(label))
        for y, label in re.findall(
            r'<line x1="\d+" y1="([\d.]+)" x2="\d+" y2="\1" stroke="#e3e3e3"/>'
            r'<text [^>]*text-anchor="end"[^>]*>([^<]+)</text>',
            chart,
        )
    ]
    assert len(ticks) >= 2, chart[:600]
    (y0, v0), (y1, v1) = ticks[0], ticks[-1]
    found = re.search(r'<polyline points="([^"]+)"', chart)
    assert found, chart[:600]
    vertices = [tuple(map(float, pair.split(","))) for pair in found.group(1).split()]
    return [(x, v0 + (y - y0) * (v1 - v0) / (y1 - y0)) for x, y in vertices]


def test_a_long_history_draws_a_bounded_line_with_its_ends_and_extremes(site: str) -> None:
    values = ratings()
    with httpx.Client(base_url=site, timeout=60) as http:
        response = http.get(f"/bots/{BOT}?lang=en")
    assert response.status_code == 200
    page = response.text
    charts = re.findall(
        r'<figure class="chart" data-variant="guandan" data-system="elo">(.*?)</figure>',
        page,
        re.S,
    )
    assert len(charts) == 1
    chart = charts[0]
    line = decoded_line(chart)
    assert len(line) <= plots.MAX_POINTS < RATED
    span = max(values) - min(values)
    tolerance = span / 1000  # a tenth of a pixel's rounding, many times over
    rated = [value for _, value in line]
    assert rated[0] == pytest.approx(values[0], abs=tolerance)
    assert rated[-1] == pytest.approx(values[-1], abs=tolerance)
    assert max(rated) == pytest.approx(values[PEAK], abs=tolerance), "the peak is drawn"
    assert min(rated) == pytest.approx(values[DIP], abs=tolerance), "the dip is drawn"
    assert [x for x, _ in line] == sorted(x for x, _ in line)
    tips = re.findall(r'<a href="/matches/([^"]+)"><circle[^>]*><title>([^<]+)</title>', chart)
    assert len(tips) <= plots.MAX_DOTS
    shown = {match: number(tip.split(" · ")[0]) for match, tip in tips}
    for index in (0, PEAK, DIP, RATED - 1):  # exact values, each linked to its match
        assert shown[f"m-{index:05d}"] == values[index]
    row = re.search(r'<tr data-variant="guandan">(.*?)</tr>', page, re.S)
    assert row, "the ratings table"
    cells = re.findall(r'<td class="num[^"]*">([^<]*)', row.group(1))
    assert number(cells[1]) == pytest.approx(values[-1], abs=0.5), "the current Elo"
    assert number(cells[4]) == RATED, "the count of rated matches"
    assert len(response.content) <= PAGE_BYTES


@pytest.mark.parametrize("length", [1, 2, 59, 60, 61, 100, 199, 200, 201, 1_000, RATED])
def test_a_rating_chart_holds_bounded_bytes_whatever_its_length(length: int) -> None:
    values = ratings()[:length]
    start = datetime(2024, 5, 1, tzinfo=UTC)
    points = [
        ((start + timedelta(minutes=i)).isoformat(), v, f"m-{i:05d}") for i, v in enumerate(values)
    ]
    chart = str(plots.rating_history(points, "guandan", "elo", "en"))
    assert len(chart.encode()) <= CHART_BYTES
    dots = chart.count("<circle")
    assert dots == (length if length <= plots.MAX_DOTS else len({0, length - 1, *extremes(values)}))
    vertices = re.search(r'<polyline points="([^"]+)"', chart)
    assert vertices and len(vertices.group(1).split()) == min(length, plots.MAX_POINTS)


def extremes(values: list[float]) -> tuple[int, int]:
    return values.index(max(values)), values.index(min(values))


@given(
    values=st.lists(st.floats(-1e6, 1e6, allow_nan=False), max_size=400),
    limit=st.integers(4, 80),
)
def test_a_thinned_series_keeps_its_ends_and_extremes_within_the_limit(
    values: list[float], limit: int
) -> None:
    kept = plots.thinned(values, limit)
    assert len(kept) <= limit
    assert kept == sorted(set(kept)) and all(0 <= i < len(values) for i in kept)
    if len(values) <= limit:
        assert kept == list(range(len(values)))
        return
    assert kept[0] == 0 and kept[-1] == len(values) - 1
    drawn = [values[i] for i in kept]
    assert max(drawn) == max(values) and min(drawn) == min(values)
    gaps = [b - a for a, b in itertools.pairwise(kept)]
    assert max(gaps) <= 2 * (len(values) / ((limit - 2) // 2) + 1), "no stretch left out"


def test_a_thinned_series_keeps_at_least_four_points() -> None:
    with pytest.raises(ValueError, match="at least 4 points, not 3"):
        plots.thinned([1.0, 2.0, 3.0, 4.0, 5.0], 3)
