"""Error pages: an unknown id is a 404 page, a bad query parameter a 400 page naming it,
a method a route does not answer a 405 whose ``Allow`` names those it does, the
unexpected a 500 page that shows no internals (the error is logged, with the request's
id shown to the reader). Under ``/api/`` the same errors are JSON. A page quotes what
was asked as a bounded prefix (:func:`arena.errors.quoted`), however long it was."""

from __future__ import annotations

from http import HTTPStatus
from typing import Final

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Match

from arena.errors import quoted
from arena.log import get_logger
from arena.web.i18n import translate
from arena.web.query import BadQuery
from arena.web.rendering import Renderer, page_language
from arena.web.viewer import NotFound

__all__ = ["BadParameter", "ErrorPages", "allowed_methods", "detail"]

log = get_logger("arena.web")

KNOWN_STATUSES: Final = (400, 404, 405, 500)
"""Statuses with a title of their own in the catalogs (others show the 500 title's
neighbour, ``error.other``)."""


class BadParameter(BadQuery):
    """A query parameter the site itself refuses (a sort column, a language …):
    ``wanted`` says what it must be in English, ``reason`` and ``fields`` the same for
    the catalogs (``error.bad.<reason>``)."""

    def __init__(self, name: str, value: str, wanted: str, reason: str, **fields: object) -> None:
        shown = quoted(value)
        super().__init__(f"{name}: {wanted}, got {shown}", name, reason, value=shown, **fields)
        self.name = name


def detail(lang: str, error: Exception) -> str | None:
    """What an unknown id or a bad parameter was, in ``lang`` when the error says which
    (:class:`NotFound`'s ``what``, :class:`BadQuery`'s ``reason``), else its message."""
    if isinstance(error, NotFound) and error.what:
        return translate(lang, f"error.missing.{error.what}", name=quoted(error.name))
    if isinstance(error, BadQuery) and error.reason:
        return translate(
            lang, f"error.bad.{error.reason}", parameter=error.parameter, **error.fields
        )
    return str(error) or None


def allowed_methods(request: Request) -> list[str]:
    """The methods some route of the site answers at the request's path (several routes
    may share a path, one per method)."""
    methods: set[str] = set()
    for route in getattr(request.app, "routes", ()):
        found, _ = route.matches(request.scope)
        if found is Match.FULL or found is Match.PARTIAL:
            methods |= getattr(route, "methods", None) or set()
    return sorted(methods)


class ErrorPages:
    """Renders the error responses of the site."""

    def __init__(self, renderer: Renderer) -> None:
        self.renderer = renderer

    def response(
        self,
        request: Request,
        status: int,
        message: str | None = None,
        error: Exception | None = None,
    ) -> Response:
        """The error page (or JSON under ``/api/``) for ``status``; ``message`` says what
        was wrong when the reader may know it (never for a 500), ``error`` says it in the
        page's language (the JSON of the API keeps ``message``)."""
        lang = page_language(request)
        key = f"error.{status}" if status in KNOWN_STATUSES else "error.other"
        title = translate(lang, f"{key}.title")
        explanation = message or translate(lang, f"{key}.text")
        request_id = getattr(request.state, "request_id", "")
        if request.url.path.startswith("/api/"):
            body = {"error": title, "message": explanation, "request_id": request_id}
            return JSONResponse(body, status_code=status)
        if error is not None:
            explanation = detail(lang, error) or explanation
        context = {
            "status": status,
            "title": title,
            "message": explanation,
            "request_id": request_id,
        }
        return self.renderer.page(request, "error.html", context, status=status)

    async def http_error(self, request: Request, exc: Exception) -> Response:
        """A refused request: its own words when it has some beyond the status's name."""
        if not isinstance(exc, HTTPException):
            return self.response(request, 500)
        status = exc.status_code
        said = exc.detail if status < 500 or status == 503 else None
        known = status in HTTPStatus.__members__.values()
        plain = known and said == HTTPStatus(status).phrase
        response = self.response(request, status, None if plain else said)
        response.headers.update(exc.headers or {})
        if status == 405:
            response.headers["allow"] = ", ".join(allowed_methods(request))
        return response

    async def not_found(self, request: Request, exc: Exception) -> Response:
        return self.response(request, 404, str(exc) or None, exc)

    async def bad_query(self, request: Request, exc: Exception) -> Response:
        return self.response(request, 400, str(exc) or None, exc)

    async def broken_match(self, request: Request, exc: Exception) -> Response:
        """A stored match whose record does not re-play: a 500 saying so (the store was
        changed by hand), logged as an error."""
        log.error("web_broken_match", path=request.url.path, error=str(exc))
        return self.response(request, 500, str(exc) or None)
