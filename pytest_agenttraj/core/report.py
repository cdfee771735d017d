"""The one protocol every kind of result implements, so that the terminal diff, the JSON report,
JUnit properties, LangSmith feedback and baseline gating take any kind without asking which.

A report says what it is (``kind``, which also names its renderer in ``pytest_agenttraj.render``),
whether it passed, what did not match (a comment of a sentence or two, and each problem in one
line) and what decided its verdict (``settings``: builtins only, so that a baseline can tell
whether two results were judged alike). A new kind of result is a class with these five members
and a renderer module of the same name.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol

__all__ = ["Report"]


class Report(Protocol):
    """One result: a trajectory match, a graph path match, a graded score, a tool-usage check,
    an LLM judgement, a value comparison (and whatever kind comes next)."""

    kind: ClassVar[str]
    """What kind of result this is; ``pytest_agenttraj.render.<kind>`` draws it."""

    @property
    def passed(self) -> bool:
        """Whether the result passes on its own terms (a graded score: at 1.0; a test's
        ``min_score`` may ask less)."""
        ...

    def comment(self) -> str | None:
        """What did not match, in a sentence or two; ``None`` when nothing failed."""
        ...

    def problem_texts(self) -> list[str]:
        """Each problem in one line, most important first (empty when nothing failed)."""
        ...

    def settings(self) -> dict[str, Any]:
        """What decided the verdict (modes, rules, matchers in the reference, the judge's
        model and prompt ...), as builtins."""
        ...
