"""Stopping a run by a signal: Ctrl-C, or what a supervisor sends (SIGTERM from
Kubernetes, systemd or ``docker stop``; SIGHUP when a terminal closes).

While :func:`stop_signals` is entered, the first of :data:`STOP_SIGNALS` raises
:class:`Stopped` (a ``KeyboardInterrupt``) in the main thread, so the run ends as
Ctrl-C ends it: what is in flight is cancelled, what came back is kept, Ray is shut
down, and the command says how to resume and exits with ``128 + signal``. Later
signals are ignored while that happens. A block that must not be cut in the middle
(Ray's start-up) holds the signal back (:meth:`StopSignals.held`) and looks at
:attr:`StopSignals.came` when it is done.

Ray's blocking calls (``ray.wait``, ``ray.get``) turn the handler's exception into a
bare ``KeyboardInterrupt``; :meth:`StopSignals.stopped` names the signal again.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Final

STOP_SIGNALS: Final = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class Stopped(KeyboardInterrupt):
    """A run stopped by a signal."""

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        """The shell's status for a process ended by the signal: 130 for SIGINT, 143
        for SIGTERM, 129 for SIGHUP."""
        return 128 + self.signum


def stopped(interrupt: KeyboardInterrupt) -> Stopped:
    """An interrupt as a :class:`Stopped` (a bare ``KeyboardInterrupt`` is Ctrl-C)."""
    return interrupt if isinstance(interrupt, Stopped) else Stopped(signal.SIGINT)


class StopSignals:
    """The handler of the stop signals while a run lasts, and the signals that came."""

    def __init__(self) -> None:
        self.came: list[int] = []
        self._holding = 0

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        self.came.append(signum)
        if len(self.came) == 1 and not self._holding:
            raise Stopped(signum)

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hold a stop signal back while the block runs: it is in :attr:`came`, and
        raising :class:`Stopped` for it is the caller's part."""
        self._holding += 1
        try:
            yield
        finally:
            self._holding -= 1

    def stopped(self, interrupt: KeyboardInterrupt) -> Stopped:
        """``interrupt`` as a :class:`Stopped` naming the stop signal that came first."""
        if isinstance(interrupt, Stopped):
            return interrupt
        return Stopped(self.came[0]) if self.came else stopped(interrupt)


@contextmanager
def stop_signals() -> Iterator[StopSignals]:
    """Every stop signal handled by a :class:`StopSignals` of its own while the block
    runs; the handlers from before afterwards.

    Entered inside another (a command, then the Ray runner it uses), a stop that ends
    the inner block is the outer one's too: it names the signal, and ignores any
    later one while the run ends. Outside the main thread signals cannot be handled:
    nothing changes, and the handler yielded never hears of one."""
    handler = StopSignals()
    if threading.current_thread() is not threading.main_thread():
        yield handler
        return
    previous = {signum: signal.signal(signum, handler) for signum in STOP_SIGNALS}
    try:
        yield handler
    except BaseException:
        outer = previous[signal.SIGTERM]
        if isinstance(outer, StopSignals):
            outer.came.extend(handler.came)
        raise
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
