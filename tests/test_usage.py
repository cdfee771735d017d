"""Tool-usage rules: required, forbidden, per-tool and total budgets, turn budget; the failures
name the rule and the offending calls with their message index; evaluator and assertion."""

from __future__ import annotations

import asyncio
import inspect
import pickle
import re
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from pytest_agenttraj import (
    ToolUsageViolation,
    assert_tool_usage,
    check_usage,
    create_async_tool_usage_evaluator,
    create_tool_usage_evaluator,
    make_usage_rules,
    to_trajectory,
)
from pytest_agenttraj.render import render


def ai(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"name": name, "args": args} for name, args in calls],
    }


def tool() -> dict[str, Any]:
    return {"role": "tool", "content": "ok", "tool_call_id": "1"}


RUN = [
    {"role": "user", "content": "Find me flights"},
    ai(("search", {"q": "SFO"})),  # 1
    tool(),
    ai(("search", {"q": "SJC"}), ("lookup", {"id": 1})),  # 3
    tool(),
    tool(),
    ai(("search", {"q": "OAK"})),  # 6
    tool(),
    ai(("delete_user", {"id": 7})),  # 8
    tool(),
    {"role": "assistant", "content": "Here you go."},  # 10
]


def violations(**rules: Any) -> list[tuple[str, str]]:
    report = check_usage(to_trajectory(RUN), make_usage_rules(**rules))
    return [(v.rule, v.text) for v in report.violations]


def test_rules_that_hold_pass() -> None:
    assert (
        violations(
            required=["search", "lookup"],
            forbidden=["drop_table"],
            max_calls={"search": 3, "lookup": 1},
            max_total_calls=5,
            max_steps=5,
        )
        == []
    )


def test_required() -> None:
    assert violations(required=["book", "search", "pay"]) == [
        ("required", "tool 'book' was never called (the agent called search, lookup, delete_user)"),
        ("required", "tool 'pay' was never called (the agent called search, lookup, delete_user)"),
    ]
    report = check_usage(to_trajectory(RUN[:1]), make_usage_rules(required="search"))
    assert report.violations[0].text == "tool 'search' was never called (the agent called no tool)"


def test_forbidden_names_each_call_with_its_message() -> None:
    assert violations(forbidden=["delete_user", "search"]) == [
        ("forbidden", "tool 'delete_user' was called once: message 8 delete_user(id=7)"),
        (
            "forbidden",
            "tool 'search' was called 3 times: message 1 search(q='SFO'), message 3 "
            "search(q='SJC'), message 6 search(q='OAK')",
        ),
    ]


def test_max_calls_names_the_calls_beyond_the_budget() -> None:
    report = check_usage(to_trajectory(RUN), make_usage_rules(max_calls={"search": 1}))
    (violation,) = report.violations
    assert violation.rule == "max_calls"
    assert violation.text == (
        "tool 'search' was called 3 times, more than its budget of 1; beyond it: message 3 "
        "search(q='SJC'), message 6 search(q='OAK')"
    )
    assert [(c.message, c.position) for c in violation.calls] == [(3, 0), (6, 0)]
    assert violations(max_calls={"lookup": 0}) == [
        (
            "max_calls",
            "tool 'lookup' was called once, more than its budget of 0; beyond it: message 3 "
            "lookup(id=1)",
        )
    ]


def test_max_total_calls_and_max_steps() -> None:
    assert violations(max_total_calls=3, max_steps=3) == [
        (
            "max_total_calls",
            "5 tool calls, more than max_total_calls=3; beyond it: message 6 search(q='OAK'), "
            "message 8 delete_user(id=7)",
        ),
        ("max_steps", "5 assistant turns, more than max_steps=3; beyond it: messages 8, 10"),
    ]


def test_long_listings_are_cut() -> None:
    run = [{"role": "user", "content": "go"}] + [ai(("ping", {"n": i})) for i in range(9)]
    report = check_usage(to_trajectory(run), make_usage_rules(forbidden=["ping"]))
    assert report.violations[0].text.endswith("message 5 ping(n=4), and 4 more")


