"""The JSON report sink (``--trajectory-report PATH``), written atomically by the controller.

A path that cannot be written is a usage error before any test runs. A run that did not finish
(Ctrl-C, an internal error, ``-x`` or ``--maxfail`` stopping it) still writes what it has, marked
``"complete": false`` with the reason, so that it is never taken for a whole run (a baseline
refuses it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .._files import check_writable, redact_secrets, write_atomically
from .registration import HookHolder

if TYPE_CHECKING:
    from .session import TrajectorySession

__all__ = ["ReportFile", "incomplete_reason", "parse_shard", "session_document"]


def parse_shard(text: str, *, where: str = "--trajectory-shard") -> dict[str, int]:
    """``"2/4"`` -> ``{"index": 2, "total": 4}``; a ``pytest.UsageError`` naming ``where``
    otherwise."""
    index, _, total = text.strip().partition("/")
    if not (index.isdigit() and total.isdigit()) or not 1 <= int(index) <= int(total):
        raise pytest.UsageError(
            f"invalid {where} {text!r}: expected I/N with 1 <= I <= N, e.g. 2/4"
        )
    return {"index": int(index), "total": int(total)}


class ReportFile(HookHolder):
    """Writes the session's results to ``path`` at the end of the session."""

    def __init__(
        self, path: Path, session: TrajectorySession, shard: dict[str, int] | None = None
    ) -> None:
        problem = check_writable(path)
        if problem is not None:
            raise pytest.UsageError(f"--trajectory-report {path} cannot be written: {problem}")
        self.path = path
        self.session = session
        self.shard = shard
        self.error: str | None = None

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        document = session_document(self.session, incomplete_reason(session, exitstatus))
        if self.shard is not None:
            document["shard"] = dict(self.shard)
        try:
            text = json.dumps(document, indent=2, default=str) + "\n"
            write_atomically(self.path, redact_secrets(text))
        except OSError as error:
            self.error = f"could not write the trajectory report to {self.path}: {error}"

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.error:
            terminalreporter.write_line(f"agenttraj: {self.error}", red=True, bold=True)
        elif self.session.results.records or self.path.exists():
            terminalreporter.write_line(f"agenttraj: trajectory report written to {self.path}")


def session_document(session: TrajectorySession, reason: str | None) -> dict[str, Any]:
    """The run's report document, saying whether the run finished (``reason``: why not)."""
    document = session.results.to_json(settings=session.settings.as_json())
    document["complete"] = reason is None
    if reason is not None:
        document["incomplete_reason"] = reason
    return document


def incomplete_reason(session: pytest.Session, exitstatus: int) -> str | None:
    """Why the run's results are not all of it, if they are not."""
    if exitstatus == pytest.ExitCode.INTERRUPTED:
        return "the run was interrupted"
    if exitstatus == pytest.ExitCode.INTERNAL_ERROR:
        return "the run ended with an internal error"
    if session.shouldfail:
        return f"the run stopped early: {session.shouldfail}"
    if session.shouldstop:
        return f"the run stopped early: {session.shouldstop}"
    return None
