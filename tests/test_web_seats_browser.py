"""People at the site's tables in a real browser (Debian's Chromium, driven by
Playwright): a table opened from the form and a whole deal of every variant played by
clicks to its end; a refused play showing its reason; a reload mid-deal taking the seat
back; two people at one private table, each seeing only their own hand. Screenshots land
in ``build/screenshots/``."""

from __future__ import annotations

import math
import re
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from browser import Live, Timeline, shoot, stored_record
from playwright.sync_api import expect
from seated import Seated

from arena.games import names
from arena.rating.pools import PERSON_PREFIX, people_pool
from arena.store import RatingChange, Store

if TYPE_CHECKING:
    from browser import Pages
    from playwright.sync_api import Page

WAIT = 30.0


def open_table(page: Page, live: Live, variant: str, seats: tuple[str, str, str]) -> str:
    """Open a one-deal table from the form as a person would; its id."""
    page.goto(f"{live.url}/tables/new?lang=en")
    page.fill("input[name=name]", "tester")
    page.select_option("select[name=variant]", variant)
    page.select_option("select[name=deals]", "1")
    for number, seat in enumerate(seats, start=1):
        page.fill(f"input[name=seat{number}]", seat)
    page.click("#open-table button[type=submit]")
    page.wait_for_url(re.compile(r".*/tables/table-"))
    return page.url.split("/tables/")[1].split("#")[0].split("?")[0]


def seat_state(page: Page) -> tuple[str, str]:
    panel = page.locator("#seat")
    return panel.get_attribute("data-state") or "", panel.get_attribute("data-request") or ""


def my_hand(page: Page) -> list[str]:
    return [
        code or ""
        for code in page.locator("#my-hand .hand-card").evaluate_all(
            "(cards) => cards.map((card) => card.dataset.card)"
        )
    ]


def wait_turn(page: Page, after: str = "") -> str:
    """Wait until the seat acts on a request other than ``after``, or the match is over:
    the state."""
    deadline = time.monotonic() + WAIT
    while True:
        state, request = seat_state(page)
        if state == "over" or (state == "acting" and request and request != after):
            return state
        assert time.monotonic() < deadline, f"no turn after {after!r}: {state}"
        time.sleep(0.02)


def click_cards(page: Page, cards: list[str]) -> None:
    """Select ``cards`` in the hand by clicking them (each copy a card of its own), each
    at its top left corner: on a phone the hand's rows overlap, and a selected card
    raised from the row below covers the middle of the card above it."""
    taken: set[str] = set()
    for card in cards:
        buttons = page.locator(f"#my-hand .hand-card[data-card='{card}']")
        for index in range(buttons.count()):
            button = buttons.nth(index)
            position = button.get_attribute("data-index") or ""
            if position not in taken:
                taken.add(position)
                button.click(position={"x": 6, "y": 8})
                break


def first_play(page: Page) -> str:
    """The first listed action that plays cards, or "" when the decision lists none (a
    follow that nothing in the hand beats)."""
    texts = page.locator("#legal .legal-action").evaluate_all(
        "(buttons) => buttons.map((button) => button.dataset.action)"
    )
    return next((text for text in texts if text.startswith("play ")), "")


def play_by_clicks(page: Page) -> int:
    """Play the seat's decisions until the match is over: a listed action's cards
    clicked in the hand and sent, or (no cards, or cards read one way among several)
    its own button. The decisions made."""
    made = 0
    request = ""
    by_clicks(page)
    while wait_turn(page, request) == "acting":
        _, request = seat_state(page)
        if page.locator("#seat").get_attribute("data-phase") == "bury":
            bury_by_clicks(page)
            made += 1
            continue
        action = page.locator("#legal .legal-action").first
        text = action.get_attribute("data-action") or ""
        cards = [token for token in text.split(" ")[1:] if token != "as"]
        if cards and " as " not in text:
            click_cards(page, cards)
            assert page.locator("#reading").inner_text() != ""
            page.click("#send")
        else:
            action.click()
        made += 1
    return made


def by_clicks(page: Page) -> None:
    """Turn off forced moves played by themselves: every decision waits for a click."""
    if page.locator("#autoplay").is_checked():
        page.locator("#autoplay").click()


