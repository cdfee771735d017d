"""Graph (LangGraph) trajectories: which nodes ran, per invocation, compared strictly. Pure.

A step entry may be a list of node names that ran in one superstep; their order is then ignored,
since LangGraph gives no order inside a superstep. Flat lists of names compare exactly as before.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["graph_steps", "graph_steps_match"]


def graph_steps(value: Any, side: str) -> list[Any]:
    """The ``steps`` of a ``GraphTrajectory``, checked to be one list of nodes per invocation."""
    if not isinstance(value, Mapping) or "steps" not in value:
        raise ValueError(f"{side} must be a GraphTrajectory dict with 'steps', got {value!r:.80}")
    steps = value["steps"]
    if not isinstance(steps, list):
        raise ValueError(f"{side}['steps'] must be a list of node-name lists")
    for number, invocation in enumerate(steps):
        if not isinstance(invocation, list | tuple):
            # e.g. ``"steps": ["__start__", "agent"]``: the per-invocation list was left out
            raise ValueError(
                f"{side}['steps'][{number}] must be a list of node names (one list per "
                f"invocation), got {invocation!r:.80}"
            )
    return steps


def _flatten(entries: Sequence[Any]) -> list[Any]:
    flat: list[Any] = []
    for entry in entries:
        if isinstance(entry, list | tuple):
            flat.extend(entry)
        else:
            flat.append(entry)
    return flat


def _invocation_matches(output: Sequence[Any], reference: Sequence[Any]) -> str | None:
    """``None`` if one invocation's nodes match, else what differs."""
    ran = _flatten(output)
    at = 0
    for entry in reference:
        if isinstance(entry, list | tuple):
            group = ran[at : at + len(entry)]
            if Counter(map(str, group)) != Counter(map(str, entry)):
                return f"superstep {list(entry)} expected at node {at}, got {group}"
            at += len(entry)
        else:
            if at >= len(ran) or ran[at] != entry:
                got = repr(ran[at]) if at < len(ran) else "nothing"
                return f"expected node {entry!r} at {at}, got {got}"
            at += 1
    if at != len(ran):
        return f"unexpected nodes after the reference's last: {ran[at:]}"
    return None


def graph_steps_match(output_steps: list[Any], reference_steps: list[Any]) -> str | None:
    """``None`` when the steps match, else a sentence naming the first difference."""
    if len(output_steps) != len(reference_steps):
        count = len(reference_steps)
        return f"expected {count} invocation{'' if count == 1 else 's'}, got {len(output_steps)}"
    for number, (out, ref) in enumerate(zip(output_steps, reference_steps, strict=True)):
        if not isinstance(out, list | tuple) or not isinstance(ref, list | tuple):
            return f"invocation {number}: steps must be lists of node names"
        problem = _invocation_matches(out, ref)
        if problem:
            return f"invocation {number}: {problem}"
    return None
