"""The seat's panel as card players expect it, in a real browser (Debian's Chromium,
driven by Playwright): the kitty buried in one gesture against a counter, forced moves
played by themselves (and not when the switch is off), the hand held by suit or by rank,
one page per seat (another tab takes it, the older one stops), a full table's
invitation, the match's end said once, and a decision on the screen: the whole hand and
the action buttons (on a laptop the felt's trick too; on a phone cards wide enough to
tap, a selected one hiding no other's corner). Screenshots land in ``build/screenshots/``."""

from __future__ import annotations

import re
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from browser import PHONE, Live, Timeline, pinned_seed, shoot, stored_record
from test_web_seats_browser import (
    click_cards,
    my_hand,
    open_table,
    seat_state,
    wait_turn,
    with_a_friend,
)

if TYPE_CHECKING:
    from browser import Pages
    from playwright.sync_api import Page

WAIT = 30.0
KITTY = 8
"""The kitty of two-deck Shengji (SJ-13: the dealer buries as many)."""


def in_language(page: Page, lang: str) -> None:
    """The seat's page again in ``lang`` (the table form was opened in English)."""
    page.goto(page.url.split("#")[0].split("?")[0] + f"?lang={lang}")


def panel(page: Page, name: str) -> str:
    return page.locator("#seat").get_attribute(f"data-{name}") or ""


def until(check: Any, what: str, seconds: float = WAIT) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.03)


def answer_first(page: Page) -> None:
    """Answer the open decision by its first listed action (a pass or a play)."""
    request = seat_state(page)[1]
    page.locator("#legal .legal-action").first.click()
    until(lambda: seat_state(page) != ("acting", request), "the answer was not taken")


def autoplay(page: Page, on: bool) -> None:
    """Forced moves played by themselves, or not (the panel's switch)."""
    if on != page.locator("#autoplay").is_checked():
        page.locator("#autoplay").click()


def seat_of(live: Live, table: str, player: int = 0) -> int:
    deal = Timeline(stored_record(Path(live.store.path), table)).deal(1)
    return next(s for s in range(4) if deal.start.player_at(s) == player)


