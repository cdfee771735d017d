"""Value matchers in reference args: each matcher alone, nested in dicts and lists, in every
trajectory mode, args mode and override, in diffs, and pairing that stays optimal with them.

Two property tests: a reference whose every argument value is ``ANY`` matches every output with
the same tool names; and with matchers in play, whether a trajectory matches agrees with a
brute-force search for a valid one-to-one pairing written here (independent of the matcher).
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import pickle
import re
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from pytest_agenttraj import (
    ANY,
    Approx,
    Contains,
    MatchReport,
    OneOf,
    Regex,
    assert_trajectory,
    create_trajectory_match_evaluator,
    match_trajectories,
    to_trajectory,
)
from pytest_agenttraj.core.matchers import Matcher
from pytest_agenttraj.core.matching.rules import make_config
from pytest_agenttraj.render import render_text

MODES = ("strict", "unordered", "subset", "superset", "in_order")
ARGS_MODES = ("exact", "ignore", "subset", "superset")


def user(text: str = "Weather in SF?") -> dict[str, Any]:
    return {"role": "user", "content": text}


def ai(*calls: tuple[str, Mapping[str, Any]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"name": name, "args": dict(args)} for name, args in calls],
    }


def tool() -> dict[str, Any]:
    return {"role": "tool", "content": "ok", "tool_call_id": "1"}


def match(
    output: Any,
    reference: Any,
    mode: str = "strict",
    args: str = "exact",
    overrides: Mapping[str, Any] | None = None,
    ignore_keys: Any = None,
) -> MatchReport:
    config = make_config(mode, args, overrides, ignore_keys=ignore_keys)
    return match_trajectories(to_trajectory(output), to_trajectory(reference), config)


def one_call(name: str, args: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [user(), ai((name, args)), tool()]


# ---------------------------------------------------------------- each matcher alone

ACCEPTS: list[tuple[Matcher, Any, bool]] = [
    (ANY, "SF", True),
    (ANY, None, True),
    (ANY, {"deep": [1]}, True),
    (Regex("S.*"), "SFO", True),
    (Regex("SF"), "SFO", False),  # a full match, not a search
    (Regex("^SF$"), "SF", True),
    (Regex(r"\d+"), 123, False),  # only strings
    (Regex(r"\d+"), "123", True),
    (Regex("sf", flags=re.IGNORECASE), "SF", True),
    (Regex("sf"), "SF", False),
    (Regex("a.b", flags=re.DOTALL), "a\nb", True),
    (Approx(75), 75.00001, True),
    (Approx(75), 75.1, False),
    (Approx(75), 75, True),
    (Approx(1.0), 1, True),
    (Approx(1), True, False),  # JSON: true is not a number
    (Approx(1), "1", False),
    (Approx(75, abs=0.5), 75.4, True),
    (Approx(75, abs=0.5), 75.6, False),
    (Approx(100, rel=0.01), 100.9, True),
    (Approx(100, rel=0.01), 101.1, False),
    (Approx(100, rel=0.01, abs=5), 104, True),  # the larger tolerance wins
    (Approx(0.0), 1e-13, True),  # the default absolute tolerance, 1e-12
    (Approx(math.inf), math.inf, True),
    (Approx(math.inf), 1e308, False),
    (Approx(1.0), math.nan, False),
    (OneOf("c", "f"), "f", True),
    (OneOf("c", "f"), "k", False),
    (OneOf(1), 1.0, True),  # JSON: 1 equals 1.0
    (OneOf(1), True, False),  # ... and true is not 1
    (OneOf(Regex("S.*"), None), None, True),
    (OneOf(Regex("S.*"), None), "SFO", True),
    (OneOf({"city": ANY}), {"city": "SF"}, True),
    (OneOf({"city": ANY}), {"town": "SF"}, False),
    (Contains("SF"), "to SFO please", True),
    (Contains("SF"), "to NYC", False),
    (Contains("SF"), ["SF", "NYC"], True),
    (Contains("SF"), ["SFO"], False),  # list elements compare whole
    (Contains(2), [1, 2.0], True),
    (Contains(True), [1], False),
    (Contains(Regex("S.*")), ["NYC", "SFO"], True),
    (Contains({"id": ANY}), [{"id": 3}], True),
    (Contains(3), "3", False),  # a string holds only strings
    (Contains("a"), {"a": 1}, False),
]


@pytest.mark.parametrize(("matcher", "value", "expected"), ACCEPTS, ids=repr)
def test_each_matcher_accepts_what_it_says(matcher: Matcher, value: Any, expected: bool) -> None:
    assert matcher.matches(value) is expected


@given(
    expected=st.floats(allow_nan=False, allow_infinity=False, width=32),
    actual=st.one_of(st.floats(allow_nan=False, width=32), st.integers(-(10**6), 10**6)),
    rel=st.one_of(st.none(), st.floats(0, 0.5)),
    absolute=st.one_of(st.none(), st.floats(0, 10)),
)
def test_approx_decides_as_pytest_approx(
    expected: float, actual: float, rel: float | None, absolute: float | None
) -> None:
    assert Approx(expected, rel=rel, abs=absolute).matches(actual) == (
        actual == pytest.approx(expected, rel=rel, abs=absolute)
    )


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Regex("("), "invalid Regex '(': missing ), unterminated subpattern"),
        (lambda: Regex(5), "Regex needs a pattern string, got 5"),
        (lambda: Regex("a", flags=re.DEBUG), "invalid Regex flags"),
        (lambda: Regex("a", flags=True), "invalid Regex flags"),
        (lambda: Approx("x"), "Approx needs a number, got 'x' (str)"),
        (lambda: Approx(True), "Approx needs a number, got True (bool)"),
        (lambda: Approx(math.nan), "Approx(nan) matches nothing"),
        (lambda: Approx(1, rel=-0.1), "invalid Approx rel=-0.1: a tolerance is a number >= 0"),
        (lambda: Approx(1, abs="1"), "invalid Approx abs='1'"),
        (lambda: OneOf(), "OneOf needs at least one value"),
    ],
)
def test_a_bad_matcher_is_refused_when_built(build: Any, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        build()


@pytest.mark.parametrize(
    ("matcher", "text"),
    [
        (ANY, "ANY"),
        (Regex("^SF"), "Regex('^SF')"),
        (Regex("sf", flags=re.I | re.M), "Regex('sf', flags=re.IGNORECASE|re.MULTILINE)"),
        (Approx(3.0), "Approx(3.0)"),
        (Approx(3, rel=0.01, abs=0.5), "Approx(3, rel=0.01, abs=0.5)"),
        (OneOf("c", 1, ANY), "OneOf('c', 1, ANY)"),
        (Contains("SF"), "Contains('SF')"),
        (Contains(Regex("x")), "Contains(Regex('x'))"),
    ],
)
def test_repr_shows_what_the_matcher_requires(matcher: Matcher, text: str) -> None:
    assert repr(matcher) == text


def test_matchers_are_immutable_values() -> None:
    regex = Regex("S.*")
    with pytest.raises(AttributeError, match="immutable"):
        regex.pattern = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError, match="immutable"):
        del regex.pattern
    assert Approx(1) == Approx(1.0)
    assert hash(Approx(1)) == hash(Approx(1.0))
    assert OneOf(True) != OneOf(1)  # JSON semantics for what they hold too
    assert Regex("a") != Regex("a", flags=re.I)
    assert OneOf("a", {"b": [1]}) == OneOf("a", {"b": [1.0]})
    assert Regex("a") != "a"
    for matcher in (ANY, Regex("s", flags=re.I), Approx(2, rel=0.1), OneOf(1, ANY), Contains("x")):
        assert pickle.loads(pickle.dumps(matcher)) == matcher
        assert copy.deepcopy(matcher) == matcher
    assert pickle.loads(pickle.dumps(ANY)) is ANY


# ---------------------------------------------------------------- in reference args

OUT_ARGS = {"city": "SFO", "unit": "c", "when": {"day": "mon", "hours": [9, 17]}, "n": 3}


def _deep_reference() -> dict[str, Any]:
    return {
        "city": Regex("S.*"),
        "unit": OneOf("c", "f"),
        "when": {"day": ANY, "hours": [Approx(9.0), Approx(17, abs=0.5)]},
        "n": 3.0,
    }


@pytest.mark.parametrize("args_mode", ARGS_MODES)
@pytest.mark.parametrize("mode", MODES)
def test_nested_matchers_match_in_every_mode(mode: str, args_mode: str) -> None:
    report = match(one_call("w", OUT_ARGS), one_call("w", _deep_reference()), mode, args_mode)
    assert report.matched, report.comment()


@pytest.mark.parametrize(
    "change",
    [
        {"city": "NYC"},
        {"unit": "k"},
        {"when": {"day": "mon", "hours": [9, 18]}},
        {"when": {"day": "mon", "hours": [9]}},  # a list of another length
        {"when": {"hours": [9, 17]}},  # ANY needs its key
        {"n": True},
    ],
)
@pytest.mark.parametrize("args_mode", ["exact", "subset", "superset"])
@pytest.mark.parametrize("mode", MODES)
def test_nested_matchers_refuse_in_every_mode(
    mode: str, args_mode: str, change: dict[str, Any]
) -> None:
    output = one_call("w", {**OUT_ARGS, **change})
    report = match(output, one_call("w", _deep_reference()), mode, args_mode)
    assert not report.matched
    assert report.problems[0].kind == "args_mismatch"


def test_ignore_args_ignores_matchers_too() -> None:
    output = one_call("w", {"city": "NYC"})
    assert match(output, one_call("w", {"city": Regex("S.*")}), "strict", "ignore").matched


def test_args_modes_with_matchers_keep_their_meaning() -> None:
    ref = one_call("w", {"city": Regex("S.*"), "unit": ANY})
    # subset: the output may leave keys out, but every key it has must match
    assert match(one_call("w", {"city": "SF"}), ref, args="subset").matched
    assert not match(one_call("w", {"city": "SF", "x": 1}), ref, args="subset").matched
    assert not match(one_call("w", {"city": "NY"}), ref, args="subset").matched
    # superset: every reference key must be there (ANY too), extra output keys are fine
    assert match(one_call("w", {"city": "SF", "unit": None, "x": 1}), ref, args="superset").matched
    assert not match(one_call("w", {"city": "SF"}), ref, args="superset").matched
    # exact: the same keys, each value matching
    assert match(one_call("w", {"city": "SF", "unit": "k"}), ref).matched
    assert not match(one_call("w", {"city": "SF", "unit": "k", "x": 1}), ref).matched


def test_matchers_inside_lists_of_dicts() -> None:
    ref = one_call("book", {"legs": [{"from": "SFO", "at": ANY}, {"from": Regex("N.*")}]})
    good = one_call("book", {"legs": [{"from": "SFO", "at": 9}, {"from": "NYC"}]})
    bad = one_call("book", {"legs": [{"from": "NYC"}, {"from": "SFO", "at": 9}]})  # order counts
    assert match(good, ref).matched
    assert not match(bad, ref).matched


def test_key_list_override_with_matchers_at_dotted_paths() -> None:
    ref = one_call("w", {"filters": {"city": Regex("S.*"), "day": "mon"}, "id": 1})
    overrides = {"w": ["filters.city"]}
    assert match(
        one_call("w", {"filters": {"city": "SFO", "day": "tue"}}), ref, overrides=overrides
    ).matched
    assert not match(one_call("w", {"filters": {"city": "NYC"}}), ref, overrides=overrides).matched
    assert not match(one_call("w", {"filters": {}}), ref, overrides=overrides).matched


def test_ignore_keys_with_matchers() -> None:
    ref = one_call("w", {"city": Regex("S.*"), "request_id": "r-1", "meta": {"ts": 1, "v": ANY}})
    output = one_call("w", {"city": "SFO", "request_id": "r-9", "meta": {"ts": 99, "v": 2}})
    assert not match(output, ref).matched
    assert match(output, ref, ignore_keys=["request_id", "meta.ts"]).matched
    override = {"w": {"ignore_keys": ["request_id", "meta.ts"]}}
    assert match(output, ref, overrides=override).matched


def test_a_callable_override_sees_the_matchers_as_given() -> None:
    seen: list[Any] = []

    def check(output: dict[str, Any], reference: dict[str, Any]) -> bool:
        seen.append(reference["city"])
        return reference["city"].matches(output["city"])

    ref = one_call("w", {"city": Regex("S.*")})
    assert match(one_call("w", {"city": "SFO"}), ref, overrides={"w": check}).matched
    assert seen == [Regex("S.*")]


def test_values_outside_matchers_compare_as_json_values() -> None:
    ref = one_call("w", {"q": ANY, "n": 1, "ok": True})
    assert match(one_call("w", {"q": "x", "n": 1.0, "ok": True}), ref).matched
    assert not match(one_call("w", {"q": "x", "n": True, "ok": True}), ref).matched
    assert not match(one_call("w", {"q": "x", "n": 1, "ok": 1}), ref).matched


@pytest.mark.parametrize("mode", ["strict", "unordered", "subset", "superset"])
@pytest.mark.parametrize("args_mode", ["exact", "subset", "superset"])
def test_an_equal_matcher_in_the_output_is_an_equal_value(mode: str, args_mode: str) -> None:
    """A matcher given as output (a reference compared with itself) matches an equal one,
    whether its tool is called once (paired by asking the rule) or more (paired by hashing)."""
    for calls in ([Regex("S.*")], [Regex("S.*"), "x"]):
        output = [user(), ai(*[("w", {"city": value}) for value in calls])]
        reference = copy.deepcopy(output)
        assert match(output, reference, mode, args_mode).matched, calls
        other = [user(), ai(*[("w", {"city": Regex("N.*")}) for _ in calls])]
        assert not match(output, other, mode, args_mode).matched, calls


def test_a_langchain_reference_can_hold_matchers() -> None:
    from langchain_core.messages import AIMessage, HumanMessage

    reference = [
        HumanMessage("Weather in SF?"),
        AIMessage("", tool_calls=[{"name": "w", "args": {"city": Regex("S.*")}, "id": "1"}]),
    ]
    assert match([user(), ai(("w", {"city": "SFO"}))], reference).matched


# ---------------------------------------------------------------- diffs and comments


def test_diffs_and_comments_show_what_a_matcher_requires() -> None:
    output = one_call("w", {"city": "NYC", "unit": "c"})
    reference = one_call("w", {"city": Regex("^SF"), "unit": OneOf("c", "f")})
    report = match(output, reference)
    comment = report.comment()
    assert comment == (
        "Trajectory does not match the reference (strict mode, exact args): message 1: tool "
        "call 'w' args differ (exact): city expected Regex('^SF'), got 'NYC'."
    )
    text = render_text(report)
    assert "       - city: Regex('^SF')\n       + city: 'NYC'" in text
    assert "ai" not in text.split("\n")[0]  # the summary line is plain
    assert "Regex('^SF')" in text.split("output vs reference")[1]  # the side-by-side view too


def test_the_evaluator_comment_names_the_matcher() -> None:
    evaluator = create_trajectory_match_evaluator(trajectory_match_mode="unordered")
    result = evaluator(
        outputs=one_call("w", {"temp": 80}), reference_outputs=one_call("w", {"temp": Approx(75)})
    )
    assert result["score"] is False
    assert result["comment"] is not None
    assert "temp expected Approx(75), got 80" in result["comment"]


def test_assert_trajectory_with_matchers() -> None:
    assert_trajectory(one_call("w", {"city": "SFO"}), one_call("w", {"city": Contains("SF")}))


# ---------------------------------------------------------------- pairing stays optimal


@pytest.mark.parametrize("mode", ["strict", "unordered", "subset", "superset"])
def test_first_fit_would_pair_the_matchers_wrongly(mode: str) -> None:
    # the first output call fits both reference calls; first fit takes the first and strands
    # the second output call
    output = [user(), ai(("w", {"city": "SFO"}), ("w", {"city": "NYC"}))]
    reference = [user(), ai(("w", {"city": OneOf("SFO", "NYC")}), ("w", {"city": Regex("S.*")}))]
    report = match(output, reference, mode)
    assert report.matched
    paired = {r.position: o.call.args["city"] for o, r in report.pairs}
    assert paired == {0: "NYC", 1: "SFO"}


def test_plain_and_matcher_reference_calls_mix() -> None:
    reference = [user(), ai(("w", {"city": ANY}), ("w", {"city": "SF"}), ("w", {"city": "SF"}))]
    output = [user(), ai(("w", {"city": "SF"}), ("w", {"city": "LA"}), ("w", {"city": "SF"}))]
    report = match(output, reference, "unordered")
    assert report.matched  # the SFs take the plain calls, LA takes ANY
    assert {o.call.args["city"]: r.position for o, r in report.pairs}["LA"] == 0
    output = [user(), ai(("w", {"city": "SF"}), ("w", {"city": "LA"}), ("w", {"city": "LA"}))]
    report = match(output, reference, "unordered")
    assert not report.matched  # two LAs, one ANY
    assert [p.kind for p in report.problems] == ["args_mismatch"]


_ACTUALS: tuple[Any, ...] = ("SF", "SFO", "NYC", 1, 1.0, True, [1, 2], {"a": 1})
_EXPECTEDS: tuple[Any, ...] = (
    "SF",
    1,
    True,
    [1, 2],
    ANY,
    ANY,
    Regex("S.*"),
    Regex("S.*"),
    OneOf("NYC", 1),
    OneOf("NYC", "SF"),
    Approx(1.0),
    Contains(2),
    Contains("F"),
    [ANY, 2],
    {"a": ANY},
)


def _json_equal(actual: Any, expected: Any) -> bool:
    if isinstance(actual, bool) or isinstance(expected, bool):
        return type(actual) is type(expected) and actual == expected
    return bool(json.loads(json.dumps(actual)) == json.loads(json.dumps(expected)))


def _ok(actual: Any, expected: Any) -> bool:
    """The oracle's value semantics: a matcher decides, containers item by item, else JSON."""
    if isinstance(expected, Matcher):
        return expected.matches(actual)
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and actual.keys() == expected.keys()
            and all(_ok(actual[k], v) for k, v in expected.items())
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(_ok(a, e) for a, e in zip(actual, expected, strict=True))
        )
    return _json_equal(actual, expected)


