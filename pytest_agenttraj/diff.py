"""A match report as lines of text a person can act on: summary first, then each problem with its
message index and per-key argument differences, then both trajectories aligned side by side.

Plain text by default; ``markup(text, style)`` may colour it (the plugin passes pytest's terminal
writer so ``--color``, ``NO_COLOR`` and the like are honoured). Rendering never raises: a failure
becomes a line saying so.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from .core.graph import GraphMatchReport
from .core.matching.explain import call_text, short
from .core.matching.report import CallRef, MatchReport, Problem, call_refs
from .core.model import Message, ToolCall
from .core.values import MISSING, ArgDiff, safe_repr
from .diff_graph import render_graph_report

__all__ = ["Markup", "render_report", "render_text"]

Markup = Callable[[str, str], str]
"""``markup(text, style)`` with style one of ``bad``, ``good``, ``dim``, ``bold``."""

_CONTEXT_ROWS = 2
_DEFAULT_PROBLEMS = 10


def _plain(text: str, _style: str) -> str:
    return text


def render_report(
    report: MatchReport | GraphMatchReport,
    *,
    verbose: int = 0,
    width: int = 100,
    markup: Markup | None = None,
) -> list[str]:
    """Lines explaining ``report``; ``verbose >= 2`` shows every problem and every row, uncut.
    A graph report is drawn by :func:`.diff_graph.render_graph_report`."""
    if isinstance(report, GraphMatchReport):
        return render_graph_report(report, verbose=verbose, width=width, markup=markup)
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
        if not detail.explained:
            yield paint("       (not compared in detail: the first problems are)", "dim")
        elif not detail.diffs and not detail.reason:
            yield paint(f"       the {detail.rule} override returned False", "dim")
        return
    yield prefix + paint(problem.text, "bad")
    if detail is not None and detail.closest is not None:
        other = "reference" if detail.side == "output" else "output"
        where = f"{'reference ' if other == 'reference' else ''}message {detail.closest.message}"
        note = ", already paired with another call" if detail.closest_paired else ""
        which = "closest" if detail.explained else "first"  # past the explained problems
        yield paint(
            f"       {which} {other} call: {where} {call_text(detail.closest.call)}{note}", "dim"
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


# ---------------------------------------------------------------- the side-by-side table
#
# A cell is what one side shows on one row: a message (strict mode) or a tool call (the other
# modes). A cell that is too wide is cut in its arguments, never in a role or a tool name, and
# when the two sides differ past the cut, both show the arguments around the first difference.

Row = tuple[int | None, int | None]


class _Cell(NamedTuple):
    """A cell in parts: ``head`` is never cut (``assistant -> `` or ``user: ...``), each call is
    its tool name and its arguments text."""

    head: str
    calls: tuple[tuple[str, str], ...] = ()

    @property
    def text(self) -> str:
        return self.head + ", ".join(f"{name}({args})" for name, args in self.calls)


def _args_text(call: ToolCall) -> str:
    return ", ".join(f"{k}={safe_repr(v)}" for k, v in call.args.items())


def _message_cell(message: Message | None) -> _Cell:
    if message is None:
        return _Cell("-")
    if message.tool_calls:
        calls = tuple((c.name, _args_text(c)) for c in message.tool_calls)
        return _Cell(f"{message.role} -> ", calls)
    return _Cell(" ".join(f"{message.role}: {message.text}".split()))


def _call_cell(ref: CallRef | None) -> _Cell:
    if ref is None:
        return _Cell("-")
    return _Cell("", ((ref.call.name, " ".join(_args_text(ref.call).split())),))


def _display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: East Asian wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _display_width(text))


def _cut(text: str, width: int) -> str:
    """At most ``width`` columns of ``text``, ending with ``...`` where it is cut."""
    if _display_width(text) <= width:
        return text
    out, used = [], 3
    for ch in text:
        used += _display_width(ch)
        if used > width:
            break
        out.append(ch)
    return "".join(out) + "..."


def _window(text: str, at: int, width: int) -> str:
    """At most ``width`` columns of ``text`` that show position ``at``, ``...`` where cut."""
    if _display_width(text) <= width or _display_width(text[: at + 1]) <= width - 8:
        return _cut(text, width)
    begin, used = at, 0  # a third of the window before the difference
    while begin > 0 and used + _display_width(text[begin - 1]) <= width // 3:
        begin -= 1
        used += _display_width(text[begin])
    tail, used = len(text), 0  # the latest start that still fills the window
    while tail > 0 and used + _display_width(text[tail - 1]) <= width - 3:
        tail -= 1
        used += _display_width(text[tail])
    return "..." + _cut(text[min(begin, tail) :], width - 3)


def _first_difference(left: str, right: str) -> int:
    pairs = zip(left, right, strict=False)
    return next((i for i, (a, b) in enumerate(pairs) if a != b), min(len(left), len(right)))


def _fit(cell: _Cell, other: _Cell, width: int) -> str:
    """``cell`` cut to ``width`` columns, its arguments around the first call that differs
    from ``other``'s."""
    if _display_width(cell.text) <= width:
        return cell.text
    if not cell.calls or cell == other:
        return _cut(cell.text, width)
    focus = next(
        (i for i, call in enumerate(cell.calls) if i >= len(other.calls) or other.calls[i] != call),
        0,
    )
    name, args = cell.calls[focus]
    other_args = other.calls[focus][1] if focus < len(other.calls) else ""
    before = "..., " if focus else ""
    after = ", ..." if focus < len(cell.calls) - 1 else ""
    head = cell.head
    room = width - _display_width(head + before + name + "()" + after)
    if room < 12 and head.endswith(" -> "):  # a long tool name: the role gives way first
        head, room = "-> ", room + _display_width(head) - 3
    shown = _window(args, _first_difference(args, other_args), max(8, room)) if args else ""
    return _cut(f"{head}{before}{name}({shown}){after}", width)


