"""Asking a judge model, once for both faces: look the answer up in the cache, else ask the
model (structured output through tool calling when it has it, a JSON reply in text otherwise),
check the reply, retry an unusable one once, then raise ``JudgeError`` quoting it.

The conversation with the model is written once, as a generator that yields each request and
receives the reply; the sync face answers with ``invoke``, the async face with ``ainvoke`` under
a bound on concurrent model calls (one semaphore per event loop, so one judge serves tests that
each run their own loop). Each model call has a time bound (``timeout=``, else the run's
``--trajectory-judge-timeout``, else ``DEFAULT_TIMEOUT``): the async face cancels a late call,
the sync face abandons it to a worker thread (:mod:`.deadline`); either way the evaluation
raises ``JudgeError`` and the cache keeps nothing for it.
"""

from __future__ import annotations

import math
import os
import sys
import weakref
from collections.abc import Awaitable, Generator, Mapping
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import JudgeError
from ..scope import current_scope
from .cache import JudgeCache, KeyMaker
from .deadline import CallTimedOut, call_within, submit
from .model import JudgeModel, message_usage
from .replies import ReplyError, ReplySpec, json_instructions, parse_json_reply
from .templates import append_to_last_user, reply_text

if TYPE_CHECKING:
    import asyncio

__all__ = [
    "DEFAULT_MAX_CONCURRENCY",
    "DEFAULT_TIMEOUT",
    "Judge",
    "Verdict",
    "check_cache_setting",
    "check_timeout",
]

DEFAULT_MAX_CONCURRENCY = 8
DEFAULT_TIMEOUT = 120.0
"""Seconds a judge waits for one model call unless told otherwise."""

_USAGE_KEYS = ("input_tokens", "output_tokens", "total_tokens")

Request = tuple[Any, list[dict[str, Any]]]
"""What the conversation asks next: a runnable and the messages to send it."""


def check_cache_setting(cache: object) -> None:
    """``cache`` must be ``None``/``False`` (none), ``True`` (the pytest run's), a directory, or
    a ``JudgeCache``."""
    if cache is None or isinstance(cache, bool | str | os.PathLike | JudgeCache):
        return
    raise ValueError(
        "cache must be None, True (the pytest run's cache), a directory, or a JudgeCache, got "
        f"{type(cache).__name__}"
    )


def check_timeout(timeout: object, *, where: str = "timeout") -> float | None:
    """A judge's time bound in seconds: ``None`` (the run's, else ``DEFAULT_TIMEOUT``), or a
    number >= 0 (``0``: no bound)."""
    if timeout is None:
        return None
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not math.isfinite(timeout)
        or timeout < 0
    ):
        raise ValueError(
            f"invalid {where} {timeout!r}: must be a number of seconds >= 0 (0: no bound)"
        )
    return float(timeout)


@dataclass(frozen=True)
class Verdict:
    """A judge's checked answer and what it cost: model calls (0 when cached), tokens, and how
    the model was asked (``tool_calling``, ``json_text``, or ``cache``)."""

    answer: dict[str, Any]
    model: str
    method: str
    model_calls: int = 0
    cached: bool = False
    usage: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_USAGE_KEYS, 0))

    @property
    def tokens(self) -> int:
        return int(self.usage.get("total_tokens", 0))

    def metadata(self) -> dict[str, Any]:
        """What the result's ``metadata`` says about the judging."""
        return {
            "cached": self.cached,
            "model_calls": self.model_calls,
            "usage": dict(self.usage),
            "judge_model": self.model,
            "method": self.method,
        }

    def record(self) -> dict[str, Any]:
        """What the plugin's record of the evaluation says (summed in the terminal summary)."""
        return {
            "judge": {
                "model": self.model,
                "model_calls": self.model_calls,
                "cached": self.cached,
                "tokens": self.tokens,
            }
        }


def _add(total: dict[str, int], more: Mapping[str, int]) -> None:
    for key, value in more.items():
        total[key] = total.get(key, 0) + value


