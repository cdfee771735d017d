"""A directory of judge answers, so that re-running unchanged evaluations costs no model calls.

An answer is stored under the SHA-256 of everything that decides it (the model's identity and
parameters, the full prompt messages, the reply schema), one JSON file per answer written
atomically. A file that cannot be read or is not an entry of this version is a miss, never an
error. Modes: ``use`` reads and writes, ``refresh`` writes only (every answer asked anew),
``off`` neither. Standard library only.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..._files import write_atomically

__all__ = ["CACHE_MODES", "JudgeCache", "cache_key", "check_cache_mode"]

CACHE_MODES = ("use", "refresh", "off")
_VERSION = 1


def check_cache_mode(mode: object, *, where: str = "mode") -> str:
    """``mode`` if it is a cache mode, else a ValueError listing the valid ones."""
    if not isinstance(mode, str) or mode not in CACHE_MODES:
        valid = ", ".join(repr(m) for m in CACHE_MODES)
        raise ValueError(f"invalid {where} {mode!r}: must be one of {valid}")
    return mode


def _fallback(value: Any) -> str:
    # Values JSON cannot encode stand for their type: stable across runs, unlike a repr.
    return f"<{type(value).__module__}.{type(value).__qualname__}>"


def cache_key(payload: Mapping[str, Any]) -> str:
    """The hex SHA-256 of ``payload`` as canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(
        {"version": _VERSION, **payload},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=_fallback,
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class JudgeCache:
    """Judge answers kept in ``directory`` (a path, or a callable giving one when first needed).

    Example::

        judge = create_trajectory_llm_as_judge(judge=model, cache=JudgeCache(".judge-cache"))
    """

    def __init__(
        self, directory: str | os.PathLike[str] | Callable[[], Path], *, mode: str = "use"
    ) -> None:
        self.mode = check_cache_mode(mode)
        self._where = directory
        self._directory: Path | None = None

    def __repr__(self) -> str:
        where = self._directory or self._where
        return f"JudgeCache({str(where)!r}, mode={self.mode!r})"

    @property
    def directory(self) -> Path:
        if self._directory is None:
            where = self._where
            self._directory = Path(where() if callable(where) else where)
        return self._directory

    def with_mode(self, mode: str) -> JudgeCache:
        """The same directory under another mode."""
        other = JudgeCache(self._where, mode=mode)
        other._directory = self._directory
        return other

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored entry for ``key`` (``{"answer": ..., ...}``), or ``None``: not stored,
        unreadable, corrupt, or the mode is not ``use``."""
        if self.mode != "use":
            return None
        try:
            entry = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):  # missing, unreadable or not JSON: a miss
            return None
        if (
            not isinstance(entry, dict)
            or entry.get("version") != _VERSION
            or entry.get("key") != key
            or not isinstance(entry.get("answer"), dict)
        ):
            return None
        return entry

    def put(self, key: str, entry: Mapping[str, Any]) -> bool:
        """Store ``entry`` under ``key`` (unless the mode is ``off``); whether it was written.
        A cache that cannot be written costs model calls next time, never the evaluation."""
        if self.mode == "off":
            return False
        text = json.dumps(
            {"version": _VERSION, "key": key, **entry}, ensure_ascii=False, default=_fallback
        )
        try:
            write_atomically(self.path(key), text + "\n")
        except OSError:
            return False
        return True
