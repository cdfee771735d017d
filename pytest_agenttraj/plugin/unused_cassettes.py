"""Cassettes (``cassettes/``) no test uses: listed after a run that saw every test, deleted with
``--trajectory-prune-unused``, by the rule of :mod:`.unused_files`. A test that uses the
cassette fixture or marker names its own cassette. The summary also lists the cassettes the
run recorded.

The run's :class:`UnusedCassettes` is made when something needs it (:func:`cassette_store`): a
run that records or prunes, a cassettes folder beside a collected test file, or a test that
reads or writes a cassette; a run of plain tests loads none of this."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .cassette_store import FOLDER, SENT_KEY, STORE_NAME, cassette_name, uses_cassette
from .collection import COLLECTION_KEY, Collection
from .registration import HookHolder
from .unused_files import FileKind, UnusedFiles, Verdict

__all__ = ["CASSETTES", "UnusedCassettes", "cassette_store"]


def _cassette_names(item: pytest.Item) -> Iterator[tuple[str, str]]:
    if uses_cassette(item):
        yield cassette_name(item), "its own cassette"


CASSETTES = FileKind(FOLDER, (".yaml",), "cassette", _cassette_names)
"""Cassettes: in ``cassettes/`` beside the tests."""


class UnusedCassettes(HookHolder):
    """The cassettes the run's tests read and wrote (a pytest-xdist worker sends them to its
    controller), then, on the controller, the cassettes beside the test files judged by the
    rule of reference files (a test that uses the cassette fixture or marker names its own, a
    string in a test file names one), the unused ones deleted under
    ``--trajectory-prune-unused``."""

    def __init__(self, config: pytest.Config, prune: bool, collection: Collection) -> None:
        self.config = config
        self.prune = prune
        self.rule = UnusedFiles(config, CASSETTES, collection)
        self.used: set[str] = set()
        self.written: dict[str, int] = {}
        self.verdict: Verdict | None = None

    def wrote(self, name: str, calls: int) -> None:
        """A test wrote the cassette ``name`` (relative to the rootdir) with ``calls`` calls."""
        self.used.add(name)
        self.written[name] = calls

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:  # noqa: ARG002
        sent = getattr(node, "workeroutput", {}).get(SENT_KEY)
        if isinstance(sent, dict):
            self.used.update(sent["used"])
            self.written.update(sent["written"])

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if hasattr(self.config, "workerinput"):
            sent = {"used": sorted(self.used), "written": self.written}
            self.config.workeroutput[SENT_KEY] = sent  # type: ignore[attr-defined]
            return
        self.verdict = self.rule.judge(session, exitstatus, self.used, explain=self.prune)
        if self.prune and self.verdict.checked:
            self.rule.prune(self.verdict)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        write = terminalreporter.write_line
        for name, calls in sorted(self.written.items()):
            write(f"agenttraj: recorded cassette {name} ({calls} call(s))", yellow=True)
        if self.verdict is not None:
            for line, warning in self.rule.lines(self.verdict, prune=self.prune):
                write(line, yellow=warning)


def cassette_store(config: pytest.Config) -> UnusedCassettes | None:
    """The run's cassette store, made and registered (as ``STORE_NAME``) when first needed;
    ``None`` in a run the plugin did not configure."""
    store: UnusedCassettes | None = config.pluginmanager.get_plugin(STORE_NAME)
    collection = config.stash.get(COLLECTION_KEY, None)
    if store is None and collection is not None:
        prune = bool(config.getoption("trajectory_prune_unused", default=False))
        store = UnusedCassettes(config, prune, collection)
        config.pluginmanager.register(store, STORE_NAME)
    return store
