"""The routes where people play: open a table, join one, sit at it, answer.

==========================================  =============================================
``GET /tables/new``                         the form to open a table (starts a session)
``POST /tables``                            open it (form, CSRF): to its page
``GET /tables/{id}``                        the person's seat at the drawn table
``GET /tables/{id}/join?invite=…``          the invitation's page; ``POST`` takes a seat
``GET /api/tables/{id}/seat``               the seat's server-sent events (session)
``POST /api/tables/{id}/act``               an answer, JSON ``{request_id, action}`` (CSRF)
``POST /api/tables/{id}/hint``              what the heuristic bot would play now (CSRF)
``POST /api/tables/{id}/read``              what selected cards read as, ``{cards}`` (CSRF)
==========================================  =============================================

Only the session cookie says who is asking; the seat's stream and answers belong to
the person sitting there, and a page never holds another seat's hand: the felt is drawn
from the public stream, the person's own cards from their seat's.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any, Final

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

import bots
from arena import games
from arena.commands.arguments import game_options
from arena.errors import ConfigError, ParseError, quoted
from arena.games import family_of
from arena.web.accounts import Accounts
from arena.web.events import EventStream
from arena.web.forms import read_form, read_json
from arena.web.host import PERSON, Table, TableHost, TableProblem
from arena.web.i18n import Refusal, catalog, translate
from arena.web.params import identifier
from arena.web.people import People, Person, guest_name, person_name_problem
from arena.web.readings import read_selection
from arena.web.refusals import in_person_words, pass_key
from arena.web.rendering import Renderer, page_language, segment
from arena.web.tables import TablePages
from arena.web.viewer import NotFound

__all__ = ["SeatPages"]

SEAT_BOTS: Final = ("heuristic", "search:samples=16", "random", "first")
"""The bots the form offers first (any built-in bot's name may be typed)."""
TUTORIALS: Final = ("guandan", "shengji-2", "sanfu")
"""The variants the form offers a tutorial deal of, one per game."""
TUTORIAL_BOT: Final = "heuristic"
DEALS: Final = ("match", "1", "3", "10")
"""The lengths the form offers: the whole match, or so many deals."""


def said(request: Request, error: Exception) -> str:
    """What a refusal says, in the request's language when it is the site's own."""
    return error.text(page_language(request)) if isinstance(error, Refusal) else str(error)


def _sse(events: AsyncIterator[tuple[str, dict[str, Any]]]) -> AsyncIterator[tuple[str, str]]:
    async def encoded() -> AsyncIterator[tuple[str, str]]:
        async for name, data in events:
            yield name, json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    return encoded()


VERBS: Final = ("pass", "play", "declare", "bury", "tribute", "return")


def seat_words(lang: str, family: str) -> dict[str, str]:
    """How the seat panel names actions in ``lang``: verbs (``verb.play``; a phase's own
    word, ``verb.pass.declare``), the kinds a play may be read as (``kind.pair_run``),
    and the rules a refusal may cite, each in a line (``rule.GD-8``, ``rule_is``). Cards
    are named with the felt's own words."""
    words = {f"verb.{verb}": translate(lang, f"tables.verb.{verb}") for verb in VERBS}
    words["verb.pass.declare"] = translate(lang, pass_key("declare"))
    for key, text in catalog(lang).items():
        if key.startswith(f"table.kind.{family}."):
            words["kind." + key.rsplit(".", 1)[1]] = text
    rules = {"guandan": "GD-", "shengji": "SJ-", "sanfu": "SF-"}[family]
    for key, text in catalog(lang).items():
        if key.startswith(f"tables.rule.{rules}"):
            words["rule." + key.rsplit(".", 1)[1]] = text
    words["rule_is"] = translate(lang, "tables.rule_is")
    return words


def tutorial_tips(lang: str, family: str) -> list[str]:
    """The first rules of a game for its tutorial deal, in order (``tables.tutorial.*``)."""
    prefix = f"tables.tutorial.{family}."
    found = [
        (key[len(prefix) :], text) for key, text in catalog(lang).items() if key.startswith(prefix)
    ]
    return [text for _, text in sorted(found, key=lambda item: int(item[0]))]


class SeatPages:
    """Tables opened and played by people, over one :class:`TableHost`."""

    def __init__(
        self,
        host: TableHost | None,
        people: People,
        renderer: Renderer,
        tables: TablePages,
        accounts: Accounts | None = None,
    ) -> None:
        self._host = host
        self.people = people
        self.accounts = accounts
        self.renderer = renderer
        self.tables = tables

    @property
    def host(self) -> TableHost:
        """The server's tables; 503 on a site that only shows a store (``arena web``)."""
        if self._host is None:
            raise HTTPException(
                503,
                "people play at the tables of a server: start it with "
                "'arena serve --web-port PORT' (this site only shows its store)",
            )
        return self._host

    def _person(self, request: Request) -> tuple[Person, bool]:
        """The request's person, or a new guest's session (then True: its cookie is to
        be set)."""
        person = self.people.of(request)
        if person is not None:
            return person, False
        return self.people.start(guest_name()), True

    def _table(self, request: Request) -> Table:
        table_id = request.path_params["id"]
        table = self.host.table(table_id)
        if table is None:
            raise NotFound(f"no table {quoted(table_id)}", "table", table_id)
        return table

    # -- opening ------------------------------------------------------------------------

    def _form_page(
        self, request: Request, person: Person, problem: str | None, status: int
    ) -> Response:
        return self.renderer.page(
            request,
            "table_new.html",
            {
                "variants": games.names(),
                "bots": SEAT_BOTS,
                "bot_names": bots.names(),
                "connected": self.host.play.matchmaker.waiting_bots(rated=False),
                "deals": DEALS,
                "tutorials": TUTORIALS,
                "person": person,
                "problem": problem,
                "PERSON": PERSON,
            },
            status=status,
        )

    async def new(self, request: Request) -> Response:
        _ = self.host  # a site that only shows a store says where tables are
        person, started = self._person(request)  # the form's CSRF token needs a session
        response = self._form_page(request, person, None, 200)
        if started:
            self.people.set_cookie(person, response)
        return response

    async def _named(self, request: Request) -> tuple[dict[str, str], Person, str | None]:
        """A state-changing form, its person (checked: session, CSRF, origin, rate), and
        why the name it gives cannot be theirs (None: it is theirs now). A signed-in
        person keeps their account's name; a guest may take no account's."""
        form = await read_form(request)
        person = self.people.check(request, form.get("csrf", ""))
        if person.account:
            return form, person, None
        name = form.get("name", "").strip() or person.name
        refused = person_name_problem(name)
        if refused is None and await self._account_holds(name):
            refused = TableProblem("account_name", name=name)
        if refused is None:
            person.name = name
        return form, person, None if refused is None else said(request, refused)

    async def _account_holds(self, name: str) -> bool:
        return self.accounts is not None and await asyncio.to_thread(self.accounts.exists, name)

    async def create(self, request: Request) -> Response:
        form, person, problem = await self._named(request)
        tutorial = form.get("tutorial", "")
        if tutorial:  # one deal against the tutorial's bot, the rest of the form unread
            form.update(variant=tutorial, deals="1", options="")
            form.update({f"seat{n}": TUTORIAL_BOT for n in (1, 2, 3)})
        if problem is None:
            seats = [form.get(f"seat{n}", "").strip() for n in (1, 2, 3)]
            variant = form.get("variant", "")
            deals = form.get("deals", "match")
            try:
                if deals not in DEALS:
                    raise TableProblem("deals", deals=deals[:20], choices=", ".join(DEALS))
                options = game_options(form.get("options", "").split())
                max_deals = None if deals == "match" else int(deals)
                rated = form.get("rated") == "1" and not tutorial
                table = self.host.open(
                    person, variant, seats, options, max_deals, bool(tutorial), rated
                )
            except (TableProblem, ConfigError) as err:
                problem = said(request, err)
            else:
                return RedirectResponse(f"/tables/{segment(table.id)}", status_code=303)
        return self._form_page(request, person, problem, 400)

    # -- sitting --------------------------------------------------------------------------

    async def page(self, request: Request) -> Response:
        table = self._table(request)
        person = self.people.of(request)
        player = table.player_of(person) if person is not None else None
        if player is None:
            if table.session is not None:  # anyone may watch the match
                return RedirectResponse(f"/matches/{segment(table.id)}", status_code=303)
            raise HTTPException(403, "you hold no seat at this table: ask for its invitation")
        assert person is not None
        seat_data: dict[str, Any] = {
            "table": table.id,
            "player": player,
            "name": table.names[player],
            "variant": table.variant,
            "csrf": person.csrf,
            "started": table.session is not None,
        }
        if table.session is None:
            invite = request.url_for("join", id=table.id).include_query_params(invite=table.invite)
            context = {"table": table, "invite": str(invite), "seat_data": seat_data}
            return self.renderer.page(request, "table_wait.html", context)
        lang = page_language(request)
        family = family_of(table.variant)
        seat_data["words"] = seat_words(lang, family)
        seat_data["tutorial"] = table.tutorial
        view, _ = await self.tables.view(table.id, lang, viewer=player)
        held = table.session.hand_of(player)
        context = {
            "table": table,
            "view": view,
            "live": True,
            "bottom": held[0] if held is not None else player,
            "tips": tutorial_tips(lang, family) if table.tutorial else [],
            "seat_data": seat_data,
        }
        return self.renderer.page(request, "seat.html", context)

    async def join_page(self, request: Request) -> Response:
        invite = identifier(request.query_params, "invite") or ""
        table = self._table(request)
        seated = self.people.of(request)
        if seated is not None and table.player_of(seated) is not None:
            return RedirectResponse(f"/tables/{segment(table.id)}", status_code=303)
        person, started = self._person(request)
        context = {"table": table, "invite": invite, "problem": None, "person": person}
        response = self.renderer.page(request, "table_join.html", context)
        if started:
            self.people.set_cookie(person, response)
        return response

    async def join(self, request: Request) -> Response:
        table = self._table(request)
        form, person, problem = await self._named(request)
        if problem is None:
            try:
                self.host.join(table, person, form.get("invite", ""))
            except TableProblem as err:
                problem = said(request, err)
            else:
                return RedirectResponse(f"/tables/{segment(table.id)}", status_code=303)
        context = {"table": table, "invite": form.get("invite", ""), "problem": problem}
        return self.renderer.page(
            request, "table_join.html", {**context, "person": person}, status=400
        )

    # -- the seat's stream and answers ------------------------------------------------------

    def _seated(self, request: Request, person: Person | None) -> tuple[Table, int]:
        table = self._table(request)
        player = table.player_of(person) if person is not None else None
        if player is None:
            raise HTTPException(403, "you hold no seat at this table")
        return table, player

    async def seat(self, request: Request) -> Response:
        table, player = self._seated(request, self.people.of(request))
        said = in_person_words(
            self.host.seat_stream(table, player), page_language(request), family_of(table.variant)
        )
        return EventStream(_sse(said))

    async def hint(self, request: Request) -> Response:
        """What the heuristic bot would play in the seat's open decision."""
        person = self.people.check(request)
        table, player = self._seated(request, person)
        try:
            request_id, action = await self.host.hint(table, player)
        except TableProblem as err:
            raise HTTPException(409, said(request, err)) from None
        return JSONResponse({"request_id": request_id, "action": action})

    async def read(self, request: Request) -> Response:
        """What the selected cards (JSON ``{"cards": [...]}``) would be read as now."""
        person = self.people.check(request, read=True)
        table, player = self._seated(request, person)
        cards = (await read_json(request)).get("cards")
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise HTTPException(400, "cards must be a list of card codes such as '7h'")
        try:
            _, observation = self.host.open_decision(table, player)
            return JSONResponse(read_selection(observation, cards, page_language(request)))
        except TableProblem as err:
            raise HTTPException(409, said(request, err)) from None
        except ParseError as err:
            raise HTTPException(400, str(err)) from None

    async def act(self, request: Request) -> Response:
        person = self.people.check(request)
        table, player = self._seated(request, person)
        answer = await read_json(request)
        request_id, action = answer.get("request_id"), answer.get("action")
        if not isinstance(request_id, str) or not isinstance(action, str) or not action:
            raise HTTPException(
                400, "the answer needs request_id and action, both non-empty strings"
            )
        try:
            self.host.act(table, player, request_id, action)
        except TableProblem as err:
            raise HTTPException(409, said(request, err)) from None
        return JSONResponse({"sent": True})
