"""Read LangSmith run trees (``RunTree``, ``Run`` or their dicts) into trace steps.

Read by attribute (or key), so this module imports no langsmith: ``run_type``, ``name``,
``inputs``, ``outputs``, ``error``, ``start_time``, ``end_time``, ``child_runs``, ``id``,
``parent_run_id`` and ``extra["metadata"]``. What each run is:

- ``llm``: a model call. Its input messages are ``inputs["messages"]`` (OpenAI chat dicts as
  ``wrap_openai`` records them, LangChain's serialised messages, a list of lists as LangChain
  callbacks record them, or message objects as ``@traceable`` sees them); its output is the first
  of ``outputs["choices"][0]["message"]``, ``outputs["generations"][0][0]["message"]``, a message
  under ``outputs["output"]`` / ``outputs["message"]``, or the outputs themselves when they have
  a ``role``;
- ``tool``: a tool execution named by the run; its arguments are its inputs (``{"input": ...}``
  when that is all there is), its result ``outputs["output"]`` (a serialised ``ToolMessage``
  gives its call id and status); ``error`` makes it a failed call;
- any run whose metadata has ``langgraph_node`` its parent's has not: a graph node
  (``langgraph_step`` is its superstep);
- anything else (chains, retrievers, parsers) is walked through but adds nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from ...errors import TrajectoryFormatError
from ..model import Message
from . import langchain
from .steps import ModelStep, NodeStep, Step, ToolStep, TraceTrajectory, assemble

__all__ = ["run_steps", "trajectory_from_run_tree"]

_LC_ROLES = {
    "HumanMessage": "user",
    "AIMessage": "assistant",
    "AIMessageChunk": "assistant",
    "SystemMessage": "system",
    "ToolMessage": "tool",
    "human": "user",
    "ai": "assistant",
    "system": "system",
    "tool": "tool",
}


def trajectory_from_run_tree(run: Any) -> TraceTrajectory:
    """The trajectory (and graph path) a run tree stands for; see the module docstring."""
    return assemble(run_steps(run), duration_s=_duration(run))


def run_steps(run: Any) -> list[Step]:
    """The steps of a run tree (or a list of root runs), in causal order."""
    roots = list(run) if isinstance(run, list | tuple) else [run]
    steps: list[Step] = []
    for invocation, root in enumerate(roots):
        _visit(root, None, invocation, "run", steps)
    return steps


def _get(run: Any, field: str, default: Any = None) -> Any:
    if isinstance(run, Mapping):
        return run.get(field, default)
    return getattr(run, field, default)


def _visit(
    run: Any, parent_node: str | None, invocation: int, where: str, steps: list[Step]
) -> None:
    if not isinstance(run, Mapping) and not hasattr(run, "run_type"):
        raise TrajectoryFormatError(
            f"{where}: expected a langsmith RunTree, Run or run dict, got {type(run).__name__}"
        )
    name = _get(run, "name")
    label = f"{where} {name!r} ({_get(run, 'run_type')})"
    metadata = _metadata(run)
    node = metadata.get("langgraph_node")
    node = None if node is None else str(node)
    if node is not None and node != parent_node:
        step = metadata.get("langgraph_step")
        steps.append(NodeStep(node, invocation, step if isinstance(step, int) else None))
    run_type = _get(run, "run_type")
    if run_type == "llm":
        steps.append(_model(run, label))
    elif run_type == "tool":
        steps.append(_tool(run, label))
    children = list(_get(run, "child_runs") or ())
    children.sort(key=_start_key)
    for index, child in enumerate(children):
        _visit(
            child,
            node if node is not None else parent_node,
            invocation,
            f"{label} child {index}",
            steps,
        )


def _metadata(run: Any) -> Mapping[str, Any]:
    extra = _get(run, "extra") or {}
    metadata = extra.get("metadata") if isinstance(extra, Mapping) else None
    return metadata if isinstance(metadata, Mapping) else {}


def _start_key(run: Any) -> float:
    start = _get(run, "start_time")
    return _seconds(start) or 0.0


def _seconds(value: Any) -> float | None:
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def _duration(run: Any) -> float | None:
    start, end = _seconds(_get(run, "start_time")), _seconds(_get(run, "end_time"))
    return None if start is None or end is None else end - start


def _model(run: Any, label: str) -> ModelStep:
    inputs = _get(run, "inputs") or {}
    outputs = _get(run, "outputs") or {}
    raw = inputs.get("messages") if isinstance(inputs, Mapping) else None
    if raw is None and isinstance(inputs, Mapping) and "prompts" in inputs:
        raw = [{"role": "user", "content": p} for p in inputs["prompts"] if isinstance(p, str)]
    if isinstance(raw, list | tuple) and len(raw) == 1 and isinstance(raw[0], list | tuple):
        raw = raw[0]  # LangChain callbacks record a batch of one
    messages = _messages(raw or [], f"{label}, inputs['messages']")
    output = _output(outputs) if isinstance(outputs, Mapping) else None
    out = _messages([output], f"{label}, outputs") if output is not None else []
    return ModelStep(tuple(messages), tuple(out), _duration(run))


def _output(outputs: Mapping[str, Any]) -> Any:
    choices = outputs.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
        return choices[0].get("message")
    generations = outputs.get("generations")
    if isinstance(generations, list) and generations:
        first = generations[0]
        first = first[0] if isinstance(first, list) and first else first
        if isinstance(first, Mapping):
            return first.get("message") or {"role": "assistant", "content": first.get("text", "")}
    for key in ("output", "message"):
        value = outputs.get(key)
        if isinstance(value, Mapping) or langchain.is_message(value):
            return value
    if "role" in outputs or "content" in outputs:
        return {"role": "assistant", **outputs}
    return None


def _messages(items: Sequence[Any], where: str) -> list[dict[str, Any]]:
    if not isinstance(items, list | tuple):
        raise TrajectoryFormatError(
            f"{where}: expected a list of messages, got {type(items).__name__}"
        )
    from . import to_trajectory  # the package's one reader of message forms

    plain = [_plain(item) for item in items]
    try:
        trajectory = to_trajectory(plain)
    except TrajectoryFormatError as error:
        raise TrajectoryFormatError(f"{where}: {error}") from None
    return [_as_dict(m) for m in trajectory]


def _plain(item: Any) -> Any:
    """A LangChain message serialised by ``dumpd`` as the chat dict it stands for."""
    if not isinstance(item, Mapping) or item.get("lc") != 1 or "kwargs" not in item:
        return item
    kwargs = item["kwargs"]
    ident = item.get("id") or []
    kind = ident[-1] if ident else kwargs.get("type")
    out: dict[str, Any] = {
        "role": _LC_ROLES.get(kind, _LC_ROLES.get(kwargs.get("type"), kind)),
        "content": kwargs.get("content", ""),
    }
    calls = kwargs.get("tool_calls")
    if calls:
        out["tool_calls"] = [
            {
                "id": c.get("id"),
                "type": "function",
                "function": {"name": c.get("name"), "arguments": c.get("args") or {}},
            }
            for c in calls
            if isinstance(c, Mapping)
        ]
    for key in ("tool_call_id", "name", "status"):
        if kwargs.get(key) is not None:
            out[key] = kwargs[key]
    return out


def _as_dict(message: Message) -> dict[str, Any]:
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = [
            {
                **({"id": c.id} if c.id is not None else {}),
                "type": "function",
                "function": {"name": c.name, "arguments": dict(c.args)},
            }
            for c in message.tool_calls
        ]
    if message.tool_call_id is not None:
        out["tool_call_id"] = message.tool_call_id
    if message.name is not None:
        out["name"] = message.name
    return out


def _tool(run: Any, label: str) -> ToolStep:
    name = _get(run, "name")
    if not isinstance(name, str) or not name:
        raise TrajectoryFormatError(f"{label}: a tool run needs a 'name' string")
    inputs = _get(run, "inputs") or {}
    if not isinstance(inputs, Mapping):
        raise TrajectoryFormatError(
            f"{label}, field 'inputs': expected a dict, got {type(inputs).__name__}"
        )
    args: Any = dict(inputs)
    if set(args) == {"input"}:
        args = _input_args(args["input"])
    outputs = _get(run, "outputs") or {}
    result = outputs.get("output", outputs) if isinstance(outputs, Mapping) else outputs
    call_id = None
    error = _get(run, "error")
    plain = _plain(result)
    if isinstance(plain, Mapping) and plain.get("role") == "tool":
        call_id = plain.get("tool_call_id")
        if plain.get("status") == "error" and error is None:
            error = str(plain.get("content"))
        result = plain.get("content")
    elif langchain.is_message(result):
        call_id = getattr(result, "tool_call_id", None)
        if getattr(result, "status", None) == "error" and error is None:
            error = str(result.content)
        result = result.content
    return ToolStep(
        name=name,
        args=args,
        id=call_id,
        result=result,
        error=None if error is None else str(error),
        duration=_duration(run),
    )


def _input_args(raw: Any) -> Any:
    """A tool's lone ``input``: its arguments when it is a dict or JSON object text."""
    if isinstance(raw, Mapping):
        return dict(raw)
    if isinstance(raw, str) and raw.lstrip().startswith("{"):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            return {"input": raw}
        if isinstance(value, Mapping):
            return dict(value)
    return {"input": raw}


def _ids(runs: Iterable[Any]) -> set[Any]:
    return {_get(r, "id") for r in runs}
