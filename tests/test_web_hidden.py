"""The live table shows a spectator only public cards (rules/common.md C-5).

A running match's page (``/matches/{id}``), its frames as JSON
(``/api/matches/{id}/table``) and its event stream (``/api/matches/{id}/live``) are
read while the match is played, at moments the test chooses (a bot of the SDK answers
only the decisions the test allows). Once the match is stored, its record is re-played
by the engine and every card found anywhere in what was sent — a card code in any
field, a card written for people (``♥10``, 小王) in any text — is held to what
``tests/public_cards.py`` says was public at the moment of the frame that carried it.
The checker is shown to find a hidden card planted on purpose: in a frame, in the
table fold of a real server (a second path to a seat's hand), and in the engine's
events (``tests/leak_plants.py``).
"""

from __future__ import annotations

import copy
import json
import re
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import leak_plants as plants
import pytest
from browser import (
    WAIT,
    Live,
    LiveMatch,
    Played,
    Timeline,
    pinned_seed,
    serving_live,
    stored_record,
    wait_until,
)
from google.protobuf.json_format import MessageToDict
from public_cards import Statement, statement_for

from arena import games
from arena.cards import BIG_JOKER, format_card
from arena.games.base import Event, State
from arena.games.guandan import GuandanState
from arena.games.guandan.combos import wild_card
from arena.server.spectate import stored_messages
from arena.store import Store
from arena.web.i18n import translate

LANGUAGE = "zh"
CODE = re.compile(r"(?<![0-9A-Za-z])(?:[2-9TJQKA][shcd]|SJ|BJ)(?![0-9A-Za-z])")
WRITTEN = re.compile(r"([♠♥♦♣])(10|[2-9JQKA])")
SUITS = {"♠": "s", "♥": "h", "♦": "d", "♣": "c"}
NAMES = frozenset({"id", "match_id", "players", "name", "tournament", "variant", "game"})
"""Keys holding ids and bot names (chosen by people, never cards): not read for cards."""
WORDS = "labels"
"""The key of the page's words (the same for every match of a game)."""
RULE_MARKS = frozenset({"marks", "facts"})
"""Keys of what the rules make known (Guandan's wild card names a card no one showed):
read against the public cards and the cards the rules name."""
SCRIPT = re.compile(
    r'<script type="application/json" id="table-data">(?P<data>.*?)</script>', re.DOTALL
)
PAUSES = (0, 3, 8, 21, 34)
"""The bot's answered decisions at which the pages are read while the match runs."""


# -- finding cards -------------------------------------------------------------------------


def cards_in_text(text: str, jokers: bool = True) -> Counter[str]:
    """Every card a text names: as a code, or as people read it (``♥10``; 小王 unless
    ``jokers`` is false)."""
    found = Counter(CODE.findall(text))
    found.update(
        ("T" if rank == "10" else rank) + SUITS[suit] for suit, rank in WRITTEN.findall(text)
    )
    if jokers:
        for code, key in (("SJ", "small_joker"), ("BJ", "big_joker")):
            found[code] += text.count(translate(LANGUAGE, f"table.card.{key}"))
    return +found


def cards_in(value: Any, skipped: frozenset[str] = NAMES, jokers: bool = True) -> Counter[str]:
    """Every card anywhere in a JSON value, but under the ``skipped`` keys. The page's
    words (``labels``) name the jokers to draw them: there, only card codes and written
    cards count."""
    found: Counter[str] = Counter()
    if isinstance(value, str):
        found.update(cards_in_text(value, jokers))
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in skipped:
                found.update(cards_in(item, skipped, jokers and key != WORDS))
    elif isinstance(value, list):
        for item in value:
            found.update(cards_in(item, skipped, jokers))
    return found


def rule_named(start: State) -> set[str]:
    """The cards a deal's rules name, though no one showed them: Guandan's wild card
    (GD-6), the heart of the level."""
    if isinstance(start, GuandanState):
        return {format_card(wild_card(start.setup.level))}
    return set()


