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
from browser import (
    WAIT,
    Live,
    Played,
    Timeline,
    WebThread,
    pinned_seed,
    shoot,
    stored_record,
    wait_until,
)

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
    "named": {"name", "where"},
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


# -- nothing on the felt covers a card -----------------------------------------------------

TALL = {"desktop": {"width": 1280, "height": 1400}, "phone": {"width": 390, "height": 1700}}
"""Screens as wide as a laptop's and a phone's, tall enough to hold the whole felt (what
covers what is read at points on the screen)."""

FELT = """() => {
  window.scrollTo(0, 0);
  for (const animation of document.getAnimations()) {
    if (animation.effect.getComputedTiming().endTime !== Infinity) {
      animation.finish();  // cards and words where they come to rest
    }
  }
  const felt = document.getElementById('felt');
  const box = (node) => node.getBoundingClientRect();
  const crosses = (a, b) =>
      a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const cards = [...felt.querySelectorAll('.card')].filter((card) => box(card).width > 0);
  const words = ['moment', 'step-line', 'result']
      .map((id) => document.getElementById(id)).filter((node) => !node.hidden);
  const crossing = words.flatMap((node) => cards
      .filter((card) => crosses(box(node), box(card)))
      .map((card) => `#${node.id} over ${card.dataset.card || 'a back'}`));
  const covered = cards.filter((card) => card.dataset.card).flatMap((card) => {
    const b = box(card);
    const hit = document.elementFromPoint(b.left + Math.min(5, b.width / 4),
                                          b.top + Math.min(5, b.height / 4));
    return hit && hit.closest('.card') === card ? [] :
        [`${card.dataset.card} under ${hit ? hit.id || hit.className : 'nothing'}`];
  });
  const strip = box(document.getElementById('strip'));
  const spilled = words.filter((node) => box(node).top < strip.top - 0.5
      || box(node).bottom > strip.bottom + 0.5).map((node) => node.id);
  return {crossing, covered, spilled, strip: Math.round(strip.height * 10) / 10,
          said: words.map((node) => node.id)};
}"""
"""What lies over a card on the felt: a word of the strip (moment, step line, result)
whose box crosses a card's, or anything at the corner of a face-up card where its rank
is written; the strip's words that spill out of it; the strip's height."""


def moment_frames(frames: list[dict[str, Any]]) -> list[int]:
    """Every frame with a moment, every tenth frame, and the last."""
    carried = carry_forward(frames)
    return sorted(
        {f["i"] for f in carried if f.get("moment")}
        | set(range(0, len(frames), 10))
        | {len(frames) - 1}
    )


