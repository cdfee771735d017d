"""Ordered containment of one path in another, for ``superset``, ``subset`` and ``in_order``.

``inner`` is contained in ``outer`` when some ordering of every list (superstep), on both sides,
makes ``inner``'s node sequence a subsequence of ``outer``'s: each of ``inner``'s entries is found
in ``outer`` after the previous one, other nodes may come between, and the nodes of one entry may
spread over several of ``outer``'s (or share one). A greedy walk decides it in linear time: each
entry takes its nodes from the earliest of ``outer``'s entries that can give them, so the entries
after it keep as much room as any other choice would leave.
"""

from __future__ import annotations

from typing import NamedTuple

from .path import GraphPath, node_counts
from .report import GraphDifference, count_differences, listing

__all__ = ["OrderGap", "order_differences", "ordered_gap", "unordered_differences"]


class OrderGap(NamedTuple):
    """Where containment fails: ``inner``'s entry whose nodes (``needed``) were not found in
    order, and the ``outer`` entry in which the previous one was found (``None``: the start)."""

    entry: int
    needed: tuple[str, ...]
    after: int | None


def _take(need: dict[str, int], rest: dict[str, int]) -> int:
    """Move every node both hold out of both; how many (cost: the smaller one's size)."""
    small, big = (need, rest) if len(need) <= len(rest) else (rest, need)
    taken = 0
    for name in [name for name in small if name in big]:
        count = min(need[name], rest[name])
        taken += count
        for side in (need, rest):
            if side[name] == count:
                del side[name]
            else:
                side[name] -= count
    return taken


def ordered_gap(inner: GraphPath, outer: GraphPath) -> OrderGap | None:
    """``None`` when ``inner`` is contained in ``outer`` in order, else where it is not."""
    o = 0
    rest: dict[str, int] = {}
    rest_left = 0
    after: int | None = None
    for index, entry in enumerate(inner):
        if len(entry.nodes) == 1 and not rest_left:  # a name, looked for among names
            name = entry.nodes[0]
            while o < len(outer) and len(outer[o].nodes) == 1 and outer[o].nodes[0] != name:
                o += 1
            if o < len(outer) and len(outer[o].nodes) == 1:
                after, o = o, o + 1
                continue
        need = node_counts(entry.nodes)
        need_left = len(entry.nodes)
        while need_left:
            if not rest_left:
                if o >= len(outer):
                    needed = tuple(name for name, n in need.items() for _ in range(n))
                    return OrderGap(index, needed, after)
                rest, rest_left = node_counts(outer[o].nodes), len(outer[o].nodes)
                o += 1
            taken = _take(need, rest)
            need_left -= taken
            rest_left -= taken
            if need_left:  # the rest of this entry comes later: what is left here is behind us
                rest, rest_left = {}, 0
        after = o - 1
    return None


def _gap_difference(
    invocation: int, gap: OrderGap, inner: GraphPath, outer: GraphPath, *, superset: bool
) -> GraphDifference:
    entry = inner[gap.entry]
    after = ""
    if gap.after is not None:
        other = "output superstep" if superset else "the reference's superstep"
        after = f" after {outer[gap.after].text()} ({other} {gap.after})"
    if superset:
        what = f"expected {entry.text()}{after}, not found"
    else:
        what = f"ran {entry.text()}, which the reference does not have{after}"
    return GraphDifference(
        "order",
        what,
        invocation,
        gap.entry,
        side="reference" if superset else "output",
        reference_at=(gap.entry,) if superset else (),
        output_at=() if superset else (gap.entry,),
    )


def order_differences(
    invocation: int, output: GraphPath, reference: GraphPath, *, superset: bool
) -> tuple[list[GraphDifference], str | None]:
    """The differences of one invocation for ``superset`` (the reference contained in the
    output) or ``subset`` (the output contained in the reference), and the comment's sentence."""
    inner, outer = (reference, output) if superset else (output, reference)
    gap = ordered_gap(inner, outer)
    if gap is None:
        return [], None
    counted = count_differences(
        invocation, output, reference, missing=superset, unexpected=not superset
    )
    found = [_gap_difference(invocation, gap, inner, outer, superset=superset), *counted]
    # when every node ran often enough, the order is what differs
    order = f"{found[0].place()}: {found[0].what} in that order"
    return found, f"invocation {invocation}: {listing(counted) if counted else order}"


def unordered_differences(
    invocation: int, output: GraphPath, reference: GraphPath
) -> tuple[list[GraphDifference], str | None]:
    """The nodes that ran too few or too many times in one invocation, and the sentence."""
    found = count_differences(invocation, output, reference, missing=True, unexpected=True)
    if not found:
        return [], None
    return found, f"invocation {invocation}: {listing(found)}"
