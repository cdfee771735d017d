"""``to_trajectory``: every accepted input format becomes the expected ``Trajectory``.

Real langchain-core message objects, no mocks. Bad input raises ``TrajectoryFormatError`` naming
the message index and the field.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    ChatMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)

from pytest_agenttraj import (
    Message,
    ToolCall,
    Trajectory,
    TrajectoryFormatError,
    create_trajectory_match_evaluator,
    to_trajectory,
)


def roles(trajectory: Trajectory) -> list[str]:
    return [m.role for m in trajectory]


def calls(trajectory: Trajectory) -> list[tuple[str, dict[str, Any], str | None]]:
    """Every tool call of a trajectory as (name, args, id), in order."""
    return [(c.name, dict(c.args), c.id) for _, _, c in trajectory.tool_calls()]


# ---------------------------------------------------------------- OpenAI chat-completion dicts


def test_openai_function_wrapper_with_json_string_arguments() -> None:
    trajectory = to_trajectory(
        [
            {"role": "user", "content": "Weather in SF?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "SF"}'},
                    }
                ],
            },
            {"role": "tool", "content": "75F, sunny", "tool_call_id": "call_1"},
            {"role": "assistant", "content": "It's 75F and sunny."},
        ]
    )
    assert trajectory == Trajectory(
        (
            Message("user", "Weather in SF?"),
            Message("assistant", "", (ToolCall("get_weather", {"city": "SF"}, "call_1"),)),
            Message("tool", "75F, sunny", tool_call_id="call_1"),
            Message("assistant", "It's 75F and sunny."),
        )
    )


def test_openai_function_wrapper_with_dict_arguments() -> None:
    trajectory = to_trajectory(
        [
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"function": {"name": "search", "arguments": {"q": "x", "opts": {"k": 2}}}}
                ],
            }
        ]
    )
    assert calls(trajectory) == [("search", {"q": "x", "opts": {"k": 2}}, None)]


def test_openai_arguments_are_parsed_once_into_nested_values() -> None:
    args = {"filters": {"city": "SF", "days": [1, 2]}, "flag": True, "n": 1.5, "none": None}
    trajectory = to_trajectory(
        [
            {
                "role": "assistant",
                "tool_calls": [{"function": {"name": "f", "arguments": json.dumps(args)}}],
            }
        ]
    )
    assert calls(trajectory) == [("f", args, None)]


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}',
        ' {"a": 1}',
        '{"a": 1}\n',
        '\t{"a": [1, 2.5, true, null]}  ',
        '{"x": NaN, "y": -Infinity}',
        '{"a": "\\u00e9\\n"}',
        '{"a": {"b": {"c": {}}}}',
    ],
)
def test_argument_text_parses_as_json_loads_does(text: str) -> None:
    expected = json.loads(text)
    trajectory = to_trajectory(
        [{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": text}}]}]
    )
    [(name, args, _)] = calls(trajectory)
    assert name == "f"
    assert json.dumps(args, sort_keys=True) == json.dumps(expected, sort_keys=True)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"a": 1} {"b": 2}', "Extra data"),
        ('{"a": 1}x', "Extra data"),
        ('\ufeff{"a": 1}', "BOM"),
        ('{"a": 1', "Expecting"),
        ('{"a": "\x01"}', "Invalid control character"),
        ("[1]", "must be a JSON object, got list"),
        ('"{}"', "must be a JSON object, got str"),
    ],
)
def test_argument_text_that_json_loads_refuses_is_an_error(text: str, reason: str) -> None:
    with pytest.raises(TrajectoryFormatError, match=reason) as info:
        to_trajectory(
            [{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": text}}]}]
        )
    assert info.value.field == "tool_calls[0].function.arguments"


def test_flat_name_and_args_tool_calls() -> None:
    trajectory = to_trajectory(
        [
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"name": "a", "args": {"x": 1}, "id": "id-a"},
                    {"name": "b", "arguments": '{"y": 2}'},
                ],
            }
        ]
    )
    assert calls(trajectory) == [("a", {"x": 1}, "id-a"), ("b", {"y": 2}, None)]


@pytest.mark.parametrize("empty", ["", None])
def test_empty_or_none_arguments_mean_no_arguments(empty: str | None) -> None:
    trajectory = to_trajectory(
        [
            {
                "role": "assistant",
                "tool_calls": [
                    {"function": {"name": "now", "arguments": empty}},
                    {"name": "today", "args": empty},
                ],
            }
        ]
    )
    assert calls(trajectory) == [("now", {}, None), ("today", {}, None)]


def test_missing_arguments_mean_no_arguments() -> None:
    trajectory = to_trajectory(
        [{"role": "assistant", "tool_calls": [{"function": {"name": "now"}}, {"name": "today"}]}]
    )
    assert calls(trajectory) == [("now", {}, None), ("today", {}, None)]


def test_none_content_becomes_empty_string_and_names_and_ids_are_kept() -> None:
    trajectory = to_trajectory(
        [{"role": "user", "content": None, "name": "alice", "id": "m1"}, {"role": "system"}]
    )
    assert trajectory.messages == (
        Message("user", "", name="alice", id="m1"),
        Message("system", ""),
    )


def test_role_aliases_human_and_ai() -> None:
    trajectory = to_trajectory(
        [
            {"role": "human", "content": "hi"},
            {"role": "ai", "content": "hello"},
            {"role": "developer", "content": "be brief"},
        ]
    )
    assert roles(trajectory) == ["user", "assistant", "developer"]


def test_langchain_style_type_key_instead_of_role() -> None:
    trajectory = to_trajectory(
        [
            {"type": "human", "content": "hi"},
            {"type": "ai", "content": "", "tool_calls": [{"name": "f", "args": {}}]},
            {"type": "tool", "content": "r", "tool_call_id": "1"},
        ]
    )
    assert roles(trajectory) == ["user", "assistant", "tool"]
    assert calls(trajectory) == [("f", {}, None)]
    assert trajectory[2].tool_call_id == "1"


def test_content_as_a_list_of_blocks_is_kept_as_given() -> None:
    blocks = [{"type": "text", "text": "look:"}, {"type": "image_url", "image_url": {"url": "u"}}]
    trajectory = to_trajectory([{"role": "user", "content": blocks}])
    assert trajectory[0].content == blocks
    assert trajectory[0].text == "look:"


def test_tuple_of_messages_and_empty_list() -> None:
    assert to_trajectory(({"role": "user", "content": "x"},)) == Trajectory((Message("user", "x"),))
    assert to_trajectory([]) == Trajectory(())


# ---------------------------------------------------------------- containers


def test_dict_with_messages_is_agent_state() -> None:
    state = {
        "messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}],
        "structured_response": {"ignored": True},
    }
    assert to_trajectory(state) == Trajectory((Message("user", "q"), Message("assistant", "a")))


def test_langgraph_state_with_langchain_messages() -> None:
    state = {"messages": [HumanMessage("q"), AIMessage("a")]}
    assert roles(to_trajectory(state)) == ["user", "assistant"]


def test_a_single_message_dict() -> None:
    assert to_trajectory({"role": "user", "content": "x"}) == Trajectory((Message("user", "x"),))


def test_a_single_langchain_message() -> None:
    assert to_trajectory(HumanMessage("x")) == Trajectory((Message("user", "x"),))


def test_trajectory_and_message_pass_through() -> None:
    trajectory = Trajectory((Message("user", "x"),))
    assert to_trajectory(trajectory) is trajectory
    assert to_trajectory(Message("user", "x")) == trajectory
    assert to_trajectory([Message("user", "x")]) == trajectory


# ---------------------------------------------------------------- LangChain messages


def test_langchain_messages_of_every_kind() -> None:
    trajectory = to_trajectory(
        [
            SystemMessage("be helpful"),
            HumanMessage("Weather in SF?", id="h1"),
            AIMessage(
                "",
                tool_calls=[{"name": "get_weather", "args": {"city": "SF"}, "id": "call_1"}],
            ),
            ToolMessage("75F", tool_call_id="call_1", name="get_weather"),
            ChatMessage(role="developer", content="dev note"),
            ChatMessage(role="assistant", content="It's 75F."),
        ]
    )
    assert trajectory.messages == (
        Message("system", "be helpful"),
        Message("user", "Weather in SF?", id="h1"),
        Message("assistant", "", (ToolCall("get_weather", {"city": "SF"}, "call_1"),)),
        Message("tool", "75F", tool_call_id="call_1", name="get_weather"),
        Message("developer", "dev note"),
        Message("assistant", "It's 75F."),
    )


def test_chat_message_role_alias() -> None:
    assert roles(to_trajectory([ChatMessage(role="human", content="x")])) == ["user"]


def test_ai_message_with_additional_kwargs_tool_calls_only() -> None:
    message = AIMessage(
        "",
        additional_kwargs={
            "tool_calls": [
                {
                    "id": "call_9",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": '{"code": "x-1"}'},
                }
            ]
        },
    )
    trajectory = to_trajectory([message])
    assert calls(trajectory) == [("lookup", {"code": "x-1"}, "call_9")]


def test_ai_message_chunk_with_tool_call_chunks() -> None:
    chunk = AIMessageChunk(
        content="thinking...",
        tool_call_chunks=[{"name": "f", "args": '{"a": 1}', "id": "c1", "index": 0}],
    )
    trajectory = to_trajectory([chunk])
    assert trajectory.messages == (
        Message("assistant", "thinking...", (ToolCall("f", {"a": 1}, "c1"),)),
    )


def test_merged_ai_message_chunks() -> None:
    first = AIMessageChunk(
        content="", tool_call_chunks=[{"name": "f", "args": '{"a"', "id": "c1", "index": 0}]
    )
    second = AIMessageChunk(
        content="", tool_call_chunks=[{"name": None, "args": ": 1}", "id": None, "index": 0}]
    )
    assert calls(to_trajectory([first + second])) == [("f", {"a": 1}, "c1")]


def test_anthropic_blocks_with_tool_use_and_tool_calls_are_not_counted_twice() -> None:
    message = AIMessage(
        content=[
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "SF"}},
        ],
        tool_calls=[{"name": "get_weather", "args": {"city": "SF"}, "id": "toolu_1"}],
    )
    trajectory = to_trajectory([message])
    assert calls(trajectory) == [("get_weather", {"city": "SF"}, "toolu_1")]
    assert trajectory[0].content == [{"type": "text", "text": "Let me check."}]


def test_ai_message_with_only_tool_use_blocks() -> None:
    message = AIMessage(
        content=[{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}}]
    )
    trajectory = to_trajectory([message])
    assert calls(trajectory) == [("f", {"a": 1}, "toolu_1")]
    assert trajectory[0].content == ""


def test_langchain_tool_message_with_block_content() -> None:
    message = ToolMessage(content=[{"type": "text", "text": "75F"}], tool_call_id="c1")
    trajectory = to_trajectory([message])
    assert trajectory[0].role == "tool"
    assert trajectory[0].tool_call_id == "c1"
    assert trajectory[0].text == "75F"


def test_langchain_and_dict_messages_mixed() -> None:
    trajectory = to_trajectory(
        [
            {"role": "user", "content": "q"},
            AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "1"}]),
            {"role": "tool", "content": "r", "tool_call_id": "1"},
        ]
    )
    assert roles(trajectory) == ["user", "assistant", "tool"]


# ---------------------------------------------------------------- OpenAI Responses API items


def test_responses_api_items() -> None:
    items = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Hi"}]},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_a",
            "name": "get_weather",
            "arguments": '{"city": "SF"}',
        },
        {
            "type": "function_call",
            "id": "fc_2",
            "call_id": "call_b",
            "name": "get_time",
            "arguments": '{"tz": "PST"}',
        },
        {"type": "function_call_output", "call_id": "call_a", "output": "75F"},
        {"type": "function_call_output", "call_id": "call_b", "output": "9am"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "75F at 9am."}],
        },
    ]
    trajectory = to_trajectory(items)
    assert roles(trajectory) == ["user", "assistant", "tool", "tool", "assistant"]
    assert trajectory[0].text == "Hi"
    # consecutive function_call items: one assistant message with parallel calls, call_id as id
    assert trajectory[1].tool_calls == (
        ToolCall("get_weather", {"city": "SF"}, "call_a"),
        ToolCall("get_time", {"tz": "PST"}, "call_b"),
    )
    assert (trajectory[2].tool_call_id, trajectory[2].content) == ("call_a", "75F")
    assert (trajectory[3].tool_call_id, trajectory[3].content) == ("call_b", "9am")
    assert trajectory[4].text == "75F at 9am."
    assert not trajectory[4].tool_calls


def test_responses_assistant_text_followed_by_calls_is_one_turn() -> None:
    items = [
        {"role": "user", "content": "Hi"},  # an "easy input" message: no type
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Checking."}],
        },
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "ok"},
    ]
    trajectory = to_trajectory(items)
    assert roles(trajectory) == ["user", "assistant", "tool"]
    assert trajectory[1].text == "Checking."
    assert trajectory[1].tool_calls == (ToolCall("f", {}, "c1"),)


def test_responses_reasoning_only_between_calls_does_not_split_them() -> None:
    items = [
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "reasoning", "id": "rs", "summary": []},
        {"type": "function_call", "call_id": "c2", "name": "g", "arguments": "{}"},
    ]
    trajectory = to_trajectory(items)
    assert roles(trajectory) == ["assistant"]
    assert [c.name for c in trajectory[0].tool_calls] == ["f", "g"]


def test_responses_custom_tool_call_with_free_text_input() -> None:
    items = [
        {"type": "custom_tool_call", "call_id": "c1", "name": "python", "input": "print(1)"},
        {"type": "custom_tool_call_output", "call_id": "c1", "output": "1"},
    ]
    trajectory = to_trajectory(items)
    assert roles(trajectory) == ["assistant", "tool"]
    assert calls(trajectory) == [("python", {"input": "print(1)"}, "c1")]
    assert trajectory[1].tool_call_id == "c1"


def test_responses_function_calls_match_chat_completion_reference() -> None:
    output = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "q"}]},
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": '{"a": 1}'},
        {"type": "function_call_output", "call_id": "c1", "output": "r"},
    ]
    reference = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": '{"a":1}'}}]},
        {"role": "tool", "content": "r", "tool_call_id": "x"},
    ]
    result = create_trajectory_match_evaluator()(outputs=output, reference_outputs=reference)
    assert result["score"] is True


# ---------------------------------------------------------------- Anthropic Messages blocks


def test_anthropic_messages_tool_use_thinking_and_tool_result() -> None:
    trajectory = to_trajectory(
        [
            {"role": "user", "content": "Weather in SF and NYC?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "Two cities: two calls.", "signature": "s"},
                    {"type": "text", "text": "Checking both."},
                    {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"c": "SF"}},
                    {"type": "tool_use", "id": "toolu_2", "name": "weather", "input": {"c": "NY"}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "75F"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_2",
                        "content": [{"type": "text", "text": "60F"}],
                    },
                ],
            },
            {"role": "assistant", "content": [{"type": "text", "text": "SF 75F, NYC 60F."}]},
        ]
    )
    assert roles(trajectory) == ["user", "assistant", "tool", "tool", "assistant"]
    assistant = trajectory[1]
    assert assistant.tool_calls == (
        ToolCall("weather", {"c": "SF"}, "toolu_1"),
        ToolCall("weather", {"c": "NY"}, "toolu_2"),
    )
    # thinking is content, never a tool call
    assert assistant.content == [
        {"type": "thinking", "thinking": "Two cities: two calls.", "signature": "s"},
        {"type": "text", "text": "Checking both."},
    ]
    assert "Two cities: two calls." in assistant.text
    assert (trajectory[2].tool_call_id, trajectory[2].content) == ("toolu_1", "75F")
    assert trajectory[3].tool_call_id == "toolu_2"
    assert trajectory[3].text == "60F"
    assert not trajectory[4].tool_calls


def test_anthropic_thinking_only_is_not_a_tool_call() -> None:
    trajectory = to_trajectory(
        [{"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm"}]}]
    )
    assert trajectory[0].tool_calls == ()


def test_anthropic_tool_result_followed_by_text_keeps_the_text_as_a_user_message() -> None:
    trajectory = to_trajectory(
        [
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "ok"},
                    {"type": "text", "text": "and now summarise"},
                ],
            }
        ]
    )
    assert roles(trajectory) == ["tool", "user"]
    assert trajectory[0].tool_call_id == "t1"
    assert trajectory[1].text == "and now summarise"


def test_raw_anthropic_response_object() -> None:
    response = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude",
        "stop_reason": "tool_use",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}],
    }
    trajectory = to_trajectory([{"role": "user", "content": "q"}, response])
    assert roles(trajectory) == ["user", "assistant"]
    assert calls(trajectory) == [("f", {}, "toolu_1")]


def test_anthropic_trajectory_matches_openai_reference() -> None:
    output = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1"}]},
        {"role": "assistant", "content": "done"},
    ]
    reference = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": '{"a":1}'}}]},
        {"role": "tool", "content": "r"},
        {"role": "assistant", "content": "something else entirely"},
    ]
    result = create_trajectory_match_evaluator()(outputs=output, reference_outputs=reference)
    assert result["score"] is True


# ---------------------------------------------------------------- ids are never matched


def test_tool_call_ids_are_ignored_when_matching() -> None:
    output = [
        HumanMessage("q"),
        AIMessage("", tool_calls=[{"name": "f", "args": {"a": 1}, "id": "call_abc"}]),
        ToolMessage("r", tool_call_id="call_abc"),
    ]
    reference = [
        {"role": "user", "content": "q"},
        {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": '{"a":1}'}}]},
        {"role": "tool", "content": "r"},
    ]
    for mode in ("strict", "unordered", "subset", "superset"):
        evaluator = create_trajectory_match_evaluator(trajectory_match_mode=mode)
        assert evaluator(outputs=output, reference_outputs=reference)["score"] is True, mode


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("value", "index", "field", "text"),
    [
        pytest.param(None, None, None, "got None", id="none"),
        pytest.param("hello", None, None, "got str", id="string"),
        pytest.param(42, None, None, "got int", id="int"),
        pytest.param({"foo": 1}, None, None, "got keys 'foo'", id="dict-without-role-or-messages"),
        pytest.param({"messages": "hi"}, None, "messages", "got str", id="messages-not-a-list"),
        pytest.param([{"role": "user"}, "hi"], 1, None, "got str", id="item-not-a-message"),
        pytest.param([{"content": "x"}], 0, "role", "no role", id="missing-role"),
        pytest.param(
            [{"role": "user"}, {"role": "robot"}], 1, "role", "unknown role 'robot'", id="bad-role"
        ),
        pytest.param([{"role": 3}], 0, "role", "unknown role 3", id="non-string-role"),
        pytest.param(
            [{"role": "assistant", "tool_calls": {"name": "f"}}],
            0,
            "tool_calls",
            "must be a list",
            id="tool-calls-not-a-list",
        ),
        pytest.param(
            [{"role": "assistant", "tool_calls": ["f"]}],
            0,
            "tool_calls[0]",
            "must be a dict",
            id="tool-call-not-a-dict",
        ),
        pytest.param(
            [{"role": "assistant", "tool_calls": [{"function": "f"}]}],
            0,
            "tool_calls[0].function",
            "'function' must be a dict",
            id="function-not-a-dict",
        ),
        pytest.param(
            [{"role": "user"}, {"role": "assistant", "tool_calls": [{"function": {}}]}],
            1,
            "tool_calls[0].function.name",
            "needs a name",
            id="function-without-name",
        ),
        pytest.param(
            [{"role": "assistant", "tool_calls": [{"args": {}}, {"name": ""}]}],
            0,
            "tool_calls[0].name",
            "needs a name",
            id="flat-call-without-name",
        ),
        pytest.param(
            [
                {"role": "user"},
                {"role": "user"},
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"name": "ok", "args": {}},
                        {"function": {"name": "f", "arguments": "{city: SF}"}},
                    ],
                },
            ],
            2,
            "tool_calls[1].function.arguments",
            "arguments of tool 'f' are not valid JSON",
            id="invalid-json-arguments",
        ),
        pytest.param(
            [
                {
                    "role": "assistant",
                    "tool_calls": [{"function": {"name": "f", "arguments": "[1]"}}],
                }
            ],
            0,
            "tool_calls[0].function.arguments",
            "must be a JSON object, got list",
            id="json-arguments-not-an-object",
        ),
        pytest.param(
            [{"role": "assistant", "tool_calls": [{"name": "f", "args": 5}]}],
            0,
            "tool_calls[0].args",
            "got int",
            id="args-of-wrong-type",
        ),
        pytest.param(
            [{"role": "assistant", "tool_calls": [{"name": "f", "arguments": "nope"}]}],
            0,
            "tool_calls[0].arguments",
            "not valid JSON",
            id="flat-arguments-invalid-json",
        ),
        pytest.param(
            [
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "x"},
                        {"type": "tool_use", "id": "t", "input": {}},
                    ],
                }
            ],
            0,
            "content[1].name",
            "needs a name",
            id="tool-use-without-name",
        ),
        pytest.param(
            [{"role": "assistant", "content": [{"type": "tool_use", "name": "f", "input": "x"}]}],
            0,
            "content[0].input",
            "not valid JSON",
            id="tool-use-input-not-json",
        ),
        pytest.param(
            [{"type": "message", "role": "user", "content": "q"}, {"type": "function_call"}],
            1,
            "name",
            "needs a name",
            id="responses-function-call-without-name",
        ),
        pytest.param(
            [{"type": "function_call", "name": "f", "arguments": "{"}],
            0,
            "arguments",
            "not valid JSON",
            id="responses-function-call-bad-arguments",
        ),
        pytest.param(
            [{"type": "function_call_output", "output": "x"}],
            0,
            "call_id",
            "needs a 'call_id'",
            id="responses-output-without-call-id",
        ),
    ],
)
def test_bad_input_names_index_and_field(
    value: Any, index: int | None, field: str | None, text: str
) -> None:
    with pytest.raises(TrajectoryFormatError) as info:
        to_trajectory(value)
    error = info.value
    assert isinstance(error, ValueError)
    assert error.index == index
    assert error.field == field
    assert text in str(error)
    if index is not None:
        assert f"message {index}" in str(error)
    if field is not None:
        assert f"field {field!r}" in str(error)


def test_bad_langchain_message_type_names_index_and_field() -> None:
    with pytest.raises(TrajectoryFormatError) as info:
        to_trajectory([HumanMessage("q"), RemoveMessage(id="m1")])
    assert (info.value.index, info.value.field) == (1, "type")
    assert "unsupported LangChain message type 'remove'" in str(info.value)


def test_bad_input_error_names_the_side() -> None:
    with pytest.raises(TrajectoryFormatError) as info:
        to_trajectory([{"role": "robot"}], side="reference_outputs")
    assert info.value.side == "reference_outputs"
    assert str(info.value).startswith("reference_outputs, message 0, field 'role': unknown role")


def test_evaluator_raises_format_error_naming_the_side() -> None:
    evaluator = create_trajectory_match_evaluator()
    good = [{"role": "user", "content": "q"}]
    with pytest.raises(TrajectoryFormatError, match=r"^outputs, message 0, field 'role'"):
        evaluator(outputs=[{"role": "robot"}], reference_outputs=good)
    with pytest.raises(TrajectoryFormatError, match=r"^reference_outputs, message 1"):
        evaluator(outputs=good, reference_outputs=[*good, 7])


def test_format_error_message_text() -> None:
    error = TrajectoryFormatError("boom", index=2, field="tool_calls[0]", side="outputs")
    assert str(error) == "outputs, message 2, field 'tool_calls[0]': boom"
    assert str(TrajectoryFormatError("boom")) == "boom"


# ---------------------------------------------------------------- stays light


@pytest.mark.subprocess
def test_normalising_plain_dicts_does_not_import_langchain_core() -> None:
    code = textwrap.dedent(
        """
        import sys
        from pytest_agenttraj import create_trajectory_match_evaluator, to_trajectory

        trajectory = to_trajectory({"messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "tool_calls": [
                {"function": {"name": "f", "arguments": '{"a": 1}'}}]},
            {"type": "function_call", "call_id": "c", "name": "g", "arguments": "{}"},
            {"role": "assistant", "content": [{"type": "tool_use", "name": "h", "input": {}}]},
        ]})
        assert [c.name for _, _, c in trajectory.tool_calls()] == ["f", "g", "h"]
        evaluator = create_trajectory_match_evaluator(trajectory_match_mode="unordered")
        assert evaluator(outputs=trajectory, reference_outputs=trajectory)["score"]
        assert "langchain_core" not in sys.modules, "langchain_core was imported"
        """
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert completed.returncode == 0, completed.stderr


def test_tool_calls_on_a_non_assistant_message_are_an_error() -> None:
    """openevals silently drops them; here a wrong role must not make a superset test pass."""
    bad = [
        {
            "role": "user",
            "content": "",
            "tool_calls": [{"function": {"name": "search", "arguments": '{"q": "a"}'}}],
        }
    ]
    with pytest.raises(TrajectoryFormatError) as caught:
        to_trajectory(bad, side="outputs")
    assert str(caught.value) == (
        "outputs, message 0, field 'tool_calls': a 'user' message has tool calls; only "
        "assistant messages make tool calls (is the role right?)"
    )


def test_role_taken_from_type_names_the_type_field() -> None:
    with pytest.raises(TrajectoryFormatError) as caught:
        to_trajectory([{"type": "robot", "content": "x"}])
    assert caught.value.field == "type"
