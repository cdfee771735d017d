"""The HTML page sink (``--trajectory-html PATH``): the run's report document, with the
baseline's comparison when one was made, drawn as one self-contained page by the controller.

Like the JSON report, a path that cannot be written is a usage error before any test runs, a run
that did not finish still gets its page (saying so), and a page that cannot be written is said
in the terminal summary without changing the session's outcome.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .._files import check_writable, write_atomically
from ..plugin.registration import HookHolder
from ..plugin.report_file import incomplete_reason, session_document

if TYPE_CHECKING:
    from ..plugin.session import TrajectorySession
    from .baseline_gate import BaselineGate

__all__ = ["HtmlReport"]


class HtmlReport(HookHolder):
    """Writes the page at the end of the session, after the gates have judged it."""

    def __init__(
        self, path: Path, session: TrajectorySession, baseline: BaselineGate | None
    ) -> None:
        problem = check_writable(path)
        if problem is not None:
            raise pytest.UsageError(f"--trajectory-html {path} cannot be written: {problem}")
        self.path = path
        self.session = session
        self.baseline = baseline
        self.where = Path(session.config.invocation_params.dir)
        self.error: str | None = None

    # A trylast wrapper: its code after ``yield`` runs once every ``pytest_sessionfinish`` has
    # run, so the baseline's comparison is ready.
    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_sessionfinish(
        self, session: pytest.Session, exitstatus: int
    ) -> Generator[None, None, None]:
        outcome = yield
        self.write(incomplete_reason(session, exitstatus))
        return outcome

    def write(self, reason: str | None) -> None:
        from ..render.html import page

        document = session_document(self.session, reason)
        gate = self.baseline
        if gate is not None and gate.comparison is not None:
            shown = gate.path
            if shown.is_relative_to(self.where):
                shown = shown.relative_to(self.where)
            document["baseline"] = {"path": str(shown), **gate.comparison.as_json()}
        try:
            write_atomically(self.path, page(document))
        except OSError as error:
            self.error = f"could not write the trajectory page to {self.path}: {error}"

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.error:
            terminalreporter.write_line(f"agenttraj: {self.error}", red=True, bold=True)
        else:
            terminalreporter.write_line(f"agenttraj: trajectory page written to {self.path}")
