"""Tool-call accuracy (the Ragas metric): the mean argument accuracy of the paired calls, times
whether the call sequences align.

Strict order: the reference's tool names must appear in the output in order (extra calls may
come between); calls pair in that order, the order-preserving pairing with the most argument
accuracy winning. Any order: every reference call needs a same-named output call; calls pair
by a maximum-weight assignment. Extra output calls lose no points (tool-call F1 counts them),
but a reference without calls scores 0 against an output that makes some.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence
from typing import Any

from ..matching.rules import MatchConfig
from ..normalize import Memo
from ..values import json_text
from .args import ArgScore, arg_accuracy
from .assignment import max_weight_assignment
from .calls import GradedCall, read_calls
from .report import AccuracyReport, CallScore

__all__ = ["tool_call_accuracy"]

Pairing = dict[int, int]  # reference call index -> output call index


class _Scores:
    """Argument accuracy of (reference, output) pairs, each computed once."""

    def __init__(
        self, outputs: list[GradedCall], references: list[GradedCall], config: MatchConfig
    ) -> None:
        self.outputs, self.references, self.config = outputs, references, config
        self._known: dict[tuple[int, int], ArgScore] = {}

    def __call__(self, ref: int, out: int) -> ArgScore:
        known = self._known.get((ref, out))
        if known is None:
            call, other = self.references[ref].call, self.outputs[out].call
            rule = self.config.rule_for(call.name)
            known = self._known[(ref, out)] = arg_accuracy(rule, other.args, call.args)
        return known

    def weight(self, ref: int, out: int) -> float:
        return self(ref, out).score


def tool_call_accuracy(
    outputs: Any, reference: Any, config: MatchConfig, *, strict_order: bool = True
) -> AccuracyReport:
    """Score ``outputs`` (a trajectory or a list of calls) against ``reference`` (a list of
    ``{"name", "args"}`` calls or a reference trajectory) under ``config``'s args rules."""
    memo: Memo = {}
    outs = read_calls(outputs, side="outputs", memo=memo)
    refs = read_calls(reference, side="reference_outputs", memo=memo)
    scores = _Scores(outs, refs, config)
    problem: str | None = None
    if not refs:
        pairing: Pairing = {}
        if outs:
            problem = f"the reference makes no tool calls and the output makes {len(outs)}"
    elif strict_order:
        found = _in_order(outs, refs, scores)
        if found is None:
            problem = _order_problem(outs, refs)
            found = _any_order(outs, refs, scores, config)
        pairing = found
    else:
        problem = _count_problem(outs, refs)
        pairing = _any_order(outs, refs, scores, config)
    calls = []
    for i, ref in enumerate(refs):
        j = pairing.get(i)
        if j is None:
            calls.append(CallScore(ref, None, 0.0))
        else:
            graded = scores(i, j)
            calls.append(CallScore(ref, outs[j], graded.score, graded.differing))
    taken = set(pairing.values())
    extra = tuple(c for c in outs if c.position not in taken)
    return AccuracyReport(
        config, strict_order, tuple(calls), extra, problem is None, problem, len(outs)
    )


def _in_order(outs: list[GradedCall], refs: list[GradedCall], scores: _Scores) -> Pairing | None:
    """The order-preserving pairing of every reference call with a same-named output call that
    has the most argument accuracy, or ``None`` if the names do not appear in order."""
    n, slack = len(refs), len(outs) - len(refs)
    if slack < 0:
        return None
    if slack == 0:
        if any(o.call.name != r.call.name for o, r in zip(outs, refs, strict=True)):
            return None
        return {i: i for i in range(n)}
    takes = _band_choices(outs, refs, scores, slack)
    if takes is None:
        return None
    pairing: Pairing = {}
    i = d = 0
    while i < n:
        if takes[i][d]:
            pairing[i] = i + d
            i += 1
        else:
            d += 1
    return pairing


_NEG = float("-inf")


def _band_choices(
    outs: list[GradedCall], refs: list[GradedCall], scores: _Scores, slack: int
) -> list[list[bool]] | None:
    """A dynamic programme over the band of output positions ``j = i + d`` (``0 <= d <=
    slack``) reference call ``i`` can take, ``O(n * (slack + 1))``: for each ``(i, d)``,
    whether the best pairing of calls ``i..`` pairs ``i`` with output ``i + d``. ``None`` when
    no order-preserving pairing exists."""
    after = [0.0] * (slack + 1)  # best total for the calls after i, by offset d
    takes: list[list[bool]] = [[] for _ in refs]
    for i in reversed(range(len(refs))):
        here = [_NEG] * (slack + 1)
        take = [False] * (slack + 1)
        name = refs[i].call.name
        for d in reversed(range(slack + 1)):
            skip = here[d + 1] if d < slack else _NEG
            paired = _NEG
            if outs[i + d].call.name == name and after[d] > _NEG:
                paired = scores.weight(i, i + d) + after[d]
            if paired > _NEG and paired >= skip:
                here[d], take[d] = paired, True
            else:
                here[d] = skip
        takes[i], after = take, here
    return None if after[0] == _NEG else takes


