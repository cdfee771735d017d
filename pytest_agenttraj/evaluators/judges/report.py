"""An LLM judgement as a report of the package's one protocol: the judge's score and reasoning,
the model, and what decided the answer (fingerprints of the model's parameters, the prompt and
the rest of what the judge is told), so that the terminal, the JSON report and the baseline treat
it as every other kind of result."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..result import result_passed

__all__ = ["JudgeReport"]


@dataclass(frozen=True)
class JudgeReport:
    """One judgement: ``score`` as the judge gave it (a bool, a number from 0 to 1, or one of
    the choices), its ``reasoning``, the ``model``, and ``judge_settings`` (fingerprints)."""

    kind: ClassVar[str] = "judge"

    key: str
    score: Any
    reasoning: str | None
    model: str
    judge_settings: Mapping[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return result_passed({"score": self.score})

    def comment(self) -> str | None:
        if self.passed:
            return None
        because = f": {' '.join(self.reasoning.split())}" if self.reasoning else ""
        return f"LLM judge {self.key!r} ({self.model}) gave {self.score!r}{because}"

    def problem_texts(self) -> list[str]:
        comment = self.comment()
        return [comment] if comment else []

    def settings(self) -> dict[str, Any]:
        return {"judge": dict(self.judge_settings)}
