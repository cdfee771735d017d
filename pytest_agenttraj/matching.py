"""Pure trajectory matching: decides whether an output trajectory matches a reference, and why not.

Tool calls are paired one-to-one by maximum bipartite matching, so a match is found whenever one
exists (first-fit pairing misses some when argument matching is not plain equality). Calls whose
args rule is an equivalence (exact, ignore, key lists) are paired by hashing in linear time; the
augmenting search runs only for what cheaper passes leave unpaired.
"""

from __future__ import annotations

import difflib
from collections import defaultdict, deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, NamedTuple, Protocol

from ._assignment import complete_matching
from ._values import MISSING, ArgDiff, canonical
from .config import ArgsRule, MatchConfig
from .model import Message, ToolCall, Trajectory
from .normalize import ChatSkeleton

__all__ = [
    "CallProblem",
    "CallRef",
    "GivenSides",
    "MatchReport",
    "Problem",
    "Sides",
    "match_skeletons",
    "match_trajectories",
    "skeletons_can_decide",
]

ProblemKind = Literal[
    "length",
    "missing_message",
    "extra_message",
    "role",
    "tool_calls_presence",
    "args_mismatch",
    "unexpected_call",
    "missing_call",
]


class CallRef(NamedTuple):
    """A tool call and where it stands: its message index and its index inside that message."""

    message: int
    position: int
    call: ToolCall


