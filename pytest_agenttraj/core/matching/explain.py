"""Explaining unpaired calls: for each, the closest candidate on the other side and what differs,
as a problem whose text names the message index. The text helpers here also serve the diff.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

from ..model import Message, ToolCall
from ..values import MISSING, ArgDiff
from .report import CallProblem, CallRef, Pairs, Problem
from .rules import ArgsRule, MatchConfig

__all__ = ["call_problems", "call_text", "describe_message", "format_diff", "names", "short"]

_CLOSEST_SCAN_LIMIT = 200
_VALUE_WIDTH = 60


def short(value: Any, width: int = _VALUE_WIDTH) -> str:
    """A value's repr, cut to ``width`` characters (never raises: this text explains failures)."""
    try:
        text = repr(value)
    except Exception:
        text = f"<unprintable {type(value).__name__}>"
    return text if len(text) <= width else text[: width - 3] + "..."


def call_text(call: ToolCall, width: int = 80) -> str:
    """``name(key='value', ...)`` cut to ``width`` characters."""
    inner = ", ".join(f"{k}={short(v, 40)}" for k, v in call.args.items())
    text = f"{call.name}({inner})"
    return text if len(text) <= width else text[: width - 4] + "...)"


def format_diff(diff: ArgDiff) -> str:
    """One arg difference in a sentence fragment."""
    if diff.kind == "missing":
        if diff.expected is MISSING:
            return f"{diff.path} missing on both sides"
        return f"{diff.path} missing (expected {short(diff.expected)})"
    if diff.kind == "unexpected":
        return f"{diff.path} not expected (got {short(diff.actual)})"
    return f"{diff.path} expected {short(diff.expected)}, got {short(diff.actual)}"


def names(calls: Sequence[ToolCall]) -> str:
    """``[tool_a, tool_b]``: the tools a message calls."""
    return "[" + ", ".join(c.name for c in calls) + "]"


def describe_message(message: Message) -> str:
    """A message in a few words: its role and what it calls or says."""
    if message.tool_calls:
        return f"{message.role} calling {names(message.tool_calls)}"
    text = message.text.replace("\n", " ")
    return f"{message.role}: {short(text, 40)}" if text else message.role


def _closest(
    call: CallRef,
    candidates: Iterable[CallRef],
    rule: ArgsRule,
    side: Literal["output", "reference"],
) -> tuple[CallRef | None, tuple[ArgDiff, ...]]:
    """The same-named candidate whose args differ in the fewest keys under ``rule``."""
    best: CallRef | None = None
    best_diffs: tuple[ArgDiff, ...] = ()
    for count, candidate in enumerate(c for c in candidates if c.call.name == call.call.name):
        if count >= _CLOSEST_SCAN_LIMIT:
            break
        if side == "output":
            diffs = rule.explain(call.call.args, candidate.call.args)
        else:
            diffs = rule.explain(candidate.call.args, call.call.args)
        if best is None or len(diffs) < len(best_diffs):
            best, best_diffs = candidate, tuple(diffs)
            if not diffs:
                break
    return best, best_diffs


def call_problems(
    paired: Pairs,
    lone_out: list[CallRef],
    lone_ref: list[CallRef],
    report_out: bool,
    report_ref: bool,
    config: MatchConfig,
    where: tuple[str, str] = ("the reference", "the output"),
) -> list[Problem]:
    """Problems for unpaired calls; an unpaired output and reference of the same tool become one
    'args differ' problem. ``where`` names what was searched (strict mode searches one message
    of each side)."""
    if not lone_out and not lone_ref:
        return []
    problems: list[Problem] = []
    used_ref: set[int] = set()
    used_out: set[int] = set()
    paired_out = [o for o, _ in paired]
    paired_ref = [r for _, r in paired]
    if report_out:
        for out in lone_out:
            rule = config.rule_for(out.call.name)
            free = [r for r in lone_ref if id(r) not in used_ref]
            closest, diffs = _closest(out, free, rule, "output")
            if closest is not None:
                if report_ref:
                    used_ref.add(id(closest))
                used_out.add(id(out))
                problems.append(_args_problem(out, closest, diffs, rule, "output"))
                continue
            taken = paired_ref + [r for r in lone_ref if id(r) in used_ref]
            closest, diffs = _closest(out, taken, rule, "output")
            problems.append(
                Problem(
                    "unexpected_call",
                    _unexpected_text(out, closest, where[0]),
                    output_index=out.message,
                    reference_index=closest.message if closest else None,
                    call=CallProblem(
                        "output", out, closest, diffs, rule.describe(), closest is not None
                    ),
                )
            )
    if report_ref:
        for ref in lone_ref:
            if id(ref) in used_ref:
                continue
            rule = config.rule_for(ref.call.name)
            free = [o for o in lone_out if id(o) not in used_out]
            closest, diffs = _closest(ref, free, rule, "reference")
            if closest is not None:
                used_out.add(id(closest))
                problems.append(_args_problem(closest, ref, diffs, rule, "reference"))
                continue
            taken = paired_out + [o for o in lone_out if id(o) in used_out]
            closest, diffs = _closest(ref, taken, rule, "reference")
            problems.append(
                Problem(
                    "missing_call",
                    _missing_text(ref, closest, where[1]),
                    output_index=closest.message if closest else None,
                    reference_index=ref.message,
                    call=CallProblem(
                        "reference", ref, closest, diffs, rule.describe(), closest is not None
                    ),
                )
            )
    return problems


def _args_problem(
    out: CallRef,
    ref: CallRef,
    diffs: tuple[ArgDiff, ...],
    rule: ArgsRule,
    side: Literal["output", "reference"],
) -> Problem:
    lone, other = (out, ref) if side == "output" else (ref, out)
    reason = rule.reason(out.call.args, ref.call.args)
    detail = "; ".join(format_diff(d) for d in diffs[:3])
    if len(diffs) > 3:
        detail += f"; {len(diffs) - 3} more"
    if reason:
        detail = f"{reason}; {detail}" if detail else reason
    if not detail:
        detail = f"rejected by {rule.describe()}"
    return Problem(
        "args_mismatch",
        f"message {out.message}: tool call {out.call.name!r} args differ ({rule.describe()}): "
        f"{detail}",
        output_index=out.message,
        reference_index=ref.message,
        call=CallProblem(side, lone, other, diffs, rule.describe(), reason=reason),
    )


def _taken_text(name: str, searched: str) -> str:
    if searched.startswith("the "):
        return f"every {searched[4:]} call to {name!r} already pairs with another call"
    return f"every call to {name!r} in {searched} already pairs with another call"


def _unexpected_text(out: CallRef, closest: CallRef | None, searched: str) -> str:
    text = f"message {out.message}: unexpected tool call {call_text(out.call)}"
    if closest is None:
        return f"{text}; {searched} has no call to {out.call.name!r}"
    return f"{text}; {_taken_text(out.call.name, searched)}"


def _missing_text(ref: CallRef, closest: CallRef | None, searched: str) -> str:
    text = f"reference message {ref.message}: tool call {call_text(ref.call)} is missing"
    if closest is None:
        return f"{text}; {searched} has no call to {ref.call.name!r}"
    return f"{text}; {_taken_text(ref.call.name, searched)}"
