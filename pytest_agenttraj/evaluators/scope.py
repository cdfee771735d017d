"""Who is told about evaluations, and which defaults apply: the seam between the library and pytest.

The library never imports pytest. The plugin instead enters ``test_scope`` around each test, giving
a callback and the test's match settings; evaluators and ``assert_trajectory`` report to whatever
scope is current (a context variable, so async tests and tasks they spawn see it too).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .providers import PROVIDERS, scope_provider

if TYPE_CHECKING:
    from ..core.report import Report

__all__ = [
    "Evaluation",
    "ReferenceResolver",
    "TestScope",
    "announce",
    "announce_error",
    "current_scope",
    "notify",
    "scope_provider",
    "test_scope",
]


@dataclass(frozen=True)
class Evaluation:
    """One evaluation as it happened: its result dict, the report behind it (any kind; ``None``
    for an evaluation that raised), the inputs it compared and how long it took."""

    result: Mapping[str, Any]
    report: Report | None
    outputs: Any
    reference_outputs: Any
    inputs: Any = None
    duration_s: float = 0.0
    origin: str = "evaluator"
    extra: Mapping[str, Any] = field(default_factory=dict)


class ReferenceResolver(Protocol):
    """Finds a test's reference files (the plugin knows the test file and the project root);
    what it returns is a ``pytest_agenttraj.references.ReferenceFile``."""

    @property
    def update(self) -> bool:
        """Whether the run writes reference files (``--trajectory-update``)."""
        ...

    def resolve(self, name: str | None) -> Any:
        """The reference named ``name`` (``None``: the test's own) for the running test."""
        ...

    def name_of(self, path: Path) -> str:
        """How reports name ``path`` (relative to the project root)."""
        ...

    def claim(self, path: Path, *, written: bool, content: Any) -> Any:
        """Under ``--trajectory-update``: settle ``path`` on ``content`` (its messages or graph
        steps, as JSON values) for this run, unless an earlier evaluation did (a
        ``pytest_agenttraj.references.Claim``)."""
        ...


@dataclass(frozen=True)
class TestScope:
    """The current test's defaults (mode, tool_args, overrides, ignore_keys, allow_empty, which
    of them its marker set) and where evaluations go. ``tool_args`` is ``None`` when nothing
    set it, so each evaluator keeps its own default (``exact`` for matching, Ragas' rule for
    graded scores). ``min_score`` is the marker's threshold for graded scores; ``judge_cache``
    the run's cache of LLM judge answers (a ``pytest_agenttraj.evaluators.judges.JudgeCache``),
    for judges made with ``cache=True``; ``judge_timeout`` the run's bound in seconds on one
    judge model call (``0``: none; ``None``: the library's default), for judges made without
    ``timeout=``. ``owner`` is the running test as its runner knows it (the plugin's pytest
    item), for what the test set up and calls later, from wherever it is called."""

    on_evaluation: Callable[[Evaluation], None]
    mode: str = "strict"
    tool_args: str | None = None
    overrides: Mapping[str, Any] | None = None
    verbose: int = 0
    marker_keys: frozenset[str] = frozenset()
    references: ReferenceResolver | None = None
    min_score: float | None = None
    judge_cache: Any = None
    judge_timeout: float | None = None
    ignore_keys: tuple[str, ...] = ()
    allow_empty: bool = False
    owner: Any = None

    def with_callback(self, on_evaluation: Callable[[Evaluation], None]) -> TestScope:
        """This scope with another callback (made without the dataclass's checks: the plugin
        makes one per phase of every test that uses it)."""
        scope = object.__new__(TestScope)
        scope.__dict__.update(self.__dict__)
        scope.__dict__["on_evaluation"] = on_evaluation
        return scope


_SCOPE: ContextVar[TestScope | None] = ContextVar("pytest_agenttraj_scope", default=None)


def current_scope() -> TestScope | None:
    """The scope of the running test, or ``None`` outside pytest."""
    scope = _SCOPE.get()
    if scope is None and PROVIDERS:
        return PROVIDERS[-1]()
    return scope


class test_scope:  # lower case: used as a function, ``with test_scope(scope):``
    """Make ``scope`` current for the duration of the block. (A class, not a generator: the
    plugin enters it around each phase of every test that uses it.)"""

    __slots__ = ("_scope", "_token")
    __test__ = False  # not a test, whatever pytest's python_classes say

    def __init__(self, scope: TestScope) -> None:
        self._scope = scope

    def __enter__(self) -> TestScope:
        self._token = _SCOPE.set(self._scope)
        return self._scope

    def __exit__(self, *exc_info: object) -> None:
        _SCOPE.reset(self._token)


def notify(evaluation: Evaluation) -> None:
    """Tell the current scope, if any, about an evaluation."""
    scope = current_scope()
    if scope is not None:
        scope.on_evaluation(evaluation)


def announce(
    result: Mapping[str, Any],
    *,
    outputs: Any,
    reference_outputs: Any,
    started: float,
    origin: str,
    report: Report | None = None,
    inputs: Any = None,
    extra: Mapping[str, Any] | None = None,
) -> None:
    """Tell the running test, if any, about an evaluation that began at ``started``
    (``time.perf_counter()``); outside a test this costs nothing."""
    scope = current_scope()
    if scope is None:
        return
    scope.on_evaluation(
        Evaluation(
            result=result,
            report=report,
            outputs=outputs,
            reference_outputs=reference_outputs,
            inputs=inputs,
            duration_s=time.perf_counter() - started,
            origin=origin,
            extra=dict(extra or {}),
        )
    )


def announce_error(
    error: BaseException,
    key: str,
    *,
    outputs: Any,
    reference_outputs: Any,
    started: float,
    origin: str,
    inputs: Any = None,
    extra: Mapping[str, Any] | None = None,
) -> None:
    """Announce an evaluation that raised ``error`` as a failed one carrying the error, before
    the caller re-raises it: inside a test it is an error of that test, never a missing record."""
    if current_scope() is None:
        return
    text = f"{type(error).__name__}: {error}"
    announce(
        {"key": key, "score": False, "comment": f"{key} raised {text}", "metadata": None},
        outputs=outputs,
        reference_outputs=reference_outputs,
        started=started,
        origin=origin,
        inputs=inputs,
        extra={**(extra or {}), "error": text},
    )