@dataclass(frozen=True, slots=True)
class CallProblem:
    """A call left unpaired, with the closest candidate on the other side and what differs.

    ``closest_paired`` says the candidate already pairs with another call (so it was not free).
    """

    side: Literal["output", "reference"]
    call: CallRef
    closest: CallRef | None
    diffs: tuple[ArgDiff, ...]
    rule: str
    closest_paired: bool = False


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason the trajectories do not match, as a one-line text plus structured detail."""

    kind: ProblemKind
    text: str
    output_index: int | None = None
    reference_index: int | None = None
    call: CallProblem | None = None


Pairs = list[tuple[CallRef, CallRef]]


class Sides(Protocol):
    """The two trajectories a report is about (possibly built only when first read)."""

    @property
    def output(self) -> Trajectory: ...

    @property
    def reference(self) -> Trajectory: ...


class GivenSides(NamedTuple):
    """Two trajectories already built."""

    output: Trajectory
    reference: Trajectory


@dataclass(frozen=True, slots=True)
class _PairParts:
    """Paired calls in output order, kept in parts until read: each part is a list of pairs, or
    a row (output index, reference index) of two messages whose calls pair by position."""

    sides: Sides
    parts: list[Pairs | tuple[int, int]]

    def __iter__(self) -> Iterator[tuple[CallRef, CallRef]]:
        output, reference = self.sides.output, self.sides.reference
        for part in self.parts:
            if isinstance(part, list):
                yield from part
                continue
            o_index, r_index = part
            calls = zip(output[o_index].tool_calls, reference[r_index].tool_calls, strict=True)
            for i, (o, r) in enumerate(calls):
                yield CallRef(o_index, i, o), CallRef(r_index, i, r)


@dataclass(frozen=True)
class MatchReport:
    """Everything a diff needs: the verdict, what paired, and each problem with its location.

    ``alignment`` lists message rows (output index, reference index; ``None`` on the side that has
    no message there) for a side-by-side view: the strict comparison's rows, else message positions.
    ``pairs`` lists the paired calls in output order. It and (for a passing evaluation of plain
    chat dicts) the two trajectories are built when first read, since most evaluations only need
    the verdict.
    """

    config: MatchConfig
    sides: Sides = field(repr=False, compare=False)
    matched: bool
    problems: tuple[Problem, ...] = ()
    call_pairs: Iterable[tuple[CallRef, CallRef]] = field(default=(), repr=False, compare=False)
    rows: tuple[tuple[int | None, int | None], ...] | None = None

    @cached_property
    def output(self) -> Trajectory:
        return self.sides.output

    @cached_property
    def reference(self) -> Trajectory:
        return self.sides.reference

    @cached_property
    def pairs(self) -> tuple[tuple[CallRef, CallRef], ...]:
        return tuple(self.call_pairs)

    @property
    def alignment(self) -> tuple[tuple[int | None, int | None], ...]:
        if self.rows is not None:
            return self.rows
        n_out, n_ref = len(self.output.messages), len(self.reference.messages)
        return tuple(
            (i if i < n_out else None, i if i < n_ref else None) for i in range(max(n_out, n_ref))
        )

    @property
    def mode(self) -> str:
        return self.config.mode

    @property
    def tool_args(self) -> str:
        return self.config.tool_args

    @property
    def key(self) -> str:
        return self.config.key

    def comment(self) -> str | None:
        """One or two sentences on what did not match; ``None`` on a match."""
        if self.matched:
            return None
        head = (
            f"Trajectory does not match the reference "
            f"({self.mode} mode, {self.tool_args} args): {self.problems[0].text}."
        )
        more = len(self.problems) - 1
        if more > 0:
            head += f" {more} more problem{'s' if more > 1 else ''} not shown."
        return head


def match_trajectories(
    output: Trajectory, reference: Trajectory, config: MatchConfig
) -> MatchReport:
    """Compare two normalised trajectories under ``config``."""
    if config.mode == "strict":
        return _match_strict(output, reference, config)
    return _match_calls(output, reference, config)


def skeletons_can_decide(config: MatchConfig) -> bool:
    """Whether ``match_skeletons`` may pass under ``config``: exact arguments (calls with the
    same arguments text match) or ignored ones (calls of the same tool match), no overrides.
    Subset/superset arguments are chosen when texts are expected to differ, so not tried."""
    return not config.overrides and config.tool_args in ("exact", "ignore")


def match_skeletons(
    output: ChatSkeleton, reference: ChatSkeleton, config: MatchConfig, sides: Sides
) -> MatchReport | None:
    """A passing report when the skeletons alone prove a match (see ``skeletons_can_decide``);
    else ``None``, and ``match_trajectories`` decides and explains. In strict mode that takes
    the same roles and the same calls in the same order; in the others, pairing each call
    with a reference call of the same key (arguments text, or tool name when args are ignored)
    in one pass, which is already a maximum pairing since equal keys always match."""
    if not skeletons_can_decide(config):
        return None
    ignore = config.tool_args == "ignore"
    if config.mode == "strict":
        if (
            len(output.messages) != len(reference.messages)
            or output.call_rows != reference.call_rows
            or output.call_counts != reference.call_counts
            or output.names != reference.names
            or (not ignore and output.texts != reference.texts)
            or output.roles() != reference.roles()
        ):
            return None
        rows: list[Pairs | tuple[int, int]] = [(i, i) for i in output.call_rows]
        return MatchReport(config, sides, True, (), _PairParts(sides, rows))
    if ignore:
        partner = _partner_by_key(output.names, reference.names, config.mode)
    else:
        partner = _partner_by_key(output.texts, reference.texts, config.mode)
        if partner is not None and not _same_names(output.names, reference.names, partner):
            return None  # one text for calls of two tools: leave it to the general path
    if partner is None:
        return None
    return MatchReport(config, sides, True, (), _FlatPairs(sides, partner))


# ---------------------------------------------------------------- strict


def _signature(message: Message) -> tuple[str, tuple[str, ...]]:
    return message.role, tuple(sorted(c.name for c in message.tool_calls))


def _align(output: Trajectory, reference: Trajectory) -> list[tuple[int | None, int | None]]:
    """Rows pairing messages: by position when the lengths agree, else by a sequence diff."""
    if len(output) == len(reference):
        return [(i, i) for i in range(len(output))]
    matcher = difflib.SequenceMatcher(
        None,
        [_signature(m) for m in output],
        [_signature(m) for m in reference],
        autojunk=False,
    )
    rows: list[tuple[int | None, int | None]] = []
    for tag, o1, o2, r1, r2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and o2 - o1 == r2 - r1):
            rows.extend(zip(range(o1, o2), range(r1, r2), strict=True))
            continue
        common = min(o2 - o1, r2 - r1) if tag == "replace" else 0
        rows.extend(zip(range(o1, o1 + common), range(r1, r1 + common), strict=True))
        rows.extend((r, None) for r in range(o1 + common, o2))
        rows.extend((None, r) for r in range(r1 + common, r2))
    return rows


def _names(calls: Sequence[ToolCall]) -> str:
    return "[" + ", ".join(c.name for c in calls) + "]"


_new = tuple.__new__  # builds a CallRef without its Python-level __new__ (hot loops only)


def _match_strict(output: Trajectory, reference: Trajectory, config: MatchConfig) -> MatchReport:
    problems: list[Problem] = []
    # Per row with calls: the explicit pairs, or the row itself when the calls pair by position.
    pair_parts: list[Pairs | tuple[int, int]] = []
    by_identity = _by_identity(config)
    out_messages, ref_messages = output.messages, reference.messages
    if len(output) != len(reference):
        problems.append(Problem("length", f"expected {len(reference)} messages, got {len(output)}"))
    alignment = _align(output, reference)
    for o_index, r_index in alignment:
        if o_index is None:
            assert r_index is not None
            ref = ref_messages[r_index]
            problems.append(
                Problem(
                    "missing_message",
                    f"reference message {r_index} ({_describe_message(ref)}) is missing "
                    "from the output",
                    reference_index=r_index,
                )
            )
            continue
        if r_index is None:
            out = out_messages[o_index]
            problems.append(
                Problem(
                    "extra_message",
                    f"message {o_index} ({_describe_message(out)}) is not in the reference",
                    output_index=o_index,
                )
            )
            continue
        out, ref = out_messages[o_index], ref_messages[r_index]
        if out.role != ref.role:
            problems.append(
                Problem(
                    "role",
                    f"message {o_index}: expected role {ref.role!r}, got {out.role!r}",
                    o_index,
                    r_index,
                )
            )
            continue
        if bool(out.tool_calls) != bool(ref.tool_calls):
            expected = _names(ref.tool_calls) if ref.tool_calls else "no tool calls"
            got = _names(out.tool_calls) if out.tool_calls else "none"
            problems.append(
                Problem(
                    "tool_calls_presence",
                    f"message {o_index}: expected tool calls {expected}, got {got}"
                    if ref.tool_calls
                    else f"message {o_index}: expected {expected}, got tool calls {got}",
                    o_index,
                    r_index,
                )
            )
            continue
        if out.tool_calls:
            if by_identity and _same_in_order(out.tool_calls, ref.tool_calls):
                pair_parts.append((o_index, r_index))
                continue
            out_refs = [CallRef(o_index, i, c) for i, c in enumerate(out.tool_calls)]
            ref_refs = [CallRef(r_index, i, c) for i, c in enumerate(ref.tool_calls)]
            paired, lone_out, lone_ref = _pair_calls(out_refs, ref_refs, config)
            pair_parts.append(paired)
            where = (f"reference message {r_index}", f"message {o_index}")
            problems.extend(_call_problems(paired, lone_out, lone_ref, True, True, config, where))
    sides = GivenSides(output, reference)
    return MatchReport(
        config,
        sides,
        not problems,
        tuple(problems),
        _PairParts(sides, pair_parts),
        tuple(alignment),
    )


def _same_in_order(out: tuple[ToolCall, ...], ref: tuple[ToolCall, ...]) -> bool:
    """Whether each call has the same tool and the very same parsed args as the reference call
    at its position (see ``_pair_identical``): then they pair by position."""
    if len(out) != len(ref):
        return False
    return all(o.args is r.args and o.name == r.name for o, r in zip(out, ref, strict=True))


# ---------------------------------------------------------------- unordered / subset / superset


def _match_calls(output: Trajectory, reference: Trajectory, config: MatchConfig) -> MatchReport:
    sides = GivenSides(output, reference)
    partner = _matched_by_identity(output, reference, config)
    if partner is not None:
        return MatchReport(config, sides, True, (), _FlatPairs(sides, partner))
    out_refs = _call_refs(output)
    ref_refs = _call_refs(reference)
    paired, lone_out, lone_ref = _pair_calls(out_refs, ref_refs, config)
    mode = config.mode
    report_out = mode in ("unordered", "subset")
    report_ref = mode in ("unordered", "superset")
    problems = _call_problems(paired, lone_out, lone_ref, report_out, report_ref, config)
    return MatchReport(config, sides, not problems, tuple(problems), paired)


@dataclass(frozen=True, slots=True)
class _FlatPairs:
    """Paired calls in output order, from ``partner`` (reference call index per output call, in
    the order of ``_call_refs``; -1 for none), built when read."""

    sides: Sides
    partner: list[int]

    def __iter__(self) -> Iterator[tuple[CallRef, CallRef]]:
        references = _call_refs(self.sides.reference)
        for out, j in zip(_call_refs(self.sides.output), self.partner, strict=True):
            if j != -1:
                yield out, references[j]


def _matched_by_identity(
    output: Trajectory, reference: Trajectory, config: MatchConfig
) -> list[int] | None:
    """The passing common case in one pass over the calls, without building call references:
    each call pairs with the reference call of the same tool whose args are the very same parsed
    object (see ``_pair_identical``). Returns that pairing when it alone makes the trajectories
    match under ``config``; else ``None``, and the general path decides and explains."""
    if not _by_identity(config):
        return None
    return _partner_by_key(_identity_keys(output), _identity_keys(reference), config.mode)


def _identity_keys(trajectory: Trajectory) -> list[tuple[str, int]]:
    """(tool name, id of the parsed args) of each call, in order."""
    return [(c.name, id(c.args)) for m in trajectory.messages if m.tool_calls for c in m.tool_calls]


def _pair_equal_keys(
    out_keys: Sequence[Hashable], ref_keys: Sequence[Hashable]
) -> tuple[list[int], bool]:
    """Pair each output key with the first free reference key equal to it: the partner index
    per output (-1: none), and whether some reference key is left unpaired. Where equal keys
    always match, this is a maximum pairing."""
    free = dict(zip(ref_keys, range(len(ref_keys)), strict=True))
    if len(free) == len(ref_keys):  # every key once: the common case, without lists
        take = free.pop
        return [take(key, -1) for key in out_keys], bool(free)
    queues: dict[Hashable, list[int]] = {}
    for j in range(len(ref_keys) - 1, -1, -1):
        queues.setdefault(ref_keys[j], []).append(j)
    partner = [queue.pop() if (queue := queues.get(key)) else -1 for key in out_keys]
    return partner, any(queues.values())


def _partner_by_key(
    out_keys: Sequence[Hashable], ref_keys: Sequence[Hashable], mode: str
) -> list[int] | None:
    """The pairing of ``_pair_equal_keys`` if it alone makes ``mode`` match (an unpaired call
    only where the mode allows one), else ``None``."""
    partner, unpaired_references = _pair_equal_keys(out_keys, ref_keys)
    if mode != "superset" and -1 in partner:
        return None  # an output call is unpaired, which only superset mode allows
    if mode != "subset" and unpaired_references:
        return None  # a reference call is unpaired, which only subset mode allows
    return partner


def _same_names(out_names: list[str], ref_names: list[str], partner: list[int]) -> bool:
    """Whether each paired call has the tool name of its partner."""
    partner_names = [
        ref_names[j] if j != -1 else name for name, j in zip(out_names, partner, strict=True)
    ]
    return partner_names == out_names


# ---------------------------------------------------------------- pairing


def _call_refs(trajectory: Trajectory) -> list[CallRef]:
    return [
        _new(CallRef, (m, p, call))
        for m, message in enumerate(trajectory.messages)
        if message.tool_calls
        for p, call in enumerate(message.tool_calls)
    ]


def _pair_calls(
    outputs: list[CallRef], references: list[CallRef], config: MatchConfig
) -> tuple[list[tuple[CallRef, CallRef]], list[CallRef], list[CallRef]]:
    """A maximum one-to-one pairing of calls with equal names whose args match under the rules.

    Returns the pairs (in output order) and the unpaired calls of each side.
    """
    partner = _pair_identical(outputs, references, config) or _pair_by_name(
        outputs, references, config
    )
    paired = [(outputs[i], references[j]) for i, j in enumerate(partner) if j != -1]
    if len(paired) == len(outputs) == len(references):
        return paired, [], []
    taken = {j for j in partner if j != -1}
    lone_out = [outputs[i] for i, j in enumerate(partner) if j == -1]
    lone_ref = [r for j, r in enumerate(references) if j not in taken]
    return paired, lone_out, lone_ref


_IDENTITY_RULES = frozenset({"exact", "ignore", "subset", "superset"})


def _by_identity(config: MatchConfig) -> bool:
    """Whether calls of one tool with the same parsed args object always match under ``config``."""
    return not config.overrides and config.tool_args in _IDENTITY_RULES


def _pair_identical(
    outputs: list[CallRef], references: list[CallRef], config: MatchConfig
) -> list[int] | None:
    """The common case in one pass: calls of the same tool whose arguments came from the same
    text (one shared dict, see normalize) match under every rule without overrides. Returns the
    pairing only if it pairs one whole side, so that it is already maximum; else ``None``."""
    if not _by_identity(config):
        return None
    partner, unpaired_references = _pair_equal_keys(
        [(r.call.name, id(r.call.args)) for r in outputs],
        [(r.call.name, id(r.call.args)) for r in references],
    )
    if -1 not in partner or not unpaired_references:
        return partner
    return None


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


def _pair_group(
    out_args: list[Mapping[str, Any]], ref_args: list[Mapping[str, Any]], rule: ArgsRule
) -> list[int]:
    """Pairing of one tool's calls: ``result[i]`` is the reference index for output ``i`` or -1."""
    n_out, n_ref = len(out_args), len(ref_args)
    match_out = [-1] * n_out
    match_ref = [-1] * n_ref
    if rule.kind == "ignore":
        for i in range(min(n_out, n_ref)):
            match_out[i] = match_ref[i] = i
        return match_out
    if rule.kind in ("exact", "subset", "superset"):
        # Arguments parsed from the same text share one dict (see normalize), and equal args
        # match under all three rules, so pair identical objects first. Exact matching is an
        # equivalence; for inclusion an exchange argument shows some maximum pairing pairs
        # equal args with each other.
        _pair_by_key(out_args, ref_args, match_out, match_ref, id)
    if rule.hashable:
        # Equal keys <=> match, so pairing equal keys in order is already maximum.
        _pair_by_key(out_args, ref_args, match_out, match_ref, rule.key)
        return match_out
    if rule.kind == "subset":  # output args within reference args
        complete_matching(match_out, match_ref, _containing(out_args, ref_args, match_ref))
    elif rule.kind == "superset":  # reference args within output args
        complete_matching(match_ref, match_out, _containing(ref_args, out_args, match_out))
    else:
        same: dict[Hashable, list[int]] = defaultdict(list)
        for j, args in enumerate(ref_args):
            same[canonical(args)].append(j)

        def first_choices(i: int) -> Iterable[int]:
            # Equal args are the likeliest partners for any rule; try them before the rest.
            yield from same.get(canonical(out_args[i]), ())
            yield from range(n_ref)

        def related(i: int, j: int) -> bool:
            return rule.matches(out_args[i], ref_args[j])

        complete_matching(match_out, match_ref, first_choices, related)
    return match_out


