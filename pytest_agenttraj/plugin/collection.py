"""What a run collected and what it missed, so that a tool judging the whole project (which
files no test uses) can tell whether the run saw every test.

The test files are found the way pytest finds them from the rootdir (``python_files`` in every
folder it would recurse into), whatever the run was given; a run saw every test when each of
them collected (no ``--ignore``, no ``testpaths`` leaving some out, no collection error, no
module skipped at module level), no test was deselected, no plugin that collects tests was
kept from loading, and every test it collected reported. Each process that collects (the run
itself, or each pytest-xdist worker) gathers what it saw; workers send it to the controller.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Callable, Generator, Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

import pytest

from .registration import HookHolder

__all__ = [
    "COLLECTION_KEY",
    "Collection",
    "MarkerNames",
    "Namer",
    "marker_names",
    "matches",
    "test_files",
]

_WORKER_KEY = "agenttraj_collection"
COLLECTION_KEY: pytest.StashKey[Collection] = pytest.StashKey()
"""Where the run's :class:`Collection` is kept in ``config.stash``."""
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


class Namer(Protocol):
    """The files a test names without running (paths relative to the rootdir), each with why;
    given the test and the names of its markers (``marker_names``). A test names none unless
    its kind's folder is ``beside`` it or it carries the ``marker``."""

    marker: str

    def beside(self, item: pytest.Item) -> bool:
        """Whether the kind's folder is beside the test's file."""
        ...

    def __call__(self, item: pytest.Item, marks: frozenset[str]) -> Iterable[tuple[str, str]]:
        """The files ``item`` names."""
        ...


class MarkerNames:
    """The names of the markers each item carries, its own and its parents', for the items of
    one pass over a collection: each parent's names are found once and shared by its items
    (where ``get_closest_marker`` walks the tree once per name asked). Made for one hook call,
    since a later hook may add markers."""

    __slots__ = ("_last", "_last_names", "_parents")

    _NONE: frozenset[str] = frozenset()

    def __init__(self) -> None:
        self._parents: dict[int, frozenset[str]] = {}
        self._last: object = None  # a collection lists a module's items together
        self._last_names = self._NONE

    def __call__(self, item: pytest.Item) -> frozenset[str]:
        inherited = self.inherited(item)
        own = item.own_markers
        if not own:
            return inherited  # the same object for each of the parent's unmarked items
        return inherited.union([mark.name for mark in own])

    def inherited(self, item: pytest.Item) -> frozenset[str]:
        """The names of the markers ``item``'s parents carry."""
        parent = item.parent
        if parent is not self._last:
            self._last_names = self._of(parent)
            self._last = parent
        return self._last_names

    def any_carries(self, items: Iterable[pytest.Item], name: str) -> bool:
        """Whether one of ``items`` carries the marker ``name``, its own or a parent's (each
        parent looked at once, an item's own markers only where it has some)."""
        last = None
        for item in items:
            if item.own_markers:
                if name in self(item):
                    return True
            elif item.parent is not last:
                last = item.parent
                if name in self.inherited(item):
                    return True
        return False

    def _of(self, node: pytest.Collector | None) -> frozenset[str]:
        if node is None:
            return self._NONE
        known = self._parents.get(id(node))  # the nodes live as long as the pass
        if known is None:
            known = self._of(node.parent)
            if node.own_markers:
                known = known.union([mark.name for mark in node.own_markers])
            self._parents[id(node)] = known
        return known


def marker_names(item: pytest.Item) -> frozenset[str]:
    """The names of the markers ``item`` carries, its own and its parents' (``MarkerNames`` for
    one item)."""
    return MarkerNames()(item)


def carries(item: pytest.Item, name: str) -> bool:
    """Whether ``item`` or a parent carries the marker ``name`` (``get_closest_marker(name)`` is
    not ``None``), by one walk up the tree."""
    node: pytest.Item | pytest.Collector | None = item
    while node is not None:
        for mark in node.own_markers:
            if mark.name == name:
                return True
        node = node.parent
    return False


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


def _skip_reason(report: pytest.CollectReport) -> str:
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return str(text).removeprefix("Skipped: ").strip().splitlines()[0] if text else ""


