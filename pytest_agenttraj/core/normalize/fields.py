"""Reading the fields every message format shares: roles, tool names and arguments; and the
``Skeleton`` every form's fast scanner records a side in.

Each helper raises ``TrajectoryFormatError`` naming the message index and the field.
"""

from __future__ import annotations

import json
import json.scanner
from collections.abc import Callable, Mapping
from typing import Any

from ...errors import TrajectoryFormatError
from ..model import Role
from ..values import safe_repr

__all__ = [
    "ROLE_ALIASES",
    "Memo",
    "Skeleton",
    "call_name",
    "memo_object",
    "opt_str",
    "parse_args",
    "role",
    "scan_json",
    "scan_object",
]

ROLE_ALIASES: dict[str, Role] = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "model": "assistant",
    "system": "system",
    "developer": "developer",
    "tool": "tool",
    "function": "function",
}

Memo = dict[str, dict[str, Any]]
"""Arguments text -> parsed dict, shared by both sides of one evaluation so that each distinct
text is parsed once."""

scan_json: Callable[[str, int], tuple[Any, int]] = json.scanner.make_scanner(
    json.JSONDecoder()  # type: ignore[arg-type]  # typeshed declares the class, not its context
)
"""The JSON scanner json.loads runs, called directly: ``scan_json(text, 0)`` is ``(value, end)``.
It skips the wrapper's per-call checks, which are a third of the cost for short argument texts;
anything it does not parse to the end (leading or trailing space, errors) goes through
``json.loads``, so results and errors are the same."""


def scan_object(text: str) -> dict[str, Any] | None:
    """``text`` parsed by the JSON scanner if it is exactly one JSON object, else ``None``."""
    try:
        value, end = scan_json(text, 0)
    except (StopIteration, ValueError, RecursionError):
        return None
    return value if end == len(text) and type(value) is dict else None


def memo_object(text: str, memo: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """``scan_object(text)`` through ``memo``: each distinct text of an evaluation is parsed
    once, and calls with equal texts share one dict."""
    found = memo.get(text)
    if found is None:
        found = scan_object(text)
        if found is not None:
            memo[text] = found
    return found


def role(raw: Any, index: int, field: str = "role") -> Role:
    """A known role (or alias), else an error naming what was found."""
    found = ROLE_ALIASES.get(raw) if isinstance(raw, str) else None
    if found is not None:
        return found
    if raw is None:
        raise TrajectoryFormatError("the message has no role", index=index, field=field)
    raise TrajectoryFormatError(
        f"unknown role {safe_repr(raw, 60)}; expected one of user, assistant, system, developer, "
        "tool, function (or the aliases human, ai)",
        index=index,
        field=field,
    )


def call_name(raw: Any, index: int, field: str) -> str:
    """A tool call's name: a non-empty string."""
    if not isinstance(raw, str) or not raw:
        got = "nothing" if raw is None else safe_repr(raw, 80)
        raise TrajectoryFormatError(
            f"a tool call needs a name (a non-empty string), got {got}", index=index, field=field
        )
    return raw


def parse_args(
    raw: Any, tool: str, index: int, field: str, memo: Memo | None = None
) -> dict[str, Any]:
    """Arguments as a dict: JSON text is parsed once per evaluation (``memo``); ``""`` and
    ``None`` mean no arguments."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, Mapping):
        return dict(raw)
    if not isinstance(raw, str):
        raise TrajectoryFormatError(
            f"arguments of tool {tool!r} must be a JSON object or its text, "
            f"got {type(raw).__name__}",
            index=index,
            field=field,
        )
    if memo is not None:
        known = memo.get(raw)
        if known is not None:
            return known
    parsed = scan_object(raw)
    if parsed is None:
        parsed = _loads(raw, tool, index, field)
    if memo is not None:
        memo[raw] = parsed
    return parsed


def _loads(raw: str, tool: str, index: int, field: str) -> dict[str, Any]:
    """``json.loads`` decides (surrounding space is fine) and any error names the call."""
    try:
        parsed = json.loads(raw)
    except RecursionError:
        raise TrajectoryFormatError(
            f"arguments of tool {tool!r} nest too deep to be read", index=index, field=field
        ) from None
    except ValueError as error:
        raise TrajectoryFormatError(
            f"arguments of tool {tool!r} are not valid JSON ({error}): {raw[:80]!r}",
            index=index,
            field=field,
        ) from None
    if not isinstance(parsed, dict):
        raise TrajectoryFormatError(
            f"arguments of tool {tool!r} must be a JSON object, got {type(parsed).__name__}",
            index=index,
            field=field,
        )
    return parsed


def opt_str(value: Any) -> str | None:
    """``value`` if it is a string, else ``None`` (ids and names are optional)."""
    return value if isinstance(value, str) else None


class Skeleton:
    """What the fast scanners beside the readers (``chat.scan``, ``langchain.scan``) record of
    one side, for the fast path (``core/fastpath.py``) to decide a verdict and to build the
    trajectory without reading again what they read: each message's role (only strict mode
    asks), which messages make calls and how many, each call's tool name and arguments (the
    text, or the dict, in call order), and whether the arguments are all texts. A side of
    several input forms is scanned run by run into one skeleton."""

    __slots__ = ("args", "call_counts", "call_rows", "names", "roles", "texts_only")

    def __init__(self) -> None:
        self.roles: list[Role] = []
        self.call_rows: list[int] = []
        self.call_counts: list[int] = []
        self.names: list[str] = []
        self.args: list[Any] = []
        self.texts_only = True
