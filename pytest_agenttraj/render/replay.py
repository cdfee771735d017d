"""A model call that did not replay, as lines: what went wrong, each difference of the request
(which message, which field, which tool schema), and the command that records the test again."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..core.replay import ReplayReport
from . import Options

__all__ = ["headline", "lines"]

_SHOWN = 20  # differences shown unless -vv


def headline(report: ReplayReport, _options: Options) -> str:
    return report.comment()


def _request(report: ReplayReport, options: Options) -> Iterator[str]:
    """The live request in brief: its messages, one line each."""
    live = report.live or {}
    messages = live.get("messages") or []
    tools = live.get("tools") or []
    yield options.paint(f"the request: {len(messages)} message(s), {len(tools)} tool(s)", "dim")
    start = 0 if options.verbose >= 2 else max(0, len(messages) - 6)
    if start:
        yield options.paint(f"  ... {start} earlier message(s)", "dim")
    for index in range(start, len(messages)):
        message = messages[index]
        content = str(message.get("content", "")) if isinstance(message, dict) else str(message)
        content = " ".join(content.split())
        if len(content) > 100:
            content = content[:97] + "..."
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        called = f" calls {', '.join(str(c.get('name')) for c in calls)}" if calls else ""
        role = message.get("role") if isinstance(message, dict) else "?"
        yield options.paint(f"  [{index}] {role}: {content}{called}", "dim")


def lines(report: ReplayReport, options: Options) -> Iterable[str]:
    yield options.paint(headline(report, options), "bad")
    if report.test:
        yield f"test: {report.test}"
    if report.problem == "differs":
        shown = report.differences if options.verbose >= 2 else report.differences[:_SHOWN]
        for difference in shown:
            yield f"  {options.paint(difference.where, 'bold')}:"
            yield "    " + options.paint(f"- recorded {difference.recorded_text()}", "good")
            yield "    " + options.paint(f"+ now      {difference.live_text()}", "bad")
        hidden = len(report.differences) - len(shown)
        if hidden:
            yield options.paint(f"  (and {hidden} more difference(s); -vv shows all)", "dim")
    elif report.problem == "unused":
        for model, number in report.unused[: 50 if options.verbose < 2 else None]:
            yield f"  call {number} to {model}: recorded, never made"
    if report.live is not None and report.problem in ("differs", "extra"):
        yield from _request(report, options)
    if report.command:
        yield options.paint("If the change is intended, record the test again:", "dim")
        yield f"    {report.command}"


def detail(report: ReplayReport) -> dict[str, Any]:
    """The page's view: what went wrong with which call of which cassette, the differences, and
    the live and recorded requests side by side."""
    from .detail import plain

    return {
        "view": "replay",
        "problem": report.problem,
        "cassette": report.cassette,
        "command": report.command,
        "model": report.model,
        "call": report.call,
        "differences": [
            {"where": d.where, "recorded": d.recorded_text(), "live": d.live_text()}
            for d in report.differences
        ],
        "live": plain(report.live),
        "recorded": plain(report.recorded),
        "unused": [list(u) for u in report.unused],
    }
