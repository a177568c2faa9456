"""The web face's Viewer on a real store of played matches (Guandan, Shengji, sanfu): lists
filtered, counted and paged in SQL agree with a count over every stored match, leaderboards
and head-to-head figures with a count by hand, bad queries name their field, unknown ids
are NotFound, a store of the previous schema keeps every row, balance reports are read by
a checked name, and a running match on a real server is followed to its result."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import grpc
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_server import OWNER_KEY, ServerThread, bearer

from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.commands.leaderboard import tournament_leaderboard
from arena.games import make
from arena.games.base import Action, Observation
from arena.match import AUTO_MARK, FLED_MARK, Clock, play_match
from arena.server.play import PlayConfig
from arena.server.services import Failure, list_matches
from arena.server.spectate import stored_messages
from arena.sim import TournamentConfig, plan, play_jobs
from arena.sim.jobs import MatchJob, MatchReport
from arena.sim.league import League
from arena.store import (
    APPLICATION_ID,
    AUTO_ENTRY,
    FLED_ENTRY,
    MATCH_RESULTS,
    SCHEMA_VERSION,
    Store,
    StoredMatch,
    StoreError,
)
from arena.store.legacy import MIGRATIONS
from arena.web.incidents import Incidents, match_incidents
from arena.web.query import MAX_PAGE, MAX_PER_PAGE, BadQuery, MatchQuery
from arena.web.viewer import BrokenMatch, NotFound, Viewer, message_dict
from bots.simple import RandomBot

BOTS = ["random", "first", "heuristic"]
OLD_DAY = "2024-05-01T12:00:00.000000+00:00"


@dataclass
class Played:
    path: Path
    store: Store
    tournaments: dict[str, str]
    """Variant → tournament id."""
    casual: str
    """A match outside any tournament, ``random`` on both teams, finished on OLD_DAY."""
    cut_short: str
    incident: str
    """``first`` ran out of time five times in a row and fled: its team forfeited."""


class Slow:
    """A policy that takes two seconds of a fake clock for every decision."""

    def __init__(self, clock: list[float]) -> None:
        self.clock = clock

    def act(self, observation: Observation) -> Action:
        self.clock[0] += 2.0
        return observation.legal_actions[0]


def _incident_match() -> MatchReport:
    now = [0.0]
    clock = Clock(limit=1.0, bank=0.0, now=lambda: now[0])
    policies = [RandomBot(1), Slow(now), RandomBot(2), RandomBot(3)]
    job = MatchJob(
        id="incident-1",
        variant="guandan",
        options={},
        seed=11,
        players=("random", "first", "heuristic", "random"),
        max_deals=1,
    )
    result = play_match(
        make("guandan"), policies, seed=job.seed, players=job.players, max_deals=1, clock=clock
    )
    return MatchReport.of(job, result)


def build(path: Path) -> Played:
    store = Store.open(path)
    tournaments = {}
    for variant in ("guandan", "shengji-1", "sanfu"):
        config = TournamentConfig.from_mapping(
            {"name": f"cup-{variant}", "variant": variant, "bots": BOTS, "matches": 2,
             "deals": 1, "seed": 7}
        )  # fmt: skip
        store.add_tournament(config.id, config.name, config.variant, {}, {})
        store.add_builtin_bots(BOTS)
        league = League(store, variant)
        for report in play_jobs(plan(config)):
            league.add(report, config.id)
        tournaments[variant] = config.id
    casual = play_jobs(
        [MatchJob("casual-1", "guandan", {}, 5, ("random", "random", "first", "first"), 1)]
    )[0]
    store.add_match(replace(casual.stored(None), finished_at=OLD_DAY))
    cut = play_jobs([MatchJob("cut-1", "sanfu", {}, 6, ("first", "random", "first", "random"), 1)])
    store.add_match(cut[0].stored(None, aborted="cancelled"))
    incident = _incident_match()
    store.add_match(incident.stored(None))
    return Played(path, store, tournaments, "casual-1", "cut-1", "incident-1")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    played = build(tmp_path_factory.mktemp("viewer") / "arena.sqlite")
    yield played
    played.store.close()


@pytest.fixture(scope="module")
def viewer(played: Played) -> Viewer:
    return Viewer(played.store)


# ---------------------------------------------------------------------------
# Counting by hand over every stored match


def all_matches(store: Store) -> list[StoredMatch]:
    return list(store.matches())


def result_of(match: StoredMatch) -> str:
    if "aborted" in match.outcome:
        return "aborted"
    return {1.0: "team0", 0.0: "team1", 0.5: "draw"}[float(match.outcome["team_score"])]


def bot_scores(match: StoredMatch) -> dict[str, float]:
    """Each bot's result in a played-out match (a bot on both teams has none)."""
    result = result_of(match)
    if result == "aborted":
        return {}
    teams: dict[str, set[int]] = {}
    for seat, bot in enumerate(match.seating):
        teams.setdefault(bot, set()).add(seat % 2)
    scores = {}
    for bot, sides in teams.items():
        if len(sides) == 1:
            (team,) = sides
            scores[bot] = 0.5 if result == "draw" else float(result == f"team{team}")
    return scores


