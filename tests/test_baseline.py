"""baseline.compare and load_baseline, without pytest runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttraj.errors import BaselineError
from pytest_agenttraj.gating.baseline import compare
from pytest_agenttraj.gating.baseline_file import load_baseline


def rec(name: str, passed: bool, score: Any = None, index: int = 0, **extra: Any) -> dict[str, Any]:
    return {
        "nodeid": f"t.py::{name}",
        "key": "k",
        "index": index,
        "passed": passed,
        "score": passed if score is None else score,
        **extra,
    }


def base(*records: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"version": 1, "results": list(records), **extra}


def test_identity_is_nodeid_key_and_occurrence() -> None:
    comparison = compare(base(rec("a", True), rec("a", False, index=1)), [rec("a", True)])
    assert comparison.unchanged == 1
    assert [c.label() for c in comparison.vanished] == ["t.py::a k [1]"]
    assert not comparison.failed  # what vanished had failed


def test_the_match_mode_is_not_part_of_the_identity() -> None:
    before = rec("a", True, key="trajectory_strict_match", mode="strict", tool_args_mode="exact")
    after = rec(
        "a", False, key="trajectory_unordered_match", mode="unordered", tool_args_mode="exact"
    )
    comparison = compare(base(before), [after], settings={"mode": "unordered"})
    assert [(c.label(), c.reason) for c in comparison.regressions] == [
        (
            "t.py::a trajectory_unordered_match",
            "passed -> failed (mode strict/exact -> unordered/exact)",
        )
    ]
    assert comparison.new == comparison.vanished == []
    assert comparison.failed


def test_a_failing_new_result_and_a_vanished_passing_one_fail_the_gate() -> None:
    before = base(rec("gone", True), rec("gone_failing", False))
    now = [rec("fresh", False), rec("fresh_passing", True)]
    comparison = compare(before, now)
    assert [c.label() for c in comparison.failures] == ["t.py::fresh k", "t.py::gone k"]
    assert comparison.failed
    assert not compare(before, now, allow_new_failures=True, allow_vanished=True).failed
    assert compare(before, now, allow_new_failures=True).failed
    assert compare(before, now, allow_vanished=True).failed


def test_pass_to_fail_is_a_regression_and_fail_to_pass_an_improvement() -> None:
    comparison = compare(base(rec("a", True), rec("b", False)), [rec("a", False), rec("b", True)])
    assert [c.reason for c in comparison.regressions] == ["passed -> failed"]
    assert [c.reason for c in comparison.improvements] == ["failed -> passed"]
    assert comparison.failed


@pytest.mark.parametrize(
    ("before", "after", "tolerance", "verdict"),
    [
        (0.8, 0.7, 0.1, "unchanged"),  # fell by exactly the tolerance
        (0.8, 0.69, 0.1, "regressed"),
        (0.8, 0.8, 0.0, "unchanged"),
        (0.8, 0.79, 0.0, "regressed"),
        (0.5, 0.65, 0.1, "improved"),
        (0.5, 0.6, 0.1, "unchanged"),
    ],
)
def test_graded_scores_use_the_tolerance(
    before: float, after: float, tolerance: float, verdict: str
) -> None:
    comparison = compare(
        base(rec("a", False, score=before)), [rec("a", False, score=after)], tolerance=tolerance
    )
    got = (
        "regressed"
        if comparison.regressions
        else "improved"
        if comparison.improvements
        else "unchanged"
    )
    assert got == verdict


def test_a_graded_score_that_stops_passing_is_a_regression_whatever_the_tolerance() -> None:
    comparison = compare(
        base(rec("a", True, score=1.0)), [rec("a", False, score=0.99)], tolerance=0.5
    )
    assert len(comparison.regressions) == 1


def test_pass_rates_compare_with_the_tolerance() -> None:
    before = base(rec("a", True, pass_rate=0.9))
    assert compare(before, [rec("a", True, pass_rate=0.8)], tolerance=0.1).unchanged == 1
    assert compare(before, [rec("a", True, pass_rate=0.7)], tolerance=0.1).failed


def test_lines_put_regressions_first_and_count_everything() -> None:
    comparison = compare(
        base(rec("a", True), rec("b", False), rec("gone", True)),
        [rec("a", False), rec("b", True), rec("fresh", True)],
    )
    assert comparison.lines() == [
        "REGRESSED: t.py::a k: passed -> failed",
        "VANISHED: t.py::gone k: was passed, now absent",
        "improved: t.py::b k: failed -> passed",
        "new: t.py::fresh k: not in the baseline (passed)",
        "baseline: 1 regressed, 1 improved, 1 new, 1 vanished (1 had passed), 0 unchanged",
    ]


def test_other_settings_and_versions_are_flagged() -> None:
    comparison = compare(
        base(settings={"mode": "unordered"}, package_version="0.0.1"),
        [],
        settings={"mode": "strict"},
        package_version="0.1.0",
    )
    assert comparison.warnings == [
        "baseline was made with other settings (mode=unordered; now mode=strict): results may "
        "differ for that reason",
        "baseline was made with pytest-agenttraj 0.0.1; this is 0.1.0",
    ]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "is empty"),
        ("   \n", "is empty"),
        ("{", "is not valid JSON (line 1, column 2"),
        ('"x"', "is not a trajectory report"),
        ('{"version": 1}', "is not a trajectory report"),
        ('{"version": 2, "results": []}', "has report version 2"),
        ('{"version": "1", "results": []}', "field 'version': expected a whole number, got '1'"),
        ('{"version": true, "results": []}', "field 'version': expected a whole number, got True"),
        ('{"version": 1.0, "results": []}', "field 'version': expected a whole number, got 1.0"),
        (
            '{"version": 1, "results": [], "complete": "yes"}',
            "field 'complete': expected true or false, got 'yes'",
        ),
        ('{"version": 1, "results": [], "complete": 0}', "field 'complete': expected true or"),
        ('{"version": 1, "results": [], "summary": []}', "field 'summary': expected an object"),
        (
            '{"version": 1, "results": [], "incomplete_reason": 3}',
            "field 'incomplete_reason': expected a string, got 3",
        ),
        ('{"version": 1, "results": {}}', "'results' must be a list"),
        (
            '{"version": 1, "results": [{"nodeid": "a"}]}',
            "result 0, field 'key': expected a string",
        ),
        (b'{"version": 1, "results": [{"nodeid": "caf\xe9"}]}', "is not UTF-8"),
        ('{"version": 1, "results": []}'.encode("utf-16"), "is not UTF-8"),
        ("[" * 100_000 + "]" * 100_000, "nested too deep"),
        (
            '{"version": 1, "results": [{"nodeid": "a", "key": "k", "index": ' + "9" * 5000 + "}]}",
            "is not a trajectory report",
        ),
        (
            '{"version": 1, "results": [{"nodeid": "a", "key": "k", "index": "zero"}]}',
            "result 0, field 'index': expected a whole number",
        ),
        (
            '{"version": 1, "results": [{"nodeid": "a", "key": "k", "index": 10000000}]}',
            "result 0, field 'index': expected a whole number",
        ),
        (
            '{"version": 1, "results": [{"nodeid": "a", "key": "k", "pass_rate": "0.9"}]}',
            "result 0, field 'pass_rate': expected a number from 0 to 1, got '0.9'",
        ),
        (
            '{"version": 1, "results": [{"nodeid": "a", "key": "k", "passed": "yes"}]}',
            "result 0, field 'passed': expected true or false",
        ),
        ('{"version": 1, "results": [], "settings": []}', "field 'settings': expected an object"),
        (
            '{"version": 1, "results": [], "complete": false, "incomplete_reason": "interrupted"}',
            "did not finish ('interrupted')",
        ),
    ],
)
def test_bad_baselines(tmp_path: Path, text: str | bytes, fragment: str) -> None:
    path = tmp_path / "base.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    with pytest.raises(BaselineError, match=r"base\.json") as caught:
        load_baseline(path)
    assert fragment in str(caught.value)


def test_missing_baseline(tmp_path: Path) -> None:
    with pytest.raises(BaselineError, match="does not exist"):
        load_baseline(tmp_path / "nope.json")


def test_good_baseline_loads(tmp_path: Path) -> None:
    path = tmp_path / "base.json"
    path.write_text(json.dumps(base(rec("a", True))), encoding="utf-8")
    assert load_baseline(path)["results"][0]["nodeid"] == "t.py::a"
