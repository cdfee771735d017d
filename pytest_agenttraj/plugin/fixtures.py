"""The plugin's public fixtures: evaluators, the assertion and the settings of the running test,
each documented for ``pytest --fixtures``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from ..evaluators.result import EvaluatorResult
from ..evaluators.trajectory import AsyncTrajectoryMatchEvaluator, TrajectoryMatchEvaluator
from ..references import ReferenceFile, handle_file_reference
from .session import ITEM_SETTINGS, SESSION_KEY
from .settings import TrajectorySettings

__all__ = [
    "assert_trajectory_fixture",
    "async_trajectory_evaluator",
    "trajectory_config",
    "trajectory_evaluator",
    "trajectory_reference",
]


def _settings(request: pytest.FixtureRequest) -> TrajectorySettings:
    stored: TrajectorySettings | None = request.node.stash.get(ITEM_SETTINGS, None)
    if stored is not None:
        return stored
    return request.config.stash[SESSION_KEY].settings


@pytest.fixture
def trajectory_config(request: pytest.FixtureRequest) -> TrajectorySettings:
    """The trajectory settings in force for this test: marker > command line > ini > default.

    ``.mode``, ``.tool_args``, ``.overrides``, ``.ignore_keys``, ``.allow_empty``, ``.usage``
    (the marker's tool-usage rules), and ``.sources`` saying where each came from.

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
        trajectory_config.match_config(),
        origin="trajectory_evaluator",
        references=handle_file_reference,
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
        references=handle_file_reference,
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
    from .reference_store import ItemReferences

    item = request.node
    assert isinstance(item, pytest.Item)
    return ItemReferences(item, _settings(request).reference).resolve(None)


@pytest.fixture(name="assert_trajectory")
def assert_trajectory_fixture(
    trajectory_config: TrajectorySettings,
) -> Callable[..., EvaluatorResult]:
    """``assert_trajectory(...)`` bound to this test's settings: returns the result on a match,
    fails the test with a diff otherwise. It takes ``outputs``, ``reference_outputs`` and the
    settings ``mode``, ``tool_args``, ``overrides``, ``ignore_keys`` and ``allow_empty`` (an
    empty reference fails unless allowed).

    Example::

        def test_agent(assert_trajectory):
            assert_trajectory(result["messages"], reference)
    """
    from ..assertion import assert_trajectory
    from ..evaluators.scope import current_scope

    def bound(
        outputs: Any,
        reference_outputs: Any = None,
        *,
        mode: str | None = None,
        tool_args: str | None = None,
        overrides: Mapping[str, Any] | None = None,
        ignore_keys: Sequence[str] | None = None,
        allow_empty: bool | None = None,
    ) -> EvaluatorResult:
        __tracebackhide__ = True
        if current_scope() is None:  # e.g. called from a thread the test started
            mode = mode or trajectory_config.mode
            tool_args = tool_args or trajectory_config.tool_args
            overrides = overrides if overrides is not None else trajectory_config.overrides
            if ignore_keys is None:
                ignore_keys = trajectory_config.ignore_keys
            if allow_empty is None:
                allow_empty = trajectory_config.allow_empty
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
