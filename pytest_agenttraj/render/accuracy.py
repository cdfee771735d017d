"""A tool-call accuracy report as lines: the score against its threshold, whether the call
sequences align, then each reference call that lost points and why, with both values."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.metrics import AccuracyReport
from ..core.metrics.report import call_label
from . import Markup, Options
from .graded import DEFAULT_ROWS, arg_lines, scored_headline, with_headline

__all__ = ["headline", "lines"]


def headline(report: AccuracyReport, options: Options) -> str:
    settings = f"{report.order}, {report.config.tool_args} args"
    return scored_headline("Tool-call accuracy", report.score, settings, options.min_score)


def lines(report: AccuracyReport, options: Options) -> Iterable[str]:
    """Lines explaining ``report``; ``verbose >= 2`` lists every call, uncut."""
    body = _accuracy_lines(report, options.verbose, options.paint)
    return with_headline(headline(report, options), body, options)


def _accuracy_lines(report: AccuracyReport, verbose: int, paint: Markup) -> Iterable[str]:
    if report.problem:
        yield paint(f"  the sequence does not align, so the score is 0: {report.problem}", "bad")
    elif report.calls:
        yield paint(f"  mean argument accuracy {report.arg_accuracy:.2f}", "dim")
    lost = [c for c in report.calls if c.status != "matched"]
    shown = lost if verbose >= 2 else lost[:DEFAULT_ROWS]
    width = 200 if verbose >= 2 else 60
    for number, call in enumerate(shown, 1):
        head = f"  {number}. reference call {call.reference.position} {call.reference.call.name!r}"
        if call.output is None:
            yield paint(f"{head}: missing (no output call pairs with it), scores 0", "bad")
            continue
        yield paint(
            f"{head} vs {call_label(call.output, 'output')}: args differ "
            f"({', '.join(call.differing) or 'rejected by the args rule'}), "
            f"scores {call.score:.2f}",
            "bad",
        )
        yield from arg_lines(report, call.output, call.reference, width, paint)
    if len(shown) < len(lost):
        yield paint(f"  ... and {len(lost) - len(shown)} more calls (-vv shows all)", "dim")
    matched = [c for c in report.calls if c.status == "matched"]
    if matched:
        yield paint(f"  {len(matched)} of {len(report.calls)} reference calls match fully", "good")
    if report.extra:
        free = ", which lose no points" if report.rules.allow_extra_calls else ""
        yield paint(
            f"  {len(report.extra)} extra output call(s){free}: "
            + ", ".join(call_label(c, "output") for c in report.extra[:5]),
            "dim",
        )
