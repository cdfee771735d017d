"""``in_order`` mode: the reference's tool calls appear in the output in the same order, with any
other calls allowed before, between and after them (an ordered subsequence).

Precisely: every reference call pairs with a distinct output call of the same tool whose args
match, and whenever reference call *a* is in an earlier message than reference call *b*, *a*'s
partner is in an earlier output message than *b*'s. Calls within one message are parallel, so
they have no order: the calls of one reference message may be made in one output message or
spread over several, in any order; and two output calls made in one message count as
simultaneous, so they cannot stand for reference calls of two different messages (the later one
did not wait for the earlier). Message roles, content and messages without calls are not
compared.

The search (a match is found whenever one exists): reference messages with calls are taken in
order, and each is given the *shortest* window of output messages, starting after the previous
window, in which its calls pair one-to-one with calls of the window (a maximum bipartite pairing,
:func:`.calls.pair_calls`, so non-equivalence args rules never make it miss one). Feasibility only
grows with the window, and a later reference message can only use output messages after this
window, so ending each window as early as possible never loses a match (an exchange argument).
The window's end is found by scanning until it holds the needed tool names, then galloping
(doubling) and bisecting over the pairing test. With ``N`` output calls and windows of ``w_s``
calls, the pairing runs ``O(log w_s)`` times per reference message on at most ``2 w_s`` calls:
``O(N log N)`` pairing work in all when the reference matches, since the windows do not overlap.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from ..model import Trajectory
from .calls import pair_calls
from .explain import call_problems, call_text
from .report import CallRef, GivenSides, MatchReport, Pairs, Problem, call_refs
from .rules import MatchConfig

__all__ = ["match_in_order"]

_EXPLAINED_GROUPS = 10
"""After this many reference messages that cannot be placed, the rest are not searched."""

Window = list[list[CallRef]]


def _by_message(calls: list[CallRef]) -> Window:
    """Calls grouped by message, in order (only messages that make calls)."""
    groups: Window = []
    for ref in calls:
        if groups and groups[-1][0].message == ref.message:
            groups[-1].append(ref)
        else:
            groups.append([ref])
    return groups


def _flat(messages: Window, start: int, end: int) -> list[CallRef]:
    return [ref for message in messages[start : end + 1] for ref in message]


def _pairing(
    messages: Window, start: int, end: int, group: list[CallRef], config: MatchConfig
) -> Pairs | None:
    """The pairs if every call of ``group`` pairs within output messages ``start..end``."""
    paired, _, lone_ref = pair_calls(_flat(messages, start, end), group, config)
    return None if lone_ref else paired


def _names_end(messages: Window, start: int, group: list[CallRef]) -> int | None:
    """The first end from which the window holds at least the tool names ``group`` calls."""
    needed = Counter(ref.call.name for ref in group)
    for end in range(start, len(messages)):
        for ref in messages[end]:
            if needed.get(ref.call.name, 0) > 0:
                needed[ref.call.name] -= 1
        if not +needed:
            return end
    return None


def _earliest_window(
    messages: Window, start: int, group: list[CallRef], config: MatchConfig
) -> tuple[int, Pairs] | None:
    """The smallest end of a window from ``start`` in which ``group`` pairs, with its pairs."""
    low = _names_end(messages, start, group)
    if low is None:
        return None
    paired = _pairing(messages, start, low, group, config)
    if paired is not None:
        return low, paired
    last = len(messages) - 1
    step, high = 1, low
    while True:  # gallop: low fails, look for an end that works
        high = min(low + step, last)
        paired = _pairing(messages, start, high, group, config)
        if paired is not None:
            break
        if high == last:
            return None
        low, step = high, step * 2
    while high - low > 1:  # bisect: low fails, high works
        middle = (low + high) // 2
        found = _pairing(messages, start, middle, group, config)
        if found is None:
            low = middle
        else:
            high, paired = middle, found
    return high, paired


def match_in_order(output: Trajectory, reference: Trajectory, config: MatchConfig) -> MatchReport:
    """Compare under ``in_order`` (see the module docstring)."""
    messages = _by_message(call_refs(output))
    pairs: Pairs = []
    problems: list[Problem] = []
    start = 0
    placed: tuple[int, int] | None = None  # (reference message, output message) of the last
    failed = 0
    for group in _by_message(call_refs(reference)):
        found = _earliest_window(messages, start, group, config)
        if found is not None:
            end, paired = found
            pairs.extend(paired)
            placed = (group[0].message, messages[end][0].message)
            start = end + 1
            continue
        failed += 1
        if failed > _EXPLAINED_GROUPS:
            problems.append(_not_searched(group))
            break
        problems.extend(_group_problems(messages, start, group, placed, config))
    pairs.sort(key=lambda pair: (pair[0].message, pair[0].position))
    return MatchReport(config, GivenSides(output, reference), not problems, tuple(problems), pairs)


def _group_problems(
    messages: Window,
    start: int,
    group: list[CallRef],
    placed: tuple[int, int] | None,
    config: MatchConfig,
) -> list[Problem]:
    """Why the calls of one reference message cannot be placed after the previous ones."""
    rest = _flat(messages, start, len(messages) - 1)
    paired, lone_out, lone_ref = pair_calls(rest, group, config)
    earlier = _flat(messages, 0, start - 1)
    problems: list[Problem] = []
    for ref in lone_ref:
        before, _, _ = pair_calls(earlier, [ref], config) if earlier else ([], [], [])
        if before and placed is not None:
            problems.append(_out_of_order(ref, before[0][0], placed))
            continue
        for problem in call_problems(paired, lone_out, [ref], False, True, config):
            if problem.kind == "missing_call":
                problem = replace(problem, text=_missing_text(ref, problem, placed))
            problems.append(problem)
    return problems


def _missing_text(ref: CallRef, problem: Problem, placed: tuple[int, int] | None) -> str:
    after = "" if placed is None else f" after message {placed[1]}"
    text = f"reference message {ref.message}: tool call {call_text(ref.call)} is missing{after}"
    if problem.call is not None and problem.call.closest is not None:
        return f"{text}; every call to {ref.call.name!r} there pairs with another reference call"
    return f"{text}; the output has no call to {ref.call.name!r} there"


def _out_of_order(ref: CallRef, made: CallRef, placed: tuple[int, int]) -> Problem:
    ref_message, out_message = placed
    if made.message == out_message:
        when = f"in parallel with the calls of reference message {ref_message} it must follow"
    else:
        when = (
            f"before message {out_message}, where the calls of reference message "
            f"{ref_message} it must follow are made"
        )
    return Problem(
        "out_of_order",
        f"reference message {ref.message}: tool call {call_text(ref.call)} is out of order: "
        f"the output makes it in message {made.message}, {when}",
        output_index=made.message,
        reference_index=ref.message,
    )


def _not_searched(group: Sequence[CallRef]) -> Problem:
    return Problem(
        "missing_call",
        f"reference message {group[0].message} and later ones were not searched: "
        f"{_EXPLAINED_GROUPS} reference messages already could not be placed in order",
        reference_index=group[0].message,
    )
