"""A graded report as lines of text: the score against its threshold first, then each call that
lost points and why (which argument keys differ, with both values), then the calls that matched.

Plain text by default; ``markup(text, style)`` may colour it, as in :mod:`.diff`. Rendering
never raises: a failure becomes a line saying so.
"""

from __future__ import annotations

from collections.abc import Iterable

from .core.matching.explain import short
from .core.metrics import AccuracyReport, F1Report, GradedCall, GradedReport, Unpaired
from .core.metrics.report import call_label
from .core.values import MISSING
from .diff import Markup

__all__ = ["graded_headline", "render_graded", "render_graded_text"]

_DEFAULT_ROWS = 10
_INDENT = "       "


def _plain(text: str, _style: str) -> str:
    return text


def graded_headline(report: GradedReport, min_score: float | None = None) -> str:
    """``Tool-call accuracy 0.67 is below min_score 0.90 (strict order, exact args)``."""
    if isinstance(report, AccuracyReport):
        name, settings = "Tool-call accuracy", f"{report.order}, {report.config.tool_args} args"
    else:
        name, settings = "Tool-call F1", f"{report.config.tool_args} args"
    head = f"{name} {report.score:.2f}"
    if min_score is not None:
        verdict = "is below" if report.score < min_score else "reaches"
        head += f" {verdict} min_score {min_score:.2f}"
    return f"{head} ({settings})"


def render_graded(
    report: GradedReport,
    *,
    min_score: float | None = None,
    verbose: int = 0,
    markup: Markup | None = None,
) -> list[str]:
    """Lines explaining ``report``; ``verbose >= 2`` lists every call, uncut."""
    paint = markup or _plain
    try:
        head = paint(graded_headline(report, min_score), "bold")
        if isinstance(report, AccuracyReport):
            body = list(_accuracy_lines(report, verbose, paint))
        else:
            body = list(_f1_lines(report, verbose, paint))
    except Exception as error:  # an explanation that cannot be drawn must not hide the failure
        return [
            graded_headline(report, min_score),
            f"(could not render the graded diff: {type(error).__name__}: {error})",
        ]
    return [head, *body]


def render_graded_text(
    report: GradedReport, *, min_score: float | None = None, verbose: int = 0
) -> str:
    """``render_graded`` joined into one string."""
    return "\n".join(render_graded(report, min_score=min_score, verbose=verbose))


def _accuracy_lines(report: AccuracyReport, verbose: int, paint: Markup) -> Iterable[str]:
    if report.problem:
        yield paint(f"  the sequence does not align, so the score is 0: {report.problem}", "bad")
    elif report.calls:
        yield paint(f"  mean argument accuracy {report.arg_accuracy:.2f}", "dim")
    lost = [c for c in report.calls if c.status != "matched"]
    shown = lost if verbose >= 2 else lost[:_DEFAULT_ROWS]
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
        yield from _arg_lines(report, call.output, call.reference, width, paint)
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


def _f1_lines(report: F1Report, verbose: int, paint: Markup) -> Iterable[str]:
    made = len(report.matched) + len(report.extra)
    expected = len(report.matched) + len(report.missing)
    yield paint(
        f"  precision {report.precision:.2f} ({len(report.matched)} of {made} output calls "
        f"expected), recall {report.recall:.2f} ({len(report.matched)} of {expected} "
        "reference calls made)",
        "dim",
    )
    rows = _f1_rows(report)
    shown = rows if verbose >= 2 else rows[:_DEFAULT_ROWS]
    width = 200 if verbose >= 2 else 60
    for number, (kind, lone) in enumerate(shown, 1):
        yield from _unpaired_lines(report, number, kind, lone, width, paint)
    if len(shown) < len(rows):
        yield paint(f"  ... and {len(rows) - len(shown)} more calls (-vv shows all)", "dim")
    if report.matched:
        names = ", ".join(r.call.name for _, r in report.matched[:8])
        more = ", ..." if len(report.matched) > 8 else ""
        yield paint(f"  {len(report.matched)} call(s) match: {names}{more}", "good")


def _f1_rows(report: F1Report) -> list[tuple[str, Unpaired]]:
    """Missing and extra calls; a missing call and an extra one that are each other's closest
    show once, as one call whose args differ."""
    extra_by_position = {lone.call.position: lone for lone in report.extra}
    merged: set[int] = set()
    rows: list[tuple[str, Unpaired]] = []
    for lone in report.missing:
        partner = extra_by_position.get(lone.closest.position) if lone.closest else None
        if (
            partner is not None
            and not lone.closest_paired
            and partner.closest is not None
            and partner.closest.position == lone.call.position
            and partner.call.position not in merged
        ):
            merged.add(partner.call.position)
            rows.append(("args differ", lone))
        else:
            rows.append(("missing", lone))
    rows.extend(("extra", lone) for lone in report.extra if lone.call.position not in merged)
    return rows


def _unpaired_lines(
    report: F1Report, number: int, kind: str, lone: Unpaired, width: int, paint: Markup
) -> Iterable[str]:
    side, other = ("output", "reference") if kind == "extra" else ("reference", "output")
    if kind == "args differ" and lone.closest is not None:
        yield paint(
            f"  {number}. args differ: {call_label(lone.call, 'reference')} vs "
            f"{call_label(lone.closest, 'output')}",
            "bad",
        )
        yield from _arg_lines(report, lone.closest, lone.call, width, paint)
        return
    yield paint(f"  {number}. {kind}: {call_label(lone.call, side)}", "bad")
    if lone.closest is None:
        yield paint(f"{_INDENT}the {other} has no call to {lone.call.call.name!r}", "dim")
        return
    note = ", already paired with another call" if lone.closest_paired else ""
    yield paint(f"{_INDENT}closest {call_label(lone.closest, other)}{note}", "dim")
    out, ref = (lone.call, lone.closest) if kind == "extra" else (lone.closest, lone.call)
    yield from _arg_lines(report, out, ref, width, paint)


def _arg_lines(
    report: GradedReport, out: GradedCall, ref: GradedCall, width: int, paint: Markup
) -> Iterable[str]:
    rule = report.config.rule_for(ref.call.name)
    diffs = rule.explain(out.call.args, ref.call.args)
    if not diffs:
        yield paint(f"{_INDENT}the {rule.describe()} rule refused these args", "dim")
    for diff in diffs:
        if diff.expected is not MISSING:
            yield _INDENT + paint(f"- {diff.path}: {short(diff.expected, width)}", "good")
        if diff.actual is not MISSING:
            yield _INDENT + paint(f"+ {diff.path}: {short(diff.actual, width)}", "bad")
        if diff.expected is MISSING and diff.actual is not MISSING:
            yield _INDENT + paint(f"  ({diff.path} is not in the reference)", "dim")
        elif diff.actual is MISSING and diff.expected is not MISSING:
            yield _INDENT + paint(f"  ({diff.path} is missing from the output)", "dim")