def bury_by_clicks(page: Page) -> None:
    """Bury the kitty in one gesture: as many cards as the counter asks, then its button
    (the page sends them one decision each)."""
    count = page.locator("#seat-count").inner_text()  # "Kitty: 0 / 8 chosen"
    total = int(count.split("/")[1].split()[0])
    held = len(my_hand(page))
    for index in range(total):
        page.locator(f"#my-hand .hand-card[data-index='{index}']").click()
    page.click("#send")
    deadline = time.monotonic() + WAIT
    while len(my_hand(page)) != held - total:
        assert time.monotonic() < deadline, "the kitty was not buried"
        time.sleep(0.02)


def dealt_hand(live: Live, table: str, player: int) -> Counter[str]:
    deal = Timeline(stored_record(Path(live.store.path), table)).deal(1)
    seat = next(s for s in range(4) if deal.start.player_at(s) == player)
    return Counter(deal.steps[0].hands[seat])


@pytest.mark.parametrize("variant", names())
def test_a_whole_deal_of_every_variant_is_played_by_clicks(
    live: Live, pages: Pages, variant: str
) -> None:
    page = pages.open(locale="en-US")
    table = open_table(page, live, variant, ("random", "first", "random"))
    wait_turn(page)
    first_hand = my_hand(page)
    shoot(page, f"seat-{variant}-playing")
    made = play_by_clicks(page)
    assert made > 0
    assert page.locator("#seat-over").is_visible()
    shoot(page, f"seat-{variant}-over")
    stored = stored_record(Path(live.store.path), table)
    assert stored["players"][0] == "person:tester"
    assert len(stored["deals"]) == 1
    # the hand drawn at the first decision was the seat's own (the dealer may hold
    # the kitty by then, so it holds the dealt hand at least)
    assert not dealt_hand(live, table, 0) - Counter(first_hand) or variant.startswith("shengji")


def test_a_refused_play_shows_its_reason_and_the_turn_stays(live: Live, pages: Pages) -> None:
    page = pages.open(locale="en-US")
    open_table(page, live, "guandan", ("random", "random", "random"))
    wait_turn(page)
    _, request = seat_state(page)
    hand = [card for card in my_hand(page) if card != "2h"]  # the first deal's wild card
    odd = [hand[0], next(card for card in hand if card[0] != hand[0][0])]
    click_cards(page, odd)
    reading = page.locator("#reading")  # read before it is sent: no combination (GD-8)
    deadline = time.monotonic() + WAIT
    while reading.get_attribute("data-read") != "true":
        assert time.monotonic() < deadline, reading.inner_text()
        time.sleep(0.02)
    assert "No combination" in reading.inner_text()
    assert "GD-8" in reading.inner_text()
    page.click("#send")
    refusal = page.locator("#refusal")
    refusal.wait_for(state="visible")
    # the rule in the page's language, then the rules oracle's own sentence
    assert "GD-8: a play is one combination" in refusal.locator(".refusal-rules").inner_text()
    assert "no combination" in refusal.locator(".refusal-detail").inner_text()
    assert seat_state(page) == ("acting", request)
    shoot(page, "seat-refused")
    page.click("#clear")
    text = first_play(page)
    while not text:  # only a pass beats what a random bot led: pass until a play is legal
        page.locator("#legal .legal-action[data-action='pass']").click()
        assert wait_turn(page, request) == "acting", "the deal ended before a play was legal"
        _, request = seat_state(page)
        text = first_play(page)
    click_cards(page, text.split(" ")[1:])  # the focus is on the last card clicked
    page.keyboard.press("Enter")
    deadline = time.monotonic() + WAIT
    while seat_state(page) == ("acting", request):
        assert time.monotonic() < deadline, "Enter did not play the selected cards"
        time.sleep(0.02)


def test_a_reload_mid_deal_takes_the_seat_back(live: Live, pages: Pages) -> None:
    page = pages.open(locale="en-US")
    open_table(page, live, "guandan", ("random", "random", "random"))
    wait_turn(page)
    before = sorted(my_hand(page))
    _, request = seat_state(page)
    page.reload()
    assert wait_turn(page) == "acting"
    assert seat_state(page)[1] == request
    assert sorted(my_hand(page)) == before
    assert play_by_clicks(page) > 0


