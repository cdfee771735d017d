"""Benchmark pytest-agenttraj's trajectory matcher against openevals, in the same run.

What it measures (median wall time per evaluator call, ``time.perf_counter``):

1. a small trajectory (6 messages, 2 tool calls) in all four trajectory match modes;
2. 1,000 tool calls over 6 tool names, each trajectory match mode; then the same with one call's
   arguments changed, so that every mode fails (no target: the cost of explaining);
3. 1,000 tool calls that all use the same tool name, output permuted (openevals' greedy
   pairing is quadratic here);
4. subset/superset argument matching and a callable override at 1,000 calls;
5. scaling of our matcher from 125 to 4,000 calls (fitted exponent b of time ~ a*n^b);
6. import cost of ``import pytest_agenttraj`` vs ``import openevals`` in fresh processes
   (bytecode of both cached alike in a temporary ``PYTHONPYCACHEPREFIX``), and whether
   importing our package pulls in ``langchain_core`` / ``langsmith``;
7. what users pass: the LangChain messages of a ``create_agent`` run (the weather agent of
   ``examples/``) against its chat-dict reference (also in the flat form reference files are read
   into), passing and (no target) regressed, and 1,000 calls of one tool permuted inside their
   messages in strict mode;
8. the failing path and first-fit's quadratic case: every call's arguments changed (unordered),
   and identical output calls against references with distinct ids (subset args), at 1,000
   calls and growing to 10,000 (fitted exponent);
9. 100,000 calls, ours only: ``in_order`` against ``unordered`` on the same passing pair
   (interleaved medians, ratio, target <= 1.5x), and the peak memory each evaluation adds
   (``tracemalloc``, target <= +40 MB), then a failing ``unordered`` evaluation (one call's
   arguments changed; target <= +60 MB).

Both implementations are called through the same public API
(``create_trajectory_match_evaluator(...)(outputs=..., reference_outputs=...)``) on the same
generated inputs (see ``_trajectories.py``), timed interleaved, and each row prints the
ratio of medians (openevals / ours) beside its target with PASS/MISS. Before timing a case
both scores are compared; a disagreement is printed as a warning row. It is a report: the
exit status is 0 whatever the numbers are.

Run it with ``make bench`` or ``.venv/bin/python benchmarks/bench_matching.py``.
Set ``AGENTTRAJ_BENCH_SELFTEST=1`` to benchmark openevals against itself (ratios ~ 1),
which checks the script end to end without our package.
"""

from __future__ import annotations

import gc
import importlib
import json
import json.scanner
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from time import perf_counter
from typing import Any, cast

from _trajectories import SINGLE_TOOL, TrajectoryPair, make_pair, with_extra_key

Evaluator = Callable[..., dict[str, Any]]
EvaluatorFactory = Callable[..., Evaluator]

SELFTEST_ENV = "AGENTTRAJ_BENCH_SELFTEST"
REPO_ROOT = Path(__file__).resolve().parent.parent
MODES: tuple[str, ...] = ("strict", "unordered", "subset", "superset")
SCALING_SIZES: tuple[int, ...] = (125, 250, 500, 1000, 2000, 4000)
OPENEVALS_SCALING_CAP = 2000
MIN_BLOCK_SECONDS = 0.05  # each timed block loops the call until it lasts at least this
SLOW_CALL_SECONDS = 0.2  # calls slower than this get fewer repeats
IMPORT_RUNS = 5
FORBIDDEN_MODULES: tuple[str, ...] = ("langchain_core", "langsmith")


# --------------------------------------------------------------------------- setup


@dataclass(frozen=True)
class Subject:
    """The implementation under test: its evaluator factory and importable module name."""

    label: str
    factory: EvaluatorFactory
    module: str
    version: str


