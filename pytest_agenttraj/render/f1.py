"""A tool-call F1 report as lines: the score against its threshold, precision and recall, then
each missing and extra call with the closest call on the other side and what differs."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.metrics import F1Report, Unpaired
from ..core.metrics.report import call_label
from . import Markup, Options
from .graded import DEFAULT_ROWS, INDENT, arg_lines, scored_headline, with_headline

__all__ = ["headline", "lines"]


def headline(report: F1Report, options: Options) -> str:
    settings = f"{report.config.tool_args} args"
    return scored_headline("Tool-call F1", report.score, settings, options.min_score)


def lines(report: F1Report, options: Options) -> Iterable[str]:
    """Lines explaining ``report``; ``verbose >= 2`` lists every call, uncut."""
    body = _f1_lines(report, options.verbose, options.paint)
    return with_headline(headline(report, options), body, options)


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
    shown = rows if verbose >= 2 else rows[:DEFAULT_ROWS]
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
        yield from arg_lines(report, lone.closest, lone.call, width, paint)
        return
    yield paint(f"  {number}. {kind}: {call_label(lone.call, side)}", "bad")
    if lone.closest is None:
        yield paint(f"{INDENT}the {other} has no call to {lone.call.call.name!r}", "dim")
        return
    note = ", already paired with another call" if lone.closest_paired else ""
    which = "closest" if lone.compared else "first same-named"  # past the calls explained
    yield paint(f"{INDENT}{which} {call_label(lone.closest, other)}{note}", "dim")
    out, ref = (lone.call, lone.closest) if kind == "extra" else (lone.closest, lone.call)
    yield from arg_lines(report, out, ref, width, paint)
