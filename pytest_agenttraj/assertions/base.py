"""The one family of assertion errors: every ``assert_*`` helper raises a subclass of
``AgentTrajAssertionError``, an ``AssertionError`` whose text is its report's rendering.

The text is the same everywhere (``--assert=plain``, JUnit XML, a LangSmith comment) because it
is the exception's own message; the plugin asks ``render`` for the coloured view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..render import Markup, headline, render, render_text

if TYPE_CHECKING:
    from ..core.report import Report
    from ..evaluators.result import EvaluatorResult

__all__ = ["AgentTrajAssertionError"]


class AgentTrajAssertionError(AssertionError):
    """A result that did not pass: ``report`` says what matched and what did not, ``result`` is
    the evaluator's result dict. ``except AgentTrajAssertionError`` catches every kind
    (trajectory, graph path, graded score, tool usage)."""

    __module__ = "pytest_agenttraj"  # how pytest and tracebacks name it, wherever it lives

    def __init__(
        self,
        report: Report,
        result: EvaluatorResult,
        *,
        verbose: int = 0,
        min_score: float | None = None,
    ) -> None:
        self.report = report
        self.result = result
        self.verbose = verbose
        self.min_score = min_score
        super().__init__(self.headline())

    def __str__(self) -> str:
        return render_text(self.report, verbose=self.verbose, min_score=self.min_score)

    def headline(self) -> str:
        """The failure in one sentence (the first line pytest shows)."""
        return headline(self.report, min_score=self.min_score)

    def render(self, *, width: int = 100, markup: Markup | None = None) -> list[str]:
        """The explanation as lines, coloured by ``markup`` when given (the plugin's view)."""
        return render(
            self.report,
            verbose=self.verbose,
            width=width,
            markup=markup,
            min_score=self.min_score,
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # ``args`` holds only the headline, which ``__init__`` cannot be called with: without
        # this, copy.copy() and pickling (process pools, multiprocessing) fail with a TypeError.
        state = {"verbose": self.verbose, "min_score": self.min_score}
        return type(self), (self.report, self.result), state
