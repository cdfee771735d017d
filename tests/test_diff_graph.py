"""The graph diff (``pytest_agenttraj.render.graph``, reached through ``render``):
differences by invocation and superstep, then both paths superstep by superstep."""

from __future__ import annotations

from typing import Any

from pytest_agenttraj import match_graph_trajectories
from pytest_agenttraj.core.graph import GraphMatchReport
from pytest_agenttraj.render import render, render_text

LONG = ["__start__", "node1", "node3", ["node4", "node5"], "node6", "node7"]


def _report(output: list[Any], reference: list[Any], mode: str = "strict") -> GraphMatchReport:
    return match_graph_trajectories({"steps": output}, {"steps": reference}, mode=mode)


def test_the_shortcut_against_the_long_path() -> None:
    report = _report([["__start__", "node1", "node2", "node7"]], [LONG])
    assert render_text(report, width=80) == "\n".join(
        [
            "Graph trajectory does not match the reference (strict mode): 6 differences",
            "  1. invocation 0, superstep 2: expected node3, got node2",
            "  2. invocation 0: missing node node3",
            "  3. invocation 0: missing node node4",
            "  4. invocation 0: missing node node5",
            "  5. invocation 0: missing node node6",
            "  6. invocation 0: unexpected node node2",
            "",
            "invocation 0, superstep by superstep (! marks differences; {...} is one superstep, "
            "its order ignored):",
            "    step  output                             reference",
            "       0  __start__                          =",
            "       1  node1                              =",
            "  !    2  node2                              node3",
            "  !    3  node7                              {node4, node5}",
            "  !    4  -                                  node6",
            "       5  -                                  node7",
        ]
    )


def test_only_invocations_with_differences_are_drawn() -> None:
    report = _report([LONG, ["__start__", "node1", "node3", "node4"]], [LONG, LONG])
    lines = render(report, width=80)
    assert lines[:5] == [
        "Graph trajectory does not match the reference (strict mode): 4 differences",
        "  1. invocation 1, superstep 3: expected {node4, node5}, got {node4}, then the path ends",
        "  2. invocation 1: missing node node5",
        "  3. invocation 1: missing node node6",
        "  4. invocation 1: missing node node7",
    ]
    assert [line for line in lines if line.startswith("invocation ")] == [
        "invocation 1, superstep by superstep (! marks differences; {...} is one superstep, "
        "its order ignored):"
    ]


def test_a_different_number_of_invocations_shows_both_sides() -> None:
    report = _report([LONG], [LONG, ["__start__", "node1"]], mode="unordered")
    lines = render(report, width=80)
    assert lines[:2] == [
        "Graph trajectory does not match the reference (unordered mode): 1 difference",
        "  1. expected 2 invocations, got 1",
    ]
    assert "       0  -                                  __start__" in lines


def test_long_paths_are_cut_around_the_differences() -> None:
    output = [f"n{i}" for i in range(40)]
    reference = [*output[:20], "x", *output[21:]]
    lines = render(_report([output], [reference]), width=80)
    assert lines[-7:] == [
        "     ... 18 supersteps ...",
        "      18  n18                                =",
        "      19  n19                                =",
        "  !   20  n20                                x",
        "      21  n21                                =",
        "      22  n22                                =",
        "     ... 17 more supersteps ...",
    ]
    full = render(_report([output], [reference]), width=80, verbose=2)
    assert len(full) == len(lines) - 7 + 40


def test_many_differences_are_capped_unless_very_verbose() -> None:
    report = _report([[f"a{i}" for i in range(30)]], [[f"b{i}" for i in range(30)]], "unordered")
    lines = render(report)
    assert "  ... and 50 more (-vv shows all)" in lines
    assert "  ... and 50 more (-vv shows all)" not in render(report, verbose=2)


def test_a_match_is_one_line() -> None:
    assert render(_report([LONG], [LONG], "superset")) == [
        "Graph trajectory matches the reference (superset mode)."
    ]


def test_markup_styles_the_lines() -> None:
    def markup(text: str, style: str) -> str:
        return f"<{style}>{text}</{style}>"

    lines = render(_report([["a"]], [["b"]]), markup=markup)
    assert lines[0].startswith("<bold>Graph trajectory does not match")
    assert lines[1] == "  1. <bad>invocation 0, superstep 0: expected b, got a</bad>"
    assert any(line.startswith("<bad>  !    0  a") for line in lines)


def test_rendering_never_raises() -> None:
    broken = GraphMatchReport("strict", False, (), (), ("not a difference",), "it broke")  # type: ignore[arg-type]
    assert render(broken) == [
        "Graph trajectory differs: it broke.",
        "(could not render the graph diff: AttributeError: 'str' object has no attribute 'line')",
    ]
