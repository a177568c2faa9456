"""Logging configuration: structlog for the arena's own events, stdlib logging routed
through the same renderer.

JSON lines in production (stderr not a terminal, or ``ARENA_LOG_FORMAT=json``), a
readable console rendering in a terminal (``ARENA_LOG_FORMAT=console`` forces it).
The level comes from ``ARENA_LOG_LEVEL`` (default ``info``). In a terminal, a command
whose output is for people (tables, progress bars) passes ``terminal_level="warning"``:
its info events would only repeat what the screen already shows, so they are left out
there (unless ``ARENA_LOG_LEVEL`` asks for them); warnings and errors still show. Log
lines go to whatever ``sys.stderr`` is when they come, so while a rich progress bar is
live (it redirects stderr) they are printed above the bar, never into it.

Context is bound, not formatted into the message: ``log.bind(match_id=…, variant=…)``
then ``log.info("match_started", seat=2, bot="random")``.

Code that logs asks :func:`get_logger`; only entry points call :func:`configure`.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from typing import Any, Final, TextIO

import structlog
from structlog.typing import Processor

from arena.errors import ConfigError

__all__ = ["FORMAT_ENV", "LEVEL_ENV", "configure", "get_logger"]

FORMAT_ENV: Final = "ARENA_LOG_FORMAT"
LEVEL_ENV: Final = "ARENA_LOG_LEVEL"
FORMATS: Final = ("json", "console")


def _level(text: str) -> int:
    level = logging.getLevelNamesMapping().get(text.strip().upper())
    if level is None:
        raise ConfigError(
            f"{LEVEL_ENV} must be debug, info, warning, error or critical, got {text!r}"
        )
    return level


def _use_json(fmt: str | None, stream: TextIO) -> bool:
    if fmt is None or fmt == "":
        return not stream.isatty()
    if fmt not in FORMATS:
        raise ConfigError(f"{FORMAT_ENV} must be json or console, got {fmt!r}")
    return fmt == "json"


class _Handler(logging.StreamHandler[TextIO]):
    """The arena's root handler: writes to a given stream, or to whatever ``sys.stderr``
    is when a record comes (tests and embedding programs replace it)."""

    def __init__(self, stream: TextIO | None) -> None:
        super().__init__(stream or sys.stderr)
        self.follows_stderr = stream is None

    def emit(self, record: logging.LogRecord) -> None:
        if self.follows_stderr:
            self.stream = sys.stderr
        super().emit(record)


def configure(
    *,
    level: str | None = None,
    fmt: str | None = None,
    stream: TextIO | None = None,
    environ: Mapping[str, str] = os.environ,
    terminal_level: str | None = None,
) -> None:
    """Configure structlog and the stdlib root logger to write to ``stream`` (default:
    the current ``sys.stderr``).

    ``level`` and ``fmt`` default to ``ARENA_LOG_LEVEL`` / ``ARENA_LOG_FORMAT``;
    ``terminal_level``, when given, is the default level instead when ``stream`` is a
    terminal showing the console rendering. Calling it again replaces the previous
    configuration.
    """
    target = stream or sys.stderr
    as_json = _use_json(fmt if fmt is not None else environ.get(FORMAT_ENV), target)
    default = terminal_level if terminal_level and target.isatty() and not as_json else "info"
    threshold = _level(level or environ.get(LEVEL_ENV) or default)
    shared: list[Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.StackInfoRenderer(),
    ]
    renderer: Processor
    if as_json:
        # Tracebacks as data, without local variables (they may hold tokens).
        shared.append(
            structlog.processors.ExceptionRenderer(
                structlog.tracebacks.ExceptionDictTransformer(show_locals=False)
            )
        )
        renderer = structlog.processors.JSONRenderer()
    else:
        renderer = structlog.dev.ConsoleRenderer(colors=target.isatty())

    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            *shared,
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
    handler = _Handler(stream)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[structlog.stdlib.ExtraAdder(), *shared],
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        )
    )
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, _Handler)]:
        root.removeHandler(old)  # ours, replaced on reconfiguration
    root.addHandler(handler)
    root.setLevel(threshold)
    for noisy in ("grpc", "asyncio", "urllib3", "filelock"):
        logging.getLogger(noisy).setLevel(max(threshold, logging.WARNING))


def get_logger(name: str | None = None, **context: Any) -> structlog.stdlib.BoundLogger:
    """A structlog logger, with ``context`` bound (``match_id``, ``variant``, …).

    In a process whose entry point did not call :func:`configure` (a library user, a
    Ray worker), the first logger configures the defaults, so logs go to stderr at
    ``ARENA_LOG_LEVEL``, never to stdout.
    """
    if not structlog.is_configured():
        configure()
    logger: structlog.stdlib.BoundLogger = structlog.stdlib.get_logger(name)
    return logger.bind(**context) if context else logger
