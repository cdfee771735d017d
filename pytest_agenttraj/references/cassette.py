"""Cassettes: the model calls a test made, recorded beside it (``cassettes/<test name>.yaml``)
to be replayed without a provider.

A cassette is untrusted input, read like a reference file: at most ``MAX_BYTES``, UTF-8, values
nested at most ``MAX_DEPTH`` deep (in a JSON cassette, each call is checked when first used),
YAML with the safe loader and no aliases; every problem is a ``CassetteError`` naming the file,
the call and the field. The plugin writes JSON (which is
YAML, so one reader takes what it writes and what a person writes by hand), indented, keys in a
fixed order, atomically; JSON reads in a few milliseconds where YAML would take a second for a
thousand calls.

The document: ``cassette`` (the format, 1), ``test`` (the test's id), ``record`` (the command
that records it again), and ``calls`` (one attempt) or ``attempts`` (a repeated test: a list of
``{"calls": [...]}``, one per attempt). A call is ``{"model", "request", "response"}``, with
``duration_s`` (how long the model took when it was recorded) when it was timed; a
request whose messages begin with all of an earlier call's may say so (``continues: N``, the
earlier call's number from 1) and list only the messages after them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._files import write_atomically
from ..errors import CassetteError, ReferenceFileError
from .reading import MAX_DEPTH, _parse_yaml

__all__ = [
    "FORMAT",
    "MAX_BYTES",
    "CassetteFile",
    "check_call",
    "dump_cassette",
    "load_cassette",
    "write_cassette",
]

FORMAT = 1
MAX_BYTES = 64 * 1024 * 1024
"""The largest cassette read (64 MiB): a bigger file is refused before it is parsed."""

_CALL_KEYS = ("model", "request", "response")
_OPTIONAL_CALL_KEYS = ("duration_s",)
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


def _depth(data: Any, *, calls: bool = True) -> int:
    """How deep ``data``'s containers nest (``data`` itself at 0), without recursion; only
    containers are visited. With ``calls=False`` the calls of a document are left out: each is
    checked when it is first used (``check_call``), so that loading a thousand calls costs no
    walk through every value."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(value, dict):
            children: Any = value.values()
            if not calls and depth <= 2:  # the document, or one attempt of it
                children = [v for k, v in value.items() if k != "calls"]
        else:
            children = value
        stack.extend((child, depth + 1) for child in children if type(child) in _CONTAINERS)
    return deepest


def check_call(call: Mapping[str, Any], where: str) -> None:
    """Refuse a call whose values nest more than ``MAX_DEPTH`` deep (counted from the document,
    in which a call sits three or five levels down); ``where`` names the call in the error."""
    if _depth(dict(call)) + 5 > MAX_DEPTH:
        raise CassetteError(f"{where}: values nest more than {MAX_DEPTH} levels deep")


_CONTAINERS = (dict, list)


def _document(path: Path, text: str) -> Any:
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            pass  # YAML's flow style starts with "{" too
        except RecursionError:
            raise CassetteError(f"{path}: values nest more than {MAX_DEPTH} levels deep") from None
        else:
            if _depth(data, calls=False) > MAX_DEPTH:
                raise CassetteError(f"{path}: values nest more than {MAX_DEPTH} levels deep")
            return data
    try:
        return _parse_yaml(path, text)[0]
    except CassetteError:
        raise
    except ReferenceFileError as error:
        raise CassetteError(str(error).replace("reference file", "cassette")) from None


def _continued(
    calls: list[Any], index: int, request: Mapping[str, Any], place: str
) -> dict[str, Any]:
    """A request written as ``continues: N`` (its messages start with all of call N's) with
    those messages in place."""
    earlier = request["continues"]
    if isinstance(earlier, bool) or not isinstance(earlier, int) or not 1 <= earlier <= index:
        raise CassetteError(
            f"{place}.request.continues: {earlier!r} is not the number of an earlier call "
            f"(1 to {index})"
        )
    full = {key: value for key, value in request.items() if key != "continues"}
    full["messages"] = [*calls[earlier - 1]["request"]["messages"], *request["messages"]]
    return full


