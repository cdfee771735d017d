"""``json_copy``: what a JSON round trip returns, made without writing text where it can be."""

from __future__ import annotations

import datetime
import enum
import json
from decimal import Decimal
from typing import Any

from hypothesis import given, strategies as st

from pytest_agenttraj.core.values import json_copy


class Colour(enum.IntEnum):
    RED = 1


class Named:
    def __str__(self) -> str:
        return "named"


ODD = st.sampled_from(
    [Decimal("1.5"), datetime.date(2026, 1, 2), Colour.RED, Named(), {1, 2}, b"raw"]
)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
KEYS = st.text() | st.integers() | st.booleans() | st.none() | st.floats(allow_nan=False)
VALUES = st.recursive(
    SCALARS | ODD,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=4).map(tuple)
        | st.dictionaries(st.text(max_size=5), inner, max_size=4)
        | st.dictionaries(KEYS, inner, max_size=3)
    ),
    max_leaves=20,
)


def round_trip(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


@given(VALUES)
def test_the_copy_is_what_the_round_trip_reads_back(value: Any) -> None:
    copied = json_copy(value)
    assert copied == round_trip(value)
    assert json.dumps(copied) == json.dumps(round_trip(value))  # types too: True is not 1


@given(st.dictionaries(st.text(max_size=5), st.lists(SCALARS, max_size=3), min_size=1))
def test_the_copy_shares_nothing_with_the_value(value: dict[str, Any]) -> None:
    copied = json_copy(value)
    for key in value:
        copied[key].append("changed")
    assert all("changed" not in items for items in value.values())


def test_a_record_of_plain_values_is_copied_as_it_is() -> None:
    record = {
        "key": "trajectory_strict_match",
        "score": True,
        "index": 0,
        "settings": {"kind": "trajectory", "ignore_keys": ("id", "meta.ts")},
        "nan": float("nan"),
    }
    copied = json_copy(record)
    assert copied["settings"]["ignore_keys"] == ["id", "meta.ts"]
    assert copied["score"] is True
    assert copied["nan"] != copied["nan"]  # NaN reads back as NaN, as from the text