def _any_order(
    outs: list[GradedCall], refs: list[GradedCall], scores: _Scores, config: MatchConfig
) -> Pairing:
    """Per tool name, the pairing with the most total argument accuracy (as many calls paired
    as the smaller side has)."""
    by_name_out: dict[str, list[int]] = defaultdict(list)
    by_name_ref: dict[str, list[int]] = defaultdict(list)
    for o in outs:
        by_name_out[o.call.name].append(o.position)
    for r in refs:
        by_name_ref[r.call.name].append(r.position)
    pairing: Pairing = {}
    for name, ref_ids in by_name_ref.items():
        out_ids = by_name_out.get(name)
        if not out_ids:
            continue
        identical = config.rule_for(name).reflexive
        pairing.update(_pair_group(ref_ids, out_ids, outs, refs, scores, identical))
    return pairing


def _pair_group(
    ref_ids: list[int],
    out_ids: list[int],
    outs: list[GradedCall],
    refs: list[GradedCall],
    scores: _Scores,
    identical: bool,
) -> Pairing:
    """One tool's calls: identical arguments pair first when the rule scores them 1 (no
    assignment can do better there); the rest by maximum-weight assignment."""
    start: list[tuple[int, int]] = []
    if identical:
        start = _identical_pairs(
            [refs[i].call.args for i in ref_ids], [outs[j].call.args for j in out_ids]
        )
        if len(start) == min(len(ref_ids), len(out_ids)):
            return {ref_ids[a]: out_ids[b] for a, b in start}
    if len(ref_ids) <= len(out_ids):
        chosen = max_weight_assignment(
            len(ref_ids), len(out_ids), lambda a, b: scores.weight(ref_ids[a], out_ids[b]), start
        )
        return {ref_ids[a]: out_ids[b] for a, b in enumerate(chosen)}
    chosen = max_weight_assignment(
        len(out_ids),
        len(ref_ids),
        lambda b, a: scores.weight(ref_ids[a], out_ids[b]),
        [(b, a) for a, b in start],
    )
    return {ref_ids[a]: out_ids[b] for b, a in enumerate(chosen)}


def _identical_pairs(ref_args: Sequence[Any], out_args: Sequence[Any]) -> list[tuple[int, int]]:
    """``(reference position, output position)`` of calls with equal JSON arguments, in order:
    first those sharing one parsed dict (equal argument texts, see normalize), then by text."""
    pairs: list[tuple[int, int]] = []
    free_refs, free_outs = list(range(len(ref_args))), list(range(len(out_args)))
    for key in (id, json_text):
        waiting: dict[Hashable, list[int]] = defaultdict(list)
        for b in reversed(free_outs):
            found = key(out_args[b])
            if found is not None:
                waiting[found].append(b)
        left = []
        for a in free_refs:
            found = key(ref_args[a])
            bucket = waiting.get(found) if found is not None else None
            if bucket:
                pairs.append((a, bucket.pop()))
            else:
                left.append(a)
        taken = {b for _, b in pairs}
        free_refs, free_outs = left, [b for b in free_outs if b not in taken]
        if not free_refs or not free_outs:
            break
    return pairs


def _count_problem(outs: list[GradedCall], refs: list[GradedCall]) -> str | None:
    """Which tools the output calls fewer times than the reference, if any."""
    made = Counter(o.call.name for o in outs)
    short = [
        f"{name!r} {made[name]} of {count} times"
        for name, count in Counter(r.call.name for r in refs).items()
        if made[name] < count
    ]
    return f"the output calls {', '.join(short)}" if short else None


def _order_problem(outs: list[GradedCall], refs: list[GradedCall]) -> str:
    """Why the reference's tool names do not appear in the output in order."""
    missing = _count_problem(outs, refs)
    if missing:
        return missing
    position = 0
    previous: GradedCall | None = None
    for ref in refs:
        found = _next_named(outs, ref.call.name, position)
        if found is None:
            assert previous is not None  # every name occurs, so the first reference call does
            return (
                f"the calls are out of order: reference call {ref.position} {ref.call.name!r} has "
                f"no counterpart after output call {previous.position} {previous.call.name!r}"
            )
        previous, position = outs[found], found + 1
    return "the calls are not in the reference's order"


def _next_named(outs: list[GradedCall], name: str, start: int) -> int | None:
    return next((j for j in range(start, len(outs)) if outs[j].call.name == name), None)
