"""The per-run object behind the plugin: decides at collection which tests use the plugin
(and resolves their markers' settings), holds the run's records, and prints the terminal
summary. Its per-test half (:mod:`.running`: a test's scope, its evaluations and their records,
repeated tests, failures explained) loads with the first test that uses the plugin, so a run of
plain tests never loads it.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import pytest

from ..evaluators.providers import scope_provider
from .collection import MarkerNames, marker_names
from .registration import HookHolder
from .settings import TrajectorySettings, item_settings
from .uses import UseDetector

if TYPE_CHECKING:  # the scopes load with the first test that uses the package
    from ..evaluators.judges.cache import JudgeCache
    from ..evaluators.scope import TestScope
    from .results import TrajectoryResults
    from .running import TestHooks

__all__ = [
    "GRADED_FIXTURES",
    "ITEM_SETTINGS",
    "PLUGIN_FIXTURES",
    "PROPERTY",
    "REPEAT_PROPERTY",
    "SESSION_KEY",
    "SETTING_ERROR",
    "TEST_PROPERTY",
    "TrajectorySession",
    "uses_plugin",
]

PROPERTY = "agenttraj"
"""Name of the ``user_properties`` entry that carries one record (as JSON) on a test report."""

TEST_PROPERTY = "agenttraj_test"
"""Name of the teardown report's entry describing a test for ``--trajectory-min-pass-rate`` (JSON
``{"uses_plugin": bool, "groups": [marker names]}``); only made while that gate is on."""
REPEAT_PROPERTY = "agenttraj_repeat"
"""Name of a repeated test's last report's entry holding its attempt counts (JSON, see
:mod:`.repeat`)."""

GRADED_FIXTURES = (
    "tool_call_accuracy_evaluator",
    "tool_call_f1_evaluator",
    "judge_cache",
    "trajectory_judge",
    "async_trajectory_judge",
)
"""The fixtures of :mod:`.graded_fixtures` (graded evaluators and LLM judges)."""

PLUGIN_FIXTURES = frozenset(
    {
        "assert_trajectory",
        "async_trajectory_evaluator",
        "graph_trajectory_evaluator",
        "trajectory_config",
        "trajectory_evaluator",
        "trajectory_reference",
        "simulate",
        "agent_cassette",
        "captured_trace",
        *GRADED_FIXTURES,
    }
)
"""This plugin's fixtures: a test that requests one (or carries the ``trajectory`` marker) is a
trajectory test."""


def uses_plugin(item: pytest.Item) -> bool:
    """Whether ``item`` requests one of this plugin's fixtures or carries its marker."""
    fixtures = getattr(item, "fixturenames", ())
    return bool(PLUGIN_FIXTURES.intersection(fixtures)) or not marker_names(item).isdisjoint(
        PLUGIN_MARKERS
    )


PLUGIN_MARKERS = ("trajectory", "simulation", "agent_cassette")
"""Markers that make a test one of the plugin's (the last two imply their fixtures)."""

_LANGSMITH_TABLE = "langsmith_output_plugin"  # langsmith's own plugin, which adds -qq

ITEM_SETTINGS: pytest.StashKey[TrajectorySettings] = pytest.StashKey()
SESSION_KEY: pytest.StashKey[TrajectorySession] = pytest.StashKey()
SETTING_ERROR: pytest.StashKey[str] = pytest.StashKey()
"""A worker's note on a test whose marker is invalid: its setup fails with it."""