def carry_forward(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Frames whole, as the page holds them: a field a frame (or its seat) leaves out is
    the frame before's in the same deal."""
    whole: list[dict[str, Any]] = []
    for frame in frames:
        before = whole[-1] if whole and whole[-1]["deal"] == frame["deal"] else {}
        full = {**before, **frame}
        if "seats" in frame and before.get("seats"):
            full["seats"] = [
                {**old, **new} for old, new in zip(before["seats"], frame["seats"], strict=True)
            ]
        whole.append(full)
    return whole


@pytest.mark.parametrize("screen", sorted(TALL))
@pytest.mark.parametrize("name", ["guandan", "sanfu", "shengji-2", "shengji-4"])
def test_the_strip_has_a_row_of_its_own_and_nothing_on_the_felt_covers_a_card(
    pages: Pages, site: WebThread, played: Played, name: str, screen: str
) -> None:
    """At every moment (tribute, return, declarations, the kitty, failed throws, seats
    swapped, places, results …), some steps between and the match's result: no card on
    the felt lies under the strip's words or anything else, and the strip keeps one
    height, so nothing moves when it speaks."""
    from test_web_browser import scrub_to

    match_id = played.matches[name]
    frames = table_json(site, match_id)["frames"]
    page = pages.open(viewport=TALL[screen])
    page.goto(f"{site.url}/matches/{match_id}")
    heights = set()
    said: set[str] = set()
    for index in moment_frames(frames):
        scrub_to(page, index)
        found: dict[str, Any] = page.evaluate(FELT)
        where = f"{name} on a {screen}, frame {index}"
        assert not found["crossing"], f"{where}: {found['crossing']}"
        assert not found["covered"], f"{where}: cards covered: {found['covered']}"
        assert not found["spilled"], f"{where}: out of the strip: {found['spilled']}"
        heights.add(found["strip"])
        said.update(found["said"])
    assert len(heights) == 1, f"{name} on a {screen}: the strip's height changes: {heights}"
    assert {"moment", "result", "step-line"} <= said, said


# -- the kitty turned over, seen with the deal's result ---------------------------------------


@pytest.mark.parametrize("screen", sorted(TALL))
@pytest.mark.parametrize("name", ["shengji-2", "shengji-4"])
def test_a_shengji_deals_result_shows_the_kitty_turned_over_and_what_it_made(
    pages: Pages, site: WebThread, played: Played, name: str, screen: str
) -> None:
    """SJ-25/SJ-30: at each deal's result (and the match's), the cards the kitty's step
    put on the table are still drawn face up there, none covered, with what that step
    said (抠底 with its multiplier, or the last trick's settlement) written under them."""
    from playwright.sync_api import expect
    from test_web_browser import scrub_to

    match_id = played.matches[name]
    frames = carry_forward(table_json(site, match_id)["frames"])
    page = pages.open(viewport=TALL[screen])
    page.goto(f"{site.url}/matches/{match_id}")
    ends = [f for f in frames if any(line["kind"] == "deal_result" for line in f["log"])]
    assert len(ends) == len({f["deal"] for f in frames})
    for end in ends:
        kitty = frames[end["i"] - 1]
        assert (kitty.get("moment") or {}).get("kind") == "kitty", kitty.get("moment")
        scrub_to(page, end["i"])
        cards = [card for entry in kitty["table"] for card in entry["cards"]]
        drawn = page.locator("#trick .card[data-card]").evaluate_all(
            "(cards) => cards.map((card) => card.dataset.card)"
        )
        assert sorted(drawn) == sorted(cards), (end["i"], drawn, cards)
        found: dict[str, Any] = page.evaluate(FELT)
        assert not found["covered"] and not found["crossing"], found
        note = page.locator("#trick .note")
        expect(note).to_have_text(kitty["moment"]["text"])
        assert "×" in kitty["moment"]["text"] or "不抠底" in kitty["moment"]["text"]
    expect(page.locator("#result")).to_be_visible()  # the last deal's end is the match's


# -- totals and hidden hands -----------------------------------------------------------------


def signed(value: int) -> str:
    """A total as the page writes it: ``+4``, ``-4``, ``0``."""
    return f"{value:+d}" if value else "0"


@pytest.mark.parametrize("name", ["guandan", "sanfu", "shengji-2"])
def test_each_seat_and_the_result_show_the_total_of_the_player_sitting_there(
    pages: Pages, site: WebThread, played: Played, name: str
) -> None:
    """Totals are by player, and in sanfu players sit where the deal seats them (SF-4):
    at each deal's end a seat's plate shows the total of whoever sits there, and the
    match's result each player's, in the colour of the team the player sits in."""
    from test_web_browser import scrub_to

    match_id = played.matches[name]
    view = table_json(site, match_id)
    frames = carry_forward(view["frames"])
    ends = [f for f in frames if any(line["kind"] == "deal_result" for line in f["log"])]
    page = pages.open()
    page.goto(f"{site.url}/matches/{match_id}")
    moved = 0
    for end in ends:
        scrub_to(page, end["i"])
        for seat in end["seats"]:
            chip = page.locator(f'.seat[data-seat="{seat["seat"]}"] .plate .tag.total')
            expect_text = signed(end["totals"][seat["player"]])
            assert chip.inner_text() == expect_text, (end["i"], seat)
            moved += end["totals"][seat["player"]] != end["totals"][seat["seat"]]
    rows = page.locator("#result tbody tr").evaluate_all(
        "(rows) => rows.map((row) => [row.className, row.lastElementChild.textContent])"
    )
    teams = {seat["player"]: seat["team"] for seat in frames[-1]["seats"]}
    totals = view["result"]["totals"]
    assert rows == [[f"team-{teams[p]}", signed(total)] for p, total in enumerate(totals)]
    if name == "sanfu":
        assert moved, "no seat of this sanfu match holds a player of another total"


BACKS = """() => [0, 1, 2, 3].map((seat) => {
  const hand = document.querySelector(`.seat[data-seat="${seat}"] .hand`);
  const badge = hand.querySelector('.stack-count');
  return {
    faces: hand.querySelectorAll('.card[data-card]').length,
    backs: hand.querySelectorAll('.card.back').length,
    count: hand.dataset.count === undefined ? null : Number(hand.dataset.count),
    badge: badge ? badge.textContent : null,
  };
})"""
"""Each seat's hand as a spectator of a running match sees it."""
MAX_BACKS = 13
"""Backs table.js draws at most for one hand."""
PUBLIC_COUNTS = {
    "guandan": "once 10 or fewer (GD-12)",
    "shengji-2": "once the dealing is over",
    "sanfu": "from the start (SF-1)",
}


@pytest.mark.parametrize("variant", sorted(PUBLIC_COUNTS))
def test_a_live_hidden_hand_shows_its_public_count_on_its_backs(
    pages: Pages, live: Live, monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    """A running match's hands are backs; where the rules make a hand's size public the
    backs say it (and are as many, up to a stack's height), and it is the size the
    engine held then; Guandan's stays unsaid while over 10."""
    from playwright.sync_api import expect

    pinned_seed(monkeypatch)
    match = live.match(variant, f"counts-{variant}")
    seen: list[tuple[int, list[dict[str, Any]]]] = []
    try:
        page = pages.open()
        page.goto(f"{live.url}/matches/{match.id}")
        expect(page.locator("#table")).to_have_attribute("data-live", "true")
        answered = 0
        while not any(hand["count"] for _, hands in seen for hand in hands):
            assert answered < 200, f"no count shown after {answered} decisions"
            answered += 1
            assert match.reach(answered), (
                f"the match ended with no count shown ({PUBLIC_COUNTS[variant]})"
            )
            frames = carry_forward(live_frames(live, match.id))
            newest = (len(frames) - 1, len(frames))
            pump_until(
                page, lambda held=newest: shown(page) == held, "the page shows the newest frame"
            )
            seen.append((frames[-1]["seq"], page.evaluate(BACKS)))
        shoot(page, f"live-{variant}-count-zh")
    finally:
        match.finish()
    wait_until(lambda: live.store.match(match.id) is not None, "the match is stored")
    stored = live.store.match(match.id)
    assert stored is not None
    deal = Timeline(stored.record).deal(1)
    for seq, hands in seen:
        sizes = {tuple(len(hand) for hand in step.hands) for step in deal.steps_at(seq)}
        for seat, hand in enumerate(hands):
            assert hand["faces"] == 0, f"seq {seq}: seat {seat}'s cards are drawn face up"
            if hand["count"] is None:
                assert hand["badge"] is None and hand["backs"] in (0, MAX_BACKS), (seq, hand)
                continue
            assert any(size[seat] == hand["count"] for size in sizes), (seq, seat, hand, sizes)
            assert hand["badge"] == str(hand["count"]), (seq, seat, hand)
            assert hand["backs"] == min(hand["count"], MAX_BACKS), (seq, seat, hand)
            if variant == "guandan":
                assert hand["count"] <= 10, (
                    f"seq {seq}: seat {seat}'s count of {hand['count']} said"
                )


def live_frames(live: Live, match_id: str) -> list[dict[str, Any]]:
    import httpx

    response = httpx.get(f"{live.url}/api/matches/{match_id}/table?deal=all", timeout=WAIT)
    assert response.status_code == 200, response.text[:300]
    frames: list[dict[str, Any]] = response.json()["frames"]
    return frames


# -- the seats where the game's seed has them -----------------------------------------------

COMPASS = {6: "south", 9: "west", 12: "north", 3: "east"}
"""A seat's clock hour on the drawn table (seen from above) and its place on the felt."""
SEATS_DRAWN = """(seats) => seats.map((seat) => [Number(seat.dataset.seat),
    [...seat.classList].find((name) => name.startsWith('seat-')).slice(5)])"""
SERVED_SEATS = re.compile(r'<div class="seat seat-(\w+)" data-seat="(\d)">')


def seed_places(family: str, bottom: int) -> dict[int, str]:
    """Where each seat sits on the felt with ``bottom`` drawn south: the next seat (C-2)
    a quarter turn on in the direction the game's seed gives (004: the 下家 on the right,
    000: counter-clockwise, 003: clockwise), worked out on the clock face of
    test_directions, not from the code that draws."""
    from test_directions import hour

    return {seat: COMPASS[hour(family, seat - bottom)] for seat in range(4)}


def with_bottom(bottom: int) -> Callable[[Route], None]:
    """A route handler: the match page as a seat page draws it, ``bottom``'s seat south."""

    def handle(route: Route) -> None:
        response = route.fetch()
        body = response.text().replace('data-bottom="0"', f'data-bottom="{bottom}"', 1)
        route.fulfill(response=response, body=body)

    return handle


@pytest.mark.parametrize("name", ["guandan", "sanfu", "shengji-2"])
def test_the_table_draws_each_next_seat_where_the_games_seed_has_it(
    pages: Pages, site: WebThread, played: Played, name: str
) -> None:
    """C-2, GD-10, GD-14, SJ-18, SF-6: seat s + 1 is drawn on the right hand of seat s
    in Guandan and Shengji (the turn goes counter-clockwise), on its left in sanfu
    (clockwise): in the page as served, as its script draws it, and turned so that any
    seat is south (a person's seat page)."""
    import httpx
    from playwright.sync_api import expect

    from arena.games import family_of

    match_id = played.matches[name]
    family = family_of(name)
    url = f"{site.url}/matches/{match_id}"
    served = httpx.get(url, timeout=WAIT).text
    assert {int(s): p for p, s in SERVED_SEATS.findall(served)} == seed_places(family, 0)
    for bottom in range(4):
        page = pages.open()
        page.route(url, with_bottom(bottom))
        page.goto(url)
        expect(page.locator(f'.seat-south[data-seat="{bottom}"] .plate')).not_to_be_empty()
        drawn = dict(page.eval_on_selector_all("#felt > .seat", SEATS_DRAWN))
        assert drawn == seed_places(family, bottom), (name, bottom)
        page.close()
