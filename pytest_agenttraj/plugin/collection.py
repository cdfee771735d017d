"""What a run collected and what it missed, so that a tool judging the whole project (which
files no test uses) can tell whether the run saw every test (:mod:`.completeness` reads it).

A run saw every test when each of the project's test files collected (no ``--ignore``, no
``testpaths`` leaving some out, no collection error, no module skipped at module level), no test
was deselected, no plugin that collects tests was kept from loading, and every test it collected
reported. Each process that collects (the run itself, or each pytest-xdist worker) gathers what
it saw; workers send it to the controller.
"""

from __future__ import annotations

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
]

_WORKER_KEY = "agenttraj_collection"
COLLECTION_KEY: pytest.StashKey[Collection] = pytest.StashKey()
"""Where the run's :class:`Collection` is kept in ``config.stash``."""


class Namer(Protocol):
    """The files a test names without running (paths relative to the rootdir), each with why;
    given the test and the names of its markers (``marker_names``). A test names none unless
    its kind's folder is beside it or it carries the kind's marker (``Collection.folders``):
    only then is it asked."""

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


def _any_folder(parents: Iterable[Path], folders: Iterable[str]) -> bool:
    """Whether one of ``folders`` is a folder in one of ``parents``."""
    return any((parent / folder).is_dir() for parent in parents for folder in folders)


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
            found = known[path] = _any_folder((path.parent,), self.folders)
        return found

    def _parents(self) -> set[Path]:
        """The folders of the test files collected (without making their paths relative)."""
        parents = {path.parent for path in self._files}
        parents.update((self.root / rel).parent for rel in self._collected)
        return parents

    def has_folder(self, folder: str) -> bool:
        """Whether a folder named ``folder`` is beside a collected test file."""
        return _any_folder(self._parents(), (folder,))

    def _watch(self, parents: Iterable[Path]) -> None:
        """Note which tests report (a per-test hook) only where a verdict may need it: when
        pruning, or when a kind's folder is beside a collected test file. A run without one
        has nothing to list, and its tests run none of this code."""
        if self._tracker is not None or self.is_worker:
            return
        if self.track or _any_folder(set(parents), self.folders):
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


class _Reports(HookHolder):
    """Registered by :meth:`Collection._watch`: notes each test that reported."""

    def __init__(self, collection: Collection) -> None:
        self.collection = collection

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.collection.reported_test(report)
