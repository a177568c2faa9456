"""The web face's pages over a store of real played matches (tests/browser.py's
``build_played_store``) and a real balance report, through Starlette's test client:
served for real on 127.0.0.1 (tests/browser.py's ``WebThread``) and asked with httpx:
every page and its content, sorting, filters, paging, both languages, error pages for
unknown ids and bad parameters (never a traceback), versioned static files, security
headers, request metrics and log lines; any text in any query parameter is a 200, 400
or 404 page, never a 500 (hypothesis)."""

from __future__ import annotations

import io
import itertools
import json
import math
import re
import shutil
import sqlite3
import threading
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from browser import (
    TOURNAMENT,
    LoopThread,
    Played,
    WebThread,
    build_played_store,
    serving_live,
    wait_until,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from stores import on_sqlite_only

from arena import metrics
from arena.cli import main as arena_main
from arena.commands.balance_report import Label, comparison, render_text
from arena.log import configure
from arena.store import Store
from arena.web import plots
from arena.web.app import create_app
from arena.web.assets import LONG_CACHE, NO_CACHE, StaticAssets
from arena.web.i18n import LANGUAGES, catalog
from arena.web.reports import cell_text
from arena.web.serving import WebServer
from arena.web.viewer import Viewer

TRACEBACK_SIGNS = ("Traceback", 'File "', "Error:", "site-packages", "arena/web/")
"""Text that would show an internal error's details to a reader."""


# -- fixtures ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def played(module_store_target: str, tmp_path_factory: pytest.TempPathFactory) -> Played:
    """The played store: on SQLite, then on PostgreSQL (the tests that read nothing the
    database decides are ``@on_sqlite_only``)."""
    return build_played_store(module_store_target, tmp_path_factory.mktemp("pages"))


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a real balance report of three games, a JSON file that is no
    report and a file that is no JSON."""
    folder = tmp_path_factory.mktemp("reports")
    runs = str(folder.parent / "runs.sqlite")
    status = arena_main(
        ["balance", "--variant", "guandan", "--variant", "shengji-2", "--variant", "sanfu",
         "--deals", "30", "--local", "--json", str(folder / "mixed.json"), "--db", runs]
    )  # fmt: skip
    assert status == 0
    status = arena_main(
        ["balance", "--variant", "guandan", "--variant", "guandan", "--option", "a_fail_limit=2",
         "--deals", "6", "--batch", "3", "--bots", "random", "--until-resolved",
         "--ask", "means.length", "--margin", "1000", "--local",
         "--json", str(folder / "until.json"), "--db", runs]
    )  # fmt: skip
    assert status == 0
    (folder / "other.json").write_text('{"x": 1}')
    (folder / "broken.json").write_text("garbage")
    return folder


@pytest.fixture(scope="module")
def store(played: Played) -> Iterator[Store]:
    with Store.open(played.path, read_only=True) as opened:
        yield opened


class Client:
    """Requests to a served site, each on its own (no cookies kept between them)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return httpx.get(self.url + path, follow_redirects=False, timeout=60, **kwargs)

    def stream(self, path: str) -> Any:
        return httpx.stream("GET", self.url + path, timeout=60)


@pytest.fixture(scope="module")
def client(store: Store, reports: Path) -> Iterator[Client]:
    site = WebThread(store, reports)
    try:
        yield Client(site.url)
    finally:
        site.close()


def get(client: Client, url: str, **kwargs: Any) -> httpx.Response:
    response = client.get(url, **kwargs)
    assert response.status_code < 500, f"{url}: {response.status_code}\n{response.text[:2000]}"
    return response


class Tags(HTMLParser):
    """Every start tag of a page with its attributes, and its text."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def find(self, tag: str, **attrs: str) -> list[dict[str, str]]:
        return [
            found
            for name, found in self.tags
            if name == tag and all(found.get(k.rstrip("_")) == v for k, v in attrs.items())
        ]

    def having(self, tag: str, attr: str) -> list[dict[str, str]]:
        return [found for name, found in self.tags if name == tag and attr in found]


def rows_of(html: str, attr: str = "data-bot") -> list[str]:
    return [tag[attr] for tag in Tags(html).having("tr", attr)]


def no_traceback(text: str) -> None:
    for sign in TRACEBACK_SIGNS:
        assert sign not in text, f"{sign!r} shown in an error page:\n{text[:3000]}"


# -- every page -----------------------------------------------------------------------


@on_sqlite_only
def test_front_page_redirects_to_the_leaderboard(client: Client) -> None:
    response = get(client, "/")
    assert response.status_code == 307
    assert response.headers["location"] == "/leaderboard"


@pytest.mark.parametrize("variant", ["guandan", "shengji-2", "sanfu"])
def test_leaderboard_of_each_variant(client: Client, store: Store, variant: str) -> None:
    html = get(client, f"/leaderboard?variant={variant}&lang=en").text
    page = Tags(html)
    assert page.find("table", id="leaderboard")
    rated = {rating.bot for rating in store.ratings(variant)}
    assert rated and rated <= set(rows_of(html))
    for bot in rated:
        assert page.find("a", class_="bot-link", href=f"/bots/{bot}")
    assert ("Room points" in html) == variant.startswith("shengji")


def test_leaderboard_sorts_by_every_column_both_ways(client: Client, store: Store) -> None:
    variant = "shengji-2"
    elo = {r.bot: r.value for r in store.ratings(variant, "elo")}
    by_elo = sorted(elo, key=lambda bot: -elo[bot])
    assert rows_of(get(client, f"/leaderboard?variant={variant}").text) == by_elo
    ascending = rows_of(get(client, f"/leaderboard?variant={variant}&sort=elo&order=asc").text)
    assert ascending == by_elo[::-1]
    for sort in ("skill", "room", "matches", "win_rate"):
        html = get(client, f"/leaderboard?variant={variant}&sort={sort}&order=desc").text
        values = column_values(html, sort)
        present = [v for v in values if v is not None]
        assert present == sorted(present, reverse=True), (sort, values)
        assert values[len(present) :] == [None] * (len(values) - len(present)), "missing last"
        flipped = get(client, f"/leaderboard?variant={variant}&sort={sort}&order=asc").text
        present_up = [v for v in column_values(flipped, sort) if v is not None]
        assert present_up == sorted(present_up)


COLUMNS = {"skill": 3, "room": 4, "matches": 5, "win_rate": 6}


def column_values(html: str, sort: str) -> list[float | None]:
    """The numbers of a leaderboard column, top to bottom (None for a dash)."""
    body = html.split('<table id="leaderboard"', 1)[1].split("</table>", 1)[0]
    values: list[float | None] = []
    for row in re.findall(r"<tr data-bot=.*?</tr>", body, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        text = re.sub(r"<[^>]+>", " ", cells[COLUMNS[sort]]).split()[0]
        values.append(None if text == "—" else float(text.replace("−", "-").strip("%+")))
    return values


@on_sqlite_only
def test_leaderboard_sort_links_flip_the_current_column(client: Client) -> None:
    page = Tags(get(client, "/leaderboard?variant=guandan&sort=matches&order=desc").text)
    links = {a["href"]: a for a in page.find("a") if "sort" in a.get("class", "")}
    assert "/leaderboard?variant=guandan&sort=matches&order=asc" in links
    assert "/leaderboard?variant=guandan&sort=elo&order=desc" in links


def test_leaderboard_of_a_tournament(client: Client, played: Played) -> None:
    html = get(client, f"/leaderboard?tournament={TOURNAMENT}").text
    assert f'href="/tournaments/{TOURNAMENT}"' in html
    assert set(rows_of(html)) == {"heuristic", "random"}


def test_bot_page(client: Client, store: Store) -> None:
    html = get(client, "/bots/heuristic?lang=en").text
    page = Tags(html)
    assert page.find("h1", **{"data-bot": "heuristic"})
    assert page.find("svg", class_="rating-history")
    recent = [a["href"] for a in page.find("a", class_="match-link")]
    assert recent
    for href in recent:
        assert store.match(href.removeprefix("/matches/")) is not None
    assert page.find("table", id="head-to-head") and rows_of(html, "data-opponent")
    for incident in ("automatic_plays", "flights", "forfeits"):
        assert page.find("dd", **{"data-incident": incident})
    for variant in {r.variant for r in store.bot_ratings("heuristic")}:
        assert page.find("tr", **{"data-variant": variant})


@on_sqlite_only
def test_a_bot_whose_parameters_name_a_file_has_its_page(played: Played, tmp_path: Path) -> None:
    """A trained policy named with its file's path (``policy:path=runs/x.npz``) is one
    bot with its page, at the address its links give (the name quoted, '/' kept)."""
    copy = tmp_path / "policy.sqlite"
    shutil.copy(played.path, copy)
    name = "policy:path=runs/guandan.npz"
    with Store.open(copy) as writable:
        writable.add_builtin_bots([name])
    with Store.open(copy, read_only=True) as store:
        site = WebThread(store)
        try:
            response = get(Client(site.url), f"/bots/{quote(name, safe='/')}?lang=en")
        finally:
            site.close()
    assert response.status_code == 200
    assert Tags(response.text).find("h1", **{"data-bot": name})


def test_rating_history_chart_has_axes_ticks_and_labels(client: Client) -> None:
    html = get(client, "/bots/heuristic?lang=en").text
    chart = html.split('<svg class="rating-history"', 1)[1].split("</svg>", 1)[0]
    assert chart.count("<line") >= 4, "axes and ticks"
    assert "Rated matches" in chart or "Time (UTC" in chart
    assert "Elo in " in html
    assert re.search(r'<a href="/matches/[^"]+"><circle', chart)


@on_sqlite_only
@pytest.mark.parametrize(
    ("step", "tick"),
    [(3 * 86400, r">2024-05-\d\d<"), (5400, r">05-0[12] \d\d:\d\d<")],
)
def test_a_bot_page_plots_a_long_history_over_time_with_dates(
    played: Played, tmp_path: Path, step: int, tick: str
) -> None:
    """A bot whose rated matches span more than the short-history threshold: its
    rating plots go over time, dated ticks across (days apart: the date; hours apart
    across midnight: the day and the hour)."""
    copy = tmp_path / "long.sqlite"
    shutil.copy(played.path, copy)
    with sqlite3.connect(copy) as conn:
        rows = conn.execute("SELECT id, bot, variant, system FROM rating_history ORDER BY id")
        seen: Counter[tuple[str, str, str]] = Counter()
        for row_id, *key in rows.fetchall():
            number = seen[tuple(key)]
            seen[tuple(key)] += 1
            moment = 1714604400 + number * step  # 2024-05-01 23:00 UTC on
            at = datetime.fromtimestamp(moment, UTC).isoformat()
            conn.execute("UPDATE rating_history SET at = ? WHERE id = ?", (at, row_id))
    with Store.open(copy, read_only=True) as store:
        site = WebThread(store)
        try:
            html = get(Client(site.url), "/bots/heuristic?lang=en").text
        finally:
            site.close()
    charts = re.findall(r'<svg class="rating-history".*?</svg>', html, re.S)
    assert charts
    for chart in charts:
        if chart.count("<circle") > 1:
            assert "Time (UTC, from 2024-05-01)" in chart, chart[:400]
            assert re.search(tick, chart), chart


def test_tournaments_and_a_tournament(client: Client, played: Played) -> None:
    listing = Tags(get(client, "/tournaments").text)
    assert listing.find("a", class_="tournament-link", href=f"/tournaments/{TOURNAMENT}")
    html = get(client, f"/tournaments/{TOURNAMENT}?lang=en").text
    page = Tags(html)
    assert page.find("table", id="standings")
    shown = {a["href"].removeprefix("/matches/") for a in page.find("a", class_="match-link")}
    assert shown == set(played.tournament_matches)
    assert "Definition" in html and '"matches": 2' in html
    progress = get(client, f"/api/tournaments/{TOURNAMENT}/progress").json()
    assert progress == {
        "id": TOURNAMENT,
        "status": "finished",
        "planned": progress["planned"],
        "played": len(played.tournament_matches),
        "live": [],
    }


def test_match_list_pages_and_live_section(client: Client, played: Played) -> None:
    first = get(client, "/matches?per_page=10&lang=en").text
    page = Tags(first)
    assert page.find("form", id="match-filters")
    assert page.find("table", id="matches")
    ids_1 = rows_of(first, "data-match")
    assert len(ids_1) == 10
    ids_2 = rows_of(get(client, "/matches?per_page=10&page=2").text, "data-match")
    assert len(ids_2) == 10 and not set(ids_1) & set(ids_2)
    every: list[str] = []
    number = 1
    while True:
        html = get(client, f"/matches?per_page=10&page={number}").text
        rows = rows_of(html, "data-match")
        if not rows:
            break
        every += rows
        number += 1
    assert sorted(every) == sorted(played.all_ids())
    assert f"Page 1 of {number - 1}" in first
    assert 'rel="next" href="/matches?per_page=10&amp;lang=en&amp;page=2"' in first
    assert "No match is being played now." in first


def test_a_page_past_the_last_is_empty_not_an_error(client: Client) -> None:
    response = get(client, "/matches?page=9999")
    assert response.status_code == 200
    assert rows_of(response.text, "data-match") == []


@pytest.mark.parametrize(
    ("query", "check"),
    [
        ("variant=sanfu", lambda m: m.variant == "sanfu"),
        ("bot=heuristic", lambda m: "heuristic" in m.seating),
        (f"tournament={TOURNAMENT}", lambda m: m.tournament_id == TOURNAMENT),
        ("q=filler-0", lambda m: "filler-0" in m.id),
        ("q=FILLER-0", lambda m: "filler-0" in m.id),  # ASCII letters in either case
        ("q=HEURIST", lambda m: "heuristic" in m.seating),
        ("result=team0", lambda m: m.outcome.get("team_score") == 1),
        ("since=2000-01-01&until=2999-12-31", lambda m: True),
    ],
)
def test_match_list_filters(client: Client, store: Store, query: str, check: Any) -> None:
    ids = rows_of(get(client, f"/matches?per_page=200&{query}").text, "data-match")
    assert ids, query
    wanted = {m.id for m in store.matches() if check(m)}
    assert set(ids) == wanted, query


@on_sqlite_only
def test_filters_show_in_the_form(client: Client) -> None:
    page = Tags(get(client, "/matches?variant=sanfu&bot=first&q=filler&result=draw").text)
    assert page.find("option", value="sanfu", selected="")
    assert page.find("input", name="bot", value="first")
    assert page.find("input", name="q", value="filler")
    assert page.find("option", value="draw", selected="")


def test_dates_outside_the_matches_leave_the_list_empty(client: Client) -> None:
    html = get(client, "/matches?until=2000-01-01").text
    assert rows_of(html, "data-match") == []


def test_match_page_table_json_and_stream(client: Client, played: Played) -> None:
    match_id = played.matches["guandan"]
    page = Tags(get(client, f"/matches/{match_id}").text)
    table = page.find("section", id="table")
    assert table and table[0]["data-match"] == match_id and table[0]["data-live"] == "false"
    view = get(client, f"/api/matches/{match_id}/table?lang=en&deal=all").json()
    assert view["match"]["id"] == match_id and view["frames"] and view["result"]
    assert any(seat["hand"] for seat in view["frames"][0]["seats"]), "a stored match is revealed"
    events = stream(client, f"/api/matches/{match_id}/live?lang=en")
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "header" and kinds[-1] == "result"
    frames = [data for kind, data in events if kind == "frame"]
    assert len(frames) == len(view["frames"])
    last_seq = frames[-1]["seq"]
    later = [d for k, d in stream(client, f"/api/matches/{match_id}/live?after={last_seq}")
             if k == "frame"]  # fmt: skip
    assert later and all(frame["seq"] >= last_seq for frame in later)


def stream(client: Client, url: str) -> list[tuple[str, Any]]:
    """The events of a server-sent event stream, to its end."""
    events: list[tuple[str, Any]] = []
    with client.stream(url) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        kind = ""
        for line in response.iter_lines():
            if line.startswith("event: "):
                kind = line.removeprefix("event: ")
            elif line.startswith("data: "):
                events.append((kind, json.loads(line.removeprefix("data: "))))
    return events


@on_sqlite_only
def test_reports_listed_and_shown_in_the_site(client: Client) -> None:
    html = get(client, "/reports?lang=en").text
    page = Tags(html)
    assert page.find("a", class_="report-link", href="/reports/mixed")
    assert page.find("tr", **{"data-report": "broken"}) and "cannot be read" in html
    report = get(client, "/reports/mixed?lang=en").text
    shown = Tags(report)
    assert shown.find("table", id="report")
    assert "Bots: heuristic bots; consecutive match deals" in report  # the default bots
    assert "Guandan (baseline)" in report and "Sanfu − baseline" in report
    assert "Holm" in report
    assert "again: arena balance --variant guandan" in report and "made by arena" in report
    zh = get(client, "/reports/mixed?lang=zh").text
    assert "重新运行：arena balance --variant guandan" in zh and "生成环境：arena" in zh
    assert "Played 90 deals in " in report and " deals/s on 1 worker, busy " in report
    assert "共打 90 局，用时 " in zh
    assert "机器人：heuristic 机器人；" in get(client, "/reports/mixed?lang=zh").text
    assert "Win rate of the deal" in report and "Guandan: tribute" in report
    assert len(shown.find("svg", class_="interval-dots")) >= 3  # a figure per question
    assert shown.find("link", rel="stylesheet"), "in the site's layout"
    assert get(client, "/reports/other").status_code == 404
    assert get(client, "/reports/broken").status_code == 404


def until_block(html: str) -> str:
    """The text of a report page's ``--until-resolved`` verdicts ('' when it has none)."""
    if 'id="until-resolved"' not in html:
        return ""
    return html.split('id="until-resolved"', 1)[1].split("</div>", 1)[0]


@on_sqlite_only
def test_a_report_page_gives_the_until_resolved_verdicts_in_its_language(client: Client) -> None:
    en = until_block(get(client, "/reports/until?lang=en").text)
    assert "Until resolved: stopped after 3 deals per variant: every question answered." in en
    assert "decisions per deal, Guandan a_fail_limit=2: within the margin (+0.00 [" in en
    assert "tested at 2.500% after round 1 of 2" in en
    zh = until_block(get(client, "/reports/until?lang=zh").text)
    assert "直到有结论：每种玩法 3 局后停止：所有问题均已有结论。" in zh
    assert "掼蛋 a_fail_limit=2：在容差之内（" in zh and "第 1/2 轮后以 2.500% 检验" in zh
    assert not until_block(get(client, "/reports/mixed?lang=en").text)


CJK = re.compile(r"[\u4e00-\u9fff]")


def report_labels(html: str) -> list[str]:
    """The section titles and row labels of a report page's comparison table."""
    body = html.split('<table id="report"', 1)[1].split("</table>", 1)[0]
    titles = re.findall(r'<th class="section"[^>]*>(.*?)</th>', body)
    labels = re.findall(r"<tr><td>(.*?)</td>", body)
    return titles + labels


@on_sqlite_only
def test_a_report_page_speaks_the_page_language(client: Client, reports: Path) -> None:
    """Every section title and row label of a report's comparison is in Chinese on a
    Chinese page (game terms as players say them), in English on an English one; the
    command line's text report keeps its English words."""
    zh = get(client, "/reports/mixed?lang=zh").text
    labels = report_labels(zh)
    assert len(labels) > 40
    english = [label for label in labels if not CJK.search(label)]
    assert not english, english
    for term in ("进贡", "抗贡", "庄家方", "头游", "抬了"):
        assert term in zh, term
    cells = re.findall(r"<td>([^<]*)(?:<span|</td>)", zh.split('<table id="report"', 1)[1])
    assert not [c for c in cells if "n/a" in c or "one value" in c], "cells in Chinese too"
    assert cell_text({"mean": -3.0, "low": None}, "mean", "zh") == "-3.00 [仅一个值，无区间]"
    assert cell_text({"rate": None}, "rate", "zh") == "无数据"
    assert cell_text({"rate": 0.5, "low": 0.4, "high": 0.6}, "rate", "zh") == "50.0% [40.0, 60.0]"
    en = report_labels(get(client, "/reports/mixed?lang=en").text)
    assert len(en) == len(labels) and not [label for label in en if CJK.search(label)]
    data = json.loads((reports / "mixed.json").read_text())
    text = render_text(data)
    assert "Guandan: tribute and the next deal" in text and "  dealer's team (see notes)" in text


def test_every_label_of_a_comparison_has_words_in_each_catalog(reports: Path) -> None:
    """Each title and row label (and label within one) a comparison of every game gives
    has its key in both catalogs: none falls back to the English text."""
    data = json.loads((reports / "mixed.json").read_text())
    four = copy_variant(data, "shengji-2", "shengji-4")
    found: list[Label] = []
    for title, rows in comparison(four):
        found.append(title)
        found.extend(label for label, _, _ in rows)
    keys = {f"balance.{key}" for key in label_keys(found)}
    assert "balance.kitty.widest" in keys and "balance.change.defenders" in keys
    assert "balance.change.other" not in keys
    for lang in LANGUAGES:
        missing = keys - set(catalog(lang))
        assert not missing, (lang, missing)


def copy_variant(data: dict[str, Any], game: str, as_game: str) -> dict[str, Any]:
    """The report with one more variant: ``game``'s figures under the name ``as_game``."""
    copied = json.loads(json.dumps(data))
    (source,) = [v for v in copied["variants"] if v["game"] == game]
    copied["variants"].append({**source, "game": as_game, "name": as_game})
    return copied


def label_keys(labels: list[Label]) -> set[str]:
    keys: set[str] = set()
    for label in labels:
        keys.add(label.key)
        keys |= label_keys([v for v in label.fields.values() if isinstance(v, Label)])
    return keys


@on_sqlite_only
def test_health(client: Client) -> None:
    assert get(client, "/healthz").json() == {"status": "ok"}


# -- languages ------------------------------------------------------------------------


@on_sqlite_only
def test_languages_switch_and_stick(client: Client) -> None:
    chinese = get(client, "/leaderboard", headers={"accept-language": ""})
    assert '<html lang="zh">' in chinese.text and "排行榜" in chinese.text
    english = get(client, "/leaderboard?lang=en")
    assert '<html lang="en">' in english.text and "Leaderboard" in english.text
    assert "lang=en" in english.headers["set-cookie"]
    again = get(client, "/matches", headers={"cookie": "lang=en"})
    assert '<html lang="en">' in again.text and "Matches" in again.text
    browser = get(client, "/matches", headers={"accept-language": "en-GB,en;q=0.8"})
    assert '<html lang="en">' in browser.text
    switch = Tags(english.text)
    for lang in LANGUAGES:
        (link,) = switch.find("a", **{"data-lang": lang})
        assert link["href"].endswith(f"lang={lang}")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_page_renders_in_each_language(client: Client, played: Played, lang: str) -> None:
    """Every template with every word it uses (a missing key would be a 500)."""
    urls = [
        "/leaderboard?variant=shengji-2",
        "/bots/heuristic",
        "/bots/first",
        "/tournaments",
        f"/tournaments/{TOURNAMENT}",
        "/matches",
        f"/matches/{played.matches['sanfu']}",
        f"/matches/{played.matches['shengji-4']}",
        "/reports",
        "/reports/mixed",
        "/bots/nobody",
        "/matches?page=x",
    ]
    for url in urls:
        response = get(client, f"{url}{'&' if '?' in url else '?'}lang={lang}")
        assert f'<html lang="{lang}">' in response.text, url


def test_both_catalogs_hold_the_same_site_words() -> None:
    assert set(catalog("en")) == set(catalog("zh"))
    words = set(catalog("zh"))
    for key in ("nav.leaderboard", "nav.matches", "board.win_rate", "error.404.title"):
        assert key in words
    assert catalog("zh")["nav.leaderboard"] == "排行榜"
    assert catalog("zh")["nav.tournaments"] == "锦标赛"


# -- errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "/bots/nobody",
        "/matches/no-such-match",
        "/tournaments/no-such",
        "/reports/no-such",
        "/reports/..%2F..%2Fetc%2Fpasswd",
        "/leaderboard?tournament=no-such",
        "/no/such/page",
        "/static/no-such.css",
    ],
)
def test_unknown_ids_are_404_pages(client: Client, url: str) -> None:
    response = get(client, url)
    assert response.status_code == 404, url
    no_traceback(response.text)
    if not url.startswith("/static/"):
        assert 'data-status="404"' in response.text


