"""The per-run object behind the plugin: puts each test in scope, records its evaluations, sends
them to the controlling process on the test's report, and prints the terminal summary."""

from __future__ import annotations

import json
from collections.abc import Generator
from functools import partial
from typing import Any

import pytest

from ._observe import Evaluation, TestScope, test_scope
from ._reference_store import ItemReferences
from ._settings import TrajectorySettings, item_settings
from .assertion import TrajectoryMismatch
from .evaluators import result_passed
from .render import render_report
from .report import TrajectoryResults

__all__ = ["ITEM_SETTINGS", "PROPERTY", "TrajectorySession"]

PROPERTY = "agenttraj"
"""Name of the ``user_properties`` entry that carries one record (as JSON) on a test report."""

ITEM_SETTINGS = pytest.StashKey[TrajectorySettings]()
_EVALUATIONS = pytest.StashKey[list[tuple[str, dict[str, Any], Evaluation]]]()
_COUNTERS = pytest.StashKey[dict[str, int]]()
_SETTING_ERROR = pytest.StashKey[str]()
_DIFF_LINES = 120


def _json_score(score: Any) -> Any:
    if isinstance(score, bool | int | float | str) or score is None:
        return score
    try:
        return float(score)
    except (TypeError, ValueError):
        return str(score)


class TrajectorySession:
    """Registered as a plugin at configure time and kept in ``config.stash``."""

    def __init__(self, config: pytest.Config, settings: TrajectorySettings) -> None:
        self.config = config
        self.settings = settings
        self.results = TrajectoryResults()
        self.is_worker = hasattr(config, "workerinput")

    # ------------------------------------------------------------ collection

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        errors = []
        for item in items:
            try:
                item.stash[ITEM_SETTINGS] = item_settings(item, self.settings)
            except ValueError as error:
                message = f"{item.nodeid}: {error}"
                if self.is_worker:
                    item.stash[_SETTING_ERROR] = message
                else:
                    errors.append(message)
        if errors:
            more = f"\n(and {len(errors) - 10} more)" if len(errors) > 10 else ""
            raise pytest.UsageError("\n".join(errors[:10]) + more)

    def settings_for(self, item: pytest.Item) -> TrajectorySettings:
        return item.stash.get(ITEM_SETTINGS, self.settings)

    # ------------------------------------------------------------ running

    def _scope(self, item: pytest.Item, phase: str) -> TestScope:
        settings = self.settings_for(item)
        return TestScope(
            on_evaluation=partial(self._on_evaluation, item, phase),
            mode=settings.mode,
            tool_args=settings.tool_args,
            overrides=settings.overrides,
            verbose=self.config.get_verbosity(),
            marker_keys=frozenset(k for k, v in settings.sources.items() if v == "marker"),
            references=ItemReferences(item, settings.reference),
        )

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        error = item.stash.get(_SETTING_ERROR, None)
        if error is not None:
            pytest.fail(error, pytrace=False)
        with test_scope(self._scope(item, "setup")):
            return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        with test_scope(self._scope(item, "call")):
            return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, None, None]:
        with test_scope(self._scope(item, "teardown")):
            return (yield)

    def _on_evaluation(self, item: pytest.Item, phase: str, evaluation: Evaluation) -> None:
        result = evaluation.result
        key = str(result.get("key"))
        counters = item.stash.setdefault(_COUNTERS, {})
        index = counters.get(key, 0)
        counters[key] = index + 1
        report = evaluation.report
        passed = result_passed(result)
        record: dict[str, Any] = {
            "nodeid": item.nodeid,
            "key": key,
            "index": index,
            "score": _json_score(result.get("score")),
            "passed": passed,
            "comment": result.get("comment"),
            "mode": report.mode if report else None,
            "tool_args_mode": report.tool_args if report else None,
            "duration_s": round(evaluation.duration_s, 6),
            "origin": evaluation.origin,
            "phase": phase,
        }
        record.update(evaluation.extra)
        if not passed and report is not None:
            record["diff"] = "\n".join(render_report(report, verbose=1)[:_DIFF_LINES])
        item.stash.setdefault(_EVALUATIONS, []).append((phase, record, evaluation))
        item.ihook.pytest_agenttraj_evaluated(
            item=item, result=result, record=record, evaluation=evaluation
        )

    # ------------------------------------------------------------ reporting

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        evaluations = [e for e in item.stash.get(_EVALUATIONS, []) if e[0] == call.when]
        for _, record, _ in evaluations:
            record["test_outcome"] = report.outcome
            report.user_properties.append((PROPERTY, json.dumps(record, default=str)))
        if report.failed and call.excinfo is not None:
            self._explain(item, call, report, evaluations)
        return report

    def _explain(
        self,
        item: pytest.Item,
        call: pytest.CallInfo[None],
        report: pytest.TestReport,
        evaluations: list[tuple[str, dict[str, Any], Evaluation]],
    ) -> None:
        raised = call.excinfo.value if call.excinfo else None
        verbose = self.config.get_verbosity()
        if isinstance(raised, TrajectoryMismatch):
            if self.config.get_terminal_writer().hasmarkup and not self.is_worker:
                from ._failure import colour_mismatch

                colour_mismatch(report, raised, verbose)
            return
        # The test failed without raising our mismatch (e.g. ``assert evaluator(...)["score"]``):
        # show what each failed evaluation saw.
        texts = []
        for _, record, evaluation in evaluations:
            if record["passed"] or evaluation.report is None:
                continue
            lines = render_report(evaluation.report, verbose=verbose)
            texts.append(f"{record['key']} [{record['index']}]\n" + "\n".join(lines))
        if texts:
            report.sections.append(("agenttraj: trajectory mismatch", "\n\n".join(texts)))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.is_worker:
            return
        for name, value in report.user_properties:
            if name == PROPERTY and isinstance(value, str):
                self.config.hook.pytest_agenttraj_record(
                    config=self.config, record=json.loads(value)
                )

    def pytest_agenttraj_record(self, record: dict[str, Any]) -> None:
        self.results.add(record)

    def pytest_report_header(self) -> str:
        return f"agenttraj: {self.settings.describe()}"

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        verbosity = self.config.get_verbosity()
        if self.is_worker or verbosity < -1:
            return
        lines = self.results.lines(verbosity)
        if not lines:
            return
        terminalreporter.write_sep("=", "trajectory results")
        failed = self.results.summary()["failed"]
        for line in lines[:-1]:
            terminalreporter.write_line(line)
        terminalreporter.write_line(lines[-1], red=bool(failed), green=not failed, bold=True)
