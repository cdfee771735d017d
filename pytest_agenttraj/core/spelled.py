"""Matchers as reference files spell them, and back: pure functions over plain document values.

In YAML and JSON a matcher is a one-key mapping (plus its options)::

    {"$any": true}                      ANY
    {"$regex": "^SF", "flags": "i"}     Regex("^SF", flags=re.IGNORECASE)  (flags: a i m s u x)
    {"$approx": 3.0, "rel": 0.01}       Approx(3.0, rel=0.01)              (and/or "abs")
    {"$one_of": ["c", "f"]}             OneOf("c", "f")
    {"$contains": "SF"}                 Contains("SF")
    {"$literal": {"$gt": 5}}            the mapping {"$gt": 5} as data

``matchers_from_spelled`` reads them (an invalid one raises ``InvalidMatcherError``, a
``ValueError`` naming its dotted path, e.g. ``tool_calls[0].args.city``);
``matchers_to_spelled`` writes them; ``messages_from_spelled`` and ``messages_to_spelled`` do both
for the tool calls of reference messages; ``keep_matching_matchers`` says what
``--trajectory-update`` should write for a reference value holding matchers, given the agent's
new value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import InvalidMatcherError
from .matchers import ANY, Approx, Contains, OneOf, Regex
from .values import Matcher, holds_matcher, value_matches

__all__ = [
    "MATCHER_KEYS",
    "keep_matching_matchers",
    "matchers_from_spelled",
    "matchers_to_spelled",
    "messages_from_spelled",
    "messages_to_spelled",
]

_OPTIONS: dict[str, tuple[str, ...]] = {
    "$any": (),
    "$regex": ("flags",),
    "$approx": ("rel", "abs"),
    "$one_of": (),
    "$contains": (),
    "$literal": (),
}
MATCHER_KEYS: tuple[str, ...] = tuple(_OPTIONS)
"""The keys that make a mapping a spelled matcher."""

_LETTERS = {
    "a": re.ASCII,
    "i": re.IGNORECASE,
    "m": re.MULTILINE,
    "s": re.DOTALL,
    "u": re.UNICODE,
    "x": re.VERBOSE,
}


def _join(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


def _is_spelled(value: Mapping[Any, Any]) -> bool:
    return any(isinstance(k, str) and k.startswith("$") for k in value)


def matchers_from_spelled(value: Any, *, path: str = "") -> Any:
    """``value`` (plain dicts, lists, scalars, as YAML or JSON give them) with every spelled
    matcher turned into a matcher object; other values are returned as they are (dicts and lists
    holding matchers are copied).

    ``path`` names where ``value`` sits (``tool_calls[0].args``); errors extend it to the
    offending value and raise ``InvalidMatcherError``.
    """
    if isinstance(value, Mapping):
        if _is_spelled(value):
            return _matcher(value, path)
        items = {k: matchers_from_spelled(v, path=_join(path, k)) for k, v in value.items()}
        same = all(items[k] is v for k, v in value.items())
        return value if same else items
    if isinstance(value, list):
        converted = [matchers_from_spelled(v, path=f"{path}[{i}]") for i, v in enumerate(value)]
        return value if all(a is b for a, b in zip(converted, value, strict=True)) else converted
    return value


def _fail(path: str, problem: str) -> InvalidMatcherError:
    return InvalidMatcherError(f"{path}: {problem}" if path else problem, path=path)


def _matcher(value: Mapping[Any, Any], path: str) -> Any:
    keys = [k for k in value if isinstance(k, str) and k.startswith("$")]
    if len(keys) > 1:
        raise _fail(path, f"one matcher per value, got {', '.join(map(repr, keys))}")
    key = keys[0]
    if key not in _OPTIONS:
        raise _fail(
            path,
            f"unknown matcher {key!r}; expected one of {', '.join(MATCHER_KEYS)} (write "
            "{'$literal': ...} for data whose keys start with '$')",
        )
    extra = sorted(str(k) for k in value if k != key and k not in _OPTIONS[key])
    if extra:
        allowed = ", ".join(_OPTIONS[key]) or "none"
        raise _fail(path, f"{key} got unknown option(s) {', '.join(extra)} (allowed: {allowed})")
    argument = value[key]
    try:
        return _build(key, argument, value, path)
    except InvalidMatcherError:
        raise
    except ValueError as error:
        raise _fail(path, str(error)) from None


def _build(key: str, argument: Any, value: Mapping[Any, Any], path: str) -> Any:
    if key == "$any":
        if argument is not True:
            raise ValueError(f"$any takes true, got {argument!r}")
        return ANY
    if key == "$regex":
        return Regex(argument, flags=_flags(value.get("flags", 0)))
    if key == "$approx":
        return Approx(argument, rel=value.get("rel"), abs=value.get("abs"))
    if key == "$one_of":
        if not isinstance(argument, list) or not argument:
            raise ValueError(f"$one_of takes a non-empty list of values, got {argument!r}")
        return OneOf(
            *(matchers_from_spelled(v, path=f"{path}.$one_of[{i}]") for i, v in enumerate(argument))
        )
    if key == "$contains":
        return Contains(matchers_from_spelled(argument, path=f"{path}.$contains"))
    return argument  # $literal: the value as data


def _flags(raw: Any) -> int:
    """Regex flags spelled as letters (``"im"``), a list of names (``[IGNORECASE]``) or a number."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    names: Sequence[Any] = list(raw) if isinstance(raw, str) else raw
    if not isinstance(names, list):
        raise ValueError(f"invalid Regex flags {raw!r}: letters such as 'im' or a list of names")
    flags = 0
    for name in names:
        flag = _LETTERS.get(name) if isinstance(name, str) and len(name) == 1 else None
        if flag is None and isinstance(name, str):
            flag = getattr(re.RegexFlag, name.upper(), None)
        if not isinstance(flag, re.RegexFlag):
            raise ValueError(
                f"unknown Regex flag {name!r}: use letters a, i, m, s, u, x or names such as "
                "IGNORECASE"
            )
        flags |= flag
    return flags


