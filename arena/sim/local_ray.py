"""How a local Ray of our own is started: on the loopback interface only, with none of
the parts a run does not use, and with the driver's signal handlers left alone.

``ray.init(address="local")`` takes decisions a run on one machine does not want, and
offers no argument to change them; this module changes them, and only them, while
:func:`ray.init` runs:

Loopback
    Ray gives its node the machine's outside address (it replaces a loopback
    ``_node_ip_address`` by that address on purpose, for clusters). Its GCS, raylet,
    workers and agents then listen on every interface. Here the node's address is
    ``127.0.0.1``, and every one of them listens on loopback only.
Parts not started
    The autoscaler's monitor (a fixed local node has nothing to scale; it also
    serves Prometheus metrics) and the log monitor (the run does not forward worker
    output to the driver) are not started. The dashboard is not started either
    (``include_dashboard=False``). Ray starts the rest whatever it is told: the GCS,
    the raylet and its workers, its API server (the dashboard's minimal head, with
    a metrics endpoint), the dashboard agent and the runtime-env agent; all of
    them listen on 127.0.0.1 only.
Signals
    :func:`ray.init` replaces the driver's SIGTERM handler with one that exits with
    status 15 at once, and its core installs a native handler beneath Python's that
    prints a stack trace and aborts; the driver's own handler is kept instead, so a
    run stopped by its supervisor ends as cleanly as one stopped by Ctrl-C. (Ray's
    native handler also reports a crash of the driver's core; the driver goes
    without it. Ray's own processes keep theirs.)

Joining a cluster, only the driver's SIGTERM handler is kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final
from unittest import mock

LOOPBACK: Final = "127.0.0.1"


@contextmanager
def loopback_head() -> Iterator[None]:
    """While :func:`ray.init` starts a local Ray: its node on 127.0.0.1, without the
    autoscaler's monitor or the log monitor."""
    import ray._private.parameter as parameter

    base = parameter.RayParams

    class LocalParams(base):  # type: ignore[misc, valid-type]
        def __init__(self, **options: Any) -> None:
            options.update(node_ip_address=LOOPBACK, no_monitor=True, include_log_monitor=False)
            super().__init__(**options)

    with mock.patch.object(parameter, "RayParams", LocalParams):
        yield


@contextmanager
def kept_sigterm_handler() -> Iterator[None]:
    """While :func:`ray.init` runs: it replaces neither the driver's SIGTERM handler
    (with its Python one) nor, beneath it, the process's (with its core's native
    failure handler)."""
    import ray._private.ray_constants as constants
    import ray._private.utils as utils

    def keep(handler: object) -> None:
        return None

    with (
        mock.patch.object(utils, "set_sigterm_handler", keep),
        mock.patch.object(constants, "RAY_DISABLE_FAILURE_SIGNAL_HANDLER", True),
    ):
        yield
