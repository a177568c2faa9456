"""Faults for real, in every tournament format: a Ray worker and the node (its
raylet) killed under a running `arena tournament`, the driver itself killed (SIGKILL)
at random moments and run again, until the store (an SQLite file; for some formats a
PostgreSQL database too) holds exactly the definition with the ratings of an
uninterrupted run; Ctrl-C during Ray's start-up; Ray clusters recorded on the machine.
Each driver runs in a session of its own with a Ray temp dir of its own.
"""

from __future__ import annotations

import random
import signal
import time
from pathlib import Path

import pytest
from raykill import (
    DEFINITIONS,
    Sessions,
    assert_exactly_the_definition,
    busy_worker,
    clean_env,
    definition,
    kill,
    new_store,
    node_of,
    raylet,
    stored_count,
    wait_for,
)

from arena.sim import TournamentConfig
from arena.sim.driver import expected_matches

FAST_HEALTH_CHECKS = {
    "RAY_health_check_initial_delay_ms": "0",
    "RAY_health_check_period_ms": "300",
    "RAY_health_check_timeout_ms": "300",
    "RAY_health_check_failure_threshold": "3",
}
"""Ray finds a dead node in about a second rather than half a minute."""
POSTGRESQL_RUNS = [("paired", "postgresql"), ("rated", "postgresql")]
"""The formats run on PostgreSQL too (every format runs on SQLite): those whose writes
differ, two halves stored as one and rounds fixed in the store, rated."""


@pytest.mark.parametrize(
    ("name", "backend"),
    [*((name, "sqlite") for name in sorted(DEFINITIONS)), *POSTGRESQL_RUNS],
)
def test_killed_worker_raylet_and_driver_then_resumed_store_the_definition_exactly_once(
    name: str,
    backend: str,
    tmp_path: Path,
    ray_tmp: Path,
    sessions: Sessions,
    request: pytest.FixtureRequest,
) -> None:
    path = definition(tmp_path, name, scale=3)  # more than the work in flight at once
    config = TournamentConfig.load(path)
    db = new_store(backend, tmp_path, request)
    args = ["tournament", str(path), "--db", db, "--batch", "1"]
    env = clean_env({"RAY_TMPDIR": str(ray_tmp), **FAST_HEALTH_CHECKS})
    chance = random.Random(name)

    def after_next_match(driver: object) -> bool:
        """Wait for one more stored match; False if the driver ended first."""
        before = stored_count(db)
        wait_for(
            lambda: stored_count(db) > before or driver.poll() is not None,  # type: ignore[attr-defined]
            "a match stored",
        )
        return driver.poll() is None  # type: ignore[attr-defined]

    total = expected_matches(config)

    def kill_at_a_random_moment(driver: object, share: float) -> None:
        """Kill the driver at a random moment before ``share`` of the matches are
        stored (a moment drawn as a stored count, then a fraction of a match's time),
        whatever the machine's speed; the matches in flight at once (stored together
        when the one before them comes in) never reach the end from there."""
        target = max(stored_count(db) + 1, chance.randint(1, int(total * share)))
        wait_for(
            lambda: stored_count(db) >= target or driver.poll() is not None,  # type: ignore[attr-defined]
            f"{target} matches stored",
        )
        time.sleep(chance.uniform(0.0, 0.1))
        kill(driver.pid)  # type: ignore[attr-defined]
        driver.wait()  # type: ignore[attr-defined]  # its Ray's agents notice within a minute

    # the first run loses a worker in the middle of a batch, then is killed itself
    driver = sessions.arena(args, env)
    wait_for(lambda: busy_worker(driver.pid) is not None, "a worker playing a batch")
    worker = busy_worker(driver.pid)
    assert worker is not None
    kill(worker.pid)
    assert after_next_match(driver), sessions.tail(driver)
    assert '"event": "task_retried"' in sessions.output(driver)  # the batch went out again
    kill_at_a_random_moment(driver, 1 / 4)
    assert stored_count(db) < total

    # the second run is killed too, at another random moment
    driver = sessions.arena(args, env)
    assert after_next_match(driver), sessions.tail(driver)
    kill_at_a_random_moment(driver, 1 / 2)
    assert stored_count(db) < total

    # the third run loses its node (the raylet and its workers) with batches in
    # flight: it starts a fresh local Ray and submits them again
    driver = sessions.arena(args, env)
    wait_for(lambda: busy_worker(driver.pid) is not None, "a worker playing a batch")
    node = raylet(driver.pid)
    assert node is not None
    for proc in node_of(node):
        kill(proc.pid)
    assert driver.wait() == 0, sessions.tail(driver)
    assert "ray_restarted" in sessions.output(driver)
    assert not sessions.left(driver.pid)
    assert_exactly_the_definition(db, config)


@pytest.mark.parametrize(
    ("signum", "moment"),
    [(signal.SIGINT, 0.0), (signal.SIGTERM, 0.4), (signal.SIGHUP, 0.8), (signal.SIGTERM, 1.6)],
    ids=["SIGINT-0.0", "SIGTERM-0.4", "SIGHUP-0.8", "SIGTERM-1.6"],
)
def test_a_stop_signal_during_ray_start_up_leaves_no_ray_process(
    signum: signal.Signals, moment: float, tmp_path: Path, ray_tmp: Path, sessions: Sessions
) -> None:
    """Ctrl-C, SIGTERM or SIGHUP to the whole process group (as a terminal or a
    supervisor sends them) once Ray's first process is up, and a little later: the
    command ends as interrupted by that signal, with status 128 + signal and no crash
    lines of Ray's, and no Ray process outlives it."""
    db = tmp_path / "t.sqlite"
    args = ["tournament", str(definition(tmp_path, "round_robin")), "--db", str(db)]
    driver = sessions.arena(args, clean_env({"RAY_TMPDIR": str(ray_tmp)}))
    wait_for(lambda: len(sessions.left(driver.pid)) > 1, "Ray's first process")
    time.sleep(moment)
    kill(-driver.pid, signum)
    assert driver.wait() == 128 + signum, sessions.tail(driver)
    assert "run the same command again to resume" in sessions.tail(driver)
    assert "received at time=" not in sessions.output(driver)
    assert sessions.left(driver.pid) == []


def test_without_an_address_a_cluster_recorded_on_the_machine_is_not_joined(
    tmp_path: Path, ray_tmp: Path, sessions: Sessions
) -> None:
    """A dead cluster's record left in Ray's temp dir, RAY_ADDRESS naming it, and a
    home directory that cannot be created (no ~/.ray/auth_token to read or write):
    the command still starts a local Ray of its own."""
    (ray_tmp / "ray").mkdir()
    (ray_tmp / "ray" / "ray_current_cluster").write_text("127.0.0.1:1\n")
    db = tmp_path / "t.sqlite"
    args = ["tournament", "--bots", "random,first", "--matches", "1", "--deals", "1"]
    env = clean_env(
        {"RAY_TMPDIR": str(ray_tmp), "RAY_ADDRESS": "127.0.0.1:1", "HOME": "/dev/null/home"}
    )
    driver = sessions.arena([*args, "--db", str(db)], env)
    assert driver.wait() == 0, sessions.tail(driver)
    assert stored_count(db) == 1
