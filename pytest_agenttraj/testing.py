"""Helpers for testing your own agents: ``ScriptedChatModel``, a langchain-core chat model that
answers from a script, so an agent runs its real loop (tools, graph, parsers) with no provider.

>>> from langchain_core.messages import AIMessage
>>> model = ScriptedChatModel(
...     [
...         {"tool_calls": [{"name": "get_weather", "args": {"city": "SF"}}]},
...         lambda request: f"It is {request.last_tool_message.content}.",
...     ]
... )
>>> model.invoke("Weather in SF?").tool_calls[0]["id"]
'call_1'
>>> from langchain_core.messages import HumanMessage, ToolMessage
>>> model.invoke([HumanMessage("Weather in SF?"), ToolMessage("75F", tool_call_id="call_1")]).text
'It is 75F.'
>>> len(model.requests), model.replies_left
(2, 0)

This module imports langchain-core when it is imported; the plugin never imports it.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, cast

from langchain_core.caches import BaseCache
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ToolCall,
    ToolMessage,
    message_chunk_to_message,
)
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.output_parsers import JsonOutputParser, PydanticOutputParser
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableMap, RunnablePassthrough
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_json_schema, convert_to_openai_tool
from pydantic import BaseModel, PrivateAttr

from .errors import ScriptedReplyError, ScriptError, ScriptExhaustedError

__all__ = [
    "ScriptError",
    "ScriptExhaustedError",
    "ScriptedChatModel",
    "ScriptedReplyError",
    "ScriptedRequest",
    "tool_call",
]

ToolLike = dict[str, Any] | type | Callable[..., Any] | BaseTool


def tool_call(name: str, id: str | None = None, /, **args: Any) -> ToolCall:
    """A tool call for a script: ``tool_call("get_weather", city="SF")``.

    Leave ``id`` out and the model gives the call ``call_<n>`` when it hands it out (the n-th
    tool call it has handed out since it was made or reset).
    """
    return ToolCall(name=name, args=args, id=id, type="tool_call")


# ------------------------------------------------------------------------------- the request


@dataclass(frozen=True, repr=False)
class ScriptedRequest:
    """One request a ``ScriptedChatModel`` received, as a callable reply sees it and as
    ``model.requests`` keeps it.

    ``index`` is the position in the script of the reply that answers it (0 for the first
    request); ``messages`` are copies of the messages as received; ``tools`` the bound tools in
    the OpenAI tool format (``convert_to_openai_tool``); ``tool_choice`` as bound;
    ``structured_output`` the JSON schema the caller asked the answer to follow
    (``with_structured_output``, or a ``response_format`` option such as ``create_agent``'s
    provider strategy), ``None`` otherwise; ``stop`` the stop sequences; ``options`` every other
    keyword the model was called or bound with (``temperature``, ``response_format``, ...).
    """

    index: int
    messages: tuple[BaseMessage, ...]
    tools: tuple[dict[str, Any], ...] = ()
    tool_choice: Any = None
    structured_output: dict[str, Any] | None = None
    stop: tuple[str, ...] | None = None
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def tool_names(self) -> tuple[str, ...]:
        """Names of the bound tools (provider built-ins without a name left out)."""
        return tuple(name for name in map(_tool_name, self.tools) if name is not None)

    @property
    def last_message(self) -> BaseMessage | None:
        """The last message received, ``None`` for an empty request."""
        return self.messages[-1] if self.messages else None

    @property
    def tool_results(self) -> tuple[ToolMessage, ...]:
        """The tool messages after the last AI message: the results of the calls it made."""
        results: list[ToolMessage] = []
        for message in reversed(self.messages):
            if isinstance(message, AIMessage):
                break
            if isinstance(message, ToolMessage):
                results.append(message)
        return tuple(reversed(results))

    @property
    def last_tool_message(self) -> ToolMessage | None:
        """The last tool message anywhere in the request, ``None`` if there is none."""
        return next((m for m in reversed(self.messages) if isinstance(m, ToolMessage)), None)

    def render(self, *, last: int = 6) -> str:
        """A few lines saying what was asked: the bound tools and the ``last`` messages."""
        head = _count(len(self.messages), "message", "messages")
        if self.tools:
            head += f"; tools: {', '.join(self.tool_names) or '(built-ins only)'}"
        if self.tool_choice is not None:
            head += f"; tool_choice={self.tool_choice!r}"
        if self.structured_output is not None:
            head += f"; structured output: {self.structured_output.get('title', '(schema)')}"
        lines = [head]
        start = max(0, len(self.messages) - last)
        if start:
            lines.append(f"  ... {_count(start, 'earlier message', 'earlier messages')}")
        lines.extend(
            f"  [{n}] {_render_message(self.messages[n])}" for n in range(start, len(self.messages))
        )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"ScriptedRequest(index={self.index}, messages={len(self.messages)}, "
            f"tools={list(self.tool_names)!r})"
        )


def _clip(text: str, width: int = 100) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def _render_message(message: BaseMessage) -> str:
    if isinstance(message, AIMessage) and message.tool_calls:
        calls = ", ".join(
            f"{tc['name']}({json.dumps(tc['args'], ensure_ascii=False)})"
            for tc in message.tool_calls
        )
        text = f" {_clip(message.text)} |" if message.text else ""
        return f"ai:{text} calls {_clip(calls)}"
    if isinstance(message, ToolMessage):
        return f"tool {message.name or message.tool_call_id}: {_clip(message.text)}"
    return f"{message.type}: {_clip(message.text)}"


def _tool_name(tool: Mapping[str, Any]) -> str | None:
    """The name of a bound tool in the OpenAI format (chat or responses style)."""
    function = tool.get("function")
    name = function.get("name") if isinstance(function, Mapping) else tool.get("name")
    return name if isinstance(name, str) else None


def _tool_schema(tool: ToolLike) -> dict[str, Any]:
    """A tool as the model is given it: the OpenAI tool format, built-ins unchanged."""
    if isinstance(tool, dict) and not {"function", "name", "title"} & tool.keys():
        return dict(tool)  # e.g. {"type": "web_search"}: a provider's built-in
    return convert_to_openai_tool(tool)


# ------------------------------------------------------------------------------- replies

_REPLY_KEYS = (
    "role",
    "content",
    "tool_calls",
    "id",
    "usage",
    "usage_metadata",
    "response_metadata",
    "additional_kwargs",
)
_USAGE_COUNTS = ("input_tokens", "output_tokens", "total_tokens")
_USAGE_DETAILS = ("input_token_details", "output_token_details")


def _ordinal(number: int) -> str:
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th') }"


def _count(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _fail(where: str, problem: str, index: int | None) -> ScriptedReplyError:
    return ScriptedReplyError(f"{where}: {problem}", index=index)


def _usage(value: Any, where: str, index: int | None) -> dict[str, Any]:
    """``usage_metadata`` from a mapping of token counts; ``total_tokens`` defaults to the sum."""
    if not isinstance(value, Mapping):
        raise _fail(where, f"usage must be a dict of token counts, got {value!r}", index)
    unknown = sorted(set(value) - {*_USAGE_COUNTS, *_USAGE_DETAILS})
    if unknown:
        raise _fail(where, f"usage has unknown key(s) {unknown}; known: {_USAGE_COUNTS}", index)
    usage = {key: value[key] for key in _USAGE_DETAILS if key in value}
    for key in _USAGE_COUNTS[:2]:
        count = value.get(key, 0)
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise _fail(where, f"usage[{key!r}] must be a whole number >= 0, got {count!r}", index)
        usage[key] = count
    usage["total_tokens"] = value.get(
        "total_tokens", usage["input_tokens"] + usage["output_tokens"]
    )
    return usage


def _json_args(args: Any, where: str, index: int) -> dict[str, Any]:
    """Tool call arguments as a provider sends them: a JSON object (so that a streamed reply,
    whose arguments travel as JSON text, is the same as the invoked one)."""
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError as error:
            raise _fail(where, f"arguments are not JSON ({error}): {args!r}", index) from None
    try:
        parsed = json.loads(json.dumps(args, allow_nan=False))
    except (TypeError, ValueError) as error:
        raise _fail(where, f"arguments must be JSON data ({error}): {args!r:.200}", index) from None
    except (
        RecursionError
    ):  # nested deeper than json can write: kept as given (e.g. a hostile reply)
        parsed = args
    if not isinstance(parsed, dict):
        raise _fail(where, f"arguments must be a JSON object, got {args!r}", index)
    return parsed


def _call_from_dict(call: Any, where: str, index: int) -> ToolCall:
    """A LangChain (``name``, ``args``, ``id``) or OpenAI (``function``) tool call dict."""
    if not isinstance(call, Mapping):
        raise _fail(where, f"a tool call must be a dict, got {call!r}", index)
    known: tuple[str, ...]
    if "function" in call:
        known, function = ("id", "type", "function"), call["function"]
        if not isinstance(function, Mapping) or set(function) - {"name", "arguments"}:
            raise _fail(where, "function must be a dict with name and arguments", index)
        name, args = function.get("name"), function.get("arguments") or {}
    else:
        known, name, args = ("name", "args", "id", "type"), call.get("name"), call.get("args", {})
    unknown = sorted(set(call) - set(known))
    if unknown:
        raise _fail(where, f"unknown key(s) {unknown} in a tool call; known: {known}", index)
    if not isinstance(name, str) or not name:
        raise _fail(where, f"a tool call needs a name, got {name!r}", index)
    return tool_call(name, call.get("id"), **_json_args(args, where, index))


def _reply_from_dict(reply: Mapping[str, Any], where: str, index: int) -> AIMessage:
    unknown = sorted(set(reply) - set(_REPLY_KEYS))
    if unknown:
        raise _fail(where, f"unknown key(s) {unknown} in a reply; known: {_REPLY_KEYS}", index)
    if reply.get("role", "assistant") not in ("assistant", "ai"):
        raise _fail(where, f"a reply has role 'assistant', not {reply['role']!r}", index)
    if "usage" in reply and "usage_metadata" in reply:
        raise _fail(where, "give usage or usage_metadata, not both", index)
    calls = reply.get("tool_calls") or []
    if not isinstance(calls, list):
        raise _fail(where, f"tool_calls must be a list, got {calls!r}", index)
    fields: dict[str, Any] = {
        "content": reply.get("content") or "",
        "tool_calls": [
            _call_from_dict(c, f"{where}.tool_calls[{n}]", index) for n, c in enumerate(calls)
        ],
    }
    for key in ("id", "response_metadata", "additional_kwargs"):
        if reply.get(key) is not None:
            fields[key] = reply[key]
    usage = reply.get("usage", reply.get("usage_metadata"))
    if usage is not None:
        fields["usage_metadata"] = _usage(usage, where, index)
    try:
        return AIMessage(**fields)
    except ValueError as error:  # pydantic's ValidationError: a field of the wrong type
        raise _fail(where, f"not a valid AI message: {error}", index) from None


def _copied(message: AIMessage) -> AIMessage:
    """A deep copy of ``message``, so that what an agent does to a reply never changes the
    script; one nested too deeply to copy (a hostile reply under test) is copied shallowly."""
    try:
        return message.model_copy(deep=True)
    except RecursionError:
        return message.model_copy()


def _as_message(reply: Any, where: str, index: int) -> AIMessage:
    """A reply that needs no request, as the AIMessage it stands for (checked)."""
    if isinstance(reply, AIMessageChunk):
        reply = message_chunk_to_message(reply)
    if isinstance(reply, AIMessage):
        message = _copied(reply)
    elif isinstance(reply, str):
        message = AIMessage(content=reply)
    elif isinstance(reply, Mapping):
        message = _reply_from_dict(reply, where, index)
    else:
        raise _fail(
            where,
            "a reply is an AIMessage, a dict, a str, a pydantic model instance or a function "
            f"of the request; got {type(reply).__name__} {reply!r:.80}",
            index,
        )
    return _checked(message, where, index)


def _checked(message: AIMessage, where: str, index: int) -> AIMessage:
    """Tool call arguments made JSON data, usage completed: what a provider would send."""
    calls = [
        {**c, "args": _json_args(c["args"], f"{where}.tool_calls[{n}]", index)}
        for n, c in enumerate(message.tool_calls)
    ]
    update: dict[str, Any] = {"tool_calls": calls}
    if message.usage_metadata is not None:
        update["usage_metadata"] = _usage(message.usage_metadata, where, index)
    return message.model_copy(update=update)


def _script_entry(reply: Any, index: int) -> Any:
    """A script entry as kept: an AIMessage, or what can only be answered with the request in
    hand (a function of the request, a pydantic model instance)."""
    where = f"script[{index}]"
    if isinstance(reply, type):
        raise _fail(where, f"{reply.__name__} is a class; a reply is an instance of one", index)
    if isinstance(reply, BaseMessage) and not isinstance(reply, AIMessage):
        raise _fail(where, f"a reply is an AI message, not a {reply.type} message", index)
    if isinstance(reply, AIMessage | str | Mapping):
        return _as_message(reply, where, index)
    if isinstance(reply, BaseModel) or callable(reply):
        return reply
    return _as_message(reply, where, index)  # raises, saying what a reply can be


def _structured_reply(instance: BaseModel, request: ScriptedRequest, where: str) -> AIMessage:
    """A pydantic instance answers a structured-output request the way it was asked: a call to
    the schema's tool when one is bound, JSON text when the request wants JSON."""
    schema = type(instance)
    names = {schema.__name__, convert_to_openai_tool(schema)["function"]["name"]}
    bound = [name for name in request.tool_names if name in names]
    if bound:
        return AIMessage(
            content="", tool_calls=[tool_call(bound[0], **instance.model_dump(mode="json"))]
        )
    if request.structured_output is not None or not request.tools:
        return AIMessage(content=instance.model_dump_json())
    raise _fail(
        where,
        f"a {schema.__name__} instance answers a structured-output request, but this request "
        f"binds no tool named {schema.__name__!r} and asks for no JSON answer; bound: "
        f"{', '.join(request.tool_names) or '(none)'}",
        request.index,
    )


