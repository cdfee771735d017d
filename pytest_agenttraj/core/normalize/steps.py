"""Turn the steps of a traced run (model calls, tool executions, graph nodes) into a trajectory.

Both trace readers (:mod:`.spans` for OpenTelemetry, :mod:`.run_trees` for LangSmith) reduce
their input to the same ordered steps, so that the rules below are written once:

- the first model call's input messages open the trajectory; a later call adds only the messages
  it was given that the trajectory does not hold yet (a new user turn, tool results no tool step
  reported);
- each model call's first output message becomes an assistant message;
- tool steps after a model call (before the next one) belong to its assistant message: a call the
  model already named (same id, or same name in order) is not added twice, any other is added to
  it, so parallel calls share one message; each tool step gives a tool message after it;
- tool steps with no model call before them get an assistant message of their own.

Messages are OpenAI chat dicts, which every matcher, rule, metric and judge reads. What a budget
rule needs rides along: ``duration`` (seconds, float) on assistant and tool messages that came
from a timed step, and ``status`` (``"success"`` or ``"error"``, as LangChain's ``ToolMessage``
has it) on tool messages; a failed tool's message holds the error text as its content.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model import GraphTrajectory

__all__ = ["ModelStep", "NodeStep", "ToolStep", "TraceTrajectory", "assemble"]


@dataclass(frozen=True, slots=True)
class ModelStep:
    """One model call: the messages it was given and the ones it returned (OpenAI chat dicts)."""

    inputs: tuple[dict[str, Any], ...]
    outputs: tuple[dict[str, Any], ...]
    duration: float | None = None


@dataclass(frozen=True, slots=True)
class ToolStep:
    """One tool execution; ``error`` is the failure's text, ``None`` when it succeeded."""

    name: str
    args: Any = None
    id: str | None = None
    result: Any = None
    error: str | None = None
    duration: float | None = None


@dataclass(frozen=True, slots=True)
class NodeStep:
    """A graph node or agent started: ``invocation`` is its root's position, ``superstep`` the
    step number a framework reported (nodes sharing one ran together)."""

    name: str
    invocation: int
    superstep: int | None = None
    group: int | None = None


Step = ModelStep | ToolStep | NodeStep


class TraceTrajectory(dict[str, Any]):
    """What a trace reader returns: ``{"messages": [...], "graph": GraphTrajectory | None}``,
    with ``"duration_s"`` (the run's wall time: the trace's first start to its last end) when
    the trace is timed.

    A dict with a ``messages`` list is a trajectory to every matcher and judge; ``graph`` is set
    when the trace named graph nodes or agents, for ``assert_graph_trajectory``.
    """

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The chat messages, in the order they happened."""
        messages: list[dict[str, Any]] = self["messages"]
        return messages

    @property
    def graph(self) -> GraphTrajectory | None:
        """The nodes (or agents) the run went through, ``None`` when the trace named none."""
        graph: GraphTrajectory | None = self["graph"]
        return graph


@dataclass
class _Builder:
    messages: list[dict[str, Any]] = field(default_factory=list)
    open_calls: list[dict[str, Any]] | None = None  # tool_calls of the last assistant message
    claimed: set[int] = field(default_factory=set)  # positions in open_calls a tool step took
    results: set[str] = field(default_factory=set)  # tool_call_ids that have a tool message
    unnamed: int = 0  # tool messages without a call id since the last model call

    def model(self, step: ModelStep) -> None:
        self._inputs(step.inputs)
        self.unnamed = 0
        self.open_calls = None
        self.claimed = set()
        if not step.outputs:
            return
        message = dict(step.outputs[0])
        message["role"] = "assistant"
        message.setdefault("content", "")
        if step.duration is not None:
            message["duration"] = step.duration
        if message.get("tool_calls"):
            message["tool_calls"] = [dict(call) for call in message["tool_calls"]]
        self.messages.append(message)
        self.open_calls = message.setdefault("tool_calls", [])
        if not self.open_calls:
            del message["tool_calls"]

    def _inputs(self, inputs: Sequence[dict[str, Any]]) -> None:
        if not self.messages:
            self.messages.extend(dict(m) for m in inputs)
            self.results.update(_result_ids(self.messages))
            return
        last_assistant = max(
            (i for i, m in enumerate(inputs) if m.get("role") == "assistant"), default=-1
        )
        seen = {_key(m) for m in self.messages}
        for message in inputs[last_assistant + 1 :]:
            if message.get("role") == "system":
                continue
            call_id = message.get("tool_call_id")
            if message.get("role") == "tool" and call_id in self.results:
                continue
            if message.get("role") == "tool" and call_id is None and self.unnamed:
                self.unnamed -= 1
                continue
            if message.get("role") != "tool" and _key(message) in seen:
                continue
            self.messages.append(dict(message))
            if call_id is not None:
                self.results.add(call_id)

    def tool(self, step: ToolStep) -> None:
        if self.open_calls is None:
            self.claimed = set()
            self.messages.append({"role": "assistant", "content": "", "tool_calls": []})
            self.open_calls = self.messages[-1]["tool_calls"]
        position = self._claim(step)
        if position is None:
            call = {"id": step.id, "type": "function", "function": _function(step)}
            if step.id is None:
                del call["id"]
            self.open_calls.append(call)
            position = len(self.open_calls) - 1
            self.claimed.add(position)
            owner = self._owner()
            if "tool_calls" not in owner:
                owner["tool_calls"] = self.open_calls
        call_id = self.open_calls[position].get("id") or step.id
        message: dict[str, Any] = {"role": "tool", "content": _text(step), "name": step.name}
        if call_id is not None:
            message["tool_call_id"] = call_id
            self.results.add(call_id)
        else:
            self.unnamed += 1
        message["status"] = "error" if step.error is not None else "success"
        if step.duration is not None:
            message["duration"] = step.duration
        self.messages.append(message)

    def _owner(self) -> dict[str, Any]:
        for message in reversed(self.messages):
            if message.get("role") == "assistant":
                owner: dict[str, Any] = message
                return owner
        raise AssertionError("a tool step always has an assistant message before it")

    def _claim(self, step: ToolStep) -> int | None:
        """The position of the model's call this tool step executed, ``None`` if it named none."""
        assert self.open_calls is not None
        free = [i for i in range(len(self.open_calls)) if i not in self.claimed]
        if step.id is not None:
            matches = [i for i in free if self.open_calls[i].get("id") == step.id]
        else:
            matches = [i for i in free if _call_name(self.open_calls[i]) == step.name]
        if not matches:
            return None
        self.claimed.add(matches[0])
        return matches[0]


