"""Resolve the trajectory settings of a session and of each test.

Precedence: marker > command line > ini > default. Every value is validated once; a bad one is a
``pytest.UsageError`` that says where it came from (the option, the ini key, or the test id).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import FrozenInstanceError
from typing import TYPE_CHECKING, Any

import pytest

from .pass_rules import PassRule, parse_pass_rule
from .simulation import SIMULATION_MARKER_HELP

if TYPE_CHECKING:
    from ..core.matching.rules import MatchConfig
    from ..core.usage import UsageRules

__all__ = [
    "CASSETTE_MARKER_HELP",
    "CONFIDENCE_INI",
    "MARKERS",
    "MARKER_ARGS",
    "MARKER_HELP",
    "SUMMARY_INI",
    "USAGE_ARGS",
    "TrajectorySettings",
    "item_settings",
    "session_settings",
    "summary_setting",
]

SUMMARY_INI = "trajectory_summary"
CONFIDENCE_INI = "trajectory_confidence"

USAGE_ARGS = (
    "required",
    "forbidden",
    "max_calls",
    "max_total_calls",
    "max_steps",
    "max_total_tokens",
    "max_tokens",
    "max_cost",
    "prices",
    "max_tool_errors",
    "max_duration_s",
    "max_tool_duration_s",
    "tool_error",
)
"""Marker arguments that set tool-usage rules, checked on every trajectory the test evaluates."""
MARKER_ARGS = (
    "mode",
    "tool_args",
    "overrides",
    "reference",
    "repeat",
    "pass_rule",
    "min_score",
    "ignore_keys",
    "allow_empty",
    *USAGE_ARGS,
)
MARKER_HELP = (
    "trajectory(mode=None, tool_args=None, overrides=None, reference=None, repeat=1, "
    "pass_rule='all', min_score=None, ignore_keys=None, allow_empty=False, required=(), "
    "forbidden=(), max_calls=None, max_total_calls=None, max_steps=None, max_total_tokens=None, "
    "max_tokens=None, max_cost=None, prices=None, max_tool_errors=None, max_duration_s=None, "
    "max_tool_duration_s=None, "
    "tool_error=None): trajectory match "
    "settings for this test, class or module (mode: strict|unordered|subset|superset|in_order; "
    "tool_args: exact|ignore|subset|superset; overrides: {tool name: args mode | key list | "
    "{'ignore_keys': [...]} | callable}; reference: a file in the test's trajectories/ folder; "
    "repeat: run the test N times, judged by pass_rule: all|majority|any|rate:0.8|min:3|"
    "lower:0.8 (the Wilson lower bound of the pass rate)|pass^3:0.5 (the pass^3 estimate); "
    "min_score: the score 0..1 a graded result needs to pass; ignore_keys: dotted key paths "
    "left out of every tool's args; allow_empty: accept an empty reference or output; "
    "required, forbidden, max_calls, max_total_calls, max_steps and the run budgets "
    "max_total_tokens, max_tokens, max_cost with prices, max_tool_errors with tool_error, "
    "max_duration_s, max_tool_duration_s: tool-usage rules checked on every trajectory the "
    "test evaluates)"
)
CASSETTE_MARKER_HELP = (
    "agent_cassette: replay this test's chat-model calls from cassettes/<test name>.yaml beside "
    "the test file, as if it requested the agent_cassette fixture (on a function, class or "
    "module); --trajectory-record=new|all records them"
)
MARKERS = (MARKER_HELP, SIMULATION_MARKER_HELP, CASSETTE_MARKER_HELP)
"""Every marker line the plugin registers at configure time; the documentation's reference page
lists the markers from this tuple, so a marker registered elsewhere would be missing from it."""


_FIELDS = (
    "mode",
    "tool_args",
    "overrides",
    "reference",
    "repeat",
    "pass_rule",
    "min_score",
    "sources",
    "ignore_keys",
    "allow_empty",
    "usage",
    "confidence",
    "full_runs",
)


class TrajectorySettings:
    """The match settings in force for a test, and where each came from.

    ``sources`` maps ``mode``/``tool_args``/``ignore_keys`` (and any marker argument) to
    ``marker``, ``command line``, ``ini`` or ``default``. ``usage`` holds the marker's tool-usage
    rules, if any; ``confidence`` is the level of pass-rate intervals and ``lower:`` rules;
    ``full_runs`` (``--trajectory-stats``) runs every attempt of a repeated test.

    Immutable, compared by value. A plain class rather than a dataclass: every run creates
    this class at start-up, and a frozen dataclass's generated methods cost about a
    millisecond to make.
    """

    __slots__ = _FIELDS

    mode: str
    tool_args: str
    overrides: Mapping[str, Any] | None
    reference: str | None
    repeat: int
    pass_rule: PassRule
    min_score: float | None
    sources: Mapping[str, str]
    ignore_keys: tuple[str, ...]
    allow_empty: bool
    usage: UsageRules | None
    confidence: float
    full_runs: bool

    def __init__(
        self,
        mode: str = "strict",
        tool_args: str = "exact",
        overrides: Mapping[str, Any] | None = None,
        reference: str | None = None,
        repeat: int = 1,
        pass_rule: PassRule | None = None,
        min_score: float | None = None,
        sources: Mapping[str, str] | None = None,
        ignore_keys: tuple[str, ...] = (),
        allow_empty: bool = False,
        usage: UsageRules | None = None,
        confidence: float = 0.95,
        full_runs: bool = False,
    ) -> None:
        values = (
            mode,
            tool_args,
            overrides,
            reference,
            repeat,
            parse_pass_rule("all") if pass_rule is None else pass_rule,
            min_score,
            {"mode": "default", "tool_args": "default"} if sources is None else sources,
            ignore_keys,
            allow_empty,
            usage,
            confidence,
            full_runs,
        )
        for name, value in zip(_FIELDS, values, strict=True):
            object.__setattr__(self, name, value)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _FIELDS)

    def replace(self, **changes: Any) -> TrajectorySettings:
        """These settings with ``changes`` (field names and values)."""
        unknown = set(changes) - set(_FIELDS)
        if unknown:
            raise TypeError(f"TrajectorySettings has no field(s) {', '.join(sorted(unknown))}")
        return TrajectorySettings(**{**dict(zip(_FIELDS, self._values(), strict=True)), **changes})

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in _FIELDS)
        return f"TrajectorySettings({inner})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (TrajectorySettings, self._values())

    def match_config(self) -> MatchConfig:
        from ..core.matching.rules import make_config  # the rules load with a first comparison

        return make_config(
            self.mode,
            self.tool_args,
            self.overrides,
            ignore_keys=self.ignore_keys,
            allow_empty=self.allow_empty,
        )

    def with_header(self, header: Mapping[str, Any]) -> TrajectorySettings:
        """These settings with a reference file's header, except what the marker set."""
        chosen = {k: v for k, v in header.items() if self.sources.get(k) != "marker"}
        if not chosen:
            return self
        sources = {**self.sources, **dict.fromkeys(chosen, "reference file header")}
        return self.replace(**chosen, sources=sources)

    def describe(self) -> str:
        """``mode=strict, tool_args=exact`` with the source of each non-default value."""
        parts = []
        for name in ("mode", "tool_args"):
            source = self.sources.get(name, "default")
            suffix = "" if source == "default" else f" ({source})"
            parts.append(f"{name}={getattr(self, name)}{suffix}")
        if self.ignore_keys:
            source = self.sources.get("ignore_keys", "default")
            parts.append(f"ignore_keys=[{', '.join(self.ignore_keys)}] ({source})")
        if self.overrides:
            parts.append(f"overrides for {', '.join(sorted(self.overrides))}")
        return ", ".join(parts)

    def as_json(self) -> dict[str, Any]:
        """Builtins only (overrides by tool name and kind), for reports."""
        overrides = None
        if self.overrides:
            overrides = {
                tool: value
                if isinstance(value, str | list)
                else dict(value)
                if isinstance(value, Mapping)
                else "callable"
                for tool, value in self.overrides.items()
            }
        document: dict[str, Any] = {
            "mode": self.mode,
            "tool_args": self.tool_args,
            "overrides": overrides,
        }
        if self.ignore_keys:
            document["ignore_keys"] = list(self.ignore_keys)
        if self.allow_empty:
            document["allow_empty"] = True
        if self.usage:
            document["usage"] = self.usage.as_json()
        return document


