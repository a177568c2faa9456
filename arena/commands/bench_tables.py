"""``arena bench tables``: how soon a person at a table sees plays drawn, in a real browser.

A server with its web face runs in this process (a temporary store); headless Chromium
(Debian's ``chromium``, driven by Playwright) opens a table of ``--variant`` from the
form, the person against three ``first`` bots (they answer at once: no thinking time
counted), ``--deals`` deals. The person plays each decision's first listed action by a
click (the Shengji kitty buried in one gesture, its cards selected and one press; a
forced move left to the page, which plays it by itself), at a person's pace
(:data:`PACE`: the clicks do not wait for the table, which the delays measure). Two
delays are timed, on one clock (the machine's epoch time in milliseconds; browser and
server run on the same machine):

* *click → drawn*: from the click on the action (stamped in the page as it is
  dispatched) to the next paint after the felt drew the event of that action or a later
  one (``data-seq`` of the drawn table; the paint is the next animation frame). A
  decision whose action shows nothing on the table (a Shengji pass while the cards are
  dealt) is not counted;
* *bot → drawn*: from the moment the server made a bot's action public (a watcher on
  the match's session stamps each event as the session hands it to its spectators) to
  the next paint after the felt drew that event or a later one. Only the events of
  decisions count (:data:`DECISION_EVENTS`), not the dealing's.

The baseline, measured in the same run: the page's own round trip to the site
(``fetch('/healthz')``), the transport's floor. Target: both p95s at most
:data:`TARGET_MS`.
"""

from __future__ import annotations

import argparse
import re
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from arena.commands import print_json
from arena.commands.bench_grpc import percentile
from arena.commands.bench_web import _LoopThread, _quiet
from arena.errors import ArenaError
from arena.plural import counted
from arena.store import Store

if TYPE_CHECKING:
    from playwright.sync_api import Page

    from arena._proto.arena.v1 import arena_pb2
    from arena.server.session import MatchSession

__all__ = ["TARGET_MS", "BenchError", "measure_tables", "run_tables_bench"]

TARGET_MS: Final = 100.0
"""A play drawn for the person within this long, at the 95th percentile."""
BASELINE_FETCHES: Final = 50
DECISION_EVENTS: Final = frozenset({"play", "pass", "declare", "bury", "tribute", "return"})
"""The events a seat's decision makes (the others come from the dealing or the rules)."""
WAIT: Final = 30.0
PACE: Final = 0.15
"""Seconds at least between two clicks (the site allows a person 10 requests a second)."""

WATCH_DRAWS: Final = """() => {
  window.benchDraws = [];
  const table = document.getElementById('table');
  const now = () => performance.timeOrigin + performance.now();
  new MutationObserver(() => {
    const seq = Number(table.dataset.seq || 0);
    requestAnimationFrame(() => window.benchDraws.push([seq, now()]));
  }).observe(table, { attributes: true, attributeFilter: ['data-seq'] });
}"""
"""Installed in the seat page: each drawn event's number and the next paint's time."""
ACT: Final = """() => {
  const panel = document.getElementById('seat');
  const now = () => performance.timeOrigin + performance.now();
  const autoplay = document.getElementById('autoplay');
  if (panel.dataset.options === '1' && autoplay && autoplay.checked) {
    return null; // a forced move: the page plays it by itself
  }
  const count = document.getElementById('seat-count');
  if (panel.dataset.phase === 'bury' && count && !count.hidden) {
    // the kitty in one gesture: the cards the counter asks for, then one press
    const total = Number((count.textContent.match(/\\d+/g) || ['0']).pop());
    for (let index = 0; index < total; index += 1) {
      document.querySelector(`#my-hand .hand-card[data-index="${index}"]`).click();
    }
    const send = document.getElementById('send');
    if (send.disabled) {
      throw new Error(`the kitty's ${total} cards selected, the Bury button stays disabled`);
    }
    const at = now();
    send.click();
    return { at, gesture: true };
  }
  const button = document.querySelector('#legal .legal-action');
  if (!button) {
    throw new Error(`no action to click in phase ${panel.dataset.phase}`);
  }
  const at = now();
  button.click();
  return { at, gesture: false };
}"""
"""Act on the open decision as a person: the first listed action clicked, the kitty
buried in one gesture, a forced move left to the page (null); when it was clicked."""
FETCH_HEALTH: Final = """async (times) => {
  const took = [];
  for (let i = 0; i < times; i += 1) {
    const start = performance.now();
    await (await fetch('/healthz', { cache: 'no-store' })).text();
    took.push(performance.now() - start);
  }
  return took;
}"""


