"""People at the site's tables, over HTTP as a browser goes: opening a table, the seat's
stream and answers, refusals with their reasons, a reload taking the seat back, friends
invited to a private table, the safety of sessions (cookies, CSRF, other sites, rate
limits), and hidden information: a seat's stream holds that seat's own cards only,
checked against the stored record re-played by the engine, with a planted leak found."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser import (
    Live,
    Timeline,
    WebThread,
    pinned_seed,
    serving_live,
    stored_record,
    wait_until,
)
from seated import WAIT, Seated, WaitingBot

import bots
from arena import games
from arena.chance import derive_seed
from arena.games import names
from arena.games.base import Observation
from arena.match import AUTO_MARK
from arena.replay import MatchRecord, replay_entry, start_deal
from arena.server.session import MatchSession
from arena.store import Store
from arena.web.people import SESSION_COOKIE
from arena.web.refusals import action_text

BOTS = ("random", "first", "random")
WILD = "2h"
"""The wild card of a match's first Guandan deal (level 2, GD-4): it pairs with any card."""


def opened(person: Seated, variant: str = "guandan", seats: tuple[str, str, str] = BOTS) -> None:
    person.session()
    response = person.open(variant, seats)
    assert response.status_code == 303, response.text[:400]
    person.listen()


def own_hands(live: Live, table: str, player: int) -> set[tuple[str, ...]]:
    """Every hand the player's seat held during the stored match (sorted card codes)."""
    path = Path(live.store.path)
    timeline = Timeline(stored_record(path, table))
    hands: set[tuple[str, ...]] = set()
    for deal in timeline.deals:
        seat = next(s for s in range(4) if deal.start.player_at(s) == player)
        hands.update(step.hands[seat] for step in deal.steps)
    return hands


def stream_leaks(seen: list[tuple[str, dict[str, Any]]], hands: set[tuple[str, ...]]) -> list[str]:
    """What the seat's stream showed beyond its own cards: a hand it never held, a legal
    action with cards outside the hand it was offered with."""
    leaks = []
    for name, data in seen:
        if name in ("hand", "decision"):
            hand = tuple(sorted(data["hand"]))
            if hand not in hands:
                leaks.append(f"{name}: hand {' '.join(hand)} was never the seat's")
        if name == "decision":
            held = Counter(data["hand"])
            for text in data["legal"]:
                cards = Counter(t for t in text.split(" ")[1:] if t != "as" and len(t) == 2)
                if cards - held:
                    leaks.append(f"decision: {text!r} uses cards the seat does not hold")
    return leaks


@pytest.mark.parametrize("variant", names())
def test_a_person_plays_a_deal_of_every_variant_to_its_end_through_the_seat(
    live: Live, person: Seated, variant: str
) -> None:
    opened(person, variant)
    _, seat = person.next("seat")
    assert seat["player"] == 0
    assert seat["match"]["match_id"] == person.table
    assert seat["match"]["players"][0] == "person:tester"
    result = person.play_out(choose=1)
    assert result["match_id"] == person.table
    assert result["deals"] == 1
    leaks = stream_leaks(person.seen, own_hands(live, person.table, 0))
    assert leaks == []
    stored = stored_record(Path(live.store.path), person.table)
    assert stored["players"][0] == "person:tester"


@pytest.mark.parametrize("variant", ["guandan", "sanfu"])
def test_each_deals_result_comes_before_the_next_deals_hand_which_names_its_deal(
    tmp_path: Path, variant: str
) -> None:
    """The seat's stream in a match of three deals: every ``hand`` names its deal, and
    no hand of a deal comes before the result of the deal before it (nor one of a deal
    after its result)."""
    with serving_live(tmp_path / "arena.sqlite", 3) as served:
        person = Seated(served.url)
        try:
            person.session()
            assert person.open(variant, ("first", "first", "first"), "3").status_code == 303
            person.listen()
            assert person.play_out()["deals"] == 3
        finally:
            person.close()
    told = [(name, data) for name, data in person.seen if name in ("hand", "decision", "deal")]
    assert all("deal" in data for _, data in told), [n for n, d in told if "deal" not in d]
    results = [int(data["deal"]) for name, data in told if name == "deal"]
    assert results == [1, 2, 3]
    ended = 0  # the deals whose result came so far
    for name, data in told:
        if name == "deal":
            ended = int(data["deal"])
        else:
            assert int(data["deal"]) == ended + 1, f"a {name} of deal {data['deal']} after {ended}"


