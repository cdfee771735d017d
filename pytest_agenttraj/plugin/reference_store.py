"""Reference files in the plugin: where a test's files live (its ``trajectories/`` folder, never
outside the project root) and, under ``--trajectory-update``, the run's ledger that settles each
file once, shared with pytest-xdist workers."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .registration import HookHolder

if TYPE_CHECKING:  # loaded where a test reads or settles a file: a plain run needs none of them
    from ..references.file import ReferenceFile
    from ..references.ledger import Claim, UpdateLedger

__all__ = [
    "FOLDER",
    "LEDGER_KEY",
    "MARKER",
    "ItemReferences",
    "LedgerOwner",
    "default_name",
    "relative",
    "worker_ledger",
]

FOLDER = "trajectories"
MARKER = "trajectory"
"""The marker whose ``reference=`` names a test's reference file (in the folder or elsewhere)."""
LEDGER_KEY: pytest.StashKey[UpdateLedger | None] = pytest.StashKey()
_WORKER_KEY = "agenttraj_update_ledger"


def default_name(item: pytest.Item) -> str:
    """A test's own reference file name: ``<test name>.yaml``."""
    return re.sub(r"[^\w.\-\[\]]+", "_", item.name) + ".yaml"


def relative(path: Path, root: Path) -> str:
    """``path`` as reports name it: relative to the project root when inside it."""
    try:
        return str(path.resolve().relative_to(root.resolve()))
    except ValueError:
        return str(path)


class ItemReferences:
    """Resolves reference names for one test and settles files in the run's ledger on its
    behalf (``writer`` names the test, and the attempt of a repeated test)."""

    def __init__(self, item: pytest.Item, marker_reference: str | None, writer: str) -> None:
        self.item = item
        self.marker_reference = marker_reference
        self.writer = writer
        self.ledger = item.config.stash.get(LEDGER_KEY, None)

    @property
    def update(self) -> bool:
        return self.ledger is not None

    def folder(self) -> Path:
        return self.item.path.parent / FOLDER

    def path_for(self, name: str | None) -> Path:
        __tracebackhide__ = True
        from ..errors import ReferenceFileError
        from ..references.suffixes import REFERENCE_SUFFIXES

        name = name or self.marker_reference or default_name(self.item)
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
        __tracebackhide__ = True
        path = self.path_for(name)
        if not path.exists():
            from ..references.file import ReferenceFile

            return ReferenceFile(path, exists=False)
        from ..references.reading import load_reference  # the core's readers, when a file is read

        return load_reference(path)

    def claim(self, path: Path, *, written: bool, content: Any) -> Claim:
        assert self.ledger is not None, "claims are made under --trajectory-update only"
        return self.ledger.claim(path, writer=self.writer, written=written, content=content)


class LedgerOwner(HookHolder):
    """Registered on the controlling process under ``--trajectory-update``: makes the run's
    ledger folder, hands it to pytest-xdist workers and removes it at the end; once the tests
    are collected, refuses the run (once, naming each folder) when the ``trajectories/``
    folder beside a test file cannot take files."""

    def __init__(self, config: pytest.Config) -> None:
        from ..references.ledger import UpdateLedger

        self.config = config
        self.folder = Path(tempfile.mkdtemp(prefix="agenttraj-update-"))
        self.checked = False
        config.stash[LEDGER_KEY] = UpdateLedger(self.folder)

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[_WORKER_KEY] = str(self.folder)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._check({item.path.parent for item in session.items})

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, ids: list[str]) -> None:
        root = self.config.rootpath
        self._check({(root / nodeid.split("::", 1)[0]).parent for nodeid in ids})

    def _check(self, parents: set[Path]) -> None:
        if self.checked:
            return
        self.checked = True
        from .._files import folder_problem

        problems = []
        for parent in sorted(parents):
            folder = parent / FOLDER
            problem = folder_problem(folder)
            if problem:
                problems.append(f"{folder} {problem}")
        if problems:
            raise pytest.UsageError(
                "--trajectory-update cannot write reference files into the "
                f"{FOLDER}/ folder beside the tests: " + "; ".join(problems)
            )

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def worker_ledger(config: pytest.Config) -> None:
    """On a pytest-xdist worker: the controller's ledger, when it made one."""
    folder = getattr(config, "workerinput", {}).get(_WORKER_KEY)
    if not folder:
        config.stash[LEDGER_KEY] = None
        return
    from ..references.ledger import UpdateLedger

    config.stash[LEDGER_KEY] = UpdateLedger(Path(folder))
