"""The loop of a multi-turn conversation, written once and driven two ways.

The conversation is a generator that yields each ``Call`` it needs made (the user's reply, the
app's answer, a stopping condition, a check, an evaluator) and is sent the answer; ``drive``
makes the calls synchronously, ``adrive`` awaits them, so ``run_multiturn_simulation`` and its
async twin cannot drift. openevals' simulator (``openevals.simulators``) is the behaviour kept:
the app is called with ``(message, thread_id=...)``, the user with ``(trajectory,
thread_id=..., turn_counter=...)``, the stopping condition after each turn with ``(trajectory,
turn_counter=...)``, the evaluators once at the end with ``outputs`` and ``reference_outputs``.
On purpose, an app, user, stopping condition or evaluator that raises is an error of the run
(``SimulationError`` naming the turn, the original as its cause), never a dropped result.
"""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from ..core.model import Conversation
from ..core.normalize import to_conversation
from ..errors import SimulationError
from .result import EvaluatorResult
from .simulation_io import (
    AppAdapter,
    Call,
    ChatMessage,
    accepted_keywords,
    chat_message,
    chat_messages as app_messages,
)

__all__ = [
    "MultiturnSimulationResult",
    "Session",
    "StopReason",
    "TurnContext",
    "adrive",
    "check_max_turns",
    "drive",
    "run_multiturn_simulation",
    "run_multiturn_simulation_async",
]

StopReason = Literal["max_turns", "stopping_condition", "user_ended", "error"]


class _ResultExtras(TypedDict, total=False):
    stop_reason: StopReason
    conversation: Conversation
    thread_id: str


class MultiturnSimulationResult(_ResultExtras):
    """openevals' result (``trajectory``: every message, OpenAI chat dicts with ids;
    ``evaluator_results``), with why the conversation stopped (``stop_reason``), the same
    messages as a ``Conversation`` with its turns, and the thread it ran on."""

    evaluator_results: list[EvaluatorResult]
    trajectory: list[ChatMessage]


Steps = Generator[Call, Any, Any]


def check_max_turns(max_turns: Any, *, needed: bool = True) -> int | None:
    """``max_turns`` checked: a whole number >= 1, or ``None`` where something else stops."""
    if max_turns is None:
        if needed:
            raise SimulationError(
                "give max_turns or a stopping_condition: without either the conversation "
                "never ends",
                field="max_turns",
            )
        return None
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        raise SimulationError(f"must be a whole number >= 1, got {max_turns!r}", field="max_turns")
    return max_turns


@dataclass
class TurnContext:
    """What a stopping condition or a check sees: the turn (``number`` from 1, its
    ``messages``: the user's then the agent's), the whole ``conversation`` so far (with turns)
    and its ``trajectory`` (the messages), and for a LangGraph app its ``state``
    (``graph.get_state(config)`` on the conversation's thread, fetched when first read)."""

    number: int
    messages: list[ChatMessage]
    trajectory: list[ChatMessage]
    bounds: list[tuple[int, int]]
    app: AppAdapter
    thread_id: str
    _state: Any = field(default=None, repr=False)
    _fetched: bool = field(default=False, repr=False)

    @property
    def conversation(self) -> Conversation:
        return _conversation(self.trajectory, self.bounds)

    @property
    def state(self) -> Any:
        if not self._fetched:
            self._state = self.app.state()
            self._fetched = True
        return self._state

    def keywords(self) -> dict[str, Any]:
        """What callables may ask for by name, besides openevals' ``turn_counter``."""
        return {
            "turn_counter": self.number,
            "thread_id": self.thread_id,
            "turn": self,
            "messages": self.messages,
            "conversation": _Deferred(lambda: self.conversation),
            "state": _Deferred(lambda: self.state),
        }


