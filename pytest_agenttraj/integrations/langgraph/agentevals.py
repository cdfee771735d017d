"""agentevals' thread extractors under their own names and with their return shape, so switching
is a change of import: ``{"inputs": [...], "outputs": {"inputs": [], "results": [...], "steps":
[[node, ...], ...]}}``, steps as flat lists of names.

They read the same public checkpoint fields as :mod:`.history` (never checkpoint internals):
``inputs`` holds ``{"__start__": input}`` for an invocation that started from input and
``"__resuming__"`` for one that continued the thread; ``results`` the last message of a
``messages`` state (as an OpenAI dict), ``{}`` for an interrupted invocation, else the state. As in
agentevals, the invocation after an interrupt does not list the interrupted node again.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypedDict

from ...core.model import GraphTrajectory
from .history import Invocation, Walk, agroup_history, group_history, group_snapshots, namespace_of

__all__ = [
    "ExtractedLangGraphThreadTrajectory",
    "aextract_langgraph_trajectory_from_thread",
    "extract_langgraph_trajectory_from_snapshots",
    "extract_langgraph_trajectory_from_thread",
]

RESUMING = "__resuming__"


class ExtractedLangGraphThreadTrajectory(TypedDict):
    """agentevals' shape: the inputs beside a ``GraphTrajectory`` whose ``inputs`` stay empty."""

    inputs: list[Any]
    outputs: GraphTrajectory


def _result(invocation: Invocation) -> Any:
    if invocation.interrupted:
        return {}
    values = invocation.result
    if isinstance(values, Mapping) and isinstance(values.get("messages"), list):
        messages = values["messages"]
        if messages:
            from langchain_core.messages import BaseMessage, convert_to_openai_messages

            last = messages[-1]
            if isinstance(last, BaseMessage):
                return {"messages": convert_to_openai_messages([last])}
            return {"messages": [last]}
    return values


def _flat(steps: Sequence[str | list[str]]) -> list[str]:
    return [name for entry in steps for name in ([entry] if isinstance(entry, str) else entry)]


def _extracted(
    groups: Mapping[str, Sequence[Any]], root: str, *, before: Any = (), after: Any = ()
) -> ExtractedLangGraphThreadTrajectory:
    invocations = Walk(groups, rerun=False, before=before, after=after).invocations(root)
    return {
        "inputs": [{"__start__": i.input} if i.fresh else RESUMING for i in invocations],
        "outputs": {
            "inputs": [],
            "results": [_result(i) for i in invocations],
            "steps": [
                _flat(i.steps) + (["__interrupt__"] if i.interrupted else []) for i in invocations
            ],
        },
    }


def extract_langgraph_trajectory_from_snapshots(
    snapshots: Iterable[Any],
) -> ExtractedLangGraphThreadTrajectory:
    """A thread's trajectory from its ``StateSnapshot`` s (newest first, as
    ``get_state_history`` yields them; a subgraph's snapshots may be mixed in)."""
    groups = group_snapshots(snapshots)
    root = min(groups, key=lambda ns: (ns.count("|"), len(ns)), default="")
    return _extracted(groups, root)


def _graph_extracted(graph: Any, groups: Mapping[str, Sequence[Any]], config: Any) -> Any:
    return _extracted(
        groups,
        namespace_of(config),
        before=getattr(graph, "interrupt_before_nodes", ()),
        after=getattr(graph, "interrupt_after_nodes", ()),
    )


def extract_langgraph_trajectory_from_thread(
    graph: Any, config: Any
) -> ExtractedLangGraphThreadTrajectory:
    """The trajectory of the thread ``config`` names, subgraphs included.

    Example::

        extracted = extract_langgraph_trajectory_from_thread(graph, config)
        graph_trajectory_strict_match(outputs=extracted["outputs"], reference_outputs=reference)
    """
    result: ExtractedLangGraphThreadTrajectory = _graph_extracted(
        graph, group_history(graph, config), config
    )
    return result


async def aextract_langgraph_trajectory_from_thread(
    graph: Any, config: Any
) -> ExtractedLangGraphThreadTrajectory:
    """``extract_langgraph_trajectory_from_thread`` through the graph's async checkpointer."""
    result: ExtractedLangGraphThreadTrajectory = _graph_extracted(
        graph, await agroup_history(graph, config), config
    )
    return result
