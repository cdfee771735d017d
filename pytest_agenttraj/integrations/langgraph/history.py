"""A thread's path rebuilt from its checkpoints (``get_state_history``, public API), for graphs
that ran elsewhere.

Each checkpoint lists the tasks of the superstep that ran after it; an ``input`` checkpoint starts
an invocation (``__start__``). An invocation ends where a task was interrupted (``__interrupt__``),
where a task failed, or at a breakpoint compiled into the graph (``interrupt_before`` /
``interrupt_after``); the next one begins by running the interrupted or failed tasks again, as a
resumed graph does. Subgraph tasks point to their own checkpoints, which are read the same way
and spliced in after their node as ``parent:child``.

What checkpoints cannot show: breakpoints passed to ``invoke`` itself, and a node interrupted
twice at one superstep (one checkpoint keeps one superstep).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...core.model import GraphTrajectory
from .capture import INTERRUPT, START

__all__ = [
    "Invocation",
    "Walk",
    "agraph_trajectory_from_history",
    "agroup_history",
    "graph_trajectory_from_history",
    "group_history",
]


@dataclass
class Invocation:
    """One invocation as the checkpoints tell it."""

    steps: list[str | list[str]] = field(default_factory=list)
    input: Any = None
    fresh: bool = False
    result: Any = None
    interrupted: bool = False


def namespace_of(config: Any) -> str:
    """The ``checkpoint_ns`` of a config or snapshot (``""`` for the root graph)."""
    if not isinstance(config, Mapping):
        config = getattr(config, "config", None) or {}
    return str((config.get("configurable") or {}).get("checkpoint_ns", "") or "")


def _child_config(task: Any) -> Any:
    """The config of a subgraph task's own checkpoints, if it has any."""
    state = task.state
    if state is not None and not isinstance(state, Mapping):
        state = getattr(state, "config", None)
    return state if isinstance(state, Mapping) and namespace_of(state) else None


def _source(snapshot: Any) -> Any:
    return (snapshot.metadata or {}).get("source")


def _names(nodes: Any) -> frozenset[str]:
    if nodes == "*":
        return frozenset({"*"})
    return frozenset(nodes or ())


class Walk:
    """Rebuilds invocations from snapshots grouped by namespace (each oldest first).

    ``rerun``: whether the invocation after an interrupt lists the interrupted nodes again (they
    do run again; agentevals leaves them out). ``before`` / ``after``: the graph's compiled
    breakpoints.
    """

    def __init__(
        self,
        groups: Mapping[str, Sequence[Any]],
        *,
        rerun: bool = True,
        before: Any = (),
        after: Any = (),
    ) -> None:
        self.groups = groups
        self.rerun = rerun
        self.before = _names(before)
        self.after = _names(after)
        self._children: dict[str, Iterator[Invocation]] = {}

    def _breaks(self, nodes: frozenset[str], names: Iterable[str]) -> bool:
        return bool(nodes) and ("*" in nodes or not nodes.isdisjoint(names))

    def invocations(self, namespace: str = "") -> list[Invocation]:
        """The invocations of one namespace's history."""
        snapshots = self.groups.get(namespace, ())
        done: list[Invocation] = []
        current: Invocation | None = None
        for index, snapshot in enumerate(snapshots):
            following = snapshots[index + 1] if index + 1 < len(snapshots) else None
            if _source(snapshot) == "input":
                if current is not None:
                    done.append(current)
                start = {t.name: t.result for t in snapshot.tasks}
                current = Invocation([START], start.get(START), True, snapshot.values)
                continue
            current = current or Invocation()
            current.result = snapshot.values
            current = self._step(snapshot, current, following, done, namespace)
        if current is not None:
            done.append(current)
        return done

    def _step(
        self,
        snapshot: Any,
        current: Invocation,
        following: Any,
        done: list[Invocation],
        namespace: str,
    ) -> Invocation | None:
        """Add one checkpoint's superstep to ``current``; the invocation that goes on from here
        (``None`` when ``current`` ended and nothing follows yet)."""
        tasks = list(snapshot.tasks)
        later = following is not None
        if not tasks:  # the graph finished; an update and a run after it are a new invocation
            done.append(current)
            return None
        if self._breaks(self.before, snapshot.next) and not namespace:
            current.interrupted = True
            done.append(current)
            if not later:  # the thread waits at the breakpoint
                return None
            current = Invocation()
        ran = tasks if later else [t for t in tasks if t.error or t.interrupts]
        if not ran:
            return current
        current.steps += self._entries(ran)
        stopped = [t for t in ran if t.interrupts or t.error]
        if not stopped and not (self._breaks(self.after, (t.name for t in ran)) and not namespace):
            return current
        current.interrupted = not any(t.error for t in stopped)
        if any(t.error for t in stopped):
            current.result = None
        done.append(current)
        if not later:
            return None
        after = Invocation()
        if _source(following) not in ("update", "fork"):  # else the update replaced that step
            after.steps += self._entries(stopped, named=self.rerun)
        return after

    def _entries(self, tasks: Sequence[Any], *, named: bool = True) -> list[str | list[str]]:
        """One superstep's entry (unless ``named`` is false), then its subgraphs' next part."""
        out: list[str | list[str]] = []
        if named:
            names = [t.name for t in tasks]
            out.append(names[0] if len(names) == 1 else names)
        for task in tasks:
            child = _child_config(task)
            if child is None:
                continue
            part = next(self._child(namespace_of(child)), None)
            if part is not None:
                out += [_prefixed(task.name, entry) for entry in part.steps]
        return out

    def _child(self, namespace: str) -> Iterator[Invocation]:
        if namespace not in self._children:
            self._children[namespace] = iter(self.invocations(namespace))
        return self._children[namespace]