class _Deferred:
    """A keyword value computed only when a callable asks for it by name."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def _resolved(keywords: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v.make() if isinstance(v, _Deferred) else v for k, v in keywords.items()}


def _conversation(
    trajectory: Sequence[ChatMessage], bounds: Sequence[tuple[int, int]]
) -> Conversation:
    return to_conversation({"turns": [list(trajectory[start:end]) for start, end in bounds]})


def _static_user(replies: Sequence[Any]) -> Callable[..., Any]:
    """openevals' list of fixed replies as a user: the n-th reply in turn n."""
    replies = list(replies)

    def user(_trajectory: Any, *, turn_counter: int, **_ignored: Any) -> Any:
        if turn_counter >= len(replies):
            raise SimulationError(
                f"the list of user replies has {len(replies)}; turn {turn_counter + 1} needs "
                "another: give more replies or lower max_turns",
                turn=turn_counter + 1,
                field="user",
            )
        return replies[turn_counter]

    return user


class Session:
    """One conversation on one thread: the messages so far (deduplicated by id, as openevals
    merges them), where each turn began, and the steps that add to them."""

    def __init__(self, app: Any, thread_id: str | None) -> None:
        self.thread_id = thread_id if thread_id is not None else str(uuid.uuid4())
        self.app = AppAdapter(app, self.thread_id)
        self.trajectory: list[ChatMessage] = []
        self.bounds: list[tuple[int, int]] = []
        self.pending: list[ChatMessage] = []
        self.stop_reason: StopReason | None = None
        self._ids: set[Any] = set()

    @property
    def turns(self) -> int:
        return len(self.bounds)

    def _add(self, messages: Sequence[ChatMessage]) -> None:
        for message in messages:
            if message.get("id") in self._ids:
                continue
            self._ids.add(message.get("id"))
            self.trajectory.append(message)

    def context(self) -> TurnContext:
        start, end = self.bounds[-1] if self.bounds else (0, 0)
        return TurnContext(
            self.turns,
            self.trajectory[start:end],
            self.trajectory,
            self.bounds,
            self.app,
            self.thread_id,
        )

    def result(self, evaluator_results: list[EvaluatorResult]) -> MultiturnSimulationResult:
        out = MultiturnSimulationResult(
            trajectory=list(self.trajectory), evaluator_results=evaluator_results
        )
        out["stop_reason"] = self.stop_reason or "user_ended"
        out["conversation"] = _conversation(self.trajectory, self.bounds)
        out["thread_id"] = self.thread_id
        return out

    def fail(
        self,
        problem: str,
        field: str,
        error: BaseException | None = None,
        *,
        coming: bool = False,
    ) -> SimulationError:
        """The error ending the run, carrying the conversation so far; it names the turn being
        made (``coming``, or with a user message waiting) or else the last one made."""
        self.stop_reason = "error"
        coming = coming or bool(self.pending) or field in ("user", "app")
        turn = self.turns + 1 if coming else self.turns
        if isinstance(error, SimulationError):
            failure = SimulationError(
                error.problem, turn=error.turn or turn or None, field=error.field or field
            )
        else:
            failure = SimulationError(problem, turn=turn or None, field=field)
        failure.result = self.result([])
        return failure

    # ---------------------------------------------------------------- steps

    def user_says(self, message: Any, field: str = "user") -> None:
        """A user message for the coming turn (given, or what a user callable returned)."""
        self.pending.append(
            chat_message(message, text_role="user", turn=self.turns + 1, field=field)
        )

    def ask_user(self, user: Callable[..., Any], field: str = "user") -> Steps:
        """The user's reply for the coming turn; ``False`` when the user ended the conversation
        (returned ``None``)."""
        __tracebackhide__ = True
        offered = {"thread_id": self.thread_id, "turn_counter": self.turns}
        trajectory = list(self.trajectory)
        try:
            reply = yield Call(lambda: user(trajectory, **offered), field)
            if reply is None:
                self.stop_reason = "user_ended"
                return False
            self.user_says(reply, field)
        except Exception as error:
            problem = f"raised {type(error).__name__}: {error}"
            raise self.fail(problem, field, error, coming=True) from error
        return True

    def answer(self, field: str = "steps") -> Steps:
        """The app's answer to the pending user message: one turn more."""
        __tracebackhide__ = True
        if len(self.pending) != 1:
            raise SimulationError(
                f"an agent turn needs exactly one user message before it, got {len(self.pending)}",
                turn=self.turns + 1,
                field=field,
            )
        message = self.pending.pop()
        history = list(self.trajectory)
        start = len(self.trajectory)
        self._add([message])
        try:
            raw = yield self.app.call(message, history)
            answer = app_messages(raw, turn=self.turns + 1, field="app")
        except Exception as error:
            raise self.fail(f"raised {type(error).__name__}: {error}", "app", error) from error
        self._add(answer)
        self.bounds.append((start, len(self.trajectory)))
        return None

    def ask(self, function: Callable[..., Any], field: str, *positional: Any) -> Steps:
        """Call ``function`` on the conversation so far (a stopping condition, a check), with the
        keywords of ``TurnContext.keywords`` it accepts; its answer."""
        __tracebackhide__ = True
        context = self.context()
        keywords = _resolved(accepted_keywords(function, context.keywords()))
        try:
            return (yield Call(lambda: function(*positional, **keywords), field))
        except Exception as error:
            raise self.fail(f"raised {type(error).__name__}: {error}", field, error) from error

    def evaluate(self, evaluators: Sequence[Any], reference_outputs: Any) -> Steps:
        """openevals' evaluators on the whole trajectory; a list answer adds each result."""
        __tracebackhide__ = True
        results: list[EvaluatorResult] = []
        for index, evaluator in enumerate(evaluators):
            where = f"trajectory_evaluators[{index}]"
            outputs = list(self.trajectory)
            try:
                answer = yield Call(_evaluation(evaluator, outputs, reference_outputs), where)
            except Exception as error:
                raise self.fail(f"raised {type(error).__name__}: {error}", where, error) from error
            results.extend(answer if isinstance(answer, list) else [answer])
        return results


