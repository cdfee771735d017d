"""Short, stable fingerprints of settings, for results that must say what they were judged under
(a baseline compares two results only when they were judged alike).

A fingerprint is the SHA-256 of canonical JSON (sorted keys, no spaces), cut to 16 hex digits:
the same settings give the same text in every process and run. What JSON cannot hold is written
as text that names it without a memory address: a function by its module, name and a digest of
its source code (the closest thing to "what it does" that survives a new process).
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
import re
import weakref
from collections.abc import Callable
from typing import Any

__all__ = ["callable_identity", "fingerprint", "stable_text"]

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_SOURCES: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()


def fingerprint(value: Any, *, length: int = 16) -> str:
    """The first ``length`` hex digits of the SHA-256 of ``value`` as canonical JSON.

    >>> fingerprint({"b": 1, "a": [1, 2]}) == fingerprint({"a": [1, 2], "b": 1})
    True
    >>> len(fingerprint("x"))
    16
    """
    return hashlib.sha256(stable_text(value).encode("utf-8")).hexdigest()[:length]


def stable_text(value: Any) -> str:
    """``value`` as canonical JSON; what JSON cannot hold as its stable text (see the module)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=_fallback)


def _fallback(value: Any) -> Any:
    if isinstance(value, set | frozenset):
        return sorted(stable_text(item) for item in value)
    if callable(value) and not hasattr(value, "invoke"):
        return callable_identity(value)
    try:
        text = repr(value)
    except Exception:  # a repr that raises still names its type
        text = f"<{type(value).__qualname__}>"
    return _ADDRESS.sub("", text)


def callable_identity(func: Callable[..., Any]) -> str:
    """``module.name#digest``: where a callable is defined and a digest of its source code
    (``module.name`` alone when the source cannot be read, e.g. a built-in)."""
    target = getattr(func, "__func__", func)  # a bound method: its function
    name = getattr(target, "__qualname__", None) or type(target).__qualname__
    where = f"{getattr(target, '__module__', None) or '?'}.{name}"
    try:
        known = _SOURCES.get(target)
    except TypeError:  # not weakly referable: not cached
        known = None
    if known is None:
        try:
            source = inspect.getsource(target)
        except (OSError, TypeError):
            source = ""
        known = hashlib.sha256(source.encode("utf-8")).hexdigest()[:8] if source else ""
        with contextlib.suppress(TypeError):  # not weakly referable: not cached
            _SOURCES[target] = known
    return f"{where}#{known}" if known else where
