"""One span processor per process that hands each finished span to the capture of the test
running now (OpenTelemetry offers no way to remove a processor, so ours stays and switches)."""

from __future__ import annotations

import threading
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider

__all__ = ["SpanCapture", "install"]


class SpanCapture:
    """The spans that finished while this capture was active, in the order they finished."""

    def __init__(self) -> None:
        self.spans: list[ReadableSpan] = []
        self._lock = threading.Lock()

    def add(self, span: ReadableSpan) -> None:
        with self._lock:
            self.spans.append(span)


class _Switch(SpanProcessor):
    active: SpanCapture | None = None

    def on_end(self, span: ReadableSpan) -> None:
        capture = self.active
        if capture is not None:
            capture.add(span)


_SWITCH = _Switch()
_INSTALLED: list[Any] = []


def install() -> _Switch:
    """Our processor on the global SDK tracer provider (set one when there is none)."""
    if _INSTALLED:
        return _SWITCH
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
        provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):  # another provider won the race to be global
        raise RuntimeError(
            f"captured_trace needs the OpenTelemetry SDK's TracerProvider, "
            f"the global one is {type(provider).__name__}"
        )
    provider.add_span_processor(_SWITCH)
    _INSTALLED.append(provider)
    return _SWITCH
