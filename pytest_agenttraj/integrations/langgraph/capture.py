"""Record the path of a running LangGraph graph from its public stream.

The graph runs through ``graph.stream`` (or ``astream``) with the ``debug`` mode, whose task
events carry the superstep number, next to the ``values`` and ``updates`` modes ``invoke`` itself
reads (so the final state is what ``invoke`` would have returned). A node counts once it has a
result event: it finished, failed or was interrupted. Nodes of one superstep form one entry (a
list when there are several, in the order they finished), ``Send`` fan-outs appear once per
task, and with ``subgraphs=True`` a subgraph's nodes follow its node's entry as
``parent:child``. An invocation that starts from input begins with ``__start__`` (as LangGraph's
checkpoints and agentevals have it); an interrupted one ends with ``__interrupt__``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from langgraph.types import Command

from ...core.graph import graph_steps
from ...core.model import GraphTrajectory

__all__ = [
    "ERROR_ATTRIBUTE",
    "INTERRUPT",
    "START",
    "arecord_graph_trajectory",
    "record_graph_trajectory",
]

START = "__start__"
INTERRUPT = "__interrupt__"
_MODES = ["updates", "values", "debug"]
_RESERVED = frozenset({"stream_mode", "subgraphs", "version"})


@dataclass
class _Task:
    name: str
    order: int | None = None  # when its result came (it ran: finished, failed or interrupted)
    child: _Run | None = None


@dataclass
class _Run:
    """One graph's run inside an invocation: the root graph's, or a subgraph task's."""

    steps: dict[int, list[str]] = field(default_factory=dict)
    tasks: dict[str, _Task] = field(default_factory=dict)
    saw_checkpoint: bool = False
    saw_input: bool = False

    def start(self, step: int, task_id: str, name: str) -> _Task:
        task = self.tasks.get(task_id)
        if task is None:
            task = self.tasks[task_id] = _Task(name)
            self.steps.setdefault(step, []).append(task_id)
        return task

    def last_step(self) -> int:
        return next(reversed(self.steps), 0)

    def entries(self, prefix: str, fresh: bool) -> list[str | list[str]]:
        """This run's supersteps, each followed by its subgraph tasks' supersteps."""
        out: list[str | list[str]] = []
        if self.saw_input or (fresh and not self.saw_checkpoint):
            out.append(prefix + START)
        for ids in self.steps.values():
            tasks = [self.tasks[i] for i in ids]
            ran = [t for t in tasks if t.order is not None or t.child is not None]
            if not ran:
                continue
            ran.sort(key=lambda t: (t.order is None, t.order or 0))
            names = [prefix + t.name for t in ran]
            out.append(names[0] if len(names) == 1 else names)
            for task in ran:
                if task.child is not None:
                    out.extend(task.child.entries(f"{prefix}{task.name}:", True))
        return out


class Recorder:
    """Takes one invocation's stream chunks; knows its path and the state ``invoke`` returns."""

    def __init__(self, input: Any) -> None:
        self.fresh = input is not None and not isinstance(input, Command)
        self.root = _Run()
        self.runs: dict[tuple[str, ...], _Run] = {(): self.root}
        self.latest: Any = None
        self.interrupts: list[Any] = []
        self.interrupted = False
        self.finished = 0

    def take(self, chunk: Any) -> None:
        """One chunk of ``stream(stream_mode=[...])``: ``(mode, payload)`` or, with subgraphs,
        ``(namespace, mode, payload)``."""
        if len(chunk) == 3:
            namespace, mode, payload = chunk
        else:
            namespace, (mode, payload) = (), chunk
        if mode == "debug":
            self._debug(tuple(namespace), payload)
        elif namespace:
            return
        elif mode == "values":
            self.latest = payload
        elif mode == "updates" and isinstance(payload, Mapping) and INTERRUPT in payload:
            self.interrupted = True
            self.interrupts.extend(payload[INTERRUPT])

    def _debug(self, namespace: tuple[str, ...], event: Mapping[str, Any]) -> None:
        kind, body = event.get("type"), event.get("payload") or {}
        run = self._run(namespace)
        if kind == "checkpoint":
            run.saw_checkpoint = True
            run.saw_input |= (body.get("metadata") or {}).get("source") == "input"
        elif kind == "task":
            run.start(int(event.get("step", 0)), str(body["id"]), str(body["name"]))
        elif kind == "task_result":
            step = int(event.get("step", run.last_step()))
            task = run.start(step, str(body["id"]), str(body["name"]))
            self.finished += 1
            task.order = self.finished

    def _run(self, namespace: tuple[str, ...]) -> _Run:
        run = self.runs.get(namespace)
        if run is None:
            parent = self._run(namespace[:-1])
            name, _, task_id = namespace[-1].partition(":")
            task = parent.tasks.get(task_id) or parent.start(parent.last_step(), task_id, name)
            run = task.child = task.child or _Run()
            self.runs[namespace] = run
        return run

    def steps(self) -> list[str | list[str]]:
        """The invocation's path: supersteps, then ``__interrupt__`` if it was interrupted."""
        out = self.root.entries("", self.fresh)
        if self.interrupted:
            out.append(INTERRUPT)
        return out

    def state(self) -> Any:
        """What ``graph.invoke`` would have returned."""
        if not self.interrupts:
            return self.latest
        if isinstance(self.latest, dict):
            return {**self.latest, INTERRUPT: list(self.interrupts)}
        return {INTERRUPT: list(self.interrupts)}