def _check_call(calls: list[Any], index: int, place: str) -> None:
    """Check the call at ``index``, putting a ``continues`` request's messages in place."""
    call = calls[index]
    if not isinstance(call, Mapping):
        raise CassetteError(f"{place}: a call is a mapping of {', '.join(_CALL_KEYS)}")
    unknown = sorted(map(str, set(call) - set(_CALL_KEYS) - set(_OPTIONAL_CALL_KEYS)))
    if unknown:
        raise CassetteError(f"{place}: unknown key(s) {', '.join(unknown)}")
    seconds = call.get("duration_s", 0.0)
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not seconds >= 0:
        raise CassetteError(f"{place}.duration_s: seconds (a number >= 0), got {seconds!r}")
    if not isinstance(call.get("model"), str):
        raise CassetteError(f"{place}.model: the model's name (text) is missing")
    request, response = call.get("request"), call.get("response")
    if not isinstance(request, Mapping) or not isinstance(request.get("messages"), list):
        raise CassetteError(f"{place}.request: a mapping with a 'messages' list is missing")
    if "continues" in request:
        calls[index] = {**call, "request": _continued(calls, index, request, place)}
    if not isinstance(response, Mapping):
        raise CassetteError(f"{place}.response: a mapping (content, tool_calls) is missing")
    if not isinstance(response.get("content", ""), str | list):
        raise CassetteError(f"{place}.response.content: text or a list of content blocks")
    tool_calls = response.get("tool_calls", [])
    if not isinstance(tool_calls, list) or not all(
        isinstance(c, Mapping)
        and isinstance(c.get("name"), str)
        and isinstance(c.get("args", {}), Mapping)
        for c in tool_calls
    ):
        raise CassetteError(f"{place}.response.tool_calls: a list of {{name, args, id}} mappings")


def _calls(path: Path, calls: Any, where: str) -> tuple[Mapping[str, Any], ...]:
    if not isinstance(calls, list):
        raise CassetteError(f"{path}: {where} must be a list of calls, got {type(calls).__name__}")
    for index in range(len(calls)):
        _check_call(calls, index, f"{path}: {where}[{index}]")
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
    """The text of a cassette holding ``attempts`` (one list of calls per attempt). A request
    whose messages start with all of the previous same model's call's is written as
    ``continues: N`` and the messages after those: a conversation's history once, not once per
    call."""
    document: dict[str, Any] = {"cassette": FORMAT, "test": test, "record": record}
    if len(attempts) == 1:
        document["calls"] = _compact(attempts[0])
    else:
        document["attempts"] = [{"calls": _compact(calls)} for calls in attempts]
    return json.dumps(document, indent=1, ensure_ascii=False, default=str) + "\n"


def _compact(calls: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    written: list[dict[str, Any]] = []
    last: dict[str, tuple[int, list[Any]]] = {}  # model: (its last call's number, messages)
    for number, call in enumerate(calls, 1):
        request = dict(call["request"])
        messages = list(request.get("messages", ()))
        before = last.get(call["model"])
        if before is not None and before[1] and messages[: len(before[1])] == before[1]:
            rest = messages[len(before[1]) :]
            request = {"continues": before[0], **request, "messages": rest}
        last[call["model"]] = (number, messages)
        entry = {"model": call["model"], "request": request, "response": call["response"]}
        if "duration_s" in call:
            entry["duration_s"] = call["duration_s"]
        written.append(entry)
    return written


def write_cassette(
    path: Path, attempts: Sequence[Sequence[Mapping[str, Any]]], *, test: str, record: str
) -> None:
    """Write the cassette atomically (a reader sees the old file or the new one)."""
    write_atomically(path, dump_cassette(attempts, test=test, record=record))
