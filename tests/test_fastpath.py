"""The fast path (``core/fastpath.py``) against the general normaliser and matcher: whatever it
decides or builds, the general path would have decided and built the same.

The verdicts of both paths are compared on many trajectory shapes in ``test_matching.py``; here
the messages (chat dicts and LangChain messages) vary in the fields a matcher does not compare
(content, ids, names) and in how their arguments are written, since a failing evaluation builds
the trajectories of the sides the fast path walked from what the walk recorded.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from pytest_agenttraj import (
    MatchReport,
    Message,
    TrajectoryFormatError,
    match_trajectories,
    to_trajectory,
)
from pytest_agenttraj.core.compare import compare_trajectories
from pytest_agenttraj.core.matching.rules import make_config
from pytest_agenttraj.render import render_text
from pytest_agenttraj.render.detail import detail

_ARGS = [{}, {"city": "SF"}, {"city": "NYC", "days": [1, 2]}, {"q": {"deep": True}}]
# how a call's arguments are written: compact or spaced JSON (same value, other text), with
# surrounding space (only json.loads reads it), empty (no arguments), or not an object
_TEXTS = st.one_of(
    st.sampled_from(_ARGS).map(json.dumps),
    st.sampled_from(_ARGS).map(lambda a: json.dumps(a, separators=(",", ":"))),
    st.sampled_from(_ARGS).map(lambda a: f" {json.dumps(a)} "),
    st.sampled_from(["", "[1]", "{not json"]),
)
_OPTIONAL = st.one_of(st.none(), st.text(max_size=3), st.integers(0, 3))


def _optional_fields(draw: st.DrawFn, names: tuple[str, ...]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for name in names:
        if draw(st.booleans()):
            fields[name] = draw(_OPTIONAL)
    return fields


def _call_form(name: str, text: str, flat: bool) -> dict[str, Any]:
    """A call in OpenAI's ``function`` form, or in the flat form reference files are read into
    (``{"name", "args"}``; arguments that are not an object stay text, as the normaliser reads
    those too)."""
    if not flat:
        return {"function": {"name": name, "arguments": text}}
    try:
        args = json.loads(text)
    except ValueError:
        args = text
    return {"name": name, "args": args if isinstance(args, dict) else text}


@st.composite
def _plain_messages(draw: st.DrawFn) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for _ in range(draw(st.integers(0, 4))):
        calls = [
            {
                **_call_form(draw(st.sampled_from(["a", "b"])), text, draw(st.booleans())),
                **_optional_fields(draw, ("id",)),
            }
            for text in draw(st.lists(_TEXTS, min_size=1, max_size=3))
        ]
        content = draw(st.one_of(st.none(), st.just(""), st.text(max_size=3), st.integers()))
        message = {"role": draw(st.sampled_from(["assistant", "ai"])), "tool_calls": calls}
        if draw(st.booleans()):
            message["content"] = content
        messages.append({**message, **_optional_fields(draw, ("id", "name"))})
        for _ in calls:
            result = {"role": "tool", "content": draw(st.text(max_size=3))}
            messages.append({**result, **_optional_fields(draw, ("tool_call_id", "id", "name"))})
    messages.append({"role": "assistant", "content": draw(st.one_of(st.none(), st.text()))})
    return messages


_NAMES = st.one_of(st.none(), st.text(min_size=1, max_size=3))


@st.composite
def _langchain_messages(draw: st.DrawFn) -> list[Any]:
    """What an agent returns: LangChain messages with dict arguments and optional ids and names."""
    messages: list[Any] = [HumanMessage(content="go", id=draw(_NAMES))]
    for turn in range(draw(st.integers(0, 4))):
        calls = [
            {
                "name": draw(st.sampled_from(["a", "b"])),
                "args": dict(draw(st.sampled_from(_ARGS))),
                "id": draw(_NAMES),
                "type": "tool_call",
            }
            for _ in range(draw(st.integers(1, 3)))
        ]
        content = draw(st.sampled_from(["", "thinking"]))
        messages.append(AIMessage(content=content, tool_calls=calls, id=draw(_NAMES)))
        for position, _ in enumerate(calls):
            result = ToolMessage(
                content=draw(st.text(max_size=3)),
                tool_call_id=f"{turn}-{position}",
                name=draw(_NAMES),
            )
            messages.append(result)
    messages.append(AIMessage(content=draw(st.text(max_size=3)), name=draw(_NAMES)))
    return messages


def _general(outputs: Any, reference: Any, config: Any) -> MatchReport:
    memo: dict[str, Any] = {}
    return match_trajectories(
        to_trajectory(outputs, side="outputs", memo=memo),
        to_trajectory(reference, side="reference_outputs", memo=memo),
        config,
    )


def _outcome(compare: Callable[[], MatchReport]) -> MatchReport | TrajectoryFormatError:
    """The report, or the input error it raised."""
    try:
        return compare()
    except TrajectoryFormatError as error:
        return error


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    outputs=st.one_of(_plain_messages(), _langchain_messages()),
    reference=st.one_of(_plain_messages(), _langchain_messages()),
    mode=st.sampled_from(["strict", "unordered", "subset", "superset", "in_order"]),
    args_mode=st.sampled_from(["exact", "ignore", "subset"]),
)
def test_plain_messages_are_built_and_judged_as_the_normaliser_does(
    outputs: list[Any], reference: list[Any], mode: str, args_mode: str
) -> None:
    _check_agrees(outputs, reference, mode, args_mode)


@st.composite
def _mixed_messages(draw: st.DrawFn) -> list[Any]:
    """Runs of chat dicts and of LangChain messages in one list (an agent's state whose first
    message was given as a dict, say): each form's scanner reads its runs."""
    forms = [draw(_plain_messages()), draw(_langchain_messages())]
    if draw(st.booleans()):
        forms.reverse()
    mixed: list[Any] = []
    turn = 0
    while forms[0] or forms[1]:
        cut = draw(st.integers(1, 3))
        mixed += forms[turn][:cut]
        forms[turn] = forms[turn][cut:]
        turn = 1 - turn
    return mixed