def matchers_to_spelled(value: Any) -> Any:
    """``value`` with every matcher written in its spelled form (the inverse of
    ``matchers_from_spelled``); a plain mapping whose keys start with ``$`` is wrapped in
    ``$literal`` so that it reads back as data."""
    if isinstance(value, Matcher):
        argument, options = value.spelled_parts()
        return {value.spelled_key: matchers_to_spelled(argument), **options}
    if isinstance(value, Mapping):
        if _is_spelled(value):
            if holds_matcher(value):
                raise ValueError(
                    "a mapping whose keys start with '$' cannot hold matchers in a reference "
                    f"file: {value!r:.80}"
                )
            return {"$literal": dict(value)}
        return {k: matchers_to_spelled(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [matchers_to_spelled(v) for v in value]
    return value


def keep_matching_matchers(reference: Any, actual: Any) -> Any:
    """What to write back for a reference value holding matchers when the agent now gives
    ``actual``: each matcher kept unchanged where the new value still matches it, the new value
    everywhere else (dicts by key, lists of equal length item by item). A reference value without
    matchers is simply replaced by ``actual``."""
    if isinstance(reference, Matcher):
        return reference if value_matches(actual, reference) else actual
    if isinstance(reference, Mapping) and isinstance(actual, Mapping):
        return {
            k: keep_matching_matchers(reference[k], v) if k in reference else v
            for k, v in actual.items()
        }
    if (
        isinstance(reference, list | tuple)
        and isinstance(actual, list | tuple)
        and len(reference) == len(actual)
    ):
        return [keep_matching_matchers(r, a) for r, a in zip(reference, actual, strict=True)]
    return actual


def messages_from_spelled(messages: Sequence[Any]) -> list[Any]:
    """Reference messages (plain dicts) with the spelled matchers in their tool calls' arguments
    read; an invalid one raises ``InvalidMatcherError`` with ``index`` (the message) and ``path``
    (``tool_calls[0].args.city``) set. Messages without matchers are returned as they are."""
    out: list[Any] = []
    for index, message in enumerate(messages):
        try:
            out.append(_message_args(message, matchers_from_spelled))
        except InvalidMatcherError as error:
            raise InvalidMatcherError(str(error), path=error.path, index=index) from None
    return out


def messages_to_spelled(messages: Sequence[Any]) -> list[Any]:
    """The inverse of ``messages_from_spelled``: reference messages with the matchers in their
    tool calls' arguments written in their spelled form, ready for JSON or YAML. Arguments whose
    keys start with ``$`` are wrapped in ``$literal``, so that they read back as data."""
    return [_message_args(message, _to_spelled) for message in messages]


def _to_spelled(value: Any, *, path: str) -> Any:  # noqa: ARG001  # the shape of a converter
    return matchers_to_spelled(value)


def _message_args(message: Any, convert: Callable[..., Any]) -> Any:
    """``message`` with ``convert(args, path=...)`` applied to the arguments of each of its tool
    calls; the same object when nothing changed."""
    calls = message.get("tool_calls") if isinstance(message, Mapping) else None
    if not isinstance(calls, list) or not calls:
        return message
    new_calls = [_call_args(call, convert, f"tool_calls[{i}]") for i, call in enumerate(calls)]
    same = all(a is b for a, b in zip(new_calls, calls, strict=True))
    return message if same else {**message, "tool_calls": new_calls}


def _call_args(call: Any, convert: Callable[..., Any], path: str) -> Any:
    if not isinstance(call, Mapping):
        return call
    function = call.get("function")
    if isinstance(function, Mapping) and isinstance(function.get("arguments"), Mapping):
        args = convert(function["arguments"], path=f"{path}.function.arguments")
        if args is function["arguments"]:
            return call
        return {**call, "function": {**function, "arguments": args}}
    for field in ("args", "arguments"):
        if isinstance(call.get(field), Mapping):
            args = convert(call[field], path=f"{path}.{field}")
            return call if args is call[field] else {**call, field: args}
    return call
