"""``render_report``: a match report as text, checked line by line against the expected output."""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from pytest_agenttraj import MatchReport, match_trajectories, to_trajectory
from pytest_agenttraj.core.matching.rules import make_config
from pytest_agenttraj.render import render, render_text


def user(text: str = "q") -> dict[str, Any]:
    return {"role": "user", "content": text}


def ai(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"name": name, "args": args} for name, args in calls],
    }


def tool(content: str = "r") -> dict[str, Any]:
    return {"role": "tool", "content": content}


def final(text: str = "done") -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def report_for(
    output: Any,
    reference: Any,
    mode: str = "strict",
    args: str = "exact",
    overrides: dict[str, Any] | None = None,
) -> MatchReport:
    return match_trajectories(
        to_trajectory(output), to_trajectory(reference), make_config(mode, args, overrides)
    )


def weather(code: str) -> list[dict[str, Any]]:
    return [
        user("What's the weather in Suzhou?"),
        ai(("look_up_location_code", {"city": "Suzhou"})),
        tool("location-123"),
        ai(("get_weather", {"location_code": code})),
        tool("Sunny"),
        final("Sunny."),
    ]


def test_matched_report_is_one_line() -> None:
    report = report_for(weather("location-123"), weather("location-123"), "unordered", "ignore")
    assert render(report) == ["Trajectory matches the reference (unordered mode, ignore args)."]


def test_args_mismatch_shows_per_key_lines_and_the_aligned_view() -> None:
    report = report_for(weather("location-999"), weather("location-123"))
    assert render(report) == [
        "Trajectory does not match the reference (strict mode, exact args): 1 problem",
        "  1. message 3: tool call 'get_weather' args differ (exact)",
        "       - location_code: 'location-123'",
        "       + location_code: 'location-999'",
        "",
        "output vs reference (! marks rows with problems; message text is not compared):",
        "    out ref  output                                       reference",
        "      0   0  user: What's the weather in Suzhou?          =",
        "      1   1  assistant -> look_up_location_code(city...)  =",
        "      2   2  tool: location-123                           =",
        "  !   3   3  assistant -> get_weather(...'location-999')  "
        "assistant -> get_weather(...'location-123')",
        "      4   4  tool: Sunny                                  =",
        "      5   5  assistant: Sunny.                            =",
    ]


def test_header_names_mode_args_and_overrides() -> None:
    report = report_for(
        weather("location-999"),
        weather("location-123"),
        "superset",
        "subset",
        {"get_weather": ["location_code"], "look_up_location_code": "ignore"},
    )
    lines = render(report)
    assert lines[:4] == [
        "Trajectory does not match the reference (superset mode, subset args, overrides "
        "{get_weather: keys [location_code], look_up_location_code: ignore}): 1 problem",
        "  1. message 3: tool call 'get_weather' args differ (keys [location_code])",
        "       - location_code: 'location-123'",
        "       + location_code: 'location-999'",
    ]
    assert lines[5:9] == [
        "output calls beside the reference calls they paired with (superset mode compares tool "
        "calls, not message positions; ! marks rows with problems):",
        "    out ref  output                                       reference",
        "      1   1  look_up_location_code(city='Suzhou')         =",
        "  !   3   3  get_weather(location_code='location-999')    "
        "get_weather(location_code='location-123')",
    ]


def test_nested_keys_by_dotted_path_and_missing_or_extra_keys() -> None:
    output = [user(), ai(("f", {"opts": {"unit": "C", "days": {"to": 3}}, "extra": 1}))]
    reference = [user(), ai(("f", {"opts": {"unit": "F", "days": {"to": 5}}, "q": "x"}))]
    lines = render(report_for(output, reference))
    assert lines[:10] == [
        "Trajectory does not match the reference (strict mode, exact args): 1 problem",
        "  1. message 1: tool call 'f' args differ (exact)",
        "       - opts.unit: 'F'",
        "       + opts.unit: 'C'",
        "       - opts.days.to: 5",
        "       + opts.days.to: 3",
        "       - q: 'x'",
        "         (q is missing from the output)",
        "       + extra: 1",
        "         (extra is not in the reference)",
    ]