@st.composite
def _mixed_pairs(draw: st.DrawFn) -> tuple[list[Any], list[Any]]:
    """A mixed side, and a reference that is often the same messages (so the fast path has
    matches to prove), else any side."""
    outputs = draw(_mixed_messages())
    others = st.one_of(_mixed_messages(), _plain_messages(), _langchain_messages())
    return outputs, draw(st.one_of(st.just(list(outputs)), others))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sides=_mixed_pairs(),
    mode=st.sampled_from(["strict", "unordered", "subset", "superset", "in_order"]),
    args_mode=st.sampled_from(["exact", "ignore", "subset"]),
)
def test_sides_of_both_forms_are_built_and_judged_as_the_normaliser_does(
    sides: tuple[list[Any], list[Any]], mode: str, args_mode: str
) -> None:
    _check_agrees(*sides, mode, args_mode)


def _problems(report: MatchReport) -> list[tuple[Any, ...]]:
    """What a report says of each problem: its text, the messages it marks, and for a call the
    call and the one set beside it (where each stands, and its arguments)."""

    def place(ref: Any) -> Any:
        return None if ref is None else (ref.message, ref.position, ref.call)

    return [
        (
            p.kind,
            p.text,
            p.output_index,
            p.reference_index,
            None if p.call is None else (place(p.call.call), place(p.call.closest), p.call.diffs),
        )
        for p in report.problems
    ]


