"""Conversations with turns: reading them (``to_conversation``), every matcher taking one as a
trajectory, and the turn-by-turn comparison that names where a conversation diverged."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, strategies as st
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from pytest_agenttraj import (
    Conversation,
    TrajectoryFormatError,
    assert_tool_usage,
    create_tool_call_f1_evaluator,
    create_trajectory_match_evaluator,
    match_conversations,
    to_conversation,
    to_trajectory,
)
from pytest_agenttraj.core.matching.rules import make_config
from pytest_agenttraj.render import render_text


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def said(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def calls(*names: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"function": {"name": n, "arguments": "{}"}} for n in names],
    }


def tool(text: str) -> dict[str, Any]:
    return {"role": "tool", "content": text, "tool_call_id": "1"}


REFUND_TALK = [
    user("I want a refund"),
    calls("look_up_order"),
    tool("order 7: kettle"),
    said("I cannot refund that order."),
    user("Please?"),
    said("Sorry, no."),
]


def test_a_trajectory_splits_into_turns_where_the_user_speaks() -> None:
    conversation = to_conversation(REFUND_TALK)
    assert [len(turn.messages) for turn in conversation] == [4, 2]
    assert conversation.starts == (0, 4)
    assert [m.role for m in conversation[0].agent] == ["assistant", "tool", "assistant"]
    assert conversation[1].user[0].text == "Please?"
    assert [conversation.turn_of(i) for i in (0, 3, 4, 5, 6)] == [1, 1, 2, 2, None]


def test_a_turns_document_keeps_its_turns_and_reads_langchain_messages() -> None:
    document = {
        "turns": [
            {"messages": [HumanMessage("hi"), AIMessage("", tool_calls=[_call("a")])]},
            [ToolMessage("x", tool_call_id="1"), AIMessage("done"), HumanMessage("bye")],
        ]
    }
    conversation = to_conversation(document)
    assert [len(turn.messages) for turn in conversation] == [2, 3]
    assert conversation[1].user_messages == 0  # a turn may open with what the agent did
    assert len(to_trajectory(document)) == 5


def _call(name: str) -> dict[str, Any]:
    return {"name": name, "args": {}, "id": "1", "type": "tool_call"}


def test_every_matcher_takes_a_conversation() -> None:
    conversation = to_conversation(REFUND_TALK)
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode="strict")
    assert evaluator(outputs=conversation, reference_outputs=REFUND_TALK)["score"] is True
    turns = {"turns": [REFUND_TALK[:4], REFUND_TALK[4:]]}
    assert evaluator(outputs=REFUND_TALK, reference_outputs=turns)["score"] is True
    f1 = create_tool_call_f1_evaluator()
    assert f1(outputs=conversation, reference_outputs=REFUND_TALK)["score"] == 1.0
    assert assert_tool_usage(conversation, forbidden=["give_refund"])["score"] is True


def test_a_bad_message_in_a_turn_names_the_turn_and_the_message() -> None:
    with pytest.raises(TrajectoryFormatError) as caught:
        to_conversation({"turns": [[user("hi")], [said("x"), {"role": "robot"}]]}, side="outputs")
    assert caught.value.turn == 2
    assert str(caught.value).startswith("outputs, turn 2, message 1, field 'role'")


def test_a_turn_that_is_not_a_list_is_refused() -> None:
    with pytest.raises(TrajectoryFormatError, match=r"^turn 1: a turn is a list of messages"):
        to_conversation({"turns": ["hello"]})


def test_the_comparison_names_the_turn_that_diverged() -> None:
    reference = {"turns": [REFUND_TALK[:4], [user("Please?"), calls("give_refund")]]}
    report = match_conversations(
        to_conversation(REFUND_TALK), to_conversation(reference), make_config("strict")
    )
    assert not report.passed
    assert report.diverged_at == 2
    assert report.comment() == (
        "The conversation diverged from its reference at turn 2 (strict mode, exact args): "
        "message 1: expected tool calls [give_refund], got none."
    )
    text = render_text(report)
    assert text.splitlines()[1:3] == [
        "  turn 1: matches",
        "  turn 2: message 1: expected tool calls [give_refund], got none <- diverged here",
    ]
    assert "Turn 2 (message indices count from its first message):" in text


def test_a_missing_turn_is_a_divergence() -> None:
    shorter = {"turns": [REFUND_TALK[:4]]}
    report = match_conversations(
        to_conversation(REFUND_TALK), to_conversation(shorter), make_config("superset")
    )
    assert report.diverged_at == 2
    assert report.problem_texts() == ["turn 2: only the output has this turn"]
    assert "It has 2 turns, its reference 1." in (report.comment() or "")


def test_a_turn_without_tool_calls_is_not_refused_as_empty() -> None:
    config = make_config("superset", allow_empty=False)
    conversation = to_conversation(REFUND_TALK)
    assert match_conversations(conversation, conversation, config).passed


_messages = st.lists(
    st.sampled_from(
        [user("u"), said("a"), calls("x"), calls("y", "x"), tool("t"), user("v"), said("b")]
    ),
    max_size=12,
)


@given(_messages)
def test_turns_keep_every_message_in_order(messages: list[dict[str, Any]]) -> None:
    conversation = to_conversation(messages)
    assert conversation.trajectory == to_trajectory(messages)
    again = to_conversation({"turns": [list(turn.messages) for turn in conversation]})
    assert again == conversation
    for number, turn in enumerate(conversation, start=1):
        assert turn.number == number
        assert all(
            conversation.turn_of(conversation.starts[number - 1] + i) == number
            for i in range(len(turn.messages))
        )


@given(_messages, st.sampled_from(["strict", "unordered", "subset", "superset", "in_order"]))
def test_a_conversation_matches_itself_in_every_mode(messages: list[Any], mode: str) -> None:
    conversation: Conversation = to_conversation(messages)
    report = match_conversations(conversation, conversation, make_config(mode))
    assert report.passed
    assert report.diverged_at is None
    assert report.comment() is None


# ------------------------------------------------------------------ reference files with turns


def test_a_conversation_file_reads_back_what_was_written(tmp_path: Any) -> None:
    from pytest_agenttraj import assert_conversation
    from pytest_agenttraj.references import ReferenceFile, load_reference, write_conversation
    from pytest_agenttraj.references.writing import conversation_turns

    path = tmp_path / "refund.yaml"
    turns = conversation_turns(to_conversation(REFUND_TALK))
    write_conversation(ReferenceFile(path, exists=False, mode="superset"), turns)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("mode: superset\nturns:\n- - content: I want a refund\n")
    reference = load_reference(path)
    assert reference.is_conversation
    assert reference.mode == "superset"
    assert [len(turn) for turn in reference.turns or []] == [4, 2]
    assert assert_conversation(REFUND_TALK, reference)["key"] == "conversation_superset_match"


def test_a_bad_message_in_a_conversation_file_names_the_line_and_the_turn(tmp_path: Any) -> None:
    from pytest_agenttraj import ReferenceFileError
    from pytest_agenttraj.references import load_reference

    path = tmp_path / "bad.yaml"
    path.write_text(
        "turns:\n- - {role: user, content: hi}\n  - {role: assistant, content: ok}\n"
        "- - {role: user, content: again}\n  - {role: robot, content: beep}\n",
        encoding="utf-8",
    )
    with pytest.raises(ReferenceFileError) as caught:
        load_reference(path)
    assert str(caught.value).startswith(f"{path}:5: turn 2, message 1, field 'role'")
    path.write_text("turns: {a: 1}\n", encoding="utf-8")
    with pytest.raises(ReferenceFileError, match=r"'turns' must be a list of turns"):
        load_reference(path)
    path.write_text("turns: []\nextra: 1\n", encoding="utf-8")
    with pytest.raises(ReferenceFileError, match=r"unknown key\(s\) extra"):
        load_reference(path)


def test_a_judge_reads_a_conversation_as_its_trajectory() -> None:
    from judge_models import RecordingModel, score_call

    from pytest_agenttraj import create_trajectory_llm_as_judge

    judge = RecordingModel([score_call(reasoning="refused politely", score=True)])
    evaluator = create_trajectory_llm_as_judge(judge=judge)
    assert evaluator(outputs=to_conversation(REFUND_TALK))["score"] is True
    shown = "\n".join(str(m.content) for m in judge.seen[0])
    assert "I cannot refund that order." in shown
    assert "Sorry, no." in shown


def test_the_html_page_is_given_the_turn_that_diverged() -> None:
    from pytest_agenttraj.render.detail import detail

    reference = {"turns": [REFUND_TALK[:4], [user("Please?"), calls("give_refund")]]}
    report = match_conversations(
        to_conversation(REFUND_TALK), to_conversation(reference), make_config("strict")
    )
    view = detail(report)
    assert (view["kind"], view["diverged_at"], view["turns"], view["view"]) == (
        "conversation", 2, 2, "trajectory",
    )  # fmt: skip
    assert [m["text"] for m in view["output"]] == ["Please?", "Sorry, no."]


def test_an_update_rewrites_the_changed_turn_and_keeps_the_comments(tmp_path: Any) -> None:
    from pytest_agenttraj.references import load_reference, write_conversation

    path = tmp_path / "talk.yaml"
    path.write_text(
        "# the refund talk, reviewed\n"
        "mode: strict\n"
        "turns:\n"
        "- - {role: user, content: I want a refund}  # the opening\n"
        "  - {role: assistant, content: No.}\n"
        "- - {role: user, content: Please?}\n"
        "  - {role: assistant, content: Still no.}\n",
        encoding="utf-8",
    )
    refund = {"role": "assistant", "tool_calls": [{"name": "give_refund", "args": {}}]}
    write_conversation(
        load_reference(path),
        [[user("I want a refund"), said("No.")], [user("Please?"), refund]],
    )
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# the refund talk, reviewed\nmode: strict\nturns:\n")
    assert "# the opening" in text
    reread = load_reference(path)
    assert (reread.turns or [])[1][1]["tool_calls"] == [{"name": "give_refund", "args": {}}]
    assert (reread.turns or [])[0][1] == {"role": "assistant", "content": "No."}
