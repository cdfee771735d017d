"""A match report as lines of text a person can act on: summary first, then each problem with its
message index and per-key argument differences, then both trajectories aligned side by side.

Plain text by default; ``markup(text, style)`` may colour it (the plugin passes pytest's terminal
writer so ``--color``, ``NO_COLOR`` and the like are honoured). Rendering never raises: a failure
becomes a line saying so.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

from .core.matching.explain import call_text, short
from .core.matching.report import MatchReport, Problem
from .core.model import Message
from .core.values import MISSING, ArgDiff

__all__ = ["Markup", "render_report", "render_text"]

Markup = Callable[[str, str], str]
"""``markup(text, style)`` with style one of ``bad``, ``good``, ``dim``, ``bold``."""

_CONTEXT_ROWS = 2
_DEFAULT_PROBLEMS = 10


def _plain(text: str, _style: str) -> str:
    return text


def render_report(
    report: MatchReport,
    *,
    verbose: int = 0,
    width: int = 100,
    markup: Markup | None = None,
) -> list[str]:
    """Lines explaining ``report``; ``verbose >= 2`` shows every problem and every row, uncut."""
    paint = markup or _plain
    try:
        return list(_render(report, verbose, max(width, 60), paint))
    except Exception as error:  # a diff that cannot be drawn must not hide the failure itself
        head = report.comment() or "Trajectory matches the reference."
        return [head, f"(could not render the trajectory diff: {type(error).__name__}: {error})"]


def _render(report: MatchReport, verbose: int, width: int, paint: Markup) -> Iterable[str]:
    full = verbose >= 2
    value_width = 200 if full else 60
    count = len(report.problems)
    settings = f"{report.mode} mode, {report.tool_args} args"
    if report.config.overrides:
        rules = ", ".join(f"{k}: {v.describe()}" for k, v in report.config.overrides.items())
        settings += f", overrides {{{rules}}}"
    if report.matched:
        yield paint(f"Trajectory matches the reference ({settings}).", "good")
        return
    noun = "problem" if count == 1 else "problems"
    yield paint(f"Trajectory does not match the reference ({settings}): {count} {noun}", "bold")
    shown = report.problems if full else report.problems[:_DEFAULT_PROBLEMS]
    for number, problem in enumerate(shown, 1):
        yield from _problem_lines(number, problem, value_width, paint)
    if len(shown) < count:
        yield paint(f"  ... and {count - len(shown)} more problems (-vv shows all)", "dim")
    yield ""
    yield from _aligned_view(report, full, width, paint)


def _problem_lines(number: int, problem: Problem, value_width: int, paint: Markup) -> Iterable[str]:
    prefix = f"  {number}. "
    detail = problem.call
    if problem.kind == "args_mismatch" and detail is not None:
        out = detail.call if detail.side == "output" else detail.closest
        assert out is not None
        yield prefix + paint(
            f"message {out.message}: tool call {out.call.name!r} args differ ({detail.rule})",
            "bad",
        )
        if detail.reason:
            yield paint(f"       {detail.rule} said: {' '.join(detail.reason.split())}", "bad")
        yield from _diff_lines(detail.diffs, value_width, paint, "       ")
        if not detail.diffs and not detail.reason:
            yield paint(f"       the {detail.rule} override returned False", "dim")
        return
    yield prefix + paint(problem.text, "bad")
    if detail is not None and detail.closest is not None:
        other = "reference" if detail.side == "output" else "output"
        where = f"{'reference ' if other == 'reference' else ''}message {detail.closest.message}"
        note = ", already paired with another call" if detail.closest_paired else ""
        yield paint(
            f"       closest {other} call: {where} {call_text(detail.closest.call)}{note}", "dim"
        )
        yield from _diff_lines(detail.diffs, value_width, paint, "       ")


def _diff_lines(
    diffs: Iterable[ArgDiff], value_width: int, paint: Markup, indent: str
) -> Iterable[str]:
    for diff in diffs:
        if diff.expected is not MISSING:
            yield indent + paint(f"- {diff.path}: {short(diff.expected, value_width)}", "good")
        if diff.actual is not MISSING:
            yield indent + paint(f"+ {diff.path}: {short(diff.actual, value_width)}", "bad")
        if diff.expected is MISSING and diff.actual is MISSING:
            yield indent + paint(f"  {diff.path}: missing on both sides", "dim")
        elif diff.expected is MISSING:
            yield indent + paint(f"  ({diff.path} is not in the reference)", "dim")
        elif diff.actual is MISSING:
            yield indent + paint(f"  ({diff.path} is missing from the output)", "dim")


def _cell_text(message: Message | None) -> str:
    if message is None:
        return "-"
    if message.tool_calls:
        # Whole values: the row is clipped around the first difference, which may lie past
        # where ``call_text`` would cut a long value.
        body = ", ".join(
            f"{c.name}({', '.join(f'{k}={v!r}' for k, v in c.args.items())})"
            for c in message.tool_calls
        )
        text = f"{message.role} -> {body}"
    else:
        text = f"{message.role}: {message.text}"
    return " ".join(text.split())


def _display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: East Asian wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _display_width(text))


def _clip(text: str, start: int, width: int) -> str:
    """At most ``width`` columns of ``text`` from ``start``, with ``...`` where it is cut."""
    if start > 0:
        text = "..." + text[start + 3 :]
    if _display_width(text) <= width:
        return text
    out, used = [], 3
    for ch in text:
        used += _display_width(ch)
        if used > width:
            break
        out.append(ch)
    return "".join(out) + "..."


def _clip_pair(left: str, right: str, width: int) -> tuple[str, str]:
    """Both cells cut to ``width``; where they differ past the cut, both start before the
    first difference so that it shows."""
    if max(_display_width(left), _display_width(right)) <= width:
        return left, right
    pairs = zip(left, right, strict=False)
    at = next((i for i, (a, b) in enumerate(pairs) if a != b), min(len(left), len(right)))
    start = max(0, at - (2 * width) // 3) if left != right and at > width - 12 else 0
    return _clip(left, start, width), _clip(right, start, width)


def _marked_rows(report: MatchReport) -> set[int]:
    out_marks: set[int] = set()
    ref_marks: set[int] = set()
    for problem in report.problems:
        if problem.output_index is not None:
            out_marks.add(problem.output_index)
        if problem.reference_index is not None:
            ref_marks.add(problem.reference_index)
    return {
        row
        for row, (o, r) in enumerate(report.alignment)
        if (o is not None and o in out_marks) or (r is not None and r in ref_marks)
    }


def _aligned_view(report: MatchReport, full: bool, width: int, paint: Markup) -> Iterable[str]:
    rows = report.alignment
    if not rows:
        yield paint("(both trajectories are empty)", "dim")
        return
    marked = _marked_rows(report)
    column = (width - 14) // 2
    title = "output vs reference (! marks rows with problems; message text is not compared"
    if report.mode != "strict":
        title += f", and {report.mode} mode compares tool calls, not message positions"
    title += ")"
    yield paint(title + ":", "bold")
    yield paint(f"     out ref  {'output':<{column}}  reference", "dim")
    keep = set(range(len(rows)))
    if not full and len(rows) > 12:
        keep = {
            r
            for m in marked
            for r in range(m - _CONTEXT_ROWS, m + _CONTEXT_ROWS + 1)
            if 0 <= r < len(rows)
        } or set(range(min(len(rows), 6)))
    skipped = 0
    for row, (o, r) in enumerate(rows):
        if row not in keep:
            skipped += 1
            continue
        if skipped:
            yield paint(f"     ... {skipped} matching row{'s' if skipped > 1 else ''} ...", "dim")
            skipped = 0
        yield _row_line(report, row in marked, o, r, column, paint)
    if skipped:
        yield paint(f"     ... {skipped} more row{'s' if skipped > 1 else ''} ...", "dim")


def _row_line(
    report: MatchReport, marked: bool, o: int | None, r: int | None, column: int, paint: Markup
) -> str:
    left_text = _cell_text(report.output[o] if o is not None else None)
    right_text = _cell_text(report.reference[r] if r is not None else None)
    same = left_text == right_text
    left, right = _clip_pair(left_text, right_text, column)
    o_text = "-" if o is None else str(o)
    r_text = "-" if r is None else str(r)
    flag = "!" if marked else " "
    line = f"  {flag} {o_text:>3} {r_text:>3}  {_pad(left, column)}  {'=' if same else right}"
    return paint(line.rstrip(), "bad" if marked else "dim" if same else "")


def render_text(report: MatchReport, **options: Any) -> str:
    """``render_report`` joined into one string."""
    return "\n".join(render_report(report, **options))