def _check_agrees(
    outputs: list[Any],
    reference: list[Any],
    mode: str,
    args_mode: str,
    *,
    drawn: bool = False,
    allow_empty: bool = True,
) -> None:
    """The fast path's report (or error) is the general path's: the same verdict, problems,
    trajectories and, for a match it proved, pairs the rules allow; ``drawn``: the same diff
    drawn of a failing one, too."""
    config = make_config(mode, args_mode, allow_empty=allow_empty)
    expected = _outcome(lambda: _general(outputs, reference, config))
    report = _outcome(lambda: compare_trajectories(outputs, reference, config))
    if isinstance(expected, TrajectoryFormatError):
        assert isinstance(report, TrajectoryFormatError)
        assert str(report) == str(expected)
        return
    assert not isinstance(report, TrajectoryFormatError)
    assert report.matched == expected.matched
    assert _problems(report) == _problems(expected)
    assert report.output == expected.output
    assert report.reference == expected.reference
    pairs = [(o.message, o.position, r.message, r.position) for o, r in report.pairs]
    if not expected.matched:  # the same matcher on the same trajectories: the same pairs
        assert pairs == [(o.message, o.position, r.message, r.position) for o, r in expected.pairs]
        if drawn:
            assert render_text(report, verbose=1) == render_text(expected, verbose=1)
            assert detail(report) == detail(expected)  # what the HTML page draws
        return
    # a match the fast path proved: equal calls may pair with another of their equals, as long
    # as every pair is one the rules allow and as many calls pair
    assert len(pairs) == len(expected.pairs)
    for o, r in report.pairs:
        assert report.output[o.message].tool_calls[o.position] == o.call
        assert report.reference[r.message].tool_calls[r.position] == r.call
        assert o.call.name == r.call.name
        assert config.rule_for(o.call.name).matches(o.call.args, r.call.args)
        assert mode != "strict" or o.message == r.message
    if mode == "in_order":  # calls of later reference messages in later output messages
        for o, r in report.pairs:
            for o2, r2 in report.pairs:
                assert r.message >= r2.message or o.message < o2.message


@pytest.mark.parametrize("opening", ["chat dict", "LangChain message"])
@pytest.mark.parametrize("mode", ["strict", "unordered"])
def test_an_item_of_neither_form_after_a_call_leaves_the_side_to_the_normaliser(
    opening: str, mode: str
) -> None:
    # A ``Message`` the caller built is neither a dict nor a LangChain message: no scanner reads
    # it, though the cheap look before the walk stops at the first call and does not see it.
    first: Any = (
        {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}
        if opening == "chat dict"
        else AIMessage(content="", tool_calls=[{"name": "f", "args": {}, "id": "c1"}])
    )
    side = [first, Message("tool", "done"), {"role": "assistant", "content": "ok"}]
    _check_agrees(side, list(side), mode, "exact")
    assert compare_trajectories(side, list(side), make_config(mode, "exact")).matched


def test_a_failing_evaluation_keeps_every_field_of_plain_messages() -> None:
    call = {"id": "call_1", "function": {"name": "f", "arguments": '{"x": 1}'}}
    outputs = [
        {"role": "user", "content": None, "id": "m0", "name": "ann"},
        {"role": "ai", "tool_calls": [call], "id": 7},
        {"role": "tool", "content": "r", "tool_call_id": "call_1", "name": "f"},
    ]
    reference = [*outputs[:1], {"role": "assistant", "tool_calls": [{**call, "id": None}]}]
    report = compare_trajectories(outputs, reference, make_config("strict", "exact"))
    assert not report.matched
    assert report.output == to_trajectory(outputs)
    first, second, third = report.output.messages
    assert (first.content, first.id, first.name) == ("", "m0", "ann")
    assert (second.role, second.id, second.tool_calls[0].id) == ("assistant", None, "call_1")
    assert (third.tool_call_id, third.name) == ("call_1", "f")
    assert report.reference[1].tool_calls[0].id is None


def test_arguments_that_are_not_one_object_are_named_by_the_normaliser() -> None:
    bad = [{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "[1]"}}]}]
    good = [{"role": "assistant", "tool_calls": [{"function": {"name": "g", "arguments": "{}"}}]}]
    with pytest.raises(TrajectoryFormatError, match="arguments of tool 'f'") as caught:
        compare_trajectories(good, bad, make_config("unordered", "exact"))
    assert caught.value.side == "reference_outputs"
    assert caught.value.index == 0


