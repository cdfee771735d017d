"""The pytest entry point (``pytest11: agenttraj``): options, ini keys, marker, fixtures, wiring.

pytest imports this module in every run of every project that has the package installed, so it
imports nothing heavy: langchain-core, langsmith, langgraph and yaml load only where used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from ._report_file import ReportFile
from ._session import ITEM_SETTINGS, TrajectorySession
from ._settings import MARKER_HELP, TrajectorySettings, session_settings
from .config import TOOL_ARGS_MATCH_MODES, TRAJECTORY_MATCH_MODES
from .evaluators import (
    AsyncTrajectoryMatchEvaluator,
    EvaluatorResult,
    TrajectoryMatchEvaluator,
)
from .references import ReferenceFile

__all__ = [
    "assert_trajectory_fixture",
    "async_trajectory_evaluator",
    "trajectory_config",
    "trajectory_evaluator",
    "trajectory_reference",
]

SESSION_KEY = pytest.StashKey[TrajectorySession]()
_REPORT_KEY = pytest.StashKey[ReportFile]()
_GATE_KEY = pytest.StashKey[object]()
_STORE_KEY = pytest.StashKey[object]()


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    group = parser.getgroup("agenttraj", "agent trajectories (pytest-agenttraj)")
    from .langsmith_sink import add_options

    add_options(parser, pluginmanager)  # --trajectory-langsmith, trajectory_langsmith
    group.addoption(
        "--trajectory-mode",
        dest="trajectory_mode",
        default=None,
        metavar="MODE",
        help=f"default trajectory match mode: {', '.join(TRAJECTORY_MATCH_MODES)} "
        "(a test's trajectory marker still wins; default: strict)",
    )
    group.addoption(
        "--tool-args-mode",
        dest="trajectory_tool_args_mode",
        default=None,
        metavar="MODE",
        help=f"default tool-args match mode: {', '.join(TOOL_ARGS_MATCH_MODES)} (default: exact)",
    )
    group.addoption(
        "--trajectory-report",
        dest="trajectory_report",
        default=None,
        metavar="PATH",
        help="write every trajectory evaluation of the run to PATH as JSON",
    )
    group.addoption(
        "--trajectory-baseline",
        dest="trajectory_baseline",
        default=None,
        metavar="PATH",
        help="compare results with an earlier --trajectory-report file and fail the session "
        "on regressions",
    )
    group.addoption(
        "--trajectory-tolerance",
        dest="trajectory_tolerance",
        default=None,
        metavar="DELTA",
        help="how far a graded score or pass rate may fall before it counts as a regression "
        "(default: 0)",
    )
    group.addoption(
        "--trajectory-update",
        dest="trajectory_update",
        action="store_true",
        default=False,
        help="write each reference file that is missing or no longer matches from the agent's "
        "current trajectory, instead of failing",
    )
    group.addoption(
        "--trajectory-prune-unused",
        dest="trajectory_prune_unused",
        action="store_true",
        default=False,
        help="delete reference files in trajectories/ folders that no test used "
        "(only after a run of every test)",
    )
    group.addoption(
        "--trajectory-min-pass-rate",
        dest="trajectory_min_pass_rate",
        action="append",
        default=None,
        metavar="[GROUP=]RATE",
        help="fail the session when less than RATE (0..1) of the trajectory evaluations pass; "
        "GROUP=RATE for the tests marked GROUP (repeatable; errors count as failed, skips "
        "against the rate)",
    )
    parser.addini(
        "trajectory_mode", "default trajectory match mode (see --trajectory-mode)", default=""
    )
    parser.addini(
        "trajectory_tool_args_mode",
        "default tool-args match mode (see --tool-args-mode)",
        default="",
    )
    parser.addini(
        "trajectory_min_pass_rate",
        "minimum pass rates, one [GROUP=]RATE per line (see --trajectory-min-pass-rate)",
        type="linelist",
        default=[],
    )


@pytest.hookimpl(trylast=True)
def pytest_load_initial_conftests(parser: pytest.Parser) -> None:
    # --langsmith-output is langsmith's flag too: register it only once every plugin is loaded,
    # so that whichever loads first, neither clashes nor warns.
    from .langsmith_sink import add_output_option

    add_output_option(parser)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)
    session = TrajectorySession(config, session_settings(config))
    config.stash[SESSION_KEY] = session
    config.pluginmanager.register(session, "agenttraj-session")
    _configure_references(config, session.is_worker)
    report_path = config.getoption("trajectory_report", default=None)
    if report_path and not session.is_worker:
        path = Path(config.invocation_params.dir, report_path)
        report = ReportFile(path, session.settings)
        config.stash[_REPORT_KEY] = report
        config.pluginmanager.register(report, "agenttraj-report")
    baseline = config.getoption("trajectory_baseline", default=None)
    if baseline and not session.is_worker:
        from ._baseline_gate import BaselineGate

        gate = BaselineGate(
            Path(config.invocation_params.dir, baseline), _tolerance(config), session.settings
        )
        config.stash[_GATE_KEY] = gate
        config.pluginmanager.register(gate, "agenttraj-baseline")
    from . import _ci_surfaces

    _ci_surfaces.register(config)
    from . import langsmith_sink

    langsmith_sink.register(config)
    from . import _pass_rate_gate

    _pass_rate_gate.register(config, session)


def _tolerance(config: pytest.Config) -> float:
    raw = config.getoption("trajectory_tolerance", default=None)
    if raw is None:
        return 0.0
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise pytest.UsageError(
            f"invalid --trajectory-tolerance {raw!r}: must be a number >= 0 (e.g. 0.05)"
        )
    return value


def _configure_references(config: pytest.Config, is_worker: bool) -> None:
    from ._reference_store import UPDATE_KEY, ReferenceStore

    config.stash[UPDATE_KEY] = bool(config.getoption("trajectory_update", default=False))
    if not is_worker:
        store = ReferenceStore(config, bool(config.getoption("trajectory_prune_unused", False)))
        config.stash[_STORE_KEY] = store
        config.pluginmanager.register(store, "agenttraj-references")


def pytest_unconfigure(config: pytest.Config) -> None:
    from . import langsmith_sink

    langsmith_sink.unregister(config)
    from . import _ci_surfaces

    _ci_surfaces.unregister(config)
    from . import _pass_rate_gate

    _pass_rate_gate.unregister(config)
    keys: tuple[pytest.StashKey[Any], ...] = (_STORE_KEY, _GATE_KEY, _REPORT_KEY, SESSION_KEY)
    for key in keys:
        registered = config.stash.get(key, None)
        if registered is not None:
            config.pluginmanager.unregister(registered)
            del config.stash[key]


def _settings(request: pytest.FixtureRequest) -> TrajectorySettings:
    stored: TrajectorySettings | None = request.node.stash.get(ITEM_SETTINGS, None)
    if stored is not None:
        return stored
    return request.config.stash[SESSION_KEY].settings


@pytest.fixture
def trajectory_config(request: pytest.FixtureRequest) -> TrajectorySettings:
    """The trajectory settings in force for this test: marker > command line > ini > default.

    ``.mode``, ``.tool_args``, ``.overrides``, and ``.sources`` saying where each came from.

    Example::

        @pytest.mark.trajectory(mode="unordered")
        def test_settings(trajectory_config):
            assert trajectory_config.mode == "unordered"
    """
    return _settings(request)


@pytest.fixture
def trajectory_evaluator(trajectory_config: TrajectorySettings) -> TrajectoryMatchEvaluator:
    """A trajectory match evaluator configured from this test's settings; every result is
    recorded against the test.

    Example::

        def test_agent(trajectory_evaluator):
            result = trajectory_evaluator(outputs=messages, reference_outputs=reference)
            assert result["score"]
    """
    return TrajectoryMatchEvaluator(
        trajectory_config.match_config(), origin="trajectory_evaluator", reference_files=True
    )


@pytest.fixture
def async_trajectory_evaluator(
    trajectory_config: TrajectorySettings,
) -> AsyncTrajectoryMatchEvaluator:
    """The awaitable twin of ``trajectory_evaluator``, for async tests (pytest-asyncio).

    Example::

        async def test_agent(async_trajectory_evaluator):
            result = await async_trajectory_evaluator(outputs=messages, reference_outputs=ref)
            assert result["score"]
    """
    return AsyncTrajectoryMatchEvaluator(
        trajectory_config.match_config(),
        origin="async_trajectory_evaluator",
        reference_files=True,
    )


@pytest.fixture
def trajectory_reference(request: pytest.FixtureRequest) -> ReferenceFile:
    """This test's reference file: the marker's ``reference=``, else ``<test name>.yaml``, in
    the ``trajectories/`` folder beside the test file. Pass it to ``assert_trajectory``; with
    ``--trajectory-update`` a missing file is written on first use.

    Example::

        @pytest.mark.trajectory(reference="weather.yaml")
        def test_agent(trajectory_reference):
            assert_trajectory(agent_messages(), trajectory_reference)
    """
    from ._reference_store import ItemReferences

    item = request.node
    assert isinstance(item, pytest.Item)
    return ItemReferences(item, _settings(request).reference).resolve(None)


@pytest.fixture(name="assert_trajectory")
def assert_trajectory_fixture(
    trajectory_config: TrajectorySettings,
) -> Callable[..., EvaluatorResult]:
    """``assert_trajectory(outputs, reference, mode=None, tool_args=None, overrides=None)`` bound
    to this test's settings: returns the result on a match, fails the test with a diff otherwise.

    Example::

        def test_agent(assert_trajectory):
            assert_trajectory(result["messages"], reference)
    """
    from ._observe import current_scope
    from .assertion import assert_trajectory

    def bound(
        outputs: Any,
        reference_outputs: Any = None,
        *,
        mode: str | None = None,
        tool_args: str | None = None,
        overrides: Mapping[str, Any] | None = None,
    ) -> EvaluatorResult:
        __tracebackhide__ = True
        if current_scope() is None:  # e.g. called from a thread the test started
            mode = mode or trajectory_config.mode
            tool_args = tool_args or trajectory_config.tool_args
            overrides = overrides if overrides is not None else trajectory_config.overrides
        return assert_trajectory(
            outputs, reference_outputs, mode=mode, tool_args=tool_args, overrides=overrides
        )

    return bound
