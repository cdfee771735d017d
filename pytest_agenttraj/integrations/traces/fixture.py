"""The ``captured_trace`` fixture; its OpenTelemetry and langsmith parts load only when a test
asks for it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

from ...plugin.registration import module_dir

if TYPE_CHECKING:
    from ...core.normalize.steps import TraceTrajectory

__all__ = ["CapturedTrace", "captured_trace"]


class CapturedTrace:
    """What the test's agent traced so far: OpenTelemetry ``spans`` and langsmith ``runs``."""

    def __init__(self, spans: Any, collector: Any) -> None:
        self._spans = spans
        self._collector = collector

    @property
    def spans(self) -> list[Any]:
        """The finished OpenTelemetry spans (``ReadableSpan``), in the order they ended."""
        return list(self._spans.spans) if self._spans is not None else []

    @property
    def runs(self) -> list[dict[str, Any]]:
        """The langsmith root runs (dicts with ``child_runs``), oldest first."""
        return self._collector.collected_runs() if self._collector is not None else []

    def trajectory(self) -> TraceTrajectory:
        """The trajectory of everything traced so far (spans first, then langsmith runs)."""
        # the readers are imported here: pytest loads this module in every run
        from ...core.normalize.run_trees import trajectory_from_run_tree
        from ...core.normalize.spans import trajectory_from_spans
        from ...core.normalize.steps import assemble

        if self.spans:
            return trajectory_from_spans(self.spans)
        if self.runs:
            return trajectory_from_run_tree(self.runs)
        return assemble([])


@pytest.fixture
def captured_trace() -> Iterator[CapturedTrace]:
    """Capture what the code under test traces, for this test only, sending nothing anywhere.

    OpenTelemetry spans are captured when ``opentelemetry-sdk`` is installed (extra ``[otel]``):
    a span processor on the global SDK tracer provider (one is set when there is none); langsmith
    runs (``@traceable``, ``wrap_openai``, LangChain callbacks) through a client that keeps them.

    Example::

        def test_agent(captured_trace):
            run_my_agent("Weather in SF?")
            assert_trajectory(captured_trace.trajectory(), reference, mode="superset")
    """
    spans = None
    switch = None
    with contextlib.suppress(ImportError):
        from .otel import SpanCapture, install

        switch = install()
        spans = SpanCapture()
        switch.active = spans
    from langsmith import tracing_context

    from .langsmith_runs import RunCollector

    collector = RunCollector()
    try:
        with tracing_context(enabled=True, client=collector, project_name="captured-trace"):
            yield CapturedTrace(spans, collector)
    finally:
        if switch is not None:
            switch.active = None


__dir__ = module_dir(globals())  # see .registration
