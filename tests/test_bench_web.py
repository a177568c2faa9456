"""``arena bench web``: a small store built of real matches that re-play, on SQLite and
on PostgreSQL (a cluster of the bench's own, removed afterwards; or a database given),
the matches stored per second and every kind of page timed on both, PostgreSQL's
figures as ratios of SQLite's; the live table's delay measured on a real server; the
figures consistent with each other, kept stores reused, bad sizes and backends refused
with a line naming the option."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
from postgres import fresh_database

from arena.cli import main
from arena.commands import bench_web_backends
from arena.commands.bench_web import (
    BATCH,
    BROAD_TEXTS,
    LONG_MATCHES,
    VARIANTS,
    alone_count,
    build_store,
    long_numbers,
)
from arena.commands.bench_web_report import TARGETS_MS, WHOLE, target_ms
from arena.replay import verify_stored
from arena.store import MatchFilter, Store

PAGES = {
    "leaderboard",
    "matches",
    "matches by variant",
    "matches by bot",
    "matches deep page",
    "matches text search",
    "matches broad text search",
    "matches result and dates",
    "bot page",
    "match page",
}


def test_the_bench_store_holds_copies_that_re_play_under_their_new_seatings(
    tmp_path: Path,
) -> None:
    with Store.open(tmp_path / "bench.sqlite") as store:
        storing = build_store(store, bots=6, matches=40, seed=3)
        assert len(store.bots()) == 6 and store.count_matches() == 40
        assert (
            (storing.batched, storing.alone) == (40 - alone_count(40), alone_count(40)) == (36, 4)
        )
        assert storing.batched_seconds > 0 and storing.alone_seconds > 0
        matches = list(store.matches())
        assert {m.variant for m in matches} == set(VARIANTS)
        assert len({m.seating for m in matches}) > 1
        for match in matches:
            assert len(set(match.seating)) == 4 and match.record["players"] == list(match.seating)
            verify_stored(match)  # raises if the record does not re-play to what is stored
        for (variant, deals), numbers in zip(LONG_MATCHES, long_numbers(40).values(), strict=True):
            long = [store.match_listing(f"bench-{number:06d}") for number in numbers]
            assert numbers and all(m is not None and m.variant == variant for m in long)
            assert all(m is not None and m.deals == (deals or m.deals) > 1 for m in long)
        assert sum(m.tournament_id is not None for m in matches) == 4
        assert all(store.ratings(variant) for variant in VARIANTS)
        for text in BROAD_TEXTS:  # the broad search's texts: every match matches each
            assert store.count_matches(MatchFilter(text=text)) == 40, text


@contextmanager
def _watched_clusters(
    monkeypatch: pytest.MonkeyPatch, seen: list[tuple[str, Path, dict[str, Any]]]
) -> Iterator[None]:
    """The bench's own clusters, each noted (URL, data directory, how asked) while it runs."""
    started = bench_web_backends.throwaway_cluster

    @contextmanager
    def watched(**options: Any) -> Iterator[str]:
        with started(**options) as url:
            with psycopg.connect(url) as conn:
                row = conn.execute("SHOW data_directory").fetchone()
            assert row is not None
            seen.append((url, Path(row[0]), options))
            yield url

    monkeypatch.setattr(bench_web_backends, "throwaway_cluster", watched)
    yield


def _numbers(cells: str) -> list[float]:
    """The figures among printed cells (``—`` and words left out)."""
    return [
        float(cell.replace(",", ""))
        for cell in cells.split()
        if re.fullmatch(r"[\d,]+(\.\d+)?", cell)
    ]


