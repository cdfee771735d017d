"""A value comparison (``exact_match``) as lines: the verdict, and what differs."""

from __future__ import annotations

from collections.abc import Iterable

from ..evaluators.exact import ValueReport
from . import Options

__all__ = ["headline", "lines"]


def headline(report: ValueReport, _options: Options) -> str:
    return report.comment() or "outputs equal reference_outputs."


def lines(report: ValueReport, options: Options) -> Iterable[str]:
    if report.passed:
        yield options.paint(headline(report, options), "good")
    else:
        yield options.paint(headline(report, options), "bad")
