"""A person at a table, driven over HTTP as a browser would: a session (its cookie and
CSRF token), the table form, the seat's server-sent events read in a thread, answers.
A plugin of the tests (``conftest.py``): the fixture ``person`` is a :class:`Seated` at
the module's ``live`` server."""

from __future__ import annotations

import json
import queue
import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from browser import Live, wait_until

WAIT = 30.0
"""Seconds any one wait of these helpers may take."""
CSRF = re.compile(r'name="csrf" value="([^"]+)"')


class Seated:
    """One person's browser: its own cookies, the seat stream's events in a queue; it
    asks for English pages."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.http = httpx.Client(
            base_url=base,
            timeout=WAIT,
            follow_redirects=False,
            headers={"accept-language": "en"},
        )
        self.csrf = ""
        self.table = ""
        self.events: queue.Queue[tuple[str, dict[str, Any]] | None] = queue.Queue()
        self.seen: list[tuple[str, dict[str, Any]]] = []
        self._reader: threading.Thread | None = None
        self._stop = threading.Event()

    # -- the site ----------------------------------------------------------------------

    def session(self, path: str = "/tables/new") -> str:
        """Open a page that starts a session; its form's CSRF token."""
        page = self.http.get(path)
        assert page.status_code == 200, page.text[:300]
        found = CSRF.search(page.text)
        assert found is not None, "the page has no CSRF field"
        self.csrf = found.group(1)
        return page.text

    def account(self, name: str, password: str, *, new: bool = True) -> httpx.Response:
        """Make an account (``new``) or sign in to one, from the account page's form."""
        self.session("/account")
        action = "/account/sign-up" if new else "/account/sign-in"
        form = {"csrf": self.csrf, "name": name, "password": password}
        response = self.http.post(action, data=form)
        if response.status_code == 303:
            self.session()  # a new session: its CSRF token
        return response

    def open(
        self,
        variant: str,
        seats: tuple[str, str, str],
        deals: str = "1",
        extra: dict[str, str] | None = None,
    ) -> httpx.Response:
        """POST the table form (``extra`` overrides or adds fields)."""
        form = {
            "csrf": self.csrf,
            "name": "tester",
            "variant": variant,
            "deals": deals,
            "seat1": seats[0],
            "seat2": seats[1],
            "seat3": seats[2],
            **(extra or {}),
        }
        response = self.http.post("/tables", data=form)
        if response.status_code == 303:
            self.table = response.headers["location"].rsplit("/", 1)[1]
        return response

    def join(self, invite_url: str, name: str) -> httpx.Response:
        page = self.session(invite_url.replace(self.base, ""))
        invite = re.search(r'name="invite" value="([^"]+)"', page)
        assert invite is not None
        table = invite_url.split("/tables/")[1].split("/")[0]
        response = self.http.post(
            f"/tables/{table}/join",
            data={"csrf": self.csrf, "invite": invite.group(1), "name": name},
        )
        if response.status_code == 303:
            self.table = table
        return response

    def act(self, request_id: str, action: str, csrf: str | None = None) -> httpx.Response:
        return self.http.post(
            f"/api/tables/{self.table}/act",
            json={"request_id": request_id, "action": action},
            headers={"x-csrf-token": self.csrf if csrf is None else csrf},
        )

    # -- the seat's stream ----------------------------------------------------------------

    def listen(self) -> None:
        """Read the seat's stream in a thread (again: a reload)."""
        self.stop()
        self._stop = threading.Event()
        self.events = queue.Queue()
        self._reader = threading.Thread(target=self._read, args=(self._stop,), daemon=True)
        self._reader.start()

    def _read(self, stop: threading.Event) -> None:
        events = self.events
        try:
            with self.http.stream("GET", f"/api/tables/{self.table}/seat") as response:
                if response.status_code != 200:
                    events.put(("status", {"status": response.status_code}))
                    return
                name = ""
                for line in response.iter_lines():
                    if stop.is_set():
                        return
                    if line.startswith("event: "):
                        name = line[7:]
                    elif line.startswith("data: "):
                        events.put((name, json.loads(line[6:])))
        except httpx.HTTPError:
            pass
        finally:
            events.put(None)

    def next(self, *names: str, seconds: float = WAIT) -> tuple[str, dict[str, Any]]:
        """The next event named one of ``names`` (any, if none named)."""
        until = time.monotonic() + seconds
        while True:
            left = until - time.monotonic()
            assert left > 0, f"no {names or 'event'} within {seconds} s; seen {self.seen[-5:]}"
            try:
                event = self.events.get(timeout=left)
            except queue.Empty:
                continue
            assert event is not None, f"the stream ended waiting for {names}"
            self.seen.append(event)
            if not names or event[0] in names:
                return event

    def play_out(self, choose: int = 0) -> dict[str, Any]:
        """Answer every decision with its legal action number ``choose`` (or the last)
        until the match is over: the ``over`` event's data."""
        while True:
            name, data = self.next("decision", "over")
            if name == "over":
                return data
            legal = data["legal"]
            self.answer(data["request_id"], legal[min(choose, len(legal) - 1)])

    def answer(self, request_id: str, action: str) -> None:
        """:meth:`act`, again after a pause while it is too fast for the rate limit."""
        answered = self.act(request_id, action)
        while answered.status_code == 429:  # faster than a person: slowed down
            time.sleep(0.1)
            answered = self.act(request_id, action)
        assert answered.status_code == 200, answered.text

    def stop(self) -> None:
        self._stop.set()

    def close(self) -> None:
        self.stop()
        self.http.close()


class WaitingBot:
    """A registered bot (a random one) played by the SDK in a thread of its own, waiting
    for one casual match of ``variant``: started, and waited for until the server knows
    it waits."""

    def __init__(self, live: Live, name: str, token: str, variant: str = "guandan") -> None:
        import asyncio

        from arena.client.runner import run_bot_async
        from bots.simple import RandomBot

        self.summaries: list[Any] = []

        def play() -> None:
            run = run_bot_async(
                RandomBot(3), live.arena.address, token, [variant], rated=False, matches=1
            )
            self.summaries.append(asyncio.run(run))

        self.thread = threading.Thread(target=play, daemon=True)
        self.thread.start()

        def waiting() -> bool:
            async def waits() -> bool:
                return live.arena.running.play.matchmaker.waits(name, variant, False)

            return bool(live.arena.run(waits()))

        wait_until(waiting, f"{name} waits for a match")

    def played(self) -> Any:
        """The SDK's summary once its match is over."""
        self.thread.join(WAIT)
        assert self.summaries, "the bot's run did not end"
        return self.summaries[0]


@pytest.fixture
def person(live: Live) -> Iterator[Seated]:
    """One person's browser at the module's ``live`` server."""
    seated = Seated(live.url)
    yield seated
    seated.close()