def _args_ok(out: dict[str, Any], ref: dict[str, Any], args_mode: str) -> bool:
    if args_mode == "ignore":
        return True
    if args_mode == "keys [city]":
        return "city" in out and "city" in ref and _ok(out["city"], ref["city"])
    if args_mode == "exact except [n]":
        out = {k: v for k, v in out.items() if k != "n"}
        ref = {k: v for k, v in ref.items() if k != "n"}
    if args_mode == "subset":
        return all(k in ref and _ok(v, ref[k]) for k, v in out.items())
    if args_mode == "superset":
        return all(k in out and _ok(out[k], v) for k, v in ref.items())
    return out.keys() == ref.keys() and all(_ok(out[k], v) for k, v in ref.items())


def _pairing_exists(
    outputs: list[tuple[str, dict[str, Any]]],
    references: list[tuple[str, dict[str, Any]]],
    mode: str,
    args_mode: str,
) -> bool:
    """Brute force: a one-to-one pairing covering what ``mode`` requires."""
    if mode == "unordered" and len(outputs) != len(references):
        return False
    small, big, out_small = (
        (outputs, references, True) if mode == "subset" else (references, outputs, False)
    )
    if len(small) > len(big):
        return False
    for chosen in itertools.permutations(range(len(big)), len(small)):
        pairs = [
            (small[a], big[b]) if out_small else (big[b], small[a]) for a, b in enumerate(chosen)
        ]
        if all(o[0] == r[0] and _args_ok(o[1], r[1], args_mode) for o, r in pairs):
            return True
    return False


