"""What the plugin's own hooks take inside a pytest session: a plugin (``-p _hook_timer``, with
``benchmarks/`` on ``PYTHONPATH``) that, once the session is configured, wraps every hook
implementation of ``pytest_agenttraj`` with ``time.perf_counter`` and prints their total and the
largest at the end (``HOOKS <json>``). With the plugin's start-up (``bench_startup.py``) this is
the deterministic part of what a plain-test session pays for the plugin: the rest is noise of the
machine and of the garbage collector.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

_TOTALS: Counter[str] = Counter()
_PACKAGE = "pytest_agenttraj"


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
    print("HOOKS " + json.dumps({"total": sum(_TOTALS.values()), "largest": largest}))
