"""Whether a run saw every test, for a tool judging the whole project (which files no test
uses): why it did not (:func:`problems`), the project's test files it did not collect
(:func:`unchecked`), and the project's test files as pytest would find them from the rootdir
(:func:`test_files`). Read at the end of a run that lists or prunes unused files, from what
:class:`.collection.Collection` gathered; a run of plain tests loads none of it."""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .collection import Collection

__all__ = ["blocked_collectors", "matches", "problems", "shown", "test_files", "unchecked"]

_HOOKS = (
    "pytest_collect_file|pytest_collect_directory|pytest_pycollect_makemodule|"
    "pytest_pycollect_makeitem|pytest_generate_tests"
)
_SHOWN = 10
_WHERE = {
    pytest.Config.ArgsSource.ARGS: "the run's arguments",
    pytest.Config.ArgsSource.TESTPATHS: "testpaths",
    pytest.Config.ArgsSource.INVOCATION_DIR: "the folder the run started in",
}


def problems(collection: Collection, session: pytest.Session, exitstatus: int) -> list[str]:
    """Why the run did not see every test (empty when it did), the test files aside."""
    found = _selection(collection.config)
    if collection.deselected and not found:
        found.append(f"{collection.deselected} test(s) were deselected")
    if session.shouldstop or session.shouldfail:
        found.append("the run stopped early")
    elif exitstatus in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR):
        found.append("the run was interrupted")
    if collection.crashed:
        found.append(f"pytest-xdist worker(s) {', '.join(collection.crashed)} crashed")
    if _distributed(collection.config) and not collection.workers:
        found.append("no pytest-xdist worker said what it collected")
    unreported = sorted(collection.tests - collection.reported)
    if unreported:
        found.append(f"{len(unreported)} collected test(s) did not run ({unreported[0]}, ...)")
    blocked = blocked_collectors(collection.config)
    if blocked:
        found.append(f"plugins that collect tests were not loaded ({', '.join(blocked)})")
    return found


def _distributed(config: pytest.Config) -> bool:
    return config.pluginmanager.has_plugin("dsession")


def _selection(config: pytest.Config) -> list[str]:
    option = config.option
    flags = {
        "--lf": getattr(option, "lf", False),
        "--ff": getattr(option, "failedfirst", False),
        "-k": getattr(option, "keyword", ""),
        "-m": getattr(option, "markexpr", ""),
        "--deselect": getattr(option, "deselect", None),
        "--sw": getattr(option, "stepwise", False) or getattr(option, "stepwise_skip", False),
        "--collect-only": getattr(option, "collectonly", False),
        "a test id": any("::" in arg for arg in config.args),
    }
    used = [flag for flag, value in flags.items() if value]
    return [f"the run selected tests ({', '.join(used)})"] if used else []


def unchecked(collection: Collection, tests: Iterable[Path]) -> dict[str, str]:
    """The files among ``tests`` (and those that failed to collect or skipped themselves)
    that the run did not collect, each with why."""
    missing = dict(collection.missed)
    for path in tests:
        rel = collection.rel(path)
        if rel not in collection.collected and rel not in missing:
            missing[rel] = _why_missed(collection.config, path)
    return dict(sorted(missing.items()))


def _why_missed(config: pytest.Config, path: Path) -> str:
    invocation = Path(config.invocation_params.dir)
    for ignored in config.getoption("ignore", None) or []:
        target = (invocation / ignored).resolve()
        if path.resolve() == target or path.resolve().is_relative_to(target):
            return "not collected: --ignore"
    for glob in config.getoption("ignore_glob", None) or []:
        if fnmatch.fnmatch(str(path), str(invocation / glob)):
            return "not collected: --ignore-glob"
    roots = [(invocation / arg.split("::", 1)[0]).resolve() for arg in config.args]
    if not any(path.resolve().is_relative_to(root) for root in roots):
        return f"not collected: outside {_WHERE[config.args_source]}"
    return "not collected (collect_ignore, a conftest or a plugin left it out)"


