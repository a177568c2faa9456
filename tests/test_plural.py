"""Every count the program prints or serves takes its noun's number: "1 match", "0
matches", "2 matches" (arena/plural.py), in code and in the web's catalogs."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.plural import count_of, counted, fill, noun

if TYPE_CHECKING:
    from browser import Pages, WebThread

WORDS = [("match", "matches"), ("deal", "deals"), ("batch", "batches"), ("entry", "entries")]


@pytest.mark.parametrize(("singular", "plural"), WORDS)
def test_a_count_of_one_takes_the_singular_and_every_other_the_plural(
    singular: str, plural: str
) -> None:
    given_plural = None if singular + "s" == plural or singular + "es" == plural else plural
    said = [counted(n, singular, given_plural) for n in (0, 1, 2)]
    assert said == [f"0 {plural}", f"1 {singular}", f"2 {plural}"]
    assert counted(-1, singular, given_plural) == f"-1 {singular}"
    assert counted(1.5, singular, given_plural) == f"1.5 {plural}"


def test_a_large_count_is_grouped() -> None:
    assert counted(1200, "deal") == "1,200 deals"


@given(st.integers(min_value=-(10**6), max_value=10**6))
def test_the_word_is_chosen_by_the_count_alone(n: int) -> None:
    assert noun(n, "match") == ("match" if abs(n) == 1 else "matches")
    assert fill("{n} {n:match|matches}", n=n) == f"{n} {noun(n, 'match')}"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0 matches"),
        (1, "1 match"),
        (2, "2 matches"),
        ("1", "1 match"),
        ("1,000", "1,000 matches"),
        ("—", "— matches"),
    ],
)
def test_a_catalog_text_chooses_its_word_by_its_field(value: object, text: str) -> None:
    """A count the page has written out already (``1,000``) or none (``—``) too."""
    assert fill("{n} {n:match|matches}", n=value) == text
    assert fill("{n}", n=value) == str(value)


def test_a_written_count_is_read_as_a_number() -> None:
    assert count_of("1,000") == 1000
    assert count_of(1) == 1
    assert count_of("—") != count_of("—")  # NaN: never one


TEXTS = ["{n} {n:match|matches}", "+{n} {n:level|levels}", "{n} of {m} {m:deal|deals}", "{n}"]
COUNTS: list[object] = [0, 1, 2, -1, "1", "1,000", "—"]


def test_the_pages_choose_the_words_as_the_server_does(pages: Pages, site: WebThread) -> None:
    """static/words.js, which table.js, seat.js and site.js fill the catalogs' texts
    with, writes each text as :func:`arena.plural.fill` does, on every page."""
    page = pages.open()
    page.goto(f"{site.url}/leaderboard")
    cases = [(text, {"n": n, "m": n}) for text in TEXTS for n in COUNTS]
    written = page.evaluate(
        "(cases) => cases.map(([text, fields]) => window.arenaWords.fill(text, fields))", cases
    )
    assert written == [fill(text, **fields) for text, fields in cases]
    assert page.evaluate("() => window.arenaWords.fill('{n} {n:match|matches}', {})") == (
        "{n} {n:match|matches}"
    ), "a field not given is left as written"
