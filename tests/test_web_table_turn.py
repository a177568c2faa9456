"""Whose turn it is, on the drawn felt in a real browser, in both languages.

A running match's page (a spectator's: every seat is someone else's) marks the seat
whose decision the server awaits, with the time it has left counting down, and moves
the mark when the server asks the next seat; a stored match's page marks, at every
frame, the seat whose decision brings the next step, and shows no clock. Each seat's
plate says where it sits; the levels and points are named by side.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from browser import PHONE, WAIT, Live, Played, WebThread, pinned_seed, shoot, wait_until

if TYPE_CHECKING:
    from browser import Pages
    from playwright.sync_api import Page

LOCALES = {"en": "en-US", "zh": "zh-CN"}
CLOCK = re.compile(r"^(\d+):(\d\d)$")
MARKED = """() => [...document.querySelectorAll('.seat.to-act')].map((seat) => ({
    seat: Number(seat.dataset.seat),
    clock: seat.querySelector('.clock') && !seat.querySelector('.clock').hidden
        ? seat.querySelector('.clock').textContent : null,
    where: seat.querySelector('.where') ? seat.querySelector('.where').textContent : null,
}))"""
WHERE = "() => [...document.querySelectorAll('.seat .plate .where')].map((n) => n.textContent)"


def table(url: str, match_id: str, lang: str) -> dict[str, Any]:
    response = httpx.get(f"{url}/api/matches/{match_id}/table?deal=all&lang={lang}", timeout=WAIT)
    assert response.status_code == 200, response.text[:300]
    view: dict[str, Any] = response.json()
    return view


def seconds(text: str) -> int:
    found = CLOCK.match(text)
    assert found, f"not a clock: {text!r}"
    return int(found[1]) * 60 + int(found[2])


def marked(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate(MARKED)
    return found


@pytest.mark.parametrize("lang", sorted(LOCALES))
def test_a_running_match_marks_the_seat_asked_with_its_clock_counting_down(
    pages: Pages, live: Live, monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    pinned_seed(monkeypatch)
    match = live.match("guandan", f"turn-{lang}")
    try:
        page = pages.open(locale=LOCALES[lang])
        for answered in (2, 3):
            assert match.reach(answered), "the match ended early"
            view = table(live.url, match.id, lang)
            newest = view["frames"][-1]
            gated = next(s["seat"] for s in newest["seats"] if s["player"] == 0)
            assert newest["to_act"] == gated, "the seat the server asks is the one marked"
            assert newest["phase"] and 0 < newest["clock"]["decision_ms"] <= 60_000
            if answered == 2:
                page.goto(f"{live.url}/matches/{match.id}")
            wait_until(
                lambda seat=gated: (
                    [m["seat"] for m in marked(page)] == [seat]
                    and marked(page)[0]["clock"] is not None
                ),
                "the page marks the seat asked, with a clock",
            )
            first = seconds(marked(page)[0]["clock"])
            assert 50 <= first <= 60
            page.wait_for_timeout(2200)
            later = seconds(marked(page)[0]["clock"])
            assert first - 8 <= later < first, "the clock counts down"
        wheres = page.evaluate(WHERE)
        assert sorted(wheres) == sorted(["S", "W", "N", "E"] if lang == "en" else "南西北东")
        shoot(page, f"turn-live-{lang}")
    finally:
        match.finish()


@pytest.mark.parametrize("lang", sorted(LOCALES))
@pytest.mark.parametrize("name", ["guandan", "sanfu", "shengji-2"])
def test_a_stored_match_marks_at_every_frame_whose_decision_comes_next(
    pages: Pages, site: WebThread, played: Played, lang: str, name: str
) -> None:
    match_id = played.matches[name]
    view = table(site.url, match_id, lang)
    frames = view["frames"]
    page = pages.open(locale=LOCALES[lang])
    page.goto(f"{site.url}/matches/{match_id}#f3")
    middle = next(f["i"] for f in frames[len(frames) // 2 :] if f["to_act"] is not None)
    picks = [3, 4, 5, middle, frames[-1]["i"] - 1, frames[-1]["i"]]
    for index in picks:
        page.evaluate(f"() => {{ window.location.hash = '#f{index}'; }}")
        wait_until(
            lambda i=index: (
                page.evaluate("() => document.getElementById('table').dataset.frame") == str(i)
            ),
            f"frame {index} drawn",
        )
        expected = frames[index]["to_act"]
        shown = marked(page)
        assert [m["seat"] for m in shown] == ([] if expected is None else [expected]), index
        assert all(m["clock"] is None for m in shown), "a stored match shows no clock"
        if index == middle:
            shoot(page, f"turn-replay-{name}-{lang}")
    drawn = page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('#felt .seat')].map((seat) =>"
        " [[...seat.classList].find((c) => c.startsWith('seat-')).slice(5),"
        " seat.querySelector('.where').textContent]))"
    )
    compass = "SWNE" if lang == "en" else "南西北东"
    assert drawn == dict(zip(("south", "west", "north", "east"), compass, strict=True))
    rows = page.evaluate(
        "() => [...document.querySelectorAll('#result tbody td.name')].map((n) => n.textContent)"
    )
    assert len(set(rows)) == len(rows) == 4, f"the totals tell the players apart: {rows}"
    shoot(page, f"turn-result-{name}-{lang}")
    facts = page.evaluate(
        "() => [...document.querySelectorAll('#facts .fact')].map((f) => f.textContent)"
    )
    sides = ("N–S", "E–W") if lang == "en" else ("南北", "东西")
    by_team = [fact for fact in facts if sides[0] in fact]
    assert by_team and all(sides[1] in fact for fact in by_team), facts


def test_a_players_own_page_marks_the_other_person_to_act_and_names_seats_from_theirs(
    live: Live, pages: Pages
) -> None:
    """Two people at one Guandan table: while one decides, the other's felt marks that
    seat (drawn to the right: the next player) with the clock; each page names the
    seats relative to its own player, people by their own names."""
    from test_web_seats_browser import open_table, play_both, seat_state

    host = pages.open(locale="en-US")
    table_id = open_table(host, live, "guandan", ("person", "random", "random"))
    invite = host.locator("#invite").input_value()
    friend = pages.open(locale="zh-CN")
    friend.goto(invite)
    friend.fill("input[name=name]", "friend")
    friend.click("#join-table button[type=submit]")
    friend.wait_for_url(re.compile(rf".*/tables/{table_id}"))
    host.wait_for_selector("#my-hand .hand-card")
    friend.wait_for_selector("#my-hand .hand-card")
    shots = {"friend": False, "host": False}
    deadline = time.monotonic() + 4 * WAIT
    while not all(shots.values()):
        assert time.monotonic() < deadline, "neither person was asked"
        for acting, watching, who in ((friend, host, "friend"), (host, friend, "host")):
            state = seat_state(acting)
            if state[0] != "acting":
                continue
            if not shots[who]:
                wait_until(
                    lambda w=watching: len(marked(w)) == 1 and marked(w)[0]["clock"] is not None,
                    "the other page marks the seat asked, with its clock",
                )
                mark = marked(watching)[0]
                assert mark["where"] == ("right" if who == "friend" else "上家"), mark
                shoot(watching, f"turn-seat-other-{'en' if who == 'friend' else 'zh'}")
                shots[who] = True
            acting.locator("#legal .legal-action").first.click()
            wait_until(lambda a=acting, s=state: seat_state(a) != s, "the answer is taken")
        time.sleep(0.05)
    assert sorted(host.evaluate(WHERE)) == ["left", "partner", "right", "you"]
    assert sorted(friend.evaluate(WHERE)) == sorted(["你", "上家", "对家", "下家"])
    names = host.evaluate(
        "() => [...document.querySelectorAll('.seat .plate .name')].map((n) => n.textContent)"
    )
    assert "friend" in names and not [n for n in names if n.startswith("person:")]
    play_both(host, friend)


def test_on_a_phone_the_seat_to_act_keeps_its_mark_and_name_on_the_felt(
    pages: Pages, site: WebThread, played: Played
) -> None:
    match_id = played.matches["sanfu"]
    frames = table(site.url, match_id, "zh")["frames"]
    index = next(f["i"] for f in frames[len(frames) // 2 :] if f["to_act"] is not None)
    page = pages.open(viewport=PHONE)
    page.goto(f"{site.url}/matches/{match_id}#f{index}")
    wait_until(lambda: len(marked(page)) == 1, "the seat to act is marked")
    boxes = page.evaluate(
        "() => [...document.querySelectorAll('#felt .seat .plate')].map((plate) => {"
        " const felt = document.getElementById('felt').getBoundingClientRect();"
        " const box = plate.getBoundingClientRect();"
        " return [box.left >= felt.left - 1, box.right <= felt.right + 1]; })"
    )
    assert boxes and all(all(inside) for inside in boxes), f"a plate leaves the felt: {boxes}"
    shoot(page, "turn-replay-sanfu-phone-zh")
