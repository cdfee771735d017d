"""The session's results, collected once: every record, the summary numbers, text lines and the
JSON document. Every sink (report file, gates, CI surfaces) reads them from here. No terminal I/O
and no pytest here, so it is tested on its own."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._version import __version__

__all__ = [
    "REPORT_VERSION",
    "TrajectoryResults",
    "attempt_counts",
    "family_lines",
    "family_of",
    "family_stats",
    "group_stats",
    "judge_line",
    "judge_totals",
]

REPORT_VERSION = 1
_DEFAULT_ROWS = 20


class TrajectoryResults:
    """Every evaluation record of a run, in the order they arrived."""

    __slots__ = ("_by_test", "records")

    def __init__(self, records: list[dict[str, Any]] | None = None) -> None:
        self.records: list[dict[str, Any]] = [] if records is None else records
        self._by_test: dict[str, list[dict[str, Any]]] = {}
        for record in self.records:
            self._by_test.setdefault(str(record.get("nodeid")), []).append(record)

    def __repr__(self) -> str:
        return f"TrajectoryResults({len(self.records)} records)"

    def add(self, record: Mapping[str, Any]) -> None:
        kept = dict(record)
        self.records.append(kept)
        self._by_test.setdefault(str(kept.get("nodeid")), []).append(kept)

    def for_test(self, nodeid: str) -> list[dict[str, Any]]:
        """The records of one test, in the order they arrived."""
        return self._by_test.get(nodeid, [])

    def summary(self) -> dict[str, Any]:
        """Totals: evaluations, passed, failed, tests with evaluations, counts per key.

        When a test was repeated (``repeat=N``), each of its evaluations is one record judged by
        its pass rate, and ``attempts``/``passed_attempts`` add up every attempt's evaluation
        (a record of a test run once counts as one attempt).
        """
        passed = sum(1 for r in self.records if r.get("passed"))
        by_key: dict[str, dict[str, int]] = {}
        for record in self.records:
            counts = by_key.setdefault(str(record.get("key")), {"passed": 0, "failed": 0})
            counts["passed" if record.get("passed") else "failed"] += 1
        summary: dict[str, Any] = {
            "evaluations": len(self.records),
            "passed": passed,
            "failed": len(self.records) - passed,
            "tests": len({r.get("nodeid") for r in self.records}),
            "by_key": by_key,
        }
        runs = [attempt_counts(r) for r in self.records]
        attempts, passed_attempts = sum(n for n, _ in runs), sum(p for _, p in runs)
        if any("attempts" in r for r in self.records):
            summary["attempts"], summary["passed_attempts"] = attempts, passed_attempts
        confidence = _confidence(self.records)
        if attempts:
            from ..core.stats import wilson_interval

            # the whole run's pass rate over every attempt (a test run once is one attempt)
            interval = wilson_interval(passed_attempts, attempts, confidence)
            summary["pass_rate_interval"] = [round(interval.low, 6), round(interval.high, 6)]
            summary["confidence"] = confidence
        families = family_stats(self.records, confidence)
        if families:
            summary["families"] = families
        judged = judge_totals(self.records)
        if judged is not None:
            summary["judge"] = judged
        return summary

    def to_json(self, *, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The report document: ``{"version": 1, "results": [...], "summary": {...}}``."""
        document: dict[str, Any] = {
            "version": REPORT_VERSION,
            "package_version": __version__,
            "results": [_public(r) for r in self.sorted_records()],
            "summary": self.summary(),
        }
        if settings is not None:
            document["settings"] = dict(settings)
        return document

    def sorted_records(self) -> list[dict[str, Any]]:
        """Records in a stable order (by test id, key and occurrence), whatever the arrival order
        (pytest-xdist workers finish in any order)."""
        return sorted(
            self.records,
            key=lambda r: (str(r.get("nodeid")), str(r.get("key")), int(r.get("index", 0))),
        )

    def lines(self, verbosity: int = 0) -> list[str]:
        """The terminal summary: a table per test (failures first) and totals.

        ``verbosity`` follows pytest: below 0 only the totals, 0 a table capped at 20 rows,
        1 and above every row plus the comment of each failure.
        """
        if not self.records:
            return []
        summary = self.summary()
        totals = _totals_line(summary)
        judged = summary.get("judge")
        if judged is not None:
            totals = f"{judge_line(judged)}\n{totals}"
        if verbosity < 0:
            return totals.split("\n")
        rows = sorted(self.sorted_records(), key=lambda r: bool(r.get("passed")))
        shown = rows if verbosity >= 1 else rows[:_DEFAULT_ROWS]
        table = [("test", "key", "mode", "score", "result")]
        for record in shown:
            table.append(
                (
                    test_label(record.get("nodeid"), record.get("index", 0)),
                    str(record.get("key")),
                    mode_label(record),
                    value_label(record.get("score")),
                    _result_label(record),
                )
            )
        lines = _format_table(table)
        if verbosity >= 1:
            lines = self._with_comments(lines, shown)
        if len(shown) < len(rows):
            lines.append(f"... {len(rows) - len(shown)} more rows (-v shows all)")
        lines.extend(totals.split("\n"))
        lines.extend(family_lines(summary))
        return lines

    def _with_comments(self, lines: list[str], shown: list[dict[str, Any]]) -> list[str]:
        out = lines[:2]
        for line, record in zip(lines[2:], shown, strict=True):
            out.append(line)
            if not record.get("passed") and record.get("comment"):
                out.append(f"    {record['comment']}")
        return out


