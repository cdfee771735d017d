"""Tool-call accuracy (the Ragas metric): the mean argument accuracy of the paired calls, times
whether the call sequences align.

By default as Ragas' ``ToolCallAccuracy`` scores: in strict order the output's tool names must
be the reference's, in the same order, and calls pair by position; in any order the names must
be the same multiset, and each tool's calls pair in the order of their arguments' text (sorted
by argument name, then by the ``str()`` of each value). No calls against no calls scores 1; no
calls on one side only scores 0.

The package's own rules are options. ``allow_extra_calls``: the reference's calls need only
appear in the output (in order, for strict order), extra calls losing no points (tool-call F1
counts them); calls then pair for the most argument accuracy (in order: the order-preserving
pairing with the most; any order: a maximum-weight assignment). ``best_pairing``: in any order,
same-named calls pair by that assignment rather than by their arguments' text.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from ..matching.rules import ArgsRule, MatchConfig
from ..normalize import Memo
from ..values import json_text, safe_repr
from .agreement import Agreement
from .args import ArgScore, arg_accuracy
from .calls import GradedCall, nesting_refused, read_calls
from .report import AccuracyReport, CallScore, Rules
from .weighted_assignment import max_weight_assignment

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
    outputs: Any,
    reference: Any,
    config: MatchConfig,
    *,
    strict_order: bool = True,
    allow_extra_calls: bool = False,
    best_pairing: bool = False,
) -> AccuracyReport:
    """Score ``outputs`` (a trajectory or a list of calls) against ``reference`` (a list of
    ``{"name", "args"}`` calls or a reference trajectory) under ``config``'s args rules."""
    memo: Memo = {}
    outs = read_calls(outputs, side="outputs", memo=memo)
    refs = read_calls(reference, side="reference_outputs", memo=memo)
    with nesting_refused(outs, refs):
        return _scored(outs, refs, config, Rules(strict_order, allow_extra_calls, best_pairing))


def _scored(
    outs: list[GradedCall], refs: list[GradedCall], config: MatchConfig, rules: Rules
) -> AccuracyReport:
    strict_order, best_pairing = rules.strict_order, rules.best_pairing
    scores = _Scores(outs, refs, config)
    problem: str | None = None
    if not refs:
        pairing: Pairing = {}
        if outs:
            problem = f"the reference makes no tool calls and the output makes {len(outs)}"
    elif rules.allow_extra_calls:
        problem, pairing = _contained(outs, refs, scores, strict_order)
    else:
        problem, pairing = _aligned(outs, refs, scores, strict_order, best_pairing)
    return _report(outs, refs, scores, pairing, problem, rules)


def _report(
    outs: list[GradedCall],
    refs: list[GradedCall],
    scores: _Scores,
    pairing: Pairing,
    problem: str | None,
    rules: Rules,
) -> AccuracyReport:
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
        scores.config, rules, tuple(calls), extra, problem is None, problem, len(outs)
    )


def _aligned(
    outs: list[GradedCall],
    refs: list[GradedCall],
    scores: _Scores,
    strict_order: bool,
    best_pairing: bool,
) -> tuple[str | None, Pairing]:
    """Ragas' alignment: the same tool names (in the same order, for strict order). When they
    differ, the calls still pair as well as they can, to say which lost points."""
    names, expected = [o.call.name for o in outs], [r.call.name for r in refs]
    if strict_order and names == expected:
        return None, {i: i for i in range(len(refs))}
    if not strict_order and Counter(names) == Counter(expected):
        if best_pairing:
            return None, _any_order(outs, refs, scores, scores.config)
        return None, _by_argument_text(outs, refs)
    problem = _count_problem(outs, refs) or _extra_problem(outs, refs)
    if problem is None:  # the same names in another order
        problem = _position_problem(outs, refs)
    found = _in_order(outs, refs, scores) if strict_order else None
    return problem, found if found is not None else _any_order(outs, refs, scores, scores.config)


def _contained(
    outs: list[GradedCall], refs: list[GradedCall], scores: _Scores, strict_order: bool
) -> tuple[str | None, Pairing]:
    """The package's own alignment: the reference's calls appear in the output (in order, for
    strict order), other calls may come between."""
    if not strict_order:
        return _count_problem(outs, refs), _any_order(outs, refs, scores, scores.config)
    found = _in_order(outs, refs, scores)
    if found is None:
        return _order_problem(outs, refs), _any_order(outs, refs, scores, scores.config)
    return None, found


def _argument_text(args: Mapping[str, Any]) -> tuple[str, ...]:
    """How Ragas orders one tool's calls: by argument name, then the ``str()`` of its value (a
    value whose ``str`` raises, by the package's stand-in for it)."""
    return tuple([part for key in sorted(args) for part in (key, _text(args[key]))])


def _text(value: Any) -> str:
    try:
        return str(value)
    except Exception:  # any failure of a caller's __str__ / __repr__
        return safe_repr(value)


