#!/usr/bin/env python3
"""Generate the Python code of the wire contract, or check that it is fresh.

    python scripts/gen_proto.py          # regenerate arena/_proto from proto/
    python scripts/gen_proto.py --check  # exit 1, naming the files, if arena/_proto is stale

The contract is ``proto/arena/v1/arena.proto``. Generated, never edited by hand:

- ``arena/_proto/arena/v1/arena_pb2.py`` and ``arena_pb2.pyi``: the messages
  (protoc's Python and type-stub outputs);
- ``arena_pb2_grpc.py``: the service stubs and servicers (grpcio-tools);
- ``arena_pb2_grpc.pyi``: their type stubs (mypy-protobuf), sync and ``grpc.aio``;
- an ``__init__.py`` in each package directory.

protoc writes imports rooted at the proto path (``from arena.v1 import
arena_pb2``), which would resolve to this project's own ``arena`` package; they
are rewritten to point inside ``arena._proto``, so ``import
arena._proto.arena.v1.arena_pb2`` works from anywhere.

The output depends on the generators' versions, so they are pinned: with other
versions installed both modes stop and say which.
"""

from __future__ import annotations

import argparse
import filecmp
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
PROTOS = ("arena/v1/arena.proto",)
OUT = ROOT / "arena" / "_proto"
PACKAGE = "arena._proto"

GENERATORS = {"grpcio-tools": "1.85.1", "mypy-protobuf": "5.1.0"}
"""The generator versions the committed code was made with."""

ROOT_INIT = '''"""Generated code of the wire contract ``proto/arena/v1/arena.proto``.

Never edit by hand: ``python scripts/gen_proto.py`` regenerates it and
``python scripts/gen_proto.py --check`` (run in CI) fails when it is stale.

    from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
"""
'''
SUB_INIT = '"""Generated package (see arena._proto)."""\n'


class GenError(Exception):
    """Generation cannot run or failed; the message says why."""


def check_versions() -> None:
    wrong = []
    for name, wanted in GENERATORS.items():
        try:
            found = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found = "not installed"
        if found != wanted:
            wrong.append(f"{name} {wanted} is needed, found {found}")
    if wrong:
        raise GenError(
            "; ".join(wrong) + " (install the project's dev dependencies: pip install -e '.[dev]')"
        )


def _plugin(name: str) -> Path:
    """A protoc plugin installed beside this Python (in the same environment)."""
    path = [Path(p) for p in os.environ.get("PATH", "").split(os.pathsep) if p]
    for folder in (Path(sys.executable).parent, *path):
        candidate = folder / name
        if candidate.is_file():
            return candidate
    raise GenError(f"protoc plugin {name!r} not found (it comes with mypy-protobuf)")


def generate(out: Path) -> None:
    """Write the generated package into ``out``, which should be new or empty."""
    check_versions()
    out.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        f"--plugin=protoc-gen-mypy_grpc={_plugin('protoc-gen-mypy_grpc')}",
        f"--mypy_grpc_out={out}",
        *PROTOS,
    ]
    done = subprocess.run(command, cwd=PROTO_ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise GenError(f"protoc failed:\n{done.stderr.strip()}")
    for path in sorted(out.rglob("*_pb2*.py*")):
        if path.suffix in (".py", ".pyi"):
            text = mark_generated(fix_imports(path.read_text(encoding="utf-8")))
            path.write_text(text, encoding="utf-8")
    (out / "__init__.py").write_text(ROOT_INIT, encoding="utf-8")
    for folder in sorted({p.parent for p in out.rglob("*_pb2.py")}):
        while folder != out:
            (folder / "__init__.py").write_text(SUB_INIT, encoding="utf-8")
            folder = folder.parent


def _proto_modules() -> list[str]:
    """Dotted module paths of the generated modules as protoc names them (``arena.v1``)."""
    return sorted({str(Path(p).parent).replace("/", ".") for p in PROTOS})


def fix_imports(text: str) -> str:
    """Point imports of generated modules into :data:`PACKAGE`.

    ``from arena.v1 import arena_pb2 as x`` becomes ``from . import arena_pb2 as x``
    (modules of one proto package sit in one folder); a fully qualified
    ``arena.v1.arena_pb2`` (type stubs) becomes ``arena._proto.arena.v1.arena_pb2``.
    """
    for module in _proto_modules():
        quoted = re.escape(module)
        text = re.sub(rf"^from {quoted} import ", "from . import ", text, flags=re.M)
        text = re.sub(rf"(?<![\w.]){quoted}\.(?=\w+_pb2\b)", f"{PACKAGE}.{module}.", text)
    return text


LINT_MARKS = "# ruff: noqa\n# mypy: ignore-errors\n"
"""Keep linters and the type checker out of generated files, whatever their configuration
(their types still reach the code that imports them)."""


def mark_generated(text: str) -> str:
    """Insert :data:`LINT_MARKS` at the top, after a coding line if there is one."""
    first, newline, rest = text.partition("\n")
    if first.startswith("#") and "coding" in first:
        return first + newline + LINT_MARKS + rest
    return LINT_MARKS + text


def _files(folder: Path) -> set[str]:
    return {
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }


def stale_files(committed: Path, fresh: Path) -> list[str]:
    """Files that differ between two generated trees, each with what is wrong."""
    have, want = _files(committed), _files(fresh)
    problems = [f"{name}: missing" for name in sorted(want - have)]
    problems += [f"{name}: not generated (remove it)" for name in sorted(have - want)]
    problems += [
        f"{name}: differs"
        for name in sorted(have & want)
        if not filecmp.cmp(committed / name, fresh / name, shallow=False)
    ]
    return problems


def check() -> int:
    with tempfile.TemporaryDirectory(prefix="arena-proto-") as tmp:
        fresh = Path(tmp) / "_proto"
        generate(fresh)
        problems = stale_files(OUT, fresh) if OUT.is_dir() else ["arena/_proto: missing"]
    if problems:
        where = OUT.relative_to(ROOT)
        print(f"{where} is stale; run: python scripts/gen_proto.py", file=sys.stderr)
        for problem in problems:
            print(f"  {where}/{problem}", file=sys.stderr)
        return 1
    print(f"{OUT.relative_to(ROOT)} is fresh")
    return 0


def regenerate() -> int:
    with tempfile.TemporaryDirectory(prefix="arena-proto-") as tmp:
        fresh = Path(tmp) / "_proto"
        generate(fresh)  # into a temporary tree first: a failure leaves arena/_proto as it was
        if OUT.exists():
            shutil.rmtree(OUT)
        shutil.copytree(fresh, OUT)
    print(f"generated {OUT.relative_to(ROOT)} from {', '.join(PROTOS)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="fail (exit 1) if arena/_proto is not fresh"
    )
    args = parser.parse_args(argv)
    try:
        return check() if args.check else regenerate()
    except GenError as err:
        print(f"gen_proto: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