def hand_results(matches: list[StoredMatch]) -> dict[str, Counter[float]]:
    counts: dict[str, Counter[float]] = {}
    for match in matches:
        for bot, score in bot_scores(match).items():
            counts.setdefault(bot, Counter())[score] += 1
    return counts


def passes(match: StoredMatch, query: MatchQuery) -> bool:
    """The filter of a query, in Python (the SQL is checked against it)."""
    when = match.finished_at or ""
    wanted = query.filter()
    text = (query.text or "").lower()
    return (
        (query.variant is None or match.variant == query.variant)
        and (query.tournament is None or match.tournament_id == query.tournament)
        and (query.bot is None or query.bot in match.seating)
        and (query.result is None or result_of(match) == query.result)
        and (wanted.since is None or when >= wanted.since)
        and (wanted.until is None or when < wanted.until)
        and (
            not text
            or text in match.id.lower()
            or any(text in bot.lower() for bot in match.seating)
        )
    )


# ---------------------------------------------------------------------------
# Leaderboards, bots, head-to-head


def test_variants_are_the_games_registry(viewer: Viewer) -> None:
    assert "guandan" in viewer.variants() and "sanfu" in viewer.variants()


@pytest.mark.parametrize("variant", ["guandan", "shengji-1", "sanfu"])
def test_leaderboard_counts_agree_with_a_count_by_hand(
    played: Played, viewer: Viewer, variant: str
) -> None:
    rows = viewer.leaderboard(variant)
    counts = hand_results([m for m in all_matches(played.store) if m.variant == variant])
    assert {row.bot for row in rows} >= set(counts)
    ratings = {r.bot: r for r in played.store.ratings(variant, "elo")}
    for row in rows:
        count = counts.get(row.bot, Counter())
        assert (row.wins, row.draws, row.losses) == (count[1.0], count[0.5], count[0.0])
        assert row.matches == sum(count.values())
        assert row.elo == pytest.approx(ratings[row.bot].value)
        if row.matches:
            assert row.win_rate == pytest.approx((row.wins + row.draws / 2) / row.matches)
            assert row.win_low <= row.win_rate <= row.win_high
        assert (row.room_points is not None) == variant.startswith("shengji")
    assert [row.rank for row in rows] == list(range(1, len(rows) + 1))
    elos = [row.elo for row in rows if row.elo is not None]
    assert elos == sorted(elos, reverse=True)


def test_a_tournament_leaderboard_is_the_one_the_command_prints(
    played: Played, viewer: Viewer
) -> None:
    for variant, tournament in played.tournaments.items():
        _, expected = tournament_leaderboard(played.store, tournament)
        rows = viewer.leaderboard(variant, tournament=tournament)
        by_bot = {row.bot: row for row in rows}
        assert set(by_bot) == {row["bot"] for row in expected}
        for row in expected:
            mine = by_bot[row["bot"]]
            assert mine.elo == pytest.approx(row["elo"])
            assert mine.skill == pytest.approx(row["openskill"])
            assert mine.matches == row["matches"]
            if row["room"] is not None:
                assert mine.room_points == pytest.approx(row["room"])


