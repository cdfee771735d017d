"""Scripted scenarios: a conversation written as a list of steps, each a user message
(``user_turn``: fixed text, a function of the conversation so far, or the simulated user's
turn), an agent turn (``agent_turn``), or a check (``check_turn``) run at that point, which
sees the turn's messages, the whole conversation and a LangGraph app's state. The steps run on
the same loop as ``run_multiturn_simulation`` (``simulation.Session``).

A check passes unless it raises ``AssertionError`` (every ``assert_*`` helper does), returns
``False``, or returns an evaluator result that does not pass (a graded score below its
``min_score``); what a failing check becomes is the caller's choice (``failure``), so that the
assertion layer can raise its own error naming the turn. A check raising anything else is an
error of the run, as an app that raises is.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import SimulationError
from .result import result_passed
from .simulation import (
    MultiturnSimulationResult,
    Session,
    TurnContext,
    check_max_turns,
)
from .simulation_io import Call

__all__ = [
    "AgentStep",
    "CheckFailure",
    "CheckStep",
    "Step",
    "UserStep",
    "agent_turn",
    "check_turn",
    "scenario",
    "user_turn",
]

CheckOn = Literal["context", "turn", "conversation"]
_ON: tuple[CheckOn, ...] = ("context", "turn", "conversation")


@dataclass(frozen=True)
class UserStep:
    """The user's message for the next turn: ``message`` as given (a str or a message), a
    function of the conversation so far (given the ``TurnContext``), or ``None``: the simulated
    user's turn (the scenario's ``user``)."""

    message: Any = None


@dataclass(frozen=True)
class AgentStep:
    """The app answers the user's message: one turn more."""


@dataclass(frozen=True)
class CheckStep:
    """A check at this point: ``function`` called on ``on`` (``context``: the ``TurnContext``;
    ``turn``: the last turn's messages; ``conversation``: the whole ``Conversation``), then
    ``args`` and ``kwargs``."""

    function: Callable[..., Any]
    on: CheckOn = "context"
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    min_score: float | None = None

    @property
    def name(self) -> str:
        return getattr(self.function, "__name__", None) or type(self.function).__name__


Step = UserStep | AgentStep | CheckStep


def user_turn(message: Any = None) -> UserStep:
    """A user message: fixed text or a message, a function of the conversation so far
    (``lambda context: ...``), or nothing for the simulated user's turn."""
    return UserStep(message)


def agent_turn() -> AgentStep:
    """The agent's turn: the app answers the user's last message."""
    return AgentStep()


def check_turn(
    function: Callable[..., Any],
    *args: Any,
    on: CheckOn = "context",
    min_score: float | None = None,
    **kwargs: Any,
) -> CheckStep:
    """A check at this point of the conversation. ``on="context"`` (the default) calls
    ``function(context)`` (``context.messages``, ``.conversation``, ``.state``, ``.number``);
    ``on="turn"`` / ``"conversation"`` give the last turn's messages / the whole conversation
    to an assertion or an evaluator, first positionally (``assert_trajectory``,
    ``assert_tool_usage``) or as ``outputs=`` (evaluators, judges), then ``args`` and
    ``kwargs``. ``min_score`` is what a graded result must reach.

    Example::

        check_turn(assert_tool_usage, on="turn", forbidden=["give_refund"])
    """
    if not callable(function):
        raise SimulationError(f"a check must be callable, got {type(function).__name__}")
    if on not in _ON:
        raise SimulationError(f"invalid on={on!r}: use one of {', '.join(_ON)}")
    return CheckStep(function, on, args, dict(kwargs), min_score)


@dataclass(frozen=True)
class CheckFailure:
    """A check that did not pass: at which step and turn, which check, why (``problem``), the
    ``AssertionError`` it raised or the result it returned."""

    step: int
    turn: int
    name: str
    problem: str
    error: AssertionError | None = None
    result: Any = None
    conversation: MultiturnSimulationResult | None = None


