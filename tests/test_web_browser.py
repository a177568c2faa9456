"""The web face in a real browser (Debian's Chromium, driven by Playwright).

A person's path through the site: the leaderboard, a bot's page, one of its matches,
and the drawn table stepped through a whole deal with the buttons and the keyboard;
what is drawn (each seat's hand, the cards on the table) is held, frame by frame, to
the stored record re-played by the engine. Every game is drawn; the language switch
changes the words and sticks; the match list filters and pages; bad addresses get
proper 404/400 pages; a live match is followed while it is played, reloaded midway,
and seen to end; a phone's screen shows a usable table. Screenshots of every page
land in ``build/screenshots/``.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import httpx
import pytest
from browser import (
    PHONE,
    REPORT,
    SHOWN,
    Live,
    Played,
    ReplayedDeal,
    Step,
    Timeline,
    WebThread,
    pinned_seed,
    shoot,
    stored_record,
    wait_until,
)

from arena.cards import format_card
from arena.store import Store

if TYPE_CHECKING:
    from browser import Pages
    from playwright.sync_api import Locator, Page

DRAWN = """() => {
  const codes = (root) => root ? [...root.querySelectorAll('.card[data-card]')]
      .map((card) => card.dataset.card) : [];
  const table = document.getElementById('table');
  return {
    frame: Number(table.dataset.frame),
    hands: [0, 1, 2, 3].map((seat) => codes(
        document.querySelector(`.seat[data-seat="${seat}"] .hand`))),
    backs: [0, 1, 2, 3].map((seat) => document.querySelectorAll(
        `.seat[data-seat="${seat}"] .hand .card.back`).length),
    trick: codes(document.getElementById('trick')),
    last: codes(document.getElementById('last-trick')),
    position: document.getElementById('position').textContent,
  };
}"""
"""What the table page draws now."""

VIEW = """async () => {
  const id = encodeURIComponent(document.getElementById('table').dataset.match);
  return (await fetch(`/api/matches/${id}/table?deal=all`)).json();
}"""
"""The whole table view of the page's match (every deal's frames, their deals and seqs)."""


def table(page: Page) -> Locator:
    return page.locator("#table")


def drawn(page: Page) -> dict[str, Any]:
    state: dict[str, Any] = page.evaluate(DRAWN)
    return state


def at_frame(page: Page, index: int) -> dict[str, Any]:
    """Wait until the page shows frame ``index``; what it draws then."""
    from playwright.sync_api import expect

    expect(table(page)).to_have_attribute("data-frame", str(index))
    return drawn(page)


def check_frame(
    timeline: Timeline, frame: dict[str, Any], shown: dict[str, Any], where: str
) -> None:
    """The drawn hands are the engine's at the frame's moment, and the cards of the
    action just taken lie on the table."""
    deal = timeline.deal(frame["deal"])
    steps = deal.steps_at(frame.get("seq", 0))
    hands = [sorted(cards) for cards in shown["hands"]]
    assert any(hands == [list(h) for h in step.hands] for step in steps), (
        f"{where}: drawn hands {hands} are not the engine's at seq {frame.get('seq')} "
        f"(deal {deal.number}): {[step.hands for step in steps]}"
    )
    assert not any(shown["backs"]), f"{where}: a stored match shows card backs"
    on_table = Counter(shown["trick"]) + Counter(shown["last"])
    played = just_played(deal, steps[0])
    if played:
        assert not played - on_table, (
            f"{where}: {sorted(played.elements())} just played, the table shows "
            f"{shown['trick']} (last trick {shown['last']})"
        )
    assert not Counter(shown["trick"]) - shown_so_far(deal, frame.get("seq", 0)), (
        f"{where}: the trick shows {shown['trick']}, not all shown by then"
    )


def just_played(deal: ReplayedDeal, step: Step) -> Counter[str]:
    """The cards the play events of ``step``'s entry put on the table."""
    index = deal.steps.index(step)
    before = deal.steps[index - 1].deal_events if index else 0
    return Counter(
        format_card(card)
        for _, event in deal.events[before : step.deal_events]
        if event.kind == "play"
        for card in event.cards
    )


def shown_so_far(deal: ReplayedDeal, seq: int) -> Counter[str]:
    """Every card the deal's events had shown face up by the event ``seq`` (plays,
    failed throws, declarations …), each as often as one kind shows it."""
    shown: dict[str, Counter[str]] = {}
    for number, event in deal.events:
        if number <= seq:
            shown.setdefault(event.kind, Counter()).update(format_card(c) for c in event.cards)
    found: Counter[str] = Counter()
    for cards in shown.values():
        found |= cards
    return found


