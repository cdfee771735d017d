"""Graph path matching (``pytest_agenttraj.core.graph``): the five modes on the 7-node workflow,
how supersteps on either side compare, and properties checked against a brute-force oracle that
tries every ordering of every superstep."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from pytest_agenttraj import GraphTrajectoryFormatError, TrajectoryFormatError
from pytest_agenttraj.core.graph import (
    GRAPH_MATCH_MODES,
    check_graph_mode,
    graph_key,
    match_graph_trajectories,
    read_graph_steps,
)
from pytest_agenttraj.core.graph.path import RawPath
from pytest_agenttraj.core.graph.strict import explain_divergence, strict_sentence

START = "__start__"
# node1 -> node3 -> (node4 and node5 in one superstep) -> node6 -> node7
LONG = [START, "node1", "node3", ["node4", "node5"], "node6", "node7"]
SHORTCUT = [START, "node1", "node2", "node7"]


def matches(output: list[Any], reference: list[Any], mode: str) -> bool:
    """Whether one invocation's path matches in ``mode``."""
    return match_graph_trajectories({"steps": [output]}, {"steps": [reference]}, mode=mode).matched


def comment(output: list[Any], reference: list[Any], mode: str) -> str | None:
    report = match_graph_trajectories({"steps": [output]}, {"steps": [reference]}, mode=mode)
    return report.comment()


# ---------------------------------------------------------------- the 7-node workflow, per mode


@pytest.mark.parametrize("order", [["node4", "node5"], ["node5", "node4"]])
@pytest.mark.parametrize("mode", GRAPH_MATCH_MODES)
def test_a_captured_superstep_matches_the_reference_in_either_order(
    order: list[str], mode: str
) -> None:
    captured = [START, "node1", "node3", order, "node6", "node7"]
    assert matches(captured, LONG, mode)


def test_a_flat_strict_reference_accepts_only_the_order_it_lists() -> None:
    flat = [START, "node1", "node3", "node4", "node5", "node6", "node7"]
    other_order = [START, "node1", "node3", "node5", "node4", "node6", "node7"]
    assert matches(flat, flat, "strict")
    assert not matches(other_order, flat, "strict")
    assert comment(other_order, flat, "strict") == (
        "Graph trajectory differs: invocation 0: expected node 'node4' at 3, got 'node5'."
    )
    # the reference that says node4 and node5 share a superstep takes both
    assert matches(flat, LONG, "strict")
    assert matches(other_order, LONG, "strict")


@pytest.mark.parametrize(
    ("output", "strict", "unordered", "superset", "subset"),
    [
        pytest.param(SHORTCUT, False, False, False, False, id="shortcut"),
        pytest.param(
            [START, "node1", "node3", ["node4", "node5"], "node6", "node8", "node7"],
            False,
            False,
            True,
            False,
            id="an-extra-node",
        ),
        pytest.param(
            [START, "node1", "node3", "node4", "node6", "node7"],
            False,
            False,
            False,
            True,
            id="node5-left-out",
        ),
        pytest.param(
            [START, "node1", "node3", "node6", ["node4", "node5"], "node7"],
            False,
            True,
            False,
            False,
            id="join-before-fan-out",
        ),
        pytest.param(
            [START, "node1", "node3", "node4", "node5", "node6", "node7"],
            True,
            True,
            True,
            True,
            id="flat-output",
        ),
    ],
)
def test_each_mode_on_the_7_node_workflow(
    output: list[Any], strict: bool, unordered: bool, superset: bool, subset: bool
) -> None:
    verdicts = {
        "strict": strict,
        "unordered": unordered,
        "superset": superset,
        "in_order": superset,
        "subset": subset,
    }
    assert {mode: matches(output, LONG, mode) for mode in GRAPH_MATCH_MODES} == verdicts


def test_every_mode_needs_the_same_number_of_invocations() -> None:
    for mode in GRAPH_MATCH_MODES:
        report = match_graph_trajectories(
            {"steps": [LONG, ["node1"]]}, {"steps": [LONG]}, mode=mode
        )
        assert report.comment() == "Graph trajectory differs: expected 1 invocation, got 2."


