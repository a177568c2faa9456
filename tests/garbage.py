"""What a test module leaves unclosed is reported in that module, not after the run.

An object that closes itself only when it is freed (a socket, a file, a client's pool of
connections) is freed at once by reference counting, unless it sits in a reference cycle:
then only the garbage collector frees it, whenever it next runs, and pytest reports its
``ResourceWarning`` at whatever test that is, or after the last test of the run, naming
none. So the collector runs at the end of every module, once the module's fixtures are
torn down and its last test has let go of their values: what the module left is reported
as an error in the teardown of that test (with ``PYTHONTRACEMALLOC`` set, with the lines
that allocated it).
"""

from __future__ import annotations

import gc
from collections.abc import Generator, Iterator

import pytest

_TORN_DOWN = pytest.StashKey[pytest.Item]()
"""The test being torn down."""


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    item.config.stash[_TORN_DOWN] = item
    try:
        return (yield)
    finally:
        del item.config.stash[_TORN_DOWN]


@pytest.fixture(autouse=True, scope="module")
def module_garbage_collected(request: pytest.FixtureRequest) -> Iterator[None]:
    """Collect the garbage a module leaves, after its other fixtures are torn down (set
    up first, torn down last); the last test's arguments are let go of first, as pytest
    would let go of them after this teardown."""
    yield
    last = request.config.stash.get(_TORN_DOWN, None)
    funcargs = getattr(last, "funcargs", None)
    if isinstance(funcargs, dict):
        funcargs.clear()
    gc.collect()
