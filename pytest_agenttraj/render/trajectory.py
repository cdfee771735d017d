"""A trajectory match report as lines of text a person can act on: summary first, then each
problem with its message index and per-key argument differences, then both trajectories aligned
side by side."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any, NamedTuple

from ..core.matching.explain import call_text, short
from ..core.matching.report import CallRef, MatchReport, Place, Problem
from ..core.model import Message, ToolCall
from ..core.values import MISSING, ArgDiff, safe_repr
from . import Markup, Options

__all__ = ["headline", "lines"]

_CONTEXT_ROWS = 2
_DEFAULT_PROBLEMS = 10


def lines(report: MatchReport, options: Options) -> Iterable[str]:
    """Lines explaining ``report``; ``verbose >= 2`` shows every problem and every row, uncut."""
    return _render(report, options.verbose, max(options.width, 60), options.paint)


def headline(report: MatchReport, _options: Options) -> str:
    return report.comment() or "Trajectory matches the reference."


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
# modes). A cell too wide for its column is cut in its text or its arguments, never in its role
# or a tool name: the column grows to hold them. Both cells of a row are cut around the same
# difference, the first argument whose value differs in the first call that differs, so that
# value shows on both sides when it fits, centred in what is shown.

Row = tuple[int | None, int | None]

_DOTS = "..."


class _Call(NamedTuple):
    """A tool call as drawn: its name and its arguments as ``(key, value repr)`` pairs."""

    name: str
    args: tuple[tuple[str, str], ...]

    @property
    def args_text(self) -> str:
        return ", ".join(f"{key}={value}" for key, value in self.args)


class _Cell(NamedTuple):
    """A cell in parts: ``head`` (the role, ``assistant -> `` or ``user: ``) is never cut, nor a
    call's name; ``body`` (message text) and the arguments may be."""

    head: str
    body: str = ""
    calls: tuple[_Call, ...] = ()

    @property
    def text(self) -> str:
        calls = ", ".join(f"{call.name}({call.args_text})" for call in self.calls)
        return self.head + self.body + calls


class _Focus(NamedTuple):
    """Where a row's two cells first differ: the index of the first call that differs and the
    first argument key whose value differs in it (``None`` when no argument does)."""

    call: int
    key: str | None


def _drawn(call: ToolCall) -> _Call:
    # a str's repr breaks no line, but a caller's __repr__ may: one cell is one line
    args = tuple((k, " ".join(safe_repr(v).splitlines())) for k, v in call.args.items())
    return _Call(call.name, args)


def _message_cell(message: Message | None) -> _Cell:
    if message is None:
        return _Cell("-")
    if message.tool_calls:
        return _Cell(f"{message.role} -> ", calls=tuple(_drawn(c) for c in message.tool_calls))
    text = " ".join(message.text.split())
    return _Cell(f"{message.role}: " if text else f"{message.role}:", text)


def _call_cell(ref: CallRef | None) -> _Cell:
    if ref is None:
        return _Cell("-")
    return _Cell("", calls=(_drawn(ref.call),))


def _focus(left: _Cell, right: _Cell) -> _Focus:
    """The first difference of a row, the same for both of its cells."""
    count = max(len(left.calls), len(right.calls))
    at = next(
        (
            i
            for i in range(count)
            if i >= len(left.calls) or i >= len(right.calls) or left.calls[i] != right.calls[i]
        ),
        0,
    )
    if at >= len(left.calls) or at >= len(right.calls):
        return _Focus(at, None)
    ours, theirs = dict(left.calls[at].args), dict(right.calls[at].args)
    keys = [*ours, *(k for k in theirs if k not in ours)]
    return _Focus(at, next((k for k in keys if ours.get(k) != theirs.get(k)), None))


def _display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: East Asian wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - _display_width(text))


def _cut(text: str, width: int) -> str:
    """At most ``width`` columns of ``text`` (but ``...`` at least), ``...`` where it is cut."""
    if _display_width(text) <= width:
        return text
    out, used = [], len(_DOTS)
    for ch in text:
        used += _display_width(ch)
        if used > width:
            break
        out.append(ch)
    return "".join(out) + _DOTS