def test_a_refused_play_names_the_rule_and_the_decision_stays_open(
    live: Live, person: Seated
) -> None:
    opened(person)
    _, decision = person.next("decision")
    hand = [card for card in decision["hand"] if card != WILD]
    # two cards of different ranks are no Guandan combination (GD-8)
    pair = [hand[0], next(c for c in hand if c[0] != hand[0][0])]
    response = person.act(decision["request_id"], "play " + " ".join(pair))
    assert response.status_code == 200
    _, refused = person.next("refused")
    assert refused["request_id"] == decision["request_id"]
    assert refused["status"] == "illegal"
    assert "GD-" in refused["engine_reason"]  # the reason itself is in player words
    garbled = person.act(decision["request_id"], "play 1x")
    assert garbled.status_code == 200
    _, malformed = person.next("refused")
    assert malformed["status"] == "malformed"
    assert "1x" in malformed["engine_reason"]
    # the same request still takes a legal answer
    assert person.act(decision["request_id"], decision["legal"][0]).status_code == 200
    name, _ = person.next("decision", "hand")
    assert name in ("decision", "hand")


def test_a_reload_takes_the_seat_back_with_its_open_decision(live: Live, person: Seated) -> None:
    opened(person)
    _, first = person.next("decision")
    person.listen()  # the page reloads: a new stream for the same seat
    _, seat = person.next("seat")
    assert seat["player"] == 0
    _, again = person.next("decision")
    assert again["request_id"] == first["request_id"]
    assert sorted(again["hand"]) == sorted(first["hand"])
    assert person.act(again["request_id"], again["legal"][0]).status_code == 200
    assert person.play_out()["deals"] == 1


def test_a_second_page_of_the_seat_takes_it_and_the_first_is_told_and_ends(
    live: Live, person: Seated
) -> None:
    """Two tabs of one seat: the newer stream takes the seat; the older one gets
    ``replaced`` and ends (its page stops, so the two never take it from each other)."""
    opened(person)
    _, first = person.next("decision")
    other = Seated(live.url)
    try:
        other.http.cookies = person.http.cookies  # the same browser: another tab
        other.csrf, other.table = person.csrf, person.table
        other.listen()
        _, again = other.next("decision")
        assert again["request_id"] == first["request_id"]
        assert person.next("replaced")[1] == {}
        assert person.events.get(timeout=WAIT) is None  # the older stream ended
        assert other.act(again["request_id"], again["legal"][0]).status_code == 200
        assert other.play_out()["deals"] == 1
    finally:
        other.close()


def test_friends_at_a_private_table_each_read_only_their_own_seat(live: Live) -> None:
    host, friend, stranger = Seated(live.url), Seated(live.url), Seated(live.url)
    try:
        host.session()
        assert host.open("guandan", ("person", "random", "random")).status_code == 303
        page = host.http.get(f"/tables/{host.table}")
        assert page.status_code == 200
        invite = page.text.split('id="invite" class="invite" readonly value="')[1].split('"')[0]
        invite = invite.replace("&amp;", "&")
        assert friend.join(invite, "friend").status_code == 303
        assert friend.table == host.table
        # nobody else sits down, with or without the link: the invitation says the
        # table is full and offers to watch, and a seat asked for anyway is refused
        stranger.session()
        stranger.table = host.table
        full = stranger.http.get(invite.replace(live.url, ""))
        assert 'id="table-full"' in full.text and 'id="join-table"' not in full.text
        assert f'href="/matches/{host.table}"' in full.text
        refused = stranger.http.post(
            f"/tables/{host.table}/join",
            data={"csrf": stranger.csrf, "invite": invite.split("invite=")[1], "name": "late"},
        )
        assert refused.status_code == 400
        assert "every seat of this table is taken" in refused.text
        assert stranger.http.get(f"/api/tables/{host.table}/seat").status_code == 403
        assert stranger.act("r-1", "pass").status_code == 403
        host.listen()
        friend.listen()
        _, seat = friend.next("seat")
        assert seat["player"] == 1
        # each answers its own decisions; neither stream holds the other's cards
        done: dict[str, dict[str, Any]] = {}

        def turn(who: Seated) -> None:
            try:
                name, data = who.next("decision", "over", seconds=0.2)
            except AssertionError:
                return
            if name == "over":
                done[who.table + str(id(who))] = data
                return
            who.answer(data["request_id"], data["legal"][-1])

        wait_until(lambda: (turn(host), turn(friend), len(done) == 2)[2], "both see the end", 120)
        assert stream_leaks(host.seen, own_hands(live, host.table, 0)) == []
        assert stream_leaks(friend.seen, own_hands(live, host.table, 1)) == []
    finally:
        for seated in (host, friend, stranger):
            seated.close()


