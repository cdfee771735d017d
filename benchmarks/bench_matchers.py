"""Benchmark value matchers in reference args against exact args, in the same run.

What it measures (median wall time per evaluator call, ``time.perf_counter``), on the generated
trajectories of ``_trajectories.py`` (1,000 tool calls over 6 tools, nested JSON arguments; the
output's arguments as JSON text, as the OpenAI API gives them):

1. the reference with a ``Regex`` in every call (its ``query`` as ``Regex(re.escape(query))``),
   in strict mode and in unordered mode with the output permuted, against the same reference
   with exact values given as dicts (the same path through the normaliser and the matcher), and
   against the reference as JSON text (which the fast path decides);
2. the same with ``ANY`` for ``threshold`` and ``Approx`` for ``limit`` as well, and with
   superset args;
3. ``in_order`` mode at 1,000 calls with a ``Regex`` in every call, against exact dicts.

Each row prints the ratio of medians (matchers / exact) beside its target (at most 3x against
exact dicts) with PASS/MISS. Every case is checked to pass before it is timed. It is a report:
the exit status is 0 whatever the numbers are.

Run it with ``make bench`` or ``.venv/bin/python benchmarks/bench_matchers.py``.
"""

from __future__ import annotations

import copy
import json
import platform
import re
import sys
from collections.abc import Callable
from typing import Any

from _trajectories import TrajectoryPair, make_pair
from bench_matching import fmt_seconds, time_pair

from pytest_agenttraj import ANY, Approx, Regex, create_trajectory_match_evaluator

Message = dict[str, Any]
Transform = Callable[[dict[str, Any]], dict[str, Any]]
TARGET = 3.0
COLUMNS = "{:<52} {:>11} {:>11} {:>8} {:>8} {:>7}"


def as_dicts(messages: list[Message], transform: Transform | None = None) -> list[Message]:
    """``messages`` with each call's arguments parsed into a dict (and transformed)."""
    out = copy.deepcopy(messages)
    for message in out:
        for call in message.get("tool_calls", ()):
            args = json.loads(call["function"]["arguments"])
            call["function"]["arguments"] = transform(args) if transform else args
    return out


def regex_query(args: dict[str, Any]) -> dict[str, Any]:
    return {**args, "query": Regex(re.escape(args["query"]))}


def three_matchers(args: dict[str, Any]) -> dict[str, Any]:
    return {**regex_query(args), "threshold": ANY, "limit": Approx(args["limit"], abs=0.5)}


def without_ids(args: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in args.items() if k != "ids"}


def regex_without_ids(args: dict[str, Any]) -> dict[str, Any]:
    return regex_query(without_ids(args))


def evaluate(
    mode: str, args_mode: str, outputs: list[Message], reference: list[Message]
) -> Callable[[], dict[str, Any]]:
    evaluator = create_trajectory_match_evaluator(
        trajectory_match_mode=mode,  # type: ignore[arg-type]
        tool_args_match_mode=args_mode,  # type: ignore[arg-type]
    )

    def call() -> dict[str, Any]:
        return dict(evaluator(outputs=outputs, reference_outputs=reference))

    return call


def row(
    name: str, matched_s: float, exact_s: float, target: float | None, misses: list[str]
) -> None:
    ratio = matched_s / exact_s
    status = ""
    if target is not None:
        status = "PASS" if ratio <= target else "MISS"
        if status == "MISS":
            misses.append(f"{name}: {ratio:.2f}x, target <= {target:g}x")
    print(
        COLUMNS.format(
            name,
            fmt_seconds(matched_s),
            fmt_seconds(exact_s),
            f"{ratio:.2f}x",
            f"<={target:g}x" if target is not None else "",
            status,
        )
    )


def compare(
    name: str,
    mode: str,
    args_mode: str,
    pair: TrajectoryPair,
    matched_reference: list[Message],
    exact_reference: list[Message],
    target: float | None,
    misses: list[str],
) -> None:
    with_matchers = evaluate(mode, args_mode, pair.outputs, matched_reference)
    exact = evaluate(mode, args_mode, pair.outputs, exact_reference)
    for label, call in (("matchers", with_matchers), ("exact", exact)):
        result = call()
        if result["score"] is not True:
            misses.append(f"{name}: the {label} reference did not match: {result['comment']}")
            return
    matched_s, exact_s = time_pair(with_matchers, exact)
    assert exact_s is not None
    row(name, matched_s, exact_s, target, misses)


def main() -> int:
    print(f"Python {platform.python_version()} | {platform.platform()}")
    print("times are medians per evaluator call; ratio = with matchers / exact")
    misses: list[str] = []
    print("\n== 1. 1,000 calls over 6 tools, a Regex in every call, exact args")
    print(COLUMNS.format("case", "matchers", "exact", "ratio", "target", "status"))
    for mode in ("strict", "unordered"):
        pair = make_pair(1000, seed=707, permute=mode != "strict")
        regex = as_dicts(pair.reference, regex_query)
        label = f"{mode}{' (permuted)' if mode != 'strict' else ''}"
        compare(
            f"{label} vs exact dicts",
            mode,
            "exact",
            pair,
            regex,
            as_dicts(pair.reference),
            TARGET,
            misses,
        )
        compare(
            f"{label} vs exact JSON text (fast path)",
            mode,
            "exact",
            pair,
            regex,
            pair.reference,
            None,
            misses,
        )

    print("\n== 2. Regex, ANY and Approx in every call; superset args")
    print(COLUMNS.format("case", "matchers", "exact", "ratio", "target", "status"))
    pair = make_pair(1000, seed=808, permute=True)
    compare(
        "unordered, 3 matchers per call vs exact dicts",
        "unordered",
        "exact",
        pair,
        as_dicts(pair.reference, three_matchers),
        as_dicts(pair.reference),
        TARGET,
        misses,
    )
    compare(
        "unordered, superset args, Regex vs exact dicts",
        "unordered",
        "superset",
        pair,
        as_dicts(pair.reference, regex_without_ids),
        as_dicts(pair.reference, without_ids),
        TARGET,
        misses,
    )

    print("\n== 3. in_order mode, a Regex in every call")
    print(COLUMNS.format("case", "matchers", "exact", "ratio", "target", "status"))
    pair = make_pair(1000, seed=909)
    compare(
        "in_order vs exact dicts",
        "in_order",
        "exact",
        pair,
        as_dicts(pair.reference, regex_query),
        as_dicts(pair.reference),
        TARGET,
        misses,
    )

    print("\n== summary")
    print("all targets met" if not misses else "\n".join(f"MISS {m}" for m in misses))
    return 0


if __name__ == "__main__":
    sys.exit(main())
