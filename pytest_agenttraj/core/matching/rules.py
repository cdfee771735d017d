"""Match modes and per-tool argument rules, validated when an evaluator is built.

A rule compares one tool's arguments: an args mode (exact, ignore, subset, superset), a list of
key paths, or a callable; mode rules may leave out some dotted key paths first ("exact except
these keys"). Reference values may hold matchers (``Regex`` ...), which every rule honours.
Graded tool-call accuracy has one more mode, ``ragas`` (its default): Ragas' argument rule.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from ..values import (
    MISSING,
    ArgDiff,
    canonical,
    diff_args,
    lookup_path,
    safe_repr,
    value_matches,
    without_paths,
)
from .modes import (
    TOOL_ARGS_MATCH_MODES,
    TRAJECTORY_MATCH_MODES,
    ToolArgsMatchMode,
    TrajectoryMatchMode,
)

__all__ = [
    "GRADED_ARGS_MODES",
    "TOOL_ARGS_MATCH_MODES",
    "TRAJECTORY_MATCH_MODES",
    "ArgsRule",
    "MatchConfig",
    "ToolArgsMatchMode",
    "ToolArgsMatchOverrides",
    "TrajectoryMatchMode",
    "check_key_paths",
    "make_config",
]

ArgsMatcher = Callable[[dict[str, Any], dict[str, Any]], "bool | tuple[bool, str]"]
"""A callable override: ``(output_args, reference_args)`` -> ``bool`` or ``(bool, reason)``."""
ToolArgsMatchOverrides = dict[
    str, ToolArgsMatchMode | list[str] | dict[str, list[str]] | ArgsMatcher
]

GRADED_ARGS_MODES: tuple[str, ...] = (*TOOL_ARGS_MATCH_MODES, "ragas")
"""The args modes of graded tool-call accuracy: the matching ones and ``ragas``, the rule of
Ragas' ``ToolCallAccuracy`` (the reference's keys must match, extra output keys are free, and a
reference call without arguments matches only a call without arguments)."""

RuleKind = Literal["exact", "ignore", "subset", "superset", "ragas", "keys", "callable"]


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

    ``ignored`` lists dotted key paths left out of both sides before a mode rule compares
    ("exact except these keys"). ``matches(output_args, reference_args)`` decides and ``explain``
    lists what differs under this rule. For exact, ignore and key-list rules, ``key`` gives a
    hashable key such that two calls match exactly when their keys are equal (while the
    reference's args hold no matcher), which lets the matcher pair calls by hashing.
    """

    kind: RuleKind
    keys: tuple[str, ...] = ()
    func: ArgsMatcher | None = None
    ignored: tuple[str, ...] = ()

    def describe(self) -> str:
        """The rule as written: ``exact``, ``keys [city, unit]``, ``callable my_matcher``,
        ``exact except [request_id]``."""
        if self.kind == "keys":
            return f"keys [{', '.join(self.keys)}]"
        if self.kind == "callable":
            return f"callable {getattr(self.func, '__name__', repr(self.func))}"
        if self.ignored:
            return f"{self.kind} except [{', '.join(self.ignored)}]"
        return self.kind

    @property
    def reflexive(self) -> bool:
        """Whether two calls with equal args always match (every mode; not key lists, which
        refuse a missing key, nor callables, which may refuse anything)."""
        return self.kind in ("exact", "ignore", "subset", "superset", "ragas")

    @property
    def hashable(self) -> bool:
        """Whether ``key`` decides matches (exact, ignore, key lists)."""
        return self.kind in ("exact", "ignore", "keys")

    def as_override(self) -> object:
        """The rule as ``make_config`` takes it in ``overrides`` (building a config again from it
        gives this rule back, given the same ``ignore_keys``)."""
        if self.kind == "keys":
            return list(self.keys)
        if self.kind == "callable":
            return self.func
        if self.kind == "exact" and self.ignored:
            return {"ignore_keys": list(self.ignored)}
        return self.kind

    def without_ignored(self) -> ArgsRule:
        """The same rule comparing whole args (for args already without the ignored paths)."""
        return ArgsRule(self.kind, self.keys, self.func)

    def compared(self, args: Mapping[str, Any]) -> Mapping[str, Any]:
        """``args`` as this rule sees them: without the ``ignored`` paths."""
        return without_paths(args, self.ignored) if self.ignored else args

    def key(self, args: Mapping[str, Any]) -> Hashable | None:
        """The hash key of one side's args, or ``None`` if this call can match nothing."""
        if self.kind == "exact":
            return canonical(self.compared(args))
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
        if kind == "callable":
            return self.verdict(output, reference)[0]
        if self.ignored:
            output, reference = self.compared(output), self.compared(reference)
        if kind == "exact":
            return value_matches(output, reference)
        if kind == "subset":
            return _within(output, reference)
        if kind == "superset":
            return _within(reference, output, reference_inside=True)
        if kind == "ragas":
            return (bool(reference) or not output) and _within(
                reference, output, reference_inside=True
            )
        for path in self.keys:  # a key list
            out, ref = lookup_path(output, path), lookup_path(reference, path)
            if out is MISSING or ref is MISSING or not value_matches(out, ref):
                return False
        return True

    def verdict(
        self, output: Mapping[str, Any], reference: Mapping[str, Any]
    ) -> tuple[bool, str | None]:
        """A callable's answer and its reason: it may return ``bool`` or ``(bool, reason)``."""
        assert self.func is not None
        answer = self.func(dict(output), dict(reference))
        if (
            isinstance(answer, tuple)
            and len(answer) == 2
            and isinstance(answer[1], str | type(None))
        ):
            return bool(answer[0]), answer[1]
        return bool(answer), None

    def reason(self, output: Mapping[str, Any], reference: Mapping[str, Any]) -> str | None:
        """Why a callable refused two calls' args, when it said (``None`` for other rules)."""
        if self.kind != "callable":
            return None
        matched, reason = self.verdict(output, reference)
        return None if matched else reason

    def explain(self, output: Mapping[str, Any], reference: Mapping[str, Any]) -> list[ArgDiff]:
        """What differs between two arg dicts, as far as this rule cares."""
        kind = self.kind
        if kind == "ignore":
            return []
        if self.ignored:
            output, reference = self.compared(output), self.compared(reference)
        if kind == "subset":
            return diff_args(output, reference, missing=False)
        if kind == "superset":
            return diff_args(output, reference, unexpected=False)
        if kind == "ragas":  # extra keys count only against a reference without arguments
            return diff_args(output, reference, unexpected=not reference)
        if kind == "keys":
            return _key_diffs(output, reference, self.keys)
        return diff_args(output, reference)


