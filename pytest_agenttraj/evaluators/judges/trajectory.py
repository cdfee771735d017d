"""LLM-as-judge for trajectories and graph threads, agentevals-compatible: same factory names,
keyword arguments, default feedback keys (``trajectory_accuracy``,
``graph_trajectory_accuracy``) and result shape; ``comment`` holds the judge's reasoning and
``metadata`` what the judging cost (model calls, tokens, whether the answer was cached)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..result import EvaluatorResult
from .engine import DEFAULT_MAX_CONCURRENCY, Judge, Verdict
from .faces import AsyncJudgeEvaluator, JudgeEvaluator, async_face, sync_face
from .formatting import format_thread, format_trajectory, format_value
from .model import JudgeModel
from .prompting import build_messages, check_examples, check_prompt, with_examples
from .prompts import GRAPH_TRAJECTORY_ACCURACY_PROMPT, TRAJECTORY_ACCURACY_PROMPT
from .replies import score_spec

__all__ = [
    "create_async_graph_trajectory_llm_as_judge",
    "create_async_trajectory_llm_as_judge",
    "create_graph_trajectory_llm_as_judge",
    "create_trajectory_llm_as_judge",
    "score_judge",
]


def _check_flag(value: object, name: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"invalid {name} {value!r}: must be True or False")
    return value


def _check_choices(choices: object) -> tuple[float, ...] | None:
    if choices is None:
        return None
    if (
        not isinstance(choices, Sequence)
        or isinstance(choices, str)
        or not choices
        or not all(isinstance(c, int | float) and not isinstance(c, bool) for c in choices)
    ):
        raise ValueError(f"invalid choices {choices!r}: must be a non-empty list of numbers")
    return tuple(float(c) for c in choices)


def check_key(feedback_key: object) -> str:
    if not isinstance(feedback_key, str) or not feedback_key.strip():
        raise ValueError(f"invalid feedback_key {feedback_key!r}: must be a non-empty string")
    return feedback_key


def score_judge(
    *,
    model: Any,
    judge: Any,
    continuous: object,
    choices: object,
    use_reasoning: object,
    cache: Any,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
) -> Judge:
    """A judge answering with a score (and reasoning), every setting checked now."""
    checked_choices = _check_choices(choices)
    spec = score_spec(
        continuous=_check_flag(continuous, "continuous"),
        choices=checked_choices,
        use_reasoning=_check_flag(use_reasoning, "use_reasoning"),
    )
    return Judge(
        JudgeModel(judge=judge, model=model),
        spec,
        cache=cache,
        decides={
            "continuous": continuous,
            "choices": checked_choices,
            "use_reasoning": use_reasoning,
        },
        max_concurrency=max_concurrency,
    )


def _params(base: dict[str, str], inputs: Any, extra: Mapping[str, Any]) -> dict[str, str]:
    if inputs:  # LangSmith passes {} for an example without inputs
        base.setdefault("inputs", format_value(inputs))
    for name, value in extra.items():
        base.setdefault(name, format_value(value))
    return base


def score_result(key: str, verdict: Verdict, notes: Mapping[str, Any]) -> EvaluatorResult:
    return {
        "key": key,
        "score": verdict.answer["score"],
        "comment": verdict.answer.get("reasoning") or None,
        "metadata": {**verdict.metadata(), **notes},
    }


@dataclass(frozen=True)
class _TrajectorySteps:
    prompt: Any
    key: str
    examples: tuple[Mapping[str, Any], ...]
    system: str | None = None

    def prepare(
        self, outputs: Any, reference_outputs: Any, inputs: Any, extra: Mapping[str, Any]
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        if outputs is None:
            raise ValueError("an LLM trajectory judge needs outputs (the agent's trajectory)")
        base = {"outputs": format_trajectory(outputs, side="outputs")}
        if reference_outputs:  # LangSmith passes {} for an example without outputs
            base["reference_outputs"] = format_trajectory(
                reference_outputs, side="reference_outputs"
            )
        return _finish_messages(self, _params(base, inputs, extra)), {}

    def finish(self, verdict: Verdict, notes: Mapping[str, Any]) -> EvaluatorResult:
        return score_result(self.key, verdict, notes)


def _finish_messages(steps: Any, params: dict[str, str]) -> list[dict[str, Any]]:
    messages = build_messages(steps.prompt, params)
    if steps.system is not None:
        messages = [{"role": "system", "content": steps.system}, *messages]
    return with_examples(messages, steps.examples)


@dataclass(frozen=True)
class _GraphSteps:
    prompt: Any
    key: str
    examples: tuple[Mapping[str, Any], ...]
    system: str | None = None

    def prepare(
        self, outputs: Any, reference_outputs: Any, inputs: Any, extra: Mapping[str, Any]
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        thread = format_thread(outputs, inputs, side="outputs")
        reference = ""
        if reference_outputs:
            reference = (
                "\nA reference path known to be good, to compare with:\n<reference_thread>\n"
                f"{format_thread(reference_outputs, side='reference_outputs')}\n"
                "</reference_thread>\n"
            )
        base = {"thread": thread, "outputs": thread, "reference_outputs": reference}
        return _finish_messages(self, _params(base, inputs, extra)), {}

    def finish(self, verdict: Verdict, notes: Mapping[str, Any]) -> EvaluatorResult:
        return score_result(self.key, verdict, notes)


def _checked(prompt: Any, feedback_key: Any, few_shot_examples: Any, system: Any) -> None:
    check_prompt(prompt)
    check_key(feedback_key)
    check_examples(few_shot_examples)
    if system is not None and not isinstance(system, str):
        raise ValueError(f"invalid system {system!r}: must be a string")


def create_trajectory_llm_as_judge(
    *,
    prompt: Any = TRAJECTORY_ACCURACY_PROMPT,
    model: str | None = None,
    judge: Any = None,
    feedback_key: str = "trajectory_accuracy",
    continuous: bool = False,
    choices: list[float] | None = None,
    use_reasoning: bool = True,
    few_shot_examples: list[Mapping[str, Any]] | None = None,
    cache: Any = None,
) -> JudgeEvaluator:
    """An evaluator asking an LLM whether a trajectory is accurate (key ``trajectory_accuracy``).

    ``judge`` is a langchain-core chat model, or ``model`` a ``"provider:model"`` string (needs
    langchain: ``pip install 'pytest-agenttraj[judges]'``). ``prompt`` is a template filling
    ``{outputs}`` (the trajectory, formatted readably), ``{reference_outputs}``, ``{inputs}``
    and any extra keyword given to the evaluator; use
    ``TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE`` to grade against a reference. The score is a
    bool, a number from 0 to 1 (``continuous=True``) or one of ``choices``; the reasoning is the
    ``comment``. ``cache`` (a directory, a ``JudgeCache``, or ``True`` for the pytest run's;
    outside pytest ``True`` caches nothing) stores answers so that unchanged evaluations cost no
    model calls.

    Example::

        judge = create_trajectory_llm_as_judge(model="openai:gpt-4o-mini", cache=True)
        result = judge(outputs=result["messages"])
        assert result["score"], result["comment"]
    """
    _checked(prompt, feedback_key, few_shot_examples, None)
    evaluation = score_judge(
        model=model,
        judge=judge,
        continuous=continuous,
        choices=choices,
        use_reasoning=use_reasoning,
        cache=cache,
    )
    steps = _TrajectorySteps(prompt, feedback_key, check_examples(few_shot_examples))
    return sync_face(evaluation, steps, feedback_key, "trajectory_llm_judge")


def create_async_trajectory_llm_as_judge(
    *,
    prompt: Any = TRAJECTORY_ACCURACY_PROMPT,
    model: str | None = None,
    judge: Any = None,
    feedback_key: str = "trajectory_accuracy",
    continuous: bool = False,
    choices: list[float] | None = None,
    use_reasoning: bool = True,
    few_shot_examples: list[Mapping[str, Any]] | None = None,
    cache: Any = None,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
) -> AsyncJudgeEvaluator:
    """The async twin of ``create_trajectory_llm_as_judge``: safe under ``asyncio.gather``, with
    at most ``max_concurrency`` model calls at a time."""
    _checked(prompt, feedback_key, few_shot_examples, None)
    evaluation = score_judge(
        model=model,
        judge=judge,
        continuous=continuous,
        choices=choices,
        use_reasoning=use_reasoning,
        cache=cache,
        max_concurrency=max_concurrency,
    )
    steps = _TrajectorySteps(prompt, feedback_key, check_examples(few_shot_examples))
    return async_face(evaluation, steps, feedback_key, "trajectory_llm_judge")


def create_graph_trajectory_llm_as_judge(
    *,
    prompt: Any = GRAPH_TRAJECTORY_ACCURACY_PROMPT,
    model: str | None = None,
    system: str | None = None,
    feedback_key: str = "graph_trajectory_accuracy",
    judge: Any = None,
    continuous: bool = False,
    choices: list[float] | None = None,
    use_reasoning: bool = True,
    few_shot_examples: list[Mapping[str, Any]] | None = None,
    cache: Any = None,
) -> JudgeEvaluator:
    """An evaluator asking an LLM whether a LangGraph thread took a sensible path (key
    ``graph_trajectory_accuracy``). ``outputs`` is a ``GraphTrajectory`` (``inputs``,
    ``results``, ``steps``); the prompt fills ``{thread}`` (each invocation's input, nodes and
    result) and ``{reference_outputs}`` (the reference thread, when given, else nothing).
    Everything else is as in ``create_trajectory_llm_as_judge``.

    Example::

        judge = create_graph_trajectory_llm_as_judge(judge=chat_model)
        result = judge(outputs=extract_graph_trajectory(app, config))
    """
    _checked(prompt, feedback_key, few_shot_examples, system)
    evaluation = score_judge(
        model=model,
        judge=judge,
        continuous=continuous,
        choices=choices,
        use_reasoning=use_reasoning,
        cache=cache,
    )
    steps = _GraphSteps(prompt, feedback_key, check_examples(few_shot_examples), system)
    return sync_face(evaluation, steps, feedback_key, "graph_trajectory_llm_judge")


def create_async_graph_trajectory_llm_as_judge(
    *,
    prompt: Any = GRAPH_TRAJECTORY_ACCURACY_PROMPT,
    model: str | None = None,
    system: str | None = None,
    feedback_key: str = "graph_trajectory_accuracy",
    judge: Any = None,
    continuous: bool = False,
    choices: list[float] | None = None,
    use_reasoning: bool = True,
    few_shot_examples: list[Mapping[str, Any]] | None = None,
    cache: Any = None,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
) -> AsyncJudgeEvaluator:
    """The async twin of ``create_graph_trajectory_llm_as_judge``."""
    _checked(prompt, feedback_key, few_shot_examples, system)
    evaluation = score_judge(
        model=model,
        judge=judge,
        continuous=continuous,
        choices=choices,
        use_reasoning=use_reasoning,
        cache=cache,
        max_concurrency=max_concurrency,
    )
    steps = _GraphSteps(prompt, feedback_key, check_examples(few_shot_examples), system)
    return async_face(evaluation, steps, feedback_key, "graph_trajectory_llm_judge")
