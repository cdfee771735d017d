"""Where a value sits in a reference file's text, so that an error can name its line.

A place is given as steps from the document's root (keys and list indices, ``["messages", 2]``)
followed by a dotted path inside that value (``tool_calls[0].args.city``, as matcher and format
errors spell it); the answer is the line of the deepest value the place reaches. YAML files keep
the composed node tree, where every node knows its line; JSON files are scanned again, and only
when an error asks, since the standard library's parser keeps no positions.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

__all__ = ["JsonPositions", "Positions", "YamlPositions"]

_INDEX = re.compile(r"\[(\d+)\]\.?")
_SPACE = re.compile(r"[ \t\n\r]*")


class _Value(Protocol):
    """One value of a document: its line, and its entries when it is a mapping or a list."""

    @property
    def line(self) -> int: ...

    def entries(self) -> Mapping[str, _Value] | Sequence[_Value] | None: ...


class Positions:
    """The lines of a document's values (see the module docstring)."""

    def _root(self) -> _Value | None:
        raise NotImplementedError

    def line(self, steps: Sequence[str | int], path: str = "") -> int | None:
        """The line of the value at ``steps`` then ``path``, or of the deepest one reached;
        ``None`` when the document has no values."""
        value = self._root()
        if value is None:
            return None
        for step in steps:
            child = _child(value, step)
            if child is None:
                return value.line
            value = child
        return _follow(value, path).line


def _child(value: _Value, step: str | int) -> _Value | None:
    entries = value.entries()
    if isinstance(step, int):
        if isinstance(entries, Sequence) and 0 <= step < len(entries):
            return entries[step]
        return None
    if isinstance(entries, Mapping):
        return entries.get(step)
    return None


def _follow(value: _Value, path: str) -> _Value:
    """The value at a dotted path, or the deepest one reached. A key may hold dots itself:
    of the ways to read the path, the first (shortest keys first) that reaches its end wins."""
    found, _ = _search(value, path)
    return found


def _search(value: _Value, path: str) -> tuple[_Value, bool]:
    """The value reached along ``path`` from ``value``, and whether all of it was followed."""
    if not path:
        return value, True
    entries = value.entries()
    steps: list[tuple[_Value, str]] = []
    if isinstance(entries, Mapping):
        fits = [k for k in entries if path == k or path.startswith((f"{k}.", f"{k}["))]
        steps = [(entries[k], path[len(k) :].removeprefix(".")) for k in sorted(fits, key=len)]
    elif isinstance(entries, Sequence):
        index = _INDEX.match(path)
        if index is not None and int(index[1]) < len(entries):
            steps = [(entries[int(index[1])], path[index.end() :])]
    deepest = value
    for child, rest in steps:
        found, complete = _search(child, rest)
        if complete:
            return found, True
        if deepest is value:
            deepest = found
    return deepest, False


class YamlPositions(Positions):
    """The lines of a YAML document, from its composed node tree (``None``: an empty file)."""

    def __init__(self, root: Any) -> None:
        self.root = root

    def _root(self) -> _Value | None:
        return None if self.root is None else _YamlValue(self.root)


class _YamlValue:
    def __init__(self, node: Any) -> None:
        self.node = node

    @property
    def line(self) -> int:
        return int(self.node.start_mark.line) + 1

    def entries(self) -> Mapping[str, _Value] | Sequence[_Value] | None:
        if self.node.id == "mapping":
            # a key given twice: the last one wins, as it does when the document is built
            return {str(key.value): _YamlValue(value) for key, value in self.node.value}
        if self.node.id == "sequence":
            return [_YamlValue(item) for item in self.node.value]
        return None


class JsonPositions(Positions):
    """The lines of a JSON document, found by scanning ``text`` (already parsed once, so it is
    valid JSON and nests no deeper than reading allows)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._newlines: list[int] | None = None

    def _root(self) -> _Value | None:
        start = _SPACE.match(self.text, 0)
        offset = start.end() if start else 0
        return _JsonValue(self, offset) if offset < len(self.text) else None

    def line_at(self, offset: int) -> int:
        if self._newlines is None:
            self._newlines = [match.start() for match in re.finditer("\n", self.text)]
        return bisect.bisect_left(self._newlines, offset) + 1


_DECODER = json.JSONDecoder()


class _JsonValue:
    def __init__(self, document: JsonPositions, offset: int) -> None:
        self.document = document
        self.offset = offset

    @property
    def line(self) -> int:
        return self.document.line_at(self.offset)

    def entries(self) -> Mapping[str, _Value] | Sequence[_Value] | None:
        opening = self.document.text[self.offset]
        if opening == "{":
            return dict(self._members())
        if opening == "[":
            return [value for _, value in self._members()]
        return None

    def _members(self) -> list[tuple[str, _Value]]:
        """The members of the object or array that starts here (keys are empty for an array)."""
        text, closing = self.document.text, "}" if self.document.text[self.offset] == "{" else "]"
        members: list[tuple[str, _Value]] = []
        at = _skip(text, self.offset + 1)
        while text[at] != closing:
            key = ""
            if closing == "}":
                key, at = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
                at = _skip(text, _skip(text, at) + 1)  # past the colon
            members.append((key, _JsonValue(self.document, at)))
            at = _skip(text, _DECODER.raw_decode(text, at)[1])
            if text[at] == ",":
                at = _skip(text, at + 1)
        return members


def _skip(text: str, at: int) -> int:
    match = _SPACE.match(text, at)
    return match.end() if match else at
