"""What the graded renderers share (tool-call accuracy and F1): the score against its threshold
as the first line, and the argument differences of two calls with both values."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.matching.explain import short
from ..core.metrics import GradedCall, GradedReport
from ..core.values import MISSING
from . import Markup, Options

__all__ = ["DEFAULT_ROWS", "INDENT", "arg_lines", "scored_headline", "with_headline"]

DEFAULT_ROWS = 10
INDENT = "       "


def scored_headline(name: str, score: float, settings: str, min_score: float | None) -> str:
    """``Tool-call accuracy 0.67 is below min_score 0.90 (strict order, exact args)``."""
    head = f"{name} {score:.2f}"
    if min_score is not None:
        verdict = "is below" if score < min_score else "reaches"
        head += f" {verdict} min_score {min_score:.2f}"
    return f"{head} ({settings})"


def with_headline(head: str, body: Iterable[str], options: Options) -> Iterable[str]:
    """The headline in bold, then the body."""
    yield options.paint(head, "bold")
    yield from body


def arg_lines(
    report: GradedReport, out: GradedCall, ref: GradedCall, width: int, paint: Markup
) -> Iterable[str]:
    rule = report.config.rule_for(ref.call.name)
    diffs = rule.explain(out.call.args, ref.call.args)
    if not diffs:
        yield paint(f"{INDENT}the {rule.describe()} rule refused these args", "dim")
    for diff in diffs:
        if diff.expected is not MISSING:
            yield INDENT + paint(f"- {diff.path}: {short(diff.expected, width)}", "good")
        if diff.actual is not MISSING:
            yield INDENT + paint(f"+ {diff.path}: {short(diff.actual, width)}", "bad")
        if diff.expected is MISSING and diff.actual is not MISSING:
            yield INDENT + paint(f"  ({diff.path} is not in the reference)", "dim")
        elif diff.actual is MISSING and diff.expected is not MISSING:
            yield INDENT + paint(f"  ({diff.path} is missing from the output)", "dim")