class _Bound:
    """At most ``limit`` model calls at a time per event loop."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._by_loop: weakref.WeakKeyDictionary[Any, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )

    def semaphore(self) -> asyncio.Semaphore:
        import asyncio  # only async judges need it

        loop = asyncio.get_running_loop()
        found = self._by_loop.get(loop)
        if found is None:
            found = self._by_loop[loop] = asyncio.Semaphore(self.limit)
        return found


class Judge:
    """One configured judge: its model, what it must answer, its cache setting, and (for the
    async face) how many model calls may run at once."""

    def __init__(
        self,
        model: JudgeModel,
        spec: ReplySpec,
        *,
        cache: Any = None,
        decides: Mapping[str, Any] | None = None,
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
        timeout: float | None = None,
    ) -> None:
        check_cache_setting(cache)
        if (
            isinstance(max_concurrency, bool)
            or not isinstance(max_concurrency, int)
            or max_concurrency < 1
        ):
            raise ValueError(f"invalid max_concurrency {max_concurrency!r}: must be an int >= 1")
        self.model = model
        self.spec = spec
        self.cache = cache
        self.timeout = check_timeout(timeout)
        self.decides = dict(decides or {})
        self._bound = _Bound(max_concurrency)
        self._keys: KeyMaker | None = None
        # a directory given as cache= is one cache for the judge's life (warned of once)
        self._directory_cache = (
            JudgeCache(Path(cache)) if isinstance(cache, str | os.PathLike) else None
        )

    # ------------------------------------------------------------ the two faces

    def ask(self, messages: list[dict[str, Any]]) -> Verdict:
        """The answer to ``messages`` (from the cache, or asked of the model)."""
        timeout = self._timeout()
        plan = self._plan(messages)
        try:
            request = next(plan)
            while True:
                runnable, prompt = request
                request = plan.send(self._call(runnable, prompt, timeout))
        except StopIteration as done:
            verdict: Verdict = done.value
            return verdict
        finally:
            plan.close()

    async def aask(self, messages: list[dict[str, Any]]) -> Verdict:
        """The awaitable twin of ``ask``; model calls wait for a free slot of the bound."""
        timeout = self._timeout()
        plan = self._plan(messages)
        try:
            request = next(plan)
            while True:
                runnable, prompt = request
                async with self._bound.semaphore():
                    reply = await self._acall(runnable, prompt, timeout)
                request = plan.send(reply)
        except StopIteration as done:
            verdict: Verdict = done.value
            return verdict
        finally:
            plan.close()

    # ------------------------------------------------------------ one model call

    def _timeout(self) -> float | None:
        """This evaluation's bound in seconds, ``None`` for none."""
        timeout = self.timeout
        if timeout is None:
            scope = current_scope()
            run = scope.judge_timeout if scope is not None else None
            timeout = DEFAULT_TIMEOUT if run is None else run
        return timeout or None

    def _call(self, runnable: Any, prompt: Any, timeout: float | None) -> Any:
        try:
            if timeout is None:
                return runnable.invoke(prompt)
            return call_within(runnable.invoke, prompt, timeout)
        except CallTimedOut:
            raise self._late(timeout) from None
        except RecursionError as error:
            raise self._too_deep(error) from None

    async def _acall(self, runnable: Any, prompt: Any, timeout: float | None) -> Any:
        try:
            if timeout is None:
                return await runnable.ainvoke(prompt)
            if not self.model.has_async:  # see .deadline: not in the loop's executor
                return await _awaited_within(submit(runnable.invoke, prompt), timeout)
            return await _within(runnable.ainvoke(prompt), timeout)
        except CallTimedOut:
            raise self._late(timeout) from None
        except RecursionError as error:
            raise self._too_deep(error) from None

    def _late(self, timeout: float | None) -> JudgeError:
        return JudgeError(
            f"the judge ({self.model.label}) did not answer within its timeout of {timeout:g} s; "
            "the call was given up (raise the bound with timeout= or --trajectory-judge-timeout, "
            "0 for none)"
        )

    def _too_deep(self, error: RecursionError) -> JudgeError:
        return JudgeError(
            f"the judge ({self.model.label}) gave a reply nested too deeply to read ({error})"
        )

    # ------------------------------------------------------------ the one implementation

    def _cache(self) -> JudgeCache | None:
        """The cache this evaluation uses. Under pytest the run's cache mode
        (``--trajectory-judge-cache``) applies to a directory given as ``cache=`` too."""
        setting = self.cache
        if setting is None or setting is False or isinstance(setting, JudgeCache):
            return setting or None
        scope = current_scope()
        run = scope.judge_cache if scope is not None else None
        run = run if isinstance(run, JudgeCache) else None
        if setting is True:
            return run
        return run.for_directory(setting) if run is not None else self._directory_cache

    def _plan(self, messages: list[dict[str, Any]]) -> Generator[Request, Any, Verdict]:
        cache = self._cache()
        if cache is None:
            return (yield from self._exchange(messages))
        key = self._key(messages)
        stored = cache.get(key, check=self.spec.check)  # one it cannot use is a miss
        if stored is not None:
            return Verdict(stored["answer"], self._stored_label(stored), "cache", cached=True)
        verdict = yield from self._exchange(messages)
        cache.put(key, {"answer": verdict.answer, "model": verdict.model, "usage": verdict.usage})
        return verdict

    def _key(self, messages: list[dict[str, Any]]) -> str:
        """The cache key of ``messages``: everything else that decides the answer (the model's
        identity, the schema, the settings) is encoded once per judge."""
        if self._keys is None:
            constant = {"model": self.model.identity(), "schema": self.spec.schema, **self.decides}
            self._keys = KeyMaker(constant, "messages")
        return self._keys(messages)

    def _stored_label(self, stored: Mapping[str, Any]) -> str:
        """The model's label for a cached answer, without making a model given as a string (the
        entry names the model that answered)."""
        label = stored.get("model")
        if self.model.made or not isinstance(label, str):
            return self.model.label
        return label

    def _exchange(self, messages: list[dict[str, Any]]) -> Generator[Request, Any, Verdict]:
        structured = self.model.structured(self.spec.schema)
        if structured is not None:
            runnable, method, prompt = structured, "tool_calling", messages
        else:
            instructions = json_instructions(self.spec.schema)
            runnable, method = self.model.get(), "json_text"
            prompt = append_to_last_user(messages, instructions)
        usage = dict.fromkeys(_USAGE_KEYS, 0)
        problem, quoted = "", ""
        for attempt in (1, 2):
            reply = yield (runnable, prompt)
            message, candidate, problem = _read(reply, method)
            _add(usage, message_usage(message))
            quoted = reply_text(message)
            if candidate is not None:
                try:
                    answer = self.spec.check(candidate)
                except ReplyError as error:
                    problem = str(error)
                else:
                    return Verdict(answer, self.model.label, method, attempt, False, usage)
            if method == "json_text":
                prompt = [
                    *prompt,
                    {"role": "assistant", "content": quoted},
                    {
                        "role": "user",
                        "content": f"That reply cannot be used: {problem}. " + instructions,
                    },
                ]
        raise JudgeError(
            f"the judge ({self.model.label}) gave no usable answer in 2 attempts: {problem}",
            reply=quoted,
        )


