"""The compiled engines: loaded only while they match every source, all or none, and the
reason said; on CI the suite must run them.

Each case runs ``python`` in a copy of the packages (with a copy of the compiled
engines beside it, as ``build/compiled``) changed the way the case says, and reads which
engines it ran and where every engine module came from.
"""

from __future__ import annotations

import copy
import importlib.machinery
import json
import os
import pickle
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ci_skips import on_ci

from arena.compiled import (
    ENGINES_VARIABLE,
    MANIFEST_NAME,
    check,
    compiled_dir,
    engine_modules,
    engines,
    source_root,
)
from arena.games import make
from arena.games.base import Verb

REPO = Path(__file__).resolve().parent.parent
EXTENSION = importlib.machinery.EXTENSION_SUFFIXES[0]

PROBE = """
import importlib, json, sys
import arena
from arena.compiled import engine_modules, engines_description
modules = engine_modules()
for module in modules:
    importlib.import_module(module)
print(json.dumps({
    "package": arena.__file__,
    "engines": engines_description(),
    "files": {module: sys.modules[module].__file__ for module in modules},
}))
"""


def test_the_suite_runs_the_engines_the_build_allows() -> None:
    """Compiled when built and current (on CI always: never interpreted twice)."""
    status = engines()
    assert not status.reason.startswith("mixed"), status.reason
    if os.environ.get(ENGINES_VARIABLE) == "python":
        assert status.describe() == "interpreted: ARENA_ENGINES=python"
    if on_ci():
        assert status.compiled, f"CI runs the interpreted engines: {status.reason}"
    loaded = [sys.modules[module] for module in engine_modules() if module in sys.modules]
    assert loaded
    assert all(module.__file__.endswith(EXTENSION) == status.compiled for module in loaded)


def test_every_engine_module_is_compiled_but_the_packages_and_their_text() -> None:
    modules = engine_modules()
    assert modules[:6] == (
        "arena.cards",
        "arena.games.base",
        "arena.games.climbing",
        "arena.games.lazy",
        "arena.games.options",
        "arena.games.views",
    )
    for game in ("guandan", "sanfu", "shengji"):
        assert f"arena.games.{game}.state" in modules
        assert f"arena.games.{game}.text" not in modules
        assert f"arena.games.{game}" not in modules
    # the match driver's loop over decisions, the simplest policies, the search's dealing
    assert modules[-3:] == ("arena.deal_loop", "bots.simple", "bots.determinize.assign")
    assert len(set(modules)) == len(modules)


@pytest.fixture(scope="module")
def build() -> Path:
    """The compiled engines of this checkout, current."""
    status = check()
    if not status.compiled:
        pytest.skip(f"no current compiled engines here: {status.reason}")
    return compiled_dir()


@pytest.fixture
def tree(build: Path, tmp_path: Path) -> Path:
    """A copy of the packages with a copy of their compiled engines in build/compiled."""
    for package in ("arena", "bots"):
        shutil.copytree(
            source_root() / package,
            tmp_path / package,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    shutil.copytree(build, tmp_path / "build" / "compiled")
    return tmp_path


def probe(root: Path, choice: str | None = None) -> dict[str, Any]:
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in (ENGINES_VARIABLE, "ARENA_COMPILED_DIR", "PYTHONPATH")
    }
    env["PYTHONPATH"] = str(root)
    if choice is not None:
        env[ENGINES_VARIABLE] = choice
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=root, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    assert found["package"] == str(root / "arena" / "__init__.py")
    return found


def all_interpreted(found: dict[str, Any], root: Path) -> bool:
    files = found["files"]
    return all(
        file == str(root.joinpath(*m.split(".")).with_suffix(".py")) for m, file in files.items()
    )


def test_current_engines_load_compiled_every_one(tree: Path) -> None:
    found = probe(tree)
    assert found["engines"] == "compiled (mypyc)"
    compiled = tree / "build" / "compiled"
    assert found["files"] == {
        module: str(compiled.joinpath(*module.split("."))) + EXTENSION
        for module in engine_modules()
    }


@pytest.mark.parametrize("source", ["arena/cards.py", "arena/games/shengji/trick.py"])
def test_an_edited_source_runs_every_engine_interpreted(tree: Path, source: str) -> None:
    with (tree / source).open("a") as edited:
        edited.write("# edited\n")
    found = probe(tree)
    assert found["engines"] == (
        f"interpreted: build/compiled is stale ({source} changed); run make compile"
    )
    assert all_interpreted(found, tree)


def test_arena_engines_python_runs_them_interpreted(tree: Path) -> None:
    found = probe(tree, "python")
    assert found["engines"] == "interpreted: ARENA_ENGINES=python"
    assert all_interpreted(found, tree)


def test_arena_engines_auto_runs_them_compiled(tree: Path) -> None:
    assert probe(tree, "auto")["engines"] == "compiled (mypyc)"


def test_an_unknown_choice_is_named(tree: Path) -> None:
    found = probe(tree, "fast")
    assert found["engines"] == (
        "interpreted: ARENA_ENGINES='fast' is not a choice (auto or python)"
    )
    assert all_interpreted(found, tree)


def test_no_manifest_runs_them_interpreted(tree: Path) -> None:
    (tree / "build" / "compiled" / MANIFEST_NAME).unlink()
    found = probe(tree)
    assert found["engines"] == (
        "interpreted: no compiled engines in build/compiled; run make compile"
    )
    assert all_interpreted(found, tree)


