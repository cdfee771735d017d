"""Baseline gating (``--trajectory-baseline``): compare this run's results with an earlier report
and fail the session on regressions, even where each test's own outcome would not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ._settings import TrajectorySettings
from ._version import __version__
from .baseline import BaselineError, Comparison, compare, load_baseline

__all__ = ["BaselineGate"]


class BaselineGate:
    """Registered on the controlling process; collects records and judges them at the end."""

    def __init__(self, path: Path, tolerance: float, settings: TrajectorySettings) -> None:
        try:
            self.baseline = load_baseline(path)
        except BaselineError as error:
            raise pytest.UsageError(str(error)) from None
        self.path = path
        self.tolerance = tolerance
        self.settings = settings
        self.records: list[dict[str, Any]] = []
        self.comparison: Comparison | None = None

    def pytest_agenttraj_record(self, record: dict[str, Any]) -> None:
        self.records.append(record)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.comparison = compare(
            self.baseline,
            self.records,
            tolerance=self.tolerance,
            settings=self.settings.as_json(),
            package_version=__version__,
        )
        if self.comparison.failed and session.exitstatus in (
            pytest.ExitCode.OK,
            pytest.ExitCode.NO_TESTS_COLLECTED,
        ):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.comparison is None:
            return
        verbosity = terminalreporter.config.get_verbosity()
        terminalreporter.write_sep("=", f"trajectory baseline: {self.path}")
        for line in self.comparison.lines(verbosity):
            terminalreporter.write_line(
                line,
                red=line.startswith("REGRESSED"),
                green=line.startswith("improved"),
                yellow=line.startswith("baseline was made"),
            )
        if self.comparison.failed:
            terminalreporter.write_line(
                f"agenttraj: {len(self.comparison.regressions)} regression(s) against the "
                "baseline: the session fails",
                red=True,
                bold=True,
            )