@pytest.mark.parametrize(
    "url",
    ["/api/matches/nope/table", "/api/matches/nope/live", "/api/tournaments/nope/progress"],
)
def test_unknown_ids_in_the_api_are_json_404s(client: Client, url: str) -> None:
    response = get(client, url)
    assert response.status_code == 404
    assert "'nope'" in response.json()["message"]


@on_sqlite_only
@pytest.mark.parametrize("path", ["/matches/{id}", "/api/matches/{id}/table"])
def test_a_deal_the_match_does_not_have_is_a_404_naming_it(
    client: Client, played: Played, path: str
) -> None:
    url = path.format(id=played.matches["guandan"]) + "?deal=999"
    response = get(client, url)
    assert response.status_code == 404, url
    no_traceback(response.text)
    if path.startswith("/api/"):
        assert "deal" in response.text and "no deal 999" in response.text
    else:
        assert "999" in error_message(response.text), "said in the page's language"


@on_sqlite_only
def test_the_table_json_holds_one_deal_and_every_deals_entry(
    client: Client, played: Played
) -> None:
    match_id = played.matches["shengji-2"]
    whole = get(client, f"/api/matches/{match_id}/table?deal=all&lang=en").json()
    assert len(whole["deals"]) > 1, "a match of several deals"
    for entry in whole["deals"]:
        view = get(client, f"/api/matches/{match_id}/table?deal={entry['number']}&lang=en").json()
        assert view["deal"] == entry["number"] and view["deals"] == whole["deals"]
        assert [f["i"] for f in view["frames"]] == list(range(entry["first"], entry["last"] + 1))
    first = get(client, f"/api/matches/{match_id}/table?lang=en").json()
    assert first["deal"] == 1 and {f["deal"] for f in first["frames"]} == {1}


