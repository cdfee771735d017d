"""Explaining unpaired calls: for each, the closest candidate on the other side and what differs,
as a problem whose text names the message index. The text helpers here also serve the diff.
"""

from __future__ import annotations

import itertools
from collections import defaultdict, deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal, Protocol

from ..model import Message, ToolCall
from ..values import MISSING, ArgDiff, safe_repr
from .report import CallProblem, CallRef, Pairs, Problem
from .rules import ArgsRule, MatchConfig

__all__ = [
    "EXPLAINED",
    "Taken",
    "call_problems",
    "call_text",
    "describe_message",
    "format_diff",
    "names",
    "short",
]

_CLOSEST_SCAN_LIMIT = 100
EXPLAINED = 10
"""How many unpaired calls of one comparison are explained in full (the closest of up to 100
candidates, with every difference); later ones are set beside the first unused call of their
tool without comparing arguments, so that no input makes a verdict wait on its explanation."""
_VALUE_WIDTH = 60


def short(value: Any, width: int = _VALUE_WIDTH) -> str:
    """A value's repr, cut to ``width`` characters (never raises: this text explains failures)."""
    return safe_repr(value, width)


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
    limit: int = _CLOSEST_SCAN_LIMIT,
) -> tuple[CallRef | None, tuple[ArgDiff, ...]]:
    """Among the first ``limit`` candidates (calls of the same tool), the one whose args differ
    in the fewest top-level keys (a cheap count), with what differs under ``rule``."""
    best: CallRef | None = None
    fewest = -1
    for count, candidate in enumerate(candidates):
        if count >= limit:
            break
        distance = _distance(call.call.args, candidate.call.args)
        if best is None or distance < fewest:
            best, fewest = candidate, distance
            if not distance:
                break
    if best is None:
        return None, ()
    if side == "output":
        return best, tuple(rule.explain(call.call.args, best.call.args))
    return best, tuple(rule.explain(best.call.args, call.call.args))


def _distance(one: Mapping[str, Any], other: Mapping[str, Any]) -> int:
    """How many top-level keys two arg dicts disagree on (missing on one side, or unequal).

    Only a ranking: values compare by Python's ``==``, which differs from JSON equality only at
    its edges (``True == 1``, a tuple and its list); the closest call's diff is exact.
    """
    # Keys only in ``other`` are len(other) - (len(one) - keys only in ``one``).
    differ = len(other) - len(one)
    get = other.get
    for key, value in one.items():
        theirs = get(key, MISSING)
        if theirs is MISSING:
            differ += 2
            continue
        try:
            if value != theirs:
                differ += 1
        except Exception:  # a value whose comparison raises (or is not a bool) differs
            differ += 1
    return differ


class _Pool:
    """Calls of one side by tool name, in order, each used at most once. ``free(name)`` walks
    the unused ones; used calls at the front are dropped as they are met, so that taking the
    first free call of a tool costs little however many were taken before."""

    def __init__(self, calls: Iterable[CallRef]) -> None:
        self.by_name: dict[str, deque[CallRef]] = defaultdict(deque)
        for call in calls:
            self.by_name[call.call.name].append(call)
        self.used: set[int] = set()
        self.claimed: dict[str, list[CallRef]] = defaultdict(list)

    def free(self, name: str) -> Iterator[CallRef]:
        queue = self.by_name.get(name)
        if not queue:
            return
        while queue and id(queue[0]) in self.used:
            queue.popleft()
        for call in queue:
            if id(call) not in self.used:
                yield call

    def first_free(self, name: str) -> CallRef | None:
        """The first unused call of ``name`` (what ``free`` would give first), or ``None``."""
        queue = self.by_name.get(name)
        if not queue:
            return None
        used = self.used
        while queue and id(queue[0]) in used:
            queue.popleft()
        for call in queue:
            if id(call) not in used:
                return call
        return None

    def take(self, call: CallRef) -> None:
        self.used.add(id(call))
        self.claimed[call.call.name].append(call)


class Taken(Protocol):
    """The calls of one side that paired, by tool name (in the order of the pairs)."""

    def all(self, name: str) -> Iterable[CallRef]: ...


class _Paired:
    """The calls of one side that paired, by tool name, sorted out only when an unpaired call
    finds no free counterpart (most comparisons never ask)."""

    __slots__ = ("_by_name", "_pairs", "_side")

    def __init__(self, pairs: Pairs, side: int) -> None:
        self._pairs, self._side = pairs, side
        self._by_name: dict[str, list[CallRef]] | None = None

    def all(self, name: str) -> list[CallRef]:
        if self._by_name is None:
            self._by_name = defaultdict(list)
            for pair in self._pairs:
                call = pair[self._side]
                self._by_name[call.call.name].append(call)
        return self._by_name.get(name, [])


