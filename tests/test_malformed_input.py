"""Malformed input: a clear ``TrajectoryFormatError`` or a normal result, never a stray exception.

Valid trajectories in every accepted format are corrupted at one place (a value replaced by random
nested junk, a key deleted or added, the container swapped) and fed to the evaluator and to
``to_trajectory``. The outcome must be EXACTLY one of:

- a normal result dict, or
- a ``TrajectoryFormatError`` (a ``ValueError``) naming the side (``outputs`` /
  ``reference_outputs``), the index of the corrupted message where one applies, and the field.

Separately, argument values JSON cannot encode (datetime, set, Decimal, bytes, tuples, NaN, other
objects) must compare as values, under every args mode and under key-list overrides.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from pytest_agenttraj import (
    Trajectory,
    TrajectoryFormatError,
    create_trajectory_match_evaluator,
    to_trajectory,
)

MODES = ("strict", "unordered", "subset", "superset")
ARGS_MODES = ("exact", "ignore", "subset", "superset")
SIDES = ("outputs", "reference_outputs")

# ---------------------------------------------------------------- junk


class Thing:
    """An arbitrary object: no JSON form, compared by identity."""


class Unhashable:
    """An object that is neither hashable nor JSON."""

    __hash__ = None  # type: ignore[assignment]

    def __init__(self, value: int) -> None:
        self.value = value


@dataclass
class Point:
    """A plain (unhashable) dataclass: equal by fields, no JSON form."""

    x: int
    y: int


WORDS = (
    "",
    "user",
    "assistant",
    "ai",
    "human",
    "tool",
    "robot",
    "message",
    "function_call",
    "function_call_output",
    "reasoning",
    "tool_use",
    "tool_result",
    "text",
    "search",
    "{",
    '{"q": 1}',
    "[1, 2]",
    "null",
    "1",
    '"text"',
)
FIELD_NAMES = (
    "role",
    "type",
    "content",
    "messages",
    "tool_calls",
    "function",
    "name",
    "arguments",
    "args",
    "input",
    "id",
    "call_id",
    "tool_call_id",
    "tool_use_id",
    "output",
    "text",
    "additional_kwargs",
)

leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(WORDS),
    st.text(max_size=3),
    st.binary(max_size=3),
    st.builds(Thing),
    st.builds(Unhashable, st.integers(0, 2)),
)


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=3),
        st.lists(children, max_size=2).map(tuple),
        st.dictionaries(st.sampled_from(FIELD_NAMES), children, max_size=4),
        st.frozensets(st.integers(0, 3), max_size=2),
    )


junk = st.recursive(leaves, _containers, max_leaves=10)
# strings that look almost right where a role, a tool name or JSON arguments belong
BAD_TEXTS = ("robot", "Assistant", "", " ", "{", "[1]", '"{}"', "{} {}", " {}", "null", "{'q': 1}")

# ---------------------------------------------------------------- valid trajectories to corrupt


def dict_trajectory() -> list[dict[str, Any]]:
    """Every dict format at once: OpenAI chat (JSON and dict args, flat calls), Anthropic blocks,
    OpenAI Responses items."""
    return [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "find a and b"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "search", "arguments": '{"q": "a"}'},
                },
                {"id": "c2", "type": "function", "function": {"name": "fetch", "arguments": {}}},
                {"id": "c3", "name": "lookup", "args": {"k": 1}},
            ],
        },
        {"role": "tool", "content": "r1", "tool_call_id": "c1"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "and b"},
                {"type": "tool_use", "id": "c4", "name": "search", "input": {"q": "b"}},
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c4", "content": "r"}]},
        {"type": "function_call", "name": "fetch", "arguments": '{"url": "u"}', "call_id": "c5"},
        {"type": "function_call_output", "call_id": "c5", "output": "r5"},
        {"role": "assistant", "content": "done"},
    ]


def chat_trajectory() -> list[dict[str, Any]]:
    """Plain OpenAI chat dicts only, arguments as JSON text: the form whose passing evaluations
    are decided before the full normaliser runs."""
    return [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "find a and b"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "search", "arguments": '{"q": "a"}'},
                },
                {"id": "c2", "type": "function", "function": {"name": "fetch", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "content": "r1", "tool_call_id": "c1"},
        {"role": "tool", "content": "r2", "tool_call_id": "c2", "name": "fetch"},
        {"role": "assistant", "content": "done", "id": "m6"},
    ]


def langchain_trajectory() -> list[BaseMessage]:
    """The same kind of run as LangChain messages (calls as ``tool_calls``, in
    ``additional_kwargs`` and as Anthropic content blocks)."""
    return [
        SystemMessage(content="be brief"),
        HumanMessage(content="find a"),
        AIMessage(
            content="",
            tool_calls=[
                {"name": "search", "args": {"q": "a"}, "id": "c1"},
                {"name": "fetch", "args": {}, "id": "c2"},
            ],
        ),
        ToolMessage(content="r1", tool_call_id="c1"),
        AIMessage(
            content="",
            additional_kwargs={
                "tool_calls": [
                    {
                        "id": "c3",
                        "type": "function",
                        "function": {"name": "lookup", "arguments": "{}"},
                    }
                ]
            },
        ),
        ChatMessage(role="assistant", content="thinking"),
        AIMessage(
            content=[{"type": "tool_use", "id": "c4", "name": "search", "input": {"q": "b"}}]
        ),
        AIMessage(content="done"),
    ]


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_paths(item, (*prefix, index)))
    return found


DICT_PATHS = _paths(dict_trajectory())
CHAT_PATHS = _paths(chat_trajectory())
LANGCHAIN_ATTRS = (
    "content",
    "tool_calls",
    "additional_kwargs",
    "type",
    "role",
    "id",
    "name",
    "tool_call_id",
)


@dataclass(frozen=True)
class Corruption:
    """A corrupted trajectory and what an error about it must say.

    ``index`` is the corrupted message's position (``None`` when the container itself is
    corrupted); ``roots`` the top-level fields an error about that message may name (empty: any).
    """

    value: Any
    index: int | None
    roots: frozenset[str]
    note: str


def _set_path(root: Any, path: tuple[Any, ...], op: str, value: Any, key: str) -> Any:
    """``root`` with ``value`` placed at ``path`` (or the key deleted, or a key added there)."""
    if not path:
        return value
    parent = root
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if op == "delete" and isinstance(parent, dict):
        del parent[last]
    elif op == "add" and isinstance(parent[last], dict):
        parent[last][key] = value
    else:
        parent[last] = value
    return root


def _roots_for_dict(path: tuple[Any, ...], op: str, key: str) -> frozenset[str]:
    """Which field an error about the message at ``path[0]`` may name."""
    if len(path) == 1 and op != "add":
        return frozenset()  # the whole message was replaced: any field, or none
    field = path[1] if len(path) > 1 else key
    if field == "type":
        # Changing "type" changes what the item is read as (a Responses item, a chat message
        # whose role comes from "type"): any of its fields may be the first to be wrong.
        return frozenset()
    return frozenset({field})


@st.composite
def dict_corruptions(draw: st.DrawFn, chat_only: bool = False) -> Corruption:
    """One corruption of the dict-format trajectory (or of the plain chat one), in a list or a
    ``{"messages": ...}`` dict."""
    trajectory = chat_trajectory() if chat_only else dict_trajectory()
    path = draw(st.sampled_from(CHAT_PATHS if chat_only else DICT_PATHS))
    op = draw(st.sampled_from(("replace", "replace", "delete", "add")))
    key = draw(st.sampled_from(FIELD_NAMES))
    value = draw(st.one_of(junk, st.sampled_from(BAD_TEXTS)) if chat_only else junk)
    corrupted = _set_path(trajectory, path, op, value, key)
    note = f"{op} {key if op == 'add' else ''} at {path}"
    if not path:
        return Corruption(corrupted, None, frozenset(), note)
    index, roots = path[0], _roots_for_dict(path, op, key)
    container = draw(st.sampled_from(("list", "list", "list", "tuple", "state")))
    if container == "tuple":
        corrupted = tuple(corrupted)
    elif container == "state":
        corrupted = {"messages": corrupted}
    return Corruption(corrupted, index, roots, note)


LANGCHAIN_ROOTS: dict[str, frozenset[str]] = {
    "content": frozenset({"content"}),
    "tool_calls": frozenset({"tool_calls"}),
    "additional_kwargs": frozenset({"tool_calls", "additional_kwargs"}),
    "type": frozenset({"type", "role"}),
    "role": frozenset({"role"}),
}


@st.composite
def langchain_corruptions(draw: st.DrawFn) -> Corruption:
    """A LangChain message changed after construction (pydantic does not validate assignment)."""
    trajectory = langchain_trajectory()
    index = draw(st.integers(0, len(trajectory) - 1))
    message = trajectory[index]
    attr = draw(st.sampled_from([a for a in LANGCHAIN_ATTRS if hasattr(message, a)]))
    value = draw(junk)
    current = getattr(message, attr, None)
    where = draw(st.sampled_from(("attribute", "item", "item_key")))
    if where == "item" and isinstance(current, list) and current:
        current[draw(st.integers(0, len(current) - 1))] = value
    elif where == "item_key" and isinstance(current, list) and current:
        item = current[draw(st.integers(0, len(current) - 1))]
        if isinstance(item, dict):
            item[draw(st.sampled_from(("name", "args", "id", "input", "type")))] = value
    elif where == "item_key" and isinstance(current, dict) and current.get("tool_calls"):
        call = current["tool_calls"][0]
        call[draw(st.sampled_from(("function", "id", "name", "args")))] = value
    else:
        object.__setattr__(message, attr, value)
    roots = LANGCHAIN_ROOTS.get(attr, frozenset({"<none expected>"}))
    return Corruption(trajectory, index, roots, f"{where} {attr} of message {index}")


def _top_level_junk() -> st.SearchStrategy[Corruption]:
    wrapped = st.one_of(
        junk,
        st.builds(lambda v: {"messages": v}, junk),
        st.dictionaries(st.sampled_from(("msgs", "role_", "data")), junk, max_size=2),
    )
    return wrapped.map(lambda v: Corruption(v, None, frozenset(), "top-level junk"))


corruptions = st.one_of(dict_corruptions(), langchain_corruptions(), _top_level_junk())

# ---------------------------------------------------------------- the check


_ROOT = re.compile(r"[.\[]")


def check_format_error(error: TrajectoryFormatError, side: str | None, bad: Corruption) -> None:
    """The error says where: side, message index (when there is one) and field."""
    text = str(error)
    assert isinstance(error, ValueError)
    assert error.side == side, text
    if side is None:
        assert not text.startswith(SIDES), text
    else:
        assert text.startswith((f"{side}:", f"{side},")), text
    if bad.index is not None:
        # The container is fine, so the error is about the corrupted message.
        assert error.index == bad.index, f"{bad.note}: {text}"
    if error.index is not None:
        assert f"message {error.index}" in text, text
    if error.field is not None:
        assert f"field {error.field!r}" in text, text
    if bad.index is not None and bad.roots:
        assert error.field is not None, f"{bad.note}: {text}"
        assert _ROOT.split(error.field)[0] in bad.roots, f"{bad.note}: {text}"
    elif error.index is not None and error.field is None:
        # Only an item that is not a message at all has no field to name.
        assert "expected a message dict or a LangChain message" in text, text
    assert error.problem, text
    assert error.problem in text, text


def evaluate_or_explain(
    outputs: Any, reference: Any, side: str, bad: Corruption, mode: str, args_mode: str
) -> None:
    evaluator = create_trajectory_match_evaluator(
        trajectory_match_mode=mode, tool_args_match_mode=args_mode
    )
    try:
        result = evaluator(outputs=outputs, reference_outputs=reference)
    except TrajectoryFormatError as error:
        check_format_error(error, side, bad)
        return
    assert set(result) == {"key", "score", "comment", "metadata"}
    assert result["key"] == f"trajectory_{mode}_match"
    assert isinstance(result["score"], bool)
    assert (result["comment"] is None) is result["score"]
    if not result["score"]:
        assert isinstance(result["comment"], str)
        assert result["comment"]


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    bad=corruptions,
    side=st.sampled_from(SIDES),
    mode=st.sampled_from(MODES),
    args_mode=st.sampled_from(ARGS_MODES),
)
def test_corrupted_trajectories_fail_clearly(
    bad: Corruption, side: str, mode: str, args_mode: str
) -> None:
    good = dict_trajectory()
    if side == "outputs":
        evaluate_or_explain(bad.value, good, side, bad, mode, args_mode)
    else:
        evaluate_or_explain(good, bad.value, side, bad, mode, args_mode)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(bad=corruptions, side=st.sampled_from((None, *SIDES)))
def test_to_trajectory_fails_clearly(bad: Corruption, side: str | None) -> None:
    try:
        trajectory = to_trajectory(bad.value, side=side)
    except TrajectoryFormatError as error:
        check_format_error(error, side, bad)
        return
    assert isinstance(trajectory, Trajectory)
    for message in trajectory:
        for call in message.tool_calls:
            assert isinstance(call.name, str)
            assert call.name
            assert isinstance(call.args, Mapping)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    bad=st.one_of(dict_corruptions(chat_only=True), dict_corruptions(chat_only=True), corruptions),
    mode=st.sampled_from(MODES),
)
def test_the_same_corrupted_trajectory_on_both_sides_is_refused_as_alone(
    bad: Corruption, mode: str
) -> None:
    """Passing evaluations of chat dicts are decided before the full normaliser runs; one object
    on both sides is where that could wrongly pass input the normaliser refuses."""
    try:
        to_trajectory(bad.value)
    except TrajectoryFormatError:
        refused = True
    else:
        refused = False
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode=mode)  # type: ignore[arg-type]
    if refused:
        with pytest.raises(TrajectoryFormatError) as caught:
            evaluator(outputs=bad.value, reference_outputs=bad.value)
        check_format_error(caught.value, "outputs", bad)
    else:
        result = evaluator(outputs=bad.value, reference_outputs=bad.value)
        assert isinstance(result["score"], bool)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(outputs=junk, reference=junk)
def test_junk_on_both_sides_fails_clearly(outputs: Any, reference: Any) -> None:
    """Outputs are read first, so an error names outputs unless only the reference is bad."""
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode="unordered")
    try:
        evaluator(outputs=outputs, reference_outputs=reference)
    except TrajectoryFormatError as error:
        try:
            to_trajectory(outputs)
        except TrajectoryFormatError:
            expected_side = "outputs"
        else:
            expected_side = "reference_outputs"
        check_format_error(error, expected_side, Corruption(None, None, frozenset(), "junk"))


# ---------------------------------------------------------------- each listed bad input


def _call(name: Any = "search", arguments: Any = '{"q": "a"}') -> dict[str, Any]:
    return {"id": "c1", "type": "function", "function": {"name": name, "arguments": arguments}}


def _assistant(*calls: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": "", "tool_calls": list(calls)}


GOOD = [{"role": "user", "content": "hi"}, _assistant(_call())]

BAD_INPUTS: dict[str, tuple[Any, int | None, str | None, tuple[str, ...]]] = {
    # name: (bad trajectory, message index, field, words the message must contain)
    "message without a role": (
        [{"role": "user", "content": "hi"}, {"content": "no role"}],
        1,
        "role",
        ("no role",),
    ),
    "unknown role": ([{"role": "robot", "content": "beep"}], 0, "role", ("'robot'",)),
    "role not a string": ([{"role": ["user"], "content": "hi"}], 0, "role", ("unknown role",)),
    "tool_calls a string": (
        [{"role": "assistant", "content": "", "tool_calls": "search"}],
        0,
        "tool_calls",
        ("list", "str"),
    ),
    "tool_calls a dict": (
        [{"role": "user"}, {"role": "assistant", "tool_calls": {"name": "search"}}],
        1,
        "tool_calls",
        ("list", "dict"),
    ),
    "tool call not a dict": ([_assistant("search")], 0, "tool_calls[0]", ("dict", "str")),
    "function not a dict": (
        [_assistant({"function": "search"})],
        0,
        "tool_calls[0].function",
        ("dict",),
    ),
    "tool call without a name": (
        [_assistant(_call(), {"function": {"arguments": "{}"}})],
        0,
        "tool_calls[1].function.name",
        ("name",),
    ),
    "flat tool call without a name": (
        [_assistant({"args": {"q": "a"}})],
        0,
        "tool_calls[0].name",
        ("name",),
    ),
    "tool name not a string": (
        [_assistant(_call(name=42))],
        0,
        "tool_calls[0].function.name",
        ("42",),
    ),
    "empty tool name": ([_assistant(_call(name=""))], 0, "tool_calls[0].function.name", ("name",)),
    "arguments not valid JSON": (
        [{"role": "user", "content": "hi"}, _assistant(_call("get_weather", '{"city": '))],
        1,
        "tool_calls[0].function.arguments",
        ("'get_weather'", "not valid JSON"),
    ),
    "arguments JSON but not an object": (
        [_assistant(_call("get_weather", "[1, 2]"))],
        0,
        "tool_calls[0].function.arguments",
        ("'get_weather'", "list"),
    ),
    "arguments neither text nor a dict": (
        [_assistant(_call("get_weather", 42))],
        0,
        "tool_calls[0].function.arguments",
        ("'get_weather'", "int"),
    ),
    "item not a message": ([{"role": "user", "content": "hi"}, 42], 1, None, ("int",)),
    "top-level dict without messages": ({"msgs": GOOD}, None, None, ("'messages'", "'msgs'")),
    "messages not a list": ({"messages": "hi"}, None, "messages", ("list", "str")),
    "None as a trajectory": (None, None, None, ("None",)),
    "a number as a trajectory": (3, None, None, ("int",)),
}


@pytest.mark.parametrize(
    ("bad", "index", "field", "words"), BAD_INPUTS.values(), ids=BAD_INPUTS.keys()
)
@pytest.mark.parametrize("side", SIDES)
def test_each_bad_input_is_named(
    bad: Any, index: int | None, field: str | None, words: tuple[str, ...], side: str
) -> None:
    evaluator = create_trajectory_match_evaluator()
    kwargs = {"outputs": GOOD, "reference_outputs": GOOD, side: copy.deepcopy(bad)}
    with pytest.raises(TrajectoryFormatError) as caught:
        evaluator(**kwargs)
    error = caught.value
    text = str(error)
    assert isinstance(error, ValueError)
    assert (error.side, error.index, error.field) == (side, index, field), text
    assert text.startswith(side)
    if index is not None:
        assert f"message {index}" in text
    if field is not None:
        assert repr(field) in text
    for word in words:
        assert word in text

    with pytest.raises(TrajectoryFormatError) as caught:
        to_trajectory(copy.deepcopy(bad))
    assert (caught.value.side, caught.value.index, caught.value.field) == (None, index, field)
    assert not str(caught.value).startswith(SIDES)


def test_invalid_json_arguments_in_a_langchain_message_are_named() -> None:
    message = AIMessage(
        content="",
        additional_kwargs={"tool_calls": [_call("get_weather", "{not json")]},
    )
    with pytest.raises(TrajectoryFormatError) as caught:
        create_trajectory_match_evaluator()(outputs=GOOD, reference_outputs=[GOOD[0], message])
    error = caught.value
    assert (error.side, error.index) == ("reference_outputs", 1)
    assert error.field is not None
    assert "arguments" in error.field
    assert "'get_weather'" in str(error)


# ---------------------------------------------------------------- values JSON cannot encode


def _traj(*calls: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """A trajectory whose tool-call arguments are given as dicts (any Python values)."""
    return [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": f"c{i}", "function": {"name": name, "arguments": args}}
                for i, (name, args) in enumerate(calls)
            ],
        },
    ]


def _score(output_args: dict[str, Any], reference_args: dict[str, Any], **config: Any) -> bool:
    evaluator = create_trajectory_match_evaluator(**config)
    result = evaluator(
        outputs=_traj(("book", output_args)), reference_outputs=_traj(("book", reference_args))
    )
    if not result["score"]:
        assert isinstance(result["comment"], str)
        assert "book" in result["comment"]
    return bool(result["score"])


MOMENT = datetime(2024, 5, 1, 12, 30, tzinfo=timezone.utc)
SHARED = Thing()

EQUAL_VALUES: dict[str, tuple[Any, Any]] = {
    "same datetime": (MOMENT, datetime(2024, 5, 1, 12, 30, tzinfo=timezone.utc)),
    "same date": (date(2024, 5, 1), date(2024, 5, 1)),
    "tuple and list": ((1, 2), [1, 2]),
    "nested tuple and list": ({"xs": (1, (2, 3))}, {"xs": [1, [2, 3]]}),
    "nan and nan": (float("nan"), float("nan")),
    "nan in a list": ([1, float("nan")], [1.0, float("nan")]),
    "set in any order": ({1, 2}, {2, 1}),
    "frozenset and set": (frozenset({"a", "b"}), {"b", "a"}),
    "one and one point zero": (1, 1.0),
    "decimal": (Decimal("1.50"), Decimal("1.5")),
    "bytes": (b"\x00\xff", b"\x00\xff"),
    "the same object": (SHARED, SHARED),
    "nested objects": ({"at": [Point(1, 2)]}, {"at": [Point(1, 2)]}),
}
UNEQUAL_VALUES: dict[str, tuple[Any, Any]] = {
    "different datetimes": (MOMENT, MOMENT + timedelta(seconds=1)),
    "datetime and its text": (MOMENT, MOMENT.isoformat()),
    "true and one": (True, 1),
    "false and zero": (False, 0),
    "true and one point zero": (True, 1.0),
    "tuple and longer list": ((1, 2), [1, 2, 3]),
    "tuple in another order": ((1, 2), [2, 1]),
    "nan and a number": (float("nan"), 1.0),
    "different sets": ({1, 2}, {1, 3}),
    "set and list": ({1, 2}, [1, 2]),
    "different decimals": (Decimal("1.5"), Decimal("1.6")),
    "bytes and text": (b"ab", "ab"),
    "different objects": (Thing(), Thing()),
    "different nested objects": ({"at": [Point(1, 2)]}, {"at": [Point(1, 3)]}),
    "none and missing text": (None, ""),
}


@pytest.mark.parametrize(("left", "right"), EQUAL_VALUES.values(), ids=EQUAL_VALUES.keys())
def test_values_json_cannot_encode_match_when_equal(left: Any, right: Any) -> None:
    for a, b in ((left, right), (right, left)):
        assert _score({"v": a, "n": 1}, {"n": 1, "v": b})
        assert _score({"v": a}, {"v": b, "n": 1}, tool_args_match_mode="subset")
        assert _score({"v": a, "n": 1}, {"v": b}, tool_args_match_mode="superset")
        assert _score({"v": a, "x": 1}, {"v": b, "x": 2}, tool_args_match_overrides={"book": ["v"]})
        assert _score(
            {"when": {"v": a}, "x": 1},
            {"when": {"v": b}},
            tool_args_match_overrides={"book": ["when.v"]},
        )
        assert _score({"v": [a]}, {"v": [b]}, trajectory_match_mode="unordered")


@pytest.mark.parametrize(("left", "right"), UNEQUAL_VALUES.values(), ids=UNEQUAL_VALUES.keys())
def test_values_json_cannot_encode_differ_when_unequal(left: Any, right: Any) -> None:
    for a, b in ((left, right), (right, left)):
        assert not _score({"v": a}, {"v": b})
        assert not _score({"v": a}, {"v": b, "n": 1}, tool_args_match_mode="subset")
        assert not _score({"v": a, "n": 1}, {"v": b}, tool_args_match_mode="superset")
        assert not _score({"v": a}, {"v": b}, tool_args_match_overrides={"book": ["v"]})
        assert not _score(
            {"when": {"v": a}}, {"when": {"v": b}}, tool_args_match_overrides={"book": ["when.v"]}
        )
        assert _score({"v": a}, {"v": b}, tool_args_match_mode="ignore")
        for mode in ("unordered", "subset", "superset"):
            assert not _score({"v": a}, {"v": b}, trajectory_match_mode=mode)


def test_non_json_values_through_langchain_messages() -> None:
    def run(value: Any) -> list[BaseMessage]:
        return [
            AIMessage(content="", tool_calls=[{"name": "book", "args": {"v": value}, "id": "1"}])
        ]

    evaluator = create_trajectory_match_evaluator(trajectory_match_mode="unordered")
    assert evaluator(outputs=run((MOMENT, {1, 2})), reference_outputs=run([MOMENT, {2, 1}]))[
        "score"
    ]
    assert not evaluator(outputs=run(MOMENT), reference_outputs=run(MOMENT.isoformat()))["score"]


def test_callable_override_gets_the_values_as_given() -> None:
    seen: list[tuple[Any, Any]] = []

    def same_day(out: dict[str, Any], ref: dict[str, Any]) -> bool:
        seen.append((out["when"], ref["when"]))
        return bool(out["when"].date() == ref["when"].date())

    assert _score(
        {"when": MOMENT},
        {"when": MOMENT + timedelta(hours=1)},
        tool_args_match_overrides={"book": same_day},
    )
    assert seen == [(MOMENT, MOMENT + timedelta(hours=1))]


odd_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 3),
        st.floats(allow_nan=True),
        st.decimals(allow_nan=True, places=2),
        st.text(max_size=2),
        st.binary(max_size=2),
        st.datetimes(),
        st.dates(),
        st.builds(Thing),
        st.builds(Unhashable, st.integers(0, 1)),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.lists(children, max_size=3).map(tuple),
        st.frozensets(st.integers(0, 3) | st.text(max_size=1), max_size=3),
        st.sets(st.integers(0, 3), max_size=3),
        st.dictionaries(st.text(max_size=1) | st.integers(0, 2), children, max_size=3),
    ),
    max_leaves=8,
)


def _same_value(value: Any) -> Any:
    """A structurally equal copy that JSON would write the same way (tuples become lists)."""
    if isinstance(value, tuple):
        return [_same_value(v) for v in value]
    if isinstance(value, list):
        return tuple(_same_value(v) for v in value)
    if isinstance(value, dict):
        return {k: _same_value(v) for k, v in reversed(list(value.items()))}
    if isinstance(value, float) and math.isnan(value):
        return float("nan")
    return copy.deepcopy(value) if isinstance(value, date | Decimal | bytes) else value


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    left=st.dictionaries(st.sampled_from("abc"), odd_values, max_size=3),
    right=st.dictionaries(st.sampled_from("abc"), odd_values, max_size=3),
    args_mode=st.sampled_from(ARGS_MODES),
    mode=st.sampled_from(MODES),
)
def test_odd_values_never_crash_and_equal_copies_match(
    left: dict[str, Any], right: dict[str, Any], args_mode: str, mode: str
) -> None:
    config: dict[str, Any] = {"trajectory_match_mode": mode, "tool_args_match_mode": args_mode}
    _score(left, right, **config)  # any verdict, no exception
    _score(left, right, tool_args_match_overrides={"book": ["a", "b.c"]})
    assert _score(left, _same_value(left), **config)
    assert _score(_same_value(right), right, **config)


def test_dict_keys_json_writes_alike_do_not_crash() -> None:
    """``{1: ...}`` and ``{"1": ...}`` in one dict: sorting their items must not compare values."""
    args = {1: "a", "1": None, "n": {2: [1], "2": "x"}}
    reordered = dict(reversed(list(args.items())))
    assert _score(args, reordered)
    assert _score(args, reordered, tool_args_match_mode="subset")
    assert not _score(args, {**args, "1": "b"})


def test_json_roundtrip_of_arguments_is_not_needed_for_equal_values() -> None:
    """Arguments given as JSON text on one side and as a dict on the other compare as values."""
    args = {"when": "2024-05-01", "tags": ["a", "b"], "n": 1.0, "ok": True}
    text = [
        {"role": "assistant", "tool_calls": [_call("book", json.dumps(args))]},
    ]
    as_dict = [
        {"role": "assistant", "tool_calls": [_call("book", {**args, "n": 1})]},
    ]
    assert create_trajectory_match_evaluator()(outputs=text, reference_outputs=as_dict)["score"]


def _rejects(check: Callable[[], Any]) -> TrajectoryFormatError:
    with pytest.raises(TrajectoryFormatError) as caught:
        check()
    return caught.value


def test_none_as_a_trajectory_names_the_side() -> None:
    evaluator = create_trajectory_match_evaluator()
    error = _rejects(lambda: evaluator(outputs=None, reference_outputs=GOOD))
    assert error.side == "outputs"
    assert "None" in str(error)
    error = _rejects(lambda: evaluator(outputs=GOOD, reference_outputs=None))
    assert error.side == "reference_outputs"
    assert str(error).startswith("reference_outputs")


def _deep(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    cursor = value
    for _ in range(levels):
        cursor["a"] = {}
        cursor = cursor["a"]
    return value


def _arg_call(*args: Any) -> list[dict[str, Any]]:
    return [{"role": "assistant", "tool_calls": [{"name": "f", "args": a} for a in args]}]


@pytest.mark.parametrize("mode", ["strict", "unordered", "subset", "superset"])
def test_deep_or_cyclic_arguments_give_a_verdict_or_say_so(mode: str) -> None:
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode=mode)  # type: ignore[arg-type]
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    # deeper than json reads on any Python: 3.13's parser takes thousands of levels, where
    # 3.10-3.12 stop near a thousand
    deep_text = '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"
    text_call = [
        {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": deep_text}}]}
    ]
    # (outputs, reference, the error's text); None: the comparison never went deep enough to
    # meet the nesting (one call each side, told apart at their first level), and gives a verdict
    cases = [
        (_arg_call(_deep(2000)), _arg_call({"a": 1}), "nest more than 100 levels deep"),
        (_arg_call({"a": 1}), _arg_call(_deep(3000)), None),
        (_arg_call({"a": 1}, {"a": 2}), _arg_call(_deep(3000), _deep(3000)), "nest more than 100"),
        (_arg_call(cyclic), _arg_call({"self": {}}), None),
        (_arg_call(cyclic, cyclic), _arg_call({"self": {}}, {}), "refer to themselves"),
        (text_call, _arg_call({}), "nest too deep to be read"),
    ]
    for outputs, reference, text in cases:
        if text is None:
            assert evaluator(outputs=outputs, reference_outputs=reference)["score"] is False
            continue
        with pytest.raises(TrajectoryFormatError, match=text) as caught:
            evaluator(outputs=outputs, reference_outputs=reference)
        assert caught.value.index == 0
        assert "tool 'f'" in str(caught.value)
        # the RecursionError that found it is not chained: its frames would bury the message
        assert caught.value.__cause__ is None
        assert caught.value.__suppress_context__
    # args that differ in their keys need no deeper look: a verdict, and a diff that prints
    result = evaluator(outputs=_arg_call(cyclic), reference_outputs=_arg_call({}))
    assert result["score"] is False
    assert "self" in str(result["comment"])
    # arguments nested within the limit get a verdict
    deep = _arg_call(_deep(90))
    assert evaluator(outputs=deep, reference_outputs=copy.deepcopy(deep))["score"]


def test_messages_about_huge_or_broken_values_never_fail_themselves() -> None:
    with pytest.raises(TrajectoryFormatError, match=r"unknown role <int of \d+ bits>"):
        to_trajectory([{"role": 10**5000}])

    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    with pytest.raises(TrajectoryFormatError, match="unknown role <unprintable Broken>"):
        to_trajectory([{"role": Broken()}])
