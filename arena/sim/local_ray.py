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
    output to the driver) are not started, nor is the dashboard
    (``include_dashboard=False``). Ray's own metrics are not collected (its system
    setting ``enable_metrics_collection``), so neither its workers nor its
    dashboard agent export any or serve them to Prometheus; its usage statistics
    are not reported (``RAY_USAGE_STATS_ENABLED=0``, unless set otherwise); and its
    dashboard's API server and agent run as in Ray's minimal installation, loading
    only the modules every Ray has. The rest Ray starts whatever it is told: the
    GCS, the raylet and its workers, the API server, the dashboard agent and the
    runtime-env agent, all on 127.0.0.1.
Signals
    :func:`ray.init` replaces the driver's SIGTERM handler with one that exits with
    status 15 at once, and its core installs a native handler beneath Python's that
    prints a stack trace and aborts; the driver's own handler is kept instead, so a
    run stopped by its supervisor ends as cleanly as one stopped by Ctrl-C. (Ray's
    native handler also reports a crash of the driver's core; the driver goes
    without it. Ray's own processes keep theirs.) Ray keeps Ctrl-C from the
    processes it starts; here they also run in a process group of their own, so
    that a signal to the driver's group (a terminal closed, ``kill -TERM -PGID``)
    reaches the driver alone, which shuts them down: had it stopped Ray's GCS
    while Ray starts, the driver would wait a minute for it and abort.

Joining a cluster, only the driver's SIGTERM handler is kept.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Final
from unittest import mock

LOOPBACK: Final = "127.0.0.1"
USAGE_STATS: Final = "RAY_USAGE_STATS_ENABLED"


@contextmanager
def local_head() -> Iterator[dict[str, Any]]:
    """While :func:`ray.init` starts a local Ray: its node on 127.0.0.1, with none of
    the parts a run does not use; yields what :func:`ray.init` is given besides."""
    import ray._private.parameter as parameter
    import ray._private.services as services
    import ray._private.utils as utils

    base = parameter.RayParams

    class OwnGroup(services.ConsolePopen):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, process_group=0, **kwargs)

    class LocalParams(base):  # type: ignore[misc, valid-type]
        def __init__(self, **options: Any) -> None:
            options.update(node_ip_address=LOOPBACK, no_monitor=True, include_log_monitor=False)
            super().__init__(**options)

    def minimal() -> str:
        return "a local run uses none of the dashboard's modules"

    usage = {USAGE_STATS: os.environ.get(USAGE_STATS, "0")}
    with (
        mock.patch.object(parameter, "RayParams", LocalParams),
        mock.patch.object(services, "ConsolePopen", OwnGroup),
        mock.patch.object(utils, "get_dashboard_dependency_error", minimal),
        mock.patch.dict(os.environ, usage),
    ):
        yield {"_system_config": {"enable_metrics_collection": False}}


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
