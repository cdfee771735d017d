"""Text for every kind of result: ``render(report)`` finds the renderer of ``report.kind`` (the
module of that name in this package) and gives its lines, summary and first problem first.

Every renderer module has ``lines(report, options)`` (the whole explanation) and
``headline(report, options)`` (the failure in one sentence, the first line pytest shows). Plain
text by default; ``markup(text, style)`` may colour it (the plugin passes pytest's terminal writer,
so ``--color``, ``NO_COLOR`` and the like are honoured). Rendering never raises: a renderer that
fails gives its report's comment and a line saying what went wrong, never a broken report.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    from ..core.report import Report

__all__ = ["Markup", "Options", "headline", "render", "render_text"]

Markup = Callable[[str, str], str]
"""``markup(text, style)`` with style one of ``bad``, ``good``, ``dim``, ``bold``."""


def _plain(text: str, _style: str) -> str:
    return text


@dataclass(frozen=True)
class Options:
    """How to draw: ``verbose >= 2`` shows everything uncut; ``width`` is the terminal's;
    ``min_score`` the threshold a graded score is shown against."""

    verbose: int = 0
    width: int = 100
    markup: Markup | None = None
    min_score: float | None = None

    def paint(self, text: str, style: str) -> str:
        return (self.markup or _plain)(text, style)


class _Renderer(Protocol):
    def lines(self, report: Any, options: Options) -> Iterable[str]: ...

    def headline(self, report: Any, options: Options) -> str: ...


def _renderer(report: Report) -> _Renderer:
    return cast("_Renderer", importlib.import_module(f".{report.kind}", __name__))


def render(
    report: Report,
    *,
    verbose: int = 0,
    width: int = 100,
    markup: Markup | None = None,
    min_score: float | None = None,
) -> list[str]:
    """The lines explaining ``report``."""
    options = Options(verbose=verbose, width=width, markup=markup, min_score=min_score)
    try:
        return list(_renderer(report).lines(report, options))
    except Exception as error:  # a diff that cannot be drawn must not hide the failure itself
        head = headline(report, min_score=min_score)
        return [head, f"(could not render the {report.kind} diff: {type(error).__name__}: {error})"]


def headline(report: Report, *, min_score: float | None = None) -> str:
    """The failure in one sentence."""
    try:
        return _renderer(report).headline(report, Options(min_score=min_score))
    except Exception:  # the headline of a report that cannot be drawn is its comment
        return report.comment() or f"The {report.kind} result passed."


def render_text(report: Report, **options: Any) -> str:
    """``render`` joined into one string."""
    return "\n".join(render(report, **options))