class _Span:
    """A stretch ``text[begin:end]`` shown with ``...`` where it stops short of an end, grown
    one character at a time on its narrower side, so that what it starts from stays centred."""

    def __init__(self, text: str, begin: int, end: int) -> None:
        self.text, self.begin, self.end = text, begin, end
        self.columns = [0]
        for ch in text:
            self.columns.append(self.columns[-1] + _display_width(ch))
        self.left = self.right = 0

    def cost(self, begin: int, end: int) -> int:
        dots = len(_DOTS) * ((begin > 0) + (end < len(self.text)))
        return self.columns[end] - self.columns[begin] + dots

    def grow(self, width: int) -> None:
        text = self.text
        while True:
            grow_left = self.begin > 0 and self.cost(self.begin - 1, self.end) <= width
            grow_right = self.end < len(text) and self.cost(self.begin, self.end + 1) <= width
            if grow_left and (self.left <= self.right or not grow_right):
                self.begin -= 1
                self.left += _display_width(text[self.begin])
            elif grow_right:
                self.right += _display_width(text[self.end])
                self.end += 1
            else:
                break
        # one character short of an end costs more than reaching it (no ``...`` there)
        if self.cost(0, self.end) <= width:
            self.begin = 0
        if self.cost(self.begin, len(text)) <= width:
            self.end = len(text)

    def shown(self) -> str:
        before = _DOTS if self.begin > 0 else ""
        after = _DOTS if self.end < len(self.text) else ""
        return before + self.text[self.begin : self.end] + after


def _window(text: str, wanted: tuple[int, int], point: int, width: int) -> str:
    """At most ``width`` columns of ``text`` (but ``...`` at least), ``...`` where cut: all of
    ``text[wanted[0]:wanted[1]]`` centred when it fits, else the text around ``point``."""
    if _display_width(text) <= width:
        return text
    span = _Span(text, *wanted)
    if span.cost(span.begin, span.end) > width:
        span = _Span(text, point, min(point + 1, len(text)))
    span.grow(width)
    return span.shown() if span.cost(span.begin, span.end) <= width else _DOTS


def _first_difference(left: str, right: str) -> int:
    pairs = zip(left, right, strict=False)
    return next((i for i, (a, b) in enumerate(pairs) if a != b), min(len(left), len(right)))


def _target(call: _Call, other: _Call | None, key: str | None) -> tuple[tuple[int, int], int]:
    """In ``call.args_text``: the stretch to show (``key=value`` of the differing argument) and
    the character to centre on when it does not fit (where its value starts to differ)."""
    text = call.args_text
    other_args = dict(other.args) if other is not None else {}
    start = 0
    for name, value in call.args:
        if name == key:
            end = start + len(name) + 1 + len(value)
            if key not in other_args:
                return (start, end), start
            return (start, end), start + len(name) + 1 + _first_difference(value, other_args[key])
        start += len(name) + 1 + len(value) + 2
    other_text = other.args_text if other is not None else ""
    point = 0 if text == other_text else _first_difference(text, other_text)
    return (point, point), point


def _frame(cell: _Cell, focus: _Focus) -> tuple[str, int, str]:
    """The parts of a call cell around its shown arguments: ``head..., name(`` and ``), ...``,
    and the index of the call shown (the focus, or the last call when this side has fewer)."""
    at = min(focus.call, len(cell.calls) - 1)
    before = "..., " if at else ""
    after = ", ..." if at < len(cell.calls) - 1 else ""
    return f"{cell.head}{before}{cell.calls[at].name}(", at, f"){after}"


def _least_width(cell: _Cell, focus: _Focus) -> int:
    """The columns ``cell`` needs at least: its role and the tool name it shows, uncut."""
    if not cell.calls:
        return _display_width(cell.head) + min(len(_DOTS), _display_width(cell.body))
    opening, at, closing = _frame(cell, focus)
    args = min(len(_DOTS), _display_width(cell.calls[at].args_text))
    return _display_width(opening + closing) + args