def test_key_list_path_missing_on_both_sides() -> None:
    same = [user(), ai(("f", {"a": 1}))]
    report = report_for(same, same, overrides={"f": ["filters.city"]})
    assert render(report)[1:3] == [
        "  1. message 1: tool call 'f' args differ (keys [filters.city])",
        "         filters.city: missing on both sides",
    ]


def test_callable_rejection_says_so() -> None:
    def same_city(_output_args: dict[str, Any], _reference_args: dict[str, Any]) -> bool:
        return False

    same = [user(), ai(("f", {"a": 1}))]
    report = report_for(same, same, overrides={"f": same_city})
    assert render(report)[1:3] == [
        "  1. message 1: tool call 'f' args differ (callable same_city)",
        "       the callable same_city override returned False",
    ]


def test_unpaired_output_call_with_closest_reference_candidate() -> None:
    output = [user(), ai(("f", {"x": 1}), ("f", {"x": 1}))]
    reference = [user(), ai(("f", {"x": 1}))]
    assert render(report_for(output, reference, "unordered")) == [
        "Trajectory does not match the reference (unordered mode, exact args): 1 problem",
        "  1. message 1: unexpected tool call f(x=1); every reference call to 'f' already pairs "
        "with another call",
        "       closest reference call: reference message 1 f(x=1), already paired with another "
        "call",
        "",
        "output calls beside the reference calls they paired with (unordered mode compares tool "
        "calls, not message positions; ! marks rows with problems):",
        "    out ref  output                                       reference",
        "  !   1   1  f(x=1)                                       =",
        "  !   1   -  f(x=1)                                       -",
    ]


def test_missing_reference_call_with_closest_output_candidate() -> None:
    output = [user(), ai(("f", {"x": 1}))]
    reference = [user(), ai(("f", {"x": 1})), tool(), ai(("f", {"x": 2}))]
    assert render(report_for(output, reference, "unordered"))[1:5] == [
        "  1. reference message 3: tool call f(x=2) is missing; every output call to 'f' already "
        "pairs with another call",
        "       closest output call: message 1 f(x=1), already paired with another call",
        "       - x: 2",
        "       + x: 1",
    ]


def test_unpaired_call_without_candidate() -> None:
    report = report_for([user(), ai(("g", {"q": "x"}))], [user(), ai(("f", {}))], "superset")
    assert render(report)[:2] == [
        "Trajectory does not match the reference (superset mode, exact args): 1 problem",
        "  1. reference message 1: tool call f() is missing; the output has no call to 'f'",
    ]


def test_missing_messages_are_dash_rows_marked() -> None:
    lines = render(report_for([user(), final()], [user(), ai(("f", {"x": 1})), tool(), final()]))
    assert lines == [
        "Trajectory does not match the reference (strict mode, exact args): 3 problems",
        "  1. expected 4 messages, got 2",
        "  2. reference message 1 (assistant calling [f]) is missing from the output",
        "  3. reference message 2 (tool: 'r') is missing from the output",
        "",
        "output vs reference (! marks rows with problems; message text is not compared):",
        "    out ref  output                                       reference",
        "      0   0  user: q                                      =",
        "  !   -   1  -                                            assistant -> f(x=1)",
        "  !   -   2  -                                            tool: r",
        "      1   3  assistant: done                              =",
    ]


def test_extra_message_row() -> None:
    output = [user(), ai(("f", {"x": 1})), tool(), tool("dup"), final()]
    reference = [user(), ai(("f", {"x": 1})), tool(), final()]
    assert render(report_for(output, reference))[-5:] == [
        "      0   0  user: q                                      =",
        "      1   1  assistant -> f(x=1)                          =",
        "      2   2  tool: r                                      =",
        "  !   3   -  tool: dup                                    -",
        "      4   3  assistant: done                              =",
    ]


