"""Pass-rate gating (``--trajectory-min-pass-rate``): fail the session when too small a share of
the trajectory evaluations passed, for the whole run or for the tests carrying a marker.

``RATE`` (0..1) gates the session; ``GROUP=RATE`` (the option is repeatable, the ini key
``trajectory_min_pass_rate`` takes one per line) gates the tests marked ``@pytest.mark.GROUP``.
A threshold of 0 never fails. What is counted, on the controlling process after the run:

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

from ..plugin.results import attempt_counts
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
    "RATE from 0 to 1 for the session (e.g. 0.8) or GROUP=RATE for the tests of a marker "
    "(e.g. smoke=0.9)"
)


@dataclass(frozen=True)
class Threshold:
    """A minimum pass rate for the session (``group=None``) or one marker's tests."""

    rate: float
    group: str | None = None

    def label(self) -> str:
        return "the session" if self.group is None else f"group {self.group}"

    def spelled(self) -> str:
        rate = f"{self.rate:g}"
        return rate if self.group is None else f"{self.group}={rate}"


def parse_thresholds(values: Iterable[str], *, where: str) -> list[Threshold]:
    """``["0.8", "smoke=0.9"]`` -> thresholds; a bad or repeated value is a ``UsageError``."""
    thresholds: dict[str | None, Threshold] = {}
    for raw in values:
        text = str(raw).strip()
        group: str | None = None
        number = text
        if "=" in text:
            name, _, number = (part.strip() for part in text.partition("="))
            if not name.isidentifier():
                raise pytest.UsageError(
                    f"invalid {where} {raw!r}: GROUP must be a marker name; expected {_FORMS}"
                )
            group = name
        try:
            rate = float(number)
        except ValueError:
            rate = -1.0
        if not 0 <= rate <= 1:
            raise pytest.UsageError(f"invalid {where} {raw!r}: expected {_FORMS}")
        if group in thresholds:
            raise pytest.UsageError(
                f"invalid {where} {raw!r}: {Threshold(rate, group).label()} has a threshold "
                "already; give one per group"
            )
        thresholds[group] = Threshold(rate, group)
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


def tally(tests: Mapping[str, TestFacts], group: str | None = None) -> Tally:
    """Count the evaluations of ``tests`` (those carrying ``group``, if given)."""
    out = Tally()
    for nodeid, facts in sorted(tests.items()):
        if group is not None and group not in facts.groups:
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
    """One threshold's outcome, e.g.
    ``session: 70% of 10 evaluations passed (7 passed, 2 failed, 1 skipped); needs 80%: MISSED``.
    """
    name = "session" if threshold.group is None else f"group {threshold.group}"
    verdict = "ok" if counted.meets(threshold.rate) else "MISSED"
    if counted.rate is None:
        return f"{name}: no evaluations counted; needs {_percent(threshold.rate)}: {verdict}"
    parts = [f"{counted.passed} passed", f"{counted.failed} failed"]
    if counted.skipped:
        parts.append(f"{counted.skipped} skipped")
    return (
        f"{name}: {_percent(counted.rate)} of {_plural(counted.total, 'evaluation')} passed "
        f"({', '.join(parts)}); needs {_percent(threshold.rate)}: {verdict}"
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
    if threshold.group is not None:
        scope = f"for group {threshold.group} (tests marked @pytest.mark.{threshold.group})"
    option = f"{OPTION} {threshold.spelled()}"
    if counted.rate is None:
        return (
            f"agenttraj: no evaluations counted {scope}, so {option} is missed: the session fails"
        )
    rate = _percent(counted.rate)
    return f"agenttraj: pass rate {rate} is below {option} {scope}: the session fails"


class PassRateGate:
    """Registered on the controlling process: learns each test's outcome from its reports and
    its evaluations from the session's results, judges the thresholds at the end of the session
    and prints how it counted."""

    def __init__(self, thresholds: Sequence[Threshold], session: TrajectorySession) -> None:
        self.thresholds = list(thresholds)
        self.session = session
        self.tests: dict[str, TestFacts] = {}
        self.results: list[tuple[Threshold, Tally]] | None = None

    def pytest_report_header(self) -> str:
        parts = [f"{_percent(t.rate)} ({t.label()})" for t in self.thresholds]
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
        if any(not counted.meets(t.rate) for t, counted in self.results):
            fail_session(session)

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.results is None:
            return
        terminalreporter.write_sep("=", "trajectory pass rate")
        for threshold, counted in self.results:
            ok = counted.meets(threshold.rate)
            terminalreporter.write_line(threshold_line(threshold, counted), red=not ok)
        for line in counting_lines(tally(self.tests)):
            terminalreporter.write_line(line)
        for threshold, counted in self.results:
            if not counted.meets(threshold.rate):
                terminalreporter.write_line(miss_line(threshold, counted), red=True, bold=True)
