"""Turning a judge's prompt into chat messages: a string template (``{placeholders}`` filled
with the formatted trajectory and friends), a callable returning messages, or a LangChain prompt
template; few-shot examples appended to the last user message; every message as a plain
``{"role", "content"}`` dict, which is also what the cache key hashes."""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...core.model import content_text
from .formatting import format_value

__all__ = ["build_messages", "check_examples", "check_prompt", "with_examples"]

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


def build_messages(prompt: Prompt | Any, params: Mapping[str, str]) -> list[dict[str, Any]]:
    """The prompt's chat messages with ``params`` filled in."""
    if isinstance(prompt, str):
        missing = sorted(placeholders(prompt) - set(params))
        if missing:
            raise ValueError(
                f"the prompt uses {', '.join('{' + m + '}' for m in missing)}, which this "
                f"evaluation does not fill (filled: {', '.join(sorted(params)) or 'none'})"
            )
        return [{"role": "user", "content": prompt.format_map(params)}]
    invoke = getattr(prompt, "invoke", None)
    if callable(invoke) and not isinstance(prompt, type):
        value = invoke(dict(params))
        items = value.to_messages() if hasattr(value, "to_messages") else value
    else:
        items = prompt(**params)
    if not isinstance(items, Sequence) or isinstance(items, str) or not items:
        raise ValueError(f"the prompt must give a non-empty list of messages, got {items!r:.80}")
    return [_message(item, number) for number, item in enumerate(items)]


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
        text = f"{text}\n(tool calls: {calls!r})" if text else f"(tool calls: {calls!r})"
    return text