def _fit(cell: _Cell, other: _Cell, focus: _Focus, width: int) -> str:
    """``cell`` in ``width`` columns (or the fewest that hold its role and tool name), its
    arguments cut around ``focus``."""
    if _display_width(cell.text) <= width:
        return cell.text
    if not cell.calls:
        if not cell.body:
            return cell.head
        return cell.head + _cut(cell.body, width - _display_width(cell.head))
    opening, at, closing = _frame(cell, focus)
    call = cell.calls[at]
    partner = other.calls[at] if at < len(other.calls) else None
    wanted, point = _target(call, partner, focus.key if at == focus.call else None)
    room = width - _display_width(opening + closing)
    return opening + _window(call.args_text, wanted, point, room) + closing


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


def _call_rows(report: MatchReport) -> list[tuple[Place | None, Place | None, bool]]:
    """One row per output call beside the reference call the matcher paired it with (or, for a
    call whose arguments differ, the reference call it was compared with), then the reference
    calls left over; each row gives where its calls stand and whether a problem names it."""
    partner: dict[Place, Place] = dict(report.pair_places())
    flagged: set[tuple[str, int, int]] = set()
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
            partner[(out.message, out.position)] = (ref.message, ref.position)
    rows: list[tuple[Place | None, Place | None, bool]] = []
    shown: set[Place] = set()
    for at_out in report.call_places(0):
        paired = partner.get(at_out)
        if paired is not None:
            shown.add(paired)
        marked = ("o", *at_out) in flagged or (paired is not None and ("r", *paired) in flagged)
        rows.append((at_out, paired, marked))
    for at_ref in report.call_places(1):
        if at_ref not in shown:
            rows.append((None, at_ref, ("r", *at_ref) in flagged))
    return rows


def _call_at(report: MatchReport, side: int, place: Place | None) -> CallRef | None:
    return None if place is None else report.call_at(side, place)


def _table_rows(report: MatchReport) -> list[tuple[Row, Callable[[], tuple[_Cell, _Cell]], bool]]:
    """The rows of the side-by-side view: messages in strict mode, calls in the others; each
    row's cells are made when asked (a long table shows only the rows near its problems)."""
    if report.mode != "strict":
        return [
            (
                (out[0] if out else None, ref[0] if ref else None),
                partial(_call_cells, report, out, ref),
                marked,
            )
            for out, ref, marked in _call_rows(report)
        ]
    out_marks, ref_marks = _marks(report)
    return [
        (
            (o, r),
            partial(_message_cells, report, o, r),
            (o is not None and o in out_marks) or (r is not None and r in ref_marks),
        )
        for o, r in report.alignment
    ]


def _call_cells(report: MatchReport, out: Place | None, ref: Place | None) -> tuple[_Cell, _Cell]:
    return _call_cell(_call_at(report, 0, out)), _call_cell(_call_at(report, 1, ref))


def _message_cells(report: MatchReport, o: int | None, r: int | None) -> tuple[_Cell, _Cell]:
    return (
        _message_cell(report.output[o] if o is not None else None),
        _message_cell(report.reference[r] if r is not None else None),
    )


