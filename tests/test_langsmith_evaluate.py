"""Every evaluator runs under langsmith's own ``run_evaluator`` (what ``Client.evaluate`` and
``aevaluate`` use), with real ``Run`` and ``Example`` objects: sync evaluators through
``evaluate_run``, async ones through ``aevaluate_run`` (langsmith tells them apart with
``inspect.iscoroutinefunction``)."""

from __future__ import annotations

import asyncio
import datetime
import inspect
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from langsmith.evaluation.evaluator import run_evaluator
from langsmith.schemas import Example, Run

import pytest_agenttraj as agenttraj

NOW = datetime.datetime.now(datetime.timezone.utc)
REFERENCE = [
    {"role": "user", "content": "Weather in SF?"},
    {"role": "assistant", "tool_calls": [{"name": "get_weather", "args": {"city": "SF"}}]},
]
WRONG = [
    {"role": "user", "content": "Weather in SF?"},
    {"role": "assistant", "tool_calls": [{"name": "get_weather", "args": {"city": "LA"}}]},
]
GRAPH = {"inputs": [{}], "results": [{}], "steps": [["__start__", "agent", "tools", "agent"]]}
GRAPH_WRONG = {"inputs": [{}], "results": [{}], "steps": [["__start__", "agent"]]}


def _run(outputs: Any) -> Run:
    return Run(
        id=uuid.uuid4(),
        name="agent",
        run_type="chain",
        start_time=NOW,
        inputs={"question": "Weather in SF?"},
        outputs=outputs,
        trace_id=uuid.uuid4(),
    )


def _example(outputs: Any) -> Example:
    return Example(
        id=uuid.uuid4(),
        dataset_id=uuid.uuid4(),
        inputs={"question": "Weather in SF?"},
        outputs=outputs,
        created_at=NOW,
    )


# (name, evaluator, run outputs / example outputs that pass, run outputs that fail, key)
EVALUATORS: list[tuple[str, Callable[[], Any], Any, Any, str]] = [
    (
        "trajectory_match",
        lambda: agenttraj.create_trajectory_match_evaluator(trajectory_match_mode="superset"),
        {"messages": REFERENCE},
        {"messages": WRONG},
        "trajectory_superset_match",
    ),
    (
        "async_trajectory_match",
        lambda: agenttraj.create_async_trajectory_match_evaluator(),
        {"messages": REFERENCE},
        {"messages": WRONG},
        "trajectory_strict_match",
    ),
    ("exact_match", lambda: agenttraj.exact_match, {"a": 1}, {"a": 2}, "exact_match"),
    ("exact_match_async", lambda: agenttraj.exact_match_async, {"a": 1}, {"a": 2}, "exact_match"),
    (
        "graph_strict",
        lambda: agenttraj.graph_trajectory_strict_match,
        GRAPH,
        GRAPH_WRONG,
        "graph_trajectory_strict_match",
    ),
    (
        "graph_strict_async",
        lambda: agenttraj.graph_trajectory_strict_match_async,
        GRAPH,
        GRAPH_WRONG,
        "graph_trajectory_strict_match",
    ),
]


def _evaluate(evaluator: Any, outputs: Any, reference: Any) -> Any:
    wrapped = run_evaluator(evaluator)
    if inspect.iscoroutinefunction(evaluator):
        return asyncio.run(wrapped.aevaluate_run(_run(outputs), _example(reference)))
    return wrapped.evaluate_run(_run(outputs), _example(reference))


@pytest.mark.parametrize(
    ("name", "make", "good", "bad", "key"), EVALUATORS, ids=[e[0] for e in EVALUATORS]
)
def test_langsmith_runs_each_evaluator(
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    make: Callable[[], Any],
    good: Any,
    bad: Any,
    key: str,
) -> None:
    monkeypatch.setenv("LANGSMITH_TRACING", "false")
    evaluator = make()
    assert inspect.iscoroutinefunction(evaluator) is name.endswith("async") or "async_" in name
    passed = _evaluate(evaluator, good, good)
    assert (passed.key, passed.score) == (key, True)
    failed = _evaluate(evaluator, bad, good)
    assert (failed.key, failed.score) == (key, False)
    assert failed.comment  # every mismatch says what did not match