def test_the_kitty_is_buried_in_one_gesture_with_a_counter(
    live: Live, pages: Pages, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SJ-13: the dealer selects the kitty's 8 cards against a counter and confirms
    once; the page sends the engine's 8 one-card decisions; the kitty's cards were
    marked in the hand, told from the hand before it came."""
    pinned_seed(monkeypatch, 5)
    page = pages.open(locale="en-US")
    table = open_table(page, live, "shengji-2", ("first", "first", "first"))
    assert wait_turn(page) == "acting"
    while panel(page, "phase") != "bury":  # any declaration asked for is declined
        request = seat_state(page)[1]
        page.locator("#legal .legal-action[data-action='pass']").click()
        assert wait_turn(page, request) == "acting"
    hand = my_hand(page)
    assert len(hand) == 25 + KITTY
    marked = page.locator("#my-hand .hand-card.from-kitty")
    assert marked.count() == KITTY
    kitty = Counter(marked.evaluate_all("(cards) => cards.map((c) => c.dataset.card)"))
    count = page.locator("#seat-count")
    assert count.inner_text() == "Kitty: 0 / 8 chosen"
    assert page.locator("#legal .legal-action").count() == 0  # no list of 33 one-card burials
    chosen = hand[:KITTY]
    click_cards(page, chosen[:3])
    assert count.inner_text() == "Kitty: 3 / 8 chosen"
    assert page.locator("#send").is_disabled()
    click_cards(page, chosen[3:])
    assert count.inner_text() == "Kitty: 8 / 8 chosen"
    click_cards(page, [card for card in hand[KITTY:] if card not in chosen][:1])  # a ninth
    assert page.locator("#my-hand .hand-card.selected").count() == KITTY
    assert page.locator("#send").inner_text() == "Bury 8 cards"
    shoot(page, "seat-kitty-chosen")
    page.click("#send")
    until(lambda: panel(page, "phase") not in ("bury",) or len(my_hand(page)) == 25, "burying")
    until(lambda: len(my_hand(page)) == 25, f"the kitty was not buried: {len(my_hand(page))}")
    assert Counter(my_hand(page)) == Counter(hand) - Counter(chosen)
    assert page.locator("#refusal").is_hidden()
    shoot(page, "seat-kitty-buried")
    record = stored_record_when_over(page, live, table)
    actions = record["deals"][0]["actions"]
    buried = [a for a in actions if a.startswith("bury ")]
    assert Counter(a.split(" ")[1] for a in buried) == Counter(chosen)
    first = actions.index(buried[0])
    assert actions[first : first + KITTY] == buried  # eight decisions in a row
    assert sum(kitty.values()) == KITTY


def stored_record_when_over(page: Page, live: Live, table: str) -> dict[str, Any]:
    """Play the rest of the deal by first listed actions, forced ones too; the stored
    record."""
    autoplay(page, False)
    while wait_turn(page) == "acting":
        answer_first(page)
    return stored_record(Path(live.store.path), table)


def forced_decision(page: Page) -> str:
    """Answer decisions with more than one option until one with a single option is
    open: its request id ("" if the match ended first)."""
    while wait_turn(page) == "acting":
        if panel(page, "options") == "1":
            return seat_state(page)[1]
        answer_first(page)
    return ""


def test_a_forced_move_is_played_by_itself_after_a_visible_pause(
    live: Live, pages: Pages, monkeypatch: pytest.MonkeyPatch
) -> None:
    pinned_seed(monkeypatch, 7)
    page = pages.open(locale="en-US")
    open_table(page, live, "guandan", ("random", "random", "random"))
    wait_turn(page)
    autoplay(page, False)
    request = forced_decision(page)
    assert request, "no decision with one option came"
    time.sleep(2.0)  # the switch is off: it waits as long as the person does
    assert seat_state(page) == ("acting", request)
    assert page.locator("#forced").is_hidden()
    autoplay(page, True)  # turned on: the open forced move goes by itself
    page.locator("#forced").wait_for(state="visible")
    assert page.locator("#forced").inner_text() == "Playing the only move…"
    shoot(page, "seat-forced")
    until(lambda: seat_state(page)[1] != request, "the forced move was not played")
    page.reload()  # the switch is remembered
    assert page.locator("#autoplay").is_checked()


def test_the_hand_is_held_by_suit_or_by_rank_remembered(
    live: Live, pages: Pages, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Shengji's hand as held (the server's order, trumps grouped at the end), or by
    rank alone with the switch, which is remembered."""
    pinned_seed(monkeypatch, 5)
    page = pages.open(locale="zh-CN")
    open_table(page, live, "shengji-2", ("first", "first", "first"))
    in_language(page, "zh")
    wait_turn(page)
    held = my_hand(page)
    jokers = [card for card in held if card in ("SJ", "BJ")]
    assert held[len(held) - len(jokers) :] == jokers
    groups = page.locator("#my-hand .hand-card.group-start").count()
    assert groups >= 3
    shoot(page, "seat-held-zh")
    page.locator("#by-rank").click()
    ranks = "23456789TJQKA"
    by_rank = my_hand(page)
    suited = [card for card in by_rank if card not in ("SJ", "BJ")]
    assert [ranks.index(c[0]) for c in suited] == sorted(ranks.index(c[0]) for c in suited)
    assert Counter(by_rank) == Counter(held)
    assert page.locator("#my-hand .hand-card.group-start").count() == 0
    shoot(page, "seat-by-rank-zh")
    page.reload()
    wait_turn(page)
    assert page.locator("#by-rank").is_checked()
    page.locator("#by-rank").click()
    assert my_hand(page) == held


def test_a_second_tab_takes_the_seat_and_the_first_stops(live: Live, pages: Pages) -> None:
    first = pages.open(locale="en-US")
    open_table(first, live, "guandan", ("random", "random", "random"))
    wait_turn(first)
    autoplay(first, False)
    request = seat_state(first)[1]
    second = first.context.new_page()
    second.on("pageerror", lambda error: pages.errors.append(f"{second.url}: {error}"))
    second.goto(first.url)
    until(lambda: seat_state(second) == ("acting", request), "the second tab did not act")
    until(lambda: panel(first, "state") == "replaced", "the first tab was not told")
    assert first.locator("#turn").inner_text() == (
        "This seat was opened in another tab: this page has stopped. Reload it to play here again."
    )
    shoot(first, "seat-replaced")
    time.sleep(3.0)  # no reconnection: each keeps its state, no "Connection lost"
    assert panel(first, "state") == "replaced"
    assert seat_state(second) == ("acting", request)
    assert "Connection lost" not in second.locator("#turn").inner_text()
    answer_first(second)
    assert wait_turn(second, request) in ("acting", "over")


def test_a_full_tables_invitation_offers_to_watch(live: Live, pages: Pages) -> None:
    _, _, table, invite = with_a_friend(live, pages, "en-US")
    late = pages.open(locale="zh-CN")
    late.goto(invite)
    assert late.locator("#table-full").inner_text() == "本桌的座位都已有人。"
    assert late.locator("#join-table").count() == 0
    shoot(late, "seat-join-full-zh")
    late.goto(invite + "&lang=en")
    assert late.locator("#table-full").inner_text() == "Every seat of this table is taken."
    shoot(late, "seat-join-full")
    late.click("#watch-table")
    late.wait_for_url(re.compile(rf".*/matches/{table}"))


def test_the_end_of_the_match_clears_the_played_cards(live: Live, pages: Pages) -> None:
    """The play that ends the match leaves the hand; nothing stays selected; the
    match's end is said once and its winner told; an emptied hand leaves no room."""
    page = pages.open(locale="en-US")
    table = open_table(page, live, "guandan", ("first", "first", "first"))
    while wait_turn(page) == "acting":
        request = seat_state(page)[1]
        action = page.locator("#legal .legal-action").first
        text = action.get_attribute("data-action") or ""
        cards = [t for t in text.split(" ")[1:] if t != "as"]
        if cards and " as " not in text and panel(page, "options") != "1":
            click_cards(page, cards)
            page.click("#send")
        elif panel(page, "options") != "1":
            action.click()
        until(lambda r=request: seat_state(page)[1] != r or panel(page, "state") != "acting", "")
    assert page.locator("#my-hand .hand-card.selected").count() == 0
    deal = Timeline(stored_record(Path(live.store.path), table)).deal(1)
    assert Counter(my_hand(page)) == Counter(deal.steps[-1].hands[seat_of(live, table)])
    totals = stored_record(Path(live.store.path), table)["result"]["totals"]
    assert page.locator("#seat-result").inner_text() == (  # one deal: no match winner
        f"Totals: your team {totals[0]}, the others {totals[1]}."
    )
    assert page.locator("#legal .legal-action").count() == 0
    said = page.locator("#seat").inner_text()
    assert said.count("The match is over") == 1, said  # once, beside the replay's link
    if not my_hand(page):  # the emptied hand leaves no room behind
        assert page.locator("#my-hand").is_hidden()
    shoot(page, "seat-over-cleared")


def tap_widths(page: Page) -> list[float]:
    """Each card's width left to tap: up to the next card of its row, else its own; a
    point in that strip hits the card itself."""
    widths: list[float] = page.locator("#my-hand").evaluate(
        """(hand) => {
          const cards = [...hand.querySelectorAll('.hand-card')];
          return cards.map((card, i) => {
            const box = card.getBoundingClientRect();
            const next = cards[i + 1] && cards[i + 1].getBoundingClientRect();
            const sameRow = next && Math.abs(next.top - box.top) < 2;
            const width = sameRow ? next.left - box.left : box.width;
            const hit = document.elementFromPoint(box.left + width / 2, box.top + 10);
            return hit && hit.closest('.hand-card') === card ? width : -width;
          });
        }"""
    )
    return widths


DESKTOP_SMALL = {"width": 1280, "height": 800}
"""A laptop's screen: the felt gives up room so that the decision fits on it."""

OUT_OF_VIEW = """(trick) => {
  const height = window.innerHeight, width = window.innerWidth;
  const parts = [...document.querySelectorAll('#my-hand .hand-card')]
    .map((card) => [`card ${card.dataset.card}`, card]);
  for (const button of document.querySelectorAll(
      '#send, #clear, #hint, #seat-count:not([hidden]), #reading, #legal .legal-action')) {
    parts.push([`button ${button.id || button.dataset.action}`, button]);
  }
  if (trick) parts.push(['the trick', document.getElementById('trick')]);
  return parts.filter(([, node]) => {
    const box = node.getBoundingClientRect();
    return box.top < 0 || box.left < 0 || box.bottom > height || box.right > width;
  }).map(([name, node]) => {
    const box = node.getBoundingClientRect();
    return `${name} at ${Math.round(box.top)}..${Math.round(box.bottom)}`;
  });
}"""
"""What of the open decision lies outside the window: a card of the hand, an action's
button, the counter, the selection's reading, the felt's trick (when asked)."""

HIDDEN_CORNERS = """(hand) => [...hand.querySelectorAll('.hand-card')].filter((card) => {
  const box = card.getBoundingClientRect();
  return [10, box.width * 0.62].some((down) => {
    const hit = document.elementFromPoint(box.left + 8, box.top + down);
    return !hit || hit.closest('.hand-card') !== card;
  });
}).map((card) => card.dataset.card)"""
"""The cards whose top left corner (where the rank and the suit are written) another
card covers."""


def at_the_kitty(page: Page) -> None:
    """Any declaration asked for declined until the dealer buries the kitty (33 cards)."""
    while panel(page, "phase") != "bury":
        request = seat_state(page)[1]
        page.locator("#legal .legal-action[data-action='pass']").click()
        assert wait_turn(page, request) == "acting"
    assert len(my_hand(page)) == 25 + KITTY


@pytest.mark.parametrize(
    ("variant", "size", "lang"),
    [
        ("guandan", "desktop", "en"),
        ("guandan", "desktop", "zh"),
        ("guandan", "phone", "en"),
        ("guandan", "phone", "zh"),
        ("shengji-2", "desktop", "zh"),
        ("shengji-2", "phone", "zh"),
        ("shengji-2", "phone", "en"),
    ],
)
def test_a_decision_fits_on_the_screen(
    live: Live, pages: Pages, monkeypatch: pytest.MonkeyPatch, variant: str, size: str, lang: str
) -> None:
    """At a decision every card of the hand and every action's button are in the window
    (Guandan's 27 cards, the Shengji dealer's 33 at the kitty), on a laptop the felt's
    trick too; a selected card hides no other card's corner; cards stay wide enough to
    tap on a phone."""
    pinned_seed(monkeypatch, 5)  # Shengji: the person deals
    viewport = PHONE if size == "phone" else DESKTOP_SMALL
    page = pages.open(viewport=viewport, locale="zh-CN" if lang == "zh" else "en-US")
    open_table(page, live, variant, ("first", "first", "first"))
    in_language(page, lang)
    wait_turn(page)
    if variant == "shengji-2":
        at_the_kitty(page)
    else:
        assert len(my_hand(page)) == 27
    page.wait_for_timeout(300)  # the page brings the decision into view
    outside = page.evaluate(OUT_OF_VIEW, size == "desktop")
    assert not outside, outside
    click_cards(page, my_hand(page)[::4][:KITTY])  # raised cards across the rows
    if variant == "guandan":  # what the selection reads as, beside the buttons
        page.locator("#reading[data-read='true']").wait_for()
    outside = page.evaluate(OUT_OF_VIEW, size == "desktop")
    assert not outside, outside
    assert page.locator("#my-hand").evaluate(HIDDEN_CORNERS) == []
    if size == "phone":
        widths = tap_widths(page)
        assert min(widths) >= 36, widths
    shoot(page, f"seat-fits-{variant}-{size}-{lang}", full_page=False)