def _evaluation(evaluator: Any, outputs: Any, reference_outputs: Any) -> Callable[[], Any]:
    return lambda: evaluator(outputs=outputs, reference_outputs=reference_outputs)


def simulation(
    session: Session,
    user: Any,
    max_turns: int | None,
    stopping_condition: Callable[..., Any] | None,
    evaluators: Sequence[Any],
    reference_outputs: Any,
) -> Generator[Call, Any, MultiturnSimulationResult]:
    """openevals' loop: user, app, stopping condition, until a limit; then the evaluators."""
    __tracebackhide__ = True
    ask = _static_user(user) if isinstance(user, list | tuple) else user
    if not callable(ask):
        raise SimulationError(
            f"must be a function of the conversation or a list of replies, got "
            f"{type(user).__name__}",
            field="user",
        )
    while True:
        if max_turns is not None and session.turns >= max_turns:
            session.stop_reason = "max_turns"
            break
        if not (yield from session.ask_user(ask)):
            break
        yield from session.answer()
        if stopping_condition is not None and (
            yield from session.ask(
                stopping_condition, "stopping_condition", list(session.trajectory)
            )
        ):
            session.stop_reason = "stopping_condition"
            break
    results = yield from session.evaluate(evaluators, reference_outputs)
    return session.result(results)


def drive(steps: Generator[Call, Any, Any]) -> Any:
    """Run ``steps``, making each call synchronously; an awaitable answer is an error (the
    callee is async: use the ``_async`` function)."""
    __tracebackhide__ = True
    try:
        call = next(steps)
        while True:
            try:
                value = call.run()
                if inspect.isawaitable(value):
                    _close(value)
                    raise TypeError(
                        f"{call.field} returned an awaitable: use run_multiturn_simulation_async "
                        "(or the async scenario) for async apps, users and callables"
                    )
            except Exception as error:
                call = steps.throw(error)
            else:
                call = steps.send(value)
    except StopIteration as stop:
        return stop.value


