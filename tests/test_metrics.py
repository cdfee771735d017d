"""Graded metrics of the core: tool-call accuracy and F1, argument accuracy, the assignment.

The examples Ragas documents hold exactly, and so do Ragas' rules where they part from the
package's own (which stay as options); property tests compare the fast pairings with brute force
over every pairing of small inputs. tests/test_ragas_differential.py compares with Ragas itself.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import example, given, settings, strategies as st
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from pytest_agenttraj import TrajectoryFormatError
from pytest_agenttraj.core.matching.explain import EXPLAINED
from pytest_agenttraj.core.matching.rules import ArgsRule, make_config
from pytest_agenttraj.core.metrics import read_calls, tool_call_accuracy, tool_call_f1
from pytest_agenttraj.core.metrics.agreement import Agreement
from pytest_agenttraj.core.metrics.args import arg_accuracy
from pytest_agenttraj.core.metrics.weighted_assignment import max_weight_assignment
from pytest_agenttraj.core.model import ToolCall
from pytest_agenttraj.evaluators.graded import graded_config

EXACT = make_config("unordered")
RAGAS = graded_config(metric="tool_call_accuracy")


def ai(*calls: tuple[str, dict[str, Any]], content: str = "") -> AIMessage:
    return AIMessage(
        content=content,
        tool_calls=[
            {"name": name, "args": args, "id": f"{name}-{n}", "type": "tool_call"}
            for n, (name, args) in enumerate(calls)
        ],
    )


def calls(*pairs: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"name": name, "args": args} for name, args in pairs]


# ---------------------------------------------------------------- documented examples

NEW_YORK = ("weather_check", {"location": "New York"})
CELSIUS = ("temperature_conversion", {"temperature_fahrenheit": 75})


def test_accuracy_all_right_is_one() -> None:
    conversation = [
        HumanMessage("What's the weather like in New York right now?"),
        ai(NEW_YORK, content="The current temperature in New York is 75°F."),
        HumanMessage("Can you translate that to Celsius?"),
        ai(CELSIUS, content="Let me convert that to Celsius for you."),
        ToolMessage("75°F is approximately 23.9°C.", tool_call_id="temperature_conversion-0"),
        AIMessage("75°F is approximately 23.9°C."),
    ]
    report = tool_call_accuracy(conversation, calls(NEW_YORK, CELSIUS), EXACT)
    assert report.score == 1.0
    assert report.comment() is None


def test_accuracy_one_of_three_args_wrong_is_two_thirds() -> None:
    expected = calls(("book_flight", {"origin": "SFO", "destination": "JFK", "date": "05-01"}))
    made = [ai(("book_flight", {"origin": "SFO", "destination": "JFK", "date": "05-02"}))]
    report = tool_call_accuracy(made, expected, EXACT)
    assert report.score == pytest.approx(2 / 3)
    assert round(report.score, 2) == 0.67
    [call] = report.metadata()["calls"]
    assert call["status"] == "args_differ"
    assert call["differing_args"] == ["date"]


def test_accuracy_right_calls_in_the_wrong_order() -> None:
    made = [ai(CELSIUS), ai(NEW_YORK)]
    expected = calls(NEW_YORK, CELSIUS)
    strict = tool_call_accuracy(made, expected, EXACT, strict_order=True)
    flexible = tool_call_accuracy(made, expected, EXACT, strict_order=False)
    assert strict.score == 0.0
    assert not strict.aligned
    assert strict.problem is not None
    assert "out of order" in strict.problem
    assert flexible.score == 1.0


def test_accuracy_two_parallel_calls_in_the_other_order_is_zero_strict() -> None:
    made = [ai(CELSIUS, NEW_YORK)]  # one message, two parallel calls
    assert tool_call_accuracy(made, calls(NEW_YORK, CELSIUS), EXACT).score == 0.0
    flexible = tool_call_accuracy(made, calls(NEW_YORK, CELSIUS), EXACT, strict_order=False)
    assert flexible.score == 1.0


PARIS_WEATHER = ("weather_check", {"location": "Paris"})
PARIS_UV = ("uv_index_lookup", {"location": "Paris"})
PARIS_AIR = ("air_quality", {"location": "Paris"})


@pytest.mark.parametrize(
    ("made", "expected", "f1", "precision", "recall"),
    [
        # Ragas' docs print 0.67 for this one; its formula gives 2 * (2/3 * 1) / (2/3 + 1) = 0.8.
        ([PARIS_WEATHER, PARIS_UV, PARIS_AIR], [PARIS_UV, PARIS_WEATHER], 0.8, 2 / 3, 1.0),
        ([PARIS_WEATHER, PARIS_UV], [PARIS_WEATHER, PARIS_UV], 1.0, 1.0, 1.0),
        ([PARIS_WEATHER, PARIS_AIR], [PARIS_WEATHER], 0.6667, 0.5, 1.0),  # rounded, as in Ragas
        ([PARIS_WEATHER], [PARIS_WEATHER, PARIS_UV], 0.6667, 1.0, 0.5),
        ([("weather_check", {"location": "Rome"})], [PARIS_WEATHER], 0.0, 0.0, 0.0),
        # a multiset: the second call is extra (Ragas, counting a set, says 1.0)
        ([PARIS_WEATHER, PARIS_WEATHER], [PARIS_WEATHER], 0.6667, 0.5, 1.0),
    ],
    ids=[
        "two-right-one-extra",
        "all-right",
        "one-right-one-extra",
        "one-missing",
        "right-name-wrong-args",
        "same-call-twice",
    ],
)
def test_f1_documented_examples(
    made: list[tuple[str, dict[str, Any]]],
    expected: list[tuple[str, dict[str, Any]]],
    f1: float,
    precision: float,
    recall: float,
) -> None:
    report = tool_call_f1([HumanMessage("Paris?"), ai(*made)], calls(*expected), EXACT)
    assert report.score == f1
    assert report.precision == pytest.approx(precision)
    assert report.recall == pytest.approx(recall)
    metadata = report.metadata()
    assert metadata["true_positives"] == len(report.matched)
    assert metadata["false_positives"] == len(made) - len(report.matched)
    assert metadata["false_negatives"] == len(expected) - len(report.matched)


def test_f1_explains_the_first_unpaired_calls_in_full_and_sets_later_ones_beside_a_call() -> None:
    made = calls(*[("search", {"q": f"out {n}", "page": n}) for n in range(30)])
    expected = calls(*[("search", {"q": f"ref {n}", "page": n}) for n in range(30)])
    report = tool_call_f1(made, expected, EXACT)
    assert report.score == 0.0
    lone = [*report.missing, *report.extra]
    assert [u.compared for u in lone] == [True] * EXPLAINED + [False] * (60 - EXPLAINED)
    first = report.missing[0]  # the closest: the same page, only the query differs
    assert first.closest is not None
    assert first.closest.position == 0
    assert first.differing == ("q",)
    later = report.extra[-1]  # beside the first reference call of its tool, nothing compared
    assert later.closest is not None
    assert later.closest.position == 0
    assert later.differing == ()
    assert report.metadata()["extra"][-1]["compared"] is False
    assert "not compared in detail" in report.reasons()[-1]


def test_f1_metadata_names_what_is_missing_and_extra() -> None:
    made = [ai(("weather_check", {"location": "Rome"}), PARIS_AIR)]
    report = tool_call_f1(made, calls(PARIS_WEATHER), EXACT)
    metadata = report.metadata()
    [missing] = metadata["missing"]
    assert missing["name"] == "weather_check"
    assert missing["closest"]["position"] == 0
    assert missing["differing_args"] == ["location"]
    assert [e["name"] for e in metadata["extra"]] == ["weather_check", "air_quality"]
    assert metadata["extra"][1]["closest"] is None
    comment = report.comment()
    assert comment is not None
    assert comment.startswith("Tool-call F1 0.00 (precision 0.00, recall 0.00, exact args):")
    assert "missing reference call 0 weather_check(location='Paris')" in comment


def test_f1_uses_the_args_rules_and_overrides() -> None:
    made = [ai(("search", {"query": "paris weather", "limit": 5}))]
    expected = calls(("search", {"query": "paris weather"}))
    assert tool_call_f1(made, expected, EXACT).score == 0.0
    assert tool_call_f1(made, expected, make_config("unordered", "superset")).score == 1.0
    keys = make_config("unordered", "exact", {"search": ["query"]})
    assert tool_call_f1(made, expected, keys).score == 1.0


def test_f1_of_empty_sides() -> None:
    assert tool_call_f1([], [], EXACT).score == 1.0  # Ragas: 0.0 (docs/differences.md)
    assert tool_call_f1([ai(PARIS_AIR)], [], EXACT).score == 0.0
    assert tool_call_f1([], calls(PARIS_AIR), EXACT).score == 0.0


# ---------------------------------------------------------------- accuracy details


@pytest.mark.parametrize("strict", [True, False])
def test_accuracy_an_extra_call_misaligns_as_in_ragas(strict: bool) -> None:
    made = [ai(NEW_YORK), ai(("search", {"q": "x"})), ai(CELSIUS)]
    report = tool_call_accuracy(made, calls(NEW_YORK, CELSIUS), RAGAS, strict_order=strict)
    assert report.score == 0.0
    assert report.problem == (
        "the output makes extra calls ('search' 1 time for 0 in the reference), and the calls "
        "align only when they are the reference's"
    )
    assert [c.status for c in report.calls] == ["matched", "matched"]
    assert report.metadata()["allow_extra_calls"] is False


@pytest.mark.parametrize("strict", [True, False])
def test_accuracy_extra_calls_may_lose_no_points_but_are_listed(strict: bool) -> None:
    made = [ai(NEW_YORK), ai(("search", {"q": "x"})), ai(CELSIUS)]
    report = tool_call_accuracy(
        made, calls(NEW_YORK, CELSIUS), RAGAS, strict_order=strict, allow_extra_calls=True
    )
    assert report.score == 1.0
    assert [c["name"] for c in report.metadata()["extra_calls"]] == ["search"]
    assert report.order == f"{'strict' if strict else 'any'} order, extra calls allowed"


def test_accuracy_strict_order_with_extra_calls_pairs_the_best_calls_in_order() -> None:
    # Two tries at the first call: the second one is right, and still precedes the other call.
    made = [
        ai(("get", {"id": 1, "v": "wrong"})),
        ai(("get", {"id": 1, "v": "right"})),
        ai(("put", {"id": 1})),
    ]
    expected = calls(("get", {"id": 1, "v": "right"}), ("put", {"id": 1}))
    report = tool_call_accuracy(made, expected, EXACT, allow_extra_calls=True)
    assert report.score == 1.0
    assert [c.output.position for c in report.calls if c.output] == [1, 2]
    assert tool_call_accuracy(made, expected, EXACT).score == 0.0  # Ragas: one call too many


def test_accuracy_strict_order_needs_the_same_names_in_the_same_order() -> None:
    made = [ai(CELSIUS), ai(NEW_YORK)]
    report = tool_call_accuracy(made, calls(NEW_YORK, CELSIUS), RAGAS)
    assert report.score == 0.0
    assert report.problem == (
        "the calls are out of order: output call 0 is 'temperature_conversion' where "
        "reference call 0 is 'weather_check'"
    )


def test_accuracy_a_call_expected_without_args_must_be_made_without() -> None:
    made = [ai(("refresh", {"force": True}))]
    report = tool_call_accuracy(made, calls(("refresh", {})), RAGAS)
    assert report.score == 0.0  # as Ragas scores it
    assert report.calls[0].differing == ("force",)
    assert tool_call_accuracy([ai(("refresh", {}))], calls(("refresh", {})), RAGAS).score == 1.0
    superset = make_config("unordered", "superset")
    assert tool_call_accuracy(made, calls(("refresh", {})), superset).score == 1.0


def test_accuracy_ragas_args_count_the_reference_keys() -> None:
    made = [ai(("f", {"a": 1, "b": 9, "extra": 3}))]
    report = tool_call_accuracy(made, calls(("f", {"a": 1, "b": 2})), RAGAS)
    assert report.score == 0.5  # b differs; extra is free
    assert report.calls[0].differing == ("b",)
    exact = tool_call_accuracy(made, calls(("f", {"a": 1, "b": 2})), EXACT)
    assert exact.score == pytest.approx(1 / 3)


def test_accuracy_any_order_pairs_calls_by_their_argument_text() -> None:
    # Ragas sorts each side by argument text (n=2 before n=4) and pairs in that order, scoring
    # 0.25 (its own ToolCallAccuracy gives the same); the best pairing scores 0.5.
    made = [ai(("f", {"n": 2, "q": "b"}), ("f", {"n": 4, "q": "a"}))]
    expected = calls(("f", {"n": 2, "q": "a"}), ("f", {"n": 3, "q": "b"}))
    ragas = tool_call_accuracy(made, expected, RAGAS, strict_order=False)
    assert ragas.score == 0.25
    assert [(c.reference.position, c.output.position) for c in ragas.calls if c.output] == [
        (0, 0),
        (1, 1),
    ]
    best = tool_call_accuracy(made, expected, RAGAS, strict_order=False, best_pairing=True)
    assert best.score == 0.5
    assert best.order == "any order, best pairing"


def test_accuracy_missing_call_is_zero_with_the_reason() -> None:
    report = tool_call_accuracy([ai(NEW_YORK)], calls(NEW_YORK, CELSIUS), EXACT)
    assert report.score == 0.0
    assert report.problem == "the output calls 'temperature_conversion' 0 of 1 times"
    assert report.metadata()["calls"][1]["status"] == "missing"
    assert report.arg_accuracy == 0.5


def test_accuracy_of_empty_sides_follows_ragas() -> None:
    assert tool_call_accuracy([], [], RAGAS).score == 1.0
    assert tool_call_accuracy([ai(NEW_YORK)], [], RAGAS).score == 0.0
    assert tool_call_accuracy([], calls(NEW_YORK), RAGAS).score == 0.0


@pytest.mark.parametrize(
    ("tool_args", "made", "score"),
    [
        ("exact", {"a": 1, "b": 2, "extra": 3}, 2 / 3),  # keys of either side count
        ("superset", {"a": 1, "b": 2, "extra": 3}, 1.0),  # extra args are free
        ("ragas", {"a": 1, "b": 2, "extra": 3}, 1.0),
        ("ragas", {"a": 1}, 0.5),
        ("superset", {"a": 1}, 0.5),
        ("subset", {"a": 1}, 1.0),  # the output may leave keys out
        ("subset", {"a": 1, "b": 9}, 0.5),
        ("ignore", {"z": 0}, 1.0),
    ],
)
def test_accuracy_args_modes(tool_args: str, made: dict[str, Any], score: float) -> None:
    config = graded_config(tool_args, metric="tool_call_accuracy")
    report = tool_call_accuracy([ai(("f", made))], calls(("f", {"a": 1, "b": 2})), config)
    assert report.score == pytest.approx(score)


def test_accuracy_key_list_and_callable_overrides() -> None:
    def same_city(out: dict[str, Any], ref: dict[str, Any]) -> bool:
        return str(out.get("city", "")).lower() == str(ref.get("city", "")).lower()

    config = make_config("unordered", "exact", {"f": ["a", "n.k"], "g": same_city})
    made = [ai(("f", {"a": 1, "n": {"k": 2}, "other": 5}), ("g", {"city": "PARIS"}))]
    expected = calls(("f", {"a": 1, "n": {"k": 3}}), ("g", {"city": "paris"}))
    report = tool_call_accuracy(made, expected, config)
    assert [c.score for c in report.calls] == [0.5, 1.0]
    assert report.calls[0].differing == ("n.k",)


def test_values_compare_as_json() -> None:
    report = tool_call_accuracy(
        [ai(("f", {"n": 1.0, "b": True}))], calls(("f", {"n": 1, "b": 1})), EXACT
    )
    assert report.calls[0].differing == ("b",)  # 1 == 1.0, but true is not 1


# ---------------------------------------------------------------- input forms


def test_reference_calls_in_every_form() -> None:
    made = [HumanMessage("q"), ai(NEW_YORK, CELSIUS)]
    forms: list[Any] = [
        calls(NEW_YORK, CELSIUS),
        [{"function": {"name": n, "arguments": json.dumps(a)}} for n, a in (NEW_YORK, CELSIUS)],
        [{"name": n, "args": a, "id": None, "type": "tool_call"} for n, a in (NEW_YORK, CELSIUS)],
        [ToolCall(n, a) for n, a in (NEW_YORK, CELSIUS)],
        {"tool_calls": calls(NEW_YORK, CELSIUS)},
        {"reference_tool_calls": calls(NEW_YORK, CELSIUS)},
        {"messages": made},
        [{"role": "assistant", "tool_calls": calls(NEW_YORK, CELSIUS)}],
    ]
    for form in forms:
        assert tool_call_accuracy(made, form, EXACT).score == 1.0, form
        assert tool_call_f1({"messages": made}, form, EXACT).score == 1.0, form


def test_calls_keep_their_message() -> None:
    made = [HumanMessage("q"), ai(NEW_YORK), ToolMessage("ok", tool_call_id="x"), ai(CELSIUS)]
    assert [(c.position, c.message) for c in read_calls(made, side="outputs")] == [(0, 1), (1, 3)]
    listed = read_calls(calls(NEW_YORK), side="reference_outputs")
    assert [(c.position, c.message) for c in listed] == [(0, None)]


def test_bad_reference_call_names_the_side_and_the_call() -> None:
    bad = [{"name": "f", "args": {}}, {"name": "g", "arguments": "{not json"}]
    with pytest.raises(TrajectoryFormatError) as raised:
        tool_call_accuracy([ai(NEW_YORK)], bad, EXACT)
    text = str(raised.value)
    assert text.startswith("reference_outputs, field 'arguments': tool call 1: arguments of tool")
    with pytest.raises(TrajectoryFormatError, match=r"^outputs: expected a trajectory"):
        tool_call_f1(None, calls(NEW_YORK), EXACT)


# ---------------------------------------------------------------- properties

NAMES = st.sampled_from(["a", "b"])
ARGS = st.dictionaries(st.sampled_from(["x", "y", "z"]), st.integers(0, 1), max_size=3)
CALLS = st.lists(st.tuples(NAMES, ARGS), max_size=5)
RULES = st.sampled_from(
    [
        ArgsRule("exact"),
        ArgsRule("subset"),
        ArgsRule("superset"),
        ArgsRule("ragas"),
        ArgsRule("ignore"),
        ArgsRule("keys", keys=("x", "y")),
    ]
)


@given(rule=RULES, out=ARGS, ref=ARGS)
def test_arg_accuracy_is_one_exactly_when_the_rule_matches(
    rule: ArgsRule, out: dict[str, int], ref: dict[str, int]
) -> None:
    graded = arg_accuracy(rule, out, ref)
    assert 0.0 <= graded.score <= 1.0
    assert (graded.score == 1.0) == rule.matches(out, ref)
    assert (graded.differing == ()) == (graded.score == 1.0)


WEIGHTS = st.sampled_from([0.0, 1 / 3, 0.5, 2 / 3, 1.0])


@settings(max_examples=200)
@given(data=st.data(), rows=st.integers(0, 4), extra=st.integers(0, 2))
def test_assignment_is_optimal(data: st.DataObject, rows: int, extra: int) -> None:
    columns = rows + extra
    matrix = [[data.draw(WEIGHTS) for _ in range(columns)] for _ in range(rows)]
    # some pairs of weight 1 given as a start, as identical arguments are
    start = []
    free_columns = list(range(columns))
    for row in range(rows):
        if free_columns and data.draw(st.booleans()):
            column = free_columns.pop(data.draw(st.integers(0, len(free_columns) - 1)))
            matrix[row][column] = 1.0
            start.append((row, column))
    chosen = max_weight_assignment(rows, columns, lambda i, j: matrix[i][j], start)
    assert sorted(set(chosen)) == sorted(chosen)
    assert all(0 <= j < columns for j in chosen)
    best = max(
        (
            sum(matrix[i][j] for i, j in enumerate(p))
            for p in itertools.permutations(range(columns), rows)
        ),
        default=0.0,
    )
    assert sum(matrix[i][j] for i, j in enumerate(chosen)) == pytest.approx(best)


def _weight(out: tuple[str, dict[str, int]], ref: tuple[str, dict[str, int]]) -> float:
    return arg_accuracy(ArgsRule("exact"), out[1], ref[1]).score


def _brute_accuracy(
    made: list[tuple[str, dict[str, int]]],
    expected: list[tuple[str, dict[str, int]]],
    strict: bool,
    extra: bool,
) -> float:
    """The best mean argument accuracy over every pairing that aligns: the reference's calls
    within the output's (``extra``), else every output call paired (the same names)."""
    if not expected:
        return 0.0 if made else 1.0
    if not extra and len(made) != len(expected):
        return 0.0
    best = None
    for chosen in itertools.permutations(range(len(made)), len(expected)):
        if strict and list(chosen) != sorted(chosen):
            continue
        if any(made[j][0] != expected[i][0] for i, j in enumerate(chosen)):
            continue
        total = sum(_weight(made[j], expected[i]) for i, j in enumerate(chosen))
        best = total if best is None else max(best, total)
    return 0.0 if best is None else best / len(expected)


