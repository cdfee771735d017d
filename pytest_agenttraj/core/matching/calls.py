"""Pairing tool calls one-to-one: a maximum bipartite matching of calls with equal names whose
arguments match under the rules, and the modes that compare only calls (unordered, subset,
superset).

Calls whose args rule is an equivalence (exact, ignore, key lists) pair by hashing in linear
time; subset/superset arguments find candidates through an index of ``(key, value)`` items; the
augmenting search (:mod:`.bipartite`) runs only for what those passes leave unpaired. Reference
args holding value matchers are paired in :mod:`.matcher_pairing`.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from ..model import Trajectory
from ..values import canonical, json_text, signature
from .bipartite import complete_matching
from .explain import call_problems
from .matcher_pairing import pair_with_matchers, sees_matchers
from .report import CallRef, GivenSides, MatchReport, Pairs, call_refs
from .rules import ArgsRule, MatchConfig

__all__ = ["match_calls", "pair_calls"]

Args = Mapping[str, Any]
_K = TypeVar("_K")


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
    if n_out == n_ref == 1:  # one call on each side, as most tools in a short trajectory
        return [0 if rule.matches(out_args[0], ref_args[0]) else -1]
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
    if rule.kind in ("subset", "superset", "exact"):
        # one shared dict is one value: calls whose texts were equal pair without a key
        _pair_shared(out_args, ref_args, match_out, match_ref)
    if rule.kind in ("subset", "superset"):
        _pair_equal_values(out_args, ref_args, match_out, match_ref, json_text)
    elif rule.kind == "exact":
        _pair_equal_values(out_args, ref_args, match_out, match_ref, rule.key)
    elif rule.hashable:
        _pair_by_key(out_args, ref_args, match_out, match_ref, rule.key)


def _pair_rest(
    out_args: list[Args],
    ref_args: list[Args],
    match_out: list[int],
    match_ref: list[int],
    rule: ArgsRule,
) -> None:
    """Complete the pairing for inclusion rules (by an index of contained items; equal args
    were paired by ``_pair_equal``) and callables (by asking the callable)."""
    if rule.kind == "subset":  # output args within reference args
        complete_matching(match_out, match_ref, _containing(out_args, ref_args, match_ref))
    elif rule.kind == "superset":  # reference args within output args
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


def _once_per_dict(key: Callable[[Args], _K]) -> Callable[[Args], _K]:
    """``key``, computed once per arguments dict: the calls of one comparison whose arguments
    came from one text (on either side) share one dict (see normalize)."""
    known: dict[int, _K] = {}

    def key_of(args: Args) -> _K:
        name = id(args)
        if name not in known:
            known[name] = key(args)
        return known[name]

    return key_of


def _pair_by_key(
    out_args: list[Args],
    ref_args: list[Args],
    match_out: list[int],
    match_ref: list[int],
    key: Callable[[Args], Hashable | None],
) -> None:
    """Pair still-unpaired calls whose ``key`` is equal (and not ``None``), in order."""
    key_of = _once_per_dict(key)
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


def _pair_shared(
    out_args: list[Args], ref_args: list[Args], match_out: list[int], match_ref: list[int]
) -> None:
    """Pair still-unpaired calls that hold the very same args dict, in order (``_pair_by_key``
    with ``id`` as the key, which needs no cache)."""
    buckets: dict[int, deque[int]] = {}
    for j, args in enumerate(ref_args):
        if match_ref[j] == -1:
            bucket = buckets.get(id(args))
            if bucket is None:
                buckets[id(args)] = deque((j,))
            else:
                bucket.append(j)
    for i, args in enumerate(out_args):
        if match_out[i] == -1:
            bucket = buckets.get(id(args))
            if bucket:
                j = bucket.popleft()
                match_out[i], match_ref[j] = j, i


def _pair_equal_values(
    out_args: list[Args],
    ref_args: list[Args],
    match_out: list[int],
    match_ref: list[int],
    key: Callable[[Args], Hashable | None],
) -> None:
    """Pair unpaired calls with equal args in order, as ``_pair_by_key`` does with ``key`` (a
    stand-in for the value that equal values share, ``None`` for none), computing that costly
    key only for calls whose cheap ``signature`` some call on the other side shares: where most
    calls differ, most keys are never computed."""
    out_ids, ref_ids = _sharing_signatures(out_args, ref_args, match_out, match_ref)
    key_of = _once_per_dict(key)
    buckets: dict[Hashable, deque[int]] = defaultdict(deque)
    for j in ref_ids:
        k = key_of(ref_args[j])
        if k is not None:
            buckets[k].append(j)
    for i in out_ids:
        k = key_of(out_args[i])
        bucket = buckets.get(k) if k is not None else None
        if bucket:
            j = bucket.popleft()
            match_out[i], match_ref[j] = j, i


def _sharing_signatures(
    out_args: list[Args], ref_args: list[Args], match_out: list[int], match_ref: list[int]
) -> tuple[list[int], list[int]]:
    """The unpaired calls of each side (in order) whose signature an unpaired call of the other
    side shares."""
    signature_of = _once_per_dict(signature)
    by_signature: dict[Hashable, list[int]] = defaultdict(list)
    for j, args in enumerate(ref_args):
        if match_ref[j] == -1:
            by_signature[signature_of(args)].append(j)
    out_ids: list[int] = []
    ref_ids: set[int] = set()
    for i, args in enumerate(out_args):
        if match_out[i] == -1:
            shared = by_signature.get(signature_of(args))
            if shared:
                out_ids.append(i)
                ref_ids.update(shared)
    return out_ids, sorted(ref_ids)


def _containing(
    small: list[Args], big: list[Args], big_taken: list[int]
) -> Callable[[int], Iterable[int]]:
    """For each ``small`` index, the ``big`` indices whose args contain all of its top-level
    items (JSON-equal values), found through an index of items rather than by trying pairs.

    Calls with the same items share one candidate list and a cursor past its taken prefix, so
    that a run of identical calls walks the list once instead of once per call; candidates are
    given from the cursor on, then the taken ones before it.
    """
    postings: dict[tuple[str, Hashable], list[int]] = defaultdict(list)
    for j, args in enumerate(big):
        for k, v in args.items():
            postings[(k, canonical(v))].append(j)
    every = list(range(len(big)))
    groups: dict[int, _Candidates] = {}  # by id(args): calls from one text share one dict
    by_items: dict[frozenset[tuple[str, Hashable]], _Candidates] = {}

    def candidates(i: int) -> Iterable[int]:
        args = small[i]
        group = groups.get(id(args))
        if group is None:
            items = frozenset((k, canonical(v)) for k, v in args.items())
            group = by_items.get(items)
            if group is None:
                group = by_items[items] = _Candidates(_holding(items, postings, every))
            groups[id(args)] = group
        return group.from_first_free(big_taken)

    return candidates


def _holding(
    items: frozenset[tuple[str, Hashable]],
    postings: Mapping[tuple[str, Hashable], list[int]],
    every: list[int],
) -> list[int]:
    """The indices (in order) whose args hold every one of ``items``."""
    if not items:
        return every
    lists = sorted((postings.get(item, []) for item in items), key=len)
    if not lists[0]:
        return []
    others = [set(lst) for lst in lists[1:]]
    return [j for j in lists[0] if all(j in other for other in others)]


class _Candidates:
    """One candidate list and how far its prefix is known to be taken."""

    __slots__ = ("cursor", "found")

    def __init__(self, found: list[int]) -> None:
        self.found = found
        self.cursor = 0

    def from_first_free(self, taken: list[int]) -> Iterator[int]:
        found, at = self.found, self.cursor
        while at < len(found) and taken[found[at]] != -1:
            at += 1
        self.cursor = at
        return _rotated(found, at)


def _rotated(found: list[int], at: int) -> Iterator[int]:
    """``found`` from ``at`` on, then its start: lazily, since the caller mostly takes one."""
    for index in range(at, len(found)):
        yield found[index]
    for index in range(at):
        yield found[index]
