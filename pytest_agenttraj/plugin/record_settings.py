"""The settings an evaluation was judged under, as its record carries them: ``settings`` (builtins,
readable) and ``settings_id`` (their fingerprint). A baseline compares two results only when
they were judged alike, so that a change that loosens the check cannot pass as "unchanged".

What decides a verdict, by kind of evaluation (``kind``):

* ``match`` (trajectory match): ``mode``, ``tool_args``, the per-tool ``overrides`` (each rule as
  written; a callable by its name and a digest of its source), ``ignore_keys``, ``allow_empty``;
* ``graph``: ``mode``; ``graded`` (tool-call accuracy, F1): ``mode``, ``tool_args``,
  ``overrides``, ``ignore_keys``;
* ``judge``: the ``judge``'s model and fingerprints of its parameters, prompt and the rest of
  what it is told;
* ``usage``: the tool-usage rules;
* ``value`` (``exact_match`` and the like): nothing;

and for every kind: ``matchers``, each value matcher in the reference's tool-call arguments
(``tool.path: Regex(...)``), ``min_score`` for a graded score, ``repeat`` and ``pass_rule`` for
a repeated test.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ..core.fingerprint import callable_identity, fingerprint
from ..core.values import Matcher, holds_matcher

if TYPE_CHECKING:
    from ..core.matching.rules import ArgsRule, MatchConfig
    from ..core.model import ToolCall
    from ..evaluators.scope import Evaluation
    from .settings import TrajectorySettings

__all__ = ["SETTINGS_FIELD", "SETTINGS_ID_FIELD", "evaluation_settings", "with_settings"]

SETTINGS_FIELD = "settings"
SETTINGS_ID_FIELD = "settings_id"
JUDGE_EXTRA = "judge_settings"
"""The key under which a judge hands its settings to the record (moved into ``settings``)."""


def with_settings(
    record: dict[str, Any],
    evaluation: Evaluation,
    test: TrajectorySettings,
    threshold: float | None,
) -> None:
    """Add ``settings`` and ``settings_id`` to ``record`` (taking the judge's own entry)."""
    record.pop(JUDGE_EXTRA, None)
    settings = evaluation_settings(evaluation, test, threshold)
    record[SETTINGS_FIELD] = settings
    record[SETTINGS_ID_FIELD] = fingerprint(settings)


def evaluation_settings(
    evaluation: Evaluation, test: TrajectorySettings, threshold: float | None
) -> dict[str, Any]:
    """What decided ``evaluation``'s verdict, builtins only (see the module docstring)."""
    settings = _judged_by(evaluation)
    matchers = sorted(_matchers(_reference_calls(evaluation)))
    if matchers:
        settings["matchers"] = matchers
    score = evaluation.result.get("score")
    if threshold is not None and isinstance(score, int | float) and not isinstance(score, bool):
        settings["min_score"] = threshold
    if test.repeat > 1:
        settings["repeat"] = test.repeat
        settings["pass_rule"] = test.pass_rule.text
    return settings


def _judged_by(evaluation: Evaluation) -> dict[str, Any]:
    report, graded, extra = evaluation.report, evaluation.graded, evaluation.extra
    config = getattr(report, "config", None)  # a trajectory match report (graph ones have none)
    if config is not None:
        return {"kind": "match", "mode": config.mode, **config_settings(config)}
    if report is not None:
        return {"kind": "graph", "mode": report.mode}
    if graded is not None:
        return {"kind": "graded", "mode": extra.get("mode"), **config_settings(graded.config)}
    judge = extra.get(JUDGE_EXTRA)
    if isinstance(judge, Mapping):
        return {"kind": "judge", "judge": dict(judge)}
    rules = extra.get("usage_rules")
    if rules is not None:
        return {"kind": "usage", "usage": rules}
    return {"kind": "value"}


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


def _reference_calls(evaluation: Evaluation) -> Iterator[ToolCall]:
    """The tool calls an evaluation compared (output calls hold no matchers, so both sides of a
    graded report may be searched)."""
    report, graded = evaluation.report, evaluation.graded
    if getattr(report, "config", None) is not None:
        for _, _, call in report.reference.tool_calls():  # type: ignore[union-attr]  # a match report
            yield call
        return
    if graded is None:
        return
    for score in getattr(graded, "calls", ()):  # tool-call accuracy
        yield score.reference.call
    for pair in getattr(graded, "matched", ()):  # tool-call F1
        for side in pair:
            yield side.call
    for unpaired in getattr(graded, "missing", ()):
        yield unpaired.call.call


def _matchers(calls: Iterable[ToolCall]) -> Iterator[str]:
    for call in calls:
        if holds_matcher(call.args):
            for path, matcher in _walk(call.args, ""):
                yield f"{call.name}.{path}: {_matcher_text(matcher)}"


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