def as_text(pairs: list[tuple[str, dict[str, int]]]) -> list[dict[str, Any]]:
    """Calls with their arguments as JSON text: equal texts then share one parsed dict."""
    return [{"function": {"name": n, "arguments": json.dumps(a)}} for n, a in pairs]


@settings(max_examples=150)
@given(
    made=CALLS,
    expected=st.lists(st.tuples(NAMES, ARGS), max_size=4),
    strict=st.booleans(),
    extra=st.booleans(),
    text=st.booleans(),
)
def test_accuracy_with_best_pairing_agrees_with_brute_force(
    made: list[tuple[str, dict[str, int]]],
    expected: list[tuple[str, dict[str, int]]],
    strict: bool,
    extra: bool,
    text: bool,
) -> None:
    form = as_text if text else lambda pairs: calls(*pairs)
    report = tool_call_accuracy(
        form(made),
        form(expected),
        EXACT,
        strict_order=strict,
        allow_extra_calls=extra,
        best_pairing=True,
    )
    assert report.score == pytest.approx(_brute_accuracy(made, expected, strict, extra))
    assert len(report.calls) == len(expected)
    paired = [c.output.position for c in report.calls if c.output is not None]
    assert len(paired) == len(set(paired))
    assert len(paired) + len(report.extra) == len(made)


