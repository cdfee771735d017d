"""``exact_match``: whether outputs equal reference outputs as JSON values (openevals' key
``exact_match``)."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from ..core.matching.explain import format_diff, short
from ..core.values import canonical, diff_args, nesting_place, path_text
from ..errors import TrajectoryFormatError
from .result import EvaluatorResult
from .scope import announce, announce_error

__all__ = ["ValueReport", "exact_match", "exact_match_async"]


@dataclass(frozen=True)
class ValueReport:
    """A comparison of two values (``exact_match``): the verdict and what differs."""

    kind: ClassVar[str] = "value"

    key: str
    passed: bool
    difference: str | None = None

    def comment(self) -> str | None:
        return self.difference

    def problem_texts(self) -> list[str]:
        return [self.difference] if self.difference else []

    def settings(self) -> dict[str, Any]:
        return {}


# Deeper than this, exact_match refuses a value that the JSON encoder could not take either.
_MAX_NESTING = 100


def _exact_score(outputs: Any, reference_outputs: Any) -> bool:
    if outputs is None or reference_outputs is None:
        side = "outputs" if outputs is None else "reference_outputs"
        raise TrajectoryFormatError(
            "exact_match requires both outputs and reference_outputs", side=side
        )
    try:
        return json.dumps(outputs, sort_keys=True) == json.dumps(reference_outputs, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        pass  # not JSON-encodable (or a cycle, or too deep): compare as JSON-like values instead
    try:
        return canonical(outputs) == canonical(reference_outputs)
    except RecursionError:
        raise _beyond_reach(outputs, reference_outputs) from None  # its frames would bury this


def _beyond_reach(outputs: Any, reference_outputs: Any) -> TrajectoryFormatError:
    """The error for values too deep, or too self-referring, to compare: where, and why."""
    for side, value in (("outputs", outputs), ("reference_outputs", reference_outputs)):
        place = nesting_place(value, _MAX_NESTING)
        if place is not None:
            path, kind = place
            problem = (
                "refers back to a value holding it (a cycle)"
                if kind == "cycle"
                else f"nests more than {_MAX_NESTING} levels deep"
            )
            return TrajectoryFormatError(
                f"{path_text(side, path)} {problem}: exact_match cannot compare it"
            )
    return TrajectoryFormatError(
        "outputs and reference_outputs nest too deep for exact_match to compare them"
    )


def _difference(outputs: Any, reference_outputs: Any) -> str:
    """What differs, in a sentence: the first keys that differ, or both values."""
    if isinstance(outputs, Mapping) and isinstance(reference_outputs, Mapping):
        try:
            diffs = diff_args(outputs, reference_outputs)
        except RecursionError:  # nested deep enough for JSON, not for a key-by-key walk
            diffs = []
        if diffs:
            shown = "; ".join(format_diff(d) for d in diffs[:3])
            more = f"; {len(diffs) - 3} more" if len(diffs) > 3 else ""
            return f"outputs differ from reference_outputs: {shown}{more}"
    return (
        f"outputs differ from reference_outputs: expected {short(reference_outputs)}, "
        f"got {short(outputs)}"
    )


def _exact_result(outputs: Any, reference_outputs: Any, inputs: Any) -> EvaluatorResult:
    started = time.perf_counter()
    try:
        score = _exact_score(outputs, reference_outputs)
    except Exception as error:
        announce_error(
            error,
            "exact_match",
            outputs=outputs,
            reference_outputs=reference_outputs,
            inputs=inputs,
            started=started,
            origin="exact_match",
        )
        raise
    report = ValueReport(
        "exact_match", score, None if score else _difference(outputs, reference_outputs)
    )
    result: EvaluatorResult = {
        "key": report.key,
        "score": score,
        "comment": report.difference,
        "metadata": None,
    }
    announce(
        result,
        report=report,
        outputs=outputs,
        reference_outputs=reference_outputs,
        inputs=inputs,
        started=started,
        origin="exact_match",
    )
    return result


def exact_match(
    *, outputs: Any, reference_outputs: Any, inputs: Any = None, **kwargs: Any
) -> EvaluatorResult:
    """Whether outputs equal reference_outputs as JSON (key ``exact_match``)."""
    return _exact_result(outputs, reference_outputs, inputs)


async def exact_match_async(
    *, outputs: Any, reference_outputs: Any, inputs: Any = None, **kwargs: Any
) -> EvaluatorResult:
    """The async twin of ``exact_match``."""
    return _exact_result(outputs, reference_outputs, inputs)
