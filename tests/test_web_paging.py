"""Every list of the site that grows is shown a bounded page at a time, its page links
keep the filters and sort, and walking them reaches every row exactly once, in both
languages; a text search that matches everything is counted only so far and says there
are more.

What would break it: a list rendered whole (a leaderboard of 1,000 bots as 1,000 rows),
a next link that drops a filter or the sort, pages that skip or repeat a row, a search
counting every match it matches, or its two ways of reading the store disagreeing."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
from browser import LoopThread, WebThread
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stores import execute, new_store_target, on_sqlite_only

from arena._proto.arena.v1 import arena_pb2
from arena.commands.bench_web import build_store
from arena.store import MatchFilter, Store
from arena.store.copy import copy_store
from arena.web import app, serving
from arena.web.paging import page_of, pages_of
from arena.web.query import DEFAULT_PER_PAGE, MAX_PER_PAGE
from arena.web.viewer import SEARCH_AHEAD, Viewer

BOTS: Final = 1_000
TOURNAMENTS: Final = 120
MATCHES: Final = 1_200
"""Matches of the searched store: more than a search counts past a page."""
assert MATCHES > SEARCH_AHEAD


@dataclass(frozen=True)
class Site:
    url: str
    store: Store

    def get(self, href: str, lang: str = "en") -> str:
        with httpx.Client(base_url=self.url, timeout=60) as http:
            response = http.get(html.unescape(href), headers={"accept-language": lang})
        assert response.status_code == 200, (href, response.status_code)
        return response.text


def serve(store: Store) -> Iterator[Site]:
    served = WebThread(store)
    try:
        yield Site(served.url, store)
    finally:
        served.close()


@pytest.fixture(scope="module")
def board(
    module_backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Site]:
    """A store of 1,000 bots rated in Guandan (every tenth Elo shared: ties go by name)
    and 120 tournaments: on SQLite, then on PostgreSQL."""
    target = new_store_target(request, module_backend, tmp_path_factory.mktemp("board"))
    with Store.open(target) as store:
        names = [f"bot-{number:04d}" for number in range(BOTS)]
        store.add_builtin_bots(names)
        execute(
            target,
            "INSERT INTO ratings VALUES (:bot, 'guandan', 'elo', :elo, NULL, 3, "
            "'2026-01-01T00:00:00.000000+00:00')",
            [
                {"bot": name, "elo": 1000.0 + (number * 7919) % 997}
                for number, name in enumerate(names)
            ],
        )
        for number in range(TOURNAMENTS):
            store.add_tournament(f"cup-{number:03d}", f"cup {number}", "guandan")
        yield from serve(store)


@pytest.fixture(scope="module")
def searched(
    module_backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Site]:
    """A store of 1,200 matches of 30 bots, every id and bot named ``bench-…``: on SQLite,
    then on PostgreSQL (a copy of the SQLite store: storing them one by one there takes
    several times as long, and the tests of what is stored on PostgreSQL are others)."""
    folder = tmp_path_factory.mktemp("searched")
    path = str(folder / "searched.sqlite")
    with Store.open(path) as store:
        build_store(store, bots=30, matches=MATCHES, seed=5)
    target = new_store_target(request, module_backend, folder)
    if target != path:
        with Store.open(path, read_only=True) as source, Store.open(target) as copy:
            copy_store(source, copy)
    with Store.open(target) as store:
        yield from serve(store)


def rows_of(page: str, attribute: str) -> list[str]:
    return [html.unescape(value) for value in re.findall(rf'<tr {attribute}="([^"]*)"', page)]


def link(page: str, rel: str, pager: str = "pager") -> str | None:
    nav = re.search(rf'<nav class="pager" id="{pager}".*?</nav>', page, re.S)
    if nav is None:
        return None
    found = re.search(rf'<a rel="{rel}" href="([^"]+)"', nav.group(0))
    return None if found is None else html.unescape(found.group(1))


def position(page: str, pager: str = "pager") -> str:
    found = re.search(rf'id="{pager}".*?class="pager-position[^"]*"[^>]*>([^<]*)<', page, re.S)
    if found is None:
        found = re.search(rf'class="pager-position[^"]*" id="{pager}">([^<]*)<', page)
    assert found is not None, f"no pager {pager}"
    return html.unescape(found.group(1))


def walk(
    site: Site,
    start: str,
    attribute: str,
    pager: str = "pager",
    per_page: int = DEFAULT_PER_PAGE,
    key: str = "page",
) -> list[str]:
    """The rows of every page from ``start`` on, following the next links; each page
    holds at most ``per_page`` rows, each next link keeps ``start``'s parameters but the
    page's ``key``, and its previous link leads back."""
    kept = dict(parse_qsl(urlsplit(start).query))
    rows: list[str] = []
    href: str | None = start
    previous = ""
    while href is not None:
        page = site.get(href)
        shown = rows_of(page, attribute)
        assert 0 < len(shown) <= per_page, (href, len(shown))
        rows += shown
        back = link(page, "prev", pager)
        if previous:
            assert back is not None and rows_of(site.get(back), attribute) == previous
        previous = shown
        href = link(page, "next", pager)
        if href is not None:
            asked = dict(parse_qsl(urlsplit(href).query))
            assert {k: asked.get(k) for k in kept if k != key} == {
                k: v for k, v in kept.items() if k != key
            }
    return rows


