"""The JSON report sink (``--trajectory-report PATH``), written atomically by the controller."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .._files import write_atomically

if TYPE_CHECKING:
    from .session import TrajectorySession

__all__ = ["ReportFile"]


class ReportFile:
    """Writes the session's results to ``path`` at the end of the session."""

    def __init__(self, path: Path, session: TrajectorySession) -> None:
        self.path = path
        self.session = session
        self.error: str | None = None

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self) -> None:
        results = self.session.results
        document = results.to_json(settings=self.session.settings.as_json())
        try:
            write_atomically(self.path, json.dumps(document, indent=2, default=str) + "\n")
        except OSError as error:
            self.error = f"could not write the trajectory report to {self.path}: {error}"

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.error:
            terminalreporter.write_line(f"agenttraj: {self.error}", red=True, bold=True)
        elif self.session.results.records or self.path.exists():
            terminalreporter.write_line(f"agenttraj: trajectory report written to {self.path}")