def with_a_friend(live: Live, pages: Pages, friend_locale: str) -> tuple[Page, Page, str, str]:
    """A Guandan table opened in English with a friend's seat, the friend (a browser in
    ``friend_locale``) seated from its invitation: both pages, the table's id and its
    invitation."""
    host = pages.open(locale="en-US")
    table = open_table(host, live, "guandan", ("person", "random", "random"))
    invite = host.locator("#invite").input_value()
    shoot(host, "seat-waiting")
    friend = pages.open(locale=friend_locale)
    friend.goto(invite)
    friend.fill("input[name=name]", "friend")
    friend.click("#join-table button[type=submit]")
    friend.wait_for_url(re.compile(rf".*/tables/{table}"))
    return host, friend, table, invite


def test_two_people_at_a_private_table_see_only_their_own_hands(live: Live, pages: Pages) -> None:
    host, friend, table, _ = with_a_friend(live, pages, "zh-CN")
    host.wait_for_selector("#my-hand .hand-card")  # the host's page reloads once started
    friend.wait_for_selector("#my-hand .hand-card")
    host_cards, friend_cards = Counter(my_hand(host)), Counter(my_hand(friend))
    # each page's drawn felt holds no card of any hand face up: hands are seen in the
    # seat's own panel only
    for page in (host, friend):
        assert page.locator("#felt .seat .hand .card[data-card]").count() == 0
    shoot(friend, "seat-friend-zh")
    play_both(host, friend)
    assert host_cards == dealt_hand(live, table, 0)
    assert friend_cards == dealt_hand(live, table, 1)


def play_both(host: Page, friend: Page) -> None:
    """Both play their decisions by their first listed action until the match is over."""
    deadline = time.monotonic() + 4 * WAIT
    for page in (host, friend):
        by_clicks(page)
    while not all(seat_state(page)[0] == "over" for page in (host, friend)):
        assert time.monotonic() < deadline, "the deal did not end"
        for page in (host, friend):
            state, request = seat_state(page)
            if state == "acting":
                page.locator("#legal .legal-action").first.click()
                while seat_state(page) == (state, request):
                    assert time.monotonic() < deadline
                    time.sleep(0.02)
        time.sleep(0.02)


def test_a_hint_selects_the_bots_cards_without_sending_them(live: Live, pages: Pages) -> None:
    page = pages.open()
    open_table(page, live, "guandan", ("random", "random", "random"))  # in English
    wait_turn(page)
    request = seat_state(page)[1]
    page.click("#hint")
    reading = page.locator("#reading")
    reading.wait_for(state="visible")
    deadline = time.monotonic() + WAIT
    while "The heuristic bot would play" not in reading.inner_text():
        assert time.monotonic() < deadline, reading.inner_text()
        time.sleep(0.02)
    assert seat_state(page) == ("acting", request)  # nothing was sent
    selected = page.locator("#my-hand .hand-card.selected").count()
    assert selected > 0 or page.locator("#legal .legal-action.exact").count() == 1
    shoot(page, "seat-hint")


def test_a_tutorial_deal_shows_the_rules_and_is_played_with_the_keyboard(
    live: Live, pages: Pages
) -> None:
    page = pages.open(locale="zh-CN")
    page.goto(f"{live.url}/tables/new")
    page.click("#tutorial button[value=guandan]")
    page.wait_for_url(re.compile(r".*/tables/table-guandan-"))
    tips = page.locator("#tips li")
    assert tips.count() == 5
    assert "GD-8" in tips.nth(1).inner_text()
    request = ""
    made = 0
    while wait_turn(page, request) == "acting":
        request = seat_state(page)[1]
        reading = page.locator("#reading")  # the bot's suggestion, asked by itself
        deadline = time.monotonic() + WAIT
        while "启发式机器人会出" not in reading.inner_text():
            assert time.monotonic() < deadline, reading.inner_text()
            time.sleep(0.02)
        if made == 0:
            shoot(page, "seat-tutorial-zh")
        time.sleep(0.2)  # a person's pace (the site allows 10 requests a second)
        page.keyboard.press("Enter")  # plays the suggestion
        made += 1
    assert made > 0
    assert page.locator("#seat-over").is_visible()