def summary_setting(config: pytest.Config) -> bool:
    """``trajectory_summary``: whether the terminal summary shows the trajectory results."""
    try:
        return bool(config.getini(SUMMARY_INI))
    except (ValueError, pytest.UsageError) as error:  # pytest's message does not name the key
        raise pytest.UsageError(f"invalid {SUMMARY_INI} ({error}): use true or false") from None


def _pick(config: pytest.Config, option: str, flag: str, ini: str) -> tuple[str, str, str] | None:
    value = config.getoption(option, default=None)
    if value is not None:
        return value, "command line", flag
    ini_value = config.getini(ini)
    if ini_value:
        return str(ini_value).strip(), "ini", ini
    return None


def _ignore_keys(config: pytest.Config) -> tuple[tuple[str, ...], str]:
    """``--trajectory-ignore-keys`` (comma-separated), else the ``trajectory_ignore_keys`` ini
    lines, with where they came from."""
    flag = config.getoption("trajectory_ignore_keys", default=None)
    if flag is not None:
        paths = [part for part in flag.split(",") if part.strip()]
        return _usage(_paths, paths, "--trajectory-ignore-keys"), "command line"
    lines = [line for line in config.getini("trajectory_ignore_keys") if line.strip()]
    if lines:
        return _usage(_paths, lines, "trajectory_ignore_keys"), "ini"
    return (), "default"