# -- the pages of a list, as a property --------------------------------------------------


@given(
    rows=st.lists(st.integers(), max_size=300),
    per_page=st.integers(1, MAX_PER_PAGE),
)
def test_the_pages_of_a_list_hold_every_row_once_in_order(rows: list[int], per_page: int) -> None:
    pages = [
        page_of(rows, number, per_page) for number in range(1, pages_of(len(rows), per_page) + 1)
    ]
    assert [row for page in pages for row in page.rows] == rows
    assert all(len(page.rows) <= per_page and page.total == len(rows) for page in pages)
    assert page_of(rows, len(pages) + 1, per_page).rows == []


# -- leaderboards, tournaments --------------------------------------------------------------


def test_a_leaderboard_of_1000_bots_is_paged_and_every_bot_is_on_one_page(board: Site) -> None:
    first = board.get("/leaderboard?variant=guandan")
    assert len(rows_of(first, "data-bot")) == DEFAULT_PER_PAGE
    assert position(first) == f"Page 1 of {BOTS // DEFAULT_PER_PAGE} ({BOTS:,} bots)"
    assert position(board.get("/leaderboard?variant=guandan", "zh")) == (
        f"第 1 / {BOTS // DEFAULT_PER_PAGE} 页（共 {BOTS:,} 个机器人）"
    )
    start = "/leaderboard?variant=guandan&sort=elo&order=asc&per_page=137"
    rows = walk(board, start, "data-bot", per_page=137)
    assert sorted(rows) == sorted(f"bot-{number:04d}" for number in range(BOTS))
    assert len(set(rows)) == BOTS  # each once
    elo = {f"bot-{n:04d}": 1000.0 + (n * 7919) % 997 for n in range(BOTS)}
    assert rows == sorted(elo, key=lambda bot: (elo[bot], bot))  # the sort kept across pages


@on_sqlite_only
def test_a_sort_link_starts_from_the_first_page_and_keeps_the_filters(board: Site) -> None:
    page = board.get("/leaderboard?variant=guandan&page=3&per_page=20")
    sorts = [html.unescape(h) for h in re.findall(r'<a class="sort[^"]*" href="([^"]+)"', page)]
    assert sorts
    for href in sorts:
        asked = dict(parse_qsl(urlsplit(href).query))
        assert "page" not in asked and asked["variant"] == "guandan" and asked["per_page"] == "20"


def test_the_tournaments_are_paged(board: Site) -> None:
    rows = walk(board, "/tournaments?per_page=25", "data-tournament", per_page=25)
    assert sorted(rows) == [f"cup-{number:03d}" for number in range(TOURNAMENTS)]


@on_sqlite_only
@pytest.mark.parametrize("parameter", ["page", "per_page"])
def test_a_page_out_of_range_is_refused_naming_it(board: Site, parameter: str) -> None:
    with httpx.Client(base_url=board.url, timeout=60) as http:
        response = http.get(f"/leaderboard?{parameter}=0", headers={"accept-language": "en"})
    assert response.status_code == 400 and parameter in response.text


# -- a bot's opponents, matches found by text ----------------------------------------------


