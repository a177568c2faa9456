"""Every name or id the web face puts in a link comes back whole: a tournament, its
matches, a bot, named with ``/ ? # % &``, spaces or any printable letters, is listed
with a link that opens its own page (hypothesis over names, a real store served on
127.0.0.1, the links followed as a browser would).

What would break it: a link built with ``| urlencode`` (``/`` left as it is: the page
of ``a/b`` is a 404), a route taking one segment (``{id}``) where a name may hold
``/``, a fixed word after a name on a route another route's name can reach
(``/tournaments/{id}/progress`` beside ``/tournaments/{id}``), a link to the page again
(paging, the language switch) built from the decoded path, a filter cutting the spaces
off a name.

Names are printable text (``str.isprintable``: the site refuses others in a query), and
not ``.`` or ``..``, which every browser and HTTP client resolves as a step up the path
before it asks.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Final
from urllib.parse import quote

import httpx
import pytest
from browser import WebThread
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stores import new_store_target

from arena.sim.jobs import MatchJob
from arena.sim.worker import play_job
from arena.store import Store, StoredMatch

NAMES: Final = st.text(
    st.one_of(st.sampled_from("/?#%&+=; .:~"), st.characters(exclude_categories=("Cs",))),
    min_size=1,
    max_size=16,
).filter(lambda name: name.isprintable() and name == name.strip() and name not in (".", ".."))
"""Names a bot may have (printable, no surrounding spaces: a record's players are checked
so), spaces and URL delimiters inside."""


class Site:
    """A store served, and a template match to store again under any name."""

    def __init__(self, store: Store, template: StoredMatch, url: str) -> None:
        self.store = store
        self.template = template
        self.http = httpx.Client(base_url=url, timeout=60, follow_redirects=False)
        self.added = 0

    def add(self, name: str) -> tuple[str, str]:
        """A tournament named and id'd ``name`` with one match, its first seat a bot
        named ``name``: the tournament's and the match's ids."""
        self.added += 1
        tournament, match = name, f"{name}:{self.added}"
        if self.store.tournament(tournament) is None:
            self.store.add_tournament(tournament, name, "guandan", status="finished")
        seating = (name, "random", "first", "random")
        stored = replace(
            self.template,
            id=match,
            tournament_id=tournament,
            seating=seating,
            record={**self.template.record, "players": list(seating)},
        )
        assert self.store.add_match(stored)
        return tournament, match

    def open(self, href: str) -> str:
        """The page a link leads to (200), its text."""
        response = self.http.get(html.unescape(href))
        assert response.status_code == 200, (href, response.status_code, response.text[:300])
        return response.text


def serve(target: str) -> Iterator[Site]:
    """The web face of a new store at ``target`` (a file or a URL), served for real."""
    job = MatchJob("template", "guandan", {}, 7, ("random",) * 4, max_deals=1)
    template = play_job(job).stored(None)
    with Store.open(target) as store:
        served = WebThread(store)
        site = Site(store, template, served.url)
        try:
            yield site
        finally:
            site.http.close()
            served.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    yield from serve(str(tmp_path_factory.mktemp("names") / "names.sqlite"))


@pytest.fixture(scope="module")
def site_on_postgresql(request: pytest.FixtureRequest) -> Iterator[Site]:
    yield from serve(new_store_target(request, "postgresql", None))


def hrefs(page: str, css_class: str) -> list[str]:
    return re.findall(rf'<a class="{css_class}[^"]*" href="([^"]+)"', page)


def attribute(page: str, name: str) -> str:
    found = re.search(rf'{name}="([^"]*)"', page)
    assert found is not None, name
    return html.unescape(found.group(1))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=NAMES)
def test_every_name_in_a_link_opens_its_own_page(site: Site, name: str) -> None:
    opens_its_own_pages(site, name)


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=NAMES)
def test_every_name_in_a_link_opens_its_own_page_in_postgresql(
    site_on_postgresql: Site, name: str
) -> None:
    """The same, fewer names: the database stores and finds them as they are."""
    opens_its_own_pages(site_on_postgresql, name)


def opens_its_own_pages(site: Site, name: str) -> None:
    tournament, match = site.add(name)
    segment = quote(tournament, safe="")

    listed = site.open("/tournaments")
    link = f"/tournaments/{segment}"
    assert link in hrefs(listed, "tournament-link"), (name, hrefs(listed, "tournament-link"))
    page = site.open(link)
    assert attribute(page, "data-tournament") == tournament

    progress = site.http.get(attribute(page, "data-url"))
    assert progress.status_code == 200 and progress.json()["id"] == tournament

    matches = [
        href
        for href in hrefs(page, "match-link")
        if html.unescape(href).endswith(quote(match, safe=""))
    ]
    assert matches, (name, hrefs(page, "match-link"))
    assert attribute(site.open(matches[0]), "data-match") == match

    listing = site.open(f"/matches?tournament={quote(tournament, safe='')}")
    bots = [href for href in hrefs(listing, "bot-link") if href == f"/bots/{quote(name, safe='')}"]
    assert bots, (name, hrefs(listing, "bot-link"))
    bot_page = site.open(bots[0])
    assert attribute(bot_page, "data-bot") == name
    assert match in {html.unescape(m) for m in re.findall(r'data-match="([^"]*)"', bot_page)}

    for lang in ("en", "zh"):  # the language switch leads to the same page
        switch = re.search(rf'href="([^"]+)"[^>]*data-lang="{lang}"', page) or re.search(
            rf'data-lang="{lang}"[^>]*href="([^"]+)"', page
        )
        assert switch is not None
        assert attribute(site.open(switch.group(1)), "data-tournament") == tournament

    board = site.open(f"/leaderboard?tournament={quote(tournament, safe='')}")
    assert link in re.findall(r'href="([^"]+)"', board)