@on_sqlite_only
@pytest.mark.parametrize(
    ("url", "named"),
    [
        ("/matches?page=abc", "page"),
        ("/matches?page=-1", "page"),
        ("/matches?page=0", "page"),
        ("/matches?page=" + "9" * 30, "page"),
        ("/matches?page=100001", "page"),
        ("/matches?per_page=0", "per_page"),
        ("/matches?per_page=201", "per_page"),
        ("/matches?variant=chess", "variant"),
        ("/matches?result=won", "result"),
        ("/matches?since=yesterday", "since"),
        ("/matches?since=2024-02-01&until=2024-01-01", "since"),
        ("/matches?q=" + "x" * 500, "q"),
        ("/leaderboard?variant=chess", "variant"),
        ("/leaderboard?sort=height", "sort"),
        ("/leaderboard?order=up", "order"),
        ("/leaderboard?tournament=%00", "tournament"),
        ("/tournaments/x?page=-3", "page"),
        ("/matches?lang=fr", "lang"),
        ("/api/matches/x/live?after=-5", "after"),
        ("/api/matches/x/live?after=1e9", "after"),
        ("/api/matches/x/table?deal=abc", "deal"),
        ("/api/matches/x/table?deal=0", "deal"),
        ("/api/matches/x/table?deal=-2", "deal"),
        ("/api/matches/x/table?deal=" + "9" * 30, "deal"),
        ("/matches/x?deal=1e3", "deal"),
    ],
)
def test_bad_parameters_are_400_pages_naming_them(client: Client, url: str, named: str) -> None:
    response = get(client, url)
    assert response.status_code == 400, url
    no_traceback(response.text)
    message = (
        response.json()["message"]
        if url.startswith("/api/")
        else Tags(response.text).text[Tags(response.text).text.index("400") :]
    )
    assert named in "".join(message), (url, message)


