"""Matchers spelled as reference files write them (``{"$regex": "^SF"}``): reading, writing,
round trips through YAML and JSON text, errors that name the path, and what
``--trajectory-update`` keeps."""

from __future__ import annotations

import json
import re
import string
from typing import Any

import pytest
import yaml
from hypothesis import given, strategies as st

from pytest_agenttraj import ANY, Approx, Contains, InvalidMatcherError, OneOf, Regex
from pytest_agenttraj.core.spelled import (
    keep_matching_matchers,
    matchers_from_spelled,
    matchers_to_spelled,
    messages_from_spelled,
    messages_to_spelled,
)

SPELLED: list[tuple[Any, Any]] = [
    ({"$any": True}, ANY),
    ({"$regex": "^SF"}, Regex("^SF")),
    ({"$regex": "^sf", "flags": "im"}, Regex("^sf", flags=re.IGNORECASE | re.MULTILINE)),
    ({"$approx": 3.0}, Approx(3.0)),
    ({"$approx": 3.0, "rel": 0.01}, Approx(3.0, rel=0.01)),
    ({"$approx": 3, "abs": 0.5, "rel": 0.1}, Approx(3, rel=0.1, abs=0.5)),
    ({"$one_of": ["c", "f"]}, OneOf("c", "f")),
    ({"$one_of": [{"$regex": "S.*"}, None]}, OneOf(Regex("S.*"), None)),
    ({"$contains": "SF"}, Contains("SF")),
    ({"$contains": {"id": {"$any": True}}}, Contains({"id": ANY})),
]


@pytest.mark.parametrize(("spelled", "matcher"), SPELLED, ids=lambda v: repr(v)[:40])
def test_each_spelled_form_reads_and_writes(spelled: Any, matcher: Any) -> None:
    assert matchers_from_spelled(spelled) == matcher
    assert matchers_to_spelled(matcher) == spelled


def test_other_spellings_of_regex_flags() -> None:
    assert matchers_from_spelled({"$regex": "a", "flags": ["IGNORECASE", "s"]}) == Regex(
        "a", flags=re.IGNORECASE | re.DOTALL
    )
    assert matchers_from_spelled({"$regex": "a", "flags": int(re.I)}) == Regex("a", flags=re.I)


def test_matchers_at_any_depth_in_a_document() -> None:
    document = {
        "city": {"$regex": "S.*"},
        "legs": [{"from": "SFO", "at": {"$any": True}}, [1, {"$approx": 2}]],
        "plain": {"a": [1, "b"]},
    }
    read = matchers_from_spelled(document)
    assert read == {
        "city": Regex("S.*"),
        "legs": [{"from": "SFO", "at": ANY}, [1, Approx(2)]],
        "plain": {"a": [1, "b"]},
    }
    assert read["plain"] is document["plain"]  # values without matchers are not copied
    assert matchers_to_spelled(read) == document


def test_literal_keeps_data_whose_keys_start_with_a_dollar() -> None:
    spelled = {"filter": {"$literal": {"$gt": 5}}}
    assert matchers_from_spelled(spelled) == {"filter": {"$gt": 5}}
    assert matchers_to_spelled({"filter": {"$gt": 5}}) == spelled  # written back wrapped


SAMPLE = {
    "city": Regex("^S", flags=re.I),
    "temp": Approx(75.0, abs=0.5),
    "unit": OneOf("c", "f", None),
    "tags": Contains("beta"),
    "id": ANY,
    "nested": {"deep": [OneOf(1, Contains(2)), "x"], "$weird": False},
}


@pytest.mark.parametrize(
    "dump",
    [
        pytest.param(lambda v: yaml.safe_dump(v, sort_keys=True), id="yaml"),
        pytest.param(lambda v: json.dumps(v, sort_keys=True), id="json"),
    ],
)
def test_round_trip_through_file_text(dump: Any) -> None:
    wrapped = {**SAMPLE, "nested": {"deep": SAMPLE["nested"]["deep"], "$weird": False}}
    with pytest.raises(ValueError, match="cannot hold matchers"):
        matchers_to_spelled(wrapped)  # a $-keyed mapping cannot wrap matchers in $literal
    value = {**SAMPLE, "nested": {"deep": SAMPLE["nested"]["deep"]}, "raw": {"$weird": False}}
    text = dump(matchers_to_spelled(value))
    assert matchers_from_spelled(yaml.safe_load(text)) == value


_text = st.text(alphabet=string.ascii_letters + string.digits + " _-.é", max_size=5)
_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    _text,
    st.just(ANY),
    st.builds(Regex, st.sampled_from(["a.*", "^x$", r"\d+"]), st.sampled_from([0, re.I])),
    st.builds(Approx, st.floats(-100, 100), st.one_of(st.none(), st.floats(0, 1))),
    st.builds(Contains, _text),
)
_values = st.recursive(
    _leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(_text, inner, max_size=3),
        st.builds(lambda vs: OneOf(*vs), st.lists(inner, min_size=1, max_size=3)),
    ),
    max_leaves=10,
)


