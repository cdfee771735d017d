"""Pairing tool calls one-to-one: a maximum bipartite matching of calls with equal names whose
arguments match under the rules, and the modes that compare only calls (unordered, subset,
superset).

Calls whose args rule is an equivalence (exact, ignore, key lists) pair by hashing in linear
time; subset/superset arguments find candidates through an index of ``(key, value)`` items; the
augmenting search (:mod:`.assignment`) runs only for what those passes leave unpaired. Reference
args holding value matchers are paired in :mod:`.matcher_pairing`.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any

from ..model import Trajectory
from ..values import canonical, json_text
from .assignment import complete_matching
from .explain import call_problems
from .matcher_pairing import pair_with_matchers, sees_matchers
from .report import CallRef, GivenSides, MatchReport, Pairs, call_refs
from .rules import ArgsRule, MatchConfig

__all__ = ["match_calls", "pair_calls"]

Args = Mapping[str, Any]


def match_calls(output: Trajectory, reference: Trajectory, config: MatchConfig) -> MatchReport:
    """unordered / subset / superset: all calls of both sides paired, message structure aside."""
    paired, lone_out, lone_ref = pair_calls(call_refs(output), call_refs(reference), config)
    mode = config.mode
    report_out = mode in ("unordered", "subset")
    report_ref = mode in ("unordered", "superset")
    problems = call_problems(paired, lone_out, lone_ref, report_out, report_ref, config)
    return MatchReport(config, GivenSides(output, reference), not problems, tuple(problems), paired)


def pair_calls(
    outputs: list[CallRef], references: list[CallRef], config: MatchConfig
) -> tuple[Pairs, list[CallRef], list[CallRef]]:
    """A maximum one-to-one pairing of calls with equal names whose args match under the rules.

    Returns the pairs (in output order) and the unpaired calls of each side.
    """
    partner = _pair_by_name(outputs, references, config)
    paired = [(outputs[i], references[j]) for i, j in enumerate(partner) if j != -1]
    if len(paired) == len(outputs) == len(references):
        return paired, [], []
    taken = {j for j in partner if j != -1}
    lone_out = [outputs[i] for i, j in enumerate(partner) if j == -1]
    lone_ref = [r for j, r in enumerate(references) if j not in taken]
    return paired, lone_out, lone_ref


def _pair_by_name(
    outputs: list[CallRef], references: list[CallRef], config: MatchConfig
) -> list[int]:
    """A maximum pairing, tool by tool: ``result[i]`` is the reference index for output ``i``."""
    by_name_out: dict[str, list[int]] = defaultdict(list)
    by_name_ref: dict[str, list[int]] = defaultdict(list)
    for i, ref in enumerate(outputs):
        by_name_out[ref.call.name].append(i)
    for j, ref in enumerate(references):
        by_name_ref[ref.call.name].append(j)
    partner = [-1] * len(outputs)
    for name, out_ids in by_name_out.items():
        ref_ids = by_name_ref.get(name)
        if not ref_ids:
            continue
        rule = config.rule_for(name)
        out_args = [outputs[i].call.args for i in out_ids]
        ref_args = [references[j].call.args for j in ref_ids]
        local = _pair_group(out_args, ref_args, rule)
        for a, b in enumerate(local):
            if b != -1:
                partner[out_ids[a]] = ref_ids[b]
    return partner


def _pair_group(out_args: list[Args], ref_args: list[Args], rule: ArgsRule) -> list[int]:
    """Pairing of one tool's calls: ``result[i]`` is the reference index for output ``i`` or -1."""
    n_out, n_ref = len(out_args), len(ref_args)
    match_out = [-1] * n_out
    match_ref = [-1] * n_ref
    if rule.kind == "ignore":
        for i in range(min(n_out, n_ref)):
            match_out[i] = match_ref[i] = i
        return match_out
    if rule.ignored:  # "exact except these keys": compare what is left
        out_args, ref_args = _compared(out_args, rule), _compared(ref_args, rule)
        rule = rule.without_ignored()
    _pair_equal(out_args, ref_args, match_out, match_ref, rule)
    if _unpaired_hold_matchers(ref_args, match_ref, rule):
        pair_with_matchers(out_args, ref_args, match_out, match_ref, rule)
    elif not rule.hashable:
        _pair_rest(out_args, ref_args, match_out, match_ref, rule)
    return match_out


def _pair_equal(
    out_args: list[Args],
    ref_args: list[Args],
    match_out: list[int],
    match_ref: list[int],
    rule: ArgsRule,
) -> None:
    """Pair what some maximum pairing pairs anyway: equal args.

    For a hashable rule equal keys <=> match (when the reference args hold no matcher; one that
    does has a key no output shares, since a matcher equals only an equal matcher), so this
    pairing is already maximum. Under inclusion equal args match both ways, and an exchange
    argument shows some maximum pairing pairs them with each other: they are found by their JSON
    text, which is cheap and proves equality (a matcher has no JSON text).
    """
    if rule.kind in ("subset", "superset"):
        _pair_by_key(out_args, ref_args, match_out, match_ref, json_text)
    elif rule.hashable:
        _pair_by_key(out_args, ref_args, match_out, match_ref, rule.key)


