"""Readable per-result properties in pytest's JUnit XML (``--junitxml``).

pytest's junitxml plugin takes a testcase's ``<properties>`` from the ``user_properties`` of the
teardown report only. So when a test's teardown report reaches the controlling process (serially,
or from a pytest-xdist worker), the properties of every result the test made are put on it,
before junitxml reads it. A repeated test's results describe the whole repeat (pass rate
included).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pytest

from ..plugin.registration import HookHolder
from ..plugin.results import value_label
from ..plugin.session import TrajectorySession

if TYPE_CHECKING:
    from .baseline_gate import BaselineGate

__all__ = ["JUNIT_PREFIX", "JunitProperties", "junit_properties"]

JUNIT_PREFIX = "agenttraj"
"""Each result's JUnit properties are named ``agenttraj.<key>.<field>`` (``agenttraj.<key>[<index>]
.<field>`` for a key's second and later results in one test)."""

_JUNIT_FIELDS = ("score", "passed", "pass_rate", "mode", "tool_args_mode")


def _stem(record: Mapping[str, Any]) -> str:
    index = int(record.get("index", 0) or 0)
    return f"{JUNIT_PREFIX}.{record.get('key')}" + (f"[{index}]" if index else "")


def junit_properties(record: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(name, value)`` pairs for one record: score, passed, and pass_rate, mode and
    tool_args_mode where the result has them.

    >>> junit_properties({"key": "exact_match", "index": 1, "score": 0.5, "passed": False})
    [('agenttraj.exact_match[1].score', '0.5'), ('agenttraj.exact_match[1].passed', 'false')]
    """
    stem = _stem(record)
    pairs = []
    for name in _JUNIT_FIELDS:
        if name in ("score", "passed") or record.get(name) is not None:
            pairs.append((f"{stem}.{name}", value_label(record.get(name))))
    pairs.extend(_stats_properties(stem, record))
    return pairs


def _stats_properties(stem: str, record: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A repeated result's statistics: ``pass_rate_interval`` (``0.376-0.964``), its
    ``confidence``, and ``pass_hat_k`` / ``pass_at_k`` as JSON."""
    interval = record.get("pass_rate_interval")
    if not isinstance(interval, list) or len(interval) != 2:
        return []
    import json

    pairs = [
        (f"{stem}.pass_rate_interval", f"{interval[0]:.3f}-{interval[1]:.3f}"),
        (f"{stem}.confidence", value_label(record.get("confidence"))),
    ]
    for name in ("pass_hat_k", "pass_at_k", "score_interval"):
        if record.get(name) is not None:
            pairs.append((f"{stem}.{name}", json.dumps(record[name], sort_keys=False)))
    return pairs


class JunitProperties(HookHolder):
    """Registered on the controlling process with ``--junitxml``: adds each test's results to its
    teardown report (the session has read them from the test's reports by then). With
    ``--trajectory-baseline``, a result that differs from its baseline result also gets
    ``agenttraj.<key>.baseline``: ``REGRESSED: passed -> failed``, ``NOT COMPARABLE: judged
    under other settings: mode strict -> superset; passed -> passed``, ...: the session's verdict
    comes only after the XML is written, so each test carries its own part of it."""

    def __init__(self, session: TrajectorySession, gate: BaselineGate | None = None) -> None:
        self.session = session
        self.gate = gate
        self._baseline: dict[tuple[str, str, int], dict[str, Any]] | None = None
        self._written: dict[str, int] = {}  # results of a test already written (reruns)

    def _against_baseline(self, record: Mapping[str, Any]) -> list[tuple[str, str]]:
        gate = self.gate
        if gate is None:
            return []
        from .baseline import identity, judge_pair

        if self._baseline is None:
            self._baseline = gate.baseline_records()
        old = self._baseline.get(identity(record))
        if old is None:
            return []
        found = judge_pair(
            old,
            record,
            tolerance=gate.tolerance,
            accept=gate.allow_changed_settings,
            alpha=gate.alpha,
        )
        if found is None:
            return []
        group, reason = found
        return [(f"{_stem(record)}.baseline", f"{group}: {reason}")]

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "teardown":
            return
        records = self.session.results.for_test(report.nodeid)
        start = self._written.get(report.nodeid, 0)
        self._written[report.nodeid] = len(records)
        for record in records[start:]:
            report.user_properties.extend(junit_properties(record))
            report.user_properties.extend(self._against_baseline(record))
