"""Value matchers for reference arguments: ``ANY``, ``Regex``, ``Approx``, ``OneOf``, ``Contains``.

A matcher stands in a reference's tool-call arguments wherever the exact value cannot be
predicted (a generated query, an id, ``75`` vs ``75.000001``), at any depth inside dicts and
lists, and in every trajectory mode, args mode and override. Each is validated when built (a bad
one raises ``ValueError`` saying what is wrong), immutable, and shows what it requires in its
``repr``, which is how diffs show it: ``Regex('^SF')``.

Example::

    >>> from pytest_agenttraj import ANY, Approx, Contains, OneOf, Regex
    >>> Regex("SF.*").matches("SFO"), Regex("SF").matches("SFO")  # a full match
    (True, False)
    >>> Approx(75).matches(75.00001), Approx(75, abs=0.5).matches(75.4), Approx(1).matches(True)
    (True, True, False)
    >>> OneOf("c", "f").matches("f"), Contains("SF").matches("to SFO"), ANY.matches(None)
    (True, True, True)
    >>> Regex("^SF")
    Regex('^SF')
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Hashable
from typing import Any, ClassVar

from .regex import UnsupportedPattern, compile_linear
from .values import Matcher, canonical, safe_repr, value_matches

__all__ = ["ANY", "Approx", "Contains", "Matcher", "OneOf", "Regex", "regex_flags"]


class _Frozen(Matcher):
    """Equality by kind and fields (compared as JSON values), no attribute changes."""

    __slots__ = ()

    def _fields(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def _identity(self) -> Hashable:
        return (type(self).__name__, canonical(list(self._fields())))

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, _Frozen)
        return self._identity() == other._identity()

    def __hash__(self) -> int:
        return hash(self._identity())

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __reduce__(self) -> str | tuple[Any, ...]:
        return type(self), self._fields()


class _Any(_Frozen):
    """Any value at all; in a dict, the key must still be present."""

    __slots__ = ()
    spelled_key = "$any"
    _instance: ClassVar[_Any | None] = None

    def __new__(cls) -> _Any:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def _fields(self) -> tuple[Any, ...]:
        return ()

    def matches(self, actual: Any) -> bool:  # noqa: ARG002  # ANY accepts every value
        return True

    def __repr__(self) -> str:
        return "ANY"

    def __reduce__(self) -> str:
        return "ANY"  # the module attribute: unpickling gives the one instance back

    def spelled_parts(self) -> tuple[Any, dict[str, Any]]:
        return True, {}


ANY = _Any()
"""Matches any value (the key must be present)."""

_FLAG_LETTERS: tuple[tuple[re.RegexFlag, str], ...] = (
    (re.ASCII, "a"),
    (re.IGNORECASE, "i"),
    (re.MULTILINE, "m"),
    (re.DOTALL, "s"),
    (re.UNICODE, "u"),
    (re.VERBOSE, "x"),
)
_KNOWN_FLAGS = 0
for _flag, _ in _FLAG_LETTERS:
    _KNOWN_FLAGS |= _flag


def regex_flags(flags: int) -> str:
    """``flags`` as letters (``"im"``), as a spelled ``Regex`` writes them."""
    return "".join(letter for flag, letter in _FLAG_LETTERS if flags & flag)


def _flag_names(flags: int) -> str:
    return "|".join(f"re.{flag.name}" for flag, _ in _FLAG_LETTERS if flags & flag)


class Regex(_Frozen):
    """A string that the regular expression ``pattern`` matches in full (as ``re.fullmatch``
    decides it), decided in time linear in the string's length, whatever the pattern.

    ``flags`` are ``re`` flags (``re.IGNORECASE`` ...). The pattern is Python's syntax, less what
    needs backtracking (backreferences, lookaround, conditional and atomic groups, possessive
    repeats, repeat counts above 1,000, ``\\b`` without ``re.ASCII``): see
    :mod:`pytest_agenttraj.core.regex`. A bad or unsupported pattern raises ``ValueError``.
    """

    __slots__ = ("_fullmatch", "flags", "pattern")
    spelled_key = "$regex"
    pattern: str
    flags: int
    _fullmatch: Callable[[str], bool]

    def __init__(self, pattern: str, flags: int = 0) -> None:
        if not isinstance(pattern, str):
            raise ValueError(f"Regex needs a pattern string, got {safe_repr(pattern, 80)}")
        if isinstance(flags, bool) or not isinstance(flags, int) or flags & ~_KNOWN_FLAGS:
            raise ValueError(
                f"invalid Regex flags {safe_repr(flags, 80)}: use re.IGNORECASE, re.MULTILINE, "
                "re.DOTALL, re.VERBOSE, re.ASCII or re.UNICODE, combined with |"
            )
        try:
            fullmatch = compile_linear(pattern, flags)
        except re.error as error:
            raise ValueError(f"invalid Regex {pattern!r}: {error}") from None
        except UnsupportedPattern as error:
            raise ValueError(
                f"invalid Regex {pattern!r}: {error} (a Regex is matched in linear time, "
                "without backtracking)"
            ) from None
        object.__setattr__(self, "pattern", pattern)
        object.__setattr__(self, "flags", int(flags))
        object.__setattr__(self, "_fullmatch", fullmatch)

    def _fields(self) -> tuple[Any, ...]:
        return (self.pattern, self.flags)

    def matches(self, actual: Any) -> bool:
        return isinstance(actual, str) and self._fullmatch(actual)

    def __repr__(self) -> str:
        if self.flags:
            return f"Regex({self.pattern!r}, flags={_flag_names(self.flags)})"
        return f"Regex({self.pattern!r})"

    def spelled_parts(self) -> tuple[Any, dict[str, Any]]:
        return self.pattern, ({"flags": regex_flags(self.flags)} if self.flags else {})


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _tolerance(value: Any, name: str) -> float | None:
    if value is None:
        return None
    if not _is_number(value) or math.isnan(value) or value < 0:
        raise ValueError(f"invalid Approx {name}={value!r}: a tolerance is a number >= 0 (or None)")
    return value  # type: ignore[no-any-return]


class Approx(_Frozen):
    """A number within a tolerance of ``value``, as ``pytest.approx`` decides it: relative
    ``rel`` (default 1e-6) or absolute ``abs`` (default 1e-12), whichever is larger; only
    ``abs`` when ``abs`` alone is given. Booleans are not numbers here (JSON: ``true`` is not
    ``1``); infinity matches only itself; NaN is refused."""

    __slots__ = ("abs", "rel", "value")
    spelled_key = "$approx"
    value: float
    rel: float | None
    abs: float | None

    DEFAULT_REL: ClassVar[float] = 1e-6
    DEFAULT_ABS: ClassVar[float] = 1e-12

    def __init__(self, value: float, rel: float | None = None, abs: float | None = None) -> None:
        if not _is_number(value):
            raise ValueError(f"Approx needs a number, got {value!r} ({type(value).__name__})")
        if math.isnan(value):
            raise ValueError("Approx(nan) matches nothing: NaN is not close to any number")
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "rel", _tolerance(rel, "rel"))
        object.__setattr__(self, "abs", _tolerance(abs, "abs"))

    def _fields(self) -> tuple[Any, ...]:
        return (self.value, self.rel, self.abs)

    @property
    def tolerance(self) -> float:
        """The largest difference accepted."""
        absolute = self.abs if self.abs is not None else self.DEFAULT_ABS
        if self.rel is None and self.abs is not None:
            return absolute
        rel = self.rel if self.rel is not None else self.DEFAULT_REL
        return max(rel * abs(self.value), absolute)

    def matches(self, actual: Any) -> bool:
        if not _is_number(actual):
            return False
        if actual == self.value:
            return True
        if math.isinf(self.value) or math.isnan(actual):
            return False
        return bool(abs(self.value - actual) <= self.tolerance)

    def __repr__(self) -> str:
        options = "".join(
            f", {name}={value!r}"
            for name, value in (("rel", self.rel), ("abs", self.abs))
            if value is not None
        )
        return f"Approx({self.value!r}{options})"

    def spelled_parts(self) -> tuple[Any, dict[str, Any]]:
        options = {name: v for name, v in (("rel", self.rel), ("abs", self.abs)) if v is not None}
        return self.value, options


class OneOf(_Frozen):
    """Any one of ``values`` (each compared as a JSON value, or itself a matcher)."""

    __slots__ = ("values",)
    spelled_key = "$one_of"
    values: tuple[Any, ...]

    def __init__(self, *values: Any) -> None:
        if not values:
            raise ValueError("OneOf needs at least one value")
        object.__setattr__(self, "values", values)

    def _fields(self) -> tuple[Any, ...]:
        return self.values

    def matches(self, actual: Any) -> bool:
        return any(value_matches(actual, value) for value in self.values)

    def __repr__(self) -> str:
        return f"OneOf({', '.join(map(repr, self.values))})"

    def spelled_parts(self) -> tuple[Any, dict[str, Any]]:
        return list(self.values), {}


class Contains(_Frozen):
    """A string holding the substring ``sub``, or a list with an element that matches ``sub``
    (a JSON value, or itself a matcher)."""

    __slots__ = ("sub",)
    spelled_key = "$contains"
    sub: Any

    def __init__(self, sub: Any) -> None:
        object.__setattr__(self, "sub", sub)

    def _fields(self) -> tuple[Any, ...]:
        return (self.sub,)

    def matches(self, actual: Any) -> bool:
        if isinstance(actual, str):
            return isinstance(self.sub, str) and self.sub in actual
        if isinstance(actual, list | tuple):
            return any(value_matches(item, self.sub) for item in actual)
        return False

    def __repr__(self) -> str:
        return f"Contains({self.sub!r})"

    def spelled_parts(self) -> tuple[Any, dict[str, Any]]:
        return self.sub, {}
