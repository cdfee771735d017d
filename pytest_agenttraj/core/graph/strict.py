"""Strict comparison of one invocation's path: the same nodes in the same order, where the nodes
of a superstep (a list, on either side) may stand in any order.

Two paths match when some ordering of every list, on both sides, makes their node sequences
equal. A flat list of names therefore compares as agentevals compares it, a reference list
matches the output's next nodes in any order, and an output's superstep (captured from a run)
matches the reference's names in any order. The walk is linear: whichever of the two current
entries ends first must be covered by what remains of the other. Entries both sides share are
skipped by comparing slices (C speed), so a failure costs little more than finding it, and its
explanation is bounded: what it quotes of a path is cut to ``SHOWN`` nodes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, NamedTuple

from .path import GraphPath, RawPath, node_counts
from .report import GraphDifference, then, times

__all__ = [
    "SHOWN",
    "StrictDivergence",
    "common_prefix",
    "common_suffix",
    "explain_divergence",
    "strict_divergence",
    "strict_sentence",
]

SHOWN = 10
"""How many nodes an explanation quotes of a stretch it cannot show whole, and how many places
of a node it marks: the same ten as message trajectories explain in full."""

_FIRST_CHUNK = 8
_LARGEST_CHUNK = 4096


class StrictDivergence(NamedTuple):
    """Where two paths part: the reference entry being matched (``None``: the reference had
    ended) and the output entry (``None``: the output had ended); ``leftover`` holds the first
    output nodes after the reference's last, and ``more`` how many others follow them."""

    reference: int | None
    output: int | None
    leftover: tuple[str, ...] = ()
    more: int = 0


def common_prefix(one: Sequence[Any], other: Sequence[Any], start: int, other_start: int) -> int:
    """How many entries from ``start`` / ``other_start`` on are equal, found by comparing
    slices of growing size and then halving the one that differs."""
    limit = min(len(one) - start, len(other) - other_start)
    equal, chunk = 0, _FIRST_CHUNK
    while equal < limit:
        size = min(chunk, limit - equal)
        a, b = start + equal, other_start + equal
        if one[a : a + size] == other[b : b + size]:
            equal += size
            chunk = min(chunk * 2, _LARGEST_CHUNK)
            continue
        while size > 1:  # the first difference lies in the next ``size`` entries
            half = size // 2
            a, b = start + equal, other_start + equal
            if one[a : a + half] == other[b : b + half]:
                equal += half
                size -= half
            else:
                size = half
        return equal
    return equal


def common_suffix(one: Sequence[Any], other: Sequence[Any], limit: int) -> int:
    """How many entries (at most ``limit``) the two end with alike."""
    end, other_end = len(one), len(other)
    equal, chunk = 0, _FIRST_CHUNK
    while equal < limit:
        size = min(chunk, limit - equal)
        a, b = end - equal, other_end - equal
        if one[a - size : a] == other[b - size : b]:
            equal += size
            chunk = min(chunk * 2, _LARGEST_CHUNK)
            continue
        while size > 1:  # the last difference lies in the ``size`` entries before
            half = size // 2
            a, b = end - equal, other_end - equal
            if one[a - half : a] == other[b - half : b]:
                equal += half
                size -= half
            else:
                size = half
        return equal
    return equal


def _cover(small: dict[str, int], big: dict[str, int]) -> bool:
    """Take all of ``small`` out of ``big`` if ``big`` holds it (cost: ``small``'s size)."""
    for name, count in small.items():
        if big.get(name, 0) < count:
            return False
    for name, count in small.items():
        left = big[name] - count
        if left:
            big[name] = left
        else:
            del big[name]
    small.clear()
    return True


def _leftover(path: RawPath, index: int, remaining: dict[str, int]) -> StrictDivergence:
    """The reference ended inside or before entry ``index`` of ``path``: what is left of it,
    ``remaining`` being that entry's part, quoted up to ``SHOWN`` nodes."""
    rest = dict(remaining)
    out = []
    for name in path.names(index):
        if rest.get(name, 0):
            rest[name] -= 1
            out.append(name)
    after = path.offset(index + 1)
    shown = (*out, *path.nodes(after, after + SHOWN))[:SHOWN]
    total = len(out) + path.node_count() - after
    return StrictDivergence(None, index, shown, total - len(shown))


def _skip_shared(out: Sequence[Any], ref: Sequence[Any], o: int, r: int) -> tuple[int, int, bool]:
    """From entries ``o`` / ``r``, where both paths are aligned: past what they share, and
    whether they still agree there (``False``: two names differ)."""
    while True:
        shared = common_prefix(out, ref, o, r)
        o += shared
        r += shared
        if o >= len(out) or r >= len(ref):
            return o, r, True
        one, other = out[o], ref[r]
        if not isinstance(one, str) or not isinstance(other, str):
            return o, r, True
        if one != other:  # name against name
            return o, r, False
        o += 1
        r += 1