def load_subjects() -> tuple[Subject, Subject]:
    """Return (openevals, ours); in self-test mode "ours" is openevals again."""
    from openevals.trajectory.match import create_trajectory_match_evaluator

    # openevals types its evaluator as a Protocol; the benchmark only needs "callable".
    oe_create = cast(EvaluatorFactory, create_trajectory_match_evaluator)
    reference = Subject("openevals", oe_create, "openevals", metadata.version("openevals"))
    if os.environ.get(SELFTEST_ENV) == "1":
        return reference, Subject("openevals(self)", oe_create, "openevals", reference.version)
    try:
        ours_module = importlib.import_module("pytest_agenttraj")
        factory = ours_module.create_trajectory_match_evaluator
    except (ImportError, AttributeError) as exc:
        sys.exit(
            f"cannot import create_trajectory_match_evaluator from pytest_agenttraj ({exc});\n"
            f"set {SELFTEST_ENV}=1 to benchmark openevals against itself instead."
        )
    version = str(getattr(ours_module, "__version__", "?"))
    return reference, Subject("pytest-agenttraj", factory, "pytest_agenttraj", version)


def header_line(reference: Subject, ours: Subject) -> str:
    try:
        lc_version = metadata.version("langchain-core")
    except metadata.PackageNotFoundError:
        lc_version = "absent"
    mode = " [SELFTEST: openevals vs itself]" if ours.factory is reference.factory else ""
    return (
        f"Python {platform.python_version()} | {platform.platform()} | "
        f"{os.cpu_count()} CPUs | {ours.label} {ours.version}, openevals {reference.version}, "
        f"langchain-core {lc_version}{mode}"
    )


# --------------------------------------------------------------------------- timing


def _time_block(fn: Callable[[], object], loops: int) -> float:
    start = perf_counter()
    for _ in range(loops):
        fn()
    return perf_counter() - start


def _calibrate(fn: Callable[[], object]) -> tuple[int, float]:
    """Return (loops, seconds per call) so that one block lasts >= MIN_BLOCK_SECONDS."""
    loops = 1
    while True:
        elapsed = _time_block(fn, loops)
        if elapsed >= MIN_BLOCK_SECONDS or loops >= 1_000_000:
            return loops, elapsed / loops
        loops *= 2 if elapsed > MIN_BLOCK_SECONDS / 4 else 8


def _repeats_for(seconds_per_call: float) -> int:
    return 3 if seconds_per_call >= SLOW_CALL_SECONDS else 7


def time_pair(
    fn_a: Callable[[], object], fn_b: Callable[[], object] | None
) -> tuple[float, float | None]:
    """Median seconds per call of ``fn_a`` and ``fn_b``, with their repeats interleaved."""
    gc.collect()
    loops_a, per_call_a = _calibrate(fn_a)
    calibration_b = _calibrate(fn_b) if fn_b is not None else (0, 0.0)
    repeats = _repeats_for(max(per_call_a, calibration_b[1]))
    samples_a: list[float] = []
    samples_b: list[float] = []
    for _ in range(repeats):
        samples_a.append(_time_block(fn_a, loops_a) / loops_a)
        if fn_b is not None:
            samples_b.append(_time_block(fn_b, calibration_b[0]) / calibration_b[0])
    median_b = statistics.median(samples_b) if samples_b else None
    return statistics.median(samples_a), median_b


def fit_exponent(sizes: Sequence[int], seconds: Sequence[float]) -> float:
    """Least-squares slope of log(time) against log(n)."""
    fit = statistics.linear_regression([math.log(n) for n in sizes], [math.log(t) for t in seconds])
    return fit.slope


# --------------------------------------------------------------------------- report


