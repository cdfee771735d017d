"""Writing reference files in the plainest readable form: role, content, tool calls with name and
args (value matchers in their spelled form); no ids, no timestamps; keys sorted, the header
first. A graph reference file holds its header and ``steps``, one line per invocation.

A file that exists is rewritten in place of its messages (or steps) only: the header keeps its
place, YAML comments stay (a round-trip YAML writer, ruamel.yaml, imported only here), and what
still reads the same is left exactly as it was written, down to a single argument, so the diff
shows only what changed. A matcher whose value still matches the agent's is kept.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, MutableMapping, MutableSequence
from functools import partial
from pathlib import Path
from typing import Any

from .._files import write_atomically
from ..core.model import Conversation, Message, Trajectory
from ..core.normalize import to_trajectory
from ..core.spelled import keep_matching_matchers, messages_to_spelled
from ..core.values import holds_matcher, same_value
from ..errors import TrajectoryFormatError
from .file import HEADER_KEYS, ReferenceFile

__all__ = [
    "conversation_turns",
    "dump_conversation",
    "dump_graph_reference",
    "dump_reference",
    "plain_messages",
    "updated_messages",
    "write_conversation",
    "write_graph_reference",
    "write_messages",
    "write_reference",
]

_Merge = Callable[[list[Any]], list[Any]]


def plain_messages(trajectory: Trajectory) -> list[dict[str, Any]]:
    """The messages as a reference file writes them (keys sorted at every level)."""
    messages: list[dict[str, Any]] = []
    for message in trajectory:
        item: dict[str, Any] = {}
        text = message.text
        if text or not message.tool_calls:
            item["content"] = text
        item["role"] = message.role
        if message.tool_calls:
            item["tool_calls"] = [
                {"args": _jsonable(call.args), "name": call.name} for call in message.tool_calls
            ]
        messages.append(item)
    return messages


def _jsonable(value: Any) -> Any:
    """Arguments as plain JSON values with sorted keys, so the file reads back to what was
    compared."""
    return json.loads(json.dumps(value, default=str, sort_keys=True))


def updated_messages(reference: ReferenceFile, trajectory: Trajectory) -> list[dict[str, Any]]:
    """What ``--trajectory-update`` writes into ``reference`` for ``trajectory``: its plain
    messages, with each matcher of the file's tool calls kept where the new value still matches
    it (calls paired by position in the message, then by name)."""
    messages = plain_messages(trajectory)
    if not reference.exists or not holds_matcher(reference.messages):
        return messages
    try:
        old = to_trajectory(reference.messages).messages
    except TrajectoryFormatError:
        return messages
    return [
        _with_matchers(old[i], message) if i < len(old) else message
        for i, message in enumerate(messages)
    ]


def _with_matchers(old: Message, new: dict[str, Any]) -> dict[str, Any]:
    calls = new.get("tool_calls")
    if not calls or not old.tool_calls or old.role != new["role"]:
        return new
    unused = list(old.tool_calls)
    kept = []
    for call in calls:
        at = next((i for i, one in enumerate(unused) if one.name == call["name"]), None)
        if at is None:
            kept.append(call)
            continue
        args = unused.pop(at).args
        if holds_matcher(args):
            call = {**call, "args": keep_matching_matchers(args, call["args"])}
        kept.append(call)
    return {**new, "tool_calls": kept}


def _document(items: Any, key: str, header: Mapping[str, Any]) -> Any:
    ordered = {name: header[name] for name in HEADER_KEYS if name in header}
    if not ordered and key == "messages":
        return items
    return {**ordered, key: items}


def dump_reference(trajectory: Trajectory, path: Path, header: Mapping[str, Any]) -> str:
    """The text of a new file for ``trajectory``: stable and diff-friendly."""
    return _dump_messages(plain_messages(trajectory), path, header)


def _dump_messages(messages: list[Any], path: Path, header: Mapping[str, Any]) -> str:
    document = _document(messages_to_spelled(messages), "messages", header)
    if path.suffix == ".json":
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    import yaml

    return str(
        yaml.safe_dump(
            document, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100
        )
    )


def write_reference(reference: ReferenceFile, trajectory: Trajectory) -> None:
    """Write ``trajectory`` into ``reference.path``: a new file, or the existing one rewritten
    where its messages changed (header, comments and the matchers that still match kept)."""
    write_messages(reference, updated_messages(reference, trajectory))


def write_messages(reference: ReferenceFile, messages: list[Any]) -> None:
    """Write plain ``messages`` (which may hold matchers) into ``reference.path``, as
    ``write_reference`` does."""
    path = reference.path
    text = _existing_text(path) if reference.exists else None
    if text is None:
        write_atomically(path, _dump_messages(messages, path, reference.header()))
        return
    spelled = messages_to_spelled(messages)
    if path.suffix == ".json":
        merged = _rewrite_json(text, "messages", partial(_merged, new=spelled), _json_text)
    else:
        merged = _rewrite_yaml(text, "messages", partial(_merged, new=_quoted(spelled)))
    write_atomically(path, merged)


def dump_graph_reference(document: Mapping[str, Any], path: Path, header: Mapping[str, Any]) -> str:
    """The text of a new graph reference file: the header (``mode``), then ``steps`` with one
    line per invocation and a nested list per superstep."""
    steps = list(document["steps"])
    full = _document(steps, "steps", {k: v for k, v in header.items() if k == "mode"})
    if path.suffix == ".json":
        return _graph_json(full)
    import yaml

    class _Invocation(list[Any]):
        """An invocation's steps, written on one line."""

    class _Dumper(yaml.SafeDumper):
        pass

    def flow(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.Node:
        return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=True)

    _Dumper.add_representer(_Invocation, flow)
    full["steps"] = [_Invocation(invocation) for invocation in steps]
    return str(
        yaml.dump(
            full,
            Dumper=_Dumper,
            sort_keys=False,
            allow_unicode=True,
            default_flow_style=False,
            width=100,
        )
    )


