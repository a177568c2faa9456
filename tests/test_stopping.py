"""Stop signals in this process (arena.sim.stopping); a real run stopped by each of
them is in test_ray_local.py."""

from __future__ import annotations

import os
import signal

import pytest

from arena.sim.stopping import STOP_SIGNALS, Stopped, stop_signals


def send(signum: int) -> None:
    """Deliver ``signum`` to this process; its Python handler runs before this returns."""
    os.kill(os.getpid(), signum)


@pytest.mark.parametrize("signum", STOP_SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_each_stop_signal_stops_the_block_once_with_the_shells_status(signum: int) -> None:
    """SIGINT, SIGTERM and SIGHUP each raise Stopped naming the signal, with status
    128 + signal; a second signal while the run ends is ignored; afterwards the
    handlers are the ones from before."""
    before = {s: signal.getsignal(s) for s in STOP_SIGNALS}
    with stop_signals(), pytest.raises(Stopped) as stop:
        send(signum)
    assert stop.value.signum == signum and stop.value.name == signal.Signals(signum).name
    assert stop.value.exit_code == 128 + signum
    assert {s: signal.getsignal(s) for s in STOP_SIGNALS} == before
    with stop_signals() as stops:
        with pytest.raises(Stopped):
            send(signum)
        send(signal.SIGTERM)  # while the run ends: not raised again
    assert stops.came == [signum, signal.SIGTERM]


def test_a_held_signal_is_kept_for_the_block_to_raise_when_done() -> None:
    """A signal during a held block (Ray's start-up) does not cut it: it is recorded,
    and one more while held is too."""
    with stop_signals() as stops:
        with stops.held():
            send(signal.SIGTERM)
            send(signal.SIGHUP)
        assert stops.came == [signal.SIGTERM, signal.SIGHUP]


def test_an_interrupt_that_lost_its_signal_is_named_by_the_signal_that_came() -> None:
    """Ray's blocking calls turn the handler's Stopped into a bare KeyboardInterrupt:
    it is named again by the signal that came (a SIGTERM stays a SIGTERM, status 143),
    and is Ctrl-C when no stop signal came."""
    with stop_signals() as stops:
        assert stops.stopped(KeyboardInterrupt()).signum == signal.SIGINT
        with pytest.raises(Stopped):
            send(signal.SIGTERM)
        assert stops.stopped(KeyboardInterrupt()).exit_code == 143


def test_a_stop_that_ends_a_run_inside_a_run_is_the_outer_runs_too() -> None:
    """A command that handles stop signals and the Ray runner inside it: the stop that
    ends the runner names its signal to the command, which ignores any later one while
    it ends; a block inside that ends on its own leaves the outer handler as it was."""
    with pytest.raises(Stopped), stop_signals() as outer:
        with stop_signals(), pytest.raises(Stopped):
            send(signal.SIGINT)
        assert outer.came == [] and signal.getsignal(signal.SIGTERM) is outer
        try:
            with stop_signals() as inner:
                send(signal.SIGHUP)
        except KeyboardInterrupt as interrupt:
            assert outer.stopped(KeyboardInterrupt()).signum == signal.SIGHUP
            send(signal.SIGTERM)  # while the command ends: ignored
            assert outer.came == [signal.SIGHUP, signal.SIGTERM] and inner is not outer
            raise outer.stopped(interrupt) from None