def test_invocations_are_compared_one_by_one() -> None:
    # the same nodes, split differently between two invocations
    output = {"steps": [[START, "agent", "tools"], ["agent"]]}
    reference = {"steps": [[START, "agent"], ["tools", "agent"]]}
    for mode in GRAPH_MATCH_MODES:
        assert not match_graph_trajectories(output, reference, mode=mode).matched


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        (
            "strict",
            "invocation 0: expected node 'node3' at 2, got 'node2'",
        ),
        (
            "unordered",
            "invocation 0: missing node node3, missing node node4, missing node node5, "
            "missing node node6 and 1 more",
        ),
        (
            "superset",
            "invocation 0: missing node node3, missing node node4, missing node node5, "
            "missing node node6",
        ),
        ("subset", "invocation 0: unexpected node node2"),
    ],
)
def test_comments_name_the_invocation_and_the_nodes(mode: str, expected: str) -> None:
    assert comment(SHORTCUT, LONG, mode) == f"Graph trajectory differs: {expected}."


def test_differences_name_invocation_and_superstep() -> None:
    output = {"steps": [LONG, [START, "node1", "node3", "node4"]]}
    report = match_graph_trajectories(output, {"steps": [LONG, LONG]}, mode="strict")
    assert [d.line() for d in report.differences] == [
        "invocation 1, superstep 3: expected {node4, node5}, got {node4}, then the path ends",
        "invocation 1: missing node node5",
        "invocation 1: missing node node6",
        "invocation 1: missing node node7",
    ]
    shortcut = match_graph_trajectories({"steps": [SHORTCUT]}, {"steps": [LONG]}, mode="strict")
    assert [d.line() for d in shortcut.differences] == [
        "invocation 0, superstep 2: expected node3, got node2",
        "invocation 0: missing node node3",
        "invocation 0: missing node node4",
        "invocation 0: missing node node5",
        "invocation 0: missing node node6",
        "invocation 0: unexpected node node2",
    ]


def test_order_differences_say_where_the_reference_was_lost() -> None:
    output = [START, "node1", "node3", "node6", ["node4", "node5"], "node7"]
    superset = match_graph_trajectories({"steps": [output]}, {"steps": [LONG]}, mode="superset")
    assert [d.line() for d in superset.differences] == [
        "invocation 0, superstep 4: expected node6 after {node4, node5} (output superstep 4), "
        "not found"
    ]
    assert superset.comment() == (
        "Graph trajectory differs: invocation 0: superstep 4: expected node6 after "
        "{node4, node5} (output superstep 4), not found in that order."
    )
    subset = match_graph_trajectories({"steps": [output]}, {"steps": [LONG]}, mode="subset")
    assert [d.line() for d in subset.differences] == [
        "invocation 0, output superstep 4: ran {node4, node5}, which the reference does not "
        "have after node6 (the reference's superstep 4)"
    ]


def test_repeated_nodes_are_counted() -> None:
    fan_out = [START, "plan", ["work", "work", "work"], "reduce"]
    assert matches([START, "plan", ["work", "work", "work"], "reduce"], fan_out, "strict")
    two = [START, "plan", ["work", "work"], "reduce"]
    assert comment(two, fan_out, "unordered") == (
        "Graph trajectory differs: invocation 0: missing node work (ran 2 times, expected 3)."
    )
    assert matches(two, fan_out, "subset")
    assert not matches(two, fan_out, "superset")


# ---------------------------------------------------------------- supersteps on either side


def test_a_reference_superstep_takes_the_outputs_next_nodes_in_any_order() -> None:
    reference = ["plan", ["fetch_weather", "fetch_time"], "answer"]
    assert matches(["plan", "fetch_time", "fetch_weather", "answer"], reference, "strict")
    assert not matches(["plan", "fetch_time", "answer", "fetch_weather"], reference, "strict")


def test_an_output_superstep_takes_the_references_names_in_any_order() -> None:
    captured = ["plan", ["fetch_time", "fetch_weather"], "answer"]
    assert matches(captured, ["plan", "fetch_weather", "fetch_time", "answer"], "strict")
    assert matches(captured, ["plan", "fetch_time", "fetch_weather", "answer"], "strict")
    assert not matches(captured, ["fetch_time", "plan", "fetch_weather", "answer"], "strict")