def write_graph_reference(reference: ReferenceFile, document: Mapping[str, Any]) -> None:
    """Write a graph reference document's ``steps`` into ``reference.path``: a new file, or the
    existing one rewritten where an invocation changed (header and comments kept)."""
    path = reference.path
    text = _existing_text(path) if reference.exists else None
    if text is None:
        write_atomically(path, dump_graph_reference(document, path, reference.header()))
        return
    steps = list(document["steps"])
    if path.suffix == ".json":
        merge = partial(_merged_steps, new=steps, fresh=list)
        merged = _rewrite_json(text, "steps", merge, _graph_json)
    else:
        merged = _rewrite_yaml(
            text, "steps", partial(_merged_steps, new=_quoted(steps), fresh=_flow)
        )
    write_atomically(path, merged)


def _existing_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


_PLAIN_MESSAGE = frozenset({"role", "content", "tool_calls"})
_PLAIN_CALL = frozenset({"name", "args"})


def _plain_form(message: Any) -> bool:
    """Whether a message in a file is written as this module writes messages (so that it can
    be updated key by key)."""
    if not isinstance(message, MutableMapping) or not set(message) <= _PLAIN_MESSAGE:
        return False
    calls = message.get("tool_calls", [])
    return isinstance(calls, list) and all(
        isinstance(call, Mapping) and set(call) <= _PLAIN_CALL for call in calls
    )


def _merged(old: list[Any], new: list[Any]) -> list[Any]:
    """``new``, with each message that reads the same as the old one at its place kept as the
    old one (its spelling, its comments), and each changed message in this module's form
    updated value by value. When old messages do not map one to one onto normalised messages
    (several Anthropic tool results in one message, ...), ``new``."""
    try:
        old_plain = [plain_messages(to_trajectory([item])) for item in old]
    except TrajectoryFormatError:
        return list(new)
    if any(len(one) != 1 for one in old_plain):
        return list(new)
    merged = []
    for i, message in enumerate(new):
        if i >= len(old):
            merged.append(message)
        elif same_value(old_plain[i][0], message):
            merged.append(old[i])
        elif _plain_form(old[i]):
            merged.append(_merge_value(old[i], message))
        else:
            merged.append(message)
    return merged


def _merge_value(old: Any, new: Any) -> Any:
    """``new``, keeping the old value (and with it the file's spelling and comments) wherever
    it is equal as a JSON value: mappings key by key, lists of the same length item by item."""
    if same_value(old, new):
        return old
    if isinstance(old, MutableMapping) and isinstance(new, Mapping):
        for key in [key for key in old if key not in new]:
            del old[key]
        for key, value in new.items():
            old[key] = _merge_value(old[key], value) if key in old else value
        return old
    if isinstance(old, MutableSequence) and isinstance(new, list) and len(old) == len(new):
        for i, value in enumerate(new):
            old[i] = _merge_value(old[i], value)
        return old
    return new


def _same_invocation(old: Any, new: list[Any]) -> bool:
    """Whether two invocations' steps are the same path (a superstep's order means nothing)."""

    def plain(entries: list[Any]) -> list[Any]:
        return [sorted(map(str, e)) if isinstance(e, list) else e for e in entries]

    return isinstance(old, list) and same_value(plain(old), plain(new))


def _merged_steps(old: list[Any], new: list[Any], fresh: Callable[[list[Any]], Any]) -> list[Any]:
    """``new``'s invocations, each kept as the old one at its place when it is the same path."""
    return [
        old[i] if i < len(old) and _same_invocation(old[i], steps) else fresh(steps)
        for i, steps in enumerate(new)
    ]


