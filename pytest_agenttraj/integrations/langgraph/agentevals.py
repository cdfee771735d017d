"""agentevals' thread extractors under their own names and with their return shape, so switching
is a change of import: ``{"inputs": [...], "outputs": {"inputs": [], "results": [...], "steps":
[[node, ...], ...]}}``, steps as flat lists of names.

They read the same public checkpoint fields as :mod:`.history` (never checkpoint internals):
``inputs`` holds ``{"__start__": input}`` for an invocation that started from input and
``"__resuming__"`` for one that continued the thread; ``results`` the last message of a
``messages`` state (as an OpenAI dict), ``{}`` for an interrupted invocation, else the state. As in
agentevals, the invocation after an interrupt does not list the interrupted node again (one after
a failure lists the failed node: it is the retry that ran it), the nodes
of one superstep are listed in the reverse of the checkpoint's task order, each followed by its
subgraph's nodes only after all of them, and ``__interrupt__`` follows the node that was
interrupted (a breakpoint's ends the invocation).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypedDict

from ...core.model import GraphTrajectory
from .capture import INTERRUPT
from .history import (
    Breakpoints,
    Invocation,
    Walk,
    agroup_history,
    breakpoints_of,
    group_history,
    group_snapshots,
    namespace_of,
)

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


def _flat(invocation: Invocation, prefix: str = "") -> list[str]:
    """agentevals' order: each superstep's tasks last first (a task that ran again after an
    interrupt left out), then their subgraphs' nodes in the same order."""
    out: list[str] = []
    for superstep in invocation.supersteps:
        tasks = superstep[::-1]
        for task in tasks:
            out += [] if task.again else [prefix + task.name]
            out += [INTERRUPT] if task.interrupted and task.child is None else []
        for task in tasks:
            if task.child is not None:
                out += _flat(task.child, f"{prefix}{task.name}:")
    return out


def _steps(invocation: Invocation) -> list[str]:
    steps = _flat(invocation)
    if invocation.interrupted and INTERRUPT not in steps:  # stopped at a breakpoint
        steps.append(INTERRUPT)
    return steps


def _extracted(
    groups: Mapping[str, Sequence[Any]], root: str, breakpoints: Breakpoints
) -> ExtractedLangGraphThreadTrajectory:
    invocations = Walk(groups, breakpoints).invocations(root)
    return {
        "inputs": [{"__start__": i.input} if i.fresh else RESUMING for i in invocations],
        "outputs": {
            "inputs": [],
            "results": [_result(i) for i in invocations],
            "steps": [_steps(i) for i in invocations],
        },
    }


def extract_langgraph_trajectory_from_snapshots(
    snapshots: Iterable[Any],
) -> ExtractedLangGraphThreadTrajectory:
    """A thread's trajectory from its ``StateSnapshot`` s (newest first, as
    ``get_state_history`` yields them; a subgraph's snapshots may be mixed in)."""
    groups = group_snapshots(snapshots)
    root = min(groups, key=lambda ns: (ns.count("|"), len(ns)), default="")
    return _extracted(groups, root, {})


def _graph_extracted(graph: Any, groups: Mapping[str, Sequence[Any]], config: Any) -> Any:
    return _extracted(groups, namespace_of(config), breakpoints_of(graph))


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
