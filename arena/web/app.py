"""The web face as one Starlette application over a :class:`~arena.web.viewer.Viewer`.

``create_app(viewer)`` does no I/O: templates and static files come from the package
when first asked. Routes (every one also answers HEAD):

==========================================  =============================================
``/``                                       redirect to ``/leaderboard``
``/leaderboard``                            ``variant``, ``tournament``, ``sort``, ``order``
``/bots/{name}``                            a bot: ratings, their history, matches
``/tournaments``, ``/tournaments/{id}``     the tournaments, one of them
``/tournaments/{id}/progress``              its progress as JSON (polled while it runs)
``/matches``                                the match list, its filters and pages
``/matches/{id}``                           the drawn table
``/api/matches/{id}/table``                 the table's frames as JSON
``/api/matches/{id}/live``                  the table's frames as server-sent events
``/reports``, ``/reports/{name}``           balance reports
``/static/{path}``                          versioned static files
``/healthz``                                ``{"status": "ok"}``
==========================================  =============================================
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

from arena.web.assets import StaticAssets, VersionedStatic
from arena.web.errors import ErrorPages
from arena.web.observe import SiteMiddleware
from arena.web.pages import Pages
from arena.web.query import BadQuery
from arena.web.rendering import Renderer
from arena.web.tables import TablePages
from arena.web.viewer import BrokenMatch, NotFound, Viewer

__all__ = ["UNMATCHED", "create_app"]

UNMATCHED: Final = "unmatched"
"""The route label of a request no route matched."""


def _routes(pages: Pages, tables: TablePages, assets: StaticAssets) -> list[BaseRoute]:
    return [
        Route("/", pages.home),
        Route("/leaderboard", pages.leaderboard),
        Route("/bots/{name:path}", pages.bot),  # a bot's parameters may name a file: '/'
        Route("/tournaments", pages.tournaments),
        Route("/tournaments/{id}", pages.tournament),
        Route("/tournaments/{id}/progress", pages.tournament_progress),
        Route("/matches", pages.matches),
        Route("/matches/{id}", tables.page),
        Route("/api/matches/{id}/table", tables.table),
        Route("/api/matches/{id}/live", tables.live),
        Route("/reports", pages.reports),
        Route("/reports/{name}", pages.report),
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


def create_app(viewer: Viewer) -> Starlette:
    """The site over ``viewer``."""
    assets = StaticAssets()
    renderer = Renderer(assets)
    errors = ErrorPages(renderer)
    routes = _routes(Pages(viewer, renderer), TablePages(viewer, renderer), assets)
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
