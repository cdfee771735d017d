"""The sync and async faces of a judge evaluator, around one preparation and one result step:
prepare the prompt messages, ask the judge, build the result dict, announce it to the running
test. The async face is a real coroutine function, as LangSmith's evaluators require."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from ...core.fingerprint import fingerprint
from ..result import EvaluatorResult
from ..scope import announce, current_scope
from .engine import Judge, Verdict

__all__ = [
    "AsyncJudgeEvaluator",
    "JudgeEvaluator",
    "JudgeSteps",
    "async_face",
    "judge_settings",
    "sync_face",
]

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


def judge_settings(judge: Judge, steps: JudgeSteps) -> dict[str, Any]:
    """What decides a judge's answers, for the record of each evaluation it makes: the model's
    name, and fingerprints of the model's parameters, the prompt, and the rest of what it is
    told and must answer (few-shot examples, system message, topics, answer schema, choices).
    Fingerprints only: a model's parameters may hold an API key."""
    told = {
        field.name: getattr(steps, field.name)
        for field in dataclasses.fields(steps)  # type: ignore[arg-type]  # steps are dataclasses
        if field.name not in ("key", "prompt")
    }
    return {
        "model": judge.model.label,
        "model_params": fingerprint(judge.model.identity(), length=8),
        "prompt": fingerprint(getattr(steps, "prompt", None), length=8),
        "setup": fingerprint({**told, "schema": judge.spec.schema, **judge.decides}, length=8),
    }


class _Announcer:
    """Tells the running test about each evaluation, with the judge's settings (worked out on
    the first evaluation made inside a test, then kept)."""

    def __init__(self, judge: Judge, steps: JudgeSteps, origin: str) -> None:
        self.judge = judge
        self.steps = steps
        self.origin = origin
        self.settings: dict[str, Any] | None = None

    def __call__(
        self,
        result: EvaluatorResult,
        verdict: Verdict,
        started: float,
        sides: tuple[Any, Any, Any],
    ) -> None:
        if current_scope() is None:
            return  # outside a test nothing listens: no settings to work out
        if self.settings is None:
            self.settings = judge_settings(self.judge, self.steps)
        outputs, reference_outputs, inputs = sides
        announce(
            result,
            outputs=outputs,
            reference_outputs=reference_outputs,
            inputs=inputs,
            started=started,
            origin=self.origin,
            extra={**verdict.record(), "judge_settings": self.settings},
        )


def sync_face(judge: Judge, steps: JudgeSteps, name: str, origin: str) -> JudgeEvaluator:
    announce_result = _Announcer(judge, steps, origin)

    def evaluator(
        *, outputs: Any, reference_outputs: Any = None, inputs: Any = None, **kwargs: Any
    ) -> EvaluatorResult:
        started = time.perf_counter()
        messages, notes = steps.prepare(outputs, reference_outputs, inputs, kwargs)
        verdict = judge.ask(messages)
        result = steps.finish(verdict, notes)
        announce_result(result, verdict, started, (outputs, reference_outputs, inputs))
        return result

    evaluator.__name__ = evaluator.__qualname__ = name
    return evaluator


def async_face(judge: Judge, steps: JudgeSteps, name: str, origin: str) -> AsyncJudgeEvaluator:
    announce_result = _Announcer(judge, steps, origin)

    async def evaluator(
        *, outputs: Any, reference_outputs: Any = None, inputs: Any = None, **kwargs: Any
    ) -> EvaluatorResult:
        started = time.perf_counter()
        messages, notes = steps.prepare(outputs, reference_outputs, inputs, kwargs)
        verdict = await judge.aask(messages)
        result = steps.finish(verdict, notes)
        announce_result(result, verdict, started, (outputs, reference_outputs, inputs))
        return result

    evaluator.__name__ = evaluator.__qualname__ = name
    return evaluator
