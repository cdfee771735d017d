"""An instant judge model for the benchmarks: a ``ScriptedChatModel`` whose every reply calls the
tool the request binds (the judge's schema, whatever its name) with a passing score, so that
agentevals, openevals and this package all get the structured answer they ask for."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage

from pytest_agenttraj.testing import ScriptedChatModel, ScriptedRequest

ANSWER = {"reasoning": "It got there.", "score": True}


def answer(request: ScriptedRequest) -> AIMessage:
    """A call to the first tool bound to the request, answering ``ANSWER``."""
    call: Any = {"name": request.tool_names[0], "args": dict(ANSWER), "id": "call_1"}
    return AIMessage(content="", tool_calls=[call])


def instant_model(replies: int) -> ScriptedChatModel:
    """A model answering ``replies`` requests at once."""
    return ScriptedChatModel([answer] * replies)