class Collection(HookHolder):
    """Registered in every process of a run: what it collected (test files, tests, the files
    tests name) and, on the controller, which tests reported.

    ``folders`` maps each kind's folder (beside the test files) to the marker whose arguments
    may name its files elsewhere (or ``""``); ``namers`` makes the kinds' namers, asked only
    once a test may name a file (most runs have none). ``watched`` is called on the controller
    when some verdict on the folders may be needed: pruning, or a kind's folder beside a
    collected test file."""

    def __init__(
        self,
        config: pytest.Config,
        folders: Mapping[str, str],
        namers: Callable[[], Mapping[str, Namer]],
        *,
        track: bool = False,
        watched: Callable[[], None] | None = None,
    ) -> None:
        self.config = config
        self.track = track
        """Whether to note every report whatever the folders (a run asked to prune does)."""
        self._tracker: _Reports | None = None
        self.root = config.rootpath
        self.folders = folders
        self._make_namers = namers
        self._namers: Mapping[str, Namer] | None = None
        self._watched = watched
        self.is_worker = hasattr(config, "workerinput")
        self._collected: set[str] = set()
        self._files: list[Path] = []  # collected here, made relative when read
        self.missed: dict[str, str] = {}
        self._tests: set[str] = set()
        self._pending: list[pytest.Item] = []  # collected here, their ids read when asked for
        self.deselected = 0
        self.named: dict[str, dict[str, str]] = {kind: {} for kind in folders}
        self.reported: set[str] = set()
        self.unpassed: set[str] = set()
        self.workers: list[str] = []
        self.crashed: list[str] = []

    @property
    def collected(self) -> set[str]:
        """The test files collected, relative to the rootdir (on the controller, by the workers
        too); made relative only where a verdict or a worker's message needs them."""
        if self._files:
            self._collected.update(self.rel(path) for path in self._files)
            self._files = []
        return self._collected

    @property
    def tests(self) -> set[str]:
        """The ids of the tests collected (on the controller, by the workers too); read only
        where a verdict needs them."""
        if self._pending:
            self._tests.update(item.nodeid for item in self._pending)
            self._pending = []
        return self._tests

    def rel(self, path: Path | str) -> str:
        """``path`` relative to the rootdir (nodeids are already)."""
        path = Path(path)
        if not path.is_absolute():
            return path.as_posix()
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

    # ---------------------------------------------------------------- in each collecting process

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(
        self, collector: pytest.Collector
    ) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
        report = yield
        if isinstance(collector, pytest.File) and report.passed:
            self._files.append(collector.path)
        return report

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """A module that failed to collect or skipped itself (also sent on by xdist)."""
        if report.passed:
            return
        where = report.nodeid.split("::", 1)[0] or "."
        if report.skipped:
            self.missed.setdefault(where, f"skipped at module level ({_skip_reason(report)})")
        else:
            self.missed[where] = "did not collect (an error)"

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.deselected += len(items)

    def namers(self) -> Mapping[str, Namer]:
        """The kinds' namers, by folder (made when first asked for)."""
        if self._namers is None:
            self._namers = self._make_namers()
        return self._namers

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._pending = session.items
        self._name_files(session.items)
        if self.is_worker:
            self.config.workeroutput[_WORKER_KEY] = self._sent()  # type: ignore[attr-defined]
        else:
            self._watch(self._parents())

    def _name_files(self, items: list[pytest.Item]) -> None:
        """Note the files the tests name: only a test with a kind's folder beside its file, or
        carrying a kind's marker, may name one."""
        markers = frozenset(marker for marker in self.folders.values() if marker)
        namers: list[tuple[Namer, dict[str, str]]] | None = None
        read_marks = MarkerNames()
        beside: dict[Path, bool] = {}  # the items of a test file share its path
        last = None
        near = quiet = False
        for item in items:
            if item.parent is not last:  # a collection lists a parent's items together
                last = item.parent
                near = self._beside(item.path, beside)
                quiet = not near and markers.isdisjoint(read_marks.inherited(item))
            if quiet and not item.own_markers:  # a plain test names nothing
                continue
            marks = read_marks(item)
            if not near and markers.isdisjoint(marks):
                continue
            if namers is None:
                namers = [(namer, self.named[kind]) for kind, namer in self.namers().items()]
            for namer, named in namers:
                for name, why in namer(item, marks):
                    named.setdefault(name, why)

    def _beside(self, path: Path, known: dict[Path, bool]) -> bool:
        """Whether a kind's folder is beside the test file ``path`` (``known`` remembers)."""
        found = known.get(path)
        if found is None:
            found = known[path] = any((path.parent / folder).is_dir() for folder in self.folders)
        return found

    def _parents(self) -> set[Path]:
        """The folders of the test files collected (without making their paths relative)."""
        parents = {path.parent for path in self._files}
        parents.update((self.root / rel).parent for rel in self._collected)
        return parents

    def has_folder(self, folder: str) -> bool:
        """Whether a folder named ``folder`` is beside a collected test file."""
        return any((parent / folder).is_dir() for parent in self._parents())

    def _watch(self, parents: Iterable[Path]) -> None:
        """Note which tests report (a per-test hook) only where a verdict may need it: when
        pruning, or when a kind's folder is beside a collected test file. A run without one
        has nothing to list, and its tests run none of this code."""
        if self._tracker is not None or self.is_worker:
            return
        if self.track or any((p / kind).is_dir() for p in set(parents) for kind in self.folders):
            self._tracker = _Reports(self)
            self.config.pluginmanager.register(self._tracker, "agenttraj-reported")
            if self._watched is not None:
                self._watched()

    def close(self) -> None:
        """At unconfigure: take the report hook out with the collection."""
        if self._tracker is not None:
            self.config.pluginmanager.unregister(self._tracker)
            self._tracker = None

    def _sent(self) -> dict[str, Any]:
        return {
            "collected": sorted(self.collected),
            "missed": self.missed,
            "deselected": self.deselected,
            "named": self.named,
        }

    # ---------------------------------------------------------------- on the controller

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, ids: list[str]) -> None:
        self.tests.update(ids)
        self._watch({(self.root / nodeid.split("::", 1)[0]).parent for nodeid in ids})

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        name = str(getattr(getattr(node, "gateway", None), "id", node))
        if error is not None:
            self.crashed.append(name)
        data = getattr(node, "workeroutput", {}).get(_WORKER_KEY)
        if not isinstance(data, dict):
            return
        self.workers.append(name)
        self.collected.update(data["collected"])
        for where, why in data["missed"].items():
            self.missed.setdefault(where, why)
        self.deselected = max(self.deselected, int(data["deselected"]))
        for kind, named in data["named"].items():
            self.named.setdefault(kind, {}).update(named)

    def reported_test(self, report: pytest.TestReport) -> None:
        self.reported.add(report.nodeid)
        if not report.passed:
            self.unpassed.add(report.nodeid)

    # ---------------------------------------------------------------- the verdict

    def problems(self, session: pytest.Session, exitstatus: int) -> list[str]:
        """Why this run did not see every test (empty when it did), the test files aside."""
        found = self._selection()
        if self.deselected and not found:
            found.append(f"{self.deselected} test(s) were deselected")
        if session.shouldstop or session.shouldfail:
            found.append("the run stopped early")
        elif exitstatus in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR):
            found.append("the run was interrupted")
        if self.crashed:
            found.append(f"pytest-xdist worker(s) {', '.join(self.crashed)} crashed")
        if self._distributed() and not self.workers:
            found.append("no pytest-xdist worker said what it collected")
        unreported = sorted(self.tests - self.reported)
        if unreported:
            found.append(f"{len(unreported)} collected test(s) did not run ({unreported[0]}, ...)")
        blocked = blocked_collectors(self.config)
        if blocked:
            found.append(f"plugins that collect tests were not loaded ({', '.join(blocked)})")
        return found

    def _distributed(self) -> bool:
        return self.config.pluginmanager.has_plugin("dsession")

    def _selection(self) -> list[str]:
        option = self.config.option
        flags = {
            "--lf": getattr(option, "lf", False),
            "--ff": getattr(option, "failedfirst", False),
            "-k": getattr(option, "keyword", ""),
            "-m": getattr(option, "markexpr", ""),
            "--deselect": getattr(option, "deselect", None),
            "--sw": getattr(option, "stepwise", False) or getattr(option, "stepwise_skip", False),
            "--collect-only": getattr(option, "collectonly", False),
            "a test id": any("::" in arg for arg in self.config.args),
        }
        used = [flag for flag, value in flags.items() if value]
        return [f"the run selected tests ({', '.join(used)})"] if used else []

    def unchecked(self, tests: Iterable[Path]) -> dict[str, str]:
        """The files among ``tests`` (and those that failed to collect or skipped themselves)
        that this run did not collect, each with why."""
        missing = dict(self.missed)
        for path in tests:
            rel = self.rel(path)
            if rel not in self.collected and rel not in missing:
                missing[rel] = self._why_missed(path)
        return dict(sorted(missing.items()))

    def _why_missed(self, path: Path) -> str:
        config = self.config
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

    def shown(self, unchecked: Mapping[str, str]) -> list[str]:
        """Lines listing ``unchecked`` (the first few)."""
        lines = [f"    {rel}: {why}" for rel, why in list(unchecked.items())[:_SHOWN]]
        if len(unchecked) > _SHOWN:
            lines.append(f"    (and {len(unchecked) - _SHOWN} more)")
        return lines


class _Reports(HookHolder):
    """Registered by :meth:`Collection._watch`: notes each test that reported."""

    def __init__(self, collection: Collection) -> None:
        self.collection = collection

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.collection.reported_test(report)


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