def _key_diffs(
    output: Mapping[str, Any], reference: Mapping[str, Any], paths: Iterable[str]
) -> list[ArgDiff]:
    diffs = []
    for path in paths:
        act, exp = lookup_path(output, path), lookup_path(reference, path)
        if act is MISSING and exp is MISSING:
            diffs.append(ArgDiff(path, "missing"))
        elif act is MISSING:
            diffs.append(ArgDiff(path, "missing", expected=exp))
        elif exp is MISSING:
            diffs.append(ArgDiff(path, "unexpected", actual=act))
        elif not value_matches(act, exp):
            diffs.append(ArgDiff(path, "changed", expected=exp, actual=act))
    return diffs


def _within(
    inner: Mapping[str, Any], outer: Mapping[str, Any], *, reference_inside: bool = False
) -> bool:
    """Every top-level key of ``inner`` is in ``outer`` with a matching value (the reference's
    value is the expected one: ``outer``'s, or ``inner``'s when ``reference_inside``)."""
    for key, value in inner.items():
        if key not in outer:
            return False
        other = outer[key]
        if other is value:
            continue
        if reference_inside:
            if not value_matches(other, value):
                return False
        elif not value_matches(value, other):
            return False
    return True


_MODE_RULES: dict[str, ArgsRule] = {m: ArgsRule(m) for m in GRADED_ARGS_MODES}  # type: ignore[arg-type]


