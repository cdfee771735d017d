"""The LangSmith sink: logs every trajectory result of a tracked test through
``langsmith.testing``, on the plugin's own evaluation hook.

Which tests are tracked (each becomes a LangSmith test case: a run in the session's experiment
and an example in the suite's dataset): those :mod:`.selection` picks, when logging is on; and
tests the user marked ``@pytest.mark.langsmith`` (logged even without the switch, as long as
langsmith's plugin runs them). Other tests cost nothing; evaluations made in them are counted and
the summary says how to track them.

Each result is logged once: feedback (key, score, comment), the trajectory as the run's outputs,
the reference as the example's reference outputs, and (for tests tracked here) the trajectory's
leading input messages as inputs unless the test logged its own. A LangSmith outage never changes
an outcome: see :mod:`.link` for the bounds, and ``pytest_runtest_call`` below for running a test
untracked when LangSmith fails before its body.

This module is imported at configure time in every run: it must not import langsmith at the top.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Generator, Mapping
from contextlib import AbstractContextManager as ContextManager
from typing import TYPE_CHECKING, Any

import pytest

from ...plugin.collection import MarkerNames
from ...plugin.registration import HookHolder
from .options import LANGSMITH_PLUGINS, WORKER_KEY, env, switch, tracking_disabled
from .output import hide_guessed_links, restore_reporting

if TYPE_CHECKING:  # what a tracked test needs loads with the first one
    from ...evaluators.scope import Evaluation
    from .case import Case, Pending
    from .link import Link, Verdict
    from .selection import TrajectoryTests
    from .stats import LangSmithStats
    from .timeouts import Timeouts

__all__ = ["CaseHooks", "LangSmithSink"]


_MAX_COMMENT = 8_000
_CASE: pytest.StashKey[Case] = pytest.StashKey()
_ORIGINAL: pytest.StashKey[Any] = pytest.StashKey()
_COUNTED: pytest.StashKey[bool] = pytest.StashKey()
_CASE_HOOKS = "agenttraj-langsmith-cases"


class LangSmithSink(HookHolder):
    """Registered at configure time when logging is switched on, else once a test is marked
    ``langsmith`` or a worker sends its counts (see the package); does nothing for a test that
    is not tracked."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.switch = switch(config)
        self.tracking_off = tracking_disabled()
        self.enabled = self.switch is not None and not self.tracking_off
        self._timeouts: Timeouts | None = None
        if self.enabled:  # a bad value is a usage error before any test runs
            self._timeouts = self.timeouts
        self.is_worker = hasattr(config, "workerinput")
        pm = config.pluginmanager
        self.langsmith_active = any(pm.get_plugin(name) is not None for name in LANGSMITH_PLUGINS)
        self.suite = env("TEST_SUITE") or config.rootpath.name
        self.secret = env("API_KEY")
        self.no_key = self.enabled and not self.secret
        self.enabled = self.enabled and not self.no_key
        self._stats: LangSmithStats | None = None
        self.verdict: Verdict | None = None
        self.link: Link | None = None
        self._connected = False
        self._trajectory_tests: TrajectoryTests | None = None
        self._our_experiments: set[str] = set()
        self._tracked: set[str] = set()
        self._logged: set[tuple[str, str, int]] = set()  # (test, evaluator, occurrence)
        self._evaluated_tests: set[str] = set()
        self._untracked_ids: set[str] = set()
        self._lock = threading.Lock()
        if self.enabled and not self.langsmith_active:
            config.addinivalue_line(
                "markers", "langsmith(**kwargs): track this test in LangSmith (langsmith.test)"
            )

    @property
    def stats(self) -> LangSmithStats:
        """What this process logged and what failed (made when first counted or read)."""
        if self._stats is None:
            from .stats import LangSmithStats

            self._stats = LangSmithStats()
        return self._stats

    @property
    def timeouts(self) -> Timeouts:
        """How long logging waits (read from the environment once, when first needed)."""
        if self._timeouts is None:
            from .timeouts import Timeouts

            self._timeouts = Timeouts.from_env() if self.enabled else Timeouts()
        return self._timeouts

    # -------------------------------------------------------------- start

    def pytest_report_header(self) -> str | None:
        if self.switch is None:
            return None
        if self.tracking_off:
            return (
                f"agenttraj: LangSmith logging off (LANGSMITH_TEST_TRACKING=false; {self.switch})"
            )
        if self.no_key:
            return f"agenttraj: LangSmith logging off: LANGSMITH_API_KEY is not set ({self.switch})"
        return f"agenttraj: LangSmith logging on ({self.switch}), test suite {self.suite!r}"

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self) -> None:
        if self.no_key:  # nothing will be logged: pytest's own reporting, not an idle table
            restore_reporting(self.config)
        # The xdist controller runs no test: it asks LangSmith once, for every worker.
        if self.enabled and not self.is_worker and self.config.pluginmanager.has_plugin("dsession"):
            self.verdict = self._probe()
            if not self.verdict.ok:
                self.stats.fail(f"LangSmith is unreachable: {self.verdict.reason}")

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        if self.verdict is not None:
            node.workerinput[WORKER_KEY] = self.verdict.as_json()

    def _probe(self) -> Verdict:
        from .link import endpoint, probe

        return probe(endpoint(), self.timeouts.probe)

    def _connect(self) -> Link | None:
        """The process's link to LangSmith, made once; ``None`` when LangSmith is not there."""
        if self._connected:
            return self.link
        self._connected = True
        from .link import Link, Verdict, endpoint

        verdict = self.verdict
        if verdict is None and self.is_worker:
            data = self.config.workerinput.get(WORKER_KEY)  # type: ignore[attr-defined]
            verdict = Verdict.from_json(data) if isinstance(data, Mapping) else None
        if verdict is None:
            verdict = self._probe()
        if not verdict.ok:
            self.stats.fail(f"LangSmith is unreachable: {verdict.reason}")
            return None
        from langsmith import utils as ls_utils

        try:
            self.link = Link(verdict, api_url=endpoint(), key=self.secret, timeouts=self.timeouts)
        except (ls_utils.LangSmithError, ValueError) as error:
            self.stats.fail(f"could not create a LangSmith client: {self._describe(error)}")
        return self.link

    # -------------------------------------------------------------- collection

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        if self.tracking_off or not (self.enabled or self.langsmith_active):
            return  # nothing logs: no test is a case
        ours, users = self._tracked_tests(items)
        if not self.enabled:
            if self.langsmith_active and users:  # langsmith runs them; results go into them
                from .case import Case

                for item in users:
                    item.stash[_CASE] = Case(item.nodeid, "user", managed=False, live=True)
                self._watch_cases()
            return
        if not (ours or users) or self.config.option.collectonly:
            return
        link = self._connect()
        if link is None:  # LangSmith is not there: pytest's own reporting, not an idle table
            restore_reporting(self.config)
        self._track(ours, users, link)
        self._watch_cases()

    def _watch_cases(self) -> None:
        """Register the per-test hooks, once some test is a case: others never run them."""
        if self.config.pluginmanager.get_plugin(_CASE_HOOKS) is None:
            self.config.pluginmanager.register(CaseHooks(self), _CASE_HOOKS)

    def close(self) -> None:
        """At unconfigure: take the per-test hooks out with the sink."""
        hooks = self.config.pluginmanager.get_plugin(_CASE_HOOKS)
        if hooks is not None:
            self.config.pluginmanager.unregister(hooks)

    def _selection(self) -> TrajectoryTests:
        if self._trajectory_tests is None:
            from .selection import TrajectoryTests

            self._trajectory_tests = TrajectoryTests()
        return self._trajectory_tests

    def _tracked_tests(
        self, items: list[pytest.Item]
    ) -> tuple[list[pytest.Function], list[pytest.Function]]:
        """The tests tracked here, and those the user marked ``@pytest.mark.langsmith``."""
        ours: list[pytest.Function] = []
        users: list[pytest.Function] = []
        read_marks = MarkerNames()
        for item in items:
            if not isinstance(item, pytest.Function):
                continue
            if "langsmith" in read_marks(item):
                users.append(item)
            elif self.enabled and item in self._selection():
                ours.append(item)
        return ours, users

    def _track(
        self, ours: list[pytest.Function], users: list[pytest.Function], link: Link | None
    ) -> None:
        """Make each test a case; with LangSmith there, give langsmith's plugin the bounded
        client through the ``langsmith`` marker."""
        from .case import Case

        for item in ours:
            item.stash[_CASE] = Case(item.nodeid, "ours", managed=True, live=link is not None)
            if link is not None and self._fits_live_table(item):
                item.add_marker(
                    pytest.mark.langsmith(test_suite_name=self.suite, client=link.client)
                )
        for item in users:
            item.stash[_CASE] = Case(item.nodeid, "user", managed=True, live=link is not None)
            marker = item.get_closest_marker("langsmith")
            if link is not None and marker is not None and "client" not in marker.kwargs:
                # Closest marker wins: langsmith's plugin then uses the bounded client.
                item.add_marker(
                    pytest.mark.langsmith(**{**marker.kwargs, "client": link.client}),
                    append=False,
                )

    def _fits_live_table(self, item: pytest.Item) -> bool:
        """langsmith's live table (``--langsmith-output``) cannot show a test whose id has more
        than one ``::`` (a method of a class): it would crash pytest. Such tests are tracked
        but kept out of the table (no marker, no request handed to langsmith)."""
        table = self.config.pluginmanager.get_plugin("langsmith_output_plugin")
        return table is None or item.nodeid.count("::") == 1

    # -------------------------------------------------------------- running

    def run_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        __tracebackhide__ = True
        result = yield
        case = item.stash.get(_CASE, None)
        if case is not None and case.managed and isinstance(item, pytest.Function):
            item.stash[_ORIGINAL] = item.obj
            if case.kind == "user" and case.live:
                # Under langsmith's wrapper (added next, at call time): marks the body's start.
                item.obj = self._user_body(item, case, item.obj)
        return result

    def run_call(self, item: pytest.Item) -> Generator[None, None, None]:
        """The innermost wrapper: langsmith's plugin (if loaded) has wrapped ``item.obj`` by now.

        A test tracked here runs through ``langsmith.testing.test`` with the bounded client, its
        fixtures out of the logged inputs. A test whose tracking fails before its body starts
        (LangSmith down, a refused request) runs untracked instead, so its outcome is its own.
        """
        __tracebackhide__ = True
        case = item.stash.get(_CASE, None)
        if case is None or not case.managed or not isinstance(item, pytest.Function):
            return (yield)
        original = item.stash.get(_ORIGINAL, item.obj)
        previous = item.obj
        item.obj = self._runner(item, case, previous)
        try:
            return (yield)
        finally:
            item.obj = original

    def run_teardown(self, item: pytest.Item) -> Generator[None, None, None]:
        __tracebackhide__ = True
        original = item.stash.get(_ORIGINAL, None)
        if original is not None and isinstance(item, pytest.Function):
            item.obj = original  # setup replaced it but the call never ran (e.g. -x, skip)
        try:
            return (yield)
        finally:
            case = item.stash.get(_CASE, None)
            from .case import unlogged

            left = unlogged(case.take_pending()) if case is not None else 0
            if left and case is not None and case.live and not case.untracked:
                with self._lock:
                    self.stats.unlogged_results += left

    def _runner(self, item: pytest.Function, case: Case, previous: Any) -> Callable[..., Any]:
        plain = item.stash.get(_ORIGINAL, previous)  # the test itself, as collected
        from .case import parameters, pick
        from .runner import make_runner, within

        names = parameters(plain)
        is_async = inspect.iscoroutinefunction(plain)
        link = self.link
        request = getattr(item, "_request", None) if self._fits_live_table(item) else None

        def untracked(testargs: Mapping[str, Any]) -> Any:
            return plain(**pick(names, testargs))

        if link is None or not case.live or link.guard.tripped:
            self._count_untracked(case)
            return make_runner(is_async, untracked, None, case, self._untracked, self._late)

        import langsmith

        if case.kind == "ours":

            def call(testargs: Mapping[str, Any]) -> Any:
                case.reset()
                kwargs = pick(names, testargs)
                example = link.example_id(self.suite, item.nodeid)
                body = self._our_body(item, case, plain, kwargs)
                tracked = langsmith.test(
                    client=link.client,
                    test_suite_name=self.suite,
                    id=example,
                    metadata={"pytest_nodeid": item.nodeid},
                )(body)
                return tracked(request=request)

            def context() -> ContextManager[None]:
                return langsmith.tracing_context(client=link.client, enabled=True)

        else:
            marker = item.get_closest_marker("langsmith")
            kwargs_for_test = dict(marker.kwargs) if marker is not None else {}
            injected = kwargs_for_test.get("client") is link.client

            def call(testargs: Mapping[str, Any]) -> Any:
                case.reset()
                if self.langsmith_active:  # ``previous`` is langsmith's wrapper of our body
                    return previous(**testargs)
                # the user's marker arguments, as langsmith's plugin would pass them
                decorate: Callable[[Any], Callable[..., Any]] = langsmith.test(**kwargs_for_test)
                args = {k: v for k, v in testargs.items() if k != "request"}
                return decorate(previous)(request=request, **args)

            def context() -> ContextManager[None]:
                # tracing on, as for the tests tracked here; the bounded client unless the
                # marker named its own
                if injected:
                    return langsmith.tracing_context(client=link.client, enabled=True)
                return langsmith.tracing_context(enabled=True)

        attempt = within(is_async, context, call)
        return make_runner(is_async, attempt, untracked, case, self._untracked, self._late)

    def _count_untracked(self, case: Case) -> None:
        case.untracked = True
        with self._lock:
            if case.nodeid not in self._untracked_ids:
                self._untracked_ids.add(case.nodeid)
                self.stats.untracked_tests += 1

    def _untracked(self, case: Case, error: BaseException) -> None:
        """Tracking failed before the test's body ran: the test runs untracked."""
        self._count_untracked(case)
        self._failed(f"tracking a test raised {self._describe(error)}")

    def _late(self, _case: Case, error: BaseException) -> None:
        """Tracking failed after the test's body passed: the test passes."""
        self._failed(f"closing a tracked test raised {self._describe(error)}")

    def _failed(self, otherwise: str) -> None:
        link = self.link
        cause = link.guard.failure if link is not None else None
        self.stats.fail(cause or otherwise)

    def _enter(self, case: Case) -> None:
        import langsmith

        case.entered = True
        self._adopt(case, langsmith.get_current_run_tree())
        if self.link is not None:
            hide_guessed_links(self.config, self.link.guessed_web_url())

    def _adopt(self, case: Case, run: Any) -> None:
        """``run`` is the test's LangSmith run: count the test and note its experiment."""
        case.run = run
        case.experiment_id = _experiment_id()
        name = getattr(run, "session_name", None)
        with self._lock:
            if case.nodeid not in self._tracked:  # once per test, however often it runs
                self._tracked.add(case.nodeid)
                self.stats.tracked_tests += 1
            if isinstance(name, str) and name not in self.stats.experiments:
                self.stats.experiments[name] = None
                if case.kind == "ours":
                    self._our_experiments.add(name)

    def _our_body(
        self,
        item: pytest.Function,
        case: Case,
        func: Callable[..., Any],
        kwargs: dict[str, Any],
    ) -> Callable[[], Any]:
        """The test as ``langsmith.testing.test`` sees it: no parameters, so no fixture value
        (``tmp_path``, a model object, ...) is captured as the run's inputs."""
        from .runner import body_of

        run = body_of(func, case, self._enter, self._finish)
        body: Callable[[], Any]
        if inspect.iscoroutinefunction(func):

            async def async_body() -> Any:
                return await run(**kwargs)

            body = async_body
        else:

            def sync_body() -> Any:
                return run(**kwargs)

            body = sync_body
        body.__name__ = body.__qualname__ = item.name  # the run's name in LangSmith
        body.__module__ = getattr(func, "__module__", body.__module__)
        return body

    def _user_body(self, item: pytest.Function, case: Case, func: Any) -> Callable[..., Any]:
        """The user's test under langsmith's wrapper; same signature, so langsmith captures the
        same inputs it always does."""
        from .case import parameters
        from .runner import body_of

        request = getattr(item, "_request", None)
        wants_request = "request" in (parameters(func) or frozenset())

        def prepare(kwargs: dict[str, Any]) -> dict[str, Any]:
            if wants_request and "request" not in kwargs:
                kwargs["request"] = request  # langsmith's wrapper keeps it for itself
            return kwargs

        return body_of(func, case, self._enter, self._finish, prepare)

    # -------------------------------------------------------------- logging

    def pytest_agenttraj_evaluated(
        self, item: pytest.Item, record: Mapping[str, Any], evaluation: Evaluation
    ) -> None:
        if self.tracking_off:
            return
        case = item.stash.get(_CASE, None)
        if case is None:
            self._count_untracked_evaluation(item)
            return
        if not case.live or case.untracked:
            return
        if case.finished:  # e.g. made in teardown, after the test case was closed
            with self._lock:
                self.stats.unlogged_results += 1
            return
        import langsmith

        current = langsmith.get_current_run_tree()
        by_caller = current is not None and "reference_run_id" in (current.metadata or {})
        from ...evaluators.result import evaluator_family

        identity = (evaluator_family(str(record.get("key"))), int(record.get("index", 0) or 0))
        from .case import Pending

        pending = Pending(evaluation, by_caller, identity)
        if not case.managed and not self._in_users_run(case, current, pending):
            return
        case.add_pending(pending)
        if current is not None and current is case.run:
            self._log_pending(case)

    def _in_users_run(self, case: Case, current: Any, pending: Pending) -> bool:
        """langsmith runs this test and nothing here runs after its body: log now, in its run,
        or not at all (e.g. tracing is off, or a thread made the evaluation). Whether to log."""
        root = current is not None and getattr(current, "parent_run_id", None) is None
        if case.run is None and root and not pending.by_caller:
            self._adopt(case, current)
        if pending.by_caller:  # the test logs this result's feedback itself: count it only
            self._count_logged(case, pending)
            return False
        return current is not None and current is case.run

    def _count_untracked_evaluation(self, item: pytest.Item) -> None:
        """An evaluation in a test that is not tracked: counted, for the summary's hint."""
        if not self.enabled:
            return
        with self._lock:
            self.stats.untracked_evaluations += 1
            if not item.stash.get(_COUNTED, False):
                item.stash[_COUNTED] = True
                self.stats.untracked_evaluation_tests += 1

    def _finish(self, case: Case) -> None:
        """Runs in the test's own run context right after its body: log what is still pending
        (evaluations made in fixtures, threads or feedback traces) and the inputs."""
        try:
            self._log_pending(case)
            if case.kind == "ours":
                self._log_inputs(case)
        finally:
            from .case import unlogged

            case.finished = True
            left = unlogged(case.take_pending())
            if left:
                with self._lock:
                    self.stats.unlogged_results += left

    def _log_pending(self, case: Case) -> None:
        for pending in case.take_pending():
            if self._log(case, pending.evaluation, feedback=not pending.by_caller):
                self._count_logged(case, pending)

    def _count_logged(self, case: Case, pending: Pending) -> None:
        """Count a logged evaluation as the trajectory results do: once per identity (a
        repeated test logs each attempt's), and its test once."""
        with self._lock:
            if not pending.by_caller:
                self.stats.logged_results += 1
            key = (case.nodeid, *pending.identity)
            if key not in self._logged:
                self._logged.add(key)
                if pending.by_caller:
                    self.stats.caller_logged += 1
                else:
                    self.stats.logged_evaluations += 1
            if case.nodeid not in self._evaluated_tests:
                self._evaluated_tests.add(case.nodeid)
                self.stats.evaluated_tests += 1

    def _log(self, case: Case, evaluation: Evaluation, *, feedback: bool) -> bool:
        """Log one evaluation into the test's run; whether it was logged."""
        from langsmith import testing as t

        from .payload import to_payload

        result = evaluation.result
        try:
            outputs = to_payload(evaluation.outputs, secret=self.secret)
            slot = case.slot(outputs)
            case.outputs[slot] = outputs
            if evaluation.reference_outputs is not None:
                case.references[slot] = to_payload(evaluation.reference_outputs, secret=self.secret)
            if case.inputs is None:
                case.inputs = self._inputs_of(evaluation)
            t.log_outputs(dict(case.outputs))
            if case.references:
                from .link import logged_reference_outputs

                t.log_reference_outputs({**logged_reference_outputs(), **case.references})
            if feedback:
                t.log_feedback(**self._feedback(result))
        except Exception as error:  # never let logging fail a test: count it, say it once
            with self._lock:
                self.stats.unlogged_results += int(feedback)
                self.stats.note(f"logging a result raised {self._describe(error)}")
            return False
        return True

    def pytest_agenttraj_repeated(self, item: pytest.Item, records: list[dict[str, Any]]) -> None:
        """A repeated test's statistics, as feedback on its last attempt's run: each attempt's
        own results are logged into that attempt's run already."""
        case = item.stash.get(_CASE, None)
        link = self.link
        if case is None or link is None or not case.live or case.untracked or case.run is None:
            return
        run = case.run
        from .payload import repeat_feedback

        for record in records:
            for feedback in repeat_feedback(record):
                try:
                    link.client.create_feedback(
                        run.id,
                        trace_id=getattr(run, "trace_id", None) or run.id,
                        session_id=case.experiment_id,
                        start_time=getattr(run, "start_time", None),
                        **feedback,
                    )
                except Exception as error:  # never let logging fail a test
                    self.stats.note(f"logging repeat statistics raised {self._describe(error)}")
                    return

    def _feedback(self, result: Mapping[str, Any]) -> dict[str, Any]:
        from .payload import to_payload

        out: dict[str, Any] = {"key": str(result.get("key") or "trajectory")}
        score = result.get("score")
        if isinstance(score, bool | int | float):
            out["score"] = score
        else:
            out["value"] = "no score" if score is None else str(to_payload(score))
        comment = result.get("comment")
        if comment is not None:
            text = self._scrub(str(comment))
            out["comment"] = text if len(text) <= _MAX_COMMENT else text[:_MAX_COMMENT] + " ..."
        return out

    def _inputs_of(self, evaluation: Evaluation) -> dict[str, Any] | None:
        from .payload import input_messages, to_payload

        if evaluation.inputs is not None:
            inputs = to_payload(evaluation.inputs, secret=self.secret)
            return inputs if isinstance(inputs, dict) else {"inputs": inputs}
        messages = input_messages(evaluation.outputs)
        if not messages:
            return None
        return {"messages": to_payload(messages, secret=self.secret)}

    def _log_inputs(self, case: Case) -> None:
        run = case.run
        if case.inputs is None or run is None or getattr(run, "inputs", None):
            return  # nothing to log, or the test logged its own inputs
        from langsmith import testing as t

        try:
            t.log_inputs(case.inputs)
        except Exception as error:  # never let logging fail a test
            self.stats.note(f"logging inputs raised {self._describe(error)}")

    def _scrub(self, text: str) -> str:
        from .payload import REDACTED

        return text.replace(self.secret, REDACTED) if self.secret else text

    def _describe(self, error: BaseException) -> str:
        """``Type: first line`` of an error, without secrets (langsmith masks keys partially)."""
        lines = [line for line in str(error).splitlines() if "api key" not in line.lower()]
        first = self._scrub(lines[0].strip()) if lines else ""
        if len(first) > 200:
            first = first[:200] + "..."
        return f"{type(error).__name__}: {first}" if first else type(error).__name__

    # -------------------------------------------------------------- end

    def pytest_sessionfinish(self) -> None:
        link = self.link
        if link is not None:
            link.drain()
            if link.guard.failure is not None:
                self.stats.fail(link.guard.failure)
            for problem in link.guard.rejected:
                self.stats.note(problem)
            if link.guard.failure is None:
                for name in list(self.stats.experiments):
                    suite = self.suite if name in self._our_experiments else None
                    self.stats.experiments[name] = link.experiment_url(name, suite)
        if self.is_worker:
            self.config.workeroutput[WORKER_KEY] = self.stats.as_json()  # type: ignore[attr-defined]

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any) -> None:
        data = getattr(node, "workeroutput", {}).get(WORKER_KEY)
        if isinstance(data, Mapping):
            self.stats.merge(data)

    @pytest.hookimpl(trylast=True)  # after the trajectory results, made early or late
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.is_worker or self._stats is None:  # nothing was counted
            return
        lines = self.stats.lines()
        if not lines:
            return
        terminalreporter.write_sep("-", "LangSmith")
        for kind, text in lines:
            terminalreporter.write_line(text, yellow=kind == "warning", bold=kind == "warning")


def _experiment_id() -> Any:
    """The experiment of the langsmith test case running now (``None`` outside one, or when
    langsmith keeps it elsewhere: the statistics' feedback then goes without it)."""
    try:
        from langsmith.testing import _internal

        suite = getattr(_internal._TEST_CASE.get(), "test_suite", None)
        return getattr(suite, "experiment_id", None)
    except Exception:  # a private name of langsmith's: never let its absence fail a test
        return None


class CaseHooks(HookHolder):
    """The sink's per-test hooks, registered once some test is a LangSmith case; a test that is
    not one returns from each at once."""

    def __init__(self, sink: LangSmithSink) -> None:
        self.sink = sink

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        __tracebackhide__ = True
        if _CASE not in item.stash:
            return (yield)
        return (yield from self.sink.run_setup(item))

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        """Innermost wrapper: langsmith's plugin (if loaded) has wrapped ``item.obj`` by now."""
        __tracebackhide__ = True
        if _CASE not in item.stash:
            return (yield)
        return (yield from self.sink.run_call(item))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, None, None]:
        __tracebackhide__ = True
        if _CASE not in item.stash:
            return (yield)
        return (yield from self.sink.run_teardown(item))