@settings(max_examples=200)
@given(made=CALLS, expected=CALLS)
def test_f1_true_positives_are_a_maximum_pairing(
    made: list[tuple[str, dict[str, int]]], expected: list[tuple[str, dict[str, int]]]
) -> None:
    rule = ArgsRule("subset")  # not an equivalence: greedy pairing could miss some
    config = make_config("unordered", "subset")
    report = tool_call_f1(calls(*made), calls(*expected), config)
    best = 0
    for size in range(min(len(made), len(expected)), -1, -1):
        if any(
            all(
                made[j][0] == expected[i][0] and rule.matches(made[j][1], expected[i][1])
                for i, j in zip(refs, outs, strict=True)
            )
            for refs in itertools.combinations(range(len(expected)), size)
            for outs in itertools.permutations(range(len(made)), size)
        ):
            best = size
            break
    assert len(report.matched) == best


@settings(max_examples=150)
@given(data=st.data(), rows=st.integers(0, 5), extra=st.integers(0, 2), loose=st.booleans())
def test_assignment_around_a_start_is_the_full_optimum(
    data: st.DataObject, rows: int, extra: int, loose: bool
) -> None:
    """Searching the leftovers alone, kept only where the bound proves it optimal, scores what
    the search of the whole problem scores (``loose``: a bound above the true best)."""
    columns = rows + extra
    matrix = [[data.draw(WEIGHTS) for _ in range(columns)] for _ in range(rows)]
    start = []
    free_columns = list(range(columns))
    for row in range(rows):
        if free_columns and data.draw(st.booleans()):
            column = free_columns.pop(data.draw(st.integers(0, len(free_columns) - 1)))
            matrix[row][column] = 1.0
            start.append((row, column))
    start_columns = [c for _, c in start]

    def within(row: int, limit: float) -> bool:
        best = max((matrix[row][c] for c in start_columns), default=0.0)
        return (min(1.0, best + 0.25) if loose else best) <= limit

    def rest(row: int) -> list[float]:
        return [matrix[row][c] for c in range(columns) if c not in start_columns]

    def total(chosen: list[int]) -> float:
        assert sorted(set(chosen)) == sorted(chosen)
        return sum(matrix[i][j] for i, j in enumerate(chosen))

    full = max_weight_assignment(rows, columns, lambda i, j: matrix[i][j], start)
    around = max_weight_assignment(rows, columns, lambda i, j: matrix[i][j], start, within, rest)
    assert total(around) == pytest.approx(total(full))


