"""Tool-call argument values compared as JSON values, and the differences between two arg dicts.

``canonical`` maps any value to a hashable form in which two values are equal exactly when they
are equal as JSON values: ``1 == 1.0`` but ``True != 1``, tuples are lists, NaN equals NaN. Values
JSON cannot encode (datetime, set, Decimal, bytes, arbitrary objects) get a stable form too, so
they compare correctly and never crash.

A reference value may also hold *matchers* (``Matcher`` instances, see :mod:`..matchers`) at any
depth: ``value_matches`` compares an actual value with such an expected one, and is JSON equality
wherever the expected value holds none.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar, Literal

__all__ = [
    "MISSING",
    "ArgDiff",
    "Matcher",
    "canonical",
    "diff_args",
    "holds_matcher",
    "json_copy",
    "json_text",
    "lookup_path",
    "nesting_place",
    "path_text",
    "safe_repr",
    "same_value",
    "signature",
    "value_matches",
    "without_paths",
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


_matcher_kinds: list[type] = []
"""The subclasses of ``Matcher`` defined so far. Until one is (the built-in ones come with
``pytest_agenttraj.core.matchers``, which loads only when used), no value can hold a matcher,
and ``holds_matcher`` need not look."""


class Matcher:
    """A value in reference arguments that stands for every actual value it accepts.

    Subclasses (``ANY``, ``Regex``, ``Approx``, ``OneOf``, ``Contains``) are immutable, validated
    when built, and show what they require in their ``repr``. They are not values that hash
    alike when they match, so calls whose reference args hold one are paired by search.
    ``Matcher`` itself is abstract: only instances of subclasses match anything.
    """

    __slots__ = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _matcher_kinds.append(cls)

    spelled_key: ClassVar[str] = ""
    """The key of the matcher's spelled form in reference files (``$regex``); empty when it
    has none."""

    def matches(self, actual: Any) -> bool:
        """Whether ``actual`` (a JSON-like value from the output) is accepted."""
        raise NotImplementedError

    def spelled_parts(self) -> tuple[Any, dict[str, Any]]:
        """The argument and options of the spelled form ``{spelled_key: argument, **options}``."""
        raise ValueError(f"{type(self).__name__} has no spelled form for reference files")


_TRUE = ("b", True)
_FALSE = ("b", False)


def canonical(value: Any) -> Hashable:
    """A hashable stand-in for ``value`` under JSON equality (see the module docstring)."""
    kind = type(value)
    if kind is str or kind is int or value is None:
        return value  # type: ignore[no-any-return]
    if kind is dict:
        items: list[tuple[str, Hashable]] = []
        add = items.append
        for k, v in value.items():
            if type(k) is not str:
                return _canonical_mapping(value)
            # Strings and ints are their own stand-ins, without a call.
            add((k, v if (t := type(v)) is str or t is int else canonical(v)))
        items.sort()  # by key alone: keys are distinct, values are never compared
        return ("d", tuple(items))
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


class _SetItem:
    """The step into a set on a path (a set's items have no key or index)."""

    def __repr__(self) -> str:
        return "{...}"


SET_ITEM: Any = _SetItem()

Place = tuple[tuple[Any, ...], Literal["cycle", "depth"]]
"""Where inside a value (the keys and indices leading there) and what is wrong there."""


def nesting_place(value: Any, limit: int) -> Place | None:
    """The first place inside ``value``'s dicts, lists, tuples and sets that refers back to a
    container holding it (``"cycle"``) or lies ``limit`` levels down (``"depth"``), found
    without recursion (these are the values that comparing would recurse on forever, or past
    Python's limit); ``None`` when there is none."""
    stack: list[tuple[Any, tuple[Any, ...], frozenset[int]]] = [(value, (), frozenset())]
    while stack:
        item, path, above = stack.pop()
        if isinstance(item, Mapping):
            children: Iterable[tuple[Any, Any]] = item.items()
        elif isinstance(item, list | tuple):
            children = enumerate(item)
        elif isinstance(item, set | frozenset):
            children = ((SET_ITEM, child) for child in item)
        else:
            continue
        if id(item) in above:
            return path, "cycle"
        if len(path) >= limit:
            return path, "depth"
        inner = above | {id(item)}
        stack.extend(reversed([(child, (*path, key), inner) for key, child in children]))
    return None


def path_text(root: str, path: tuple[Any, ...], shown: int = 6) -> str:
    """``root['key'][0]``: where ``path`` leads inside the value named ``root``, its first
    ``shown`` steps and ``...`` past them."""
    steps = "".join(
        "{...}" if key is SET_ITEM else f"[{safe_repr(key, 40)}]" for key in path[:shown]
    )
    more = f"... ({len(path)} levels down)" if len(path) > shown else ""
    return f"{root}{steps}{more}"


_encode = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, check_circular=False
).encode


def signature(args: Mapping[Any, Any]) -> Hashable:
    """A cheap stand-in for an arguments dict that equal dicts always share (``canonical``
    equality implies equal signatures; the converse need not hold): how many keys it has, and
    its items whose value is a string. Calls whose signatures differ need no ``canonical`` to
    tell them apart."""
    return len(args), frozenset(
        [
            (k if type(k) is str else str(k), v if type(v) is str else str.__str__(v))
            for k, v in args.items()
            if isinstance(v, str)
        ]
    )