def _takes_outputs(function: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    outputs = parameters.get("outputs")
    return outputs is not None and outputs.kind is inspect.Parameter.KEYWORD_ONLY


def _run_check(step: CheckStep, context: TurnContext) -> Callable[[], Any]:
    if step.on == "context":
        return lambda: step.function(context, *step.args, **step.kwargs)
    value: Any = context.messages if step.on == "turn" else context.conversation
    if _takes_outputs(step.function):
        return lambda: step.function(*step.args, outputs=value, **step.kwargs)
    return lambda: step.function(value, *step.args, **step.kwargs)


def _verdict(answer: Any, step: CheckStep) -> str | None:
    """Why the check's answer fails it, or ``None`` when it passes."""
    if answer is False:
        return "returned False"
    if not isinstance(answer, Mapping) or "score" not in answer:
        return None
    if result_passed(answer, step.min_score):
        return None
    comment = answer.get("comment")
    scored = f"{answer.get('key', 'result')} scored {answer.get('score')!r}"
    return f"{scored}: {comment}" if comment else scored


def check_steps(steps: Any) -> list[Step]:
    """The steps, checked before anything runs: each a step, every agent turn after exactly one
    user message, no user message left without an agent turn after it."""
    if isinstance(steps, str | bytes | Mapping) or not isinstance(steps, Sequence):
        raise SimulationError(
            "must be a list of steps (user_turn, agent_turn, check_turn)", field="steps"
        )
    waiting: int | None = None
    for index, step in enumerate(steps):
        where = f"steps[{index}]"
        if not isinstance(step, UserStep | AgentStep | CheckStep):
            raise SimulationError(
                f"is {type(step).__name__}, not a step: use user_turn(...), agent_turn() or "
                "check_turn(...)",
                field=where,
            )
        if isinstance(step, UserStep):
            if waiting is not None:
                raise SimulationError(
                    f"a second user message before the agent answered steps[{waiting}]: put "
                    "agent_turn() between them",
                    field=where,
                )
            waiting = index
        elif isinstance(step, AgentStep):
            if waiting is None:
                raise SimulationError("an agent turn with no user message before it", field=where)
            waiting = None
    if waiting is not None:
        raise SimulationError(
            "the last user message has no agent turn after it: add agent_turn()",
            field=f"steps[{waiting}]",
        )
    return list(steps)


def _check(
    session: Session, step: CheckStep, index: int, failure: Callable[[CheckFailure], Exception]
) -> Generator[Call, Any, None]:
    __tracebackhide__ = True
    where = f"steps[{index}]"
    context = session.context()
    try:
        answer = yield Call(_run_check(step, context), where)
    except AssertionError as error:
        problem = str(error).split("\n", 1)[0] or type(error).__name__
        raise failure(
            CheckFailure(
                index,
                session.turns,
                step.name,
                problem,
                error=error,
                conversation=session.result([]),
            )
        ) from error
    except Exception as error:
        raise session.fail(f"raised {type(error).__name__}: {error}", where, error) from error
    verdict = _verdict(answer, step)
    if verdict is not None:
        raise failure(
            CheckFailure(
                index,
                session.turns,
                step.name,
                verdict,
                result=answer,
                conversation=session.result([]),
            )
        )


def _user(session: Session, step: UserStep, user: Any, where: str) -> Generator[Call, Any, bool]:
    __tracebackhide__ = True
    if step.message is None:
        if user is None:
            raise session.fail(
                "the simulated user's turn needs user= (e.g. create_llm_simulated_user(...))",
                where,
                coming=True,
            )
        went_on: bool = yield from session.ask_user(user, where)
        return went_on
    message = step.message
    if callable(message):
        context = session.context()
        try:
            message = yield Call(lambda: step.message(context), where)
        except Exception as error:
            problem = f"raised {type(error).__name__}: {error}"
            raise session.fail(problem, where, error, coming=True) from error
    try:
        session.user_says(message, where)
    except SimulationError as error:
        raise session.fail(error.problem, where, error, coming=True) from error
    return True


def scenario(
    session: Session,
    steps: Any,
    *,
    user: Any = None,
    max_turns: Any = None,
    stopping_condition: Callable[..., Any] | None = None,
    evaluators: Sequence[Any] = (),
    reference_outputs: Any = None,
    failure: Callable[[CheckFailure], Exception],
) -> Generator[Call, Any, MultiturnSimulationResult]:
    """Run ``steps`` on ``session``: user messages, agent turns and checks, in order. It stops
    early at ``max_turns``, when ``stopping_condition`` is true after an agent turn, or when the
    simulated user ends the conversation (returns ``None``)."""
    __tracebackhide__ = True
    checked = check_steps(steps)
    limit = check_max_turns(max_turns, needed=False)
    for index, step in enumerate(checked):
        where = f"steps[{index}]"
        if isinstance(step, UserStep):
            if limit is not None and session.turns >= limit:
                session.stop_reason = "max_turns"
                break
            if not (yield from _user(session, step, user, where)):
                break
        elif isinstance(step, AgentStep):
            yield from session.answer(where)
            if stopping_condition is not None and (
                yield from session.ask(
                    stopping_condition, "stopping_condition", list(session.trajectory)
                )
            ):
                session.stop_reason = "stopping_condition"
                break
        else:
            yield from _check(session, step, index, failure)
    results = yield from session.evaluate(evaluators, reference_outputs)
    return session.result(results)