ENGLISH_WORDS = re.compile(r"\b(no|not|is|must|got|unknown|expected|after|range|characters)\b")


def error_message(html: str) -> str:
    found = re.search(r'<p class="error-message">(.*?)</p>', html, re.S)
    assert found, html[:2000]
    return found.group(1)


@on_sqlite_only
@pytest.mark.parametrize(
    ("url", "named"),
    [
        ("/matches/no-such-match", "no-such-match"),
        ("/matches/no-such-match?deal=2", "no-such-match"),
        ("/bots/nobody", "nobody"),
        ("/tournaments/no-such", "no-such"),
        ("/leaderboard?tournament=no-such", "no-such"),
        ("/reports/no-such", "no-such"),
        ("/reports/other", "other"),
        ("/reports/broken", "broken"),
        ("/matches/{guandan}?deal=999", "999"),
        ("/no/such/page", ""),
    ],
)
def test_a_404_page_says_what_is_missing_in_its_language(
    client: Client, played: Played, url: str, named: str
) -> None:
    """The detail line of a 404 page names what is missing in the page's language."""
    url = url.format(guandan=played.matches["guandan"])
    for lang, words in (("zh", CJK), ("en", re.compile(r"\b(No|no)\b"))):
        response = get(client, f"{url}{'&' if '?' in url else '?'}lang={lang}")
        assert response.status_code == 404, url
        message = error_message(response.text)
        assert named in message and words.search(message), (lang, message)
        if lang == "zh":
            assert not ENGLISH_WORDS.search(message.replace(named, "")), message


