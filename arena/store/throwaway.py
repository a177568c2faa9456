"""A PostgreSQL cluster for one run: :func:`throwaway_cluster` starts one in a temporary
directory with the server's own ``initdb`` and ``pg_ctl`` (Debian's, under
``/usr/lib/postgresql``), on a free port of 127.0.0.1, yields its URL (user ``arena``,
database ``postgres``, no password), and stops it and removes the directory at the end.
The tests' PostgreSQL stores live in one; ``arena bench web`` measures in one when no
database is given.

``initdb`` refuses to run as root: as root the cluster is run by the ``postgres`` user
(``runuser``), which must exist (Debian's package creates it).
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from arena.store.values import StoreError

SERVERS: Final = Path("/usr/lib/postgresql")
"""Where Debian installs each PostgreSQL version's server binaries (``VERSION/bin``)."""
OWNER: Final = "postgres"
"""The system user that runs the cluster when the caller is root."""
USER: Final = "arena"
"""The cluster's superuser (trusted on its own socket and 127.0.0.1)."""
START_SECONDS: Final = 60.0


def server_binaries() -> Path | None:
    """The ``bin`` directory of the newest PostgreSQL server here, or None."""
    found = sorted(SERVERS.glob("*/bin/initdb"), key=lambda path: _version(path.parent.parent))
    return found[-1].parent if found else None


def _version(folder: Path) -> tuple[int, ...]:
    return tuple(int(part) for part in folder.name.split(".") if part.isdigit())


def unavailable() -> str | None:
    """Why no throwaway cluster can start here, or None when one can."""
    if server_binaries() is None:
        return f"no PostgreSQL server here (no {SERVERS}/*/bin/initdb): install postgresql"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(OWNER)
        except KeyError:
            return f"running as root, and no user {OWNER!r} to run PostgreSQL's server as"
        if shutil.which("runuser") is None:
            return f"running as root, and no runuser to run PostgreSQL's server as {OWNER!r}"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _as_owner(command: list[str]) -> list[str]:
    return ["runuser", "-u", OWNER, "--", *command] if os.geteuid() == 0 else command


def _run(command: list[str], what: str, log: Path | None = None) -> None:
    """Run a server command; a :class:`StoreError` with its output (or log) if it fails."""
    try:
        subprocess.run(
            _as_owner(command),
            check=True,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=START_SECONDS,
        )
    except subprocess.CalledProcessError as err:
        said = (err.stderr or err.stdout or "").strip()
        if log is not None and log.exists():
            said = (said + "\n" + log.read_text(errors="replace").strip()).strip()
        raise StoreError(f"PostgreSQL's {what} failed (exit {err.returncode}): {said}") from None
    except subprocess.TimeoutExpired:
        raise StoreError(f"PostgreSQL's {what} took over {START_SECONDS:.0f} s") from None


@contextmanager
def throwaway_cluster(*, durable: bool = True) -> Iterator[str]:
    """A new cluster's URL while the block runs; the cluster is stopped and its
    directory removed afterwards, whatever happened.

    ``durable``: each commit reaches the disk before it returns, as PostgreSQL's
    defaults have it (what a benchmark compares); without it ``fsync=off``, faster
    (what tests use). A :class:`StoreError` says why a cluster cannot start.
    """
    why = unavailable()
    bin_dir = server_binaries()
    if why is not None or bin_dir is None:
        raise StoreError(f"cannot start a PostgreSQL cluster: {why}")
    home = Path(tempfile.mkdtemp(prefix="arena-pg-"))
    data = home / "data"
    log = home / "server.log"  # the server's output: a pipe would be held open by it
    started = False
    try:
        if os.geteuid() == 0:
            shutil.chown(home, OWNER, OWNER)
        _run(
            [str(bin_dir / "initdb"), "-D", str(data), "-U", USER, "--auth=trust"],
            "initdb",
        )
        port = _free_port()
        options = f"-p {port} -k {home} -c listen_addresses=127.0.0.1"
        if not durable:
            options += " -c fsync=off"
        pg_ctl = [str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log)]
        _run([*pg_ctl, "-o", options, "-w", "start"], "server start", log)
        started = True
        yield f"postgresql://{USER}@127.0.0.1:{port}/postgres"
    finally:
        try:
            if started:
                _run([*pg_ctl, "-m", "immediate", "-w", "stop"], "server stop", log)
        finally:
            shutil.rmtree(home, ignore_errors=True)