# ------------------------------------------------------------------------------- streaming


def _text_pieces(content: str | list[Any]) -> list[Any]:
    """Content cut the way a provider streams it: text into words (with their spaces), a list
    of content blocks into one block per chunk."""
    if isinstance(content, list):
        return [[block] for block in content] or [[]]
    return re.findall(r"\S+\s*|\s+", content) or [""]


def _chunks(message: AIMessage) -> list[AIMessageChunk]:
    """Chunks whose sum is ``message``: its content piece by piece, then each tool call as two
    chunks (name and id with the first half of the arguments' JSON, then the rest)."""
    empty: str | list[Any] = [] if isinstance(message.content, list) else ""
    pieces = [] if message.tool_calls and not message.content else _text_pieces(message.content)
    chunks = [AIMessageChunk(content=piece, id=message.id) for piece in pieces]
    for position, call in enumerate(message.tool_calls):
        text = json.dumps(call["args"], ensure_ascii=False)
        half = len(text) // 2
        first = tool_call_chunk(name=call["name"], args=text[:half], id=call["id"], index=position)
        rest = tool_call_chunk(name=None, args=text[half:], id=None, index=position)
        chunks.append(AIMessageChunk(content=empty, id=message.id, tool_call_chunks=[first]))
        chunks.append(AIMessageChunk(content=empty, id=message.id, tool_call_chunks=[rest]))
    chunks[0].additional_kwargs = dict(message.additional_kwargs)
    chunks[0].response_metadata = dict(message.response_metadata)
    chunks[-1].usage_metadata = message.usage_metadata
    chunks[-1].chunk_position = "last"
    return chunks