def _pair_by_key(
    out_args: list[Mapping[str, Any]],
    ref_args: list[Mapping[str, Any]],
    match_out: list[int],
    match_ref: list[int],
    key: Callable[[Mapping[str, Any]], Hashable | None],
) -> None:
    """Pair still-unpaired calls whose ``key`` is equal (and not ``None``), in order."""
    buckets: dict[Hashable, deque[int]] = defaultdict(deque)
    for j, args in enumerate(ref_args):
        if match_ref[j] == -1:
            k = key(args)
            if k is not None:
                buckets[k].append(j)
    if not buckets:
        return
    for i, args in enumerate(out_args):
        if match_out[i] == -1:
            k = key(args)
            bucket = buckets.get(k) if k is not None else None
            if bucket:
                j = bucket.popleft()
                match_out[i], match_ref[j] = j, i


def _containing(
    small: list[Mapping[str, Any]], big: list[Mapping[str, Any]], big_taken: list[int]
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


# ---------------------------------------------------------------- explaining unpaired calls

_CLOSEST_SCAN_LIMIT = 200


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


def _call_problems(
    paired: list[tuple[CallRef, CallRef]],
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
    detail = "; ".join(format_diff(d) for d in diffs[:3])
    if len(diffs) > 3:
        detail += f"; {len(diffs) - 3} more"
    if not detail:
        detail = f"rejected by {rule.describe()}"
    return Problem(
        "args_mismatch",
        f"message {out.message}: tool call {out.call.name!r} args differ ({rule.describe()}): "
        f"{detail}",
        output_index=out.message,
        reference_index=ref.message,
        call=CallProblem(side, lone, other, diffs, rule.describe()),
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


# ---------------------------------------------------------------- text helpers

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


def _describe_message(message: Message) -> str:
    if message.tool_calls:
        return f"{message.role} calling {_names(message.tool_calls)}"
    text = message.text.replace("\n", " ")
    return f"{message.role}: {short(text, 40)}" if text else message.role
