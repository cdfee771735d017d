"""Pass-rate gating (``--trajectory-min-pass-rate``): fail the session when too small a share of
the trajectory evaluations passed, for the whole run or for the tests carrying a marker.

``RATE`` (0..1) gates the session; ``GROUP=RATE`` (the option is repeatable, the ini key
``trajectory_min_pass_rate`` takes one per line) gates the tests marked ``@pytest.mark.GROUP``,
or, where GROUP is a test's node id without its parameters (``path::test_name``), the tests of
that parametrized family. ``lower:RATE`` in place of ``RATE`` gates on the Wilson lower bound of
the pass rate at the run's confidence level (``--trajectory-confidence``) instead of the rate
itself. A threshold of 0 never fails. What is counted, on the controlling process after the run:

* every evaluation the tests made, as what it was, whatever then became of its test: an evaluation
  that passed in a test that later failed or errored counts as passed;
* a repeated test (``repeat=N``) counts every attempt's evaluation: ``passed_attempts`` of its
  ``attempts``;
* a *trajectory test* (one with the ``trajectory`` marker or a fixture of this plugin:
  ``trajectory_config``, ``trajectory_evaluator``, ``async_trajectory_evaluator``,
  ``trajectory_reference``, ``assert_trajectory``) that made no
  evaluation counts as one failed evaluation per attempt if it failed or errored, and as one
  *skipped* evaluation if it was skipped (xfailed included). Skipped evaluations are in the
  denominator: they count against the rate, so skipping every check never meets a threshold;
* a passing trajectory test without evaluations is not counted (it is named in the summary).

``rate = passed / (passed + failed + skipped)``. Nothing counted is a miss for a threshold above 0.
Tests that call evaluators directly, without the plugin's fixtures or marker, are counted only by
the evaluations they made.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from ..plugin.registration import HookHolder
from ..plugin.results import attempt_counts, family_of
from ..plugin.session import TrajectorySession
from . import INI, OPTION
from .verdict import fail_session, gates_apply

__all__ = [
    "INI",
    "OPTION",
    "PassRateGate",
    "Tally",
    "TestFacts",
    "Threshold",
    "counting_lines",
    "miss_line",
    "parse_thresholds",
    "tally",
    "threshold_line",
]

_EPSILON = 1e-9
_FORMS = (
    "RATE from 0 to 1 for the session (e.g. 0.8), GROUP=RATE for the tests of a marker "
    "(e.g. smoke=0.9) or of a parametrized family (e.g. tests/test_agent.py::test_city=0.8), "
    "RATE or lower:RATE (the lower bound of the pass rate's interval, e.g. lower:0.7)"
)


@dataclass(frozen=True)
class Threshold:
    """A minimum pass rate for the session (``group=None``), one marker's tests or one
    parametrized family (a group with ``::``); with ``lower``, the minimum of the rate's
    Wilson lower bound at ``confidence``."""

    rate: float
    group: str | None = None
    lower: bool = False
    confidence: float = 0.95

    @property
    def family(self) -> bool:
        return _is_family(self.group)

    def label(self) -> str:
        if self.group is None:
            return "the session"
        return f"family {self.group}" if self.family else f"group {self.group}"

    def spelled(self) -> str:
        rate = f"lower:{self.rate:g}" if self.lower else f"{self.rate:g}"
        return rate if self.group is None else f"{self.group}={rate}"

    def met_by(self, counted: Tally) -> bool:
        if self.rate <= 0:
            return True
        if not self.lower:
            return counted.meets(self.rate)
        low = counted.lower_bound(self.confidence)
        return low is not None and low + _EPSILON >= self.rate


def _is_family(group: str | None) -> bool:
    """Whether ``group`` names a parametrized family (``path::test_name``), not a marker."""
    return group is not None and "::" in group


def _in_group(group: str | None, nodeid: str, facts: TestFacts) -> bool:
    """Whether the test ``nodeid`` is one of ``group`` (every test when it is ``None``)."""
    if group is None:
        return True
    if _is_family(group):
        return family_of(nodeid) == group
    return group in facts.groups


def _group(name: str, raw: str, where: str) -> str:
    family, _, test = name.rpartition("::")
    if name.isidentifier() or (family and test.isidentifier() and "[" not in name):
        return name
    raise pytest.UsageError(
        f"invalid {where} {raw!r}: GROUP must be a marker name or a test family "
        f"(path::test_name, without parameters); expected {_FORMS}"
    )


def parse_thresholds(
    values: Iterable[str], *, where: str, confidence: float = 0.95
) -> list[Threshold]:
    """``["0.8", "smoke=0.9", "tests/test_a.py::test_city=lower:0.7"]`` -> thresholds; a bad
    or repeated value is a ``UsageError``."""
    thresholds: dict[str | None, Threshold] = {}
    for raw in values:
        text = str(raw).strip()
        group: str | None = None
        number = text
        if "=" in text:
            name, _, number = (part.strip() for part in text.rpartition("="))
            group = _group(name, str(raw), where)
        lower = number.startswith("lower:")
        try:
            rate = float(number.removeprefix("lower:"))
        except ValueError:
            rate = -1.0
        if not 0 <= rate <= 1:
            raise pytest.UsageError(f"invalid {where} {raw!r}: expected {_FORMS}")
        threshold = Threshold(rate, group, lower, confidence)
        if group in thresholds:
            raise pytest.UsageError(
                f"invalid {where} {raw!r}: {threshold.label()} has a threshold "
                "already; give one per group"
            )
        thresholds[group] = threshold
    return list(thresholds.values())


@dataclass
class TestFacts:
    """What the controller learnt about one test from its reports."""

    __test__ = False  # not a pytest test class, whatever its name

    outcome: str = "passed"
    records: list[Mapping[str, Any]] = field(default_factory=list)
    uses_plugin: bool = False
    groups: frozenset[str] = frozenset()
    attempts: int = 1

    def see(self, report: pytest.TestReport) -> None:
        if report.failed:
            self.outcome = "failed"
        elif report.skipped and self.outcome == "passed":
            self.outcome = "skipped"

    def learn(self, tag: Mapping[str, Any] | None, repeat: Mapping[str, Any] | None) -> None:
        """What the session read off the test's reports: its tag and its repeat counts."""
        if tag is not None:
            self.uses_plugin = bool(tag.get("uses_plugin"))
            self.groups = frozenset(tag.get("groups", ()))
        if repeat is not None:
            self.attempts = max(1, int(repeat["attempts"]) - int(repeat["skipped"]))


