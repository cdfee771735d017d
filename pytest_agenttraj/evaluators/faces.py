"""The one way a scorer gets its faces: a synchronous evaluator and an awaitable one, both with
openevals' calling convention (``evaluator(*, outputs, reference_outputs=None, inputs=None,
**kwargs)``).

A scorer is written once, as ``score(outputs, reference_outputs, inputs, extra)``; a scorer that
does I/O (an LLM judge) also gives ``ascore``, the same steps awaiting the model. Matching does no
I/O, so its async face runs the synchronous scorer. The async face is a real coroutine function
(``inspect.iscoroutinefunction`` is true), as langsmith's ``aevaluate`` requires. Both faces carry
the scorer's settings as attributes (``evaluator.config``, ``evaluator.rules``, ...).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, cast

from .result import EvaluatorResult

__all__ = ["AsyncEvaluator", "AsyncScore", "Evaluator", "Score", "async_face", "sync_face"]

Score = Callable[[Any, Any, Any, Mapping[str, Any]], EvaluatorResult]
"""``score(outputs, reference_outputs, inputs, extra_keywords) -> EvaluatorResult``."""
AsyncScore = Callable[[Any, Any, Any, Mapping[str, Any]], Awaitable[EvaluatorResult]]
"""The awaitable form of ``Score`` (for scorers that do I/O)."""


_UNSET: Any = object()
"""``reference_outputs`` not given (``None`` given is passed on, for the scorer to refuse)."""


def _reference(name: str, reference_outputs: Any, needed: bool) -> Any:
    """``reference_outputs`` as the scorer takes it; missing where needed is a ``TypeError``,
    as for any function called without a required keyword argument (openevals' behaviour)."""
    if reference_outputs is not _UNSET:
        return reference_outputs
    if needed:
        raise TypeError(f"{name}() missing 1 required keyword-only argument: 'reference_outputs'")
    return None


class Evaluator:
    """The synchronous face of a scorer; ``repr`` says how it is configured."""

    def __init__(
        self, score: Score, *, name: str, shown: str, needs_reference: bool, **attributes: Any
    ) -> None:
        self._score = score
        self._shown = shown
        self._needs_reference = needs_reference
        self.__name__ = self.__qualname__ = name
        for attribute, value in attributes.items():
            setattr(self, attribute, value)

    def __call__(
        self,
        *,
        outputs: Any,
        reference_outputs: Any = _UNSET,
        inputs: Any = None,
        **kwargs: Any,
    ) -> EvaluatorResult:
        __tracebackhide__ = True
        reference = _reference(self.__name__, reference_outputs, self._needs_reference)
        return self._score(outputs, reference, inputs, kwargs)

    def __repr__(self) -> str:
        return self._shown

    def __getattr__(self, name: str) -> Any:  # the configured attributes, for type checkers
        raise AttributeError(f"{self._shown} has no attribute {name!r}")


class AsyncEvaluator(Protocol):
    """The awaitable face of a scorer: a coroutine function."""

    async def __call__(
        self, *, outputs: Any, reference_outputs: Any = None, inputs: Any = None, **kwargs: Any
    ) -> EvaluatorResult: ...

    def __getattr__(self, name: str) -> Any: ...


def sync_face(
    score: Score,
    *,
    name: str,
    shown: str | None = None,
    needs_reference: bool = True,
    **attributes: Any,
) -> Evaluator:
    """``score`` as an evaluator named ``name`` (its ``repr`` is ``shown``, else the name);
    ``needs_reference=False`` where ``reference_outputs`` may be left out (judges, usage)."""
    return Evaluator(
        score, name=name, shown=shown or name, needs_reference=needs_reference, **attributes
    )


def async_face(
    score: Score | None = None,
    *,
    ascore: AsyncScore | None = None,
    name: str,
    needs_reference: bool = True,
    **attributes: Any,
) -> AsyncEvaluator:
    """``ascore`` (or, for a scorer without I/O, ``score``) as a coroutine function."""
    if ascore is None:
        if score is None:
            raise TypeError("async_face needs score or ascore")
        synchronous = score

        async def evaluator(
            *, outputs: Any, reference_outputs: Any = _UNSET, inputs: Any = None, **kwargs: Any
        ) -> EvaluatorResult:
            __tracebackhide__ = True
            reference = _reference(name, reference_outputs, needs_reference)
            return synchronous(outputs, reference, inputs, kwargs)

    else:
        awaited = ascore

        async def evaluator(
            *, outputs: Any, reference_outputs: Any = _UNSET, inputs: Any = None, **kwargs: Any
        ) -> EvaluatorResult:
            __tracebackhide__ = True
            reference = _reference(name, reference_outputs, needs_reference)
            return await awaited(outputs, reference, inputs, kwargs)

    evaluator.__name__ = evaluator.__qualname__ = name
    for attribute, value in attributes.items():
        setattr(evaluator, attribute, value)
    return cast("AsyncEvaluator", evaluator)