def test_bot_page_head_to_head_agrees_with_a_count_by_hand(played: Played, viewer: Viewer) -> None:
    page = viewer.bot("random")
    expected: dict[str, Counter[float]] = {}
    for match in all_matches(played.store):
        scores = bot_scores(match)
        if "random" not in scores:
            continue
        team = match.seating.index("random") % 2
        for opponent in {b for s, b in enumerate(match.seating) if s % 2 != team}:
            expected.setdefault(opponent, Counter())[scores["random"]] += 1
    got = {h.opponent: (h.matches, h.wins, h.draws, h.losses) for h in page.head_to_head}
    assert got == {
        opponent: (sum(c.values()), c[1.0], c[0.5], c[0.0]) for opponent, c in expected.items()
    }
    assert page.bot.name == "random" and page.bot.kind == "builtin"
    assert set(page.ratings) == {"guandan", "shengji-1", "sanfu"}
    assert set(page.history["shengji-1"]) == {"elo", "skill", "room"}
    skill = page.history["sanfu"]["skill"][-1][1]
    assert skill == pytest.approx(page.ratings["sanfu"].skill)  # μ−3σ, as the leaderboard
    elo_history = page.history["guandan"]["elo"]
    assert elo_history[-1][1] == pytest.approx(page.ratings["guandan"].elo)
    rated_ids = {m.id for m in all_matches(played.store) if m.variant == "guandan"}
    assert {match_id for _, _, match_id in elo_history} <= rated_ids
    newest = [m.id for m in reversed(all_matches(played.store)) if "random" in m.seating]
    assert [row.id for row in page.recent] == newest[:20]


def test_incidents_are_found_in_the_records_and_named_per_bot(
    played: Played, viewer: Viewer
) -> None:
    record = played.store.match(played.incident)
    assert record is not None
    entries = [e for deal in record.record["deals"] for e in deal["actions"]]
    assert entries.count(AUTO_MARK) == 5 and any(e.startswith(FLED_MARK) for e in entries)
    assert (AUTO_ENTRY, FLED_ENTRY) == (AUTO_MARK, FLED_MARK)
    assert viewer.bot("first").incidents == Incidents(automatic_plays=5, flights=1, forfeits=1)
    assert viewer.bot("first").incident_matches == [played.incident]
    assert viewer.bot("heuristic").incidents == Incidents()
    assert not viewer.bot("random").incident_matches


def test_unknown_bot_variant_tournament_match_report_are_not_found(viewer: Viewer) -> None:
    for call in (
        lambda: viewer.bot("nobody"),
        lambda: viewer.leaderboard("chess"),
        lambda: viewer.tournament("no-such-cup"),
        lambda: viewer.match("no-such-match"),
        lambda: viewer.watch_messages("no-such-match"),
        lambda: viewer.revealed_record("no-such-match"),
        lambda: viewer.report("anything"),
    ):
        with pytest.raises(NotFound, match="no "):
            call()


# ---------------------------------------------------------------------------
# Tournaments


def test_tournaments_list_their_progress(played: Played, viewer: Viewer) -> None:
    rows = {row.id: row for row in viewer.tournaments()}
    assert set(rows) == set(played.tournaments.values())
    for variant, tournament in played.tournaments.items():
        assert rows[tournament].variant == variant
        assert rows[tournament].played == len(played.store.match_ids(tournament)) == 6
        page = viewer.tournament(tournament)
        assert page.id == tournament and page.played == 6
        assert page.matches.total == 6 and {r.tournament for r in page.matches.rows} == {tournament}
        assert page.standings == viewer.leaderboard(variant, tournament=tournament)


# ---------------------------------------------------------------------------
# The match list


