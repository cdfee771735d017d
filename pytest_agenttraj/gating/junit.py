"""Readable per-result properties in pytest's JUnit XML (``--junitxml``).

pytest's junitxml plugin takes a testcase's ``<properties>`` from the ``user_properties`` of the
teardown report only. So when a test's teardown report reaches the controlling process (serially,
or from a pytest-xdist worker), the properties of every result the test made are put on it,
before junitxml reads it. A repeated test's results describe the whole repeat (pass rate
included).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from ..plugin.results import value_label
from ..plugin.session import TrajectorySession

__all__ = ["JUNIT_PREFIX", "JunitProperties", "junit_properties"]

JUNIT_PREFIX = "agenttraj"
"""Each result's JUnit properties are named ``agenttraj.<key>.<field>`` (``agenttraj.<key>[<index>]
.<field>`` for a key's second and later results in one test)."""

_JUNIT_FIELDS = ("score", "passed", "pass_rate", "mode", "tool_args_mode")


def junit_properties(record: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(name, value)`` pairs for one record: score, passed, and pass_rate, mode and
    tool_args_mode where the result has them.

    >>> junit_properties({"key": "exact_match", "index": 1, "score": 0.5, "passed": False})
    [('agenttraj.exact_match[1].score', '0.5'), ('agenttraj.exact_match[1].passed', 'false')]
    """
    index = int(record.get("index", 0) or 0)
    stem = f"{JUNIT_PREFIX}.{record.get('key')}" + (f"[{index}]" if index else "")
    pairs = []
    for name in _JUNIT_FIELDS:
        if name in ("score", "passed") or record.get(name) is not None:
            pairs.append((f"{stem}.{name}", value_label(record.get(name))))
    return pairs


class JunitProperties:
    """Registered on the controlling process with ``--junitxml``: adds each test's results to its
    teardown report (the session has read them from the test's reports by then)."""

    def __init__(self, session: TrajectorySession) -> None:
        self.session = session
        self._written: dict[str, int] = {}  # results of a test already written (reruns)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "teardown":
            return
        records = self.session.results.for_test(report.nodeid)
        start = self._written.get(report.nodeid, 0)
        self._written[report.nodeid] = len(records)
        report.user_properties.extend(p for r in records[start:] for p in junit_properties(r))
