"""Tool-usage rules: which tools an agent must call, must not call, and how often. Pure.

``required`` names tools that must be called at least once, ``forbidden`` tools that must not be
called, ``max_calls`` a per-tool budget (``{"search": 3}``), ``max_total_calls`` a budget for all
calls and ``max_steps`` one for assistant turns (assistant messages). A violation names its rule
and the offending calls (or turns) with their message index.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from .matching.explain import call_text
from .matching.report import CallRef, call_refs
from .model import Trajectory

__all__ = ["UsageReport", "UsageRules", "UsageViolation", "check_usage", "make_usage_rules"]

RuleName = Literal["required", "forbidden", "max_calls", "max_total_calls", "max_steps"]

_LISTED = 5
"""Offending calls named in one violation's text; the rest are counted."""


@dataclass(frozen=True, slots=True)
class UsageRules:
    """A validated set of tool-usage rules (see the module docstring); build with
    ``make_usage_rules``."""

    required: tuple[str, ...] = ()
    forbidden: tuple[str, ...] = ()
    max_calls: tuple[tuple[str, int], ...] = ()
    """Per-tool budgets as ``(tool, most calls)`` pairs."""
    max_total_calls: int | None = None
    max_steps: int | None = None

    def __bool__(self) -> bool:
        return bool(
            self.required
            or self.forbidden
            or self.max_calls
            or self.max_total_calls is not None
            or self.max_steps is not None
        )

    def describe(self) -> str:
        """``required [search], max_calls {search: 3}``: the rules in force."""
        parts = []
        if self.required:
            parts.append(f"required [{', '.join(self.required)}]")
        if self.forbidden:
            parts.append(f"forbidden [{', '.join(self.forbidden)}]")
        if self.max_calls:
            budgets = ", ".join(f"{tool}: {n}" for tool, n in self.max_calls)
            parts.append(f"max_calls {{{budgets}}}")
        if self.max_total_calls is not None:
            parts.append(f"max_total_calls {self.max_total_calls}")
        if self.max_steps is not None:
            parts.append(f"max_steps {self.max_steps}")
        return ", ".join(parts) or "no rules"

    def as_json(self) -> dict[str, Any]:
        """The rules as builtins, for reports."""
        return {
            "required": list(self.required),
            "forbidden": list(self.forbidden),
            "max_calls": dict(self.max_calls),
            "max_total_calls": self.max_total_calls,
            "max_steps": self.max_steps,
        }


def _names(value: object, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, Iterable) or isinstance(value, Mapping):
        raise ValueError(f"invalid {where} {value!r}: must be a list of tool names")
    names = list(value)
    if not all(isinstance(name, str) and name for name in names):
        raise ValueError(f"invalid {where} {names!r}: tool names are non-empty strings")
    return tuple(dict.fromkeys(names))


def _count(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"invalid {where} {value!r}: must be a whole number >= 0")
    return value


def _budget(value: object, where: str) -> int | None:
    return None if value is None else _count(value, where)


def make_usage_rules(
    *,
    required: object = (),
    forbidden: object = (),
    max_calls: object = None,
    max_total_calls: object = None,
    max_steps: object = None,
) -> UsageRules:
    """Validated rules; a bad value raises ``ValueError`` saying which and why."""
    must = _names(required, "required")
    must_not = _names(forbidden, "forbidden")
    both = sorted(set(must) & set(must_not))
    if both:
        raise ValueError(f"tool(s) {', '.join(both)} are both required and forbidden")
    budgets: dict[str, int] = {}
    if max_calls is not None:
        if not isinstance(max_calls, Mapping):
            raise ValueError(
                f"invalid max_calls {max_calls!r}: must be a dict of tool name -> most calls, "
                "e.g. {'search': 3}"
            )
        for tool, count in max_calls.items():
            if not isinstance(tool, str) or not tool:
                raise ValueError(f"invalid max_calls key {tool!r}: must be a tool name")
            budgets[tool] = _count(count, f"max_calls[{tool!r}]")
    return UsageRules(
        must,
        must_not,
        tuple(budgets.items()),
        _budget(max_total_calls, "max_total_calls"),
        _budget(max_steps, "max_steps"),
    )