class BenchError(ArenaError):
    """The bench could not run (no browser, a table that did not start)."""


class _Published:
    """When the session handed each decision's event to its spectators (epoch ms), and
    whose decision it was."""

    def __init__(self) -> None:
        self.at: dict[int, tuple[float, int]] = {}
        self._lock = threading.Lock()

    def watcher(self, message: arena_pb2.WatchMessage | None) -> None:
        now = time.time() * 1000
        if message is not None and message.live and message.HasField("events"):
            with self._lock:
                for event in message.events.events:
                    if event.kind in DECISION_EVENTS:
                        self.at.setdefault(event.seq, (now, event.seat))

    def items(self) -> list[tuple[int, float, int]]:
        """(seq, time, seat) in the order of the events."""
        with self._lock:
            return sorted((seq, at, seat) for seq, (at, seat) in self.at.items())


async def _watch(session: MatchSession, published: _Published) -> int:
    """Stamp the session's events from now on; the person's seat (player 0's)."""
    session.watch(published.watcher, 0)
    held = session.hand_of(0)
    return held[0] if held is not None else 0


def _chromium() -> str:
    found = shutil.which("chromium")
    if found is None:
        raise BenchError("arena bench tables needs Chromium on PATH (Debian's chromium package)")
    return found


def _state(page: Page) -> tuple[str, str]:
    panel = page.locator("#seat")
    return panel.get_attribute("data-state") or "", panel.get_attribute("data-request") or ""


def _wait_turn(page: Page, after: str) -> str:
    deadline = time.monotonic() + WAIT
    while True:
        state, request = _state(page)
        if state == "over" or (state == "acting" and request and request != after):
            return state
        if time.monotonic() > deadline:
            refusal = page.locator("#refusal")
            said = "" if refusal.is_hidden() else f" ({refusal.inner_text()[:200]})"
            raise BenchError(f"the seat had no decision for {WAIT:.0f} s{said}")
        time.sleep(0.005)


def _play(page: Page) -> list[float]:
    """Play the table to its end by clicks, at most one every :data:`PACE` seconds (a
    person's pace, within the site's rate limit): each click's time (epoch ms). The
    kitty's cards, buried in one gesture, are sent by the page one decision each."""
    clicks: list[float] = []
    request = ""
    last = 0.0
    burying = False
    while _wait_turn(page, request) == "acting":
        request = _state(page)[1]
        phase = page.locator("#seat").get_attribute("data-phase") or ""
        if burying and phase == "bury":
            continue  # the gesture's cards, sent by the page
        burying = False
        time.sleep(max(0.0, last + PACE - time.monotonic()))
        last = time.monotonic()
        acted = page.evaluate(ACT)
        if acted is not None:
            clicks.append(float(acted["at"]))
            burying = bool(acted["gesture"])
    return clicks


def _drawn(draws: list[tuple[int, float]], seq: int, since: float) -> float | None:
    """The first paint, from ``since`` on, that showed event ``seq`` or a later one."""
    shown = [at for drawn, at in draws if drawn >= seq and at >= since]
    return min(shown) if shown else None


def _delays(
    clicks: list[float],
    draws: list[tuple[int, float]],
    published: list[tuple[int, float, int]],
    me: int,
) -> tuple[list[float], list[float]]:
    """Each click to the paint of its action's event (clicks whose action made none are
    left out); each bot decision's event to its paint."""
    click_ms = []
    for number, click in enumerate(clicks):
        until = clicks[number + 1] if number + 1 < len(clicks) else float("inf")
        own = [seq for seq, at, seat in published if seat == me and click <= at < until]
        drawn = _drawn(draws, own[0], click) if own else None
        if drawn is not None:
            click_ms.append(drawn - click)
    bot_ms = []
    for seq, at, seat in published:
        drawn = _drawn(draws, seq, at) if seat != me else None
        if drawn is not None:
            bot_ms.append(drawn - at)
    return click_ms, bot_ms


