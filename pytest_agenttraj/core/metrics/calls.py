"""The tool calls a graded metric compares, read from a trajectory (any accepted form) or from a
plain list of calls (``{"name", "args"}``, the ``function`` form, LangChain ``ToolCall`` dicts).

A call keeps its position in the flat sequence of calls and the index of the message that made
it, so explanations can point at it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple

from ...errors import TrajectoryFormatError
from ..compare import nesting_problem
from ..model import ToolCall
from ..normalize import Memo, to_trajectory
from ..normalize.chat import dict_call

__all__ = ["GradedCall", "nesting_refused", "read_calls"]

_CALL_LIST_KEYS = ("reference_tool_calls", "tool_calls")


class GradedCall(NamedTuple):
    """One tool call: its position among all calls, its message (``None`` when the calls were
    given as a list), and the call itself."""

    position: int
    message: int | None
    call: ToolCall


def read_calls(value: Any, *, side: str, memo: Memo | None = None) -> list[GradedCall]:
    """Every tool call of ``value`` in order: a list of calls, a dict holding one under
    ``tool_calls`` / ``reference_tool_calls``, or a trajectory in any accepted form.

    Raises ``TrajectoryFormatError`` naming ``side`` and where the input went wrong.
    """
    memo = {} if memo is None else memo
    listed = _call_list(value)
    if listed is not None:
        return [_one_call(item, number, side, memo) for number, item in enumerate(listed)]
    trajectory = to_trajectory(value, side=side, memo=memo)
    return [
        GradedCall(number, m_index, call)
        for number, (m_index, _, call) in enumerate(trajectory.tool_calls())
    ]


def _call_list(value: Any) -> Sequence[Any] | None:
    """``value`` as a list of calls if it is one (or a dict holding one), else ``None``."""
    if isinstance(value, Mapping) and "role" not in value and "messages" not in value:
        for key in _CALL_LIST_KEYS:
            calls = value.get(key)
            if isinstance(calls, list | tuple):
                return calls
        return None
    if isinstance(value, list | tuple) and value and all(map(_is_call, value)):
        return value
    return None


def _is_call(item: Any) -> bool:
    if isinstance(item, ToolCall):
        return True
    if not isinstance(item, Mapping) or "role" in item:
        return False
    if "function" in item:
        return True
    return "name" in item and item.get("type") in (None, "tool_call", "function")


def _one_call(item: Any, number: int, side: str, memo: Memo) -> GradedCall:
    if isinstance(item, ToolCall):
        return GradedCall(number, None, item)
    try:
        return GradedCall(number, None, dict_call(item, number, 0, memo))
    except TrajectoryFormatError as error:
        field = (error.field or "").removeprefix("tool_calls[0]").lstrip(".") or None
        raise TrajectoryFormatError(
            f"tool call {number}: {error.problem}", field=field, side=side
        ) from None


@contextmanager
def nesting_refused(
    outputs: Sequence[GradedCall], references: Sequence[GradedCall]
) -> Iterator[None]:
    """Turn a ``RecursionError`` in the block into a ``TrajectoryFormatError`` naming the call
    whose arguments nest too deep or refer to themselves (re-raised when no call is to blame)."""
    try:
        yield
    except RecursionError:
        for side, calls in (("outputs", outputs), ("reference_outputs", references)):
            _refuse_nesting(calls, side)
        raise


def _refuse_nesting(calls: Sequence[GradedCall], side: str) -> None:
    within: dict[int, int] = {}  # calls seen so far in each message
    for graded in calls:
        problem = nesting_problem(graded.call.args)
        if graded.message is not None:
            position = within[graded.message] = within.get(graded.message, -1) + 1
        if problem is None:
            continue
        text = f"arguments of tool {graded.call.name!r} {problem}"
        if graded.message is None:  # a plain list of calls
            error = TrajectoryFormatError(
                f"tool call {graded.position}: {text}", field="args", side=side
            )
        else:
            field = f"tool_calls[{position}].args"
            error = TrajectoryFormatError(text, index=graded.message, field=field, side=side)
        raise error from None  # the RecursionError's frames would bury it
