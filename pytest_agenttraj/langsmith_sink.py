"""LangSmith logging of trajectory results: a sink on the plugin's own evaluation hook.

Switched on by ``--langsmith-output`` (a flag shared with langsmith's own pytest plugin, which then
also shows its live table, runs ``-qq -s`` and refuses pytest-xdist), or by
``--trajectory-langsmith`` / the ini key ``trajectory_langsmith = true`` (same logging, pytest's
normal output, diffs and ``-n``). ``LANGSMITH_TEST_TRACKING=false`` switches it off.

Which tests are tracked (each becomes a LangSmith test case: a run in the session's experiment
and an example in the suite's dataset): those that use a trajectory fixture, carry the
``trajectory`` marker, or live in a module that imports ``pytest_agenttraj``; and tests the user
marked ``@pytest.mark.langsmith`` (logged even without the switch, as long as langsmith's plugin
runs them). Other tests cost nothing; evaluations made in them are counted and the summary says
how to track them.

Each result is logged once through ``langsmith.testing``: feedback (key, score, comment), the
trajectory as the run's outputs, the reference as the example's reference outputs, and (for
tests tracked here) the trajectory's leading input messages as inputs unless the test logged its
own. A LangSmith outage never changes an outcome: see ``_langsmith_link`` for the bounds, and
``pytest_runtest_call`` below for running a test untracked when LangSmith fails before its body.

This module is imported at configure time in every run: it must not import langsmith at the top.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import json
import os
import threading
import types
from collections.abc import Awaitable, Callable, Generator, Mapping
from contextlib import AbstractContextManager as ContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

from ._langsmith_payload import REDACTED, input_messages, to_payload
from ._session import uses_plugin

if TYPE_CHECKING:
    from ._langsmith_link import Link, Verdict
    from ._observe import Evaluation

__all__ = [
    "INI",
    "OUTPUT_FLAG",
    "LangSmithSink",
    "LangSmithStats",
    "add_options",
    "add_output_option",
    "register",
    "unregister",
]

OUTPUT_FLAG = "--langsmith-output"
OUTPUT_DEST = "langsmith_output"
FLAG = "--trajectory-langsmith"
DEST = "trajectory_langsmith"
INI = "trajectory_langsmith"
PLUGIN_NAME = "agenttraj-langsmith"
LANGSMITH_PLUGINS = ("langsmith_plugin", "langsmith.pytest_plugin")
WORKER_KEY = "agenttraj_langsmith"
"""Key in xdist's ``workerinput`` (the controller's probe) and ``workeroutput`` (worker stats)."""

_MAX_COMMENT = 8_000
_SINK = pytest.StashKey["LangSmithSink"]()
_CASE = pytest.StashKey["_Case"]()
_ORIGINAL = pytest.StashKey[Any]()
_COUNTED = pytest.StashKey[bool]()


# ------------------------------------------------------------------ options


def add_options(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """``--trajectory-langsmith`` and ``trajectory_langsmith``; ``--langsmith-output`` too when
    langsmith's plugin is blocked, else later (``add_output_option``)."""
    parser.getgroup("agenttraj").addoption(
        FLAG,
        dest=DEST,
        action="store_true",
        default=None,
        help="log each trajectory result to LangSmith, keeping pytest's normal output, diffs "
        "and -n (like --langsmith-output without langsmith's output mode; see "
        "the README)",
    )
    parser.addini(
        INI,
        "log each trajectory result to LangSmith (see --trajectory-langsmith)",
        type="bool",
        default=False,
    )
    if any(pluginmanager.is_blocked(name) for name in LANGSMITH_PLUGINS):
        add_output_option(parser)


def add_output_option(parser: pytest.Parser) -> None:
    """Register ``--langsmith-output`` unless langsmith's plugin already did.

    Called once every installed plugin has been loaded (``pytest_load_initial_conftests``), so
    whichever loads first, langsmith's plugin registers the flag itself when it runs and this
    finds it; with ``-p no:langsmith_plugin`` this registers it. Same group, same destination,
    same meaning: a registration in another group would clash.
    """
    with contextlib.suppress(ValueError):  # already registered (by langsmith): nothing to add
        parser.getgroup("langsmith", "LangSmith").addoption(
            OUTPUT_FLAG,
            dest=OUTPUT_DEST,
            action="store_true",
            default=False,
            help="log results to LangSmith (pytest-agenttraj logs each trajectory result; "
            "langsmith's plugin, when loaded, also shows its live table, adds -qq -s and "
            "refuses -n)",
        )


