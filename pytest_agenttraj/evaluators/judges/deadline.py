"""A time bound on a blocking model call: for the sync face of the judges, and for the async face
of a model without async calls of its own.

A thread cannot be stopped from outside, so a call that overruns its bound is abandoned, not
stopped: it goes on in a worker thread until the model returns (or its own HTTP timeout ends it),
and its answer is dropped. The caller gets ``CallTimedOut`` at the bound and goes on.

The workers are daemon threads kept in one pool for the process and reused: a call hands its work
to an idle worker (a queue put and a wait, some tens of microseconds), and a worker is started
only when none is idle, so after the first model call the path starts no thread. Daemon threads
never hold up the interpreter's exit, however long an abandoned call hangs. Each call runs in a
copy of the caller's context (``contextvars``), so tracing and callbacks see the test's.

For the async face, langchain-core runs a model without async calls in the event loop's default
executor, which the loop waits for when it closes: an abandoned call would hold the test up as
long as the model hangs. Such a call is made in this pool instead (``submit``) and awaited.
"""

from __future__ import annotations

import contextvars
import queue
import threading
from collections.abc import Callable
from concurrent import futures
from typing import Any, TypeVar

__all__ = ["CallTimedOut", "call_within", "submit", "worker_threads"]

T = TypeVar("T")


class CallTimedOut(Exception):
    """The call did not return within its bound (it goes on, abandoned, in a worker)."""


class _Pool:
    """Daemon workers taking calls from one queue; one more is started when none is idle."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle = 0
        self._workers = 0
        self._tasks: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()

    @property
    def workers(self) -> int:
        return self._workers

    def submit(self, task: Callable[[], None]) -> None:
        with self._lock:
            if self._idle:
                self._idle -= 1  # an idle worker will take it
            else:
                self._workers += 1
                threading.Thread(target=self._work, name="agenttraj-judge", daemon=True).start()
        self._tasks.put(task)

    def _work(self) -> None:
        while True:
            task = self._tasks.get()
            task()
            with self._lock:
                self._idle += 1


_POOL = _Pool()  # one per process: threads are the process's, whatever the test run


def worker_threads() -> int:
    """How many worker threads the pool has started so far."""
    return _POOL.workers


def submit(function: Callable[[Any], T], argument: Any) -> futures.Future[T]:
    """``function(argument)`` handed to a pool worker, in a copy of the caller's context."""
    future: futures.Future[T] = futures.Future()
    context = contextvars.copy_context()

    def task() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            result = context.run(function, argument)
        except BaseException as error:  # handed to the caller, who re-raises it
            future.set_exception(error)
        else:
            future.set_result(result)

    _POOL.submit(task)
    return future


def call_within(function: Callable[[Any], T], argument: Any, timeout: float) -> T:
    """``function(argument)`` run by a pool worker; its result or exception, or
    ``CallTimedOut`` after ``timeout`` seconds."""
    future = submit(function, argument)
    try:
        return future.result(timeout)
    except futures.TimeoutError:
        if future.done():  # the call itself raised TimeoutError: it is the model's error
            raise
        future.cancel()  # dropped unstarted if no worker took it yet
        raise CallTimedOut(timeout) from None
