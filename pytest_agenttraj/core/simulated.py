"""The result of one simulated conversation as a report: how many turns, why it stopped, and
the evaluator results it was judged by (passing when every one passes)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

__all__ = ["SimulationReport"]


def _passes(result: Mapping[str, Any]) -> bool:
    score = result.get("score")
    if isinstance(score, bool):
        return score
    return isinstance(score, int | float) and score >= 1


@dataclass(frozen=True)
class SimulationReport:
    """A conversation that ran to its end: ``turns`` made, ``stop_reason`` (``max_turns``,
    ``stopping_condition``, ``user_ended``), its ``evaluator_results``, and what set it up
    (``max_turns``, the user's ``persona``)."""

    kind: ClassVar[str] = "simulation"

    turns: int
    stop_reason: str
    evaluator_results: tuple[Mapping[str, Any], ...] = ()
    max_turns: int | None = None
    persona: str | None = None

    @property
    def passed(self) -> bool:
        return all(_passes(result) for result in self.evaluator_results)

    def failing(self) -> list[Mapping[str, Any]]:
        return [result for result in self.evaluator_results if not _passes(result)]

    def problem_texts(self) -> list[str]:
        texts = []
        for result in self.failing():
            text = f"{result.get('key')} scored {result.get('score')!r}"
            comment = result.get("comment")
            texts.append(f"{text}: {comment}" if comment else text)
        return texts

    def comment(self) -> str | None:
        problems = self.problem_texts()
        if not problems:
            return None
        more = f" ({len(problems) - 1} more)" if len(problems) > 1 else ""
        return (
            f"The conversation ({self.turns} turns, stopped by {self.stop_reason}) did not "
            f"pass its evaluators: {problems[0]}{more}."
        )

    def settings(self) -> dict[str, Any]:
        return {"max_turns": self.max_turns, "persona": self.persona}
