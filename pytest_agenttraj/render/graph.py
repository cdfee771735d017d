"""A graph match report as lines of text: the summary, each difference with its invocation and
superstep, then the supersteps of both sides next to each other."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..core.graph import GraphDifference, GraphMatchReport, GraphPath
from . import Options

__all__ = ["headline", "lines"]

_CONTEXT_ROWS = 2
_DEFAULT_PROBLEMS = 10
_DEFAULT_INVOCATIONS = 3


def lines(report: GraphMatchReport, options: Options) -> Iterable[str]:
    """Lines explaining ``report``; ``verbose >= 2`` shows every difference and superstep."""
    return _render(report, options.verbose >= 2, max(options.width, 60), options.paint)


def headline(report: GraphMatchReport, _options: Options) -> str:
    return report.comment() or "Graph trajectory matches the reference."


def _render(
    report: GraphMatchReport, full: bool, width: int, paint: Callable[[str, str], str]
) -> Iterable[str]:
    if report.matched:
        yield paint(f"Graph trajectory matches the reference ({report.mode} mode).", "good")
        return
    count = len(report.differences)
    noun = "difference" if count == 1 else "differences"
    yield paint(
        f"Graph trajectory does not match the reference ({report.mode} mode): {count} {noun}",
        "bold",
    )
    shown = report.differences if full else report.differences[:_DEFAULT_PROBLEMS]
    for number, difference in enumerate(shown, 1):
        yield f"  {number}. " + paint(difference.line(), "bad")
    if len(shown) < count:
        yield paint(f"  ... and {count - len(shown)} more (-vv shows all)", "dim")
    invocations = sorted({d.invocation for d in report.differences if d.invocation is not None})
    if not invocations:  # the number of invocations differs: show each side's
        invocations = list(range(max(len(report.output), len(report.reference))))
    if not full and len(invocations) > _DEFAULT_INVOCATIONS:
        invocations = invocations[:_DEFAULT_INVOCATIONS]
    for invocation in invocations:
        yield ""
        yield from _side_by_side(report, invocation, full, width, paint)


def _path(paths: tuple[GraphPath, ...], invocation: int) -> GraphPath:
    return paths[invocation] if invocation < len(paths) else ()


def _marks(differences: Iterable[GraphDifference], invocation: int) -> set[int]:
    rows: set[int] = set()
    for difference in differences:
        if difference.invocation == invocation:
            rows.update(difference.output_at)
            rows.update(difference.reference_at)
    return rows


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _side_by_side(
    report: GraphMatchReport,
    invocation: int,
    full: bool,
    width: int,
    paint: Callable[[str, str], str],
) -> Iterable[str]:
    output, reference = _path(report.output, invocation), _path(report.reference, invocation)
    rows = max(len(output), len(reference))
    marked = _marks(report.differences, invocation)
    yield paint(
        f"invocation {invocation}, superstep by superstep (! marks differences; "
        "{...} is one superstep, its order ignored):",
        "bold",
    )
    column = (width - 14) // 2
    yield paint(f"    step  {'output':<{column}}  reference", "dim")
    keep = set(range(rows))
    if not full and rows > 12:
        keep = {
            row
            for mark in marked
            for row in range(mark - _CONTEXT_ROWS, mark + _CONTEXT_ROWS + 1)
            if 0 <= row < rows
        } or set(range(min(rows, 6)))
    skipped = 0
    for row in range(rows):
        if row not in keep:
            skipped += 1
            continue
        if skipped:
            yield paint(f"     ... {skipped} superstep{'s' if skipped > 1 else ''} ...", "dim")
            skipped = 0
        left = output[row].text() if row < len(output) else "-"
        right = reference[row].text() if row < len(reference) else "-"
        same = row < len(output) and row < len(reference) and left == right
        flag = "!" if row in marked else " "
        shown = "=" if same else _clip(right, column)
        line = f"  {flag} {row:>4}  {_clip(left, column):<{column}}  {shown}"
        yield paint(line.rstrip(), "bad" if row in marked else "dim" if same else "")
    if skipped:
        yield paint(f"     ... {skipped} more superstep{'s' if skipped > 1 else ''} ...", "dim")


def detail(report: GraphMatchReport) -> dict[str, Any]:
    """Each invocation's supersteps on both sides (a superstep: its node names and whether they
    ran together) and the supersteps each difference marks."""
    from .detail import MAX_ITEMS

    def side(paths: tuple[GraphPath, ...]) -> list[list[list[Any]]]:
        return [[[list(s.nodes), s.grouped] for s in path[:MAX_ITEMS]] for path in paths[:100]]

    return {
        "view": "graph",
        "mode": report.mode,
        "output": side(report.output),
        "reference": side(report.reference),
        "differences": [
            {
                "text": d.line(),
                "invocation": d.invocation,
                "output_at": list(d.output_at),
                "reference_at": list(d.reference_at),
            }
            for d in report.differences[:MAX_ITEMS]
        ],
    }
