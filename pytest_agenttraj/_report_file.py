"""The JSON report sink (``--trajectory-report PATH``), written atomically by the controller."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ._files import write_atomically
from ._settings import TrajectorySettings
from .report import TrajectoryResults

__all__ = ["ReportFile", "write_atomically"]


class ReportFile:
    """Collects every record through ``pytest_agenttraj_record``; writes the report at the end."""

    def __init__(self, path: Path, settings: TrajectorySettings) -> None:
        self.path = path
        self.settings = settings
        self.results = TrajectoryResults()
        self.error: str | None = None

    def pytest_agenttraj_record(self, record: dict[str, Any]) -> None:
        self.results.add(record)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        document = self.results.to_json(settings=self.settings.as_json())
        try:
            write_atomically(self.path, json.dumps(document, indent=2, default=str) + "\n")
        except OSError as error:
            self.error = f"could not write the trajectory report to {self.path}: {error}"

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.error:
            terminalreporter.write_line(f"agenttraj: {self.error}", red=True, bold=True)
        elif self.results.records or self.path.exists():
            terminalreporter.write_line(f"agenttraj: trajectory report written to {self.path}")
