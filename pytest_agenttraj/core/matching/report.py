"""What a comparison found: the verdict, which calls paired, and each problem with its location.

Pairs (and, for verdicts reached without building them, the two trajectories) are built when
first read: most evaluations only need the verdict.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar, Literal, NamedTuple, Protocol

from ..model import Message, ToolCall, Trajectory
from ..values import ArgDiff
from .rules import MatchConfig

__all__ = [
    "CallProblem",
    "CallRef",
    "FlatPairs",
    "GivenSides",
    "MatchReport",
    "PairParts",
    "Pairs",
    "Place",
    "PlacedCalls",
    "Problem",
    "ProblemKind",
    "Sides",
    "call_refs",
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
    "out_of_order",
    "empty_reference",
    "empty_output",
]


class CallRef(NamedTuple):
    """A tool call and where it stands: its message index and its index inside that message."""

    message: int
    position: int
    call: ToolCall


@dataclass(slots=True)  # not frozen: a long failing comparison builds one per unpaired call
class CallProblem:
    """A call left unpaired, with the closest candidate on the other side and what differs.

    ``closest_paired`` says the candidate already pairs with another call (so it was not free);
    ``reason`` is what a callable override said when it refused the candidate.
    """

    side: Literal["output", "reference"]
    call: CallRef
    closest: CallRef | None
    diffs: tuple[ArgDiff, ...]
    rule: str
    closest_paired: bool = False
    explained: bool = True
    """False past the first problems of a comparison: ``closest`` is the first candidate, and
    ``diffs`` were not computed."""
    reason: str | None = None
    """What a callable override said when it refused the closest call."""


@dataclass(slots=True)  # not frozen, as CallProblem
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


Place = tuple[int, int]
"""Where a call stands: its message's index and its index among that message's calls."""


class PlacedCalls:
    """Sides that answer what a diff reads of a long comparison (where each call stands, which
    paired, one call, the first messages) without building their trajectories; a report whose
    sides are not these reads the trajectories (see ``MatchReport.call_places``). Each ``side``
    is 0 for the output, 1 for the reference."""

    __slots__ = ()

    def call_places(self, side: int) -> Sequence[Place]:
        raise NotImplementedError

    def pair_places(self) -> Sequence[tuple[Place, Place]]:
        raise NotImplementedError

    def call_at(self, side: int, place: Place) -> CallRef:
        raise NotImplementedError

    def head(self, side: int, limit: int) -> tuple[Sequence[Message], int]:
        raise NotImplementedError


_new = tuple.__new__  # builds a CallRef without its Python-level __new__ (hot loops only)


def call_refs(trajectory: Trajectory) -> list[CallRef]:
    """Every call of ``trajectory`` with where it stands, in order."""
    return [
        _new(CallRef, (m, p, call))
        for m, message in enumerate(trajectory.messages)
        if message.tool_calls
        for p, call in enumerate(message.tool_calls)
    ]


class PairParts:
    """Paired calls in output order, kept in parts until read: each part is a list of pairs, or
    a row ``(output index, reference index, order)`` of two messages whose calls pair as
    ``order`` says (``order[i]`` is the reference position of output call ``i``)."""

    __slots__ = ("parts", "sides")

    def __init__(self, sides: Sides, parts: list[Pairs | tuple[int, int, tuple[int, ...]]]) -> None:
        self.sides = sides
        self.parts = parts

    def __iter__(self) -> Iterator[tuple[CallRef, CallRef]]:
        output, reference = self.sides.output, self.sides.reference
        for part in self.parts:
            if isinstance(part, list):
                yield from part
                continue
            o_index, r_index, order = part
            out_calls, ref_calls = output[o_index].tool_calls, reference[r_index].tool_calls
            for i, j in enumerate(order):
                yield CallRef(o_index, i, out_calls[i]), CallRef(r_index, j, ref_calls[j])


class FlatPairs:
    """Paired calls in output order, from ``partner`` (the reference call index of each output
    call, in the order of ``call_refs``; -1 for none), built when read."""

    __slots__ = ("partner", "sides")

    def __init__(self, sides: Sides, partner: list[int]) -> None:
        self.sides = sides
        self.partner = partner

    def __iter__(self) -> Iterator[tuple[CallRef, CallRef]]:
        references = call_refs(self.sides.reference)
        for out, j in zip(call_refs(self.sides.output), self.partner, strict=True):
            if j != -1:
                yield out, references[j]


@dataclass(frozen=True)
class MatchReport:
    """Everything a diff needs: the verdict, what paired, and each problem with its location.

    ``alignment`` lists message rows (output index, reference index; ``None`` on the side that has
    no message there) for a side-by-side view: the strict comparison's rows, else message positions.
    ``pairs`` lists the paired calls in output order.
    """

    kind: ClassVar[str] = "trajectory"

    config: MatchConfig
    sides: Sides = field(repr=False, compare=False)
    matched: bool
    problems: tuple[Problem, ...] = ()
    call_pairs: Iterable[tuple[CallRef, CallRef]] = field(default=(), repr=False, compare=False)
    rows: tuple[tuple[int | None, int | None], ...] | None = None

    @classmethod
    def passing(
        cls, config: MatchConfig, sides: Sides, call_pairs: Iterable[tuple[CallRef, CallRef]]
    ) -> MatchReport:
        """The report of a match (no problems, no strict rows), built without the dataclass's
        field-by-field initialisation: the fast path makes one per passing evaluation."""
        report = object.__new__(cls)
        report.__dict__.update(
            config=config,
            sides=sides,
            matched=True,
            problems=(),
            call_pairs=call_pairs,
            rows=None,
        )
        return report

    @cached_property
    def output(self) -> Trajectory:
        return self.sides.output

    @cached_property
    def reference(self) -> Trajectory:
        return self.sides.reference

    @cached_property
    def pairs(self) -> tuple[tuple[CallRef, CallRef], ...]:
        return tuple(self.call_pairs)

    def _side(self, side: int) -> Trajectory:
        return self.output if side == 0 else self.reference

    def call_places(self, side: int) -> Iterable[Place]:
        """Where each call of the output (0) or the reference (1) stands, in order."""
        if isinstance(self.sides, PlacedCalls):
            return self.sides.call_places(side)
        return ((c.message, c.position) for c in call_refs(self._side(side)))

    def pair_places(self) -> Iterable[tuple[Place, Place]]:
        """Where the calls of each pair stand, in output order."""
        if isinstance(self.sides, PlacedCalls):
            return self.sides.pair_places()
        return (((o.message, o.position), (r.message, r.position)) for o, r in self.pairs)

    def call_at(self, side: int, place: Place) -> CallRef:
        """The call of the output (0) or the reference (1) standing at ``place``."""
        if isinstance(self.sides, PlacedCalls):
            return self.sides.call_at(side, place)
        message, position = place
        return CallRef(message, position, self._side(side)[message].tool_calls[position])

    def head(self, side: int, limit: int) -> tuple[Sequence[Message], int]:
        """The first ``limit`` messages of the output (0) or the reference (1), and how many
        there are."""
        if isinstance(self.sides, PlacedCalls):
            return self.sides.head(side, limit)
        messages = self._side(side).messages
        return messages[:limit], len(messages)

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

    @property
    def passed(self) -> bool:
        return self.matched

    def problem_texts(self) -> list[str]:
        return [problem.text for problem in self.problems]

    def settings(self) -> dict[str, Any]:
        """The mode, the argument rules and the value matchers in the reference's calls."""
        from ..judged import config_settings, matcher_texts

        out = {"mode": self.mode, **config_settings(self.config)}
        if not getattr(self.sides, "reference_matchers", True):
            return out  # the fast path saw every reference call: none holds a matcher
        matchers = matcher_texts(call for _, _, call in self.reference.tool_calls())
        if matchers:
            out["matchers"] = matchers
        return out

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
