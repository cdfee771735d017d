"""Record and replay of chat-model calls, as a pytest plugin the main plugin registers
(``PLUGINS``): the ``agent_cassette`` fixture and marker, and the hooks that fail a test
whose calls did not replay and write each cassette once. langchain-core is imported only when a
test uses a cassette (:mod:`.intercept`, :mod:`.convert`, :mod:`.recorder`)."""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING

import pytest
from _pytest._code.code import ExceptionChainRepr, ReprEntry, TerminalRepr
from _pytest._io import TerminalWriter

from ...plugin.cassette_store import (
    CASSETTE_FIXTURE,
    cassette_path,
    ledger_of,
    record_command,
    record_mode,
    redactions,
)
from ...plugin.collection import MarkerNames
from ...plugin.reference_store import relative
from ...plugin.registration import HookHolder, module_dir
from ...plugin.session import SESSION_KEY

if TYPE_CHECKING:  # a test's cassette state loads with the first test that uses one
    from ...assertions.base import AgentTrajAssertionError
    from .recorder import Recorder
    from .state import AgentCassette, TestCassette

__all__ = ["agent_cassette"]

_STATE: pytest.StashKey[TestCassette] = pytest.StashKey()


def pytest_report_header(config: pytest.Config) -> str | None:
    """``agenttraj: record=new`` when the run records model calls (replay says nothing)."""
    mode = record_mode(config)
    return None if mode == "none" else f"agenttraj: record={mode} (chat-model calls are recorded)"


def pytest_collection_finish(session: pytest.Session) -> None:
    """A test carrying the ``agent_cassette`` marker (its own, its class's or its module's)
    uses the fixture; the per-test hooks are registered only when some test uses it. Such a
    test is one the session found using the plugin (its collection hook has run by now), so
    only those are looked at."""
    config = session.config
    items = session.items
    ours = config.stash.get(SESSION_KEY, None)
    candidates = ours.used if ours is not None else items
    used = False
    read_marks = MarkerNames()
    for item in candidates:
        names = getattr(item, "fixturenames", None)
        if not isinstance(names, list):
            continue
        if CASSETTE_FIXTURE not in names and CASSETTE_FIXTURE in read_marks(item):
            names.append(CASSETTE_FIXTURE)
        used = used or CASSETTE_FIXTURE in names
    if used and not config.pluginmanager.has_plugin(_HOOKS_NAME):
        config.pluginmanager.register(_CassetteHooks(), _HOOKS_NAME)


def _state(item: pytest.Item) -> TestCassette:
    """The test's cassette, read once however many attempts it makes."""
    state = item.stash.get(_STATE, None)
    if state is None:
        mode = record_mode(item.config)
        path = cassette_path(item)
        name = relative(path, item.config.rootpath)
        from ...errors import CassetteError
        from .state import TestCassette

        state = TestCassette(path, name, mode, None)
        root = item.config.rootpath.resolve()
        if not path.resolve().is_relative_to(root):
            state.error = CassetteError(f"cassette {path} is outside the project root {root}")
        elif mode != "all" and path.exists():
            from ...references.cassette import load_cassette

            try:
                state.file = load_cassette(path)
            except CassetteError as error:
                state.error = error
            from ...plugin.unused_cassettes import cassette_store

            store = cassette_store(item.config)
            if store is not None:
                store.used.add(name)
        item.stash[_STATE] = state
    return state


def _claim(item: pytest.Item, state: TestCassette) -> None:
    """A recording run writes each cassette for one test only."""
    __tracebackhide__ = True
    ledger = ledger_of(item.config)
    if ledger is None:
        return
    claim = ledger.claim(state.path, writer=item.nodeid, written=True, content=None)
    if not claim.first and claim.writer != item.nodeid:
        pytest.fail(
            f"{state.name} is the cassette of {claim.writer} too: two tests with one name "
            "(in different classes of a file) would record over each other; rename one",
            pytrace=False,
        )


def _recorder(item: pytest.Item, state: TestCassette, attempt: int | None) -> Recorder:
    from .recorder import Recorder

    recorded = None
    detail = "the cassette does not exist"
    if state.file is not None:
        index = (attempt or 1) - 1
        if index < len(state.file.attempts):
            recorded = state.file.attempts[index]
        else:
            count = len(state.file.attempts)
            detail = f"it holds {count} attempt(s), this is attempt {index + 1}"
    return Recorder(
        mode=state.mode,
        recorded=recorded,
        cassette=state.name,
        test=item.nodeid,
        command=record_command(item, "new" if state.file is None else "all"),
        attempt=attempt,
        missing_detail=detail,
    )


