"""agentevals' own prompt constants, filled the way agentevals fills them.

The package's judges show a trajectory to the model as numbered lines (:mod:`.text`).
agentevals' prompts were written for agentevals' form instead: each message in a tag named by
its role, tool calls and tool results in tags of their own, a graph thread as its raw lists. A
user who passes one of those constants as ``prompt=`` means the model to read what agentevals
would have sent it, so a judge given one fills it in that form: the same text reaches the model.

A constant is recognised by its text, compared with the module that defines it
(``agentevals.trajectory.llm``, ``agentevals.graph_trajectory.llm``, and openevals' copy of the
trajectory prompts), which is loaded whenever the user holds the constant; nothing is imported
here, and a prompt that merely resembles one is the user's own. Messages go through
langchain-core's ``convert_to_openai_messages``, as in agentevals.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from ...core.model import Message, Trajectory
from ...core.normalize import to_trajectory
from .text import Invocation

__all__ = ["examples_text", "is_peer_prompt", "messages_text", "reference_text", "thread_text"]

Kind = Literal["trajectory", "graph"]

_TRAJECTORY_NAMES = ("TRAJECTORY_ACCURACY_PROMPT", "TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE")
_CONSTANTS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "trajectory": (
        ("agentevals.trajectory.llm", _TRAJECTORY_NAMES),
        ("openevals.prompts.trajectory.accuracy", _TRAJECTORY_NAMES),
    ),
    "graph": (("agentevals.graph_trajectory.llm", ("DEFAULT_REF_COMPARE_PROMPT",)),),
}

# agentevals' words introducing a reference thread, reproduced because its graph prompt is
# written to be followed by them.
_REFERENCE_INTRO = "Use the following trajectory as an example reference when grading:"


def is_peer_prompt(prompt: Any, kind: Kind) -> bool:
    """Whether ``prompt`` is one of agentevals' (or openevals') constants for ``kind`` judges."""
    if not isinstance(prompt, str):
        return False
    for module_name, names in _CONSTANTS[kind]:
        module = sys.modules.get(module_name)
        if module is not None and any(getattr(module, n, None) == prompt for n in names):
            return True
    return False


# ---------------------------------------------------------------- message trajectories


def messages_text(value: Any, *, side: str) -> str:
    """A trajectory as agentevals shows it: each message in a tag named by its role, messages
    apart by a blank line. Input that is not a trajectory raises as everywhere else."""
    trajectory = value if isinstance(value, Trajectory) else to_trajectory(value, side=side)
    return "\n\n".join(_tagged(message) for message in _openai_messages(value, trajectory))


def _openai_messages(value: Any, trajectory: Trajectory) -> list[Mapping[str, Any]]:
    if isinstance(value, Trajectory):
        return [_from_message(message) for message in trajectory]
    from langchain_core.messages.utils import convert_to_openai_messages

    try:
        return [convert_to_openai_messages([_ready(item)])[0] for item in _items(value)]
    except (KeyError, NotImplementedError, TypeError, ValueError):
        # a form langchain-core does not read (nor, then, does agentevals): as the package reads it
        return [_from_message(message) for message in trajectory]


def _items(value: Any) -> list[Any]:
    if isinstance(value, Mapping):
        return [value] if "role" in value else list(value.get("messages") or [])
    return list(value) if isinstance(value, list | tuple) else [value]


def _ready(item: Any) -> Any:
    """A message dict with what langchain-core requires of it where the input left it out: tool
    call ids, a tool result's call id, content."""
    if not isinstance(item, Mapping):
        return item  # a langchain-core message, or a form it reads itself
    ready = dict(item)
    calls = ready.get("tool_calls")
    if ready.get("role") in ("ai", "assistant") and calls:
        ready["tool_calls"] = [
            {**call, "id": call.get("id", "")} if isinstance(call, Mapping) else call
            for call in calls
        ]
    if ready.get("role") == "tool" and ready.get("tool_call_id") is None:
        ready["tool_call_id"] = ""
    if ready.get("content") is None:
        ready["content"] = ""
    return ready


def _from_message(message: Message) -> dict[str, Any]:
    calls = [
        {
            "function": {
                "name": call.name,
                "arguments": json.dumps(dict(call.args), ensure_ascii=False, default=str),
            }
        }
        for call in message.tool_calls
    ]
    return {
        "role": message.role,
        "content": message.text,
        "tool_calls": calls,
        "tool_call_id": message.tool_call_id or "",
    }


def _tagged(message: Mapping[str, Any]) -> str:
    role = message.get("role", "")
    content = message.get("content", "")
    calls = message.get("tool_calls") or []
    if calls:
        listed = "\n".join(_call_text(call) for call in calls)
        content = f"{content}\n{listed}" if content else listed
    if message.get("tool_call_id"):
        content = (
            f"<tool_result>\n<id>{message['tool_call_id']}</id>\n<content>{content}</content>\n"
            "</tool_result>"
        )
    return f"<{role}>\n{content}\n</{role}>"


def _call_text(call: Mapping[str, Any]) -> str:
    function = call.get("function", {})
    return (
        f"<tool_call>\n<name>{function.get('name', '')}</name>\n"
        f"<arguments>{function.get('arguments', '')}</arguments>\n</tool_call>"
    )


# ---------------------------------------------------------------- graph threads


def thread_text(rows: Sequence[Invocation]) -> str:
    """A thread as agentevals shows it: per invocation its input (when it has one), its node
    list and its result, each as Python prints it."""
    parts = []
    for given, nodes, result in rows:
        if given:
            parts.append(f"\n<input>\n{given}\n</input>\n")
        parts.append(f"\n<trajectory>\n{_steps(nodes)}\n</trajectory>\n")
        if result:
            parts.append(f"\n<result>\n{result[0]}\n</result>\n")
    return "".join(parts)


def _steps(path: Any) -> list[Any]:
    """A path's supersteps as the steps list agentevals was given: a node name, or the list of
    names that ran in one superstep."""
    return [list(step.nodes) if step.grouped else step.nodes[0] for step in path]


def reference_text(rows: Sequence[Invocation]) -> str:
    """The reference thread as agentevals puts it in ``{reference_outputs}``."""
    return f"\n{_REFERENCE_INTRO}\n<reference_thread>\n{thread_text(rows)}\n</reference_thread>\n"


# ---------------------------------------------------------------- few-shot examples


def examples_text(examples: Sequence[Mapping[str, Any]]) -> str:
    """Few-shot examples as agentevals appends them to the last user message."""
    return "\n".join(map(_example, examples))


def _example(example: Mapping[str, Any]) -> str:
    parts = ["<example>"]
    for key, tag in (("inputs", "input"), ("outputs", "output"), ("reasoning", "reasoning")):
        if key in example:
            parts.append(f"<{tag}>{example[key]}</{tag}>")
    parts.append(f"<score>{example['score']}</score>")
    parts.append("</example>")
    return "\n".join(parts)
