"""Reference files in the plugin: where a test's files live, ``--trajectory-update``, and the
session's list of files written and files no test used (``--trajectory-prune-unused`` deletes
those)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from ..errors import ReferenceFileError
from ..references import REFERENCE_SUFFIXES, ReferenceFile, load_reference
from .results import TrajectoryResults

__all__ = ["UPDATE_KEY", "ItemReferences", "ReferenceStore"]

UPDATE_KEY = pytest.StashKey[bool]()
FOLDER = "trajectories"


def _default_name(item: pytest.Item) -> str:
    return re.sub(r"[^\w.\-\[\]]+", "_", item.name) + ".yaml"


class ItemReferences:
    """Resolves reference names for one test: relative to its file's ``trajectories/`` folder,
    never outside the project root."""

    def __init__(self, item: pytest.Item, marker_reference: str | None) -> None:
        self.item = item
        self.marker_reference = marker_reference
        self.update = item.config.stash.get(UPDATE_KEY, False)

    def folder(self) -> Path:
        return self.item.path.parent / FOLDER

    def path_for(self, name: str | None) -> Path:
        name = name or self.marker_reference or _default_name(self.item)
        path = Path(name)
        if not path.is_absolute():
            path = self.folder() / path
        if path.suffix not in REFERENCE_SUFFIXES:
            raise ReferenceFileError(
                f"reference file {path} must end in {', '.join(REFERENCE_SUFFIXES)}"
            )
        root = self.item.config.rootpath.resolve()
        resolved = path.resolve()
        if not resolved.is_relative_to(root):
            raise ReferenceFileError(
                f"reference file {name!r} resolves to {resolved}, outside the project root "
                f"{root}: refused"
            )
        return resolved

    def name_of(self, path: Path) -> str:
        return relative(path, self.item.config.rootpath)

    def resolve(self, name: str | None) -> ReferenceFile:
        path = self.path_for(name)
        if not path.exists():
            return ReferenceFile(path, exists=False)
        return load_reference(path)


def relative(path: Path, root: Path) -> str:
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


class ReferenceStore:
    """Controller-side bookkeeping of reference files: used, written, unused."""

    def __init__(self, config: pytest.Config, prune: bool, results: TrajectoryResults) -> None:
        self.config = config
        self.prune = prune
        self.results = results
        self.used: set[str] = set()
        self.written: list[str] = []
        self.folders: set[Path] = set()
        self.partial = False
        self.unused: list[str] = []
        self.removed: list[str] = []
        self.checked = False

    def _read_results(self) -> None:
        for record in self.results.records:
            name = record.get("reference_file")
            if isinstance(name, str):
                self.used.add(name)
                if record.get("reference_written") and name not in self.written:
                    self.written.append(name)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.folders.add((self.config.rootpath / report.fspath).parent / FOLDER)
        if report.failed and report.when == "call" and self.config.option.maxfail:
            self.partial = True

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        if items:
            self.partial = True

    def _complete_run(self, session: pytest.Session) -> bool:
        """Unused files can be told only when every collected test ran."""
        option = self.config.option
        selected = any("::" in str(arg) for arg in self.config.args)
        filtered = bool(getattr(option, "keyword", "") or getattr(option, "markexpr", ""))
        stopped = bool(session.shouldstop or session.shouldfail)
        return not (self.partial or selected or filtered or stopped)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self._read_results()
        if not self._complete_run(session):
            return
        self.checked = True
        root = self.config.rootpath
        for folder in sorted(self.folders):
            if not folder.is_dir():
                continue
            for path in sorted(folder.rglob("*")):
                if path.suffix in REFERENCE_SUFFIXES and relative(path, root) not in self.used:
                    self.unused.append(relative(path, root))
        if self.prune:
            for name in self.unused:
                (root / name).unlink(missing_ok=True)
                self.removed.append(name)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for name in self.written:
            terminalreporter.write_line(f"agenttraj: wrote reference {name}", yellow=True)
        if self.removed:
            for name in self.removed:
                terminalreporter.write_line(f"agenttraj: deleted unused reference {name}")
        elif self.unused:
            terminalreporter.write_line(
                f"agenttraj: {len(self.unused)} reference file(s) no test used "
                "(--trajectory-prune-unused deletes them):",
                yellow=True,
            )
            for name in self.unused:
                terminalreporter.write_line(f"    {name}")
        elif self.prune and not self.checked:
            terminalreporter.write_line(
                "agenttraj: unused references were not checked: not every test ran"
            )
        elif self.prune:
            terminalreporter.write_line("agenttraj: no unused reference files")