def test_bench_web_prints_both_backends_side_by_side_and_removes_its_cluster(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[tuple[str, Path, dict[str, Any]]] = []
    argv = ["bench", "web", "--matches", "48", "--bots", "8", "--requests", "2"]
    with _watched_clusters(monkeypatch, seen):
        assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("web face: 8 bots, 48 matches on SQLite and PostgreSQL; ratios: ")
    ((url, data, options),) = seen  # one cluster of its own, commits reaching the disk
    assert options == {"durable": True}
    assert not data.exists() and not data.parent.exists()  # removed at the end
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(url, connect_timeout=5)
    lines = out.splitlines()
    assert any(line.startswith("  SQLite: a temporary file; store built in") for line in lines)
    assert any(
        line.startswith("  PostgreSQL: a cluster of its own, removed at the end (PostgreSQL ")
        for line in lines
    )
    header = next(line for line in lines if line.startswith("  page "))
    assert header.split()[1:4] == ["SQLite", "PostgreSQL", "ratio"]
    assert header.split()[4:7] == ["SQLite", "PostgreSQL", "ratio"]
    rows = {line[2:46].strip(): line[46:] for line in lines if line.startswith("  ")}
    for kind in (
        "batches of 1,000, one a transaction",
        "one match a transaction (as a server)",
    ):
        sqlite, postgresql, ratio = _numbers(rows[kind])
        assert (
            sqlite > 0
            and postgresql > 0
            and ratio == pytest.approx(postgresql / sqlite, rel=0.02, abs=0.01)
        )
    longs = [kind for kind in rows if kind.startswith("match page, ")]
    assert len(longs) == 2 * len(LONG_MATCHES), "each long match: one deal, and every deal"
    for kind in ["/healthz (baseline)", *PAGES, *longs]:
        line = rows[kind]
        figures = _numbers(line[: 2 * 32])
        s50, p50, r50, s95, p95, r95 = figures
        assert 0 < s50 <= s95 and 0 < p50 <= p95
        assert r50 == pytest.approx(p50 / s50, rel=0.02, abs=0.01)
        assert r95 == pytest.approx(p95 / s95, rel=0.02, abs=0.01)
        if kind != "bot page" and not kind.endswith(WHOLE) and kind != "/healthz (baseline)":
            assert line.count("met") == 2, line  # a verdict per backend
    live = next(line for line in lines if line.startswith("  live table (event -> frame)"))
    assert "x SQLite's healthz" in live and "met" in live


def test_bench_web_json_figures_agree_and_kept_stores_are_reused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], postgres_url: str
) -> None:
    db = tmp_path / "kept.sqlite"
    database = fresh_database(postgres_url)
    argv = ["bench", "web", "--matches", "30", "--bots", "5", "--requests", "3"]
    argv += ["--db", str(db), "--postgres", database, "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["bots"], report["matches"]) == (5, 30)
    assert report["backends"] == ["sqlite", "postgresql"]
    assert report["ratios_of"] == "postgresql / sqlite"
    stores = report["stores"]
    assert stores["sqlite"]["where"] == str(db)
    assert stores["postgresql"]["where"].startswith(database.split("@")[0])
    for name, store in stores.items():
        assert store["store_built"], name
        storing = store["storing"]
        assert storing["batch"] == BATCH
        assert storing["batched"]["matches"] + storing["one_per_transaction"]["matches"] == 30
        for key in ("batched", "one_per_transaction"):
            figures = storing[key]
            assert figures["per_second"] == pytest.approx(figures["matches"] / figures["seconds"])
            assert figures["per_second"] > 0
        _check_pages(store)
    ratios = report["ratios"]
    for key in ("batched", "one_per_transaction"):
        assert ratios["storing"][key] == pytest.approx(
            stores["postgresql"]["storing"][key]["per_second"]
            / stores["sqlite"]["storing"][key]["per_second"]
        )
    assert set(ratios["pages"]) == {"healthz", *stores["sqlite"]["pages"]}
    for kind, ratio in ratios["pages"].items():
        mine = stores["sqlite"]["healthz" if kind == "healthz" else "pages"]
        theirs = stores["postgresql"]["healthz" if kind == "healthz" else "pages"]
        if kind != "healthz":
            mine, theirs = mine[kind], theirs[kind]
        for measure in ("p50", "p95"):
            assert ratio[measure] > 0
            assert ratio[measure] == pytest.approx(theirs[f"{measure}_ms"] / mine[f"{measure}_ms"])
    sqlite_baseline = stores["sqlite"]["healthz"]["p50_ms"]
    live = report["live"]
    assert live["frames"] > 0 and live["requests"] == live["frames"]
    assert live["healthz_times"] == pytest.approx(live["p50_ms"] / sqlite_baseline)
    assert live["met"] == (live["p95_ms"] <= TARGETS_MS["live"])
    with Store.open(db) as store:
        ids = [m.id for m in store.matches()]
    assert main(argv) == 0  # the same stores, used again
    again = json.loads(capsys.readouterr().out)
    assert not again["stores"]["sqlite"]["store_built"]
    assert not again["stores"]["postgresql"]["store_built"]
    assert again["stores"]["sqlite"]["storing"] is None and again["ratios"]["storing"] is None
    for where in (db, database):
        with Store.open(where) as store:
            assert [m.id for m in store.matches()] == ids


def _check_pages(store: dict[str, Any]) -> None:
    """One store's page figures: every kind, consistent with each other."""
    longs = set(store["pages"]) - PAGES
    assert set(store["pages"]) >= PAGES
    assert {kind.split()[2] for kind in longs} == {variant for variant, _ in LONG_MATCHES}
    assert {kind for kind in longs if not kind.endswith(WHOLE)} == {
        kind.removesuffix(WHOLE) for kind in longs if kind.endswith(WHOLE)
    }
    for kind in longs:  # one deal's frames hold fewer bytes than every deal's
        if not kind.endswith(WHOLE):
            assert store["pages"][kind]["bytes"] < store["pages"][kind + WHOLE]["bytes"]
            assert target_ms(kind) == TARGETS_MS["match page"] and kind in store["met"]
    baseline = store["healthz"]["p50_ms"]
    assert store["healthz"]["healthz_times"] == pytest.approx(1.0)
    for kind, figures in store["pages"].items():
        assert figures["requests"] == 3
        assert 0 < figures["p50_ms"] <= figures["p95_ms"]
        assert figures["healthz_times"] == pytest.approx(figures["p50_ms"] / baseline)
        if kind in TARGETS_MS:
            assert store["met"][kind] == (figures["p95_ms"] <= TARGETS_MS[kind])


def test_bench_web_measures_sqlite_alone_when_asked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[tuple[str, Path, dict[str, Any]]] = []
    argv = ["bench", "web", "--matches", "20", "--bots", "4", "--requests", "1"]
    with _watched_clusters(monkeypatch, seen):
        assert main([*argv, "--backends", "sqlite"]) == 0
    assert seen == []  # no cluster started
    out = capsys.readouterr().out
    assert out.startswith("web face: 4 bots, 20 matches on SQLite\n")
    lines = out.splitlines()
    assert not any("PostgreSQL" in line for line in lines)
    header = next(line for line in lines if line.startswith("  page "))
    assert header.split()[1:] == ["SQLite", "SQLite", "x", "healthz", "bytes", "target", "p95"]
    rows = {line[2:46].strip(): line[46:] for line in lines if line.startswith("  ")}
    (batched,) = _numbers(rows["batches of 1,000, one a transaction"])
    (alone,) = _numbers(rows["one match a transaction (as a server)"])
    assert batched > 0 and alone > 0
    p50, p95, times = _numbers(rows["leaderboard"])[:3]
    assert 0 < p50 <= p95 and times > 0


def test_postgresql_asked_for_where_none_can_start_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(
        bench_web_backends, "unavailable", lambda: "no PostgreSQL server here (no initdb)"
    )
    code = main(["bench", "web", "--matches", "10", "--bots", "4"])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "PostgreSQL is asked for (--backends sqlite,postgresql)" in err
    assert "no PostgreSQL server here (no initdb)" in err and "--backends sqlite" in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--bots", "3"], "--bots must be at least 4"),
        (["--bots", "many"], "--bots"),
        (["--requests", "0"], "--requests"),
        (["--backends", "mysql"], "--backends"),
        (["--postgres", "/tmp/x.sqlite"], "not a PostgreSQL URL"),
        (["--backends", "sqlite", "--postgres", "postgresql://a@b/c"], "leaves PostgreSQL out"),
    ],
)
def test_bench_web_refuses_bad_sizes_naming_the_option(
    extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        code = main(["bench", "web", "--matches", "10", *extra])
        raise SystemExit(code)
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip()
    assert message in err.splitlines()[-1] and "Traceback" not in err


def test_a_kept_store_of_other_sizes_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "kept.sqlite"
    with Store.open(db) as store:
        build_store(store, bots=4, matches=8, seed=1)
    code = main(["bench", "web", "--matches", "9", "--bots", "4", "--db", str(db)])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert "holds 8 matches and 4 bots" in err and len(err.splitlines()) == 1
