"""Fixtures for graded scores and LLM judges: tool-call accuracy and F1 evaluators configured
from the test's settings, the run's judge cache, and judge factories that use it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from .fixtures import running_item, settings_of
from .registration import module_dir
from .session import SESSION_KEY
from .settings import TrajectorySettings

if TYPE_CHECKING:  # graded evaluators and judges load when their fixture is used
    from ..evaluators.faces import AsyncEvaluator, Evaluator
    from ..evaluators.judges import JudgeCache

__all__ = [
    "async_trajectory_judge",
    "judge_cache",
    "tool_call_accuracy_evaluator",
    "tool_call_f1_evaluator",
    "trajectory_judge",
]


def _graded(settings: TrajectorySettings, kind: str) -> Evaluator:
    """The metric with the test's args rules; an args mode nobody chose is the metric's own
    default (Ragas' rule)."""
    from ..core.metrics import Rules
    from ..evaluators.graded import graded_config, graded_faces

    chosen = (
        settings.tool_args if settings.sources.get("tool_args", "default") != "default" else None
    )
    config = graded_config(chosen, settings.overrides, metric=kind)
    return graded_faces(kind, config, Rules(), f"{kind}_evaluator")[0]


@pytest.fixture
def tool_call_accuracy_evaluator() -> Evaluator:
    """A ``tool_call_accuracy`` evaluator (strict order) with this test's args rules
    (``tool_args``, ``overrides``); a result passes at the marker's ``min_score`` (default 1).

    Example::

        @pytest.mark.trajectory(min_score=0.8)
        def test_agent(tool_call_accuracy_evaluator):
            tool_call_accuracy_evaluator(outputs=messages, reference_outputs=expected_calls)
    """
    return _graded(settings_of(running_item("tool_call_accuracy_evaluator")), "tool_call_accuracy")


@pytest.fixture
def tool_call_f1_evaluator() -> Evaluator:
    """A ``tool_call_f1`` evaluator with this test's args rules; a result passes at the
    marker's ``min_score`` (default 1).

    Example::

        def test_agent(tool_call_f1_evaluator):
            result = tool_call_f1_evaluator(outputs=messages, reference_outputs=reference)
            assert result["metadata"]["recall"] == 1.0
    """
    return _graded(settings_of(running_item("tool_call_f1_evaluator")), "tool_call_f1")


@pytest.fixture
def judge_cache() -> JudgeCache | None:
    """The run's cache of LLM judge answers (in pytest's cache directory, mode from
    ``--trajectory-judge-cache``), or ``None`` when pytest's cache plugin is off.

    Example::

        def test_agent(judge_cache):
            judge = create_trajectory_llm_as_judge(judge=model, cache=judge_cache)
    """
    cache: JudgeCache | None = running_item("judge_cache").config.stash[SESSION_KEY].judge_cache
    return cache


@pytest.fixture
def trajectory_judge() -> Callable[..., Evaluator]:
    """``trajectory_judge(judge=model, **options)``: ``create_trajectory_llm_as_judge`` with
    the run's judge cache, so an unchanged re-run costs no model calls.

    Example::

        def test_agent(trajectory_judge, chat_model):
            result = trajectory_judge(judge=chat_model)(outputs=messages)
            assert result["score"], result["comment"]
    """

    from ..evaluators.judges import create_trajectory_llm_as_judge

    def make(**options: Any) -> Evaluator:
        options.setdefault("cache", True)
        return create_trajectory_llm_as_judge(**options)

    return make


@pytest.fixture
def async_trajectory_judge() -> Callable[..., AsyncEvaluator]:
    """``async_trajectory_judge(judge=model, **options)``: the async judge with the run's cache.

    Example::

        async def test_agent(async_trajectory_judge, chat_model):
            result = await async_trajectory_judge(judge=chat_model)(outputs=messages)
    """

    from ..evaluators.judges import create_async_trajectory_llm_as_judge

    def make(**options: Any) -> AsyncEvaluator:
        options.setdefault("cache", True)
        return create_async_trajectory_llm_as_judge(**options)

    return make


__dir__ = module_dir(globals())  # see .registration
