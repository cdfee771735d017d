"""How a failure of ours shows in pytest's report: a coloured diff in place of the plain one
when the terminal supports colour, and the diff of evaluations whose score was asserted."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from _pytest._code.code import ExceptionChainRepr, ReprEntry, TerminalRepr
from _pytest._io import TerminalWriter

from ..assertions.base import AgentTrajAssertionError

__all__ = ["MismatchRepr", "colour_mismatch"]

_STYLES: dict[str, dict[str, bool]] = {
    "bad": {"red": True},
    "good": {"green": True},
    "dim": {"cyan": True},
    "bold": {"bold": True},
}


class MismatchRepr(TerminalRepr):
    """The original failure (traceback without the plain diff) followed by the coloured diff."""

    def __init__(self, original: ExceptionChainRepr, mismatch: AgentTrajAssertionError) -> None:
        self.original = original
        self.mismatch = mismatch
        self.reprcrash = original.reprcrash  # junitxml reads the failure message from here

    def toterminal(self, tw: TerminalWriter) -> None:
        self.original.toterminal(tw)

        def markup(text: str, style: str) -> str:
            return tw.markup(text, **_STYLES.get(style, {})) if style in _STYLES else text

        for line in self.mismatch.render(width=tw.fullwidth, markup=markup):
            tw.line(line)


def colour_mismatch(report: pytest.TestReport, mismatch: AgentTrajAssertionError) -> None:
    """Swap the plain diff in ``report``'s traceback for a coloured one, if its shape allows."""
    longrepr = report.longrepr
    if not isinstance(longrepr, ExceptionChainRepr):
        return
    entries: Sequence[Any] = longrepr.reprtraceback.reprentries
    if not entries or not isinstance(entries[-1], ReprEntry):
        return
    last = entries[-1]
    kept = [line for line in last.lines if not line.startswith("E ")]
    kept.append(f"E   {type(mismatch).__name__}: {mismatch.headline()}")
    last.lines = kept
    report.longrepr = MismatchRepr(longrepr, mismatch)