def fmt_seconds(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


@dataclass
class Report:
    """Prints the table rows and remembers misses and warnings for the summary."""

    misses: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    COLUMNS = "{:<44} {:>6} {:>11} {:>11} {:>9} {:>8} {:>7}"

    def section(self, title: str) -> None:
        print(f"\n== {title}")
        print(
            self.COLUMNS.format("case", "calls", "openevals", "ours", "ratio", "target", "status")
        )

    def check(self, name: str, value: float, op: str, target: float, unit: str = "") -> str:
        """Return PASS/MISS; a miss is remembered with how far off it is."""
        ok = value >= target if op == ">=" else value <= target
        if not ok:
            gap = f"{target / value:.1f}x short" if op == ">=" else f"{value - target:.2f} over"
            self.misses.append(f"{name}: {value:.3g}{unit}, target {op}{target:g}{unit} ({gap})")
        return "PASS" if ok else "MISS"

    def timing_row(
        self, name: str, n_calls: int, oe_s: float, ours_s: float, target: float | None
    ) -> float:
        ratio = oe_s / ours_s
        status = self.check(name, ratio, ">=", target, "x") if target is not None else ""
        target_text = f">={target:g}x" if target is not None else ""
        print(
            self.COLUMNS.format(
                name,
                n_calls,
                fmt_seconds(oe_s),
                fmt_seconds(ours_s),
                f"{ratio:.1f}x",
                target_text,
                status,
            )
        )
        return ratio

    def warning_row(self, text: str) -> None:
        self.warnings.append(text)
        print(f"  !! WARNING: {text}")

    def note_row(self, text: str) -> None:
        print(f"  note: {text}")

    def summary(self) -> None:
        print("\n== summary")
        if not self.misses and not self.warnings:
            print("all targets met, no score disagreements")
        for miss in self.misses:
            print(f"MISS {miss}")
        for warning in self.warnings:
            print(f"WARN {warning}")


# --------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Config:
    """One evaluator configuration (keyword arguments of the factory)."""

    mode: str
    args_mode: str = "exact"
    overrides: dict[str, Any] | None = None

    @property
    def exact_args(self) -> bool:
        return self.args_mode == "exact" and not self.overrides

    def build(self, factory: EvaluatorFactory) -> Evaluator:
        kwargs: dict[str, Any] = {
            "trajectory_match_mode": self.mode,
            "tool_args_match_mode": self.args_mode,
        }
        if self.overrides is not None:
            kwargs["tool_args_match_overrides"] = self.overrides
        return factory(**kwargs)


def _caller(evaluator: Evaluator, pair: TrajectoryPair) -> Callable[[], dict[str, Any]]:
    outputs, reference = pair.outputs, pair.reference
    return lambda: evaluator(outputs=outputs, reference_outputs=reference)


def check_scores(
    report: Report, name: str, config: Config, oe_score: object, ours_score: object
) -> None:
    """Warn when the two scores differ, unless ours is a legitimately better match."""
    if oe_score is not True and ours_score is not True:
        report.warning_row(f"{name}: neither implementation matched (generator bug?)")
    elif oe_score == ours_score:
        return
    elif ours_score is True and not config.exact_args:
        report.note_row(
            f"{name}: ours True, openevals False (greedy pairing miss; allowed for non-exact args)"
        )
    else:
        report.warning_row(f"{name}: scores differ: openevals={oe_score!r}, ours={ours_score!r}")


def compare_case(
    report: Report,
    reference: Subject,
    ours: Subject,
    name: str,
    config: Config,
    pair: TrajectoryPair,
    target: float | None,
) -> tuple[float, float]:
    """Check scores, time both implementations, print the row; return (openevals, ours) s."""
    oe_call, ours_call = _callers(reference, ours, config, pair)
    check_scores(report, name, config, oe_call()["score"], ours_call()["score"])
    return _timed_row(report, name, pair, oe_call, ours_call, target)


def _callers(
    reference: Subject, ours: Subject, config: Config, pair: TrajectoryPair
) -> tuple[Callable[[], dict[str, Any]], Callable[[], dict[str, Any]]]:
    """openevals' and our evaluator under ``config``, each bound to ``pair``."""
    return _caller(config.build(reference.factory), pair), _caller(config.build(ours.factory), pair)


def _timed_row(
    report: Report,
    name: str,
    pair: TrajectoryPair,
    oe_call: Callable[[], dict[str, Any]],
    ours_call: Callable[[], dict[str, Any]],
    target: float | None,
) -> tuple[float, float]:
    """Time both calls interleaved and print the row; return (openevals, ours) s."""
    oe_s, ours_s = time_pair(oe_call, ours_call)
    assert ours_s is not None
    report.timing_row(name, pair.n_calls, oe_s, ours_s, target)
    return oe_s, ours_s


def _argument_texts(pair: TrajectoryPair) -> list[str]:
    """The distinct tool-call argument texts of both sides."""
    texts = {
        call["function"]["arguments"]
        for side in (pair.outputs, pair.reference)
        for message in side
        for call in message.get("tool_calls", ())
    }
    return sorted(texts)


def parse_floor_note(report: Report, pair: TrajectoryPair, openevals_s: dict[str, float]) -> None:
    """Print what parsing each distinct argument text once costs (with the cyclic GC paused, as
    in our evaluations): a floor for any implementation that validates every argument, and so
    the best ratio one could reach against openevals."""
    texts = _argument_texts(pair)
    scan = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]

    def scanned(text: str) -> object:
        return scan(text, 0)

    parsers: tuple[tuple[str, Callable[[str], object]], ...] = (
        ("json.loads", json.loads),
        ("the JSON scanner (as ours)", scanned),
    )
    for what, parse in parsers:

        def parse_all(parse: Callable[[str], object] = parse) -> None:
            gc.disable()  # as during our evaluations
            try:
                for text in texts:
                    parse(text)
            finally:
                gc.enable()

        floor_s, _ = time_pair(parse_all, None)
        ceilings = ", ".join(f"{mode} {oe / floor_s:.0f}x" for mode, oe in openevals_s.items())
        report.note_row(
            f"{what} of the {len(texts)} distinct argument texts, nothing else: "
            f"{fmt_seconds(floor_s)}; openevals / that = {ceilings}"
        )


