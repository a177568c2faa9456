"""The drawn card table: frames from real matches played in process, stored and watched.

Every frame is held to the engine re-playing the record on its own: the hands revealed,
the cards (conserved), the trick on the table, the counts a spectator may see (GD-12);
without a record no hand and no hidden card is anywhere in a frame (C-5). Each game's
moments are found in deals where they happen: tribute, return and 抗贡 (GD-13 … GD-15),
declarations and overrides (SJ-8, SJ-10), failed throws (SJ-17), the kitty bonus
(SJ-25) and the four-deck settlement (SJ-30), turned cards and seat swaps (SF-2 … SF-4),
sweeps (SF-14), 报喜 (SF-16), automatic plays and fleeing (SF-12).
"""

from __future__ import annotations

import json
import re
import tomllib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_directions import equal_tribute_hands

import bots
from arena import games
from arena._proto.arena.v1 import arena_pb2
from arena.cards import BIG_JOKER, card_names, format_cards
from arena.games.base import NUM_SEATS, Event, Observation, State
from arena.games.guandan import GuandanSetup
from arena.games.guandan import Kind as GuandanKind
from arena.games.sanfu.combos import Kind as SanfuKind
from arena.match import Clock, SeatGone, play_deal, play_match
from arena.record import DealRecord, MatchRecord, match_summary, outcome_to_dict, start_deal
from arena.replay import verify
from arena.server.spectate import stored_messages
from arena.store import Store, StoredMatch
from arena.web import table as table_module
from arena.web.i18n import LANGUAGES, catalog
from arena.web.table import VIEWS, TableFold, deal_view, one_deal, split_steps, table_view
from arena.web.table_deal import MatchFacts
from arena.web.table_hands import RecordMismatch
from arena.web.table_text import LABEL_KEYS, PLACES, Words
from arena.web.viewer import NotFound, Viewer

PLAYERS = ["random", "first", "random", "first"]
VARIANTS = ["guandan", "shengji-1", "shengji-2", "shengji-3", "shengji-4", "sanfu"]
DECKS = {"guandan": 2, "sanfu": 3}
CARD = re.compile(r"^(?:[2-9TJQKA][shdc]|SJ|BJ)$")
MESSAGES = Path(__file__).parent.parent / "arena" / "web" / "messages"

Messages = list[dict[str, Any]]


# ------------------------------------------------------------------ matches


@dataclass
class Played:
    """A stored match: its Watch messages (dicts) and its record."""

    messages: Messages
    record: MatchRecord


@dataclass
class Store_:
    store: Store
    made: dict[str, Played] = field(default_factory=dict)

    def add(self, match_id: str, record: MatchRecord) -> Played:
        if match_id not in self.made:
            totals = list(record.result.get("totals") or [0] * NUM_SEATS)
            self.store.add_match(
                StoredMatch(
                    id=match_id,
                    tournament_id=None,
                    variant=record.game,
                    options=dict(record.options),
                    seed=record.seed,
                    seating=tuple(record.players),
                    outcome={"winner": record.result.get("match_winner"), "totals": totals},
                    record=record.to_dict(),
                    deals=len(record.deals),
                    decisions=sum(len(d.actions) for d in record.deals),
                )
            )
            messages = [
                MessageToDict(m, preserving_proto_field_name=True)
                for m in stored_messages(self.store, match_id)
            ]
            self.made[match_id] = Played(messages, MatchRecord.from_dict(record.to_dict()))
        return self.made[match_id]

    def play(
        self,
        variant: str,
        seed: int,
        deals: int = 2,
        clock: Clock | None = None,
        policies: Sequence[Any] | None = None,
    ) -> Played:
        """A match of ``variant`` between the built-in bots, stored and watched."""
        match_id = f"{variant}-{seed}-{deals}-{'clock' if clock else 'free'}"
        if match_id not in self.made:
            chosen = policies or [bots.make(n, seed=seed + i) for i, n in enumerate(PLAYERS)]
            game = games.make(variant)
            result = play_match(
                game, chosen, seed=seed, players=PLAYERS, max_deals=deals, clock=clock
            )
            return self.add(match_id, result.record)
        return self.made[match_id]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store_]:
    with Store.open(tmp_path_factory.mktemp("table") / "arena.sqlite") as store:
        yield Store_(store)


# ------------------------------------------------------- the engine's truth


@dataclass
class Truth:
    """The engine's own re-play of a record: per event seq, what it holds then."""

    hands: dict[int, list[Counter[str]]] = field(default_factory=dict)
    aside: dict[int, Counter[str]] = field(default_factory=dict)
    played: dict[int, Counter[str]] = field(default_factory=dict)
    trick: dict[int, list[tuple[int, list[str]]] | None] = field(default_factory=dict)
    sizes: dict[int, list[int]] = field(default_factory=dict)
    starts: list[list[Counter[str]]] = field(default_factory=list)


def engine_truth(record: MatchRecord) -> Truth:
    truth = Truth()
    seq = 0
    played: Counter[str] = Counter()
    current: list[State] = []

    def on_event(state: State, event: Event) -> None:
        nonlocal seq, played
        if not current or current[-1] is not state:
            current.append(state)
            played = Counter()
        seq += 1
        if event.kind == "play":
            played.update(card_names(event.cards))
        truth.hands[seq] = [Counter(card_names(state.hand(s))) for s in range(NUM_SEATS)]
        truth.aside[seq] = Counter(card_names(state.set_aside()))
        truth.played[seq] = Counter(played)
        truth.sizes[seq] = [len(state.hand(s)) for s in range(NUM_SEATS)]
        truth.trick[seq] = _engine_trick(state)

    verify(record, on_event)
    game = games.make(record.game, **record.options)
    truth.starts = [
        [Counter(card_names(h)) for h in start_deal(game, deal).seat_cards()]
        for deal in record.deals
    ]
    return truth


