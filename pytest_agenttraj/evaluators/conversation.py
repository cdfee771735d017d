"""Evaluating a conversation against a reference conversation, turn by turn: the result dict
(key ``conversation_<mode>_match``) and its report, which names the turn that diverged."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.matching.conversation import ConversationReport, match_conversations
from ..core.matching.rules import MatchConfig
from ..core.normalize import to_conversation
from .result import EvaluatorResult

__all__ = ["conversation_of", "evaluate_conversation"]


def conversation_of(value: Any, *, side: str) -> Any:
    """The conversation ``value`` stands for: a simulation's result (its ``conversation``), a
    ``Conversation``, a ``{"turns": [...]}`` document, or messages cut into turns."""
    __tracebackhide__ = True
    if isinstance(value, Mapping) and "conversation" in value and "trajectory" in value:
        value = value["conversation"]
    return to_conversation(value, side=side)


def evaluate_conversation(
    outputs: Any, reference_outputs: Any, config: MatchConfig
) -> tuple[EvaluatorResult, ConversationReport]:
    """Compare both conversations turn by turn under ``config`` (no reporting)."""
    __tracebackhide__ = True
    report = match_conversations(
        conversation_of(outputs, side="outputs"),
        conversation_of(reference_outputs, side="reference_outputs"),
        config,
    )
    result: EvaluatorResult = {
        "key": report.key,
        "score": report.passed,
        "comment": report.comment(),
        "metadata": {"turns": len(report.output), "diverged_at": report.diverged_at},
    }
    return result, report
