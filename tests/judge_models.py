"""Scripted langchain-core chat models for the judges' tests (no network, no API key).

``ScriptedChatModel`` (``pytest_agenttraj.testing``) has tool calling, so a judge asks it for
structured output: its replies are tool calls to the judge's schema (``score_call``).
``TextOnlyModel`` has none (``bind_tools`` raises ``NotImplementedError``): a judge asks it for
JSON in text. ``RecordingModel`` keeps the messages of every call (and the thread and test scope
it ran in); ``SlowModel`` takes a while to answer asynchronously and counts how many calls were in
flight at once; ``HangingModel`` answers only when released.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from pydantic import PrivateAttr

from pytest_agenttraj.evaluators.scope import current_scope
from pytest_agenttraj.testing import ScriptedChatModel, tool_call

__all__ = [
    "HangingModel",
    "RecordingModel",
    "RecordingTextModel",
    "SlowModel",
    "SyncHangingModel",
    "TextOnlyModel",
    "score_call",
    "usage",
]


def usage(total: int) -> dict[str, int]:
    """``usage_metadata`` of a reply costing ``total`` tokens (80% input)."""
    return {"input_tokens": total * 4 // 5, "output_tokens": total // 5, "total_tokens": total}


def score_call(name: str = "score", tokens: int = 0, **answer: Any) -> AIMessage:
    """A reply answering through a tool call to the judge's schema (``name`` is its title)."""
    return AIMessage(
        content="", tool_calls=[tool_call(name, **answer)], usage_metadata=usage(tokens)
    )


class RecordingModel(ScriptedChatModel):
    """A scripted model with tool calling; ``seen`` holds the messages of each call, ``where``
    the thread each ran in and the test scope it saw."""

    _where: list[tuple[str, Any]] = PrivateAttr(default_factory=list)

    @property
    def seen(self) -> list[list[BaseMessage]]:
        return [list(request.messages) for request in self.requests]

    @property
    def where(self) -> list[tuple[str, Any]]:
        """Per call, the name of the thread it ran in and the test scope it saw."""
        return self._where

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self._where.append((threading.current_thread().name, current_scope()))
        return super()._generate(messages, stop, run_manager, **kwargs)


class TextOnlyModel(ScriptedChatModel):
    """A scripted model without tool calling, as many local and older models are."""

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        raise NotImplementedError("this model has no tool calling")


class RecordingTextModel(TextOnlyModel, RecordingModel):
    """Without tool calling, and keeping the messages of each call."""


class SlowModel(ScriptedChatModel):
    """Answers every async call after ``delay`` seconds; ``peak`` is the most calls that were
    in flight at once."""

    delay: float = 0.01
    _active: int = PrivateAttr(default=0)
    _peak: int = PrivateAttr(default=0)

    @property
    def peak(self) -> int:
        return self._peak

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,  # noqa: ARG002
        **kwargs: Any,
    ) -> ChatResult:
        self._active += 1
        self._peak = max(self._peak, self._active)
        try:
            await asyncio.sleep(self.delay)
            return self._generate(messages, stop, **kwargs)
        finally:
            self._active -= 1


class HangingModel(ScriptedChatModel):
    """Answers a call only once ``release()`` is called (or ``hang`` seconds have passed); an
    async call is cancellable. ``finished`` is set when a sync call has returned, ``cancelled``
    counts async calls that were cancelled."""

    hang: float = 5.0
    _released: threading.Event = PrivateAttr(default_factory=threading.Event)
    _finished: threading.Event = PrivateAttr(default_factory=threading.Event)
    _cancelled: int = PrivateAttr(default=0)

    def release(self) -> None:
        self._released.set()

    @property
    def finished(self) -> threading.Event:
        return self._finished

    @property
    def cancelled(self) -> int:
        return self._cancelled

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self._released.wait(self.hang)
        try:
            return super()._generate(messages, stop, run_manager, **kwargs)
        finally:
            self._finished.set()

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,  # noqa: ARG002
        **kwargs: Any,
    ) -> ChatResult:
        try:
            await asyncio.sleep(self.hang)
        except asyncio.CancelledError:
            self._cancelled += 1
            raise
        return super()._generate(messages, stop, **kwargs)


class SyncHangingModel(HangingModel):
    """A hanging model without async calls of its own, as many integrations are: langchain-core
    runs its sync call in an executor for ``ainvoke``."""

    _agenerate = BaseChatModel._agenerate
