"""Deterministic generators of OpenAI chat-completion trajectories for the benchmarks.

A trajectory is a user message, then assistant messages that each make 1..``max_parallel``
parallel tool calls (each followed by one tool-result message per call), then a final
assistant answer. Tool arguments are nested JSON objects (strings, numbers, booleans, a
nested dict and lists), serialised as the ``arguments`` string like the OpenAI API does.

Everything is driven by seeded ``random.Random`` instances, so the same parameters always
give the same messages. The reference and the output trajectory are rendered separately,
so they never share string or dict objects (no identity shortcuts in ``==``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

Message = dict[str, Any]
ArgsTransform = Callable[[dict[str, Any]], dict[str, Any]]

SINGLE_TOOL = "the_tool"
TOOL_NAMES: tuple[str, ...] = (
    "get_weather",
    "search_docs",
    "lookup_order",
    "send_email",
    "create_ticket",
    "query_database",
)

_WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india")
_REGIONS = ("eu-west", "eu-central", "us-east", "us-west", "ap-south")
_TAGS = ("urgent", "billing", "beta", "internal", "vip", "legacy", "mobile")


@dataclass(frozen=True)
class ToolCall:
    """One tool call before rendering: its id, tool name and (unserialised) arguments."""

    call_id: str
    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class TrajectoryPair:
    """An output trajectory and the reference it is compared with."""

    outputs: list[Message]
    reference: list[Message]
    n_calls: int


def _random_args(rng: random.Random) -> dict[str, Any]:
    start = rng.randrange(1_000_000)
    return {
        "query": f"{rng.choice(_WORDS)} {rng.choice(_WORDS)} #{rng.randrange(10**6)}",
        "limit": rng.randint(1, 100),
        "threshold": round(rng.random(), 4),
        "include_archived": rng.random() < 0.5,
        "filters": {
            "region": rng.choice(_REGIONS),
            "tags": rng.sample(_TAGS, k=rng.randint(0, 3)),
            "window": {"start": start, "end": start + rng.randint(1, 10_000)},
        },
        "ids": [rng.randrange(10_000) for _ in range(rng.randint(1, 4))],
    }


def make_tool_calls(n_calls: int, rng: random.Random, tool_names: Sequence[str]) -> list[ToolCall]:
    """Return ``n_calls`` tool calls with random tool names (from ``tool_names``) and args."""
    return [
        ToolCall(call_id=f"call_{i}", name=rng.choice(tool_names), args=_random_args(rng))
        for i in range(n_calls)
    ]


def _group_sizes(n_calls: int, rng: random.Random, max_parallel: int) -> list[int]:
    sizes: list[int] = []
    remaining = n_calls
    while remaining > 0:
        size = min(remaining, rng.randint(1, max_parallel))
        sizes.append(size)
        remaining -= size
    return sizes


def _identity(args: dict[str, Any]) -> dict[str, Any]:
    return args


def render(
    calls: Sequence[ToolCall],
    rng: random.Random,
    *,
    max_parallel: int,
    transform_args: ArgsTransform = _identity,
) -> list[Message]:
    """Render tool calls as chat messages, grouping them into parallel-call batches."""
    messages: list[Message] = [{"role": "user", "content": "Please sort out my account."}]
    position = 0
    for size in _group_sizes(len(calls), rng, max_parallel):
        batch = calls[position : position + size]
        position += size
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": call.call_id,
                        "type": "function",
                        "function": {
                            "name": call.name,
                            "arguments": json.dumps(transform_args(call.args)),
                        },
                    }
                    for call in batch
                ],
            }
        )
        messages.extend(
            {
                "role": "tool",
                "content": json.dumps({"ok": True, "tool": call.name}),
                "tool_call_id": call.call_id,
            }
            for call in batch
        )
    messages.append({"role": "assistant", "content": "All done: your account is sorted."})
    return messages


def with_extra_key(args: dict[str, Any]) -> dict[str, Any]:
    """Return ``args`` plus one extra top-level key (for subset/superset argument matching)."""
    return {**args, "trace_id": f"trace-{args['limit']}-{args['filters']['window']['start']}"}


def make_pair(
    n_calls: int,
    *,
    seed: int,
    tool_names: Sequence[str] = TOOL_NAMES,
    max_parallel: int = 4,
    permute: bool = False,
    output_args: ArgsTransform = _identity,
    reference_args: ArgsTransform = _identity,
) -> TrajectoryPair:
    """Build an output/reference pair that describes the same tool calls.

    With ``permute`` the output's tool calls are shuffled and regrouped into different
    assistant messages; otherwise the output has exactly the reference's structure.
    ``output_args``/``reference_args`` transform each side's arguments before serialising.
    """
    calls = make_tool_calls(n_calls, random.Random(seed), tool_names)
    reference = render(
        calls, random.Random(seed + 1), max_parallel=max_parallel, transform_args=reference_args
    )
    if permute:
        shuffled = list(calls)
        random.Random(seed + 2).shuffle(shuffled)
        outputs = render(
            shuffled, random.Random(seed + 3), max_parallel=max_parallel, transform_args=output_args
        )
    else:
        outputs = render(
            calls, random.Random(seed + 1), max_parallel=max_parallel, transform_args=output_args
        )
    return TrajectoryPair(outputs=outputs, reference=reference, n_calls=n_calls)
