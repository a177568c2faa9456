"""A new revision of the schema, as a developer adds one (scripts/new_store_revision.py):
it is written chained onto the newest, and a store made under the older schema runs it
when next opened for writing, on SQLite and on PostgreSQL, keeping every row."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from postgres import fresh_database
from sqlalchemy import create_engine, inspect

from arena.store import Store, migrate

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location(
    "new_store_revision", ROOT / "scripts" / "new_store_revision.py"
)
assert _spec is not None and _spec.loader is not None
new_store_revision = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(new_store_revision)

INDEX = "ix_matches_finished_at"
NEXT = new_store_revision.next_revision(migrate.head())
"""The revision the script writes after this arena's newest."""


@pytest.fixture
def migrations(tmp_path: Path) -> Path:
    """A copy of the store's migrations, with a new revision written by the script and
    filled in: an index of the matches by when they finished."""
    folder = tmp_path / "migrations"
    shutil.copytree(migrate.scripts().dir, folder, ignore=shutil.ignore_patterns("__pycache__"))
    new_store_revision.main(["index matches by finished at", "--migrations", str(folder)])
    (written,) = (folder / "versions").glob(f"{NEXT}_*.py")
    text = written.read_text()
    body = f'    op.create_index("{INDEX}", "matches", ["finished_at"])'
    written.write_text(text.replace("    pass\n", body + "\n", 1))
    return folder


def test_the_script_chains_the_new_revision_onto_the_newest(migrations: Path) -> None:
    scripts = ScriptDirectory(str(migrations))
    assert scripts.get_current_head() == NEXT
    assert scripts.get_revision(NEXT).down_revision == migrate.head()


def test_the_next_revision_is_refused_after_a_head_not_named_schema_n() -> None:
    assert new_store_revision.next_revision("schema_12") == "schema_13"
    with pytest.raises(SystemExit, match="'abc123' is not named schema_N"):
        new_store_revision.next_revision("abc123")


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_store_of_the_older_schema_runs_the_new_revision_on_open_keeping_its_rows(
    backend: str,
    migrations: Path,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    where = (
        str(tmp_path / "arena.sqlite")
        if backend == "sqlite"
        else fresh_database(request.getfixturevalue("postgres_url"))
    )
    with Store.open(where) as store:
        store.add_bot("alice", "builtin")
    monkeypatch.setattr(migrate, "scripts", lambda: ScriptDirectory(str(migrations)))

    with Store.open(where, read_only=True) as store:  # reading changes nothing
        assert store.bot("alice") is not None
    with Store.open(where) as store:
        assert migrate.current(store._sa()) == NEXT
        assert store.bot("alice") is not None
    url = (
        f"sqlite:///{where}"
        if backend == "sqlite"
        else where.replace("postgresql://", "postgresql+psycopg://", 1)
    )
    engine = create_engine(url)
    try:
        indexes = {index["name"] for index in inspect(engine).get_indexes("matches")}
    finally:
        engine.dispose()
    assert INDEX in indexes


def test_a_postgresql_store_of_schema_8_compares_text_by_bytes_once_opened_keeping_its_rows(
    postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """schema_9: every text column collated "C", so that the index of a text key serves
    the order the store reads it in (a page of a big table read without sorting it)."""
    older = tmp_path / "migrations"
    shutil.copytree(
        migrate.scripts().dir, older, ignore=shutil.ignore_patterns("__pycache__", "schema_9_*")
    )
    where = fresh_database(postgres_url, dictionary_order=True)
    with monkeypatch.context() as patched:
        patched.setattr(migrate, "scripts", lambda: ScriptDirectory(str(older)))
        with Store.open(where) as store:
            assert migrate.current(store._sa()) == "schema_8"
            for name in ("Zed", "alpha", "Émile", "bob"):
                store.add_bot(name, "builtin")

    with Store.open(where) as store:
        assert migrate.current(store._sa()) == migrate.head()
        assert [bot.name for bot in store.bots()] == ["Zed", "alpha", "bob", "Émile"]
        conn = store._sa()
        collations = conn.exec_driver_sql(
            "SELECT DISTINCT coalesce(collation_name, 'default') FROM information_schema.columns "
            "WHERE table_schema = current_schema() AND data_type = 'text' "
            "AND table_name <> 'alembic_version'"
        ).all()
        assert collations == [("C",)]
        conn.exec_driver_sql("SET enable_seqscan = off")  # a tiny table: ask for the index
        plan = "\n".join(
            row[0]
            for row in conn.exec_driver_sql(
                'EXPLAIN SELECT name FROM bots ORDER BY name COLLATE "C" LIMIT 500'
            ).all()
        )
        assert "Index" in plan and "Sort" not in plan, plan
