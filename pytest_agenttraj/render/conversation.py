"""A conversation compared with its reference as lines: the turn it diverged at, one line per
turn, then the diff of the first turn that did not match (drawn as a trajectory is)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..core.matching.conversation import ConversationReport
from . import Options, trajectory as trajectory_text

__all__ = ["headline", "lines"]


def headline(report: ConversationReport, _options: Options) -> str:
    return report.comment() or (
        f"The conversation matches its reference, turn by turn ({len(report.output)} turns, "
        f"{report.config.mode} mode)."
    )


def lines(report: ConversationReport, options: Options) -> Iterable[str]:
    if report.passed:
        yield options.paint(headline(report, options), "good")
        return
    yield options.paint(headline(report, options), "bad")
    diverged = report.diverged_at
    for number, turn in enumerate(report.turns, start=1):
        if turn is not None and turn.passed:
            yield "  " + options.paint(f"turn {number}: matches", "dim")
        else:
            mark = " <- diverged here" if number == diverged else ""
            yield "  " + options.paint(f"turn {number}: {report.turn_problem(number)}{mark}", "bad")
    first = report.turns[diverged - 1] if diverged is not None else None
    if first is not None:
        yield ""
        yield options.paint(
            f"Turn {diverged} (message indices count from its first message):", "bold"
        )
        for line in trajectory_text.lines(first, options):
            yield f"  {line}" if line else line


# ---------------------------------------------------------------- the HTML page's view


def detail(report: ConversationReport) -> dict[str, Any]:
    """The page's view of the turn that diverged, drawn as a trajectory is (its messages side by
    side), with the turn's number; a conversation that matched gives its number of turns."""
    diverged = report.diverged_at
    first = report.turns[diverged - 1] if diverged is not None else None
    view: dict[str, Any] = {"turns": len(report.output), "diverged_at": diverged}
    if first is not None:
        view.update(trajectory_text.detail(first))
    return view
