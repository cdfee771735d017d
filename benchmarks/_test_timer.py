"""The time a generated project's tests take, measured inside its pytest session.

A session's process time moves between runs by more than a few hundred microseconds a test
(start-up, exit, the garbage collector), so the benchmarks also read what pytest spends on each
test, setup to teardown: the projects' conftest starts with ``CONFTEST``, which writes the
median and the sum of those times to ``TIMES_FILE`` at the end of a serial session. A median leaves
out what only the first test pays (a module imported when first used), which the sum keeps.
"""

from __future__ import annotations

import json
from pathlib import Path

TIMES_FILE = "test_times.json"

CONFTEST = f"""
import json
import statistics
import time

import pytest

_TIMES = []


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    started = time.perf_counter()
    try:
        return (yield)
    finally:
        _TIMES.append(time.perf_counter() - started)


def pytest_unconfigure(config):
    if not _TIMES:  # e.g. a pytest-xdist controller, whose workers run the tests
        return
    times = {{"median": statistics.median(_TIMES) if _TIMES else 0.0, "sum": sum(_TIMES)}}
    (config.rootpath / {TIMES_FILE!r}).write_text(json.dumps(times))
"""


def read_test_times(project: Path) -> tuple[float, float]:
    """The median and the sum of a session's test times (seconds), as its conftest wrote them."""
    times = json.loads((project / TIMES_FILE).read_text())
    return float(times["median"]), float(times["sum"])
