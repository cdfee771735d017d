"""The session's per-test half: its hooks and what they do for a test that uses the plugin,
loaded and registered (``TrajectorySession.activate``) once some test does, or on a pytest-xdist
controller, which reads the records off the workers' reports. A run of plain tests loads none
of it.

It puts each such test in scope, records its evaluations, sends them to the controlling process
on the test's report, and explains a failure with what each failed evaluation saw. A test marked
``repeat=N`` runs through :mod:`.repeat`; evaluations are then gathered per attempt, and the
runner puts one record per evaluation on the one logged report.

A test whose marker sets tool-usage rules (``required=``, ``forbidden=``, ``max_calls=``, ...)
has every trajectory it evaluates (through ``assert_trajectory``, the fixtures' evaluators or
the public factories) checked against them too: each check is an evaluation of its own (key
``tool_usage``, origin ``marker``), and a broken rule fails the test at the end of the phase
that evaluated the trajectory; a test with such rules that evaluates no trajectory fails too,
since its rules checked nothing.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, cast

import pytest

from .collection import marker_names
from .reference_store import ItemReferences
from .registration import HookHolder
from .session import (
    PROPERTY,
    REPEAT_PROPERTY,
    SETTING_ERROR,
    TEST_PROPERTY,
    TrajectorySession,
    uses_plugin,
)

if TYPE_CHECKING:
    from ..core.matching.report import MatchReport
    from ..core.report import Report
    from ..evaluators.scope import Evaluation, TestScope, test_scope
    from .settings import TrajectorySettings

__all__ = ["TestHooks"]

_INTERNAL = frozenset({PROPERTY, TEST_PROPERTY, REPEAT_PROPERTY})
_EVALUATIONS: pytest.StashKey[list[tuple[str, dict[str, Any], Evaluation]]] = pytest.StashKey()
_COUNTERS: pytest.StashKey[dict[str, int]] = pytest.StashKey()
_ATTEMPT: pytest.StashKey[int | None] = pytest.StashKey()
"""Present while a repeated test runs: the attempt number (``None`` for its closing teardown)."""
_CONFLICT: pytest.StashKey[int] = pytest.StashKey()
_BASE_SCOPE: pytest.StashKey[TestScope] = pytest.StashKey()
_HOOKS = pytest.StashKey[Any]()  # the item's hook proxy (``item.ihook``), looked up once
_DIFF_LINES = 120
_CASSETTE = "agent_cassette"
_MARKER_ORIGIN = "marker"
"""The origin of the tool-usage checks the marker's rules make."""


def _drop(item: pytest.Item, key: pytest.StashKey[Any]) -> None:
    if key in item.stash:
        del item.stash[key]


def _forget(item: pytest.Item) -> None:
    """After a test's last report: let go of what its phases shared (its scope, its evaluations
    with their reports and trajectories, its counters), which the records now carry; items live
    until the session ends, so a suite would otherwise keep every test's evaluations."""
    for key in (_EVALUATIONS, _COUNTERS, _BASE_SCOPE):
        _drop(item, key)


class _Carried(dict[str, Any]):
    """A record on a report of this process (see ``TestHooks.attach``): the record
    itself, so that anything reading the report before the session takes it off finds a JSON
    value (``json.dumps`` writes it as a worker's text reads), shown as that text."""

    __slots__ = ()

    def __str__(self) -> str:
        return json.dumps(self)

    __repr__ = __str__


@functools.cache
def _scopes() -> tuple[type[TestScope], type[test_scope]]:
    """The scope class and the context that enters one: loaded with the first test that uses
    the package, then looked up once (a test's phases ask for them)."""
    from ..evaluators.scope import TestScope, test_scope

    return TestScope, test_scope


@functools.cache
def _json_copy() -> Callable[[Any], Any]:
    from ..core.values import json_copy  # records come from evaluators, which loaded it

    return json_copy


def _nobody(evaluation: Evaluation) -> None:
    """The callback of a scope not yet given its phase's."""


def _graded(score: Any) -> bool:
    """Whether ``score`` is graded (a number), not a verdict (a bool)."""
    return isinstance(score, int | float) and not isinstance(score, bool)


def _json_score(score: Any) -> Any:
    if isinstance(score, bool | int | float | str) or score is None:
        return score
    try:
        return float(score)
    except (TypeError, ValueError):
        return str(score)