def test_a_bots_opponents_are_paged(searched: Site) -> None:
    opponents = {row.opponent for row in searched.store.head_to_head("bench-0000")}
    assert len(opponents) > 5
    rows = walk(searched, "/bots/bench-0000?per_page=5", "data-opponent", "opponents-pager", 5)
    assert sorted(rows) == sorted(opponents)


def test_a_search_matching_everything_counts_only_so_far_and_says_there_are_more(
    searched: Site,
) -> None:
    assert searched.store.broad_text("bench") and not searched.store.broad_text("bench-000001")
    page = searched.get("/matches?q=bench")
    assert len(rows_of(page, "data-match")) == DEFAULT_PER_PAGE
    assert position(page) == (
        f"Page 1 of {SEARCH_AHEAD // DEFAULT_PER_PAGE} (more than {SEARCH_AHEAD:,} matches)"
    )
    assert position(searched.get("/matches?q=bench", "zh")).endswith(
        f"共 {SEARCH_AHEAD:,} 场以上）"
    )
    rows = walk(
        searched, f"/matches?q=bench&per_page={MAX_PER_PAGE}", "data-match", per_page=MAX_PER_PAGE
    )
    assert len(rows) == len(set(rows)) == MATCHES  # the pages go on past what was counted


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    text=st.one_of(
        st.sampled_from(["bench", "bench-00", "bench-0001", "-00001", "0", "nobody", "%", "_"]),
        st.text("bench-0123456789%_\\", min_size=1, max_size=8),
    ),
    variant=st.sampled_from([None, "guandan", "sanfu"]),
)
def test_a_broad_search_finds_what_a_selective_one_does(
    searched: Site, text: str, variant: str | None
) -> None:
    """Reading matches newest first and checking each finds the same matches, in the
    same order, as gathering the bots' matches; a bounded count stops at its bound."""
    store = searched.store
    wanted = MatchFilter(text=text, variant=variant)
    found = {}
    for broad in (False, True):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(Store, "broad_text", lambda self, text, broad=broad: broad)
            found[broad] = (
                [row.id for row in store.match_listings(wanted, limit=MATCHES)],
                store.count_matches(wanted),
                store.count_matches(wanted, most=7),
            )
    assert found[True] == found[False]
    ids, total, most = found[True]
    assert len(ids) == total and most == min(total, 7)


@dataclass(frozen=True)
class Running:
    """A match being played, as the list of running matches reads it."""

    id: str

    def summary(self) -> arena_pb2.MatchSummary:
        info = arena_pb2.MatchInfo(match_id=self.id, variant="guandan", players=["a"] * 4)
        return arena_pb2.MatchSummary(info=info, status=arena_pb2.MATCH_STATUS_RUNNING)


@on_sqlite_only
def test_the_matches_being_played_are_paged(board: Site) -> None:
    running = {f"live-{number:03d}": Running(f"live-{number:03d}") for number in range(120)}
    loop = LoopThread()
    face = app.create_app(Viewer(board.store, sessions=running))  # type: ignore[arg-type]
    server = serving.WebServer(face, "127.0.0.1", 0)
    port = loop.run(server.start())
    try:
        site = Site(f"http://127.0.0.1:{port}", board.store)
        rows = walk(site, "/matches?variant=guandan&live=1", "data-match", "live-pager", key="live")
        assert sorted(rows) == sorted(running)
    finally:
        loop.run(server.stop())
        loop.close()


def test_a_tournaments_standings_are_paged_apart_from_its_matches(searched: Site) -> None:
    tournament = "bench-guandan-cup-0"
    standings = searched.store.results(tournament_id=tournament)
    assert len(standings) > 5
    start = f"/tournaments/{tournament}?per_page=5&page=2"
    rows = walk(searched, start, "data-bot", "standings-pager", 5, key="standings")
    assert sorted(rows) == sorted(standings)
    assert searched.store.count_matches(MatchFilter(tournament_id=tournament)) > 5
    page = searched.get(f"/tournaments/{tournament}?per_page=5&page=1&standings=2")
    matches = dict(parse_qsl(urlsplit(link(page, "next") or "").query))
    standing = dict(parse_qsl(urlsplit(link(page, "next", "standings-pager") or "").query))
    assert (matches["page"], matches["standings"]) == ("2", "2")  # each pager its own
    assert (standing["page"], standing["standings"]) == ("1", "3")
