"""The Node.js bot (bots/node) plays on a real server beside Python SDK bots.

The protocol is language-neutral: a bot written against the .proto alone, in another
language, joins, answers decisions and finishes matches that are stored like any other.
Skipped only when ``node`` is not installed (on CI a failure: .ci/run installs Node.js);
the bot's npm packages are installed with ``npm ci`` when missing or older than its
package-lock.json.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
from asyncio import FIRST_COMPLETED
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from test_server import OTHER_KEY, OWNER_KEY, ServerThread, register
from test_server_play import PlayServer

from arena.client import Bot, RunSummary, run_bot_async
from arena.games.base import Action, Observation
from arena.server.play import PlayConfig
from arena.store import Store

ROOT = Path(__file__).resolve().parent.parent
NODE_DIR = ROOT / "bots" / "node"
BOT_JS = NODE_DIR / "bot.js"
NODE = shutil.which("node")
TIMEOUT = float(os.environ.get("NODE_BOT_TEST_TIMEOUT", "240"))

pytestmark = pytest.mark.skipif(NODE is None, reason="node (Node.js) is not installed")


class FirstLegal(Bot):
    """The Python partners and opponents: the first legal action."""

    def act(self, observation: Observation) -> Action | str:
        return observation.legal_actions[0]


@pytest.fixture(scope="module")
def node_modules() -> Path:
    """bots/node/node_modules, installed by ``npm ci`` when missing or stale."""
    stamp = NODE_DIR / "node_modules" / ".package-lock.json"
    lock = NODE_DIR / "package-lock.json"
    if not stamp.exists() or stamp.stat().st_mtime < lock.stat().st_mtime:
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("node is installed but npm is not: cannot install bots/node's packages")
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=NODE_DIR,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, f"npm ci in {NODE_DIR} failed:\n{done.stdout}{done.stderr}"
    return NODE_DIR / "node_modules"


class FullMatchServer(ServerThread):
    """A server playing whole matches (no deal limit)."""

    def __init__(self, store: Store) -> None:
        super().__init__(store, play=PlayConfig(max_deals=None))


@pytest.fixture(scope="module")
def full_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, int]]:
    with Store.open(tmp_path_factory.mktemp("node-full") / "arena.sqlite") as store:
        running = FullMatchServer(store)
        yield store, running.running.port
        running.close()


@pytest.fixture(scope="module")
def short_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, int]]:
    """Matches of at most two deals (PlayConfig.max_deals)."""
    with Store.open(tmp_path_factory.mktemp("node-short") / "arena.sqlite") as store:
        running = PlayServer(store)
        yield store, running.running.port
        running.close()


@dataclass
class NodeRun:
    returncode: int
    stdout: str
    stderr: str


async def run_node(*args: str, env: dict[str, str] | None = None) -> NodeRun:
    assert NODE is not None
    process = await asyncio.create_subprocess_exec(
        NODE,
        str(BOT_JS),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), TIMEOUT)
    except TimeoutError:
        process.kill()
        out, err = await process.communicate()
        pytest.fail(f"the Node bot did not finish:\n{out.decode()}{err.decode()}")
    assert process.returncode is not None
    return NodeRun(process.returncode, out.decode(), err.decode())


def node_register(port: int, name: str, key: str = OWNER_KEY) -> NodeRun:
    """``node bot.js --register NAME``: Registry.Register from Node."""
    server = f"127.0.0.1:{port}"
    return asyncio.run(run_node("--register", name, "--owner-key", key, "--server", server))


def four_tokens(port: int, prefix: str) -> tuple[str, list[str]]:
    """Register the Node bot (owner ada, by the Node bot itself) and three Python bots;
    rated seating makes the Node bot and the other ada bot partners."""
    registered = node_register(port, f"{prefix}-node")
    assert registered.returncode == 0, registered.stderr
    assert f"registered {prefix}-node (bot id " in registered.stderr
    node = registered.stdout.strip()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        python = [
            register(channel, f"{prefix}-py-ada").token,
            register(channel, f"{prefix}-py-grace-1", OTHER_KEY).token,
            register(channel, f"{prefix}-py-grace-2", OTHER_KEY).token,
        ]
    return node, python


def play_matches(
    port: int, variants: list[str], prefix: str, *node_args: str
) -> tuple[NodeRun, list[list[RunSummary]]]:
    """The Node bot joins every variant of ``variants`` for as many rated matches; the
    three Python SDK bots join one variant after the other, one match each."""
    node_token, tokens = four_tokens(port, prefix)

    async def together() -> tuple[NodeRun, list[list[RunSummary]]]:
        async def python() -> list[list[RunSummary]]:
            rounds = []
            for variant in variants:
                summaries = await asyncio.gather(
                    *(
                        run_bot_async(FirstLegal(), f"127.0.0.1:{port}", t, [variant], matches=1)
                        for t in tokens
                    )
                )
                rounds.append(list(summaries))
            return rounds

        node = run_node(
            "--server",
            f"127.0.0.1:{port}",
            *(arg for variant in variants for arg in ("--variant", variant)),
            "--matches",
            str(len(variants)),
            "--seed",
            "7",
            *node_args,
            env={"ARENA_BOT_TOKEN": node_token},
        )
        node_task = asyncio.ensure_future(node)
        python_task = asyncio.ensure_future(python())
        # the Node bot's own timeout comes first, so that its output is shown
        await asyncio.wait(
            {node_task, python_task}, timeout=TIMEOUT + 15, return_when=FIRST_COMPLETED
        )
        if node_task.done() and not python_task.done():
            # the Python bots get the same last MatchResult: a Node bot gone long before
            # them failed, and they wait for a fourth player that never comes
            try:
                await asyncio.wait_for(asyncio.shield(python_task), 30)
            except TimeoutError:
                python_task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await python_task
                run = node_task.result()
                pytest.fail(
                    f"the Node bot exited ({run.returncode}) before its matches were over:\n"
                    f"{run.stdout}\n{run.stderr}"
                )
        return await asyncio.wait_for(asyncio.gather(node_task, python_task), TIMEOUT + 15)

    return asyncio.run(together())


def check_match(
    store: Store, variant: str, prefix: str, node: NodeRun, summaries: list[RunSummary]
) -> None:
    """The match finished and was stored with the Node bot seated; the Node bot said so."""
    match_ids = {s.results[0].match_id for s in summaries}
    assert len(match_ids) == 1
    match_id = match_ids.pop()
    assert match_id.startswith(f"rated-{variant}-")
    stored = store.match(match_id)
    assert stored is not None
    assert f"{prefix}-node" in stored.seating
    result = summaries[0].results[0].result
    assert stored.deals == result.deals >= 1
    assert f"{prefix}-node" in {c.bot for c in result.rating_changes}

    lines = node.stdout.splitlines()
    assert f"match {match_id} ({variant}) starts: player " in node.stdout
    line = next(x for x in lines if x.startswith(f"match {match_id} ") and "totals" in x)
    assert f"({variant})" in line and f"{result.deals} deals" in line
    assert f"totals {' '.join(str(t) for t in result.totals)}" in line
    assert f"as player {stored.seating.index(f'{prefix}-node')}:" in line


def count(pattern: str, text: str) -> int:
    found = re.search(pattern, text)
    assert found is not None, f"{pattern!r} not in {text!r}"
    return int(found.group(1))


def check_run(node: NodeRun, prefix: str, played: str) -> str:
    """The Node process exited 0 with its summary line; nothing timed out or failed."""
    assert node.returncode == 0, f"exit {node.returncode}:\n{node.stdout}\n{node.stderr}"
    summary = node.stdout.splitlines()[-1]
    assert summary.startswith(f"{prefix}-node: {played}; "), summary
    assert count(r"; (\d+) decisions", summary) > 0
    assert ", 0 timed out" in summary
    assert "error" not in node.stderr.lower(), node.stderr
    return summary


def test_node_bot_plays_a_whole_guandan_match(
    node_modules: Path, full_server: tuple[Store, int]
) -> None:
    store, port = full_server
    node, rounds = play_matches(port, ["guandan"], "gd")
    check_run(node, "gd", "1 match played (guandan 1)")
    check_match(store, "guandan", "gd", node, rounds[0])
    result = rounds[0][0].results[0].result
    assert result.reason == 1 and result.HasField("winner_team")  # END_REASON_COMPLETE
    assert " wins after " in node.stdout and "[END_REASON_COMPLETE]" in node.stdout


def test_node_bot_plays_shengji_and_sanfu_from_sampled_lists(
    node_modules: Path, short_server: tuple[Store, int]
) -> None:
    """Shengji with three decks and sanfu send incomplete legal lists: the bot plays one
    of the listed sample actions, and every one is accepted. One run, two matches."""
    store, port = short_server
    variants = ["shengji-3", "sanfu"]
    node, rounds = play_matches(port, variants, "sjsf", "--verbose")
    summary = check_run(node, "sjsf", "2 matches played (sanfu 1, shengji-3 1)")
    for variant, summaries in zip(variants, rounds, strict=True):
        check_match(store, variant, "sjsf", node, summaries)
        assert summaries[0].results[0].result.deals == 2  # PlayConfig(max_deals=2)
    sampled = count(r"(\d+) from sampled legal lists", summary)
    assert sampled == node.stdout.count(" (from a sample)\n")
    # a few chances in a million that one seat sees no incomplete list in these four deals
    assert sampled > 0
    assert ", 0 retries after refusals" in summary and " retry " not in node.stdout


def test_node_bot_refused_token_and_unreachable_server(
    node_modules: Path, short_server: tuple[Store, int]
) -> None:
    _, port = short_server
    refused = asyncio.run(run_node("--server", f"127.0.0.1:{port}", "--token", "nope"))
    assert refused.returncode == 1
    assert "error: UNAUTHENTICATED" in refused.stderr

    wrong_key = node_register(port, "refused-node", "not-an-owner-key")
    assert wrong_key.returncode == 1 and not wrong_key.stdout
    assert "error: UNAUTHENTICATED: wrong owner key" in wrong_key.stderr


def test_node_bot_gives_up_on_a_closed_port_as_documented(node_modules: Path) -> None:
    """bots/node/README.md: exit status 3 when the server stays UNAVAILABLE after
    ``--retries`` reconnections (a line each), and one error line saying so."""
    with socket.socket() as probe:  # a port that was free a moment ago: nobody listens
        probe.bind(("127.0.0.1", 0))
        server = f"127.0.0.1:{probe.getsockname()[1]}"
    gone = asyncio.run(run_node("--server", server, "--token", "t", "--retries", "2"))
    assert (gone.returncode, gone.stdout) == (3, "")
    *retried, last = gone.stderr.splitlines()
    assert len(retried) == 2 and all(" connecting again in " in line for line in retried)
    assert last.startswith(f"arena-node-bot: error: UNAVAILABLE: {server}: "), last
    assert last.endswith("(gave up after 2 retries)"), last
    readme = (NODE_DIR / "README.md").read_text()
    assert "**3** when\nthe server stays `UNAVAILABLE` after the retries" in readme


def test_node_bot_alone_asks_for_fill_bots(
    node_modules: Path, short_server: tuple[Store, int]
) -> None:
    """``--fill-after`` (as the Python SDK's): a lone Node bot is seated with the
    built-in ``--fill-bot`` in the other seats and plays its match."""
    store, port = short_server
    registered = node_register(port, "lone-node")
    assert registered.returncode == 0, registered.stderr
    run = asyncio.run(
        run_node(
            "--server", f"127.0.0.1:{port}", "--casual", "--matches", "1",
            "--fill-after", "0.05", "--fill-bot", "first",
            env={"ARENA_BOT_TOKEN": registered.stdout.strip()},
        )
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "; 'first' fills empty seats after 0.05 s" in run.stdout
    assert run.stdout.splitlines()[-1].startswith("lone-node: 1 match played (guandan 1)")
    (match_id,) = re.findall(r"^match (casual-guandan-\S+) .*totals", run.stdout, re.MULTILINE)
    stored = store.match(match_id)
    assert stored is not None
    assert sorted(stored.seating) == ["first", "first", "first", "lone-node"]


def test_node_bot_unknown_variant_and_bad_usage(
    node_modules: Path, short_server: tuple[Store, int]
) -> None:
    _, port = short_server
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        token = register(channel, "usage-node").token
    unknown = asyncio.run(
        run_node("--server", f"127.0.0.1:{port}", "--token", token, "--variant", "gandan")
    )
    assert unknown.returncode == 1
    assert "error: INVALID_ARGUMENT: unknown variant 'gandan'" in unknown.stderr

    no_token = asyncio.run(run_node("--server", "127.0.0.1:1", env={"ARENA_BOT_TOKEN": ""}))
    assert no_token.returncode == 2 and "no token" in no_token.stderr
    bad = asyncio.run(run_node("--token", "t", "--matches", "two"))
    assert bad.returncode == 2 and "--matches must be an integer" in bad.stderr


def test_node_bot_leaves_on_interrupt(node_modules: Path, short_server: tuple[Store, int]) -> None:
    """Ctrl-C while waiting for a match: Leave, the summary line, exit status 130."""
    _, port = short_server
    registered = node_register(port, "interrupted-node")
    assert registered.returncode == 0, registered.stderr
    token = registered.stdout.strip()
    assert NODE is not None
    with subprocess.Popen(
        [NODE, str(BOT_JS), "--server", f"127.0.0.1:{port}", "--token", token],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stdout is not None
        first = process.stdout.readline()
        if not first:
            pytest.fail(f"the Node bot ended: {process.communicate(timeout=30)[1]}")
        assert first.startswith("connected as interrupted-node (connection "), first
        assert process.stdout.readline().startswith("waiting for a rated match of guandan")
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert out.splitlines()[-1].startswith("interrupted-node: 0 matches played; 0 decisions")
    assert "interrupted: finishing the current match" in err


def test_node_unit_tests(node_modules: Path) -> None:
    """``npm test``: the bot's decision and retry logic, without a server."""
    assert NODE is not None
    done = subprocess.run(
        [NODE, "--test"], cwd=NODE_DIR, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"# fail 0", done.stdout), done.stdout
