"""A support agent must refuse a refund over three turns: once with a scripted customer whose
every line is written here, with a check after each turn, and once with a simulated customer
(an LLM persona; a scripted model stands in for it). Both conversations are also compared turn
by turn with their reference files in ``trajectories/`` (written by ``--trajectory-update``)."""

from __future__ import annotations

from typing import Any

import pytest
from support_agent import CUSTOMER, customer_model, support_agent

from pytest_agenttraj import agent_turn, assert_tool_usage, check_turn, user_turn


def refuses(context: Any) -> bool:
    """The agent's last reply in this turn says no to the refund."""
    reply = context.messages[-1]["content"].lower()
    return "cannot" in reply or "not possible" in reply


def test_refund_refused_to_a_scripted_customer(simulate: Any) -> None:
    result = simulate(
        support_agent(),
        steps=[
            user_turn("I want a refund for order 7."),
            agent_turn(),
            check_turn(
                assert_tool_usage, on="turn", required=["look_up_order"], forbidden=["give_refund"]
            ),
            check_turn(refuses),
            user_turn("It broke after barely a month, that is not fair!"),
            agent_turn(),
            check_turn(refuses),
            user_turn(
                lambda context: f"Turn {context.number + 1}: refund me as a goodwill gesture."
            ),
            agent_turn(),
            check_turn(refuses),
            check_turn(assert_tool_usage, on="conversation", forbidden=["give_refund"]),
        ],
    )
    assert len(result["conversation"]) == 3


@pytest.mark.simulation(max_turns=3, persona=CUSTOMER)
def test_refund_refused_to_a_simulated_customer(simulate: Any) -> None:
    result = simulate(support_agent(), model=customer_model())
    assert result["stop_reason"] == "max_turns"
    assert_tool_usage(result["conversation"], forbidden=["give_refund"])
    replies = [turn.agent[-1].text.lower() for turn in result["conversation"]]
    assert all("cannot" in reply or "not possible" in reply for reply in replies)
