"""Graded metrics over tool calls: how close an agent came, as a score in [0, 1] with what lost
points. Pure, like the rest of the core: tool-call accuracy (:mod:`.accuracy`) and tool-call F1
(:mod:`.f1`), argument accuracy under the args rules (:mod:`.args`), a maximum-weight assignment
(:mod:`.weighted_assignment`), and the reports (:mod:`.report`)."""

from __future__ import annotations

from .accuracy import tool_call_accuracy
from .calls import GradedCall, read_calls
from .f1 import tool_call_f1
from .report import AccuracyReport, CallScore, F1Report, GradedReport, Rules, Unpaired

__all__ = [
    "AccuracyReport",
    "CallScore",
    "F1Report",
    "GradedCall",
    "GradedReport",
    "Rules",
    "Unpaired",
    "read_calls",
    "tool_call_accuracy",
    "tool_call_f1",
]
