"""Every number the felt shows is the engine's at that frame, in every game.

Whole matches are played by the built-in bots, stored, and drawn as a stored match's
page draws them (:func:`arena.web.table.table_view` over the Spectate messages and the
record); the engine re-plays the record on its own, entry by entry, and each frame is
held to it: whose turn it is, the cards left in each hand, each seat's points, the
teams' points (Shengji's defenders, sanfu's teams: their captures during the deal, the
settled figures SF-13 gives at its end), the level played and the teams' levels, and
the match totals. Seats are named where they sit, teams by their side: no two seats of
one name read alike, no team is a bare number.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_web_table import Store_

import bots
from arena import games
from arena.cards import rank_label
from arena.games.base import NOBODY, NUM_SEATS, team_of
from arena.match import play_match
from arena.record import MatchRecord, start_deal
from arena.replay import replay_entry
from arena.store import Store
from arena.web.table import table_view
from arena.web.table_text import POSITIONS, where_key

VARIANTS = ["guandan", "shengji-1", "shengji-2", "shengji-3", "shengji-4", "sanfu"]
SAME_NAMES = ["heuristic"] * NUM_SEATS
"""Four bots of one name: only where they sit tells them apart."""
BY_TEAM = re.compile(r"^N–S (\S+) · E–W (\S+)$")


@dataclass(frozen=True)
class Snapshot:
    """What the engine holds after one recorded entry."""

    to_act: int | None
    sizes: tuple[int, ...]
    public: dict[str, Any]


@dataclass
class Walked:
    """A match drawn and the engine's own re-play of it."""

    view: dict[str, Any]
    record: MatchRecord
    after: dict[tuple[int, int], list[Snapshot]]
    """Per (deal, seq of the last event): the engine after each entry, in order."""
    outcomes: list[dict[str, Any]]
    scores: list[list[int]]
    totals_before: list[list[int]]
    messages: list[dict[str, Any]]

    def relative_to(self, viewer: int, language: str) -> dict[str, Any]:
        """The match drawn for ``viewer``'s own page."""
        return table_view(self.messages, self.record, language, viewer)


def _public(state: Any) -> dict[str, Any]:
    public = state.observe(0).public
    return {key: public[key] for key in public}


def engine_walk(record: MatchRecord) -> tuple[dict[tuple[int, int], list[Snapshot]], list[Any]]:
    game = games.make(record.game, **record.options)
    after: dict[tuple[int, int], list[Snapshot]] = {}
    outcomes = []
    seq = 0
    for number, deal in enumerate(record.deals, start=1):
        state = start_deal(game, deal)
        seen = 0
        for text in (None, *deal.actions):
            if text is not None:
                replay_entry(state, text)
            seq += len(state.events) - seen
            seen = len(state.events)
            done = state.is_terminal()
            after.setdefault((number, seq), []).append(
                Snapshot(
                    None if done or state.to_act == NOBODY else state.to_act,
                    tuple(len(state.hand(s)) for s in range(NUM_SEATS)),
                    _public(state),
                )
            )
        outcomes.append(state.outcome())
    return after, outcomes


def walked_match(store: Store, variant: str, seed: int, deals: int) -> Walked:
    policies = [bots.make(name, seed=seed + k) for k, name in enumerate(SAME_NAMES)]
    result = play_match(
        games.make(variant), policies, seed=seed, players=SAME_NAMES, max_deals=deals
    )
    stored = Store_(store).add(f"{variant}-{seed}-{deals}", result.record)
    messages, parsed = stored.messages, stored.record
    view = table_view(messages, parsed, "en")
    after, outcomes = engine_walk(parsed)
    totals = [0] * NUM_SEATS
    before = []
    for outcome in outcomes:
        before.append(list(totals))
        totals = [t + s for t, s in zip(totals, outcome.scores, strict=True)]
    return Walked(
        view,
        parsed,
        after,
        [dict(o.details) for o in outcomes],
        [list(o.scores) for o in outcomes],
        before,
        messages,
    )


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    with Store.open(tmp_path_factory.mktemp("numbers") / "arena.sqlite") as opened:
        yield opened