def _pair_rest(
    out_args: list[Args],
    ref_args: list[Args],
    match_out: list[int],
    match_ref: list[int],
    rule: ArgsRule,
) -> None:
    """Complete the pairing for inclusion rules (by an index of contained items) and callables
    (by asking the callable)."""
    if rule.kind == "subset":  # output args within reference args
        _pair_by_key(out_args, ref_args, match_out, match_ref, canonical)
        complete_matching(match_out, match_ref, _containing(out_args, ref_args, match_ref))
    elif rule.kind == "superset":  # reference args within output args
        _pair_by_key(out_args, ref_args, match_out, match_ref, canonical)
        complete_matching(match_ref, match_out, _containing(ref_args, out_args, match_out))
    else:
        _pair_by_search(out_args, ref_args, match_out, match_ref, rule)


def _compared(args: list[Args], rule: ArgsRule) -> list[Args]:
    """Each call's args without the rule's ignored paths; calls sharing one args dict share
    the result."""
    seen: dict[int, Args] = {}
    out = []
    for value in args:
        name = id(value)
        if name not in seen:
            seen[name] = rule.compared(value)
        out.append(seen[name])
    return out


def _unpaired_hold_matchers(ref_args: list[Args], match_ref: list[int], rule: ArgsRule) -> bool:
    """Whether an unpaired reference call's args hold a value matcher the rule compares."""
    if rule.kind in ("ignore", "callable"):
        return False
    return any(sees_matchers(rule, ref_args[j]) for j, i in enumerate(match_ref) if i == -1)


def _pair_by_search(
    out_args: list[Args],
    ref_args: list[Args],
    match_out: list[int],
    match_ref: list[int],
    rule: ArgsRule,
) -> None:
    """A maximum pairing for a rule that can only be asked pair by pair (a callable)."""
    same: dict[Hashable, list[int]] = defaultdict(list)
    for j, args in enumerate(ref_args):
        same[canonical(args)].append(j)
    every = range(len(ref_args))

    def first_choices(i: int) -> Iterable[int]:
        # Equal args are the likeliest partners for any rule; try them before the rest.
        yield from same.get(canonical(out_args[i]), ())
        yield from every

    def related(i: int, j: int) -> bool:
        return rule.matches(out_args[i], ref_args[j])

    complete_matching(match_out, match_ref, first_choices, related)


def _pair_by_key(
    out_args: list[Args],
    ref_args: list[Args],
    match_out: list[int],
    match_ref: list[int],
    key: Callable[[Args], Hashable | None],
) -> None:
    """Pair still-unpaired calls whose ``key`` is equal (and not ``None``), in order. Calls whose
    arguments came from one text share one dict (see normalize): its key is computed once."""
    known: dict[int, Hashable | None] = {}

    def key_of(args: Args) -> Hashable | None:
        name = id(args)
        if name not in known:
            known[name] = key(args)
        return known[name]

    buckets: dict[Hashable, deque[int]] = defaultdict(deque)
    for j, args in enumerate(ref_args):
        if match_ref[j] == -1:
            k = key_of(args)
            if k is not None:
                buckets[k].append(j)
    if not buckets:
        return
    for i, args in enumerate(out_args):
        if match_out[i] == -1:
            k = key_of(args)
            bucket = buckets.get(k) if k is not None else None
            if bucket:
                j = bucket.popleft()
                match_out[i], match_ref[j] = j, i


def _containing(
    small: list[Args], big: list[Args], big_taken: list[int]
) -> Callable[[int], Iterable[int]]:
    """For each ``small`` index, the ``big`` indices whose args contain all of its top-level
    items (JSON-equal values), found through an index of items rather than by trying pairs.
    Still-free candidates come first."""
    postings: dict[tuple[str, Hashable], list[int]] = defaultdict(list)
    for j, args in enumerate(big):
        for k, v in args.items():
            postings[(k, canonical(v))].append(j)
    every = range(len(big))

    def candidates(i: int) -> Iterable[int]:
        items = [(k, canonical(v)) for k, v in small[i].items()]
        if not items:
            found: Iterable[int] = every
        else:
            lists = sorted((postings.get(item, []) for item in items), key=len)
            if not lists[0]:
                return ()
            others = [set(lst) for lst in lists[1:]]
            found = [j for j in lists[0] if all(j in other for other in others)]
        free = [j for j in found if big_taken[j] == -1]
        return free + [j for j in found if big_taken[j] != -1]

    return candidates