@on_sqlite_only
@pytest.mark.parametrize(
    ("url", "named"),
    [
        ("/matches?page=abc", "page"),
        ("/matches?page=" + "9" * 30, "page"),
        ("/matches?per_page=201", "per_page"),
        ("/matches?variant=chess", "variant"),
        ("/matches?result=won", "result"),
        ("/matches?since=yesterday", "since"),
        ("/matches?since=2024-02-01&until=2024-01-01", "since"),
        ("/matches?q=" + "x" * 500, "q"),
        ("/matches?bot=a%01b", "bot"),
        ("/leaderboard?variant=chess", "variant"),
        ("/leaderboard?sort=height", "sort"),
        ("/leaderboard?tournament=%00", "tournament"),
        ("/tournaments/x?page=-3", "page"),
        ("/matches/x?deal=1e3", "deal"),
        ("/matches?lang=fr", "lang"),
    ],
)
def test_a_400_page_names_the_parameter_in_its_language(
    client: Client, url: str, named: str
) -> None:
    """The detail line of a 400 page names the parameter and says what it must be, in
    the page's language (a language asked wrongly: the default, Chinese)."""
    suffix = "" if "lang=" in url else f"{'&' if '?' in url else '?'}lang=zh"
    response = get(client, url + suffix)
    assert response.status_code == 400, url
    message = error_message(response.text)
    assert named in message and CJK.search(message), message
    shown = message.replace(named, "").replace("until", "").replace("all", "")
    assert not ENGLISH_WORDS.search(shown), message


