"""The site in Chinese and English in a real browser (Debian's Chromium, Playwright):
the pages name variants in the page's language, a person's page speaks of a person, and
a running match's earlier deal is reviewed from the deal picker while it is played.
Screenshots land in ``build/screenshots/``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from browser import WAIT, Live, Played, WebThread, serving_live, shoot
from test_web_words import PERSON, RAW_VARIANT, ids_of, store_with_people

from arena.store import Store
from arena.web.i18n import LANGUAGES, catalog, variant_name

if TYPE_CHECKING:
    from browser import Pages


@pytest.fixture(scope="module")
def people_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WebThread, Played]]:
    played = store_with_people(tmp_path_factory.mktemp("words-browser") / "played.sqlite")
    with Store.open(played.path) as store:
        web = WebThread(store, played.reports)
        try:
            yield web, played
        finally:
            web.close()


def shown_text(text: str, played: Played) -> str:
    for name in sorted(ids_of(played), key=len, reverse=True):
        text = text.replace(name, " ")
    return text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_site_names_variants_and_people_in_the_page_language(
    people_site: tuple[WebThread, Played], pages: Pages, lang: str
) -> None:
    site, played = people_site
    page = pages.open(locale="zh-CN" if lang == "zh" else "en-US")
    for path, name in (
        ("/leaderboard?variant=shengji-2", "leaderboard"),
        ("/matches", "matches"),
        (f"/bots/{PERSON}", "person"),
        (f"/matches/{played.matches['shengji-2']}", "match"),
    ):
        page.goto(f"{site.url}{path}")
        body = shown_text(page.locator("body").inner_text(), played)
        assert not RAW_VARIANT.findall(body), (path, RAW_VARIANT.findall(body))
        shoot(page, f"words-{name}-{lang}")
    page.goto(f"{site.url}/leaderboard")
    tabs = page.locator("nav.variant-tabs:not(.pool-tabs) a").all_inner_texts()
    assert (
        tabs
        == [
            variant_name(lang, v)
            for v in ("guandan", "sanfu", "shengji-1", "shengji-2", "shengji-3", "shengji-4")
        ][: len(tabs)]
    )
    page.goto(f"{site.url}/bots/{PERSON}")
    assert catalog(lang)["person.incidents"] in page.locator("main").inner_text()


@pytest.fixture(scope="module")
def two_deals(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    with serving_live(tmp_path_factory.mktemp("deals-browser") / "arena.sqlite", 2) as live:
        yield live


def test_an_earlier_deal_of_a_running_match_is_reviewed_from_the_picker(
    two_deals: Live, pages: Pages
) -> None:
    import httpx

    match = two_deals.match("shengji-2", "review-browser")
    try:
        answered = 0
        table = f"{two_deals.url}/api/matches/{match.id}/table"
        while len(httpx.get(table, timeout=WAIT).json()["deals"]) < 2:
            answered += 1
            assert match.reach(answered), "the match ended in its first deal"
        page = pages.open(locale="zh-CN")
        page.goto(f"{two_deals.url}/matches/{match.id}")
        picker = page.locator("#deal")
        assert picker.locator("option").count() == 2
        assert page.locator("#table").get_attribute("data-live") == "true"
        picker.select_option("1")
        deadline = time.monotonic() + WAIT
        while "第1副" not in (page.locator("#position").inner_text() or ""):
            assert time.monotonic() < deadline, page.locator("#position").inner_text()
            time.sleep(0.05)
        assert page.locator("h1").inner_text().startswith("升级（两副牌）")
        shoot(page, "words-live-earlier-deal-zh")
        page.goto(f"{two_deals.url}/tables/new?lang=zh")
        form = page.locator("select[name=variant]").inner_text()
        assert "掼蛋" in form and "升级（两副牌）" in form and not RAW_VARIANT.findall(form)
        shoot(page, "words-table-form-zh")
    finally:
        match.finish()


def test_not_declaring_is_offered_as_such_in_the_seat_panel(two_deals: Live, pages: Pages) -> None:
    """Shengji's declarations: the pass button says 不叫 (Don't declare), not 不出."""
    from test_web_seats_browser import open_table, seat_state, wait_turn

    for _ in range(8):  # a deal in which the person may declare (holds a level card)
        page = pages.open(locale="zh-CN")
        open_table(page, two_deals, "shengji-2", ("random", "random", "random"))
        page.goto(page.url.split("#")[0] + "?lang=zh")
        wait_turn(page)
        if page.locator("#seat").get_attribute("data-phase") == "declare":
            break
    else:
        raise AssertionError(f"no declaration offered in eight deals: {seat_state(page)}")
    button = page.locator("#legal .legal-action[data-action='pass']")
    assert button.inner_text() == "不叫"
    shoot(page, "words-declare-pass-zh")
