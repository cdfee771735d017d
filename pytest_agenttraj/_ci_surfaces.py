"""CI surfaces: readable per-result properties in pytest's JUnit XML (``--junitxml``) and a Markdown
section appended to GitHub Actions' job summary (``$GITHUB_STEP_SUMMARY``).

pytest's junitxml plugin takes a testcase's ``<properties>`` from the ``user_properties`` of the
teardown report only (and, when both the call and the teardown fail, from the failed call report
for the first of the two testcases it then writes). So the properties ride on the teardown report:
they reach the XML exactly once, serially and under pytest-xdist, whose workers send that report to
the controller that writes the file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Generator, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .report import TrajectoryResults, mode_label, test_label, value_label

if TYPE_CHECKING:
    from .baseline import Comparison

__all__ = [
    "JUNIT_PREFIX",
    "MAX_SUMMARY_ROWS",
    "STEP_SUMMARY_ENV",
    "JunitProperties",
    "StepSummary",
    "junit_properties",
    "register",
    "step_summary_markdown",
    "unregister",
]

JUNIT_PREFIX = "agenttraj"
"""Each result's JUnit properties are named ``agenttraj.<key>.<field>`` (``agenttraj.<key>[<index>]
.<field>`` for a key's second and later results in one test)."""

STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
MAX_SUMMARY_ROWS = 100
"""Rows shown per table in the step summary; GitHub caps one step's summary at 1 MiB."""

_PLUGINS = pytest.StashKey[list[object]]()
_RESULTS = pytest.StashKey[list[tuple[str, str]]]()
_JUNIT_FIELDS = ("score", "passed", "pass_rate", "mode", "tool_args_mode")


# ------------------------------------------------------------------ JUnit XML


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
    """Registered with ``--junitxml`` in every process that runs tests (xdist workers included):
    gathers each test's results and puts their properties on its teardown report."""

    def pytest_agenttraj_evaluated(self, item: pytest.Item, record: dict[str, Any]) -> None:
        item.stash.setdefault(_RESULTS, []).extend(junit_properties(record))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if call.when == "teardown" and _RESULTS in item.stash:
            properties = item.stash[_RESULTS]
            # Taken off the item so that a rerun (pytest-rerunfailures) starts afresh.
            del item.stash[_RESULTS]
            report.user_properties.extend(properties)
        return report


# ------------------------------------------------------------------ GitHub step summary


def step_summary_markdown(
    results: TrajectoryResults,
    *,
    comparison: Comparison | None = None,
    baseline: str | None = None,
    tolerance: float = 0.0,
    max_rows: int = MAX_SUMMARY_ROWS,
) -> str:
    """The Markdown section for ``$GITHUB_STEP_SUMMARY``: the baseline's regressions (when a
    baseline was compared), the results with failures first, then the totals. Empty when there
    are no results.
    """
    if not results.records:
        return ""
    lines = ["## Agent trajectories", ""]
    if comparison is not None:
        lines += _baseline_section(comparison, baseline, tolerance, max_rows)
    rows = sorted(results.sorted_records(), key=lambda r: bool(r.get("passed")))
    lines += ["### Results", ""]
    lines += _table(
        ("test", "key", "mode", "score", "result"),
        [
            (
                test_label(r.get("nodeid"), r.get("index")),
                str(r.get("key")),
                mode_label(r),
                value_label(r.get("score")),
                "✅ PASS" if r.get("passed") else "❌ FAIL",
            )
            for r in rows[:max_rows]
        ],
    )
    if len(rows) > max_rows:
        hidden = rows[max_rows:]
        failed = sum(1 for r in hidden if not r.get("passed"))
        lines += ["", f"_... {len(hidden)} more results not shown ({failed} failed)._"]
    lines += ["", f"**{results.lines(-1)[0]}**", ""]
    return "\n".join(lines)


