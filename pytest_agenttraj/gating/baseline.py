"""Compare a run's results with an earlier run's JSON report: what regressed, improved, appeared
and vanished, and which results cannot be compared. Pure: no pytest, no terminal; the plugin's
gate uses it.

A result's identity is (test nodeid, evaluator key, occurrence index within the test). A
*regression* is a result that passed in the baseline and fails now, or whose graded score or pass
rate fell by more than the tolerance.

A result repeated on either side (``repeat=N``: its record has ``attempts`` and
``passed_attempts``; a single run counts as one attempt) is judged by its pass counts: a fall in
the pass rate is a regression only when it is significant, by a one-sided Fisher exact test at
``alpha`` (``--trajectory-significance``, default 0.05); a fall or rise that is not significant is
*changed, not significant*, with its p-value, and does not fail the gate. Graded scores of
repeated results (``attempt_scores``) are compared the same way with a one-sided Mann-Whitney U
test. Two single runs keep the exact gate: passed before and failed now is a regression.

A result judged under other settings than its baseline's (``settings`` in its record: mode, args
mode, overrides, ignored keys, matchers, tool-usage rules, the judge's prompt and model, pass
rules; see ``pytest_agenttraj.plugin.record_settings``) is *not comparable*: its verdict says
nothing about the agent, since the change that it judges may have loosened the check itself. It
fails the gate unless the run accepts changed settings (``allow_changed_settings``), which judges
it as usual. Settings that only tighten the check (see ``tightened``) are compared as usual. A
baseline result without settings (a report of an earlier version) is not comparable either.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..evaluators.result import evaluator_family
from .settings_change import settings_change

__all__ = [
    "ACCEPT_OPTION",
    "DEFAULT_ALPHA",
    "Change",
    "Comparison",
    "compare",
    "identity",
    "significance",
]

ACCEPT_OPTION = "--trajectory-allow-changed-settings"
DEFAULT_ALPHA = 0.05
"""The significance level of the baseline's tests on repeated results."""

Identity = tuple[str, str, int]


def identity(record: Mapping[str, Any]) -> Identity:
    """A result's identity across runs: its test, its evaluator (the key without the match mode,
    so that a run with other settings still meets its baseline) and its occurrence."""
    return (
        str(record.get("nodeid")),
        evaluator_family(str(record.get("key"))),
        int(record.get("index", 0) or 0),
    )


@dataclass(frozen=True)
class Change:
    """One result that differs from the baseline (or exists on one side only)."""

    identity: Identity
    before: Mapping[str, Any] | None
    after: Mapping[str, Any] | None
    reason: str

    @property
    def key(self) -> str:
        """The evaluator key, as this run (else the baseline) spelled it."""
        record = self.after if self.after is not None else self.before
        return str(record.get("key")) if record is not None else self.identity[1]

    def label(self) -> str:
        nodeid, _, index = self.identity
        return f"{nodeid} {self.key}" + (f" [{index}]" if index else "")


