"""What a graph path is, read and checked: per invocation of a thread, the supersteps that ran.

A ``GraphTrajectory``'s ``steps`` holds one list per invocation. Each entry is a node name, or a
list of node names that ran in one LangGraph superstep (their order is unknown, so it is never
compared). ``inputs`` and ``results`` are never compared; when given (non-empty) they hold one
entry per invocation. Pure: no LangGraph here.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple, NoReturn

from ...errors import GraphTrajectoryFormatError
from ..values import safe_repr

__all__ = [
    "GraphPath",
    "RawPath",
    "Superstep",
    "check_lengths",
    "checked_path",
    "flat_nodes",
    "graph_paths",
    "graph_steps",
    "node_counts",
    "plain_path",
    "plain_steps",
    "read_graph_steps",
    "steps_document",
]


class Superstep(NamedTuple):
    """One entry of an invocation's steps: the nodes it names, and whether it was written as a
    list (nodes that ran together, in no order) or as a single name."""

    nodes: tuple[str, ...]
    grouped: bool

    def text(self) -> str:
        """``node3``, or ``{node4, node5}`` for a list (sorted, since its order means nothing)."""
        if self.grouped:
            return "{" + ", ".join(sorted(self.nodes)) + "}"
        return self.nodes[0]

    def entry(self) -> str | list[str]:
        """The entry as a plain value: a name, or a list of names."""
        return list(self.nodes) if self.grouped else self.nodes[0]


GraphPath = tuple[Superstep, ...]
"""One invocation's supersteps, in order."""


def _fail(
    problem: str, side: str, invocation: int | None = None, step: int | None = None
) -> NoReturn:
    raise GraphTrajectoryFormatError(problem, side=side, invocation=invocation, step=step)


def graph_steps(value: Any, side: str) -> list[Any]:
    """The ``steps`` of a ``GraphTrajectory``, checked to be one list of nodes per invocation."""
    if not isinstance(value, Mapping) or "steps" not in value:
        _fail(
            f"{side} must be a GraphTrajectory dict with 'steps', got {safe_repr(value, 80)}", side
        )
    steps = value["steps"]
    if not isinstance(steps, list | tuple):
        _fail(f"{side}['steps'] must be a list of node-name lists", side)
    for number, invocation in enumerate(steps):
        if not isinstance(invocation, list | tuple):
            # e.g. ``"steps": ["__start__", "agent"]``: the per-invocation list was left out
            _fail(
                f"{side}['steps'][{number}] must be a list of node names (one list per "
                f"invocation), got {safe_repr(invocation, 80)}",
                side,
                number,
            )
    return list(steps)


def _bad_entry(entry: Any, side: str, invocation: int, step: int) -> NoReturn:
    where = f"{side}['steps'][{invocation}][{step}] (invocation {invocation}, step {step})"
    if not isinstance(entry, list | tuple):
        problem = "must be a node name or a list of node names that ran in one superstep"
        _fail(f"{where} {problem}, got {safe_repr(entry, 80)}", side, invocation, step)
    if not entry:
        _fail(f"{where} is an empty superstep: list its nodes", side, invocation, step)
    name = next(name for name in entry if not isinstance(name, str))
    _fail(
        f"{where} must list node names, got {safe_repr(name, 80)} in {safe_repr(list(entry), 80)}",
        side,
        invocation,
        step,
    )


def _path(entries: Sequence[Any], side: str, invocation: int) -> GraphPath:
    """One invocation's supersteps (a name's ``Superstep`` made once per name)."""
    singles: dict[str, Superstep] = {}
    path: list[Superstep] = []
    for entry in entries:
        if type(entry) is str:
            single = singles.get(entry)
            if single is None:
                single = singles[entry] = Superstep((entry,), False)
            path.append(single)
        elif (
            isinstance(entry, list | tuple)
            and entry
            and all(isinstance(name, str) for name in entry)
        ):
            path.append(Superstep(tuple(entry), True))
        elif isinstance(entry, str):  # a str subclass
            path.append(Superstep((entry,), False))
        else:
            _bad_entry(entry, side, invocation, len(path))
    return tuple(path)


def _check_lengths(value: Mapping[str, Any], count: int, side: str) -> None:
    for key, what in (("inputs", "input"), ("results", "result")):
        entries = value.get(key)
        if entries is None:
            continue
        if not isinstance(entries, list | tuple):
            _fail(
                f"{side}['{key}'] must be a list (one {what} per invocation), "
                f"got {safe_repr(entries, 80)}",
                side,
            )
        if entries and len(entries) != count:
            missing = len(entries) if len(entries) < count else count
            detail = (
                f"invocation {missing} has no {what}"
                if len(entries) < count
                else f"{what} {missing} has no steps"
            )
            _fail(
                f"{side} has {count} invocation{'' if count == 1 else 's'} in 'steps' but "
                f"{len(entries)} in '{key}' ({detail}): a GraphTrajectory holds one entry per "
                "invocation in each (an empty list means not recorded)",
                side,
                missing,
            )


def read_graph_steps(value: Any, side: str) -> tuple[GraphPath, ...]:
    """Every invocation's supersteps, or ``GraphTrajectoryFormatError`` naming the side, the
    invocation and the step."""
    steps = graph_steps(value, side)
    paths = tuple(_path(invocation, side, number) for number, invocation in enumerate(steps))
    _check_lengths(value, len(paths), side)
    return paths