@dataclass
class Tally:
    """Counted evaluations for one threshold, and how each came to be counted."""

    passed: int = 0
    failed: int = 0
    skipped: int = 0
    failed_for_tests: int = 0
    """Failed evaluations counted for trajectory tests that failed or errored before evaluating."""
    tests_without_evaluation: list[str] = field(default_factory=list)
    skipped_tests: list[str] = field(default_factory=list)
    in_failed_tests: int = 0
    """Evaluations made by tests that then failed or errored (counted as what they were)."""
    repeated: int = 0
    repeated_passed: int = 0
    idle_tests: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.skipped

    @property
    def rate(self) -> float | None:
        return self.passed / self.total if self.total else None

    def meets(self, threshold: float) -> bool:
        if threshold <= 0:
            return True
        rate = self.rate
        return rate is not None and rate + _EPSILON >= threshold

    def lower_bound(self, confidence: float) -> float | None:
        """The Wilson lower bound of the rate (``None`` when nothing was counted)."""
        return self.interval(confidence)[0] if self.total else None

    def interval(self, confidence: float) -> tuple[float, float]:
        from ..core.stats import wilson_interval

        found = wilson_interval(self.passed, self.total, confidence)
        return found.low, found.high


def tally(tests: Mapping[str, TestFacts], group: str | None = None) -> Tally:
    """Count the evaluations of ``tests`` (those of ``group``, a marker name or a family id,
    if given)."""
    out = Tally()
    for nodeid, facts in sorted(tests.items()):
        if not _in_group(group, nodeid, facts):
            continue
        for record in facts.records:
            runs, passed = attempt_counts(record)
            out.passed += passed
            out.failed += runs - passed
            if "attempts" in record:
                out.repeated += runs
                out.repeated_passed += passed
            if facts.outcome == "failed":
                out.in_failed_tests += runs
        if facts.records or not facts.uses_plugin:
            continue
        if facts.outcome == "failed":
            out.failed += facts.attempts
            out.failed_for_tests += facts.attempts
            out.tests_without_evaluation.append(nodeid)
        elif facts.outcome == "skipped":
            out.skipped += 1
            out.skipped_tests.append(nodeid)
        else:
            out.idle_tests.append(nodeid)
    return out