def test_role_mismatch_row() -> None:
    report = report_for([user(), final("hi"), tool()], [user(), tool(), final("hi")])
    assert render(report)[-3:] == [
        "      0   0  user: q                                      =",
        "  !   1   1  assistant: hi                                tool: r",
        "  !   2   2  tool: r                                      assistant: hi",
    ]


def test_langchain_messages_and_wide_characters_line_up() -> None:
    output = [
        HumanMessage("苏州的天气?"),
        AIMessage("", tool_calls=[{"name": "look_up", "args": {"city": "苏州"}, "id": "1"}]),
        ToolMessage("location-123", tool_call_id="1"),
    ]
    reference = [user("苏州的天气?"), ai(("look_up", {"city": "苏州市"})), tool("location-123")]
    lines = render(report_for(output, reference))
    assert lines[1:4] == [
        "  1. message 1: tool call 'look_up' args differ (exact)",
        "       - city: '苏州市'",
        "       + city: '苏州'",
    ]
    # the reference column starts at the same terminal column on every row (CJK is 2 wide)
    assert lines[-3:] == [
        "      0   0  user: 苏州的天气?                            =",
        "  !   1   1  assistant -> look_up(city='苏州')            "
        "assistant -> look_up(city='苏州市')",
        "      2   2  tool: location-123                           =",
    ]


def test_a_difference_past_the_column_width_is_shown() -> None:
    output = [user(), ai(("f", {"q": "x" * 100}))]
    reference = [user(), ai(("f", {"q": "x" * 99 + "y"}))]
    lines = render(report_for(output, reference))
    value = "'" + "x" * 56 + "..."
    assert lines[1:4] == [
        "  1. message 1: tool call 'f' args differ (exact)",
        f"       - q: {value}",
        f"       + q: {value}",
    ]
    # the tool name stays; the arguments show around their first difference
    window = "x" * 23
    assert lines[-1] == (
        f"  !   1   1  assistant -> f(...{window}')  assistant -> f(...{window[:-1]}y')"
    )
    full = render(report_for(output, reference), verbose=2)
    assert full[2] == "       - q: '" + "x" * 99 + "y'"
    assert full[3] == "       + q: '" + "x" * 100 + "'"


def _long_pair() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    reference: list[dict[str, Any]] = [user()]
    for i in range(15):
        reference += [ai(("step", {"i": i})), tool(f"r{i}")]
    reference.append(final())
    output = list(reference)
    output[15] = ai(("step", {"i": 99}))
    return output, reference


def test_long_trajectories_are_shortened_around_the_problems() -> None:
    output, reference = _long_pair()
    lines = render(report_for(output, reference))
    assert lines == [
        "Trajectory does not match the reference (strict mode, exact args): 1 problem",
        "  1. message 15: tool call 'step' args differ (exact)",
        "       - i: 7",
        "       + i: 99",
        "",
        "output vs reference (! marks rows with problems; message text is not compared):",
        "    out ref  output                                       reference",
        "     ... 13 matching rows ...",
        "     13  13  assistant -> step(i=6)                       =",
        "     14  14  tool: r6                                     =",
        "  !  15  15  assistant -> step(i=99)                      assistant -> step(i=7)",
        "     16  16  tool: r7                                     =",
        "     17  17  assistant -> step(i=8)                       =",
        "     ... 14 more rows ...",
    ]


def test_verbose_2_shows_the_whole_trajectory() -> None:
    output, reference = _long_pair()
    lines = render(report_for(output, reference), verbose=2)
    rows = lines[7:]
    assert len(rows) == 32
    assert not any("..." in line for line in rows)
    assert rows[0] == "      0   0  user: q                                      ="
    assert (
        rows[15]
        == "  !  15  15  assistant -> step(i=99)                      assistant -> step(i=7)"
    )
    assert rows[31] == "     31  31  assistant: done                              ="
    assert render(report_for(output, reference), verbose=1) == render(report_for(output, reference))