@on_sqlite_only
def test_an_unexpected_error_is_a_500_page_and_logged(store: Store) -> None:
    class Failing(Viewer):
        def tournaments(self) -> Any:
            raise RuntimeError("secret internals")

    loop = LoopThread()
    server = WebServer(create_app(Failing(store)), "127.0.0.1", 0)
    log = io.StringIO()
    configure(fmt="json", stream=log, level="info")
    try:
        port = loop.run(server.start())
        response = httpx.get(f"http://127.0.0.1:{port}/tournaments?lang=en", timeout=60)
        loop.run(server.stop())
    finally:
        configure()
        loop.close()
    assert response.status_code == 500
    assert "Something went wrong" in response.text
    assert "secret internals" not in response.text
    no_traceback(response.text)
    events = [json.loads(line) for line in log.getvalue().splitlines()]
    failed = [e for e in events if e["event"] == "web_request_failed"]
    assert failed and "secret internals" in json.dumps(failed[0])
    (line,) = [e for e in events if e["event"] == "web_request"]
    assert line["status"] == 500 and line["route"] == "/tournaments"


# -- static files, headers, metrics, logs ------------------------------------------------------


@on_sqlite_only
def test_static_urls_are_versioned_and_cached_long(client: Client) -> None:
    page = Tags(get(client, "/leaderboard").text)
    (css,) = [link["href"] for link in page.find("link", rel="stylesheet")]
    assert re.fullmatch(r"/static/site\.css\?v=[0-9a-f]{16}", css)
    versioned = get(client, css)
    assert versioned.status_code == 200 and versioned.headers["cache-control"] == LONG_CACHE
    assert get(client, "/static/site.css").headers["cache-control"] == NO_CACHE
    assert get(client, "/static/site.css?v=old").headers["cache-control"] == NO_CACHE


def test_a_changed_file_gets_a_new_version(tmp_path: Path) -> None:
    (tmp_path / "a.css").write_text("a {}")
    before = StaticAssets(tmp_path).url("a.css")
    (tmp_path / "a.css").write_text("b {}")
    assert StaticAssets(tmp_path).url("a.css") != before
    with pytest.raises(KeyError):
        StaticAssets(tmp_path).url("../etc/passwd")


@on_sqlite_only
def test_pages_allow_only_the_site_itself(client: Client, played: Played) -> None:
    """A Content-Security-Policy of 'self', and pages that need nothing else: scripts in
    files (or JSON data, never run), no inline styles or event handlers."""
    urls = ["/leaderboard", "/bots/heuristic", f"/tournaments/{TOURNAMENT}", "/reports/mixed"]
    for url in [*urls, f"/matches/{played.matches['guandan']}", "/bots/none"]:
        response = get(client, url)
        policy = response.headers["content-security-policy"]
        assert "default-src 'self'" in policy and "script-src 'self'" in policy
        assert "unsafe-inline" not in policy
        assert response.headers["x-content-type-options"] == "nosniff"
        for tag, attrs in Tags(response.text).tags:
            assert "style" not in attrs or tag in ("svg",), (url, tag, attrs)
            assert not [a for a in attrs if a.startswith("on")], (url, tag, attrs)
            if tag == "script":
                assert "src" in attrs or attrs.get("type") == "application/json", (url, attrs)
            if tag in ("script", "link", "img") and attrs.get("src", attrs.get("href", "")):
                target = attrs.get("src") or attrs.get("href", "")
                assert target.startswith("/") or target.startswith("data:"), (url, target)


def sample(name: str, labels: dict[str, str]) -> float:
    value = metrics.REGISTRY.get_sample_value(name, labels)
    return 0.0 if value is None else value


@on_sqlite_only
def test_requests_are_counted_by_route_template(client: Client) -> None:
    ok = {"route": "/bots/{name}", "method": "GET", "status": "200"}
    missing = {"route": "/bots/{name}", "method": "GET", "status": "404"}
    before = sample("arena_web_requests_total", ok), sample("arena_web_requests_total", missing)
    timed = sample("arena_web_request_seconds_count", ok)
    get(client, "/bots/heuristic")
    get(client, "/bots/first")
    get(client, "/bots/nobody")
    assert sample("arena_web_requests_total", ok) == before[0] + 2
    assert sample("arena_web_requests_total", missing) == before[1] + 1
    assert sample("arena_web_request_seconds_count", ok) == timed + 2
    unmatched = {"route": "unmatched", "method": "GET", "status": "404"}
    counted = sample("arena_web_requests_total", unmatched)
    get(client, "/no-such-thing/at/all")
    assert sample("arena_web_requests_total", unmatched) == counted + 1


@on_sqlite_only
def test_one_log_line_per_request(client: Client) -> None:
    log = io.StringIO()
    configure(fmt="json", stream=log, level="info")
    try:
        get(client, "/leaderboard?variant=sanfu&lang=en")
        get(client, "/matches/nope")
    finally:
        configure()
    events = [json.loads(line) for line in log.getvalue().splitlines()]
    lines = [e for e in events if e["event"] == "web_request"]
    assert [(e["path"], e["status"], e["route"]) for e in lines] == [
        ("/leaderboard", 200, "/leaderboard"),
        ("/matches/nope", 404, "/matches/{id}"),
    ]
    assert all(e["method"] == "GET" and e["ms"] >= 0 and e["request_id"] for e in lines)
    assert lines[0]["lang"] == "en"


# -- fuzzing -------------------------------------------------------------------------------

PARAMETERS = ("variant", "tournament", "bot", "since", "until", "result", "q", "page",
              "per_page", "sort", "order", "lang", "after")  # fmt: skip
ROUTES = ("/leaderboard", "/matches", "/tournaments", f"/tournaments/{TOURNAMENT}",
          "/bots/heuristic", "/reports", "/api/matches/x/live")  # fmt: skip


TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
"""Any text (lone surrogates cannot be sent in a URL at all)."""


