"""An LLM judgement as lines: the judge, its score, and its reasoning in full."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable

from ..evaluators.judges.report import JudgeReport
from . import Options

__all__ = ["headline", "lines"]


def headline(report: JudgeReport, _options: Options) -> str:
    verdict = "passes" if report.passed else "fails"
    return f"LLM judge {report.key!r} ({report.model}) gave {report.score!r}: {verdict}"


def lines(report: JudgeReport, options: Options) -> Iterable[str]:
    yield options.paint(headline(report, options), "good" if report.passed else "bold")
    if report.reasoning:
        width = max(options.width - 4, 40)
        for paragraph in report.reasoning.splitlines():
            for line in textwrap.wrap(paragraph, width) or [""]:
                yield "  " + options.paint(line, "dim")
