"""Shared helpers for the example tests: run an agent on its question, the way a test would."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture
def ask() -> Callable[[Any, str], list[Any]]:
    """``ask(agent, question)`` invokes a compiled agent and returns its message trajectory."""

    def run(agent: Any, question: str) -> list[Any]:
        result = agent.invoke({"messages": [{"role": "user", "content": question}]})
        return list(result["messages"])

    return run
