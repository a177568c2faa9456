"""End to end with a real Prometheus (Debian's ``prometheus``, installed by ``.ci/run``):
it scrapes the arena's ``/metrics`` while matches are played, and its HTTP API then
answers with the deals counter and the bots' Elo; the web board's queries answer from a
server whose web face was asked pages.

The tests wait for one thing only, a scrape that started after the matches were over;
the values that scrape took are then final and compared at once, so a wrong value fails
with the value seen rather than as a wait that timed out. The metrics are the process's
(other tests count deals too): the deals counted are compared with the count before."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from arena.metrics import DEALS_FINISHED, REGISTRY, start_metrics_server
from arena.sim import Runner, TournamentConfig, plan
from arena.sim.league import League
from arena.store import Store

PROMETHEUS = shutil.which("prometheus")
pytestmark = pytest.mark.skipif(PROMETHEUS is None, reason="prometheus not installed")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


@contextmanager
def prometheus(target_port: int, workdir: Path) -> Iterator[str]:
    """A Prometheus scraping ``127.0.0.1:target_port`` every half second; yields its URL."""
    assert PROMETHEUS is not None
    config = workdir / "prometheus.yml"
    config.write_text(
        "global:\n  scrape_interval: 500ms\n  evaluation_interval: 500ms\n"
        "scrape_configs:\n  - job_name: arena\n    static_configs:\n"
        f"      - targets: ['127.0.0.1:{target_port}']\n"
    )
    port = free_port()
    log = (workdir / "prometheus.log").open("w")
    process = subprocess.Popen(
        [
            PROMETHEUS,
            f"--config.file={config}",
            f"--storage.tsdb.path={workdir / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: _ready(url), 30, f"Prometheus at {url} (log: {log.name})")
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/-/ready", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, ConnectionError):
        return False


def wait_for(check: Callable[[], Any], seconds: float, what: str) -> Any:
    """Poll ``check`` until it returns something true (an event: Prometheus ready, a
    scrape done); a timeout names what was awaited."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what}")


def query(url: str, promql: str) -> list[dict[str, Any]]:
    """An instant query through the HTTP API: its vector result."""
    answer = get_json(f"{url}/api/v1/query?" + urllib.parse.urlencode({"query": promql}))
    assert answer["status"] == "success", answer
    result: list[dict[str, Any]] = answer["data"]["result"]
    return result


def scraped_after(url: str, target: str, since: float) -> None:
    """Wait until Prometheus has scraped ``target`` (host:port) successfully in a scrape
    that started after ``since`` (a ``time.time()``): what it took then is final.
    Prometheus may shift a scrape's timestamp by up to 2 ms to align it: 10 ms more."""
    up = f'up{{job="arena", instance="{target}"}}'
    successful = f"timestamp({up}) * {up}"  # the last scrape's start, 0 if it failed
    after = since + 0.01
    last: list[float] = []

    def done() -> bool:
        last[:] = [float(s["value"][1]) for s in query(url, successful)]
        return any(start > after for start in last)

    try:
        wait_for(done, 30, f"a successful scrape of {target} after {after:.3f}")
    except AssertionError as timeout:
        raise AssertionError(f"{timeout}; {successful} was {last}") from None


def value(url: str, promql: str) -> float:
    """The one sample ``promql`` answers with now (fails naming what it answered)."""
    result = query(url, promql)
    assert len(result) == 1, f"{promql}: expected one sample, got {result}"
    return float(result[0]["value"][1])


def values_by_bot(url: str, promql: str) -> dict[str, float]:
    """Each sample ``promql`` answers with now, by its ``bot`` label."""
    return {s["metric"]["bot"]: float(s["value"][1]) for s in query(url, promql)}


def deals_counted(variant: str) -> float:
    """The deals this process has counted so far in ``variant`` (every outcome)."""
    return sum(
        sample.value
        for family in DEALS_FINISHED.collect()
        for sample in family.samples
        if sample.name == "arena_deals_finished_total" and sample.labels["variant"] == variant
    )


@pytest.mark.usefixtures("ray_session")
def test_prometheus_scrapes_deals_and_elo_published_by_a_tournament_driver(
    tmp_path: Path,
) -> None:
    config = TournamentConfig.from_mapping(
        {"name": "scraped", "bots": ["random", "first"], "matches": 4, "deals": 1}
    )
    endpoint = start_metrics_server(0)
    try:
        with (
            prometheus(endpoint.port, tmp_path) as url,
            Store.open(tmp_path / "t.sqlite") as store,
        ):
            store.add_tournament(config.id, config.name, config.variant, {}, {})
            for bot in ("random", "first"):
                store.add_bot(bot, "builtin")
            league = League(store, config.variant)
            before = deals_counted(config.variant)
            deals = 0
            with Runner() as runner:
                for report in runner.run(plan(config), batch_size=2):
                    league.add(report, config.id)
                    deals += report.deals
            assert deals == 4
            scraped_after(url, f"127.0.0.1:{endpoint.port}", time.time())
            counted = 'sum(arena_deals_finished_total{job="arena", variant="guandan"})'
            assert value(url, counted) == before + deals
            elo = 'arena_rating_elo{job="arena", variant="guandan", bot=~"random|first"}'
            assert values_by_bot(url, elo) == pytest.approx(league.elo)
    finally:
        endpoint.stop()


