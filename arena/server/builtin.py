"""Built-in bots on the server: every name :func:`bots.make` accepts, parameters included.

A built-in bot sits wherever a bot's name does: in the seats a Join asks to fill
(``Join.fill_bot``), in fixtures and tournaments. ``search:samples=16`` is a bot of its
own, stored and rated under that whole name (:meth:`arena.store.Store.add_builtin_bots`).
"""

from __future__ import annotations

import bots
from arena.errors import ConfigError, quoted

__all__ = ["builtin_names", "builtin_problem", "is_builtin"]


def builtin_names() -> list[str]:
    """The built-in bots' base names (each may take parameters after a colon)."""
    return bots.names()


LOCAL_ONLY = frozenset({"policy"})
"""Built-in bots that read a file named in their parameters: a client must not make the
server open its files, so the server seats none of them."""


def builtin_problem(name: str) -> str | None:
    """Why ``name`` is no built-in bot here (unknown, bad parameters, or one that reads
    a file); None when it is one."""
    if name.partition(":")[0] in LOCAL_ONLY:
        return (
            f"{quoted(name)}: a trained policy is played where its file is (arena compare, "
            "arena balance), not seated by the server"
        )
    try:
        bots.make(name)
    except ConfigError as err:
        return str(err)
    return None


def is_builtin(name: str) -> bool:
    """Whether ``name`` is a built-in bot (``random``, ``search:samples=16`` …)."""
    return builtin_problem(name) is None
