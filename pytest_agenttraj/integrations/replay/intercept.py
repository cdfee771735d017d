"""Intercepting langchain-core chat-model generation while a recorder is active.

Every way of calling a chat model ends in one of two places of ``BaseChatModel``:
``invoke``, ``ainvoke``, ``batch``, ``generate`` (and so tool calling and structured output,
which are bound calls of these) reach ``_generate_with_cache`` / ``_agenerate_with_cache``,
whichever of ``_generate``, ``_stream`` or the event protocol then answers; ``stream`` and
``astream`` call the model class's ``_stream`` / ``_astream`` themselves. The first two are
replaced on ``BaseChatModel``; for the last, the class of a model streamed while recording is
active gets its ``_stream`` / ``_astream`` wrapped until the recorder stops. Callbacks, tracing
and langchain-core's own message handling run as usual around the replaced step; only the
provider is not asked.
"""

from __future__ import annotations

import contextvars
import re
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.outputs.chat_generation import merge_chat_generation_chunks

from .convert import chunks_of, message_of, model_identity, request_of, response_of
from .recorder import Recorder

__all__ = ["activate", "active", "deactivate"]

_LC_ID_PREFIX = "lc_run-"
_lock = threading.RLock()
_active: Recorder | None = None
_redact: tuple[re.Pattern[str], ...] = ()
_patched: list[tuple[type, str, Any]] = []
# Set while the real model answers a recorded call, so that the step it reaches next
# (``_stream`` inside ``_generate_with_cache``) is not taken for a call of its own.
_inside = contextvars.ContextVar("agenttraj_replay_inside", default=False)


def active() -> Recorder | None:
    """The recorder in force, if any."""
    return _active


def _prepare(
    model: BaseChatModel, messages: Sequence[BaseMessage], stop: Any, kwargs: dict[str, Any]
) -> tuple[Recorder, str, dict[str, Any], Any] | None:
    recorder = _active
    if recorder is None or _inside.get():
        return None
    identity = model_identity(model)
    request = request_of(model, messages, stop, kwargs, _redact)
    return recorder, identity, request, recorder.replayed(identity, request)


def _result(response: Any, run_manager: Any) -> ChatResult:
    message = message_of(response)
    if message.id is None and run_manager is not None:
        message.id = f"{_LC_ID_PREFIX}-{run_manager.run_id}-0"
    return ChatResult(generations=[ChatGeneration(message=message)])


