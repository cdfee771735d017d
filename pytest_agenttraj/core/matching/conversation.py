"""Compare a conversation with its reference turn by turn: each turn's messages are matched
under the evaluation's settings, and the report names the first turn that diverged."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from ..model import Conversation, Trajectory, Turn
from . import match_trajectories
from .report import MatchReport
from .rules import MatchConfig

__all__ = ["ConversationReport", "match_conversations"]


@dataclass(frozen=True)
class ConversationReport:
    """Per turn, the match of the output's turn with the reference's (``None`` for a turn only
    one side has); ``diverged_at`` is the number of the first turn that did not match."""

    kind: ClassVar[str] = "conversation"

    config: MatchConfig
    output: Conversation
    reference: Conversation
    turns: tuple[MatchReport | None, ...]

    @property
    def key(self) -> str:
        return f"conversation_{self.config.mode}_match"

    @property
    def matched(self) -> bool:
        return self.passed

    @property
    def passed(self) -> bool:
        return len(self.output) == len(self.reference) and all(
            report is not None and report.passed for report in self.turns
        )

    @property
    def diverged_at(self) -> int | None:
        """The first turn (from 1) that does not match, ``None`` when every turn does."""
        for number, report in enumerate(self.turns, start=1):
            if report is None or not report.passed:
                return number
        return None

    def turn_problem(self, number: int) -> str:
        """What went wrong in turn ``number``, in one line (without the turn's number)."""
        report = self.turns[number - 1]
        if report is None:
            side = "output" if number > len(self.reference) else "reference"
            return f"only the {side} has this turn"
        return report.problem_texts()[0] if report.problems else "no problem"

    def problem_texts(self) -> list[str]:
        texts: list[str] = []
        for number, report in enumerate(self.turns, start=1):
            if report is None:
                texts.append(f"turn {number}: {self.turn_problem(number)}")
            elif not report.passed:
                texts.extend(f"turn {number}: {text}" for text in report.problem_texts())
        return texts

    def comment(self) -> str | None:
        number = self.diverged_at
        if number is None:
            return None
        head = (
            f"The conversation diverged from its reference at turn {number} "
            f"({self.config.mode} mode, {self.config.tool_args} args): "
            f"{self.turn_problem(number)}."
        )
        if len(self.output) != len(self.reference):
            head += f" It has {len(self.output)} turns, its reference {len(self.reference)}."
        return head

    def settings(self) -> dict[str, Any]:
        from ..judged import config_settings

        return {"mode": self.config.mode, **config_settings(self.config), "turns": True}


def match_conversations(
    output: Conversation, reference: Conversation, config: MatchConfig
) -> ConversationReport:
    """Match each turn of ``output`` with the same turn of ``reference`` under ``config``.

    A turn without tool calls is an ordinary turn, so the refusal of empty comparisons
    (``allow_empty=False``) applies to the conversation as a whole, never to one turn."""
    per_turn = replace(config, allow_empty=True)
    if not config.allow_empty and not reference.turns:
        per_turn = config  # an empty reference: let the matcher refuse it in turn 1
        output = output if output.turns else Conversation((Turn(1, Trajectory()),))
        reference = Conversation((Turn(1, Trajectory()),))
    reports: list[MatchReport | None] = []
    for index in range(max(len(output), len(reference))):
        if index >= len(output) or index >= len(reference):
            reports.append(None)
            continue
        reports.append(
            match_trajectories(output[index].messages, reference[index].messages, per_turn)
        )
    return ConversationReport(config, output, reference, tuple(reports))
