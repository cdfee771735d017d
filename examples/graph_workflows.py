"""LangGraph workflows whose paths the graph examples test: real compiled ``StateGraph`` s, no
model and no API key.

- ``workflow()``: the 7-node workflow. ``node1`` branches on ``shortcut``: to ``node2 -> node7``,
  or to ``node3``, which fans out to ``node4`` and ``node5`` (one superstep: they run at the same
  time), joined at ``node6``, then ``node7``. ``slow`` names a node that takes a little longer,
  so that either of node4 and node5 can be made to finish first.
- ``approval_workflow()``: ``draft -> review``, where ``review`` waits for a person
  (``interrupt``) and routes with ``Command`` to ``publish`` or back to ``draft``.
- ``map_reduce()``: ``plan`` sends each topic to ``summarize`` (``Send``: one task per topic, all
  in one superstep), then ``combine`` joins the summaries.
"""

from __future__ import annotations

import operator
import time
from typing import Annotated, Any, Literal, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, Send, interrupt

__all__ = ["approval_workflow", "map_reduce", "workflow"]


class WorkflowState(TypedDict, total=False):
    shortcut: bool
    slow: str
    visited: Annotated[list[str], operator.add]


def _node(name: str) -> Any:
    def run(state: WorkflowState) -> dict[str, Any]:
        if state.get("slow") == name:
            time.sleep(0.2)  # long enough that a loaded machine keeps the order
        return {"visited": [name]}

    return run


def workflow() -> CompiledStateGraph[Any, Any, Any, Any]:
    """The 7-node workflow (see the module docstring)."""
    graph = StateGraph(WorkflowState)
    for name in ("node1", "node2", "node3", "node4", "node5", "node6", "node7"):
        graph.add_node(name, _node(name))
    graph.add_edge(START, "node1")
    graph.add_conditional_edges(
        "node1", lambda state: "node2" if state.get("shortcut") else "node3", ["node2", "node3"]
    )
    graph.add_edge("node2", "node7")
    graph.add_edge("node3", "node4")
    graph.add_edge("node3", "node5")
    graph.add_edge(["node4", "node5"], "node6")
    graph.add_edge("node6", "node7")
    graph.add_edge("node7", END)
    return graph.compile()


class Draft(TypedDict, total=False):
    text: str
    revisions: int


def _draft(state: Draft) -> Draft:
    return {"text": "Release notes", "revisions": state.get("revisions", 0) + 1}


def _review(state: Draft) -> Command[Literal["publish", "draft"]]:
    verdict = interrupt({"please review": state["text"]})
    return Command(goto="publish" if verdict == "approve" else "draft")


def _publish(state: Draft) -> Draft:
    return {"text": state["text"] + " (published)"}


def approval_workflow() -> CompiledStateGraph[Any, Any, Any, Any]:
    """``draft -> review``, which waits for a verdict: ``approve`` publishes, anything else
    sends the text back to ``draft``. Keeps threads in memory (an interrupt needs them)."""
    graph = StateGraph(Draft)
    graph.add_node("draft", _draft)
    graph.add_node("review", _review)
    graph.add_node("publish", _publish)
    graph.add_edge(START, "draft")
    graph.add_edge("draft", "review")
    graph.add_edge("publish", END)
    return graph.compile(checkpointer=InMemorySaver())


class Topics(TypedDict, total=False):
    topics: list[str]
    topic: str
    summaries: Annotated[list[str], operator.add]
    report: str


def _send_topics(state: Topics) -> list[Send]:
    return [Send("summarize", {"topic": topic}) for topic in state["topics"]]


def map_reduce() -> CompiledStateGraph[Any, Any, Any, Any]:
    """``plan`` sends every topic to ``summarize``, ``combine`` joins the summaries."""
    graph = StateGraph(Topics)
    graph.add_node("plan", lambda _state: {"summaries": []})
    graph.add_node("summarize", lambda state: {"summaries": [f"{state['topic']}: fine"]})
    graph.add_node("combine", lambda state: {"report": "; ".join(sorted(state["summaries"]))})
    graph.add_edge(START, "plan")
    graph.add_conditional_edges("plan", _send_topics, ["summarize"])
    graph.add_edge("summarize", "combine")
    graph.add_edge("combine", END)
    return graph.compile()
