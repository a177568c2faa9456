"""The local Ray of `arena tournament` (no --address), for real: what it listens on,
what it starts, and how it ends when a supervisor stops it.

Each driver runs in a session of its own with a Ray temp dir of its own
(tests/raykill.py); the listening sockets are read from each process of the session.
"""

from __future__ import annotations

import http.client
import ipaddress
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import psutil
import pytest
from raykill import (
    SLOW_BOT,
    Sessions,
    assert_exactly_the_definition,
    busy_worker,
    clean_env,
    count_rows,
    definition,
    kill,
    stored_count,
    wait_for,
)

from arena.sim import TournamentConfig
from arena.sim.driver import expected_matches

NOT_STARTED = ("autoscaler/_private/monitor.py", "_private/log_monitor.py")
"""Parts of Ray a local run does not use: the autoscaler's monitor (it also serves
Prometheus metrics) and the log monitor."""
API_SERVER = "dashboard/dashboard.py"
"""Ray's dashboard head, its API server: the process that would report usage."""


def loopback(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return (mapped or ip).is_loopback


def listening(pid: int) -> list[tuple[str, int]]:
    """The TCP addresses process ``pid`` listens on (none once it is gone)."""
    try:
        connections = psutil.Process(pid).net_connections("tcp")
    except psutil.NoSuchProcess:
        return []
    return [(c.laddr.ip, c.laddr.port) for c in connections if c.status == psutil.CONN_LISTEN]


def serves_metrics(address: tuple[str, int]) -> bool:
    """Whether an HTTP ``GET /metrics`` at ``address`` answers Prometheus metrics (a
    gRPC port, or one that is no HTTP server, answers none)."""
    host, port = address
    url = f"http://{host if ':' not in host else f'[{host}]'}:{port}/metrics"
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            body: bytes = answer.read(1 << 16)
    except (OSError, http.client.HTTPException):
        return False
    return b"# TYPE" in body or b"# HELP" in body


GCS_CLIENT = """
from ray._raylet import GcsClient
try:
    GcsClient(address="127.0.0.1:{port}").internal_kv_get(b"session_name", None, timeout=30)
    print("answered")
except Exception as err:
    print(type(err).__name__, err)
"""


def gcs_answer(port: int, env: dict[str, str]) -> str:
    """What Ray's GCS at ``port`` answers a client of this machine with ``env`` (Ray's
    variables: its token or none)."""
    code = GCS_CLIENT.format(port=port)
    done = subprocess.run(
        [sys.executable, "-c", code], env=clean_env(env), capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    return done.stdout.strip()


def name(cmdline: str) -> str:
    """A process's short name: its program, or the Python script or module it runs."""
    words = cmdline.split()
    program = words[0].rsplit("/", 1)[-1]
    if program.startswith("python") and len(words) > 1:
        script = next((w for w in words[1:] if not w.startswith("-")), words[1])
        return script.rsplit("/", 1)[-1]
    return program


def test_a_local_run_listens_on_loopback_only_and_starts_no_unused_part(
    tmp_path: Path, ray_tmp: Path, sessions: Sessions
) -> None:
    """Every socket that any process of a local run (the driver, Ray's GCS, raylet,
    agents, API server and workers) listens on is bound to 127.0.0.1, and none of them
    serves Prometheus metrics (Ray's serve them without a token); Ray's autoscaler
    monitor and log monitor are not started, and its usage statistics are off. Its GCS
    keeps token authentication: a client of the same machine without the run's token
    is refused, and one with it answered."""
    path = definition(tmp_path, "round_robin")
    db = tmp_path / "t.sqlite"
    driver = sessions.arena(
        ["tournament", str(path), "--db", str(db)], clean_env({"RAY_TMPDIR": str(ray_tmp)})
    )
    wait_for(lambda: busy_worker(driver.pid) is not None, "a worker playing a batch")
    processes = sessions.left(driver.pid)
    sockets = {f"{proc.pid} {name(proc.cmdline)}": listening(proc.pid) for proc in processes}
    listeners = " ".join(key for key, found in sockets.items() if found)
    assert "gcs_server" in listeners and "raylet" in listeners, sockets
    exposed = {key: [a for a in found if not loopback(a[0])] for key, found in sockets.items()}
    assert not any(exposed.values()), exposed
    metrics = {key: [a for a in found if serves_metrics(a)] for key, found in sockets.items()}
    assert not any(metrics.values()), metrics
    started = " ".join(proc.cmdline for proc in processes)
    assert not [part for part in NOT_STARTED if part in started]
    api_server = next(proc for proc in processes if API_SERVER in proc.cmdline)
    assert psutil.Process(api_server.pid).environ().get("RAY_USAGE_STATS_ENABLED") == "0"
    gcs_pid, [gcs] = next(
        (int(key.split()[0]), found)
        for key, found in sockets.items()
        if key.endswith(" gcs_server")
    )
    token = psutil.Process(gcs_pid).environ()["RAY_AUTH_TOKEN"]  # the driver's, inherited
    assert "InvalidAuthToken" in gcs_answer(gcs[1], {"HOME": str(tmp_path)})
    assert gcs_answer(gcs[1], {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token}) == "answered"
    assert driver.poll() is None, "the run ended before all was read"
    kill(driver.pid, signal.SIGTERM)
    assert driver.wait() == 128 + signal.SIGTERM, sessions.tail(driver)
    assert stored_count(db) < expected_matches(TournamentConfig.load(path))


@pytest.mark.parametrize(
    "stops",
    [
        [(signal.SIGTERM, "driver"), (signal.SIGHUP, "driver"), (signal.SIGINT, "group")],
        [(signal.SIGTERM, "group"), (signal.SIGTERM, "session")],
    ],
    ids=["term-hup-int", "term-to-the-group-then-every-process"],
)
def test_every_stop_signal_ends_the_run_cleanly_and_the_same_command_resumes(
    stops: list[tuple[signal.Signals, str]], tmp_path: Path, ray_tmp: Path, sessions: Sessions
) -> None:
    """SIGTERM (Kubernetes and docker stop: to the driver; a shell: to its group;
    systemd: to every process of the unit, Ray's too), SIGHUP (a closed terminal) and
    SIGINT (Ctrl-C) mid-run: each run exits 128 + the signal, says how to resume, shows
    no crash lines of Ray's, and leaves no Ray process; running the same command again
    completes the tournament, each match stored once with the ratings of an
    uninterrupted run."""
    path = definition(tmp_path, "rated", scale=2)
    config = TournamentConfig.load(path)
    db = tmp_path / "t.sqlite"
    args = ["tournament", str(path), "--db", str(db)]
    env = clean_env({"RAY_TMPDIR": str(ray_tmp)})
    for signum, to in stops:
        before = stored_count(db)
        driver = sessions.arena(args, env)
        wait_for(lambda n=before: stored_count(db) > n, "a match stored")
        if to == "session":
            for proc in sessions.left(driver.pid):
                kill(proc.pid, signum)
        else:
            kill(driver.pid if to == "driver" else -driver.pid, signum)
        assert driver.wait() == 128 + signum, sessions.tail(driver)
        output = sessions.output(driver)
        assert f"interrupted by {signum.name}" in output
        assert "run the same command again to resume" in output
        assert "received at time=" not in output and "PC: @" not in output
        wait_for(lambda d=driver.pid: not sessions.left(d), "no Ray process left", timeout=30)
        assert stored_count(db) < expected_matches(config)
    driver = sessions.arena(args, env)
    assert driver.wait() == 0, sessions.tail(driver)
    assert_exactly_the_definition(db, config)


def balance_batches(db: Path) -> int:
    """Batches of balance runs in the store, read as another process would."""
    return count_rows(db, "balance_batches")


def test_a_balance_run_stopped_by_sigterm_ends_as_ctrl_c_ends_it(
    tmp_path: Path, ray_tmp: Path, sessions: Sessions
) -> None:
    """``arena balance`` on the same runner, sent SIGTERM mid-run: its partial report
    and how to resume, status 143, no crash lines of Ray's, no Ray process left; the
    run is stored as interrupted."""
    db = tmp_path / "b.sqlite"
    args = ["balance", "--variant", "guandan", "--deals", "40", "--batch", "2",
            "--bots", SLOW_BOT, "--name", "cut", "--db", str(db)]  # fmt: skip
    driver = sessions.arena(args, clean_env({"RAY_TMPDIR": str(ray_tmp)}))
    wait_for(lambda: balance_batches(db) > 0, "a batch stored")
    kill(driver.pid, signal.SIGTERM)
    assert driver.wait() == 128 + signal.SIGTERM, sessions.tail(driver)
    output = sessions.output(driver)
    assert "play the rest with arena balance --resume cut" in output
    assert "received at time=" not in output and "PC: @" not in output
    wait_for(lambda: not sessions.left(driver.pid), "no Ray process left", timeout=30)
    assert balance_batches(db) < 20


def test_a_stop_while_joining_a_cluster_is_not_held_until_ray_gives_up(
    tmp_path: Path, sessions: Sessions
) -> None:
    """Joining a cluster that does not answer (Ray retries for many minutes), SIGTERM
    ends the attempt as soon as Ray's current try returns: nothing of Ray's is started
    to be held for, so the run says how to resume and exits 143."""
    args = ["tournament", "--bots", "random,first", "--matches", "1", "--deals", "1",
            "--db", str(tmp_path / "t.sqlite"), "--address", "192.0.2.1:6379"]  # fmt: skip
    driver = sessions.arena(args, clean_env({"HOME": str(tmp_path)}))
    wait_for(lambda: "ray_joining" in sessions.output(driver), "the attempt to join")
    kill(driver.pid, signal.SIGTERM)
    try:
        status = driver.wait(timeout=240)  # a hang guard: Ray alone retries for longer
    except subprocess.TimeoutExpired:
        kill(driver.pid)
        driver.wait()
        raise AssertionError("the stop was held until Ray gave up joining") from None
    assert status == 128 + signal.SIGTERM, sessions.tail(driver)
    assert "run the same command again to resume" in sessions.output(driver)
