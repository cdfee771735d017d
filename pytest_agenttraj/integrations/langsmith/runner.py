"""What pytest calls in place of a tracked test: the test's body marked on its case (entered,
done, raised), inside LangSmith's tracing context, with a fallback that runs the bare test when
tracking fails before the body starts. An error the body raised is the test's own; one raised
after a passing body is dropped.

A LangSmith error never reaches a test's failure: the fallback runs, and the body's own error is
raised again, outside the handler of that error, so that Python chains nothing to it (a chained
langsmith traceback would show its request arguments, the API key among them)."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AbstractContextManager as ContextManager
from typing import Any

from .case import Case

__all__ = ["Hook", "body_of", "make_runner", "within"]

Hook = Callable[[Case, BaseException], None]


def body_of(
    func: Callable[..., Any],
    case: Case,
    enter: Callable[[Case], None],
    finish: Callable[[Case], None],
    prepare: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> Callable[..., Any]:
    """``func`` as a tracked test's body: ``enter`` before it, ``finish`` after it, and on the
    case whether it completed or what it raised. Same signature and name as ``func``."""
    ready = prepare or (lambda kwargs: kwargs)
    if inspect.iscoroutinefunction(func):

        @functools.wraps(func)
        async def async_body(*args: Any, **kwargs: Any) -> Any:
            enter(case)
            try:
                result = await func(*args, **ready(kwargs))
            except BaseException as error:
                case.body_raised(error)
                raise
            finally:
                finish(case)
            case.body_done = True
            return result

        return async_body

    @functools.wraps(func)
    def sync_body(*args: Any, **kwargs: Any) -> Any:
        enter(case)
        try:
            result = func(*args, **ready(kwargs))
        except BaseException as error:
            case.body_raised(error)
            raise
        finally:
            finish(case)
        case.body_done = True
        return result

    return sync_body


def within(
    is_async: bool,
    context: Callable[[], ContextManager[None]],
    call: Callable[[Mapping[str, Any]], Any],
) -> Callable[[Mapping[str, Any]], Any]:
    """``call`` inside ``context`` -- for a coroutine, while it is awaited, not just created."""
    if is_async:

        async def run_async(testargs: Mapping[str, Any]) -> Any:
            with context():
                return await _awaitable(call(testargs))

        return run_async

    def run(testargs: Mapping[str, Any]) -> Any:
        with context():
            return call(testargs)

    return run


def make_runner(
    is_async: bool,
    attempt: Callable[[Mapping[str, Any]], Any],
    fallback: Callable[[Mapping[str, Any]], Any] | None,
    case: Case,
    on_untracked: Hook,
    on_late: Hook,
) -> Callable[..., Any]:
    """What pytest calls instead of the test: ``attempt`` (tracked). An error the test's body
    raised propagates; one raised before the body started means tracking failed, and
    ``fallback`` (the bare test) runs instead; one raised after a passing body is dropped.

    What runs instead runs after the ``except`` block, never inside it: an exception raised
    while another is handled gets that one as its ``__context__``, and pytest would print the
    LangSmith error's traceback under the test's own failure.
    """

    settle = functools.partial(_instead, fallback, case, on_untracked, on_late)
    if is_async:

        async def async_runner(**testargs: Any) -> Any:
            if fallback is not None:
                case.reset()  # nothing of an earlier run (a repeat's attempt) decides this one
            try:
                return await _awaitable(attempt(testargs))
            except Exception as error:
                instead = settle(error)
            return await _awaitable(instead(testargs))

        return async_runner

    def runner(**testargs: Any) -> Any:
        if fallback is not None:
            case.reset()  # nothing of an earlier run (a repeat's attempt) decides this one
        try:
            return attempt(testargs)
        except Exception as error:
            instead = settle(error)
        return instead(testargs)

    return runner


def _instead(
    fallback: Callable[[Mapping[str, Any]], Any] | None,
    case: Case,
    on_untracked: Hook,
    on_late: Hook,
    error: Exception,
) -> Callable[[Mapping[str, Any]], Any]:
    """After the attempt raised ``error``: what to run instead (the bare test, nothing, or the
    raising of the error that is the test's own). Without a fallback the attempt was the bare
    test, and ``error`` its own."""
    if fallback is None:
        return functools.partial(_raise, error)
    if not case.entered:
        on_untracked(case, error)
        return fallback
    if case.body_done and case.body_error is None:
        on_late(case, error)
        return _nothing
    return functools.partial(_raise, case.own_error(error))


def _raise(error: BaseException, testargs: Mapping[str, Any]) -> None:  # noqa: ARG001
    """Raise the test's own error (called outside any ``except`` block, so nothing is chained)."""
    raise error


def _nothing(testargs: Mapping[str, Any]) -> None:
    """What runs in place of a test whose only error came after its body passed."""


async def _awaitable(value: Awaitable[Any] | Any) -> Any:
    return await value if inspect.isawaitable(value) else value