async def adrive(steps: Generator[Call, Any, Any]) -> Any:
    """Run ``steps``, awaiting each call (its async face when it has one)."""
    __tracebackhide__ = True
    try:
        call = next(steps)
        while True:
            try:
                value = await _acall(call)
            except Exception as error:
                call = steps.throw(error)
            else:
                call = steps.send(value)
    except StopIteration as stop:
        return stop.value


async def _acall(call: Call) -> Any:
    value = call.arun() if call.arun is not None else call.run()
    while inspect.isawaitable(value):
        value = await value
    return value


def _close(value: Awaitable[Any]) -> None:
    close = getattr(value, "close", None)
    if callable(close):
        close()  # a coroutine never awaited would warn


def _prepared(
    app: Any,
    user: Any,
    max_turns: Any,
    trajectory_evaluators: Sequence[Any] | None,
    stopping_condition: Any,
    reference_outputs: Any,
    thread_id: str | None,
) -> Generator[Call, Any, MultiturnSimulationResult]:
    checked = check_max_turns(max_turns, needed=stopping_condition is None)
    if stopping_condition is not None and not callable(stopping_condition):
        raise SimulationError("must be callable", field="stopping_condition")
    session = Session(app, thread_id)
    return simulation(
        session,
        user,
        checked,
        stopping_condition,
        list(trajectory_evaluators or ()),
        reference_outputs,
    )


def run_multiturn_simulation(
    *,
    app: Any,
    user: Callable[..., Any] | list[Any],
    max_turns: int | None = None,
    trajectory_evaluators: Sequence[Any] | None = None,
    stopping_condition: Callable[..., Any] | None = None,
    reference_outputs: Any = None,
    thread_id: str | None = None,
) -> MultiturnSimulationResult:
    """Run a conversation between ``app`` and ``user`` (openevals' ``run_multiturn_simulation``).

    ``app``: a function ``app(message, *, thread_id)``, a LangChain runnable or a compiled
    LangGraph graph (with a checkpointer: one thread, the new message each turn). ``user``: a
    function ``user(trajectory, *, thread_id, turn_counter)`` (``create_llm_simulated_user``),
    returning a message, or ``None`` to end the conversation, or a list of replies (one per
    turn). It stops at ``max_turns`` or when ``stopping_condition(trajectory, turn_counter=...)``
    (which may also ask for ``state``, ``turn``, ``messages``, ``conversation`` by keyword)
    is true; then each of ``trajectory_evaluators`` gets ``outputs`` (the trajectory) and
    ``reference_outputs``. Anything that raises is a ``SimulationError`` naming the turn.

    Example::

        result = run_multiturn_simulation(app=app, user=["Hi!", "Bye"], max_turns=2)
        result["stop_reason"]  # "max_turns"
    """
    __tracebackhide__ = True
    steps = _prepared(
        app,
        user,
        max_turns,
        trajectory_evaluators,
        stopping_condition,
        reference_outputs,
        thread_id,
    )
    result: MultiturnSimulationResult = drive(steps)
    return result


async def run_multiturn_simulation_async(
    *,
    app: Any,
    user: Callable[..., Any] | list[Any],
    max_turns: int | None = None,
    trajectory_evaluators: Sequence[Any] | None = None,
    stopping_condition: Callable[..., Any] | None = None,
    reference_outputs: Any = None,
    thread_id: str | None = None,
) -> MultiturnSimulationResult:
    """``run_multiturn_simulation`` awaiting the app, the user, the stopping condition and the
    evaluators (each may be sync or async; a graph or runnable app is called with ``ainvoke``)."""
    __tracebackhide__ = True
    steps = _prepared(
        app,
        user,
        max_turns,
        trajectory_evaluators,
        stopping_condition,
        reference_outputs,
        thread_id,
    )
    result: MultiturnSimulationResult = await adrive(steps)
    return result