def test_match_list_filters_count_and_page_in_store_order(played: Played, viewer: Viewer) -> None:
    everything = list(reversed(all_matches(played.store)))
    page = viewer.matches(MatchQuery(per_page=5))
    assert page.total == len(everything) and page.pages == -(-len(everything) // 5)
    assert [row.id for row in page.rows] == [m.id for m in everything[:5]]
    last = viewer.matches(MatchQuery(per_page=5, page=page.pages))
    assert [row.id for row in last.rows] == [m.id for m in everything[5 * (page.pages - 1) :]]
    beyond = viewer.matches(MatchQuery(per_page=5, page=page.pages + 1))
    assert beyond.rows == [] and beyond.total == len(everything)


@pytest.mark.parametrize(
    "params",
    [
        {"variant": "sanfu"},
        {"bot": "heuristic"},
        {"bot": "heuristic", "variant": "guandan"},
        {"result": "aborted"},
        {"result": "draw"},
        {"result": "team0", "variant": "shengji-1"},
        {"q": "CASUAL"},
        {"q": "heur"},
        {"q": "%"},
        {"since": "2024-05-01", "until": "2024-05-01"},
        {"until": "2024-04-30"},
        {"since": "2024-05-02"},
    ],
)
def test_each_filter_agrees_with_a_filter_over_every_match(
    played: Played, viewer: Viewer, params: dict[str, str]
) -> None:
    query = MatchQuery.parse(params)
    expected = [m.id for m in reversed(all_matches(played.store)) if passes(m, query)]
    page = viewer.matches(query)
    assert [row.id for row in page.rows] == expected and page.total == len(expected)


def test_a_date_range_and_a_result_pick_the_right_matches(played: Played, viewer: Viewer) -> None:
    old = viewer.matches(MatchQuery.parse({"since": "2024-05-01", "until": "2024-05-01"}))
    assert [row.id for row in old.rows] == [played.casual]
    aborted = viewer.matches(MatchQuery.parse({"result": "aborted"}))
    assert [(row.id, row.status) for row in aborted.rows] == [(played.cut_short, "aborted")]
    assert viewer.matches(MatchQuery.parse({"q": "%"})).total == 0  # no wildcard


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    variant=st.sampled_from([None, "guandan", "shengji-1", "sanfu"]),
    bot=st.sampled_from([None, *BOTS]),
    result=st.sampled_from([None, *MATCH_RESULTS]),
    text=st.sampled_from([None, "cup", "1", "m0", "first", "RAND"]),
    per_page=st.integers(1, 9),
)
def test_pages_cover_every_match_of_any_filter_exactly_once(
    played: Played,
    viewer: Viewer,
    variant: str | None,
    bot: str | None,
    result: str | None,
    text: str | None,
    per_page: int,
) -> None:
    query = MatchQuery(variant=variant, bot=bot, result=result, text=text, per_page=per_page)
    first = viewer.matches(query)
    seen = [row.id for row in first.rows]
    for number in range(2, first.pages + 1):
        page = viewer.matches(MatchQuery(**{**query.__dict__, "page": number}))
        assert page.total == first.total and len(page.rows) <= per_page
        seen += [row.id for row in page.rows]
    expected = [m.id for m in reversed(all_matches(played.store)) if passes(m, query)]
    assert seen == expected and len(set(seen)) == first.total


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"page": "abc"}, "page"),
        ({"page": "-1"}, "page"),
        ({"page": "0"}, "page"),
        ({"page": "1e3"}, "page"),
        ({"page": str(MAX_PAGE + 1)}, "page"),
        ({"page": "9" * 400}, "page"),
        ({"page": "²"}, "page"),
        ({"per_page": "500"}, "per_page"),
        ({"per_page": "-5"}, "per_page"),
        ({"variant": "chess"}, "variant"),
        ({"result": "won"}, "result"),
        ({"since": "yesterday"}, "since"),
        ({"until": "2024-13-01"}, "until"),
        ({"until": "9999-12-31"}, "until"),
        ({"since": "0001-01-01T00:00+14:00"}, "since"),
        ({"since": "2024-05-01T25:00"}, "since"),
        ({"since": "2024-05-02", "until": "2024-05-01"}, "since"),
        ({"q": "x" * 101}, "q"),
        ({"bot": "a\x00b"}, "bot"),
    ],
)
def test_a_bad_query_names_its_field(params: dict[str, str], field: str) -> None:
    with pytest.raises(BadQuery) as info:
        MatchQuery.parse(params)
    assert str(info.value).startswith(field) and len(str(info.value)) < 200


