"""What pytest calls in place of a tracked test: the test's body marked on its case (entered,
done, raised), inside LangSmith's tracing context, with a fallback that runs the bare test when
tracking fails before the body starts. An error the body raised is the test's own; one raised
after a passing body is dropped."""

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
                case.body_error = error
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
            case.body_error = error
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
    ``fallback`` (the bare test) runs instead; one raised after a passing body is dropped."""

    settle = functools.partial(_instead, fallback, case, on_untracked, on_late)
    if is_async:

        async def async_runner(**testargs: Any) -> Any:
            try:
                return await _awaitable(attempt(testargs))
            except Exception as error:
                instead = settle(error)
                if instead is None:
                    raise
                return await _awaitable(instead(testargs))

        return async_runner

    def runner(**testargs: Any) -> Any:
        try:
            return attempt(testargs)
        except Exception as error:
            instead = settle(error)
            if instead is None:
                raise
            return instead(testargs)

    return runner


def _instead(
    fallback: Callable[[Mapping[str, Any]], Any] | None,
    case: Case,
    on_untracked: Hook,
    on_late: Hook,
    error: Exception,
) -> Callable[[Mapping[str, Any]], Any] | None:
    """After the tracked attempt raised ``error``: what to run instead (``None``: re-raise)."""
    if fallback is None:
        return None
    if not case.entered:
        on_untracked(case, error)
        return fallback
    if case.body_done and case.body_error is None:
        on_late(case, error)
        return _nothing
    return None


def _nothing(testargs: Mapping[str, Any]) -> None:
    """What runs in place of a test whose only error came after its body passed."""


async def _awaitable(value: Awaitable[Any] | Any) -> Any:
    return await value if inspect.isawaitable(value) else value