def raw_divergence(output: RawPath, reference: RawPath, shared: int = 0) -> StrictDivergence | None:
    """``None`` when the paths match strictly, else where they part; the first ``shared``
    entries are known to be equal on both sides (and are not compared again)."""
    out, ref = output.entries, reference.entries
    o = r = shared
    out_rest: dict[str, int] = {}
    ref_rest: dict[str, int] = {}
    out_left = ref_left = 0
    while True:
        if not out_left and not ref_left:  # aligned: skip what both share
            o, r, agree = _skip_shared(out, ref, o, r)
            if not agree:
                return StrictDivergence(r, o)
        if not out_left and o < len(out):
            names = output.names(o)
            out_rest, out_left = node_counts(names), len(names)
            o += 1
        if not ref_left and r < len(ref):
            names = reference.names(r)
            ref_rest, ref_left = node_counts(names), len(names)
            r += 1
        if not out_left:
            return None if not ref_left else StrictDivergence(r - 1, None)
        if not ref_left:
            return _leftover(output, o - 1, out_rest)
        small, big = (out_rest, ref_rest) if out_left <= ref_left else (ref_rest, out_rest)
        if not _cover(small, big):
            return StrictDivergence(r - 1, o - 1)
        taken = min(out_left, ref_left)
        out_left -= taken
        ref_left -= taken


def strict_divergence(output: GraphPath, reference: GraphPath) -> StrictDivergence | None:
    """``None`` when two paths already read match strictly, else where they part."""
    return raw_divergence(RawPath.of(output), RawPath.of(reference))


def _quoted(names: Sequence[str], more: int) -> str:
    return f"{list(names)}{f' and {more} more' if more else ''}"


def legacy_sentence(output: RawPath, reference: RawPath, where: StrictDivergence) -> str:
    """The first difference in node offsets, as strict comments have always said it:
    ``expected node 'agent' at 2, got 'tools'``."""
    if where.reference is None:
        return f"unexpected nodes after the reference's last: {_quoted(where.leftover, where.more)}"
    entry = reference.superstep(where.reference)
    at = reference.offset(where.reference)
    if entry.grouped:
        got = output.nodes(at, at + len(entry.nodes))
        return f"superstep {list(entry.nodes)} expected at node {at}, got {got}"
    found = output.nodes(at, at + 1)
    return f"expected node {entry.nodes[0]!r} at {at}, got {repr(found[0]) if found else 'nothing'}"


def _overlapping(output: RawPath, start: int, end: int) -> list[int]:
    """The output entries that hold any node offset in ``[start, end)``."""
    if start >= output.node_count():
        return []
    first = output.entry_of(start)
    found = [first]
    index = first + 1
    while index < len(output) and output.offset(index) < end:
        found.append(index)
        index += 1
    return found


def _superstep_difference(
    invocation: int, output: RawPath, reference: RawPath, where: StrictDivergence
) -> GraphDifference:
    if where.reference is None:
        assert where.output is not None
        rest = " then ".join(where.leftover)
        if where.more:
            rest += f" and {where.more} more node{'s' if where.more > 1 else ''}"
        return GraphDifference(
            "superstep",
            f"expected no more supersteps, got {rest}",
            invocation,
            len(reference),
            output_at=tuple(range(where.output, min(len(output), where.output + SHOWN))),
        )
    entry = reference.superstep(where.reference)
    start = reference.offset(where.reference)
    indices = _overlapping(output, start, start + len(entry.nodes))
    got = [output.superstep(k) for k in indices]
    if len(got) == 1 and entry.grouped and not got[0].grouped:
        got_text = "{" + got[0].nodes[0] + "}"  # both sides as sets, as the expected one reads
    else:
        got_text = then(got)
    if got and output.node_count() < start + len(entry.nodes):
        got_text += ", then the path ends"
    return GraphDifference(
        "superstep",
        f"expected {entry.text()}, got {got_text}",
        invocation,
        where.reference,
        output_at=tuple(indices),
        reference_at=(where.reference,),
    )


def _middle_counts(path: RawPath, start: int, stop: int) -> Counter[str]:
    """How many times each node runs in entries ``start`` to ``stop``."""
    if not path.grouped:
        return Counter(path.entries[start:stop])
    counts: Counter[str] = Counter()
    for index in range(start, stop):
        counts.update(path.names(index))
    return counts