def case_small(report: Report, reference: Subject, ours: Subject) -> None:
    report.section("1. small trajectory (6 messages), per evaluator call, exact args")
    for mode in MODES:
        pair = make_pair(2, seed=101, max_parallel=1, permute=mode != "strict")
        name = f"small {mode}" + ("" if mode == "strict" else " (permuted)")
        compare_case(report, reference, ours, name, Config(mode), pair, target=10)


def case_many_tools(report: Report, reference: Subject, ours: Subject) -> None:
    report.section("2. 1,000 tool calls over 6 tool names, exact args")
    openevals_s: dict[str, float] = {}
    for mode in MODES:
        pair = make_pair(1000, seed=202, permute=mode != "strict")
        name = f"6 tools {mode}" + ("" if mode == "strict" else " (permuted)")
        openevals_s[mode], _ = compare_case(
            report, reference, ours, name, Config(mode), pair, target=30
        )
    parse_floor_note(report, pair, openevals_s)


def _with_last_call_changed(pair: TrajectoryPair) -> TrajectoryPair:
    """``pair`` whose output's last tool call has other arguments, so that no mode matches."""
    outputs = json.loads(json.dumps(pair.outputs))
    last = next(m for m in reversed(outputs) if m.get("tool_calls"))
    last["tool_calls"][-1]["function"]["arguments"] = json.dumps({"changed": True})
    return TrajectoryPair(outputs=outputs, reference=pair.reference, n_calls=pair.n_calls)


def case_failing(report: Report, reference: Subject, ours: Subject) -> None:
    """No target: what explaining a mismatch costs. A failing evaluation is normalised in full
    and every unpaired call is explained, after the cheap checks that decide passing ones."""
    report.section(
        "2b. 1,000 calls over 6 tools, one call's arguments changed (failing), no target"
    )
    for mode in MODES:
        pair = _with_last_call_changed(make_pair(1000, seed=202, permute=mode != "strict"))
        failing_case(report, reference, ours, f"6 tools {mode}, failing", Config(mode), pair)


