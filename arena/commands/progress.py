"""The progress bar of long commands (on stderr, so that stdout stays parseable).

While it is live it takes over ``sys.stderr`` (rich's ``redirect_stderr``): a log line
written meanwhile is printed above the bar, not into it (see :mod:`arena.log`)."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


def progress_bar(console: Console | None = None) -> Progress:
    """Done / total, a ``rate`` field (e.g. deals/s) and the time remaining, on
    ``console`` (default: stderr's)."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeRemainingColumn(),
        console=console or Console(stderr=True),
    )