GRADED_RULES = st.sampled_from(
    [ArgsRule("exact"), ArgsRule("subset"), ArgsRule("superset"), ArgsRule("ragas")]
)
POOL_ARGS = st.sampled_from(
    [
        {},
        {"x": 0},
        {"x": 1},
        {"x": 0, "y": 0},
        {"x": 0, "y": 1, "z": 0},
        {"y": [1, 2]},
        {"x": 1.0, "y": {"a": [1, 2]}},
        {"x": True, "z": None},
    ]
)


@settings(max_examples=150)
@given(
    rule=GRADED_RULES,
    rows=st.lists(st.one_of(POOL_ARGS, ARGS), max_size=4),
    columns=st.lists(st.one_of(POOL_ARGS, ARGS), max_size=4),
    rows_are_references=st.booleans(),
    limit=st.sampled_from([0.0, 0.25, 1 / 3, 0.5, 2 / 3, 0.75, 1.0]),
)
def test_agreement_scores_as_arg_accuracy_does(
    rule: ArgsRule,
    rows: list[dict[str, Any]],
    columns: list[dict[str, Any]],
    rows_are_references: bool,
    limit: float,
) -> None:
    agreement = Agreement(rule, rows, columns, rows_are_references=rows_are_references)
    for r, args in enumerate(rows):

        def score(other: dict[str, Any], args: dict[str, Any] = args) -> float:
            out, ref = (other, args) if rows_are_references else (args, other)
            return arg_accuracy(rule, out, ref).score

        best = max((score(other) for other in columns), default=0.0)
        assert agreement.weights(r) == [score(other) for other in columns]
        assert agreement.best(r) >= best
        if agreement.within(r, limit):  # a row said to score at most ``limit`` does
            assert best <= limit
        if agreement.best(r) <= limit:  # and the bound that counts never says less
            assert agreement.within(r, limit)