def test_the_report_reads_well() -> None:
    rules = make_usage_rules(required=["book"], forbidden=["delete_user"], max_steps=4)
    report = check_usage(to_trajectory(RUN), rules)
    assert report.comment() == (
        "Tool usage breaks the rules (required): tool 'book' was never called (the agent "
        "called search, lookup, delete_user). 2 more violations not shown."
    )
    assert render(report) == [
        "Tool usage breaks 3 rules (required [book], forbidden [delete_user], max_steps 4):",
        "  1. required: tool 'book' was never called (the agent called search, lookup, "
        "delete_user)",
        "  2. forbidden: tool 'delete_user' was called once: message 8 delete_user(id=7)",
        "  3. max_steps: 5 assistant turns, more than max_steps=4; beyond it: message 10",
    ]
    passing = check_usage(to_trajectory(RUN), make_usage_rules(required=["search"]))
    assert passing.comment() is None
    assert render(passing) == ["Tool usage follows the rules (required [search])."]


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ({"required": [""]}, "tool names are non-empty strings"),
        ({"required": [3]}, "tool names are non-empty strings"),
        ({"forbidden": {"a": 1}}, "invalid forbidden {'a': 1}: must be a list of tool names"),
        ({"required": ["a"], "forbidden": ["a"]}, "tool(s) a are both required and forbidden"),
        ({"max_calls": ["search"]}, "invalid max_calls ['search']: must be a dict"),
        ({"max_calls": {"search": -1}}, "invalid max_calls['search'] -1: must be a whole number"),
        ({"max_calls": {"search": None}}, "invalid max_calls['search'] None"),
        ({"max_calls": {"search": True}}, "invalid max_calls['search'] True"),
        ({"max_calls": {1: 2}}, "invalid max_calls key 1: must be a tool name"),
        ({"max_total_calls": 1.5}, "invalid max_total_calls 1.5: must be a whole number >= 0"),
        ({"max_steps": -1}, "invalid max_steps -1"),
    ],
)
def test_bad_rules_are_refused_when_built(rules: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        make_usage_rules(**rules)
    with pytest.raises(ValueError, match=re.escape(message)):
        create_tool_usage_evaluator(**rules)


def test_the_evaluator_result() -> None:
    evaluator = create_tool_usage_evaluator(forbidden=["delete_user"], max_calls={"search": 5})
    result = evaluator(outputs=RUN, reference_outputs="ignored")
    assert result["key"] == "tool_usage"
    assert result["score"] is False
    assert result["comment"] == (
        "Tool usage breaks the rules (forbidden): tool 'delete_user' was called once: message 8 "
        "delete_user(id=7)."
    )
    assert result["metadata"] == {
        "violations": [
            {
                "rule": "forbidden",
                "text": "tool 'delete_user' was called once: message 8 delete_user(id=7)",
                "calls": [{"message": 8, "position": 0, "name": "delete_user"}],
                "messages": [],
            }
        ]
    }
    passing = create_tool_usage_evaluator(required=["lookup"])(outputs={"messages": RUN})
    assert (passing["score"], passing["comment"], passing["metadata"]) == (True, None, None)
    assert repr(evaluator) == ("ToolUsageEvaluator(forbidden [delete_user], max_calls {search: 5})")


def test_the_async_evaluator_and_langchain_messages() -> None:
    messages = [
        HumanMessage("hi"),
        AIMessage("", tool_calls=[{"name": "search", "args": {"q": "a"}, "id": "1"}]),
        ToolMessage("ok", tool_call_id="1"),
        AIMessage("", tool_calls=[{"name": "search", "args": {"q": "b"}, "id": "2"}]),
    ]
    evaluator = create_async_tool_usage_evaluator(max_calls={"search": 1})
    assert inspect.iscoroutinefunction(evaluator)  # as langsmith's aevaluate requires
    assert evaluator.rules.max_calls == (("search", 1),)
    result = asyncio.run(evaluator(outputs=messages))
    assert result["score"] is False
    assert "message 3 search(q='b')" in str(result["comment"])


def test_assert_tool_usage() -> None:
    assert assert_tool_usage(RUN, required=["search"])["score"] is True
    with pytest.raises(ToolUsageViolation) as info:
        assert_tool_usage(RUN, forbidden=["delete_user"], max_total_calls=4)
    assert isinstance(info.value, AssertionError)
    assert str(info.value) == (
        "Tool usage breaks 2 rules (forbidden [delete_user], max_total_calls 4):\n"
        "  1. forbidden: tool 'delete_user' was called once: message 8 delete_user(id=7)\n"
        "  2. max_total_calls: 5 tool calls, more than max_total_calls=4; beyond it: message 8 "
        "delete_user(id=7)"
    )
    copied = pickle.loads(pickle.dumps(info.value))
    assert str(copied) == str(info.value)


def test_bad_outputs_say_where() -> None:
    with pytest.raises(ValueError, match="outputs, message 0, field 'role'"):
        assert_tool_usage([{"role": "robot"}], required=["x"])
