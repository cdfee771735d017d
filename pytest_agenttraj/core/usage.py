"""Tool-usage rules: which tools an agent must call, must not call, and how often. Pure.

``required`` names tools that must be called at least once, ``forbidden`` tools that must not be
called, ``max_calls`` a per-tool budget (``{"search": 3}``), ``max_total_calls`` a budget for all
calls and ``max_steps`` one for assistant turns (assistant messages). A violation names its rule
and the offending calls (or turns) with their message index.

Run budgets read what the run cost (:mod:`.run_facts`): ``max_total_tokens`` and per-model
``max_tokens`` (from ``usage_metadata``), ``max_cost`` (from the user's ``prices``, per model, in
currency per million input and output tokens; none are built in), ``max_tool_errors`` (tool
messages with ``status="error"``, or what ``tool_error`` calls one) and ``max_duration_s``. A
budget that cannot be evaluated (an assistant message without usage metadata, a model without a
price, no recorded duration) raises ``BudgetError``: it is never a pass.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeVar

from ..errors import BudgetError
from .matching.explain import call_text
from .matching.report import CallRef, call_refs
from .model import Trajectory
from .run_facts import RunFacts

__all__ = ["UsageReport", "UsageRules", "UsageViolation", "check_usage", "make_usage_rules"]

_Budget = TypeVar("_Budget", int, float)

RuleName = Literal[
    "required",
    "forbidden",
    "max_calls",
    "max_total_calls",
    "max_steps",
    "max_total_tokens",
    "max_tokens",
    "max_cost",
    "max_tool_errors",
    "max_duration_s",
    "max_tool_duration_s",
]

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
    max_total_tokens: int | None = None
    max_tokens: tuple[tuple[str, int], ...] = ()
    """Per-model token budgets as ``(model, most tokens)`` pairs."""
    max_cost: float | None = None
    prices: tuple[tuple[str, float, float], ...] = ()
    """``(model, input price, output price)`` per million tokens."""
    max_tool_errors: int | None = None
    max_duration_s: float | None = None
    max_tool_duration_s: tuple[tuple[str, float], ...] = ()
    """Per-tool latency budgets as ``(tool, most seconds per call)`` pairs."""
    tool_error: Callable[[Any], bool] | None = None

    def __bool__(self) -> bool:
        return bool(
            self.required
            or self.forbidden
            or self.max_calls
            or self.max_total_calls is not None
            or self.max_steps is not None
            or self.budgets
        )

    @property
    def budgets(self) -> bool:
        """Whether any run budget is set (those read the run's facts)."""
        return bool(
            self.max_total_tokens is not None
            or self.max_tokens
            or self.max_cost is not None
            or self.max_tool_errors is not None
            or self.max_duration_s is not None
            or bool(self.max_tool_duration_s)
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
        for name, value in self._budget_items():
            parts.append(f"{name} {value}")
        return ", ".join(parts) or "no rules"

    def _budget_items(self) -> list[tuple[str, Any]]:
        items: list[tuple[str, Any]] = [
            ("max_total_tokens", self.max_total_tokens),
            ("max_tokens", dict(self.max_tokens) or None),
            ("max_cost", self.max_cost),
            ("max_tool_errors", self.max_tool_errors),
            ("max_duration_s", self.max_duration_s),
            ("max_tool_duration_s", dict(self.max_tool_duration_s) or None),
        ]
        return [(name, value) for name, value in items if value is not None]

    def as_json(self) -> dict[str, Any]:
        """The rules as builtins, for reports."""
        return {
            "required": list(self.required),
            "forbidden": list(self.forbidden),
            "max_calls": dict(self.max_calls),
            "max_total_calls": self.max_total_calls,
            "max_steps": self.max_steps,
            **dict(self._budget_items()),
            **({"prices": {m: [i, o] for m, i, o in self.prices}} if self.prices else {}),
            **({"tool_error": "callable"} if self.tool_error is not None else {}),
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
    max_total_tokens: object = None,
    max_tokens: object = None,
    max_cost: object = None,
    prices: object = None,
    max_tool_errors: object = None,
    max_duration_s: object = None,
    max_tool_duration_s: object = None,
    tool_error: object = None,
) -> UsageRules:
    """Validated rules; a bad value raises ``ValueError`` saying which and why."""
    budgets = _budgets(
        max_total_tokens, max_tokens, max_cost, prices, max_tool_errors, max_duration_s, tool_error
    )
    budgets["max_tool_duration_s"] = _per_tool(
        max_tool_duration_s,
        "max_tool_duration_s",
        "most seconds per call, e.g. {'search': 2.0}",
        lambda seconds, where: float(_amount(seconds, where) or 0.0),
    )
    must = _names(required, "required")
    must_not = _names(forbidden, "forbidden")
    both = sorted(set(must) & set(must_not))
    if both:
        raise ValueError(f"tool(s) {', '.join(both)} are both required and forbidden")
    return UsageRules(
        must,
        must_not,
        _per_tool(max_calls, "max_calls", "most calls, e.g. {'search': 3}", _count),
        _budget(max_total_calls, "max_total_calls"),
        _budget(max_steps, "max_steps"),
        **budgets,
    )


def _amount(value: object, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise ValueError(f"invalid {where} {value!r}: must be a number >= 0")
    return float(value)


def _per_model(value: object, where: str) -> tuple[tuple[str, int], ...]:
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise ValueError(f"invalid {where} {value!r}: must be a dict of model name -> tokens")
    return tuple((str(model), _count(n, f"{where}[{model!r}]")) for model, n in value.items())


def _per_tool(
    value: object, where: str, what: str, convert: Callable[[object, str], _Budget]
) -> tuple[tuple[str, _Budget], ...]:
    """A ``{tool name: budget}`` dict as pairs, each budget checked by ``convert``; ``what``
    says what a budget is in the error for a value that is not such a dict."""
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise ValueError(f"invalid {where} {value!r}: must be a dict of tool name -> {what}")
    out = []
    for tool, budget in value.items():
        if not isinstance(tool, str) or not tool:
            raise ValueError(f"invalid {where} key {tool!r}: must be a tool name")
        out.append((tool, convert(budget, f"{where}[{tool!r}]")))
    return tuple(out)


def _prices(value: object) -> tuple[tuple[str, float, float], ...]:
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise ValueError(
            f"invalid prices {value!r}: must be a dict of model name -> (input per million, "
            "output per million)"
        )
    out = []
    for model, pair in value.items():
        where = f"prices[{model!r}]"
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            raise ValueError(f"invalid {where} {pair!r}: must be (input per million, output)")
        low, high = (_amount(p, where) for p in pair)
        out.append((str(model), float(low or 0.0), float(high or 0.0)))
    return tuple(out)


def _budgets(
    max_total_tokens: object,
    max_tokens: object,
    max_cost: object,
    prices: object,
    max_tool_errors: object,
    max_duration_s: object,
    tool_error: object,
) -> dict[str, Any]:
    if tool_error is not None and not callable(tool_error):
        raise ValueError(f"invalid tool_error {tool_error!r}: must be a function of a message")
    priced = _prices(prices)
    cost = _amount(max_cost, "max_cost")
    if cost is not None and not priced:
        raise ValueError("max_cost needs prices={model: (input per million, output per million)}")
    return {
        "max_total_tokens": _budget(max_total_tokens, "max_total_tokens"),
        "max_tokens": _per_model(max_tokens, "max_tokens"),
        "max_cost": cost,
        "prices": priced,
        "max_tool_errors": _budget(max_tool_errors, "max_tool_errors"),
        "max_duration_s": _amount(max_duration_s, "max_duration_s"),
        "tool_error": tool_error,
    }


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


def check_usage(
    trajectory: Trajectory, rules: UsageRules, facts: RunFacts | None = None
) -> UsageReport:
    """Check ``trajectory`` against ``rules``; violations come in the order of the rules. Run
    budgets read ``facts`` (``BudgetError`` when they are needed and missing)."""
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
    if rules.budgets:
        if facts is None:
            raise BudgetError("run budgets need the run's raw messages; none were given")
        violations.extend(_budget_violations(rules, facts))
    return UsageReport(rules, trajectory, tuple(violations))


def _tokens(facts: RunFacts) -> list[tuple[int, str | None, int, int, int]]:
    """(index, model, input, output, total) per assistant message; ``BudgetError`` for one
    without usage metadata."""
    out = []
    for usage in facts.usage:
        if usage.input_tokens is None or usage.output_tokens is None:
            raise BudgetError(
                f"message {usage.index}: an assistant message without usage_metadata "
                "(input_tokens, output_tokens), so a token or cost budget cannot be evaluated"
            )
        total = usage.total_tokens
        if total is None:
            total = usage.input_tokens + usage.output_tokens
        out.append((usage.index, usage.model, usage.input_tokens, usage.output_tokens, total))
    return out


def _cost(rules: UsageRules, tokens: list[tuple[int, str | None, int, int, int]]) -> float:
    prices = {model: (low, high) for model, low, high in rules.prices}
    cost = 0.0
    for index, model, given, made, _ in tokens:
        if model not in prices:
            raise BudgetError(
                f"message {index}: no price for model {model!r} in prices "
                f"(priced: {', '.join(sorted(prices))}), so max_cost cannot be evaluated"
            )
        low, high = prices[model]
        cost += (given * low + made * high) / 1_000_000
    return cost


def _budget_violations(rules: UsageRules, facts: RunFacts) -> list[UsageViolation]:
    out = []
    if rules.max_total_tokens is not None or rules.max_tokens or rules.max_cost is not None:
        out.extend(_token_violations(rules, _tokens(facts)))
    if rules.max_tool_errors is not None and len(facts.tool_errors) > rules.max_tool_errors:
        shown = ", ".join(map(str, facts.tool_errors[:_LISTED]))
        out.append(
            UsageViolation(
                "max_tool_errors",
                f"{len(facts.tool_errors)} tool errors, more than "
                f"max_tool_errors={rules.max_tool_errors}: messages {shown}",
                messages=facts.tool_errors,
            )
        )
    out.extend(_tool_duration_violations(rules, facts))
    if rules.max_duration_s is not None:
        if facts.duration_s is None:
            raise BudgetError(
                "no recorded duration (duration_s: a state dict's, or a traced run's from "
                "trajectory_from_spans, trajectory_from_run_tree or captured_trace), so "
                "max_duration_s cannot be evaluated"
            )
        if facts.duration_s > rules.max_duration_s:
            out.append(
                UsageViolation(
                    "max_duration_s",
                    f"the run took {facts.duration_s:.3g} s, more than "
                    f"max_duration_s={rules.max_duration_s:g}",
                )
            )
    return out


def _tool_duration_violations(rules: UsageRules, facts: RunFacts) -> list[UsageViolation]:
    """Each tool's calls slower than its budget; ``BudgetError`` for a call of a budgeted tool
    whose result has no ``duration`` (only traced runs time their tools)."""
    out = []
    for tool, budget in rules.max_tool_duration_s:
        slow = []
        for index, name, seconds in facts.tool_durations:
            if name != tool:
                continue
            if seconds is None:
                raise BudgetError(
                    f"message {index}: the result of tool {tool!r} has no duration (traced "
                    "runs give each tool message one), so max_tool_duration_s cannot be evaluated"
                )
            if seconds > budget:
                slow.append((index, seconds))
        if slow:
            shown = ", ".join(f"message {i} took {s:.3g} s" for i, s in slow[:_LISTED])
            more = f" and {len(slow) - _LISTED} more" if len(slow) > _LISTED else ""
            out.append(
                UsageViolation(
                    "max_tool_duration_s",
                    f"tool {tool!r} was slower than max_tool_duration_s={budget:g} per call: "
                    f"{shown}{more}",
                    messages=tuple(i for i, _ in slow),
                )
            )
    return out


def _token_violations(
    rules: UsageRules, tokens: list[tuple[int, str | None, int, int, int]]
) -> list[UsageViolation]:
    out = []
    total = sum(t[4] for t in tokens)
    if rules.max_total_tokens is not None and total > rules.max_total_tokens:
        out.append(
            UsageViolation(
                "max_total_tokens",
                f"{total} tokens over {len(tokens)} model calls, more than "
                f"max_total_tokens={rules.max_total_tokens}",
                messages=tuple(t[0] for t in tokens),
            )
        )
    for model, budget in rules.max_tokens:
        used = [t for t in tokens if t[1] == model]
        spent = sum(t[4] for t in used)
        if spent > budget:
            out.append(
                UsageViolation(
                    "max_tokens",
                    f"model {model!r} used {spent} tokens, more than its budget of {budget}",
                    messages=tuple(t[0] for t in used),
                )
            )
    if rules.max_cost is not None:
        cost = _cost(rules, tokens)
        if cost > rules.max_cost + 1e-12:
            out.append(
                UsageViolation(
                    "max_cost",
                    f"the run cost {cost:.6g}, more than max_cost={rules.max_cost:g}",
                )
            )
    return out


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