def failing_case(
    report: Report,
    reference: Subject,
    ours: Subject,
    name: str,
    config: Config,
    pair: TrajectoryPair,
) -> None:
    """Check that both implementations fail ``pair``, time both, print the row (no target)."""
    oe_call, ours_call = _callers(reference, ours, config, pair)
    if oe_call()["score"] is not False or ours_call()["score"] is not False:
        report.warning_row(f"{name}: expected both implementations to fail it")
    _timed_row(report, name, pair, oe_call, ours_call, None)


def case_single_tool(report: Report, reference: Subject, ours: Subject) -> None:
    report.section("3. 1,000 calls of ONE tool name, permuted, exact args")
    pair = make_pair(1000, seed=303, tool_names=[SINGLE_TOOL], permute=True)
    openevals_s: dict[str, float] = {}
    for mode in MODES[1:]:
        openevals_s[mode], _ = compare_case(
            report, reference, ours, f"one tool {mode}", Config(mode), pair, target=30
        )
    parse_floor_note(report, pair, openevals_s)


def case_args_modes(report: Report, reference: Subject, ours: Subject) -> None:
    report.section("4. 1,000 calls of one tool, permuted, unordered, non-exact args")
    superset_pair = make_pair(
        1000, seed=404, tool_names=[SINGLE_TOOL], permute=True, output_args=with_extra_key
    )
    subset_pair = make_pair(
        1000, seed=404, tool_names=[SINGLE_TOOL], permute=True, reference_args=with_extra_key
    )
    plain_pair = make_pair(1000, seed=404, tool_names=[SINGLE_TOOL], permute=True)
    cases: list[tuple[str, Config, TrajectoryPair]] = [
        ("args=subset (ref has extra key)", Config("unordered", "subset"), subset_pair),
        ("args=superset (output has extra key)", Config("unordered", "superset"), superset_pair),
        (
            "override=callable (o == r)",
            Config("unordered", overrides={SINGLE_TOOL: lambda o, r: o == r}),
            plain_pair,
        ),
    ]
    for name, config, pair in cases:
        compare_case(report, reference, ours, name, config, pair, target=3)


def case_scaling(report: Report, reference: Subject, ours: Subject) -> None:
    report.section(
        "5. scaling: one tool, permuted, unordered "
        f"(openevals measured up to n={OPENEVALS_SCALING_CAP})"
    )
    for args_mode in ("exact", "ignore"):
        config = Config("unordered", args_mode)
        ours_eval, oe_eval = config.build(ours.factory), config.build(reference.factory)
        ours_series: list[float] = []
        oe_series: list[float] = []
        for n in SCALING_SIZES:
            pair = make_pair(n, seed=500 + n, tool_names=[SINGLE_TOOL], permute=True)
            name = f"scaling args={args_mode}"
            ours_call = _caller(ours_eval, pair)
            oe_call = _caller(oe_eval, pair) if n <= OPENEVALS_SCALING_CAP else None
            oe_score = oe_call()["score"] if oe_call is not None else True
            check_scores(report, f"{name} n={n}", config, oe_score, ours_call()["score"])
            ours_s, oe_s = time_pair(ours_call, oe_call)
            ours_series.append(ours_s)
            if oe_s is None:
                print(report.COLUMNS.format(name, n, "-", fmt_seconds(ours_s), "-", "", ""))
            else:
                oe_series.append(oe_s)
                report.timing_row(name, n, oe_s, ours_s, target=None)
        _exponent_rows(report, args_mode, ours_series, oe_series)


def _exponent_rows(
    report: Report, args_mode: str, ours_series: list[float], oe_series: list[float]
) -> None:
    ours_b = fit_exponent(SCALING_SIZES, ours_series)
    oe_b = fit_exponent(SCALING_SIZES[: len(oe_series)], oe_series)
    name = f"exponent b, args={args_mode}"
    status = report.check(f"{name} (ours)", ours_b, "<=", 1.1)
    print(report.COLUMNS.format(name, "", f"{oe_b:.2f}", f"{ours_b:.2f}", "", "<=1.1", status))