def open_match(page: Page, url: str, match_id: str) -> dict[str, Any]:
    from playwright.sync_api import expect

    page.goto(f"{url}/matches/{match_id}")
    expect(table(page)).to_have_attribute("data-match", match_id)
    view: dict[str, Any] = page.evaluate(VIEW)
    return view


def frames_of_deal(view: dict[str, Any], deal: int) -> list[dict[str, Any]]:
    return [frame for frame in view["frames"] if frame["deal"] == deal]


# -- leaderboard → bot → match → a whole deal --------------------------------------------


def test_leaderboard_to_bot_to_match_then_a_whole_deal_stepped_through(
    pages: Pages, site: WebThread, played: Played
) -> None:
    from playwright.sync_api import expect

    page = pages.open()
    page.goto(f"{site.url}/leaderboard?variant=guandan")
    expect(page.locator("table#leaderboard")).to_be_visible()
    expect(page.locator('tr[data-bot="heuristic"]')).to_be_visible()
    shoot(page, "leaderboard-guandan-zh")

    page.locator('tr[data-bot="heuristic"] a.bot-link').click()
    expect(page.locator('h1[data-bot="heuristic"]')).to_be_visible()
    expect(page.locator("svg.rating-history").first).to_be_visible()
    shoot(page, "bot-heuristic-zh")

    match_id = played.matches["guandan"]
    page.locator(f'a.match-link[href="/matches/{match_id}"]').first.click()
    expect(table(page)).to_have_attribute("data-match", match_id)
    expect(table(page)).to_have_attribute("data-live", "false")
    view: dict[str, Any] = page.evaluate(VIEW)
    timeline = Timeline(stored_record(played.path, match_id))
    frames = frames_of_deal(view, 1)
    assert frames[0]["i"] == 0 and len(frames) > 20
    shown = at_frame(page, 0)
    check_frame(timeline, frames[0], shown, "deal 1, frame 0")
    shoot(page, "match-guandan-start-zh")

    half = len(frames) // 2
    for frame in frames[1:]:
        if frame["i"] <= half:
            page.locator("button#next").click()
        else:
            page.keyboard.press("ArrowRight")
        shown = at_frame(page, frame["i"])
        check_frame(timeline, frame, shown, f"deal 1, frame {frame['i']}")
        if frame["i"] == half:
            shoot(page, "match-guandan-deal1-middle-zh")
    last = frames[-1]
    assert last["seq"] == timeline.deal(1).steps[-1].seq
    assert sorted(map(sorted, drawn(page)["hands"])) == sorted(
        map(list, timeline.deal(1).steps[-1].hands)
    )
    expect(page.locator("#moment")).to_be_visible()
    shoot(page, "match-guandan-deal1-end-zh")

    page.keyboard.press("ArrowLeft")
    at_frame(page, last["i"] - 1)
    page.locator("button#prev").click()
    at_frame(page, last["i"] - 2)