async def _within(call: Awaitable[Any], timeout: float) -> Any:
    """``await call``, cancelled after ``timeout`` seconds (``CallTimedOut``)."""
    import asyncio

    if sys.version_info >= (3, 11):
        bound = asyncio.timeout(timeout)
        try:
            async with bound:
                return await call
        except TimeoutError:
            if bound.expired():
                raise CallTimedOut(timeout) from None
            raise  # the model's own
    try:
        return await asyncio.wait_for(call, timeout)
    except asyncio.TimeoutError:
        raise CallTimedOut(timeout) from None


async def _awaited_within(call: futures.Future[Any], timeout: float) -> Any:
    """The result of a pool worker's ``call``, awaited at most ``timeout`` seconds."""
    import asyncio

    try:
        return await asyncio.wait_for(asyncio.wrap_future(call), timeout)
    except asyncio.TimeoutError:
        if call.done() and not call.cancelled():
            raise  # the model's own
        raise CallTimedOut(timeout) from None


def _read(reply: Any, method: str) -> tuple[Any, dict[str, Any] | None, str]:
    """The reply message, the answer object in it (``None`` if there is none), and what is
    wrong when there is none."""
    if method == "tool_calling":
        message = reply.get("raw") if isinstance(reply, Mapping) else reply
        parsed = reply.get("parsed") if isinstance(reply, Mapping) else None
        if isinstance(parsed, Mapping):
            return message, dict(parsed), ""
        error = reply.get("parsing_error") if isinstance(reply, Mapping) else None
        problem = (
            f"its tool call could not be parsed ({error})" if error else "it made no tool call"
        )
        text = reply_text(message)
    else:
        message, text, problem = reply, reply_text(reply), ""
    try:
        return message, parse_json_reply(text), problem
    except ReplyError as error:
        return message, None, problem or str(error)