# -- what was public when ---------------------------------------------------------------------


@dataclass
class Public:
    """Per deal of a record, what is public (tests/public_cards.py) at each moment: as
    dealt, after each step of the engine (an event at a time), at the deal's end."""

    record: dict[str, Any]
    timeline: Timeline = field(init=False)
    statements: list[list[Statement]] = field(init=False, default_factory=list)
    named: list[set[str]] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self.timeline = Timeline(self.record)
        for deal in self.timeline.deals:
            statement = statement_for(deal.start)
            self.named.append(rule_named(deal.start))
            taken = []
            for step in deal.steps:
                if step.action is not None and step.seat is not None:
                    statement.take(step.seat, step.action)
                taken.append(copy.deepcopy(statement))
            self.statements.append(taken)

    def at(self, deal: int, seq: int, end: bool = False) -> Counter[str]:
        """The cards public when a frame of ``deal`` numbered ``seq`` was drawn (``end``:
        the deal's result)."""
        replayed = self.timeline.deal(deal)
        events = [event for number, event in replayed.events if number <= seq]
        if end:
            step = len(replayed.steps) - 1
        else:
            found = replayed.step_at(seq)
            if found is None:
                fresh = statement_for(replayed.start)
                return _codes(fresh.pool([], replayed.steps[0].phase))
            step = found
        statement = self.statements[deal - 1][step]
        return _codes(statement.pool(events, replayed.steps[step].phase)) | announced(events)

    @property
    def first(self) -> Counter[str]:
        """The cards public as the match starts."""
        return self.at(1, 0)


def announced(events: list[Event]) -> Counter[str]:
    """Cards a public event tells of without showing them: a refused tribute says the
    losers hold both big jokers (GD-15, "the refusal is a public event")."""
    if any(event.kind == "refuse_tribute" for event in events):
        return Counter({format_card(BIG_JOKER): 2})
    return Counter()


def _codes(pool: Counter[int]) -> Counter[str]:
    return Counter({format_card(card): count for card, count in pool.items()})


def is_deal_end(frame: dict[str, Any]) -> bool:
    moment = frame.get("moment") or {}
    return moment.get("kind") in ("deal_result", "fled") or any(
        entry.get("kind") == "deal_result" for entry in frame.get("log") or []
    )


def frame_leaks(public: Public, frame: dict[str, Any], where: str) -> list[str]:
    """What a frame of a running match shows that was hidden when it was drawn."""
    where = f"{where}, frame {frame.get('i')} (deal {frame.get('deal')}, seq {frame.get('seq')})"
    deal = int(frame["deal"])
    allowed = public.at(deal, int(frame["seq"]), is_deal_end(frame))
    problems = []
    for seat in frame.get("seats") or []:
        if seat.get("hand") is not None:
            problems.append(f"{where}: seat {seat.get('seat')}'s hand is given out")
    hidden = set(cards_in(frame, NAMES | RULE_MARKS)) - set(allowed)
    if hidden:
        problems.append(f"{where}: shows {sorted(hidden)}, hidden then")
    marks = {key: frame.get(key) for key in RULE_MARKS}
    named = public.named[deal - 1]
    hidden = set(cards_in(marks)) - set(allowed) - named
    if hidden:
        problems.append(f"{where}: its marks and facts show {sorted(hidden)}, hidden then")
    for part in ("table", "last_trick"):
        shown = Counter(c for entry in frame.get(part) or [] for c in entry.get("cards") or [])
        if shown - allowed:
            problems.append(f"{where}: its {part} holds {sorted((shown - allowed).elements())}")
    return problems


def allowed_after(public: Public, frames: list[dict[str, Any]]) -> Counter[str]:
    """The cards public once ``frames`` were drawn (before any: as the match starts)."""
    if not frames:
        return public.first
    last = frames[-1]
    return public.at(int(last["deal"]), int(last["seq"]), is_deal_end(last))