def _generate_with_cache(original: Callable[..., ChatResult]) -> Callable[..., ChatResult]:
    def replaced(
        self: BaseChatModel,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        prepared = _prepare(self, messages, stop, kwargs)
        if prepared is None:
            return original(self, messages, stop, run_manager, **kwargs)
        recorder, identity, request, response = prepared
        if response is not None:
            return _result(response, run_manager)
        token = _inside.set(True)
        started = time.perf_counter()
        try:
            result = original(self, messages, stop, run_manager, **kwargs)
        finally:
            _inside.reset(token)
        took = time.perf_counter() - started
        message = response_of(result.generations[0].message, _redact)
        recorder.record(identity, request, message, took)
        return result

    return replaced


def _agenerate_with_cache(original: Callable[..., Any]) -> Callable[..., Any]:
    async def replaced(
        self: BaseChatModel,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        prepared = _prepare(self, messages, stop, kwargs)
        if prepared is None:
            passed: ChatResult = await original(self, messages, stop, run_manager, **kwargs)
            return passed
        recorder, identity, request, response = prepared
        if response is not None:
            return _result(response, run_manager)
        token = _inside.set(True)
        started = time.perf_counter()
        try:
            result: ChatResult = await original(self, messages, stop, run_manager, **kwargs)
        finally:
            _inside.reset(token)
        took = time.perf_counter() - started
        message = response_of(result.generations[0].message, _redact)
        recorder.record(identity, request, message, took)
        return result

    return replaced


def _stream(original: Callable[..., Iterator[ChatGenerationChunk]]) -> Callable[..., Any]:
    def replaced(
        self: BaseChatModel,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        prepared = _prepare(self, messages, stop, kwargs)
        if prepared is None:
            yield from original(self, messages, stop, run_manager, **kwargs)
            return
        recorder, identity, request, response = prepared
        if response is not None:
            yield from chunks_of(message_of(response))
            return
        chunks = []
        started = time.perf_counter()
        for chunk in original(self, messages, stop, run_manager, **kwargs):
            chunks.append(chunk)
            yield chunk
        took = time.perf_counter() - started
        merged = merge_chat_generation_chunks(chunks)
        if merged is not None:
            recorder.record(identity, request, response_of(merged.message, _redact), took)

    return replaced


def _astream(original: Callable[..., AsyncIterator[ChatGenerationChunk]]) -> Callable[..., Any]:
    async def replaced(
        self: BaseChatModel,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        prepared = _prepare(self, messages, stop, kwargs)
        if prepared is None:
            async for chunk in original(self, messages, stop, run_manager, **kwargs):
                yield chunk
            return
        recorder, identity, request, response = prepared
        if response is not None:
            for chunk in chunks_of(message_of(response)):
                yield chunk
            return
        chunks = []
        started = time.perf_counter()
        async for chunk in original(self, messages, stop, run_manager, **kwargs):
            chunks.append(chunk)
            yield chunk
        took = time.perf_counter() - started
        merged = merge_chat_generation_chunks(chunks)
        if merged is not None:
            recorder.record(identity, request, response_of(merged.message, _redact), took)

    return replaced


_STREAMS: dict[str, Callable[[Any], Callable[..., Any]]] = {
    "_stream": _stream,
    "_astream": _astream,
}


def _wrap_streams(cls: type) -> None:
    """Wrap the streaming steps ``cls`` implements (those it inherits from ``BaseChatModel``
    are left alone: langchain-core tells by identity whether a model streams)."""
    with _lock:
        if _active is None:
            return
        for name, wrapper in _STREAMS.items():
            own = getattr(cls, name)
            if own is getattr(BaseChatModel, name) or getattr(own, "_agenttraj", False):
                continue
            replaced = wrapper(own)
            replaced.__dict__["_agenttraj"] = True
            _patched.append((cls, name, cls.__dict__.get(name)))
            setattr(cls, name, replaced)


def _entry(original: Callable[..., Any], *, is_async: bool) -> Callable[..., Any]:
    """``stream`` / ``astream``, wrapping the model class's streaming steps first."""
    if is_async:

        async def astream(self: BaseChatModel, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
            _wrap_streams(type(self))
            async for chunk in original(self, *args, **kwargs):
                yield chunk

        return astream

    def stream(self: BaseChatModel, *args: Any, **kwargs: Any) -> Iterator[Any]:
        _wrap_streams(type(self))
        yield from original(self, *args, **kwargs)

    return stream


def activate(recorder: Recorder, redact: Sequence[re.Pattern[str]] = ()) -> None:
    """Answer (or record) every chat-model call through ``recorder`` until ``deactivate``."""
    global _active, _redact
    with _lock:
        if _active is not None:
            raise RuntimeError("a cassette is already active in this process")
        base = BaseChatModel
        replacements = {
            "_generate_with_cache": _generate_with_cache(base._generate_with_cache),
            "_agenerate_with_cache": _agenerate_with_cache(base._agenerate_with_cache),
            "stream": _entry(base.stream, is_async=False),
            "astream": _entry(base.astream, is_async=True),
        }
        for name, replaced in replacements.items():
            _patched.append((base, name, base.__dict__[name]))
            setattr(base, name, replaced)
        _redact = tuple(redact)
        _active = recorder


def deactivate() -> None:
    """Put every replaced method back."""
    global _active, _redact
    with _lock:
        while _patched:
            cls, name, original = _patched.pop()
            if original is None:
                delattr(cls, name)
            else:
                setattr(cls, name, original)
        _active = None
        _redact = ()
