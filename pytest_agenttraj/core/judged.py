"""What decided a verdict, as the ``settings`` of a report: the argument rules of a match
configuration and the value matchers a reference holds, written so that the same settings give
the same text in every process (a callable by its name and a digest of its source)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from .fingerprint import callable_identity
from .values import Matcher, holds_matcher

if TYPE_CHECKING:
    from .matching.rules import ArgsRule, MatchConfig
    from .model import ToolCall

__all__ = ["config_settings", "matcher_texts", "rule_text"]


def config_settings(config: MatchConfig) -> dict[str, Any]:
    """The argument rules of a match configuration: the default args mode, per-tool overrides
    (as written), the keys left out of every tool's args, and whether empty sides pass."""
    out: dict[str, Any] = {"tool_args": config.tool_args}
    if config.overrides:
        out["overrides"] = {
            tool: rule_text(rule) for tool, rule in sorted(config.overrides.items())
        }
    if config.ignore_keys:
        out["ignore_keys"] = sorted(config.ignore_keys)
    out["allow_empty"] = config.allow_empty
    return out


def rule_text(rule: ArgsRule) -> str:
    """An override as written: ``subset``, ``keys [city]``, ``exact except [ts]``, or a callable
    by where it is defined and a digest of its source (``callable tests.test_x.near#1a2b3c4d``)."""
    if rule.kind == "callable" and rule.func is not None:
        return f"callable {callable_identity(rule.func)}"
    return rule.describe()


def matcher_texts(calls: Iterable[ToolCall]) -> list[str]:
    """Each value matcher in the arguments of ``calls``, as ``tool.path: Regex('...')``,
    sorted (reordering identical calls in a reference changes nothing)."""
    return sorted(
        f"{call.name}.{path}: {_matcher_text(matcher)}"
        for call in calls
        if holds_matcher(call.args)
        for path, matcher in _walk(call.args, "")
    )


def _walk(value: Any, path: str) -> Iterator[tuple[str, Matcher]]:
    if isinstance(value, Matcher):
        yield path, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _walk(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _walk(item, f"{path}[]")


def _matcher_text(matcher: Matcher) -> str:
    text = repr(matcher)
    return type(matcher).__qualname__ if " at 0x" in text else text