def _by_argument_text(outs: list[GradedCall], refs: list[GradedCall]) -> Pairing:
    """Both sides' calls sorted by name and argument text, paired in that order (the sort is
    stable: equal texts keep their order). The sides hold the same names, so each pair does.

    Each call's key is its name and argument texts joined by NUL, which sorts as the tuple of
    them would (NUL is below every other character) and compares faster; where a text holds a
    NUL itself, the tuples are sorted."""
    texts: dict[int, tuple[str, ...]] = {}  # calls with equal argument texts share one dict

    def parts(call: GradedCall) -> tuple[str, ...]:
        args = call.call.args
        text = texts.get(id(args))
        if text is None:
            text = texts[id(args)] = _argument_text(args)
        return (call.call.name, *text)

    ref_keys = [parts(call) for call in refs]
    out_keys = [parts(call) for call in outs]
    ref_joined, out_joined = _joined(ref_keys), _joined(out_keys)
    ref_sort: Sequence[Any] = ref_keys if ref_joined is None or out_joined is None else ref_joined
    out_sort: Sequence[Any] = out_keys if ref_joined is None or out_joined is None else out_joined
    ordered_refs = sorted(range(len(refs)), key=ref_sort.__getitem__)
    ordered_outs = sorted(range(len(outs)), key=out_sort.__getitem__)
    return dict(zip(ordered_refs, ordered_outs, strict=True))


_NUL = "\0"


def _joined(keys: list[tuple[str, ...]]) -> list[str] | None:
    """Each key's texts joined by NUL, or ``None`` if a text holds a NUL (or a part is not
    text: an argument name may be anything in a dict given as arguments)."""
    try:
        joined = [_NUL.join(key) for key in keys]
    except TypeError:
        return None
    if any(text.count(_NUL) != len(key) - 1 for text, key in zip(joined, keys, strict=True)):
        return None
    return joined


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
        pairing.update(_pair_group(ref_ids, out_ids, outs, refs, scores, config.rule_for(name)))
    return pairing


def _pair_group(
    ref_ids: list[int],
    out_ids: list[int],
    outs: list[GradedCall],
    refs: list[GradedCall],
    scores: _Scores,
    rule: ArgsRule,
) -> Pairing:
    """One tool's calls: identical arguments pair first when the rule scores them 1 (no
    assignment can do better there); the rest by maximum-weight assignment, searched among
    the rest alone where a bound proves that optimal."""
    start: list[tuple[int, int]] = []
    ref_args = [refs[i].call.args for i in ref_ids]
    out_args = [outs[j].call.args for j in out_ids]
    if rule.reflexive:
        start = _identical_pairs(ref_args, out_args)
        if len(start) == min(len(ref_ids), len(out_ids)):
            return {ref_ids[a]: out_ids[b] for a, b in start}
    rows_are_references = len(ref_ids) <= len(out_ids)
    if rows_are_references:
        row_args, column_args, rows_start = ref_args, out_args, start
    else:
        row_args, column_args, rows_start = out_args, ref_args, [(b, a) for a, b in start]
    taken = {column for _, column in rows_start}
    bound = Agreement(
        rule,
        row_args,
        [column_args[column] for _, column in rows_start],
        rows_are_references=rows_are_references,
    )
    rest = Agreement(
        rule,
        row_args,
        [args for column, args in enumerate(column_args) if column not in taken],
        rows_are_references=rows_are_references,
    )
    if rows_are_references:
        chosen = max_weight_assignment(
            len(ref_ids),
            len(out_ids),
            lambda a, b: scores.weight(ref_ids[a], out_ids[b]),
            rows_start,
            bound.within,
            rest.weights,
        )
        return {ref_ids[a]: out_ids[b] for a, b in enumerate(chosen)}
    chosen = max_weight_assignment(
        len(out_ids),
        len(ref_ids),
        lambda b, a: scores.weight(ref_ids[a], out_ids[b]),
        rows_start,
        bound.within,
        rest.weights,
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


def _extra_problem(outs: list[GradedCall], refs: list[GradedCall]) -> str | None:
    """Which tools the output calls more times than the reference, if any."""
    expected = Counter(r.call.name for r in refs)
    extra = [
        f"{name!r} {count} {'time' if count == 1 else 'times'} for {expected[name]}"
        for name, count in Counter(o.call.name for o in outs).items()
        if count > expected[name]
    ]
    if not extra:
        return None
    return (
        f"the output makes extra calls ({', '.join(extra)} in the reference), and the calls "
        "align only when they are the reference's"
    )


def _position_problem(outs: list[GradedCall], refs: list[GradedCall]) -> str:
    """Where the same tool names first stand in another order."""
    for out, ref in zip(outs, refs, strict=True):
        if out.call.name != ref.call.name:
            return (
                f"the calls are out of order: output call {out.position} is "
                f"{out.call.name!r} where reference call {ref.position} is {ref.call.name!r}"
            )
    return "the calls are not in the reference's order"


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
