"""Benchmark the graded metrics (tool-call accuracy and F1) against our own trajectory matcher on
the same inputs, so the cost of grading reads as a ratio.

What it measures (median wall time per evaluator call, ``time.perf_counter``), at 125 to 2,000
tool calls over 6 tool names (``_trajectories.py``):

1. strict-order accuracy on a trajectory made in the reference's order (every call pairs in
   place: linear);
2. any-order accuracy and F1 on a permuted trajectory: by default (Ragas' rule) each tool's
   calls pair in the order of their arguments' text (a sort); with ``best_pairing`` identical
   arguments pair by hashing;
3. the same with 5 calls' arguments changed, so with ``best_pairing`` the maximum-weight
   assignment runs for them;
4. strict-order accuracy with ``allow_extra_calls`` and 10 extra calls spread through the output
   (the in-order pairing's band grows with the number of extra calls, not with their square);
5. the worst case for the assignment: 500 calls of one tool, permuted, 5 changed, with
   ``best_pairing``.

Each row prints our median, the matcher's median on the same pair (``unordered`` mode, which
also pairs every call), and the ratio graded / matcher, then the fitted exponent b of
time ~ a*n^b per metric.

6. growth from 100 to 10,000 calls (permuted, 6 tools), passing and with 5 % of the calls'
   arguments changed: F1, any-order accuracy (Ragas' pairing) and best pairing, the exponent b
   fitted on a log-log scale against the target b <= 1.15. Times are CPU seconds of this process
   (``time.process_time``, median of repeats), which other processes on a loaded machine disturb
   less than wall time; the last row is the floor every metric pays, ``json.loads`` of the same
   argument texts, whose own growth (memory, not work) is in every exponent above it.

It is a report: the exit status is 0 whatever the numbers are.

Run it with ``make bench`` or ``.venv/bin/python benchmarks/bench_graded.py`` (``--growth``:
section 6 alone).
"""

from __future__ import annotations

import gc
import json
import math
import statistics
import sys
from collections.abc import Callable
from time import perf_counter, process_time
from typing import Any

from _trajectories import SINGLE_TOOL, make_pair

from pytest_agenttraj import (
    create_tool_call_accuracy_evaluator,
    create_tool_call_f1_evaluator,
    create_trajectory_match_evaluator,
)

SIZES = (125, 250, 500, 1000, 2000)
MIN_BLOCK_SECONDS = 0.05
REPEATS = 7

Evaluator = Callable[..., dict[str, Any]]


def _median_seconds(evaluator: Evaluator, outputs: Any, reference: Any) -> float:
    times = []
    gc.collect()
    for _ in range(REPEATS):
        loops, started = 0, perf_counter()
        while True:
            evaluator(outputs=outputs, reference_outputs=reference)
            loops += 1
            elapsed = perf_counter() - started
            if elapsed >= MIN_BLOCK_SECONDS or elapsed > 0.5:
                break
        times.append(elapsed / loops)
    return statistics.median(times)


