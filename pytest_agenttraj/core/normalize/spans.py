"""Read OpenTelemetry spans (GenAI semantic conventions and OpenInference) into trace steps.

A span is read by its attributes only, so this module needs no OpenTelemetry import: it takes the
SDK's ``ReadableSpan`` (``name``, ``context.span_id``, ``parent``, ``start_time``, ``end_time``,
``attributes``, ``events``, ``status``) or a dict of the same fields. What each span is:

- a model call: ``gen_ai.operation.name`` ``chat`` / ``text_completion`` / ``generate_content``,
  or ``openinference.span.kind`` ``LLM``. Its messages come from ``gen_ai.input.messages`` /
  ``gen_ai.output.messages`` (JSON, with ``parts``) and ``gen_ai.system_instructions``, as
  attributes or on a ``gen_ai.client.inference.operation.details`` event; from the older
  ``gen_ai.prompt`` / ``gen_ai.completion`` (OpenAI-style JSON, as attributes or on
  ``gen_ai.content.prompt`` / ``gen_ai.content.completion`` events); from the older per-message
  events (``gen_ai.user.message`` ... ``gen_ai.choice``); or from OpenInference's flattened
  ``llm.input_messages.N.message.*`` / ``llm.output_messages.N.message.*``;
- a tool execution: ``gen_ai.operation.name`` ``execute_tool`` (``gen_ai.tool.name``,
  ``gen_ai.tool.call.id``, ``gen_ai.tool.call.arguments``, ``gen_ai.tool.call.result``) or
  ``openinference.span.kind`` ``TOOL`` (``tool.name``, ``tool_call.id``,
  ``tool_call.function.arguments`` or ``input.value``, ``output.value``); an error status makes
  it a failed call;
- a graph node or agent: a span naming one (``graph.node.name``, ``graph.node.id``,
  ``langgraph_node`` in OpenInference's ``metadata``, ``gen_ai.agent.name`` on ``invoke_agent``,
  ``agent.name``) that its parent does not name too (frameworks copy the name onto every span
  inside the node).

Any other span is ignored. Spans are taken in causal order: roots by start time, each span's
children by start time after it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...errors import TrajectoryFormatError
from .steps import ModelStep, NodeStep, Step, ToolStep, TraceTrajectory, assemble

__all__ = ["SpanRecord", "span_record", "span_steps", "trajectory_from_spans"]

MODEL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
_PER_MESSAGE_EVENTS = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
_OI_MESSAGE = re.compile(r"llm\.(input|output)_messages\.(\d+)\.message\.(.+)")
_OI_CALL = re.compile(r"tool_calls\.(\d+)\.tool_call\.(id|function\.name|function\.arguments)")
_OI_CONTENT = re.compile(r"contents\.(\d+)\.message_content\.(type|text)")


@dataclass(frozen=True, slots=True)
class SpanEvent:
    """An event recorded on a span."""

    name: str
    attributes: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class SpanRecord:
    """The fields of a span the reader uses; ``position`` is its index in the input."""

    name: str
    span_id: Any
    parent_id: Any
    start: float | None
    end: float | None
    attributes: Mapping[str, Any]
    events: tuple[SpanEvent, ...]
    error: str | None
    position: int

    @property
    def duration(self) -> float | None:
        """Seconds from start to end, when both are known."""
        if self.start is None or self.end is None:
            return None
        return (self.end - self.start) / 1e9

    def where(self) -> str:
        """How an error names this span."""
        return f"span {self.position} {self.name!r}"

    def fail(self, attribute: str, problem: str) -> TrajectoryFormatError:
        """The error for a malformed ``attribute`` of this span."""
        return TrajectoryFormatError(f"{self.where()}, attribute {attribute!r}: {problem}")


def trajectory_from_spans(spans: Iterable[Any]) -> TraceTrajectory:
    """The trajectory (and graph path) finished spans stand for; see the module docstring."""
    records = [span_record(span, position) for position, span in enumerate(spans)]
    return assemble(span_steps(records), duration_s=_extent(records))


def _extent(records: Sequence[SpanRecord]) -> float | None:
    """Seconds from the first span's start to the last one's end (``None`` without times)."""
    starts = [r.start for r in records if r.start is not None]
    ends = [r.end for r in records if r.end is not None]
    if not starts or not ends:
        return None
    return max(0.0, (max(ends) - min(starts)) / 1e9)


def span_steps(records: Sequence[SpanRecord]) -> list[Step]:
    """The steps the spans (read as ``span_record``) stand for, in causal order."""
    steps: list[Step] = []
    names = {r.span_id: node_name(r) for r in records}
    for invocation, root, ordered in _walk(records):
        for record, group in ordered:
            name = names[record.span_id]
            parent_name = names.get(record.parent_id) if record is not root else None
            if name is not None and name != parent_name:
                superstep = _superstep(record)
                steps.append(NodeStep(name, invocation, superstep, group))
            step = _step(record)
            if step is not None:
                steps.append(step)
    return steps


def span_record(span: Any, position: int) -> SpanRecord:
    """A ``ReadableSpan`` (or a dict of its fields) as a ``SpanRecord``."""
    if isinstance(span, Mapping):
        return _dict_record(span, position)
    try:
        name = span.name
        context = span.context
        parent = span.parent
        attributes = span.attributes or {}
        events = tuple(SpanEvent(e.name, e.attributes or {}) for e in span.events or ())
        status = span.status
        start, end = span.start_time, span.end_time
    except AttributeError as error:
        raise TrajectoryFormatError(
            f"span {position}: expected an OpenTelemetry ReadableSpan or a dict, "
            f"got {type(span).__name__} (no {error.name!r})"
        ) from None
    failed = getattr(getattr(status, "status_code", None), "name", None) == "ERROR"
    return SpanRecord(
        name=str(name),
        span_id=getattr(context, "span_id", None) if context is not None else position,
        parent_id=getattr(parent, "span_id", None) if parent is not None else None,
        start=start,
        end=end,
        attributes=attributes,
        events=events,
        error=_error_text(getattr(status, "description", None), events) if failed else None,
        position=position,
    )


def _dict_record(span: Mapping[str, Any], position: int) -> SpanRecord:
    name = span.get("name")
    if not isinstance(name, str):
        raise TrajectoryFormatError(f"span {position}: a span dict needs a 'name' string")
    context = span.get("context")
    span_id = context.get("span_id") if isinstance(context, Mapping) else span.get("span_id")
    attributes = span.get("attributes") or {}
    if not isinstance(attributes, Mapping):
        raise TrajectoryFormatError(f"span {position} {name!r}: 'attributes' must be a dict")
    events = tuple(
        SpanEvent(str(e.get("name")), e.get("attributes") or {})
        for e in span.get("events") or ()
        if isinstance(e, Mapping)
    )
    status = span.get("status")
    code = status.get("status_code") if isinstance(status, Mapping) else status
    failed = isinstance(code, str) and code.upper().endswith("ERROR")
    description = status.get("description") if isinstance(status, Mapping) else None
    record = SpanRecord(
        name=name,
        span_id=position if span_id is None else span_id,
        parent_id=span.get("parent_id"),
        start=None,
        end=None,
        attributes=attributes,
        events=events,
        error=_error_text(description, events) if failed else None,
        position=position,
    )
    start = _time(span.get("start_time"), record, "start_time")
    end = _time(span.get("end_time"), record, "end_time")
    return SpanRecord(**{**_fields(record), "start": start, "end": end})


def _fields(record: SpanRecord) -> dict[str, Any]:
    return {name: getattr(record, name) for name in SpanRecord.__slots__}


def _time(value: Any, record: SpanRecord, field: str) -> float | None:
    """Nanoseconds since the epoch, from an int or an ISO 8601 string (``to_json``'s form)."""
    if value is None:
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1e9
        except ValueError:
            pass
    raise TrajectoryFormatError(f"{record.where()}: {field!r} must be nanoseconds or ISO 8601")


def _error_text(description: Any, events: Sequence[SpanEvent]) -> str:
    if isinstance(description, str) and description:
        return description
    for event in events:
        if event.name == "exception":
            message = event.attributes.get("exception.message")
            kind = event.attributes.get("exception.type")
            if message or kind:
                return f"{kind}: {message}" if kind and message else str(message or kind)
    return "error"


def _walk(
    records: Sequence[SpanRecord],
) -> Iterable[tuple[int, SpanRecord, list[tuple[SpanRecord, int]]]]:
    """Per root (by start time), the root and its tree in pre-order, each span with its
    overlap group (siblings that ran at the same time share one)."""
    ids = {r.span_id for r in records}
    children: dict[Any, list[SpanRecord]] = {}
    roots: list[SpanRecord] = []
    for record in records:
        if record.parent_id is not None and record.parent_id in ids:
            children.setdefault(record.parent_id, []).append(record)
        else:
            roots.append(record)
    counter = iter(range(1 << 62))
    for invocation, root in enumerate(sorted(roots, key=_start_key)):
        ordered: list[tuple[SpanRecord, int]] = []
        stack: list[tuple[SpanRecord, int]] = [(root, next(counter))]
        while stack:
            record, group = stack.pop()
            ordered.append((record, group))
            kids = sorted(children.get(record.span_id, ()), key=_start_key)
            stack.extend(reversed(_groups(kids, counter)))
        yield invocation, root, ordered


def _groups(kids: Sequence[SpanRecord], counter: Iterable[int]) -> list[tuple[SpanRecord, int]]:
    out: list[tuple[SpanRecord, int]] = []
    numbers = iter(counter)
    end = -math.inf
    group = next(numbers)
    for kid in kids:
        if kid.start is None or kid.start >= end:
            group = next(numbers)
        out.append((kid, group))
        end = kid.end if kid.end is not None else math.inf
    return out


def _start_key(record: SpanRecord) -> tuple[float, int]:
    return (record.start if record.start is not None else -math.inf, record.position)


def node_name(record: SpanRecord) -> str | None:
    """The graph node or agent the span names, if any."""
    attributes = record.attributes
    for attribute in ("graph.node.name", "graph.node.id"):
        value = attributes.get(attribute)
        if value is not None:
            return _string(record, attribute, value)
    metadata = _metadata(record)
    if metadata.get("langgraph_node") is not None:
        return str(metadata["langgraph_node"])
    if attributes.get("gen_ai.operation.name") == "invoke_agent":
        value = attributes.get("gen_ai.agent.name")
        if value is not None:
            return _string(record, "gen_ai.agent.name", value)
    if attributes.get("openinference.span.kind") == "AGENT" and "agent.name" in attributes:
        return _string(record, "agent.name", attributes["agent.name"])
    return None


def _superstep(record: SpanRecord) -> int | None:
    step = _metadata(record).get("langgraph_step")
    return step if isinstance(step, int) and not isinstance(step, bool) else None


def _metadata(record: SpanRecord) -> Mapping[str, Any]:
    raw = record.attributes.get("metadata")
    if raw is None:
        return {}
    value = _json(record, "metadata", raw) if isinstance(raw, str) else raw
    return value if isinstance(value, Mapping) else {}


def _step(record: SpanRecord) -> ModelStep | ToolStep | None:
    attributes = record.attributes
    operation = attributes.get("gen_ai.operation.name")
    kind = attributes.get("openinference.span.kind")
    if operation in MODEL_OPERATIONS:
        return _genai_model(record)
    if operation == "execute_tool":
        return _genai_tool(record)
    if kind == "LLM":
        inputs = _oi_messages(record, "input")
        outputs = _oi_messages(record, "output")
        return ModelStep(tuple(inputs), tuple(outputs[:1]), record.duration)
    if kind == "TOOL":
        return _oi_tool(record)
    return None


# --- GenAI semantic conventions ----------------------------------------------------------


def _genai_model(record: SpanRecord) -> ModelStep:
    sources = [record.attributes]
    sources.extend(
        e.attributes
        for e in record.events
        if e.name in ("gen_ai.client.inference.operation.details", "gen_ai.content.prompt")
        or e.name == "gen_ai.content.completion"
    )
    inputs: list[dict[str, Any]] = []
    outputs: list[dict[str, Any]] = []
    for attributes in sources:
        if "gen_ai.system_instructions" in attributes:
            inputs.extend(_instructions(record, attributes["gen_ai.system_instructions"]))
        if "gen_ai.input.messages" in attributes:
            inputs.extend(_parts_messages(record, "gen_ai.input.messages", attributes))
        if "gen_ai.output.messages" in attributes:
            outputs.extend(_parts_messages(record, "gen_ai.output.messages", attributes))
        if "gen_ai.prompt" in attributes:
            inputs.extend(_chat_list(record, "gen_ai.prompt", attributes["gen_ai.prompt"]))
        if "gen_ai.completion" in attributes:
            outputs.extend(_chat_list(record, "gen_ai.completion", attributes["gen_ai.completion"]))
    event_inputs, event_outputs = _message_events(record)
    inputs.extend(event_inputs)
    outputs.extend(event_outputs)
    return ModelStep(tuple(inputs), tuple(outputs[:1]), record.duration)


def _genai_tool(record: SpanRecord) -> ToolStep:
    attributes = record.attributes
    name = attributes.get("gen_ai.tool.name")
    if name is None and record.name.startswith("execute_tool "):
        name = record.name.removeprefix("execute_tool ").strip()
    if not name:
        raise record.fail("gen_ai.tool.name", "an execute_tool span must name its tool")
    return ToolStep(
        name=_string(record, "gen_ai.tool.name", name),
        args=_args(record, "gen_ai.tool.call.arguments"),
        id=_opt_string(record, "gen_ai.tool.call.id"),
        result=attributes.get("gen_ai.tool.call.result"),
        error=record.error,
        duration=record.duration,
    )


def _instructions(record: SpanRecord, raw: Any) -> list[dict[str, Any]]:
    value = _json(record, "gen_ai.system_instructions", raw) if isinstance(raw, str) else raw
    if isinstance(value, Mapping):
        value = [value]
    if not isinstance(value, list | tuple):
        raise record.fail("gen_ai.system_instructions", "expected a JSON list of parts")
    text = _parts_text(record, "gen_ai.system_instructions", value)
    return [{"role": "system", "content": text}]


def _parts_messages(
    record: SpanRecord, attribute: str, attributes: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """Messages in the ``{"role", "parts": [...]}`` form of ``gen_ai.*.messages``."""
    raw = attributes[attribute]
    if isinstance(raw, str):
        value = _json(record, attribute, raw)
    elif isinstance(raw, list | tuple):  # a sequence attribute: one JSON message per item
        value = [_json(record, attribute, item) if isinstance(item, str) else item for item in raw]
    else:
        value = raw
    if not isinstance(value, list):
        raise record.fail(attribute, f"expected a JSON list of messages, got {_kind(value)}")
    out: list[dict[str, Any]] = []
    for index, message in enumerate(value):
        out.extend(_parts_message(record, f"{attribute}[{index}]", message))
    return out


def _parts_message(record: SpanRecord, where: str, message: Any) -> list[dict[str, Any]]:
    if not isinstance(message, Mapping):
        raise record.fail(where, f"a message must be a JSON object, got {_kind(message)}")
    role = message.get("role")
    if not isinstance(role, str):
        raise record.fail(f"{where}.role", "a message needs a 'role' string")
    parts = message.get("parts")
    if parts is None and "content" in message:  # an OpenAI-style message in the same place
        return [dict(message)]
    if not isinstance(parts, list):
        raise record.fail(f"{where}.parts", f"expected a list of parts, got {_kind(parts)}")
    calls, results = _tool_parts(record, where, parts)
    text = _parts_text(record, f"{where}.parts", parts)
    if results:
        return results
    out: dict[str, Any] = {"role": role, "content": text}
    if calls:
        out["tool_calls"] = calls
    return [out]


def _tool_parts(
    record: SpanRecord, where: str, parts: Sequence[Any]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    calls: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    for index, part in enumerate(parts):
        if not isinstance(part, Mapping):
            raise record.fail(f"{where}.parts[{index}]", "a part must be a JSON object")
        if part.get("type") == "tool_call":
            calls.append(_part_call(record, f"{where}.parts[{index}]", part))
        elif part.get("type") == "tool_call_response":
            results.append(_part_result(part))
    return calls, results


def _part_call(record: SpanRecord, where: str, part: Mapping[str, Any]) -> dict[str, Any]:
    name = part.get("name")
    if not isinstance(name, str) or not name:
        raise record.fail(f"{where}.name", "a tool_call part needs a 'name' string")
    args = part.get("arguments")
    if isinstance(args, str):
        args = _json(record, f"{where}.arguments", args) if args.strip() else {}
    if args is None:
        args = {}
    if not isinstance(args, Mapping):
        raise record.fail(f"{where}.arguments", f"expected a JSON object, got {_kind(args)}")
    call: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": args}}
    if part.get("id") is not None:
        call["id"] = str(part["id"])
    return call


def _part_result(part: Mapping[str, Any]) -> dict[str, Any]:
    response = part.get("response", part.get("result"))
    content = response if isinstance(response, str) else json.dumps(response, default=str)
    out: dict[str, Any] = {"role": "tool", "content": content}
    if part.get("id") is not None:
        out["tool_call_id"] = str(part["id"])
    return out


def _parts_text(record: SpanRecord, where: str, parts: Sequence[Any]) -> str:
    texts = []
    for index, part in enumerate(parts):
        if isinstance(part, Mapping) and part.get("type") == "text":
            content = part.get("content")
            if not isinstance(content, str):
                raise record.fail(f"{where}[{index}].content", "a text part needs a string")
            texts.append(content)
    return "\n".join(texts)


def _chat_list(record: SpanRecord, attribute: str, raw: Any) -> list[dict[str, Any]]:
    """The older ``gen_ai.prompt`` / ``gen_ai.completion``: OpenAI-style messages as JSON."""
    value = _json(record, attribute, raw) if isinstance(raw, str) else raw
    if isinstance(value, Mapping):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(m, Mapping) for m in value):
        raise record.fail(attribute, "expected a JSON list of messages")
    return [_chat_message(record, f"{attribute}[{i}]", m) for i, m in enumerate(value)]


def _chat_message(record: SpanRecord, where: str, message: Mapping[str, Any]) -> dict[str, Any]:
    if "parts" in message:
        return _parts_message(record, where, message)[0]
    if not isinstance(message.get("role", "assistant"), str):
        raise record.fail(f"{where}.role", "the role must be a string")
    out = dict(message)
    out.setdefault("role", "assistant")
    if "tool_calls" in out:
        out["tool_calls"] = _event_calls(record, f"{where}.tool_calls", out["tool_calls"])
    return out


def _message_events(record: SpanRecord) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The older per-message events: ``gen_ai.user.message`` ... and ``gen_ai.choice``."""
    inputs: list[dict[str, Any]] = []
    outputs: list[dict[str, Any]] = []
    for index, event in enumerate(record.events):
        attributes = event.attributes
        where = f"event {index} {event.name!r}"
        body: Any = attributes
        if "gen_ai.event.content" in attributes:
            body = _json(
                record, f"{where} gen_ai.event.content", attributes["gen_ai.event.content"]
            )
            if not isinstance(body, Mapping):
                raise record.fail(f"{where} gen_ai.event.content", "expected a JSON object")
        if event.name in _PER_MESSAGE_EVENTS:
            inputs.append(_event_message(record, where, body, _PER_MESSAGE_EVENTS[event.name]))
        elif event.name == "gen_ai.choice" and not outputs:
            message = body.get("message", body)
            if isinstance(message, str):
                message = _json(record, f"{where} message", message)
            if not isinstance(message, Mapping):
                raise record.fail(f"{where} message", "expected a JSON object")
            outputs.append(_event_message(record, where, message, "assistant"))
    return inputs, outputs


def _event_message(
    record: SpanRecord, where: str, body: Mapping[str, Any], role: str
) -> dict[str, Any]:
    out: dict[str, Any] = {"role": body.get("role") or role, "content": body.get("content") or ""}
    if "tool_calls" in body:
        out["tool_calls"] = _event_calls(record, f"{where} tool_calls", body["tool_calls"])
    if role == "tool" and body.get("id") is not None:
        out["tool_call_id"] = str(body["id"])
    return out


def _event_calls(record: SpanRecord, where: str, raw: Any) -> list[Any]:
    value = _json(record, where, raw) if isinstance(raw, str) else raw
    if not isinstance(value, list | tuple):
        raise record.fail(where, f"expected a list of tool calls, got {_kind(value)}")
    calls = []
    for index, call in enumerate(value):
        if not isinstance(call, Mapping):
            raise record.fail(f"{where}[{index}]", "a tool call must be a JSON object")
        function = call.get("function")
        if isinstance(function, Mapping) and isinstance(function.get("arguments"), str):
            arguments = function["arguments"]
            parsed = _json(record, f"{where}[{index}].function.arguments", arguments or "{}")
            call = {**call, "function": {**function, "arguments": parsed}}
        calls.append(dict(call))
    return calls


# --- OpenInference -------------------------------------------------------------------------


def _oi_messages(record: SpanRecord, side: str) -> list[dict[str, Any]]:
    messages: dict[int, dict[str, Any]] = {}
    calls: dict[tuple[int, int], dict[str, Any]] = {}
    contents: dict[tuple[int, int], dict[str, Any]] = {}
    for key, value in record.attributes.items():
        match = _OI_MESSAGE.fullmatch(key)
        if match is None or match.group(1) != side:
            continue
        index, field = int(match.group(2)), match.group(3)
        message = messages.setdefault(index, {})
        call = _OI_CALL.fullmatch(field)
        content = _OI_CONTENT.fullmatch(field)
        if call is not None:
            calls.setdefault((index, int(call.group(1))), {})[call.group(2)] = (key, value)
        elif content is not None:
            contents.setdefault((index, int(content.group(1))), {})[content.group(2)] = value
        elif field in ("role", "content", "name", "tool_call_id"):
            message[field] = _string(record, key, value)
    _oi_fill(record, messages, calls, contents)
    out = []
    for index in sorted(messages):
        message = messages[index]
        if "role" not in message:
            raise record.fail(f"llm.{side}_messages.{index}.message.role", "missing")
        message.setdefault("content", "")
        out.append(message)
    return out


def _oi_fill(
    record: SpanRecord,
    messages: dict[int, dict[str, Any]],
    calls: Mapping[tuple[int, int], Mapping[str, tuple[str, Any]]],
    contents: Mapping[tuple[int, int], Mapping[str, Any]],
) -> None:
    """Add the content blocks and tool calls read apart to their messages."""
    for (index, _), parts in sorted(contents.items()):
        if parts.get("type", "text") == "text" and isinstance(parts.get("text"), str):
            previous = messages[index].get("content")
            text = parts["text"]
            messages[index]["content"] = f"{previous}\n{text}" if previous else text
    for (index, _), fields in sorted(calls.items()):
        messages[index].setdefault("tool_calls", []).append(_oi_call(record, fields))


def _oi_call(record: SpanRecord, fields: Mapping[str, tuple[str, Any]]) -> dict[str, Any]:
    if "function.name" not in fields:
        key = next(iter(fields.values()))[0].rsplit(".tool_call.", 1)[0]
        raise record.fail(f"{key}.tool_call.function.name", "a tool call needs a name")
    name_key, name = fields["function.name"]
    function: dict[str, Any] = {"name": _string(record, name_key, name), "arguments": {}}
    if "function.arguments" in fields:
        key, raw = fields["function.arguments"]
        args = _json(record, key, raw) if isinstance(raw, str) and raw.strip() else raw or {}
        if not isinstance(args, Mapping):
            raise record.fail(key, f"expected a JSON object, got {_kind(args)}")
        function["arguments"] = args
    call: dict[str, Any] = {"type": "function", "function": function}
    if "id" in fields:
        call["id"] = _string(record, *fields["id"])
    return call


def _oi_tool(record: SpanRecord) -> ToolStep:
    attributes = record.attributes
    name_key = "tool.name" if "tool.name" in attributes else "tool_call.function.name"
    name = attributes.get(name_key)
    if name is None:
        raise record.fail("tool.name", "a TOOL span must name its tool")
    if "tool_call.function.arguments" in attributes:
        args = _args(record, "tool_call.function.arguments")
    elif _is_json_object(attributes.get("input.value")):
        args = _args(record, "input.value")
    else:
        args = None
    call_id = _opt_string(record, "tool_call.id") or _opt_string(record, "tool.id")
    return ToolStep(
        name=_string(record, name_key, name),
        args=args,
        id=call_id,
        result=attributes.get("output.value"),
        error=record.error,
        duration=record.duration,
    )


def _is_json_object(value: Any) -> bool:
    return isinstance(value, str) and value.lstrip().startswith("{")


# --- values --------------------------------------------------------------------------------


def _args(record: SpanRecord, attribute: str) -> Any:
    raw = record.attributes.get(attribute)
    if raw is None:
        return None
    value = _json(record, attribute, raw) if isinstance(raw, str) else raw
    if not isinstance(value, Mapping):
        raise record.fail(attribute, f"tool arguments must be a JSON object, got {_kind(value)}")
    return dict(value)


def _json(record: SpanRecord, attribute: str, raw: Any) -> Any:
    if not isinstance(raw, str):
        raise record.fail(attribute, f"expected JSON text, got {_kind(raw)}")
    try:
        return json.loads(raw)
    except json.JSONDecodeError as error:
        raise record.fail(attribute, f"not valid JSON ({error.msg} at {error.pos})") from None


def _string(record: SpanRecord, attribute: str, value: Any) -> str:
    if not isinstance(value, str):
        raise record.fail(attribute, f"expected a string, got {_kind(value)}")
    return value


def _opt_string(record: SpanRecord, attribute: str) -> str | None:
    value = record.attributes.get(attribute)
    return None if value is None else _string(record, attribute, value)


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__
