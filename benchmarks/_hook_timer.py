"""Everything pytest-agenttraj runs inside a pytest session, timed from inside it: a plugin
(``-p _hook_timer``, with ``benchmarks/`` on ``PYTHONPATH``) that pytest loads before the
installed plugins, so that it sees the plugin's whole life in the process:

- ``import``: loading the ``pytest11`` entry point (the package's modules a run needs);
- ``register``: registering the plugin and the plugins it registers (their imports, options
  and hook specifications, and what pytest does for each);
- ``fixtures``: pytest looking through each of the package's plugins for fixtures (it does so for
  every plugin registered, when the session starts or later);
- every hook of the package by name (``configure``, the collection's hooks, any per-test hook,
  ``unconfigure``...), a wrapper's code before and after its ``yield`` included.

Time spent in the package's code while it is already being timed counts once, for the outermost
part. It prints the total and the parts at the end (``HOOKS <json>``; appended as a line to the
file ``AGENTTRAJ_HOOK_TIMES`` names, when set, so that the session can run with its output
captured, as measured). With ``-p no:agenttraj`` it times nothing and still counts the garbage
collector's collections from its own loading on (``gc``: how many, how many full, their time),
since one full collection more or less moves a session by tens of milliseconds. What it cannot
see is the interpreter's exit after pytest returns (``bench_startup.py --only exit``).
"""

from __future__ import annotations

import gc
import importlib.metadata
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Generator
from typing import Any

import pytest
from _pytest.config import PytestPluginManager
from _pytest.fixtures import FixtureManager

_TOTALS: Counter[str] = Counter()
_PACKAGE = "pytest_agenttraj"
_ENTRY_POINT = "agenttraj"
_GC = {"collections": 0, "full": 0, "seconds": 0.0}
_GC_STARTED = [0.0]
_DEPTH = [0]
_STARTED = [0.0]


def _gc_timed(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _GC_STARTED[0] = time.perf_counter()
        return
    _GC["collections"] += 1
    _GC["full"] += info["generation"] == 2
    _GC["seconds"] += time.perf_counter() - _GC_STARTED[0]


gc.callbacks.append(_gc_timed)


def _enter() -> None:
    _DEPTH[0] += 1
    if _DEPTH[0] == 1:
        _STARTED[0] = time.perf_counter()


def _leave(part: str) -> None:
    _DEPTH[0] -= 1
    if _DEPTH[0] == 0:
        _TOTALS[part] += time.perf_counter() - _STARTED[0]


def _timed(part: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        _enter()
        try:
            return function(*args, **kwargs)
        finally:
            _leave(part)

    return timed


def _timed_wrapper(part: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """A hook wrapper whose code on either side of its ``yield`` is timed (not what it wraps)."""

    def timed(*args: Any, **kwargs: Any) -> Generator[Any, Any, Any]:
        _enter()
        try:
            inner = function(*args, **kwargs)
        finally:
            _leave(part)
        sent: Any = None
        thrown: BaseException | None = None
        while True:
            _enter()
            try:
                value = inner.send(sent) if thrown is None else inner.throw(thrown)
            except StopIteration as stop:
                return stop.value
            finally:
                _leave(part)
            try:
                sent, thrown = (yield value), None
            except BaseException as error:  # handed on to the wrapper, as pluggy does
                sent, thrown = None, error

    return timed


def _ours(plugin: object, name: str | None) -> bool:
    if (name or "").startswith((_ENTRY_POINT, _PACKAGE)):
        return True
    module = getattr(plugin, "__name__", None) if isinstance(plugin, type(os)) else None
    module = module or type(plugin).__module__
    return str(module).startswith(_PACKAGE)


def _wrap_hooks(manager: PytestPluginManager, plugin: object) -> None:
    for caller in manager.get_hookcallers(plugin) or ():
        for implementation in caller.get_hookimpls():
            if implementation.plugin is not plugin:
                continue
            part = caller.name.removeprefix("pytest_")
            wrap = implementation.wrapper or implementation.hookwrapper
            make = _timed_wrapper if wrap else _timed
            implementation.function = make(part, implementation.function)  # type: ignore[misc]


_register = PytestPluginManager.register


def _register_timed(self: PytestPluginManager, plugin: Any, name: str | None = None) -> Any:
    if not _ours(plugin, name):
        return _register(self, plugin, name)
    _enter()
    try:
        registered = _register(self, plugin, name)
    finally:
        _leave("register")
    if registered is not None:
        _wrap_hooks(self, plugin)
    return registered


_load = importlib.metadata.EntryPoint.load


def _load_timed(self: importlib.metadata.EntryPoint) -> Any:
    if self.group != "pytest11" or self.name != _ENTRY_POINT:
        return _load(self)
    _enter()
    try:
        return _load(self)
    finally:
        _leave("import")


_parse = FixtureManager.parsefactories


def _parse_timed(self: FixtureManager, *args: Any, **kwargs: Any) -> Any:
    holder = kwargs.get("holder", args[0] if args else None)
    if holder is None or not _ours(holder, None):
        return _parse(self, *args, **kwargs)
    _enter()
    try:
        return _parse(self, *args, **kwargs)
    finally:
        _leave("fixtures")


FixtureManager.parsefactories = _parse_timed  # type: ignore[method-assign]
PytestPluginManager.register = _register_timed  # type: ignore[method-assign]
importlib.metadata.EntryPoint.load = _load_timed  # type: ignore[method-assign]


@pytest.hookimpl(trylast=True)
def pytest_unconfigure() -> None:
    # Called after the package's own unconfigure hooks (this plugin registered first).
    found = {
        "total": sum(_TOTALS.values()),
        "largest": dict(_TOTALS.most_common(5)),
        "parts": dict(_TOTALS),
        "gc": _GC,
    }
    path = os.environ.get("AGENTTRAJ_HOOK_TIMES")
    if path:  # the session ran as measured, its output captured
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(found) + "\n")
    else:
        print("HOOKS " + json.dumps(found))