@st.composite
def _chat_call_sides(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Two chat-dict sides whose calls' arguments are texts, the reference mostly the output's
    calls again (some the very same texts, some the same values written otherwise), shuffled,
    with calls changed, dropped or added: what ``failing_calls`` compares."""
    texts = st.one_of(
        st.sampled_from(_ARGS).map(json.dumps),
        st.sampled_from(_ARGS).map(lambda a: json.dumps(a, separators=(",", ":"))),
    )
    calls = draw(st.lists(st.tuples(st.sampled_from(["a", "b"]), texts), min_size=1, max_size=8))
    others = draw(st.lists(st.tuples(st.sampled_from(["a", "b"]), texts), max_size=3))
    kept = draw(st.lists(st.booleans(), min_size=len(calls), max_size=len(calls)))
    reference = [call for call, keep in zip(calls, kept, strict=True) if keep] + others
    reference = draw(st.permutations(reference))

    def side(made: list[tuple[str, str]]) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
        for number, (name, text) in enumerate(made):
            call = {"id": f"c{number}", "function": {"name": name, "arguments": text}}
            messages.append({"role": "assistant", "tool_calls": [call]})
            messages.append({"role": "tool", "content": "ok", "tool_call_id": f"c{number}"})
        return messages

    return side(calls), side(list(reference))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sides=_chat_call_sides(),
    mode=st.sampled_from(["unordered", "subset", "superset"]),
    allow_empty=st.booleans(),
)
def test_calls_compared_without_building_the_sides_are_judged_as_the_general_path_does(
    sides: tuple[list[Any], list[Any]], mode: str, allow_empty: bool
) -> None:
    """A failing comparison of calls only under exact args pairs the very same texts first and
    parses only the calls left over: the same verdict, problems, pairs, trajectories and diff
    (an empty side refused as the general path refuses it, where ``allow_empty=False``)."""
    _check_agrees(*sides, mode, "exact", drawn=True, allow_empty=allow_empty)


def _calls_of_f(values: list[int]) -> list[dict[str, Any]]:
    """One assistant message per value, calling ``f`` with ``{"n": value}``."""
    return [
        {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": text}}]}
        for text in (json.dumps({"n": n}) for n in values)
    ]


def test_a_long_failing_comparison_of_calls_builds_neither_side() -> None:
    from pytest_agenttraj.core import fastpath

    outputs, reference = _calls_of_f([*range(999), -1]), _calls_of_f(list(range(1000)))
    config = make_config("unordered", "exact")
    report = fastpath.failing_calls(
        outputs, reference, fastpath.decide(outputs, reference, config), config
    )
    assert report is not None
    assert isinstance(report.sides, fastpath.DeferredSides)
    assert [p.text for p in report.problems] == [
        "message 999: tool call 'f' args differ (exact): n expected 999, got -1"
    ]
    assert len(report.pairs) == 999
    _check_agrees(outputs, reference, "unordered", "exact", drawn=True)


def test_a_diff_of_a_lazily_made_report_builds_neither_side(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The diff of a long failing comparison of calls (what a failed test shows) reads where the
    calls stand from the walk and makes only the calls it shows, and the HTML page's detail
    reads only the messages it keeps; pickled (as pytest-xdist sends the error that holds it),
    the report carries its trajectories, built."""
    import pickle

    from pytest_agenttraj.core import fastpath
    from pytest_agenttraj.render.detail import MAX_ITEMS

    count = MAX_ITEMS + 500
    outputs, reference = _calls_of_f([*range(count - 1), -1]), _calls_of_f(list(range(count)))
    config = make_config("unordered", "exact")
    report = compare_trajectories(outputs, reference, config)
    read: list[int] = []  # how many messages each normalisation read
    original = fastpath.to_trajectory
    monkeypatch.setattr(
        fastpath,
        "to_trajectory",
        lambda items, **kw: read.append(len(items)) or original(items, **kw),
    )
    text = render_text(report, verbose=1)
    assert "n=-1" in text
    assert "matching rows" in text
    assert read == []
    page = detail(report)
    assert page["output_count"] == count
    assert len(page["output"]) == MAX_ITEMS
    assert read == [MAX_ITEMS, MAX_ITEMS]
    clone = pickle.loads(pickle.dumps(report))
    assert read[2:] == [count, count]
    assert clone.output == to_trajectory(outputs)
    assert render_text(clone, verbose=1) == text
    assert detail(clone) == page
