"""Topic adherence (the Ragas metric): of the topics the user raised, did the agent answer those
within its reference topics and only those? The judge lists each topic with whether the agent
answered it and whether it is allowed (one model call); then, counting answered-and-allowed as
true positives, answered-but-not-allowed as false positives and refused-but-allowed as false
negatives, the score is the precision, the recall or their F1 (``mode``), as Ragas'
``TopicAdherenceScore`` computes them: where there is nothing to count (no topic answered, or
none allowed) that part scores 0."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from ...core.values import safe_repr
from ...errors import TrajectoryFormatError
from ..faces import AsyncEvaluator, Evaluator
from ..result import EvaluatorResult
from .engine import DEFAULT_MAX_CONCURRENCY, Judge, Verdict
from .model import JudgeModel
from .prompts import TOPIC_ADHERENCE_PROMPT
from .replies import topics_spec
from .scoring import async_judge_evaluator, judge_evaluator
from .templates import build_messages, check_examples, check_prompt, with_examples
from .text import format_trajectory, format_value
from .trajectory import check_key

__all__ = [
    "TOPIC_ADHERENCE_MODES",
    "TopicAdherenceMode",
    "create_async_topic_adherence_evaluator",
    "create_topic_adherence_evaluator",
    "topic_scores",
]

TopicAdherenceMode = Literal["precision", "recall", "f1"]
TOPIC_ADHERENCE_MODES: tuple[str, ...] = get_args(TopicAdherenceMode)


def _check_mode(mode: object) -> str:
    if not isinstance(mode, str) or mode not in TOPIC_ADHERENCE_MODES:
        valid = ", ".join(repr(m) for m in TOPIC_ADHERENCE_MODES)
        raise ValueError(f"invalid mode {mode!r}: must be one of {valid}")
    return mode


def _check_topics(
    topics: object, where: str, error: type[ValueError] = ValueError
) -> tuple[str, ...]:
    """``topics`` as a tuple of names, or ``error`` saying what is wrong with them."""
    if (
        not isinstance(topics, Sequence)
        or isinstance(topics, str)
        or not topics
        or not all(isinstance(t, str) and t.strip() for t in topics)
    ):
        raise error(f"{where} must be a non-empty list of topic names, got {safe_repr(topics, 80)}")
    return tuple(topics)


def topic_scores(topics: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Precision, recall and F1 of the judged topics; 0 where nothing was answered (precision)
    or nothing allowed (recall), as in Ragas."""
    tp = sum(1 for t in topics if t["answered"] and t["allowed"])
    fp = sum(1 for t in topics if t["answered"] and not t["allowed"])
    fn = sum(1 for t in topics if not t["answered"] and t["allowed"])
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}