def _percent(value: float) -> str:
    return f"{value * 100:.4g}%"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def threshold_line(threshold: Threshold, counted: Tally) -> str:
    """One threshold's outcome, e.g. ``session: 70% of 10 evaluations passed (7 passed,
    2 failed, 1 skipped; 95% CI 39.7-89.2%); needs 80%: MISSED``; a ``lower:`` threshold
    needs ``a lower bound of 80%``."""
    name = "session" if threshold.group is None else threshold.label()
    verdict = "ok" if threshold.met_by(counted) else "MISSED"
    needs = _percent(threshold.rate)
    if threshold.lower:
        needs = f"a lower bound of {needs}"
    if counted.rate is None:
        return f"{name}: no evaluations counted; needs {needs}: {verdict}"
    parts = [f"{counted.passed} passed", f"{counted.failed} failed"]
    if counted.skipped:
        parts.append(f"{counted.skipped} skipped")
    low, high = counted.interval(threshold.confidence)
    level = f"{round(threshold.confidence * 100, 6):g}% CI {low * 100:.1f}-{high * 100:.1f}%"
    return (
        f"{name}: {_percent(counted.rate)} of {_plural(counted.total, 'evaluation')} passed "
        f"({', '.join(parts)}; {level}); needs {needs}: {verdict}"
    )


def counting_lines(counted: Tally) -> list[str]:
    """How errors, skips and repeats were counted (only the lines that apply)."""
    lines = []
    if counted.failed_for_tests:
        tests = len(counted.tests_without_evaluation)
        lines.append(
            f"counted as failed: {_plural(counted.failed_for_tests, 'evaluation')} for "
            f"{_plural(tests, 'trajectory test')} that failed or errored before evaluating"
        )
    if counted.skipped:
        lines.append(
            f"counted as skipped, against the rate: {_plural(counted.skipped, 'evaluation')} for "
            f"{_plural(len(counted.skipped_tests), 'skipped trajectory test')}"
        )
    if counted.in_failed_tests:
        lines.append(
            f"counted as they were: {_plural(counted.in_failed_tests, 'evaluation')} made by "
            "tests that then failed or errored"
        )
    if counted.repeated:
        lines.append(
            f"repeated tests count every attempt: {counted.repeated_passed} of "
            f"{_plural(counted.repeated, 'attempt evaluation')} passed"
        )
    if counted.idle_tests:
        lines.append(
            f"not counted: {_plural(len(counted.idle_tests), 'passing trajectory test')} "
            "without evaluations"
        )
    return lines


def miss_line(threshold: Threshold, counted: Tally) -> str:
    """The line that says why the session fails, naming the rate, the threshold and the group."""
    scope = "for the session"
    if threshold.family:
        scope = f"for family {threshold.group} (its parametrized tests)"
    elif threshold.group is not None:
        scope = f"for group {threshold.group} (tests marked @pytest.mark.{threshold.group})"
    option = f"{OPTION} {threshold.spelled()}"
    if counted.rate is None:
        return (
            f"agenttraj: no evaluations counted {scope}, so {option} is missed: the session fails"
        )
    if threshold.lower:
        low = _percent(counted.lower_bound(threshold.confidence) or 0.0)
        return (
            f"agenttraj: the lower bound {low} of pass rate {_percent(counted.rate)} is below "
            f"{option} {scope}: the session fails"
        )
    rate = _percent(counted.rate)
    return f"agenttraj: pass rate {rate} is below {option} {scope}: the session fails"


class PassRateGate(HookHolder):
    """Registered on the controlling process: learns each test's outcome from its reports and
    its evaluations from the session's results, judges the thresholds at the end of the session
    and prints how it counted."""

    def __init__(self, thresholds: Sequence[Threshold], session: TrajectorySession) -> None:
        self.thresholds = list(thresholds)
        self.session = session
        self.tests: dict[str, TestFacts] = {}
        self.results: list[tuple[Threshold, Tally]] | None = None

    def pytest_report_header(self) -> str:
        parts = [
            f"{'lower bound ' if t.lower else ''}{_percent(t.rate)} ({t.label()})"
            for t in self.thresholds
        ]
        return f"agenttraj: min pass rate {', '.join(parts)}"

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.tests.setdefault(report.nodeid, TestFacts()).see(report)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not gates_apply(session):
            return
        for record in self.session.results.records:
            self.tests.setdefault(str(record.get("nodeid")), TestFacts()).records.append(record)
        for nodeid, facts in self.tests.items():
            facts.learn(self.session.tags.get(nodeid), self.session.repeat_info.get(nodeid))
        self.results = [(t, tally(self.tests, t.group)) for t in self.thresholds]
        if any(not t.met_by(counted) for t, counted in self.results):
            fail_session(session)

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.results is None:
            return
        terminalreporter.write_sep("=", "trajectory pass rate")
        for threshold, counted in self.results:
            ok = threshold.met_by(counted)
            terminalreporter.write_line(threshold_line(threshold, counted), red=not ok)
        for line in counting_lines(tally(self.tests)):
            terminalreporter.write_line(line)
        for threshold, counted in self.results:
            if not threshold.met_by(counted):
                terminalreporter.write_line(miss_line(threshold, counted), red=True, bold=True)