# One tool and one key most of the time, and values that several matchers accept: first fit
# goes wrong often.
_names = st.sampled_from(("w", "w", "w", "x"))


def _args(values: tuple[Any, ...]) -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.fixed_dictionaries({"city": st.sampled_from(values)}),
        st.fixed_dictionaries({"city": st.sampled_from(values)}),
        st.dictionaries(st.sampled_from(("city", "n")), st.sampled_from(values), max_size=2),
    )


_out_calls = st.lists(st.tuples(_names, _args(_ACTUALS)), max_size=4)
_ref_calls = st.lists(st.tuples(_names, _args(_ACTUALS + _EXPECTEDS)), max_size=4)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    outputs=_out_calls,
    references=_ref_calls,
    mode=st.sampled_from(("unordered", "subset", "superset")),
    args_mode=st.sampled_from(("exact", "subset", "superset", "keys [city]", "exact except [n]")),
)
def test_pairing_with_matchers_is_optimal(
    outputs: list[tuple[str, dict[str, Any]]],
    references: list[tuple[str, dict[str, Any]]],
    mode: str,
    args_mode: str,
) -> None:
    rules: dict[str, Any] = {
        "keys [city]": {"overrides": {"w": ["city"], "x": ["city"]}},
        "exact except [n]": {"ignore_keys": ["n"]},
    }
    report = match(
        [user(), *(ai(call) for call in outputs)],
        [user(), *(ai(call) for call in references)],
        mode,
        args_mode if args_mode not in rules else "exact",
        **rules.get(args_mode, {}),
    )
    assert report.matched == _pairing_exists(outputs, references, mode, args_mode)
    for out, ref in report.pairs:  # and every pair it made is a valid one
        assert out.call.name == ref.call.name
        assert _args_ok(dict(out.call.args), dict(ref.call.args), args_mode)