def test_many_problems_are_capped_unless_verbose() -> None:
    output = [user(), ai(*((f"t{i}", {}) for i in range(12)))]
    report = report_for(output, [user()], "subset")
    lines = render(report)
    assert (
        lines[0] == "Trajectory does not match the reference (subset mode, exact args): 12 problems"
    )
    assert (
        lines[10] == "  10. message 1: unexpected tool call t9(); the reference has no call to 't9'"
    )
    assert lines[11] == "  ... and 2 more problems (-vv shows all)"
    full = render(report, verbose=2)
    assert (
        full[12]
        == "  12. message 1: unexpected tool call t11(); the reference has no call to 't11'"
    )
    assert not any("more problems" in line for line in full)


def test_markup_is_applied_by_style() -> None:
    report = report_for(weather("location-999"), weather("location-123"))
    lines = render(report, markup=lambda text, style: f"<{style}>{text}</{style}>")
    assert lines[:4] == [
        "<bold>Trajectory does not match the reference (strict mode, exact args): 1 problem</bold>",
        "  1. <bad>message 3: tool call 'get_weather' args differ (exact)</bad>",
        "       <good>- location_code: 'location-123'</good>",
        "       <bad>+ location_code: 'location-999'</bad>",
    ]
    assert (
        lines[5] == "<bold>output vs reference (! marks rows with problems; "
        "message text is not compared):</bold>"
    )
    assert lines[7].startswith("<dim>      0   0  user:")
    assert lines[10].startswith("<bad>  !   3   3")
    matched = report_for(weather("location-123"), weather("location-123"))
    assert render(matched, markup=lambda t, s: f"<{s}>{t}</{s}>") == [
        "<good>Trajectory matches the reference (strict mode, exact args).</good>"
    ]


def test_render_text_joins_lines() -> None:
    report = report_for(weather("location-999"), weather("location-123"))
    assert render_text(report) == "\n".join(render(report))


# ---------------------------------------------------------------- never raises


class Unprintable:
    """An object whose ``__str__`` and ``__repr__`` both raise."""

    def __str__(self) -> str:
        raise RuntimeError("no str for you")

    def __repr__(self) -> str:
        raise RuntimeError("no repr for you")


def test_content_whose_str_raises_neither_breaks_matching_nor_rendering() -> None:
    output = [user(), {"role": "assistant", "content": Unprintable()}]
    report = report_for(output, [user()])
    assert report.problems[1].text == (
        "message 1 (assistant: '<unprintable Unprintable>') is not in the reference"
    )
    lines = render(report)
    assert lines[-1] == f"  !   1   -  {'assistant: <unprintable Unprintable>':<43}  -"


def test_an_unprintable_argument_is_drawn_as_such() -> None:
    broken = Unprintable()
    output = [user(), ai(("f", {"v": broken})), final("hi")]
    reference = [user(), ai(("f", {"v": broken})), tool()]
    lines = render(report_for(output, reference))
    assert "      1   1  assistant -> f(v=<unprintable Unprintable>)  =" in lines


def test_a_rendering_failure_becomes_a_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import pytest_agenttraj.render.trajectory as diff

    def broken(_report: Any) -> Any:
        raise RuntimeError("no repr for you")

    monkeypatch.setattr(diff, "_table_rows", broken)
    output = [user(), ai(("f", {"v": 1})), final("hi")]
    reference = [user(), ai(("f", {"v": 1})), tool()]
    report = report_for(output, reference)
    assert [p.text for p in report.problems] == ["message 2: expected role 'tool', got 'assistant'"]
    lines = render(report)
    assert lines == [
        "Trajectory does not match the reference (strict mode, exact args): message 2: expected "
        "role 'tool', got 'assistant'.",
        "(could not render the trajectory diff: RuntimeError: no repr for you)",
    ]


