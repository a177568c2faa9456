"""On CI (``CI`` set to true), a skipped test is a failed one.

A test skips only for a tool the machine lacks (Node.js, Docker Compose, Prometheus …);
``.ci/run`` installs every one of them, so a skip on CI means a test that did not run
behind a green run. The report names the test and the reason it gave. Elsewhere a skip
stays a skip (``make test`` lists each with its reason). Expected failures (``xfail``)
are left alone.
"""

from __future__ import annotations

import os
from collections.abc import Generator

import pytest

CI_VALUES = frozenset({"1", "true", "yes"})


def on_ci() -> bool:
    """Whether the environment says this is a CI run (``CI=true``, as CI services set it)."""
    return os.environ.get("CI", "").strip().lower() in CI_VALUES


def skip_reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    """The reason a skipped report gave (``pytest.skip``'s message or the mark's reason)."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def fail_on_ci(report: pytest.TestReport | pytest.CollectReport) -> None:
    """Turn a skipped report into a failed one naming the test and its reason, on CI."""
    if report.skipped and not hasattr(report, "wasxfail") and on_ci():
        report.outcome = "failed"
        report.longrepr = (
            f"{report.nodeid} was skipped on CI ({skip_reason(report)}): a tool a test "
            "needs is missing, and .ci/run should have installed it"
        )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport() -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    fail_on_ci(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report() -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    report = yield
    fail_on_ci(report)
    return report