def _totals_line(summary: Mapping[str, Any]) -> str:
    tests = summary["tests"]
    line = (
        f"{summary['evaluations']} trajectory evaluations in {tests} "
        f"test{'s' if tests != 1 else ''}: {summary['passed']} passed, "
        f"{summary['failed']} failed"
    )
    if "attempts" in summary:
        line += f" ({summary['passed_attempts']} of {summary['attempts']} attempts passed)"
    return line


_PUBLIC_FIELDS = (
    "nodeid",
    "key",
    "index",
    "score",
    "passed",
    "comment",
    "mode",
    "tool_args_mode",
    "duration_s",
    "origin",
    "phase",
    "test_outcome",
    "error",
    "attempts",
    "evaluated_attempts",
    "passed_attempts",
    "pass_rate",
    "attempt_passed",
    "repeat",
    "pass_rule",
    "pass_rate_interval",
    "confidence",
    "pass_hat_k",
    "pass_at_k",
    "settings",
    "settings_id",
)


def _public(record: Mapping[str, Any]) -> dict[str, Any]:
    """A record as the report shows it: the documented fields first, then any others."""
    out = {k: record.get(k) for k in _PUBLIC_FIELDS if k in record}
    out.update({k: v for k, v in record.items() if k not in out and not k.startswith("_")})
    return out


def judge_totals(records: Iterable[Mapping[str, Any]]) -> dict[str, int] | None:
    """What the run's LLM judges cost: evaluations, model calls, cached answers and tokens
    (``None`` when no judge ran)."""
    totals = {"evaluations": 0, "model_calls": 0, "cached": 0, "tokens": 0}
    for record in records:
        judge = record.get("judge")
        if not isinstance(judge, Mapping):
            continue
        totals["evaluations"] += 1
        totals["model_calls"] += int(judge.get("model_calls") or 0)
        totals["cached"] += 1 if judge.get("cached") else 0
        totals["tokens"] += int(judge.get("tokens") or 0)
    return totals if totals["evaluations"] else None


def _tokens(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f}M"
    if count >= 1_000:
        return f"{round(count / 1_000)}k"
    return str(count)


def judge_line(totals: Mapping[str, int]) -> str:
    """``judge: 12 calls, 30 cached, 41k tokens``.

    >>> judge_line({"model_calls": 12, "cached": 30, "tokens": 41_234})
    'judge: 12 calls, 30 cached, 41k tokens'
    """
    calls = totals["model_calls"]
    return (
        f"judge: {calls} call{'s' if calls != 1 else ''}, {totals['cached']} cached, "
        f"{_tokens(totals['tokens'])} tokens"
    )


def _confidence(records: Iterable[Mapping[str, Any]]) -> float:
    return next((float(r["confidence"]) for r in records if "confidence" in r), 0.95)


def family_of(nodeid: object) -> str:
    """A test's parametrized family: its node id without the ``[...]`` parameter part."""
    text = str(nodeid)
    return text.split("[", 1)[0] if text.endswith("]") else text


