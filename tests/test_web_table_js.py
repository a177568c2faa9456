"""The table page's script in a real browser, where the site's own flows do not reach:
a live stream that breaks off is resumed after the last event the page holds, without a
frame twice, and a user who stepped back is not pulled to the newest frame; the URL hash
names a deal's step or a frame. And every word the page and its script name is among the
frames' labels in both languages, each phrase with the fields the script fills.

A stored match's page is turned into a running one's on its way to the browser (the
first frames only, ``data-live="true"``) and the stream is held, cut short or passed to
the real server by the browser's request routing: the server and the page are the real
ones, only the network's timing is chosen by the test.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import pytest
from browser import WAIT, Played, Timeline, WebThread, stored_record

import arena.web
from arena.web.i18n import LANGUAGES
from arena.web.table_text import PLACES, Words

if TYPE_CHECKING:
    from browser import Pages
    from playwright.sync_api import Page, Route

DATA_BLOCK = re.compile(r'(<script type="application/json" id="table-data">)(.*?)(</script>)', re.S)
FIRST = 10
"""Frames the page is given; the stream brings the rest."""
CUT = 40
"""The frames after which the first stream breaks off."""


def html_json(data: object) -> str:
    """JSON safe inside a script element (as Jinja's ``tojson`` writes it)."""
    text = json.dumps(data, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def as_running(route: Route, frames: int) -> None:
    """The match page as a running match's: its first ``frames`` frames, no result."""
    response = route.fetch()
    found = DATA_BLOCK.search(response.text())
    assert found is not None, "the page has no #table-data block"
    view = json.loads(found.group(2))
    view["frames"] = view["frames"][:frames]
    view["deals"] = [
        {**deal, "last": min(deal["last"], frames - 1)}
        for deal in view["deals"]
        if deal["first"] < frames
    ]
    view["result"] = None
    view["match"]["live"] = True
    body = response.text()
    body = body[: found.start(2)] + html_json(view) + body[found.end(2) :]
    body = body.replace('data-live="false"', 'data-live="true"', 1)
    route.fulfill(response=response, body=body)


def stream(header: dict[str, Any], frames: list[dict[str, Any]]) -> str:
    """A server-sent events body: the header, the frames, then the end (no result)."""
    events = [("header", header), *(("frame", frame) for frame in frames)]
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)


def pump_until(page: Page, check: Callable[[], bool], what: str) -> None:
    """Let the page (and the routes the test holds) run until ``check`` holds."""
    deadline = time.monotonic() + WAIT
    while not check():
        assert time.monotonic() < deadline, f"{what}: not after {WAIT:g} s"
        page.wait_for_timeout(20)


def shown(page: Page) -> tuple[int, int]:
    """The frame drawn and the number of frames the page holds."""
    state: list[int] = page.evaluate(
        "() => [Number(document.getElementById('table').dataset.frame),"
        " Number(document.getElementById('scrub').max) + 1]"
    )
    return state[0], state[1]


def table_json(site: WebThread, match_id: str) -> dict[str, Any]:
    """The whole match's table view (every deal's frames)."""
    import httpx

    response = httpx.get(f"{site.url}/api/matches/{match_id}/table?deal=all", timeout=WAIT)
    assert response.status_code == 200, response.text[:300]
    view: dict[str, Any] = response.json()
    return view


def test_a_broken_live_stream_resumes_after_the_last_event_held_and_never_draws_a_frame_twice(
    pages: Pages, site: WebThread, played: Played
) -> None:
    from playwright.sync_api import expect

    match_id = played.matches["guandan"]
    view = table_json(site, match_id)
    frames = view["frames"]
    assert len(frames) > CUT + 10
    held: list[Route] = []
    page = pages.open()
    page.route(f"{site.url}/matches/{match_id}", lambda route: as_running(route, FIRST))
    page.route(re.compile(r".*/api/matches/[^/]+/live\?.*"), lambda route: held.append(route))

    page.goto(f"{site.url}/matches/{match_id}")
    expect(page.locator("#table")).to_have_attribute("data-live", "true")
    expect(page.locator("#live-badge")).to_be_visible()
    pump_until(page, lambda: len(held) == 1, "the page opens the live stream")
    assert parse_qs(urlsplit(held[0].request.url).query)["after"] == [str(frames[FIRST - 1]["seq"])]
    assert shown(page) == (FIRST - 1, FIRST), "a live page shows its newest frame"

    page.keyboard.press("ArrowLeft")  # the user steps back: new frames must not move them
    expect(page.locator("#table")).to_have_attribute("data-frame", str(FIRST - 2))
    held[0].fulfill(
        status=200,
        headers={"content-type": "text/event-stream", "cache-control": "no-store"},
        body=stream(view["match"], frames[FIRST:CUT]),
    )
    pump_until(page, lambda: shown(page)[1] == CUT, "the frames streamed are held")
    assert shown(page) == (FIRST - 2, CUT), "a user who stepped back stays where they are"

    pump_until(page, lambda: len(held) == 2, "the page reconnects after the stream broke")
    after = parse_qs(urlsplit(held[1].request.url).query)["after"]
    assert after == [str(frames[CUT - 1]["seq"])], "it asks for what comes after its last event"
    page.keyboard.press("End")  # back at the newest: follow again
    expect(page.locator("#table")).to_have_attribute("data-frame", str(CUT - 1))
    held[1].continue_()  # the real server: the frames of that event again, then the rest

    expect(page.locator("#table")).to_have_attribute("data-ended", "true")
    assert shown(page) == (len(frames) - 1, len(frames)), "every frame once, the newest shown"
    expect(page.locator("#result")).to_be_visible()
    lines = page.locator("#log li").all_inner_texts()
    assert lines == stored_log(frames, frames[-1]["deal"]), "the last deal's log, each line once"


def stored_log(frames: list[dict[str, Any]], deal: int) -> list[str]:
    """The log lines of a deal as the stored match's frames give them."""
    return [line["text"] for frame in frames if frame["deal"] == deal for line in frame["log"]]


def test_the_url_hash_names_a_deal_and_step_or_a_frame_and_follows_the_position(
    pages: Pages, site: WebThread, played: Played
) -> None:
    from playwright.sync_api import expect

    match_id = played.matches["shengji-2"]
    frames = table_json(site, match_id)["frames"]
    second = next(frame["i"] for frame in frames if frame["deal"] == 2)
    steps = sum(1 for frame in frames if frame["deal"] == 2)
    page = pages.open()
    table = page.locator("#table")

    page.goto(f"{site.url}/matches/{match_id}#d2-s5")
    expect(table).to_have_attribute("data-frame", str(second + 4))
    expect(page.locator("#position")).to_contain_text(f"5/{steps}")
    page.goto(f"{site.url}/matches/{match_id}#f7")
    expect(table).to_have_attribute("data-frame", "7")
    assert page.evaluate("() => location.hash") == "#d1-s8", "the hash keeps the position"

    page.keyboard.press("PageDown")
    expect(table).to_have_attribute("data-frame", str(second))
    assert page.evaluate("() => location.hash") == "#d2-s1"
    hashes = page.eval_on_selector_all("a[data-lang]", "(links) => links.map((a) => a.hash)")
    assert hashes and set(hashes) == {"#d2-s1"}, "the other language opens at the same step"

    for nowhere in ("#d9-s1", "#f99999", "#d2-s"):
        page.goto(f"{site.url}/matches/{match_id}{nowhere}")
        page.reload()
        expect(table).to_have_attribute("data-frame", "0")


WEB = Path(arena.web.__file__).parent
PHRASES = {
    "position": {"deal", "step", "steps"},
    "deal_option": {"number"},
    "trick_no": {"trick"},
    "count": {"count"},
    "seat_points": {"points"},
}
"""The labels table.js fills, and the fields it fills them with."""
ROLES = {"shengji": {"dealer", "declarer", "defender"}, "sanfu": {"turned"}, "guandan": set()}
"""The seats' roles the frames of each game carry (shown by their label)."""


def words_the_page_names() -> set[str]:
    """The label keys match.html and table.js ask for by name."""
    script = (WEB / "static" / "table.js").read_text("utf-8")
    page = (WEB / "templates" / "match.html").read_text("utf-8")
    keys = set(re.findall(r"\blabel\(\"([a-z_.]+)\"", script))
    keys |= set(re.findall(r"L\.get\('([a-z_]+)'", page))
    keys |= set(re.findall(r'control\("[a-z-]+", "([a-z_]+)"', page))
    return keys


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("game", sorted(ROLES))
def test_every_word_the_table_page_names_is_in_the_labels_with_the_fields_it_fills(
    game: str, language: str
) -> None:
    names = words_the_page_names()
    assert {"position", "joker_big", "first", "prev_deal", "keys"} <= names  # the scan works
    labels = Words(language).labels(game)
    places = {f"place.{n}" for n in range(1, 5)} if game in PLACES else set()
    assert sorted((names | places | ROLES[game]) - labels.keys()) == []
    assert all(labels[key] for key in names), "a word the page shows is empty"
    for key, fields in PHRASES.items():
        assert set(re.findall(r"\{(\w+)\}", labels[key])) == fields, (key, labels[key])


def deal_requests(page: Page) -> list[str]:
    """Record the page's requests for one deal's frames (``/table?deal=N``)."""
    asked: list[str] = []
    page.on(
        "request",
        lambda request: (
            asked.append(parse_qs(urlsplit(request.url).query)["deal"][0])
            if "/table?" in request.url and "deal=" in request.url
            else None
        ),
    )
    return asked


def page_frames(page: Page) -> list[dict[str, Any]]:
    """The frames the page was given in its own data block."""
    frames: list[dict[str, Any]] = page.evaluate(
        "() => JSON.parse(document.getElementById('table-data').textContent).frames"
    )
    return frames


def test_the_table_fetches_the_deal_it_moves_into_by_key_and_deal_picker(
    pages: Pages, site: WebThread, played: Played
) -> None:
    """The page holds one deal; stepping past its end (→), back before its start (←),
    PageUp and the deal picker fetch the other deal's frames once, and draw the cards the
    engine holds at each of them."""
    from test_web_browser import at_frame, check_frame

    match_id = played.matches["shengji-2"]
    timeline = Timeline(stored_record(played.path, match_id))
    frames = table_json(site, match_id)["frames"]
    second = next(frame["i"] for frame in frames if frame["deal"] == 2)
    page = pages.open()
    asked = deal_requests(page)
    page.goto(f"{site.url}/matches/{match_id}#d1-s{second}")
    check_frame(timeline, frames[second - 1], at_frame(page, second - 1), "deal 1's end")
    assert {frame["deal"] for frame in page_frames(page)} == {1}, "the page holds deal 1 only"
    page.keyboard.press("ArrowRight")
    check_frame(timeline, frames[second], at_frame(page, second), "→ into deal 2")
    page.keyboard.press("ArrowLeft")
    check_frame(timeline, frames[second - 1], at_frame(page, second - 1), "← back to deal 1")
    page.keyboard.press("PageDown")
    check_frame(timeline, frames[second + 1 - 1], at_frame(page, second), "PageDown")
    page.keyboard.press("ArrowRight")
    check_frame(timeline, frames[second + 1], at_frame(page, second + 1), "→ in deal 2")
    assert asked == ["2"], "deal 2 fetched once, deal 1 never"

    page = pages.open()
    asked = deal_requests(page)
    page.goto(f"{site.url}/matches/{match_id}?deal=2")
    check_frame(timeline, frames[second], at_frame(page, second), "a page opened at deal 2")
    assert {frame["deal"] for frame in page_frames(page)} == {2}
    page.locator("select#deal").select_option("1")
    check_frame(timeline, frames[0], at_frame(page, 0), "the deal picker, to deal 1")
    page.keyboard.press("End")
    check_frame(timeline, frames[-1], at_frame(page, len(frames) - 1), "End")
    page.keyboard.press("ArrowLeft")
    check_frame(timeline, frames[-2], at_frame(page, len(frames) - 2), "← in deal 2")
    page.keyboard.press("PageUp")
    page.keyboard.press("PageUp")
    check_frame(timeline, frames[0], at_frame(page, 0), "PageUp twice")
    page.keyboard.press("ArrowRight")
    check_frame(timeline, frames[1], at_frame(page, 1), "→ in deal 1")
    assert asked == ["1"], "deal 1 fetched once, deal 2 never"