class TrajectorySession(HookHolder):
    """Registered as a plugin at configure time and kept in ``config.stash``."""

    def __init__(self, config: pytest.Config, settings: TrajectorySettings) -> None:
        self.config = config
        self.settings = settings
        self._results: TrajectoryResults | None = None
        self.is_worker = hasattr(config, "workerinput")
        self.repeats: list[dict[str, Any]] = []
        self.repeat_info: dict[str, dict[str, Any]] = {}
        self.tags: dict[str, dict[str, Any]] = {}
        self.tagged_groups: tuple[str, ...] | None = None
        self.judge_timeout: float | None = None  # the run's judge timeout (0: none), likewise
        self.show_summary = True  # the ini key trajectory_summary, set at configure time
        # what the HTML page draws of each result rides on its record when a page or a report
        # (which a page may be made from later) is asked for
        self.keep_detail = bool(
            config.getoption("trajectory_report", default=None)
            or config.getoption("trajectory_html", default=None)
        )
        self.used: set[pytest.Item] = set()
        """The tests that do per-test work here (decided at collection, see :mod:`.uses`)."""
        self.tagged_items: set[pytest.Item] = set()
        """Tests that do not use the plugin but carry a marker ``tag_tests`` was given."""
        self._hooks: TestHooks | None = None
        self._items: dict[str, pytest.Item] = {}
        self._collected: list[pytest.Item] = []
        self._late: tuple[str, TestScope] | None = None
        self.running: pytest.Item | None = None
        """The test whose phase began last, of those doing per-test work here."""
        self._thread = threading.get_ident()
        self._remove_provider: Callable[[], None] | None = None

    @property
    def results(self) -> TrajectoryResults:
        """The run's evaluation records and their totals (made, with their module, when first
        asked for: a run that evaluates nothing loads neither)."""
        if self._results is None:
            from .results import TrajectoryResults

            self._results = TrajectoryResults()
        return self._results

    @functools.cached_property
    def judge_cache(self) -> JudgeCache | None:
        """The run's judge cache (``None`` without pytest's cache plugin), made, with its
        module, when a test first asks for it."""
        from .judges import judge_cache_for

        return judge_cache_for(self.config)

    @property
    def records(self) -> list[dict[str, Any]]:
        """The run's evaluation records so far (none where nothing was evaluated)."""
        return [] if self._results is None else self._results.records

    def start(self) -> None:
        """At configure: find the running test for calls of the package in tests the collection
        did not find using it (``late_scope``)."""
        self._thread = threading.get_ident()
        self._remove_provider = scope_provider(self.late_scope)

    def close(self) -> None:
        """At unconfigure: stop finding tests for late calls of the package."""
        if self._remove_provider is not None:
            self._remove_provider()
            self._remove_provider = None
        if self._hooks is not None:
            self.config.pluginmanager.unregister(self._hooks)
            self._hooks = None

    def tag_tests(self, groups: Sequence[str]) -> None:
        """Describe each test on its teardown report (``TEST_PROPERTY``): whether it uses the
        plugin's fixtures or marker, and which of ``groups`` (marker names) it carries."""
        self.tagged_groups = tuple(groups)

    # ------------------------------------------------------------ collection

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """Resolve each test's settings and decide, once, which tests use the plugin: only
        those run its per-test hooks (registered only if there is one)."""
        errors = []
        self._collected = items  # pytest's own list, for late_scope
        detect = UseDetector(self.config.rootpath, PLUGIN_FIXTURES)
        groups = self.tagged_groups
        read_marks = MarkerNames()
        used = self.used
        last: frozenset[str] | None = None
        marked = plugin_marked = grouped = False
        for item in items:
            marks = read_marks(item)
            if marks is not last:  # the same names for each unmarked item of a parent
                last = marks
                marked = "trajectory" in marks
                plugin_marked = not marks.isdisjoint(PLUGIN_MARKERS)
                grouped = bool(groups) and not marks.isdisjoint(groups or ())
            if marked:
                try:
                    item.stash[ITEM_SETTINGS] = item_settings(item, self.settings)
                except ValueError as error:
                    message = f"{item.nodeid}: {error}"
                    if self.is_worker:
                        item.stash[SETTING_ERROR] = message
                    else:
                        errors.append(message)
            if detect(item, marked=plugin_marked):
                used.add(item)
            elif grouped:
                self.tagged_items.add(item)
        if errors:
            more = f"\n(and {len(errors) - 10} more)" if len(errors) > 10 else ""
            raise pytest.UsageError("\n".join(errors[:10]) + more)
        if self.used or self.tagged_items:
            self.activate()

    def pytest_sessionstart(self) -> None:
        # The pytest-xdist controller runs no test: it reads the records off the workers' reports.
        if not self.is_worker and self.config.pluginmanager.has_plugin("dsession"):
            self.activate()

    def activate(self) -> TestHooks:
        """The per-test hooks, loaded and registered once."""
        if self._hooks is None:
            from .running import TestHooks

            self._hooks = TestHooks(self)
            self.config.pluginmanager.register(self._hooks, "agenttraj-tests")
        return self._hooks

    def use(self, item: pytest.Item) -> None:
        """Make ``item`` one that does per-test work (from now on)."""
        self.used.add(item)
        self.activate()

    def late_scope(self) -> TestScope | None:
        """The scope of the running test when the package is called in a test the collection
        did not find using it (a call through a value built at run time): the test is found by
        ``PYTEST_CURRENT_TEST``, in the thread that runs the tests, and does per-test work from
        then on. ``None`` outside a test, in another thread, or in a test already in scope."""
        current = os.environ.get("PYTEST_CURRENT_TEST")
        if current is None or threading.get_ident() != self._thread:
            return None
        late = self._late
        if late is not None and late[0] == current:
            return late[1]
        nodeid, _, phase = current.rpartition(" (")
        phase = phase.removesuffix(")")
        if not self._items:
            self._items = {item.nodeid: item for item in self._collected}
        item = self._items.get(nodeid)
        if item is None or item in self.used or phase not in ("setup", "call", "teardown"):
            return None
        self.use(item)
        scope = self.activate().scope(item, phase)
        self._late = (current, scope)
        return scope

    def settings_for(self, item: pytest.Item) -> TrajectorySettings:
        return item.stash.get(ITEM_SETTINGS, self.settings)

    def attempt_of(self, item: pytest.Item) -> int | None:
        """The attempt of a repeated test now running (from 1), ``None`` for any other."""
        return None if self._hooks is None else self._hooks.attempt_of(item)

    # ------------------------------------------------------------ reporting

    def pytest_agenttraj_record(self, record: dict[str, Any]) -> None:
        self.results.add(record)

    def pytest_report_header(self) -> str:
        return f"agenttraj: {self.settings.describe()}"

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        verbosity = self.config.get_verbosity()
        if verbosity < -1 and self.config.pluginmanager.has_plugin(_LANGSMITH_TABLE):
            verbosity = -1  # -qq came from langsmith's --langsmith-output: keep the totals
        if self.is_worker or verbosity < -1 or not self.show_summary:
            return
        if self.repeats and verbosity >= 0:
            terminalreporter.write_sep("=", "trajectory repeats")
            from .repeat import repeat_lines

            for line in repeat_lines(self.repeats, verbosity):
                terminalreporter.write_line(
                    line, red=line.startswith("FAILED"), yellow=line.startswith("SKIPPED")
                )
        if self._results is None:  # nothing was evaluated
            return
        lines = self._results.lines(verbosity)
        if not lines:
            return
        terminalreporter.write_sep("=", "trajectory results")
        failed = self._results.summary()["failed"]
        for line in lines[:-1]:
            terminalreporter.write_line(line)
        terminalreporter.write_line(lines[-1], red=bool(failed), green=not failed, bold=True)
