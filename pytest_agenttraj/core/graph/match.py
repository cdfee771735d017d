"""Compare two graph trajectories in one mode, invocation by invocation.

Every mode compares invocation ``k`` of the output with invocation ``k`` of the reference and
needs the same number of invocations. Within an invocation (a list is a superstep whose nodes
ran in no particular order, on either side):

- ``strict``: the same nodes in the same order, superstep order ignored inside a list;
- ``unordered``: the same nodes the same number of times, in any order;
- ``superset`` (and ``in_order``, the same check): the reference's nodes all ran, in the
  reference's order; other nodes may run before, between and after them;
- ``subset``: the output ran only the reference's nodes, in the reference's order (some may be
  left out).

Each check is linear in the number of nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from ..compare import collector_paused
from .modes import check_graph_mode
from .order import order_differences, unordered_differences
from .path import (
    GraphPath,
    RawPath,
    check_lengths,
    checked_path,
    graph_paths,
    graph_steps,
    plain_path,
    plain_steps,
    read_graph_steps,
)
from .report import GraphDifference, GraphMatchReport
from .speedups import shared_names
from .strict import (
    StrictDivergence,
    common_prefix,
    explain_divergence,
    legacy_sentence,
    strict_sentence,
)

__all__ = ["compare_graph_paths", "graph_steps_match", "match_graph_trajectories"]

_Check = Callable[[int, GraphPath, GraphPath], "tuple[list[GraphDifference], str | None]"]


def _superset(invocation: int, output: GraphPath, reference: GraphPath) -> Any:
    return order_differences(invocation, output, reference, superset=True)


def _subset(invocation: int, output: GraphPath, reference: GraphPath) -> Any:
    return order_differences(invocation, output, reference, superset=False)


_CHECKS: dict[str, _Check] = {
    "unordered": unordered_differences,
    "superset": _superset,
    "in_order": _superset,
    "subset": _subset,
}


class _Paths:
    """Both sides' supersteps, read from the checked entries when first needed (a diff, or a
    mode other than strict)."""

    __slots__ = ("_read", "output", "reference")

    def __init__(
        self,
        output: Sequence[RawPath] | tuple[GraphPath, ...],
        reference: Sequence[RawPath] | tuple[GraphPath, ...],
    ) -> None:
        self.output = output
        self.reference = reference
        self._read: tuple[tuple[GraphPath, ...], tuple[GraphPath, ...]] | None = None

    def __call__(self) -> tuple[tuple[GraphPath, ...], tuple[GraphPath, ...]]:
        if self._read is None:
            self._read = (
                self._side(self.output, "outputs"),
                self._side(self.reference, "reference_outputs"),
            )
        return self._read

    @staticmethod
    def _side(paths: Sequence[RawPath] | tuple[GraphPath, ...], side: str) -> tuple[GraphPath, ...]:
        if all(isinstance(path, tuple) for path in paths):
            return paths  # type: ignore[return-value]
        return graph_paths(paths, side)  # type: ignore[arg-type]


def _compare(
    output: Sequence[RawPath],
    reference: Sequence[RawPath],
    mode: str,
    read: _Paths,
    shared: Sequence[int] = (),
) -> GraphMatchReport:
    """``shared``: how many entries each of the first invocations is known to share."""
    if len(output) != len(reference):
        count = len(reference)
        what = f"expected {count} invocation{'' if count == 1 else 's'}, got {len(output)}"
        difference = GraphDifference("invocations", what)
        return GraphMatchReport.read_later(mode, False, read, (difference,), what)
    differences: list[GraphDifference] = []
    summary = None
    if mode == "strict":  # the verdict and comment now, the explanation when a diff asks
        parted = []
        for invocation, (out, ref) in enumerate(zip(output, reference, strict=True)):
            known = shared[invocation] if invocation < len(shared) else 0
            where, sentence = strict_sentence(invocation, out, ref, known)
            if where is not None:
                parted.append((invocation, out, ref, where))
                summary = summary or sentence
        explain = partial(_explained, parted)
        return GraphMatchReport.read_later(mode, summary is None, read, explain, summary)
    check = _CHECKS[mode]
    out_paths, ref_paths = read()
    for invocation, (out_path, ref_path) in enumerate(zip(out_paths, ref_paths, strict=True)):
        found, sentence = check(invocation, out_path, ref_path)
        differences += found
        summary = summary or sentence
    return GraphMatchReport.read_later(mode, summary is None, read, tuple(differences), summary)


def _explained(parted: list[tuple[int, RawPath, RawPath, StrictDivergence]]) -> list[Any]:
    """The differences of the invocations whose paths part, in order."""
    found: list[GraphDifference] = []
    for invocation, out, ref, where in parted:
        found += explain_divergence(invocation, out, ref, where)
    return found


def compare_graph_paths(
    output: tuple[GraphPath, ...], reference: tuple[GraphPath, ...], mode: str
) -> GraphMatchReport:
    """Compare paths already read (``read_graph_steps``) in ``mode``."""
    mode = check_graph_mode(mode)
    raw_out = [RawPath.of(path) for path in output]
    raw_ref = [RawPath.of(path) for path in reference]
    return _compare(raw_out, raw_ref, mode, _Paths(output, reference))


def _read(value: Any, side: str) -> tuple[list[RawPath], tuple[GraphPath, ...] | None]:
    """One side's entries, checked: at C speed where every entry is a name or a list of names,
    else by ``read_graph_steps`` (which raises naming the invocation and step)."""
    plain = plain_steps(value, side)
    if plain is not None:
        return plain, None
    paths = read_graph_steps(value, side)
    return [RawPath.of(path) for path in paths], paths


def _equal_steps(output: list[RawPath], reference_outputs: Any) -> list[RawPath] | None:
    """The reference's entries when they equal the output's, invocation by invocation: then
    every mode matches, and the reference holds what the checked output holds (an entry equal to
    a name or to a list of names), so its entries need no check of their own."""
    steps = graph_steps(reference_outputs, "reference_outputs")
    check_lengths(reference_outputs, len(steps), "reference_outputs")
    if len(steps) != len(output):
        return None
    for out, entries in zip(output, steps, strict=True):
        if out.entries != entries:
            return None
    return [RawPath(entries, out.grouped) for out, entries in zip(output, steps, strict=True)]


def match_graph_trajectories(
    outputs: Any, reference_outputs: Any, *, mode: str = "strict"
) -> GraphMatchReport:
    """Compare two ``GraphTrajectory`` dicts in ``mode``; bad input raises
    ``GraphTrajectoryFormatError`` (a ``TrajectoryFormatError``) naming side, invocation and step.

    Example::

        >>> report = match_graph_trajectories(
        ...     {"steps": [["node1", "node3", ["node5", "node4"], "node6"]]},
        ...     {"steps": [["node1", "node3", ["node4", "node5"], "node6"]]},
        ... )
        >>> report.matched
        True
    """
    check_graph_mode(mode)
    with collector_paused():  # everything built here is acyclic: reference counting frees it
        shared = None
        if mode == "strict":
            found = _strict(outputs, reference_outputs)
            if isinstance(found, GraphMatchReport):
                return found
            shared = found
        output, out_paths = _read(outputs, "outputs")
        if shared is None:  # the cheap check first: equal steps match in every mode
            equal = _equal_steps(output, reference_outputs)
            if equal is not None:
                return GraphMatchReport.read_later(mode, True, _Paths(out_paths or output, equal))
        reference, ref_paths = _read(reference_outputs, "reference_outputs")
        read = _Paths(out_paths or output, ref_paths or reference)
        return _compare(output, reference, mode, read, shared or ())


def _names_parting(out: Sequence[Any], ref: Sequence[Any]) -> tuple[int, RawPath] | None:
    """``_parting`` in one pass of the C loop where it settles it, with the output's entries
    checked: both paths plain names up to where they part (``-1``: they are equal) and a name
    on both sides there. ``None`` where Python must look (no C loop, a superstep or a ``str``
    subclass before the parting, one path a prefix of the other)."""
    if shared_names is None or type(out) not in _PLAIN or type(ref) not in _PLAIN:
        return None
    at = shared_names(out, ref)
    if at == len(out) == len(ref):
        return -1, RawPath(out, ())
    if at < len(out) and at < len(ref) and type(out[at]) is str and type(ref[at]) is str:
        return at, RawPath(out, ())  # the sentence reads the entries up to ``at``, all names
    return None


_PLAIN = (list, tuple)


def _parting(out: list[Any], ref: list[Any]) -> tuple[int, bool]:
    """How many entries two invocations share (``-1``: all, they are equal) and whether the
    first entry where they part is a name on both sides (then the paths cannot match, whatever
    follows; else only the full walk can tell: a superstep there, or one side a prefix)."""
    if out == ref:
        return -1, True
    at = common_prefix(out, ref, 0, 0)
    names = at < len(out) and at < len(ref) and type(out[at]) is str and type(ref[at]) is str
    return at, names


def _strict(outputs: Any, reference_outputs: Any) -> GraphMatchReport | list[int] | None:
    """A strict comparison that checks the entries its verdict rests on: all of an equal
    invocation, and of one that parts the entries up to where it parts (equal on both sides)
    and the two names there. The entries after it are checked when the explanation is read,
    so a path failing at its start costs what finding that takes. ``None`` where the full
    reading must decide (a malformed entry before the parting, a different number of
    invocations); where it must walk the paths (a superstep where they part, one path a prefix
    of the other), how many entries each invocation compared so far shares, so that the walk
    starts there: then some invocation differs."""
    out_steps = graph_steps(outputs, "outputs")
    ref_steps = graph_steps(reference_outputs, "reference_outputs")
    if len(out_steps) != len(ref_steps):
        return None
    check_lengths(outputs, len(out_steps), "outputs")
    check_lengths(reference_outputs, len(ref_steps), "reference_outputs")
    output: list[RawPath] = []
    reference: list[RawPath] = []
    parted: list[tuple[int, StrictDivergence]] = []
    summary = None
    shared: list[int] = []
    for invocation, (out_steps_k, ref_steps_k) in enumerate(zip(out_steps, ref_steps, strict=True)):
        out, ref = RawPath(out_steps_k, ()), RawPath(ref_steps_k, ())
        named = _names_parting(out.entries, ref.entries)
        if named is None:
            at, names = _parting(out.entries, ref.entries)
            shared.append(len(out) if at < 0 else at)
            if not names:
                return shared
            checked = plain_path(out.entries if at < 0 else out.entries[: at + 1])
            if checked is None:
                return None
        else:
            at, checked = named
            shared.append(len(out) if at < 0 else at)
        if at < 0:
            output.append(checked)
            reference.append(RawPath(ref.entries, checked.grouped))
            continue
        if summary is None:  # the entries before ``at`` are equal: so are their offsets
            where = legacy_sentence(checked, RawPath(ref.entries, checked.grouped), _at(at))
            summary = f"invocation {invocation}: {where}"
        output.append(out)
        reference.append(ref)
        parted.append((invocation, _at(at)))
    read = _Paths(output, reference)  # reading them checks every entry
    if summary is None:
        return GraphMatchReport.read_later("strict", True, read)
    explain = partial(_checked_then_explained, output, reference, parted)
    return GraphMatchReport.read_later("strict", False, read, explain, summary)


def _at(entry: int) -> StrictDivergence:
    return StrictDivergence(entry, entry)


def _checked_then_explained(
    output: list[RawPath], reference: list[RawPath], parted: list[tuple[int, StrictDivergence]]
) -> list[Any]:
    """``_explained`` for invocations whose entries after the parting are not yet checked:
    a malformed one raises ``GraphTrajectoryFormatError`` here, naming its step."""
    return _explained(
        [
            (
                invocation,
                checked_path(output[invocation].entries, "outputs", invocation),
                checked_path(reference[invocation].entries, "reference_outputs", invocation),
                where,
            )
            for invocation, where in parted
        ]
    )


def graph_steps_match(output_steps: list[Any], reference_steps: list[Any]) -> str | None:
    """``None`` when the steps match strictly, else a sentence naming the first difference."""
    return match_graph_trajectories({"steps": output_steps}, {"steps": reference_steps}).summary