QUERY_KEYS = ["variant", "tournament", "bot", "since", "until", "result", "q", "page", "per_page"]
QUERY_VALUES = st.one_of(
    st.text(max_size=30),
    st.integers(-(10**20), 10**20).map(str),
    st.dates().map(str),
    st.datetimes(timezones=st.timezones()).map(lambda t: t.isoformat()),
    st.sampled_from(["guandan", "draw", "aborted", "random", "0", "2024-05-01"]),
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(params=st.dictionaries(st.sampled_from(QUERY_KEYS), QUERY_VALUES))
def test_any_query_is_a_page_or_a_bad_query_naming_a_field(
    viewer: Viewer, params: dict[str, str]
) -> None:
    try:
        query = MatchQuery.parse(params)
    except BadQuery as err:
        assert str(err).split()[0].rstrip(":") in QUERY_KEYS
        return
    page = viewer.matches(query)
    assert page.page == query.page and len(page.rows) <= query.per_page


def test_pages_in_range_are_accepted_and_garbage_keys_ignored(viewer: Viewer) -> None:
    query = MatchQuery.parse({"page": str(MAX_PAGE), "per_page": str(MAX_PER_PAGE), "x": "?"})
    page = viewer.matches(query)
    assert page.rows == [] and page.page == MAX_PAGE
    with pytest.raises(BadQuery, match=r"^page"):
        viewer.matches(MatchQuery(page=0))


# ---------------------------------------------------------------------------
# One match


def test_a_stored_match_its_messages_and_its_record(played: Played, viewer: Viewer) -> None:
    tournament = played.tournaments["shengji-1"]
    match_id = sorted(played.store.match_ids(tournament))[0]
    stored = played.store.match(match_id)
    assert stored is not None
    row = viewer.match(match_id)
    assert (row.id, row.variant, row.tournament, row.players) == (
        match_id, "shengji-1", tournament, stored.seating,
    )  # fmt: skip
    assert row.status == "finished" and not row.live and row.rated
    assert row.totals == tuple(stored.outcome["totals"]) and row.deals == stored.deals
    messages = viewer.watch_messages(match_id)
    assert "match" in messages[0] and "match_result" in messages[-1]
    seqs = [e["seq"] for m in messages for e in m.get("events", {}).get("events", [])]
    assert seqs == list(range(1, len(seqs) + 1))
    assert all("hand" not in m.get("deal_started", {}) for m in messages)
    record = viewer.revealed_record(match_id)
    assert record is not None and record.players == list(stored.seating)
    assert record.to_dict()["deals"] == stored.record["deals"]
    assert viewer.match(played.cut_short).status == "aborted"
    assert not viewer.match(played.casual).rated


# ---------------------------------------------------------------------------
# The previous schema


def test_a_store_of_the_previous_schema_keeps_every_row_and_lists_it(
    played: Played, tmp_path: Path
) -> None:
    old = tmp_path / "v5.sqlite"
    conn = sqlite3.connect(old)
    for version in range(1, 6):
        for statement in MIGRATIONS[version]:
            conn.execute(statement)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 5")
    conn.execute("ATTACH DATABASE ? AS src", (str(played.path),))
    for table in ("bots", "tournaments", "matches", "ratings", "rating_history"):
        conn.execute(f"INSERT INTO main.{table} SELECT * FROM src.{table} ORDER BY rowid")
    conn.execute(  # a row changed by hand: its record and seating are no longer JSON
        "INSERT INTO matches SELECT 'hand-changed', NULL, variant, options_json, seed, "
        "'[not json', outcome_json, '{not json', deals, decisions, finished_at "
        "FROM src.matches WHERE id = ?",
        (played.casual,),
    )
    conn.commit()
    conn.execute("DETACH DATABASE src")
    conn.close()
    with Store.open(old, read_only=True) as unchanged, pytest.raises(StoreError) as info:
        Viewer(unchanged)  # read-only: not brought up to date, and said so
    assert f"schema version 5, older than this arena's {SCHEMA_VERSION}" in str(info.value)
    with Store.open(old) as upgraded:
        assert upgraded.count_matches() == played.store.count_matches() + 1
        changed, *listed = upgraded.match_listings(limit=100)
        assert (changed.id, changed.players) == ("hand-changed", ())
        assert listed == played.store.match_listings(limit=100)
        assert all(upgraded.match(m.id) == m for m in played.store.matches())
        viewer = Viewer(upgraded)
        assert viewer.match("hand-changed").status == "finished"
        for call in (viewer.watch_messages, viewer.revealed_record):
            with pytest.raises(BrokenMatch, match="hand-changed"):
                call("hand-changed")
        kept = sqlite3.connect(old).execute("SELECT count(*) FROM matches").fetchone()[0]
        assert kept == upgraded.count_matches()
        for variant in ("guandan", "shengji-1", "sanfu"):
            assert upgraded.results(variant) == played.store.results(variant)
        assert upgraded.head_to_head("first") == played.store.head_to_head("first")


# ---------------------------------------------------------------------------
# Balance reports


def test_reports_are_listed_broken_ones_too_and_names_are_checked(tmp_path: Path) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    good = {
        "bots": "random", "seed": 1, "deals_per_variant": 10, "batch": 5, "complete": True,
        "seconds": 1.5, "variants": [{"name": "guandan", "game": "guandan", "deals": 10}],
    }  # fmt: skip
    (folder / "spring.json").write_text(json.dumps(good))
    (folder / "broken.json").write_text("{not json")
    (folder / "other.json").write_text(json.dumps({"variants": "none"}))
    (folder / "notes.txt").write_text("not a report")
    (tmp_path / "secret.json").write_text(json.dumps(good))
    (folder / "leak.json").symlink_to(tmp_path / "secret.json")  # a link leading out
    viewer = Viewer(Store.open(":memory:"), reports=folder)
    rows = {row.name: row for row in viewer.reports()}
    assert set(rows) == {"spring", "broken", "other"}
    assert rows["spring"].error is None and rows["spring"].variants == ("guandan",)
    assert rows["spring"].deals_per_variant == 10 and rows["spring"].complete
    assert rows["broken"].error is not None and "JSON" in rows["broken"].error
    assert rows["other"].error is not None and "not a balance report" in rows["other"].error
    assert viewer.report("spring") == good
    for name in ("broken", "other", "../secret", "..", "notes", "spring.json", "/etc", "", "leak"):
        with pytest.raises(NotFound):
            viewer.report(name)
    assert Viewer(Store.open(":memory:")).reports() == []


# ---------------------------------------------------------------------------
# A running match, followed


class Paced:
    """A random bot that thinks a few milliseconds before each decision."""

    def __init__(self) -> None:
        self.bot = RandomBot(3)

    def act(self, observation: Observation) -> Action | str:
        time.sleep(0.003)
        return self.bot.act(observation)


def test_follow_a_running_match_to_its_result_with_public_messages(tmp_path: Path) -> None:
    from arena.client.runner import run_bot_async

    with Store.open(tmp_path / "live.sqlite") as store:
        server = ServerThread(store, play=PlayConfig(max_deals=1))
        try:
            with grpc.insecure_channel(server.address) as channel:
                token = (
                    arena_pb2_grpc.RegistryStub(channel)
                    .Register(arena_pb2.RegisterRequest(name="paced"), metadata=bearer(OWNER_KEY))
                    .token
                )
            bot = threading.Thread(
                target=lambda: asyncio.run(
                    run_bot_async(
                        Paced(),
                        server.address,
                        token,
                        ["guandan"],
                        False,
                        1,
                        max_retries=0,
                        fill_after=0.01,
                        fill_bot="random",
                    )
                ),
                daemon=True,
            )
            bot.start()
            viewer = Viewer(store, server.running.play.sessions)
            deadline = time.monotonic() + 30
            while not viewer.live_matches() and time.monotonic() < deadline:
                time.sleep(0.002)
            (live,) = viewer.live_matches()
            assert live.status == "running" and live.live and "paced" in live.players
            assert viewer.match(live.id).live
            assert viewer.revealed_record(live.id) is None  # no hand of a running match
            with pytest.raises(NotFound):
                viewer.watch_messages(live.id)

            session = server.running.play.sessions[live.id]

            async def leave_early() -> int:
                following = viewer.follow(live.id)
                await anext(following)  # caught up, watching
                watching = len(session._watchers)
                await following.aclose()  # a page closed: its watcher goes at once
                return watching - len(session._watchers)

            assert asyncio.run(leave_early()) == 1

            async def follow() -> list[dict[str, Any]]:
                return [message async for message in viewer.follow(live.id)]

            messages = asyncio.run(follow())
            bot.join(30)
        finally:
            server.close()
        assert "match" in messages[0] and "match_result" in messages[-1]
        assert any(m.get("live") for m in messages)
        for message in messages:
            assert "hand" not in message.get("deal_started", {})
            assert "seat" not in message.get("deal_started", {})
        events = [e for m in messages for e in m.get("events", {}).get("events", [])]
        seqs = [e["seq"] for e in events]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
        stored = {
            e["seq"]: e
            for m in Viewer(store).watch_messages(live.id)
            for e in m.get("events", {}).get("events", [])
        }
        assert all(stored[e["seq"]] == e for e in events)  # the same public events
        assert Viewer(store).match(live.id).status == "finished"


def test_follow_a_stored_match_gives_its_stored_messages(played: Played, viewer: Viewer) -> None:
    async def follow() -> list[dict[str, Any]]:
        return [message async for message in viewer.follow(played.casual, 3)]

    assert asyncio.run(follow()) == viewer.watch_messages(played.casual, 3)
    with pytest.raises(NotFound):
        asyncio.run(anext(viewer.follow("no-such-match")))


def test_a_store_opened_read_only_is_viewed(played: Played, tmp_path: Path) -> None:
    copy = tmp_path / "copy.sqlite"
    shutil.copy(played.path, copy)
    for suffix in ("-wal", "-shm"):
        if Path(f"{played.path}{suffix}").exists():
            shutil.copy(f"{played.path}{suffix}", f"{copy}{suffix}")
    with Store.open(copy, read_only=True) as store:
        assert Viewer(store).matches(MatchQuery()).total == played.store.count_matches()


# ---------------------------------------------------------------------------
# The gRPC list pages in SQL too


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    size=st.integers(1, 8),
    bot=st.sampled_from(["", *BOTS]),
    variant=st.sampled_from(["", "guandan", "sanfu"]),
)
def test_list_matches_tokens_walk_every_stored_match_once_newest_first(
    played: Played, size: int, bot: str, variant: str
) -> None:
    seen: list[str] = []
    token = ""
    while True:
        request = arena_pb2.ListMatchesRequest(
            page_size=size, page_token=token, bot=bot, variant=variant
        )
        page = list_matches(played.store, request)
        assert len(page.matches) <= size
        seen += [summary.info.match_id for summary in page.matches]
        token = page.next_page_token
        if not token:
            break
        assert len(page.matches) == size  # a full page before the last
    expected = [
        m.id
        for m in reversed(all_matches(played.store))
        if (not bot or bot in m.seating) and (not variant or m.variant == variant)
    ]
    assert seen == expected


