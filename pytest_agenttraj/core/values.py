"""Tool-call argument values compared as JSON values, and the differences between two arg dicts.

``canonical`` maps any value to a hashable form in which two values are equal exactly when they
are equal as JSON values: ``1 == 1.0`` but ``True != 1``, tuples are lists, NaN equals NaN. Values
JSON cannot encode (datetime, set, Decimal, bytes, arbitrary objects) get a stable form too, so
they compare correctly and never crash.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

__all__ = [
    "MISSING",
    "ArgDiff",
    "canonical",
    "diff_args",
    "json_text",
    "safe_repr",
    "same_value",
]


class _Missing:
    """Marks a value that is absent (a key not present), distinct from ``None``."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<missing>"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()

_NAN = ("nan",)


_STR = frozenset({str})  # set(map(type, keys)) <= _STR: every key exactly a str
_TRUE = ("b", True)
_FALSE = ("b", False)


def canonical(value: Any) -> Hashable:
    """A hashable stand-in for ``value`` under JSON equality (see the module docstring)."""
    kind = type(value)
    if kind is str or kind is int or value is None:
        return value  # type: ignore[no-any-return]
    if kind is dict:
        if set(map(type, value)) <= _STR:
            # Plain string keys (every JSON object): sorting the keys alone is enough. Strings
            # and ints are their own stand-ins, without a call.
            return (
                "d",
                tuple(
                    [
                        (k, v if (t := type(v)) is str or t is int else canonical(v))
                        for k, v in sorted(value.items())
                    ]
                ),
            )
        return _canonical_mapping(value)
    if kind is list or kind is tuple:
        return (
            "l",
            tuple([v if (t := type(v)) is str or t is int else canonical(v) for v in value]),
        )
    if kind is bool:
        return _TRUE if value else _FALSE
    if kind is float:
        return _NAN if value != value else value
    if isinstance(value, Mapping):
        return _canonical_mapping(value)
    if isinstance(value, list | tuple):
        return ("l", tuple([canonical(v) for v in value]))
    return _canonical_other(value)


def safe_repr(value: Any, width: int | None = None) -> str:
    """``repr(value)``, cut to ``width`` characters, and never an error: these texts explain
    failures, and a caller's value may have a ``__repr__`` that raises, be nested past the
    recursion limit, or be an int too long to print."""
    try:
        text = repr(value)
    except Exception:  # any failure of the caller's __repr__ (or of int's digit limit)
        if isinstance(value, int):
            text = f"<int of {value.bit_length()} bits>"
        else:
            text = f"<unprintable {type(value).__name__}>"
    if width is not None and len(text) > width:
        text = text[: max(0, width - 3)] + "..."
    return text


_encode = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, check_circular=False
).encode


def json_text(value: Any) -> str | None:
    """``value`` as compact JSON text with sorted keys, or ``None`` when JSON cannot encode it.

    A cheaper, finer stand-in than ``canonical``: equal texts are equal JSON values, but equal
    values may differ in text (``1`` and ``1.0``), so it may only decide that values are equal.
    """
    try:
        return _encode(value)
    except (TypeError, ValueError, RecursionError):
        return None


def same_value(one: Any, other: Any) -> bool:
    """Whether two values are equal as JSON values; strings compare directly."""
    if one is other:
        return True
    if type(one) is str and type(other) is str:
        return bool(one == other)
    return canonical(one) == canonical(other)


def _canonical_mapping(value: Mapping[Any, Any]) -> Hashable:
    items = sorted(value.items(), key=_key_order)
    return ("d", tuple([(str(k), canonical(v)) for k, v in items]))


def _key_order(item: tuple[Any, Any]) -> tuple[str, str]:
    """Sort key of a dict item: its key as JSON text, then the key's type.

    Never compares values, which may not be orderable: ``{1: "a", "1": None}`` has two keys
    that JSON writes the same way.
    """
    key = item[0]
    return str(key), type(key).__qualname__


def _canonical_other(value: Any) -> Hashable:
    if isinstance(value, bool):
        return ("b", bool(value))
    if isinstance(value, int | float):
        number = float(value) if isinstance(value, float) else int(value)
        return _NAN if number != number else number
    if isinstance(value, Decimal):
        return _NAN if value.is_nan() else value
    if isinstance(value, str):
        return str.__str__(value)  # a str Enum's text is its value, as JSON writes it
    if isinstance(value, set | frozenset):
        return ("s", frozenset(canonical(v) for v in value))
    if isinstance(value, bytes | bytearray):
        return ("y", bytes(value))
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        # A model that cannot dump itself compares by its repr below.
        with contextlib.suppress(Exception):
            return ("m", type(value).__qualname__, canonical(dump()))
    try:
        hash(value)
    except TypeError:
        return ("r", type(value).__qualname__, repr(value))
    return ("o", value)


@dataclass(frozen=True, slots=True)
class ArgDiff:
    """One difference between an output call's args and the reference's, at a dotted key path.

    ``expected`` is the reference's value and ``actual`` the output's; either is ``MISSING``
    when the key is absent on that side.
    """

    path: str
    kind: Literal["missing", "unexpected", "changed"]
    expected: Any = MISSING
    actual: Any = MISSING


def diff_args(
    actual: Mapping[str, Any],
    expected: Mapping[str, Any],
    *,
    missing: bool = True,
    unexpected: bool = True,
    prefix: str = "",
) -> list[ArgDiff]:
    """Every difference between two arg dicts, nested dicts reported by dotted path.

    ``missing=False`` ignores keys only the reference has (the output may leave them out: subset
    args); ``unexpected=False`` ignores keys only the output has (superset args).
    """
    diffs: list[ArgDiff] = []
    for key, exp in expected.items():
        path = f"{prefix}{key}"
        if key not in actual:
            if missing:
                diffs.append(ArgDiff(path, "missing", expected=exp))
            continue
        act = actual[key]
        if isinstance(exp, Mapping) and isinstance(act, Mapping):
            # Below the top level values compare whole, so every difference counts.
            diffs.extend(diff_args(act, exp, prefix=f"{path}."))
        elif not same_value(act, exp):
            diffs.append(ArgDiff(path, "changed", expected=exp, actual=act))
    if unexpected:
        for key, act in actual.items():
            if key not in expected:
                diffs.append(ArgDiff(f"{prefix}{key}", "unexpected", actual=act))
    return diffs


def lookup_path(args: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path inside nested dicts, or ``MISSING``."""
    current: Any = args
    for part in path.split("."):
        if not isinstance(current, Mapping) or part not in current:
            return MISSING
        current = current[part]
    return current