def test_the_checker_finds_another_seats_hand_planted_in_the_stream(
    live: Live, person: Seated, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = MatchSession.hand_of

    def leaky(self: MatchSession, player: int) -> tuple[int, list[str]] | None:
        held = real(self, player)
        if held is None:
            return None
        _, cards = real(self, (player + 1) % 4) or (0, [])
        return held[0], cards  # the next seat's cards in place of its own

    monkeypatch.setattr(MatchSession, "hand_of", leaky)
    opened(person)
    person.play_out()
    leaks = stream_leaks(person.seen, own_hands(live, person.table, 0))
    assert any("was never the seat's" in leak for leak in leaks)


def test_state_changes_need_the_session_its_csrf_token_and_the_site_itself(
    live: Live, person: Seated
) -> None:
    # no session at all
    bare = Seated(live.url)
    try:
        response = bare.http.post("/tables", data={"variant": "guandan"})
        assert response.status_code == 403
        assert "no session" in response.text
    finally:
        bare.close()
    person.session()
    cookie = person.http.cookies.jar
    (session,) = [c for c in cookie if c.name == SESSION_COOKIE]
    assert session.has_nonstandard_attr("HttpOnly")
    assert session.get_nonstandard_attr("SameSite", "").lower() == "strict"
    wrong = person.open("guandan", BOTS, extra={"csrf": "not-the-token"})
    assert wrong.status_code == 403
    assert "CSRF" in wrong.text
    elsewhere = person.http.post(
        "/tables",
        data={
            "csrf": person.csrf,
            "variant": "guandan",
            "seat1": "random",
            "seat2": "random",
            "seat3": "random",
        },
        headers={"origin": "https://evil.example"},
    )
    assert elsewhere.status_code == 403
    assert "another site" in elsewhere.text
    assert person.open("guandan", BOTS).status_code == 303
    # an answer without the header's token
    assert person.act("r-1", "pass", csrf="").status_code == 403


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("variant", "poker", "unknown variant 'poker'"),
        ("seat2", "nobody-bot", "seat 3:"),
        ("seat1", "policy:path=x.npz", "not seated by the server"),
        ("deals", "7", "deals: '7' is not one of"),
        ("options", "decks=9", "options of guandan"),
        ("name", "<script>", "name '<script>' must be"),
    ],
)
def test_a_bad_table_form_is_refused_naming_the_field(
    person: Seated, field: str, value: str, words: str
) -> None:
    person.session()
    response = person.open("guandan", BOTS, extra={field: value})
    assert response.status_code == 400
    assert words in response.text.replace("&#39;", "'").replace("&lt;", "<").replace("&gt;", ">")


def test_a_refusal_is_said_in_the_pages_language(live: Live, person: Seated) -> None:
    person.http.headers["accept-language"] = "zh"
    person.session()
    response = person.open("guandan", BOTS, extra={"variant": "poker"})
    assert response.status_code == 400
    assert "未知玩法「poker」" in response.text
    assert person.open("guandan", ("person", "random", "random")).status_code == 303
    friend = Seated(live.url)
    friend.http.headers["accept-language"] = "zh"
    friend.session()
    wrong = friend.http.post(
        f"/tables/{person.table}/join",
        data={"csrf": friend.csrf, "invite": "not-the-invitation", "name": "friend"},
    )
    friend.close()
    assert wrong.status_code == 400
    assert "这不是本桌的邀请" in wrong.text


def test_answers_are_rate_limited_per_person(live: Live, person: Seated) -> None:
    """One person answering faster than a person can is slowed down (429) while another
    person, at a table of their own from the same address, is not: fails if the limit is
    shared by everyone (global), by an address, or missing."""
    other = Seated(live.url)
    try:
        opened(person)
        opened(other)
        _, mine = person.next("decision")
        _, theirs = other.next("decision")
        statuses = [person.act(mine["request_id"], "play 1x").status_code]
        while statuses[-1] == 200 and len(statuses) < 200:
            statuses.append(person.act(mine["request_id"], "play 1x").status_code)
        assert statuses[0] == 200
        assert statuses[-1] == 429, f"never slowed down in {len(statuses)} answers"
        # at once, while the first person's bucket is empty: the other's holds a burst
        others = [other.act(theirs["request_id"], "play 1x").status_code for _ in range(15)]
        assert others == [200] * 15
    finally:
        other.close()


def test_a_site_without_a_server_says_where_tables_are_played(tmp_path: Path) -> None:
    with Store.open(tmp_path / "arena.sqlite") as store:
        site = WebThread(store)
        try:
            response = httpx.get(f"{site.url}/tables/new")
        finally:
            site.close()
    assert response.status_code == 503
    assert "arena serve --web-port" in response.text


