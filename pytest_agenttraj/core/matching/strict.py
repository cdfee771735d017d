"""Strict mode: the same messages in the same order. Same number of messages, the same role at
each position, a message has tool calls iff its counterpart has, and the calls inside each pair
of messages pair one-to-one (parallel calls have no order). Content and ids are not compared.

When the lengths differ, messages are aligned by a sequence diff of (role, tools called) so that
the problems name the messages that were added or left out.
"""

from __future__ import annotations

import difflib

from ..model import Message, Trajectory
from .calls import pair_calls
from .explain import call_problems, describe_message, names
from .report import CallRef, GivenSides, MatchReport, PairParts, Pairs, Problem
from .rules import MatchConfig

__all__ = ["align", "match_strict"]

Row = tuple[int | None, int | None]


def _signature(message: Message) -> tuple[str, tuple[str, ...]]:
    return message.role, tuple(sorted(c.name for c in message.tool_calls))


def align(output: Trajectory, reference: Trajectory) -> list[Row]:
    """Rows pairing messages: by position when the lengths agree, else by a sequence diff."""
    if len(output) == len(reference):
        return [(i, i) for i in range(len(output))]
    matcher = difflib.SequenceMatcher(
        None,
        [_signature(m) for m in output],
        [_signature(m) for m in reference],
        autojunk=False,
    )
    rows: list[Row] = []
    for tag, o1, o2, r1, r2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and o2 - o1 == r2 - r1):
            rows.extend(zip(range(o1, o2), range(r1, r2), strict=True))
            continue
        common = min(o2 - o1, r2 - r1) if tag == "replace" else 0
        rows.extend(zip(range(o1, o1 + common), range(r1, r1 + common), strict=True))
        rows.extend((r, None) for r in range(o1 + common, o2))
        rows.extend((None, r) for r in range(r1 + common, r2))
    return rows


def match_strict(output: Trajectory, reference: Trajectory, config: MatchConfig) -> MatchReport:
    """Compare message by message (see the module docstring)."""
    problems: list[Problem] = []
    pair_parts: list[Pairs | tuple[int, int, tuple[int, ...]]] = []
    if len(output) != len(reference):
        problems.append(Problem("length", f"expected {len(reference)} messages, got {len(output)}"))
    alignment = align(output, reference)
    for o_index, r_index in alignment:
        if o_index is None or r_index is None:
            problems.append(_unaligned(output, reference, o_index, r_index))
            continue
        out, ref = output[o_index], reference[r_index]
        problem = _row_problem(out, ref, o_index, r_index)
        if problem is not None:
            problems.append(problem)
            continue
        if out.tool_calls:
            out_refs = [CallRef(o_index, i, c) for i, c in enumerate(out.tool_calls)]
            ref_refs = [CallRef(r_index, i, c) for i, c in enumerate(ref.tool_calls)]
            paired, lone_out, lone_ref = pair_calls(out_refs, ref_refs, config)
            pair_parts.append(paired)
            where = (f"reference message {r_index}", f"message {o_index}")
            problems.extend(call_problems(paired, lone_out, lone_ref, True, True, config, where))
    sides = GivenSides(output, reference)
    return MatchReport(
        config, sides, not problems, tuple(problems), PairParts(sides, pair_parts), tuple(alignment)
    )


def _unaligned(
    output: Trajectory, reference: Trajectory, o_index: int | None, r_index: int | None
) -> Problem:
    """A message only one side has."""
    if o_index is None:
        assert r_index is not None
        return Problem(
            "missing_message",
            f"reference message {r_index} ({describe_message(reference[r_index])}) is missing "
            "from the output",
            reference_index=r_index,
        )
    return Problem(
        "extra_message",
        f"message {o_index} ({describe_message(output[o_index])}) is not in the reference",
        output_index=o_index,
    )


def _row_problem(out: Message, ref: Message, o_index: int, r_index: int) -> Problem | None:
    """A wrong role, or tool calls on one side only; ``None`` when the calls are to be paired."""
    if out.role != ref.role:
        return Problem(
            "role",
            f"message {o_index}: expected role {ref.role!r}, got {out.role!r}",
            o_index,
            r_index,
        )
    if bool(out.tool_calls) == bool(ref.tool_calls):
        return None
    if ref.tool_calls:
        text = f"message {o_index}: expected tool calls {names(ref.tool_calls)}, got none"
    else:
        text = f"message {o_index}: expected no tool calls, got tool calls {names(out.tool_calls)}"
    return Problem("tool_calls_presence", text, o_index, r_index)