class RawPath:
    """One invocation's entries as given (a name, or a list or tuple of names), already checked,
    with the indices of its lists: node offsets are then found without walking the path, so that
    a comparison can skip what both sides share at the speed of list equality."""

    __slots__ = ("_extra", "entries", "grouped")

    def __init__(self, entries: Sequence[Any], grouped: tuple[int, ...]) -> None:
        # one type on both sides, so that slices of the two compare equal when their entries do
        self.entries = entries if type(entries) is list else list(entries)
        self.grouped = grouped
        self._extra: list[int] | None = None

    @classmethod
    def of(cls, path: GraphPath) -> RawPath:
        """The entries of a path already read."""
        grouped = tuple(index for index, superstep in enumerate(path) if superstep.grouped)
        return cls([superstep.entry() for superstep in path], grouped)

    def __len__(self) -> int:
        return len(self.entries)

    def names(self, index: int) -> Sequence[str]:
        """The node names of entry ``index``."""
        entry = self.entries[index]
        return (entry,) if isinstance(entry, str) else entry

    def superstep(self, index: int) -> Superstep:
        entry = self.entries[index]
        if isinstance(entry, str):
            return Superstep((entry,), False)
        return Superstep(tuple(entry), True)

    def offset(self, index: int) -> int:
        """How many nodes the entries before ``index`` hold."""
        if not self.grouped:
            return index
        if self._extra is None:
            extra, total = [0], 0
            for at in self.grouped:
                total += len(self.entries[at]) - 1
                extra.append(total)
            self._extra = extra
        return index + self._extra[bisect_left(self.grouped, index)]

    def node_count(self) -> int:
        return self.offset(len(self.entries))

    def entry_of(self, node: int) -> int:
        """The entry holding the node at offset ``node`` (``0 <= node < node_count()``)."""
        if not self.grouped:
            return node
        low, high = 0, len(self.entries) - 1
        while low < high:  # the last entry starting at or before ``node``
            middle = (low + high + 1) // 2
            if self.offset(middle) <= node:
                low = middle
            else:
                high = middle - 1
        return low

    def nodes(self, start: int, stop: int) -> list[str]:
        """The node names at offsets ``start`` to ``stop`` (cut at the path's end)."""
        stop = min(stop, self.node_count())
        if start >= stop:
            return []
        if not self.grouped:
            return list(self.entries[start:stop])
        index = self.entry_of(start)
        skip = start - self.offset(index)
        out: list[str] = []
        while len(out) < stop - start:
            out.extend(self.names(index)[skip:])
            skip = 0
            index += 1
        return out[: stop - start]

    def flat(self) -> Sequence[str]:
        """Every node name in the order written (the entries themselves when all are names)."""
        if not self.grouped:
            return self.entries
        return [name for index in range(len(self.entries)) for name in self.names(index)]


def plain_path(entries: Sequence[Any]) -> RawPath | None:
    """``entries`` checked at the speed of C loops where it can be: every entry a ``str`` (or
    subclass), or else a list or tuple of names; ``None`` when some entry needs the full reader
    (which says what is wrong with it, or reads a ``str`` subclass standing alone)."""
    try:
        # raises TypeError unless every entry is a name; True only when some name is ""
        if not "".startswith(tuple(entries)):
            return RawPath(entries, ())
    except TypeError:
        pass
    grouped = tuple(index for index, entry in enumerate(entries) if type(entry) is not str)
    for index in grouped:
        entry = entries[index]
        if (type(entry) is not list and type(entry) is not tuple) or not entry:
            return None
        try:
            "".join(entry)
        except TypeError:
            return None
    return RawPath(entries, grouped)


def checked_path(entries: Sequence[Any], side: str, invocation: int) -> RawPath:
    """One invocation's entries checked in full, or ``GraphTrajectoryFormatError`` naming the
    step of the first malformed one."""
    path = plain_path(entries)
    return path if path is not None else RawPath.of(_path(entries, side, invocation))


def plain_steps(value: Any, side: str) -> list[RawPath] | None:
    """Every invocation's entries, checked, when each entry is a name or a list or tuple of
    names; ``None`` when ``read_graph_steps`` must read them (and say what is wrong)."""
    steps = graph_steps(value, side)
    paths = []
    for entries in steps:
        path = plain_path(entries)
        if path is None:
            return None
        paths.append(path)
    _check_lengths(value, len(paths), side)
    return paths


def graph_paths(paths: Sequence[RawPath], side: str) -> tuple[GraphPath, ...]:
    """The supersteps of entries already checked."""
    return tuple(_path(path.entries, side, number) for number, path in enumerate(paths))


def check_lengths(value: Mapping[str, Any], count: int, side: str) -> None:
    """``inputs`` and ``results``, when given, hold one entry per invocation."""
    _check_lengths(value, count, side)


def node_counts(names: Iterable[str]) -> dict[str, int]:
    """How many times each name occurs."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return counts


def flat_nodes(path: Sequence[Superstep]) -> list[str]:
    """The path's node names in the order written (a list's nodes in its own order)."""
    return [name for superstep in path for name in superstep.nodes]


def steps_document(paths: Sequence[GraphPath]) -> list[list[str | list[str]]]:
    """``steps`` as plain lists: a name per single-node entry, a nested list per superstep."""
    return [[superstep.entry() for superstep in path] for path in paths]
