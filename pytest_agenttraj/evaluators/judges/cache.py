"""A directory of judge answers, so that re-running unchanged evaluations costs no model calls.

An answer is stored under the SHA-256 of everything that decides it (the model's identity and
parameters, the full prompt messages, the reply schema), one JSON file per answer written
atomically. A file that is not there, or was written by another version, is a quiet miss; one
that cannot be read or is not an entry (corrupt, truncated, nested too deeply) is a miss with a
``JudgeCacheWarning`` naming it, never an error. A folder that cannot be written is warned of
once (per run under pytest, where every cache shares the run's warnings). Modes: ``use`` reads
and writes, ``refresh`` writes only (every answer asked anew), ``off`` neither. Standard library
only.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from . import CACHE_MODES

__all__ = ["CACHE_MODES", "JudgeCache", "KeyMaker", "cache_key", "check_cache_mode"]

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


def _canonical(value: Any) -> str:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_fallback
    )


def cache_key(payload: Mapping[str, Any]) -> str:
    """The hex SHA-256 of ``payload`` as canonical JSON (sorted keys, no spaces)."""
    return hashlib.sha256(_canonical({"version": _VERSION, **payload}).encode("utf-8")).hexdigest()


# A string no payload holds: where the varying value goes in the constant part's JSON.
_HOLE = "\x00agenttraj-cache-key-hole\x00"


class KeyMaker:
    """``cache_key({**constant, name: value})`` for many values, the same key to the bit, with
    ``constant`` encoded and hashed once: a judge's model identity and schema do not change
    between its evaluations, only the messages do."""

    def __init__(self, constant: Mapping[str, Any], name: str) -> None:
        if name in constant:
            raise ValueError(f"{name!r} is a key of the constant part")
        self._constant = dict(constant)
        self._name = name
        self._head: Any = None
        self._tail = b""
        text = _canonical({"version": _VERSION, **self._constant, name: _HOLE})
        parts = text.split(_canonical(_HOLE))
        if len(parts) == 2:  # else the constant part holds the hole's text: the slow way
            self._head = hashlib.sha256(parts[0].encode("utf-8"))
            self._tail = parts[1].encode("utf-8")

    def __call__(self, value: Any) -> str:
        if self._head is None:
            return cache_key({**self._constant, self._name: value})
        digest = self._head.copy()
        digest.update(_canonical(value).encode("utf-8"))
        digest.update(self._tail)
        return str(digest.hexdigest())


class _Warned:
    """The folders already warned of, shared by the caches of one run."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: set[str] = set()

    def first(self, where: str) -> bool:
        """Whether ``where`` is warned of now for the first time."""
        with self._lock:
            if where in self._seen:
                return False
            self._seen.add(where)
            return True


def _reason(error: OSError) -> str:
    if error.strerror and error.filename:
        return f"{error.strerror}: {error.filename}"
    return str(error)


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
        self._warned = _Warned()

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
        """The same directory under another mode (warned of once with this cache)."""
        other = JudgeCache(self._where, mode=mode)
        other._directory = self._directory
        other._warned = self._warned
        return other

    def for_directory(self, directory: str | os.PathLike[str]) -> JudgeCache:
        """Another directory under this cache's mode, sharing its warnings (a run's cache gives
        its mode to the directories judges name)."""
        other = JudgeCache(directory, mode=self.mode)
        other._warned = self._warned
        return other

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(
        self, key: str, *, check: Callable[[dict[str, Any]], Any] | None = None
    ) -> dict[str, Any] | None:
        """The stored entry for ``key`` (``{"answer": ..., ...}``, the answer as ``check``
        returns it), or ``None``: not stored, stored by another version, the mode is not
        ``use``, or (with a warning) unreadable, corrupt, or an answer ``check`` refuses with a
        ``ValueError``."""
        if self.mode != "use":
            return None
        try:
            path = self.path(key)
        except OSError:
            return None  # the folder cannot be made: writing says so
        entry, problem = _read_entry(path, key)
        if entry is not None and check is not None:
            try:
                entry = {**entry, "answer": check(entry["answer"])}
            except ValueError as error:
                entry, problem = None, str(error)
        if problem:
            from ...errors import JudgeCacheWarning

            warnings.warn(
                f"judge cache entry {path} cannot be used ({problem}): a miss, the model is "
                "asked again",
                JudgeCacheWarning,
                stacklevel=2,
            )
        return entry

    def put(self, key: str, entry: Mapping[str, Any]) -> bool:
        """Store ``entry`` under ``key`` (unless the mode is ``off``); whether it was written.
        A cache that cannot be written costs model calls (and one warning), never the
        evaluation."""
        if self.mode == "off":
            return False
        text = json.dumps(
            {"version": _VERSION, "key": key, **entry}, ensure_ascii=False, default=_fallback
        )
        from ..._files import write_atomically  # with the first answer stored, not at start-up

        try:
            write_atomically(self.path(key), text + "\n")
        except OSError as error:
            self._unwritable(error)
            return False
        return True

    def _unwritable(self, error: OSError) -> None:
        if self._directory is not None:
            where = str(self._directory)
        elif error.filename:  # the folder itself could not be made
            where = os.fsdecode(error.filename)
        else:
            where = str(self._where)
        if self._warned.first(where):
            from ...errors import JudgeCacheWarning

            warnings.warn(
                f"judge cache {where} cannot be written ({_reason(error)}): every judge "
                "answer is asked of the model, none is kept",
                JudgeCacheWarning,
                stacklevel=3,
            )


def _read_entry(path: Path, key: str) -> tuple[dict[str, Any] | None, str]:
    """The entry in ``path`` and, when there is none to use, what is wrong with the file (empty
    for a quiet miss: no file, or an entry of another version)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None, ""
    except OSError as error:
        return None, f"it cannot be read: {error.strerror or error}"
    except ValueError:  # not UTF-8
        return None, "it is not JSON"
    try:
        entry = json.loads(text)
    except ValueError:
        return None, "it is not JSON"
    except RecursionError:
        return None, "its JSON nests too deeply"
    if isinstance(entry, dict) and "version" in entry and entry["version"] != _VERSION:
        return None, ""
    if (
        not isinstance(entry, dict)
        or entry.get("key") != key
        or not isinstance(entry.get("answer"), dict)
    ):
        return None, "it is not an entry of the judge cache"
    return entry, ""
