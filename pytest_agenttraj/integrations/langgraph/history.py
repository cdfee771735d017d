"""A thread's path rebuilt from its checkpoints (``get_state_history``, public API), for graphs
that ran elsewhere.

Each checkpoint lists the tasks of the superstep that ran after it; an ``input`` checkpoint starts
an invocation (``__start__``). An invocation ends where a task was interrupted (``__interrupt__``),
where a task failed, or at a breakpoint compiled into the graph or into one of its subgraphs
(``interrupt_before`` / ``interrupt_after``); the next one begins by running the interrupted or
failed tasks again, as a resumed graph does. Subgraph tasks point to their own checkpoints, which
are read the same way and spliced in after their node as ``parent:child``.

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
    "Breakpoints",
    "Invocation",
    "Task",
    "Walk",
    "agraph_trajectory_from_history",
    "agroup_history",
    "breakpoints_of",
    "graph_path",
    "graph_trajectory_from_history",
    "group_history",
    "path_of",
]


@dataclass
class Task:
    """One task of a superstep as the checkpoints tell it."""

    name: str
    interrupted: bool = False  # it called ``interrupt()``
    failed: bool = False
    again: bool = False  # it runs again: the invocation before this one was interrupted in it
    child: Invocation | None = None  # its subgraph's part of this invocation

    @property
    def stopped(self) -> bool:
        """Whether the invocation ends in this task: it was interrupted or failed, or its
        subgraph stopped (at an interrupt or one of its own breakpoints)."""
        return self.interrupted or self.failed or bool(self.child and self.child.interrupted)


@dataclass
class Invocation:
    """One invocation as the checkpoints tell it: its supersteps, each the tasks that ran in it
    (an invocation that started from input begins with ``__start__``'s)."""

    supersteps: list[list[Task]] = field(default_factory=list)
    input: Any = None
    fresh: bool = False
    result: Any = None
    interrupted: bool = False


Breakpoints = Mapping[str, tuple[frozenset[str], frozenset[str]]]


def namespace_of(config: Any) -> str:
    """The ``checkpoint_ns`` of a config or snapshot (``""`` for the root graph)."""
    if not isinstance(config, Mapping):
        config = getattr(config, "config", None) or {}
    return str((config.get("configurable") or {}).get("checkpoint_ns", "") or "")


def graph_path(namespace: str) -> str:
    """A checkpoint namespace without its task ids (``inner:1f2e|leaf:3a4b`` is ``inner|leaf``),
    the name ``get_subgraphs`` gives that subgraph."""
    return "|".join(part.partition(":")[0] for part in namespace.split("|")) if namespace else ""


def _names(nodes: Any) -> frozenset[str]:
    if nodes == "*":
        return frozenset({"*"})
    return frozenset(nodes or ())


def breakpoints_of(graph: Any) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """The breakpoints compiled into a graph and each of its subgraphs (``interrupt_before``,
    ``interrupt_after``), by graph path (``""`` for the graph itself)."""

    def pair(one: Any) -> tuple[frozenset[str], frozenset[str]]:
        before = getattr(one, "interrupt_before_nodes", ())
        return _names(before), _names(getattr(one, "interrupt_after_nodes", ()))

    found = {"": pair(graph)}
    subgraphs = getattr(graph, "get_subgraphs", None)
    if callable(subgraphs):
        found.update((name, pair(subgraph)) for name, subgraph in subgraphs(recurse=True))
    return found


def _child_config(task: Any) -> Any:
    """The config of a subgraph task's own checkpoints, if it has any."""
    state = task.state
    if state is not None and not isinstance(state, Mapping):
        state = getattr(state, "config", None)
    return state if isinstance(state, Mapping) and namespace_of(state) else None


def _source(snapshot: Any) -> Any:
    return (snapshot.metadata or {}).get("source")


def _breaks(nodes: frozenset[str], names: Iterable[str]) -> bool:
    return bool(nodes) and ("*" in nodes or not nodes.isdisjoint(names))


class Walk:
    """Rebuilds invocations from snapshots grouped by namespace (each oldest first).

    ``breakpoints``: the breakpoints compiled into each graph, by graph path
    (:func:`breakpoints_of`); a breakpoint ends an invocation as an interrupt does.
    """

    def __init__(self, groups: Mapping[str, Sequence[Any]], breakpoints: Breakpoints) -> None:
        self.groups = groups
        self.breakpoints = breakpoints
        self._children: dict[str, Iterator[Invocation]] = {}

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
                current = Invocation([[Task(START)]], start.get(START), True, snapshot.values)
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
        later = following is not None
        if not snapshot.tasks:  # the graph finished; an update and a run after it are new
            done.append(current)
            return None
        before, after = self.breakpoints.get(graph_path(namespace), (frozenset(), frozenset()))
        if _breaks(before, snapshot.next):
            current.interrupted = True
            done.append(current)
            if not later:  # the thread waits at the breakpoint
                return None
            current = Invocation()
        ran = self._superstep(snapshot.tasks, later)
        if not ran:
            return current
        current.supersteps.append([task for _, task in ran])
        stopped = [(raw, task) for raw, task in ran if task.stopped]
        if not stopped and not _breaks(after, (task.name for _, task in ran)):
            return current
        failed = any(task.failed for _, task in ran)
        current.interrupted = not failed
        if failed:
            current.result = None
        done.append(current)
        if not later:
            return None
        resumed = Invocation()
        if stopped and _source(following) not in ("update", "fork"):  # else an update replaced it
            resumed.supersteps.append([self._again(raw, task) for raw, task in stopped])
        return resumed

    def _superstep(self, tasks: Iterable[Any], later: bool) -> list[tuple[Any, Task]]:
        """The tasks of a checkpoint that ran: all of them once a later checkpoint exists; in
        the thread's last one, those that stopped it or left a result (a parallel task that
        finished while another was interrupted)."""
        ran = []
        for raw in tasks:
            task = self._task(raw)
            if later or task.stopped or raw.result is not None or task.child is not None:
                ran.append((raw, task))
        return ran

    def _task(self, raw: Any) -> Task:
        return Task(raw.name, bool(raw.interrupts), raw.error is not None, child=self._part(raw))

    def _again(self, raw: Any, stopped: Task) -> Task:
        """A stopped task running again in the next invocation: marked ``again`` after an
        interrupt (agentevals' extractor leaves it out); after a failure, it is the retry."""
        return Task(raw.name, again=not stopped.failed, child=self._part(raw))

    def _part(self, raw: Any) -> Invocation | None:
        """A subgraph task's next part: what its subgraph ran in this invocation."""
        child = _child_config(raw)
        return None if child is None else next(self._child(namespace_of(child)), None)

    def _child(self, namespace: str) -> Iterator[Invocation]:
        if namespace not in self._children:
            self._children[namespace] = iter(self.invocations(namespace))
        return self._children[namespace]


def path_of(invocation: Invocation, prefix: str = "") -> list[str | list[str]]:
    """An invocation's path: each superstep one entry (a list when several tasks ran in it),
    followed by its subgraphs' parts as ``parent:child``."""
    out: list[str | list[str]] = []
    for superstep in invocation.supersteps:
        names = [prefix + task.name for task in superstep]
        out.append(names[0] if len(names) == 1 else names)
        for task in superstep:
            if task.child is not None:
                out += path_of(task.child, f"{prefix}{task.name}:")
    return out


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
        "steps": [[*path_of(i), *([INTERRUPT] if i.interrupted else [])] for i in invocations],
    }


def _walk(graph: Any, groups: Mapping[str, Sequence[Any]], config: Any) -> GraphTrajectory:
    walk = Walk(groups, breakpoints_of(graph))
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
