"""Match modes and per-tool argument rules, validated when an evaluator is built."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from ..values import MISSING, ArgDiff, canonical, diff_args, lookup_path, safe_repr

__all__ = [
    "TOOL_ARGS_MATCH_MODES",
    "TRAJECTORY_MATCH_MODES",
    "ArgsRule",
    "MatchConfig",
    "ToolArgsMatchMode",
    "ToolArgsMatchOverrides",
    "TrajectoryMatchMode",
    "make_config",
]

TrajectoryMatchMode = Literal["strict", "unordered", "subset", "superset"]
ToolArgsMatchMode = Literal["exact", "ignore", "subset", "superset"]
ToolArgsMatchOverrides = dict[
    str, ToolArgsMatchMode | list[str] | Callable[[dict[str, Any], dict[str, Any]], bool]
]

TRAJECTORY_MATCH_MODES: tuple[str, ...] = get_args(TrajectoryMatchMode)
TOOL_ARGS_MATCH_MODES: tuple[str, ...] = get_args(ToolArgsMatchMode)

RuleKind = Literal["exact", "ignore", "subset", "superset", "keys", "callable"]


def _choices(values: tuple[str, ...]) -> str:
    return ", ".join(repr(v) for v in values)


def check_trajectory_mode(mode: object, *, where: str = "trajectory_match_mode") -> str:
    """``mode`` if it is a trajectory match mode, else a ValueError listing the valid ones."""
    if not isinstance(mode, str) or mode not in TRAJECTORY_MATCH_MODES:
        raise ValueError(
            f"invalid {where} {safe_repr(mode, 60)}: must be one of "
            f"{_choices(TRAJECTORY_MATCH_MODES)}"
        )
    return mode


def check_tool_args_mode(mode: object, *, where: str = "tool_args_match_mode") -> str:
    """``mode`` if it is a tool-args match mode, else a ValueError listing the valid ones."""
    if not isinstance(mode, str) or mode not in TOOL_ARGS_MATCH_MODES:
        raise ValueError(
            f"invalid {where} {safe_repr(mode, 60)}: must be one of "
            f"{_choices(TOOL_ARGS_MATCH_MODES)}"
        )
    return mode


@dataclass(frozen=True, slots=True)
class ArgsRule:
    """How one tool's arguments are compared: a mode, a list of key paths, or a callable.

    ``matches(output_args, reference_args)`` decides and ``explain`` lists what differs under this
    rule. For exact, ignore and key-list rules, ``key`` gives a hashable key such that two calls
    match exactly when their keys are equal, which lets the matcher pair calls by hashing.
    """

    kind: RuleKind
    keys: tuple[str, ...] = ()
    func: Callable[[dict[str, Any], dict[str, Any]], bool] | None = None

    def describe(self) -> str:
        """The rule as written: ``exact``, ``keys [city, unit]``, ``callable my_matcher``."""
        if self.kind == "keys":
            return f"keys [{', '.join(self.keys)}]"
        if self.kind == "callable":
            return f"callable {getattr(self.func, '__name__', repr(self.func))}"
        return self.kind

    @property
    def reflexive(self) -> bool:
        """Whether two calls with equal args always match (every mode; not key lists, which
        refuse a missing key, nor callables, which may refuse anything)."""
        return self.kind in ("exact", "ignore", "subset", "superset")

    @property
    def hashable(self) -> bool:
        """Whether ``key`` decides matches (exact, ignore, key lists)."""
        return self.kind in ("exact", "ignore", "keys")

    def key(self, args: Mapping[str, Any]) -> Hashable | None:
        """The hash key of one side's args, or ``None`` if this call can match nothing."""
        if self.kind == "exact":
            return canonical(args)
        if self.kind == "ignore":
            return ()
        if self.kind == "keys":
            values = tuple(lookup_path(args, k) for k in self.keys)
            if any(v is MISSING for v in values):
                return None
            return tuple(canonical(v) for v in values)
        raise TypeError(f"rule {self.describe()} has no hash key")

    def matches(self, output: Mapping[str, Any], reference: Mapping[str, Any]) -> bool:
        """Whether an output call's args match a reference call's under this rule."""
        kind = self.kind
        if kind == "ignore":
            return True
        if kind == "exact":
            return canonical(output) == canonical(reference)
        if kind == "subset":
            return _contains(reference, output)
        if kind == "superset":
            return _contains(output, reference)
        if kind == "keys":
            out_key = self.key(output)
            return out_key is not None and out_key == self.key(reference)
        assert self.func is not None
        return bool(self.func(dict(output), dict(reference)))

    def explain(self, output: Mapping[str, Any], reference: Mapping[str, Any]) -> list[ArgDiff]:
        """What differs between two arg dicts, as far as this rule cares."""
        kind = self.kind
        if kind == "ignore":
            return []
        if kind == "subset":
            return diff_args(output, reference, missing=False)
        if kind == "superset":
            return diff_args(output, reference, unexpected=False)
        if kind == "keys":
            diffs = []
            for path in self.keys:
                act, exp = lookup_path(output, path), lookup_path(reference, path)
                if act is MISSING and exp is MISSING:
                    diffs.append(ArgDiff(path, "missing"))
                elif act is MISSING:
                    diffs.append(ArgDiff(path, "missing", expected=exp))
                elif exp is MISSING:
                    diffs.append(ArgDiff(path, "unexpected", actual=act))
                elif canonical(act) != canonical(exp):
                    diffs.append(ArgDiff(path, "changed", expected=exp, actual=act))
            return diffs
        return diff_args(output, reference)