def test_supersteps_need_not_line_up() -> None:
    # some ordering of each list makes both a, b, c
    assert matches(["a", ["b", "c"]], [["a", "b"], "c"], "strict")
    assert matches(["a", ["b", "c"]], [["a", "c"], "b"], "strict")
    assert not matches(["a", ["b", "c"]], [["b", "c"], "a"], "strict")


def test_an_interrupt_is_a_node_like_any_other() -> None:
    interrupted = [START, "agent", "tools", "__interrupt__"]
    assert matches(interrupted, interrupted, "strict")
    assert not matches([START, "agent", "tools"], interrupted, "strict")
    assert matches([START, "agent", "tools"], interrupted, "subset")


# ---------------------------------------------------------------- modes and bad input


def test_modes_and_keys() -> None:
    assert GRAPH_MATCH_MODES == ("strict", "unordered", "subset", "superset", "in_order")
    assert graph_key("in_order") == "graph_trajectory_in_order_match"
    assert check_graph_mode("subset") == "subset"
    with pytest.raises(ValueError, match=r"invalid graph mode 'exact': must be one of 'strict'"):
        check_graph_mode("exact")


@pytest.mark.parametrize(
    ("outputs", "message", "invocation", "step"),
    [
        pytest.param(
            {"steps": [["a", 3]]},
            "outputs['steps'][0][1] (invocation 0, step 1) must be a node name or a list of "
            "node names that ran in one superstep, got 3",
            0,
            1,
            id="a-number",
        ),
        pytest.param(
            {"steps": [["a"], ["b", ["c", None]]]},
            "outputs['steps'][1][1] (invocation 1, step 1) must list node names, got None in "
            "['c', None]",
            1,
            1,
            id="a-none-in-a-superstep",
        ),
        pytest.param(
            {"steps": [["a", ["b", ["c"]]]]},
            "outputs['steps'][0][1] (invocation 0, step 1) must list node names, got ['c']",
            0,
            1,
            id="nested-too-deep",
        ),
        pytest.param(
            {"steps": [["a", []]]},
            "outputs['steps'][0][1] (invocation 0, step 1) is an empty superstep",
            0,
            1,
            id="empty-superstep",
        ),
        pytest.param(
            {"inputs": [{}, {}], "results": [{}], "steps": [["a"], ["b"]]},
            "outputs has 2 invocations in 'steps' but 1 in 'results' (invocation 1 has no result)",
            1,
            None,
            id="a-result-short",
        ),
        pytest.param(
            {"inputs": [{}, {}, {}], "results": [], "steps": [["a"], ["b"]]},
            "outputs has 2 invocations in 'steps' but 3 in 'inputs' (input 2 has no steps)",
            2,
            None,
            id="an-input-too-many",
        ),
        pytest.param(
            {"inputs": "q", "steps": [["a"]]},
            "outputs['inputs'] must be a list (one input per invocation), got 'q'",
            None,
            None,
            id="inputs-not-a-list",
        ),
        pytest.param(
            {"results": []},
            "outputs must be a GraphTrajectory dict with 'steps'",
            None,
            None,
            id="no-steps",
        ),
    ],
)
def test_bad_input_says_where(
    outputs: Any, message: str, invocation: int | None, step: int | None
) -> None:
    with pytest.raises(GraphTrajectoryFormatError) as raised:
        match_graph_trajectories(outputs, {"steps": [["a"]]})
    assert message in str(raised.value)
    assert isinstance(raised.value, TrajectoryFormatError)
    assert (raised.value.side, raised.value.invocation, raised.value.step) == (
        "outputs",
        invocation,
        step,
    )


def test_inputs_and_results_may_be_left_empty_or_out() -> None:
    # agentevals' extractor leaves ``inputs`` empty; its README's references leave ``results`` so
    for outputs in (
        {"inputs": [], "results": [{}, {}], "steps": [["a"], ["b"]]},
        {"results": [], "steps": [["a"], ["b"]]},
        {"inputs": None, "steps": [["a"], ["b"]]},
    ):
        assert match_graph_trajectories(outputs, {"steps": [["a"], ["b"]]}).matched


# ---------------------------------------------------------------- properties, against an oracle


def _orderings(path: list[Any]) -> Iterator[tuple[str, ...]]:
    """Every node sequence ``path`` can stand for (each list's nodes in every order)."""
    choices = [
        set(itertools.permutations(entry)) if isinstance(entry, list) else {(entry,)}
        for entry in path
    ]
    for picked in itertools.product(*choices):
        yield tuple(name for part in picked for name in part)