MATCHES = [(variant, 11) for variant in VARIANTS] + [("guandan", 29), ("sanfu", 29)]


@pytest.fixture(scope="module", params=MATCHES, ids=[f"{v}-{s}" for v, s in MATCHES])
def walked(request: pytest.FixtureRequest, store: Store) -> Walked:
    variant, seed = request.param
    deals = 1 if variant == "shengji-4" else 2
    return walked_match(store, variant, seed=seed, deals=deals)


def fact(frame: dict[str, Any], name: str) -> str | None:
    return next((value for label, value in frame["facts"] if label == name), None)


def by_team(text: str | None) -> tuple[str, str] | None:
    if text is None:
        return None
    found = BY_TEAM.match(text)
    assert found, f"not named by team: {text!r}"
    return found[1], found[2]


def ranks(levels: Any) -> tuple[str, str]:
    return rank_label(int(levels[0])), rank_label(int(levels[1]))


def frames_of(walked: Walked) -> Iterator[tuple[dict[str, Any], bool, bool]]:
    """Each frame with whether it is its deal's result and whether it ends a batch of
    events (a batch that several decisions brought, tributes revealed together, is
    drawn in steps; the engine's numbers are those after the whole batch)."""
    results = {d["last"] for d in walked.view["deals"]}
    for frame in walked.view["frames"]:
        ends = (frame["deal"], frame["seq"]) in walked.after
        yield frame, frame["i"] in results, ends


def test_whose_turn_is_the_engines_at_every_frame(walked: Walked) -> None:
    checked = 0
    firsts = {d["first"] for d in walked.view["deals"]}
    for frame, result, last in frames_of(walked):
        if result:
            assert frame["to_act"] is None, "nobody is to act once the deal is over"
            continue
        if frame["i"] in firsts or not last:
            continue
        engine = walked.after[(frame["deal"], frame["seq"])][-1]
        assert frame["to_act"] == engine.to_act, f"frame {frame['i']}"
        if engine.to_act is not None:
            assert frame["phase"], f"frame {frame['i']} names no phase"
        checked += 1
    assert checked > 20


def test_every_frame_awaiting_a_decision_marks_the_seat_to_act(walked: Walked) -> None:
    """A deal's start, Shengji's dealing, Guandan's tribute, each step of a batch: where
    the engine awaits a decision after the frame's events, the frame marks a seat; only
    a deal's result and its last play's frames mark no one."""
    results = {d["last"] for d in walked.view["deals"]}
    firsts = {d["first"] for d in walked.view["deals"]}
    marked = 0
    for frame in walked.view["frames"]:
        if frame["i"] in results:
            continue
        after = min(s for d, s in walked.after if d == frame["deal"] and s >= frame["seq"])
        engine = walked.after[(frame["deal"], after)][-1]
        if engine.to_act is None:
            continue  # the deal is over once this frame's events are
        assert frame["to_act"] is not None, f"frame {frame['i']} marks no one to act"
        if frame["i"] in firsts:  # as dealt: the deal's first decision
            first = walked.after[(frame["deal"], after)][0].to_act
            assert frame["to_act"] == first, f"frame {frame['i']}: the first to act is {first}"
        marked += 1
    assert marked > 20


