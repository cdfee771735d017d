"""The sync and async faces of a judge evaluator, around one preparation and one result step:
prepare the prompt messages, ask the judge, build the result dict, announce it to the running
test. The async face is a real coroutine function, as LangSmith's evaluators require."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from ..result import EvaluatorResult
from ..scope import announce
from .engine import Judge, Verdict

__all__ = ["AsyncJudgeEvaluator", "JudgeEvaluator", "JudgeSteps", "async_face", "sync_face"]

JudgeEvaluator = Callable[..., EvaluatorResult]
"""``evaluator(*, outputs, reference_outputs=None, inputs=None, **kwargs) -> EvaluatorResult``."""
AsyncJudgeEvaluator = Callable[..., Awaitable[EvaluatorResult]]


class JudgeSteps(Protocol):
    """What differs between judges: the messages to send (with notes for the result's
    metadata) and the result made of the answer."""

    def prepare(
        self, outputs: Any, reference_outputs: Any, inputs: Any, extra: Mapping[str, Any]
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]: ...

    def finish(self, verdict: Verdict, notes: Mapping[str, Any]) -> EvaluatorResult: ...


def _announce(
    result: EvaluatorResult,
    verdict: Verdict,
    started: float,
    origin: str,
    sides: tuple[Any, Any, Any],
) -> None:
    outputs, reference_outputs, inputs = sides
    announce(
        result,
        outputs=outputs,
        reference_outputs=reference_outputs,
        inputs=inputs,
        started=started,
        origin=origin,
        extra=verdict.record(),
    )


def sync_face(judge: Judge, steps: JudgeSteps, name: str, origin: str) -> JudgeEvaluator:
    def evaluator(
        *, outputs: Any, reference_outputs: Any = None, inputs: Any = None, **kwargs: Any
    ) -> EvaluatorResult:
        started = time.perf_counter()
        messages, notes = steps.prepare(outputs, reference_outputs, inputs, kwargs)
        verdict = judge.ask(messages)
        result = steps.finish(verdict, notes)
        _announce(result, verdict, started, origin, (outputs, reference_outputs, inputs))
        return result

    evaluator.__name__ = evaluator.__qualname__ = name
    return evaluator


def async_face(judge: Judge, steps: JudgeSteps, name: str, origin: str) -> AsyncJudgeEvaluator:
    async def evaluator(
        *, outputs: Any, reference_outputs: Any = None, inputs: Any = None, **kwargs: Any
    ) -> EvaluatorResult:
        started = time.perf_counter()
        messages, notes = steps.prepare(outputs, reference_outputs, inputs, kwargs)
        verdict = await judge.aask(messages)
        result = steps.finish(verdict, notes)
        _announce(result, verdict, started, origin, (outputs, reference_outputs, inputs))
        return result

    evaluator.__name__ = evaluator.__qualname__ = name
    return evaluator
