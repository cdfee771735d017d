"""One tracked test (a LangSmith test case) and what has been logged into it."""

from __future__ import annotations

import inspect
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from ...evaluators.scope import Evaluation

__all__ = ["Case", "Pending", "parameters", "pick", "unlogged"]


class Pending(NamedTuple):
    """An evaluation waiting to be logged into its test's run: whether its caller logs the
    feedback itself (``langsmith.testing.trace_feedback``), and its identity in the run's
    results (key without the match mode, occurrence), which a repeated test's attempts share."""

    evaluation: Evaluation
    by_caller: bool
    identity: tuple[str, int]


@dataclass
class Case:
    """A tracked test: who runs it and what has been logged into it."""

    nodeid: str
    kind: str  # "ours": tracked by this plugin; "user": the user's @pytest.mark.langsmith
    managed: bool  # logging is switched on: this plugin runs the test (and guards it)
    live: bool  # LangSmith answered the probe
    entered: bool = False
    body_done: bool = False
    body_error: BaseException | None = None
    body_chain: tuple[BaseException | None, BaseException | None, bool] | None = None
    finished: bool = False
    untracked: bool = False
    run: Any = None
    experiment_id: Any = None  # of the experiment ``run`` is in, when langsmith says
    pending: list[Pending] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)  # threads append to pending
    outputs: dict[str, Any] = field(default_factory=dict)
    references: dict[str, Any] = field(default_factory=dict)
    slots: dict[str, str] = field(default_factory=dict)
    inputs: dict[str, Any] | None = None

    def reset(self) -> None:
        """Before each run of the test's body (a plugin may run it more than once)."""
        self.entered = self.body_done = self.finished = False
        self.body_error = self.body_chain = self.run = self.inputs = self.experiment_id = None
        self.outputs, self.references, self.slots = {}, {}, {}

    def body_raised(self, error: BaseException) -> None:
        """The test's body raised ``error``: remember it, and what it was chained to then."""
        self.body_error = error
        self.body_chain = (error.__cause__, error.__context__, error.__suppress_context__)

    def own_error(self, raised: BaseException) -> BaseException:
        """The error to fail the test with when its tracked run raised ``raised``: the body's
        own, chained as the body left it (LangSmith's wrapper may have raised another, or
        handled the body's while it failed itself), else ``raised``."""
        error = self.body_error
        if error is None:
            return raised
        if self.body_chain is not None:
            error.__cause__, error.__context__, error.__suppress_context__ = self.body_chain
        return error

    def add_pending(self, pending: Pending) -> None:
        with self.lock:
            self.pending.append(pending)

    def take_pending(self) -> list[Pending]:
        with self.lock:
            taken, self.pending = self.pending, []
        return taken

    def slot(self, payload: Any) -> str:
        """``trajectory`` for the first distinct trajectory, ``trajectory_2``... for others."""
        text = json.dumps(payload, sort_keys=True, default=str)
        name = self.slots.get(text)
        if name is None:
            name = "trajectory" if not self.slots else f"trajectory_{len(self.slots) + 1}"
            self.slots[text] = name
        return name


def parameters(func: Callable[..., Any]) -> frozenset[str] | None:
    """The keyword names ``func`` accepts; ``None`` when it takes ``**kwargs``."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None
    return frozenset(p.name for p in params)


def pick(names: frozenset[str] | None, testargs: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in testargs.items() if names is None or k in names}


def unlogged(pending: list[Pending]) -> int:
    """Results among ``pending`` whose feedback the sink owed (not logged by their caller)."""
    return sum(1 for entry in pending if not entry.by_caller)