def test_the_controls_and_keys_move_by_trick_deal_and_to_the_ends(
    pages: Pages, site: WebThread, played: Played
) -> None:
    from playwright.sync_api import expect

    page = pages.open()
    match_id = played.matches["shengji-2"]
    view = open_match(page, site.url, match_id)
    timeline = Timeline(stored_record(played.path, match_id))
    frames = view["frames"]
    second = frames_of_deal(view, 2)[0]["i"]
    at_frame(page, 0)

    page.locator("button#next-deal").click()
    check_frame(timeline, frames[second], at_frame(page, second), "next deal")
    page.locator("button#prev-deal").click()
    at_frame(page, 0)
    page.keyboard.press("PageDown")
    at_frame(page, second)
    page.keyboard.press("PageUp")
    at_frame(page, 0)

    page.keyboard.press("End")
    shown = at_frame(page, len(frames) - 1)
    check_frame(timeline, frames[-1], shown, "End")
    shoot(page, "match-shengji-2-end-zh")
    page.keyboard.press("Home")
    at_frame(page, 0)

    expect(page.locator("button#play")).to_have_attribute("aria-pressed", "false")
    tricks = [f["trick"] for f in frames]
    page.locator("button#next-trick").click()
    after = drawn(page)["frame"]
    assert after > 0 and tricks[after] > tricks[0], (after, tricks[: after + 1])
    page.keyboard.press("Shift+ArrowRight")
    wait_until(lambda: drawn(page)["frame"] > after, "Shift+→ moves a trick on")
    further = drawn(page)["frame"]
    assert tricks[further] > tricks[after]
    page.keyboard.press("Shift+ArrowLeft")
    wait_until(lambda: drawn(page)["frame"] < further, "Shift+← moves a trick back")
    page.locator("button#prev-trick").click()
    wait_until(lambda: drawn(page)["frame"] < further, "« moves a trick back")

    page.locator("select#deal").select_option("2")
    check_frame(timeline, frames[second], at_frame(page, second), "deal chooser")
    target = (second + len(frames)) // 2
    page.locator("input#scrub").evaluate(
        "(scrub, value) => { scrub.value = String(value);"
        " scrub.dispatchEvent(new Event('input', {bubbles: true})); }",
        target,
    )
    check_frame(timeline, frames[target], at_frame(page, target), "scrub")

    page.keyboard.press("Home")
    at_frame(page, 0)
    page.locator("select#speed").select_option("8")
    page.locator("button#play").click()
    wait_until(lambda: drawn(page)["frame"] >= 3, "play moves on by itself")
    page.keyboard.press("Space")
    expect(page.locator("button#play")).to_have_attribute("aria-pressed", "false")
    stopped = drawn(page)["frame"]
    page.keyboard.press("ArrowRight")  # paused: one step, and only one, from where it stopped
    at_frame(page, stopped + 1)


