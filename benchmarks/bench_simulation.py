"""Benchmark pytest-agenttraj's multi-turn simulator against openevals', in the same run.

What it measures (median wall time of one whole conversation, ``time.perf_counter``, the two
implementations timed interleaved on the same inputs):

1. 20 turns with a plain function app and a list of user replies (the loop's own cost:
   message conversion, merging, turn bookkeeping);
2. 5 turns with a ``create_agent`` agent on a checkpointer (a ``ScriptedChatModel`` answering),
   where the agent's own run dominates.

Each row prints the ratio of medians (openevals / ours; above 1: ours is faster). LangSmith
tracing is off, as in a test run without ``--langsmith-output``. It is a report: the exit status
is 0 whatever the numbers are. Run it with ``.venv/bin/python benchmarks/bench_simulation.py``.
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable
from time import perf_counter
from typing import Any

os.environ.setdefault("LANGSMITH_TRACING", "false")

from langchain.agents import create_agent
from langgraph.checkpoint.memory import MemorySaver
from openevals.simulators import run_multiturn_simulation as openevals_run

from pytest_agenttraj import run_multiturn_simulation as ours_run
from pytest_agenttraj.testing import ScriptedChatModel

REPEATS = 15


def echo(message: Any, *, thread_id: str) -> dict[str, Any]:  # noqa: ARG001  (openevals' API)
    return {"role": "assistant", "content": f"you said {message['content']}"}


def agent_app(turns: int) -> Callable[..., Any]:
    agent = create_agent(
        ScriptedChatModel([f"answer {n}" for n in range(turns)]),
        tools=[],
        checkpointer=MemorySaver(),
    )

    def app(message: Any, *, thread_id: str) -> Any:
        config = {"configurable": {"thread_id": thread_id}}
        return agent.invoke({"messages": [message]}, config=config)["messages"][-1]

    return app


def _case(name: str, make_app: Callable[[], Any], turns: int) -> None:
    replies = [f"message {n}" for n in range(turns)]
    times: dict[str, list[float]] = {"openevals": [], "ours": []}
    for _ in range(REPEATS):
        for label, run in (("openevals", openevals_run), ("ours", ours_run)):
            app = make_app()
            started = perf_counter()
            result = run(app=app, user=replies, max_turns=turns)
            times[label].append(perf_counter() - started)
            assert len(result["trajectory"]) == 2 * turns
    medians = {label: statistics.median(values) for label, values in times.items()}
    ratio = medians["openevals"] / medians["ours"]
    print(
        f"{name:<44} openevals {medians['openevals'] * 1e3:8.2f} ms   "
        f"ours {medians['ours'] * 1e3:8.2f} ms   ratio {ratio:5.2f}"
    )


def main() -> None:
    print(f"multi-turn simulation, median of {REPEATS} interleaved runs each")
    _case("20 turns, function app, list of replies", lambda: echo, 20)
    _case("5 turns, create_agent app on a checkpointer", lambda: agent_app(5), 5)


if __name__ == "__main__":
    main()