@pytest.fixture
def agent_cassette(request: pytest.FixtureRequest) -> Generator[AgentCassette, None, None]:
    """Replay this test's chat-model calls from ``cassettes/<test name>.yaml`` beside the test
    file: every langchain-core chat model (the agent's, a judge's) is answered from the
    recording, without a provider; a request that differs from the recorded one fails the test
    with a diff of the request. ``--trajectory-record=new`` records the calls the cassette
    lacks, ``--trajectory-record=all`` records them all again. The marker
    ``@pytest.mark.agent_cassette`` does the same for a function, class or module.

    Example::

        def test_agent(agent_cassette):
            result = agent.invoke({"messages": [("user", "Weather in SF?")]})
            assert_trajectory(result, reference)
    """
    __tracebackhide__ = True
    item = request.node
    assert isinstance(item, pytest.Item)
    state = _state(item)
    if state.error is not None:
        pytest.fail(str(state.error), pytrace=False)
    if state.mode != "none":
        _claim(item, state)
    from . import intercept

    attempt = item.config.stash[SESSION_KEY].attempt_of(item)
    recorder = _recorder(item, state, attempt)
    state.recorder = recorder
    intercept.activate(recorder, redactions(item.config))
    try:
        from .state import AgentCassette

        yield AgentCassette(state.path, state.mode, recorder)
    finally:
        intercept.deactivate()
        state.recorder = None
        state.attempts[attempt or 1] = recorder.made
        state.new_calls += recorder.new_calls


@pytest.hookimpl(wrapper=True)
def _runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """A test whose model calls did not replay fails with the replay's own error, whatever the
    agent made of it (an agent that catches errors must not turn it into a pass), and in replay
    a recorded call the test never made fails it too."""
    __tracebackhide__ = True
    state = item.stash.get(_STATE, None)
    recorder = state.recorder if state is not None else None
    try:
        outcome = yield
    except BaseException as error:
        if recorder is not None and recorder.failure is not None and error is not recorder.failure:
            raise recorder.failure from error
        raise
    if recorder is not None:
        if recorder.failure is not None:
            raise recorder.failure
        unused = recorder.unused()
        if unused is not None:
            raise unused
    return outcome


def _write(item: pytest.Item, state: TestCassette) -> None:
    wanted = state.mode == "all" or (state.mode == "new" and state.new_calls)
    made = [state.attempts[n] for n in sorted(state.attempts)]
    if not wanted or not any(made):
        return
    from ...references.cassette import write_cassette

    write_cassette(state.path, made, test=item.nodeid, record=record_command(item))
    from ...plugin.unused_cassettes import cassette_store

    store = cassette_store(item.config)
    if store is not None:
        store.wrote(state.name, sum(len(calls) for calls in made))


class _ReplayRepr(TerminalRepr):
    """A replay failure as pytest shows it: the test's own line that made the call, then the
    rendering (the frames of the agent, LangGraph and langchain-core in between say nothing)."""

    def __init__(self, original: ExceptionChainRepr, failure: AgentTrajAssertionError) -> None:
        self.reprcrash = original.reprcrash
        entries = original.chain[-1][0].reprentries
        self.entry = entries[0] if entries else None
        self.failure = failure

    def toterminal(self, tw: TerminalWriter) -> None:
        if isinstance(self.entry, ReprEntry):
            self.entry.lines = [line for line in self.entry.lines if not line.startswith("E ")]
            self.entry.toterminal(tw)
        styles = {"bad": {"red": True}, "good": {"green": True}, "dim": {"cyan": True}}
        styles["bold"] = {"bold": True}

        def markup(text: str, style: str) -> str:
            return tw.markup(text, **styles[style]) if style in styles else text

        for line in self.failure.render(width=tw.fullwidth, markup=markup):
            tw.line(line)


@pytest.hookimpl(wrapper=True)
def _runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if item.stash.get(_STATE, None) is None or call.excinfo is None:
        return report
    from ...assertions.replay import ReplayMismatch

    error = call.excinfo.value
    if isinstance(error, ReplayMismatch) and isinstance(report.longrepr, ExceptionChainRepr):
        report.longrepr = _ReplayRepr(report.longrepr, error)
    return report


@pytest.hookimpl(wrapper=True)
def _runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    """Write the test's cassette once, after its last attempt, when it recorded."""
    try:
        return (yield)
    finally:
        state = item.stash.get(_STATE, None)
        if state is not None:
            del item.stash[_STATE]
            _write(item, state)


_HOOKS_NAME = "agenttraj-cassette-hooks"


class _CassetteHooks(HookHolder):
    """The per-test hooks of cassettes, registered only in runs where a test uses one (a test
    that does not pays nothing for them)."""

    pytest_runtest_call = staticmethod(_runtest_call)
    pytest_runtest_makereport = staticmethod(_runtest_makereport)
    pytest_runtest_protocol = staticmethod(_runtest_protocol)


__dir__ = module_dir(globals())  # see .registration
