"""The result dict every evaluator returns, as in openevals, and what counts as passing."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, TypedDict

__all__ = ["EvaluatorResult", "check_min_score", "evaluator_family", "result_passed"]

_MODE_IN_KEY = (
    r"^(?P<stem>(?:graph_)?trajectory)_(?:strict|unordered|subset|superset|in_order)_match$"
)


class _OptionalResultKeys(TypedDict, total=False):
    source_run_id: str | None


class EvaluatorResult(_OptionalResultKeys):
    """What every evaluator returns, as in openevals."""

    key: str
    score: bool | float
    comment: str | None
    metadata: dict[str, Any] | None


def result_passed(result: Mapping[str, Any], min_score: float | None = None) -> bool:
    """Whether a result counts as passing: a true bool score, or a numeric score of at least
    ``min_score`` (default 1)."""
    score = result.get("score")
    if isinstance(score, bool):
        return score
    if isinstance(score, int | float):
        return bool(score >= (1 if min_score is None else min_score))
    return False


def evaluator_family(key: str) -> str:
    """The evaluator a result key names, without its match mode:
    ``trajectory_unordered_match`` -> ``trajectory_match``; other keys as they are."""
    found = re.match(_MODE_IN_KEY, key)  # compiled with the first key, then cached by re
    return f"{found['stem']}_match" if found else key


def check_min_score(value: object, *, where: str = "min_score") -> float:
    """``value`` as a threshold for graded scores (a number from 0 to 1), else a ValueError."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ValueError(f"invalid {where} {value!r}: must be a number from 0 to 1 (e.g. 0.8)")
    return float(value)
