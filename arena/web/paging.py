"""Pages of the site's lists: every list that can grow is shown a bounded page at a
time (:data:`~arena.web.query.MAX_PER_PAGE` rows at most), its page read from the
request (:func:`paging`) and its links to the other pages keeping the request's filters
(:func:`page_link`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar
from urllib.parse import urlencode

from starlette.requests import Request

from arena.web.query import DEFAULT_PER_PAGE, MAX_PAGE, MAX_PER_PAGE, whole_number
from arena.web.rendering import path_of

__all__ = ["Page", "href", "page_link", "page_of", "pages_of", "paging"]

T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list: its rows, how many the whole list holds, and where it is."""

    rows: list[T]
    total: int
    page: int
    pages: int
    per_page: int
    more: bool = False
    """``total`` is a lower bound: the list was counted only that far (a broad search),
    and the pages go no further."""


def pages_of(total: int, per_page: int) -> int:
    """How many pages ``total`` rows take (an empty list has one, empty)."""
    return max(1, math.ceil(total / per_page))


def page_of(rows: Sequence[T], number: int, per_page: int) -> Page[T]:
    """Page ``number`` of the whole list ``rows`` (past the last: empty)."""
    start = (number - 1) * per_page
    return Page(
        list(rows[start : start + per_page]),
        len(rows),
        number,
        pages_of(len(rows), per_page),
        per_page,
    )


def paging(
    params: Mapping[str, str], key: str = "page", default_per_page: int = DEFAULT_PER_PAGE
) -> tuple[int, int]:
    """The page number asked in ``key`` and the rows per page asked in ``per_page`` (at
    most :data:`MAX_PER_PAGE`); a :class:`~arena.web.query.BadQuery` naming a wrong one."""
    return (
        whole_number(params, key, 1, MAX_PAGE),
        whole_number(params, "per_page", default_per_page, MAX_PER_PAGE),
    )


def page_link(request: Request, key: str = "page") -> Callable[[int], str]:
    """A function giving this page's URL with the list in ``key`` at another page, every
    other parameter (the filters, the sort, another list's page) kept as sent."""
    kept = [(k, v) for k, v in request.query_params.multi_items() if k != key]

    def link(number: int) -> str:
        return href(path_of(request), [*kept, (key, str(number))])

    return link


def href(path: str, params: Sequence[tuple[str, str]]) -> str:
    """``path`` with ``params`` as its query."""
    return f"{path}?{urlencode(params)}" if params else path