def register(config: pytest.Config) -> None:
    sink = LangSmithSink(config)
    config.stash[_SINK] = sink
    config.pluginmanager.register(sink, PLUGIN_NAME)


def unregister(config: pytest.Config) -> None:
    sink = config.stash.get(_SINK, None)
    if sink is not None:
        config.pluginmanager.unregister(sink)
        del config.stash[_SINK]


def _env(name: str) -> str | None:
    """``LANGSMITH_<name>``, else ``LANGCHAIN_<name>``, as langsmith reads them."""
    for prefix in ("LANGSMITH", "LANGCHAIN"):
        value = os.environ.get(f"{prefix}_{name}")
        if value is not None and value.strip():
            return value.strip()
    return None


def tracking_disabled() -> bool:
    return _env("TEST_TRACKING") == "false"


def _switch(config: pytest.Config) -> str | None:
    """Which option switched logging on, if any."""
    if config.getoption(OUTPUT_DEST, default=False):
        return OUTPUT_FLAG
    if config.getoption(DEST, default=None):
        return FLAG
    try:
        on = config.getini(INI)
    except (ValueError, pytest.UsageError) as error:  # pytest's message does not name the key
        raise pytest.UsageError(f"invalid {INI} ({error}): use true or false") from None
    return f"{INI} = true" if on else None


# ------------------------------------------------------------------ what a run learned


@dataclass
class LangSmithStats:
    """What one process did; workers send theirs to the controller, which adds them up."""

    tracked_tests: int = 0
    logged_results: int = 0
    untracked_tests: int = 0  # would have been tracked, ran without LangSmith after a failure
    unlogged_results: int = 0  # made in a tracked test but could not be logged
    untracked_evaluations: int = 0  # made in tests that are not tracked
    untracked_evaluation_tests: int = 0
    failure: str | None = None
    problems: list[str] = field(default_factory=list)  # non-fatal: rejected uploads, log errors
    experiments: dict[str, str | None] = field(default_factory=dict)  # name -> URL

    def note(self, problem: str) -> None:
        if problem not in self.problems and len(self.problems) < 5:
            self.problems.append(problem)

    def fail(self, reason: str) -> None:
        if self.failure is None:
            self.failure = reason

    def as_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    def merge(self, data: Mapping[str, Any]) -> None:
        for name in (
            "tracked_tests",
            "logged_results",
            "untracked_tests",
            "unlogged_results",
            "untracked_evaluations",
            "untracked_evaluation_tests",
        ):
            setattr(self, name, getattr(self, name) + int(data.get(name) or 0))
        if data.get("failure"):
            self.fail(str(data["failure"]))
        for problem in data.get("problems") or []:
            self.note(str(problem))
        for name, url in (data.get("experiments") or {}).items():
            if url or name not in self.experiments:
                self.experiments[str(name)] = url

    def lines(self) -> list[tuple[str, str]]:
        """``(kind, text)`` lines for the terminal summary; kind is ``info`` or ``warning``.

        At most one warning: the first failure, with what it cost.
        """
        out: list[tuple[str, str]] = []
        if self.experiments:
            done = (
                "logged to LangSmith"
                if self.failure is None
                else "handed to LangSmith; some may be missing (see the warning)"
            )
            out.append(
                (
                    "info",
                    f"agenttraj: {self.logged_results} result(s) from {self.tracked_tests} "
                    f"tracked test(s) {done}",
                )
            )
        for name, url in self.experiments.items():
            out.append(("info", f"  experiment {name!r}" + (f": {url}" if url else "")))
        lost = []
        if self.untracked_tests:
            lost.append(f"{self.untracked_tests} test(s) ran without LangSmith tracking")
        if self.unlogged_results:
            lost.append(f"{self.unlogged_results} result(s) were not logged")
        if self.failure is not None:
            cost = f" ({'; '.join(lost)})" if lost else ""
            extra = f"; also: {self.problems[0]}" if self.problems else ""
            out.append(
                (
                    "warning",
                    f"agenttraj: WARNING: LangSmith logging failed: {self.failure}{cost}{extra}. "
                    "Test outcomes and reports are not affected.",
                )
            )
        elif self.problems or lost:
            what = "; ".join([*lost, *self.problems])
            out.append(("warning", f"agenttraj: WARNING: LangSmith logging incomplete: {what}."))
        if self.untracked_evaluations:
            out.append(
                (
                    "info",
                    f"agenttraj: {self.untracked_evaluations} evaluation(s) in "
                    f"{self.untracked_evaluation_tests} test(s) were not logged to LangSmith: "
                    "those tests are not tracked (mark them @pytest.mark.trajectory)",
                )
            )
        return out


