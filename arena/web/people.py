"""The people who play at the site's tables: their sessions, CSRF tokens and rate limits.

A person is known by a session cookie (:data:`SESSION_COOKIE`: HttpOnly, SameSite=Strict,
path ``/``), a random id the server keeps in memory with the person's name and CSRF
token; nothing secret ever goes in a URL. Every state-changing request must carry the
session's CSRF token (a form's ``csrf`` field, or the ``X-CSRF-Token`` header of a
script's request) and come from the site itself (``Origin``, when the browser sends it,
names this host): :meth:`People.check` refuses the others with a 403 naming what was
wrong. Each person's requests are rate-limited (:data:`ACTIONS_PER_SECOND`).
"""

from __future__ import annotations

import hmac
import re
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlsplit

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from arena.rating.pools import PERSON_PREFIX
from arena.server.limits import RateLimit
from arena.web.i18n import Refusal, translate
from arena.web.rendering import page_language

__all__ = [
    "CSRF_HEADER",
    "MAX_PEOPLE",
    "NAME_PATTERN",
    "SESSION_COOKIE",
    "People",
    "Person",
    "guest_name",
    "person_name_problem",
]

SESSION_COOKIE: Final = "arena_session"
CSRF_HEADER: Final = "x-csrf-token"
SESSION_SECONDS: Final = 7 * 24 * 3600
MAX_PEOPLE: Final = 10_000
"""Sessions kept; the least recently seen is forgotten beyond."""
ACTIONS_PER_SECOND: Final = 10.0
"""A person's state-changing requests, on average (bursts of twice as many)."""
READS_PER_SECOND: Final = 20.0
"""A person's readings of a selection (a bucket of their own: they follow the clicks)."""
NAME_PATTERN: Final = re.compile(r"[A-Za-z0-9_.\-\u00c0-\u024f\u4e00-\u9fff]{1,24}")
"""A person's name at a table: 1 to 24 letters (Latin or Chinese), digits, ``_ . -``."""


def guest_name() -> str:
    """A name for a new guest (they may choose another)."""
    return f"guest-{secrets.token_hex(2)}"


def person_name_problem(name: str) -> Refusal | None:
    """Why ``name`` cannot be a person's name, or None."""
    if not NAME_PATTERN.fullmatch(name):
        return Refusal("tables.cannot.name", name=name[:40])
    return None


@dataclass
class Person:
    """Someone with a session: a name, a CSRF token, a rate limit."""

    id: str
    name: str
    csrf: str
    limit: RateLimit = field(repr=False)
    reads: RateLimit = field(repr=False)
    seen: float = field(default_factory=time.monotonic)
    account: bool = False
    """Signed in: the name is their account's (:mod:`arena.web.accounts`), else a guest's."""

    @property
    def player(self) -> str:
        """The player name a match records for this person."""
        return PERSON_PREFIX + self.name


class People:
    """The sessions of this server (in memory: a restart forgets them, as it stops the
    tables they sat at)."""

    def __init__(self, actions_per_second: float = ACTIONS_PER_SECOND) -> None:
        self._people: OrderedDict[str, Person] = OrderedDict()
        self._lock = threading.Lock()
        self._rate = actions_per_second

    def of(self, request: Request) -> Person | None:
        """The person whose session cookie the request carries, if it is known."""
        session = request.cookies.get(SESSION_COOKIE, "")
        with self._lock:
            person = self._people.get(session)
            if person is not None:
                person.seen = time.monotonic()
                self._people.move_to_end(session)
        return person

    def start(self, name: str) -> Person:
        """A new session for ``name`` (checked by the caller): :meth:`set_cookie` gives it
        to the browser."""
        person = Person(
            id=secrets.token_urlsafe(32),
            name=name,
            csrf=secrets.token_urlsafe(32),
            limit=RateLimit(self._rate, burst=2 * self._rate),
            reads=RateLimit(READS_PER_SECOND, burst=2 * READS_PER_SECOND),
        )
        with self._lock:
            self._people[person.id] = person
            while len(self._people) > MAX_PEOPLE:
                self._people.popitem(last=False)
        return person

    def sign_in(self, person: Person, name: str) -> Person:
        """The session of the account ``name``, signed in from ``person``'s: a new id
        (the old cookie opens nothing) and CSRF token. A guest keeps the seats they hold;
        another account's seats stay that account's (a new session)."""
        if person.account and person.name != name:
            self.end(person)
            person = self.start(name)
        with self._lock:
            self._people.pop(person.id, None)
            person.id, person.csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
            person.name, person.account = name, True
            self._people[person.id] = person
        return person

    def end(self, person: Person) -> None:
        """Forget the session (signed out)."""
        with self._lock:
            self._people.pop(person.id, None)

    @staticmethod
    def set_cookie(person: Person, response: Response) -> None:
        """The session's cookie on ``response``."""
        response.set_cookie(
            SESSION_COOKIE,
            person.id,
            max_age=SESSION_SECONDS,
            path="/",
            httponly=True,
            samesite="strict",
        )

    def check(self, request: Request, token: str | None = None, *, read: bool = False) -> Person:
        """The person behind a state-changing request, after its checks: a session, the
        site's own origin, the CSRF token (``token``: a form's field; else the
        :data:`CSRF_HEADER` header) and the rate limit (``read``: the readings' own).
        403 or 429 naming what failed, in the page's language."""
        lang = page_language(request)
        person = self.of(request)
        if person is None:
            raise HTTPException(403, translate(lang, "tables.denied.no_session"))
        origin = request.headers.get("origin")
        if origin is not None and urlsplit(origin).netloc != request.headers.get("host", ""):
            said = translate(lang, "tables.denied.other_site", origin=origin[:80])
            raise HTTPException(403, said)
        given = token if token is not None else request.headers.get(CSRF_HEADER, "")
        if not hmac.compare_digest(given.encode(), person.csrf.encode()):
            raise HTTPException(403, translate(lang, "tables.denied.csrf"))
        if not (person.reads if read else person.limit).allow():
            raise HTTPException(429, translate(lang, "tables.denied.too_many"))
        return person