def _paths(value: Any, *, where: str) -> tuple[str, ...]:
    from ..core.matching.rules import check_key_paths

    return check_key_paths(value, where=where)


def session_settings(config: pytest.Config) -> TrajectorySettings:
    """The session's settings from the command line and the ini file."""
    mode, tool_args = "strict", "exact"
    ignore_keys, ignore_source = _ignore_keys(config)
    sources = {"mode": "default", "tool_args": "default"}
    if ignore_keys:
        sources["ignore_keys"] = ignore_source
    picked = _pick(config, "trajectory_mode", "--trajectory-mode", "trajectory_mode")
    if picked:
        value, source, where = picked
        from ..core.matching.rules import check_trajectory_mode

        mode = _usage(check_trajectory_mode, value, where)
        sources["mode"] = source
    picked = _pick(
        config, "trajectory_tool_args_mode", "--tool-args-mode", "trajectory_tool_args_mode"
    )
    if picked:
        value, source, where = picked
        from ..core.matching.rules import check_tool_args_mode

        tool_args = _usage(check_tool_args_mode, value, where)
        sources["tool_args"] = source
    confidence = _confidence(config)
    return TrajectorySettings(
        mode,
        tool_args,
        sources=sources,
        ignore_keys=ignore_keys,
        pass_rule=parse_pass_rule("all", confidence=confidence),
        confidence=confidence,
        full_runs=bool(config.getoption("trajectory_stats", default=False)),
    )


def _confidence(config: pytest.Config) -> float:
    """``--trajectory-confidence``, else the ini key, else 0.95; a value outside (0, 1) is a
    usage error naming where it came from."""
    picked = _pick(config, "trajectory_confidence", "--trajectory-confidence", CONFIDENCE_INI)
    if picked is None:
        return 0.95
    value, _, where = picked
    try:
        level = float(value)
    except ValueError:
        level = -1.0
    if not 0 < level < 1:
        raise pytest.UsageError(f"invalid {where} {value!r}: must be in (0, 1), e.g. 0.95")
    return level