def outside_leaks(
    payload: Any, frames: list[dict[str, Any]], allowed: Counter[str], where: str
) -> list[str]:
    """The cards a payload shows outside its ``frames`` that ``allowed`` does not hold."""
    inside = sum((cards_in(frame) for frame in frames), Counter[str]())
    hidden = set(cards_in(payload) - inside) - set(allowed)
    return [f"{where}: shows {sorted(hidden)} outside its frames, hidden then"] if hidden else []


def whole(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Frames whose fields (and seats' fields) left out where the frame before in the
    same deal holds them are carried forward, as the page does."""
    result: list[dict[str, Any]] = []
    for frame in frames:
        before = result[-1] if result and result[-1].get("deal") == frame.get("deal") else {}
        merged = {**before, **frame}
        if before and "seats" in frame:
            merged["seats"] = [
                {**old, **new} for old, new in zip(before["seats"], frame["seats"], strict=True)
            ]
        result.append(merged)
    return result


def payload_leaks(
    public: Public, payload: Any, frames: list[dict[str, Any]], where: str
) -> list[str]:
    """The leaks of a payload holding ``frames`` (each at its own moment), and of the
    rest of it at the moment of its last frame."""
    full = whole(frames)
    problems = [leak for frame in full for leak in frame_leaks(public, frame, where)]
    problems.extend(outside_leaks(payload, frames, allowed_after(public, full), where))
    return problems


def html_leaks(public: Public, html: str, where: str) -> list[str]:
    """The page: its embedded table data (frames at their moments) and the rest of the
    HTML (card attributes, texts) at the moment of the last frame."""
    found = SCRIPT.search(html)
    assert found is not None, f"{where}: no #table-data in the page"
    view = json.loads(found["data"])
    problems = payload_leaks(public, view, view["frames"], f"{where} (table data)")
    rest = SCRIPT.sub("", html)
    page = {"attributes": re.findall(r'data-card="([^"]*)"', rest), "text": rest}
    allowed = allowed_after(public, whole(view["frames"]))
    problems.extend(outside_leaks(page, [], allowed, f"{where} (HTML)"))
    return problems


# -- reading a live match -------------------------------------------------------------------


@dataclass
class Seen:
    """What a spectator was sent while the match ran."""

    stream: list[tuple[str, Any]] = field(default_factory=list)
    tables: list[dict[str, Any]] = field(default_factory=list)
    pages: list[str] = field(default_factory=list)
    errors: list[BaseException] = field(default_factory=list)


def read_stream(url: str, seen: Seen) -> None:
    """The server-sent events of the live stream, until its end (``result``)."""
    try:
        with httpx.stream("GET", url, timeout=httpx.Timeout(WAIT, read=WAIT * 2)) as response:
            assert response.status_code == 200, response.status_code
            event, data = "message", []
            for line in response.iter_lines():
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].removeprefix(" "))
                elif not line and data:
                    seen.stream.append((event, json.loads("\n".join(data))))
                    event, data = "message", []
    except BaseException as err:
        seen.errors.append(err)


def watch_live(base: str, match: LiveMatch) -> Seen:
    """Read the stream from the start, and the JSON and the page at every pause of the
    bot, until the match ends."""
    seen = Seen()
    address = f"{base}/api/matches/{match.id}"
    reader = threading.Thread(
        target=read_stream, args=(f"{address}/live?lang={LANGUAGE}", seen), daemon=True
    )
    reader.start()
    try:
        for pause in PAUSES:
            if not match.reach(pause):
                break
            for deals in ("", "&deal=all", "&deal=1"):  # the current deal, all, the first
                table = httpx.get(f"{address}/table?lang={LANGUAGE}{deals}", timeout=WAIT)
                assert table.status_code == 200, table.text[:300]
                if table.json()["match"]["live"]:
                    seen.tables.append(table.json())
            page = httpx.get(f"{base}/matches/{match.id}?lang={LANGUAGE}", timeout=WAIT)
            assert page.status_code == 200, page.text[:300]
            seen.pages.append(page.text)
    finally:
        match.finish()
    reader.join(WAIT)
    assert not reader.is_alive(), "the live stream did not end with the match"
    assert not seen.errors, f"reading the live stream failed: {seen.errors}"
    return seen


def leaks_seen(public: Public, seen: Seen) -> list[str]:
    """Every hidden card in what the spectator was sent, each at its moment."""
    problems: list[str] = []
    drawn: list[dict[str, Any]] = []
    for event, data in seen.stream:
        if event == "frame":
            problems.extend(frame_leaks(public, data, "stream"))
            drawn.append(data)
        else:
            problems.extend(outside_leaks(data, [], allowed_after(public, drawn), event))
    for n, table in enumerate(seen.tables):
        problems.extend(payload_leaks(public, table, table["frames"], f"JSON {n}"))
    for n, html in enumerate(seen.pages):
        problems.extend(html_leaks(public, html, f"page {n}"))
    return problems


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """A server and its web face; two-deal matches (Guandan's second deal has tribute)."""
    with serving_live(tmp_path_factory.mktemp("hidden") / "arena.sqlite", 2) as live:
        yield live


def play_watched(live: Live, variant: str, name: str) -> tuple[Public, Seen]:
    """A match played and watched live (:func:`watch_live`); what was public when."""
    match = live.match(variant, name)
    seen = watch_live(live.url, match)
    wait_until(lambda: live.store.match(match.id) is not None, f"match {match.id} stored")
    stream_kinds = [event for event, _ in seen.stream]
    assert stream_kinds[0] == "header" and stream_kinds[-1] == "result", stream_kinds[:3]
    assert seen.tables and seen.pages, "the match ended before the pages were read"
    return Public(stored_record_of(live.store, match.id)), seen


def stored_record_of(store: Store, match_id: str) -> dict[str, Any]:
    match = store.match(match_id)
    assert match is not None
    return match.record


# -- the tests ----------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", games.names())
def test_a_live_match_shows_a_spectator_only_public_cards(
    served: Live, monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    """The match seed is pinned (the same cards every run: a failure can be replayed);
    with it Guandan's second deal has tribute."""
    pinned_seed(monkeypatch)
    public, seen = play_watched(served, variant, f"hidden-{variant}")
    frames = [data for event, data in seen.stream if event == "frame"]
    assert [f["i"] for f in frames] == list(range(len(frames)))  # each frame once, in order
    found = sum((cards_in(frame) for frame in frames), Counter())
    assert found.total() > 20, "the checker read the cards played"
    moments = {(frame.get("moment") or {}).get("kind") for frame in frames}
    assert variant != "guandan" or {"tribute", "return"} <= moments, moments
    leaks = leaks_seen(public, seen)
    assert not leaks, f"{variant}: hidden cards shown live: " + "; ".join(leaks[:10])


def unrevealed_frames(played: Played, match_id: str) -> list[dict[str, Any]]:
    """A stored match drawn from its public messages without its record, as a running
    match is drawn."""
    from arena.web.table import table_view

    with Store.open(played.path, read_only=True) as store:
        messages = [
            MessageToDict(m, preserving_proto_field_name=True)
            for m in stored_messages(store, match_id)
        ]
    frames: list[dict[str, Any]] = table_view(messages, None, LANGUAGE)["frames"]
    return frames


@pytest.mark.parametrize("name", ["guandan", "guandan-refused", "shengji-2", "shengji-4", "sanfu"])
def test_frames_drawn_without_the_record_show_only_public_cards(played: Played, name: str) -> None:
    """Whole stored matches (Guandan's tribute deal and a refused one, Shengji's kitty,
    sanfu's turned cards) drawn as a running match is: every frame at its moment."""
    match_id = played.matches[name]
    frames = unrevealed_frames(played, match_id)
    public = Public(stored_record(played.path, match_id))
    leaks = [leak for frame in frames for leak in frame_leaks(public, frame, name)]
    assert not leaks, "; ".join(leaks[:10])


def test_the_checker_finds_a_hidden_card_planted_in_a_frame(played: Played) -> None:
    """Frames of a stored Guandan match drawn without hands, with a card of a hand
    planted in the trick, in a log line, as a whole hand."""
    match_id = played.matches["guandan"]
    frames = unrevealed_frames(played, match_id)
    public = Public(stored_record(played.path, match_id))

    frame = next(f for f in frames if f["deal"] == 1 and f["seq"] > 8)
    step = public.timeline.deal(1).steps_at(frame["seq"])[0]
    allowed = public.at(1, frame["seq"])
    hidden = next(card for card in step.hands[0] if card not in allowed)

    planted = json.loads(json.dumps(frame))
    planted["table"] = [*planted["table"], {"seat": 0, "cards": [hidden], "pass": False}]
    assert any(hidden in leak for leak in frame_leaks(public, planted, "planted"))

    planted = json.loads(json.dumps(frame))
    written = f"{'♠♥♦♣'['shdc'.index(hidden[-1])]}{'10' if hidden[0] == 'T' else hidden[0]}"
    planted["log"] = [{"seat": 0, "kind": "play", "text": f"出 {written}", "auto": False}]
    if hidden in ("SJ", "BJ"):
        planted["log"][0]["text"] = translate(LANGUAGE, "table.card.big_joker")
    assert any("hidden then" in leak for leak in frame_leaks(public, planted, "planted"))

    planted = json.loads(json.dumps(frame))
    planted["seats"][2]["hand"] = list(step.hands[2])
    assert frame_leaks(public, planted, "planted")


def fold_shows_the_hand_of_seat_0(live: Live, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second path to hidden cards: the web face's table fold reads the running
    session's engine state and draws seat 0's hand in every frame."""
    from arena.web import table, tables

    sessions = live.arena.running.play.sessions

    class Peeking(table.TableFold):
        def _frame(self, step: Any, hands: Any) -> dict[str, Any]:
            frame: dict[str, Any] = super()._frame(step, hands)
            running = sessions.get(self.header.get("id"))
            state = None if running is None else running._state
            if state is not None:
                frame["seats"][0]["hand"] = [format_card(c) for c in state.hand(0)]
            return frame

    monkeypatch.setattr(table, "TableFold", Peeking)
    monkeypatch.setattr(tables, "TableFold", Peeking)


WEB_PLANTS = [
    ("guandan", "fold_shows_the_hand_of_seat_0"),
    ("sanfu", "sanfu_third_card_turned"),  # SF-2, in the engine's events
    ("shengji-2", "shengji_kitty_shown_after_burying"),  # SJ-25, events sent too early
]


@pytest.mark.interpreted_engines
@pytest.mark.parametrize(("variant", "plant"), WEB_PLANTS, ids=[p for _, p in WEB_PLANTS])
def test_the_checker_finds_a_hidden_card_planted_on_a_real_server(
    served: Live, monkeypatch: pytest.MonkeyPatch, variant: str, plant: str
) -> None:
    pinned_seed(monkeypatch)
    if plant == "fold_shows_the_hand_of_seat_0":
        fold_shows_the_hand_of_seat_0(served, monkeypatch)
    else:
        getattr(plants, plant)(monkeypatch)
    public, seen = play_watched(served, variant, f"planted-{plant}".replace("_", "-")[:40])
    leaks = leaks_seen(public, seen)
    assert any("hidden then" in leak for leak in leaks), f"{plant}: the checker found {leaks}"
