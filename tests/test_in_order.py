"""``in_order`` mode: the reference's calls as an ordered subsequence of the output's, parallel
calls unordered among themselves; explanations; and agreement with a brute-force oracle."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from pytest_agenttraj import (
    ANY,
    MatchReport,
    assert_trajectory,
    create_async_trajectory_match_evaluator,
    create_trajectory_match_evaluator,
    match_trajectories,
    to_trajectory,
)
from pytest_agenttraj.core.matching.rules import make_config

Call = tuple[str, dict[str, Any]]


def user() -> dict[str, Any]:
    return {"role": "user", "content": "Clean up my account."}


def ai(*calls: Call) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"name": name, "args": dict(args)} for name, args in calls],
    }


def c(name: str, **args: Any) -> Call:
    return name, args


def trajectory(*turns: tuple[Call, ...] | Call) -> list[dict[str, Any]]:
    """A user message, then one assistant message per turn (a call, or a tuple of parallel
    calls), each followed by a tool result."""
    messages = [user()]
    for turn in turns:
        calls = turn if isinstance(turn[0], tuple) else (turn,)
        messages.append(ai(*calls))  # type: ignore[arg-type]
        messages.append({"role": "tool", "content": "ok", "tool_call_id": "1"})
    messages.append({"role": "assistant", "content": "Done."})
    return messages


def match(
    output: Any, reference: Any, args: str = "exact", overrides: Mapping[str, Any] | None = None
) -> MatchReport:
    config = make_config("in_order", args, overrides)
    return match_trajectories(to_trajectory(output), to_trajectory(reference), config)


REFERENCE = trajectory(c("validate", id=1), c("mutate", id=1))


@pytest.mark.parametrize(
    "output",
    [
        trajectory(c("validate", id=1), c("mutate", id=1)),
        trajectory(c("validate", id=1), c("log"), c("search", q="x"), c("mutate", id=1)),
        trajectory(c("mutate", id=1), c("validate", id=1), c("mutate", id=1)),  # a later one
        trajectory(c("validate", id=1), (c("log"), c("mutate", id=1))),
    ],
    ids=["same", "calls-between", "a-later-one", "parallel-with-another"],
)
def test_the_reference_calls_in_order_with_anything_between(output: Any) -> None:
    report = match(output, REFERENCE)
    assert report.matched, report.comment()
    assert report.key == "trajectory_in_order_match"
    assert [r.call.name for _, r in report.pairs] == ["validate", "mutate"]


def test_calls_in_the_wrong_order_are_out_of_order() -> None:
    report = match(trajectory(c("mutate", id=1), c("validate", id=1)), REFERENCE)
    assert not report.matched
    assert [p.kind for p in report.problems] == ["out_of_order"]
    assert report.problems[0].text == (
        "reference message 3: tool call mutate(id=1) is out of order: the output makes it in "
        "message 1, before message 3, where the calls of reference message 1 it must follow are "
        "made"
    )
    assert (report.problems[0].output_index, report.problems[0].reference_index) == (1, 3)


def test_output_calls_in_one_message_are_simultaneous() -> None:
    # the agent mutated without waiting for the validation's result
    report = match(trajectory((c("validate", id=1), c("mutate", id=1))), REFERENCE)
    assert not report.matched
    assert report.problems[0].text.endswith(
        "makes it in message 1, in parallel with the calls of reference message 1 it must follow"
    )


@pytest.mark.parametrize(
    "output",
    [
        trajectory((c("a"), c("b")), c("z")),
        trajectory((c("b"), c("a")), c("z")),
        trajectory(c("b"), c("x"), c("a"), c("z")),
        trajectory(c("a"), c("b"), c("z")),
    ],
    ids=["parallel", "parallel-other-order", "sequential-b-first", "sequential"],
)
def test_parallel_reference_calls_have_no_order_among_themselves(output: Any) -> None:
    assert match(output, trajectory((c("a"), c("b")), c("z"))).matched


def test_parallel_reference_calls_still_come_before_the_next_message() -> None:
    report = match(trajectory(c("a"), c("z"), c("b")), trajectory((c("a"), c("b")), c("z")))
    assert not report.matched
    assert [p.kind for p in report.problems] == ["out_of_order"]
    assert "tool call z() is out of order" in report.problems[0].text


def test_a_missing_call_says_after_which_message() -> None:
    report = match(trajectory(c("validate", id=1), c("log")), REFERENCE)
    assert [p.text for p in report.problems] == [
        "reference message 3: tool call mutate(id=1) is missing after message 1; the output "
        "has no call to 'mutate' there"
    ]
    report = match(trajectory(c("log")), REFERENCE)
    assert report.problems[0].kind == "missing_call"
    assert report.problems[0].text.startswith(
        "reference message 1: tool call validate(id=1) is missing; "
    )


def test_args_that_differ_are_shown_with_the_closest_call() -> None:
    report = match(trajectory(c("validate", id=1), c("mutate", id=2)), REFERENCE)
    assert [p.kind for p in report.problems] == ["args_mismatch"]
    assert report.problems[0].text == (
        "message 3: tool call 'mutate' args differ (exact): id expected 1, got 2"
    )


def test_a_per_call_greedy_scan_would_miss_this_match() -> None:
    # superset args: the first reference call fits both output calls; taken by the first it
    # strands the second reference call, which only the first output call contains
    output = trajectory(c("f", a=1, b=2), c("f", a=1))
    reference = trajectory((c("f", a=1), c("f", a=1, b=2)))
    report = match(output, reference, "superset")
    assert report.matched
    assert {(o.message, r.position) for o, r in report.pairs} == {(1, 1), (3, 0)}


def test_matchers_and_messages_without_calls() -> None:
    output = [user(), {"role": "assistant", "content": "Let me check."}, *trajectory(c("s", q="a"))]
    assert match(output, trajectory(c("s", q=ANY))).matched


def test_each_failing_message_is_explained_up_to_a_limit() -> None:
    reference = trajectory(*(c(f"t{i}") for i in range(14)))
    report = match(trajectory(c("other")), reference)
    assert len(report.problems) == 11
    assert report.problems[-1].text == (
        "reference message 21 and later ones were not searched: 10 reference messages already "
        "could not be placed in order"
    )


@pytest.mark.parametrize(
    "factory", [create_trajectory_match_evaluator, create_async_trajectory_match_evaluator]
)
def test_the_evaluators_accept_in_order(factory: Any) -> None:
    evaluator = factory(trajectory_match_mode="in_order")
    result = evaluator(outputs=trajectory(c("mutate", id=1)), reference_outputs=REFERENCE)
    if factory is create_async_trajectory_match_evaluator:
        result = asyncio.run(result)
    assert result["key"] == "trajectory_in_order_match"
    assert result["score"] is False
    assert "validate" in result["comment"]


def test_assert_trajectory_accepts_in_order() -> None:
    output = trajectory(c("validate", id=1), c("log"), c("mutate", id=1))
    assert assert_trajectory(output, REFERENCE, mode="in_order")["score"] is True


# ---------------------------------------------------------------- against a brute-force oracle

_ARGS: tuple[dict[str, Any], ...] = ({}, {"a": 1}, {"a": 1, "b": 2}, {"b": 2}, {"a": 2})


def _args_ok(out: dict[str, Any], ref: dict[str, Any], args_mode: str) -> bool:
    if args_mode == "exact":
        return out == ref
    if args_mode == "superset":
        return all(k in out and out[k] == v for k, v in ref.items())
    if args_mode == "subset":
        return all(k in ref and ref[k] == v for k, v in out.items())
    return out.get("a") == ref.get("a") and "a" in out and "a" in ref  # keys [a]


def _oracle(output: list[list[Call]], reference: list[list[Call]], args_mode: str) -> bool:
    """Every assignment of reference calls to distinct output calls, checked one by one."""
    outs = [(m, call) for m, turn in enumerate(output) for call in turn]
    refs = [(m, call) for m, turn in enumerate(reference) for call in turn]
    for chosen in itertools.permutations(range(len(outs)), len(refs)):
        partners = [outs[k] for k in chosen]
        if not all(
            o[1][0] == r[1][0] and _args_ok(o[1][1], r[1][1], args_mode)
            for o, r in zip(partners, refs, strict=True)
        ):
            continue
        if all(
            partners[x][0] < partners[y][0]
            for x, y in itertools.permutations(range(len(refs)), 2)
            if refs[x][0] < refs[y][0]
        ):
            return True
    return False


_call = st.tuples(st.sampled_from(("f", "f", "g")), st.sampled_from(_ARGS))
_turns = st.lists(st.lists(_call, min_size=1, max_size=2), max_size=4)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    output=_turns,
    reference=_turns.filter(lambda turns: sum(map(len, turns)) <= 4),
    args_mode=st.sampled_from(("exact", "subset", "superset", "keys")),
)
def test_in_order_agrees_with_a_brute_force_search(
    output: list[list[Call]], reference: list[list[Call]], args_mode: str
) -> None:
    overrides = {"f": ["a"], "g": ["a"]} if args_mode == "keys" else None
    report = match(
        trajectory(*(tuple(t) for t in output)),
        trajectory(*(tuple(t) for t in reference)),
        "exact" if args_mode == "keys" else args_mode,
        overrides,
    )
    assert report.matched == _oracle(output, reference, args_mode)
    if report.matched:
        assert len(report.pairs) == sum(map(len, reference))
