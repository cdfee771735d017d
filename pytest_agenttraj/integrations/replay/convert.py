"""langchain-core objects to the builtins a cassette holds, and back: a request (messages, bound
tools, tool choice, the parameters that change the answer) and a response (content, tool calls,
usage, the response metadata that matters). Nothing else is recorded: no headers, no API keys,
no client settings, no ids but the tool calls' (which the agent's later messages refer to)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGenerationChunk

__all__ = [
    "ANSWER_PARAMS",
    "RESPONSE_METADATA",
    "chunks_of",
    "message_of",
    "model_identity",
    "request_of",
    "response_of",
]

ANSWER_PARAMS = (
    "temperature",
    "top_p",
    "top_k",
    "max_tokens",
    "max_completion_tokens",
    "max_output_tokens",
    "max_tokens_to_sample",
    "stop",
    "stop_sequences",
    "seed",
    "n",
    "presence_penalty",
    "frequency_penalty",
    "logit_bias",
    "response_format",
    "structured_output",
    "reasoning",
    "reasoning_effort",
    "thinking",
    "parallel_tool_calls",
    "strict",
)
"""The call parameters recorded with a request (and compared on replay): those that change the
answer. Whatever else a model is called with (clients, headers, keys, timeouts) is left out."""

RESPONSE_METADATA = ("finish_reason", "stop_reason", "model_name", "model", "model_provider")
"""The response metadata recorded: why the model stopped and which model answered."""

REDACTED = "[REDACTED]"
_RUN_ID_PREFIX = "lc_run-"


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str, sort_keys=True))


def _redacted(value: Any, patterns: Sequence[re.Pattern[str]]) -> Any:
    """``value`` with every match of ``patterns`` in its strings replaced."""
    if not patterns:
        return value
    if isinstance(value, str):
        for pattern in patterns:
            value = pattern.sub(REDACTED, value)
        return value
    if isinstance(value, list):
        return [_redacted(item, patterns) for item in value]
    if isinstance(value, dict):
        return {key: _redacted(item, patterns) for key, item in value.items()}
    return value


def _content(content: Any) -> Any:
    """Message content as builtins, content blocks without their ids."""
    if isinstance(content, str):
        return content
    blocks = []
    for block in content:
        if isinstance(block, Mapping):
            blocks.append({k: v for k, v in block.items() if k != "id"})
        else:
            blocks.append(block)
    return _jsonable(blocks)


def _message(message: BaseMessage) -> dict[str, Any]:
    item: dict[str, Any] = {"role": message.type, "content": _content(message.content)}
    if message.name:
        item["name"] = message.name
    if isinstance(message, AIMessage) and message.tool_calls:
        item["tool_calls"] = [
            {"name": call["name"], "args": _jsonable(call["args"])} for call in message.tool_calls
        ]
    if isinstance(message, ToolMessage) and message.status != "success":
        item["status"] = message.status
    return item


def model_identity(model: BaseChatModel) -> str:
    """The model as a cassette names it: its class, the model name it reports, and its
    ``name`` when given one (``ChatOpenAI/gpt-4o``, ``ScriptedChatModel[judge]``)."""
    identity = type(model).__name__
    try:
        model_name = model._get_ls_params().get("ls_model_name")
    except Exception:  # a provider's override that needs what it was not given
        model_name = None
    if isinstance(model_name, str) and model_name:
        identity += f"/{model_name}"
    if isinstance(model.name, str) and model.name:
        identity += f"[{model.name}]"
    return identity


def request_of(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    stop: list[str] | None,
    kwargs: Mapping[str, Any],
    redact: Sequence[re.Pattern[str]] = (),
) -> dict[str, Any]:
    """The request as recorded and compared."""
    request: dict[str, Any] = {
        "messages": _redacted([_message(m) for m in messages], redact),
    }
    tools = kwargs.get("tools")
    if tools:
        request["tools"] = _jsonable(list(tools))
    if kwargs.get("tool_choice") is not None:
        request["tool_choice"] = _jsonable(kwargs["tool_choice"])
    try:
        invocation = model._get_invocation_params(stop=stop, **kwargs)
    except Exception:  # a provider's override that needs what it was not given
        invocation = {"stop": stop, **kwargs}
    params = {
        key: _jsonable(invocation[key]) for key in ANSWER_PARAMS if invocation.get(key) is not None
    }
    if params:
        request["params"] = params
    return request


def response_of(message: BaseMessage, redact: Sequence[re.Pattern[str]] = ()) -> dict[str, Any]:
    """A model's answer as recorded."""
    response: dict[str, Any] = {"content": _redacted(_jsonable(message.content), redact)}
    if isinstance(message, AIMessage):
        if message.tool_calls:
            response["tool_calls"] = [
                {
                    "name": call["name"],
                    "args": _redacted(_jsonable(call["args"]), redact),
                    "id": call.get("id"),
                }
                for call in message.tool_calls
            ]
        if message.invalid_tool_calls:
            response["invalid_tool_calls"] = _redacted(
                _jsonable(list(message.invalid_tool_calls)), redact
            )
        if message.usage_metadata:
            response["usage_metadata"] = _jsonable(dict(message.usage_metadata))
    metadata = {
        key: message.response_metadata[key]
        for key in RESPONSE_METADATA
        if message.response_metadata.get(key) is not None
    }
    if metadata:
        response["response_metadata"] = _jsonable(metadata)
    if message.id and not message.id.startswith(_RUN_ID_PREFIX):
        response["id"] = message.id
    return response


def message_of(response: Mapping[str, Any]) -> AIMessage:
    """The recorded answer as the ``AIMessage`` the model gave."""
    fields: dict[str, Any] = {
        "content": response.get("content", ""),
        "tool_calls": [
            {
                "name": c["name"],
                "args": dict(c.get("args") or {}),
                "id": c.get("id"),
                "type": "tool_call",
            }
            for c in response.get("tool_calls") or []
        ],
    }
    if response.get("invalid_tool_calls"):
        fields["invalid_tool_calls"] = list(response["invalid_tool_calls"])
    if response.get("usage_metadata"):
        fields["usage_metadata"] = dict(response["usage_metadata"])
    if response.get("response_metadata"):
        fields["response_metadata"] = dict(response["response_metadata"])
    if response.get("id"):
        fields["id"] = response["id"]
    return AIMessage(**fields)


def chunks_of(message: AIMessage) -> Iterator[ChatGenerationChunk]:
    """The recorded answer as stream chunks whose sum is ``message``: one chunk, the last."""
    chunk = AIMessageChunk(
        content=message.content,
        id=message.id,
        tool_call_chunks=[
            tool_call_chunk(
                name=call["name"],
                args=json.dumps(call["args"], ensure_ascii=False),
                id=call["id"],
                index=position,
            )
            for position, call in enumerate(message.tool_calls)
        ],
        usage_metadata=message.usage_metadata,
        response_metadata=dict(message.response_metadata),
        chunk_position="last",
    )
    yield ChatGenerationChunk(message=chunk)