def test_counts_points_and_levels_are_the_engines_at_every_frame(walked: Walked) -> None:
    game = walked.record.game.split("-")[0]
    firsts = {d["first"] for d in walked.view["deals"]}
    for frame, result, last in frames_of(walked):
        deal = frame["deal"]
        assert frame["totals"] == (
            walked.totals_before[deal - 1]
            if not result
            else [
                t + s
                for t, s in zip(
                    walked.totals_before[deal - 1],
                    walked.scores[deal - 1],
                    strict=True,
                )
            ]
        )
        for seat in frame["seats"]:
            assert seat["total"] == frame["totals"][seat["player"]]
        if frame["i"] in firsts or not last:
            continue
        engine = walked.after[(deal, frame["seq"])][0]
        public = engine.public
        for seat in frame["seats"]:
            if seat["count"] is not None:
                assert seat["count"] == engine.sizes[seat["seat"]], (frame["i"], seat)
        if game in ("guandan", "shengji"):
            assert by_team(fact(frame, "Levels")) == ranks(public["levels"])
            assert fact(frame, "Level") == rank_label(int(public["level"]))
        if game == "shengji":
            shown = fact(frame, "Defenders' points") or fact(frame, "Defender points")
            details = walked.outcomes[deal - 1]
            over = result or engine.to_act is None  # the kitty or last trick settled
            expected = details["defender_points"] if over else public["defender_points"]
            if shown is not None:
                assert int(shown) == expected, f"frame {frame['i']}"
        if game == "sanfu":
            captured = public["captured"]
            if not result:
                for seat in frame["seats"]:
                    assert (seat["points"] or 0) == captured[seat["seat"]], frame["i"]
                teams = [0, 0]
                for seat, points in enumerate(captured):
                    teams[team_of(seat)] += points
            else:
                teams = walked.outcomes[deal - 1]["team_points"]
            assert by_team(fact(frame, "Points (teams)")) == (str(teams[0]), str(teams[1]))


def test_seats_are_named_where_they_sit_and_teams_by_their_side(walked: Walked) -> None:
    lines = [line["text"] for frame in walked.view["frames"] for line in frame["log"]]
    assert not [line for line in lines if line.startswith("heuristic:")]
    named = {m for line in lines for m in re.findall(r"heuristic \(([NESW])\)", line)}
    assert named == {"N", "E", "S", "W"}
    for frame in walked.view["frames"]:
        assert sorted(seat["where"] for seat in frame["seats"]) == ["E", "N", "S", "W"]
        assert frame["sides"] == ["N–S", "E–W"]
    texts = [*lines, walked.view["result"]["summary"]]
    assert not [t for t in texts if re.search(r"\bteam [01]\b", t)]


def test_a_players_own_page_names_seats_and_teams_from_their_side(walked: Walked) -> None:
    view = walked.relative_to(1, "zh")
    for frame in view["frames"]:
        wheres = {seat["player"]: seat["where"] for seat in frame["seats"]}
        assert wheres[1] == "你"
        assert sorted(wheres.values()) == sorted(["你", "下家", "对家", "上家"])
        seat_of = {seat["player"]: seat["seat"] for seat in frame["seats"]}
        mine = team_of(seat_of[1])
        assert frame["sides"][mine] == "我方" and frame["sides"][1 - mine] == "对方"
        for label, value in frame["facts"]:
            if label in ("级数", "两队得分"):
                assert value.startswith("我方 "), (label, value)
    lines = [line["text"] for frame in view["frames"] for line in frame["log"]]
    assert any("heuristic（你）" in line for line in lines)
    assert view["match"]["viewer"] == 1
    assert all(frame["clock"] is None for frame in view["frames"])  # a stored match


@given(
    bottom=st.integers(0, NUM_SEATS - 1),
    turn=st.sampled_from(["counter-clockwise", "clockwise"]),
)
def test_each_seat_has_a_place_of_its_own_and_the_next_player_sits_where_the_turn_goes(
    bottom: int, turn: str
) -> None:
    seats = range(NUM_SEATS)
    compass = [where_key(seat, bottom, turn, relative=False) for seat in seats]
    assert sorted(compass) == sorted(POSITIONS) and compass[bottom] == "south"
    relative = {seat: where_key(seat, bottom, turn, relative=True) for seat in seats}
    after = (bottom + 1) % NUM_SEATS
    assert relative[bottom] == "you" and relative[(bottom + 2) % NUM_SEATS] == "partner"
    assert relative[after] == ("right_next" if turn == "counter-clockwise" else "left_next")
    assert relative[(bottom + 3) % NUM_SEATS].endswith("_previous")
    assert all(  # the side said is the side drawn
        relative[seat].startswith({"west": "left", "east": "right"}.get(compass[seat], ""))
        for seat in seats
    )