def _changed(reference: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """``reference`` with the arguments of ``count`` calls (spread out) changed."""
    out = json.loads(json.dumps(reference))
    calls = [c for m in out for c in m.get("tool_calls") or []]
    for call in calls[:: max(1, len(calls) // count)][:count]:
        args = json.loads(call["function"]["arguments"])
        args["limit"] = -1
        call["function"]["arguments"] = json.dumps(args)
    return out


def _with_extra_calls(outputs: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    out = list(outputs)
    step = max(1, len(out) // (count + 1))
    for n in range(count, 0, -1):
        extra = {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"function": {"name": "retry_probe", "arguments": json.dumps({"n": n})}}
            ],
        }
        out.insert(n * step, extra)
    return out


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f} ms"


def _exponent(points: list[tuple[int, float]]) -> float:
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


def main() -> None:
    strict = create_tool_call_accuracy_evaluator()
    flexible = create_tool_call_accuracy_evaluator(strict_order=False)
    best = create_tool_call_accuracy_evaluator(strict_order=False, best_pairing=True)
    extra = create_tool_call_accuracy_evaluator(allow_extra_calls=True)
    f1 = create_tool_call_f1_evaluator()
    matcher = create_trajectory_match_evaluator(trajectory_match_mode="unordered")
    cases: list[tuple[str, Evaluator, Callable[[int], tuple[Any, Any]]]] = [
        ("accuracy, strict, in order", strict, lambda n: _pair(n, permute=False)),
        ("accuracy, any order, permuted", flexible, lambda n: _pair(n, permute=True)),
        ("accuracy, best pairing, permuted", best, lambda n: _pair(n, permute=True)),
        ("f1, permuted", f1, lambda n: _pair(n, permute=True)),
        ("accuracy, any order, 5 changed", flexible, lambda n: _pair(n, permute=True, changed=5)),
        ("accuracy, best pairing, 5 changed", best, lambda n: _pair(n, permute=True, changed=5)),
        ("f1, 5 changed", f1, lambda n: _pair(n, permute=True, changed=5)),
        ("accuracy, extra calls allowed, 10 extra", extra, lambda n: _pair(n, extra=10)),
    ]
    print(f"{'case':<40} {'calls':>6} {'graded':>11} {'matcher':>11} {'ratio':>7}")
    for title, evaluator, build in cases:
        points = []
        for n in SIZES:
            outputs, reference = build(n)
            ours = _median_seconds(evaluator, outputs, reference)
            base = _median_seconds(matcher, outputs, reference)
            points.append((n, ours))
            print(f"{title:<40} {n:>6} {_ms(ours)} {_ms(base)} {ours / base:>6.1f}x")
        print(f"{title:<40} fitted exponent b = {_exponent(points):.2f}\n")
    pair = make_pair(500, seed=11, tool_names=SINGLE_TOOL, permute=True)
    outputs, reference = pair.outputs, _changed(pair.reference, 5)
    base = _median_seconds(matcher, outputs, reference)
    for title, evaluator in (
        ("one tool, any order, 5 changed", flexible),
        ("... best pairing", best),
    ):
        ours = _median_seconds(evaluator, outputs, reference)
        print(f"{title:<40} {500:>6} {_ms(ours)} {_ms(base)} {ours / base:>6.1f}x")
    growth()


GROWTH_SIZES = (100, 300, 1000, 3000, 10000)
GROWTH_TARGET = 1.15


def _cpu_median(call: Callable[[], object], n: int) -> float:
    """Median CPU seconds of ``call`` (fewer repeats for the large sizes)."""
    call()
    loops = max(1, 2000 // n)
    times = []
    for _ in range(5 if n < 10000 else 3):
        started = process_time()
        for _ in range(loops):
            call()
        times.append((process_time() - started) / loops)
    return statistics.median(times)


def growth() -> None:
    """Section 6: exponents from 100 to 10,000 calls, passing and with changed arguments."""
    metrics: list[tuple[str, Evaluator]] = [
        ("f1", create_tool_call_f1_evaluator()),
        ("accuracy, any order", create_tool_call_accuracy_evaluator(strict_order=False)),
        (
            "accuracy, best pairing",
            create_tool_call_accuracy_evaluator(strict_order=False, best_pairing=True),
        ),
    ]
    print(f"\n== 6. growth {GROWTH_SIZES[0]} -> {GROWTH_SIZES[-1]} calls (CPU time, median)")
    print(f"{'case':<44} " + " ".join(f"{n:>9}" for n in GROWTH_SIZES) + "  exponent")
    pairs = {n: _pair(n, permute=True) for n in GROWTH_SIZES}
    changed = {n: (pairs[n][0], _changed(pairs[n][1], n // 20)) for n in GROWTH_SIZES}
    for title, evaluator in metrics:
        for variant, inputs in (("passing", pairs), ("5 % args changed", changed)):
            points = [(n, _cpu_median(_bound(evaluator, *inputs[n]), n)) for n in GROWTH_SIZES]
            _growth_row(f"{title}, {variant}", points)
    floor = []
    for n in GROWTH_SIZES:
        texts = [c["function"]["arguments"] for m in pairs[n][0] for c in m.get("tool_calls") or []]
        floor.append((n, _cpu_median(lambda texts=texts: [json.loads(t) for t in texts], n)))
    _growth_row("floor: json.loads of the output's arguments", floor, target=False)


def _bound(evaluator: Evaluator, outputs: Any, reference: Any) -> Callable[[], object]:
    return lambda: evaluator(outputs=outputs, reference_outputs=reference)


def _growth_row(title: str, points: list[tuple[int, float]], *, target: bool = True) -> None:
    b = _exponent(points)
    status = ("PASS" if b <= GROWTH_TARGET else "MISS") if target else ""
    times = " ".join(f"{t * 1000:7.1f}ms" for _, t in points)
    print(f"{title:<44} {times}  b = {b:.2f} {status}")


def _pair(n: int, *, permute: bool = False, changed: int = 0, extra: int = 0) -> tuple[Any, Any]:
    pair = make_pair(n, seed=7, permute=permute)
    reference = _changed(pair.reference, changed) if changed else pair.reference
    outputs = _with_extra_calls(pair.outputs, extra) if extra else pair.outputs
    return outputs, reference


if __name__ == "__main__":
    if sys.argv[1:] == ["--growth"]:
        growth()
    else:
        main()
