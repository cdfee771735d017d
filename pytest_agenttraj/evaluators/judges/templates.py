"""Turning a judge's prompt into chat messages: a string template (``{placeholders}`` filled
with the formatted trajectory and friends), a callable returning messages, or a LangChain prompt
template; few-shot examples appended to the last user message; every message as a plain
``{"role", "content"}`` dict, which is also what the cache key hashes.

Whatever an evaluation is given reaches the model or stops it: a reference, ``inputs`` or an extra
keyword the prompt has no place for is a ``ValueError`` naming it, except in the package's own
prompts, which show it in a block of its own after the template (``<inputs>...</inputs>``).
"""

from __future__ import annotations

import inspect
import string
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from ...core.model import content_text
from .prompts import PACKAGE_PROMPTS
from .replies import shown
from .text import format_value

__all__ = [
    "build_messages",
    "check_examples",
    "check_prompt",
    "placeholders",
    "with_examples",
]

Places = Mapping[str, Collection[str]]
"""For each value an evaluation was given, the names that are a place for it in a prompt."""

Prompt = str | Callable[..., Any]

_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}


def check_prompt(prompt: object) -> None:
    """A prompt must be a template string, a callable returning messages, or a LangChain prompt
    (anything with ``invoke``); a string's placeholders must be well formed."""
    if isinstance(prompt, str):
        try:
            list(string.Formatter().parse(prompt))
        except ValueError as error:
            raise ValueError(
                f"invalid prompt template ({error}); write literal braces as {{{{ and }}}}"
            ) from None
        return
    if not callable(prompt) and not callable(getattr(prompt, "invoke", None)):
        raise ValueError(
            "prompt must be a template string, a callable returning chat messages, or a "
            f"LangChain prompt template, got {type(prompt).__name__}"
        )


def placeholders(prompt: str) -> set[str]:
    """The names a template string fills."""
    return {name for _, name, _, _ in string.Formatter().parse(prompt) if name}


def check_examples(examples: object) -> tuple[Mapping[str, Any], ...]:
    """Few-shot examples: a list of dicts with ``inputs`` and/or ``outputs``, ``score`` and an
    optional ``reasoning``."""
    if examples is None:
        return ()
    if not isinstance(examples, list | tuple):
        raise ValueError(
            f"few_shot_examples must be a list of dicts, got {type(examples).__name__}"
        )
    for number, example in enumerate(examples):
        if not isinstance(example, Mapping) or "score" not in example:
            raise ValueError(
                f"few_shot_examples[{number}] must be a dict with 'score' (and 'inputs', "
                f"'outputs', optionally 'reasoning'), got {example!r:.80}"
            )
    return tuple(examples)


def _message(item: Any, number: int) -> dict[str, Any]:
    if isinstance(item, Mapping):
        role, content = item.get("role"), item.get("content")
    else:
        kind = getattr(item, "type", None)
        role, content = _ROLES.get(str(kind), kind), getattr(item, "content", None)
    if not isinstance(role, str) or content is None:
        raise ValueError(f"prompt message {number} must have a role and content, got {item!r:.80}")
    return {"role": _ROLES.get(role, role), "content": content}


def build_messages(
    prompt: Prompt | Any,
    params: Mapping[str, str],
    *,
    places: Places | None = None,
    blank: Collection[str] = (),
) -> list[dict[str, Any]]:
    """The prompt's chat messages with ``params`` filled in.

    ``places`` says where each given value may go (default: each of ``params`` under its own
    name); one the prompt has no place for is an error (see the module). Names in ``blank`` are
    filled with ``""`` when the prompt asks for them and ``params`` has none.
    """
    wanted = dict(places) if places is not None else {name: (name,) for name in params}
    fill = {**dict.fromkeys(blank, ""), **params}
    if isinstance(prompt, str):
        return _from_template(prompt, fill, wanted, params)
    accepted, required = _accepted(prompt)
    _check_missing(required - set(fill), fill)
    if accepted is not None:
        _check_placed(_unplaced(wanted, accepted), accepted)
        fill = {name: value for name, value in fill.items() if name in accepted}
    invoke = getattr(prompt, "invoke", None)
    if callable(invoke) and not isinstance(prompt, type):
        value = invoke(fill)
        items = value.to_messages() if hasattr(value, "to_messages") else value
    else:
        items = prompt(**fill)
    if not isinstance(items, Sequence) or isinstance(items, str) or not items:
        raise ValueError(f"the prompt must give a non-empty list of messages, got {items!r:.80}")
    return [_message(item, number) for number, item in enumerate(items)]