def _json_text(document: Any) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _graph_json(document: Mapping[str, Any]) -> str:
    """A graph reference as JSON, its keys in their order, one line per invocation."""
    parts = []
    for key, value in document.items():
        name = json.dumps(key, ensure_ascii=False)
        if key == "steps" and isinstance(value, list) and value:
            lines = ",\n".join(f"    {json.dumps(steps, ensure_ascii=False)}" for steps in value)
            parts.append(f"  {name}: [\n{lines}\n  ]")
        else:
            parts.append(f"  {name}: {json.dumps(value, ensure_ascii=False)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def _rewrite_json(text: str, key: str, merge: _Merge, dump: Callable[[Any], str]) -> str:
    document = json.loads(text)
    if isinstance(document, dict):
        document[key] = merge(list(document.get(key) or []))
    else:
        document = merge(list(document))
    return dump(document)


def _rewrite_yaml(text: str, key: str, merge: _Merge) -> str:
    import io

    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True  # 'yes' must stay quoted: the YAML 1.1 reader takes it for true
    yaml.width = 100
    yaml.allow_unicode = True
    yaml.default_flow_style = False
    yaml.indent(mapping=2, sequence=2, offset=0)
    document = yaml.load(text)
    if isinstance(document, Mapping):
        old = document.get(key) or []
        merged = merge(list(old))
        if old:
            _replace_items(old, merged)  # the same sequence: its comments stay
        else:
            document[key] = merged  # type: ignore[index]  # ruamel's CommentedMap
    else:
        _replace_items(document, merge(list(document)))
    out = io.StringIO()
    yaml.dump(document, out)
    return out.getvalue()


def _replace_items(old: Any, merged: list[Any]) -> None:
    """Make the sequence ``old`` hold ``merged``, item by item: a slice assignment would drop
    the comments ruamel.yaml keeps per item."""
    for i, item in enumerate(merged):
        if i >= len(old):
            old.append(item)
        elif old[i] is not item:
            old[i] = item
    del old[len(merged) :]


def _flow(steps: list[Any]) -> Any:
    """An invocation's steps as a YAML sequence written on one line."""
    from ruamel.yaml.comments import CommentedSeq

    sequence = CommentedSeq(steps)
    sequence.fa.set_flow_style()
    return sequence


def _quoted(value: Any) -> Any:
    """New values for a round-trip YAML document, with every string that the YAML 1.1 reader
    of ``reading`` would take for something else (``yes``, ``on``, ``~``: ruamel.yaml writes
    YAML 1.2, where they are text) marked to be written in quotes."""
    import yaml
    from ruamel.yaml.scalarstring import SingleQuotedScalarString

    resolver = yaml.resolver.Resolver()
    text_tag = "tag:yaml.org,2002:str"

    def quote(item: Any) -> Any:
        if isinstance(item, str):
            # the tag a plain scalar with this text gets (types-PyYAML leaves it untyped)
            tag = resolver.resolve(yaml.ScalarNode, item, (True, False))  # type: ignore[no-untyped-call]
            return item if tag == text_tag else SingleQuotedScalarString(item)
        if isinstance(item, Mapping):
            return {quote(k): quote(v) for k, v in item.items()}
        if isinstance(item, list):
            return [quote(v) for v in item]
        return item

    return quote(value)


def conversation_turns(conversation: Conversation) -> list[list[dict[str, Any]]]:
    """A conversation's turns as a reference file writes them: each turn's plain messages."""
    return [plain_messages(turn.messages) for turn in conversation]


def dump_conversation(turns: list[list[Any]], path: Path, header: Mapping[str, Any]) -> str:
    """The text of a conversation reference file: the header, then one list per turn."""
    document = _document([messages_to_spelled(turn) for turn in turns], "turns", header)
    if path.suffix == ".json":
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    import yaml

    return str(
        yaml.safe_dump(
            document, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100
        )
    )


def write_conversation(reference: ReferenceFile, turns: list[list[Any]]) -> None:
    """Write ``turns`` into ``reference.path`` (atomically): a new file, or the existing one
    rewritten turn by turn where messages changed (header, comments and the messages that read
    the same kept, as ``write_messages`` keeps them)."""
    path = reference.path
    text = _existing_text(path) if reference.exists else None
    if text is None:
        write_atomically(path, dump_conversation(turns, path, reference.header()))
        return
    spelled = [messages_to_spelled(turn) for turn in turns]
    if path.suffix == ".json":
        merged = _rewrite_json(text, "turns", partial(_merged_turns, new=spelled), _json_text)
    else:
        quoted = [_quoted(turn) for turn in spelled]
        merged = _rewrite_yaml(text, "turns", partial(_merged_turns, new=quoted))
    write_atomically(path, merged)


def _merged_turns(old: list[Any], new: list[list[Any]]) -> list[Any]:
    """``new``'s turns, each merged into the old turn at its place (its messages kept where
    they read the same); a turn the file did not have is written as it is."""
    merged: list[Any] = []
    for i, turn in enumerate(new):
        previous = old[i] if i < len(old) else None
        items = previous.get("messages") if isinstance(previous, MutableMapping) else previous
        if isinstance(items, MutableSequence):
            _replace_items(items, _merged(list(items), turn))
            merged.append(previous)
        else:
            merged.append(turn)
    return merged