@lru_cache(maxsize=256)
def mode_rule(mode: str, ignored: tuple[str, ...] = ()) -> ArgsRule:
    """The rule of an args mode, leaving out ``ignored`` paths (not for ``ignore``, which
    compares nothing anyway)."""
    if not ignored or mode == "ignore":
        return _MODE_RULES[mode]
    return ArgsRule(mode, ignored=ignored)  # type: ignore[arg-type]


def check_key_paths(value: object, *, where: str) -> tuple[str, ...]:
    """Dotted key paths: a list of non-empty strings (one string is one path)."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple) or not all(
        isinstance(k, str) and k.strip() and "" not in k.split(".") for k in value
    ):
        raise ValueError(
            f"invalid {where} {value!r}: must be a list of key names (dotted paths such as "
            "'meta.ts' reach into nested dicts)"
        )
    return tuple(dict.fromkeys(k.strip() for k in value))


def _rule_for_override(tool: object, value: object, ignored: tuple[str, ...]) -> ArgsRule:
    if not isinstance(tool, str):
        raise ValueError(
            f"tool_args_match_overrides keys must be tool names (str), got {safe_repr(tool, 60)}"
        )
    if isinstance(value, str):
        check_tool_args_mode(value, where=f"tool_args_match_overrides[{tool!r}]")
        return mode_rule(value, ignored)
    if isinstance(value, Mapping) and set(value) == {"ignore_keys"}:
        own = check_key_paths(
            value["ignore_keys"], where=f"tool_args_match_overrides[{tool!r}]['ignore_keys']"
        )
        return mode_rule("exact", tuple(dict.fromkeys((*ignored, *own))))
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
        f"{_choices(TOOL_ARGS_MATCH_MODES)}, a list of keys, or a callable (output_args, "
        "reference_args) -> bool | (bool, reason), or {'ignore_keys': [key paths]}"
    )


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """A validated combination of trajectory mode, args mode and per-tool overrides.

    ``ignore_keys`` are left out of every mode rule's comparison, for every tool.
    ``allow_empty=False`` refuses comparisons that would pass on nothing: a reference without
    messages (without tool calls where the mode compares only calls) and an output without
    messages against a reference that has some.
    """

    mode: str = "strict"
    tool_args: str = "exact"
    overrides: Mapping[str, ArgsRule] | None = None
    ignore_keys: tuple[str, ...] = ()
    allow_empty: bool = True

    def rule_for(self, tool: str) -> ArgsRule:
        """The args rule that applies to calls of ``tool``."""
        if self.overrides:
            rule = self.overrides.get(tool)
            if rule is not None:
                return rule
        return mode_rule(self.tool_args, self.ignore_keys)

    def rules(self) -> list[ArgsRule]:
        """Every rule in force: the default one and each override's."""
        return [mode_rule(self.tool_args, self.ignore_keys), *(self.overrides or {}).values()]

    @property
    def key(self) -> str:
        """The evaluator's feedback key, e.g. ``trajectory_strict_match``."""
        return f"trajectory_{self.mode}_match"


def make_config(
    mode: object = "strict",
    tool_args: object = "exact",
    overrides: Mapping[str, object] | None = None,
    *,
    ignore_keys: object = None,
    allow_empty: object = True,
) -> MatchConfig:
    """Validate every mode and override value, raising ``ValueError`` that lists the valid ones."""
    checked_mode = check_trajectory_mode(mode)
    checked_args = check_tool_args_mode(tool_args)
    ignored = () if ignore_keys is None else check_key_paths(ignore_keys, where="ignore_keys")
    if not isinstance(allow_empty, bool):
        raise ValueError(f"invalid allow_empty {allow_empty!r}: must be True or False")
    rules: dict[str, ArgsRule] | None = None
    if overrides is not None:
        if not isinstance(overrides, Mapping):
            raise ValueError(
                "tool_args_match_overrides must be a dict of tool name -> args mode, key list or "
                f"callable, got {type(overrides).__name__}"
            )
        rules = {
            tool: _rule_for_override(tool, value, ignored) for tool, value in overrides.items()
        }
    return MatchConfig(checked_mode, checked_args, rules or None, ignored, allow_empty)
