"""The judge's chat model: a langchain-core ``BaseChatModel`` given as ``judge=``, or made from a
``"provider:model"`` string with langchain's ``init_chat_model`` when first needed. Its identity
keys the cache: for a model given, its class, type and parameters as langchain-core reports them;
for a string, the string itself, so that an answer is found in the cache without making the model
(no client, no API key). langchain-core is imported here, inside functions only."""

from __future__ import annotations

import importlib
import json
import threading
import warnings
import weakref
from collections.abc import Callable, Mapping
from typing import Any, cast

__all__ = ["JudgeModel", "message_usage", "model_identity", "shared_identity"]

_EXTRA_HINT = "pip install 'pytest-agenttraj[judges]'"

# Fields of every langchain-core model that change how it is called, not what it answers.
_NOT_DECIDING = frozenset(
    {
        "cache",
        "callback_manager",
        "callbacks",
        "custom_get_token_ids",
        "disable_streaming",
        "http_async_client",
        "http_client",
        "max_retries",
        "metadata",
        "rate_limiter",
        "request_timeout",
        "streaming",
        "tags",
        "timeout",
        "verbose",
    }
)


def _stable(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON data that is the same in every run: objects stand for their type."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if depth > 20:
        return "<deep>"
    if isinstance(value, Mapping):
        return {str(k): _stable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [_stable(v, depth + 1) for v in value]
        return sorted(items, key=repr) if isinstance(value, set | frozenset) else items
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        try:
            dumped = dump()
        except Exception:  # a model that cannot dump itself stands for its type
            dumped = None
        if dumped is not None:
            return _stable(dumped, depth + 1)
    secret = getattr(value, "get_secret_value", None)
    if callable(secret):
        return "<secret>"
    return f"<{type(value).__module__}.{type(value).__qualname__}>"


def model_identity(model: Any) -> dict[str, Any]:
    """What decides a model's answers, as langchain-core reports it: class, ``_llm_type``,
    ``_identifying_params`` and the model's own fields (``model_dump``), minus those that
    only change how it is called (callbacks, retries, timeouts, ...)."""
    kind = type(model)
    identity: dict[str, Any] = {"class": f"{kind.__module__}.{kind.__qualname__}"}
    try:
        identity["type"] = _stable(model._llm_type)
    except Exception:  # some models compute it; the class still identifies them
        identity["type"] = None
    try:
        identity["params"] = _stable(dict(model._identifying_params))
    except Exception:
        identity["params"] = None
    try:
        fields = model.model_dump(exclude=set(_NOT_DECIDING))
    except Exception:
        fields = None
    identity["fields"] = _stable(fields)
    return identity


class _Same:
    """A value compared by identity in a snapshot (an object whose ``==`` may be costly or
    missing)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.value is self.value

    __hash__ = None  # type: ignore[assignment]  # compared, never hashed


def _shape(value: Any, depth: int = 0) -> Any:
    """``value`` as data that compares equal only while ``value`` is unchanged: plain values and
    containers by content (with their types: ``1``, ``1.0`` and ``True`` differ), any other
    object by identity."""
    if value is None or isinstance(value, bool | int | float | str | bytes):
        return (type(value), value)
    if depth < 8 and isinstance(value, list | tuple):
        return (type(value), tuple(_shape(item, depth + 1) for item in value))
    if depth < 8 and isinstance(value, dict):
        return (dict, tuple((key, _shape(item, depth + 1)) for key, item in value.items()))
    return _Same(value)


def _snapshot(model: Any) -> Any:
    """What a model's fields hold now, cheaply (``None`` when it keeps them elsewhere)."""
    try:
        fields = vars(model)
    except TypeError:
        return None
    extra = getattr(model, "__pydantic_extra__", None)
    return (_shape(fields), _shape(extra) if isinstance(extra, dict) else None)


_KNOWN: dict[int, tuple[weakref.ref[Any], Any, dict[str, Any]]] = {}
_KNOWN_LOCK = threading.Lock()


def shared_identity(model: Any) -> dict[str, Any]:
    """``model_identity(model)``, worked out again only when the model's fields changed since
    it was last worked out: the judges a test run makes for one model (one per test, through
    the fixtures) share it. A field changed in place inside an object that is not a plain list
    or dict goes unseen; a model changed that way is a new model to make."""
    snapshot = _snapshot(model)
    if snapshot is None:
        return _identity_now(model)
    with _KNOWN_LOCK:
        known = _KNOWN.get(id(model))
    if known is not None and known[0]() is model and known[1] == snapshot:
        return known[2]
    identity = _identity_now(model)
    key = id(model)

    def forget(_gone: weakref.ref[Any]) -> None:
        _KNOWN.pop(key, None)

    try:
        ref = weakref.ref(model, forget)
    except TypeError:  # a model that cannot be referred to weakly is not kept
        return identity
    with _KNOWN_LOCK:
        _KNOWN[key] = (ref, snapshot, identity)
    return identity


def _identity_now(model: Any) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. deprecated fields read by model_dump
        return model_identity(model)


def model_label(model: Any) -> str:
    """A short name for reports: ``ChatOpenAI(gpt-4o-mini)``."""
    name = type(model).__name__
    for attribute in ("model_name", "model", "model_id"):
        value = getattr(model, attribute, None)
        if isinstance(value, str) and value:
            return f"{name}({value})"
    return name


def message_usage(message: Any) -> dict[str, int]:
    """Token counts of one reply (``usage_metadata``), zeros when the model reports none."""
    usage = getattr(message, "usage_metadata", None) or {}
    return {
        key: int(usage.get(key) or 0) for key in ("input_tokens", "output_tokens", "total_tokens")
    }


def _check_chat_model(judge: Any) -> None:
    from langchain_core.language_models import BaseChatModel

    if not isinstance(judge, BaseChatModel):
        raise TypeError(
            f"judge must be a langchain-core chat model (BaseChatModel), got "
            f"{type(judge).__name__}; or pass model='provider:model'"
        )


def _check_model_string(model: Any) -> None:
    if not isinstance(model, str) or not model.strip():
        raise ValueError(
            f"model must be a 'provider:model' string (e.g. 'openai:gpt-4o-mini'), got {model!r}"
        )
    try:
        importlib.import_module("langchain.chat_models")
    except ImportError:
        raise ImportError(
            f"model={model!r} needs the langchain package to make the chat model: "
            f"{_EXTRA_HINT}, or pass judge=<a langchain-core chat model>"
        ) from None


class JudgeModel:
    """The model a judge asks, made once on first use when given as a string; whether it can
    answer through tool calling (structured output) is found out once too."""

    def __init__(self, *, judge: Any = None, model: Any = None) -> None:
        if judge is None and model is None:
            raise ValueError(
                "an LLM judge needs judge= (a langchain-core chat model) or model= "
                "(a 'provider:model' string such as 'openai:gpt-4o-mini')"
            )
        if judge is not None and model is not None:
            raise ValueError("pass either judge= (a chat model) or model= (a string), not both")
        if judge is not None:
            _check_chat_model(judge)
        else:
            _check_model_string(model)
        self._model = judge
        self._spec = model
        self._lock = threading.Lock()
        self._identity: dict[str, Any] | None = None
        self._label: str | None = None
        self._structured: dict[str, Any] = {}
        self._last_schema: Mapping[str, Any] | None = None
        self._last_structured: Any = None

    def __repr__(self) -> str:
        return self.label if self._model is not None else f"model={self._spec!r}"

    def get(self) -> Any:
        """The chat model (made from the string on first call)."""
        if self._model is None:
            with self._lock:
                if self._model is None:
                    from langchain.chat_models import init_chat_model

                    self._model = init_chat_model(self._spec)
        return self._model

    @property
    def made(self) -> bool:
        """Whether the chat model exists yet (given, or made from the string)."""
        return self._model is not None

    @property
    def label(self) -> str:
        """A short name for reports (``ChatOpenAI(gpt-4o-mini)``), worked out once."""
        if self._label is None:
            self._label = model_label(self.get())
        return self._label

    def identity(self) -> dict[str, Any]:
        """What keys the cache for this model, worked out once: the string a model is made
        from, or the given model's class, type and parameters."""
        if self._identity is None:
            if self._spec is not None:
                self._identity = {"init_chat_model": self._spec}
            else:
                self._identity = shared_identity(self.get())
        return self._identity

    @property
    def has_async(self) -> bool:
        """Whether the model makes async calls of its own (else langchain-core runs its sync
        call in the event loop's executor)."""
        from langchain_core.language_models import BaseChatModel

        return type(self.get())._agenerate is not BaseChatModel._agenerate

    def structured(self, schema: Mapping[str, Any]) -> Any | None:
        """A runnable returning ``{"raw", "parsed", "parsing_error"}`` for ``schema`` through
        tool calling, or ``None`` when the model has none (``bind_tools`` not implemented)."""
        if schema is self._last_schema:  # a judge asks with one schema object
            return self._last_structured
        name = json.dumps(schema, sort_keys=True, default=str)
        if name not in self._structured:
            try:
                runnable = _structured(self.get(), dict(schema))
            except NotImplementedError:
                runnable = None
            self._structured[name] = runnable
        self._last_schema, self._last_structured = schema, self._structured[name]
        return self._last_structured


def _structured(model: Any, schema: dict[str, Any]) -> Any:
    """The model's own structured output (``with_structured_output``: how it binds the schema
    is the model's business) with the raw reply kept. langchain's ``include_raw=True`` wraps
    the model in parallel steps that start two threads per call; when the structured runnable
    is the usual sequence of the bound model and its parser, the two are called in turn here
    instead, to the same effect."""
    from langchain_core.runnables import RunnableSequence

    runnable = model.with_structured_output(schema)
    if isinstance(runnable, RunnableSequence) and len(runnable.steps) == 2:
        return _RawAndParsed(runnable.first, runnable.last)
    return model.with_structured_output(schema, include_raw=True)


def _reader(parser: Any) -> Callable[[Any], Any]:
    """How a reply is read with ``parser``. langchain-core's own output parsers read a message
    as ``parse_result([ChatGeneration(message=...)])``, which their ``invoke`` does inside a
    callback run of its own: most of the parser's cost, and a trace run of its own beside the
    model's. Any other parser (one overriding ``invoke``, a plain runnable) is invoked."""
    from langchain_core.messages import BaseMessage
    from langchain_core.output_parsers import BaseGenerationOutputParser, BaseOutputParser
    from langchain_core.outputs import ChatGeneration

    if getattr(type(parser), "invoke", None) not in (
        BaseOutputParser.invoke,
        BaseGenerationOutputParser.invoke,
    ):
        return cast(Callable[[Any], Any], parser.invoke)

    def read(raw: Any) -> Any:
        if isinstance(raw, BaseMessage):
            return parser.parse_result([ChatGeneration(message=raw)])
        return parser.invoke(raw)

    return read


class _RawAndParsed:
    """``{"raw", "parsed", "parsing_error"}`` from a bound model and its output parser."""

    def __init__(self, bound: Any, parser: Any) -> None:
        self.bound = bound
        self.parser = parser
        self._read = _reader(parser)

    def invoke(self, messages: Any) -> dict[str, Any]:
        return self._parse(self.bound.invoke(messages))

    async def ainvoke(self, messages: Any) -> dict[str, Any]:
        return self._parse(await self.bound.ainvoke(messages))

    def _parse(self, raw: Any) -> dict[str, Any]:
        try:
            parsed = self._read(raw)
        except Exception as error:  # as include_raw=True does: kept, quoted in the retry
            return {"raw": raw, "parsed": None, "parsing_error": error}
        return {"raw": raw, "parsed": parsed, "parsing_error": None}