# ------------------------------------------------------------------ one test


@dataclass
class _Case:
    """A tracked test: who runs it and what has been logged into it."""

    nodeid: str
    kind: str  # "ours": tracked by this plugin; "user": the user's @pytest.mark.langsmith
    managed: bool  # logging is switched on: this plugin runs the test (and guards it)
    live: bool  # LangSmith answered the probe
    entered: bool = False
    body_done: bool = False
    body_error: BaseException | None = None
    finished: bool = False
    untracked: bool = False
    run: Any = None
    pending: list[tuple[Evaluation, bool]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)  # threads append to pending
    outputs: dict[str, Any] = field(default_factory=dict)
    references: dict[str, Any] = field(default_factory=dict)
    slots: dict[str, str] = field(default_factory=dict)
    inputs: dict[str, Any] | None = None

    def reset(self) -> None:
        """Before each run of the test's body (a plugin may run it more than once)."""
        self.entered = self.body_done = self.finished = False
        self.body_error = self.run = self.inputs = None
        self.outputs, self.references, self.slots = {}, {}, {}

    def add_pending(self, evaluation: Evaluation, by_caller: bool) -> None:
        with self.lock:
            self.pending.append((evaluation, by_caller))

    def take_pending(self) -> list[tuple[Evaluation, bool]]:
        with self.lock:
            taken, self.pending = self.pending, []
        return taken

    def slot(self, payload: Any) -> str:
        """``trajectory`` for the first distinct trajectory, ``trajectory_2``... for others."""
        text = json.dumps(payload, sort_keys=True, default=str)
        name = self.slots.get(text)
        if name is None:
            name = "trajectory" if not self.slots else f"trajectory_{len(self.slots) + 1}"
            self.slots[text] = name
        return name