def test_an_unreadable_manifest_is_named(tree: Path) -> None:
    (tree / "build" / "compiled" / MANIFEST_NAME).write_text("{")
    found = probe(tree)
    assert found["engines"].startswith("interpreted: build/compiled/manifest.json is unreadable (")
    assert all_interpreted(found, tree)


def test_engines_built_for_another_python_run_interpreted(tree: Path) -> None:
    manifest_path = tree / "build" / "compiled" / MANIFEST_NAME
    manifest = json.loads(manifest_path.read_text())
    manifest["python"]["version"] = "3.11.0"
    manifest_path.write_text(json.dumps(manifest))
    found = probe(tree)
    running = ".".join(map(str, sys.version_info[:3]))
    assert found["engines"] == (
        f"interpreted: build/compiled was built for Python 3.11.0 ({EXTENSION}), "
        f"this is {running} ({EXTENSION}); run make compile"
    )
    assert all_interpreted(found, tree)


def test_a_module_added_to_a_game_runs_them_interpreted(tree: Path) -> None:
    (tree / "arena" / "games" / "sanfu" / "extra.py").write_text('"""Not compiled yet."""\n')
    found = probe(tree)
    assert found["engines"] == (
        "interpreted: build/compiled compiled other modules "
        "(arena.games.sanfu.extra added or removed); run make compile"
    )
    assert all_interpreted(found, tree)


def test_a_missing_extension_runs_them_interpreted(tree: Path) -> None:
    missing = "arena/games/guandan/moves" + EXTENSION
    (tree / "build" / "compiled" / missing).unlink()
    found = probe(tree)
    assert found["engines"] == (
        f"interpreted: build/compiled is incomplete ({missing} missing); run make compile"
    )
    assert all_interpreted(found, tree)


def test_a_shared_library_that_does_not_load_runs_them_interpreted(tree: Path) -> None:
    manifest = json.loads((tree / "build" / "compiled" / MANIFEST_NAME).read_text())
    (tree / "build" / "compiled" / manifest["group"]).write_bytes(b"not a shared library")
    found = probe(tree)
    assert found["engines"].startswith("interpreted: the compiled engines do not load (")
    assert found["engines"].endswith("); run make compile")
    assert all_interpreted(found, tree)


def test_compiling_without_a_c_compiler_says_so_and_succeeds() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "compile_engines.py")],
        env={**os.environ, "CC": "/nonexistent/cc"},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "compiled engines not built: no C compiler (/nonexistent/cc not found); "
        "the interpreted engines run\n"
    )


PLANTED = """
import pytest

@pytest.mark.interpreted_engines
def test_planted() -> None:
    pass

def test_plain() -> None:
    pass
"""


@pytest.mark.parametrize(
    ("choice", "summary"),
    [
        (None, "1 passed, 1 deselected"),
        ("python", "2 passed"),
    ],
)
def test_a_test_planting_a_fault_in_an_engine_runs_on_the_interpreted_engines_only(
    build: Path, tmp_path: Path, choice: str | None, summary: str
) -> None:
    (tmp_path / "test_planted.py").write_text(PLANTED)
    env = {name: value for name, value in os.environ.items() if name != ENGINES_VARIABLE}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(REPO / "tests")])
    if choice is not None:
        env[ENGINES_VARIABLE] = choice
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "engines_marker", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert summary in done.stdout.splitlines()[-1]
    left_out = "1 tests planting a fault in the engines' Python code left out"
    assert (left_out in done.stdout) == (choice is None)


@pytest.mark.parametrize("variant", ["guandan", "shengji-2", "sanfu"])
def test_the_engines_values_pickle_and_copy_as_their_interpreted_selves(variant: str) -> None:
    """A deal's setups, outcome, actions, events and a game's action syntax survive
    pickling (Ray), copy and deepcopy, compiled or not (compiled frozen dataclasses
    refuse the restore those use by default)."""
    game = make(variant)
    setup = game.first_setup()
    state = game.new_deal(setup, seed=5)
    rng = random.Random(5)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    outcome = state.outcome()
    values = [setup, outcome, outcome.next_setup, Verb(1, 4, frozenset({"pair"}))]
    values += [state.events[-1], state.syntax.verbs["play"]]
    for value in values:
        assert pickle.loads(pickle.dumps(value)) == value
        assert copy.copy(value) == value
        assert copy.deepcopy(value) == value


WEAK_REFERENCES = """
import gc, weakref
from arena.errors import ConfigError
from arena.games import make
called = []
for variant in ("guandan", "shengji-2", "sanfu"):
    game = make(variant)
    state = game.new_deal(game.first_setup(), seed=1)
    values = [state, game, ConfigError("x")]
    refs = [weakref.ref(value, called.append) for value in values]
    cache = weakref.WeakValueDictionary({"state": state})
    del state, game, values
    gc.collect()
    assert all(ref() is None for ref in refs) and not cache, variant
print(len(called))
"""


def test_weak_references_to_the_engines_objects_are_cleared_when_they_are_freed() -> None:
    """A weak reference to a compiled state, game or error (a WeakValueDictionary, a test
    library's cache) is cleared with its callback when the object is freed, as for an
    interpreted one, and the interpreter goes on (run apart: a fault would end it)."""
    done = subprocess.run(
        [sys.executable, "-c", WEAK_REFERENCES],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.split() == ["9"]
