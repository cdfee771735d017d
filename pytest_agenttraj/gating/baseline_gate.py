"""Baseline gating (``--trajectory-baseline``): compare this run's results with an earlier report
and fail the session on regressions, even where each test's own outcome would not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .._version import __version__
from ..errors import BaselineError
from ..plugin.registration import HookHolder
from ..plugin.session import TrajectorySession
from .baseline import DEFAULT_ALPHA, Comparison, compare, identity
from .baseline_file import load_baseline
from .verdict import fail_session, gates_apply

__all__ = ["BaselineGate"]


class BaselineGate(HookHolder):
    """Registered on the controlling process; judges the session's results at the end."""

    def __init__(
        self,
        path: Path,
        tolerance: float,
        session: TrajectorySession,
        *,
        allow_new_failures: bool = False,
        allow_vanished: bool = False,
        allow_changed_settings: bool = False,
        alpha: float = DEFAULT_ALPHA,
    ) -> None:
        try:
            self.baseline = load_baseline(path)
        except BaselineError as error:
            raise pytest.UsageError(str(error)) from None
        self.path = path
        self.tolerance = tolerance
        self.session = session
        self.allow_new_failures = allow_new_failures
        self.allow_vanished = allow_vanished
        self.allow_changed_settings = allow_changed_settings
        self.alpha = alpha
        self.comparison: Comparison | None = None

    def baseline_records(self) -> dict[tuple[str, str, int], dict[str, Any]]:
        """The baseline's results by identity (test, evaluator, occurrence)."""
        return {identity(r): r for r in self.baseline.get("results", [])}

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not gates_apply(session):
            return
        self.comparison = compare(
            self.baseline,
            self.session.results.records,
            tolerance=self.tolerance,
            settings=self.session.settings.as_json(),
            package_version=__version__,
            allow_new_failures=self.allow_new_failures,
            allow_vanished=self.allow_vanished,
            allow_changed_settings=self.allow_changed_settings,
            alpha=self.alpha,
        )
        if self.comparison.failed:
            fail_session(session)

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.comparison is None:
            return
        verbosity = terminalreporter.config.get_verbosity()
        terminalreporter.write_sep("=", f"trajectory baseline: {self.path}")
        for line in self.comparison.lines(verbosity):
            terminalreporter.write_line(
                line,
                red=line.split(":")[0].isupper(),
                green=line.startswith("improved"),
                yellow=line.startswith(
                    ("baseline was made", "not comparable", "other settings", "changed, not")
                ),
            )
        if self.comparison.failed:
            terminalreporter.write_line(
                f"agenttraj: {len(self.comparison.failures)} result(s) regressed, failed new, "
                "vanished or are not comparable against the baseline: the session fails",
                red=True,
                bold=True,
            )