def test_agreement_gives_up_where_counting_keys_is_not_the_score() -> None:
    rows, columns = [{"x": 1, "t": 1}], [{"x": 1, "t": 2}]
    ignoring = Agreement(ArgsRule("exact", ignored=("t",)), rows, columns, rows_are_references=True)
    assert ignoring.weights(0) is None
    assert ignoring.best(0) == 1.0
    assert not ignoring.within(0, 0.99)


def test_agreement_bounds_a_row_by_the_items_some_column_holds() -> None:
    rows = [{"q": "new", "n": -1, "f": {"a": 1}}]
    columns = [{"q": "old", "n": 1, "f": {"a": 2}}, {"q": "other", "n": 2, "f": {"a": 1}}]
    agreement = Agreement(ArgsRule("exact"), rows, columns, rows_are_references=True)
    # only ``f`` (a container, never indexed) may agree: at most 1 of 3 keys, without counting
    assert agreement.within(0, 1 / 3)
    assert agreement._items is None
    assert not agreement.within(0, 0.3)  # the second column agrees on ``f``: 1/3 > 0.3


@settings(max_examples=150)
@given(
    rule=GRADED_RULES,
    made=st.lists(POOL_ARGS, max_size=5),
    expected=st.lists(POOL_ARGS, max_size=5),
)
@example(  # the second reference call is closer to the first's identical partner than to its own
    rule=ArgsRule("ragas"),
    made=[{"a": 1, "p": 0, "q": 0, "r": 0}, {"a": 2, "b": 7, "p": 0, "q": 0, "r": 0}],
    expected=[{"a": 1, "p": 0, "q": 0, "r": 0}, {"a": 1, "b": 5}],
)
def test_best_pairing_under_every_graded_rule_is_the_brute_force_optimum(
    rule: ArgsRule, made: list[dict[str, Any]], expected: list[dict[str, Any]]
) -> None:
    """One tool's calls, many of them identical: the identical pairs first, then the rest,
    still the best total argument accuracy (re-pairing an identical call where that is
    better, as under ``ragas`` a call may be closer to another's partner than to its own)."""
    config = RAGAS if rule.kind == "ragas" else graded_config(rule.kind)
    report = tool_call_accuracy(
        calls(*[("f", a) for a in made]),
        calls(*[("f", a) for a in expected]),
        config,
        strict_order=False,
        allow_extra_calls=True,
    )
    if not expected:
        return
    small, big = (expected, made) if len(expected) <= len(made) else (made, expected)
    best = 0.0
    for chosen in itertools.permutations(range(len(big)), len(small)):
        pairs = [(small[i], big[j]) for i, j in enumerate(chosen)]
        if small is not expected:
            pairs = [(b, s) for s, b in pairs]
        best = max(best, sum(arg_accuracy(rule, out, ref).score for ref, out in pairs))
    assert report.arg_accuracy == pytest.approx(best / len(expected))


