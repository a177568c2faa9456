"""The report of ``arena bench web``: each store's figures, PostgreSQL's as ratios of
SQLite's measured in the same run, and the table printed.

Per store: the matches stored per second (the store's own time, in batches and one a
transaction; absent when a kept store was reused), and for each kind of page the p50
and p95 of its answer times, their ratio to ``/healthz`` (the same app doing nothing)
and the bytes of its answers. Then ``ratios``: PostgreSQL's figure over SQLite's, for
each (above 1: PostgreSQL stores more matches a second, or takes longer to answer).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from arena.commands.bench_grpc import percentile
from arena.commands.bench_web_backends import NAMES, POSTGRESQL, SQLITE
from arena.plural import counted

TARGETS_MS: Final = {
    "leaderboard": 100.0,
    "matches": 100.0,
    "matches by variant": 100.0,
    "matches by bot": 100.0,
    "matches deep page": 100.0,
    "matches text search": 100.0,
    "matches broad text search": 100.0,
    "matches result and dates": 100.0,
    "match page": 150.0,
    "live": 100.0,
}
"""p95 targets (the issue's): lists and leaderboards 100 ms, a match page 150 ms, a live
table 100 ms after the engine applied the event."""
WHOLE: Final = ", deal=all"
"""The end of a long match's kind of page holding every deal's frames (no target: the
page as it was before it carried one deal)."""
STORING: Final = ("batched", "one_per_transaction")


def target_ms(kind: str) -> float | None:
    """A kind of page's p95 target: a long match's page is a match page."""
    if kind in TARGETS_MS:
        return TARGETS_MS[kind]
    if kind.startswith("match page, ") and not kind.endswith(WHOLE):
        return TARGETS_MS["match page"]
    return None


@dataclass
class Timings:
    """Seconds per request and the bytes of each answer, per kind of page."""

    seconds: dict[str, list[float]] = field(default_factory=dict)
    sizes: dict[str, list[int]] = field(default_factory=dict)

    def add(self, kind: str, seconds: float, size: int = 0) -> None:
        self.seconds.setdefault(kind, []).append(seconds)
        self.sizes.setdefault(kind, []).append(size)


def figures(
    seconds: list[float], baseline: float, sizes: list[int] | None = None
) -> dict[str, Any]:
    """Requests, p50 and p95 (ms), p50 over ``baseline`` (ms), the answers' median bytes."""
    p50, p95 = percentile(seconds, 0.5) * 1000, percentile(seconds, 0.95) * 1000
    found: dict[str, Any] = {
        "requests": len(seconds),
        "p50_ms": p50,
        "p95_ms": p95,
        "healthz_times": p50 / baseline,
    }
    if sizes:
        found["bytes"] = int(percentile([float(size) for size in sizes], 0.5))
    return found


def _ratio(base: float | None, other: float | None) -> float | None:
    return other / base if base and other is not None else None


def store_report(opened: dict[str, Any], timings: Timings) -> dict[str, Any]:
    """One store's figures: how it was opened (``opened``) and its pages'."""
    baseline = percentile(timings.seconds["healthz"], 0.5) * 1000
    pages = {
        kind: figures(seconds, baseline, timings.sizes.get(kind))
        for kind, seconds in timings.seconds.items()
        if kind != "healthz"
    }
    return {
        **opened,
        "healthz": figures(timings.seconds["healthz"], baseline),
        "pages": pages,
        "met": {
            kind: found["p95_ms"] <= target
            for kind, found in pages.items()
            if (target := target_ms(kind)) is not None
        },
    }


def ratios(base: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """``other``'s figures over ``base``'s: matches stored per second, pages' p50 and p95."""
    storing = None
    if base["storing"] is not None and other["storing"] is not None:
        storing = {
            key: _ratio(base["storing"][key]["per_second"], other["storing"][key]["per_second"])
            for key in STORING
        }
    rows = {"healthz": (base["healthz"], other["healthz"])}
    rows.update(
        (kind, (found, other["pages"][kind]))
        for kind, found in base["pages"].items()
        if kind in other["pages"]
    )
    pages = {
        kind: {
            "p50": _ratio(mine["p50_ms"], theirs["p50_ms"]),
            "p95": _ratio(mine["p95_ms"], theirs["p95_ms"]),
        }
        for kind, (mine, theirs) in rows.items()
    }
    return {"storing": storing, "pages": pages}


def report(
    bots: int,
    matches: int,
    stores: dict[str, dict[str, Any]],
    live: list[float] | None,
) -> dict[str, Any]:
    """The whole report: every store's figures, the ratios of PostgreSQL's to SQLite's
    when both were measured, the live table's delay (against the first store's
    ``/healthz``)."""
    found: dict[str, Any] = {
        "bots": bots,
        "matches": matches,
        "backends": list(stores),
        "stores": stores,
        "ratios": None,
        "ratios_of": f"{POSTGRESQL} / {SQLITE}",
        "live": None,
        "targets_p95_ms": TARGETS_MS,
    }
    if SQLITE in stores and POSTGRESQL in stores:
        found["ratios"] = ratios(stores[SQLITE], stores[POSTGRESQL])
    if live is not None:
        first = next(iter(stores.values()))
        found["live"] = {
            **figures(live, first["healthz"]["p50_ms"]),
            "frames": len(live),
            "met": percentile(live, 0.95) * 1000 <= TARGETS_MS["live"],
        }
    return found


# ---------------------------------------------------------------------------
# The printed table

KIND_WIDTH: Final = 44
"""The printed tables' first column."""
RATIO: Final = "ratio"


def _number(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def _per_second(storing: dict[str, Any] | None, key: str) -> float | None:
    return None if storing is None else storing[key]["per_second"]


def _store_line(name: str, store: dict[str, Any]) -> str:
    built = "store built in" if store["store_built"] else "store reused, opened in"
    return f"  {NAMES[name]}: {store['where']}; {built} {store['store_seconds']:.1f} s"


def _storing_lines(found: dict[str, Any]) -> list[str]:
    stores, names = found["stores"], found["backends"]
    ratios = found["ratios"]
    with_ratio = ratios is not None
    batch = next((store["storing"] for store in stores.values() if store["storing"]), None)
    lines = [
        f"  {'matches stored per second, with ratings':<{KIND_WIDTH}}"
        + "".join(f"{NAMES[name]:>12}" for name in names)
        + (f"{RATIO:>8}" if with_ratio else "")
    ]
    size = "" if batch is None else f" of {batch['batch']:,}"
    labels = {
        "batched": f"batches{size}, one a transaction",
        "one_per_transaction": "one match a transaction (as a server)",
    }
    for key in STORING:
        row = f"    {labels[key]:<{KIND_WIDTH - 2}}" + "".join(
            f"{_number(_per_second(stores[name]['storing'], key), 0):>12}" for name in names
        )
        if with_ratio:
            storing = ratios["storing"]
            row += f"{_number(None if storing is None else storing[key]):>8}"
        lines.append(row)
    reused = [NAMES[name] for name in names if stores[name]["storing"] is None]
    if reused:
        lines.append(f"    ({' and '.join(reused)}: a kept store reused, nothing stored: —)")
    return lines


def _page_lines(found: dict[str, Any]) -> list[str]:
    """The pages' table: p50 and p95 on each store, with PostgreSQL's ratios to SQLite's
    (one store alone: its p50's ratio to its ``/healthz``), the bytes and the targets."""
    stores, names, ratios = found["stores"], found["backends"], found["ratios"]
    header = "".join(f"{NAMES[name]:>12}" for name in names)
    group = 12 * len(names)
    if ratios is not None:
        header, group = header + f"{RATIO:>8}", group + 8
    tail = "" if ratios is not None else f"{'x healthz':>11}"
    verdicts = f" ({' / '.join(NAMES[name] for name in names)})" if len(names) > 1 else ""
    lines = [
        f"  {'':<{KIND_WIDTH}}{'p50 ms':^{group}}{'p95 ms':^{group}}",
        f"  {'page':<{KIND_WIDTH}}{header}{header}{tail}{'bytes':>11}  target p95{verdicts}",
    ]
    rows = [("/healthz (baseline)", "healthz", {n: stores[n]["healthz"] for n in names})]
    rows += [
        (kind, kind, {n: stores[n]["pages"][kind] for n in names})
        for kind in stores[names[0]]["pages"]
    ]
    for shown, kind, per_store in rows:
        cells = ""
        for measure in ("p50", "p95"):
            cells += "".join(f"{per_store[n][f'{measure}_ms']:12.2f}" for n in names)
            if ratios is not None:
                cells += f"{_number(ratios['pages'][kind][measure]):>8}"
        if ratios is None:
            cells += f"{per_store[names[0]]['healthz_times']:11.1f}"
        size = per_store[names[0]].get("bytes")
        target = target_ms(kind)
        verdict = ""
        if target is not None:
            verdict = f"≤ {target:.0f}: " + " / ".join(
                "met" if stores[n]["met"][kind] else "NOT met" for n in names
            )
        lines.append(
            f"  {shown:<{KIND_WIDTH}}{cells}{'' if size is None else f'{size:,}':>11}  {verdict}"
        )
    return lines


def print_report(found: dict[str, Any]) -> None:
    """The report as tables: the stores, matches stored per second, then the pages."""
    names = found["backends"]
    ratios = (
        f"; ratios: {NAMES[POSTGRESQL]} / {NAMES[SQLITE]}, measured in the same run"
        if found["ratios"] is not None
        else ""
    )
    print(
        f"web face: {counted(found['bots'], 'bot')}, {counted(found['matches'], 'match')} "
        f"on {' and '.join(NAMES[name] for name in names)}{ratios}"
    )
    for name in names:
        print(_store_line(name, found["stores"][name]))
    for line in _storing_lines(found):
        print(line)
    print("  pages: time at the server, in process")
    for line in _page_lines(found):
        print(line)
    live = found["live"]
    if live is not None:
        verdict = "met" if live["met"] else "NOT met"
        print(
            f"  live table (event -> frame): p50 {live['p50_ms']:.2f} ms, p95 "
            f"{live['p95_ms']:.2f} ms, {live['healthz_times']:.1f} x {NAMES[names[0]]}'s "
            f"healthz; ≤ {TARGETS_MS['live']:.0f}: {verdict}\n"
            f"    {live['frames']} event batches of a running guandan match (a server on a "
            "temporary SQLite store), from the session's hand-over to spectators to the SSE "
            "frame's arrival"
        )
    if any(kind.endswith(WHOLE) for kind in found["stores"][names[0]]["pages"]):
        print(
            "  long matches (match page, VARIANT N deals): first views, one deal's frames; "
            f"'{WHOLE[2:]}': the same pages with every deal's frames"
        )
