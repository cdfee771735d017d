"""What the plugin's own hooks take inside a pytest session: a plugin (``-p _hook_timer``, with
``benchmarks/`` on ``PYTHONPATH``) that, once the session is configured, wraps every hook
implementation of ``pytest_agenttraj`` with ``time.perf_counter`` and prints their total and the
largest at the end (``HOOKS <json>``; appended as a line to the file ``AGENTTRAJ_HOOK_TIMES``
names, when set, so that the session can run with its output captured, as measured). With the
plugin's start-up (``bench_startup.py``) this is the deterministic part of what a plain-test
session pays for the plugin: the rest is noise of the machine and of the garbage collector. It
also counts the garbage collector's collections from its own loading on (``gc`` in the same
line: how many, how many full, their time), with the plugin or without it, since one full
collection more or less moves a session by tens of milliseconds.
"""

from __future__ import annotations

import gc
import json
import os
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

_TOTALS: Counter[str] = Counter()
_PACKAGE = "pytest_agenttraj"
_GC = {"collections": 0, "full": 0, "seconds": 0.0}
_GC_STARTED = [0.0]


def _gc_timed(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _GC_STARTED[0] = time.perf_counter()
        return
    _GC["collections"] += 1
    _GC["full"] += info["generation"] == 2
    _GC["seconds"] += time.perf_counter() - _GC_STARTED[0]


gc.callbacks.append(_gc_timed)


def _timed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            _TOTALS[name] += time.perf_counter() - started

    return timed


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    hooks = config.pluginmanager.hook
    for hook_name in dir(hooks):
        if not hook_name.startswith("pytest_"):
            continue
        for implementation in getattr(hooks, hook_name).get_hookimpls():
            module = getattr(implementation.function, "__module__", "") or ""
            if module.startswith(_PACKAGE):
                name = f"{module.removeprefix(_PACKAGE + '.')}.{hook_name}"
                implementation.function = _timed(name, implementation.function)


def pytest_unconfigure() -> None:
    largest = dict(_TOTALS.most_common(4))
    found = {"total": sum(_TOTALS.values()), "largest": largest, "gc": _GC}
    path = os.environ.get("AGENTTRAJ_HOOK_TIMES")
    if path:  # the session ran as measured, its output captured
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(found) + "\n")
    else:
        print("HOOKS " + json.dumps(found))
