"""Cassettes: the model calls a test made, recorded beside it (``cassettes/<test name>.yaml``)
to be replayed without a provider.

A cassette is untrusted input, read like a reference file: at most ``MAX_BYTES``, UTF-8, values
nested at most ``MAX_DEPTH`` deep, YAML with the safe loader and no aliases; every problem is a
``CassetteError`` naming the file, the call and the field. The plugin writes JSON (which is
YAML, so one reader takes what it writes and what a person writes by hand), indented, keys in a
fixed order, atomically; JSON reads in a few milliseconds where YAML would take a second for a
thousand calls.

The document: ``cassette`` (the format, 1), ``test`` (the test's id), ``record`` (the command
that records it again), and ``calls`` (one attempt) or ``attempts`` (a repeated test: a list of
``{"calls": [...]}``, one per attempt). A call is ``{"model", "request", "response"}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._files import write_atomically
from ..errors import CassetteError, ReferenceFileError
from .reading import MAX_DEPTH, _check_depth, _parse_yaml

__all__ = [
    "FORMAT",
    "MAX_BYTES",
    "CassetteFile",
    "dump_cassette",
    "load_cassette",
    "write_cassette",
]

FORMAT = 1
MAX_BYTES = 64 * 1024 * 1024
"""The largest cassette read (64 MiB): a bigger file is refused before it is parsed."""

_CALL_KEYS = ("model", "request", "response")
_TOP_KEYS = ("cassette", "test", "record", "calls", "attempts")


@dataclass(frozen=True)
class CassetteFile:
    """A cassette as read: ``attempts`` holds each attempt's calls (one attempt unless the test
    repeats), each call a dict with ``model``, ``request`` and ``response``."""

    path: Path
    attempts: tuple[tuple[Mapping[str, Any], ...], ...]


def _text(path: Path) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise CassetteError(
                f"cassette {path} is {size} bytes, more than the {MAX_BYTES} a cassette may be"
            )
        raw = path.read_bytes()
    except OSError as error:
        raise CassetteError(f"cassette {path} cannot be read: {error}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise CassetteError(f"{path}:{line}: not UTF-8 text; cassettes are UTF-8") from None
    return text[1:] if text.startswith("\ufeff") else text


def _document(path: Path, text: str) -> Any:
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            pass  # YAML's flow style starts with "{" too
        except RecursionError:
            raise CassetteError(f"{path}: values nest more than {MAX_DEPTH} levels deep") from None
        else:
            try:
                _check_depth(path, data)
            except ReferenceFileError as error:
                raise CassetteError(str(error).replace("a reference file", "a cassette")) from None
            return data
    try:
        return _parse_yaml(path, text)[0]
    except CassetteError:
        raise
    except ReferenceFileError as error:
        raise CassetteError(str(error).replace("reference file", "cassette")) from None


def _calls(path: Path, calls: Any, where: str) -> tuple[Mapping[str, Any], ...]:
    if not isinstance(calls, list):
        raise CassetteError(f"{path}: {where} must be a list of calls, got {type(calls).__name__}")
    for index, call in enumerate(calls):
        place = f"{path}: {where}[{index}]"
        if not isinstance(call, Mapping):
            raise CassetteError(f"{place}: a call is a mapping of {', '.join(_CALL_KEYS)}")
        unknown = sorted(map(str, set(call) - set(_CALL_KEYS)))
        if unknown:
            raise CassetteError(f"{place}: unknown key(s) {', '.join(unknown)}")
        if not isinstance(call.get("model"), str):
            raise CassetteError(f"{place}.model: the model's name (text) is missing")
        request, response = call.get("request"), call.get("response")
        if not isinstance(request, Mapping) or not isinstance(request.get("messages"), list):
            raise CassetteError(f"{place}.request: a mapping with a 'messages' list is missing")
        if not isinstance(response, Mapping):
            raise CassetteError(f"{place}.response: a mapping (content, tool_calls) is missing")
        content = response.get("content", "")
        if not isinstance(content, str | list):
            raise CassetteError(f"{place}.response.content: text or a list of content blocks")
        tool_calls = response.get("tool_calls", [])
        if not isinstance(tool_calls, list) or not all(
            isinstance(c, Mapping)
            and isinstance(c.get("name"), str)
            and isinstance(c.get("args", {}), Mapping)
            for c in tool_calls
        ):
            raise CassetteError(
                f"{place}.response.tool_calls: a list of {{name, args, id}} mappings"
            )
    return tuple(calls)


def load_cassette(path: Path) -> CassetteFile:
    """Read and check the cassette at ``path``."""
    data = _document(path, _text(path))
    if not isinstance(data, Mapping):
        raise CassetteError(f"{path}: a cassette is a mapping with 'calls' or 'attempts'")
    unknown = sorted(map(str, set(data) - set(_TOP_KEYS)))
    if unknown:
        raise CassetteError(
            f"{path}: unknown key(s) {', '.join(unknown)}; a cassette holds {', '.join(_TOP_KEYS)}"
        )
    if data.get("cassette", FORMAT) != FORMAT:
        raise CassetteError(f"{path}: cassette format {data['cassette']!r}; this reads {FORMAT}")
    if ("calls" in data) == ("attempts" in data):
        raise CassetteError(f"{path}: a cassette holds either 'calls' or 'attempts'")
    if "calls" in data:
        return CassetteFile(path, (_calls(path, data["calls"], "calls"),))
    attempts = data["attempts"]
    if not isinstance(attempts, list):
        raise CassetteError(f"{path}: attempts must be a list of {{calls: [...]}}")
    found = []
    for index, attempt in enumerate(attempts):
        if not isinstance(attempt, Mapping) or set(attempt) != {"calls"}:
            raise CassetteError(f"{path}: attempts[{index}] must be a mapping with 'calls' only")
        found.append(_calls(path, attempt["calls"], f"attempts[{index}].calls"))
    return CassetteFile(path, tuple(found))


def dump_cassette(
    attempts: Sequence[Sequence[Mapping[str, Any]]], *, test: str, record: str
) -> str:
    """The text of a cassette holding ``attempts`` (one list of calls per attempt)."""
    document: dict[str, Any] = {"cassette": FORMAT, "test": test, "record": record}
    if len(attempts) == 1:
        document["calls"] = [dict(call) for call in attempts[0]]
    else:
        document["attempts"] = [{"calls": [dict(c) for c in calls]} for calls in attempts]
    return json.dumps(document, indent=2, ensure_ascii=False, default=str) + "\n"


def write_cassette(
    path: Path, attempts: Sequence[Sequence[Mapping[str, Any]]], *, test: str, record: str
) -> None:
    """Write the cassette atomically (a reader sees the old file or the new one)."""
    write_atomically(path, dump_cassette(attempts, test=test, record=record))