@dataclass(frozen=True, slots=True)
class UsageViolation:
    """One broken rule: its name, a sentence, and the offending calls or assistant turns."""

    rule: RuleName
    text: str
    calls: tuple[CallRef, ...] = ()
    messages: tuple[int, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "text": self.text,
            "calls": [
                {"message": c.message, "position": c.position, "name": c.call.name}
                for c in self.calls
            ],
            "messages": list(self.messages),
        }


@dataclass(frozen=True)
class UsageReport:
    """What ``check_usage`` found: the rules, the trajectory and each violation."""

    kind: ClassVar[str] = "usage"

    rules: UsageRules
    trajectory: Trajectory
    violations: tuple[UsageViolation, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.violations

    def comment(self) -> str | None:
        """One or two sentences on what broke; ``None`` when every rule holds."""
        if self.passed:
            return None
        first = self.violations[0]
        text = f"Tool usage breaks the rules ({first.rule}): {first.text}."
        more = len(self.violations) - 1
        if more:
            text += f" {more} more violation{'s' if more > 1 else ''} not shown."
        return text

    def problem_texts(self) -> list[str]:
        return [f"{violation.rule}: {violation.text}" for violation in self.violations]

    def settings(self) -> dict[str, Any]:
        return {"usage": self.rules.as_json()}


def _listing(calls: list[CallRef]) -> str:
    shown = ", ".join(f"message {c.message} {call_text(c.call, 60)}" for c in calls[:_LISTED])
    if len(calls) > _LISTED:
        shown += f", and {len(calls) - _LISTED} more"
    return shown


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"


def check_usage(trajectory: Trajectory, rules: UsageRules) -> UsageReport:
    """Check ``trajectory`` against ``rules``; violations come in the order of the rules."""
    calls = call_refs(trajectory)
    by_tool: dict[str, list[CallRef]] = {}
    for ref in calls:
        by_tool.setdefault(ref.call.name, []).append(ref)
    violations: list[UsageViolation] = []
    for tool in rules.required:
        if tool not in by_tool:
            called = ", ".join(Counter(r.call.name for r in calls)) or "no tool"
            violations.append(
                UsageViolation(
                    "required", f"tool {tool!r} was never called (the agent called {called})"
                )
            )
    for tool in rules.forbidden:
        made = by_tool.get(tool)
        if made:
            violations.append(
                UsageViolation(
                    "forbidden",
                    f"tool {tool!r} was called {_times(len(made))}: {_listing(made)}",
                    tuple(made),
                )
            )
    for tool, budget in rules.max_calls:
        made = by_tool.get(tool, [])
        if len(made) > budget:
            beyond = made[budget:]
            violations.append(
                UsageViolation(
                    "max_calls",
                    f"tool {tool!r} was called {_times(len(made))}, more than its budget of "
                    f"{budget}; beyond it: {_listing(beyond)}",
                    tuple(beyond),
                )
            )
    violations.extend(_total_violations(trajectory, calls, rules))
    return UsageReport(rules, trajectory, tuple(violations))


def _total_violations(
    trajectory: Trajectory, calls: list[CallRef], rules: UsageRules
) -> list[UsageViolation]:
    violations = []
    budget = rules.max_total_calls
    if budget is not None and len(calls) > budget:
        beyond = calls[budget:]
        violations.append(
            UsageViolation(
                "max_total_calls",
                f"{len(calls)} tool calls, more than max_total_calls={budget}; beyond it: "
                f"{_listing(beyond)}",
                tuple(beyond),
            )
        )
    steps = [i for i, message in enumerate(trajectory) if message.role == "assistant"]
    if rules.max_steps is not None and len(steps) > rules.max_steps:
        beyond_steps = steps[rules.max_steps :]
        shown = ", ".join(map(str, beyond_steps[:_LISTED]))
        if len(beyond_steps) > _LISTED:
            shown += f", and {len(beyond_steps) - _LISTED} more"
        violations.append(
            UsageViolation(
                "max_steps",
                f"{len(steps)} assistant turns, more than max_steps={rules.max_steps}; beyond "
                f"it: message{'s' if len(beyond_steps) > 1 else ''} {shown}",
                messages=tuple(beyond_steps),
            )
        )
    return violations