def _parameters(func: Callable[..., Any]) -> frozenset[str] | None:
    """The keyword names ``func`` accepts; ``None`` when it takes ``**kwargs``."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None
    return frozenset(p.name for p in params)


def _pick(names: frozenset[str] | None, testargs: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in testargs.items() if names is None or k in names}


def _imports_package(module: types.ModuleType) -> bool:
    for value in list(vars(module).values()):
        if isinstance(value, types.ModuleType):
            name = value.__name__
        elif isinstance(value, types.FunctionType | type):
            name = value.__module__
        else:
            name = type(value).__module__
        if name == "pytest_agenttraj" or name.startswith("pytest_agenttraj."):
            return True
    return False


# ------------------------------------------------------------------ the sink


class LangSmithSink:
    """Registered at configure time; does nothing unless a test is tracked."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.switch = _switch(config)
        self.tracking_off = tracking_disabled()
        self.enabled = self.switch is not None and not self.tracking_off
        self.is_worker = hasattr(config, "workerinput")
        pm = config.pluginmanager
        self.langsmith_active = any(pm.get_plugin(name) is not None for name in LANGSMITH_PLUGINS)
        self.suite = _env("TEST_SUITE") or config.rootpath.name
        self.secret = _env("API_KEY")
        self.stats = LangSmithStats()
        self.verdict: Verdict | None = None
        self.link: Link | None = None
        self._connected = False
        self._modules: dict[str, bool] = {}
        self._our_experiments: set[str] = set()
        self._tracked: set[str] = set()
        self._untracked_ids: set[str] = set()
        self._lock = threading.Lock()
        if self.enabled and not self.langsmith_active:
            config.addinivalue_line(
                "markers", "langsmith(**kwargs): track this test in LangSmith (langsmith.test)"
            )

    # -------------------------------------------------------------- start

    def pytest_report_header(self) -> str | None:
        if self.switch is None:
            return None
        if self.tracking_off:
            return (
                f"agenttraj: LangSmith logging off (LANGSMITH_TEST_TRACKING=false; {self.switch})"
            )
        return f"agenttraj: LangSmith logging on ({self.switch}), test suite {self.suite!r}"

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self) -> None:
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
        from ._langsmith_link import endpoint, probe

        return probe(endpoint())

    def _connect(self) -> Link | None:
        """The process's link to LangSmith, made once; ``None`` when LangSmith is not there."""
        if self._connected:
            return self.link
        self._connected = True
        from ._langsmith_link import Link, Verdict, endpoint

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
            self.link = Link(verdict, api_url=endpoint(), key=self.secret)
        except (ls_utils.LangSmithError, ValueError) as error:
            self.stats.fail(f"could not create a LangSmith client: {self._describe(error)}")
        return self.link

    # -------------------------------------------------------------- collection

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        if self.tracking_off:
            return
        ours: list[pytest.Function] = []
        users: list[pytest.Function] = []
        for item in items:
            if not isinstance(item, pytest.Function):
                continue
            if item.get_closest_marker("langsmith") is not None:
                users.append(item)
            elif self.enabled and self._is_trajectory_test(item):
                ours.append(item)
        if not self.enabled:
            if self.langsmith_active:  # langsmith runs them; results are logged into them
                for item in users:
                    item.stash[_CASE] = _Case(item.nodeid, "user", managed=False, live=True)
            return
        if not (ours or users) or self.config.option.collectonly:
            return
        link = self._connect()
        for item in ours:
            item.stash[_CASE] = _Case(item.nodeid, "ours", managed=True, live=link is not None)
            if link is not None and self._fits_live_table(item):
                item.add_marker(
                    pytest.mark.langsmith(test_suite_name=self.suite, client=link.client)
                )
        for item in users:
            item.stash[_CASE] = _Case(item.nodeid, "user", managed=True, live=link is not None)
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

    def _is_trajectory_test(self, item: pytest.Function) -> bool:
        if uses_plugin(item):
            return True
        module = item.getparent(pytest.Module)
        if module is None:
            return False
        known = self._modules.get(module.nodeid)
        if known is None:
            known = self._modules[module.nodeid] = _imports_package(module.obj)
        return known

    # -------------------------------------------------------------- running

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        result = yield
        case = item.stash.get(_CASE, None)
        if case is not None and case.managed and isinstance(item, pytest.Function):
            item.stash[_ORIGINAL] = item.obj
            if case.kind == "user" and case.live:
                # Under langsmith's wrapper (added next, at call time): marks the body's start.
                item.obj = self._user_body(item, case, item.obj)
        return result

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        """Innermost wrapper: langsmith's plugin (if loaded) has wrapped ``item.obj`` by now.

        A test tracked here runs through ``langsmith.testing.test`` with the bounded client, its
        fixtures out of the logged inputs. A test whose tracking fails before its body starts
        (LangSmith down, a refused request) runs untracked instead, so its outcome is its own.
        """
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

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, None, None]:
        original = item.stash.get(_ORIGINAL, None)
        if original is not None and isinstance(item, pytest.Function):
            item.obj = original  # setup replaced it but the call never ran (e.g. -x, skip)
        try:
            return (yield)
        finally:
            case = item.stash.get(_CASE, None)
            left = _unlogged(case.take_pending()) if case is not None else 0
            if left and case is not None and case.live and not case.untracked:
                with self._lock:
                    self.stats.unlogged_results += left

    def _runner(self, item: pytest.Function, case: _Case, previous: Any) -> Callable[..., Any]:
        plain = item.stash.get(_ORIGINAL, previous)  # the test itself, as collected
        names = _parameters(plain)
        is_async = inspect.iscoroutinefunction(plain)
        link = self.link
        request = getattr(item, "_request", None) if self._fits_live_table(item) else None

        def untracked(testargs: Mapping[str, Any]) -> Any:
            return plain(**_pick(names, testargs))

        if link is None or not case.live or link.guard.tripped:
            self._count_untracked(case)
            return _make_runner(is_async, untracked, None, case, self._untracked, self._late)

        import langsmith

        if case.kind == "ours":

            def call(testargs: Mapping[str, Any]) -> Any:
                case.reset()
                kwargs = _pick(names, testargs)
                example = link.example_id(self.suite, item.nodeid)
                body = self._our_body(item, case, plain, kwargs, is_async)
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

        attempt = _within(is_async, context, call)
        return _make_runner(is_async, attempt, untracked, case, self._untracked, self._late)

    def _count_untracked(self, case: _Case) -> None:
        case.untracked = True
        with self._lock:
            if case.nodeid not in self._untracked_ids:
                self._untracked_ids.add(case.nodeid)
                self.stats.untracked_tests += 1

    def _untracked(self, case: _Case, error: BaseException) -> None:
        """Tracking failed before the test's body ran: the test runs untracked."""
        self._count_untracked(case)
        self._failed(f"tracking a test raised {self._describe(error)}")

    def _late(self, case: _Case, error: BaseException) -> None:
        """Tracking failed after the test's body passed: the test passes."""
        self._failed(f"closing a tracked test raised {self._describe(error)}")

    def _failed(self, otherwise: str) -> None:
        link = self.link
        cause = link.guard.failure if link is not None else None
        self.stats.fail(cause or otherwise)

    def _enter(self, case: _Case) -> None:
        import langsmith

        case.entered = True
        self._adopt(case, langsmith.get_current_run_tree())

    def _adopt(self, case: _Case, run: Any) -> None:
        """``run`` is the test's LangSmith run: count the test and note its experiment."""
        case.run = run
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
        case: _Case,
        func: Callable[..., Any],
        kwargs: dict[str, Any],
        is_async: bool,
    ) -> Callable[[], Any]:
        """The test as ``langsmith.testing.test`` sees it: no parameters, so no fixture value
        (``tmp_path``, a model object, ...) is captured as the run's inputs."""
        body: Callable[[], Any]
        if is_async:

            async def async_body() -> Any:
                self._enter(case)
                try:
                    result = await func(**kwargs)
                except BaseException as error:
                    case.body_error = error
                    raise
                finally:
                    self._finish(case)
                case.body_done = True
                return result

            body = async_body
        else:

            def sync_body() -> Any:
                self._enter(case)
                try:
                    result = func(**kwargs)
                except BaseException as error:
                    case.body_error = error
                    raise
                finally:
                    self._finish(case)
                case.body_done = True
                return result

            body = sync_body
        body.__name__ = body.__qualname__ = item.name  # the run's name in LangSmith
        body.__module__ = getattr(func, "__module__", body.__module__)
        return body

    def _user_body(self, item: pytest.Function, case: _Case, func: Any) -> Callable[..., Any]:
        """The user's test under langsmith's wrapper; same signature, so langsmith captures the
        same inputs it always does."""
        request = getattr(item, "_request", None)
        wants_request = "request" in (_parameters(func) or frozenset())

        def prepare(kwargs: dict[str, Any]) -> dict[str, Any]:
            if wants_request and "request" not in kwargs:
                kwargs["request"] = request  # langsmith's wrapper keeps it for itself
            return kwargs

        if inspect.iscoroutinefunction(func):

            @functools.wraps(func)
            async def async_body(*args: Any, **kwargs: Any) -> Any:
                self._enter(case)
                try:
                    result = await func(*args, **prepare(kwargs))
                except BaseException as error:
                    case.body_error = error
                    raise
                finally:
                    self._finish(case)
                case.body_done = True
                return result

            return async_body

        @functools.wraps(func)
        def sync_body(*args: Any, **kwargs: Any) -> Any:
            self._enter(case)
            try:
                result = func(*args, **prepare(kwargs))
            except BaseException as error:
                case.body_error = error
                raise
            finally:
                self._finish(case)
            case.body_done = True
            return result

        return sync_body

    # -------------------------------------------------------------- logging

    def pytest_agenttraj_evaluated(self, item: pytest.Item, evaluation: Evaluation) -> None:
        if self.tracking_off:
            return
        case = item.stash.get(_CASE, None)
        if case is None:
            if self.enabled:
                with self._lock:
                    self.stats.untracked_evaluations += 1
                    if not item.stash.get(_COUNTED, False):
                        item.stash[_COUNTED] = True
                        self.stats.untracked_evaluation_tests += 1
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
        if not case.managed:
            # langsmith runs this test and nothing here runs after its body: log now, in its
            # run, or not at all (e.g. tracing is off, or a thread made the evaluation)
            root = current is not None and getattr(current, "parent_run_id", None) is None
            if case.run is None and root and not by_caller:
                self._adopt(case, current)
            if current is None or current is not case.run:
                return
        case.add_pending(evaluation, by_caller)
        if current is not None and current is case.run:
            self._log_pending(case)

    def _finish(self, case: _Case) -> None:
        """Runs in the test's own run context right after its body: log what is still pending
        (evaluations made in fixtures, threads or feedback traces) and the inputs."""
        try:
            self._log_pending(case)
            if case.kind == "ours":
                self._log_inputs(case)
        finally:
            case.finished = True
            left = _unlogged(case.take_pending())
            if left:
                with self._lock:
                    self.stats.unlogged_results += left

    def _log_pending(self, case: _Case) -> None:
        for evaluation, by_caller in case.take_pending():
            self._log(case, evaluation, feedback=not by_caller)

    def _log(self, case: _Case, evaluation: Evaluation, *, feedback: bool) -> None:
        from langsmith import testing as t

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
                from ._langsmith_link import logged_reference_outputs

                t.log_reference_outputs({**logged_reference_outputs(), **case.references})
            if feedback:
                t.log_feedback(**self._feedback(result))
                with self._lock:
                    self.stats.logged_results += 1
        except Exception as error:  # never let logging fail a test: count it, say it once
            with self._lock:
                self.stats.unlogged_results += int(feedback)
                self.stats.note(f"logging a result raised {self._describe(error)}")

    def _feedback(self, result: Mapping[str, Any]) -> dict[str, Any]:
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
        if evaluation.inputs is not None:
            inputs = to_payload(evaluation.inputs, secret=self.secret)
            return inputs if isinstance(inputs, dict) else {"inputs": inputs}
        messages = input_messages(evaluation.outputs)
        if not messages:
            return None
        return {"messages": to_payload(messages, secret=self.secret)}

    def _log_inputs(self, case: _Case) -> None:
        run = case.run
        if case.inputs is None or run is None or getattr(run, "inputs", None):
            return  # nothing to log, or the test logged its own inputs
        from langsmith import testing as t

        try:
            t.log_inputs(case.inputs)
        except Exception as error:  # never let logging fail a test
            self.stats.note(f"logging inputs raised {self._describe(error)}")

    def _scrub(self, text: str) -> str:
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

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.is_worker:
            return
        lines = self.stats.lines()
        if not lines:
            return
        terminalreporter.write_sep("-", "LangSmith")
        for kind, text in lines:
            terminalreporter.write_line(text, yellow=kind == "warning", bold=kind == "warning")


