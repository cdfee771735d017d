"""The time a generated project's tests take, measured inside its pytest session.

A session's process time moves between runs by more than a few hundred microseconds a test
(start-up, exit, the garbage collector), so the benchmarks also read what pytest spends on each
test, setup to teardown: the projects' conftest starts with ``CONFTEST``, which writes those
times at the end of the session (each pytest-xdist worker its own file). Their median leaves
out what only the first test pays (a module imported when first used).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from pathlib import Path

TIMES_GLOB = "test_times*.json"

CONFTEST = """
import json
import os
import time

import pytest

_TIMES = []


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    started = time.perf_counter()
    try:
        return (yield)
    finally:
        _TIMES.append((item.name, time.perf_counter() - started))


def pytest_unconfigure(config):
    if _TIMES:  # not a pytest-xdist controller, whose workers run the tests
        worker = os.environ.get("PYTEST_XDIST_WORKER", "")
        (config.rootpath / f"test_times{worker}.json").write_text(json.dumps(_TIMES))
"""


def clear_test_times(project: Path) -> None:
    """Remove what an earlier session wrote."""
    for path in project.glob(TIMES_GLOB):
        path.unlink()


def _named_times(project: Path) -> list[tuple[str, float]]:
    return [
        (name, seconds)
        for path in project.glob(TIMES_GLOB)
        for name, seconds in json.loads(path.read_text())
    ]


def read_test_median(project: Path) -> float:
    """The median of the last session's test times (seconds, every worker's together; 0 if
    it wrote none)."""
    return read_group_medians(project, lambda _: "").get("", 0.0)


def read_group_medians(project: Path, group_of: Callable[[str], str]) -> dict[str, float]:
    """The median test time (seconds) of each group of the last session's tests, a test's
    group given by ``group_of(test name)``."""
    groups: dict[str, list[float]] = {}
    for name, seconds in _named_times(project):
        groups.setdefault(group_of(name), []).append(seconds)
    return {group: statistics.median(times) for group, times in groups.items()}