def _contains(big: Mapping[str, Any], small: Mapping[str, Any]) -> bool:
    """Every top-level key of ``small`` is in ``big`` with a JSON-equal value."""
    for key, value in small.items():
        if key not in big:
            return False
        other = big[key]
        if other is not value and canonical(other) != canonical(value):
            return False
    return True


_MODE_RULES: dict[str, ArgsRule] = {m: ArgsRule(m) for m in TOOL_ARGS_MATCH_MODES}  # type: ignore[arg-type]


def _rule_for_override(tool: object, value: object) -> ArgsRule:
    if not isinstance(tool, str):
        raise ValueError(
            f"tool_args_match_overrides keys must be tool names (str), got {safe_repr(tool, 60)}"
        )
    if isinstance(value, str):
        check_tool_args_mode(value, where=f"tool_args_match_overrides[{tool!r}]")
        return _MODE_RULES[value]
    if isinstance(value, list | tuple):
        if not value or not all(isinstance(k, str) and k for k in value):
            raise ValueError(
                f"invalid tool_args_match_overrides[{tool!r}] {safe_repr(value, 60)}: a key list "
                "must be a non-empty list of key names (dotted paths reach into nested dicts)"
            )
        return ArgsRule("keys", keys=tuple(value))
    if callable(value):
        return ArgsRule("callable", func=value)
    raise ValueError(
        f"invalid tool_args_match_overrides[{tool!r}] {safe_repr(value, 60)}: must be one of "
        f"{_choices(TOOL_ARGS_MATCH_MODES)}, a list of keys, or a callable "
        "(output_args, reference_args) -> bool"
    )


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """A validated combination of trajectory mode, args mode and per-tool overrides."""

    mode: str = "strict"
    tool_args: str = "exact"
    overrides: Mapping[str, ArgsRule] | None = None

    def rule_for(self, tool: str) -> ArgsRule:
        """The args rule that applies to calls of ``tool``."""
        if self.overrides:
            rule = self.overrides.get(tool)
            if rule is not None:
                return rule
        return _MODE_RULES[self.tool_args]

    def rules(self) -> list[ArgsRule]:
        """Every rule in force: the default one and each override's."""
        return [_MODE_RULES[self.tool_args], *(self.overrides or {}).values()]

    @property
    def key(self) -> str:
        """The evaluator's feedback key, e.g. ``trajectory_strict_match``."""
        return f"trajectory_{self.mode}_match"


def make_config(
    mode: object = "strict",
    tool_args: object = "exact",
    overrides: Mapping[str, object] | None = None,
) -> MatchConfig:
    """Validate every mode and override value, raising ``ValueError`` that lists the valid ones."""
    checked_mode = check_trajectory_mode(mode)
    checked_args = check_tool_args_mode(tool_args)
    rules: dict[str, ArgsRule] | None = None
    if overrides is not None:
        if not isinstance(overrides, Mapping):
            raise ValueError(
                "tool_args_match_overrides must be a dict of tool name -> args mode, key list or "
                f"callable, got {type(overrides).__name__}"
            )
        rules = {tool: _rule_for_override(tool, value) for tool, value in overrides.items()}
    return MatchConfig(checked_mode, checked_args, rules or None)
