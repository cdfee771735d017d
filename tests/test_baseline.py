"""baseline.compare and load_baseline, without pytest runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttraj.errors import BaselineError
from pytest_agenttraj.gating.baseline import compare
from pytest_agenttraj.gating.baseline_file import load_baseline

PLAIN = {"kind": "value"}
MATCH = {"kind": "trajectory", "mode": "strict", "tool_args": "exact", "allow_empty": False}


def rec(name: str, passed: bool, score: Any = None, index: int = 0, **extra: Any) -> dict[str, Any]:
    return {
        "nodeid": f"t.py::{name}",
        "key": "k",
        "index": index,
        "passed": passed,
        "score": passed if score is None else score,
        "settings": PLAIN,
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
    before = rec("a", True, key="trajectory_strict_match", settings=MATCH)
    after = rec(
        "a", False, key="trajectory_unordered_match", settings={**MATCH, "mode": "unordered"}
    )
    comparison = compare(base(before), [after], settings={"mode": "unordered"})
    assert [(c.label(), c.reason) for c in comparison.not_comparable] == [
        (
            "t.py::a trajectory_unordered_match",
            "judged under other settings: mode strict -> unordered; passed -> failed",
        )
    ]
    assert comparison.new == comparison.vanished == comparison.regressions == []
    assert comparison.failed
    accepted = compare(base(before), [after], allow_changed_settings=True)
    assert [c.reason for c in accepted.regressions] == [
        "passed -> failed (judged under other settings: mode strict -> unordered)"
    ]


@pytest.mark.parametrize(
    ("change", "shown"),
    [
        ({"mode": "superset"}, "mode strict -> superset"),
        ({"mode": "in_order"}, "mode strict -> in_order"),
        ({"tool_args": "ignore"}, "tool_args exact -> ignore"),
        ({"tool_args": "subset"}, "tool_args exact -> subset"),
        ({"overrides": {"search": "ignore"}}, 'overrides (none) -> {"search": "ignore"}'),
        ({"ignore_keys": ["ts"]}, "ignore_keys (none) -> [ts]"),
        ({"allow_empty": True}, "allow_empty false -> true"),
        ({"matchers": ["search.q: ANY"]}, "matchers (none) -> [search.q: ANY]"),
        ({"usage": {"forbidden": []}}, 'usage (none) -> {"forbidden": []}'),
        ({"repeat": 3, "pass_rule": "majority"}, "pass_rule (none) -> majority, repeat"),
        ({"min_score": 0.5}, "min_score (none) -> 0.5"),
        ({"kind": "graded"}, "kind trajectory -> graded"),
    ],
)
def test_a_result_judged_under_looser_or_other_settings_is_not_comparable(
    change: dict[str, Any], shown: str
) -> None:
    """Every change that is not known to tighten the check makes a result not comparable, even
    when it still passes: the change it judges may have loosened the check that passes it."""
    comparison = compare(
        base(rec("a", True, settings=MATCH)), [rec("a", True, settings={**MATCH, **change})]
    )
    (change_seen,) = comparison.not_comparable
    assert change_seen.reason.startswith(f"judged under other settings: {shown}")
    assert change_seen.reason.endswith("; passed -> passed")
    assert comparison.failed
    assert comparison.unchanged == 0
    assert (
        compare(
            base(rec("a", True, settings=MATCH)),
            [rec("a", True, settings={**MATCH, **change})],
            allow_changed_settings=True,
        ).failures
        == []
    )


def test_a_judges_prompt_or_model_that_changed_is_named() -> None:
    judge = {"model": "ChatX(a)", "model_params": "1111", "prompt": "aaaa", "setup": "bbbb"}
    before = rec("a", True, settings={"kind": "judge", "judge": judge})
    after = rec("a", True, settings={"kind": "judge", "judge": {**judge, "prompt": "cccc"}})
    (change,) = compare(base(before), [after]).not_comparable
    assert (
        change.reason == "judged under other settings: judge.prompt aaaa -> cccc; passed -> passed"
    )


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ({"tool_args": "ignore"}, {"tool_args": "exact"}),
        ({"tool_args": "subset"}, {"tool_args": "exact"}),
        ({"tool_args": "ignore"}, {"tool_args": "superset"}),
        ({"ignore_keys": ["a", "b"]}, {"ignore_keys": ["a"]}),
        ({"ignore_keys": ["a"]}, {}),
        ({"allow_empty": True}, {"allow_empty": False}),
        ({"min_score": 0.5}, {"min_score": 0.8}),
        ({"min_score": 0.5}, {}),  # no threshold is 1
        (
            {"tool_args": "ignore", "allow_empty": True},
            {"tool_args": "subset", "allow_empty": False},
        ),
    ],
)
def test_settings_that_only_tighten_are_compared(
    before: dict[str, Any], after: dict[str, Any]
) -> None:
    old = rec("a", True, settings={**MATCH, **before})
    new = rec("a", False, settings={**MATCH, **after})
    comparison = compare(base(old), [new])
    assert comparison.not_comparable == []
    (regression,) = comparison.regressions  # compared, so a fall is a regression
    assert "(tightened: " in regression.reason
    kept = compare(base(old), [rec("a", True, settings={**MATCH, **after})])
    assert not kept.failed
    assert kept.unchanged == 1
    assert [c.reason.split(" (")[0] for c in kept.other_settings] == ["passed -> passed"]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ({"tool_args": "exact"}, {"tool_args": "subset"}),
        ({"tool_args": "subset"}, {"tool_args": "superset"}),
        ({"ignore_keys": ["a"]}, {"ignore_keys": ["b"]}),
        ({"min_score": 0.8}, {"min_score": 0.5}),
        ({"tool_args": "ignore", "mode": "strict"}, {"tool_args": "exact", "mode": "unordered"}),
    ],
)
def test_a_change_that_loosens_anywhere_is_not_comparable(
    before: dict[str, Any], after: dict[str, Any]
) -> None:
    old = rec("a", True, settings={**MATCH, **before})
    new = rec("a", True, settings={**MATCH, **after})
    assert len(compare(base(old), [new]).not_comparable) == 1


def test_args_modes_tighten_only_for_trajectory_matches() -> None:
    graded = {"kind": "graded", "mode": "any_order", "tool_args": "ignore"}
    old = rec("a", True, score=0.9, settings=graded)
    new = rec("a", True, score=0.9, settings={**graded, "tool_args": "exact"})
    assert len(compare(base(old), [new]).not_comparable) == 1


def test_a_baseline_result_without_settings_is_not_comparable() -> None:
    """A report of an earlier version says nothing of the settings its results were judged
    under: none of them can vouch for this run."""
    old = {k: v for k, v in rec("a", True).items() if k != "settings"}
    new = rec("a", True, settings={**MATCH, "mode": "superset"})
    comparison = compare(base(old), [new])
    (change,) = comparison.not_comparable
    assert change.reason == (
        "the baseline does not record the settings it was judged under (a report of an earlier "
        "pytest-agenttraj); now allow_empty=false, mode=superset, tool_args=exact; "
        "passed -> passed"
    )
    assert comparison.lines()[-2:] == [
        "baseline: 0 regressed, 0 improved, 0 new, 0 vanished, 1 not comparable, 0 unchanged",
        "not comparable: judged under other settings than the baseline's, so a pass says "
        "nothing (the change may have loosened the check); make a new baseline with these "
        "settings, or pass --trajectory-allow-changed-settings to judge them anyway",
    ]
    assert not compare(base(old), [new], allow_changed_settings=True).failed


def test_equal_fingerprints_are_the_same_settings() -> None:
    old = {**rec("a", True), "settings_id": "abc"}
    old.pop("settings")
    new = {**rec("a", True, settings=MATCH), "settings_id": "abc"}
    assert compare(base(old), [new]).unchanged == 1


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
            '{"version": 1, "results": [{"nodeid": "a", "key": "k", "settings": "strict"}]}',
            "result 0, field 'settings': expected an object, got 'strict'",
        ),
        (
            '{"version": 1, "results": [{"nodeid": "a", "key": "k", "settings_id": 7}]}',
            "result 0, field 'settings_id': expected a string, got 7",
        ),
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