@pytest.mark.parametrize("name", sorted(SHOWN))
def test_every_game_is_drawn_as_the_engine_replays_it(
    pages: Pages, site: WebThread, played: Played, name: str
) -> None:
    page = pages.open()
    match_id = played.matches[name]
    view = open_match(page, site.url, match_id)
    assert view["match"]["variant"] == SHOWN[name][0] and view["match"]["revealed"]
    timeline = Timeline(stored_record(played.path, match_id))
    frames = view["frames"]
    assert {f["deal"] for f in frames} == set(range(1, len(timeline.deals) + 1))
    for deal in timeline.deals:
        assert frames_of_deal(view, deal.number)[-1]["seq"] == deal.steps[-1].seq
    chosen = sorted({0, 1, 2, len(frames) // 3, len(frames) // 2, len(frames) - 2})
    for index in chosen:
        page.locator("input#scrub").evaluate(
            "(scrub, value) => { scrub.value = String(value);"
            " scrub.dispatchEvent(new Event('input', {bubbles: true})); }",
            index,
        )
        check_frame(timeline, frames[index], at_frame(page, index), f"{name} frame {index}")
        if index == len(frames) // 3:
            shoot(page, f"match-{name}-middle-zh")
    page.keyboard.press("End")
    check_frame(timeline, frames[-1], at_frame(page, len(frames) - 1), f"{name} end")
    shoot(page, f"match-{name}-end-zh")


MOMENTS = [
    ("guandan", "tribute", "进贡", "tribute"),
    ("guandan", "return", "还贡", "return"),
    ("shengji-2", "declare", "亮主", "declares"),
    ("shengji-2", "throw_failed", "甩牌", "throw"),
    ("shengji-4", "declare", "暗叫", "hidden"),
    ("sanfu", "swap", "明牌", "Turned card"),
]
"""Each game's own moments, and the words players use for them in both languages."""


def scrub_to(page: Page, index: int) -> dict[str, Any]:
    page.locator("input#scrub").evaluate(
        "(scrub, value) => { scrub.value = String(value);"
        " scrub.dispatchEvent(new Event('input', {bubbles: true})); }",
        index,
    )
    return at_frame(page, index)


@pytest.mark.parametrize(("name", "kind", "chinese", "english"), MOMENTS)
def test_each_games_moments_are_shown_in_the_players_words(
    pages: Pages, site: WebThread, played: Played, name: str, kind: str, chinese: str, english: str
) -> None:
    from playwright.sync_api import expect

    page = pages.open()
    view = open_match(page, site.url, played.matches[name])
    index = next(f["i"] for f in view["frames"] if (f.get("moment") or {}).get("kind") == kind)
    scrub_to(page, index)
    moment = page.locator("#moment")
    expect(moment).to_be_visible()
    expect(moment).to_contain_text(chinese)
    shoot(page, f"moment-{name}-{kind}-zh")
    page.locator('a[data-lang="en"]').first.click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    at_frame(page, index)  # the switch keeps the frame shown
    expect(moment).to_contain_text(english, ignore_case=True)


def shown_in(frame: dict[str, Any]) -> dict[str, Any]:
    """What a page draws for ``frame``, read from the frame itself."""

    def cards(entries: list[dict[str, Any]] | None) -> list[str]:
        return [card for entry in entries or [] for card in entry.get("cards") or []]

    return {
        "hands": [seat["hand"] or [] for seat in frame["seats"]],
        "backs": [0] * len(frame["seats"]),
        "trick": cards(frame["table"]),
        "last": cards(frame.get("last_trick")),
    }


@pytest.mark.parametrize("name", sorted(SHOWN))
def test_the_drawn_cards_check_holds_every_frame_and_finds_a_late_hand(
    played: Played, name: str
) -> None:
    """Every frame of a stored match passes the check the pages are held to (its hands
    are the engine's at its seq); the check finds hands drawn one step late."""
    from arena.web.table import table_view
    from arena.web.viewer import Viewer

    match_id = played.matches[name]
    with Store.open(played.path, read_only=True) as store:
        viewer = Viewer(store)
        view = table_view(viewer.watch_messages(match_id), viewer.revealed_record(match_id), "zh")
    timeline = Timeline(stored_record(played.path, match_id))
    frames = view["frames"]
    for frame in frames:
        check_frame(timeline, frame, shown_in(frame), f"{name} frame {frame['i']}")
    late = [
        (before, frame)
        for before, frame in itertools.pairwise(frames)
        if before["deal"] == frame["deal"]
        and sorted(map(sorted, shown_in(before)["hands"]))
        != sorted(map(sorted, shown_in(frame)["hands"]))
    ]
    assert len(late) > 20
    for before, frame in late:
        with pytest.raises(AssertionError, match="drawn hands"):
            check_frame(timeline, frame, shown_in(before), "late")


def test_a_reload_lands_on_the_frame_shown(pages: Pages, site: WebThread, played: Played) -> None:
    page = pages.open()
    open_match(page, site.url, played.matches["sanfu"])
    for _ in range(7):
        page.keyboard.press("ArrowRight")
    at_frame(page, 7)
    page.reload()
    at_frame(page, 7)


# -- languages --------------------------------------------------------------------------


def words(page: Page) -> str:
    return page.locator("nav").first.inner_text()


def test_the_language_switch_changes_the_words_and_sticks(
    pages: Pages, site: WebThread, played: Played
) -> None:
    from playwright.sync_api import expect

    page = pages.open(locale="zh-CN")
    page.goto(f"{site.url}/leaderboard")
    expect(page.locator("html")).to_have_attribute("lang", "zh")
    chinese = words(page)
    assert re.search(r"[\u4e00-\u9fff]", chinese), chinese
    page.locator('a[data-lang="en"]').first.click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    english = words(page)
    assert english != chinese and not re.search(r"[\u4e00-\u9fff]", english), english
    shoot(page, "leaderboard-en")

    page.goto(f"{site.url}/matches")  # no ?lang: the choice is remembered
    expect(page.locator("html")).to_have_attribute("lang", "en")
    shoot(page, "matches-en")
    open_match(page, site.url, played.matches["guandan"])
    expect(page.locator("html")).to_have_attribute("lang", "en")
    english_table = page.locator("#table").inner_text()
    page.keyboard.press("End")
    shoot(page, "match-guandan-end-en")
    page.locator('a[data-lang="zh"]').first.click()
    expect(page.locator("html")).to_have_attribute("lang", "zh")
    expect(page.locator("#table")).to_have_attribute("data-match", played.matches["guandan"])
    assert page.locator("#table").inner_text() != english_table
    page.goto(f"{site.url}/tournaments")
    expect(page.locator("html")).to_have_attribute("lang", "zh")

    other = pages.open(locale="en-US")  # a browser asking for English, no cookie yet
    other.goto(f"{site.url}/leaderboard")
    expect(other.locator("html")).to_have_attribute("lang", "en")


# -- the other pages ------------------------------------------------------------------------


def test_tournaments_and_reports_pages(pages: Pages, site: WebThread, played: Played) -> None:
    from playwright.sync_api import expect

    page = pages.open()
    page.goto(f"{site.url}/tournaments")
    page.locator(f'a[href="/tournaments/{played.tournament}"]').first.click()
    expect(page).to_have_url(re.compile(f"/tournaments/{played.tournament}$"))
    for match_id in played.tournament_matches:
        expect(page.locator(f'a.match-link[href="/matches/{match_id}"]').first).to_be_visible()
    shoot(page, "tournament-zh")
    page.goto(f"{site.url}/leaderboard?variant=shengji-2&tournament={played.tournament}")
    expect(page.locator("table#leaderboard tr[data-bot]")).to_have_count(2)
    page.goto(f"{site.url}/tournaments")
    shoot(page, "tournaments-zh")
    page.goto(f"{site.url}/reports")
    shoot(page, "reports-zh")
    page.locator(f'a.report-link[href="/reports/{REPORT}"]').click()
    expect(page.locator("main#content")).to_contain_text("shengji-2")
    expect(page.locator("main#content svg").first).to_be_visible()
    shoot(page, "report-zh")


def listed(page: Page) -> list[str]:
    hrefs = page.locator("table#matches a.match-link").evaluate_all(
        "(links) => links.map((a) => a.getAttribute('href'))"
    )
    return [href.removeprefix("/matches/") for href in dict.fromkeys(hrefs)]


def test_the_match_list_filters_and_pages(pages: Pages, site: WebThread, played: Played) -> None:
    from playwright.sync_api import expect

    page = pages.open()
    page.goto(f"{site.url}/matches")
    expect(page.locator("table#matches")).to_be_visible()
    shoot(page, "matches-zh")
    everything = set(played.all_ids())
    assert set(listed(page)) <= everything and listed(page)

    form = page.locator("form#match-filters")
    form.locator('[name="variant"]').select_option("sanfu")
    form.locator('[type="submit"]').click()
    expect(page).to_have_url(re.compile(r"variant=sanfu"))
    sanfu = {m for m in everything if "sanfu" in m or m.startswith("filler-")}
    shown = listed(page)
    assert shown and set(shown) <= sanfu, shown
    assert played.matches["sanfu"] in shown
    shoot(page, "matches-sanfu-zh")

    page.goto(f"{site.url}/matches?tournament={played.tournament}")
    assert sorted(listed(page)) == sorted(played.tournament_matches)
    page.goto(f"{site.url}/matches?bot=heuristic")
    assert set(listed(page)) == {*played.matches.values(), *played.tournament_matches}
    page.goto(f"{site.url}/matches?q=web-shengji")
    assert sorted(listed(page)) == ["web-shengji-2", "web-shengji-4"]

    with Store.open(played.path, read_only=True) as store:
        stored = {m: store.match(m) for m in everything}
    scores = {m: match.outcome["team_score"] for m, match in stored.items() if match}
    days = {date.fromisoformat(str(match.finished_at)[:10]) for match in stored.values() if match}
    for result, score in (("team0", 1.0), ("team1", 0.0), ("draw", 0.5)):
        page.goto(f"{site.url}/matches?result={result}&per_page=200")
        assert sorted(listed(page)) == sorted(m for m in everything if scores[m] == score), result
    day = timedelta(days=1)
    page.goto(f"{site.url}/matches?since={min(days) - day}&per_page=200")
    assert sorted(listed(page)) == sorted(everything)
    page.goto(f"{site.url}/matches?until={min(days) - day}")
    assert not listed(page)
    page.goto(f"{site.url}/matches?since={max(days) + day}")
    assert not listed(page)

    seen: list[str] = []
    for number in range(1, 6):
        page.goto(f"{site.url}/matches?per_page=10&page={number}")
        rows = listed(page)
        assert len(rows) == (10 if number < 5 else len(everything) - 40), (number, rows)
        seen.extend(rows)
    assert sorted(seen) == sorted(everything)  # every match once, on one page
    response = page.goto(f"{site.url}/matches?per_page=10&page=50")
    assert response is not None and response.status == 200 and not listed(page)


# -- bad input ------------------------------------------------------------------------------

NOT_FOUND = [
    "/matches/no-such-match",
    "/bots/nobody",
    "/tournaments/no-such-cup",
    "/reports/no-such-report",
    "/reports/..%2F..%2Fetc%2Fpasswd",
    "/api/matches/no-such-match/table",
    "/api/matches/no-such-match/live",
    "/no/such/page",
]
BAD_REQUEST = [
    ("/matches?page=abc", "page"),
    ("/matches?page=-3", "page"),
    ("/matches?page=0", "page"),
    ("/matches?page=99999999999999999999", "page"),
    ("/matches?per_page=100000", "per_page"),
    ("/matches?since=yesterday", "since"),
    ("/matches?until=2026-13-45", "until"),
    ("/matches?result=maybe", "result"),
    ("/matches?variant=chess", "variant"),
    ("/leaderboard?variant=chess", "variant"),
    ("/leaderboard?variant=guandan&sort=height", "sort"),
    ("/leaderboard?variant=guandan&order=sideways", "order"),
    ("/api/matches/web-guandan/live?after=-5", "after"),
    ("/api/matches/web-guandan/live?after=x", "after"),
]


@pytest.mark.parametrize("path", NOT_FOUND)
def test_unknown_addresses_get_a_404_page(site: WebThread, path: str) -> None:
    response = httpx.get(f"{site.url}{path}")
    assert response.status_code == 404, (path, response.status_code, response.text[:300])
    assert "Traceback" not in response.text and 'File "' not in response.text


@pytest.mark.parametrize(("path", "parameter"), BAD_REQUEST)
def test_bad_parameters_get_a_400_page_naming_them(
    site: WebThread, path: str, parameter: str
) -> None:
    response = httpx.get(f"{site.url}{path}")
    assert response.status_code == 400, (path, response.status_code, response.text[:300])
    assert parameter in response.text, response.text[:500]
    assert "Traceback" not in response.text and 'File "' not in response.text


def test_error_pages_are_pages_of_the_site(pages: Pages, site: WebThread) -> None:
    from playwright.sync_api import expect

    page = pages.open()
    response = page.goto(f"{site.url}/matches/no-such-match")
    assert response is not None and response.status == 404
    expect(page.locator("html")).to_have_attribute("lang", "zh")
    expect(page.locator('a[data-lang="en"]').first).to_be_visible()
    expect(page.locator("main#content")).to_contain_text("no-such-match")
    shoot(page, "error-404-zh")
    response = page.goto(f"{site.url}/matches?page=abc&lang=en")
    assert response is not None and response.status == 400
    expect(page.locator("main#content")).to_contain_text("page")
    shoot(page, "error-400-en")


# -- a phone ----------------------------------------------------------------------------------


def test_a_phone_shows_a_usable_table(pages: Pages, site: WebThread, played: Played) -> None:
    from playwright.sync_api import expect

    page = pages.open(viewport=PHONE)
    view = open_match(page, site.url, played.matches["shengji-2"])
    width = PHONE["width"]
    overflow = page.evaluate("() => document.scrollingElement.scrollWidth")
    assert overflow <= width, f"the page is {overflow} px wide on a {width} px screen"
    for selector in ['.seat[data-seat="0"]', "#trick", "button#next", "button#prev"]:
        box = page.locator(selector).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, (
            selector,
            box,
        )
    page.locator("button#next").click()
    at_frame(page, 1)
    middle = len(view["frames"]) // 3
    for _ in range(middle - 1):
        page.keyboard.press("ArrowRight")
    at_frame(page, middle)
    shoot(page, "match-shengji-2-phone-middle-zh")
    page.keyboard.press("End")
    at_frame(page, len(view["frames"]) - 1)
    shoot(page, "match-shengji-2-phone-end-zh")
    page.goto(f"{site.url}/leaderboard")
    expect(page.locator("table#leaderboard")).to_be_visible()
    shoot(page, "leaderboard-phone-zh")


def test_a_phone_shows_every_wide_table_whole(
    pages: Pages, site: WebThread, played: Played
) -> None:
    """On a 390 px screen no table of the site scrolls sideways or runs off the page:
    secondary columns are left out and the match lists stack their rows."""
    from playwright.sync_api import expect

    page = pages.open(viewport=PHONE)
    width = PHONE["width"]
    sanfu = played.matches["sanfu"]
    for path, shot in (
        ("/leaderboard?variant=shengji-2", "leaderboard-shengji-2-phone-zh"),
        ("/bots/heuristic", "bot-heuristic-phone-zh"),
        ("/matches?variant=sanfu", "matches-sanfu-phone-zh"),
        ("/tournaments", "tournaments-phone-zh"),
        (f"/tournaments/{played.tournament}", "tournament-phone-zh"),
        ("/reports", "reports-phone-zh"),
        (f"/reports/{REPORT}", "report-phone-zh"),
    ):
        page.goto(f"{site.url}{path}")
        expect(page.locator("main#content table").first).to_be_visible()
        shoot(page, shot)
        wide = page.evaluate(
            """() => [...document.querySelectorAll(".table-wrap")]
                .filter((box) => box.scrollWidth > box.clientWidth + 1)
                .map((box) => box.querySelector("table").id + ": " + box.scrollWidth)"""
        )
        assert not wide, (path, wide)
        overflow = page.evaluate("() => document.scrollingElement.scrollWidth")
        assert overflow <= width, (path, overflow)
    page.goto(f"{site.url}/matches?variant=sanfu")
    expect(page.locator(f'tr[data-match="{sanfu}"] ol.seat-order li')).to_have_count(4)


# -- a live match ---------------------------------------------------------------------------


def api_frames(live: Live, match_id: str) -> list[dict[str, Any]]:
    response = httpx.get(f"{live.url}/api/matches/{match_id}/table?deal=all", timeout=30)
    assert response.status_code == 200, response.text[:300]
    frames: list[dict[str, Any]] = response.json()["frames"]
    return frames


def scrub_max(page: Page) -> int:
    return int(page.locator("input#scrub").get_attribute("max") or 0)


def test_a_live_match_is_followed_reloaded_and_seen_to_end(
    pages: Pages, live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playwright.sync_api import expect

    pinned_seed(monkeypatch)
    match = live.match("guandan", "live-follow")
    try:
        match.bot.allow(3)
        match.bot.paused_at(3)
        page = pages.open()
        page.goto(f"{live.url}/matches/{match.id}")
        expect(table(page)).to_have_attribute("data-live", "true")
        expect(page.locator("#live-badge")).to_be_visible()
        so_far = api_frames(live, match.id)
        wait_until(lambda: scrub_max(page) == len(so_far) - 1, "the page caught up")
        shown = drawn(page)
        assert all(not hand for hand in shown["hands"]), "a live page shows a hand"
        assert sum(shown["backs"]) > 0, "a live page draws the hands' backs"
        shoot(page, "live-guandan-zh")

        match.bot.allow(5)  # the page follows as the match goes on
        match.bot.paused_at(8)
        more = api_frames(live, match.id)
        assert len(more) > len(so_far)
        wait_until(lambda: scrub_max(page) == len(more) - 1, "the page followed the match")

        page.reload()  # catches up, no frame twice
        expect(table(page)).to_have_attribute("data-live", "true")
        wait_until(lambda: scrub_max(page) == len(more) - 1, "the reloaded page caught up")
        match.bot.allow(4)
        match.bot.paused_at(12)
        again = api_frames(live, match.id)
        wait_until(lambda: scrub_max(page) == len(again) - 1, "the reloaded page follows")
        assert [f["seq"] for f in again] == sorted(f["seq"] for f in again)
    finally:
        match.finish()
    expect(table(page)).to_have_attribute("data-ended", "true")
    ended = scrub_max(page) + 1
    shoot(page, "live-guandan-ended-zh")
    wait_until(lambda: live.store.match(match.id) is not None, "the match is stored")
    stored = api_frames(live, match.id)
    assert ended == len(stored), (
        f"the live page drew {ended} frames, the stored match {len(stored)}"
    )


def test_a_running_tournament_shows_its_progress_as_it_goes(pages: Pages, live: Live) -> None:
    """A fixture of the paused bot and three built-in bots: its page says none of its
    matches is played, then one, without a reload by hand."""
    from playwright.sync_api import expect

    tournament, planned, match = live.cup("web-cup")
    try:
        assert match.id == planned
        page = pages.open()
        page.goto(f"{live.url}/tournaments/{tournament}")
        progress = page.locator("#progress")
        expect(progress).to_have_attribute("data-status", "running")
        expect(progress).to_have_attribute("data-played", "0")
        shoot(page, "tournament-running-zh")
    finally:
        match.finish()
    expect(progress).to_have_attribute("data-played", "1")
    page.reload()  # its match list is drawn with the page
    href = f"/matches/{quote(match.id)}"
    expect(page.locator(f'a.match-link[href="{href}"]').first).to_be_visible()
    shoot(page, "tournament-played-zh")
    page.locator(f'a.match-link[href="{href}"]').first.click()
    expect(table(page)).to_have_attribute("data-match", match.id)