@given(_values)
def test_any_value_survives_spelling_and_yaml(value: Any) -> None:
    spelled = matchers_to_spelled(value)
    text = yaml.safe_dump(spelled, sort_keys=True, allow_unicode=True)
    assert matchers_from_spelled(yaml.safe_load(text)) == value


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"$regex": "("}, "tool_calls[0].args.city: invalid Regex '(': missing )"),
        ({"$approx": "x"}, "tool_calls[0].args.city: Approx needs a number, got 'x' (str)"),
        ({"$approx": 1, "rel": -1}, "tool_calls[0].args.city: invalid Approx rel=-1"),
        ({"$any": False}, "tool_calls[0].args.city: $any takes true, got False"),
        ({"$one_of": []}, "tool_calls[0].args.city: $one_of takes a non-empty list"),
        ({"$one_of": "ab"}, "tool_calls[0].args.city: $one_of takes a non-empty list"),
        ({"$regx": "a"}, "tool_calls[0].args.city: unknown matcher '$regx'; expected one of"),
        ({"$regex": "a", "flag": "i"}, "$regex got unknown option(s) flag (allowed: flags)"),
        ({"$regex": "a", "flags": "q"}, "unknown Regex flag 'q'"),
        ({"$any": True, "$regex": "a"}, "one matcher per value, got '$any', '$regex'"),
        ({"$one_of": [{"$regex": "["}]}, "tool_calls[0].args.city.$one_of[0]: invalid Regex"),
    ],
)
def test_an_invalid_spelling_names_its_path(document: Any, message: str) -> None:
    with pytest.raises(InvalidMatcherError, match=re.escape(message)) as info:
        matchers_from_spelled({"city": document}, path="tool_calls[0].args")
    assert isinstance(info.value, ValueError)
    assert info.value.path.startswith("tool_calls[0].args.city")


def test_messages_from_spelled_names_the_message_and_the_path() -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "tool_calls": [{"name": "w", "args": {"city": {"$any": True}}}]},
        {"role": "assistant", "tool_calls": [{"name": "w", "args": {"q": {"$regex": "("}}}]},
    ]
    with pytest.raises(InvalidMatcherError) as info:
        messages_from_spelled(messages)
    assert (info.value.index, info.value.path) == (2, "tool_calls[0].args.q")
    assert str(info.value).startswith("message 2, tool_calls[0].args.q: invalid Regex '('")
    read = messages_from_spelled(messages[:2])
    assert read[0] is messages[0]
    assert read[1]["tool_calls"][0]["args"] == {"city": ANY}
    assert messages[1]["tool_calls"][0]["args"] == {"city": {"$any": True}}  # not changed
    function_form = [
        {
            "role": "assistant",
            "tool_calls": [{"function": {"name": "w", "arguments": {"n": {"$approx": 1}}}}],
        }
    ]
    assert messages_from_spelled(function_form)[0]["tool_calls"][0]["function"]["arguments"] == {
        "n": Approx(1)
    }


def test_update_keeps_the_matchers_that_still_match() -> None:
    reference = {
        "city": Regex("S.*"),
        "temp": Approx(75, abs=1),
        "when": {"day": ANY, "hours": [OneOf(9, 10), 17]},
        "gone": ANY,
    }
    actual = {"city": "NYC", "temp": 75.4, "when": {"day": "tue", "hours": [10, 18]}, "new": 1}
    assert keep_matching_matchers(reference, actual) == {
        "city": "NYC",  # no longer matches: the new value
        "temp": Approx(75, abs=1),  # still matches: kept as it was
        "when": {"day": ANY, "hours": [OneOf(9, 10), 18]},
        "new": 1,  # keys only the new value has are written; "gone" is not
    }
    assert keep_matching_matchers({"xs": [ANY, ANY]}, {"xs": [1, 2, 3]}) == {"xs": [1, 2, 3]}
    assert keep_matching_matchers({"a": 1}, {"a": 2}) == {"a": 2}


def test_messages_to_spelled_is_the_inverse_of_messages_from_spelled() -> None:
    spelled = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "tool_calls": [
                {"name": "w", "args": {"city": {"$regex": "S.*", "flags": "i"}, "n": 1}},
                {"function": {"name": "v", "arguments": {"q": {"$literal": {"$gt": 5}}}}},
            ],
        },
    ]
    read = messages_from_spelled(spelled)
    assert read[1]["tool_calls"][0]["args"] == {"city": Regex("S.*", flags=re.I), "n": 1}
    assert read[1]["tool_calls"][1]["function"]["arguments"] == {"q": {"$gt": 5}}
    written = messages_to_spelled(read)
    assert written == spelled
    assert json.loads(json.dumps(written)) == spelled  # plain JSON values, nothing left over
    assert written[0] is read[0]  # a message without tool calls is passed through