def assemble(steps: Sequence[Step], *, duration_s: float | None = None) -> TraceTrajectory:
    """The trajectory (and graph path) the steps, in causal order, stand for; ``duration_s``
    is the traced run's wall time, when the trace has one (budgets read it)."""
    builder = _Builder()
    nodes: list[NodeStep] = []
    for step in steps:
        if isinstance(step, ModelStep):
            builder.model(step)
        elif isinstance(step, ToolStep):
            builder.tool(step)
        else:
            nodes.append(step)
    messages = builder.messages
    out = TraceTrajectory(messages=messages, graph=_graph(nodes, messages) if nodes else None)
    if duration_s is not None:
        out["duration_s"] = duration_s
    return out


def _graph(nodes: Sequence[NodeStep], messages: Sequence[dict[str, Any]]) -> GraphTrajectory:
    """Per invocation, the node names in order; nodes of one superstep share one entry."""
    invocations: dict[int, list[Any]] = {}
    last_keys: dict[int, int | None] = {}
    for node in nodes:
        entries = invocations.setdefault(node.invocation, [])
        key = node.superstep if node.superstep is not None else node.group
        if key is not None and entries and last_keys.get(node.invocation) == key:
            last = entries[-1]
            entries[-1] = [*last, node.name] if isinstance(last, list) else [last, node.name]
        else:
            entries.append(node.name)
        last_keys[node.invocation] = key
    steps = [invocations[i] for i in sorted(invocations)]
    final = next((m for m in reversed(messages) if m.get("role") == "assistant"), None)
    first = next((m for m in messages if m.get("role") == "user"), None)
    return GraphTrajectory(
        inputs=[first.get("content") if first else None],
        results=[final.get("content") if final else None],
        steps=steps,
    )


def _result_ids(messages: Sequence[Mapping[str, Any]]) -> set[str]:
    return {
        m["tool_call_id"] for m in messages if m.get("role") == "tool" and m.get("tool_call_id")
    }


def _key(message: Mapping[str, Any]) -> tuple[Any, str]:
    content = message.get("content")
    text = content if isinstance(content, str) else json.dumps(content, sort_keys=True, default=str)
    return message.get("role"), text


def _call_name(call: Mapping[str, Any]) -> Any:
    function = call.get("function")
    return function.get("name") if isinstance(function, Mapping) else call.get("name")


def _function(step: ToolStep) -> dict[str, Any]:
    args = step.args
    if args is None:
        args = {}
    return {"name": step.name, "arguments": args if isinstance(args, str) else json.dumps(args)}


def _text(step: ToolStep) -> str:
    if step.error is not None:
        return step.error
    if step.result is None:
        return ""
    if isinstance(step.result, str):
        return step.result
    return json.dumps(step.result, default=str)