def _engine_trick(state: State) -> list[tuple[int, list[str]]] | None:
    """The plays of the trick in progress as the engine holds them (None between tricks).

    Guandan and sanfu: the best play so far (a climbing trick); Shengji: every play.
    """
    public = state.observe(0).public
    if "trick" in public:  # Shengji
        plays = public["trick"]["plays"]
        return [(s, c.split()) for s, c in plays] if plays else None
    table = public.get("table")
    if not table:
        return None
    if "cards" in table:
        return [(table["seat"], table["cards"].split())]
    return [(table["seat"], [])]  # sanfu's public table names the seat only


def frames_with_events(view: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Frames drawn after events (not a deal's start)."""
    firsts, _ = deal_edges(view)
    return (frame for frame in view["frames"] if frame["i"] not in firsts)


def deal_edges(view: dict[str, Any]) -> tuple[set[int], set[int]]:
    firsts = {d["first"] for d in view["deals"]}
    lasts = {d["last"] for d in view["deals"]}
    return firsts, lasts


# ------------------------------------------------------------ the checks


def check_hands(view: dict[str, Any], truth: Truth) -> None:
    """C-4: every revealed hand is the engine's hand at that moment."""
    firsts, _ = deal_edges(view)
    for frame in view["frames"]:
        hands = [Counter(seat["hand"]) for seat in frame["seats"]]
        if frame["i"] in firsts:
            assert hands == truth.starts[frame["deal"] - 1], frame["i"]
        else:
            assert hands == truth.hands[frame["seq"]], frame["i"]
        for seat in frame["seats"]:
            assert seat["count"] == len(seat["hand"])


def check_conserved(view: dict[str, Any], truth: Truth, decks: int) -> None:
    """Cards are conserved: hands + cards played this deal + cards set aside = the decks."""
    everything = Counter(card_names(range(54)) * decks)
    firsts, _ = deal_edges(view)
    for frame in view["frames"]:
        if frame["i"] in firsts:
            continue
        held: Counter[str] = Counter()
        for seat in frame["seats"]:
            held.update(seat["hand"])
        seq = frame["seq"]
        assert held + truth.played[seq] + truth.aside[seq] == everything, frame["i"]


def check_trick(view: dict[str, Any], truth: Truth) -> None:
    """The trick on the table is the engine's trick whenever one is in progress."""
    _, lasts = deal_edges(view)
    ended = {view["frames"][i]["seq"] for i in lasts}
    for frame in frames_with_events(view):
        engine = truth.trick.get(frame["seq"])
        if engine is None:
            continue
        # once a Shengji deal is over its kitty is on the table (SJ-25; four decks have
        # none, SJ-30), the last trick beside it
        shengji = view["match"]["game"] == "shengji"
        kitty = shengji and view["match"]["decks"] != 4 and frame["seq"] in ended
        table = frame["last_trick"] if kitty else frame["table"]
        shown = [(e["seat"], e["cards"]) for e in table if not e["pass"]]
        if shengji:
            assert [(s, sorted(c)) for s, c in shown] == [(s, sorted(c)) for s, c in engine]
        else:
            best = [(e["seat"], e["cards"]) for e in table if e["best"]]
            seat, cards = engine[0]
            assert [b[0] for b in best] == [seat], frame["i"]
            if cards:
                assert sorted(best[0][1]) == sorted(cards), frame["i"]


def public_pool(messages: Messages) -> dict[int, Counter[str]]:
    """Per seq, every card some event has shown up to it (the most of each at once)."""
    pool: Counter[str] = Counter()
    by_seq: dict[int, Counter[str]] = {0: Counter()}
    for message in messages:
        for event in (message.get("events") or {}).get("events", []):
            pool |= Counter(event.get("cards", []))
            by_seq[int(event["seq"])] = Counter(pool)
    return by_seq


def walk_cards(value: Any) -> Iterator[str]:
    """Every card code anywhere in a JSON value (lists of codes, strings equal to a code)."""
    if isinstance(value, dict):
        for item in value.values():
            yield from walk_cards(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk_cards(item)
    elif isinstance(value, str) and CARD.match(value):
        yield value


def hidden_leaks(view: dict[str, Any], messages: Messages) -> list[str]:
    """Every place a frame shows more than the events made public so far (C-5)."""
    problems = []
    pool = public_pool(messages)
    seqs = sorted(pool)
    for frame in view["frames"]:
        for seat in frame["seats"]:
            if seat["hand"] is not None:
                problems.append(f"frame {frame['i']}: seat {seat['seat']} shows a hand")
        known = pool[max(s for s in seqs if s <= frame["seq"])]
        marks = {**frame["marks"], "wild": []}  # marks name ranks, not cards held
        shown = Counter(walk_cards({k: v for k, v in frame.items() if k != "marks"}))
        shown.update(walk_cards(marks))
        extra = {card for card in shown if card not in known and card not in frame["marks"]["wild"]}
        if extra:
            problems.append(f"frame {frame['i']}: shows {sorted(extra)}, never shown by an event")
    return problems


# ------------------------------------------------------------------ tests


@pytest.mark.parametrize("variant", VARIANTS)
def test_revealed_hands_trick_and_cards_follow_the_engine(played: Store_, variant: str) -> None:
    """C-4/C-5: a stored match's frames show the engine's hands (replayed independently),
    conserve the cards and show the engine's trick; deal results and starts included."""
    match = played.play(variant, seed=7)
    view = table_view(match.messages, match.record, "en")
    truth = engine_truth(match.record)
    assert view["match"]["revealed"] and view["match"]["variant"] == variant
    assert len(view["deals"]) == 2 and view["result"] is not None
    check_hands(view, truth)
    check_conserved(view, truth, DECKS.get(variant, view["match"]["decks"] or 0))
    check_trick(view, truth)


@pytest.mark.parametrize("variant", VARIANTS)
def test_frames_are_deterministic_and_fold_by_message(played: Store_, variant: str) -> None:
    """The same messages draw the same frames; TableFold fed one message at a time draws
    table_view's frames, and a catch-up batch holding a whole deal is cut into the same
    steps (one decision each)."""
    match = played.play(variant, seed=8)
    first = table_view(match.messages, match.record, "zh")
    assert first == table_view(match.messages, match.record, "zh")
    fold = TableFold("zh", match.record)
    frames = [f for m in match.messages for f in fold.feed(m)]
    assert frames == first["frames"]
    assert fold.header == first["match"] and fold.result == first["result"]
    assert table_view(_caught_up(match.messages), match.record, "zh") == first


def _caught_up(messages: Messages) -> Messages:
    """The messages with each deal's event batches merged into one (a live catch-up)."""
    merged: Messages = []
    for message in messages:
        events = (message.get("events") or {}).get("events")
        if events and merged and "events" in merged[-1]:
            merged[-1]["events"]["events"].extend(events)
        elif events:
            merged.append({"events": {"events": list(events)}})
        else:
            merged.append(message)
    return merged


@pytest.mark.parametrize("variant", VARIANTS)
def test_without_record_no_hand_and_no_hidden_card(played: Store_, variant: str) -> None:
    """C-5: without a record no frame holds a hand, and no card an event did not show
    yet appears anywhere in a frame's JSON (the kitty, a 4-deck declaration, tribute
    before it is revealed …)."""
    match = played.play(variant, seed=9)
    view = table_view(match.messages, None, "en")
    assert not view["match"]["revealed"]
    assert hidden_leaks(view, match.messages) == []


def test_the_leak_check_finds_a_planted_hand(played: Store_) -> None:
    """The check above finds a hand planted in a frame, and a hidden card in a log line's
    field or a table entry."""
    match = played.play("shengji-2", seed=9)
    view = table_view(match.messages, None, "en")
    revealed = table_view(match.messages, match.record, "en")
    planted = {**view, "frames": [dict(f) for f in view["frames"]]}
    planted["frames"][3] = {**planted["frames"][3], "seats": revealed["frames"][3]["seats"]}
    assert any("shows a hand" in p for p in hidden_leaks(planted, match.messages))
    early = view["frames"][5]
    known = public_pool(match.messages)[early["seq"]]
    kitty = match.record.deals[0].result["details"]["kitty"].split()
    hidden = [card for card in kitty if card not in known]
    sneaky = {**early, "table": [{"seat": 0, "cards": hidden[:1]}]}
    planted["frames"] = [view["frames"][0], sneaky]
    assert any("never shown" in p for p in hidden_leaks(planted, match.messages))


def test_guandan_counts_are_public_only_once_ten_or_fewer(played: Store_) -> None:
    """GD-12: without a record a Guandan count appears only once it is 10 or fewer (报牌),
    and then it is the engine's count."""
    match = played.play("guandan", seed=9)
    view = table_view(match.messages, None, "en")
    truth = engine_truth(match.record)
    counted = 0
    for frame in frames_with_events(view):
        for seat in frame["seats"]:
            if seat["count"] is not None:
                counted += 1
                assert seat["count"] <= 10
                assert seat["count"] == truth.sizes[frame["seq"]][seat["seat"]]
            elif frame["seq"] in truth.sizes:
                assert truth.sizes[frame["seq"]][seat["seat"]] > 10 or seat["out"]
    assert counted


@pytest.mark.parametrize("variant", ["shengji-2", "sanfu"])
def test_public_counts_are_the_engines(played: Store_, variant: str) -> None:
    """Shengji (after the dealing) and sanfu (from the deal, SF-1, through the swaps,
    SF-4) show each hand's size without a record: the engine's."""
    match = played.play(variant, seed=9)
    view = table_view(match.messages, None, "en")
    truth = engine_truth(match.record)
    counted = 0
    for frame in frames_with_events(view):
        for seat in frame["seats"]:
            if seat["count"] is not None:
                counted += 1
                assert seat["count"] == truth.sizes[frame["seq"]][seat["seat"]], frame["i"]
    assert counted


def test_the_header_says_live_once_a_message_comes_as_played(played: Store_) -> None:
    """A running match's catch-up comes first (not live), then its live messages: the
    header says live from the first of those; the frames are the same."""
    match = played.play("guandan", seed=7)
    fold = TableFold("en")
    fold.feed(match.messages[0])
    assert fold.header["live"] is False
    live = [{**m, "live": True} for m in match.messages[1:]]
    frames = [f for m in live for f in fold.feed(m)]
    assert fold.header["live"] is True
    assert frames == table_view(match.messages, None, "en")["frames"]


def test_a_record_of_another_match_is_refused(played: Store_) -> None:
    """The record must be the messages' match: the first event that differs is named."""
    guandan = played.play("guandan", seed=7)
    other = played.play("shengji-2", seed=7)
    with pytest.raises(RecordMismatch, match="in the messages but"):
        table_view(guandan.messages, other.record, "en")


# ------------------------------------------------------------- languages


def test_both_catalogs_hold_the_same_table_keys() -> None:
    """Every table key is in the Chinese and the English catalog."""
    keys = [
        set(_flat(tomllib.loads((MESSAGES / lang / "table.toml").read_text("utf-8"))))
        for lang in LANGUAGES
    ]
    assert keys[0] == keys[1]
    assert all(f"table.label.{k}" in keys[0] for k in LABEL_KEYS)


SOURCES = sorted(Path(table_module.__file__).parent.glob("table*.py"))


def test_every_key_the_table_can_ask_for_is_in_both_catalogs() -> None:
    """Every literal key the table's code names, and every key it builds from the
    games' words (combinations, suits, places, end reasons, declarations), is in both
    catalogs — also those a played match seldom reaches."""
    literal = re.compile(r"""(?:words|\bw)\(\s*"([a-z_]+(?:\.[a-z_0-9]+)+)"\s*[,)]""")
    keys = {key for source in SOURCES for key in literal.findall(source.read_text("utf-8"))}
    assert "moment.announce" in keys and "result.forfeit" in keys  # the scan finds them
    keys |= {f"kind.guandan.{kind.label}" for kind in GuandanKind}
    keys |= {f"kind.sanfu.{kind.label}" for kind in SanfuKind}
    keys |= {f"suit.{name}" for name in (*"shdc", "notrump", "red", "black")}
    keys |= {f"place.{game}.{n}" for game in PLACES for n in range(1, 5)}
    keys |= {f"reason.{name}" for name in arena_pb2.EndReason.DESCRIPTOR.values_by_name}
    keys |= {
        f"moment.{which}{hidden}"
        for which in ("declare", "override", "strengthen", "self_override")
        for hidden in ("", "_hidden")
    }
    keys |= {f"label.{key}" for key in LABEL_KEYS} | {"label.tribute", "label.return"}
    for language in LANGUAGES:
        missing = sorted(key for key in keys if f"table.{key}" not in catalog(language))
        assert missing == [], language


def _facts(view: dict[str, Any]) -> MatchFacts:
    header = view["match"]
    return MatchFacts(
        header["game"], header["variant"], header["options"], header["players"], header["decks"]
    )


def _flat(table: dict[str, Any], prefix: str = "") -> Iterator[str]:
    for key, value in table.items():
        if isinstance(value, dict):
            yield from _flat(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_word_of_every_variant_is_in_the_catalog(
    played: Store_, variant: str, language: str
) -> None:
    """Every text a frame holds comes from the catalog (a missing key would raise), the
    labels are the UI's words, and Chinese frames say the game's terms."""
    match = played.play(variant, seed=7)
    view = table_view(match.messages, match.record, language)
    assert set(LABEL_KEYS) <= set(view["labels"])
    kinds = {
        event["kind"]
        for message in match.messages
        for event in (message.get("events") or {}).get("events", [])
    }
    dealer = VIEWS[view["match"]["game"]](Words(language), _facts(view), {})
    assert kinds <= set(dealer.handlers), "an event kind the table only copies from the server"
    texts = [line["text"] for frame in view["frames"] for line in frame["log"]]
    assert all(texts)
    if language == "zh":
        assert view["labels"]["pass"] == "不要"
        english = re.compile(r"\b(plays|passes|leads|declares|captures|tribute|points|trick)\b")
        assert not [text for text in texts if english.search(text)]


# ----------------------------------------------------------- the moments


def moments(view: dict[str, Any]) -> list[dict[str, str]]:
    return [frame["moment"] for frame in view["frames"] if frame["moment"]]


def find(
    variant: str,
    played: Store_,
    wanted: Callable[[dict[str, Any]], bool],
    seeds: range = range(20),
    deals: int = 2,
) -> tuple[Played, dict[str, Any]]:
    """The first stored match of ``variant`` (by seed) whose English view has ``wanted``."""
    for seed in seeds:
        match = played.play(variant, seed, deals)
        view = table_view(match.messages, match.record, "en")
        if wanted(view):
            return match, view
    raise AssertionError(f"no {variant} match among seeds {seeds} has the moment")


def has(kind: str) -> Callable[[dict[str, Any]], bool]:
    return lambda view: any(m["kind"] == kind for m in moments(view))


def test_guandan_tribute_and_return_shown_when_revealed(played: Store_) -> None:
    """GD-13/GD-14: the tribute cards appear on the table (and as a moment) once every
    tribute is given, the returns once every return is made; the tributer's count and
    hand follow the engine."""
    match, view = find("guandan", played, has("tribute"))
    tribute = next(f for f in view["frames"] if (f["moment"] or {}).get("kind") == "tribute")
    assert all(e["label"] == "tribute" for e in tribute["table"])
    assert "gives tribute" in tribute["moment"]["text"]
    back = view["frames"][tribute["i"] + 1]
    assert back["moment"]["kind"] == "return"
    assert [e["label"] for e in back["table"]] == ["return"] * len(tribute["table"])
    check_hands(view, engine_truth(match.record))


def _composed_guandan(
    played: Store_, name: str, order: tuple[int, ...], seed: int, jokers_to: int | None = None
) -> Played:
    """A one-deal Guandan record after a deal that ended in ``order`` (tribute owed),
    from a shuffled deal, both big jokers moved to seat ``jokers_to`` if given (GD-15)."""
    game = games.make("guandan")
    setup = GuandanSetup(levels=(3, 1), level_team=0, previous_order=order)
    hands = [list(h) for h in game.new_deal(setup, seed=seed).seat_cards()]
    if jokers_to is not None:
        for holder in range(NUM_SEATS):
            while holder != jokers_to and BIG_JOKER in hands[holder]:
                swap = next(c for c in hands[jokers_to] if c != BIG_JOKER)
                hands[holder].remove(BIG_JOKER)
                hands[holder].append(swap)
                hands[jokers_to].remove(swap)
                hands[jokers_to].append(BIG_JOKER)
    record = _one_guandan_deal(game, setup, hands, seed, PLAYERS)
    return played.add(name, record)


def _one_guandan_deal(
    game: Any, setup: GuandanSetup, hands: Sequence[Sequence[int]], seed: int, names: Sequence[str]
) -> MatchRecord:
    """The record of one Guandan deal from ``setup`` and ``hands``, played by the bots
    of :data:`PLAYERS` (seeded from ``seed``), its players called ``names``."""
    state = game.new_deal(setup, hands=hands)
    policies = [bots.make(n, seed=seed + i) for i, n in enumerate(PLAYERS)]
    actions = play_deal(state, policies)
    outcome = state.outcome()
    deal = DealRecord(
        setup=game.setup_to_dict(setup),
        actions=actions,
        hands=[format_cards(sorted(h)) for h in hands],
        result=outcome_to_dict(outcome),
    )
    return MatchRecord(
        "guandan", dict(game.options), None, list(names), [deal], match_summary([outcome])
    )


def test_guandan_double_tribute_and_anti_tribute(played: Store_) -> None:
    """GD-14: after 双下 both losers' tributes are shown together, then both returns;
    GD-15: a tributer holding both big jokers refuses (抗贡) — a moment, no tribute."""
    double = _composed_guandan(played, "gd-double", (0, 2, 1, 3), seed=5)
    view = table_view(double.messages, double.record, "zh")
    tribute = next(f for f in view["frames"] if (f["moment"] or {}).get("kind") == "tribute")
    assert len(tribute["table"]) == 2 and "进贡" in tribute["moment"]["text"]
    back = view["frames"][tribute["i"] + 1]
    assert len(back["table"]) == 2 and "还贡" in back["moment"]["text"]
    check_hands(view, engine_truth(double.record))
    refused = _composed_guandan(played, "gd-refused", (0, 1, 2, 3), seed=6, jokers_to=3)
    view = table_view(refused.messages, refused.record, "zh")
    found = moments(view)
    assert any("抗贡" in m["text"] for m in found)
    assert not any(line["kind"] == "tribute" for f in view["frames"] for line in f["log"])
    both = _composed_guandan(played, "gd-double-refused", (0, 2, 1, 3), seed=7, jokers_to=1)
    view = table_view(both.messages, both.record, "en")
    assert any("Anti-tribute: the losing team holds" in m["text"] for m in moments(view))


def _equal_double_tribute(played: Store_, order: tuple[int, ...]) -> Played:
    """A one-deal Guandan record after 双下 in ``order`` with equal tribute cards
    (:func:`equal_tribute_hands`). Each seat's player has a name of its own."""
    game = games.make("guandan")
    setup = GuandanSetup(previous_order=order)  # level 2
    hands = equal_tribute_hands(order)
    names = [f"player-{seat}" for seat in range(NUM_SEATS)]
    record = _one_guandan_deal(game, setup, hands, 0, names)
    return played.add(f"gd-equal-{''.join(map(str, order))}", record)


@pytest.mark.parametrize("order", [(0, 2, 1, 3), (2, 0, 3, 1), (1, 3, 0, 2), (3, 1, 2, 0)])
@pytest.mark.parametrize("language", LANGUAGES)
def test_guandan_equal_double_tribute_names_each_losers_shangjia(
    played: Store_, order: tuple[int, ...], language: str
) -> None:
    """GD-14: equal tribute cards go clockwise, each loser to the winner on their left
    (their 上家, the seat before them), and each winner returns to the loser who gave to
    it: the table's moment and log lines name those players, as the engine's events do,
    whoever of the two winners was first."""
    match = _equal_double_tribute(played, order)
    view = table_view(match.messages, match.record, language)
    losers, winners = order[2:], order[:2]
    expected = {("tribute", s, (s - 1) % 4) for s in losers}  # 上家: before in the turn
    expected |= {("return", w, (w + 1) % 4) for w in winners}  # back to its giver
    lines = {
        (line["kind"], *named(line["text"]))
        for frame in view["frames"]
        for line in frame["log"]
        if line["kind"] in ("tribute", "return")
    }
    assert lines == expected
    said = {
        (moment["kind"], *named(part))
        for moment in moments(view)
        if moment["kind"] in ("tribute", "return")
        for part in re.split("[;；]", moment["text"])
    }
    assert said == expected


def named(text: str) -> tuple[int, ...]:
    """The seats of the players a line names, in its order (``player-N`` sits at N)."""
    return tuple(int(seat) for seat in re.findall(r"player-(\d)", text))


def test_guandan_places_levels_and_double_out(played: Store_) -> None:
    """GD-2/GD-16: finishing places on the seats (头游 …), 双下 as a moment, the level
    change in the deal's result; GD-4/GD-6: the level and wild card marked."""
    match, view = find("guandan", played, has("double_out"))
    double = next(f for f in view["frames"] if (f["moment"] or {}).get("kind") == "double_out")
    last = view["frames"][view["deals"][double["deal"] - 1]["last"]]
    assert sorted(s["out"] for s in last["seats"] if s["out"]) == [1, 2]
    assert last["moment"]["kind"] == "deal_result" and "levels" in last["moment"]["text"]
    assert view["frames"][0]["marks"] == {"level": "2", "trump": None, "wild": ["2h"]}
    second = view["frames"][view["deals"][1]["first"]]
    level = match.record.deals[1].setup["levels"][match.record.deals[1].setup["level_team"]]
    assert second["marks"]["level"] == "23456789TJQKA"[level]


def test_shengji_declarations_overrides_trump_and_kitty(played: Store_) -> None:
    """SJ-8: a first declaration (亮主) and a stronger one by another player (反主) are
    moments; SJ-12/SJ-13: the dealer and roles, the kitty taken and buried; SJ-25: the
    kitty turned over at the end with its multiplier and the defenders' bonus (抠底)."""
    _, view = find(
        "shengji-2",
        played,
        lambda v: has("declare")(v) and any("overrides" in m["text"] for m in moments(v)),
    )
    roles = [s["role"] for s in view["frames"][view["deals"][0]["last"]]["seats"]]
    assert sorted(r for r in roles if r) == ["dealer", "declarer", "defender", "defender"]
    assert any("buries 8 cards" in m["text"] for m in moments(view))
    match, view = find(
        "shengji-2",
        played,
        lambda v: any("Kitty bonus" in m["text"] for m in moments(v)),
        seeds=range(40),
    )
    frame = next(f for f in view["frames"] if "Kitty bonus" in (f["moment"] or {}).get("text", ""))
    number = frame["deal"]
    details = match.record.deals[number - 1].result["details"]
    assert details["last_bonus"] > 0
    assert f"+{details['last_bonus']} for the defenders" in frame["moment"]["text"]
    points = sum({"5": 5, "T": 10, "K": 10}.get(card[0], 0) for card in details["kitty"].split())
    assert f"holds {points} points ×{details['last_bonus'] // points} =" in frame["moment"]["text"]
    assert [e["cards"] for e in frame["table"]] == [details["kitty"].split()]
    assert frame["i"] == view["deals"][number - 1]["last"] - 1  # the deal's last event
    assert dict(frame["facts"])["Defenders' points"] == str(details["defender_points"])


def test_shengji_failed_throw_shows_what_was_tried_and_forced(played: Store_) -> None:
    """SJ-17: a failed throw is a moment naming what was tried and what was forced; the
    table entry holds the forced cards, marked failed, with the cards tried."""
    _, view = find("shengji-2", played, has("throw_failed"))
    frame = next(f for f in view["frames"] if (f["moment"] or {}).get("kind") == "throw_failed")
    entry = frame["table"][0]
    assert entry["failed"] and entry["tried"] and entry["cards"]
    assert set(entry["cards"]) <= set(entry["tried"]) and len(entry["cards"]) < len(entry["tried"])
    assert "must play" in frame["moment"]["text"]


def test_shengji_throw_penalty_counts_for_the_defenders(played: Store_) -> None:
    """SJ-17 throw_penalty: the defenders' points after a failed throw include it."""
    game = games.make("shengji-2", throw_penalty=5)
    for seed in range(20):
        policies = [bots.make(n, seed=seed + i) for i, n in enumerate(PLAYERS)]
        result = play_match(game, policies, seed=seed, players=PLAYERS, max_deals=1)
        match = played.add(f"penalty-{seed}", result.record)
        view = table_view(match.messages, match.record, "en")
        if has("throw_failed")(view):
            break
    else:
        raise AssertionError("no failed throw in 20 deals")
    last_event = view["frames"][-2]  # before the deal's result says the total
    details = match.record.deals[0].result["details"]
    assert dict(last_event["facts"])["Defenders' points"] == str(details["defender_points"])
    frame = next(f for f in view["frames"] if (f["moment"] or {}).get("kind") == "throw_failed")
    assert "defenders' points now" in frame["moment"]["text"]


def test_shengji_flipped_kitty_card_names_the_trump(played: Store_) -> None:
    """SJ-8 flip_kitty: when nobody declares, the kitty's 4th card is turned and names
    the trump; it is shown on the table and in the moment, and is public from then on."""
    game = games.make("shengji-2", no_declaration="flip_kitty")
    policies = [bots.make("first") for _ in PLAYERS]  # "first" never declares (pass first)
    result = play_match(game, policies, seed=3, players=PLAYERS, max_deals=1)
    match = played.add("flip-kitty", result.record)
    view = table_view(match.messages, None, "en")
    frame = next(f for f in view["frames"] if any(e["kind"] == "trump" for e in f["log"]))
    assert frame["table"][0]["label"] == "kitty" and len(frame["table"][0]["cards"]) == 1
    assert "No declaration: kitty card" in frame["moment"]["text"]
    assert frame["marks"]["trump"] == frame["table"][0]["cards"][0][-1]
    assert hidden_leaks(view, match.messages) == []


def test_shengji_four_decks_hidden_declaration_and_settlement(played: Store_) -> None:
    """SJ-10: a four-deck declaration shows how many level cards, never the suit (no
    card in the frame, only the count); SJ-30: the last trick's settlement."""
    match, view = find("shengji-4", played, has("declare"), seeds=range(10), deals=1)
    declared = [f for f in view["frames"] if any(line["kind"] == "declare" for line in f["log"])]
    assert declared and all(f["table"][0]["cards"] == [] for f in declared)
    assert all("suit hidden" in f["moment"]["text"] for f in declared)
    settled = [m["text"] for m in moments(view) if "Last trick" in m["text"]]
    assert len(settled) == len(view["deals"])
    bonus = match.record.deals[0].result["details"]["last_bonus"]
    assert f"change by {bonus:+d}" in settled[0]


def test_sanfu_turned_cards_swaps_and_captures(played: Store_) -> None:
    """SF-2 … SF-4: the turned cards and their receivers, the seat swap that seats the
    partners opposite; SF-10: captured points per seat add up to the deal's."""
    match, view = find("sanfu", played, has("swap"))
    start = next(f for f in view["frames"] if (f["moment"] or {}).get("kind") == "swap")
    assert "Turned card" in start["moment"]["text"] and "swap seats" in start["moment"]["text"]
    assert sum(s["role"] == "turned" for s in start["seats"]) in (1, 2)
    for number, deal in enumerate(view["deals"]):
        last = view["frames"][deal["last"]]
        details = match.record.deals[number].result["details"]
        if "captured" in details:
            by_player = {s["player"]: s["points"] for s in last["seats"]}
            assert [by_player[p] for p in range(NUM_SEATS)] == details["captured"]


def test_sanfu_sweep(played: Store_) -> None:
    """SF-14: a team out first and second is a sweep (抬了), at the second out and in the
    deal's result."""
    match, view = find("sanfu", played, has("sweep"), seeds=range(40), deals=1)
    zh = table_view(match.messages, match.record, "zh")
    assert any("抬了" in m["text"] for m in moments(zh))
    assert view["frames"][-1]["moment"]["kind"] == "sweep"


@pytest.mark.parametrize("deals", [1, 2])
def test_sanfu_counts_the_deals_the_match_is_cut_to(played: Store_, deals: int) -> None:
    """SF-17: a match cut to fewer deals than the game's (a table opened for one) says
    its own count on the felt, stored or live (its MatchInfo's ``max_deals``)."""
    match, view = find("sanfu", played, lambda view: True, seeds=range(1), deals=deals)
    shown = [dict(f["facts"])["Deal"] for f in view["frames"]]
    assert set(shown) == {f"{n} / {deals}" for n in range(1, deals + 1)}, set(shown)
    info, *rest = match.messages
    live = {**info, "match": {**info["match"], "max_deals": deals}}
    assert all(not m.get("match", {}).get("max_deals") for m in rest)
    first = table_view([{"match": {**live["match"], "max_deals": 0}}, *rest], None, "en")
    assert dict(first["frames"][0]["facts"])["Deal"] == "1 / 8"  # the game's own count
    cut = table_view([live, *rest], None, "en")
    assert dict(cut["frames"][-1]["facts"])["Deal"] == f"{deals} / {deals}"


def test_sanfu_three_jokers_bonus_is_a_moment() -> None:
    """SF-16: three jokers played (报喜) is a moment; the events are those the engine
    publishes for it (a ``play`` tagged ``joker_triple``)."""
    messages: Messages = [
        {"match": {"match_id": "m", "variant": "sanfu", "players": PLAYERS}},
        {
            "deal_started": {
                "deal": 1,
                "seating": PLAYERS,
                "players": [0, 1, 2, 3],
                "setup": {"deals": 8},
            }
        },
        {
            "events": {
                "events": [
                    {"seq": 1, "deal": 1, "kind": "deal"},
                    {"seq": 2, "deal": 1, "kind": "lead", "seat": 0},
                ]
            }
        },
        {
            "events": {
                "events": [
                    {
                        "seq": 3,
                        "deal": 1,
                        "kind": "play",
                        "seat": 0,
                        "cards": ["BJ", "BJ", "BJ"],
                        "value": 17,
                        "tag": "joker_triple",
                    }
                ]
            }
        },
    ]
    view = table_view(messages, None, "zh")
    assert view["frames"][-1]["moment"] == {"kind": "bonus", "text": "报喜：random（南） 打出三王"}
    assert view["frames"][-1]["table"][0]["label"] == "三王"


class _Slow:
    """A bot that takes 10 s for every decision of a fake clock (so it is always late)."""

    def __init__(self, clock: list[float]) -> None:
        self.clock = clock

    def act(self, observation: Observation) -> Any:
        self.clock[0] += 10.0
        return observation.legal_actions[-1]


class _Gone:
    """A bot that leaves at its third decision."""

    def __init__(self) -> None:
        self.decisions = 0

    def act(self, observation: Observation) -> Any:
        self.decisions += 1
        if self.decisions == 3:
            raise SeatGone
        return observation.legal_actions[0]


@pytest.mark.parametrize("variant", ["guandan", "sanfu"])
def test_automatic_plays_and_fleeing_are_marked(played: Store_, variant: str) -> None:
    """SF-12: a late seat's plays are marked automatic (the seat and its log lines) and
    after five in a row it has fled: the seat, a moment and the deal's result say so."""
    now = [0.0]
    clock = Clock(limit=1.0, now=lambda: now[0])
    policies = [
        bots.make("random", seed=1),
        _Slow(now),
        bots.make("random", seed=3),
        bots.make("first"),
    ]
    match = played.play(variant, seed=3, deals=1, clock=clock, policies=policies)
    view = table_view(match.messages, match.record, "en")
    seat = next(s for s in range(NUM_SEATS) if view["frames"][0]["seats"][s]["player"] == 1)
    autos = [
        line
        for f in view["frames"]
        for line in f["log"]
        if line["seat"] == seat and line["auto"] and line["kind"] in ("play", "pass")
    ]
    assert len(autos) == 5
    fled = [f for f in view["frames"] if (f["moment"] or {}).get("kind") == "fled"]
    assert fled and fled[0]["seats"][seat]["fled"] and fled[0]["seats"][seat]["auto"]
    assert view["frames"][-1]["moment"]["kind"] == "fled"
    check_hands(view, engine_truth(match.record))


def test_a_seat_that_leaves_has_fled(played: Store_) -> None:
    """SF-12: a seat that leaves has fled; in Guandan its team forfeits the match."""
    policies = [bots.make("first"), bots.make("first"), _Gone(), bots.make("first")]
    match = played.play("guandan", seed=4, deals=1, clock=Clock(), policies=policies)
    view = table_view(match.messages, match.record, "en")
    assert view["frames"][-1]["moment"]["kind"] == "fled"
    assert "wins the match" in view["frames"][-1]["moment"]["text"]
    assert view["frames"][-1]["seats"][2]["fled"]


def test_steps_are_cut_at_each_decision() -> None:
    """A batch with several decisions is cut before each, and before the end of
    Shengji's dealing (as a pass that shows no event makes it a step of its own); a
    failed throw and its forced play, and tributes revealed together, stay one step."""
    events: list[dict[str, Any]] = [
        {"kind": "deal"},
        {"kind": "lead", "seat": 0},
        {"kind": "play", "seat": 0},
        {"kind": "auto", "seat": 1},
        {"kind": "pass", "seat": 1},
        {"kind": "throw_failed", "seat": 2},
        {"kind": "play", "seat": 2},
        {"kind": "declare", "seat": 3},
        {"kind": "dealt", "seat": 0},
        {"kind": "trump", "seat": 3},
        {"kind": "tribute", "seat": 1},
        {"kind": "tribute", "seat": 3},
        {"kind": "return", "seat": 0},
        {"kind": "return", "seat": 2},
        {"kind": "lead", "seat": 1},
    ]
    kinds = [[e["kind"] for e in step] for step in split_steps(events)]
    assert kinds == [
        ["deal", "lead"],
        ["play"],
        ["auto"],
        ["pass"],
        ["throw_failed", "play"],
        ["declare"],
        ["dealt"],
        ["trump"],
        ["tribute", "tribute"],
        ["return", "return", "lead"],
    ]


# -------------------------------------------------------------- property


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(100, 10**6))
def test_cards_are_conserved_in_any_deal(played: Store_, variant: str, seed: int) -> None:
    """C-1/C-4 property: in any deal the frames' hands, the cards played and the cards
    set aside (kitty, undealt, tribute in transit) are always the whole deck(s), and
    each hand is the engine's."""
    match = played.play(variant, seed, deals=1)
    view = table_view(match.messages, match.record, "en")
    truth = engine_truth(match.record)
    check_hands(view, truth)
    check_conserved(view, truth, DECKS.get(variant, view["match"]["decks"] or 0))
    assert hidden_leaks(table_view(match.messages, None, "en"), match.messages) == []


# ------------------------------------------------------------ one deal alone


def carried(frames: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The frames with each field a frame (or a seat of it) leaves out taken from the
    frame before in the same deal (as the page does)."""
    whole: list[dict[str, Any]] = []
    for frame in frames:
        before = whole[-1] if whole and whole[-1]["deal"] == frame["deal"] else {}
        filled = {**before, **frame}
        if "seats" in frame and before:
            filled["seats"] = [
                {**held, **seat} for held, seat in zip(before["seats"], frame["seats"], strict=True)
            ]
        whole.append(filled)
    return whole


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(100, 10**6))
def test_a_deal_drawn_alone_is_that_deal_of_the_whole_match(
    played: Store_, variant: str, seed: int
) -> None:
    """Each deal re-played alone (the first view of a match, and another deal once the
    match's outline is known) draws the frames, deal entries, header and result of the
    whole match's table, numbered the same (frames ``i``, events ``seq``); a frame leaves
    a field out only where the frame before holds it (a third fewer bytes at least)."""
    match = played.play(variant, seed, deals=3)
    match_id = f"{variant}-{seed}-3-free"
    record = match.record
    whole = table_view(match.messages, record, "en")
    shared = Viewer(played.store)
    for deal in range(1, len(record.deals) + 1):
        for viewer in (Viewer(played.store), shared):  # a whole re-play; this deal alone
            messages, outline = viewer.deal_messages(match_id, deal)
            alone = deal_view(messages, outline, record, "en", deal)
            mine = [frame for frame in whole["frames"] if frame["deal"] == deal]
            assert carried(alone["frames"]) == mine
            assert alone["frames"][0] == mine[0], "a deal's first frame is whole"
            assert len(json.dumps(alone["frames"])) < len(json.dumps(mine)) * 0.8
            assert alone["deals"] == whole["deals"] and alone["deal"] == deal
            assert (alone["match"], alone["result"]) == (whole["match"], whole["result"])
    without = deal_view(*shared.deal_messages(match_id, 1), None, "en", 1)
    assert all(s["hand"] is None for f in carried(without["frames"]) for s in f["seats"])


def test_a_deal_the_match_does_not_have_is_not_found(played: Store_) -> None:
    played.play("guandan", 41, deals=1)
    match_id = "guandan-41-1-free"
    for deal in (0, 2, 99):
        with pytest.raises(NotFound, match="deal"):
            Viewer(played.store).deal_messages(match_id, deal)


def test_a_running_matchs_table_cut_to_one_deal_keeps_every_deals_entry(played: Store_) -> None:
    """A running match's page holds its current deal's frames (or the deal asked) and
    every deal's entry; a deal it has not reached is refused."""
    match = played.play("guandan", 43, deals=3)
    view = table_view(match.messages, None, "en")
    numbers = [entry["number"] for entry in view["deals"]]
    assert numbers == [1, 2, 3]
    current = one_deal(view, None)
    assert current["deal"] == 3 and current["deals"] == view["deals"]
    assert current["frames"] == [frame for frame in view["frames"] if frame["deal"] == 3]
    assert {frame["deal"] for frame in one_deal(view, 1)["frames"]} == {1}
    with pytest.raises(ValueError, match="deal 4"):
        one_deal(view, 4)