def _is_subsequence(inner: tuple[str, ...], outer: tuple[str, ...]) -> bool:
    rest = iter(outer)
    return all(name in rest for name in inner)


def oracle(output: list[Any], reference: list[Any], mode: str) -> bool:
    outs, refs = set(_orderings(output)), set(_orderings(reference))
    if mode == "strict":
        return bool(outs & refs)
    if mode == "unordered":
        return Counter(next(iter(outs))) == Counter(next(iter(refs)))
    if mode in ("superset", "in_order"):
        return any(_is_subsequence(r, o) for o in outs for r in refs)
    return any(_is_subsequence(o, r) for o in outs for r in refs)


NODE = st.sampled_from(["a", "b", "c"])
ENTRY = st.one_of(NODE, st.lists(NODE, min_size=1, max_size=3))
PATH = st.lists(ENTRY, max_size=5)


@settings(max_examples=200, deadline=None)
@given(output=PATH, reference=PATH, mode=st.sampled_from(GRAPH_MATCH_MODES))
def test_every_mode_agrees_with_trying_every_ordering(
    output: list[Any], reference: list[Any], mode: str
) -> None:
    assert matches(output, reference, mode) == oracle(output, reference, mode)


@settings(max_examples=200, deadline=None)
@given(path=PATH, mode=st.sampled_from(GRAPH_MATCH_MODES))
def test_a_path_matches_itself_in_every_mode(path: list[Any], mode: str) -> None:
    assert matches(path, path, mode)


@settings(max_examples=150, deadline=None)
@given(output=PATH, reference=PATH)
def test_how_the_modes_relate(output: list[Any], reference: list[Any]) -> None:
    verdict = {mode: matches(output, reference, mode) for mode in GRAPH_MATCH_MODES}
    if verdict["strict"]:
        assert all(verdict.values())
    # strict is exactly subset and superset at once
    assert verdict["strict"] == (verdict["subset"] and verdict["superset"])
    assert verdict["in_order"] == verdict["superset"]
    assert verdict["superset"] == matches(reference, output, "subset")
    for symmetric in ("strict", "unordered"):
        assert verdict[symmetric] == matches(reference, output, symmetric)


@settings(max_examples=200, deadline=None)
@given(output=PATH, reference=PATH, mode=st.sampled_from(GRAPH_MATCH_MODES))
def test_a_mismatch_always_says_what_differs(
    output: list[Any], reference: list[Any], mode: str
) -> None:
    report = match_graph_trajectories({"steps": [output]}, {"steps": [reference]}, mode=mode)
    assert (report.comment() is None) == report.matched
    assert bool(report.differences) == (not report.matched)
    for difference in report.differences:
        assert difference.line().startswith("invocation 0")


# ---------------------------------------------------------------- against agentevals, and at scale

FLAT = st.lists(st.lists(NODE, max_size=6), min_size=1, max_size=3)


@settings(max_examples=150, deadline=None)
@given(output=FLAT, reference=FLAT, spoil=st.booleans())
def test_strict_verdicts_equal_agentevals_on_flat_paths(
    output: list[list[str]], reference: list[list[str]], spoil: bool
) -> None:
    from agentevals.graph_trajectory.strict import graph_trajectory_strict_match as theirs

    if spoil:  # often the same steps, to reach the equal-steps path too
        reference = [list(steps) for steps in output]
    ours = match_graph_trajectories({"steps": output}, {"steps": reference}).matched
    assert (
        ours == theirs(outputs={"steps": output}, reference_outputs={"steps": reference})["score"]
    )


NAMES = st.lists(st.lists(ENTRY, max_size=6), min_size=1, max_size=3)