@dataclass
class Comparison:
    """The outcome of comparing a run with its baseline.

    What fails the gate (``failures``): regressions, new results that fail (unless
    ``allow_new_failures``) and results that passed in the baseline and are gone (unless
    ``allow_vanished``): a result that disappears is no better than one that regressed.
    """

    regressions: list[Change] = field(default_factory=list)
    improvements: list[Change] = field(default_factory=list)
    new: list[Change] = field(default_factory=list)
    vanished: list[Change] = field(default_factory=list)
    not_comparable: list[Change] = field(default_factory=list)
    other_settings: list[Change] = field(default_factory=list)  # unchanged, settings accepted
    not_significant: list[Change] = field(default_factory=list)
    """Pass rates or graded scores that moved, but not significantly at the run's alpha."""
    unchanged: int = 0
    warnings: list[str] = field(default_factory=list)
    allow_new_failures: bool = False
    allow_vanished: bool = False

    @property
    def new_failures(self) -> list[Change]:
        return [c for c in self.new if c.after is not None and not c.after.get("passed")]

    @property
    def vanished_passes(self) -> list[Change]:
        return [c for c in self.vanished if c.before is not None and c.before.get("passed")]

    @property
    def failures(self) -> list[Change]:
        """Every change that fails the gate, regressions first."""
        out = [*self.regressions, *self.not_comparable]
        if not self.allow_new_failures:
            out += self.new_failures
        if not self.allow_vanished:
            out += self.vanished_passes
        return out

    @property
    def failed(self) -> bool:
        return bool(self.failures)

    def lines(self, verbosity: int = 0) -> list[str]:
        """What fails the gate first, then improvements, other new and vanished results, then a
        count line."""
        lines = list(self.warnings)
        for title, changes in self.groups():
            limit = None if verbosity >= 1 or title.isupper() else 10
            for change in changes[:limit]:
                lines.append(f"{title}: {change.label()}: {change.reason}")
            if limit is not None and len(changes) > limit:
                lines.append(f"... {len(changes) - limit} more {title} (-v shows all)")
        lines.append(self.counts())
        if self.not_comparable:
            lines.append(
                "not comparable: judged under other settings than the baseline's, so a pass "
                "says nothing (the change may have loosened the check); make a new baseline "
                f"with these settings, or pass {ACCEPT_OPTION} to judge them anyway"
            )
        return lines

    def groups(self) -> tuple[tuple[str, list[Change]], ...]:
        """The changes by what they are; the titles in capitals fail the gate."""
        failing = {id(c) for c in self.failures}
        return (
            ("REGRESSED", self.regressions),
            ("NOT COMPARABLE", self.not_comparable),
            ("NEW FAILURE", [c for c in self.new if id(c) in failing]),
            ("VANISHED", [c for c in self.vanished if id(c) in failing]),
            ("improved", self.improvements),
            ("changed, not significant", self.not_significant),
            ("new", [c for c in self.new if id(c) not in failing]),
            ("vanished", [c for c in self.vanished if id(c) not in failing]),
            ("other settings", self.other_settings),
        )

    def as_json(self) -> dict[str, Any]:
        """The comparison as builtins (for the HTML page): whether it fails, the counts and
        each change, those that fail the gate first."""
        changes = [
            {
                "change": title.lower(),
                "fails": title.isupper(),
                "nodeid": change.identity[0],
                "key": change.key,
                "index": change.identity[2],
                "before": None if change.before is None else change.before.get("score"),
                "after": None if change.after is None else change.after.get("score"),
                "detail": change.reason,
            }
            for title, group in self.groups()
            for change in group
        ]
        counts = {
            "regressed": len(self.regressions),
            "improved": len(self.improvements),
            "new": len(self.new),
            "vanished": len(self.vanished),
            "not comparable": len(self.not_comparable),
            "unchanged": self.unchanged,
        }
        return {"failed": self.failed, "counts": counts, "changes": changes}

    def counts(self) -> str:
        failing, passed = len(self.new_failures), len(self.vanished_passes)
        other = len(self.not_comparable)
        return (
            f"baseline: {len(self.regressions)} regressed, {len(self.improvements)} improved, "
            f"{len(self.new)} new" + (f" ({failing} failing)" if failing else "") + ", "
            f"{len(self.vanished)} vanished"
            + (f" ({passed} had passed)" if passed else "")
            + ", "
            + (f"{other} not comparable, " if other else "")
            + (
                f"{len(self.not_significant)} changed, not significant, "
                if self.not_significant
                else ""
            )
            + f"{self.unchanged} unchanged"
        )


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _describe(record: Mapping[str, Any]) -> str:
    if "pass_rate" in record:
        if "attempts" in record:
            return (
                f"pass rate {record['pass_rate']:.2f} "
                f"({record.get('passed_attempts')}/{record['attempts']})"
            )
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


def _repeated(record: Mapping[str, Any]) -> bool:
    return "attempts" in record


def _counts(record: Mapping[str, Any]) -> tuple[int, int]:
    """(passed, attempts) of a record; a single run is one attempt."""
    if _repeated(record):
        return int(record.get("passed_attempts") or 0), int(record["attempts"])
    return (1 if record.get("passed") else 0), 1


def _scores(record: Mapping[str, Any]) -> list[float] | None:
    scores = record.get("attempt_scores")
    if isinstance(scores, list) and scores and all(_number(v) is not None for v in scores):
        return [float(v) for v in scores]
    score = _number(record.get("score"))
    return None if score is None else [score]


