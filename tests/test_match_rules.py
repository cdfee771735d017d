"""Args rules (``core/matching/rules.py``) beyond the four modes: "exact except these keys" (per
tool and for every tool) and callable overrides that say why they refuse."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pytest

from pytest_agenttraj import (
    MatchReport,
    TrajectoryMismatch,
    assert_trajectory,
    create_trajectory_match_evaluator,
    match_trajectories,
    to_trajectory,
)
from pytest_agenttraj.core.matching.rules import make_config
from pytest_agenttraj.render import render_text


def calls(*args: Mapping[str, Any], name: str = "w") -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Weather?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"name": name, "args": dict(a)} for a in args],
        },
    ]


def match(output: Any, reference: Any, **config: Any) -> MatchReport:
    mode = config.pop("mode", "strict")
    args = config.pop("args", "exact")
    overrides = config.pop("overrides", None)
    built = make_config(mode, args, overrides, **config)
    return match_trajectories(to_trajectory(output), to_trajectory(reference), built)


REF = {"city": "SF", "request_id": "r-1", "meta": {"ts": 100, "v": 2}}
OUT = {"city": "SF", "request_id": "r-2", "meta": {"ts": 999, "v": 2}}


def test_exact_except_the_ignored_keys() -> None:
    assert not match(calls(OUT), calls(REF)).matched
    assert match(calls(OUT), calls(REF), ignore_keys=["request_id", "meta.ts"]).matched
    override = {"w": {"ignore_keys": ["request_id", "meta.ts"]}}
    assert match(calls(OUT), calls(REF), overrides=override).matched
    # everything else is still compared exactly
    changed = {**OUT, "meta": {"ts": 1, "v": 3}}
    report = match(calls(changed), calls(REF), overrides=override)
    assert [p.text for p in report.problems] == [
        "message 1: tool call 'w' args differ (exact except [request_id, meta.ts]): meta.v "
        "expected 2, got 3"
    ]
    assert not match(calls({**OUT, "extra": 1}), calls(REF), overrides=override).matched


def test_an_ignored_key_may_be_absent_on_either_side() -> None:
    ignore = ["request_id", "meta.ts"]
    assert match(calls({"city": "SF", "meta": {"v": 2}}), calls(REF), ignore_keys=ignore).matched
    assert match(calls(OUT), calls({"city": "SF", "meta": {"v": 2}}), ignore_keys=ignore).matched
    # a path into something that is not a dict leaves it alone
    assert not match(
        calls({"city": "SF", "meta": 5}), calls({"city": "SF", "meta": 6}), ignore_keys=["meta.ts"]
    ).matched


@pytest.mark.parametrize("mode", ["strict", "unordered", "subset", "superset", "in_order"])
def test_ignore_keys_in_every_mode_and_with_parallel_calls(mode: str) -> None:
    output = calls({"q": "a", "rid": 1}, {"q": "b", "rid": 2})
    reference = calls({"q": "b", "rid": 7}, {"q": "a", "rid": 8})
    assert not match(output, reference, mode=mode).matched
    report = match(output, reference, mode=mode, ignore_keys=["rid"])
    assert report.matched
    assert sorted((o.call.args["q"], r.call.args["q"]) for o, r in report.pairs) == [
        ("a", "a"),
        ("b", "b"),
    ]


def test_global_ignore_keys_apply_to_every_mode_rule() -> None:
    reference = calls({"q": "a", "rid": 1})
    # subset args: the output may leave keys out; an ignored key may differ or be extra
    assert match(calls({"rid": 5}), reference, args="subset", ignore_keys=["rid"]).matched
    assert match(
        calls({"q": "a", "rid": 5}), calls({"q": "a"}), args="subset", ignore_keys=["rid"]
    ).matched
    # superset args and a mode-string override too
    assert match(
        calls({"q": "a", "rid": 2, "x": 0}), reference, args="superset", ignore_keys=["rid"]
    ).matched
    overrides = {"w": "superset"}
    config = make_config("strict", "exact", overrides, ignore_keys=["rid"])
    assert config.rule_for("w").describe() == "superset except [rid]"
    assert config.rule_for("other").describe() == "exact except [rid]"
    # an ignore_keys override adds its own paths to the global ones
    both = make_config(overrides={"w": {"ignore_keys": ["ts"]}}, ignore_keys=["rid"])
    assert both.rule_for("w").describe() == "exact except [rid, ts]"
    # key lists and callables compare what they say
    keys = make_config(overrides={"w": ["rid"]}, ignore_keys=["rid"])
    assert keys.rule_for("w").describe() == "keys [rid]"
    assert not match(
        calls({"rid": 2}), calls({"rid": 1}), overrides={"w": ["rid"]}, ignore_keys=["rid"]
    ).matched


def test_the_evaluator_and_the_assertion_take_ignore_keys() -> None:
    evaluator = create_trajectory_match_evaluator(ignore_keys=["request_id", "meta.ts"])
    assert evaluator(outputs=calls(OUT), reference_outputs=calls(REF))["score"] is True
    assert assert_trajectory(calls(OUT), calls(REF), ignore_keys=["request_id", "meta.ts"])


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([""], "invalid ignore_keys ['']: must be a list of key names"),
        (["a..b"], "invalid ignore_keys ['a..b']"),
        ([3], "invalid ignore_keys [3]"),
        ({"a": 1}, "invalid ignore_keys {'a': 1}"),
    ],
)
def test_bad_ignore_keys_are_refused(value: Any, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        create_trajectory_match_evaluator(ignore_keys=value)
    with pytest.raises(ValueError, match=re.escape("tool_args_match_overrides['w']")):
        create_trajectory_match_evaluator(tool_args_match_overrides={"w": {"ignore_keys": value}})


def test_one_string_is_one_path() -> None:
    assert make_config(ignore_keys="meta.ts").ignore_keys == ("meta.ts",)


# ---------------------------------------------------------------- callables that explain


def in_sf(output: dict[str, Any], reference: dict[str, Any]) -> tuple[bool, str]:
    if output.get("city") == reference.get("city"):
        return True, "same city"
    return False, f"{output.get('city')!r} is not in the Bay Area"


def test_a_callable_reason_appears_in_the_problem_the_comment_and_the_diff() -> None:
    report = match(calls({"city": "NYC"}), calls({"city": "SF"}), overrides={"w": in_sf})
    assert not report.matched
    problem = report.problems[0]
    assert problem.text == (
        "message 1: tool call 'w' args differ (callable in_sf): 'NYC' is not in the Bay Area; "
        "city expected 'SF', got 'NYC'"
    )
    assert problem.call is not None
    assert problem.call.reason == "'NYC' is not in the Bay Area"
    assert "'NYC' is not in the Bay Area" in str(report.comment())
    text = render_text(report)
    assert (
        "  1. message 1: tool call 'w' args differ (callable in_sf)\n"
        "       callable in_sf said: 'NYC' is not in the Bay Area\n"
        "       - city: 'SF'\n"
        "       + city: 'NYC'"
    ) in text
    assert match(calls({"city": "SF"}), calls({"city": "SF"}), overrides={"w": in_sf}).matched


def test_a_reason_alone_when_the_args_are_equal() -> None:
    def never(output: dict[str, Any], reference: dict[str, Any]) -> tuple[bool, str]:
        return output is None and reference is None, "this tool must not be used"

    report = match(calls({"a": 1}), calls({"a": 1}), overrides={"w": never})
    assert report.problems[0].text.endswith("(callable never): this tool must not be used")
    text = render_text(report)
    assert "callable never said: this tool must not be used" in text
    assert "override returned False" not in text


def test_bool_answers_keep_working() -> None:
    def equal(output: dict[str, Any], reference: dict[str, Any]) -> bool:
        return output == reference

    report = match(calls({"a": 1}), calls({"a": 2}), overrides={"w": equal})
    assert report.problems[0].text.endswith("(callable equal): a expected 2, got 1")
    assert report.problems[0].call is not None
    assert report.problems[0].call.reason is None


def test_the_result_and_the_mismatch_carry_the_reason() -> None:
    evaluator = create_trajectory_match_evaluator(tool_args_match_overrides={"w": in_sf})
    result = evaluator(outputs=calls({"city": "LA"}), reference_outputs=calls({"city": "SF"}))
    assert "'LA' is not in the Bay Area" in str(result["comment"])
    with pytest.raises(TrajectoryMismatch, match="callable in_sf said: 'LA' is not in the Bay"):
        assert_trajectory(calls({"city": "LA"}), calls({"city": "SF"}), overrides={"w": in_sf})


@pytest.mark.parametrize(
    "overrides",
    [
        {"w": "superset"},
        {"w": ["a", "b.c"]},
        {"w": {"ignore_keys": ["ts"]}},
        {"w": in_sf},
        {"w": "ignore"},
    ],
)
@pytest.mark.parametrize("ignore_keys", [(), ("rid",)])
def test_a_rule_rebuilds_from_its_override_form(overrides: Any, ignore_keys: Any) -> None:
    config = make_config("strict", "exact", overrides, ignore_keys=ignore_keys)
    rule = config.rule_for("w")
    again = make_config("strict", "exact", {"w": rule.as_override()}, ignore_keys=ignore_keys)
    assert again.rule_for("w") == rule