class TestHooks(HookHolder):
    """The session's per-test hooks and the work they do, registered only once some test uses
    the plugin (see ``TrajectorySession.activate``): a test that does not returns from each at
    once."""

    __test__ = False  # not a test class, whatever pytest's python_classes say

    def __init__(self, session: TrajectorySession) -> None:
        self.session = session
        self.config = session.config
        self.is_worker = session.is_worker
        self.used = session.used
        self.tagged = session.tagged_items
        self._templates: dict[tuple[int, bool], tuple[TrajectorySettings, TestScope]] = {}

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(
        self, item: pytest.Item, nextitem: pytest.Item | None
    ) -> bool | None:
        if item not in self.used:
            return None
        return self.run_protocol(item, nextitem)

    # Registered late (at collection), these would be outside every other plugin's wrapper;
    # trylast keeps them inside, as pytest's own (logging's teardown reads what its setup set).
    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        __tracebackhide__ = True
        if item not in self.used:
            return (yield)
        return (yield from self.run_phase(item, "setup"))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        __tracebackhide__ = True
        if item not in self.used:
            return (yield)
        return (yield from self.run_phase(item, "call"))

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, None, None]:
        __tracebackhide__ = True
        if item not in self.used:
            return (yield)
        return (yield from self.run_phase(item, "teardown"))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if item in self.used or item in self.tagged:
            self.made_report(item, call, report)
        return report

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> Generator[None, None, None]:
        """Take the records off each report first, so that every other implementation of this
        hook (the JUnit properties among them) finds them in the session's results."""
        if report.user_properties and not self.is_worker:
            self.take_records(report)
        return (yield)

    # ------------------------------------------------------------ running

    def run_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
        """Run a test marked ``repeat=N`` (N > 1) through its attempts; others run as usual.

        ``--setup-only`` and ``--setup-plan`` run it once, as pytest would.
        """
        settings = self.session.settings_for(item)
        if settings.repeat <= 1 or self.config.getoption("setuponly", False):
            return None
        from .repeat import run_repeated  # loads with the first repeated test

        run_repeated(
            item,
            nextitem,
            repeat=settings.repeat,
            rule=settings.pass_rule,
            recorder=self,
            full=settings.full_runs,
        )
        return True

    def begin_attempt(self, item: pytest.Item, number: int | None) -> None:
        item.stash[_ATTEMPT] = number
        _drop(item, _BASE_SCOPE)  # its reference files are settled per attempt
        item.stash[_EVALUATIONS] = []
        item.stash[_COUNTERS] = {}

    def end_attempt(self, item: pytest.Item) -> list[dict[str, Any]]:
        records = [record for _, record, _ in item.stash.get(_EVALUATIONS, [])]
        item.stash[_EVALUATIONS] = []
        item.stash[_COUNTERS] = {}
        return records

    @staticmethod
    def attempt_of(item: pytest.Item) -> int | None:
        """The attempt of a repeated test now running (from 1), ``None`` for any other."""
        return item.stash.get(_ATTEMPT, None)

    def end_repeat(self, item: pytest.Item) -> None:
        if _ATTEMPT in item.stash:
            del item.stash[_ATTEMPT]
        _drop(item, _BASE_SCOPE)

    def attach(self, report: pytest.TestReport, records: Sequence[Mapping[str, Any]]) -> None:
        """Put ``records`` on ``report``: as JSON text in a pytest-xdist worker, whose reports
        travel to the controller; elsewhere as what that text would read back to (a copy, made
        without writing and parsing the text), for this process's ``take_records``."""
        if self.is_worker:
            for record in records:
                report.user_properties.append((PROPERTY, json.dumps(record, default=str)))
            return
        copy = _json_copy()
        for record in records:
            report.user_properties.append((PROPERTY, _Carried(copy(record))))

    def scope(self, item: pytest.Item, phase: str) -> TestScope:
        """The test's scope for ``phase``: what the phases share is made once per test (and
        attempt), each phase's scope a copy of it with its own callback."""
        base = item.stash.get(_BASE_SCOPE, None)
        if base is None:
            base = item.stash[_BASE_SCOPE] = self._base_scope(item)
        return base.with_callback(partial(self._on_evaluation, item, phase))

    def _base_scope(self, item: pytest.Item) -> TestScope:
        settings = self.session.settings_for(item)
        # a test replaying its model calls replays its judges' too: a cached answer would
        # leave a recorded call unused
        replays = _CASSETTE in getattr(item, "fixturenames", ())
        key = (id(settings), replays)
        known = self._templates.get(key)
        if known is None or known[0] is not settings:
            known = self._templates[key] = (settings, self._template(settings, replays))
        scope = object.__new__(_scopes()[0])  # the template's values; no checks to run again
        scope.__dict__.update(known[1].__dict__)
        scope.__dict__["references"] = ItemReferences(item, settings.reference, self._writer(item))
        scope.__dict__["owner"] = item
        return scope

    def _template(self, settings: TrajectorySettings, replays: bool) -> TestScope:
        """What the scopes of the tests with ``settings`` share (most tests share the run's)."""
        return _scopes()[0](
            on_evaluation=_nobody,
            mode=settings.mode,
            tool_args=None
            if settings.sources.get("tool_args") == "default"
            else settings.tool_args,
            overrides=settings.overrides,
            verbose=self.config.get_verbosity(),
            marker_keys=frozenset(k for k, v in settings.sources.items() if v == "marker"),
            min_score=settings.min_score,
            judge_cache=None if replays else self.session.judge_cache,
            judge_timeout=self.session.judge_timeout,
            ignore_keys=settings.ignore_keys,
            allow_empty=settings.allow_empty,
        )

    def _writer(self, item: pytest.Item) -> str:
        """How a reference file settled by this test names it: the test, and the attempt."""
        attempt = item.stash.get(_ATTEMPT, None)
        return item.nodeid if attempt is None else f"{item.nodeid} (attempt {attempt})"

    def conflict(self, item: pytest.Item) -> int | None:
        """The attempt of a repeated test whose trajectory disagreed with a reference file an
        earlier attempt settled, if one did."""
        attempt = item.stash.get(_CONFLICT, None)
        if attempt is not None:
            del item.stash[_CONFLICT]
        return attempt

    def run_phase(self, item: pytest.Item, phase: str) -> Generator[None, None, None]:
        """The body of the ``pytest_runtest_<phase>`` wrappers: the test's scope around the
        phase, then its tool-usage rules settled."""
        __tracebackhide__ = True
        self.session.running = item
        if phase == "setup":
            error = item.stash.get(SETTING_ERROR, None)
            if error is not None:
                pytest.fail(error, pytrace=False)
        with _scopes()[1](self.scope(item, phase)):
            outcome = yield
        self._settle_usage(item, phase)
        return outcome

    def _settle_usage(self, item: pytest.Item, phase: str) -> None:
        """Fail the phase (which itself passed) if a trajectory it evaluated broke the marker's
        tool-usage rules; fail the call if the test has such rules and evaluated nothing."""
        rules = self.session.settings_for(item).usage
        if not rules:
            return
        evaluations = item.stash.get(_EVALUATIONS, [])
        broken = [
            record["diff"]
            for when, record, evaluation in evaluations
            if when == phase and evaluation.origin == _MARKER_ORIGIN and not record["passed"]
        ]
        if broken:
            pytest.fail("\n".join(broken), pytrace=False)
        if phase == "call" and not any(e.origin == _MARKER_ORIGIN for _, _, e in evaluations):
            pytest.fail(
                f"the trajectory marker sets tool-usage rules ({rules.describe()}), but the "
                "test evaluated no trajectory, so they checked nothing: evaluate one with "
                "assert_trajectory or trajectory_evaluator, or call assert_tool_usage",
                pytrace=False,
            )

    def _on_evaluation(self, item: pytest.Item, phase: str, evaluation: Evaluation) -> None:
        result = evaluation.result
        key = str(result.get("key"))
        counters = item.stash.setdefault(_COUNTERS, {})
        from ..evaluators.result import evaluator_family, result_passed

        family = evaluator_family(key)  # occurrences count per evaluator, whatever its mode
        index = counters.get(family, 0)
        counters[family] = index + 1
        report = evaluation.report
        judged = report.settings() if report is not None else {}
        settings = self.session.settings_for(item)
        threshold = evaluation.extra.get("min_score", settings.min_score)
        passed = result_passed(result, threshold)
        record: dict[str, Any] = {
            "nodeid": item.nodeid,
            "key": key,
            "index": index,
            "score": _json_score(result.get("score")),
            "passed": passed,
            "comment": result.get("comment"),
            "mode": judged.get("mode"),
            "tool_args_mode": judged.get("tool_args"),
            "duration_s": round(evaluation.duration_s, 6),
            "origin": evaluation.origin,
            "phase": phase,
        }
        attempt = item.stash.get(_ATTEMPT, None)
        if attempt is not None:
            record["attempt"] = attempt
        if threshold is not None and _graded(result.get("score")):
            record["min_score"] = threshold
        record.update(evaluation.extra)
        from .record_settings import with_settings

        with_settings(record, report, judged, settings, threshold)
        if not passed and report is not None:
            from ..render import render

            lines = render(report, verbose=1, min_score=threshold)
            record["diff"] = "\n".join(lines[:_DIFF_LINES])
        if self.session.keep_detail and report is not None:
            from ..render.detail import detail

            record["detail"] = detail(report)
        item.stash.setdefault(_EVALUATIONS, []).append((phase, record, evaluation))
        hooks = item.stash.get(_HOOKS, None)
        if hooks is None:
            hooks = item.stash[_HOOKS] = item.ihook
        hooks.pytest_agenttraj_evaluated(
            item=item, result=result, record=record, evaluation=evaluation
        )
        if report is not None and settings.usage:
            self._check_marker_usage(item, evaluation, report)

    def _check_marker_usage(
        self, item: pytest.Item, evaluation: Evaluation, report: Report
    ) -> None:
        """Check a trajectory the test evaluated against its marker's tool-usage rules, as an
        evaluation of its own (announced while the test's scope is current)."""
        rules = self.session.settings_for(item).usage
        if not rules or report.kind != "trajectory":  # only a message trajectory makes calls
            return
        from ..core.run_facts import run_facts
        from ..core.usage import check_usage
        from ..evaluators.usage import announce_usage, usage_result

        started = time.perf_counter()
        facts = (
            run_facts(evaluation.outputs, tool_error=rules.tool_error) if rules.budgets else None
        )
        usage = check_usage(cast("MatchReport", report).output, rules, facts)
        announce_usage(
            usage_result(usage),
            usage,
            outputs=evaluation.outputs,
            started=started,
            origin=_MARKER_ORIGIN,
            inputs=evaluation.inputs,
        )

    # ------------------------------------------------------------ reporting

    def made_report(
        self, item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
    ) -> None:
        """After a phase's report is made: put the phase's records on it, and explain a
        failure with what each failed evaluation saw."""
        evaluations = [e for e in item.stash.get(_EVALUATIONS, []) if e[0] == call.when]
        for _, record, _ in evaluations:
            record["test_outcome"] = report.outcome
        if _ATTEMPT not in item.stash:  # a repeated test's runner attaches them at the end
            self.attach(report, [record for _, record, _ in evaluations])
        if report.failed and call.excinfo is not None:
            from ..references import ReferenceConflict

            if isinstance(call.excinfo.value, ReferenceConflict):
                item.stash.setdefault(_CONFLICT, item.stash.get(_ATTEMPT, None) or 1)
            self._explain(call, report, evaluations)
        if call.when == "teardown" and self.session.tagged_groups is not None:
            self._tag(item, report)
        if call.when == "teardown" and _ATTEMPT not in item.stash:
            _forget(item)

    def _tag(self, item: pytest.Item, report: pytest.TestReport) -> None:
        plugin = uses_plugin(item)
        marks = marker_names(item)
        groups = [g for g in self.session.tagged_groups or () if g in marks]
        if plugin or groups:
            value = json.dumps({"uses_plugin": plugin, "groups": groups})
            report.user_properties.append((TEST_PROPERTY, value))

    def _explain(
        self,
        call: pytest.CallInfo[None],
        report: pytest.TestReport,
        evaluations: list[tuple[str, dict[str, Any], Evaluation]],
    ) -> None:
        from ..assertions.base import AgentTrajAssertionError
        from ..render import render

        raised = call.excinfo.value if call.excinfo else None
        if isinstance(raised, AgentTrajAssertionError):
            if self.config.get_terminal_writer().hasmarkup and not self.is_worker:
                from .failure import colour_mismatch

                colour_mismatch(report, raised)
            return
        # The test failed without raising one of ours (e.g. ``assert evaluator(...)["score"]``):
        # show what each failed evaluation saw. The marker's own usage checks fail the test
        # with their explanation already.
        verbose = self.config.get_verbosity()
        texts = []
        for _, record, evaluation in evaluations:
            if record["passed"] or evaluation.report is None or evaluation.origin == _MARKER_ORIGIN:
                continue
            lines = render(evaluation.report, verbose=verbose, min_score=record.get("min_score"))
            texts.append(f"{record['key']} [{record['index']}]\n" + "\n".join(lines))
        if texts:
            report.sections.append(("agenttraj: trajectory mismatch", "\n\n".join(texts)))

    def take_records(self, report: pytest.TestReport) -> None:
        """Read this plugin's entries off a report (records, test tags, repeat counts), then
        take them off it: they carry data from xdist workers and are no
        one else's (the JUnit XML shows readable properties instead)."""
        kept = []
        for name, value in report.user_properties:
            if type(value) is _Carried:
                self.config.hook.pytest_agenttraj_record(config=self.config, record=dict(value))
            elif name not in _INTERNAL or not isinstance(value, str):
                kept.append((name, value))
            elif name == PROPERTY:
                self.config.hook.pytest_agenttraj_record(
                    config=self.config, record=json.loads(value)
                )
            elif name == REPEAT_PROPERTY:
                info = json.loads(value)
                self.session.repeats.append(info)
                self.session.repeat_info[report.nodeid] = info
            else:
                self.session.tags[report.nodeid] = json.loads(value)
        report.user_properties = kept