def _baseline_section(
    comparison: Comparison, baseline: str | None, tolerance: float, max_rows: int
) -> list[str]:
    title = "### Baseline" + (f": {_cell(baseline)}" if baseline else "")
    regressions = comparison.regressions
    count = len(regressions)
    if count:
        verdict = (
            f"❌ **{count} regression{'s' if count != 1 else ''}** against the baseline "
            f"(tolerance {tolerance:g}): the session fails."
        )
    else:
        verdict = f"✅ No regressions against the baseline (tolerance {tolerance:g})."
    lines = [title, "", verdict, ""]
    lines += [f"> {_cell(warning)}" for warning in comparison.warnings]
    if comparison.warnings:
        lines.append("")
    if regressions:
        lines += _table(
            ("test", "key", "change"),
            [
                (test_label(c.identity[0], c.identity[2]), c.identity[1], c.reason)
                for c in regressions[:max_rows]
            ],
        )
        if count > max_rows:
            lines += ["", f"_... {count - max_rows} more regressions not shown._"]
        lines.append("")
    lines += [_cell(comparison.counts()), ""]
    return lines


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<|&~])")
_NEWLINE = re.compile(r"\r\n|\r|\n")


def _cell(text: object) -> str:
    """Text safe in a Markdown table cell: the punctuation that Markdown or HTML would interpret
    there (``|`` among it) backslash-escaped, newlines turned into ``<br>``."""
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", str(text))
    return _NEWLINE.sub("<br>", escaped)


def _table(header: tuple[str, ...], rows: Iterable[tuple[str, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    for row in rows:
        lines.append("| " + " | ".join(_cell(cell) for cell in row) + " |")
    return lines


class StepSummary:
    """Registered on the controlling process when ``$GITHUB_STEP_SUMMARY`` is set: collects every
    record and appends the Markdown section to that file at the end of the session."""

    def __init__(self, config: pytest.Config, path: Path) -> None:
        self.config = config
        self.path = path
        self.results = TrajectoryResults()
        self.error: str | None = None

    def pytest_agenttraj_record(self, record: dict[str, Any]) -> None:
        self.results.add(record)

    # A trylast wrapper: its code after ``yield`` runs once every ``pytest_sessionfinish`` has
    # run (the baseline gate's comparison is ready) and before the terminal summary is printed.
    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_sessionfinish(self) -> Generator[None, None, None]:
        outcome = yield
        self.write()
        return outcome

    def write(self) -> None:
        text = step_summary_markdown(self.results, **self._baseline())
        if not text:
            return
        try:
            # "a+b": every write goes to the end of the file, whatever was read before it.
            with self.path.open("a+b") as stream:
                stream.seek(0, os.SEEK_END)
                separator = b""
                if stream.tell():
                    # A blank line between this section and what an earlier step wrote.
                    stream.seek(-1, os.SEEK_END)
                    separator = b"\n" if stream.read(1) == b"\n" else b"\n\n"
                stream.write(separator + text.encode("utf-8"))
        except OSError as error:
            self.error = (
                f"could not append the trajectory summary to ${STEP_SUMMARY_ENV} "
                f"({self.path}): {error}"
            )

    def _baseline(self) -> dict[str, Any]:
        gate = self.config.pluginmanager.get_plugin("agenttraj-baseline")
        comparison = getattr(gate, "comparison", None)
        if gate is None or comparison is None:
            return {}
        path = Path(gate.path)
        try:
            shown = path.relative_to(self.config.invocation_params.dir)
        except ValueError:
            shown = path
        return {"comparison": comparison, "baseline": str(shown), "tolerance": gate.tolerance}

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.error:
            terminalreporter.write_line(f"agenttraj: {self.error}", yellow=True)


# ------------------------------------------------------------------ wiring


def register(config: pytest.Config) -> None:
    """Register the surfaces this run asks for (called from the plugin's ``pytest_configure``)."""
    plugins: list[object] = []
    if config.getoption("xmlpath", default=None):
        junit = JunitProperties()
        config.pluginmanager.register(junit, "agenttraj-junit")
        plugins.append(junit)
    summary_path = os.environ.get(STEP_SUMMARY_ENV)
    if summary_path and not hasattr(config, "workerinput"):
        summary = StepSummary(config, Path(config.invocation_params.dir, summary_path))
        config.pluginmanager.register(summary, "agenttraj-step-summary")
        plugins.append(summary)
    config.stash[_PLUGINS] = plugins


def unregister(config: pytest.Config) -> None:
    """Undo ``register`` (called from the plugin's ``pytest_unconfigure``)."""
    for plugin in config.stash.get(_PLUGINS, []):
        config.pluginmanager.unregister(plugin)
    if _PLUGINS in config.stash:
        del config.stash[_PLUGINS]