def _places(path: RawPath, names: list[str], totals: dict[str, int]) -> dict[str, tuple[int, ...]]:
    """For each of ``names`` (at most ``SHOWN``), the first ``SHOWN`` entries it runs in (of the
    ``totals[name]`` it runs in in all: the search stops at the last)."""
    entries = path.entries
    found: dict[str, list[int]] = {name: [] for name in names}
    if not path.grouped:
        for name, places in found.items():
            at = -1
            while len(places) < min(SHOWN, totals[name]):
                try:
                    at = entries.index(name, at + 1)
                except ValueError:
                    break
                places.append(at)
    else:
        open_names = set(names)
        for index in range(len(entries)):
            for name in open_names.intersection(path.names(index)):
                places = found[name]
                places.append(index)
                if len(places) == SHOWN:
                    open_names.discard(name)
            if not open_names:
                break
    return {name: tuple(places) for name, places in found.items()}


def _first_named(flat: Sequence[str], names: list[str]) -> list[str]:
    """``names`` in the order ``flat`` first names them."""
    if len(names) <= SHOWN:
        return sorted(names, key=flat.index)
    wanted = set(names)
    return [name for name in dict.fromkeys(flat) if name in wanted]


def count_differences(
    invocation: int, output: RawPath, reference: RawPath
) -> list[GraphDifference]:
    """A ``missing`` / ``unexpected`` difference per node that ran fewer / more times than in the
    reference, in the order the reference (then the output) first names them.

    The entries both sides start and end with alike hold the same nodes on both, so only the
    stretch between them is counted in full; each differing node's totals come from one count
    of it in the reference. As for message trajectories, the first ``SHOWN`` differences are
    located (the first ``SHOWN`` entries each node runs in, for a diff to mark); later ones are
    listed without places, so that no input makes a verdict wait on its explanation.
    """
    out, ref = output.entries, reference.entries
    start = common_prefix(out, ref, 0, 0)
    end = common_suffix(out, ref, min(len(out), len(ref)) - start)
    ran = _middle_counts(output, start, len(out) - end)
    wanted = _middle_counts(reference, start, len(ref) - end)
    if ran == wanted:
        return []
    short = [name for name, count in wanted.items() if ran[name] < count]
    extra = [name for name, count in ran.items() if count > wanted[name]]
    flat_ref = reference.flat()
    shared: dict[str, int] = {}  # how often each differing node runs where both sides agree
    names = [*short, *extra]
    if len(names) > 2:
        totals = Counter(flat_ref)
        shared = {name: totals[name] - wanted[name] for name in names}
    else:
        shared = {name: flat_ref.count(name) - wanted[name] for name in names}
    found: list[GraphDifference] = []
    short = _first_named(flat_ref, short)
    expected_runs = {name: shared[name] + wanted[name] for name in short}
    places = _places(reference, short[:SHOWN], expected_runs)
    for name in short:
        expected, did = shared[name] + wanted[name], shared[name] + ran[name]
        what = f"missing node {name}"
        if did or expected > 1:
            what += f" (ran {times(did)}, expected {expected})"
        at = places.get(name, ())
        found.append(GraphDifference("missing", what, invocation, node=name, reference_at=at))
    extra = _first_named(output.flat(), extra)
    runs = {name: shared[name] + ran[name] for name in extra}
    places = _places(output, extra[: max(0, SHOWN - len(short))], runs)
    for name in extra:
        expected, did = shared[name] + wanted[name], shared[name] + ran[name]
        what = f"unexpected node {name}"
        if expected or did > 1:
            what += f" (ran {times(did)}, expected {expected})"
        at = places.get(name, ())
        found.append(GraphDifference("unexpected", what, invocation, node=name, output_at=at))
    return found


def explain_divergence(
    invocation: int, output: RawPath, reference: RawPath, where: StrictDivergence
) -> list[GraphDifference]:
    """The differences of one invocation whose paths part at ``where``: the superstep there,
    then the nodes that ran too few or too many times."""
    found = [_superstep_difference(invocation, output, reference, where)]
    found += count_differences(invocation, output, reference)
    return found


def strict_sentence(
    invocation: int, output: RawPath, reference: RawPath, shared: int = 0
) -> tuple[StrictDivergence | None, str | None]:
    """Where one invocation's paths part and the comment's sentence for it (``None``, ``None``
    on a match): the verdict and the comment, without the explanation. The first ``shared``
    entries are known to be equal."""
    where = raw_divergence(output, reference, shared)
    if where is None:
        return None, None
    return where, f"invocation {invocation}: {legacy_sentence(output, reference, where)}"
