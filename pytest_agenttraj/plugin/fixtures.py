"""The plugin's public fixtures: evaluators, the assertion and the settings of the running test,
each documented for ``pytest --fixtures``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pytest

from .registration import module_dir
from .session import ITEM_SETTINGS, SESSION_KEY
from .settings import TrajectorySettings

if TYPE_CHECKING:  # imported by each fixture when a test asks for it, not at start-up
    from ..evaluators.faces import AsyncEvaluator, Evaluator
    from ..evaluators.result import EvaluatorResult
    from ..references import ReferenceFile
    from .simulation import Simulator

__all__ = [
    "assert_trajectory_fixture",
    "async_trajectory_evaluator",
    "graph_trajectory_evaluator",
    "simulate",
    "trajectory_config",
    "trajectory_evaluator",
    "trajectory_reference",
]


def running_item(fixture: str) -> pytest.Item:
    """The test setting up ``fixture``: the owner of the scope the plugin enters around the
    setup of every test that requests one of its fixtures. The fixtures take no ``request``:
    pytest makes a new fixture definition for each use of it, which costs more per test than
    the evaluation itself."""
    from ..evaluators.scope import current_scope

    scope = current_scope()
    item = None if scope is None else scope.owner
    if not isinstance(item, pytest.Item):
        raise RuntimeError(
            f"the {fixture} fixture is set up only by a test that pytest-agenttraj runs"
        )
    return item


def _settings(item: pytest.Item) -> TrajectorySettings:
    stored: TrajectorySettings | None = item.stash.get(ITEM_SETTINGS, None)
    if stored is not None:
        return stored
    return item.config.stash[SESSION_KEY].settings


@pytest.fixture
def trajectory_config() -> TrajectorySettings:
    """The trajectory settings in force for this test: marker > the header of the test's
    reference file > command line > ini > default.

    ``.mode``, ``.tool_args``, ``.overrides``, ``.ignore_keys``, ``.allow_empty``, ``.usage``
    (the marker's tool-usage rules), ``.min_score``, and ``.sources`` saying where each came
    from (``marker``, ``reference file header``, ``command line``, ``ini`` or ``default``).

    Example::

        @pytest.mark.trajectory(mode="unordered")
        def test_settings(trajectory_config):
            assert trajectory_config.mode == "unordered"
    """
    __tracebackhide__ = True
    return settings_of(running_item("trajectory_config"))


def settings_of(item: pytest.Item) -> TrajectorySettings:
    """The settings of ``item`` with its reference file's header (what ``trajectory_config``
    is)."""
    __tracebackhide__ = True
    settings = _settings(item)
    if settings.reference is None and "trajectory_reference" not in getattr(
        item, "fixturenames", ()
    ):
        return settings
    from .reference_store import ItemReferences

    reference = ItemReferences(item, settings.reference, item.nodeid).resolve(None)
    return settings.with_header(reference.header()) if reference.exists else settings


@pytest.fixture
def trajectory_evaluator() -> Evaluator:
    """A trajectory match evaluator configured from this test's settings; every result is
    recorded against the test.

    Example::

        def test_agent(trajectory_evaluator):
            result = trajectory_evaluator(outputs=messages, reference_outputs=reference)
            assert result["score"]
    """
    from ..evaluators.trajectory import trajectory_faces
    from ..references import handle_file_reference

    config = settings_of(running_item("trajectory_evaluator")).match_config()
    return trajectory_faces(
        config, origin="trajectory_evaluator", references=handle_file_reference
    )[0]


@pytest.fixture
def async_trajectory_evaluator() -> AsyncEvaluator:
    """The awaitable twin of ``trajectory_evaluator``, for async tests (pytest-asyncio).

    Example::

        async def test_agent(async_trajectory_evaluator):
            result = await async_trajectory_evaluator(outputs=messages, reference_outputs=ref)
            assert result["score"]
    """
    from ..evaluators.trajectory import trajectory_faces
    from ..references import handle_file_reference

    config = settings_of(running_item("async_trajectory_evaluator")).match_config()
    return trajectory_faces(
        config, origin="async_trajectory_evaluator", references=handle_file_reference
    )[1]


@pytest.fixture
def graph_trajectory_evaluator() -> Evaluator:
    """A graph trajectory match evaluator in this test's mode (marker > command line > ini >
    strict); every result is recorded against the test. ``reference_outputs`` may also name a
    graph reference file in the test's ``trajectories/`` folder, whose ``mode`` applies unless
    the marker sets one.

    Example::

        @pytest.mark.trajectory(mode="superset")
        def test_workflow(graph_trajectory_evaluator):
            _, trajectory = record_graph_trajectory(graph, {"shortcut": False})
            result = graph_trajectory_evaluator(outputs=trajectory, reference_outputs=reference)
            assert result["score"], result["comment"]
            graph_trajectory_evaluator(outputs=trajectory, reference_outputs="long_path.yaml")
    """
    from ..core.graph import check_graph_mode
    from ..evaluators.graph import graph_faces
    from ..references import handle_graph_file_reference

    try:
        settings = settings_of(running_item("graph_trajectory_evaluator"))
        mode = check_graph_mode(settings.mode, where="mode")
    except ValueError as error:  # a message-trajectory mode that graph paths do not have
        pytest.fail(str(error), pytrace=False)
    return graph_faces(
        mode, origin="graph_trajectory_evaluator", references=handle_graph_file_reference
    )[0]


@pytest.fixture
def trajectory_reference() -> ReferenceFile:
    """This test's reference file: the marker's ``reference=``, else ``<test name>.yaml``, in
    the ``trajectories/`` folder beside the test file. Pass it to ``assert_trajectory`` (or, for
    a graph reference file, to ``assert_graph_trajectory``); with ``--trajectory-update`` a
    missing file is written on first use.

    Example::

        @pytest.mark.trajectory(reference="weather.yaml")
        def test_agent(trajectory_reference):
            assert_trajectory(agent_messages(), trajectory_reference)
    """
    __tracebackhide__ = True
    from .reference_store import ItemReferences

    item = running_item("trajectory_reference")
    return ItemReferences(item, _settings(item).reference, item.nodeid).resolve(None)


@pytest.fixture(name="assert_trajectory", scope="session")
def assert_trajectory_fixture() -> Callable[..., EvaluatorResult]:
    """``assert_trajectory(...)`` bound to the running test's settings: returns the result on a
    match, fails the test with a diff otherwise. It takes ``outputs``, ``reference_outputs`` and
    the settings ``mode``, ``tool_args``, ``overrides``, ``ignore_keys`` and ``allow_empty`` (an
    empty reference fails unless allowed).

    Example::

        def test_agent(assert_trajectory):
            assert_trajectory(result["messages"], reference)
    """
    # One function for the whole run (a session fixture costs a test next to nothing, if it
    # requests no other fixture: pytest would add a finalizer to that one for every test): each
    # call finds its test's settings in the test's scope, or, from a thread the test started,
    # in the test the session is running.
    from ..assertions.trajectory import assert_trajectory, refuse_keywords
    from ..evaluators.scope import current_scope

    session = running_item("assert_trajectory").config.stash[SESSION_KEY]

    def bound(
        outputs: Any,
        reference_outputs: Any = None,
        *,
        mode: str | None = None,
        tool_args: str | None = None,
        overrides: Mapping[str, Any] | None = None,
        ignore_keys: Sequence[str] | None = None,
        allow_empty: bool | None = None,
        **unknown: Any,
    ) -> EvaluatorResult:
        __tracebackhide__ = True
        refuse_keywords("assert_trajectory", unknown)
        if current_scope() is None:  # e.g. called from a thread the test started
            item = session.running
            settings = session.settings if item is None else settings_of(item)
            mode = mode or settings.mode
            tool_args = tool_args or settings.tool_args
            overrides = overrides if overrides is not None else settings.overrides
            if ignore_keys is None:
                ignore_keys = settings.ignore_keys
            if allow_empty is None:
                allow_empty = settings.allow_empty
        return assert_trajectory(
            outputs,
            reference_outputs,
            mode=mode,
            tool_args=tool_args,
            overrides=overrides,
            ignore_keys=ignore_keys,
            allow_empty=allow_empty,
        )

    return bound


@pytest.fixture
def simulate() -> Simulator:
    """Run a multi-turn conversation with an app: ``simulate(app, user)`` (a user function or a
    list of replies), ``simulate(app, steps=[...])`` (a scripted scenario) or
    ``simulate(app, persona=...)`` (an LLM-simulated user); ``await simulate.arun(...)`` in
    async tests. ``max_turns``, ``persona`` and its ``model`` default to the ``simulation``
    marker, then ``--simulation-max-turns`` / ``--simulation-model`` and their ini keys. The
    conversation is recorded like every evaluation, and compared turn by turn with the test's
    reference conversation (``trajectories/<test>.yaml``) when it has one.

    Example::

        @pytest.mark.simulation(max_turns=3)
        def test_refund(simulate):
            result = simulate(agent, ["Refund!", "Please?", "Now!"])
            assert result["stop_reason"] == "max_turns"
    """
    from .simulation import Simulator, simulation_settings

    return Simulator(simulation_settings(running_item("simulate")))


__dir__ = module_dir(globals())  # see .registration