@settings(max_examples=200, deadline=None)
@given(output=NAMES, reference=NAMES, same_start=st.integers(0, 6))
def test_the_strict_explanation_found_on_reading_is_the_one_found_at_once(
    output: list[list[Any]], reference: list[list[Any]], same_start: int
) -> None:
    """A strict report finds its differences when first read; they are those each invocation's
    eager comparison finds, in order."""
    reference = [out[:same_start] + ref for out, ref in zip(output, reference, strict=False)]
    report = match_graph_trajectories({"steps": output}, {"steps": reference})
    if len(output) != len(reference):
        assert [d.kind for d in report.differences] == ["invocations"]
        return
    eager: list[Any] = []
    sentences = []
    for invocation, (out, ref) in enumerate(zip(output, reference, strict=True)):
        out_path = RawPath.of(read_graph_steps({"steps": [out]}, "outputs")[0])
        ref_path = RawPath.of(read_graph_steps({"steps": [ref]}, "reference_outputs")[0])
        where, sentence = strict_sentence(invocation, out_path, ref_path)
        if where is not None:
            eager += explain_divergence(invocation, out_path, ref_path, where)
            sentences.append(sentence)
    assert report.summary == (sentences[0] if sentences else None)
    assert report.differences == tuple(eager)
    assert report.matched == (not eager)


def test_a_strict_verdict_and_comment_do_not_wait_for_the_explanation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from pytest_agenttraj import graph_trajectory_strict_match
    from pytest_agenttraj.core.graph import match

    explained: list[int] = []
    original = match.explain_divergence

    def counted(invocation: int, *args: Any) -> Any:
        explained.append(invocation)
        return original(invocation, *args)

    monkeypatch.setattr(match, "explain_divergence", counted)
    output = {"steps": [["a", "b", "c"], ["a", "b"], ["a", "x"]]}
    reference = {"steps": [["a", "b", "c"], ["a", "c"], ["a", "y"]]}
    # in another thread, where no test runs: inside one, the plugin's record of a failed
    # evaluation reads its differences for the diff it keeps
    with ThreadPoolExecutor(1) as pool:
        result = pool.submit(
            graph_trajectory_strict_match, outputs=output, reference_outputs=reference
        ).result()
    assert result["score"] is False
    assert result["comment"] == (
        "Graph trajectory differs: invocation 1: expected node 'c' at 1, got 'b'."
    )
    assert explained == []
    report = match_graph_trajectories(output, reference)
    lines = report.problem_texts()
    assert explained == [1, 2]
    assert lines[0] == "invocation 1, superstep 1: expected c, got b"
    assert report.problem_texts() == lines
    assert explained == [1, 2]  # found once


BAD = st.sampled_from([3, None, [], ["c", 4], {"node": "a"}])


@settings(max_examples=200, deadline=None)
@given(
    head=st.lists(ENTRY, max_size=5),
    names=st.tuples(NODE, NODE).filter(lambda pair: pair[0] != pair[1]),
    tail=st.lists(ENTRY, max_size=3),
    bad=BAD,
    at=st.integers(0, 3),
    side=st.sampled_from(["outputs", "reference_outputs"]),
)
def test_an_entry_after_the_parting_is_checked_when_the_explanation_is_read(
    head: list[Any],
    names: tuple[str, str],
    tail: list[Any],
    bad: Any,
    at: int,
    side: str,
) -> None:
    """Where the paths part at a name on both sides the verdict is made: a malformed entry
    after it is reported, naming its step, when the differences are first read, and the
    verdict and comment are those of the same paths without it."""
    spoiled = [*tail[:at], bad, *tail[at:]]
    output = [*head, names[0], *(spoiled if side == "outputs" else tail)]
    reference = [*head, names[1], *(spoiled if side == "reference_outputs" else tail)]
    report = match_graph_trajectories({"steps": [output]}, {"steps": [reference]})
    clean = match_graph_trajectories(
        {"steps": [[*head, names[0], *tail]]}, {"steps": [[*head, names[1], *tail]]}
    )
    assert (report.matched, report.summary) == (False, clean.summary)
    with pytest.raises(GraphTrajectoryFormatError) as raised:
        report.differences  # noqa: B018
    step = len(head) + 1 + min(at, len(tail))
    assert (raised.value.side, raised.value.invocation, raised.value.step) == (side, 0, step)
    with pytest.raises(GraphTrajectoryFormatError):
        report.output  # noqa: B018


