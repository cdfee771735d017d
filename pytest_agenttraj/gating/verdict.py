"""How a gate fails the session: the same way for every gate."""

from __future__ import annotations

import pytest

__all__ = ["fail_session", "gates_apply"]


def gates_apply(session: pytest.Session) -> bool:
    """Whether gates judge this session: not under ``--collect-only``, where no test ran."""
    return not session.config.option.collectonly


def fail_session(session: pytest.Session) -> None:
    """Make the session fail. A run whose tests passed, or that collected no test at all
    (exit 5: a gate that expected results and got none has failed), exits 1; an exit status
    that already says more (tests failed, interrupted, usage or internal error) is kept."""
    if session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
