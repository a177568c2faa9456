"""A PostgreSQL cluster of the tests' own: ``postgres_url`` starts one for the session
(:func:`arena.store.throwaway.throwaway_cluster`: Debian's ``initdb`` and ``pg_ctl``,
found under ``/usr/lib/postgresql``; ``.ci/run`` installs them; ``fsync=off``) and
stops it at the end; :func:`fresh_database` makes an empty database in it for one test.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator

import psycopg
import pytest

from arena.store.throwaway import throwaway_cluster, unavailable

_NUMBERS = itertools.count(1)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The URL of the session's cluster (its ``postgres`` database, user ``arena``)."""
    why = unavailable()
    if why is not None:
        pytest.fail(f"{why} (.ci/run installs Debian's postgresql)")
    with throwaway_cluster(durable=False) as url:
        yield url


def fresh_database(postgres_url: str, *, dictionary_order: bool = False) -> str:
    """The URL of a new, empty database in the cluster; with ``dictionary_order`` its
    text sorts as a dictionary does ('alpha' before 'Zed'), not by bytes as SQLite's."""
    name = f"store_{os.getpid()}_{next(_NUMBERS)}"
    collation = " TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US'"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}" + (collation if dictionary_order else ""))
    url = postgres_url.rsplit("/", 1)[0] + "/" + name
    if dictionary_order:
        with psycopg.connect(url) as db:
            order = db.execute("SELECT x FROM (VALUES ('Zed'), ('alpha')) v(x) ORDER BY x")
            assert [row[0] for row in order] == ["alpha", "Zed"]
    return url
