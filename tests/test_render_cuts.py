"""The side-by-side table cuts cells by one rule, checked on random rows and widths: a role and
a tool name are never cut, and the first argument value that differs shows in both columns
whenever it fits in its column."""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from pytest_agenttraj import match_trajectories, to_trajectory
from pytest_agenttraj.core.matching.rules import make_config
from pytest_agenttraj.core.model import Message
from pytest_agenttraj.render import render

NAMES = ["f", "get_weather", "look_up_location_code", "search_the_knowledge_base_for_documents"]
KEYS = ["city", "q", "location_code", "k"]
VALUES = st.one_of(st.integers(-(10**9), 10**9), st.text(alphabet="ab xyz-'\"苏州市", max_size=60))
CALL = st.tuples(st.sampled_from(NAMES), st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=3))


def _columns(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _messages(calls: list[list[tuple[str, dict[str, Any]]]], question: str) -> list[Any]:
    messages: list[Any] = [{"role": "user", "content": question}]
    for group in calls:
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"name": name, "args": args} for name, args in group],
            }
        )
        messages.append({"role": "tool", "content": "done"})
    return messages


@st.composite
def _changed(draw: st.DrawFn, call: tuple[str, dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """``call`` as the reference may have it: the same, or one value, key or name changed."""
    name, args = call
    change = draw(st.sampled_from(["same", "value", "drop", "add", "name"]))
    if change == "value" and args:
        key = draw(st.sampled_from(sorted(args)))
        return name, {**args, key: draw(VALUES.filter(lambda v: v != args[key]))}
    if change == "drop" and args:
        key = draw(st.sampled_from(sorted(args)))
        return name, {k: v for k, v in args.items() if k != key}
    if change == "add":
        return name, {**args, draw(st.sampled_from(KEYS)): draw(VALUES)}
    if change == "name":
        return draw(st.sampled_from(NAMES)), args
    return name, args


@st.composite
def _pairs(draw: st.DrawFn, per_message: int) -> tuple[list[Any], list[Any]]:
    """An output trajectory and a reference that differs from it here and there."""
    output = draw(
        st.lists(st.lists(CALL, min_size=1, max_size=per_message), min_size=1, max_size=3)
    )
    reference = [[draw(_changed(call)) for call in group] for group in output]
    for group in reference:
        if per_message > 1 and draw(st.booleans()):
            group.append(draw(CALL))
    question = draw(st.text(alphabet="What's the weather in 苏州 SF?", max_size=80))
    return _messages(output, question), _messages(reference, question)


def _table(lines: list[str]) -> tuple[int, list[tuple[str, str, str, str]]]:
    """The column width and each row's (out index, ref index, left cell, right cell)."""
    at = next(i for i, line in enumerate(lines) if line.startswith("    out ref  output"))
    column = lines[at].index("  reference") - 13
    rows = []
    for line in lines[at + 1 :]:
        if line.lstrip().startswith("..."):
            continue
        cells, split = line[13:], 0
        while _columns(cells[:split]) < column:
            split += 1
        left, rest = cells[:split], cells[split:]
        assert _columns(left) == column, f"the left cell overflows its column: {line!r}"
        assert rest.startswith("  "), line
        assert not rest.startswith("   "), line
        rows.append((line[4:7].strip(), line[8:11].strip(), left.rstrip(), rest[2:]))
    return column, rows


def _focus(left: Message, right: Message) -> tuple[int, str | None]:
    """The first call that differs, and the first key whose value differs in it."""
    ours, theirs = left.tool_calls, right.tool_calls
    count = max(len(ours), len(theirs))
    at = next(
        (
            i
            for i in range(count)
            if i >= len(ours)
            or i >= len(theirs)
            or (ours[i].name, [(k, repr(v)) for k, v in ours[i].args.items()])
            != (theirs[i].name, [(k, repr(v)) for k, v in theirs[i].args.items()])
        ),
        0,
    )
    if at >= len(ours) or at >= len(theirs):
        return at, None
    mine, other = ours[at].args, theirs[at].args
    keys = [*mine, *(k for k in other if k not in mine)]
    key = next((k for k in keys if repr(mine.get(k, ...)) != repr(other.get(k, ...))), None)
    return at, key


def _check_cell(cell: str, message: Message, row: tuple[Message, Message], column: int) -> None:
    """``cell`` shows ``message`` (one side of ``row``: the output's message, the reference's)
    with its role and tool name whole and, when it fits, the row's first differing value: both
    cells of a row show the same key, the first in the output's order that differs."""
    assert _columns(cell) <= column, cell
    head = f"{message.role} -> " if message.tool_calls else f"{message.role}:"
    assert cell.startswith(head), f"the role is cut: {cell!r}"
    if not message.tool_calls:
        return
    focus, key = _focus(*row)
    at = min(focus, len(message.tool_calls) - 1)
    call = message.tool_calls[at]
    full = head + ", ".join(
        f"{c.name}({', '.join(f'{k}={v!r}' for k, v in c.args.items())})"
        for c in message.tool_calls
    )
    if cell != full:
        before = "..., " if at else ""
        after = ", ..." if at < len(message.tool_calls) - 1 else ""
        assert cell.startswith(f"{head}{before}{call.name}("), f"the tool name is cut: {cell!r}"
        assert cell.endswith(f"){after}"), cell
    if key is None or key not in call.args or focus >= len(message.tool_calls):
        return
    item = f"{key}={call.args[key]!r}"
    # room for the item with every mark the cell may need around it
    needed = _columns(f"{head}..., {call.name}(...{item}...), ...")
    if needed <= column:
        assert item in cell, f"{item!r} fits in {column} columns but is not shown: {cell!r}"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=_pairs(per_message=3), width=st.integers(60, 200))
def test_strict_rows_keep_roles_and_names_and_show_the_first_difference(
    pair: tuple[list[Any], list[Any]], width: int
) -> None:
    output, reference = (to_trajectory(side) for side in pair)
    report = match_trajectories(output, reference, make_config("strict", "exact", None))
    if report.matched:
        return
    column, rows = _table(render(report, width=width))
    assert column >= (width - 14) // 2
    for o, r, left, right in rows:
        assert "-" not in (o, r)  # the same number of messages on both sides
        mine, theirs = output[int(o)], reference[int(r)]
        _check_cell(left, mine, (mine, theirs), column)
        if right == "=":
            assert mine == theirs or (mine.role, mine.tool_calls) == (
                theirs.role,
                theirs.tool_calls,
            )
        else:
            _check_cell(right, theirs, (mine, theirs), column)


def _calling(name: str, args: dict[str, Any]) -> list[dict[str, Any]]:
    call = {"role": "assistant", "content": "", "tool_calls": [{"name": name, "args": args}]}
    return [call, {"role": "tool", "content": "done"}]


# A call compared with one whose keys come in another order: both cells focus on the first key,
# in the output's order, that differs (here city), not each on the first in its own order.
_WIDE = {"k": -100000, "city": -10, "location_code": 0}
_LONG = _calling("search_the_knowledge_base_for_documents", {})
_USER = {"role": "user", "content": ""}
_KEY_ORDER = (
    [_USER, *_calling("get_weather", {"city": 0}), *_calling("f", _WIDE), *_LONG],
    [_USER, *_calling("f", {"city": 0}), *_calling("get_weather", _WIDE), *_LONG],
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=_pairs(per_message=1), width=st.integers(60, 200))
@example(pair=_KEY_ORDER, width=60)
def test_call_rows_keep_names_and_show_the_first_difference(
    pair: tuple[list[Any], list[Any]], width: int
) -> None:
    output, reference = (to_trajectory(side) for side in pair)
    report = match_trajectories(output, reference, make_config("unordered", "exact", None))
    if report.matched:
        return
    column, rows = _table(render(report, width=width))
    for o, r, left, right in rows:
        mine = output[int(o)] if o != "-" else None
        theirs = reference[int(r)] if r != "-" else None
        # a call cell is a message cell without its role
        blank = to_trajectory([{"role": "assistant", "content": ""}])[0]
        row = (mine or blank, theirs or blank)
        for cell, message in ((left, mine), (right, theirs)):
            if cell == "=" or message is None:
                assert cell in ("=", "-"), cell
                continue
            _check_cell("assistant -> " + cell, message, row, column + 13)


@pytest.mark.parametrize("mode", ["strict", "unordered"])
def test_a_long_table_draws_only_the_rows_it_shows(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A diff of 1,000 calls, one of them changed, shows a few rows around the changed one and
    draws the cells of those alone, so that no length of trajectory makes the diff wait."""
    from pytest_agenttraj.render import trajectory

    calls = [[("f", {"n": n})] for n in range(1000)]
    changed = [*calls[:-1], [("f", {"n": -1})]]
    report = match_trajectories(
        to_trajectory(_messages(changed, "go")),
        to_trajectory(_messages(calls, "go")),
        make_config(mode),
    )
    drawn: list[Any] = []
    original = trajectory._drawn
    monkeypatch.setattr(trajectory, "_drawn", lambda call: drawn.append(call) or original(call))
    lines = render(report, verbose=1)
    assert any("n=-1" in line for line in lines)
    assert any("matching rows" in line for line in lines)
    assert 0 < len(drawn) <= 20
