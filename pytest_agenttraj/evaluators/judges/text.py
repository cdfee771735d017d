"""Trajectories and graph threads as text a judge reads easily: one numbered line per message
with its role, tool calls with their arguments as JSON, tool results named by the tool that
produced them. Every input form the package accepts is read through ``to_trajectory``. The graph
code loads with the first thread formatted: a trajectory judge does not need it."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...core.model import Message, ToolCall, Trajectory
from ...core.normalize import to_trajectory
from ...core.values import safe_repr
from ...errors import TrajectoryFormatError

if TYPE_CHECKING:
    from ...core.graph import GraphPath

__all__ = ["format_thread", "format_trajectory", "format_value", "thread_rows"]


def _text(value: Any) -> str:
    """What JSON shows for a value it cannot encode: its ``str``, or a stand-in if that fails."""
    try:
        return str(value)
    except Exception:  # any failure of the caller's __str__ / __repr__
        return safe_repr(value)


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=_text)
    except (TypeError, ValueError, RecursionError):  # a cycle, too deep, unencodable keys
        return safe_repr(value)


def _call(call: ToolCall) -> str:
    return f"{call.name}({_json(dict(call.args))})"


def _indented(text: str) -> str:
    return text.replace("\n", "\n   ")


def _line(number: int, message: Message, tool_names: Mapping[str, str]) -> str:
    text = message.text.strip()
    if message.role == "tool":
        name = message.name or tool_names.get(message.tool_call_id or "", "")
        label = f"tool result ({name})" if name else "tool result"
        return f"{number}. {label}: {_indented(text)}"
    head = f"{number}. {message.role}"
    if not message.tool_calls:
        return f"{head}: {_indented(text)}"
    calls = "; ".join(_call(c) for c in message.tool_calls)
    if text:
        return f"{head}: {_indented(text)}\n   calls {calls}"
    return f"{head} calls {calls}"


def format_trajectory(value: Any, *, side: str = "outputs") -> str:
    """``value`` (any accepted trajectory form) as numbered lines, one per message."""
    trajectory = value if isinstance(value, Trajectory) else to_trajectory(value, side=side)
    tool_names: dict[str, str] = {}
    lines = []
    for number, message in enumerate(trajectory, 1):
        for call in message.tool_calls:
            if call.id:
                tool_names[call.id] = call.name
        lines.append(_line(number, message, tool_names))
    return "\n".join(lines) if lines else "(no messages)"


def format_value(value: Any) -> str:
    """An input or outcome as text: a string as it is, a trajectory as lines, else JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple | Mapping):
        try:
            return format_trajectory(value, side="inputs")
        except TrajectoryFormatError:
            pass  # not a trajectory: plain data
    return _json(value)


def _nodes(path: GraphPath) -> str:
    parts = ["(" + " + ".join(step.nodes) + ")" if step.grouped else step.nodes[0] for step in path]
    return ", ".join(parts) if parts else "(none)"


Invocation = tuple[Any, Any, tuple[Any, ...]]
"""One invocation of a thread: its input (``None`` when none), its nodes, and its result as a
1-tuple (``()`` when the trajectory has no results)."""


def thread_rows(graph: Any, inputs: Any = None, *, side: str = "outputs") -> list[Invocation]:
    """A ``GraphTrajectory``'s invocations, checked: ``inputs`` (a list, or a dict with
    ``inputs``) overrides the trajectory's own ``inputs`` and must hold one entry per
    invocation."""
    from ...core.graph import read_graph_steps

    steps = read_graph_steps(graph, side)
    results = graph.get("results") or []
    if isinstance(inputs, Mapping):
        if "inputs" not in inputs:
            raise TrajectoryFormatError(
                "must be a list (one per invocation) or a dict with 'inputs'", side="inputs"
            )
        inputs = inputs["inputs"]
    if inputs is None:
        inputs = graph.get("inputs") or None  # checked with the steps; empty: not recorded
    else:
        _check_inputs(side, steps, inputs)
    return [
        (inputs[n] if inputs else None, nodes, (results[n],) if n < len(results) else ())
        for n, nodes in enumerate(steps)
    ]


def format_thread(graph: Any, inputs: Any = None, *, side: str = "outputs") -> str:
    """A ``GraphTrajectory`` as text: per invocation its input, the nodes it ran, its result
    (``inputs`` as in ``thread_rows``)."""
    blocks = []
    for number, (given, nodes, result) in enumerate(thread_rows(graph, inputs, side=side), 1):
        lines = [f"invocation {number}:"]
        if given is not None:
            lines.append(f"  input: {_indented(format_value(given))}")
        lines.append(f"  nodes: {_nodes(nodes)}")
        if result:
            lines.append(f"  result: {_indented(format_value(result[0]))}")
        blocks.append("\n".join(lines))
    return "\n".join(blocks) if blocks else "(no invocations)"


def _check_inputs(side: str, steps: Sequence[GraphPath], inputs: Any) -> None:
    if not isinstance(inputs, list | tuple) or len(inputs) != len(steps):
        count = len(inputs) if isinstance(inputs, list | tuple) else type(inputs).__name__
        raise TrajectoryFormatError(
            f"must hold one entry per invocation: {side} has {len(steps)}, got {count}",
            side="inputs",
        )