def _usage(check: Any, value: Any, where: str) -> Any:
    try:
        return check(value, where=where)
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None


def _marker_arguments(item: pytest.Item) -> dict[str, Any]:
    """Every ``trajectory`` marker argument of ``item``, the closest marker winning per key."""
    chosen: dict[str, Any] = {}
    for mark in item.iter_markers("trajectory"):
        if len(mark.args) > 1 or (mark.args and "mode" in mark.kwargs):
            raise ValueError(
                "@pytest.mark.trajectory takes at most one positional argument (the mode)"
            )
        unknown = sorted(set(mark.kwargs) - set(MARKER_ARGS))
        if unknown:
            raise ValueError(
                f"@pytest.mark.trajectory got unknown argument(s) {', '.join(unknown)}; "
                f"allowed: {', '.join(MARKER_ARGS)}"
            )
        if mark.args:
            chosen.setdefault("mode", mark.args[0])
        for name, value in mark.kwargs.items():
            chosen.setdefault(name, value)
    return chosen


def _expectations(chosen: Mapping[str, Any], base: TrajectorySettings) -> dict[str, Any]:
    """The marker's ``ignore_keys``, ``allow_empty`` and tool-usage rules, checked."""
    found: dict[str, Any] = {}
    if "ignore_keys" in chosen:
        value = chosen["ignore_keys"]
        found["ignore_keys"] = () if value is None else _paths(value, where="ignore_keys")
    allow_empty = chosen.get("allow_empty", base.allow_empty)
    if not isinstance(allow_empty, bool):
        raise ValueError(f"invalid allow_empty {allow_empty!r}: must be True or False")
    found["allow_empty"] = allow_empty
    usage = {name: chosen[name] for name in USAGE_ARGS if name in chosen}
    if usage:
        from ..core.usage import make_usage_rules  # loads with the first marker that sets rules

        rules = make_usage_rules(**usage)
        found["usage"] = rules if rules else None
    return found


def item_settings(item: pytest.Item, base: TrajectorySettings) -> TrajectorySettings:
    """``base`` overlaid with the item's ``trajectory`` markers (closest marker wins per key).

    Raises ``ValueError`` naming the problem; the caller adds the test id.
    """
    chosen = _marker_arguments(item)
    if not chosen:
        return base
    from ..core.matching.rules import check_tool_args_mode, check_trajectory_mode, make_config

    mode = check_trajectory_mode(chosen.get("mode", base.mode), where="mode")
    tool_args = check_tool_args_mode(chosen.get("tool_args", base.tool_args), where="tool_args")
    overrides = chosen.get("overrides", base.overrides)
    expectations = _expectations(chosen, base)
    make_config(mode, tool_args, overrides)  # validates every override value
    reference = chosen.get("reference", base.reference)
    if reference is not None and (not isinstance(reference, str) or not reference.strip()):
        raise ValueError(f"invalid reference {reference!r}: must be a file name (str)")
    repeat = chosen.get("repeat", base.repeat)
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise ValueError(f"invalid repeat {repeat!r}: must be a whole number >= 1")
    pass_rule = parse_pass_rule(
        chosen.get("pass_rule", base.pass_rule.text), repeat=repeat, confidence=base.confidence
    )
    min_score = chosen.get("min_score", base.min_score)
    if min_score is not None:
        from ..evaluators.result import check_min_score

        min_score = check_min_score(min_score)
    sources = dict(base.sources)
    sources.update(dict.fromkeys(chosen, "marker"))
    return base.replace(
        mode=mode,
        tool_args=tool_args,
        overrides=overrides,
        reference=reference,
        repeat=repeat,
        pass_rule=pass_rule,
        min_score=min_score,
        sources=sources,
        **expectations,
    )