def _from_template(
    prompt: str, fill: Mapping[str, str], wanted: Places, params: Mapping[str, str]
) -> list[dict[str, Any]]:
    names = placeholders(prompt)
    _check_missing(names - set(fill), fill)
    text = prompt.format_map(fill)
    unplaced = _unplaced(wanted, names)
    if unplaced and prompt in PACKAGE_PROMPTS:
        blocks = "\n".join(f"<{name}>\n{params[name]}\n</{name}>" for name in unplaced)
        text = f"{text.rstrip()}\n\nAlso given with this evaluation:\n{blocks}\n"
    else:
        _check_placed(unplaced, names)
    return [{"role": "user", "content": text}]


def _unplaced(wanted: Places, names: Collection[str]) -> list[str]:
    return [given for given, where in wanted.items() if not any(n in names for n in where)]


def _listed(names: Collection[str]) -> str:
    return ", ".join("{" + name + "}" for name in sorted(names)) or "none"


def _check_missing(missing: Collection[str], fill: Mapping[str, str]) -> None:
    if missing:
        raise ValueError(
            f"the prompt uses {_listed(missing)}, which this evaluation does not fill "
            f"(filled: {', '.join(sorted(fill)) or 'none'})"
        )


def _check_placed(unplaced: Sequence[str], names: Collection[str]) -> None:
    if unplaced:
        given = ", ".join(unplaced)
        raise ValueError(
            f"the prompt has no place for {given} (it takes {_listed(names)}): add "
            f"{_listed(unplaced)} to the prompt, or leave {given} out of the call; a judge never "
            "drops what it is given"
        )


def _accepted(prompt: Any) -> tuple[set[str] | None, set[str]]:
    """The names a callable or LangChain prompt takes (``None``: any) and those it needs."""
    variables = getattr(prompt, "input_variables", None)
    if isinstance(variables, list):  # a LangChain prompt template
        optional = getattr(prompt, "optional_variables", None) or []
        partial = getattr(prompt, "partial_variables", None) or {}
        return {*variables, *optional, *partial}, set(variables)
    if callable(getattr(prompt, "invoke", None)):
        return None, set()  # another runnable: what it takes cannot be seen
    try:
        signature = inspect.signature(prompt)
    except (TypeError, ValueError):  # a builtin without a signature
        return None, set()
    taken: set[str] = set()
    for parameter in signature.parameters.values():
        if parameter.kind is parameter.VAR_KEYWORD:
            return None, set()
        if parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
            taken.add(parameter.name)
    return taken, set()


def _example_text(example: Mapping[str, Any]) -> str:
    parts = ["<example>"]
    for key, tag in (("inputs", "input"), ("outputs", "output"), ("reasoning", "reasoning")):
        if example.get(key) is not None:
            parts.append(f"<{tag}>\n{format_value(example[key])}\n</{tag}>")
    parts.append(f"<score>{format_value(example['score'])}</score>")
    parts.append("</example>")
    return "\n".join(parts)


def with_examples(
    messages: list[dict[str, Any]], examples: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """``messages`` with the examples appended to the last user message."""
    if not examples:
        return messages
    text = "Graded examples, for reference:\n" + "\n".join(map(_example_text, examples))
    return append_to_last_user(messages, text)


def append_to_last_user(messages: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """``messages`` with ``text`` added to the last user message (or as a new one)."""
    out = [dict(m) for m in messages]
    for message in reversed(out):
        if message["role"] == "user":
            content = message["content"]
            if isinstance(content, str):
                message["content"] = f"{content}\n\n{text}"
            else:
                message["content"] = [*content, {"type": "text", "text": text}]
            return out
    return [*out, {"role": "user", "content": text}]


def reply_text(message: Any) -> str:
    """The text of a model's reply (its content, and its tool calls if it made any)."""
    text = content_text(getattr(message, "content", message))
    calls = getattr(message, "tool_calls", None)
    if calls:
        listed = f"(tool calls: {shown(calls)})"
        text = f"{text}\n{listed}" if text else listed
    return text
