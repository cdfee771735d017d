"""One attempt of one test against its cassette: which recorded call answers each request, what
is recorded, and what went wrong.

Modes (``--trajectory-record``): ``none`` replays only; ``new`` replays what the cassette holds
and records the calls it lacks (the real model answers them); ``all`` records every call again.
A request is answered by the first recorded call of the same model not yet used whose request
is the same (so calls of several models, and parallel calls, replay whatever their order); in
``none`` a request no recorded call matches fails the test, with the differences from the
recorded call that was due.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...assertions.replay import ReplayMismatch, replay_mismatch
from ...core.replay import Difference, ReplayReport, request_differences, request_key
from ...errors import CassetteError
from ...evaluators.scope import announce
from ...references.cassette import check_call

__all__ = ["RECORD_MODES", "Recorder"]

RECORD_MODES = ("none", "new", "all")


@dataclass
class _Entry:
    call: Mapping[str, Any]
    position: int
    cassette: str
    used: bool = False
    _key: str | None = None

    @property
    def model(self) -> str:
        return str(self.call["model"])

    @property
    def key(self) -> str:
        """The request's key; the call is checked (depth) before anything reads it."""
        if self._key is None:
            check_call(self.call, f"{self.cassette}: call {self.position}")
            self._key = request_key(self.call["request"])
        return self._key


@dataclass
class Recorder:
    """``recorded`` holds the attempt's recorded calls (``None``: no cassette, or none for this
    attempt); ``cassette`` names the file as the report shows it, ``command`` records it again."""

    mode: str
    recorded: Sequence[Mapping[str, Any]] | None
    cassette: str
    test: str
    command: str
    attempt: int | None = None
    missing_detail: str = "the cassette does not exist"
    made: list[dict[str, Any]] = field(default_factory=list)
    new_calls: int = 0
    failure: ReplayMismatch | None = None
    _entries: list[_Entry] = field(default_factory=list)
    _calls: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if self.mode != "all" and self.recorded is not None:
            self._entries = [
                _Entry(call, n + 1, self.cassette) for n, call in enumerate(self.recorded)
            ]

    def _report(self, problem: str, **fields: Any) -> ReplayMismatch:
        report = ReplayReport(
            problem,
            self.cassette,
            test=self.test,
            command=self.command,
            attempt=self.attempt,
            **fields,
        )
        error = replay_mismatch(report)
        if self.failure is None:
            self.failure = error
            # the first failure is the test's result: it reaches the report and the page
            announce(
                error.result,
                outputs=None,
                reference_outputs=None,
                started=time.perf_counter(),
                origin="agent_cassette",
                report=report,
            )
        return error

    def replayed(self, model: str, request: dict[str, Any]) -> Mapping[str, Any] | None:
        """The recorded response to ``request`` (``None``: the real model is to answer it and
        ``record`` be called). Raises ``ReplayMismatch`` when it may do neither."""
        with self._lock:
            self._calls += 1
            number = self._calls
            if self.mode == "all":
                return None
            key = request_key(request)
            try:
                for entry in self._entries:
                    if not entry.used and entry.model == model and entry.key == key:
                        entry.used = True
                        self.made.append(dict(entry.call))
                        response: Mapping[str, Any] = entry.call["response"]
                        return response
                if self.mode == "new":
                    return None
                mismatch = self._unmatched(model, request, number)
            except CassetteError as error:
                mismatch = self._report("invalid", model=model, call=number, detail=str(error))
            raise mismatch

    def _unmatched(self, model: str, request: dict[str, Any], number: int) -> ReplayMismatch:
        if self.recorded is None:
            return self._report(
                "missing", model=model, call=number, live=request, detail=self.missing_detail
            )
        unused = [entry for entry in self._entries if not entry.used]
        due = next((e for e in unused if e.model == model), None)
        differences: list[Difference] = []
        if due is None and unused:
            due = unused[0]
            differences.append(Difference("model", due.model, model))
        if due is None:
            return self._report("extra", model=model, call=number, live=request)
        _ = due.key  # checked before its request is compared
        differences += request_differences(due.call["request"], request)
        return self._report(
            "differs",
            model=model,
            call=number,
            differences=tuple(differences),
            live=request,
            recorded=due.call["request"],
        )

    def record(
        self,
        model: str,
        request: dict[str, Any],
        response: dict[str, Any],
        duration_s: float | None = None,
    ) -> None:
        """Keep a call the real model answered (in ``duration_s`` seconds, when timed)."""
        call: dict[str, Any] = {"model": model, "request": request, "response": response}
        if duration_s is not None:
            call["duration_s"] = round(duration_s, 6)
        with self._lock:
            self.made.append(call)
            self.new_calls += 1

    def unused(self) -> ReplayMismatch | None:
        """In ``none``, the error for recorded calls the test never made (``None`` if all were,
        or the test failed on a call already)."""
        if self.mode != "none" or self.failure is not None:
            return None
        left = tuple((e.model, e.position) for e in self._entries if not e.used)
        return self._report("unused", unused=left) if left else None