def json_text(value: Any) -> str | None:
    """``value`` as compact JSON text with sorted keys, or ``None`` when JSON cannot encode it.

    A cheaper, finer stand-in than ``canonical``: equal texts are equal JSON values, but equal
    values may differ in text (``1`` and ``1.0``), so it may only decide that values are equal.
    """
    try:
        return _encode(value)
    except (TypeError, ValueError, RecursionError):
        return None


_JSON_SCALARS = frozenset({str, int, float, bool, type(None)})


class _NotPlain(Exception):
    """A value a JSON round trip would change otherwise than a copy (an object it writes as
    text, a subclass of a builtin, a key that is not text)."""


def json_copy(value: Any) -> Any:
    """What ``json.loads(json.dumps(value, default=str))`` returns, built by copying when
    ``value`` holds only dicts with text keys, lists, tuples (which become lists) and JSON
    scalars, exactly those types, and by the round trip otherwise. A result recorded in one
    process equals the one sent from another, at a fraction of the cost."""
    try:
        return _plain_copy(value)
    except (_NotPlain, RecursionError):
        return json.loads(json.dumps(value, default=str))


def _plain_copy(value: Any) -> Any:
    kind = type(value)
    if kind in _JSON_SCALARS:
        return value
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotPlain
            out[key] = _plain_copy(item)
        return out
    if kind is list or kind is tuple:
        return [_plain_copy(item) for item in value]
    raise _NotPlain


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
        elif not value_matches(act, exp):
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


def holds_matcher(value: Any) -> bool:
    """Whether ``value`` is a matcher or holds one anywhere inside its dicts and lists (each
    container looked into once, so a value that holds itself ends the walk)."""
    if not _matcher_kinds:
        return False
    stack = [value]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is int or kind is float or kind is bool or item is None:
            continue
        if isinstance(item, Matcher):
            return True
        if id(item) in seen:
            continue
        if isinstance(item, Mapping):
            seen.add(id(item))
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            seen.add(id(item))
            stack.extend(item)
    return False


def value_matches(actual: Any, expected: Any) -> bool:
    """Whether ``actual`` matches ``expected``: a matcher decides for itself, dicts and lists
    match item by item, anything else compares as a JSON value (as ``canonical`` does)."""
    kind = type(expected)
    if kind is str or kind is int or kind is float or kind is bool or expected is None:
        return actual is expected or canonical(actual) == canonical(expected)
    if kind is dict:
        return _dict_matches(actual, expected)
    if kind is list or kind is tuple:
        return _list_matches(actual, expected)
    if isinstance(expected, Matcher):
        # an equal matcher on the output side is an equal value, as ``canonical`` says
        return expected.matches(actual) or (type(actual) is type(expected) and actual == expected)
    if isinstance(expected, Mapping | list | tuple) and holds_matcher(expected):
        if isinstance(expected, Mapping):
            return _dict_matches(actual, expected)
        return _list_matches(actual, expected)
    return actual is expected or canonical(actual) == canonical(expected)


def _dict_matches(actual: Any, expected: Mapping[Any, Any]) -> bool:
    if (type(actual) is not dict and not isinstance(actual, Mapping)) or len(actual) != len(
        expected
    ):
        return False
    for key, exp in expected.items():
        if key not in actual:
            return _keys_as_text_match(actual, expected)
        if not value_matches(actual[key], exp):
            return False
    return True


def _keys_as_text_match(actual: Mapping[Any, Any], expected: Mapping[Any, Any]) -> bool:
    """Dicts whose keys differ as Python values but may agree as JSON text (``1`` and ``"1"``)."""
    if all(type(k) is str for k in actual) and all(type(k) is str for k in expected):
        return False
    act = {str(k): v for k, v in actual.items()}
    exp = {str(k): v for k, v in expected.items()}
    return len(act) == len(actual) and len(exp) == len(expected) and _dict_matches(act, exp)


def _list_matches(actual: Any, expected: list[Any] | tuple[Any, ...]) -> bool:
    kind = type(actual)
    if (kind is not list and kind is not tuple and not isinstance(actual, list | tuple)) or len(
        actual
    ) != len(expected):
        return False
    return all(value_matches(a, e) for a, e in zip(actual, expected, strict=True))


def without_paths(args: Mapping[str, Any], paths: tuple[str, ...]) -> Mapping[str, Any]:
    """``args`` without the values at the dotted ``paths`` (``"meta.ts"`` reaches into nested
    dicts); the same object when none of them is present, copies only along removed paths."""
    result: Mapping[str, Any] = args
    for path in paths:
        result = _without(result, path.split("."))
    return result


def _without(value: Mapping[str, Any], parts: list[str]) -> Mapping[str, Any]:
    head = parts[0]
    if head not in value:
        return value
    if len(parts) == 1:
        return {k: v for k, v in value.items() if k != head}
    inner = value[head]
    if not isinstance(inner, Mapping):
        return value
    stripped = _without(inner, parts[1:])
    if stripped is inner:
        return value
    return {**value, head: stripped}