def _figures(ms: list[float], baseline: float) -> dict[str, Any]:
    p50, p95 = percentile(ms, 0.5), percentile(ms, 0.95)
    return {
        "count": len(ms),
        "p50_ms": p50,
        "p95_ms": p95,
        "max_ms": max(ms),
        "p50_baselines": p50 / baseline,
        "met": p95 <= TARGET_MS,
    }


def measure_tables(variant: str, deals: int) -> dict[str, Any]:
    """Play a table in the browser; the two delays' figures and the baseline (JSON-ready)."""
    from playwright.sync_api import sync_playwright

    from arena.server.app import start_server
    from arena.server.play import PlayConfig

    chromium = _chromium()
    with (
        _quiet("arena", "uvicorn"),
        tempfile.TemporaryDirectory(prefix="arena-bench-tables-") as folder,
    ):
        store = Store.open(Path(folder) / "tables.sqlite")
        server = _LoopThread()
        try:
            running = server.run(
                start_server(store, port=0, web_port=0, play=PlayConfig(max_deals=deals))
            )
            try:
                with sync_playwright() as playwright:
                    browser = playwright.chromium.launch(executable_path=chromium, headless=True)
                    try:
                        page = browser.new_page(viewport={"width": 1280, "height": 900})
                        table = _open(page, f"http://127.0.0.1:{running.web_port}", variant)
                        session = running.play.sessions.get(table)
                        if session is None:
                            raise BenchError(f"table {table} is not being played")
                        published = _Published()
                        me = server.run(_watch(session, published))
                        page.evaluate(WATCH_DRAWS)
                        clicks = _play(page)
                        time.sleep(0.2)  # the last paints
                        draws = [(int(s), float(t)) for s, t in page.evaluate("window.benchDraws")]
                        baseline = percentile(page.evaluate(FETCH_HEALTH, BASELINE_FETCHES), 0.5)
                    finally:
                        browser.close()
            finally:
                server.run(running.stop(0, drain=0))
        finally:
            server.close()
            store.close()
    click_ms, bot_ms = _delays(clicks, draws, published.items(), me)
    if not click_ms or not bot_ms:
        raise BenchError("no play was seen drawn: the table did not move")
    return {
        "variant": variant,
        "deals": deals,
        "decisions": len(clicks),
        "baseline_ms": baseline,
        "click_to_drawn": _figures(click_ms, baseline),
        "bot_to_drawn": _figures(bot_ms, baseline),
        "target_ms": TARGET_MS,
    }


def _open(page: Page, url: str, variant: str) -> str:
    """Open the table from the form; its id."""
    page.goto(f"{url}/tables/new?lang=en")
    page.fill("input[name=name]", "bench")
    page.select_option("select[name=variant]", variant)
    page.select_option("select[name=deals]", "match")  # the server plays ``deals``
    for number in (1, 2, 3):
        page.fill(f"input[name=seat{number}]", "first")
    page.click("#open-table button[type=submit]")
    page.wait_for_url(re.compile(r".*/tables/table-"), timeout=WAIT * 1000)
    return page.url.split("/tables/")[1].split("#")[0]


def run_tables_bench(args: argparse.Namespace) -> int:
    """``arena bench tables``."""
    report = measure_tables(args.variant, args.deals)
    if args.json:
        print_json(report)
        return 0
    print(
        f"{report['variant']}: a person (clicks in headless Chromium) against three 'first' "
        f"bots, {counted(report['decisions'], 'decision')} of the person"
    )
    print(f"  baseline: the page's round trip to /healthz, p50 {report['baseline_ms']:.1f} ms")
    for key, words in (
        ("click_to_drawn", "click → play drawn"),
        ("bot_to_drawn", "bot's play → drawn"),
    ):
        figures = report[key]
        verdict = "met" if figures["met"] else "NOT met"
        print(
            f"  {words}: p50 {figures['p50_ms']:.1f} ms, p95 {figures['p95_ms']:.1f} ms, "
            f"max {figures['max_ms']:.1f} ms over {figures['count']} "
            f"({figures['p50_baselines']:.1f}x the baseline; target p95 ≤ "
            f"{TARGET_MS:.0f} ms: {verdict})"
        )
    return 0