def _marks(report: MatchReport) -> tuple[set[int], set[int]]:
    """Output and reference message indices that problems name."""
    out_marks: set[int] = set()
    ref_marks: set[int] = set()
    for problem in report.problems:
        if problem.output_index is not None:
            out_marks.add(problem.output_index)
        if problem.reference_index is not None:
            ref_marks.add(problem.reference_index)
    return out_marks, ref_marks


def _call_rows(report: MatchReport) -> list[tuple[CallRef | None, CallRef | None, bool]]:
    """One row per output call beside the reference call the matcher paired it with (or, for a
    call whose arguments differ, the reference call it was compared with), then the reference
    calls left over; each row says whether a problem names it."""
    partner: dict[tuple[int, int], CallRef] = {}
    flagged: set[tuple[str, int, int]] = set()
    for out, ref in report.pairs:
        partner[(out.message, out.position)] = ref
    for problem in report.problems:
        detail = problem.call
        if detail is None:
            continue
        lone, other = detail.call, detail.closest
        side, far = ("o", "r") if detail.side == "output" else ("r", "o")
        flagged.add((side, lone.message, lone.position))
        if other is not None:
            flagged.add((far, other.message, other.position))
        if problem.kind == "args_mismatch" and other is not None:
            out, ref = (lone, other) if detail.side == "output" else (other, lone)
            partner[(out.message, out.position)] = ref
    rows: list[tuple[CallRef | None, CallRef | None, bool]] = []
    shown: set[tuple[int, int]] = set()
    for out in call_refs(report.output):
        paired = partner.get((out.message, out.position))
        if paired is not None:
            shown.add((paired.message, paired.position))
        marked = ("o", out.message, out.position) in flagged or (
            paired is not None and ("r", paired.message, paired.position) in flagged
        )
        rows.append((out, paired, marked))
    for ref in call_refs(report.reference):
        if (ref.message, ref.position) not in shown:
            rows.append((None, ref, ("r", ref.message, ref.position) in flagged))
    return rows


def _table_rows(report: MatchReport) -> list[tuple[Row, _Cell, _Cell, bool]]:
    """The rows of the side-by-side view: messages in strict mode, calls in the others."""
    if report.mode != "strict":
        return [
            (
                (out.message if out else None, ref.message if ref else None),
                _call_cell(out),
                _call_cell(ref),
                marked,
            )
            for out, ref, marked in _call_rows(report)
        ]
    out_marks, ref_marks = _marks(report)
    return [
        (
            (o, r),
            _message_cell(report.output[o] if o is not None else None),
            _message_cell(report.reference[r] if r is not None else None),
            (o is not None and o in out_marks) or (r is not None and r in ref_marks),
        )
        for o, r in report.alignment
    ]


def _aligned_view(report: MatchReport, full: bool, width: int, paint: Markup) -> Iterable[str]:
    rows = _table_rows(report)
    if not rows:
        what = "trajectories are empty" if report.mode == "strict" else "sides make no tool calls"
        yield paint(f"(both {what})", "dim")
        return
    marked = {number for number, row in enumerate(rows) if row[3]}
    column = (width - 14) // 2
    if report.mode == "strict":
        title = "output vs reference (! marks rows with problems; message text is not compared):"
    else:
        title = (
            f"output calls beside the reference calls they paired with ({report.mode} mode "
            "compares tool calls, not message positions; ! marks rows with problems):"
        )
    yield paint(title, "bold")
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
    for number, (row, left, right, flag) in enumerate(rows):
        if number not in keep:
            skipped += 1
            continue
        if skipped:
            yield paint(f"     ... {skipped} matching row{'s' if skipped > 1 else ''} ...", "dim")
            skipped = 0
        yield _row_line(row, left, right, flag, column, paint)
    if skipped:
        yield paint(f"     ... {skipped} more row{'s' if skipped > 1 else ''} ...", "dim")


def _row_line(row: Row, left: _Cell, right: _Cell, marked: bool, column: int, paint: Markup) -> str:
    o, r = row
    same = left == right
    left_text, right_text = _fit(left, right, column), _fit(right, left, column)
    o_text = "-" if o is None else str(o)
    r_text = "-" if r is None else str(r)
    flag = "!" if marked else " "
    line = f"  {flag} {o_text:>3} {r_text:>3}  {_pad(left_text, column)}  "
    line += "=" if same else right_text
    return paint(line.rstrip(), "bad" if marked else "dim" if same else "")


def render_text(report: MatchReport | GraphMatchReport, **options: Any) -> str:
    """``render_report`` joined into one string."""
    return "\n".join(render_report(report, **options))