def test_prometheus_scrapes_a_running_server_while_bots_play(tmp_path: Path) -> None:
    import grpc
    from test_client import Lowest
    from test_server import OTHER_KEY, OWNER_KEY, ServerThread, register

    from arena.client import run_bot_async
    from arena.server.play import PlayConfig

    with Store.open(tmp_path / "served.sqlite") as store:
        server = ServerThread(store, play=PlayConfig(max_deals=2), metrics_port=0)
        try:
            port = server.running.port
            with prometheus(server.running.metrics_port, tmp_path) as url:
                with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                    names = ["e2e-ada-1", "e2e-grace-1", "e2e-ada-2", "e2e-grace-2"]
                    keys = [OWNER_KEY, OTHER_KEY, OWNER_KEY, OTHER_KEY]
                    tokens = [
                        register(channel, n, k).token for n, k in zip(names, keys, strict=True)
                    ]

                before = deals_counted("shengji-1")

                async def four() -> None:
                    await asyncio.gather(
                        *(
                            run_bot_async(
                                Lowest(), f"127.0.0.1:{port}", token, ["shengji-1"], matches=1
                            )
                            for token in tokens
                        )
                    )

                asyncio.run(asyncio.wait_for(four(), 120))
                # the server counts a match before it sends its result
                scraped_after(url, f"127.0.0.1:{server.running.metrics_port}", time.time())
                counted = 'sum(arena_deals_finished_total{variant="shengji-1"})'
                played = sum(match.deals for match in store.matches())
                assert played == 2  # one match, PlayConfig(max_deals=2)
                assert value(url, counted) == before + played
                stored = {r.bot: r.value for r in store.ratings("shengji-1", "elo")}
                assert sorted(stored) == sorted(names)
                elo = 'arena_rating_elo{variant="shengji-1", bot=~"e2e-.*"}'
                assert values_by_bot(url, elo) == pytest.approx(stored)
        finally:
            server.close()


def test_the_web_board_answers_from_a_server_serving_its_web_face(tmp_path: Path) -> None:
    """Every query of the web board, run by Prometheus against a server whose web face
    answered pages (and a 404), gives series by route and status; 5xx: none, share 0."""
    import httpx
    from test_server import ServerThread

    board = json.loads((Path(__file__).parent.parent / "dashboards/web.json").read_text())
    queries = {
        panel["title"]: re.sub(
            r"\$\{?__rate_interval\}?", "1m", panel["targets"][0]["expr"]
        ).replace("$route", ".*")
        for panel in board["panels"]
    }

    def counted(route: str, status: str) -> float:
        labels = {"route": route, "method": "GET", "status": status}
        return REGISTRY.get_sample_value("arena_web_requests_total", labels) or 0.0

    with Store.open(tmp_path / "web.sqlite") as store:
        server = ServerThread(store, metrics_port=0, web_port=0)
        try:
            target = f"127.0.0.1:{server.running.metrics_port}"
            web = f"http://127.0.0.1:{server.running.web_port}"
            before = counted("/leaderboard", "200")
            with prometheus(server.running.metrics_port, tmp_path) as url:
                for _ in range(2):  # two scrapes apart: each counter increases between them
                    for path, status in (("/leaderboard", 200), ("/bots/nobody", 404)):
                        assert httpx.get(web + path, timeout=30).status_code == status
                    scraped_after(url, target, time.time())
                answers = {title: query(url, promql) for title, promql in queries.items()}
                total = value(url, 'sum(arena_web_requests_total{route="/leaderboard"})')
        finally:
            server.close()
    assert total == before + 2
    by_route = {
        (s["metric"]["route"], s["metric"]["status"])
        for s in answers["Requests per second by route and status"]
    }
    assert {("/leaderboard", "200"), ("/bots/{name}", "404")} <= by_route
    for title in ("Latency p95 by route", "Latency p50 by route"):
        assert {s["metric"]["route"] for s in answers[title]} >= {"/leaderboard", "/bots/{name}"}
    assert {s["metric"]["status"] for s in answers["Client errors (4xx) per second"]} == {"404"}
    assert answers["Server errors (5xx) per second by route"] == []
    [share] = answers["Share of requests answered 5xx"]
    assert float(share["value"][1]) == 0.0