@pytest.mark.parametrize(
    ("output", "reference", "where"),
    [
        pytest.param(["a", 3, "b"], ["a", 3, "c"], ("outputs", 1), id="before-the-parting"),
        pytest.param(["a", 3], ["a", "b"], ("outputs", 1), id="at-the-parting"),
        pytest.param(["a", "b"], ["a", None], ("reference_outputs", 1), id="reference-there"),
        pytest.param(["a", 3], ["a", 3], ("outputs", 1), id="equal-paths"),
        pytest.param(["a", "x", 3], ["a", "x"], ("outputs", 2), id="one-path-runs-on"),
    ],
)
def test_an_entry_the_verdict_rests_on_is_checked_at_once(
    output: list[Any], reference: list[Any], where: tuple[str, int]
) -> None:
    with pytest.raises(GraphTrajectoryFormatError) as raised:
        match_graph_trajectories({"steps": [["ok"], output]}, {"steps": [["ok"], reference]})
    assert (raised.value.side, raised.value.invocation, raised.value.step) == (
        where[0],
        1,
        where[1],
    )


def test_a_malformed_entry_after_the_parting_still_fails_the_assertion_and_is_named() -> None:
    from pytest_agenttraj import GraphTrajectoryMismatch, assert_graph_trajectory

    with pytest.raises(GraphTrajectoryMismatch) as raised:
        assert_graph_trajectory({"steps": [["a", "x", 3]]}, {"steps": [["a", "b", "c"]]})
    text = str(raised.value)
    assert "expected node 'b' at 1, got 'x'" in text
    assert "outputs['steps'][0][2] (invocation 0, step 2)" in text


def test_entries_are_checked_where_agentevals_compares_whatever_steps_hold() -> None:
    """docs/differences.md, "Entries are checked"."""
    from agentevals.graph_trajectory.strict import graph_trajectory_strict_match as theirs

    from pytest_agenttraj import graph_trajectory_strict_match as ours

    same = {"steps": [["a", 3]]}
    assert theirs(outputs=same, reference_outputs=same)["score"] is True
    with pytest.raises(GraphTrajectoryFormatError, match=r"\(invocation 0, step 1\)"):
        ours(outputs=same, reference_outputs=same)
    output, reference = {"steps": [["a", "x", 3]]}, {"steps": [["a", "b", "c"]]}
    assert theirs(outputs=output, reference_outputs=reference)["score"] is False
    result = ours(outputs=output, reference_outputs=reference)
    assert (result["score"], result["comment"]) == (
        False,
        "Graph trajectory differs: invocation 0: expected node 'b' at 1, got 'x'.",
    )


BIG = 100_000


def _big(changed: int | None = None, extra: list[str] | None = None) -> dict[str, Any]:
    steps: list[Any] = [f"n{i % 50}" if i % 4 != 3 else [f"f{i}", "g"] for i in range(BIG)]
    if changed is not None:
        steps[changed] = "changed"
    return {"steps": [steps + (extra or [])]}


@pytest.mark.parametrize(
    ("output", "reference", "problems"),
    [
        pytest.param(_big(changed=1), _big(), 3, id="at-the-start"),
        pytest.param(_big(changed=BIG - 2), _big(), 3, id="near-the-end"),
        pytest.param(_big(extra=["x"] * BIG), _big(), 2, id="output-runs-on"),
        # every node of the reference is missing: one problem each, as for message trajectories
        pytest.param({"steps": [["other"]]}, _big(), BIG // 4 + 53, id="output-stops"),
    ],
)
def test_a_failing_100000_node_match_explains_in_bounded_text(
    output: dict[str, Any], reference: dict[str, Any], problems: int
) -> None:
    report = match_graph_trajectories(output, reference)
    assert not report.matched
    comment = report.comment()
    assert comment is not None
    assert len(comment) < 400
    texts = report.problem_texts()
    assert len(texts) == problems
    assert max(len(text) for text in texts) < 300
    marked = sum(len(d.output_at) + len(d.reference_at) for d in report.differences)
    assert marked <= 11 * 10


def test_a_long_leftover_is_quoted_in_part() -> None:
    report = match_graph_trajectories({"steps": [["a", *"bcdefghijklm"]]}, {"steps": [["a"]]})
    assert report.summary == (
        "invocation 0: unexpected nodes after the reference's last: "
        "['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'] and 2 more"
    )
    assert report.differences[0].what == (
        "expected no more supersteps, got b then c then d then e then f then g then h then i "
        "then j then k and 2 more nodes"
    )