_SORT_TEXTS = st.text(alphabet=st.sampled_from(["\0", "\x01", "a", "b", " "]), max_size=3)


_SORT_ARGS = st.dictionaries(_SORT_TEXTS, _SORT_TEXTS | st.integers(-2, 2), max_size=2)


@example(
    names=["f", "f"],
    ref_args=[{"a\0b": 1}, {"a": 1, "c": 1}],
    out_args=[{"a": 2, "c": 2}, {"a\0b": 2}],
)
@given(
    names=st.lists(st.sampled_from(["f", "f\0", "g"]), max_size=6),
    ref_args=st.lists(_SORT_ARGS, min_size=6, max_size=6),
    out_args=st.lists(_SORT_ARGS, min_size=6, max_size=6),
)
def test_any_order_pairs_calls_in_the_order_of_their_argument_texts(
    names: list[str], ref_args: list[dict[str, Any]], out_args: list[dict[str, Any]]
) -> None:
    """Ragas' any-order pairing sorts each side by tool name and argument texts (argument name,
    then ``str`` of the value); the sort key joins them with NUL, falling back to the tuples
    where a text holds a NUL itself: the same order either way."""
    from pytest_agenttraj.core.metrics.accuracy import _argument_text, _by_argument_text
    from pytest_agenttraj.core.metrics.calls import GradedCall

    def graded(args: list[dict[str, Any]]) -> list[GradedCall]:
        return [
            GradedCall(n, None, ToolCall(name, a))
            for n, (name, a) in enumerate(zip(names, args[: len(names)], strict=True))
        ]

    outs, refs = graded(out_args), graded(ref_args)

    def by_tuples(side: list[GradedCall]) -> list[int]:
        return sorted(
            range(len(side)),
            key=lambda i: (side[i].call.name, _argument_text(side[i].call.args)),
        )

    expected = dict(zip(by_tuples(refs), by_tuples(outs), strict=True))
    assert _by_argument_text(outs, refs) == expected
