"""Reference files (``trajectories/``) no test uses: listed after a run that saw every test,
deleted with ``--trajectory-prune-unused``, by the rule of :mod:`.unused_files`. A test names,
without running, its own ``<test name>.yaml`` and its ``trajectory`` marker's ``reference=``.
The summary also lists the files ``--trajectory-update`` wrote."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from ..references.suffixes import REFERENCE_SUFFIXES
from .collection import Collection
from .reference_store import FOLDER, MARKER, default_name
from .registration import HookHolder
from .unused_files import FileKind, UnusedFiles, Verdict

if TYPE_CHECKING:
    from .session import TrajectorySession

__all__ = ["REFERENCES", "UnusedReferences"]


def _reference_names(item: pytest.Item) -> Iterator[tuple[str, str]]:
    yield default_name(item), "its own file"
    for mark in item.iter_markers(MARKER):
        reference = mark.kwargs.get("reference")
        if isinstance(reference, str) and reference.strip():
            yield reference, "its marker's reference"


REFERENCES = FileKind(FOLDER, REFERENCE_SUFFIXES, "reference", _reference_names, MARKER)
"""Reference files: in ``trajectories/`` beside the tests, YAML or JSON."""


class UnusedReferences(HookHolder):
    """Registered on the controlling process: at the end of the run, reads which reference
    files were evaluated (and written) off the session's results, then judges the rest."""

    def __init__(
        self,
        config: pytest.Config,
        prune: bool,
        session: TrajectorySession,
        collection: Collection,
    ) -> None:
        self.prune = prune
        self.session = session
        self.rule = UnusedFiles(config, REFERENCES, collection)
        self.written: list[str] = []
        self.verdict: Verdict | None = None

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        evaluated: set[str] = set()
        for record in self.session.records:
            name = record.get("reference_file")
            if isinstance(name, str):
                evaluated.add(name)
                if record.get("reference_written") and name not in self.written:
                    self.written.append(name)
        self.verdict = self.rule.judge(session, exitstatus, evaluated, explain=self.prune)
        if self.prune and self.verdict.checked:
            self.rule.prune(self.verdict)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        write = terminalreporter.write_line
        for name in self.written:
            write(f"agenttraj: wrote reference {name}", yellow=True)
        if self.verdict is not None:
            for line, warning in self.rule.lines(self.verdict, prune=self.prune):
                write(line, yellow=warning)
