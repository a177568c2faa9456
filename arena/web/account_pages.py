"""The routes of people's accounts: sign in, make one, sign out.

==========================================  =============================================
``GET /account``                            the account's page: the forms, or who is in
``POST /account/sign-in``                   name and password (form, CSRF): to ``next``
``POST /account/sign-up``                   a new account, signed in at once
``POST /account/sign-out``                  back to a guest
==========================================  =============================================

Signing in gives the session a new id (the cookie before it opens nothing) and keeps
the seats it held, and gives the browser a device token (:data:`DEVICE_COOKIE`) by which
the name knows it again when strangers have spent their tries at it
(:meth:`Accounts.sign_in`). Passwords go in the request's body only, never in a URL.
"""

from __future__ import annotations

import asyncio
from typing import Final

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from arena.web.accounts import DEVICE_COOKIE, AccountProblem, Accounts, Client
from arena.web.forms import read_form
from arena.web.people import People, Person, guest_name, person_name_problem
from arena.web.rendering import Renderer, page_language

__all__ = ["AccountPages", "safe_next"]

AFTER_SIGN_IN: Final = "/tables/new"
DEVICE_SECONDS: Final = 365 * 24 * 3600


def safe_next(path: str | None) -> str:
    """Where to go after signing in: a path of this site (never another site's)."""
    if not path or not path.startswith("/") or path.startswith(("//", "/\\")):
        return AFTER_SIGN_IN
    return path


class AccountPages:
    """Sign-in, sign-up and sign-out over the site's sessions and a store's accounts."""

    def __init__(self, accounts: Accounts | None, people: People, renderer: Renderer) -> None:
        self._accounts = accounts
        self.people = people
        self.renderer = renderer

    @property
    def accounts(self) -> Accounts:
        """The server's accounts; 503 on a site that only shows a store (``arena web``)."""
        if self._accounts is None:
            raise HTTPException(
                503, "accounts are kept by a server: start it with 'arena serve --web-port PORT'"
            )
        return self._accounts

    def _page(
        self, request: Request, person: Person, target: str, problem: str | None, status: int
    ) -> Response:
        context = {"person": person, "next": target, "problem": problem}
        return self.renderer.page(request, "account.html", context, status=status)

    async def page(self, request: Request) -> Response:
        _ = self.accounts
        person = self.people.of(request)
        started = person is None
        if person is None:  # the forms' CSRF token needs a session
            person = self.people.start(guest_name())
        response = self._page(
            request, person, safe_next(request.query_params.get("next")), None, 200
        )
        if started:
            self.people.set_cookie(person, response)
        return response

    async def sign_in(self, request: Request) -> Response:
        return await self._enter(request, new=False)

    async def sign_up(self, request: Request) -> Response:
        return await self._enter(request, new=True)

    async def _enter(self, request: Request, *, new: bool) -> Response:
        form = await read_form(request)
        person = self.people.check(request, form.get("csrf", ""))
        target = safe_next(form.get("next"))
        name, password = form.get("name", "").strip(), form.get("password", "")
        client = Client.of(
            request.client.host if request.client else None, request.cookies.get(DEVICE_COOKIE)
        )
        refused = person_name_problem(name)
        device = ""
        if refused is None:
            try:
                if new:
                    await asyncio.to_thread(self.accounts.sign_up, name, password)
                    device = self.accounts.remember(client, name)
                else:
                    device = await asyncio.to_thread(self.accounts.sign_in, name, password, client)
            except AccountProblem as err:
                refused = err
        if refused is not None:
            problem = refused.text(page_language(request))
            return self._page(request, person, target, problem, 400)
        person = self.people.sign_in(person, name)
        response = RedirectResponse(target, status_code=303)
        self.people.set_cookie(person, response)
        response.set_cookie(
            DEVICE_COOKIE,
            device,
            max_age=DEVICE_SECONDS,
            path="/account",
            httponly=True,
            samesite="strict",
        )
        return response

    async def sign_out(self, request: Request) -> Response:
        form = await read_form(request)
        person = self.people.check(request, form.get("csrf", ""))
        self.people.end(person)
        guest = self.people.start(guest_name())
        response = RedirectResponse("/account", status_code=303)
        self.people.set_cookie(guest, response)
        return response
