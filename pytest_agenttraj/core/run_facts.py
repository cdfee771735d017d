"""What a run cost, read from the raw outputs: token usage and model of each assistant message
(LangChain ``AIMessage.usage_metadata`` and ``response_metadata``, or the same keys of a dict),
tool errors (``ToolMessage`` ``status="error"``, or what the user's predicate calls one) and a
recorded duration (``duration_s`` of an agent state dict). Pure: objects are read by their
attributes, langchain-core is never imported."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["MessageUsage", "RunFacts", "run_facts"]

_AI_TYPES = ("ai", "AIMessage", "AIMessageChunk")
_TOOL_TYPES = ("tool", "ToolMessage")


@dataclass(frozen=True, slots=True)
class MessageUsage:
    """One assistant message's usage: ``None`` counts when it carries no usage metadata."""

    index: int
    model: str | None
    input_tokens: int | None
    output_tokens: int | None
    total_tokens: int | None


@dataclass(frozen=True, slots=True)
class RunFacts:
    """Usage per assistant message, indices of tool errors, and the run's duration if known."""

    usage: tuple[MessageUsage, ...] = ()
    tool_errors: tuple[int, ...] = ()
    duration_s: float | None = None
    tool_durations: tuple[tuple[int, str | None, float | None], ...] = ()
    """``(message index, tool name, seconds or None)`` per tool message."""


def _get(item: Any, name: str) -> Any:
    if isinstance(item, Mapping):
        return item.get(name)
    return getattr(item, name, None)


def _kind(item: Any) -> str | None:
    kind = _get(item, "type") if not isinstance(item, Mapping) else item.get("type")
    role = _get(item, "role")
    if kind in _AI_TYPES or role in ("assistant", "ai"):
        return "ai"
    if kind in _TOOL_TYPES or role == "tool":
        return "tool"
    return None


def _messages(outputs: Any) -> list[Any]:
    if isinstance(outputs, Mapping) and "messages" in outputs:
        outputs = outputs["messages"]
    if isinstance(outputs, list | tuple):
        return list(outputs)
    return [outputs]


def _count(usage: Any, name: str) -> int | None:
    value = _get(usage, name) if usage is not None else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _model(message: Any) -> str | None:
    metadata = _get(message, "response_metadata")
    if isinstance(metadata, Mapping):
        for key in ("model_name", "model"):
            if isinstance(metadata.get(key), str):
                return str(metadata[key])
    return None


def run_facts(outputs: Any, *, tool_error: Callable[[Any], bool] | None = None) -> RunFacts:
    """The facts of ``outputs`` (messages, or a state dict with ``messages``)."""
    usage, errors = [], []
    timings: list[tuple[int, str | None, float | None]] = []
    for index, message in enumerate(_messages(outputs)):
        kind = _kind(message)
        if kind == "ai":
            counts = _get(message, "usage_metadata")
            usage.append(
                MessageUsage(
                    index,
                    _model(message),
                    _count(counts, "input_tokens"),
                    _count(counts, "output_tokens"),
                    _count(counts, "total_tokens"),
                )
            )
        elif kind == "tool":
            failed = _get(message, "status") == "error"
            if tool_error is not None and not failed:
                failed = bool(tool_error(message))
            if failed:
                errors.append(index)
            name = _get(message, "name")
            timings.append((index, name if isinstance(name, str) else None, _seconds(message)))
    duration = outputs.get("duration_s") if isinstance(outputs, Mapping) else None
    if not isinstance(duration, int | float) or isinstance(duration, bool):
        duration = None
    return RunFacts(
        tuple(usage),
        tuple(errors),
        None if duration is None else float(duration),
        tuple(timings),
    )


def _seconds(message: Any) -> float | None:
    """A traced message's ``duration`` in seconds (``None`` when it has none)."""
    value = _get(message, "duration")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)