def _import_env(pycache: str) -> dict[str, str]:
    """Environment with all bytecode cached under ``pycache``.

    An editable install has no ``.pyc`` files (and ``PYTHONDONTWRITEBYTECODE`` may forbid
    writing them) while site-packages has; a shared temporary ``PYTHONPYCACHEPREFIX``, warmed
    by one run per snippet, puts both packages on the same footing as an ordinary install.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = pycache
    return env


def _wall_time(code: str, env: dict[str, str]) -> float:
    start = perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO_ROOT, env=env)
    return perf_counter() - start


def _median_import_cost(codes: Sequence[str], env: dict[str, str]) -> list[float]:
    """Median wall time of each snippet in a fresh interpreter (interleaved runs)."""
    for code in codes:  # warm the file-system and bytecode caches
        _wall_time(code, env)
    samples: list[list[float]] = [[] for _ in codes]
    for _ in range(IMPORT_RUNS):
        for i, code in enumerate(codes):
            samples[i].append(_wall_time(code, env))
    return [statistics.median(s) for s in samples]


def _loaded_modules(module: str, candidates: Sequence[str], env: dict[str, str]) -> list[str]:
    code = (
        f"import sys, json, {module}; "
        f"print(json.dumps([m for m in {list(candidates)!r} if m in sys.modules]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    loaded: list[str] = json.loads(result.stdout)
    return loaded


def case_import(report: Report, reference: Subject, ours: Subject) -> None:
    print(f"\n== 6. import cost (fresh interpreter, median of {IMPORT_RUNS}, minus `pass`)")
    with tempfile.TemporaryDirectory(prefix="agenttraj-pycache-") as pycache:
        env = _import_env(pycache)
        baseline, oe_total, ours_total = _median_import_cost(
            ["pass", f"import {reference.module}", f"import {ours.module}"], env
        )
        loaded = _loaded_modules(ours.module, FORBIDDEN_MODULES, env)
    oe_s, ours_s = oe_total - baseline, ours_total - baseline
    print(f"interpreter start-up (`python -c pass`): {fmt_seconds(baseline)}")
    print(
        f"import {reference.module}: {fmt_seconds(oe_s)}   import {ours.module}: "
        f"{fmt_seconds(ours_s)}   ratio: {oe_s / max(ours_s, 1e-6):.1f}x"
    )
    ok = not loaded
    if not ok:
        report.misses.append(f"import {ours.module} loads {', '.join(loaded)}")
    listing = ", ".join(loaded) if loaded else "none"
    print(
        f"after `import {ours.module}`, heavy modules in sys.modules "
        f"({', '.join(FORBIDDEN_MODULES)}): {listing}   target: none   "
        f"{'PASS' if ok else 'MISS'}"
    )


# --------------------------------------------------------------------------- what users pass


def _langchain_run(*, regressed: bool = False) -> tuple[list[Any], list[dict[str, Any]]]:
    """The LangChain messages ``create_agent`` returns for the weather agent of ``examples/``
    (driven by a scripted chat model), and the chat-dict reference its tests compare them to;
    ``regressed``: the agent asks for the wrong location's weather, so that no mode matches."""
    sys.path.insert(0, str(REPO_ROOT / "examples"))
    from scripted_agents import WEATHER_QUESTION, WEATHER_REFERENCE, weather_agent  # type: ignore[import-not-found]

    agent = weather_agent(wrong_code=regressed)
    state = agent.invoke({"messages": [{"role": "user", "content": WEATHER_QUESTION}]})
    return list(state["messages"]), WEATHER_REFERENCE