@on_sqlite_only  # any text asked of PostgreSQL: test_any_id_text_is_a_page_never_a_500
@settings(max_examples=100, deadline=None)
@given(
    route=st.sampled_from(ROUTES),
    params=st.dictionaries(st.sampled_from(PARAMETERS), TEXT, max_size=4),
)
def test_any_parameter_text_is_a_page_never_a_500(
    client: Client, route: str, params: dict[str, str]
) -> None:
    response = httpx.get(client.url + route, params=params, timeout=60)
    assert response.status_code in (200, 400, 404), (route, params, response.text[:500])
    if response.status_code != 200:
        no_traceback(response.text)


@settings(max_examples=40, deadline=None)
@given(
    base=st.sampled_from(["/bots/", "/matches/", "/tournaments/", "/reports/", "/api/matches/"]),
    name=TEXT.filter(bool),
)
def test_any_id_text_is_a_page_never_a_500(client: Client, base: str, name: str) -> None:
    """Any name in a page's path: the page, a 404 or 400, or (an encoded slash at the
    end) a redirect without it."""
    response = client.get(base + quote(name, safe=""))
    assert response.status_code in (200, 307, 400, 404), (base, name, response.text[:500])
    if response.status_code != 200:
        no_traceback(response.text)


# -- a running match ----------------------------------------------------------------------


def test_a_running_match_is_listed_live_and_followed_to_its_end(tmp_path: Path) -> None:
    """On a real server: the match list puts the running match on top with its badge,
    its page and JSON are live and show no hand, and its stream follows it to the
    result; once over, it is a stored match like any other."""
    with serving_live(tmp_path / "live.sqlite", max_deals=1) as live:
        match = live.match("guandan", "pager")
        match.reach(3)
        client = Client(live.url)
        listing = Tags(get(client, "/matches?lang=en").text)
        assert listing.find("tr", **{"data-match": match.id, "class": "live-row"})
        assert listing.find("table", id="live-matches") and listing.find(
            "span", class_="badge live"
        )
        (table,) = Tags(get(client, f"/matches/{match.id}").text).find("section", id="table")
        assert table["data-live"] == "true"
        view = get(client, f"/api/matches/{match.id}/table").json()
        assert view["match"]["live"] is True and view["frames"] and view["result"] is None
        assert all(seat["hand"] is None for f in view["frames"] for seat in f["seats"])
        events: list[tuple[str, Any]] = []
        finisher = threading.Thread(target=match.finish)
        with client.stream(f"/api/matches/{match.id}/live") as response:
            kind = ""
            for line in response.iter_lines():
                if line.startswith("event: "):
                    kind = line.removeprefix("event: ")
                elif line.startswith("data: "):
                    events.append((kind, json.loads(line.removeprefix("data: "))))
                    if kind == "header":
                        finisher.start()
        finisher.join(60)
        kinds = [kind for kind, _ in events]
        assert kinds[0] == "header" and kinds[-1] == "result" and "frame" in kinds
        frames = [data for kind, data in events if kind == "frame"]
        assert all(seat["hand"] is None for frame in frames for seat in frame["seats"])
        stored = Tags(get(client, "/matches").text)
        assert stored.find("tr", **{"data-match": match.id}) and not stored.find(
            "table", id="live-matches"
        )


@on_sqlite_only
def test_other_methods_are_405_pages(client: Client) -> None:
    response = httpx.post(client.url + "/leaderboard", timeout=60)
    assert response.status_code == 405
    assert 'data-status="405"' in response.text
    no_traceback(response.text)


@on_sqlite_only
def test_a_stored_match_that_does_not_replay_is_a_500_saying_so(
    played: Played, tmp_path: Path
) -> None:
    """A record changed by hand in the store: its page says what is wrong, no traceback."""
    copy = tmp_path / "changed.sqlite"
    shutil.copy(played.path, copy)
    match_id = played.matches["guandan"]
    with sqlite3.connect(copy) as conn:
        conn.execute(
            "UPDATE matches SET record_json = json_set(record_json, '$.deals[0].actions[0]',"
            " 'play BJ BJ BJ BJ BJ') WHERE id = ?",
            (match_id,),
        )
    with Store.open(copy, read_only=True) as store:
        site = WebThread(store)
        try:
            for path in (
                f"/matches/{match_id}",
                f"/api/matches/{match_id}/table",
                f"/api/matches/{match_id}/live",
            ):
                response = httpx.get(site.url + path, timeout=60)
                assert response.status_code == 500, path
                assert "re-play" in response.text or "replay" in response.text, response.text
                no_traceback(response.text)
        finally:
            site.close()


@pytest.mark.parametrize("result", ["team0", "team1", "draw"])
def test_the_result_shown_is_the_result_filtered(client: Client, result: str) -> None:
    """A match listed under result=team0 says team 0 won (a match stopped at its deal
    limit is won on points, as the leaderboards count it); a sanfu match (no fixed
    teams) names its highest total instead."""
    html = get(client, f"/matches?per_page=200&result={result}&lang=en").text
    rows = Tags(html).having("tr", "data-result")
    assert rows, result
    assert {row["data-result"] for row in rows} == {result}
    teams = [row for row in rows if row["data-variant"] != "sanfu"]
    wanted = "draw" if result == "draw" else f"team {result[-1]} won"
    body = html.split('<table id="matches"', 1)[1]
    assert body.count(f">{wanted}</span>") == len(teams)
    assert body.count('<span class="result leaders">highest: ') == len(rows) - len(teams)


def match_row(html: str, match_id: str) -> str:
    """The ``<tr>`` of a match in a page's list, as HTML."""
    found = re.search(rf'<tr data-match="{re.escape(match_id)}".*?</tr>', html, re.S)
    assert found, f"{match_id} is not listed"
    return found.group(0)


