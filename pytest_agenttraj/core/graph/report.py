"""What a graph comparison found: whether the paths match and, if not, each difference with the
invocation and superstep it is at, ready for a one-line comment or a diff."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, cast

from .path import GraphPath, Superstep

__all__ = [
    "DifferenceKind",
    "GraphDifference",
    "GraphMatchReport",
    "count_differences",
    "listing",
    "then",
    "times",
]

DifferenceKind = Literal["invocations", "superstep", "order", "missing", "unexpected"]
"""``invocations``: their number differs; ``superstep``: the paths part at a superstep (strict);
``order``: a superstep was not found in order (subset, superset, in_order); ``missing`` /
``unexpected``: a node ran fewer / more times than the reference says."""


@dataclass(frozen=True, slots=True)
class GraphDifference:
    """One difference. ``superstep`` counts the reference's supersteps, or the output's when
    ``side`` is ``"output"`` (a subset check names the output superstep the reference lacks);
    ``output_at`` / ``reference_at`` are the supersteps a diff marks."""

    kind: DifferenceKind
    what: str
    invocation: int | None = None
    superstep: int | None = None
    side: Literal["reference", "output"] = "reference"
    node: str | None = None
    output_at: tuple[int, ...] = ()
    reference_at: tuple[int, ...] = ()

    def place(self) -> str:
        """``superstep 3`` / ``output superstep 2``, or ``""`` for an invocation-wide difference."""
        if self.superstep is None:
            return ""
        return f"{'output ' if self.side == 'output' else ''}superstep {self.superstep}"

    def line(self) -> str:
        """The difference as a diff shows it:
        ``invocation 0, superstep 3: expected {node4, node5}, got {node4}``."""
        if self.invocation is None:
            return self.what
        place = self.place()
        return f"invocation {self.invocation}{', ' + place if place else ''}: {self.what}"


@dataclass(frozen=True)
class GraphMatchReport:
    """The outcome of comparing two graph trajectories in one mode.

    ``output`` and ``reference`` hold each side's supersteps per invocation; ``summary`` is the
    comment's sentence (``None`` on a match).
    """

    kind: ClassVar[str] = "graph"

    mode: str
    matched: bool
    output: tuple[GraphPath, ...]
    reference: tuple[GraphPath, ...]
    differences: tuple[GraphDifference, ...] = ()
    summary: str | None = None

    @classmethod
    def read_later(
        cls,
        mode: str,
        matched: bool,
        read: Callable[[], tuple[tuple[GraphPath, ...], tuple[GraphPath, ...]]],
        differences: tuple[GraphDifference, ...] | Callable[[], list[GraphDifference]] = (),
        summary: str | None = None,
    ) -> GraphMatchReport:
        """A report whose ``output`` and ``reference`` are read (by ``read``) when first asked
        for, and whose ``differences``, given as a function, are found when first asked for: a
        verdict and its comment need neither, only a diff does."""
        report = object.__new__(_ReadLater)
        report.__dict__.update(
            mode=mode, matched=matched, differences=differences, summary=summary, _read=read
        )
        return report

    @property
    def tool_args(self) -> None:
        """Graph paths compare no tool arguments (result records show only the mode)."""
        return None

    @property
    def passed(self) -> bool:
        return self.matched

    def problem_texts(self) -> list[str]:
        return [difference.line() for difference in self.differences]

    def settings(self) -> dict[str, Any]:
        return {"mode": self.mode}

    def comment(self) -> str | None:
        """``None`` on a match, else one sentence naming the first difference."""
        if self.matched:
            return None
        return f"Graph trajectory differs: {self.summary}."


class _ReadLater(GraphMatchReport):
    """``GraphMatchReport.read_later``'s reports: the paths and differences are built on first
    use."""

    @property  # the field, found when first read
    def differences(self) -> tuple[GraphDifference, ...]:
        found = self.__dict__["differences"]
        if callable(found):
            found = self.__dict__["differences"] = tuple(found())
        return cast("tuple[GraphDifference, ...]", found)

    def __getattr__(self, name: str) -> Any:
        read = self.__dict__.get("_read")
        if read is None or name not in ("output", "reference"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        self.__dict__["output"], self.__dict__["reference"] = read()
        del self.__dict__["_read"]
        return self.__dict__[name]


def then(supersteps: Sequence[Superstep]) -> str:
    """Supersteps as a sequence: ``node4 then {node5, node6}``, or ``nothing``."""
    return " then ".join(s.text() for s in supersteps) if supersteps else "nothing"


def listing(differences: Sequence[GraphDifference], most: int = 4) -> str:
    """The first differences' texts for a comment: ``missing node a, missing node b and 3 more``."""
    texts = ", ".join(d.what for d in differences[:most])
    return texts + (f" and {len(differences) - most} more" if len(differences) > most else "")


def times(count: int) -> str:
    """``1 time`` / ``3 times``."""
    return f"{count} time{'' if count == 1 else 's'}"


def _positions(path: GraphPath) -> dict[str, list[int]]:
    """Where each node runs: its superstep indices."""
    at: dict[str, list[int]] = {}
    for index, superstep in enumerate(path):
        for name in dict.fromkeys(superstep.nodes):
            at.setdefault(name, []).append(index)
    return at


def count_differences(
    invocation: int, output: GraphPath, reference: GraphPath, *, missing: bool, unexpected: bool
) -> list[GraphDifference]:
    """A ``missing`` / ``unexpected`` difference per node that ran fewer / more times than in the
    reference, in the order the reference (then the output) first names them."""
    ran = Counter(name for s in output for name in s.nodes)
    wanted = Counter(name for s in reference for name in s.nodes)
    found: list[GraphDifference] = []
    if missing:
        at: dict[str, list[int]] | None = None
        for name, count in wanted.items():
            if ran[name] < count:
                what = f"missing node {name}"
                if ran[name] or count > 1:
                    what += f" (ran {times(ran[name])}, expected {count})"
                at = at if at is not None else _positions(reference)
                found.append(
                    GraphDifference(
                        "missing", what, invocation, node=name, reference_at=tuple(at[name])
                    )
                )
    if unexpected:
        at = None
        for name, count in ran.items():
            if count > wanted[name]:
                what = f"unexpected node {name}"
                if wanted[name] or count > 1:
                    what += f" (ran {times(count)}, expected {wanted[name]})"
                at = at if at is not None else _positions(output)
                found.append(
                    GraphDifference(
                        "unexpected", what, invocation, node=name, output_at=tuple(at[name])
                    )
                )
    return found