def group_stats(records: Iterable[Mapping[str, Any]], confidence: float = 0.95) -> dict[str, Any]:
    """Statistics of a group of results, every attempt counted: ``attempts``,
    ``passed_attempts``, ``pass_rate`` with its Wilson ``pass_rate_interval``, and for graded
    results ``score_mean`` with a Student t ``score_interval`` over their scores."""
    from ..core.stats import mean_interval, wilson_interval

    chosen = list(records)
    runs = [attempt_counts(r) for r in chosen]
    attempts = sum(n for n, _ in runs)
    passed = sum(p for _, p in runs)
    out: dict[str, Any] = {
        "tests": len({r.get("nodeid") for r in chosen}),
        "evaluations": len(chosen),
        "attempts": attempts,
        "passed_attempts": passed,
    }
    if attempts:
        interval = wilson_interval(passed, attempts, confidence)
        out["pass_rate"] = round(passed / attempts, 6)
        out["pass_rate_interval"] = [round(interval.low, 6), round(interval.high, 6)]
    scores = [_graded_score(r) for r in chosen]
    graded = [score for score in scores if score is not None]
    if graded:
        spread = mean_interval(graded, confidence)
        out["score_mean"] = round(sum(graded) / len(graded), 6)
        out["score_interval"] = [round(spread.low, 6), round(spread.high, 6)]
    return out


def _graded_score(record: Mapping[str, Any]) -> float | None:
    score = record.get("score_mean", record.get("score"))
    if isinstance(score, bool) or not isinstance(score, int | float):
        return None
    return float(score)


def family_stats(
    records: Iterable[Mapping[str, Any]], confidence: float = 0.95
) -> dict[str, dict[str, Any]]:
    """:func:`group_stats` for each parametrized family with two or more tests, by family id
    (``path::test_name``)."""
    families: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        families.setdefault(family_of(record.get("nodeid")), []).append(record)
    return {
        family: group_stats(members, confidence)
        for family, members in sorted(families.items())
        if len({r.get("nodeid") for r in members}) > 1
    }


def family_lines(summary: Mapping[str, Any], limit: int = _DEFAULT_ROWS) -> list[str]:
    """One line per parametrized family of a run's ``summary``, e.g.
    ``family test_agent.py::test_city: 4/5 passed (80%, 95% CI 37.6-96.4%)``, with the mean
    score and its interval for graded results; at most ``limit`` families, the weakest first."""
    from ..core.stats import Interval, rate_text

    families: Mapping[str, Mapping[str, Any]] = summary.get("families") or {}
    level = float(summary.get("confidence", 0.95))
    ranked = sorted(families.items(), key=lambda item: (item[1].get("pass_rate", 0.0), item[0]))
    out = []
    for family, stats in ranked[:limit]:
        low, high = stats["pass_rate_interval"]
        line = f"family {family}: " + rate_text(
            stats["passed_attempts"], stats["attempts"], Interval(low, high, level)
        )
        if "score_mean" in stats:
            low, high = stats["score_interval"]
            line += f"; mean score {stats['score_mean']:.3f} ({low:.3f}-{high:.3f})"
        out.append(line)
    if len(ranked) > limit:
        out.append(f"... {len(ranked) - limit} more families (the JSON report has them all)")
    return out


def attempt_counts(record: Mapping[str, Any]) -> tuple[int, int]:
    """(attempts, passed attempts) of a record; a test run once is one attempt."""
    if "attempts" in record:
        return int(record["attempts"]), int(record.get("passed_attempts", 0))
    return 1, 1 if record.get("passed") else 0


def _result_label(record: Mapping[str, Any]) -> str:
    """``PASS``/``FAIL``/``ERROR`` (the evaluator raised), with ``3/5`` attempts for a repeated
    test's evaluation."""
    label = "PASS" if record.get("passed") else "ERROR" if record.get("error") else "FAIL"
    if "attempts" in record:
        label += f" {record.get('passed_attempts')}/{record['attempts']}"
    return label


def test_label(nodeid: object, index: object) -> str:
    """A result's test as shown in tables: the node id, with ``[index]`` for a key's second and
    later results in the same test."""
    return f"{nodeid} [{index}]" if index else str(nodeid)


def mode_label(record: Mapping[str, Any]) -> str:
    """``mode/tool_args_mode``, or ``-`` for evaluators without a mode."""
    mode, args = record.get("mode"), record.get("tool_args_mode")
    if mode is None:
        return "-"
    return f"{mode}/{args}" if args else str(mode)


def value_label(value: Any) -> str:
    """A score or flag as tables show it: ``true``/``false``, 3 significant digits, ``-``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


def _format_table(rows: Iterable[tuple[str, ...]]) -> list[str]:
    rows = list(rows)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    widths[0] = min(widths[0], 70)
    lines = []
    for number, row in enumerate(rows):
        cells = [_fit(cell, widths[i]) for i, cell in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
        if number == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


def _fit(cell: str, width: int) -> str:
    if len(cell) > width:
        return "..." + cell[-(width - 3) :]
    return cell.ljust(width)
