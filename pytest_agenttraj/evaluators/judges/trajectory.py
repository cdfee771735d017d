"""LLM-as-judge for trajectories and graph threads, agentevals-compatible: same factory names,
keyword arguments, default feedback keys (``trajectory_accuracy``,
``graph_trajectory_accuracy``) and result shape; ``comment`` holds the judge's reasoning and
``metadata`` what the judging cost (model calls, tokens, whether the answer was cached).

Everything a call is given reaches the model: the default prompt takes the reference-grading
text when a reference is given, and a value a prompt has no place for is refused
(:func:`.templates.build_messages`). agentevals' own prompt constants are filled as agentevals
fills them (:mod:`.peer`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...errors import TrajectoryFormatError
from ..faces import AsyncEvaluator, Evaluator
from ..result import EvaluatorResult
from . import peer
from .engine import DEFAULT_MAX_CONCURRENCY, Judge, Verdict
from .model import JudgeModel
from .prompts import (
    GRAPH_TRAJECTORY_ACCURACY_PROMPT,
    TRAJECTORY_ACCURACY_PROMPT,
    TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE,
)
from .replies import score_spec
from .scoring import async_judge_evaluator, judge_evaluator
from .templates import (
    append_to_last_user,
    build_messages,
    check_examples,
    check_prompt,
    with_examples as with_package_examples,
)
from .text import format_thread, format_trajectory, format_value, thread_rows

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
    timeout: float | None = None,
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
        timeout=timeout,
    )


def _given(
    params: dict[str, str], inputs: Any, extra: Mapping[str, Any], taken: tuple[str, ...] = ()
) -> dict[str, str]:
    """``params`` with ``inputs`` and the extra keywords (``None`` is none, as in agentevals;
    LangSmith passes ``{}`` for an example without inputs)."""
    if inputs:
        params["inputs"] = format_value(inputs)
    for name, value in extra.items():
        if name in taken:
            raise ValueError(f"{name!r} is filled by the judge itself: pass it under another name")
        if value is not None:
            params[name] = format_value(value)
    return params


def score_result(key: str, verdict: Verdict, notes: Mapping[str, Any]) -> EvaluatorResult:
    return {
        "key": key,
        "score": verdict.answer["score"],
        "comment": verdict.answer.get("reasoning") or None,
        "metadata": {**verdict.metadata(), **notes},
    }


def _with_examples(
    messages: list[dict[str, Any]], examples: tuple[Mapping[str, Any], ...], in_peer_form: bool
) -> list[dict[str, Any]]:
    if in_peer_form and examples:
        return append_to_last_user(messages, peer.examples_text(examples))
    return with_package_examples(messages, examples)


def _with_system(messages: list[dict[str, Any]], system: str | None) -> list[dict[str, Any]]:
    return messages if system is None else [{"role": "system", "content": system}, *messages]


@dataclass(frozen=True)
class _TrajectorySteps:
    """``prompt`` is the package's ``TRAJECTORY_ACCURACY_PROMPT`` (the reference-grading text
    when a reference is given), the user's, or agentevals' own (``in_peer_form``)."""

    prompt: Any
    key: str
    examples: tuple[Mapping[str, Any], ...]
    in_peer_form: bool = False

    def prepare(
        self, outputs: Any, reference_outputs: Any, inputs: Any, extra: Mapping[str, Any]
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        if outputs is None:
            raise TrajectoryFormatError(
                "an LLM trajectory judge needs outputs (the agent's trajectory)", side="outputs"
            )
        show = peer.messages_text if self.in_peer_form else format_trajectory
        params = {"outputs": show(outputs, side="outputs")}
        if reference_outputs:  # LangSmith passes {} for an example without outputs
            params["reference_outputs"] = show(reference_outputs, side="reference_outputs")
        prompt = self.prompt
        if prompt == TRAJECTORY_ACCURACY_PROMPT and reference_outputs:
            prompt = TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE
        # agentevals fills a missing reference with nothing; the package's prompts refuse that
        blank = ("reference_outputs",) if self.in_peer_form else ()
        messages = build_messages(prompt, _given(params, inputs, extra), blank=blank)
        return _with_examples(messages, self.examples, self.in_peer_form), {}

    def finish(self, verdict: Verdict, notes: Mapping[str, Any]) -> EvaluatorResult:
        return score_result(self.key, verdict, notes)


_OUR_REFERENCE = (
    "\nA reference path known to be good, to compare with:\n<reference_thread>\n{}\n"
    "</reference_thread>\n"
)


@dataclass(frozen=True)
class _GraphSteps:
    prompt: Any
    key: str
    examples: tuple[Mapping[str, Any], ...]
    system: str | None = None
    in_peer_form: bool = False

    def _texts(self, outputs: Any, reference_outputs: Any, inputs: Any) -> tuple[str, str]:
        rows = thread_rows(outputs, inputs, side="outputs")
        if self.in_peer_form:
            thread = peer.thread_text(rows)
            reference = (
                peer.reference_text(thread_rows(reference_outputs, side="reference_outputs"))
                if reference_outputs
                else ""
            )
            return thread, reference
        thread = format_thread(outputs, inputs, side="outputs")
        if not reference_outputs:
            return thread, ""
        return thread, _OUR_REFERENCE.format(
            format_thread(reference_outputs, side="reference_outputs")
        )

    def prepare(
        self, outputs: Any, reference_outputs: Any, inputs: Any, extra: Mapping[str, Any]
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        thread, reference = self._texts(outputs, reference_outputs, inputs)
        params = {"thread": thread, "outputs": thread}
        # the thread shows the trajectory and its inputs; {outputs} is the thread too
        places: dict[str, tuple[str, ...]] = {"outputs": ("thread", "outputs")}
        if reference:
            params["reference_outputs"] = reference
            places["reference_outputs"] = ("reference_outputs",)
        if inputs:
            places["inputs"] = ("thread", "outputs", "inputs")
        _given(params, inputs, extra, taken=("thread",))
        places.update((name, (name,)) for name in extra if extra[name] is not None)
        messages = build_messages(self.prompt, params, places=places, blank=("reference_outputs",))
        messages = _with_system(messages, self.system)
        return _with_examples(messages, self.examples, self.in_peer_form), {}

    def finish(self, verdict: Verdict, notes: Mapping[str, Any]) -> EvaluatorResult:
        return score_result(self.key, verdict, notes)


def _checked(prompt: Any, feedback_key: Any, few_shot_examples: Any, system: Any) -> None:
    check_prompt(prompt)
    check_key(feedback_key)
    check_examples(few_shot_examples)
    if system is not None and not isinstance(system, str):
        raise ValueError(f"invalid system {system!r}: must be a string")


def _trajectory_judge(
    prompt: Any, feedback_key: Any, examples: Any, **options: Any
) -> tuple[Judge, _TrajectorySteps]:
    _checked(prompt, feedback_key, examples, None)
    in_peer_form = peer.is_peer_prompt(prompt, "trajectory")
    steps = _TrajectorySteps(prompt, feedback_key, check_examples(examples), in_peer_form)
    return score_judge(**options), steps


def _graph_judge(
    prompt: Any, feedback_key: Any, examples: Any, system: Any, **options: Any
) -> tuple[Judge, _GraphSteps]:
    _checked(prompt, feedback_key, examples, system)
    in_peer_form = peer.is_peer_prompt(prompt, "graph")
    steps = _GraphSteps(prompt, feedback_key, check_examples(examples), system, in_peer_form)
    return score_judge(**options), steps


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
    timeout: float | None = None,
) -> Evaluator:
    """An evaluator asking an LLM whether a trajectory is accurate (key ``trajectory_accuracy``).

    ``judge`` is a langchain-core chat model, or ``model`` a ``"provider:model"`` string (needs
    langchain: ``pip install 'pytest-agenttraj[judges]'``). ``prompt`` is a template filling
    ``{outputs}`` (the trajectory, formatted readably), ``{reference_outputs}``, ``{inputs}``
    and any extra keyword given to the evaluator; the default grades against the reference
    (``TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE``) when one is given. A value the prompt has
    no place for is a ``ValueError``, never dropped. The score is a bool, a number from 0 to 1
    (``continuous=True``) or one of ``choices``; the reasoning is the ``comment``. ``cache`` (a
    directory, a ``JudgeCache``, or ``True`` for the pytest run's; outside pytest ``True``
    caches nothing) stores answers so that unchanged evaluations cost no model calls.
    ``timeout`` bounds each model call in seconds (default: ``--trajectory-judge-timeout``
    under pytest, else 120; 0: none); a late model is a ``JudgeError``.

    Example::

        judge = create_trajectory_llm_as_judge(model="openai:gpt-4o-mini", cache=True)
        result = judge(outputs=result["messages"])
        assert result["score"], result["comment"]
    """
    evaluation, steps = _trajectory_judge(
        prompt,
        feedback_key,
        few_shot_examples,
        model=model,
        judge=judge,
        continuous=continuous,
        choices=choices,
        use_reasoning=use_reasoning,
        cache=cache,
        timeout=timeout,
    )
    return judge_evaluator(evaluation, steps, feedback_key, "trajectory_llm_judge")


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
    timeout: float | None = None,
) -> AsyncEvaluator:
    """The async twin of ``create_trajectory_llm_as_judge``: safe under ``asyncio.gather``, with
    at most ``max_concurrency`` model calls at a time; a model call past ``timeout`` is
    cancelled."""
    evaluation, steps = _trajectory_judge(
        prompt,
        feedback_key,
        few_shot_examples,
        model=model,
        judge=judge,
        continuous=continuous,
        choices=choices,
        use_reasoning=use_reasoning,
        cache=cache,
        max_concurrency=max_concurrency,
        timeout=timeout,
    )
    return async_judge_evaluator(evaluation, steps, feedback_key, "trajectory_llm_judge")


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
    timeout: float | None = None,
) -> Evaluator:
    """An evaluator asking an LLM whether a LangGraph thread took a sensible path (key
    ``graph_trajectory_accuracy``). ``outputs`` is a ``GraphTrajectory`` (``inputs``,
    ``results``, ``steps``); the prompt fills ``{thread}`` (each invocation's input, nodes and
    result; ``{outputs}`` is the same) and ``{reference_outputs}`` (the reference thread, when
    given, else nothing). Everything else is as in ``create_trajectory_llm_as_judge``.

    Example::

        judge = create_graph_trajectory_llm_as_judge(judge=chat_model)
        result = judge(outputs=extract_graph_trajectory(app, config))
    """
    evaluation, steps = _graph_judge(
        prompt,
        feedback_key,
        few_shot_examples,
        system,
        model=model,
        judge=judge,
        continuous=continuous,
        choices=choices,
        use_reasoning=use_reasoning,
        cache=cache,
        timeout=timeout,
    )
    return judge_evaluator(evaluation, steps, feedback_key, "graph_trajectory_llm_judge")


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
    timeout: float | None = None,
) -> AsyncEvaluator:
    """The async twin of ``create_graph_trajectory_llm_as_judge``."""
    evaluation, steps = _graph_judge(
        prompt,
        feedback_key,
        few_shot_examples,
        system,
        model=model,
        judge=judge,
        continuous=continuous,
        choices=choices,
        use_reasoning=use_reasoning,
        cache=cache,
        max_concurrency=max_concurrency,
        timeout=timeout,
    )
    return async_judge_evaluator(evaluation, steps, feedback_key, "graph_trajectory_llm_judge")
