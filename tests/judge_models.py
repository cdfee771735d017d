"""Scripted langchain-core chat models for the judges' tests (no network, no API key).

``ScriptedChatModel`` (``pytest_agenttraj.testing``) has tool calling, so a judge asks it for
structured output: its replies are tool calls to the judge's schema (``score_call``).
``TextOnlyModel`` has none (``bind_tools`` raises ``NotImplementedError``): a judge asks it for
JSON in text. ``RecordingModel`` keeps the messages of every call; ``SlowModel`` takes a while
to answer asynchronously and counts how many calls were in flight at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun
from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from pydantic import PrivateAttr

from pytest_agenttraj.testing import ScriptedChatModel, tool_call

__all__ = [
    "RecordingModel",
    "RecordingTextModel",
    "SlowModel",
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
    """A scripted model with tool calling; ``seen`` holds the messages of each call."""

    @property
    def seen(self) -> list[list[BaseMessage]]:
        return [list(request.messages) for request in self.requests]


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
