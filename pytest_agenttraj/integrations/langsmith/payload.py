"""What the LangSmith sink uploads: trajectories turned into plain JSON values, safely.

A trajectory may hold LangChain messages (pydantic models), OpenAI or Anthropic dicts, this
package's own ``Message`` tuples, or anything a test put in a tool result: datetimes, sets, bytes,
NaN, objects whose ``repr`` raises, self-references. ``to_payload`` turns all of it into
``dict``/``list``/``str``/``int``/``float``/``bool``/``None`` and never raises; strings are capped
and a secret (the LangSmith API key) is blanked wherever it appears. Nothing here imports
langsmith or langchain-core.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import math
import uuid
from collections.abc import Mapping, Sequence
from decimal import Decimal
from pathlib import PurePath
from typing import Any

__all__ = ["REDACTED", "input_messages", "repeat_feedback", "to_payload"]

REDACTED = "[redacted]"
MAX_STRING = 20_000
MAX_ITEMS = 1_000
MAX_DEPTH = 32
_ASSISTANT_ROLES = frozenset(
    {"assistant", "ai", "AIMessageChunk", "model", "function_call", "custom_tool_call", "reasoning"}
)


def to_payload(value: Any, *, secret: str | None = None) -> Any:
    """``value`` as plain JSON values; never raises.

    Pydantic models (LangChain messages) become their ``model_dump``, dataclasses and named tuples
    their fields, other unknown objects their (capped) ``repr``.
    """
    return _Converter(secret).convert(value, 0, frozenset())


def input_messages(outputs: Any) -> list[Any]:
    """The leading messages of a trajectory that came before the agent's first reply (system,
    developer and user messages): what the agent was asked. Empty when there are none."""
    items: Any = outputs
    if isinstance(outputs, Mapping):
        items = outputs.get("messages")
    else:
        items = getattr(outputs, "messages", outputs)
    if not isinstance(items, Sequence) or isinstance(items, str | bytes):
        return []
    leading = []
    for item in items:
        if _role(item) in _ASSISTANT_ROLES:
            break
        leading.append(item)
    return leading if len(leading) < len(items) else []


def _role(item: Any) -> str | None:
    if isinstance(item, Mapping):
        role = item.get("role") or item.get("type")
    else:
        role = getattr(item, "role", None) or getattr(item, "type", None)
    return role if isinstance(role, str) else None


_NOT_SCALAR = object()


class _Converter:
    def __init__(self, secret: str | None) -> None:
        self.secret = secret if secret and len(secret) >= 4 else None

    def text(self, value: str) -> str:
        if self.secret and self.secret in value:
            value = value.replace(self.secret, REDACTED)
        if len(value) > MAX_STRING:
            value = f"{value[:MAX_STRING]}... [{len(value) - MAX_STRING} more characters]"
        return value

    def convert(self, value: Any, depth: int, seen: frozenset[int]) -> Any:
        if isinstance(value, enum.Enum):
            return self.convert(value.value, depth + 1, seen)
        scalar = self.scalar(value)
        if scalar is not _NOT_SCALAR:
            return scalar
        if depth >= MAX_DEPTH:
            return self.text(f"<{type(value).__name__} nested too deep>")
        if id(value) in seen:
            return f"<cycle: {type(value).__name__}>"
        inner = seen | {id(value)}
        if isinstance(value, Mapping):
            return self.mapping(value.items(), len(value), depth, inner)
        if isinstance(value, tuple) and hasattr(value, "_asdict"):  # named tuples (our Message)
            return self.mapping(value._asdict().items(), len(value), depth, inner)
        if isinstance(value, list | tuple | set | frozenset) or type(value).__name__ == "deque":
            return self.sequence(value, depth, inner)
        dumped = self.structured(value)
        if dumped is not None:
            return self.convert(dumped, depth + 1, inner)
        return self.text(self.describe(value))

    def scalar(self, value: Any) -> Any:
        """A value without parts as JSON, or ``_NOT_SCALAR``."""
        if value is None or isinstance(value, bool | int):
            return value
        if isinstance(value, float):
            return value if math.isfinite(value) else str(value)
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, bytes | bytearray | memoryview):
            return f"<{len(value)} bytes>"
        if isinstance(value, datetime.datetime | datetime.date | datetime.time):
            return value.isoformat()
        if isinstance(value, uuid.UUID | Decimal | PurePath | datetime.timedelta | complex):
            return str(value)
        return _NOT_SCALAR

    def sequence(self, value: Any, depth: int, seen: frozenset[int]) -> list[Any]:
        items = sorted(value, key=repr) if isinstance(value, set | frozenset) else list(value)
        out = [self.convert(v, depth + 1, seen) for v in items[:MAX_ITEMS]]
        if len(items) > MAX_ITEMS:
            out.append(f"... {len(items) - MAX_ITEMS} more items")
        return out

    def mapping(self, items: Any, size: int, depth: int, seen: frozenset[int]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for index, (key, item) in enumerate(items):
            if index >= MAX_ITEMS:
                out["..."] = f"{size - MAX_ITEMS} more keys"
                break
            name = key if isinstance(key, str) else self.describe(key)
            out[self.text(name)] = self.convert(item, depth + 1, seen)
        return out

    @staticmethod
    def structured(value: Any) -> Mapping[str, Any] | None:
        """A dict view of pydantic models, dataclasses and ``Trajectory``-like objects."""
        dump = getattr(value, "model_dump", None)
        if callable(dump) and not isinstance(value, type):
            # Python mode first: sets, datetimes, bytes are then converted here, in a stable way
            for kwargs in ({}, {"mode": "json"}):
                try:
                    dumped = dump(**kwargs)
                except Exception:  # an unserialisable field: try the next form, then repr
                    continue
                if isinstance(dumped, Mapping):
                    return dumped
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            try:
                return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
            except AttributeError:  # a field declared but never set
                return None
        messages = getattr(value, "messages", None)
        if isinstance(messages, tuple | list) and type(value).__name__ == "Trajectory":
            return {"messages": messages}
        return None

    @staticmethod
    def describe(value: Any) -> str:
        try:
            return repr(value)
        except Exception as error:  # a broken __repr__ must not lose the rest of the payload
            return f"<{type(value).__name__} (repr failed: {type(error).__name__})>"


def repeat_feedback(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The feedback entries of one repeated evaluation's statistics (none for a record that was
    not repeated): ``<key>.pass_rate`` (with the ``4/5 passed (80%, 95% CI 37.6-96.4%)`` text as
    comment), ``<key>.pass_rate_lower`` (the interval's lower bound), ``<key>.pass_hat_k``
    (pass^N of the N attempts, every k in its value) and, for graded results,
    ``<key>.score_mean``."""
    interval = record.get("pass_rate_interval")
    if "attempts" not in record or not isinstance(interval, list | tuple) or len(interval) != 2:
        return []
    from ...core.stats import Interval, rate_text

    key = str(record.get("key") or "trajectory")
    attempts, passed = int(record["attempts"]), int(record.get("passed_attempts") or 0)
    confidence = float(record.get("confidence") or 0.95)
    text = rate_text(passed, attempts, Interval(float(interval[0]), float(interval[1]), confidence))
    out: list[dict[str, Any]] = [
        {"key": f"{key}.pass_rate", "score": record.get("pass_rate"), "comment": text},
        {
            "key": f"{key}.pass_rate_lower",
            "score": interval[0],
            "comment": f"lower bound of the {confidence:.0%} Wilson interval: {text}",
        },
    ]
    pass_hat = record.get("pass_hat_k")
    if isinstance(pass_hat, Mapping) and pass_hat:
        out.append(
            {
                "key": f"{key}.pass_hat_k",
                "score": pass_hat.get(str(attempts)),
                "value": dict(pass_hat),
                "comment": f"pass^k for k = 1..{attempts}; the score is pass^{attempts}",
            }
        )
    spread = record.get("score_interval")
    if isinstance(record.get("score_mean"), int | float) and isinstance(spread, list | tuple):
        out.append(
            {
                "key": f"{key}.score_mean",
                "score": record["score_mean"],
                "comment": f"mean score of {attempts} attempts, {confidence:.0%} t interval "
                f"{float(spread[0]):.3f}-{float(spread[1]):.3f}",
            }
        )
    return out