# ------------------------------------------------------------------------------- the model


class ScriptedChatModel(BaseChatModel):
    """A langchain-core chat model that answers each request with the next reply of a script.

    A reply is an ``AIMessage``; a ``str`` (a text answer); a dict, in the LangChain shape
    (``{"content": ..., "tool_calls": [{"name", "args", "id"?}], "usage": {...}}``) or the
    OpenAI one (``{"role": "assistant", "tool_calls": [{"function": {"name", "arguments"}}]}``);
    a pydantic model instance (the answer to a structured-output request: a call to the
    schema's tool, or JSON text when JSON was asked for); or a function of the request
    (``ScriptedRequest``) returning one of these, to answer by what the agent sent (the last
    tool result, the bound tools, the schema asked for).

    Tool calls without an id get ``call_1``, ``call_2``, ... in the order the model hands them
    out. When tools are bound, a reply calling a tool that is not one of them is an error
    naming the reply. Every request is kept in ``requests``; asking once more than the script
    has replies raises ``ScriptExhaustedError`` with the request. ``usage=`` gives replies
    without ``usage_metadata`` that usage. The model is safe to share between threads: each
    request takes the next reply (function replies are called one at a time). ``reset()``
    rewinds it.

    ``bind_tools`` and ``with_structured_output`` work as with a provider's model, so
    ``create_agent``, LangGraph's ``ToolNode`` and structured output run on it; ``stream`` and
    ``astream`` yield chunks (words, tool call pieces) whose sum is the reply.
    """

    script: list[Any]
    usage: dict[str, Any] | None = None
    # A global LLM cache (``set_llm_cache``) would answer a repeated prompt without asking the
    # model; a script must always advance, so caching is off unless asked for.
    cache: BaseCache | bool | None = False

    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _requests: list[ScriptedRequest] = PrivateAttr(default_factory=list)
    _calls_handed_out: int = PrivateAttr(default=0)

    def __init__(self, script: Iterable[Any] | None = None, /, **kwargs: Any) -> None:
        replies = kwargs.pop("script", ()) if script is None else script
        if isinstance(replies, str | bytes | Mapping | BaseMessage | BaseModel):
            raise TypeError(
                f"a script is a list of replies, not one {type(replies).__name__}: "
                "wrap it in a list"
            )
        kwargs["script"] = [_script_entry(reply, n) for n, reply in enumerate(replies)]
        if kwargs.get("usage") is not None:
            kwargs["usage"] = _usage(kwargs["usage"], "ScriptedChatModel(usage=...)", None)
        super().__init__(**kwargs)

    @property
    def _llm_type(self) -> str:
        return "scripted-chat-model"

    @property
    def requests(self) -> list[ScriptedRequest]:
        """Every request received so far, in order (the one that found the script empty too)."""
        with self._lock:
            return list(self._requests)

    @property
    def calls_made(self) -> int:
        """How many requests the model has received."""
        with self._lock:
            return len(self._requests)

    @property
    def replies_left(self) -> int:
        """How many replies the script has not used yet."""
        with self._lock:
            return max(0, len(self.script) - len(self._requests))

    def reset(self) -> None:
        """Rewind to the start of the script, forgetting the requests and the tool call count."""
        with self._lock:
            self._requests.clear()
            self._calls_handed_out = 0

    # ---------------------------------------------------------------- binding

    def bind_tools(
        self,
        tools: Sequence[ToolLike],
        *,
        tool_choice: str | dict[str, Any] | bool | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools as a provider's model does: each in the OpenAI tool format, as call
        options. LangChain tools, functions, pydantic models, TypedDicts and dicts are accepted;
        the request shows them (``request.tools``) and they decide which tool calls are valid."""
        options: dict[str, Any] = {"tools": [_tool_schema(t) for t in tools], **kwargs}
        if tool_choice is not None:
            options["tool_choice"] = tool_choice
        structured = kwargs.get("ls_structured_output_format")
        if structured and structured.get("schema") is not None:
            options["structured_output"] = convert_to_json_schema(structured["schema"])
        return self.bind(**options)

    def with_structured_output(
        self,
        schema: dict[str, Any] | type | None = None,
        *,
        include_raw: bool = False,
        method: str = "function_calling",
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, dict[str, Any] | BaseModel]:
        """Structured output as providers offer it: ``method="function_calling"`` (the default:
        langchain-core's own path, a forced call to the schema's tool), ``"json_schema"`` or
        ``"json_mode"`` (the reply's text is the JSON answer). ``include_raw`` as usual."""
        if method == "function_calling":
            if schema is None:
                raise ValueError("with_structured_output(method='function_calling') needs a schema")
            return super().with_structured_output(schema, include_raw=include_raw, **kwargs)
        if method not in ("json_schema", "json_mode"):
            raise ValueError(
                f"unknown method {method!r}: use 'function_calling', 'json_schema' or 'json_mode'"
            )
        kwargs.pop("strict", None)
        if kwargs:
            raise ValueError(f"with_structured_output got unknown arguments {sorted(kwargs)}")
        return _json_structured_output(self, schema, method, include_raw)

    # ---------------------------------------------------------------- answering

    def _respond(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None,
        options: dict[str, Any],
        *,
        streaming: bool = False,
    ) -> AIMessage:
        """Record the request and hand out the reply due for it."""
        with self._lock:
            request = _request(len(self._requests), messages, stop, options)
            self._requests.append(request)
            if request.index >= len(self.script):
                raise ScriptExhaustedError(
                    _exhausted(request, len(self.script)), request=request, replies=len(self.script)
                )
            reply = self._resolve(self.script[request.index], request)
            if streaming and reply.invalid_tool_calls:
                raise _fail(
                    f"script[{request.index}]",
                    "a reply with invalid tool calls cannot be streamed: langchain-core parses "
                    "streamed tool calls again, and would make them valid ones",
                    request.index,
                )
            return self._numbered(reply)

    def _resolve(self, entry: Any, request: ScriptedRequest) -> AIMessage:
        where = f"script[{request.index}]"
        if isinstance(entry, AIMessage):
            reply = _copied(entry)
        elif isinstance(entry, BaseModel):
            reply = _structured_reply(entry, request, where)
        else:
            answer = entry(request)
            where = f"{where} (returned by {getattr(entry, '__name__', 'the function')})"
            if isinstance(answer, BaseModel) and not isinstance(answer, BaseMessage):
                reply = _structured_reply(answer, request, where)
            else:
                reply = _as_message(answer, where, request.index)
        _check_tools(reply, request, where)
        if reply.usage_metadata is None and self.usage is not None:
            reply.usage_metadata = cast(Any, dict(self.usage))
        return reply

    def _numbered(self, reply: AIMessage) -> AIMessage:
        """``reply`` with ``call_<n>`` ids for its tool calls that have none."""
        calls = []
        for call in reply.tool_calls:
            self._calls_handed_out += 1
            calls.append({**call, "id": call["id"] or f"call_{self._calls_handed_out}"})
        return reply.model_copy(update={"tool_calls": calls})

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,  # noqa: ARG002
        **kwargs: Any,
    ) -> ChatResult:
        reply = self._respond(messages, stop, kwargs)
        return ChatResult(generations=[ChatGeneration(message=reply)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,  # noqa: ARG002
        **kwargs: Any,
    ) -> ChatResult:
        # Nothing to wait for: answering from a script is instant, so no thread-pool hop.
        return self._generate(messages, stop, **kwargs)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,  # noqa: ARG002
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in _chunks(self._respond(messages, stop, kwargs, streaming=True)):
            yield ChatGenerationChunk(message=chunk)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,  # noqa: ARG002
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in _chunks(self._respond(messages, stop, kwargs, streaming=True)):
            yield ChatGenerationChunk(message=chunk)


def _request(
    index: int, messages: list[BaseMessage], stop: list[str] | None, options: dict[str, Any]
) -> ScriptedRequest:
    options = dict(options)
    tools = tuple(options.pop("tools", None) or ())
    tool_choice = options.pop("tool_choice", None)
    structured = options.pop("structured_output", None)
    response_format = options.get("response_format")
    if structured is None and isinstance(response_format, Mapping):
        json_schema = response_format.get("json_schema")
        if isinstance(json_schema, Mapping) and isinstance(json_schema.get("schema"), Mapping):
            structured = {"title": json_schema.get("name"), **json_schema["schema"]}
    return ScriptedRequest(
        index=index,
        messages=tuple(m.model_copy(deep=True) for m in messages),
        tools=tools,
        tool_choice=tool_choice,
        structured_output=structured,
        stop=tuple(stop) if stop is not None else None,
        options=options,
    )


def _check_tools(reply: AIMessage, request: ScriptedRequest, where: str) -> None:
    """A reply may call only tools the request binds (when it binds any, all with names)."""
    if not request.tools or len(request.tool_names) < len(request.tools):
        return
    for n, call in enumerate(reply.tool_calls):
        if call["name"] not in request.tool_names:
            raise _fail(
                f"{where}.tool_calls[{n}]",
                f"calls {call['name']!r}, which is not a tool bound to the model (the "
                f"{_ordinal(request.index + 1)} reply); bound: {', '.join(request.tool_names)}",
                request.index,
            )


def _exhausted(request: ScriptedRequest, replies: int) -> str:
    asked = _ordinal(request.index + 1)
    return (
        f"the agent asked a {asked} time; the script has {_count(replies, 'reply', 'replies')}.\n"
        f"The {asked} request: {request.render()}\n"
        "Add a reply to the script, or read the last messages to see why it asked again."
    )


def _json_structured_output(
    model: ScriptedChatModel, schema: dict[str, Any] | type | None, method: str, include_raw: bool
) -> Runnable[LanguageModelInput, Any]:
    """``with_structured_output`` by JSON text: the model is bound with a ``response_format``
    as OpenAI's models are, and the reply's text is parsed (and validated for pydantic)."""
    json_schema = convert_to_json_schema(schema) if schema is not None else None
    if method == "json_schema":
        if json_schema is None:
            raise ValueError("with_structured_output(method='json_schema') needs a schema")
        response_format: dict[str, Any] = {
            "type": "json_schema",
            "json_schema": {"name": json_schema["title"], "schema": json_schema},
        }
    else:
        response_format = {"type": "json_object"}
    bound = model.bind(
        response_format=response_format,
        structured_output=json_schema,
        ls_structured_output_format={"kwargs": {"method": method}, "schema": schema},
    )
    parser: Runnable[Any, Any]
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        parser = PydanticOutputParser(pydantic_object=schema)
    else:
        parser = JsonOutputParser()
    if not include_raw:
        return bound | parser
    parsed = RunnablePassthrough.assign(
        parsed=itemgetter("raw") | parser, parsing_error=lambda _: None
    )
    unparsed = RunnablePassthrough.assign(parsed=lambda _: None)
    return RunnableMap(raw=bound) | parsed.with_fallbacks([unparsed], exception_key="parsing_error")
