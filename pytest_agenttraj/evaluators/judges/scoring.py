"""A judge as a scorer with both faces: prepare the prompt messages, ask the judge (awaiting it
in the async face), build the result dict, and announce it to the running test with a
``JudgeReport``. The faces themselves come from the package's one helper (``evaluators.faces``)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from typing import Any, Protocol

from ...core.fingerprint import fingerprint
from ..faces import AsyncEvaluator, Evaluator, async_face, sync_face
from ..result import EvaluatorResult
from ..scope import announce, current_scope
from .engine import Judge, Verdict
from .report import JudgeReport

__all__ = ["JudgeSteps", "async_judge_evaluator", "judge_evaluator", "judge_settings"]


class JudgeSteps(Protocol):
    """What differs between judges: the messages to send (with notes for the result's
    metadata) and the result made of the answer."""

    def prepare(
        self, outputs: Any, reference_outputs: Any, inputs: Any, extra: Mapping[str, Any]
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]: ...

    def finish(self, verdict: Verdict, notes: Mapping[str, Any]) -> EvaluatorResult: ...


def judge_settings(judge: Judge, steps: JudgeSteps, label: str | None = None) -> dict[str, Any]:
    """What decides a judge's answers, for the record of each evaluation it makes: the model's
    name (``label``, the answer's own: a cached answer names its model without making it), and
    fingerprints of the model's parameters, the prompt, and the rest of what it is told and must
    answer (few-shot examples, system message, topics, answer schema, choices). Fingerprints
    only: a model's parameters may hold an API key."""
    told = {
        field.name: getattr(steps, field.name)
        for field in dataclasses.fields(steps)  # type: ignore[arg-type]  # steps are dataclasses
        if field.name not in ("key", "prompt")
    }
    return {
        "model": judge.model.label if label is None else label,
        "model_params": fingerprint(judge.model.identity(), length=8),
        "prompt": fingerprint(getattr(steps, "prompt", None), length=8),
        "setup": fingerprint({**told, "schema": judge.spec.schema, **judge.decides}, length=8),
    }


class _Scoring:
    """The one implementation behind both faces; the judge's settings are worked out on the
    first evaluation made inside a test (outside one nothing listens), then kept."""

    def __init__(self, judge: Judge, steps: JudgeSteps, origin: str) -> None:
        self.judge = judge
        self.steps = steps
        self.origin = origin
        self._settings: dict[str, Any] | None = None

    def score(
        self, outputs: Any, reference_outputs: Any, inputs: Any, extra: Mapping[str, Any]
    ) -> EvaluatorResult:
        started = time.perf_counter()
        messages, notes = self.steps.prepare(outputs, reference_outputs, inputs, extra)
        verdict = self.judge.ask(messages)
        return self._finish(verdict, notes, started, (outputs, reference_outputs, inputs))

    async def ascore(
        self, outputs: Any, reference_outputs: Any, inputs: Any, extra: Mapping[str, Any]
    ) -> EvaluatorResult:
        started = time.perf_counter()
        messages, notes = self.steps.prepare(outputs, reference_outputs, inputs, extra)
        verdict = await self.judge.aask(messages)
        return self._finish(verdict, notes, started, (outputs, reference_outputs, inputs))

    def _finish(
        self,
        verdict: Verdict,
        notes: Mapping[str, Any],
        started: float,
        sides: tuple[Any, Any, Any],
    ) -> EvaluatorResult:
        result = self.steps.finish(verdict, notes)
        if current_scope() is None:
            return result
        if self._settings is None:
            self._settings = judge_settings(self.judge, self.steps, verdict.model)
        report = JudgeReport(
            key=result["key"],
            score=result["score"],
            reasoning=result.get("comment"),
            model=verdict.model,
            judge_settings=self._settings,
        )
        outputs, reference_outputs, inputs = sides
        announce(
            result,
            report=report,
            outputs=outputs,
            reference_outputs=reference_outputs,
            inputs=inputs,
            started=started,
            origin=self.origin,
            extra=verdict.record(),
        )
        return result


def judge_evaluator(judge: Judge, steps: JudgeSteps, name: str, origin: str) -> Evaluator:
    """The synchronous face of a judge."""
    return sync_face(_Scoring(judge, steps, origin).score, name=name, needs_reference=False)


def async_judge_evaluator(
    judge: Judge, steps: JudgeSteps, name: str, origin: str
) -> AsyncEvaluator:
    """The awaitable face of a judge (a coroutine function)."""
    scoring = _Scoring(judge, steps, origin)
    return async_face(ascore=scoring.ascore, name=name, needs_reference=False)