@on_sqlite_only
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_sanfu_match_shows_its_players_in_seat_order_not_two_teams(
    client: Client, store: Store, played: Played, lang: str
) -> None:
    """Sanfu partners change every deal (SF-3): its rows, in the match list and on a
    bot page, list the four players in seat order and name the highest total (results
    add up per player, SF-17), never "team 0 vs team 1"; a fixed-team game keeps its
    two teams."""
    match_id = played.matches["sanfu"]
    listing = store.match_listing(match_id)
    assert listing is not None
    best = max(listing.totals)
    top = [
        name for name, total in zip(listing.players, listing.totals, strict=True) if total == best
    ]
    for url in (f"/matches?variant=sanfu&lang={lang}", f"/bots/{listing.players[0]}?lang={lang}"):
        row = match_row(get(client, url).text, match_id)
        tags = Tags(row)
        seats = [li["data-seat"] for li in tags.find("li")]
        assert seats == ["0", "1", "2", "3"], url
        names = [a["href"] for a in tags.find("a", class_="bot-link")]
        assert names == [f"/bots/{quote(name)}" for name in listing.players], url
        assert 'class="team team0"' not in row and 'class="versus"' not in row
        assert "team 0" not in row and "0 队" not in row, row
        shown = "".join(Tags(row).text)
        assert str(best) in shown and all(name in shown for name in top), shown
    fixed = match_row(
        get(client, f"/matches?variant=guandan&lang={lang}").text, played.matches["guandan"]
    )
    assert 'class="team team0"' in fixed and 'class="seat-order"' not in fixed


@on_sqlite_only
def test_a_running_tournament_page_polls_its_progress(played: Played, tmp_path: Path) -> None:
    """A running tournament's page carries its script and the address it polls, which
    answers with the matches stored so far; a finished one polls nothing."""
    copy = tmp_path / "running.sqlite"
    shutil.copy(played.path, copy)
    with Store.open(copy) as store:
        store.set_tournament_status(TOURNAMENT, "running")
        site = WebThread(store)
        try:
            client = Client(site.url)
            page = Tags(get(client, f"/tournaments/{TOURNAMENT}").text)
            (box,) = page.find("div", id="progress")
            assert box["data-status"] == "running"
            assert box["data-url"] == f"/api/tournaments/{TOURNAMENT}/progress"
            scripts = [s["src"] for s in page.having("script", "src")]
            assert any(re.fullmatch(r"/static/site\.js\?v=[0-9a-f]{16}", s) for s in scripts)
            progress = get(client, box["data-url"]).json()
            assert progress["status"] == "running"
            assert progress["played"] == len(played.tournament_matches)
            assert get(client, scripts[0]).status_code == 200
        finally:
            site.close()


def test_a_running_tournament_lists_its_running_match_to_watch(tmp_path: Path) -> None:
    """A fixture being played: its page lists the match being played with a link to its
    live table, and the progress it polls names it (the page reloads when that list
    changes); once played, the match is among its stored matches and no longer live."""
    with serving_live(tmp_path / "cup.sqlite", max_deals=1) as live:
        tournament, planned, match = live.cup("page-cup")
        client = Client(live.url)
        try:
            assert match.id == planned
            page = Tags(get(client, f"/tournaments/{tournament}?lang=en").text)
            (box,) = page.find("div", id="progress")
            assert box["data-live"] == match.id
            assert page.find("table", id="live-matches")
            assert page.find("tr", **{"data-match": match.id, "class": "live-row"})
            assert page.find("a", class_="match-link", href=f"/matches/{quote(match.id)}")
            progress = get(client, f"/api/tournaments/{tournament}/progress").json()
            assert progress["live"] == [match.id] and progress["played"] == 0
        finally:
            match.finish()
        wait_until(
            lambda: get(client, f"/api/tournaments/{tournament}/progress").json()["live"] == [],
            "the played match leaves the live list",
        )
        page = Tags(get(client, f"/tournaments/{tournament}").text)
        assert not page.find("table", id="live-matches")
        assert page.find("tr", **{"data-match": match.id})


# -- charts -----------------------------------------------------------------------------


@given(
    low=st.floats(-1e6, 1e6, allow_nan=False),
    span=st.floats(0, 1e6, allow_nan=False),
)
def test_value_ticks_are_round_and_cover_the_values(low: float, span: float) -> None:
    high = low + span
    ticks = plots.nice_ticks(low, high)
    assert 2 <= len(ticks) <= 12
    step = ticks[1] - ticks[0]
    slack = 1e-9 * max(1.0, abs(low), abs(high))
    assert ticks[0] <= low + slack and ticks[-1] >= high - slack
    assert all(math.isclose(b - a, step, rel_tol=1e-6) for a, b in itertools.pairwise(ticks))
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert any(math.isclose(mantissa, m, rel_tol=1e-6) for m in (1, 2, 2.5, 5, 10))
    labels = [plots.tick_label(t, plots.tick_digits(ticks)) for t in ticks]
    assert len(set(labels)) == len(labels), labels


@given(
    start=st.integers(1_500_000_000, 2_000_000_000),
    span=st.integers(1, 5 * 365 * 86400),
)
def test_time_ticks_fall_inside_the_range_about_five(start: int, span: int) -> None:
    ticks, fmt = plots.time_ticks(start, start + span)
    assert 1 <= len(ticks) <= 6 or span < 5
    assert all(start <= tick <= start + span for tick in ticks)
    assert ticks == sorted(ticks)
    assert fmt in ("%H:%M:%S", "%H:%M", "%Y-%m-%d")


def test_a_long_history_is_drawn_over_time_a_short_one_by_match() -> None:
    days = [(f"2024-05-{d:02d}T12:00:00+00:00", 1500.0 + d, f"m{d}") for d in range(1, 29)]
    over_time = str(plots.rating_history(days, "guandan", "elo", "en"))
    assert "Time (UTC, from 2024-05-01)" in over_time and "05-" in over_time
    assert over_time.count("<circle") == 28 and 'href="/matches/m1"' in over_time
    burst = [(f"2024-05-01T12:00:{s:02d}+00:00", 1500.0 + s, f"m{s}") for s in range(30)]
    by_match = str(plots.rating_history(burst, "guandan", "elo", "zh"))
    assert "计分对局" in by_match
    broken = [("not a time", 1.0, "a"), ("2024-05-01T12:00:00", float("nan"), "b")]
    assert "No rated matches" in str(plots.rating_history(broken, "sanfu", "skill", "en"))
    many = [(f"2024-05-01T{h:02d}:{m:02d}:00+00:00", float(m), f"m{h}{m}")
            for h in range(24) for m in range(60)]  # fmt: skip
    long_one = str(plots.rating_history(many, "sanfu", "room", "en"))
    # beyond its dots: the first (also the lowest), the last and the highest
    assert long_one.count("<circle") == 3
    assert "<polyline" in long_one
