"""A throwaway PostgreSQL cluster: a store opens in it, it is stopped and its directory
removed at the end even when the block fails, and a machine without PostgreSQL's server
is said to be one, naming what is missing."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from arena.store import Store, throwaway
from arena.store.throwaway import throwaway_cluster, unavailable
from arena.store.values import StoreError


def _data_directory(url: str) -> Path:
    with psycopg.connect(url) as conn:
        row = conn.execute("SHOW data_directory").fetchone()
    assert row is not None
    return Path(row[0])


def test_a_cluster_holds_a_store_and_is_removed_even_when_the_block_fails() -> None:
    with pytest.raises(RuntimeError, match="the block failed"), throwaway_cluster() as url:
        data = _data_directory(url)
        assert data.is_dir()
        with psycopg.connect(url) as conn:
            assert conn.execute("SHOW fsync").fetchone() == ("on",)  # durable by default
        with Store.open(url) as store:
            store.add_bot("alice", "remote")
            assert [bot.name for bot in store.bots()] == ["alice"]
        raise RuntimeError("the block failed")
    assert not data.exists() and not data.parent.exists()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(url, connect_timeout=5)


def test_a_machine_without_postgresql_is_told_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(throwaway, "SERVERS", tmp_path)
    why = unavailable()
    assert why is not None and f"no {tmp_path}/*/bin/initdb" in why
    started = throwaway_cluster()
    with pytest.raises(StoreError, match="cannot start a PostgreSQL cluster: no PostgreSQL"):
        started.__enter__()


def test_the_newest_server_is_chosen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for version in ("9.6", "15", "16"):
        (tmp_path / version / "bin").mkdir(parents=True)
        (tmp_path / version / "bin" / "initdb").touch()
    monkeypatch.setattr(throwaway, "SERVERS", tmp_path)
    assert throwaway.server_binaries() == tmp_path / "16" / "bin"