def _extended(previous: Any, input: Any, result: Any, steps: list[Any]) -> GraphTrajectory:
    """``previous``'s invocations (checked) followed by this one, as a new dict."""
    if previous is None:
        return {"inputs": [input], "results": [result], "steps": [steps]}
    earlier = graph_steps(previous, "previous")
    inputs = list(previous.get("inputs") or [])
    results = list(previous.get("results") or [])
    inputs += [None] * (len(earlier) - len(inputs))
    results += [None] * (len(earlier) - len(results))
    return {
        "inputs": [*inputs, input],
        "results": [*results, result],
        "steps": [*earlier, steps],
    }


def _stream_options(graph: Any, subgraphs: bool, options: Mapping[str, Any]) -> dict[str, Any]:
    reserved = sorted(_RESERVED & set(options))
    if reserved:
        raise TypeError(
            f"record_graph_trajectory sets {', '.join(reserved)} itself; leave "
            f"{'it' if len(reserved) == 1 else 'them'} out"
        )
    # Streaming subgraph events costs LangGraph a thread hop per step: ask only when there are any.
    nested = subgraphs and next(iter(graph.get_subgraphs()), None) is not None
    return {**options, "stream_mode": _MODES, "subgraphs": nested}


ERROR_ATTRIBUTE = "recorded_trajectory"


def _attach(error: BaseException, trajectory: GraphTrajectory) -> None:
    """Give the graph's error the path so far as ``error.recorded_trajectory``, unless it has
    that attribute already: the user's own data (or a recording of a graph nested inside this
    one, which failed first) is never overwritten. An error that takes no attributes (a frozen
    dataclass) propagates without it."""
    if ERROR_ATTRIBUTE in getattr(error, "__dict__", {}):
        return
    with contextlib.suppress(AttributeError):
        setattr(error, ERROR_ATTRIBUTE, trajectory)


def record_graph_trajectory(
    graph: Any,
    input: Any,
    config: Any = None,
    *,
    subgraphs: bool = True,
    previous: GraphTrajectory | None = None,
    **options: Any,
) -> tuple[Any, GraphTrajectory]:
    """Run a compiled graph like ``graph.invoke(input, config)`` and return ``(final_state,
    trajectory)``: the state ``invoke`` returns and a ``GraphTrajectory`` of this invocation.

    To record a thread's several invocations (an interrupt, then ``Command(resume=...)``), pass
    the trajectory so far as ``previous``: the result holds its invocations and this one.
    ``subgraphs=False`` records a subgraph as its one node. Other keyword arguments
    (``context=``, ``durability=`` ...) go to ``graph.stream``. If the graph raises, its own error
    propagates with the trajectory recorded so far as ``error.recorded_trajectory`` (an
    attribute the error already has is left alone).

    Example::

        state, trajectory = record_graph_trajectory(graph, {"question": "..."}, config)
        state, trajectory = record_graph_trajectory(
            graph, Command(resume="yes"), config, previous=trajectory
        )
    """
    recorder = Recorder(input)
    stream_options = _stream_options(graph, subgraphs, options)
    try:
        chunks: Iterator[Any] = graph.stream(input, config, **stream_options)
        for chunk in chunks:
            recorder.take(chunk)
    except Exception as error:
        _attach(error, _extended(previous, input, None, recorder.steps()))
        raise
    state = recorder.state()
    return state, _extended(previous, input, state, recorder.steps())


async def arecord_graph_trajectory(
    graph: Any,
    input: Any,
    config: Any = None,
    *,
    subgraphs: bool = True,
    previous: GraphTrajectory | None = None,
    **options: Any,
) -> tuple[Any, GraphTrajectory]:
    """``record_graph_trajectory`` for graphs run with ``ainvoke`` (async nodes): the same
    arguments and results, through ``graph.astream``."""
    recorder = Recorder(input)
    stream_options = _stream_options(graph, subgraphs, options)
    try:
        chunks: AsyncIterator[Any] = graph.astream(input, config, **stream_options)
        async for chunk in chunks:
            recorder.take(chunk)
    except Exception as error:
        _attach(error, _extended(previous, input, None, recorder.steps()))
        raise
    state = recorder.state()
    return state, _extended(previous, input, state, recorder.steps())