def _aligned_view(report: MatchReport, full: bool, width: int, paint: Markup) -> Iterable[str]:
    rows = _table_rows(report)
    if not rows:
        what = "trajectories are empty" if report.mode == "strict" else "sides make no tool calls"
        yield paint(f"(both {what})", "dim")
        return
    if report.mode == "strict":
        title = "output vs reference (! marks rows with problems; message text is not compared):"
    else:
        title = (
            f"output calls beside the reference calls they paired with ({report.mode} mode "
            "compares tool calls, not message positions; ! marks rows with problems):"
        )
    keep = _kept_rows([row[2] for row in rows], full)
    made = {number: rows[number][1]() for number in keep}
    focus = {number: _focus(*made[number]) for number in keep}
    # a role and tool name longer than a column widen both columns rather than be cut
    column = max(
        [(width - 14) // 2] + [_least_width(cell, focus[n]) for n in keep for cell in made[n]]
    )
    yield paint(title, "bold")
    yield paint(f"    out ref  {'output':<{column}}  reference", "dim")
    skipped = 0
    for number, (row, _, flag) in enumerate(rows):
        if number not in keep:
            skipped += 1
            continue
        if skipped:
            yield paint(f"     ... {skipped} matching row{'s' if skipped > 1 else ''} ...", "dim")
            skipped = 0
        left, right = made[number]
        cells = (
            _fit(left, right, focus[number], column),
            "=" if left == right else _fit(right, left, focus[number], column),
        )
        yield _row_line(row, cells, flag, left == right, column, paint)
    if skipped:
        yield paint(f"     ... {skipped} more row{'s' if skipped > 1 else ''} ...", "dim")


def _kept_rows(marked: list[bool], full: bool) -> set[int]:
    """The rows shown: all of them, or in a long table those near a marked row."""
    if full or len(marked) <= 12:
        return set(range(len(marked)))
    near = {
        r
        for m, flag in enumerate(marked)
        if flag
        for r in range(m - _CONTEXT_ROWS, m + _CONTEXT_ROWS + 1)
        if 0 <= r < len(marked)
    }
    return near or set(range(min(len(marked), 6)))


def _row_line(
    row: Row, cells: tuple[str, str], marked: bool, same: bool, column: int, paint: Markup
) -> str:
    o, r = row
    o_text = "-" if o is None else str(o)
    r_text = "-" if r is None else str(r)
    flag = "!" if marked else " "
    line = f"  {flag} {o_text:>3} {r_text:>3}  {_pad(cells[0], column)}  {cells[1]}"
    return paint(line.rstrip(), "bad" if marked else "dim" if same else "")


# ---------------------------------------------------------------- the HTML page's view


def detail(report: MatchReport) -> dict[str, Any]:
    """Both trajectories, the rows of the side-by-side table (message rows in strict mode, call
    rows in the others: ``[output message, reference message, marked, output call, reference
    call]``) and each problem with where it points and its argument differences."""
    from .detail import MAX_ITEMS, plain

    rows = _detail_rows(report, MAX_ITEMS)
    (outputs, output_count), (references, reference_count) = (
        report.head(side, MAX_ITEMS) for side in (0, 1)
    )
    output = [_message_view(m, plain) for m in outputs]
    reference = [_message_view(m, plain) for m in references]
    view: dict[str, Any] = {
        "view": "trajectory",
        "mode": report.mode,
        "output_count": output_count,
        "reference_count": reference_count,
        "problems": [_problem_view(p, plain) for p in report.problems[:MAX_ITEMS]],
    }
    if rows is not None:
        view["rows"] = rows
    if output == reference:
        view["output"], view["same"] = output, True
    else:
        view["output"], view["reference"] = output, reference
    return view


def _detail_rows(report: MatchReport, limit: int) -> list[list[Any]] | None:
    """The table's rows for the page; ``None`` for a passing strict match (message i beside
    message i, nothing marked: the page needs no list to say so)."""
    if report.mode == "strict":
        if report.matched:
            return None
        out_marks, ref_marks = _marks(report)
        marked = [
            (o, r, (o is not None and o in out_marks) or (r is not None and r in ref_marks))
            for o, r in report.alignment[:limit]
        ]
        return [[o, r, flag, None, None] for o, r, flag in marked]
    return [
        [
            out[0] if out else None,
            ref[0] if ref else None,
            marked,
            out[1] if out else None,
            ref[1] if ref else None,
        ]
        for out, ref, marked in _call_rows(report)[:limit]
    ]


def _message_view(message: Message, plain: Any) -> dict[str, Any]:
    view: dict[str, Any] = {"role": message.role, "text": plain(message.text)}
    if message.tool_calls:
        view["calls"] = [{"name": c.name, "args": plain(dict(c.args))} for c in message.tool_calls]
    return view


def _problem_view(problem: Problem, plain: Any) -> dict[str, Any]:
    view: dict[str, Any] = {
        "text": problem.text,
        "output_index": problem.output_index,
        "reference_index": problem.reference_index,
    }
    detail = problem.call
    if detail is not None and detail.diffs:
        view["args"] = [
            {
                "path": d.path,
                "kind": d.kind,
                **({} if d.expected is MISSING else {"expected": plain(d.expected)}),
                **({} if d.actual is MISSING else {"actual": plain(d.actual)}),
            }
            for d in detail.diffs
        ]
    return view