def _columns(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _reference_column(line: str, reference_cell: str) -> int:
    """The terminal column where a row's reference cell starts."""
    return _columns(line) - _columns(reference_cell)


def test_other_modes_show_each_call_beside_the_call_it_paired_with() -> None:
    output = [
        user(),
        ai(("get_weather", {"location_code": "location-999"})),
        tool(),
        ai(("look_up_location_code", {"city": "苏州"})),
    ]
    reference = [
        user(),
        ai(("look_up_location_code", {"city": "苏州"})),
        tool(),
        ai(("get_weather", {"location_code": "location-123"})),
    ]
    lines = render(report_for(output, reference, "unordered"))
    assert lines[-2].startswith("  !   1   3  get_weather(location_code='location-999')  ")
    assert lines[-2].endswith("get_weather(location_code='location-123')")
    assert lines[-1].startswith("      3   1  look_up_location_code(city='苏州')  ")
    assert lines[-1].endswith("  =")
    assert _reference_column(lines[-2], "get_weather(location_code='location-123')") == 58
    assert _reference_column(lines[-1], "=") == 58


def test_long_cells_keep_the_role_and_tool_name_and_wide_characters_line_up() -> None:
    city = "苏州市工业园区" * 4
    output = [user(city), ai(("look_up_location_code", {"city": city, "country": "中国"}))]
    reference = [user(city), ai(("look_up_location_code", {"city": city, "country": "中华"}))]
    lines = render(report_for(output, reference), width=100)
    user_row, call_row = lines[-2], lines[-1]
    assert user_row.endswith("  =")
    assert _reference_column(user_row, "=") == 58
    # the role and the tool name stay whole; the arguments show where they differ
    right = "assistant -> look_up_location_code(...华')"
    assert call_row == f"  !   1   1  assistant -> look_up_location_code(...国')   {right}"
    assert _reference_column(call_row, right) == 58
    # with room for it, the whole differing value shows on both sides
    wide = render(report_for(output, reference), width=120)[-1]
    assert wide.endswith("  assistant -> look_up_location_code(...country='中华')")
    assert "  assistant -> look_up_location_code(...country='中国')  " in wide


def test_a_role_and_tool_name_wider_than_the_column_widen_the_table() -> None:
    output = [user("SF?"), ai(("look_up_location_code", {"city": "San Francisco"}))]
    reference = [user("SF?"), ai(("look_up_location_code", {"city": "SF"}))]
    lines = render(report_for(output, reference), width=60)
    assert lines[-3:] == [
        "    out ref  output                                   reference",
        "      0   0  user: SF?                                =",
        "  !   1   1  assistant -> look_up_location_code(...)  "
        "assistant -> look_up_location_code(...)",
    ]


def test_problems_past_the_explained_ones_name_the_first_candidate_uncompared() -> None:
    from pytest_agenttraj.core.matching.explain import EXPLAINED

    n = EXPLAINED + 1
    output = [user(), ai(*[("f", {"x": i}) for i in range(n)]), tool(), ai(("f", {"x": 0}))]
    reference = [user(), ai(*[("f", {"x": -i - 1}) for i in range(n)])]
    lines = render(report_for(output, reference, "unordered"), verbose=2)
    assert lines[0].endswith(f"{n + 1} problems")
    # the 11th is set beside the first free call, the 12th (no free call left) beside the first
    # call of the tool; neither is compared
    at = next(i for i, line in enumerate(lines) if line.startswith("  11. "))
    assert lines[at : at + 2] == [
        "  11. message 1: tool call 'f' args differ (exact)",
        "       (not compared in detail: the first problems are)",
    ]
    assert lines[at + 2 : at + 5] == [
        "  12. message 3: unexpected tool call f(x=0); every reference call to 'f' already pairs "
        "with another call",
        "       first reference call: reference message 1 f(x=-1), already paired with another "
        "call",
        "",
    ]
