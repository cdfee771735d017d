"""What a judge must answer and how its reply is read: a JSON schema (given to the model as a
tool for structured output, or shown in the prompt for a JSON reply in text), the parsing of a
text reply (a bare object or one in a fenced code block), and a check that turns the reply into
a normalised answer or says what is wrong with it."""

from __future__ import annotations

import json
import re
import reprlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ReplyError",
    "ReplySpec",
    "goal_spec",
    "json_instructions",
    "parse_json_reply",
    "score_spec",
    "shown",
    "topics_spec",
]


class ReplyError(ValueError):
    """A reply that does not answer as the schema asks (the judge retries once)."""


_SHOWN = reprlib.Repr()
_SHOWN.maxlevel = 6
_SHOWN.maxstring = _SHOWN.maxother = 80
_SHOWN.maxlist = _SHOWN.maxdict = _SHOWN.maxtuple = 12


def shown(value: Any) -> str:
    """``repr(value)`` short enough for an error message, however long or deep ``value`` is."""
    return _SHOWN.repr(value)


@dataclass(frozen=True)
class ReplySpec:
    """The schema a reply must follow, and ``check(reply) -> answer`` (builtins only), raising
    ``ReplyError`` for a reply that does not follow it."""

    schema: Mapping[str, Any]
    check: Callable[[Mapping[str, Any]], dict[str, Any]]


_REASONING = {
    "type": "string",
    "description": "Why you chose this answer, step by step, ending with the answer itself.",
}


def _score_schema(continuous: bool, choices: Sequence[float] | None) -> dict[str, Any]:
    if choices:
        return {
            "type": "number",
            "enum": list(choices),
            "description": "How far the criteria are met: one of the allowed numbers.",
        }
    if continuous:
        return {
            "type": "number",
            "description": "How far the criteria are met, from 0.0 (not at all) to 1.0 "
            "(fully); 0.5 means half of them are.",
        }
    return {"type": "boolean", "description": "true if the criteria are met, false if not."}


def _object(title: str, description: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "title": title,
        "description": description,
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def score_spec(
    *, continuous: bool = False, choices: Sequence[float] | None = None, use_reasoning: bool = True
) -> ReplySpec:
    """A score (a bool, a number from 0 to 1, or one of ``choices``), with reasoning first."""
    properties: dict[str, Any] = {"reasoning": _REASONING} if use_reasoning else {}
    properties["score"] = _score_schema(continuous, choices)
    schema = _object("score", "The grade for the criteria in the prompt.", properties)
    allowed = [float(c) for c in choices] if choices else None

    def check(reply: Mapping[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = {"score": _checked_score(reply, continuous, allowed)}
        if use_reasoning:
            answer["reasoning"] = _text(reply, "reasoning")
        return answer

    return ReplySpec(schema, check)


def _checked_score(
    reply: Mapping[str, Any], continuous: bool, allowed: list[float] | None
) -> bool | float:
    if "score" not in reply:
        raise ReplyError("the reply has no 'score'")
    score = reply["score"]
    if allowed is not None:
        number = _number(score)
        if number is None or number not in allowed:
            raise ReplyError(f"'score' must be one of {allowed}, got {shown(score)}")
        return number
    if continuous:
        number = _number(score)
        if number is None or not 0 <= number <= 1:
            raise ReplyError(f"'score' must be a number from 0 to 1, got {shown(score)}")
        return number
    return _flag(reply, "score")


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


_FLAGS = {"true": True, "false": False, "yes": True, "no": False, "1": True, "0": False}


def _flag(reply: Mapping[str, Any], key: str) -> bool:
    value = reply.get(key)
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().casefold() in _FLAGS:
        return _FLAGS[value.strip().casefold()]
    raise ReplyError(f"{key!r} must be true or false, got {shown(value)}")


def _text(reply: Mapping[str, Any], key: str) -> str:
    value = reply.get(key)
    if not isinstance(value, str):
        raise ReplyError(f"{key!r} must be a string, got {shown(value)}")
    return value.strip()


def goal_spec() -> ReplySpec:
    """The goal judge's answer: the user goal, the end state, and whether it was achieved."""
    schema = _object(
        "agent_goal_accuracy",
        "Whether the conversation achieved what the user set out to do.",
        {
            "reasoning": _REASONING,
            "user_goal": {"type": "string", "description": "What the user set out to achieve."},
            "end_state": {"type": "string", "description": "Where the conversation ended."},
            "achieved": {
                "type": "boolean",
                "description": "true if the end state achieves the goal (or the desired "
                "outcome, when one is given).",
            },
        },
    )

    def check(reply: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "reasoning": _text(reply, "reasoning"),
            "user_goal": _text(reply, "user_goal"),
            "end_state": _text(reply, "end_state"),
            "achieved": _flag(reply, "achieved"),
        }

    return ReplySpec(schema, check)


def topics_spec() -> ReplySpec:
    """The topic judge's answer: each topic the user raised, answered or not, allowed or not."""
    topic = {
        "type": "object",
        "properties": {
            "topic": {"type": "string", "description": "The topic, in a few words."},
            "answered": {"type": "boolean", "description": "Whether the agent answered it."},
            "allowed": {
                "type": "boolean",
                "description": "Whether it falls within any of the allowed topics.",
            },
        },
        "required": ["topic", "answered", "allowed"],
        "additionalProperties": False,
    }
    schema = _object(
        "topic_adherence",
        "The topics the user raised and how the agent dealt with each.",
        {"reasoning": _REASONING, "topics": {"type": "array", "items": topic}},
    )

    def check(reply: Mapping[str, Any]) -> dict[str, Any]:
        topics = reply.get("topics")
        if not isinstance(topics, list):
            raise ReplyError(f"'topics' must be a list, got {shown(topics)}")
        checked = []
        for number, entry in enumerate(topics):
            if not isinstance(entry, Mapping):
                raise ReplyError(f"topics[{number}] must be an object, got {shown(entry)}")
            checked.append(
                {
                    "topic": _text(entry, "topic"),
                    "answered": _flag(entry, "answered"),
                    "allowed": _flag(entry, "allowed"),
                }
            )
        return {"reasoning": _text(reply, "reasoning"), "topics": checked}

    return ReplySpec(schema, check)


def json_instructions(schema: Mapping[str, Any]) -> str:
    """What a model without tool calling is told: answer with one JSON object only."""
    body = {k: v for k, v in schema.items() if k not in ("title", "description")}
    return (
        "Answer with a single JSON object and nothing else (no text before or after it), "
        f"following this JSON schema:\n{json.dumps(body, indent=2)}"
    )


_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


def parse_json_reply(text: str) -> dict[str, Any]:
    """The JSON object in a text reply: the whole text, a fenced code block, or the outermost
    ``{...}`` in it. ``ReplyError`` when there is none, or when its JSON nests deeper than
    Python can read."""
    candidates = [text.strip()]
    candidates.extend(block.strip() for block in _FENCE.findall(text))
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    too_deep = False
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        except RecursionError:
            too_deep = True
            continue
        if isinstance(value, dict):
            return value
    raise ReplyError("its JSON nests too deeply" if too_deep else "the reply holds no JSON object")
