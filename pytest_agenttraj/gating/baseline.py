"""Compare a run's results with an earlier run's JSON report: what regressed, improved, appeared
and vanished. Pure: no pytest, no terminal; the plugin's gate uses it.

A result's identity is (test nodeid, evaluator key, occurrence index within the test). A
*regression* is a result that passed in the baseline and fails now, or whose graded score or pass
rate fell by more than the tolerance.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import BaselineError
from ..plugin.results import REPORT_VERSION

__all__ = ["BaselineError", "Change", "Comparison", "compare", "load_baseline"]

Identity = tuple[str, str, int]


def load_baseline(path: Path) -> dict[str, Any]:
    """Read and check a baseline report; ``BaselineError`` names the file and the problem."""
    document = _parse(path, _read(path))
    _check_results(path, document["results"])
    return document


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BaselineError(
            f"baseline {path} does not exist; create one with --trajectory-report={path} "
            "on the reference branch"
        ) from None
    except OSError as error:
        raise BaselineError(f"baseline {path} cannot be read: {error}") from None


def _parse(path: Path, text: str) -> dict[str, Any]:
    """The report document, checked to be one of this version."""
    if not text.strip():
        raise BaselineError(f"baseline {path} is empty; it must be a --trajectory-report file")
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise BaselineError(
            f"baseline {path} is not valid JSON (line {error.lineno}, column {error.colno}: "
            f"{error.msg}); it must be a --trajectory-report file"
        ) from None
    if not isinstance(document, dict) or "results" not in document:
        raise BaselineError(
            f"baseline {path} is not a trajectory report: expected an object with 'version' "
            "and 'results'"
        )
    version = document.get("version")
    if version != REPORT_VERSION:
        raise BaselineError(
            f"baseline {path} has report version {version!r}; this pytest-agenttraj reads "
            f"version {REPORT_VERSION}: make a new baseline with this version"
        )
    return document


def _check_results(path: Path, results: Any) -> None:
    if not isinstance(results, list):
        raise BaselineError(f"baseline {path}: 'results' must be a list")
    for number, result in enumerate(results):
        if not isinstance(result, dict) or not isinstance(result.get("nodeid"), str):
            raise BaselineError(f"baseline {path}: result {number} has no 'nodeid'")
        if not isinstance(result.get("key"), str):
            raise BaselineError(f"baseline {path}: result {number} has no 'key'")


def identity(record: Mapping[str, Any]) -> Identity:
    return str(record.get("nodeid")), str(record.get("key")), int(record.get("index", 0) or 0)


@dataclass(frozen=True)
class Change:
    """One result that differs from the baseline (or exists on one side only)."""

    identity: Identity
    before: Mapping[str, Any] | None
    after: Mapping[str, Any] | None
    reason: str

    def label(self) -> str:
        nodeid, key, index = self.identity
        return f"{nodeid} {key}" + (f" [{index}]" if index else "")


@dataclass
class Comparison:
    """The outcome of comparing a run with its baseline."""

    regressions: list[Change] = field(default_factory=list)
    improvements: list[Change] = field(default_factory=list)
    new: list[Change] = field(default_factory=list)
    vanished: list[Change] = field(default_factory=list)
    unchanged: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.regressions)

    def lines(self, verbosity: int = 0) -> list[str]:
        """Regressions first, then improvements, new and vanished results, then a count line."""
        lines = list(self.warnings)
        groups = (
            ("REGRESSED", self.regressions),
            ("improved", self.improvements),
            ("new", self.new),
            ("vanished", self.vanished),
        )
        for title, changes in groups:
            limit = None if verbosity >= 1 or title == "REGRESSED" else 10
            for change in changes[:limit]:
                lines.append(f"{title}: {change.label()}: {change.reason}")
            if limit is not None and len(changes) > limit:
                lines.append(f"... {len(changes) - limit} more {title} (-v shows all)")
        lines.append(self.counts())
        return lines

    def counts(self) -> str:
        return (
            f"baseline: {len(self.regressions)} regressed, {len(self.improvements)} improved, "
            f"{len(self.new)} new, {len(self.vanished)} vanished, {self.unchanged} unchanged"
        )


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _describe(record: Mapping[str, Any]) -> str:
    if "pass_rate" in record:
        return f"pass rate {record['pass_rate']:.2f}"
    score = record.get("score")
    if isinstance(score, bool) or score is None:
        return "passed" if record.get("passed") else "failed"
    return f"score {score}"


_EPSILON = 1e-9  # a fall of exactly the tolerance is within it, float rounding aside


def _moved(before: float, after: float, tolerance: float) -> int:
    """-1 if ``after`` fell below ``before`` by more than ``tolerance``, +1 if it rose by more."""
    if before - after > tolerance + _EPSILON:
        return -1
    if after - before > tolerance + _EPSILON:
        return 1
    return 0


def _judge(before: Mapping[str, Any], after: Mapping[str, Any], tolerance: float) -> int:
    """-1 regressed, +1 improved, 0 unchanged."""
    rate_before, rate_after = _number(before.get("pass_rate")), _number(after.get("pass_rate"))
    if rate_before is not None and rate_after is not None:
        return _moved(rate_before, rate_after, tolerance)
    if before.get("passed") and not after.get("passed"):
        return -1
    score_before, score_after = _number(before.get("score")), _number(after.get("score"))
    if score_before is not None and score_after is not None:
        moved = _moved(score_before, score_after, tolerance)
        if moved:
            return moved
    if not before.get("passed") and after.get("passed"):
        return 1
    return 0


def compare(
    baseline: Mapping[str, Any],
    results: Iterable[Mapping[str, Any]],
    *,
    tolerance: float = 0.0,
    settings: Mapping[str, Any] | None = None,
    package_version: str | None = None,
) -> Comparison:
    """Compare ``results`` (this run's records) with a loaded baseline report."""
    before = {identity(r): r for r in baseline.get("results", [])}
    after = {identity(r): r for r in results}
    comparison = Comparison()
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        if old is None:
            assert new is not None
            comparison.new.append(Change(key, None, new, f"not in the baseline ({_describe(new)})"))
        elif new is None:
            comparison.vanished.append(Change(key, old, None, f"was {_describe(old)}, now absent"))
        else:
            verdict = _judge(old, new, tolerance)
            reason = f"{_describe(old)} -> {_describe(new)}"
            if verdict < 0:
                comparison.regressions.append(Change(key, old, new, reason))
            elif verdict > 0:
                comparison.improvements.append(Change(key, old, new, reason))
            else:
                comparison.unchanged += 1
    base_settings = baseline.get("settings")
    if settings is not None and base_settings is not None and dict(base_settings) != dict(settings):
        comparison.warnings.append(
            f"baseline was made with other settings ({_settings_text(base_settings)}; now "
            f"{_settings_text(settings)}): results may differ for that reason"
        )
    base_version = baseline.get("package_version")
    if package_version and base_version and base_version != package_version:
        comparison.warnings.append(
            f"baseline was made with pytest-agenttraj {base_version}; this is {package_version}"
        )
    return comparison


def _settings_text(settings: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(settings.items()) if v is not None)
