"""Benchmark graph trajectories: what recording a LangGraph run costs, and how matching grows.

What it measures (wall time, ``time.perf_counter``, the calls compared timed in turn):

1. capture overhead: ``record_graph_trajectory(graph, input)`` against ``graph.invoke(input)``
   on the 7-node workflow of ``examples/graph_workflows.py`` and on a 200-node chain, printed as
   the ratio of medians record / invoke (target: at most 1.3x);
2. matching paths of 1,250 to 10,000 nodes (every fourth entry a superstep of three nodes) in
   each mode, passing, and the fitted exponent b of time ~ a*n^b (target: at most 1.1, linear);
   then one node changed near the end, so that every mode fails and explains (no target). Matching
   is timed in CPU time (``time.process_time``), the best of 15 blocks per size, so that other
   work on a shared machine does not bend the curve;
3. strict matching against agentevals' ``graph_trajectory_strict_match`` on flat paths of 10 to
   100,000 nodes, passing and failing at the start and near the end, ratio ours / agentevals
   (target: below 1), with the C loop and again without it where it is built.

It is a report: the exit status is 0 whatever the numbers are. Run it with ``make bench`` or
``.venv/bin/python benchmarks/bench_graph.py``.
"""

from __future__ import annotations

import math
import operator
import platform
import statistics
import sys
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from time import perf_counter, process_time
from typing import Annotated, Any, TypedDict

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT / "examples"))

from graph_workflows import workflow  # noqa: E402
from langgraph.graph import START, StateGraph  # noqa: E402

from pytest_agenttraj import match_graph_trajectories  # noqa: E402
from pytest_agenttraj.core.graph import GRAPH_MATCH_MODES  # noqa: E402
from pytest_agenttraj.langgraph import record_graph_trajectory  # noqa: E402

SIZES: tuple[int, ...] = (1250, 2500, 5000, 10000)
CAPTURE_TARGET = 1.3
EXPONENT_TARGET = 1.1
MIN_BLOCK_SECONDS = 0.05


class Chain(TypedDict, total=False):
    count: Annotated[int, operator.add]


def chain(length: int) -> Any:
    """``n0 -> n1 -> ... -> n{length-1}``, each adding one to a counter."""
    graph = StateGraph(Chain)
    for index in range(length):
        graph.add_node(f"n{index}", lambda _state: {"count": 1})
    graph.add_edge(START, "n0")
    for index in range(length - 1):
        graph.add_edge(f"n{index}", f"n{index + 1}")
    return graph.compile()


def _block(
    fn: Callable[[], object], loops: int, clock: Callable[[], float] = perf_counter
) -> float:
    started = clock()
    for _ in range(loops):
        fn()
    return (clock() - started) / loops


def _loops(fn: Callable[[], object]) -> int:
    once = _block(fn, 1)
    return max(1, math.ceil(MIN_BLOCK_SECONDS / max(once, 1e-9)))


def interleaved(
    first: Callable[[], object], second: Callable[[], object], repeats: int
) -> tuple[float, float]:
    """Median seconds per call of each, their blocks alternating so that drift hits both."""
    loops = max(_loops(first), _loops(second))
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        times[0].append(_block(first, loops))
        times[1].append(_block(second, loops))
    return statistics.median(times[0]), statistics.median(times[1])


def best_times(fns: Sequence[Callable[[], object]], repeats: int = 15) -> list[float]:
    """The best (least disturbed) seconds per call of each, their blocks taken in turn so that
    a busy moment of the machine hits every size alike."""
    loops = [_loops(fn) for fn in fns]
    best = [math.inf] * len(fns)
    for _ in range(repeats):
        for index, fn in enumerate(fns):
            best[index] = min(best[index], _block(fn, loops[index], process_time))
    return best


def fit_exponent(sizes: Sequence[int], seconds: Sequence[float]) -> float:
    """Least-squares slope of log(time) against log(size)."""
    xs = [math.log(n) for n in sizes]
    ys = [math.log(s) for s in seconds]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


def fmt(seconds: float) -> str:
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


def verdict(value: float, target: float) -> str:
    return "PASS" if value <= target else "MISS"


