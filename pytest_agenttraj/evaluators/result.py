"""The result dict every evaluator returns, as in openevals, and what counts as passing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

__all__ = ["EvaluatorResult", "result_passed"]


class _OptionalResultKeys(TypedDict, total=False):
    source_run_id: str | None


class EvaluatorResult(_OptionalResultKeys):
    """What every evaluator returns, as in openevals."""

    key: str
    score: bool | float
    comment: str | None
    metadata: dict[str, Any] | None


def result_passed(result: Mapping[str, Any]) -> bool:
    """Whether a result counts as passing: a true bool score, or a numeric score of 1."""
    score = result.get("score")
    if isinstance(score, bool):
        return score
    if isinstance(score, int | float):
        return bool(score >= 1)
    return False