def test_a_match_stored_again_is_listed_and_counted_once(tmp_path: Path) -> None:
    (report,) = play_jobs([MatchJob("again", "sanfu", {}, 9, ("random", "first") * 2, 1)])
    with Store.open(tmp_path / "again.sqlite") as store:
        store.add_builtin_bots(["random", "first"])
        assert store.add_match(report.stored(None))
        before = (store.results("sanfu"), store.head_to_head("first"), store.count_matches())
        assert not store.add_match(report.stored(None))
        assert store.add_matches([(report.stored(None), [])]) == 0
        after = (store.results("sanfu"), store.head_to_head("first"), store.count_matches())
        assert after == before and before[2] == 1
        assert sum(r.matches for r in before[0].values()) == 2  # one match, two bots


def test_planned_matches_come_from_the_stored_definition() -> None:
    definition = {
        "name": "weekly", "variant": "guandan", "teams": [["random", "first"], ["first", "random"]],
        "format": "round_robin", "matches": 3, "seed": 0, "paired": True,
    }  # fmt: skip
    fixture = {"fixture": True, "players": ["random"] * 4, "matches": 4, "paired": True}
    with Store.open(":memory:") as store:
        store.add_tournament("weekly", "weekly", "guandan", {}, definition)
        store.add_tournament("fixture", "fixture", "guandan", {}, fixture)
        store.add_tournament("bare", "bare", "guandan", {}, {})
        store.add_tournament("odd", "odd", "guandan", {}, {"teams": "none"})
        planned = {row.id: row.planned for row in Viewer(store).tournaments()}
    expected = len(plan(TournamentConfig.from_mapping(definition)))
    assert planned == {"weekly": expected, "fixture": 8, "bare": None, "odd": None}
    assert expected == 6


