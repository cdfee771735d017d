"""A simulated conversation as lines: its turns and stop reason, then each evaluator result
that did not pass."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.simulated import SimulationReport
from . import Options

__all__ = ["headline", "lines"]


def headline(report: SimulationReport, _options: Options) -> str:
    return report.comment() or (
        f"The conversation ran {report.turns} turns (stopped by {report.stop_reason}); every "
        "evaluator passed."
    )


def lines(report: SimulationReport, options: Options) -> Iterable[str]:
    if report.passed:
        yield options.paint(headline(report, options), "good")
        return
    yield options.paint(headline(report, options), "bad")
    for number, problem in enumerate(report.problem_texts(), 1):
        yield f"  {number}. " + options.paint(problem, "bad")
