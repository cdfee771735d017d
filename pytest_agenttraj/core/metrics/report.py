"""What a graded metric found: its score and, call by call, what lost points. Each report owns
its one-sentence ``comment`` and its ``metadata`` (builtins only, for result dicts and reports)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from ..matching.explain import EXPLAINED, call_text
from ..matching.rules import MatchConfig
from .calls import GradedCall

__all__ = [
    "AccuracyReport",
    "CallScore",
    "F1Report",
    "GradedReport",
    "Rules",
    "Unpaired",
    "call_label",
]

CallStatus = Literal["matched", "args_differ", "missing"]


def call_label(call: GradedCall, side: str) -> str:
    """``output call 2 (message 3) get_weather(...)``: where a call stands, and what it is."""
    where = f"{side} call {call.position}"
    if call.message is not None:
        where += f" (message {call.message})"
    return f"{where} {call_text(call.call)}"


def _where(call: GradedCall) -> dict[str, Any]:
    return {"position": call.position, "message": call.message, "name": call.call.name}


@dataclass(frozen=True, slots=True)
class CallScore:
    """One reference call: the output call paired with it (``None``: missing), the share of its
    arguments that match, and the argument keys that cost points."""

    reference: GradedCall
    output: GradedCall | None
    score: float
    differing: tuple[str, ...] = ()

    @property
    def status(self) -> CallStatus:
        if self.output is None:
            return "missing"
        return "matched" if self.score >= 1.0 else "args_differ"

    def as_json(self) -> dict[str, Any]:
        return {
            "reference": _where(self.reference),
            "output": _where(self.output) if self.output is not None else None,
            "status": self.status,
            "arg_accuracy": self.score,
            "differing_args": list(self.differing),
        }

    def reason(self) -> str:
        head = f"reference call {self.reference.position} {self.reference.call.name!r}"
        if self.output is None:
            return f"{head} has no output call"
        keys = ", ".join(self.differing) or "rejected by the args rule"
        return f"{head}: args differ ({keys}), scoring {self.score:.2f}"


@dataclass(frozen=True, slots=True)
class Rules:
    """How tool-call accuracy aligned and paired the calls: Ragas' rules unless
    ``allow_extra_calls`` (the reference's calls need only appear in the output) or
    ``best_pairing`` (in any order, pair for the most argument accuracy)."""

    strict_order: bool = True
    allow_extra_calls: bool = False
    best_pairing: bool = False

    def describe(self) -> str:
        """``strict order``, ``any order, extra calls allowed``, ..."""
        parts = ["strict order" if self.strict_order else "any order"]
        if self.allow_extra_calls:
            parts.append("extra calls allowed")
        elif self.best_pairing and not self.strict_order:
            parts.append("best pairing")
        return ", ".join(parts)


@dataclass(frozen=True)
class AccuracyReport:
    """Tool-call accuracy: per reference call the paired output call and its argument accuracy;
    the score is their mean when the call sequences align, else 0."""

    config: MatchConfig
    rules: Rules
    calls: tuple[CallScore, ...]
    extra: tuple[GradedCall, ...]
    aligned: bool
    problem: str | None
    output_count: int

    key = "tool_call_accuracy"
    kind: ClassVar[str] = "accuracy"

    @property
    def arg_accuracy(self) -> float:
        """The mean argument accuracy over the reference calls (missing calls score 0)."""
        if not self.calls:
            return 1.0
        return sum(c.score for c in self.calls) / len(self.calls)

    @property
    def score(self) -> float:
        if not self.calls:
            return 1.0 if self.output_count == 0 else 0.0
        return self.arg_accuracy if self.aligned else 0.0

    @property
    def strict_order(self) -> bool:
        return self.rules.strict_order

    @property
    def order(self) -> str:
        """The alignment rules in words: ``strict order``, ``any order, extra calls allowed``."""
        return self.rules.describe()

    @property
    def mode(self) -> str:
        """The alignment rules as a record names them: ``strict_order``, ``any_order``, with
        the package's more forgiving rules after a comma (they decide the score too)."""
        mode = "strict_order" if self.rules.strict_order else "any_order"
        if self.rules.allow_extra_calls:
            mode += ", allow_extra_calls"
        elif self.rules.best_pairing and not self.rules.strict_order:
            mode += ", best_pairing"
        return mode

    @property
    def passed(self) -> bool:
        return self.score >= 1.0

    def problem_texts(self) -> list[str]:
        return self.reasons()

    def settings(self) -> dict[str, Any]:
        return _graded_settings(self.mode, self.config, [c.reference for c in self.calls])

    def reasons(self) -> list[str]:
        """What lost points, most important first: the alignment, then each call."""
        found = [self.problem] if self.problem else []
        found.extend(c.reason() for c in self.calls if c.status != "matched")
        return found

    def comment(self) -> str | None:
        if self.score >= 1.0:
            return None
        return _comment(
            f"Tool-call accuracy {self.score:.2f} ({self.order}, {self.config.tool_args} args)",
            self.reasons(),
        )

    def metadata(self) -> dict[str, Any]:
        return {
            "strict_order": self.strict_order,
            "allow_extra_calls": self.rules.allow_extra_calls,
            "best_pairing": self.rules.best_pairing,
            "tool_args": self.config.tool_args,
            "aligned": self.aligned,
            "alignment_problem": self.problem,
            "arg_accuracy": self.arg_accuracy,
            "calls": [c.as_json() for c in self.calls],
            "extra_calls": [_where(c) for c in self.extra],
        }


@dataclass(frozen=True, slots=True)
class Unpaired:
    """A call without a partner (an extra output call or a missing reference call), with the
    closest same-named call on the other side and the argument keys where they differ.
    ``compared`` is false past the first unpaired calls explained in full: the call then
    stands beside the first same-named one, arguments not compared."""

    call: GradedCall
    closest: GradedCall | None
    differing: tuple[str, ...] = ()
    closest_paired: bool = False
    compared: bool = True

    def as_json(self) -> dict[str, Any]:
        return {
            **_where(self.call),
            "args": dict(self.call.call.args),
            "closest": _where(self.closest) if self.closest is not None else None,
            "differing_args": list(self.differing),
            "compared": self.compared,
        }


@dataclass(frozen=True)
class F1Report:
    """Tool-call F1: calls paired one-to-one (name and args matching under the rules) as true
    positives, unpaired output calls as false positives, unpaired reference calls as false
    negatives."""

    config: MatchConfig
    matched: tuple[tuple[GradedCall, GradedCall], ...]
    missing: tuple[Unpaired, ...]
    extra: tuple[Unpaired, ...]

    key = "tool_call_f1"
    kind: ClassVar[str] = "f1"
    mode = "unordered"

    @property
    def passed(self) -> bool:
        return self.score >= 1.0

    def problem_texts(self) -> list[str]:
        return self.reasons()

    def settings(self) -> dict[str, Any]:
        references = [r for _, r in self.matched] + [lone.call for lone in self.missing]
        return _graded_settings(self.mode, self.config, references)

    @property
    def precision(self) -> float:
        made = len(self.matched) + len(self.extra)
        if made == 0:
            return 1.0 if not self.missing else 0.0
        return len(self.matched) / made

    @property
    def recall(self) -> float:
        expected = len(self.matched) + len(self.missing)
        if expected == 0:
            return 1.0 if not self.extra else 0.0
        return len(self.matched) / expected

    @property
    def score(self) -> float:
        """F1 rounded to four decimal places, as Ragas gives it (precision and recall are
        not rounded)."""
        p, r = self.precision, self.recall
        return round(2 * p * r / (p + r), 4) if p + r > 0 else 0.0

    def reasons(self) -> list[str]:
        found = []
        for lone in self.missing:
            note = _closest_note(lone, "output")
            found.append(f"missing {call_label(lone.call, 'reference')}{note}")
        for lone in self.extra:
            note = _closest_note(lone, "reference")
            found.append(f"extra {call_label(lone.call, 'output')}{note}")
        return found

    def comment(self) -> str | None:
        if self.score >= 1.0:
            return None
        head = (
            f"Tool-call F1 {self.score:.2f} (precision {self.precision:.2f}, recall "
            f"{self.recall:.2f}, {self.config.tool_args} args)"
        )
        return _comment(head, self.reasons())

    def metadata(self) -> dict[str, Any]:
        return {
            "tool_args": self.config.tool_args,
            "precision": self.precision,
            "recall": self.recall,
            "true_positives": len(self.matched),
            "false_positives": len(self.extra),
            "false_negatives": len(self.missing),
            "matched": [{"output": _where(o), "reference": _where(r)} for o, r in self.matched],
            "missing": [lone.as_json() for lone in self.missing],
            "extra": [lone.as_json() for lone in self.extra],
        }


GradedReport = AccuracyReport | F1Report


def _graded_settings(
    mode: str, config: MatchConfig, references: list[GradedCall]
) -> dict[str, Any]:
    from ..judged import config_settings, matcher_texts

    out = {"mode": mode, **config_settings(config)}
    matchers = matcher_texts(call.call for call in references)
    if matchers:
        out["matchers"] = matchers
    return out


def _closest_note(lone: Unpaired, other: str) -> str:
    if lone.closest is None:
        return f" (the {other} has no call to {lone.call.call.name!r})"
    taken = ", already paired" if lone.closest_paired else ""
    if not lone.compared:
        return (
            f" (beside {other} call {lone.closest.position}{taken}: not compared in detail, "
            f"the first {EXPLAINED} unpaired calls are)"
        )
    keys = ", ".join(lone.differing) or "rejected by the args rule"
    return f" (closest {other} call {lone.closest.position}{taken}: args differ in {keys})"


def _comment(head: str, reasons: list[str]) -> str:
    text = f"{head}: {'; '.join(reasons[:2])}." if reasons else f"{head}."
    more = len(reasons) - 2
    if more > 0:
        text += f" {more} more not shown."
    return text