def shown(unchecked: Mapping[str, str]) -> list[str]:
    """Lines listing ``unchecked`` (the first few)."""
    lines = [f"    {rel}: {why}" for rel, why in list(unchecked.items())[:_SHOWN]]
    if len(unchecked) > _SHOWN:
        lines.append(f"    (and {len(unchecked) - _SHOWN} more)")
    return lines


def matches(pattern: str, path: Path) -> bool:
    """Whether ``path`` matches an ini path pattern as pytest matches ``python_files`` and
    ``norecursedirs``: the name alone, or the whole path when the pattern has a folder."""
    if os.sep not in pattern and "/" not in pattern:
        return fnmatch.fnmatch(path.name, pattern)
    if path.is_absolute() and not os.path.isabs(pattern):
        pattern = f"*{os.sep}{pattern}"
    return fnmatch.fnmatch(str(path), pattern)


def _in_venv(path: Path) -> bool:
    return (path / "pyvenv.cfg").is_file() or (path / "conda-meta" / "history").is_file()


def test_files(config: pytest.Config) -> list[Path]:
    """Every file under the rootdir that a plain ``pytest`` run from there, with no
    ``testpaths``, would collect as a test module: ``python_files`` in each folder it recurses
    into (``norecursedirs``, virtual environments and links to folders left out)."""
    patterns = config.getini("python_files")
    skip = config.getini("norecursedirs")
    venvs = not config.getoption("collect_in_virtualenv", False)
    found = []
    for top, dirs, files in os.walk(config.rootpath):
        here = Path(top)
        dirs[:] = sorted(
            d
            for d in dirs
            if d != "__pycache__"
            and not any(matches(p, here / d) for p in skip)
            and not (venvs and _in_venv(here / d))
        )
        for name in sorted(files):
            path = here / name
            if name.endswith(".py") and any(matches(p, path) for p in patterns):
                found.append(path)
    return found


def blocked_collectors(config: pytest.Config) -> list[str]:
    """The plugins kept from loading (``-p no:NAME``; with plugin autoloading off, the installed
    ones not loaded) that collect or parametrize tests, found by reading their source."""
    manager = config.pluginmanager
    names = [p[3:] for p in (config.option.plugins or []) if p.startswith("no:")]
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD") or getattr(
        config.option, "disable_plugin_autoload", False
    ):
        loaded = {getattr(p, "__name__", None) for _, p in manager.list_name_plugin()}
        names += [
            name
            for name, module in _entry_points().items()
            if manager.get_plugin(name) is None and module not in loaded and name not in names
        ]
    return [name for name in names if _collects(name)]


@functools.cache
def _entry_points() -> dict[str, str]:
    """The installed pytest plugins: entry point name to module."""
    from importlib.metadata import entry_points

    return {point.name: point.module for point in entry_points(group="pytest11")}


def _collects(name: str) -> bool:
    """Whether the plugin ``name`` (an entry point, a module, or one of pytest's own) defines
    a hook that collects or parametrizes tests; one that cannot be found collects nothing."""
    from importlib.util import find_spec

    for candidate in (_entry_points().get(name), name, f"_pytest.{name}"):
        if not candidate:
            continue
        try:
            spec = find_spec(candidate)
        except (ImportError, ValueError):
            continue
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        try:
            text = Path(spec.origin).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return True  # cannot tell: it may
        return _collecting_hooks().search(text) is not None
    return False


@functools.cache
def _collecting_hooks() -> re.Pattern[str]:
    """A function of a collecting hook's name, or one bound to it by ``hookimpl(specname=...)``
    (compiled when a plugin is first read, not at start-up)."""
    return re.compile(
        rf"^\s*(?:async\s+)?def\s+(?:{_HOOKS})\b|\bspecname\s*=\s*[\"'](?:{_HOOKS})[\"']",
        re.MULTILINE,
    )