# ---------------------------------------------------------------- ANY everywhere

_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text()),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)
_trajectory_calls = st.lists(
    st.lists(
        st.tuples(
            st.sampled_from(("search", "fetch", "w")),
            st.dictionaries(st.text(max_size=4), _json, max_size=3),
        ),
        min_size=1,
        max_size=3,
    ),
    min_size=1,
    max_size=4,
)


@st.composite
def _anywhere(draw: st.DrawFn, value: Any) -> Any:
    """``value`` with ``ANY`` in place of every leaf, or of whole containers."""
    if isinstance(value, dict) and not draw(st.booleans()):
        return {k: draw(_anywhere(v)) for k, v in value.items()}
    if isinstance(value, list) and not draw(st.booleans()):
        return [draw(_anywhere(v)) for v in value]
    return ANY


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    turns=_trajectory_calls,
    mode=st.sampled_from(MODES),
    args_mode=st.sampled_from(("exact", "subset", "superset")),
    data=st.data(),
)
def test_an_any_everywhere_reference_matches_every_output_with_the_same_tools(
    turns: list[list[tuple[str, dict[str, Any]]]], mode: str, args_mode: str, data: st.DataObject
) -> None:
    output = [user()]
    reference = [user()]
    for turn in turns:
        output.append(ai(*turn))
        reference.append(
            ai(
                *(
                    (name, {k: data.draw(_anywhere(v)) for k, v in args.items()})
                    for name, args in turn
                )
            )
        )
        output.append(tool())
        reference.append(tool())
    assert match(output, reference, mode, args_mode).matched


@pytest.mark.subprocess
def test_a_matcher_class_defined_after_evaluations_is_still_seen() -> None:
    """Before any matcher class exists no value can hold a matcher; one defined later (here a
    user's own, in a fresh interpreter where the built-in ones never loaded) is honoured."""
    code = """
import sys
from pytest_agenttraj import create_trajectory_match_evaluator

def side(value):
    return [{"role": "user", "content": "hi"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"function": {"name": "look_up", "arguments": {"city": value}}}]}]

evaluator = create_trajectory_match_evaluator(trajectory_match_mode="unordered")
assert not evaluator(outputs=side("Paris"), reference_outputs=side("Rome"))["score"]
assert "pytest_agenttraj.core.matchers" not in sys.modules

from pytest_agenttraj.core.values import Matcher

class Capital(Matcher):
    def matches(self, actual):
        return actual in ("Paris", "Rome")

assert evaluator(outputs=side("Paris"), reference_outputs=side(Capital()))["score"]
assert not evaluator(outputs=side("Lyon"), reference_outputs=side(Capital()))["score"]
print("ok")
"""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
