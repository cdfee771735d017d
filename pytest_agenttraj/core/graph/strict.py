"""Strict comparison of one invocation's path: the same nodes in the same order, where the nodes
of a superstep (a list, on either side) may stand in any order.

Two paths match when some ordering of every list, on both sides, makes their node sequences
equal. A flat list of names therefore compares as agentevals compares it, a reference list
matches the output's next nodes in any order, and an output's superstep (captured from a run)
matches the reference's names in any order. The walk is linear: whichever of the two current
entries ends first must be covered by what remains of the other.
"""

from __future__ import annotations

from typing import NamedTuple

from .path import GraphPath, flat_nodes, node_counts
from .report import GraphDifference, count_differences, then

__all__ = ["StrictDivergence", "legacy_sentence", "strict_differences", "strict_divergence"]


class StrictDivergence(NamedTuple):
    """Where two paths part: the reference entry being matched (``None``: the reference had
    ended) and the output entry (``None``: the output had ended); ``leftover`` holds the output
    nodes after the reference's last."""

    reference: int | None
    output: int | None
    leftover: tuple[str, ...] = ()


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


def _leftover(path: GraphPath, index: int, remaining: dict[str, int]) -> tuple[str, ...]:
    """What is left of ``path`` from entry ``index`` on, ``remaining`` being that entry's part."""
    rest = dict(remaining)
    out = []
    for name in path[index].nodes:
        if rest.get(name, 0):
            rest[name] -= 1
            out.append(name)
    return (*out, *flat_nodes(path[index + 1 :]))


def strict_divergence(output: GraphPath, reference: GraphPath) -> StrictDivergence | None:
    """``None`` when the paths match strictly, else where they part."""
    o = r = 0
    out_rest: dict[str, int] = {}
    ref_rest: dict[str, int] = {}
    out_left = ref_left = 0
    while True:
        if not out_left and not ref_left and o < len(output) and r < len(reference):
            out_entry, ref_entry = output[o], reference[r]
            if len(out_entry.nodes) == 1 and len(ref_entry.nodes) == 1:  # name against name
                if out_entry.nodes[0] != ref_entry.nodes[0]:
                    return StrictDivergence(r, o)
                o += 1
                r += 1
                continue
        if not out_left and o < len(output):
            out_rest, out_left = node_counts(output[o].nodes), len(output[o].nodes)
            o += 1
        if not ref_left and r < len(reference):
            ref_rest, ref_left = node_counts(reference[r].nodes), len(reference[r].nodes)
            r += 1
        if not out_left:
            return None if not ref_left else StrictDivergence(r - 1, None)
        if not ref_left:
            return StrictDivergence(None, o - 1, _leftover(output, o - 1, out_rest))
        small, big = (out_rest, ref_rest) if out_left <= ref_left else (ref_rest, out_rest)
        if not _cover(small, big):
            return StrictDivergence(r - 1, o - 1)
        taken = min(out_left, ref_left)
        out_left -= taken
        ref_left -= taken


def _starts(path: GraphPath) -> list[int]:
    """The node offset at which each entry starts."""
    starts, at = [], 0
    for superstep in path:
        starts.append(at)
        at += len(superstep.nodes)
    return starts


def legacy_sentence(output: GraphPath, reference: GraphPath, where: StrictDivergence) -> str:
    """The first difference in node offsets, as strict comments have always said it:
    ``expected node 'agent' at 2, got 'tools'``."""
    if where.reference is None:
        return f"unexpected nodes after the reference's last: {list(where.leftover)}"
    ran = flat_nodes(output)
    entry = reference[where.reference]
    at = _starts(reference)[where.reference]
    if entry.grouped:
        got = ran[at : at + len(entry.nodes)]
        return f"superstep {list(entry.nodes)} expected at node {at}, got {got}"
    found = repr(ran[at]) if at < len(ran) else "nothing"
    return f"expected node {entry.nodes[0]!r} at {at}, got {found}"


def _overlapping(output: GraphPath, start: int, end: int) -> list[int]:
    """The output entries that hold any node offset in ``[start, end)``."""
    found = []
    for index, at in enumerate(_starts(output)):
        if at >= end:
            break
        if at + len(output[index].nodes) > start:
            found.append(index)
    return found


def _superstep_difference(
    invocation: int, output: GraphPath, reference: GraphPath, where: StrictDivergence
) -> GraphDifference:
    if where.reference is None:
        assert where.output is not None
        at = tuple(range(where.output, len(output)))
        return GraphDifference(
            "superstep",
            f"expected no more supersteps, got {' then '.join(where.leftover)}",
            invocation,
            len(reference),
            output_at=at,
        )
    entry = reference[where.reference]
    start = _starts(reference)[where.reference]
    indices = _overlapping(output, start, start + len(entry.nodes))
    got = [output[k] for k in indices]
    if len(got) == 1 and entry.grouped and not got[0].grouped:
        got_text = "{" + got[0].nodes[0] + "}"  # both sides as sets, as the expected one reads
    else:
        got_text = then(got)
    if got and len(flat_nodes(output)) < start + len(entry.nodes):
        got_text += ", then the path ends"
    return GraphDifference(
        "superstep",
        f"expected {entry.text()}, got {got_text}",
        invocation,
        where.reference,
        output_at=tuple(indices),
        reference_at=(where.reference,),
    )


def strict_differences(
    invocation: int, output: GraphPath, reference: GraphPath
) -> tuple[list[GraphDifference], str | None]:
    """The differences of one invocation in strict mode and the comment's sentence (none on a
    match): where the paths part, then the nodes that ran too few or too many times."""
    where = strict_divergence(output, reference)
    if where is None:
        return [], None
    found = [_superstep_difference(invocation, output, reference, where)]
    found += count_differences(invocation, output, reference, missing=True, unexpected=True)
    return found, f"invocation {invocation}: {legacy_sentence(output, reference, where)}"
