"""Server-rendered pages: the Jinja2 environment of the package's templates and what every
template gets — ``t`` (the page's words), ``variant_name`` (a variant as people name
it), ``lang``, ``static_url``, ``request``, the language switch's links — plus a few
number and time filters, and ``segment``: a name or an id as one segment of a link's
path (:func:`segment`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from functools import partial
from typing import Any, Final
from urllib.parse import quote, urlencode

from jinja2 import Environment, PackageLoader, StrictUndefined, pass_context, select_autoescape
from jinja2.runtime import Context
from starlette.requests import Request
from starlette.responses import HTMLResponse

from arena.rating.pools import pool_variant
from arena.web.assets import StaticAssets
from arena.web.i18n import DEFAULT_LANGUAGE, LANGUAGES, catalog, translate, variant_name

__all__ = [
    "DASH",
    "Renderer",
    "changing_partners",
    "leaders",
    "page_language",
    "path_of",
    "pool_link",
    "pool_name",
    "segment",
]

DASH: Final = "—"
MAX_LINK: Final = 2000
"""The longest link to this page again (the language switch) a page holds."""
"""What a missing value shows as."""


def segment(value: object) -> str:
    """A name or an id as one segment of a URL's path: every character but letters,
    digits and ``_.-~`` escaped, ``/ ? # %`` too, so that the name comes back whole."""
    return quote(str(value), safe="")


def path_of(request: Request) -> str:
    """The request's path as a link to it again: as the client sent it (a name's ``/``
    stays ``%2F``), or escaped again when the server does not say."""
    raw = request.scope.get("raw_path")
    if isinstance(raw, bytes) and raw.isascii():
        return raw.decode("ascii")
    return quote(request.scope["path"], safe="/")


def page_language(request: Request) -> str:
    """The language chosen for this request (set by the site's middleware)."""
    lang = getattr(request.state, "lang", DEFAULT_LANGUAGE)
    return lang if lang in LANGUAGES else DEFAULT_LANGUAGE


def _number(value: float | int | None, digits: int = 0, sign: bool = False) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return DASH
    text = f"{value:+,.{digits}f}" if sign else f"{value:,.{digits}f}"
    return text.replace("-", "−")


def _percent(value: float | None, digits: int = 1) -> str:
    if value is None or not math.isfinite(value):
        return DASH
    return f"{100 * value:.{digits}f}%"


def _when(value: str | None) -> str:
    """An ISO time as ``2024-05-01 12:00`` (UTC); the text itself if it does not parse."""
    if not value:
        return DASH
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return value
    return moment.strftime("%Y-%m-%d %H:%M")


def _known(lang: str, prefix: str, text: str) -> str:
    """``text`` in ``lang`` when the catalog names it (``prefix`` + its words), else as is."""
    key = prefix + text.replace(" ", "_")
    return translate(lang, key) if key in catalog(lang) else text


@pass_context
def _variant(context: Context, variant: str) -> str:
    """``| variant``: a variant as the page's language names it (``| map('variant')``)."""
    return variant_name(str(context.get("lang", DEFAULT_LANGUAGE)), variant)


CHANGING_PARTNERS: Final = frozenset({"sanfu"})
"""Games whose partners change every deal (SF-3): a match has no two fixed teams."""


def changing_partners(variant: str) -> bool:
    """Whether ``variant``'s partners change from deal to deal (no team 0 vs team 1)."""
    return variant.split("-", 1)[0] in CHANGING_PARTNERS


def leaders(players: Sequence[str], totals: Sequence[int]) -> tuple[list[str], int] | None:
    """The players with the highest total (each name once: a bot may sit twice) and
    that total (a game scored by player); None without a total per player."""
    if not totals or len(totals) != len(players):
        return None
    best = max(totals)
    names = [name for name, total in zip(players, totals, strict=True) if total == best]
    return list(dict.fromkeys(names)), best


def pool_name(lang: str, pool: str) -> str:
    """A rating pool as a page names it: ``Guandan``, or ``Guandan · People``."""
    variant = pool_variant(pool)
    name = variant_name(lang, variant)
    return name if variant == pool else f"{name} · {translate(lang, 'board.people')}"


def pool_link(pool: str) -> str:
    """The leaderboard of a rating pool (a variant's bots', or its people's)."""
    variant = pool_variant(pool)
    query = [("variant", variant)] + ([("pool", "people")] if variant != pool else [])
    return f"/leaderboard?{urlencode(query)}"


def _with_language(request: Request, lang: str) -> str:
    """This page's path and query, in ``lang``; of a long address (an error page's), the
    path alone, or the front page: a link stays short whatever was asked."""
    params = [(k, v) for k, v in request.query_params.multi_items() if k != "lang"]
    path = path_of(request)
    for link in (
        f"{path}?{urlencode([*params, ('lang', lang)])}",
        f"{path}?{urlencode([('lang', lang)])}",
    ):
        if len(link) <= MAX_LINK:
            return link
    return f"/leaderboard?{urlencode([('lang', lang)])}"


class Renderer:
    """Renders the package's templates for a request."""

    def __init__(self, assets: StaticAssets) -> None:
        self.assets = assets
        self.env = Environment(
            loader=PackageLoader("arena.web", "templates"),
            autoescape=select_autoescape(("html", "svg", "xml"), default_for_string=True),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.filters.update(
            number=_number, percent=_percent, when=_when, segment=segment, variant=_variant
        )
        self.env.globals.update(
            changing_partners=changing_partners, leaders=leaders, pool_link=pool_link
        )

    def context(self, request: Request) -> dict[str, Any]:
        """What every template gets."""
        lang = page_language(request)
        t: Callable[..., str] = partial(translate, lang)
        switch = {other: _with_language(request, other) for other in LANGUAGES}
        return {
            "reason": partial(_known, lang, "end_reason."),
            "bot_kind": partial(_known, lang, "bot.kinds."),
            "pool_name": partial(pool_name, lang),
            "variant_name": partial(variant_name, lang),
            "request": request,
            "lang": lang,
            "languages": LANGUAGES,
            "language_links": switch,
            "language_names": {other: translate(other, "lang.name") for other in LANGUAGES},
            "t": t,
            "static_url": self.assets.url,
            "path": request.url.path,
        }

    def page(
        self,
        request: Request,
        template: str,
        context: Mapping[str, Any] | None = None,
        status: int = 200,
    ) -> HTMLResponse:
        """``template`` rendered with the common context and ``context``."""
        data = self.context(request)
        data.update(context or {})
        return HTMLResponse(self.env.get_template(template).render(data), status_code=status)
