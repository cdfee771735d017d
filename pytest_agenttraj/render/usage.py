"""A tool-usage report as lines: how many rules broke, then each broken rule with the offending
calls or assistant turns (their message indices)."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.usage import UsageReport
from . import Options

__all__ = ["headline", "lines"]


def headline(report: UsageReport, _options: Options) -> str:
    return report.comment() or f"Tool usage follows the rules ({report.rules.describe()})."


def lines(report: UsageReport, options: Options) -> Iterable[str]:
    """A summary line, then one line per violation."""
    if report.passed:
        yield options.paint(f"Tool usage follows the rules ({report.rules.describe()}).", "good")
        return
    count = len(report.violations)
    yield options.paint(
        f"Tool usage breaks {count} rule{'s' if count > 1 else ''} ({report.rules.describe()}):",
        "bold",
    )
    for number, violation in enumerate(report.violations, 1):
        yield f"  {number}. " + options.paint(f"{violation.rule}: {violation.text}", "bad")