_Hook = Callable[[_Case, BaseException], None]


def _within(
    is_async: bool,
    context: Callable[[], ContextManager[None]],
    call: Callable[[Mapping[str, Any]], Any],
) -> Callable[[Mapping[str, Any]], Any]:
    """``call`` inside ``context`` -- for a coroutine, while it is awaited, not just created."""
    if is_async:

        async def run_async(testargs: Mapping[str, Any]) -> Any:
            with context():
                return await _awaitable(call(testargs))

        return run_async

    def run(testargs: Mapping[str, Any]) -> Any:
        with context():
            return call(testargs)

    return run


def _unlogged(pending: list[tuple[Evaluation, bool]]) -> int:
    """Results among ``pending`` whose feedback this sink owed (not logged by their caller)."""
    return sum(1 for _, by_caller in pending if not by_caller)


def _make_runner(
    is_async: bool,
    attempt: Callable[[Mapping[str, Any]], Any],
    fallback: Callable[[Mapping[str, Any]], Any] | None,
    case: _Case,
    on_untracked: _Hook,
    on_late: _Hook,
) -> Callable[..., Any]:
    """What pytest calls instead of the test: ``attempt`` (tracked). An error the test's body
    raised propagates; one raised before the body started means tracking failed, and
    ``fallback`` (the bare test) runs instead; one raised after a passing body is dropped."""

    def settle(error: Exception) -> Callable[[Mapping[str, Any]], Any] | None:
        """After ``attempt`` raised ``error``: what to run instead (``None``: re-raise)."""
        if fallback is None:
            return None
        if not case.entered:
            on_untracked(case, error)
            return fallback
        if case.body_done and case.body_error is None:
            on_late(case, error)
            return _nothing
        return None

    if is_async:

        async def async_runner(**testargs: Any) -> Any:
            try:
                return await _awaitable(attempt(testargs))
            except Exception as error:
                instead = settle(error)
                if instead is None:
                    raise
                return await _awaitable(instead(testargs))

        return async_runner

    def runner(**testargs: Any) -> Any:
        try:
            return attempt(testargs)
        except Exception as error:
            instead = settle(error)
            if instead is None:
                raise
            return instead(testargs)

    return runner


def _nothing(testargs: Mapping[str, Any]) -> None:
    """What runs in place of a test whose only error came after its body passed."""


async def _awaitable(value: Awaitable[Any] | Any) -> Any:
    return await value if inspect.isawaitable(value) else value
