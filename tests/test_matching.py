"""``match_trajectories``: verdicts, problems (kind, text, message indices) and pairs, per mode.

Every trajectory mode is checked with every args mode, once where the trajectories must match and
once where they must not; then each mode's specifics, optimal pairing, overrides and JSON value
semantics.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from pytest_agenttraj import (
    MatchReport,
    create_trajectory_match_evaluator,
    match_trajectories,
    to_trajectory,
)
from pytest_agenttraj.core.matching.explain import EXPLAINED
from pytest_agenttraj.core.matching.rules import make_config
from pytest_agenttraj.evaluators.trajectory import evaluate_trajectory

Args = dict[str, Any]
Call = tuple[str, Args]


def call(name: str, **args: Any) -> Call:
    return name, args


def user(text: str = "Weather in SF?") -> dict[str, Any]:
    return {"role": "user", "content": text}


def ai(*calls: Call, content: str = "") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "tool_calls": [{"name": name, "args": args} for name, args in calls],
    }


def tool(content: str = "result") -> dict[str, Any]:
    return {"role": "tool", "content": content, "tool_call_id": "1"}


def final(text: str = "Done.") -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def match(
    output: Any,
    reference: Any,
    mode: str = "strict",
    args: str = "exact",
    overrides: Mapping[str, Any] | None = None,
) -> MatchReport:
    return match_trajectories(
        to_trajectory(output), to_trajectory(reference), make_config(mode, args, overrides)
    )


def kinds(report: MatchReport) -> list[str]:
    return [p.kind for p in report.problems]


def texts(report: MatchReport) -> list[str]:
    return [p.text for p in report.problems]


def pairs(report: MatchReport) -> list[tuple[int, int, int, int]]:
    """(output message, position, reference message, position) for each paired call."""
    return [(o.message, o.position, r.message, r.position) for o, r in report.pairs]


def assert_matched(report: MatchReport) -> None:
    assert report.matched, texts(report)
    assert report.problems == ()
    assert report.comment() is None


# ---------------------------------------------------------------- 4 modes x 4 args modes
#
# Per args mode: the call the output makes and the reference's call, once so that they match
# under that args mode and once so that they do not, with the problem text expected.

SF = {"city": "SF"}
SF_C = {"city": "SF", "unit": "C"}

ARGS_CASES: dict[str, tuple[Call, Call, Call, Call, str]] = {
    # args mode: (matching out, matching ref, mismatching out, mismatching ref, problem text)
    "exact": (
        ("f", SF),
        ("f", SF),
        ("f", SF_C),
        ("f", SF),
        "message 1: tool call 'f' args differ (exact): unit not expected (got 'C')",
    ),
    "ignore": (
        ("f", {"city": "NYC", "x": 1}),
        ("f", SF),
        ("h", SF),
        ("f", SF),
        "",  # a different tool: unexpected / missing call, checked per mode below
    ),
    "subset": (
        ("f", SF),
        ("f", SF_C),
        ("f", SF_C),
        ("f", SF),
        "message 1: tool call 'f' args differ (subset): unit not expected (got 'C')",
    ),
    "superset": (
        ("f", SF_C),
        ("f", SF),
        ("f", SF),
        ("f", SF_C),
        "message 1: tool call 'f' args differ (superset): unit missing (expected 'C')",
    ),
}


def layouts(mode: str, out_call: Call, ref_call: Call) -> tuple[list[Any], list[Any]]:
    """Trajectories in which ``out_call``/``ref_call`` sit in message 1 of each side, shaped so
    that everything else matches under ``mode`` (and only under looser modes)."""
    g = call("g", n=1)
    if mode == "strict":
        return [user(), ai(out_call), tool(), final()], [user(), ai(ref_call), tool(), final()]
    if mode == "unordered":  # same calls, different message structure and order
        return (
            [user(), ai(out_call, g), tool(), tool(), final()],
            [user(), ai(ref_call), tool(), ai(g), tool(), final()],
        )
    if mode == "subset":  # the output does less than the reference
        return (
            [user(), ai(out_call), tool(), final()],
            [user(), ai(ref_call), tool(), ai(g), tool(), final()],
        )
    assert mode == "superset"  # the output does more than the reference
    return (
        [user(), ai(out_call), tool(), ai(g), tool(), final()],
        [user(), ai(ref_call), tool(), final()],
    )


MODES = ("strict", "unordered", "subset", "superset")
ARGS_MODES = ("exact", "ignore", "subset", "superset")


@pytest.mark.parametrize("args_mode", ARGS_MODES)
@pytest.mark.parametrize("mode", MODES)
def test_mode_and_args_mode_match(mode: str, args_mode: str) -> None:
    out_call, ref_call, *_ = ARGS_CASES[args_mode]
    output, reference = layouts(mode, out_call, ref_call)
    report = match(output, reference, mode, args_mode)
    assert_matched(report)
    assert report.key == f"trajectory_{mode}_match"
    # the call under test always pairs: output message 1 position 0 with reference message 1
    assert (1, 0, 1, 0) in pairs(report)
    expected_pairs = {"strict": 1, "unordered": 2, "subset": 1, "superset": 1}[mode]
    assert len(report.pairs) == expected_pairs


@pytest.mark.parametrize("args_mode", ARGS_MODES)
@pytest.mark.parametrize("mode", MODES)
def test_mode_and_args_mode_mismatch(mode: str, args_mode: str) -> None:
    *_, out_call, ref_call, text = ARGS_CASES[args_mode]
    output, reference = layouts(mode, out_call, ref_call)
    report = match(output, reference, mode, args_mode)
    assert not report.matched
    assert (1, 0, 1, 0) not in pairs(report)
    comment = report.comment()
    assert comment is not None
    if args_mode != "ignore":
        assert kinds(report) == ["args_mismatch"]
        assert texts(report) == [text]
        problem = report.problems[0]
        assert (problem.output_index, problem.reference_index) == (1, 1)
        assert "'f'" in comment
        assert "unit" in comment
        return
    # ignore args: only a different tool name can fail
    unexpected = "message 1: unexpected tool call h(city='SF'); the reference has no call to 'h'"
    missing = (
        "reference message 1: tool call f(city='SF') is missing; the output has no call to 'f'"
    )
    expected = {
        "strict": [
            unexpected.replace("the reference", "reference message 1"),
            missing.replace("the output", "message 1"),
        ],
        "unordered": [unexpected, missing],
        "subset": [unexpected],  # reference calls the output skips are fine
        "superset": [missing],  # output calls the reference lacks are fine
    }[mode]
    assert texts(report) == expected


# ---------------------------------------------------------------- strict specifics


def test_strict_role_mismatch_text() -> None:
    reference = [user(), ai(call("f"), call("g")), tool(), tool(), final()]
    output = [user(), ai(call("f"), call("g")), tool(), final("early"), final()]
    report = match(output, reference)
    assert kinds(report) == ["role"]
    assert texts(report) == ["message 3: expected role 'tool', got 'assistant'"]
    problem = report.problems[0]
    assert (problem.output_index, problem.reference_index) == (3, 3)
    assert pairs(report) == [(1, 0, 1, 0), (1, 1, 1, 1)]


def test_strict_missing_message_is_located_by_the_alignment() -> None:
    reference = [user(), ai(call("f", x=1)), tool(), ai(call("g")), tool(), final()]
    output = [user(), ai(call("f", x=1)), tool(), final()]
    report = match(output, reference)
    assert kinds(report) == ["length", "missing_message", "missing_message"]
    assert texts(report) == [
        "expected 6 messages, got 4",
        "reference message 3 (assistant calling [g]) is missing from the output",
        "reference message 4 (tool: 'result') is missing from the output",
    ]
    assert [p.reference_index for p in report.problems[1:]] == [3, 4]
    assert report.alignment == ((0, 0), (1, 1), (2, 2), (None, 3), (None, 4), (3, 5))
    assert pairs(report) == [(1, 0, 1, 0)]


def test_strict_extra_message_is_located_by_the_alignment() -> None:
    reference = [user(), ai(call("f")), tool(), final()]
    output = [user(), ai(call("f")), tool(), tool("again"), final()]
    report = match(output, reference)
    assert kinds(report) == ["length", "extra_message"]
    assert texts(report) == [
        "expected 4 messages, got 5",
        "message 3 (tool: 'again') is not in the reference",
    ]
    assert report.problems[1].output_index == 3
    assert report.alignment == ((0, 0), (1, 1), (2, 2), (3, None), (4, 3))


def test_strict_tool_calls_expected_but_absent() -> None:
    report = match([user(), final("I don't know")], [user(), ai(call("f"), call("g"))])
    assert kinds(report) == ["tool_calls_presence"]
    assert texts(report) == ["message 1: expected tool calls [f, g], got none"]


def test_strict_tool_calls_present_but_not_expected() -> None:
    report = match([user(), ai(call("f"))], [user(), final()])
    assert texts(report) == ["message 1: expected no tool calls, got tool calls [f]"]


def test_strict_empty_tool_calls_list_counts_as_no_calls() -> None:
    output = [user(), {"role": "assistant", "content": "hi", "tool_calls": []}]
    assert_matched(match(output, [user(), final("hello")]))


def test_strict_parallel_calls_are_a_multiset() -> None:
    output = [user(), ai(call("g", n=2), call("f", n=1), call("f", n=2)), tool(), tool(), tool()]
    reference = [user(), ai(call("f", n=2), call("f", n=1), call("g", n=2)), tool(), tool(), tool()]
    report = match(output, reference)
    assert_matched(report)
    assert sorted(pairs(report)) == [(1, 0, 1, 2), (1, 1, 1, 1), (1, 2, 1, 0)]


def test_strict_parallel_calls_with_a_different_multiset() -> None:
    report = match(
        [user(), ai(call("f", a=1), call("f", a=1))], [user(), ai(call("f", a=1), call("g"))]
    )
    assert kinds(report) == ["unexpected_call", "missing_call"]
    assert texts(report) == [
        "message 1: unexpected tool call f(a=1); every call to 'f' in reference message 1 "
        "already pairs with another call",
        "reference message 1: tool call g() is missing; message 1 has no call to 'g'",
    ]
    detail = report.problems[0].call
    assert detail is not None
    assert detail.closest is not None
    assert (detail.closest.message, detail.closest.position) == (1, 0)
    assert detail.closest_paired is True
    assert pairs(report) == [(1, 0, 1, 0)]


def test_strict_calls_are_compared_per_message() -> None:
    output = [user(), ai(call("g")), tool(), ai(call("f")), tool()]
    reference = [user(), ai(call("f")), tool(), ai(call("g")), tool()]
    report = match(output, reference)
    assert not report.matched
    assert kinds(report) == ["unexpected_call", "missing_call", "unexpected_call", "missing_call"]
    assert [(p.output_index, p.reference_index) for p in report.problems] == [
        (1, None),
        (None, 1),
        (3, None),
        (None, 3),
    ]
    assert_matched(match(output, reference, "unordered"))


def test_strict_ignores_content_and_ids() -> None:
    output = [
        HumanMessage("What's the weather in SF?"),
        AIMessage("Let me look.", tool_calls=[{"name": "f", "args": {"a": 1}, "id": "call_x"}]),
        ToolMessage("sunny", tool_call_id="call_x"),
        AIMessage("Sunny!"),
    ]
    reference = [
        user("weather?"),
        ai(call("f", a=1)),
        {"role": "tool", "content": "whatever"},
        final("It is sunny."),
    ]
    assert_matched(match(output, reference))


def test_strict_both_empty() -> None:
    for mode in MODES:
        assert_matched(match([], [], mode))


def test_strict_mismatch_comment_names_first_problem_and_counts_the_rest() -> None:
    report = match([user()], [user(), ai(call("f")), tool()])
    assert report.comment() == (
        "Trajectory does not match the reference (strict mode, exact args): "
        "expected 3 messages, got 1. 2 more problems not shown."
    )


# ---------------------------------------------------------------- unordered / subset / superset


def test_unordered_ignores_message_structure() -> None:
    output = [user(), ai(call("g", n=1), call("f", n=1)), tool(), tool(), final()]
    reference = [user(), ai(call("f", n=1)), tool(), ai(call("g", n=1)), tool(), final()]
    report = match(output, reference, "unordered")
    assert_matched(report)
    assert pairs(report) == [(1, 0, 3, 0), (1, 1, 1, 0)]


def test_unordered_extra_call_with_closest_already_paired() -> None:
    output = [user(), ai(call("f", x=1), call("f", x=1))]
    reference = [user(), ai(call("f", x=1))]
    report = match(output, reference, "unordered")
    assert kinds(report) == ["unexpected_call"]
    assert texts(report) == [
        "message 1: unexpected tool call f(x=1); every reference call to 'f' already pairs with "
        "another call"
    ]
    problem = report.problems[0]
    assert problem.call is not None
    assert problem.call.side == "output"
    assert problem.call.closest is not None
    assert problem.call.closest.call.args == {"x": 1}
    assert problem.call.closest_paired is True
    assert problem.call.diffs == ()
    assert pairs(report) == [(1, 0, 1, 0)]


def test_unordered_extra_call_of_an_unknown_tool_has_no_closest() -> None:
    report = match([user(), ai(call("f"), call("h", q="x"))], [user(), ai(call("f"))], "unordered")
    assert texts(report) == [
        "message 1: unexpected tool call h(q='x'); the reference has no call to 'h'"
    ]
    problem = report.problems[0]
    assert problem.call is not None
    assert problem.call.closest is None
    assert problem.call.closest_paired is False
    assert (problem.output_index, problem.reference_index) == (1, None)


def test_unordered_missing_call_with_closest_already_paired() -> None:
    output = [user(), ai(call("f", x=1))]
    reference = [user(), ai(call("f", x=1)), tool(), ai(call("f", x=2))]
    report = match(output, reference, "unordered")
    assert kinds(report) == ["missing_call"]
    assert texts(report) == [
        "reference message 3: tool call f(x=2) is missing; every output call to 'f' already pairs "
        "with another call"
    ]
    problem = report.problems[0]
    assert problem.call is not None
    assert problem.call.side == "reference"
    assert problem.call.closest is not None
    assert (problem.call.closest.message, problem.call.closest.position) == (1, 0)
    assert problem.call.closest_paired is True
    # the diff reads from the output's side: the paired output call has x=1, the reference x=2
    [diff] = problem.call.diffs
    assert (diff.path, diff.kind, diff.expected, diff.actual) == ("x", "changed", 2, 1)
    assert (problem.output_index, problem.reference_index) == (1, 3)


def test_unordered_unpaired_calls_of_the_same_tool_become_one_args_problem() -> None:
    output = [user(), ai(call("f", city="SF", unit="C"))]
    reference = [user(), ai(call("f", city="SF", unit="F"))]
    report = match(output, reference, "unordered")
    assert kinds(report) == ["args_mismatch"]
    assert texts(report) == [
        "message 1: tool call 'f' args differ (exact): unit expected 'F', got 'C'"
    ]
    detail = report.problems[0].call
    assert detail is not None
    assert detail.closest_paired is False


def test_second_unpaired_call_does_not_claim_the_tool_is_absent() -> None:
    report = match(
        [user(), ai(call("f", x=2), call("f", x=3))], [user(), ai(call("f", x=1))], "unordered"
    )
    assert kinds(report) == ["args_mismatch", "unexpected_call"]
    assert "the reference has no call to 'f'" not in report.problems[1].text
    assert report.problems[1].text == (
        "message 1: unexpected tool call f(x=3); every reference call to 'f' already pairs "
        "with another call"
    )


@pytest.mark.parametrize("extra", ["output", "reference"])
def test_problems_past_the_first_ones_are_set_beside_a_call_unexplained(extra: str) -> None:
    n = EXPLAINED + 5
    outputs = [call("f", q=f"out {i}", n=i) for i in range(n)]
    references = [call("f", q=f"ref {i}", n=i) for i in range(n)]
    longer = outputs if extra == "output" else references
    longer.append(call("f", q="spare", n=-1))
    report = match([user(), ai(*outputs)], [user(), ai(*references)], "unordered")
    assert report.matched is False
    details = [p.call for p in report.problems]
    assert all(d is not None for d in details)
    explained = [d for d in details if d is not None and d.explained]
    assert len(explained) == EXPLAINED
    assert details[:EXPLAINED] == explained
    # each explained problem names the closest call and what differs
    assert all(d.closest is not None and d.diffs for d in explained)
    assert report.problems[0].text == (
        "message 1: tool call 'f' args differ (exact): q expected 'ref 0', got 'out 0'"
    )
    # past the limit: beside the first unused call, nothing compared, every unpaired call named
    later = report.problems[EXPLAINED:]
    assert [p.kind for p in later] == ["args_mismatch"] * 5 + [
        f"{'unexpected' if extra == 'output' else 'missing'}_call"
    ]
    for offset, problem in enumerate(later[:5], start=EXPLAINED):
        assert problem.call is not None
        assert problem.call.diffs == ()
        assert problem.call.call.call.args["n"] == offset
        assert problem.call.closest is not None
        assert problem.call.closest.call.args["n"] == offset
        assert "not compared in detail" in problem.text
    last = later[-1].call
    assert last is not None
    assert last.call.call.args["q"] == "spare"
    assert last.closest_paired
    assert last.closest is not None


def test_strict_unpaired_call_text_does_not_deny_calls_in_other_messages() -> None:
    output = [user(), ai(call("g")), tool(), ai(call("f")), tool()]
    reference = [user(), ai(call("f")), tool(), ai(call("g")), tool()]
    report = match(output, reference)
    assert "the reference has no call to 'g'" not in report.problems[0].text
    assert "the output has no call to 'f'" not in report.problems[1].text
    assert report.problems[0].text.endswith("; reference message 1 has no call to 'g'")


def test_a_value_whose_repr_raises_does_not_break_the_report() -> None:
    class Unprintable:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

    report = match([user(), ai(call("f", v=Unprintable()))], [user()], "unordered")
    assert report.problems[0].text == (
        "message 1: unexpected tool call f(v=<unprintable Unprintable>); "
        "the reference has no call to 'f'"
    )


def test_subset_output_may_do_less() -> None:
    output = [user(), ai(call("g", n=1)), tool(), final()]
    reference = [user(), ai(call("f", n=1)), tool(), ai(call("g", n=1)), tool(), final()]
    report = match(output, reference, "subset")
    assert_matched(report)
    assert pairs(report) == [(1, 0, 3, 0)]


def test_subset_extra_output_calls_are_problems() -> None:
    output = [user(), ai(call("g", n=1), call("g", n=1), call("h"))]
    reference = [user(), ai(call("f", n=1)), tool(), ai(call("g", n=1))]
    report = match(output, reference, "subset")
    assert kinds(report) == ["unexpected_call", "unexpected_call"]
    assert texts(report) == [
        "message 1: unexpected tool call g(n=1); every reference call to 'g' already pairs with "
        "another call",
        "message 1: unexpected tool call h(); the reference has no call to 'h'",
    ]
    first = report.problems[0]
    assert first.call is not None
    assert first.call.closest is not None
    assert (first.call.closest.message, first.call.closest.position) == (3, 0)
    assert first.reference_index == 3


def test_superset_output_may_do_more() -> None:
    output = [user(), ai(call("f", n=1), call("h")), tool(), tool(), ai(call("g", n=1)), final()]
    reference = [user(), ai(call("g", n=1)), tool(), final()]
    report = match(output, reference, "superset")
    assert_matched(report)
    assert pairs(report) == [(4, 0, 1, 0)]


def test_superset_missing_reference_calls_are_problems() -> None:
    output = [user(), ai(call("f", n=1))]
    reference = [user(), ai(call("f", n=1), call("f", n=1)), tool(), tool(), ai(call("g"))]
    report = match(output, reference, "superset")
    assert kinds(report) == ["missing_call", "missing_call"]
    assert texts(report) == [
        "reference message 1: tool call f(n=1) is missing; every output call to 'f' already "
        "pairs with another call",
        "reference message 4: tool call g() is missing; the output has no call to 'g'",
    ]
    assert [p.reference_index for p in report.problems] == [1, 4]


def test_superset_arg_problem_uses_the_free_output_call() -> None:
    output = [user(), ai(call("f", n=2), call("extra"))]
    reference = [user(), ai(call("f", n=1))]
    report = match(output, reference, "superset")
    assert texts(report) == ["message 1: tool call 'f' args differ (exact): n expected 1, got 2"]


# ---------------------------------------------------------------- optimal pairing


@pytest.mark.parametrize("mode", ["strict", "unordered", "superset", "subset"])
def test_first_fit_pairing_would_fail_but_a_maximum_matching_exists(mode: str) -> None:
    # Reference f(a=1, b=2), f(a=1); output f(a=1), f(a=1, b=2). With subset args, first fit pairs
    # output f(a=1) with reference f(a=1, b=2) and is then stuck: f(a=1, b=2) is no subset of
    # f(a=1). Pairing crosswise works.
    output = [user(), ai(call("f", a=1), call("f", a=1, b=2))]
    reference = [user(), ai(call("f", a=1, b=2), call("f", a=1))]
    report = match(output, reference, mode, "subset")
    assert_matched(report)
    assert sorted(pairs(report)) == [(1, 0, 1, 1), (1, 1, 1, 0)]


@pytest.mark.parametrize("mode", MODES)
def test_optimal_pairing_without_equal_args(mode: str) -> None:
    # No two calls have equal args, so only the search finds the pairing: out0 fits both
    # references, out1 only the first; first fit gives the first reference to out0.
    output = [user(), ai(call("f", a=1), call("f", c=3))]
    reference = [user(), ai(call("f", a=1, c=3), call("f", a=1, b=2))]
    report = match(output, reference, mode, "subset")
    assert_matched(report)
    assert sorted(pairs(report)) == [(1, 0, 1, 1), (1, 1, 1, 0)]


@pytest.mark.parametrize("mode", MODES)
def test_optimal_pairing_with_superset_args(mode: str) -> None:
    output = [user(), ai(call("f", a=1, b=2), call("f", a=1, c=3))]
    reference = [user(), ai(call("f", a=1), call("f", c=3))]
    report = match(output, reference, mode, "superset")
    assert_matched(report)
    assert sorted(pairs(report)) == [(1, 0, 1, 0), (1, 1, 1, 1)]


@pytest.mark.parametrize(("mode", "args_mode"), [("subset", "subset"), ("superset", "superset")])
def test_identical_calls_leave_the_only_partner_of_a_specific_one(
    mode: str, args_mode: str
) -> None:
    # Many identical calls fit every call of the other side; one specific call fits only the
    # first. First-fit gives that one to an identical call; the pairing must still cover all.
    many = [call("f", q="x") for _ in range(30)] + [call("f", q="x", id=0)]
    others = [call("f", q="x", id=i) for i in range(31)]
    small, big = (many, others) if mode == "subset" else (others, many)
    report = match([user(), ai(*small)], [user(), ai(*big)], "unordered", args_mode)
    assert_matched(report)
    specific = next(
        p for p in report.pairs if p[0 if mode == "subset" else 1].call.args.get("id") == 0
    )
    assert specific[0].call.args == specific[1].call.args == {"q": "x", "id": 0}
    extra = call("f", q="y")  # fits nothing: exactly one problem
    report = match(
        [user(), ai(*small, extra)] if mode == "subset" else [user(), ai(*small)],
        [user(), ai(*big)] if mode == "subset" else [user(), ai(*big, extra)],
        "unordered",
        args_mode,
    )
    assert not report.matched
    assert [p.kind for p in report.problems] == [
        "unexpected_call" if mode == "subset" else "missing_call"
    ]


def test_optimal_pairing_with_a_callable_override() -> None:
    def close_enough(out: dict[str, Any], ref: dict[str, Any]) -> bool:
        return bool(abs(out["t"] - ref["t"]) <= 1)

    output = [user(), ai(call("f", t=1), call("f", t=2))]
    reference = [user(), ai(call("f", t=2), call("f", t=0))]
    report = match(output, reference, "unordered", overrides={"f": close_enough})
    assert_matched(report)
    assert sorted(pairs(report)) == [(1, 0, 1, 1), (1, 1, 1, 0)]


def test_no_pairing_exists_reports_the_leftover() -> None:
    output = [user(), ai(call("f", a=1), call("f", a=1))]
    reference = [user(), ai(call("f", a=1, b=2), call("f", c=3))]
    report = match(output, reference, "unordered", "subset")
    assert not report.matched
    assert len(report.pairs) == 1
    assert kinds(report) == ["args_mismatch"]
    assert texts(report) == [
        "message 1: tool call 'f' args differ (subset): a not expected (got 1)"
    ]


# ---------------------------------------------------------------- overrides


def test_override_mode_string_applies_to_its_tool_only() -> None:
    output = [user(), ai(call("f", q="anything"), call("g", q="x"))]
    reference = [user(), ai(call("f", q="other"), call("g", q="y"))]
    report = match(output, reference, overrides={"f": "ignore"})
    assert kinds(report) == ["args_mismatch"]
    assert texts(report) == [
        "message 1: tool call 'g' args differ (exact): q expected 'y', got 'x'"
    ]
    assert pairs(report) == [(1, 0, 1, 0)]
    assert_matched(match(output, reference, overrides={"f": "ignore", "g": "ignore"}))


def test_override_mode_string_can_be_stricter_than_the_default() -> None:
    output = [user(), ai(call("f", a=1, b=2))]
    reference = [user(), ai(call("f", a=1))]
    assert_matched(match(output, reference, args="superset"))
    report = match(output, reference, args="superset", overrides={"f": "exact"})
    assert texts(report) == ["message 1: tool call 'f' args differ (exact): b not expected (got 2)"]


def test_override_key_list_compares_only_those_keys() -> None:
    output = [user(), ai(call("search", query="SF weather", city="SF", limit=3))]
    reference = [user(), ai(call("search", query="weather in SF", city="SF"))]
    assert_matched(match(output, reference, overrides={"search": ["city"]}))
    report = match(output, reference, overrides={"search": ["city", "limit"]})
    assert texts(report) == [
        "message 1: tool call 'search' args differ (keys [city, limit]): limit not expected (got 3)"
    ]


def test_override_key_list_with_a_dotted_path() -> None:
    def searching(city: str, days: int) -> list[Any]:
        return [user(), ai(call("search", filters={"city": city, "days": days}, q=str(days)))]

    overrides = {"search": ["filters.city"]}
    assert_matched(match(searching("SF", 3), searching("SF", 5), overrides=overrides))
    report = match(searching("SF", 3), searching("NYC", 3), overrides=overrides)
    assert texts(report) == [
        "message 1: tool call 'search' args differ (keys [filters.city]): filters.city expected "
        "'NYC', got 'SF'"
    ]


def test_override_key_list_missing_key_does_not_match() -> None:
    overrides = {"f": ["filters.city"]}
    report = match([user(), ai(call("f", x=1))], [user(), ai(call("f", x=1))], overrides=overrides)
    assert not report.matched
    assert texts(report) == [
        "message 1: tool call 'f' args differ (keys [filters.city]): filters.city missing on "
        "both sides"
    ]
    report = match(
        [user(), ai(call("f", filters="SF"))],
        [user(), ai(call("f", filters={"city": "SF"}))],
        overrides=overrides,
    )
    assert texts(report) == [
        "message 1: tool call 'f' args differ (keys [filters.city]): filters.city missing "
        "(expected 'SF')"
    ]


def test_override_callable_receives_output_args_then_reference_args() -> None:
    seen: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def matcher(output_args: dict[str, Any], reference_args: dict[str, Any]) -> bool:
        seen.append((output_args, reference_args))
        return bool(output_args["city"].lower() == reference_args["city"].lower())

    output = [user(), ai(call("f", city="sf", side="output"))]
    reference = [user(), ai(call("f", city="SF", side="reference"))]
    for mode in MODES:
        seen.clear()
        assert_matched(match(output, reference, mode, overrides={"f": matcher}))
        assert seen
        assert all(o["side"] == "output" and r["side"] == "reference" for o, r in seen), mode


def test_override_callable_rejection_is_a_problem() -> None:
    def never(_output_args: dict[str, Any], _reference_args: dict[str, Any]) -> bool:
        return False

    report = match(
        [user(), ai(call("f", a=1))], [user(), ai(call("f", a=1))], overrides={"f": never}
    )
    assert texts(report) == [
        "message 1: tool call 'f' args differ (callable never): rejected by callable never"
    ]
    # other tools keep the default rule
    assert_matched(
        match([user(), ai(call("g", a=1))], [user(), ai(call("g", a=1))], overrides={"f": never})
    )


def test_override_for_a_tool_that_is_not_called_is_harmless() -> None:
    report = match(
        [user(), ai(call("f", a=1))], [user(), ai(call("f", a=2))], overrides={"zzz": "ignore"}
    )
    assert kinds(report) == ["args_mismatch"]


# ---------------------------------------------------------------- JSON value semantics


@pytest.mark.parametrize(
    ("output_value", "reference_value", "equal"),
    [
        (True, 1, False),
        (False, 0, False),
        (1, True, False),
        (1, 1.0, True),
        (0, -0.0, True),
        ([1, 2], [1.0, 2], True),
        ((1, 2), [1, 2], True),
        ({"a": 1}, {"a": 1.0}, True),
        ({"a": True}, {"a": 1}, False),
        (None, "", False),
        ("1", 1, False),
        (float("nan"), float("nan"), True),
    ],
)
def test_values_compare_as_json_values(
    output_value: Any, reference_value: Any, equal: bool
) -> None:
    output = [user(), ai(call("f", v=output_value))]
    reference = [user(), ai(call("f", v=reference_value))]
    for mode in MODES:
        for args_mode in ("exact", "subset", "superset"):
            assert match(output, reference, mode, args_mode).matched is equal, (mode, args_mode)
    assert match(output, reference, overrides={"f": ["v"]}).matched is equal


def test_true_is_not_one_is_reported_with_both_values() -> None:
    report = match([user(), ai(call("f", flag=True))], [user(), ai(call("f", flag=1))])
    assert texts(report) == [
        "message 1: tool call 'f' args differ (exact): flag expected 1, got True"
    ]


def test_nested_dict_differences_are_reported_by_dotted_path() -> None:
    output = [user(), ai(call("f", opts={"unit": "C", "days": {"from": 1, "to": 3}, "x": 0}))]
    reference = [user(), ai(call("f", opts={"unit": "F", "days": {"from": 1, "to": 5}, "y": 0}))]
    report = match(output, reference)
    assert texts(report) == [
        "message 1: tool call 'f' args differ (exact): opts.unit expected 'F', got 'C'; "
        "opts.days.to expected 5, got 3; opts.y missing (expected 0); 1 more"
    ]
    detail = report.problems[0].call
    assert detail is not None
    assert [(d.path, d.kind) for d in detail.diffs] == [
        ("opts.unit", "changed"),
        ("opts.days.to", "changed"),
        ("opts.y", "missing"),
        ("opts.x", "unexpected"),
    ]


def test_subset_and_superset_args_compare_nested_values_whole() -> None:
    output = [user(), ai(call("f", opts={"unit": "C"}))]
    reference = [user(), ai(call("f", opts={"unit": "C", "days": 3}))]
    for args_mode in ("subset", "superset"):
        report = match(output, reference, args=args_mode)
        assert not report.matched, args_mode
        assert texts(report) == [
            f"message 1: tool call 'f' args differ ({args_mode}): opts.days missing (expected 3)"
        ]


def test_report_exposes_config_and_trajectories() -> None:
    output = to_trajectory([user()])
    reference = to_trajectory([user("other")])
    report = match_trajectories(output, reference, make_config("subset", "ignore"))
    assert (report.mode, report.tool_args, report.key) == (
        "subset",
        "ignore",
        "trajectory_subset_match",
    )
    assert report.output is output
    assert report.reference is reference


# ---------------------------------------------------------------- shortcuts agree with pairing
#
# Arguments given as JSON text are parsed once per distinct text, and calls sharing that parse
# take shortcuts (positional pairing in strict mode, one-pass pairing otherwise). The same
# trajectories with the arguments as dicts (one object per call) take the general pairing path;
# both must reach the same verdict and the same problems, and every pair must be a valid one.
# The evaluators' entry point decides passing chat dicts and LangChain messages without building
# them (core/fastpath.py): it must agree too, whatever form each side takes.

_ARGS_POOL: list[Args] = [{}, {"city": "SF"}, {"city": "NYC"}, {"q": [1, 2], "deep": {"k": True}}]
_calls = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, len(_ARGS_POOL) - 1)),
    max_size=8,
)


def _as_messages(
    calls: list[tuple[str, int]], groups: list[int], as_text: bool, last: str = "assistant"
) -> list[Any]:
    """Chat messages making ``calls``, in batches of parallel calls sized by ``groups`` (cycled)."""
    messages: list[Any] = [user()]
    position = 0
    sizes = iter(groups * len(calls))
    while position < len(calls):
        size = next(sizes)
        batch = calls[position : position + size]
        position += size
        if as_text:
            raw = [
                {"function": {"name": n, "arguments": json.dumps(_ARGS_POOL[a])}} for n, a in batch
            ]
        else:
            raw = [{"name": n, "args": dict(_ARGS_POOL[a])} for n, a in batch]
        messages.append({"role": "assistant", "content": "", "tool_calls": raw})
        messages.extend(tool() for _ in batch)
    messages.append({"role": last, "content": "Done."})
    return messages


def _as_langchain(messages: list[Any]) -> list[Any]:
    """The dict-args form of ``_as_messages`` as the LangChain messages an agent returns."""
    out: list[Any] = []
    for i, message in enumerate(messages):
        role, content = message["role"], message["content"]
        if role == "assistant":
            calls = [
                {"name": c["name"], "args": c["args"], "id": f"c{i}-{p}", "type": "tool_call"}
                for p, c in enumerate(message.get("tool_calls") or [])
            ]
            out.append(AIMessage(content=content, tool_calls=calls))
        elif role == "tool":
            out.append(ToolMessage(content=content, tool_call_id=f"t{i}"))
        else:
            out.append(HumanMessage(content=content))
    return out


@st.composite
def _trajectory_pairs(draw: st.DrawFn) -> tuple[list[tuple[str, int]], list[int], Any, Any]:
    reference = draw(_calls)
    output = draw(
        st.one_of(
            st.just(list(reference)),
            st.permutations(reference).map(list),
            _calls,
            st.lists(st.sampled_from(reference), max_size=8) if reference else _calls,
        )
    )
    if output and draw(st.booleans()):  # change one call's tool or arguments, in place
        at = draw(st.integers(0, len(output) - 1))
        output[at] = (
            draw(st.sampled_from(["a", "b", "c"])),
            draw(st.integers(0, len(_ARGS_POOL) - 1)),
        )
    return reference, output, draw(st.lists(st.integers(1, 3), max_size=4)), draw(st.booleans())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=_trajectory_pairs(),
    mode=st.sampled_from(["strict", "unordered", "subset", "superset", "in_order"]),
    args_mode=st.sampled_from(["exact", "ignore"]),
    last=st.sampled_from(["assistant", "user"]),
    allow_empty=st.booleans(),
    ignore_keys=st.sampled_from([(), ("city",), ("deep.k", "q")]),
)
def test_shortcuts_agree_with_the_general_pairing(
    data: Any, mode: str, args_mode: str, last: str, allow_empty: bool, ignore_keys: Any
) -> None:
    reference_calls, output_calls, groups, same_groups = data
    ref_groups = groups or [1]
    out_groups = ref_groups if same_groups else [2]
    config = make_config(mode, args_mode, allow_empty=allow_empty, ignore_keys=ignore_keys)
    views = {}
    for as_text in (True, False):
        memo: dict[str, Any] = {}  # shared by both sides, as in one evaluation
        views[as_text] = match_trajectories(
            to_trajectory(_as_messages(output_calls, out_groups, as_text, last), memo=memo),
            to_trajectory(_as_messages(reference_calls, ref_groups, as_text), memo=memo),
            config,
        )
    fast, general = views[True], views[False]
    # the evaluators' entry point, which decides passing plain chat lists from skeletons, with
    # arguments as text or (the form reference files are read into) as dicts
    output_messages = _as_messages(output_calls, out_groups, True, last)
    reference_messages = _as_messages(reference_calls, ref_groups, True)
    _, evaluated = evaluate_trajectory(output_messages, reference_messages, config)
    _, evaluated_flat = evaluate_trajectory(
        _as_messages(output_calls, out_groups, False, last),
        _as_messages(reference_calls, ref_groups, False),
        config,
    )
    for report in (fast, evaluated, evaluated_flat):
        assert report.matched == general.matched
        assert kinds(report) == kinds(general)
        assert len(report.pairs) == len(general.pairs)
        for o, r in report.pairs:
            assert o.call.name == r.call.name
            rule = config.rule_for(o.call.name)
            assert args_mode == "ignore" or rule.compared(o.call.args) == rule.compared(r.call.args)
            assert report.output[o.message].tool_calls[o.position] == o.call
            assert report.reference[r.message].tool_calls[r.position] == r.call
    assert evaluated.output == to_trajectory(output_messages)
    assert evaluated.reference == to_trajectory(reference_messages)
    # LangChain messages, against a reference of chat dicts or of LangChain messages too
    langchain_output = _as_langchain(_as_messages(output_calls, out_groups, False, last))
    langchain_reference = _as_langchain(_as_messages(reference_calls, ref_groups, False))
    for reference in (reference_messages, langchain_reference):
        _, evaluated = evaluate_trajectory(langchain_output, reference, config)
        assert evaluated.matched == general.matched
        assert kinds(evaluated) == kinds(general)
        assert len(evaluated.pairs) == len(general.pairs)
        for o, r in evaluated.pairs:
            assert o.call.name == r.call.name
            assert evaluated.output[o.message].tool_calls[o.position] == o.call
    if fast.matched:
        assert (
            len(fast.pairs)
            == {
                "strict": len(reference_calls),
                "unordered": len(reference_calls),
                "subset": len(output_calls),
                "superset": len(reference_calls),
                "in_order": len(reference_calls),
            }[mode]
        )


class _Text(str):
    """A str subclass: its value is a JSON string like any other."""


@pytest.mark.parametrize("mode", ["strict", "unordered", "subset", "superset"])
def test_json_equal_arguments_pair_whatever_their_python_types(mode: str) -> None:
    """Keys given as ints, strings as a str subclass, 1 against 1.0: equal as JSON, so equal."""

    def side(make: Any) -> list[dict[str, Any]]:
        return [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"name": "t", "args": make(i)} for i in range(20)],
            },
        ]

    output = side(lambda i: {"q": _Text(f"q{i}"), 7: "seven", "n": i})
    reference = side(lambda i: {"q": f"q{i}", "7": _Text("seven"), "n": float(i)})
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode=mode)
    assert evaluator(outputs=output, reference_outputs=reference)["score"] is True
    changed = side(lambda i: {"q": f"q{i}", "7": "seven", "n": float(i) + (i == 19)})
    assert evaluator(outputs=output, reference_outputs=changed)["score"] is False