def test_a_refusal_names_its_rule_in_chinese(live: Live, pages: Pages) -> None:
    page = pages.open(locale="zh-CN")
    open_table(page, live, "guandan", ("random", "random", "random"))
    page.goto(page.url.split("#")[0] + "?lang=zh")
    wait_turn(page)
    hand = [card for card in my_hand(page) if card != "2h"]
    click_cards(page, [hand[0], next(card for card in hand if card[0] != hand[0][0])])
    page.click("#send")
    rules = page.locator("#refusal .refusal-rules")
    rules.wait_for(state="visible")
    assert "GD-8：每次出一种牌型" in rules.inner_text()
    shoot(page, "seat-refused-zh")


RATED = "rated-tester"
PASSWORD = "a long enough password"


def elo_history(live: Live, name: str) -> list[RatingChange]:
    """The stored changes of a person's Elo in the people's pool of Guandan."""
    with Store.open(Path(live.store.path), read_only=True) as store:
        return store.rating_history(PERSON_PREFIX + name, people_pool("guandan"), "elo")


def shown(value: float) -> int:
    """A rating as the page rounds it (JavaScript's Math.round: halves up)."""
    return math.floor(value + 0.5)


def test_a_person_signs_up_plays_a_rated_table_and_sees_their_rating_change(
    live: Live, pages: Pages
) -> None:
    """A person signs up in the browser; a first rated table (played over HTTP, the
    account signed in there too) gives them their first Elo (no rating before it); at
    the second, played by clicks, the page shows the change as stored, before → after:
    fails if the page shows any other number (another pool's, another person's, the
    first rating again, the value before as after)."""
    page = pages.open(locale="en-US")
    page.goto(f"{live.url}/account?lang=en")
    page.fill("#sign-in input[name=name]", RATED)
    page.fill("#sign-in input[name=password]", PASSWORD)
    page.click("#sign-up")
    page.wait_for_url(re.compile(r".*/tables/new"))
    assert RATED in page.locator("#account-line").inner_text()
    assert elo_history(live, RATED) == []
    first = Seated(live.url)
    try:
        assert first.account(RATED, PASSWORD, new=False).status_code == 303
        opened = first.open("guandan", ("first", "first", "first"), extra={"rated": "1"})
        assert opened.status_code == 303
        first.listen()
        over = first.play_out()
    finally:
        first.close()
    (stored,) = elo_history(live, RATED)
    player = PERSON_PREFIX + RATED
    (change,) = [c for c in over["rating_changes"] if (c["bot"], c["system"]) == (player, "elo")]
    assert "before" not in change and stored.before is None
    assert change["after"] == pytest.approx(stored.after)
    page.select_option("select[name=deals]", "1")
    for number in (1, 2, 3):
        page.fill(f"input[name=seat{number}]", "first")
    page.check("#rated")
    page.click("#open-table button[type=submit]")
    page.wait_for_url(re.compile(r".*/tables/table-"))
    assert play_by_clicks(page) > 0
    rating = page.locator("#seat-rating")
    rating.wait_for(state="visible", timeout=WAIT * 1000)
    found = re.fullmatch(
        r"Your Elo on the people's leaderboard: (\d+) → (\d+)", rating.inner_text()
    )
    assert found is not None, rating.inner_text()
    before, after = elo_history(live, RATED)
    assert before.after == pytest.approx(after.before)
    assert after.before is not None
    assert (int(found[1]), int(found[2])) == (shown(after.before), shown(after.after))
    shoot(page, "seat-rated-over")
    page.click("#seat-over a[href*='pool=people']")
    page.wait_for_url(re.compile(r".*/leaderboard\?.*pool=people"))
    expect(page.locator(f"tr[data-bot='person:{RATED}']")).to_have_count(1)
    shoot(page, "leaderboard-people")
