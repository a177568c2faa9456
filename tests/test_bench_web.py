"""``arena bench web``: a small store built of real matches that re-play, every kind of
page timed through the site, the live table's delay measured on a real server, the
figures consistent with each other, a kept store reused, bad sizes refused with a line
naming the option."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli import main
from arena.commands.bench_web import (
    BROAD_TEXTS,
    LONG_MATCHES,
    TARGETS_MS,
    VARIANTS,
    WHOLE,
    build_store,
    long_numbers,
    target_ms,
)
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
        build_store(store, bots=6, matches=40, seed=3)
        assert len(store.bots()) == 6 and store.count_matches() == 40
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


def test_bench_web_prints_its_table(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "web", "--matches", "48", "--bots", "8", "--requests", "2"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("web face: 8 bots, 48 matches")
    lines = out.splitlines()
    assert any(line.strip().startswith("/healthz (baseline)") for line in lines)
    rows = {line[2:46].rstrip(): line[46:] for line in lines[2:] if line.startswith("  ")}
    longs = [kind for kind in rows if kind.startswith("match page, ")]
    assert len(longs) == 2 * len(LONG_MATCHES), "each long match: one deal, and every deal"
    for kind in [*PAGES, *longs, "live (event -> frame)"]:
        line = rows[kind]
        figures = line.split()
        p50, p95, times = (float(figures[i]) for i in range(3))
        assert 0 < p50 <= p95 and times > 0
        if kind != "bot page" and not kind.endswith(WHOLE):
            assert "met" in line


def test_bench_web_json_figures_agree_and_a_kept_store_is_reused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "kept.sqlite"
    argv = ["bench", "web", "--matches", "30", "--bots", "5", "--requests", "3"]
    assert main([*argv, "--db", str(db), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["bots"], report["matches"]) == (5, 30)
    longs = set(report["pages"]) - PAGES
    assert {kind.split()[2] for kind in longs} == {variant for variant, _ in LONG_MATCHES}
    assert {kind for kind in longs if not kind.endswith(WHOLE)} == {
        kind.removesuffix(WHOLE) for kind in longs if kind.endswith(WHOLE)
    }
    for kind in longs:  # one deal's frames hold fewer bytes than every deal's
        if not kind.endswith(WHOLE):
            assert report["pages"][kind]["bytes"] < report["pages"][kind + WHOLE]["bytes"]
            assert target_ms(kind) == TARGETS_MS["match page"] and kind in report["met"]
    baseline = report["healthz"]["p50_ms"]
    assert report["healthz"]["healthz_times"] == pytest.approx(1.0)
    for kind, figures in [*report["pages"].items(), ("live", report["live"])]:
        assert figures["requests"] == (3 if kind != "live" else figures["frames"])
        assert 0 < figures["p50_ms"] <= figures["p95_ms"]
        assert figures["healthz_times"] == pytest.approx(figures["p50_ms"] / baseline)
        if kind in TARGETS_MS:
            assert report["met"][kind] == (figures["p95_ms"] <= TARGETS_MS[kind])
    assert report["live"]["frames"] > 0
    with Store.open(db) as store:
        ids = [m.id for m in store.matches()]
    assert report["store_built"]
    assert main([*argv, "--db", str(db), "--json"]) == 0  # the same store, used again
    assert not json.loads(capsys.readouterr().out)["store_built"]
    with Store.open(db) as store:
        assert [m.id for m in store.matches()] == ids


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--bots", "3"], "--bots must be at least 4"),
        (["--bots", "many"], "--bots"),
        (["--requests", "0"], "--requests"),
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
