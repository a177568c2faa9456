"""The match list's query: its filters and page, read from a request's parameters and
checked, a refusal (:class:`BadQuery`) naming the field and saying why in words the
site's catalogs can put in either language."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Final

from arena import games
from arena.errors import quoted
from arena.store import MATCH_RESULTS, MatchFilter

__all__ = [
    "DEFAULT_PER_PAGE",
    "MAX_PAGE",
    "MAX_PER_PAGE",
    "MAX_TEXT",
    "BadQuery",
    "MatchQuery",
    "whole_number",
]

MAX_PER_PAGE: Final = 200
DEFAULT_PER_PAGE: Final = 50
MAX_PAGE: Final = 100_000
"""The highest page number a list accepts (beyond the last: an empty page)."""
MAX_TEXT: Final = 100
"""The longest filter text (a name, an id, a search)."""


class BadQuery(ValueError):
    """A filter or page the viewer refuses (a 400); the message names the field.
    ``parameter``, ``reason`` (a word of the site's catalogs, ``error.bad.<reason>``)
    and ``fields`` (its value, the bounds …) let a page say it in its own language."""

    def __init__(
        self, message: str, parameter: str = "", reason: str = "", **fields: object
    ) -> None:
        super().__init__(message)
        self.parameter = parameter
        self.reason = reason
        self.fields = fields


def _text(params: Mapping[str, str], key: str, *, exact: bool = False) -> str | None:
    """A text filter (None when absent or blank), its spaces around cut off unless
    ``exact`` (a name or an id, which a link gives as it is)."""
    value = params.get(key, "")
    value = value if exact and value.strip() else value.strip()
    if len(value) > MAX_TEXT:
        raise BadQuery(
            f"{key}: at most {MAX_TEXT} characters, got {len(value)}",
            key,
            "too_long",
            most=MAX_TEXT,
        )
    if value and not value.isprintable():
        raise BadQuery(f"{key} {quoted(value)}: printable characters only", key, "not_printable")
    return value or None


def whole_number(params: Mapping[str, str], key: str, default: int, highest: int) -> int:
    """The whole number from 1 to ``highest`` in ``key`` (absent or blank: ``default``);
    :class:`BadQuery` naming ``key`` otherwise."""
    text = params.get(key, "").strip()
    if not text:
        return default
    if not text.isdecimal() or not text.isascii():
        raise BadQuery(
            f"{key} {quoted(text)} is not a whole number from 1 to {highest}",
            key,
            "number",
            value=quoted(text),
            low=1,
            high=highest,
        )
    if len(text) > 12 or not 1 <= int(text) <= highest:
        raise BadQuery(
            f"{key} {quoted(text)} is out of range: 1 to {highest}",
            key,
            "number",
            value=quoted(text),
            low=1,
            high=highest,
        )
    return int(text)


def _day(params: Mapping[str, str], key: str) -> date | None:
    text = params.get(key, "").strip()
    if not text:
        return None
    try:
        day = date.fromisoformat(text) if len(text) == 10 else datetime.fromisoformat(text)
        _bound(day, end=True)  # within the years a time can be written in
        _bound(day, end=False)
    except (ValueError, OverflowError):
        raise BadQuery(
            f"{key} {quoted(text)} is not a date (YYYY-MM-DD)", key, "date", value=quoted(text)
        ) from None
    return day


def _bound(day: date | None, *, end: bool) -> str | None:
    """A date (the whole day) or a time as the store's ISO text: UTC."""
    if day is None:
        return None
    if isinstance(day, datetime):
        moment = day if day.tzinfo is not None else day.replace(tzinfo=UTC)
    else:
        moment = datetime(day.year, day.month, day.day, tzinfo=UTC)
        if end:
            moment += timedelta(days=1)
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class MatchQuery:
    """A page of the match list and its filters (None: any)."""

    variant: str | None = None
    tournament: str | None = None
    bot: str | None = None
    since: date | None = None
    until: date | None = None
    """Inclusive: a date is the whole day (UTC)."""
    result: str | None = None
    """``team0``, ``team1``, ``draw`` or ``aborted``."""
    text: str | None = None
    page: int = 1
    per_page: int = DEFAULT_PER_PAGE

    def __post_init__(self) -> None:
        for key, value, highest in (
            ("page", self.page, MAX_PAGE),
            ("per_page", self.per_page, MAX_PER_PAGE),
        ):
            if not 1 <= value <= highest:
                raise BadQuery(
                    f"{key} {value} is out of range: 1 to {highest}",
                    key,
                    "number",
                    value=value,
                    low=1,
                    high=highest,
                )

    @classmethod
    def parse(cls, params: Mapping[str, str]) -> MatchQuery:
        """The query of a request's parameters (``q`` is the text; others are ignored);
        :class:`BadQuery` naming the first field that is wrong and its value."""
        variant = _text(params, "variant")
        if variant is not None and variant not in games.names():
            known = ", ".join(games.names())
            raise BadQuery(
                f"variant {quoted(variant)} is unknown (known: {known})",
                "variant",
                "choice",
                value=quoted(variant),
                allowed=known,
            )
        result = _text(params, "result")
        if result is not None and result not in MATCH_RESULTS:
            allowed = ", ".join(MATCH_RESULTS)
            raise BadQuery(
                f"result {quoted(result)}: expected one of {allowed}",
                "result",
                "choice",
                value=quoted(result),
                allowed=allowed,
            )
        since, until = _day(params, "since"), _day(params, "until")
        first, last = _bound(since, end=False), _bound(until, end=True)
        if first is not None and last is not None and first >= last:
            raise BadQuery(
                f"since {quoted(params['since'])} is after until {quoted(params['until'])}",
                "since",
                "since_after_until",
                since=quoted(params["since"]),
                until=quoted(params["until"]),
            )
        return cls(
            variant=variant,
            tournament=_text(params, "tournament", exact=True),
            bot=_text(params, "bot", exact=True),
            since=since,
            until=until,
            result=result,
            text=_text(params, "q"),
            page=whole_number(params, "page", 1, MAX_PAGE),
            per_page=whole_number(params, "per_page", DEFAULT_PER_PAGE, MAX_PER_PAGE),
        )

    def filter(self) -> MatchFilter:
        return MatchFilter(
            variant=self.variant,
            tournament_id=self.tournament,
            bot=self.bot,
            since=_bound(self.since, end=False),
            until=_bound(self.until, end=True),
            result=self.result,
            text=self.text,
        )
