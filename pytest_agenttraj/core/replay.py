"""Recorded model calls compared with live ones: the canonical key of a request, and what differs
between a live request and a recorded one, as a report of kind ``replay``.

A request is builtins only (the chat-model integration turns langchain-core objects into them):
``messages`` (each with ``role``, ``content`` and, where they apply, ``name``, ``tool_calls`` of
``name`` and ``args``, ``status``), ``tools`` (the bound tool schemas), ``tool_choice`` and
``params`` (the parameters that change the answer: temperature, max_tokens, response_format ...).
Ids, timestamps and run ids are never part of one, so the key of an unchanged request is the same
in every run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

__all__ = [
    "REPLAY_PROBLEMS",
    "Difference",
    "ReplayReport",
    "request_differences",
    "request_key",
]

REPLAY_PROBLEMS = ("differs", "extra", "unused", "missing", "invalid")
"""What went wrong: a request that differs from the recorded one due, a call beyond the
recording, recorded calls the test never made, no cassette (or no recording of this attempt),
a cassette that cannot be used."""

_SHOWN = 200  # characters of a value shown in a difference


def request_key(request: Mapping[str, Any]) -> str:
    """The canonical key of ``request``: its JSON text with sorted keys (equal requests, equal
    keys, whatever order their dicts were built in)."""
    return json.dumps(request, sort_keys=True, ensure_ascii=False, default=str)


@dataclass(frozen=True)
class Difference:
    """One place where the live request differs from the recorded one: ``where`` reads as a
    path (``message 2 (human).content``, ``tool get_weather: function.parameters...``,
    ``params.temperature``); ``recorded`` and ``live`` are the values (``None``: absent)."""

    where: str
    recorded: Any
    live: Any

    def text(self) -> str:
        return f"{self.where}: recorded {self.recorded_text()}, now {self.live_text()}"

    def recorded_text(self) -> str:
        return _shown(self.recorded)

    def live_text(self) -> str:
        return _shown(self.live)

    def as_json(self) -> dict[str, Any]:
        return {"where": self.where, "recorded": self.recorded, "live": self.live}


_ABSENT = object()


def _shown(value: Any) -> str:
    if value is _ABSENT or value is None:
        return "(absent)"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _walk(path: str, recorded: Any, live: Any) -> Iterator[Difference]:
    """The leaves where ``recorded`` and ``live`` differ, dicts by key and lists by position."""
    if isinstance(recorded, Mapping) and isinstance(live, Mapping):
        for key in sorted(set(recorded) | set(live), key=str):
            inner = f"{path}.{key}" if path else str(key)
            yield from _walk(inner, recorded.get(key, _ABSENT), live.get(key, _ABSENT))
        return
    if isinstance(recorded, list) and isinstance(live, list) and len(recorded) == len(live):
        for index, (old, new) in enumerate(zip(recorded, live, strict=True)):
            yield from _walk(f"{path}[{index}]", old, new)
        return
    if recorded is _ABSENT and live is _ABSENT:
        return
    if request_key({"v": recorded}) != request_key({"v": live}):
        yield Difference(
            path or "(value)",
            None if recorded is _ABSENT else recorded,
            None if live is _ABSENT else live,
        )


def _message_label(index: int, message: Any) -> str:
    role = message.get("role") if isinstance(message, Mapping) else None
    return f"message {index} ({role})" if role else f"message {index}"


def _messages(recorded: Sequence[Any], live: Sequence[Any]) -> Iterator[Difference]:
    for index in range(max(len(recorded), len(live))):
        if index >= len(live):
            yield Difference(_message_label(index, recorded[index]), recorded[index], None)
        elif index >= len(recorded):
            yield Difference(_message_label(index, live[index]), None, live[index])
        else:
            label = _message_label(index, live[index])
            for found in _walk("", recorded[index], live[index]):
                yield Difference(f"{label}.{found.where}", found.recorded, found.live)


def _tool_name(tool: Any, index: int) -> str:
    if isinstance(tool, Mapping):
        function = tool.get("function")
        name = function.get("name") if isinstance(function, Mapping) else tool.get("name")
        if isinstance(name, str):
            return name
    return f"#{index}"


def _tools(recorded: Sequence[Any], live: Sequence[Any]) -> Iterator[Difference]:
    old = {_tool_name(tool, n): tool for n, tool in enumerate(recorded)}
    new = {_tool_name(tool, n): tool for n, tool in enumerate(live)}
    for name in [*old, *(n for n in new if n not in old)]:
        label = f"tool {name}"
        if name not in new:
            yield Difference(f"{label} (no longer bound)", old[name], None)
        elif name not in old:
            yield Difference(f"{label} (newly bound)", None, new[name])
        else:
            for found in _walk("", old[name], new[name]):
                yield Difference(f"{label}: {found.where}", found.recorded, found.live)
    if list(old) != list(new) and set(old) == set(new):
        yield Difference("tools (order)", list(old), list(new))


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []


def request_differences(recorded: Mapping[str, Any], live: Mapping[str, Any]) -> list[Difference]:
    """Every difference between two requests: the messages (by position, then field), the
    tools (by name, then schema path), then every other field (``params`` by name)."""
    found = list(_messages(_list(recorded.get("messages")), _list(live.get("messages"))))
    found += _tools(_list(recorded.get("tools")), _list(live.get("tools")))
    rest_old = {k: v for k, v in recorded.items() if k not in ("messages", "tools")}
    rest_new = {k: v for k, v in live.items() if k not in ("messages", "tools")}
    found += _walk("", rest_old, rest_new)
    return found


@dataclass(frozen=True)
class ReplayReport:
    """A test whose model calls did not replay from its cassette.

    ``problem`` is one of ``REPLAY_PROBLEMS``; ``cassette`` names the file, ``test`` the test,
    ``command`` the pytest command that records it again. For a call: ``model`` (the model's
    identity), ``call`` (its position among the test's calls, from 0), ``attempt`` (of a
    repeated test), ``differences`` from the recorded request due (``differs``), ``live`` and
    ``recorded`` (the requests, builtins). ``unused`` lists the recorded calls never made (each
    model and position), ``detail`` says more (why a cassette cannot be used).
    """

    kind: ClassVar[str] = "replay"

    problem: str
    cassette: str
    test: str = ""
    command: str = ""
    model: str = ""
    call: int | None = None
    attempt: int | None = None
    differences: tuple[Difference, ...] = ()
    live: Mapping[str, Any] | None = None
    recorded: Mapping[str, Any] | None = None
    unused: tuple[tuple[str, int], ...] = ()
    detail: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return False

    def _attempt(self) -> str:
        return f" (attempt {self.attempt})" if self.attempt else ""

    def comment(self) -> str:
        where = f"{self.cassette}{self._attempt()}"
        if self.problem == "differs":
            count = len(self.differences)
            first = self.differences[0].where if self.differences else "the request"
            return (
                f"Call {self.call} to {self.model} differs from the recorded one in {where}: "
                f"{count} difference{'s' if count != 1 else ''}, first at {first}."
            )
        if self.problem == "extra":
            return (
                f"Call {self.call} to {self.model} has no recorded call left in {where}: the "
                "agent made more model calls than were recorded."
            )
        if self.problem == "unused":
            return (
                f"{len(self.unused)} recorded call(s) in {where} were never made: the agent "
                "made fewer model calls than were recorded."
            )
        if self.problem == "missing":
            return f"No recording in {where}{': ' + self.detail if self.detail else ''}."
        return f"The cassette {where} cannot be used: {self.detail}"

    def problem_texts(self) -> list[str]:
        if self.problem == "differs":
            return [d.text() for d in self.differences]
        if self.problem == "unused":
            return [f"call {n} to {model} was recorded but not made" for model, n in self.unused]
        return [self.comment()]

    def settings(self) -> dict[str, Any]:
        return {"cassette": self.cassette, "problem": self.problem}
