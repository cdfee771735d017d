"""Run budgets (tokens, cost, tool errors, duration) on a real create_agent run whose scripted
model reports usage_metadata; a budget that cannot be evaluated is an error, never a pass."""

from __future__ import annotations

from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import ToolException, tool

from pytest_agenttraj import (
    BudgetError,
    ToolUsageViolation,
    assert_tool_usage,
    create_tool_usage_evaluator,
)
from pytest_agenttraj.testing import ScriptedChatModel


@tool
def lookup(city: str) -> str:
    """Look up the weather of a city."""
    if city == "Atlantis":
        raise ToolException("no such city")
    return "75F"


lookup.handle_tool_error = True  # the tool's error becomes a ToolMessage with status="error"


def _reply(content: str = "", calls: list[dict[str, Any]] | None = None, **usage: int) -> dict:
    return {
        "content": content,
        "tool_calls": calls or [],
        "usage": usage,
        "response_metadata": {"model_name": "small-model"},
    }


def _run(city: str = "SF") -> dict[str, Any]:
    model = ScriptedChatModel(
        [
            _reply(
                calls=[{"name": "lookup", "args": {"city": city}}],
                input_tokens=100,
                output_tokens=20,
            ),
            _reply("It is 75F.", input_tokens=150, output_tokens=30),
        ]
    )
    agent = create_agent(model, tools=[lookup])
    result: dict[str, Any] = agent.invoke({"messages": [{"role": "user", "content": "Weather?"}]})
    return result


PRICES = {"small-model": (1.0, 4.0)}  # per million input, output tokens


def test_token_and_cost_budgets_read_usage_metadata() -> None:
    result = _run()
    assert_tool_usage(result, max_total_tokens=300, max_tokens={"small-model": 300})
    assert_tool_usage(result, max_cost=0.0005, prices=PRICES)  # 250 * 1 + 50 * 4 = 450e-6
    with pytest.raises(ToolUsageViolation) as raised:
        assert_tool_usage(result, max_total_tokens=299, max_cost=0.0004, prices=PRICES)
    text = str(raised.value)
    assert "300 tokens over 2 model calls, more than max_total_tokens=299" in text
    assert "the run cost 0.00045, more than max_cost=0.0004" in text


def test_tool_errors_from_status_and_from_a_predicate() -> None:
    result = _run("Atlantis")
    assert any(isinstance(m, ToolMessage) and m.status == "error" for m in result["messages"])
    evaluator = create_tool_usage_evaluator(max_tool_errors=0)
    outcome = evaluator(outputs=result)
    assert outcome["score"] is False
    assert "1 tool errors, more than max_tool_errors=0: messages 2" in str(outcome["comment"])
    fine = _run()
    assert create_tool_usage_evaluator(max_tool_errors=0)(outputs=fine)["score"] is True
    picky = create_tool_usage_evaluator(
        max_tool_errors=0, tool_error=lambda message: "75F" in str(message.content)
    )
    assert picky(outputs=fine)["score"] is False


def test_a_budget_that_cannot_be_evaluated_is_an_error() -> None:
    bare = [{"role": "user", "content": "hi"}, AIMessage(content="hello")]
    with pytest.raises(BudgetError, match=r"^message 1: an assistant message without usage"):
        assert_tool_usage(bare, max_total_tokens=10)
    with pytest.raises(BudgetError, match=r"message 1: no price for model 'small-model'"):
        assert_tool_usage(_run(), max_cost=1.0, prices={"other": (1.0, 1.0)})
    with pytest.raises(BudgetError, match=r"no recorded duration"):
        assert_tool_usage(_run(), max_duration_s=5)
    with pytest.raises(ValueError, match=r"max_cost needs prices="):
        assert_tool_usage(_run(), max_cost=1.0)


def test_duration_budget_reads_the_state() -> None:
    state = {**_run(), "duration_s": 3.5}
    assert_tool_usage(state, max_duration_s=4)
    with pytest.raises(ToolUsageViolation, match=r"the run took 3\.5 s, more than max_duration"):
        assert_tool_usage(state, max_duration_s=3)
