"""What wraps every request of the site: its language, its security headers, its metrics
and its log line, and the 500 page for anything unexpected.

- Language: ``?lang=zh|en`` chooses it and sets the ``lang`` cookie; else the cookie;
  else ``Accept-Language``; else Chinese. Any other ``lang`` is a 400 page naming it.
- Size: a query longer than :data:`MAX_QUERY` is a 400 page (a page's links carry its
  query on: it stays bounded).
- Headers: a Content-Security-Policy allowing only the site itself (scripts and styles
  in files, images also as ``data:`` URIs for balance plots), no framing, no sniffing.
- Metrics: ``arena_web_requests_total`` and ``arena_web_request_seconds`` by route
  template (``/bots/{name}``, never the name: the labels stay few), method and status.
- Log: one ``web_request`` event per request (method, path, route, status, duration,
  language, request id; a path longer than :data:`LOGGED_PATH` as a quoted prefix, as
  :func:`arena.errors.quoted` quotes input); an unexpected error is logged with its traceback as
  ``web_request_failed`` and answered by the 500 page, which shows none of it.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from http.cookies import SimpleCookie
from typing import Final

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena import metrics
from arena.errors import quoted
from arena.log import get_logger
from arena.plural import counted
from arena.web.errors import BadParameter, ErrorPages
from arena.web.i18n import DEFAULT_LANGUAGE, LANGUAGES, choose_language
from arena.web.query import BadQuery

__all__ = ["LANGUAGE_COOKIE", "LOGGED_PATH", "MAX_QUERY", "SECURITY_HEADERS", "SiteMiddleware"]

MAX_QUERY: Final = 4096
"""The longest query string (bytes) a page of the site takes."""
LOGGED_PATH: Final = 200
"""The longest path a log line holds whole."""

LANGUAGE_COOKIE: Final = "lang"
COOKIE_SECONDS: Final = 365 * 24 * 3600
SECURITY_HEADERS: Final = {
    "content-security-policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; "
        "form-action 'self'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
}

log = get_logger("arena.web")


def logged_path(path: str) -> str:
    """A request's path as a log line holds it: whole, or a quoted prefix when long."""
    return path if len(path) <= LOGGED_PATH else quoted(path, LOGGED_PATH)


def _check_size(scope: Scope) -> None:
    query: bytes = scope.get("query_string", b"")
    if len(query) > MAX_QUERY:
        raise BadQuery(
            f"the address's query is {counted(len(query), 'byte')} long: at most {MAX_QUERY}",
            "query",
            "query_long",
            most=MAX_QUERY,
        )


def _language(request: Request) -> tuple[str, str | None]:
    """The request's language, and the one asked in the query (to keep in the cookie)."""
    asked = request.query_params.get("lang")
    cookie = request.cookies.get(LANGUAGE_COOKIE)
    accept = request.headers.get("accept-language")
    if asked is not None and asked not in LANGUAGES:
        request.state.lang = choose_language(None, cookie, accept)  # the refusal's
        allowed = ", ".join(LANGUAGES)
        raise BadParameter("lang", asked, f"must be one of {allowed}", "choice", allowed=allowed)
    return choose_language(asked, cookie, accept), asked


class _Exchange:
    """One request as the middleware follows it: the response's status, the headers added
    to it, and its metrics and log line, taken once, as its last part is sent (so a
    client that has the whole response finds it counted)."""

    def __init__(self, scope: Scope, send: Send, route: str) -> None:
        self.scope = scope
        self.request = Request(scope)
        self.request.state.request_id = secrets.token_hex(6)
        self.request.state.lang = DEFAULT_LANGUAGE
        self.route = route
        self.asked: str | None = None
        self.status = 500
        self.started = False
        self._send = send
        self._began = time.perf_counter()
        self._done = False

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = int(message["status"])
            self.started = True
            headers = MutableHeaders(scope=message)
            for name, value in SECURITY_HEADERS.items():
                headers.setdefault(name, value)
            if self.asked is not None:
                headers.append("set-cookie", _language_cookie(self.asked))
        elif message["type"] == "http.response.body" and not message.get("more_body", False):
            self.finish()
        await self._send(message)

    def finish(self) -> None:
        """Count and log the request (once)."""
        if self._done:
            return
        self._done = True
        seconds = time.perf_counter() - self._began
        method = self.scope["method"]
        metrics.record_web_request(self.route, method, self.status, seconds)
        log.info(
            "web_request",
            method=method,
            path=logged_path(self.scope["path"]),
            route=self.route,
            status=self.status,
            ms=round(seconds * 1000, 1),
            lang=self.request.state.lang,
            request_id=self.request.state.request_id,
        )


class SiteMiddleware:
    """The outermost layer of the site (see the module's docstring)."""

    def __init__(self, app: ASGIApp, route_of: Callable[[Scope], str], errors: ErrorPages):
        self.app = app
        self.route_of = route_of
        self.errors = errors

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        exchange = _Exchange(scope, send, self.route_of(dict(scope)))
        request = exchange.request
        try:
            request.state.lang, exchange.asked = _language(request)
            _check_size(scope)
            await self.app(scope, receive, exchange.send)
        except BadQuery as err:
            answer = self.errors.response(request, 400, str(err), err)
            await answer(scope, receive, exchange.send)
        except Exception:
            log.exception(
                "web_request_failed", path=logged_path(scope["path"]), route=exchange.route
            )
            if exchange.started:
                raise  # nothing more can be said on this response: the server closes it
            await self.errors.response(request, 500)(scope, receive, exchange.send)
        finally:
            exchange.finish()


def _language_cookie(lang: str) -> str:
    cookie: SimpleCookie = SimpleCookie()
    cookie[LANGUAGE_COOKIE] = lang
    morsel = cookie[LANGUAGE_COOKIE]
    morsel["path"] = "/"
    morsel["max-age"] = COOKIE_SECONDS
    morsel["samesite"] = "Lax"
    return morsel.OutputString()