def _prefixed(name: str, entry: str | list[str]) -> str | list[str]:
    if isinstance(entry, str):
        return f"{name}:{entry}"
    return [f"{name}:{node}" for node in entry]


def group_snapshots(snapshots: Iterable[Any]) -> dict[str, list[Any]]:
    """Snapshots (newest first, as ``get_state_history`` yields them) by namespace, oldest first."""
    groups: dict[str, list[Any]] = {}
    for snapshot in snapshots:
        groups.setdefault(namespace_of(snapshot), []).append(snapshot)
    for snapshots_of_one in groups.values():
        snapshots_of_one.reverse()
    return groups


def _subgraph_configs(snapshots: Iterable[Any]) -> list[Any]:
    return [c for s in snapshots for t in s.tasks if (c := _child_config(t)) is not None]


def group_history(graph: Any, config: Any) -> dict[str, list[Any]]:
    """The thread's snapshots and those of every subgraph task, by namespace, oldest first."""
    groups: dict[str, list[Any]] = {}
    pending = [config]
    while pending:
        current = pending.pop()
        namespace = namespace_of(current)
        if namespace in groups:
            continue
        snapshots = list(graph.get_state_history(current))
        groups[namespace] = snapshots[::-1]
        pending += _subgraph_configs(snapshots)
    return groups


async def agroup_history(graph: Any, config: Any) -> dict[str, list[Any]]:
    """``group_history`` through ``aget_state_history``."""
    groups: dict[str, list[Any]] = {}
    pending = [config]
    while pending:
        current = pending.pop()
        namespace = namespace_of(current)
        if namespace in groups:
            continue
        history: AsyncIterator[Any] = graph.aget_state_history(current)
        snapshots = [snapshot async for snapshot in history]
        groups[namespace] = snapshots[::-1]
        pending += _subgraph_configs(snapshots)
    return groups


def trajectory_of(invocations: Sequence[Invocation]) -> GraphTrajectory:
    """The ``GraphTrajectory`` of rebuilt invocations (``__interrupt__`` ends interrupted ones)."""
    return {
        "inputs": [i.input for i in invocations],
        "results": [i.result for i in invocations],
        "steps": [[*i.steps, *([INTERRUPT] if i.interrupted else [])] for i in invocations],
    }


def _walk(graph: Any, groups: Mapping[str, Sequence[Any]], config: Any) -> GraphTrajectory:
    walk = Walk(
        groups,
        before=getattr(graph, "interrupt_before_nodes", ()),
        after=getattr(graph, "interrupt_after_nodes", ()),
    )
    return trajectory_of(walk.invocations(namespace_of(config)))


def graph_trajectory_from_history(graph: Any, config: Any) -> GraphTrajectory:
    """The ``GraphTrajectory`` of a thread that already ran, from its checkpoints: the same
    steps ``record_graph_trajectory`` records (``inputs`` hold each fresh invocation's input,
    ``None`` for a resumed one; ``results`` the state each ended with).

    Example::

        graph.invoke({"question": "..."}, config)
        graph.invoke(Command(resume="yes"), config)
        trajectory = graph_trajectory_from_history(graph, config)
    """
    return _walk(graph, group_history(graph, config), config)


async def agraph_trajectory_from_history(graph: Any, config: Any) -> GraphTrajectory:
    """``graph_trajectory_from_history`` through the graph's async checkpointer."""
    return _walk(graph, await agroup_history(graph, config), config)
