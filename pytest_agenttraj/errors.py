"""The package's exceptions: one base class, and specific subclasses that say how to fix things."""

from __future__ import annotations

from functools import partial
from typing import Any

__all__ = [
    "AgentTrajError",
    "BaselineError",
    "BudgetError",
    "CassetteError",
    "GraphTrajectoryFormatError",
    "InvalidMatcherError",
    "JudgeCacheWarning",
    "JudgeError",
    "ReferenceFileError",
    "ScriptError",
    "ScriptExhaustedError",
    "ScriptedReplyError",
    "SimulationError",
    "TrajectoryFormatError",
]


class AgentTrajError(Exception):
    """Base class of every error this package raises on purpose."""


class TrajectoryFormatError(AgentTrajError, ValueError):
    """Input that is not a trajectory, with where it went wrong.

    ``index`` is the position of the offending message in the input (``None`` when the problem is
    the container itself), ``field`` the key that is missing or malformed, ``side`` which argument
    it came from (``"outputs"`` or ``"reference_outputs"``) when known, ``turn`` the turn of a
    conversation (from 1) the message is in, when the input has turns.
    """

    def __init__(
        self,
        problem: str,
        *,
        index: int | None = None,
        field: str | None = None,
        side: str | None = None,
        turn: int | None = None,
    ) -> None:
        self.problem = problem
        self.index = index
        self.field = field
        self.side = side
        self.turn = turn
        super().__init__(self._text())

    def _text(self) -> str:
        where = []
        if self.side:
            where.append(self.side)
        if self.turn is not None:
            where.append(f"turn {self.turn}")
        if self.index is not None:
            where.append(f"message {self.index}")
        if self.field:
            where.append(f"field {self.field!r}")
        prefix = ", ".join(where)
        return f"{prefix}: {self.problem}" if prefix else self.problem

    def with_side(self, side: str) -> TrajectoryFormatError:
        """The same error, saying which evaluator argument it came from."""
        return TrajectoryFormatError(
            self.problem, index=self.index, field=self.field, side=side, turn=self.turn
        )


class GraphTrajectoryFormatError(TrajectoryFormatError):
    """A graph trajectory that is not one. Its text names the side and the place
    (``outputs['steps'][1][2]``); ``invocation`` and ``step`` hold the indices (``None`` when
    the problem is the container), so that a reference file can point at the line."""

    def __init__(
        self,
        problem: str,
        *,
        side: str | None = None,
        invocation: int | None = None,
        step: int | None = None,
    ) -> None:
        self.invocation = invocation
        self.step = step
        super().__init__(problem, side=side)

    def _text(self) -> str:
        return self.problem

    def with_side(self, side: str) -> GraphTrajectoryFormatError:
        """The same error, saying which evaluator argument it came from."""
        return GraphTrajectoryFormatError(
            self.problem, side=side, invocation=self.invocation, step=self.step
        )


class ReferenceFileError(AgentTrajError, ValueError):
    """A reference file that cannot be used: names the file (and line) and what is wrong."""


class CassetteError(ReferenceFileError):
    """A cassette of recorded model calls that cannot be used (not UTF-8, too large, too deep,
    not the shape the plugin writes): names the file, the call and the field."""


class BaselineError(AgentTrajError, ValueError):
    """A baseline file that cannot be used, with the reason and how to fix it."""


class BudgetError(AgentTrajError, ValueError):
    """A run budget (tokens, cost, duration) that cannot be evaluated: no usage metadata on an
    assistant message, no price for a model, no recorded duration. Never a pass: says which
    message or model lacks what."""


class JudgeError(AgentTrajError):
    """An LLM judge whose reply could not be used (after one retry): quotes the reply and says
    what was expected."""

    def __init__(self, problem: str, *, reply: str | None = None) -> None:
        self.problem = problem
        self.reply = reply
        text = problem if reply is None else f"{problem}\nthe judge replied:\n{reply[:2000]}"
        super().__init__(text)


class JudgeCacheWarning(UserWarning):
    """A judge cache that cannot be used as it should: an entry that cannot be read (a miss, the
    model is asked again) or a folder that cannot be written (every answer costs a model call).
    The evaluation itself goes on; the warning names the file or folder to fix."""


class InvalidMatcherError(AgentTrajError, ValueError):
    """A value matcher spelled wrongly in a reference (``{"$regex": "("}``), with where it is.

    ``path`` is the dotted path of the value inside its message (``tool_calls[0].args.city``),
    ``index`` the message's position when known.
    """

    def __init__(self, problem: str, *, path: str = "", index: int | None = None) -> None:
        self.problem = problem
        self.path = path
        self.index = index
        super().__init__(problem if index is None else f"message {index}, {problem}")

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.problem,), {"path": self.path, "index": self.index}


class ScriptError(AgentTrajError):
    """A scripted chat model (``pytest_agenttraj.testing.ScriptedChatModel``) that cannot answer
    a request: its script has run out, or the reply due cannot be used."""


class ScriptExhaustedError(ScriptError, RuntimeError):
    """The model was asked more times than its script has replies. ``request`` is the request
    that found the script empty (``None`` once unpickled), ``replies`` the script's length."""

    def __init__(self, text: str, *, request: Any = None, replies: int = 0) -> None:
        self.request = request
        self.replies = replies
        super().__init__(text)


class ScriptedReplyError(ScriptError, ValueError):
    """A reply in a script that is not one, or that does not fit the request it answers (a tool
    call to a tool the model was not given). ``index`` is its position in the script."""

    def __init__(self, text: str, *, index: int | None = None) -> None:
        self.index = index
        super().__init__(text)


class SimulationError(AgentTrajError, ValueError):
    """A multi-turn conversation that could not go on: bad input (a user reply that is not a
    message, an app that returned nothing, ``max_turns`` below 1), or an app, user, stopping
    condition or evaluator that raised (the original error is its ``__cause__``). ``turn`` is
    the turn it happened in (from 1; ``None`` before the first), ``field`` what was at fault
    (``user``, ``app``, ``max_turns``, ``stopping_condition``, ``trajectory_evaluators[0]``
    ...), ``result`` the conversation so far, its stop reason ``error``."""

    def __init__(
        self, problem: str, *, turn: int | None = None, field: str | None = None, result: Any = None
    ) -> None:
        self.problem = problem
        self.turn = turn
        self.field = field
        self.result = result
        where = [f"turn {turn}"] if turn is not None else []
        if field:
            where.append(field)
        super().__init__(f"{', '.join(where)}: {problem}" if where else problem)

    def __reduce__(self) -> tuple[Any, ...]:
        # rebuilt with its turn and field (pytest-xdist pickles errors); the result stays behind
        return partial(type(self), turn=self.turn, field=self.field), (self.problem,)