def capture_rows() -> None:
    print("\n1. capture overhead: record_graph_trajectory / graph.invoke (target <= 1.3x)")
    seven = workflow()
    cases = [
        ("7-node workflow", seven, {"shortcut": False}, {}, 41),
        ("200-node chain", chain(200), {"count": 0}, {"recursion_limit": 1000}, 21),
    ]
    for label, graph, given, config, repeats in cases:
        _, trajectory = record_graph_trajectory(graph, given, config)
        assert trajectory["results"][0] == graph.invoke(given, config)
        plain, recorded = interleaved(
            lambda g=graph, i=given, c=config: g.invoke(i, c),
            lambda g=graph, i=given, c=config: record_graph_trajectory(g, i, c),
            repeats,
        )
        ratio = recorded / plain
        print(
            f"   {label:<18} invoke {fmt(plain):>10}   record {fmt(recorded):>10}   "
            f"ratio {ratio:.2f}x   {verdict(ratio, CAPTURE_TARGET)}"
        )


def path(nodes: int) -> list[Any]:
    """About ``nodes`` node names: every fourth entry a superstep of three."""
    out: list[Any] = []
    count = 0
    while count < nodes:
        index = len(out)
        if index % 4 == 3:
            out.append([f"fan{index}a", f"fan{index}b", f"fan{index}c"])
            count += 3
        else:
            out.append(f"step{index % 50}")
            count += 1
    return out


def matching_rows() -> None:
    print("\n2. matching n-node paths, passing (target: exponent b <= 1.1)")
    print(f"   {'mode':<10}" + "".join(f"{n:>12,}" for n in SIZES) + "   exponent b")
    for mode in GRAPH_MATCH_MODES:
        calls = []
        for size in SIZES:
            output, reference = {"steps": [path(size)]}, {"steps": [path(size)]}
            assert match_graph_trajectories(output, reference, mode=mode).matched
            calls.append(
                lambda o=output, r=reference, m=mode: match_graph_trajectories(o, r, mode=m)
            )
        series = best_times(calls)
        exponent = fit_exponent(SIZES, series)
        cells = "".join(f"{fmt(s):>12}" for s in series)
        print(f"   {mode:<10}{cells}   {exponent:.2f} {verdict(exponent, EXPONENT_TARGET)}")
    print("\n   10,000 nodes, one changed near the end (every mode fails and explains; no target)")
    output = {"steps": [path(10000)]}
    changed = path(10000)
    changed[-2] = "changed"
    reference = {"steps": [changed]}
    for mode in GRAPH_MATCH_MODES:
        assert not match_graph_trajectories(output, reference, mode=mode).matched
    failing = best_times(
        [
            lambda m=mode: match_graph_trajectories(output, reference, mode=m)
            for mode in GRAPH_MATCH_MODES
        ]
    )
    for mode, seconds in zip(GRAPH_MATCH_MODES, failing, strict=True):
        print(f"   {mode:<10}{fmt(seconds):>12}")


def agentevals_rows() -> None:
    """Strict matches of flat paths against agentevals' ``graph_trajectory_strict_match``, both
    sides built apart (as a reference read from a file is): passing, and one node changed at the
    start / near the end; medians of interleaved blocks, ratio ours / agentevals. With the C
    loop (``core/graph/_names.c``) when it is built, then again without it, as an install where
    it could not be built compares."""
    from pytest_agenttraj.core.graph import match

    loop = match.shared_names
    print("\n3. strict match vs agentevals, flat paths (target: ratio < 1 at every size)")
    if loop is None:
        print("   (the C loop is not built here: Python's comparison)")
    _agentevals_sizes()
    if loop is not None:
        print("   without the C loop (Python's comparison, as where it is not built):")
        match.shared_names = None
        try:
            _agentevals_sizes()
        finally:
            match.shared_names = loop


def _agentevals_sizes() -> None:
    from agentevals.graph_trajectory.strict import graph_trajectory_strict_match as theirs

    from pytest_agenttraj import graph_trajectory_strict_match as ours

    for size in (10, 100, 1000, 10000, 100000):
        cells = []
        for case in ("passing", "start", "end"):
            reference = [f"step{i % 50}" for i in range(size)]
            if case != "passing":
                reference[1 if case == "start" else -2] = "changed"
            out = {"steps": [[f"step{i % 50}" for i in range(size)]]}
            ref = {"steps": [reference]}
            mine, peer = interleaved(
                lambda o=out, r=ref: ours(outputs=o, reference_outputs=r),
                lambda o=out, r=ref: theirs(outputs=o, reference_outputs=r),
                9,
            )
            cells.append(f"{case} {fmt(mine)} / {fmt(peer)} = {mine / peer:.2f}x")
        print(f"   {size:>7,}  " + "   ".join(cells))


def main() -> int:
    print(
        f"pytest-agenttraj graph benchmark: Python {platform.python_version()}, "
        f"langgraph {metadata.version('langgraph')}"
    )
    capture_rows()
    matching_rows()
    agentevals_rows()
    return 0


if __name__ == "__main__":
    sys.exit(main())