def call_problems(
    paired: Pairs,
    lone_out: list[CallRef],
    lone_ref: list[CallRef],
    report_out: bool,
    report_ref: bool,
    config: MatchConfig,
    where: tuple[str, str] = ("the reference", "the output"),
    taken: tuple[Taken, Taken] | None = None,
) -> list[Problem]:
    """Problems for unpaired calls; an unpaired output and reference of the same tool become one
    'args differ' problem. ``where`` names what was searched (strict mode searches one message
    of each side).

    The work is bounded so that no input makes a verdict wait on its explanation: the first
    ``EXPLAINED`` unpaired calls are compared with up to ``_CLOSEST_SCAN_LIMIT`` candidates to
    find the closest; every later one is set beside the first unused call of its tool, its
    arguments not compared. ``taken`` stands for ``paired`` where the pairs are not built (the
    paired calls of each side, by tool name, as ``paired`` would give them).
    """
    if not lone_out and not lone_ref:
        return []
    problems: list[Problem] = []
    free_out, free_ref = _Pool(lone_out), _Pool(lone_ref)
    paired_out, paired_ref = taken or (_Paired(paired, 0), _Paired(paired, 1))
    outs = lone_out if report_out else []
    refs = lone_ref if report_ref else []
    plain = _Unexplained(config)
    for out in outs:
        if len(problems) < EXPLAINED:
            problem = _lone_problem(
                out, "output", free_ref, paired_ref, config, where[0], report_ref
            )
        else:
            problem = plain.problem(out, "output", free_ref, paired_ref, where[0], report_ref)
        problems.append(problem)
        free_out.take(out)
    for ref in refs:
        if id(ref) in free_ref.used:
            continue
        if len(problems) < EXPLAINED:
            problem = _lone_problem(ref, "reference", free_out, paired_out, config, where[1], True)
        else:
            problem = plain.problem(ref, "reference", free_out, paired_out, where[1], True)
        problems.append(problem)
    return problems


def _lone_problem(
    lone: CallRef,
    side: Literal["output", "reference"],
    free: _Pool,
    taken: Taken,
    config: MatchConfig,
    searched: str,
    claim: bool,
) -> Problem:
    """The problem of one unpaired call, explained: its arguments differ from the closest free
    call of its tool on the other side (which ``claim`` takes), or it has no counterpart."""
    name = lone.call.name
    rule = config.rule_for(name)
    closest, diffs = _closest(lone, free.free(name), rule, side)
    if closest is not None:
        if claim:
            free.take(closest)
        out, ref = (lone, closest) if side == "output" else (closest, lone)
        return _args_problem(out, ref, diffs, rule, side)
    # every call of the tool is taken: the closest of them, to say so
    candidates = itertools.chain(taken.all(name), free.claimed.get(name, ()))
    closest, diffs = _closest(lone, candidates, rule, side)
    return _no_counterpart(lone, side, closest, diffs, rule.describe(), searched, explained=True)


class _Unexplained:
    """Problems past the first ``EXPLAINED``: the first unused call of the tool stands beside
    the unpaired one, nothing compared, so each costs little however many there are."""

    def __init__(self, config: MatchConfig) -> None:
        self.config = config
        self.described: dict[str, str] = {}

    def problem(
        self,
        lone: CallRef,
        side: Literal["output", "reference"],
        free: _Pool,
        taken: Taken,
        searched: str,
        claim: bool,
    ) -> Problem:
        name = lone.call.name
        described = self.described.get(name)
        if described is None:
            described = self.described[name] = self.config.rule_for(name).describe()
        other = free.first_free(name)
        if other is None:  # every call of the tool is taken: the first of them, to say so
            first = next(itertools.chain(taken.all(name), free.claimed.get(name, ())), None)
            return _no_counterpart(lone, side, first, (), described, searched, explained=False)
        if claim:
            free.take(other)
        out = lone if side == "output" else other
        return Problem(
            "args_mismatch",
            f"message {out.message}: tool call {name!r} args differ ({described}): {_UNEXPLAINED}",
            out.message,
            other.message if side == "output" else lone.message,
            CallProblem(side, lone, other, (), described, False, False, None),
        )


def _no_counterpart(
    lone: CallRef,
    side: Literal["output", "reference"],
    closest: CallRef | None,
    diffs: tuple[ArgDiff, ...],
    described: str,
    searched: str,
    *,
    explained: bool,
) -> Problem:
    """An unpaired call whose tool has no free call on the other side: unexpected (an output)
    or missing (a reference), beside ``closest``, a call that already pairs, if any."""
    call = CallProblem(side, lone, closest, diffs, described, closest is not None, explained)
    if side == "output":
        return Problem(
            "unexpected_call",
            _unexpected_text(lone, closest, searched),
            output_index=lone.message,
            reference_index=closest.message if closest else None,
            call=call,
        )
    return Problem(
        "missing_call",
        _missing_text(lone, closest, searched),
        output_index=closest.message if closest else None,
        reference_index=lone.message,
        call=call,
    )


def _args_problem(
    out: CallRef,
    ref: CallRef,
    diffs: tuple[ArgDiff, ...],
    rule: ArgsRule,
    side: Literal["output", "reference"],
) -> Problem:
    lone, other = (out, ref) if side == "output" else (ref, out)
    described = rule.describe()
    reason = rule.reason(out.call.args, ref.call.args)
    detail = "; ".join(format_diff(d) for d in diffs[:3])
    if len(diffs) > 3:
        detail += f"; {len(diffs) - 3} more"
    if reason:
        detail = f"{reason}; {detail}" if detail else reason
    if not detail:
        detail = f"rejected by {described}"
    return Problem(
        "args_mismatch",
        f"message {out.message}: tool call {out.call.name!r} args differ ({described}): {detail}",
        out.message,
        ref.message,
        CallProblem(side, lone, other, diffs, described, False, True, reason),
    )


_UNEXPLAINED = f"not compared in detail (the first {EXPLAINED} problems are)"


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
