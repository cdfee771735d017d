"""``run_scenario``: a scripted conversation whose checks fail the test where they fail, with a
``TurnCheckFailed`` naming the turn, the step and the check (and, for a check made of an
``assert_*`` helper, that helper's own diff)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..evaluators.scenario import CheckFailure, scenario
from ..evaluators.simulation import MultiturnSimulationResult, Session, adrive, drive
from ..render import Markup
from .base import AgentTrajAssertionError

__all__ = ["TurnCheckFailed", "run_scenario", "run_scenario_async"]


class TurnCheckFailed(AgentTrajAssertionError):
    """A scenario's check failed: ``turn`` (from 1), ``step`` (its index in the steps),
    ``check`` (its name), ``problem`` (why, in a line), ``error`` (the ``AssertionError`` it
    raised, if any: an ``AgentTrajAssertionError`` keeps its ``report``), ``conversation`` (the
    result so far)."""

    __module__ = "pytest_agenttraj"

    def __init__(self, failure: CheckFailure) -> None:
        self.failure = failure
        self.turn = failure.turn
        self.step = failure.step
        self.check = failure.name
        self.problem = failure.problem
        self.error = failure.error
        self.conversation = failure.conversation
        inner = failure.error if isinstance(failure.error, AgentTrajAssertionError) else None
        self.report = inner.report if inner is not None else None  # type: ignore[assignment]
        self.result = failure.result if inner is None else inner.result
        self.verbose = 0
        self.min_score = None
        AssertionError.__init__(self, self.headline())

    def headline(self) -> str:
        return f"turn {self.turn}, steps[{self.step}] ({self.check}) failed: {self.problem}"

    def __str__(self) -> str:
        return "\n".join(self.render())

    def render(self, *, width: int = 100, markup: Markup | None = None) -> list[str]:
        lines = [self.headline()]
        if isinstance(self.error, AgentTrajAssertionError):
            inner = self.error.render(width=width, markup=markup)
            lines.extend(inner[1:] if inner and inner[0] == self.problem else inner)
        elif self.error is not None and "\n" in str(self.error):
            lines.extend(str(self.error).split("\n")[1:])
        return lines

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.failure,)


def _steps(
    app: Any,
    steps: Sequence[Any],
    user: Any,
    max_turns: int | None,
    stopping_condition: Callable[..., Any] | None,
    trajectory_evaluators: Sequence[Any] | None,
    reference_outputs: Any,
    thread_id: str | None,
) -> Any:
    return scenario(
        Session(app, thread_id),
        steps,
        user=user,
        max_turns=max_turns,
        stopping_condition=stopping_condition,
        evaluators=list(trajectory_evaluators or ()),
        reference_outputs=reference_outputs,
        failure=TurnCheckFailed,
    )


def run_scenario(
    *,
    app: Any,
    steps: Sequence[Any],
    user: Any = None,
    max_turns: int | None = None,
    stopping_condition: Callable[..., Any] | None = None,
    trajectory_evaluators: Sequence[Any] | None = None,
    reference_outputs: Any = None,
    thread_id: str | None = None,
) -> MultiturnSimulationResult:
    """Run a scripted conversation with ``app`` (a function, runnable or LangGraph graph, as
    for ``run_multiturn_simulation``): ``steps`` of ``user_turn``, ``agent_turn`` and
    ``check_turn``; ``user`` plays the ``user_turn()`` steps without a message (e.g.
    ``create_llm_simulated_user``). A check that fails raises ``TurnCheckFailed`` at once;
    anything that raises otherwise is a ``SimulationError`` naming the turn and the step.

    Example::

        run_scenario(app=agent, steps=[
            user_turn("I want a refund for order 7"),
            agent_turn(),
            check_turn(assert_tool_usage, on="turn", forbidden=["give_refund"]),
        ])
    """
    __tracebackhide__ = True
    result: MultiturnSimulationResult = drive(
        _steps(
            app,
            steps,
            user,
            max_turns,
            stopping_condition,
            trajectory_evaluators,
            reference_outputs,
            thread_id,
        )
    )
    return result


async def run_scenario_async(
    *,
    app: Any,
    steps: Sequence[Any],
    user: Any = None,
    max_turns: int | None = None,
    stopping_condition: Callable[..., Any] | None = None,
    trajectory_evaluators: Sequence[Any] | None = None,
    reference_outputs: Any = None,
    thread_id: str | None = None,
) -> MultiturnSimulationResult:
    """``run_scenario`` awaiting the app, the user and every callable (sync or async)."""
    __tracebackhide__ = True
    result: MultiturnSimulationResult = await adrive(
        _steps(
            app,
            steps,
            user,
            max_turns,
            stopping_condition,
            trajectory_evaluators,
            reference_outputs,
            thread_id,
        )
    )
    return result