@dataclass(frozen=True)
class _TopicSteps:
    prompt: Any
    key: str
    mode: str
    topics: tuple[str, ...] | None
    examples: tuple[Mapping[str, Any], ...]

    def _reference_topics(self, reference_outputs: Any) -> tuple[str, ...]:
        if isinstance(reference_outputs, Mapping):
            reference_outputs = reference_outputs.get("reference_topics")
        if reference_outputs is not None:
            return _check_topics(
                reference_outputs, "reference_outputs['reference_topics']", TrajectoryFormatError
            )
        if self.topics is None:
            raise ValueError(
                "topic adherence needs reference topics: reference_topics= when building the "
                "evaluator, or reference_outputs={'reference_topics': [...]} when calling it"
            )
        return self.topics

    def prepare(
        self, outputs: Any, reference_outputs: Any, inputs: Any, extra: Mapping[str, Any]
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        if outputs is None:
            raise TrajectoryFormatError(
                "topic adherence needs outputs (the conversation)", side="outputs"
            )
        topics = self._reference_topics(reference_outputs)
        params = {
            "outputs": format_trajectory(outputs, side="outputs"),
            "reference_topics": "\n".join(f"- {topic}" for topic in topics),
        }
        if inputs:
            params["inputs"] = format_value(inputs)
        params.update({k: format_value(v) for k, v in extra.items() if k not in params})
        messages = with_examples(build_messages(self.prompt, params), self.examples)
        return messages, {"reference_topics": list(topics)}

    def finish(self, verdict: Verdict, notes: Mapping[str, Any]) -> EvaluatorResult:
        judged = verdict.answer["topics"]
        scores = topic_scores(judged)
        return {
            "key": self.key,
            "score": scores[self.mode],
            "comment": verdict.answer["reasoning"] or None,
            "metadata": {
                "mode": self.mode,
                **scores,
                "topics": judged,
                **notes,
                **verdict.metadata(),
            },
        }


def _build(
    *,
    reference_topics: Any,
    mode: Any,
    prompt: Any,
    model: Any,
    judge: Any,
    feedback_key: Any,
    examples: Any,
    cache: Any,
    bound: int,
    timeout: float | None = None,
) -> tuple[Judge, _TopicSteps]:
    check_prompt(prompt)
    topics = (
        None if reference_topics is None else _check_topics(reference_topics, "reference_topics")
    )
    steps = _TopicSteps(
        prompt, check_key(feedback_key), _check_mode(mode), topics, check_examples(examples)
    )
    evaluation = Judge(
        JudgeModel(judge=judge, model=model),
        topics_spec(),
        cache=cache,
        max_concurrency=bound,
        timeout=timeout,
    )
    return evaluation, steps


def create_topic_adherence_evaluator(
    *,
    reference_topics: list[str] | None = None,
    mode: TopicAdherenceMode = "f1",
    model: str | None = None,
    judge: Any = None,
    prompt: Any = TOPIC_ADHERENCE_PROMPT,
    feedback_key: str = "topic_adherence",
    few_shot_examples: list[Mapping[str, Any]] | None = None,
    cache: Any = None,
    timeout: float | None = None,
) -> Evaluator:
    """An evaluator asking an LLM whether an agent kept to its topics (key ``topic_adherence``,
    score in [0, 1] by ``mode``: ``precision`` (answered topics that were allowed), ``recall``
    (allowed topics that were answered) or ``f1``). The topics come from ``reference_topics``
    or, per call, ``reference_outputs={"reference_topics": [...]}``; ``metadata`` lists each
    topic as the judge saw it. The model, prompt, cache and errors work as in
    ``create_trajectory_llm_as_judge``.

    Example::

        topics = create_topic_adherence_evaluator(reference_topics=["weather"], judge=model)
        result = topics(outputs=messages)
    """
    evaluation, steps = _build(
        reference_topics=reference_topics,
        mode=mode,
        prompt=prompt,
        model=model,
        judge=judge,
        feedback_key=feedback_key,
        examples=few_shot_examples,
        cache=cache,
        bound=DEFAULT_MAX_CONCURRENCY,
        timeout=timeout,
    )
    return judge_evaluator(evaluation, steps, steps.key, "topic_adherence")


def create_async_topic_adherence_evaluator(
    *,
    reference_topics: list[str] | None = None,
    mode: TopicAdherenceMode = "f1",
    model: str | None = None,
    judge: Any = None,
    prompt: Any = TOPIC_ADHERENCE_PROMPT,
    feedback_key: str = "topic_adherence",
    few_shot_examples: list[Mapping[str, Any]] | None = None,
    cache: Any = None,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    timeout: float | None = None,
) -> AsyncEvaluator:
    """The async twin of ``create_topic_adherence_evaluator``."""
    evaluation, steps = _build(
        reference_topics=reference_topics,
        mode=mode,
        prompt=prompt,
        model=model,
        judge=judge,
        feedback_key=feedback_key,
        examples=few_shot_examples,
        cache=cache,
        bound=max_concurrency,
        timeout=timeout,
    )
    return async_judge_evaluator(evaluation, steps, steps.key, "topic_adherence")