def _flat(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` with their calls in the flat ``{"name", "args"}`` form (arguments as dicts)
    that reference files are read into."""
    out = []
    for message in messages:
        calls = message.get("tool_calls")
        if calls:
            flat = [
                {"name": c["function"]["name"], "args": json.loads(c["function"]["arguments"])}
                for c in calls
            ]
            message = {**message, "tool_calls": flat}
        out.append(message)
    return out


def _permuted_within_messages(pair: TrajectoryPair, seed: int) -> TrajectoryPair:
    """``pair`` whose output shuffles the parallel calls inside each message (strict mode pairs
    calls message by message, in any order within one)."""
    outputs = json.loads(json.dumps(pair.outputs))
    rng = random.Random(seed)
    for message in outputs:
        if message.get("tool_calls"):
            rng.shuffle(message["tool_calls"])
    return TrajectoryPair(outputs=outputs, reference=pair.reference, n_calls=pair.n_calls)


def case_langchain(report: Report, reference: Subject, ours: Subject) -> None:
    report.section("7. what users pass: LangChain messages, calls permuted inside messages")
    outputs, expected = _langchain_run()
    pair = TrajectoryPair(outputs=outputs, reference=expected, n_calls=2)
    for mode in ("strict", "unordered"):
        name = f"create_agent run (6 LangChain msgs) {mode}"
        compare_case(report, reference, ours, name, Config(mode), pair, target=10)
    as_read = TrajectoryPair(outputs=outputs, reference=_flat(expected), n_calls=2)
    for mode in ("strict", "unordered"):
        name = f"create_agent vs file-form reference {mode}"
        compare_case(report, reference, ours, name, Config(mode), as_read, target=10)
    outputs, expected = _langchain_run(regressed=True)
    regressed = TrajectoryPair(outputs=outputs, reference=expected, n_calls=2)
    for mode in ("strict", "unordered"):
        name = f"create_agent run {mode}, failing"
        failing_case(report, reference, ours, name, Config(mode), regressed)
    one_tool = make_pair(1000, seed=505, tool_names=[SINGLE_TOOL])
    permuted = _permuted_within_messages(one_tool, seed=506)
    compare_case(
        report,
        reference,
        ours,
        "one tool strict, permuted in messages",
        Config("strict"),
        permuted,
        target=30,
    )


def _every_call_changed(pair: TrajectoryPair) -> TrajectoryPair:
    """``pair`` whose output changes one value in every call's arguments: nothing pairs."""
    outputs = json.loads(json.dumps(pair.outputs))
    for message in outputs:
        for call in message.get("tool_calls", ()):
            args = json.loads(call["function"]["arguments"])
            args["query"] = args.get("query", "") + "!"
            call["function"]["arguments"] = json.dumps(args)
    return TrajectoryPair(outputs=outputs, reference=pair.reference, n_calls=pair.n_calls)


def _identical_against_distinct(n: int) -> TrajectoryPair:
    """``n`` identical output calls of one tool against ``n`` references that each add an id:
    every output call's args are within every reference call's (subset args)."""
    user = {"role": "user", "content": "find x"}

    def side(args: Callable[[int], dict[str, Any]]) -> list[dict[str, Any]]:
        calls = [
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {
                        "id": f"c{i}",
                        "function": {"name": SINGLE_TOOL, "arguments": json.dumps(args(i))},
                    }
                ],
            }
            for i in range(n)
        ]
        return [user, *calls]

    return TrajectoryPair(
        outputs=side(lambda _: {"query": "x"}),
        reference=side(lambda i: {"query": "x", "request_id": i}),
        n_calls=n,
    )


FAILING_SIZES: tuple[int, ...] = (1000, 2000, 5000, 10000)
OPENEVALS_FAILING_CAP = 2000


def case_hard_inputs(report: Report, reference: Subject, ours: Subject) -> None:
    report.section(
        "8. failing and quadratic-for-first-fit inputs, 1,000 calls; growth to 10,000 "
        f"(openevals measured up to n={OPENEVALS_FAILING_CAP})"
    )
    cases: list[tuple[str, Config, Callable[[int], TrajectoryPair], object]] = [
        (
            "unordered, every call's args differ",
            Config("unordered"),
            lambda n: _every_call_changed(make_pair(n, seed=606, permute=True)),
            False,
        ),
        (
            "subset args, identical vs distinct ids",
            Config("unordered", "subset"),
            _identical_against_distinct,
            True,
        ),
    ]
    for name, config, build, expected in cases:
        ours_eval, oe_eval = config.build(ours.factory), config.build(reference.factory)
        series: list[float] = []
        for n in FAILING_SIZES:
            pair = build(n)
            ours_call = _caller(ours_eval, pair)
            oe_call = _caller(oe_eval, pair) if n <= OPENEVALS_FAILING_CAP else None
            scores = {ours_call()["score"]} | ({oe_call()["score"]} if oe_call else set())
            if scores != {expected}:
                report.warning_row(f"{name} n={n}: scores {scores}, expected {expected!r}")
            ours_s, oe_s = time_pair(ours_call, oe_call)
            series.append(ours_s)
            if oe_s is None:
                print(report.COLUMNS.format(name, n, "-", fmt_seconds(ours_s), "-", "", ""))
            else:
                report.timing_row(name, n, oe_s, ours_s, target=3 if n == 1000 else None)
        exponent = fit_exponent(FAILING_SIZES, series)
        status = report.check(f"{name}: exponent b (ours)", exponent, "<=", 1.2)
        print(report.COLUMNS.format("  exponent b", "", "", f"{exponent:.2f}", "", "<=1.2", status))


LARGE = 100_000


def _added_peak_mb(call: Callable[[], object]) -> float:
    """The peak memory one call adds (``tracemalloc``, in MB), its result dropped first."""
    import tracemalloc

    call()
    gc.collect()
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def case_large(report: Report, _reference: Subject, ours: Subject) -> None:
    print(f"\n== 9. {LARGE:,} calls, ours only: in_order vs unordered, added peak memory")
    pair = make_pair(LARGE, seed=909)
    in_order = _caller(Config("in_order").build(ours.factory), pair)
    unordered = _caller(Config("unordered").build(ours.factory), pair)
    if in_order()["score"] is not True or unordered()["score"] is not True:
        report.warning_row("100,000 calls: expected in_order and unordered to match")
    in_order_s, unordered_s = time_pair(in_order, unordered)
    assert unordered_s is not None
    ratio = in_order_s / unordered_s
    status = report.check("in_order / unordered at 100,000 calls", ratio, "<=", 1.5, "x")
    print(
        f"in_order {fmt_seconds(in_order_s)}, unordered {fmt_seconds(unordered_s)}: "
        f"{ratio:.2f}x   target <=1.5x   {status}"
    )
    failing = _caller(Config("unordered").build(ours.factory), _with_last_call_changed(pair))
    for name, call, target in (
        ("in_order, passing", in_order, 40.0),
        ("unordered, passing", unordered, None),
        ("unordered, failing (one call changed)", failing, 60.0),
    ):
        added = _added_peak_mb(call)
        if target is None:
            print(f"{name}: +{added:.0f} MB peak")
            continue
        status = report.check(f"{name} at 100,000 calls, added peak", added, "<=", target, " MB")
        print(f"{name}: +{added:.0f} MB peak   target <=+{target:g} MB   {status}")


# --------------------------------------------------------------------------- main


def main() -> int:
    reference, ours = load_subjects()
    print(header_line(reference, ours))
    print("times are medians per evaluator call; ratio = openevals / ours")
    report = Report()
    start = perf_counter()
    case_small(report, reference, ours)
    case_many_tools(report, reference, ours)
    case_failing(report, reference, ours)
    case_single_tool(report, reference, ours)
    case_args_modes(report, reference, ours)
    case_scaling(report, reference, ours)
    case_import(report, reference, ours)
    case_langchain(report, reference, ours)
    case_hard_inputs(report, reference, ours)
    case_large(report, reference, ours)
    report.summary()
    print(f"(benchmark took {perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
