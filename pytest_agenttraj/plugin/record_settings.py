"""The settings an evaluation was judged under, as its record carries them: ``settings`` (builtins,
readable) and ``settings_id`` (their fingerprint). A baseline compares two results only when
they were judged alike, so that a change that loosens the check cannot pass as "unchanged".

What decides a verdict is the report's to say (``Report.settings``), by kind (``kind``):

* ``trajectory``: ``mode``, ``tool_args``, the per-tool ``overrides`` (each rule as written; a
  callable by its name and a digest of its source), ``ignore_keys``, ``allow_empty``;
* ``graph``: ``mode``; ``accuracy`` and ``f1`` (graded scores): ``mode``, ``tool_args``,
  ``overrides``, ``ignore_keys``;
* ``judge``: the ``judge``'s model and fingerprints of its parameters, prompt and the rest of
  what it is told;
* ``usage``: the tool-usage rules;
* ``value`` (``exact_match``): nothing;

and for trajectories and graded scores ``matchers``, each value matcher in the reference's
tool-call arguments (``tool.path: Regex(...)``). The test adds ``min_score`` for a graded score,
``repeat`` and ``pass_rule`` for a repeated test.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..core.fingerprint import fingerprint

if TYPE_CHECKING:
    from ..core.report import Report
    from .settings import TrajectorySettings

__all__ = ["SETTINGS_FIELD", "SETTINGS_ID_FIELD", "evaluation_settings", "with_settings"]

SETTINGS_FIELD = "settings"
SETTINGS_ID_FIELD = "settings_id"


def with_settings(
    record: dict[str, Any],
    report: Report | None,
    judged: Mapping[str, Any],
    test: TrajectorySettings,
    threshold: float | None,
) -> None:
    """Add ``settings`` and ``settings_id`` to ``record``: ``judged`` (what the report says
    decided its verdict), with the test's threshold and repeats."""
    settings = evaluation_settings(report, judged, test, threshold, record.get("score"))
    record[SETTINGS_FIELD] = settings
    record[SETTINGS_ID_FIELD] = _fingerprint(settings)


_KNOWN: dict[tuple[tuple[str, type, Any], ...], str] = {}
_KNOWN_MAX = 256


def _fingerprint(settings: dict[str, Any]) -> str:
    """``fingerprint(settings)``, remembered for settings of plain values (most evaluations of
    a run are judged alike, and each record carries the fingerprint)."""
    key = tuple((name, type(value), value) for name, value in settings.items())  # True is not 1
    try:
        known = _KNOWN.get(key)
    except TypeError:  # a value that does not hash (a dict of overrides, a list of matchers)
        return fingerprint(settings)
    if known is None:
        if len(_KNOWN) >= _KNOWN_MAX:
            _KNOWN.clear()
        known = _KNOWN[key] = fingerprint(settings)
    return known


def evaluation_settings(
    report: Report | None,
    judged: Mapping[str, Any],
    test: TrajectorySettings,
    threshold: float | None,
    score: Any,
) -> dict[str, Any]:
    """What decided an evaluation's verdict, builtins only (see the module docstring)."""
    settings = {"kind": report.kind if report is not None else "value", **judged}
    if threshold is not None and isinstance(score, int | float) and not isinstance(score, bool):
        settings["min_score"] = threshold
    if test.repeat > 1:
        settings["repeat"] = test.repeat
        settings["pass_rule"] = test.pass_rule.text
    return settings
