"""The web face asked what no page offers, on a real server with its tables (the module's
``live`` server): an unknown table, a method a route does not answer, a 20 KB path
segment or query value on every route. Each is the site's own error page (or the API's
JSON), in the page's language, naming what was wrong as a bounded prefix of it
(:func:`arena.errors.quoted`), never a 500 or an echo of the whole input.

What would break it: a key missing from a catalog (the unknown table was a 500 in both
languages), a 405 without ``Allow`` (or naming only the first of the routes sharing a
path), an error page or a log line quoting input whole, uvicorn refusing a long
request line itself (its plain-text 400, not the site's page).
"""

from __future__ import annotations

import html
import io
import json
import re
from collections.abc import Iterator
from typing import Final

import httpx
import pytest
from browser import Live

from arena.errors import QUOTE_LIMIT
from arena.log import configure
from arena.web.i18n import LANGUAGES

LONG: Final = "x" * 20_000
"""A 20 KB path segment or query value."""
BOUND: Final = 12_000
"""More than any error page holds (about 4 KB), much less than the input."""
CJK: Final = re.compile(r"[\u4e00-\u9fff]")

GET_ROUTES: Final = (
    "/bots/{x}",
    "/tournaments/{x}",
    "/api/tournaments/{x}/progress",
    "/matches/{x}",
    "/api/matches/{x}/table",
    "/api/matches/{x}/live",
    "/tables/{x}",
    "/tables/{x}/join",
    "/api/tables/{x}/seat",
    "/reports/{x}",
)
"""Every route with a name or an id in its path (GET)."""
POST_ROUTES: Final = (
    "/api/tables/{x}/act",
    "/api/tables/{x}/hint",
    "/api/tables/{x}/read",
    "/tables/{x}/join",
)
QUERIES: Final = (
    "/leaderboard?{p}={x}",
    "/matches?{p}={x}",
    "/tournaments?{p}={x}",
    "/reports?{p}={x}",
    "/tables/new?{p}={x}",
    "/account?{p}={x}",
    "/healthz?{p}={x}",
)
PARAMETERS: Final = ("variant", "tournament", "q", "page", "sort", "invite", "next", "lang", "deal")


@pytest.fixture(scope="module")
def http(live: Live) -> Iterator[httpx.Client]:
    """One client for the module's requests (no cookies kept: each is a stranger's)."""
    with httpx.Client(base_url=live.url, timeout=60, cookies=None) as client:
        yield client


def ask(http: httpx.Client, method: str, path: str, lang: str) -> httpx.Response:
    http.cookies.clear()
    return http.request(method, path, headers={"accept-language": lang})


def message_of(response: httpx.Response) -> str:
    if response.headers["content-type"].startswith("application/json"):
        return str(response.json()["message"])
    found = re.search(r'<p class="error-message"[^>]*>(.*?)</p>', response.text, re.S)
    assert found is not None, response.text[:500]
    return html.unescape(found.group(1))


def bounded(response: httpx.Response, path: str) -> None:
    """The page is the site's own, short, and quotes no more of the input than a
    bounded prefix."""
    assert response.status_code < 500, (path[:80], response.status_code)
    assert len(response.content) < BOUND, (path[:80], len(response.content))
    assert "x" * (QUOTE_LIMIT + 1) not in response.text, path[:80]
    assert "Invalid HTTP request" not in response.text, "uvicorn's own refusal"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", ["/tables/nope", "/tables/nope/join?invite=x"])
def test_an_unknown_table_is_a_404_naming_it_in_each_language(
    http: httpx.Client, path: str, lang: str
) -> None:
    response = ask(http, "GET", path, lang)
    assert response.status_code == 404, response.text[:300]
    message = message_of(response)
    assert "'nope'" in message
    assert bool(CJK.search(message)) == (lang == "zh"), message


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("DELETE", "/leaderboard", "GET, HEAD"),
        ("POST", "/matches/x", "GET, HEAD"),
        ("GET", "/tables", "POST"),
        ("GET", "/account/sign-in", "POST"),
        ("PUT", "/tables/x/join", "GET, HEAD, POST"),  # two routes share the path
        ("GET", "/api/tables/x/act", "POST"),
    ],
)
def test_a_405_names_the_methods_the_path_answers(
    http: httpx.Client, method: str, path: str, allowed: str
) -> None:
    response = ask(http, method, path, "en")
    assert response.status_code == 405
    assert response.headers["allow"] == allowed


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_long_path_segment_is_a_bounded_404_on_every_route(http: httpx.Client, lang: str) -> None:
    for route in GET_ROUTES:
        path = route.format(x=LONG)
        response = ask(http, "GET", path, lang)
        bounded(response, path)
        assert response.status_code == 404, (route, response.text[:300])
        message = message_of(response)
        assert "x" * QUOTE_LIMIT in message and "20000 characters" in message, (route, message)
    for route in POST_ROUTES:  # no session (403), or no such table (404)
        path = route.format(x=LONG)
        response = ask(http, "POST", path, lang)
        bounded(response, path)
        assert response.status_code in (403, 404), (route, response.status_code)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_long_query_value_is_a_bounded_400_on_every_route(http: httpx.Client, lang: str) -> None:
    for route in (*QUERIES, *GET_ROUTES):
        for parameter in PARAMETERS:
            path = f"{route.split('?')[0].format(x='known')}?{parameter}={LONG}"
            response = ask(http, "GET", path, lang)
            bounded(response, path)
            assert response.status_code == 400, (path[:80], response.status_code)
            if not path.startswith("/api/"):  # the API's JSON says it in English
                assert bool(CJK.search(message_of(response))) == (lang == "zh"), path[:80]


@pytest.mark.parametrize(
    "path",
    [
        "/matches?q=" + "y" * 90 + "%01",
        "/matches?page=" + "9" * 3000,
        "/leaderboard?tournament=" + "t" * 3000,
        "/matches?variant=" + "v" * 3000,
        "/matches?since=" + "s" * 3000,
        "/tables/nope/join?invite=" + "i" * 3000,
    ],
)
def test_a_value_under_the_query_limit_is_quoted_as_a_bounded_prefix(
    http: httpx.Client, path: str
) -> None:
    response = ask(http, "GET", path, "en")
    bounded(response, path)
    assert response.status_code == 400
    message = message_of(response)
    assert len(message) < 400, message


def test_a_log_line_holds_a_bounded_prefix_of_a_long_path(http: httpx.Client) -> None:
    log = io.StringIO()
    configure(fmt="json", stream=log, level="info")
    try:
        ask(http, "GET", f"/bots/{LONG}", "en")
    finally:
        configure()
    lines = [json.loads(line) for line in log.getvalue().splitlines()]
    (line,) = [e for e in lines if e["event"] == "web_request" and "/bots/" in e["path"]]
    assert line["status"] == 404
    assert len(line["path"]) < 400 and "20006 characters" in line["path"]