def significance(
    before: Mapping[str, Any], after: Mapping[str, Any], tolerance: float
) -> tuple[int, float] | None:
    """For a result repeated on either side: the direction its pass rate (or, when both pass
    rates hold, its graded score) moved beyond ``tolerance`` (-1 fell, +1 rose, 0 neither) and
    the one-sided p-value of that move; ``None`` for two single runs (the exact gate)."""
    if not (_repeated(before) or _repeated(after)):
        return None
    from ..core.stats import fisher_exact_less, mann_whitney_less

    (c1, n1), (c2, n2) = _counts(before), _counts(after)
    if n1 and n2:
        moved = _moved(c1 / n1, c2 / n2, tolerance)
        if moved < 0:
            return -1, fisher_exact_less(c1, n1, c2, n2)
        if moved > 0:
            return 1, fisher_exact_less(c2, n2, c1, n1)
    old, new = _scores(before), _scores(after)
    if old is not None and new is not None and (len(old) > 1 or len(new) > 1):
        moved = _moved(sum(old) / len(old), sum(new) / len(new), tolerance)
        if moved < 0:
            return -1, mann_whitney_less(old, new)
        if moved > 0:
            return 1, mann_whitney_less(new, old)
    return 0, 1.0


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


def _pair(
    comparison: Comparison,
    key: Identity,
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    tolerance: float,
    accept: bool,
    alpha: float = DEFAULT_ALPHA,
) -> None:
    """Judge one result that both runs have."""
    change = settings_change(old, new)
    outcome = f"{_describe(old)} -> {_describe(new)}"
    if change is not None and not change.tightened and not accept:
        comparison.not_comparable.append(Change(key, old, new, f"{change.text()}; {outcome}"))
        return
    reason = outcome + (f" ({change.text()})" if change is not None else "")
    tested = significance(old, new, tolerance)
    if tested is None:
        verdict = _judge(old, new, tolerance)
    else:
        verdict, p_value = tested
        if verdict:
            reason += f", p={p_value:.3g}"
            if p_value >= alpha:
                reason += f" >= alpha {alpha:g}"
                comparison.not_significant.append(Change(key, old, new, reason))
                return
    if verdict < 0:
        comparison.regressions.append(Change(key, old, new, reason))
    elif verdict > 0:
        comparison.improvements.append(Change(key, old, new, reason))
    else:
        comparison.unchanged += 1
        if change is not None:
            comparison.other_settings.append(Change(key, old, new, reason))


def judge_pair(
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    *,
    tolerance: float = 0.0,
    accept: bool = False,
    alpha: float = DEFAULT_ALPHA,
) -> tuple[str, str] | None:
    """How one result compares with its baseline (``(group, reason)``, the groups of
    ``Comparison.lines``), or ``None`` when it is unchanged under the same settings."""
    comparison = Comparison()
    key = identity(new)
    _pair(comparison, key, old, new, tolerance, accept, alpha)
    for title, changes in (
        ("REGRESSED", comparison.regressions),
        ("NOT COMPARABLE", comparison.not_comparable),
        ("improved", comparison.improvements),
        ("changed, not significant", comparison.not_significant),
        ("other settings", comparison.other_settings),
    ):
        if changes:
            return title, changes[0].reason
    return None


def compare(
    baseline: Mapping[str, Any],
    results: Iterable[Mapping[str, Any]],
    *,
    tolerance: float = 0.0,
    settings: Mapping[str, Any] | None = None,
    package_version: str | None = None,
    allow_new_failures: bool = False,
    allow_vanished: bool = False,
    allow_changed_settings: bool = False,
    alpha: float = DEFAULT_ALPHA,
) -> Comparison:
    """Compare ``results`` (this run's records) with a loaded baseline report."""
    before = {identity(r): r for r in baseline.get("results", [])}
    after = {identity(r): r for r in results}
    comparison = Comparison(allow_new_failures=allow_new_failures, allow_vanished=allow_vanished)
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        if old is None:
            assert new is not None
            comparison.new.append(Change(key, None, new, f"not in the baseline ({_describe(new)})"))
        elif new is None:
            comparison.vanished.append(Change(key, old, None, f"was {_describe(old)}, now absent"))
        else:
            _pair(comparison, key, old, new, tolerance, allow_changed_settings, alpha)
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