HINTED = 8
"""Decisions of the person answered with the hint (then the deal is played out)."""


def ask_hint(person: Seated) -> httpx.Response:
    """The hint for the open decision, asked again after a pause while too fast."""
    while True:
        asked = person.http.post(
            f"/api/tables/{person.table}/hint", headers={"x-csrf-token": person.csrf}
        )
        if asked.status_code != 429:
            return asked
        time.sleep(0.1)


def seat_observations(record: dict[str, Any], player: int) -> list[Observation]:
    """What the player's seat observed at each of its decisions of the match's first deal,
    re-played by the engine from the stored record (the web face and server not asked)."""
    parsed = MatchRecord.from_dict(record)
    deal = parsed.deals[0]
    state = start_deal(games.make(parsed.game, **parsed.options), deal)
    seen = []
    for text in deal.actions:
        if not text.startswith("!") and state.player_at(state.to_act) == player:
            seen.append(state.observe(state.to_act))
        replay_entry(state, text)
    return seen


def test_a_hint_is_the_heuristic_bots_choice_for_the_open_decision(
    live: Live, person: Seated, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hint is what the heuristic bot, seeded by the request, plays from the seat's
    own observation (the engine's, re-played from the stored record): fails if the hint
    is another legal action (the first, a random one), another bot's, or made from
    another seat's or a stale observation."""
    pinned_seed(monkeypatch)
    opened(person)
    hints: list[tuple[str, str, list[str]]] = []
    while len(hints) < HINTED:
        name, decision = person.next("decision", "over")
        assert name == "decision", "the deal ended before the hints were checked"
        asked = ask_hint(person)
        assert asked.status_code == 200, asked.text
        hint = asked.json()
        assert hint["request_id"] == decision["request_id"]
        assert hint["action"] in decision["legal"]
        hints.append((decision["request_id"], hint["action"], sorted(decision["legal"])))
        person.answer(decision["request_id"], hint["action"])
    unsigned = person.http.post(f"/api/tables/{person.table}/hint")
    assert unsigned.status_code == 403
    assert person.play_out()["deals"] == 1
    observations = seat_observations(stored_record(Path(live.store.path), person.table), 0)
    assert len(observations) >= len(hints)
    chosen = []
    for (request_id, hinted, offered), observation in zip(hints, observations, strict=False):
        legal = [str(action) for action in observation.legal_actions]
        assert sorted(legal) == offered, f"request {request_id} is not this decision"
        bot = bots.make("heuristic", derive_seed(0, "hint", request_id))
        assert hinted == str(bot.act(observation)), f"request {request_id}"
        chosen.append((legal.index(hinted), len(legal)))
    # the bot's choices follow no rule as simple as "the first or the last one listed"
    assert any(0 < at < count - 1 for at, count in chosen), chosen
    late = ask_hint(person)
    assert late.status_code == 409
    assert "not being played" in late.json()["message"]


def read(person: Seated, cards: list[str]) -> Any:
    time.sleep(0.15)  # a person's pace: the rate limit stays out of the way
    return person.http.post(
        f"/api/tables/{person.table}/read",
        json={"cards": cards},
        headers={"x-csrf-token": person.csrf, "accept-language": "en"},
    )


def test_a_guandan_selection_is_read_before_it_is_sent(live: Live, person: Seated) -> None:
    opened(person)
    _, decision = person.next("decision")
    hand = decision["hand"]
    plain = next(card for card in hand if card not in (WILD, "SJ", "BJ"))
    single = read(person, [plain])
    assert single.status_code == 200
    assert single.json()["readings"] == [f"single {plain[0].replace('T', '10')}"]
    assert single.json()["wild"] == 0
    paired = read(person, [plain, WILD]).json()  # the wild card stands in (GD-4)
    assert f"pair {plain[0].replace('T', '10')}" in paired["readings"]
    assert paired["wild"] == 1
    other = next(card for card in hand if card[0] not in (plain[0], "2", "S", "B"))
    none = read(person, [plain, other]).json()
    assert none["readings"] == []
    assert "GD-8" in none["why"]
    bad = read(person, ["1x"])
    assert bad.status_code == 400
    assert "1x" in bad.json()["message"]


def test_other_games_read_a_selection_when_it_is_sent(live: Live, person: Seated) -> None:
    opened(person, "sanfu")
    _, decision = person.next("decision")
    assert read(person, decision["hand"][:1]).json() == {"readings": None}


def test_tables_whose_friends_never_came_are_forgotten() -> None:
    from types import SimpleNamespace

    from arena.web.host import INVITE_SECONDS, TableHost
    from arena.web.people import People

    play = SimpleNamespace(config=SimpleNamespace(max_deals=None))
    clock = [0.0]
    tables = TableHost(play, now=lambda: clock[0])  # type: ignore[arg-type]
    person = People().start("waiter")
    waiting = tables.open(person, "guandan", ["person", "random", "random"])
    assert tables.table(waiting.id) is waiting
    clock[0] = INVITE_SECONDS + 1
    fresh = tables.open(person, "guandan", ["person", "random", "random"])
    assert tables.table(waiting.id) is None
    assert tables.table(fresh.id) is fresh


def test_a_registered_bot_waiting_for_a_casual_match_takes_a_seat(
    live: Live, person: Seated
) -> None:
    person.session()
    # not connected: refused, naming how to connect it
    (token,) = live.arena.tokens("my-own-bot")
    refused = person.open("guandan", ("my-own-bot", "random", "random"))
    assert refused.status_code == 400
    assert "not connected and waiting for a casual guandan match" in refused.text.replace(
        "&#39;", "'"
    )
    bot = WaitingBot(live, "my-own-bot", token)
    assert "<code>my-own-bot</code>" in person.session()  # the form offers it
    opened_ = person.open("guandan", ("my-own-bot", "random", "random"))
    assert opened_.status_code == 303, opened_.text[:300]
    person.listen()
    _, seat = person.next("seat")
    assert seat["match"]["players"][1] == "my-own-bot"
    assert person.play_out()["deals"] == 1
    assert bot.played().matches == 1
    stored = stored_record(Path(live.store.path), person.table)
    assert stored["players"][1] == "my-own-bot"


def test_a_person_who_runs_out_of_time_is_played_for_as_a_bot_is(
    live: Live, person: Seated, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.server.session import ClockConfig
    from arena.web import host

    # a second: time enough to be sent with some of it left on a loaded machine
    quick = ClockConfig(decision_seconds=1.0, time_bank_seconds=0.0, grace_seconds=5.0)
    monkeypatch.setattr(host, "PEOPLE_CLOCK", quick)
    opened(person)
    _, decision = person.next("decision")
    assert 0 < decision["decision_ms"] <= 1000
    _, timed_out = person.next("timed_out")  # no answer: the driver's automatic play
    assert timed_out["request_id"] == decision["request_id"]
    _, following = person.next("decision")
    assert following["request_id"] != decision["request_id"]
    person.answer(following["request_id"], following["legal"][0])  # back in time: plays on
    assert person.play_out()["deals"] == 1
    # the person is told the play made for them, as stored: the one automatic play
    actions = stored_record(Path(live.store.path), person.table)["deals"][0]["actions"]
    assert actions.count(AUTO_MARK) == 1
    played = actions[actions.index(AUTO_MARK) + 1]
    assert played in decision["legal"]
    assert timed_out["action"] == action_text("en", played, "guandan", decision["phase"])


def seat_page_mid_deal(person: Seated) -> str:
    """A Guandan table's seat page at the person's first decision, then the deal played
    out (the record is stored)."""
    opened(person)
    _, decision = person.next("decision")
    page = person.http.get(f"/tables/{person.table}")
    assert page.status_code == 200
    person.answer(decision["request_id"], decision["legal"][0])
    person.play_out()
    return page.text


def test_a_seat_page_holds_no_card_hidden_from_its_seat(live: Live, person: Seated) -> None:
    from test_web_hidden import Public, html_leaks

    html = seat_page_mid_deal(person)
    public = Public(stored_record(Path(live.store.path), person.table))
    assert html_leaks(public, html, "seat page") == []


def test_the_checker_finds_a_hand_planted_in_a_seat_page(
    live: Live, person: Seated, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_web_hidden import Public, html_leaks

    from arena.web.tables import TablePages

    real = TablePages.view

    async def leaky(
        self: TablePages,
        match_id: str,
        lang: str,
        deal: int | None = None,
        viewer: int | None = None,
    ) -> tuple[dict[str, Any], bool]:
        view, running = await real(self, match_id, lang, deal, viewer)
        held = self.viewer._sessions[match_id].hand_of(1)  # the next seat's own cards
        view["planted"] = held[1] if held is not None else []
        return view, running

    monkeypatch.setattr(TablePages, "view", leaky)
    html = seat_page_mid_deal(person)
    public = Public(stored_record(Path(live.store.path), person.table))
    assert any("hidden then" in leak for leak in html_leaks(public, html, "seat page"))