def test_leaderboards_follow_each_match_stored(tmp_path: Path) -> None:
    config = TournamentConfig.from_mapping(
        {"name": "growing", "bots": ["random", "first"], "matches": 3, "deals": 1, "seed": 4}
    )
    reports = play_jobs(plan(config))
    with Store.open(tmp_path / "growing.sqlite") as store:
        store.add_tournament(config.id, config.name, config.variant, {}, {})
        store.add_builtin_bots(["random", "first"])
        viewer = Viewer(store)
        league = League(store, config.variant)
        assert viewer.leaderboard(config.variant) == []
        for stored, report in enumerate(reports, start=1):
            league.add(report, config.id)
            for rows in (
                viewer.leaderboard(config.variant),
                viewer.leaderboard(config.variant, tournament=config.id),
                viewer.tournament(config.id).standings,
            ):
                assert {row.bot: row.matches for row in rows} == {"random": stored, "first": stored}
            elo = {r.bot: r.value for r in store.ratings(config.variant, "elo")}
            assert {r.bot: r.elo for r in viewer.leaderboard(config.variant)} == elo


def test_a_record_changed_by_hand_leaves_a_bot_page_standing(tmp_path: Path) -> None:
    stored = _incident_match().stored(None)
    deals = [dict(deal) for deal in stored.record["deals"]]
    deals[0]["actions"] = ["nonsense", *deals[0]["actions"]]
    broken = replace(stored, record={**stored.record, "deals": deals})
    with Store.open(tmp_path / "changed.sqlite") as store:
        store.add_match(broken)
        viewer = Viewer(store)
        page = viewer.bot("first")
        assert page.incidents == Incidents() and page.incident_matches == []
        assert [row.id for row in page.recent] == [broken.id]


