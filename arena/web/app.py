"""The web face as one Starlette application over a :class:`~arena.web.viewer.Viewer`.

``create_app(viewer)`` does no I/O: templates and static files come from the package
when first asked. Routes (every one also answers HEAD):

==========================================  =============================================
``/``                                       redirect to ``/leaderboard``
``/leaderboard``                            ``variant``, ``pool``, ``tournament``, ``sort``…
``/bots/{name}``                            a bot: ratings, their history, matches
``/tournaments``, ``/tournaments/{id}``     the tournaments, one of them
``/api/tournaments/{id}/progress``          its progress as JSON (polled while it runs)
``/matches``                                the match list, its filters and pages
``/matches/{id}``                           the drawn table
``/api/matches/{id}/table``                 the table's frames as JSON
``/api/matches/{id}/live``                  the table's frames as server-sent events
``/reports``, ``/reports/{name}``           balance reports
``/static/{path}``                          versioned static files
``/tables/new``, ``/tables``, ``/tables/{id}``  people's tables (:mod:`arena.web.seat_pages`)
``/tables/{id}/join``, ``/api/tables/…``    (a server's web face only: ``play`` given)
``/account``, ``/account/sign-…``           people's accounts (:mod:`arena.web.account_pages`)
``/healthz``                                ``{"status": "ok"}``
==========================================  =============================================

A name or an id in a path is one segment, every ``/ ? # %`` in it escaped
(:func:`~arena.web.rendering.segment`); the routes take it whole (``{id:path}``: the
server has un-escaped ``%2F`` by the time routes match), so that any name's link opens
its page. Only the last segment of a route is such a name, or a fixed word follows it
on a route no other route's name can reach (``/api/tournaments/{id}/progress``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Match, Mount, Route
from starlette.types import Scope

from arena.server.play import PlayService
from arena.web.account_pages import AccountPages
from arena.web.accounts import Accounts
from arena.web.assets import StaticAssets, VersionedStatic
from arena.web.errors import ErrorPages
from arena.web.host import TableHost
from arena.web.observe import SiteMiddleware
from arena.web.pages import Pages
from arena.web.people import People
from arena.web.query import BadQuery
from arena.web.rendering import Renderer
from arena.web.seat_pages import SeatPages
from arena.web.tables import TablePages
from arena.web.viewer import BrokenMatch, NotFound, Viewer

__all__ = ["UNMATCHED", "create_app"]

UNMATCHED: Final = "unmatched"
"""The route label of a request no route matched."""


def _routes(
    pages: Pages,
    tables: TablePages,
    seats: SeatPages,
    accounts: AccountPages,
    assets: StaticAssets,
) -> list[BaseRoute]:
    return [
        Route("/", pages.home),
        Route("/leaderboard", pages.leaderboard),
        Route("/bots/{name:path}", pages.bot),
        Route("/tournaments", pages.tournaments),
        Route("/tournaments/{id:path}", pages.tournament),
        Route("/api/tournaments/{id:path}/progress", pages.tournament_progress),
        Route("/matches", pages.matches),
        Route("/matches/{id:path}", tables.page),
        Route("/api/matches/{id:path}/table", tables.table),
        Route("/api/matches/{id:path}/live", tables.live),
        Route("/tables/new", seats.new),
        Route("/tables", seats.create, methods=["POST"]),
        Route("/tables/{id}", seats.page),
        Route("/tables/{id}/join", seats.join_page, name="join"),
        Route("/tables/{id}/join", seats.join, methods=["POST"]),
        Route("/api/tables/{id}/seat", seats.seat),
        Route("/api/tables/{id}/act", seats.act, methods=["POST"]),
        Route("/api/tables/{id}/hint", seats.hint, methods=["POST"]),
        Route("/api/tables/{id}/read", seats.read, methods=["POST"]),
        Route("/account", accounts.page),
        Route("/account/sign-in", accounts.sign_in, methods=["POST"]),
        Route("/account/sign-up", accounts.sign_up, methods=["POST"]),
        Route("/account/sign-out", accounts.sign_out, methods=["POST"]),
        Route("/reports", pages.reports),
        Route("/reports/{name:path}", pages.report),
        Route("/healthz", pages.healthz),
        Mount("/static", app=VersionedStatic(assets), name="static"),
    ]


CONVERTOR = re.compile(r"\{(\w+):\w+\}")
"""A path parameter's convertor (``{name:path}``), left out of the route's label."""


def _route_finder(routes: list[BaseRoute]) -> Callable[[Scope], str]:
    """The template of the route a request goes to (labels of the request metrics)."""

    def route_of(scope: Scope) -> str:
        for route in routes:
            found, _ = route.matches(scope)
            if found is Match.FULL or found is Match.PARTIAL:
                return CONVERTOR.sub(r"{\1}", str(getattr(route, "path", UNMATCHED)))
        return UNMATCHED

    return route_of


def create_app(viewer: Viewer, play: PlayService | None = None) -> Starlette:
    """The site over ``viewer``; people play at tables of ``play``'s server if given."""
    assets = StaticAssets()
    renderer = Renderer(assets)
    errors = ErrorPages(renderer)
    tables = TablePages(viewer, renderer)
    host = TableHost(play) if play is not None else None
    renderer.env.globals["tables_open"] = host is not None  # the menu offers a seat
    people = People()
    accounts = Accounts(play.store) if play is not None else None
    seats = SeatPages(host, people, renderer, tables, accounts)
    account_pages = AccountPages(accounts, people, renderer)
    routes = _routes(Pages(viewer, renderer), tables, seats, account_pages, assets)
    app = Starlette(
        routes=routes,
        middleware=[Middleware(SiteMiddleware, route_of=_route_finder(routes), errors=errors)],
        exception_handlers={
            HTTPException: errors.http_error,
            NotFound: errors.not_found,
            BadQuery: errors.bad_query,
            BrokenMatch: errors.broken_match,
        },
    )
    app.state.viewer = viewer
    app.state.assets = assets
    return app
