"""What the HTML page draws of one result, as builtins for the JSON report: the trajectories
side by side with their problems, a graph's paths, kept to a bounded size.

``detail(report)`` asks the renderer module of ``report.kind`` for its ``detail(report)``; kinds
without one give only their kind (the page shows their text explanation, the record's ``diff``).
Never raises: a result that cannot be described is shown by its text alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..core.values import safe_repr

if TYPE_CHECKING:
    from ..core.report import Report

__all__ = ["MAX_ITEMS", "MAX_TEXT", "detail", "plain"]

MAX_ITEMS = 2_000
"""Messages, rows or supersteps kept per side; the rest is counted, not kept."""

MAX_TEXT = 2_000
"""Characters kept of one message's text or one value's repr."""

_MAX_DEPTH = 12


def detail(report: Report) -> dict[str, Any]:
    """The page's view of ``report`` (``{"kind": ...}`` and what its renderer adds)."""
    from . import _renderer

    out: dict[str, Any] = {"kind": report.kind}
    build = getattr(_renderer(report), "detail", None)
    if build is None:
        return out
    try:
        out.update(build(report))
    except Exception as error:  # the record's text still explains the result
        out["error"] = f"{type(error).__name__}: {error}"
    return out


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON builtins: containers kept (to a depth), strings cut, anything else (a
    matcher, an object) as its repr."""
    if value is None or isinstance(value, bool | int | float):
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**53:
            return safe_repr(value, MAX_TEXT)
        return value
    if isinstance(value, str):
        return cut(value)
    if depth >= _MAX_DEPTH:
        return safe_repr(value, MAX_TEXT)
    if isinstance(value, Mapping):
        return {cut(str(k)): plain(v, depth + 1) for k, v in list(value.items())[:MAX_ITEMS]}
    if isinstance(value, list | tuple):
        return [plain(v, depth + 1) for v in value[:MAX_ITEMS]]
    return safe_repr(value, MAX_TEXT)


def cut(text: str) -> str:
    """``text`` cut to ``MAX_TEXT`` characters, saying how much was left out."""
    if len(text) <= MAX_TEXT:
        return text
    return f"{text[:MAX_TEXT]}... ({len(text) - MAX_TEXT} more characters)"