@pytest.mark.parametrize("token", ["-1", "x", "9" * 30, str(2**62 + 1)])
def test_list_matches_refuses_a_page_token_it_never_gave(played: Played, token: str) -> None:
    with pytest.raises(Failure) as info:
        list_matches(played.store, arena_pb2.ListMatchesRequest(page_token=token))
    assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "bad page_token" in info.value.message and len(info.value.message) < 80
    far = list_matches(played.store, arena_pb2.ListMatchesRequest(page_token=str(2**62)))
    assert list(far.matches) == [] and far.next_page_token == ""


@pytest.mark.parametrize("seed", [2, 10, 25])  # deals where the slow player sits elsewhere
def test_sanfu_incidents_go_to_the_player_wherever_the_turned_cards_seat_it(seed: int) -> None:
    now = [0.0]
    clock = Clock(limit=1.0, bank=0.0, now=lambda: now[0])
    players = ("random", "first", "heuristic", "search")
    policies = [RandomBot(1), Slow(now), RandomBot(2), RandomBot(3)]
    result = play_match(
        make("sanfu"), policies, seed=seed, players=players, max_deals=1, clock=clock
    )
    found = match_incidents(result.record)
    assert found == {"first": Incidents(automatic_plays=5, flights=1, forfeits=0)}
    (fled,) = [e for e in result.record.deals[0].actions if e.startswith(FLED_MARK)]
    assert fled != f"{FLED_MARK} 1"  # the seat that fled is not the player's index


def test_a_stored_match_s_messages_are_kept_and_each_caller_gets_its_own(
    played: Played,
) -> None:
    viewer = Viewer(played.store)
    first = viewer.watch_messages(played.casual)
    expected = [message_dict(m) for m in stored_messages(played.store, played.casual)]
    assert first == expected
    first[0]["match"]["players"] = ["changed"]  # a caller changing what it was given
    first.pop()
    assert viewer.watch_messages(played.casual) == expected
    assert viewer.watch_messages(played.casual, 5) == [
        message_dict(m) for m in stored_messages(played.store, played.casual, 5)
    ]


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@example(seating=["a"] * 5, outcome={"winner": True, "totals": ["x"]}, record={})
@given(
    seating=st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=6),
    outcome=st.dictionaries(
        st.sampled_from(["winner", "totals", "team_score", "aborted", "x"]), JSON_VALUES
    ),
    record=st.dictionaries(st.sampled_from(["deals", "result", "players"]), JSON_VALUES),
)
def test_any_match_the_store_took_before_is_still_stored_and_listed(
    seating: list[str], outcome: dict[str, Any], record: dict[str, Any]
) -> None:
    with Store.open(":memory:") as store:
        match = StoredMatch("any", None, "guandan", {}, 1, tuple(seating), outcome, record, 0, 0)
        assert store.add_match(match)
        listing = store.match_listing("any")
        assert listing is not None and listing.players == tuple(seating)
        assert listing.result in MATCH_RESULTS and store.count_matches() == 1
        assert store.match("any") == match


def test_stored_balance_runs_are_listed_and_opened_after_the_files(tmp_path: Path) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    report = {
        "bots": ["random"] * 4, "seed": 1, "deals_per_variant": 10, "batch": 5,
        "complete": False, "seconds": 1.5,
        "variants": [{"name": "sanfu", "game": "sanfu", "deals": 5}],
    }  # fmt: skip
    (folder / "shadowed.json").write_text(json.dumps({**report, "seed": 2}))
    store = Store.open(":memory:")
    for name in ("kept", "shadowed", "unfinished"):
        store.add_balance_run(name, {"variants": []}, "arena balance --variant sanfu")
    store.set_balance_status("kept", "interrupted", report)
    store.set_balance_status("shadowed", "finished", report)
    viewer = Viewer(store, reports=folder)
    rows = {row.name: row for row in viewer.reports()}
    assert list(rows) == ["shadowed", "kept"], "no report yet: not listed"
    assert rows["shadowed"].stored is None and rows["kept"].stored == "interrupted"
    assert rows["kept"].variants == ("sanfu",) and rows["kept"].complete is False
    assert viewer.report("kept") == report
    assert viewer.report("shadowed")["seed"] == 2, "the file of that name"
    with pytest.raises(NotFound):
        viewer.report("unfinished")
    assert Viewer(store).report("shadowed") == report
