"""How much of a call's arguments is right, under the tool's args rule: a share of the keys that
rule compares, so one wrong argument of three scores 2/3.

Each rule counts the keys it cares about: ``exact`` every key of either side, ``superset`` the
reference's keys (the output may add more), ``subset`` the output's keys (it may leave some
out), a key list its paths; ``ignore`` scores 1. ``ragas`` counts the reference's keys as
``superset`` does, but a reference call without arguments scores 0 against a call with some (as
Ragas' ``ToolCallAccuracy`` does). A callable, or any rule without keys, scores 1 or 0 by its
verdict. The score is 1 exactly when the rule says the arguments match.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from ..matching.rules import ArgsRule
from ..values import MISSING, lookup_path

__all__ = ["ArgScore", "arg_accuracy"]

_EXACT = ArgsRule("exact")


class ArgScore(NamedTuple):
    """The share of compared keys whose values match, and the keys that cost points."""

    score: float
    differing: tuple[str, ...] = ()


_FULL = ArgScore(1.0)


def _same(output: Any, reference: Any) -> bool:
    """Whether two argument values match as the exact rule compares them."""
    return output is reference or _EXACT.matches({"v": output}, {"v": reference})


def arg_accuracy(
    rule: ArgsRule, output: Mapping[str, Any], reference: Mapping[str, Any]
) -> ArgScore:
    """The graded argument accuracy of an output call against a reference call of one tool."""
    if (output is reference and rule.reflexive) or rule.matches(output, reference):
        return _FULL  # (calls with equal argument texts share one parsed dict: see normalize)
    kind = rule.kind
    if kind == "keys":
        return _paths_score(rule.keys, output, reference)
    if kind == "exact":
        keys = [*reference, *(k for k in output if k not in reference)]
    elif kind == "superset":
        keys = list(reference)
    elif kind == "ragas":
        if not reference:  # the output has arguments, or the rule would have matched
            return ArgScore(0.0, tuple(output))
        keys = list(reference)
    elif kind == "subset":
        keys = list(output)
    else:
        return _verdict_score(rule, output, reference)
    differing = tuple(
        str(k)  # a dict given in Python may have keys JSON would write as text
        for k in keys
        if not (k in output and k in reference and _same(output[k], reference[k]))
    )
    return ArgScore((len(keys) - len(differing)) / len(keys), differing)


def _paths_score(
    paths: tuple[str, ...], output: Mapping[str, Any], reference: Mapping[str, Any]
) -> ArgScore:
    differing = []
    for path in paths:
        got, expected = lookup_path(output, path), lookup_path(reference, path)
        if got is MISSING or expected is MISSING or not _same(got, expected):
            differing.append(path)
    return ArgScore((len(paths) - len(differing)) / len(paths), tuple(differing))


def _verdict_score(
    rule: ArgsRule, output: Mapping[str, Any], reference: Mapping[str, Any]
) -> ArgScore:
    """A rule without keys to count (a callable): 0 when it refuses the arguments."""
    keys = dict.fromkeys(diff.path.split(".")[0] for diff in rule.explain(output, reference))
    return ArgScore(0.0, tuple(keys))
