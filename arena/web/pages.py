"""The site's pages: each reads through the :class:`~arena.web.viewer.Viewer` and renders
one template. Handlers are plain functions (Starlette runs them in its thread pool, so
a page reading the store never holds up the event loop the gRPC server shares)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from arena.errors import quoted
from arena.web import plots
from arena.web.paging import href, page_link, page_of, paging
from arena.web.params import choice, identifier
from arena.web.rendering import Renderer, page_language, path_of, pool_name
from arena.web.report_populations import is_populations, populations_view
from arena.web.reports import report_view
from arena.web.viewer import LeaderRow, MatchQuery, MatchRow, NotFound, TournamentRow, Viewer

__all__ = ["SORTS", "Pages", "sort_rows"]

SORTS: Final = {
    "elo": "elo",
    "skill": "skill",
    "room": "room_points",
    "matches": "matches",
    "win_rate": "win_rate",
}
"""``sort`` of the leaderboard → the row's field it orders by."""
ORDERS: Final = ("desc", "asc")
POOLS: Final = ("bots", "people")
"""``pool`` of the leaderboard: the bots' league, or the people's rated tables."""


def sort_rows(rows: Sequence[LeaderRow], sort: str, order: str) -> list[LeaderRow]:
    """The rows ordered by ``sort`` (a :data:`SORTS` key), rows without a value last
    in either order, ties by name."""
    field = SORTS[sort]

    def value(row: LeaderRow) -> float | None:
        found: float | int | None = getattr(row, field)
        return None if found is None or not math.isfinite(found) else float(found)

    present = [row for row in rows if value(row) is not None]
    missing = sorted((row for row in rows if value(row) is None), key=lambda r: r.bot)
    present.sort(key=lambda r: r.bot)
    present.sort(key=lambda r: value(r) or 0.0, reverse=order == "desc")
    return present + missing


@dataclass(frozen=True)
class SortLink:
    """A column header's link: the order it asks and whether it is the current sort."""

    href: str
    active: bool
    order: str


