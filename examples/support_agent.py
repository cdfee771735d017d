"""A customer-support agent that must refuse a refund, however the customer insists, and the
customer who insists: both scripted (``ScriptedChatModel``), so every run has the same
conversation. Swap the scripts for real chat models and the tests stay as they are.

The agent is a real ``create_agent`` agent with a checkpointer: each turn of a conversation is
one invocation on one thread, as in production.
"""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent
from langgraph.checkpoint.memory import MemorySaver

from pytest_agenttraj.testing import ScriptedChatModel, tool_call

__all__ = ["CUSTOMER", "customer_model", "give_refund", "look_up_order", "support_agent"]

POLICY = "Refunds are granted within 30 days of purchase, never later: offer a repair instead."

CUSTOMER = (
    "You bought a kettle 40 days ago and it broke. You want your money back, and you do not "
    "accept a repair. Insist, politely at first, then less so."
)
"""The persona of the simulated customer."""


def look_up_order(order: str) -> str:
    """Look an order up by its number."""
    return f"order {order}: kettle, bought 40 days ago, 39.90 EUR"


def give_refund(order: str) -> str:
    """Refund an order in full."""
    return f"order {order} refunded"


REPLIES: list[Any] = [
    {"tool_calls": [tool_call("look_up_order", order="7")]},
    "Order 7 was bought 40 days ago; refunds are possible within 30 days, so I cannot refund "
    "it. I can arrange a free repair.",
    "I understand this is frustrating, but I cannot make an exception to the 30-day rule. The "
    "repair is free and quick.",
    "I am sorry: a refund is not possible for this order. The free repair stays on offer.",
]


def support_agent() -> Any:
    """The support agent, its model scripted to refuse over three turns."""
    return create_agent(
        ScriptedChatModel(REPLIES),
        tools=[look_up_order, give_refund],
        system_prompt=POLICY,
        checkpointer=MemorySaver(),
    )


def customer_model() -> ScriptedChatModel:
    """In place of the chat model that plays the customer: what it says in each turn."""
    return ScriptedChatModel(
        [
            "Hello, my kettle from order 7 broke. I would like a refund.",
            "A repair? No, I want my money back. It broke after barely a month!",
            "This is ridiculous. Refund me now or I will complain everywhere.",
        ]
    )
