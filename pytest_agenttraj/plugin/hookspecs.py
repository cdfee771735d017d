"""The plugin's own hooks. Implement them in a ``conftest.py`` or a plugin to receive every
trajectory evaluation; the terminal summary, the JSON report, baseline gating and LangSmith
logging are themselves implementations of these hooks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ..evaluators.result import EvaluatorResult

hookspec = pytest.hookspec


@hookspec
def pytest_agenttraj_evaluated(
    item: pytest.Item, result: EvaluatorResult, record: dict[str, Any], evaluation: Any
) -> None:
    """Called for every evaluation made while ``item`` runs, in the process that runs it.

    ``result`` is the evaluator's result dict; ``record`` the JSON-ready entry that will reach the
    report (nodeid, key, score, passed, comment, mode, tool_args_mode, duration_s, index, ...);
    ``evaluation`` holds the compared trajectories and the match report. Under pytest-xdist this
    runs on the worker, while the test is still running (the place for live logging).

    Example::

        def pytest_agenttraj_evaluated(item, result):
            if not result["score"]:
                item.add_report_section("call", "agent", f"{result['key']} failed")
    """


@hookspec
def pytest_agenttraj_record(config: pytest.Config, record: dict[str, Any]) -> None:
    """Called once per evaluation when its test's report arrives, in the controlling process.

    Under pytest-xdist the records come from the workers; without it, from this process. Every
    record is announced exactly once, so aggregate here (summaries, reports, gating).

    Example::

        def pytest_agenttraj_record(config, record):
            if not record["passed"]:
                print("regressed:", record["nodeid"], record["key"])
    """


@hookspec
def pytest_agenttraj_repeated(item: pytest.Item, records: list[dict[str, Any]]) -> None:
    """Called once after the last attempt of a repeated test (``repeat=N``), in the process that
    ran it, with the test's aggregated records: one per evaluation, with ``attempts``,
    ``passed_attempts``, ``pass_rate`` and its statistics (``pass_rate_interval``,
    ``pass_hat_k``, ``pass_at_k``; ``score_mean`` for graded results). LangSmith logging puts
    them on the run of the last attempt as feedback.

    Example::

        def pytest_agenttraj_repeated(item, records):
            for record in records:
                print(item.nodeid, record["key"], record["pass_hat_k"])
    """