class Pages:
    """Every HTML page of the site, over one viewer."""

    def __init__(self, viewer: Viewer, renderer: Renderer) -> None:
        self.viewer = viewer
        self.renderer = renderer

    # -- leaderboard --------------------------------------------------------------

    def home(self, request: Request) -> Response:
        return RedirectResponse("/leaderboard", status_code=307)

    def leaderboard(self, request: Request) -> Response:
        params = request.query_params
        variants = self.viewer.variants()
        tournament = identifier(params, "tournament")
        variant = choice(params, "variant", variants, variants[0])
        if tournament is not None:
            variant = self._tournament_row(tournament).variant
        people = tournament is None and choice(params, "pool", POOLS, "bots") == "people"
        sort = choice(params, "sort", list(SORTS), "elo")
        order = choice(params, "order", ORDERS, "desc")
        number, per_page = paging(params)
        board = self.viewer.leaderboard(variant, tournament=tournament, people=people)
        rows = page_of(sort_rows(board, sort, order), number, per_page)
        links = {key: _sort_link(request, key, sort, order) for key in SORTS}
        return self.renderer.page(
            request,
            "leaderboard.html",
            {
                "variants": variants,
                "variant": variant,
                "tournament": tournament,
                "people": people,
                "rows": rows,
                "sort": sort,
                "order": order,
                "sort_links": links,
                "room": any(row.room_points is not None for row in board),
                "page_link": page_link(request),
            },
        )

    # -- bots ---------------------------------------------------------------------

    def bot(self, request: Request) -> Response:
        number, per_page = paging(request.query_params, "opponents")
        page = self.viewer.bot(request.path_params["name"])
        lang = page_language(request)
        charts = [
            (variant, system, plots.rating_history(points, pool_name(lang, variant), system, lang))
            for variant, systems in sorted(page.history.items())
            for system, points in sorted(systems.items())
            if points
        ]
        return self.renderer.page(
            request,
            "bot.html",
            {
                "page": page,
                "charts": charts,
                "opponents": page_of(page.head_to_head, number, per_page),
                "opponents_link": page_link(request, "opponents"),
            },
        )

    # -- tournaments ----------------------------------------------------------------

    def tournaments(self, request: Request) -> Response:
        number, per_page = paging(request.query_params)
        rows = page_of(self.viewer.tournaments(), number, per_page)
        return self.renderer.page(
            request, "tournaments.html", {"rows": rows, "page_link": page_link(request)}
        )

    def tournament(self, request: Request) -> Response:
        params = request.query_params
        number, per_page = paging(params)
        standing, _ = paging(params, "standings")
        page = self.viewer.tournament(request.path_params["id"], page=number, per_page=per_page)
        room = any(row.room_points is not None for row in page.standings)
        return self.renderer.page(
            request,
            "tournament.html",
            {
                "page": page,
                "room": room,
                "live": self._live_of(page.id),
                "standings": page_of(page.standings, standing, per_page),
                "standings_link": page_link(request, "standings"),
                "page_link": page_link(request),
            },
        )

    def tournament_progress(self, request: Request) -> Response:
        """The tournament's progress as JSON (its page polls it while it runs)."""
        row = self._tournament_row(request.path_params["id"])
        live = [match.id for match in self._live_of(row.id)]
        return JSONResponse(
            {
                "id": row.id,
                "status": row.status,
                "planned": row.planned,
                "played": row.played,
                "live": live,
            },
            headers={"cache-control": "no-store"},
        )

    def _live_of(self, tournament: str) -> list[MatchRow]:
        """The tournament's matches running or waiting to start, by id."""
        found = [row for row in self.viewer.live_matches() if row.tournament == tournament]
        return sorted(found, key=lambda row: row.id)

    def _tournament_row(self, tournament: str) -> TournamentRow:
        for row in self.viewer.tournaments():
            if row.id == tournament:
                return row
        raise NotFound(f"no tournament {quoted(tournament)}", "tournament", tournament)

    # -- matches --------------------------------------------------------------------

    def matches(self, request: Request) -> Response:
        params = {k: v for k, v in request.query_params.items() if k != "lang"}
        query = MatchQuery.parse(params)
        page = self.viewer.matches(query)
        live_number, _ = paging(params, "live")
        running = [row for row in self.viewer.live_matches() if _shown(row, query)]
        live = page_of(running, live_number, query.per_page)
        return self.renderer.page(
            request,
            "matches.html",
            {
                "query": query,
                "params": params,
                "page": page,
                "live": live,
                "live_link": page_link(request, "live"),
                "variants": self.viewer.variants(),
                "page_link": page_link(request),
            },
        )

    # -- balance reports ------------------------------------------------------------

    def reports(self, request: Request) -> Response:
        number, per_page = paging(request.query_params)
        rows = page_of(self.viewer.reports(), number, per_page)
        return self.renderer.page(
            request, "reports.html", {"rows": rows, "page_link": page_link(request)}
        )

    def report(self, request: Request) -> Response:
        name = request.path_params["name"]
        data = self.viewer.report(name)
        lang = page_language(request)
        if is_populations(data):
            shown = populations_view(data, lang, name)
            return self.renderer.page(request, "populations.html", {"name": name, "view": shown})
        view = report_view(data, lang, name)
        return self.renderer.page(request, "report.html", {"name": name, "report": view})

    # -- health ---------------------------------------------------------------------

    def healthz(self, request: Request) -> Response:
        return JSONResponse({"status": "ok"}, headers={"cache-control": "no-store"})


def _shown(row: MatchRow, query: MatchQuery) -> bool:
    """Whether a running match is shown above a list: on its first page, when it is of
    the variant, tournament and bot asked (results and dates are for finished ones)."""
    return (
        query.page == 1
        and query.result is None
        and query.variant in (None, row.variant)
        and query.tournament in (None, row.tournament)
        and (query.bot is None or query.bot in row.players)
        and (query.text is None or query.text in row.id or query.text in row.players)
    )


def _sort_link(request: Request, key: str, sort: str, order: str) -> SortLink:
    """The header link of column ``key``: the current column flips its order, another
    column starts descending; either from the first page."""
    asked = ("asc" if order == "desc" else "desc") if key == sort else "desc"
    dropped = ("sort", "order", "page")
    params = [(k, v) for k, v in request.query_params.multi_items() if k not in dropped]
    return SortLink(
        href(path_of(request), [*params, ("sort", key), ("order", asked)]),
        key == sort,
        order if key == sort else "",
    )
