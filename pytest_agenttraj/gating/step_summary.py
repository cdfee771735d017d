"""A Markdown section appended to GitHub Actions' job summary (``$GITHUB_STEP_SUMMARY``): the
baseline's regressions first (when a baseline was compared), then every result, then the totals.
It never replaces what earlier steps wrote, and a file it cannot write changes no outcome."""

from __future__ import annotations

import os
import re
from collections.abc import Generator, Iterable
from pathlib import Path
from typing import Any

import pytest

from ..plugin.registration import HookHolder
from ..plugin.results import (
    TrajectoryResults,
    family_lines,
    mode_label,
    test_label,
    value_label,
)
from ..plugin.session import TrajectorySession
from . import STEP_SUMMARY_ENV
from .baseline import Comparison
from .baseline_gate import BaselineGate

__all__ = ["MAX_SUMMARY_ROWS", "STEP_SUMMARY_ENV", "StepSummary", "step_summary_markdown"]

MAX_SUMMARY_ROWS = 100
"""Rows shown per table in the step summary; GitHub caps one step's summary at 1 MiB."""


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
                ("✅ PASS" if r.get("passed") else "❌ FAIL") + _stats_cell(r),
            )
            for r in rows[:max_rows]
        ],
    )
    if len(rows) > max_rows:
        hidden = rows[max_rows:]
        failed = sum(1 for r in hidden if not r.get("passed"))
        lines += ["", f"_... {len(hidden)} more results not shown ({failed} failed)._"]
    lines += ["", f"**{results.lines(-1)[0]}**", ""]
    families = family_lines(results.summary(), limit=max_rows)
    if families:
        lines += ["### Parametrized tests", ""]
        lines += [f"- {_cell(line.removeprefix('family '))}" for line in families] + [""]
    return "\n".join(lines)


def _stats_cell(record: Any) -> str:
    """`` 4/5 passed (80%, 95% CI 37.6-96.4%), pass^5 0`` for a repeated result."""
    from ..plugin.repeat import stats_line

    text = stats_line(record)
    if text is None:
        return ""
    hats = record.get("pass_hat_k") or {}
    if hats:
        last = max(hats, key=int)
        text += f", pass^{last} {hats[last]:.3g}"
    return f" {text}"


def _baseline_section(
    comparison: Comparison, baseline: str | None, tolerance: float, max_rows: int
) -> list[str]:
    title = "### Baseline" + (f": {_cell(baseline)}" if baseline else "")
    regressions = comparison.failures  # regressed, not comparable, failing new, vanished
    count = len(regressions)
    if count:
        verdict = (
            f"❌ **{count} regression{'s' if count != 1 else ''}** against the baseline "
            f"(tolerance {tolerance:g}): the session fails."
        )
        if comparison.not_comparable:
            verdict += (
                f" {len(comparison.not_comparable)} of them judged under other settings than "
                "the baseline's, so not comparable."
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
                (test_label(c.identity[0], c.identity[2]), c.key, c.reason)
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


class StepSummary(HookHolder):
    """Registered on the controlling process when ``$GITHUB_STEP_SUMMARY`` is set: appends the
    Markdown section of the session's results to that file at the end of the session."""

    def __init__(
        self,
        config: pytest.Config,
        path: Path,
        session: TrajectorySession,
        baseline: BaselineGate | None,
    ) -> None:
        self.config = config
        self.path = path
        self.session = session
        self.baseline = baseline
        self.error: str | None = None

    # A trylast wrapper: its code after ``yield`` runs once every ``pytest_sessionfinish`` has
    # run (the baseline gate's comparison is ready) and before the terminal summary is printed.
    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_sessionfinish(self) -> Generator[None, None, None]:
        outcome = yield
        self.write()
        return outcome

    def write(self) -> None:
        text = step_summary_markdown(self.session.results, **self._baseline())
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
        gate = self.baseline
        if gate is None or gate.comparison is None:
            return {}
        try:
            shown = gate.path.relative_to(self.config.invocation_params.dir)
        except ValueError:
            shown = gate.path
        return {"comparison": gate.comparison, "baseline": str(shown), "tolerance": gate.tolerance}

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.error:
            terminalreporter.write_line(f"agenttraj: {self.error}", yellow=True)
