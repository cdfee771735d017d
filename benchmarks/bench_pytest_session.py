"""What pytest-agenttraj costs inside whole pytest sessions (a report, not a test).

Users pay for the plugin in real pytest runs, not in microbenchmarks, so every number here is the
wall time (and CPU time) of a fresh ``python -m pytest`` process on a generated project, the
variants being compared run interleaved (one of each per round, in a shuffled order) after a
discarded warm-up:

1. **Plain tests, plugin installed vs ``-p no:agenttraj``**: 1,000, 2,000 and 3,000 trivial
   tests in files of 100 that never touch the plugin. Target: at most 1 % more (a test that
   uses nothing of the plugin pays nothing measurable), judged on the deterministic part: what
   the plugin itself runs inside the same sessions (``_hook_timer.py``: its import, its
   registration, the fixtures pytest looks for in its plugins and every hook), against a
   session's time without the plugin, at every size. The sessions' own times are printed too
   (their medians, and the mean of the rounds' paired differences with its standard error),
   with the fastest session of each side and the garbage collector's collections on either
   side: a full collection more or less, which the number of tests decides, moves a session
   by tens of milliseconds, and the sessions move by several percent between runs, more than
   the plugin costs. What the timer cannot see, the interpreter's exit after pytest returns,
   is ``bench_startup.py --only exit``.
2. **1,000 tests each evaluating a 6-message LangChain trajectory** (the weather agent's messages,
   made once per module by a real ``create_agent`` run on a scripted chat model):

   - ``plain``: the same tests, the messages built, nothing evaluated (the floor);
   - ``fixture``: the ``assert_trajectory`` fixture;
   - ``function``: ``pytest_agenttraj.assert_trajectory`` imported in the test module;
   - ``openevals``: openevals' ``create_trajectory_match_evaluator`` called in the test and its
     score asserted, as teams do today.

   Cost per test = (median session time - median ``plain`` time) / 1,000; the ratio
   ``openevals / ours`` has the target at least 3x. Serially and under ``-n 2``. Also the
   median time of one test inside its session, setup to teardown (timed by the projects'
   conftest in whichever process runs the test, see ``_test_timer.py``), over the plain
   tests': what a typical test costs, without the start-up and exit that move a session's time
   between runs (and, under ``-n 2``, the workers' start-up), and without what only the first
   test pays.

3. **The same four variants in one session**, their tests interleaved test by test (``plain``,
   ``fixture``, ``function``, ``openevals``, ...): each variant's median test time, setup to
   teardown, over the plain tests', every variant measured in the same process at the same
   moments, so that nothing that moves between processes (start-up, the machine's load, where
   the interpreter's memory lies) weighs on one side only. Serially and under ``-n 2``.

Medians of ``--runs`` interleaved runs (default 9 for case 1, 7 for case 2, 5 for case 3);
the interquartile range is printed so that a noisy machine shows. Bytecode is cached in a temporary
``PYTHONPYCACHEPREFIX`` as in ``bench_startup.py``. The exit status is 0 whatever the numbers.

Run it with ``make bench`` or ``.venv/bin/python benchmarks/bench_pytest_session.py [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from time import perf_counter
from typing import Any

from _test_timer import (
    CONFTEST as TIMER_CONFTEST,
    clear_test_times,
    read_group_medians,
    read_test_median,
)
from bench_startup import child_env, header_line

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
PLAIN_TARGET_PERCENT = 1.0
EVALUATION_TARGET_RATIO = 3.0

INI = """[pytest]
asyncio_default_fixture_loop_scope = function
"""

PLAIN_TEST = "def test_{i}():\n    assert {i} + 1 == {j}\n\n\n"

CONFTEST = f"""
import sys

sys.path.insert(0, {str(EXAMPLES)!r})
{TIMER_CONFTEST}
"""

# The weather agent's run, made once per test module by a real create_agent agent; its
# reference in the chat-completion form openevals documents.
MODULE_HEAD = """
from scripted_agents import WEATHER_QUESTION, weather_agent, weather_reference

MESSAGES = weather_agent().invoke({"messages": [WEATHER_QUESTION]})["messages"]
REFERENCE = weather_reference()
"""

BODIES = {
    "plain": (
        "",
        "def test_{i}():\n    assert len(MESSAGES) == len(REFERENCE)\n\n\n",
    ),
    "fixture": (
        "",
        "def test_{i}(assert_trajectory):\n    assert_trajectory(MESSAGES, REFERENCE)\n\n\n",
    ),
    "function": (
        "from pytest_agenttraj import assert_trajectory\n",
        "def test_{i}():\n    assert_trajectory(MESSAGES, REFERENCE)\n\n\n",
    ),
    "openevals": (
        "from openevals.trajectory.match import create_trajectory_match_evaluator\n"
        "EVALUATOR = create_trajectory_match_evaluator(trajectory_match_mode='strict')\n",
        "def test_{i}():\n"
        "    result = EVALUATOR(outputs=MESSAGES, reference_outputs=REFERENCE)\n"
        "    assert result['score'], result['comment']\n\n\n",
    ),
}


@dataclass(frozen=True)
class Timing:
    """Wall and CPU seconds (the child's user + system) of one session, and the median time of
    one of its tests inside the session (setup to teardown; 0 where not measured)."""

    wall: float
    cpu: float
    test: float = 0.0


def write_project(root: Path, files: int, per_file: int, variant: str | None) -> None:
    """A project of ``files`` x ``per_file`` tests: trivial ones, or those of ``variant``."""
    root.mkdir(parents=True)
    (root / "pytest.ini").write_text(INI)
    if variant is not None:
        (root / "conftest.py").write_text(CONFTEST)
    for f in range(files):
        if variant is None:
            # numbered across files, so that no two tests share their code (as in a project)
            numbers = range(f * per_file, (f + 1) * per_file)
            text = "".join(PLAIN_TEST.format(i=i, j=i + 1) for i in numbers)
        else:
            head, body = BODIES[variant]
            text = MODULE_HEAD + head + "\n\n" + "".join(body.format(i=i) for i in range(per_file))
        (root / f"test_{f:03d}.py").write_text(text)


def run_session(argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> Timing:
    """One pytest session; a failing one aborts the benchmark (it measured nothing)."""
    clear_test_times(cwd)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"session failed ({done.returncode}) in {cwd}:\n{done.stdout[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timing(wall, cpu, read_test_median(cwd))


def interleaved(
    sessions: Mapping[str, tuple[Sequence[str], Path]], runs: int, env: Mapping[str, str]
) -> dict[str, list[Timing]]:
    """``runs`` timings of each session, one of each per round in a shuffled order (so that no
    side always runs first, or after the same one), after one warm-up run of each."""
    for argv, cwd in sessions.values():
        run_session(argv, cwd, env)
    timings: dict[str, list[Timing]] = {label: [] for label in sessions}
    for _ in range(runs):
        order = list(sessions.items())
        random.shuffle(order)
        for label, (argv, cwd) in order:
            timings[label].append(run_session(argv, cwd, env))
    return timings


def paired(with_plugin: Sequence[Timing], without: Sequence[Timing], what: str) -> str:
    """The mean of the rounds' differences and its standard error, as a share of the mean
    session without the plugin: each round ran both sides at nearly the same moment."""
    pairs = zip(with_plugin, without, strict=True)
    differences = [getattr(a, what) - getattr(b, what) for a, b in pairs]
    if len(differences) < 2:
        return ""
    base = statistics.mean(getattr(t, what) for t in without)
    mean = statistics.mean(differences) / base * 100
    error = statistics.stdev(differences) / len(differences) ** 0.5 / base * 100
    return f"paired rounds {mean:+.2f}% +- {error:.2f}% (mean, standard error)"


def median(timings: Sequence[Timing], what: str) -> float:
    return statistics.median(getattr(t, what) for t in timings)


def spread(timings: Sequence[Timing], what: str) -> str:
    values = [getattr(t, what) for t in timings]
    if len(values) < 2:
        return ""
    q1, _, q3 = statistics.quantiles(values, n=4)
    return f"IQR {q1:.3f}-{q3:.3f} s"


def show(label: str, timings: Sequence[Timing]) -> None:
    print(
        f"  {label:<34} wall {median(timings, 'wall'):7.3f} s ({spread(timings, 'wall')})   "
        f"cpu {median(timings, 'cpu'):7.3f} s ({spread(timings, 'cpu')})"
    )


def pytest_argv(extra: Sequence[str]) -> list[str]:
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra]


PLAIN_SIZES = (1000, 2000, 3000)


def case_plain(base: Path, env: Mapping[str, str], runs: int, scale: int) -> None:
    """Case 1 at each of ``PLAIN_SIZES``: the sessions' times (their medians, and the rounds'
    paired differences), then what the plugin itself runs inside them (``_hook_timer.py``), the
    deterministic part of the difference, which the target is judged on: the sessions move by
    several percent from run to run (the garbage collector's full collections, which the
    number of tests decides, and the machine), more than the plugin costs."""
    overheads: dict[str, list[float]] = {"wall": [], "cpu": []}
    shares: list[float] = []
    for size in PLAIN_SIZES:
        files, per_file = size // 100, 100 // scale
        project = base / f"plain-{size}"
        write_project(project, files, per_file, None)
        print(f"\n== 1. {files * per_file} plain tests, plugin installed vs -p no:agenttraj")
        sessions = {
            "installed": (pytest_argv([]), project),
            "-p no:agenttraj": (pytest_argv(["-p", "no:agenttraj"]), project),
        }
        timings = interleaved(sessions, runs, env)
        for label, values in timings.items():
            show(label, values)
        for what in ("wall", "cpu"):
            with_plugin = median(timings["installed"], what)
            without = median(timings["-p no:agenttraj"], what)
            percent = (with_plugin / without - 1) * 100
            overheads[what].append(percent)
            print(
                f"  {what}: medians {percent:+.2f}% ({(with_plugin - without) * 1000:+.0f} ms), "
                f"{paired(timings['installed'], timings['-p no:agenttraj'], what)}"
            )
        fastest = {label: min(t.cpu for t in values) for label, values in timings.items()}
        percent = (fastest["installed"] / fastest["-p no:agenttraj"] - 1) * 100
        print(f"  cpu, the fastest session of each side: {percent:+.2f}%")
        without = median(timings["-p no:agenttraj"], "wall")
        shares.append(own_time(project, env, runs, without) / without * 100)
    print(f"\n== 1. over the {len(PLAIN_SIZES)} sizes")
    for what, percents in overheads.items():
        each = ", ".join(f"{p:+.2f}%" for p in percents)
        print(f"  the sessions' {what}, medians: {each} (context: within the sessions' noise)")
    each = ", ".join(f"{share:.2f}%" for share in shares)
    largest = max(shares)
    verdict = "PASS" if largest <= PLAIN_TARGET_PERCENT else "MISS"
    print(
        f"  the plugin's own time, of a session without it: {each}; at every size <= "
        f"{largest:.2f}%   target <= {PLAIN_TARGET_PERCENT:g}%   {verdict}"
    )


def _timed_sessions(
    project: Path, env: Mapping[str, str], runs: int, extra: Sequence[str]
) -> list[dict[str, Any]]:
    """``runs`` sessions as measured above (output captured) with ``_hook_timer.py`` loaded."""
    found = []
    with tempfile.TemporaryDirectory(prefix="agenttraj-hooks-") as tmp:
        out = Path(tmp, "times.jsonl")
        timed_env = {
            **env,
            "PYTHONPATH": str(Path(__file__).resolve().parent),
            "AGENTTRAJ_HOOK_TIMES": str(out),
        }
        for _ in range(runs):
            argv = pytest_argv(["-p", "_hook_timer", *extra])
            done = subprocess.run(argv, cwd=project, env=timed_env, capture_output=True, text=True)
            lines = out.read_text(encoding="utf-8").splitlines() if out.exists() else []
            if done.returncode != 0 or len(lines) != len(found) + 1:
                sys.exit(f"hook-timed session failed ({done.returncode}):\n{done.stdout[-3000:]}")
            found.append(json.loads(lines[-1]))
    return found


def own_time(project: Path, env: Mapping[str, str], runs: int, session: float) -> float:
    """What the plugin itself runs inside ``runs`` sessions of the same tests (its import,
    registration, the fixtures pytest looks for in its plugins, every hook: ``_hook_timer.py``),
    the median in seconds; and the garbage collector's collections on either side."""
    timed = _timed_sessions(project, env, runs, [])
    totals = [found["total"] for found in timed]
    total = statistics.median(totals)
    parts = ", ".join(
        f"{name} {statistics.median(found['parts'].get(name, 0.0) for found in timed) * 1e3:.1f}"
        for name in timed[-1]["largest"]
    )
    print(
        f"  the plugin's own time inside these sessions: median {total * 1e3:.1f} ms "
        f"({total / session * 100:.2f} % of a session without the plugin; "
        f"range {min(totals) * 1e3:.1f}-{max(totals) * 1e3:.1f} ms); the largest parts (ms): "
        f"{parts}"
    )
    without = _timed_sessions(project, env, runs, ["-p", "no:agenttraj"])
    for label, runs_gc in (("installed", timed), ("-p no:agenttraj", without)):
        full = sorted({found["gc"]["full"] for found in runs_gc})
        seconds = statistics.median(found["gc"]["seconds"] for found in runs_gc)
        count = statistics.median(found["gc"]["collections"] for found in runs_gc)
        print(
            f"  garbage collector, {label}: {count:.0f} collections, full {full}, "
            f"median {seconds * 1e3:.0f} ms"
        )
    return float(total)


def case_evaluations(
    base: Path, env: Mapping[str, str], runs: int, scale: int, workers: Sequence[str]
) -> None:
    files, per_file = 10, 100 // scale
    count = files * per_file
    for variant in BODIES:
        write_project(base / variant, files, per_file, variant)
    where = " ".join(workers) or "serial"
    print(f"\n== 2. {count} tests evaluating a 6-message create_agent trajectory ({where})")
    sessions = {v: (pytest_argv(workers), base / v) for v in BODIES}
    timings = interleaved(sessions, runs, env)
    for label, values in timings.items():
        show(label, values)
    for what in ("wall", "cpu"):
        floor = median(timings["plain"], what)
        cost = {v: (median(timings[v], what) - floor) / count for v in BODIES if v != "plain"}
        peer = cost["openevals"]
        parts = [f"{v} {c * 1e6:.0f} us" for v, c in cost.items()]
        print(f"  {what}, cost per test over plain: {', '.join(parts)}")
        for ours in ("fixture", "function"):
            print(f"    openevals / {ours}: {ratio_text(peer, cost[ours])}")
    if all(t.test for values in timings.values() for t in values):
        floor = median(timings["plain"], "test")
        cost = {v: median(timings[v], "test") - floor for v in BODIES if v != "plain"}
        parts = [f"{v} {c * 1e6:.0f} us" for v, c in cost.items()]
        print(f"  a test's median time in its session, over plain: {', '.join(parts)}")
        for ours in ("fixture", "function"):
            print(f"    openevals / {ours}: {ratio_text(cost['openevals'], cost[ours])}")


def write_mixed_project(root: Path, files: int, per_file: int) -> None:
    """One project holding the tests of every variant, interleaved test by test (named
    ``test_<variant>_<n>``)."""
    root.mkdir(parents=True)
    (root / "pytest.ini").write_text(INI)
    (root / "conftest.py").write_text(CONFTEST)
    heads = "".join(head for head, _ in BODIES.values())
    for f in range(files):
        tests = "".join(
            body.format(i=f"{variant}_{i}")
            for i in range(per_file)
            for variant, (_, body) in BODIES.items()
        )
        (root / f"test_{f:03d}.py").write_text(MODULE_HEAD + heads + "\n\n" + tests)


def case_mixed(
    base: Path, env: Mapping[str, str], runs: int, scale: int, workers: Sequence[str]
) -> None:
    """Every variant's tests in one session, interleaved: each variant's median test time
    (setup to teardown) in the same process (under ``-n 2``, in the same workers), over the
    plain tests'."""
    files, per_file = 10, 100 // scale
    project = base / ("mixed-" + ("-".join(workers) or "serial"))
    write_mixed_project(project, files, per_file)
    print(
        f"\n== 3. the four variants' {files * per_file} tests each in one session, interleaved "
        f"test by test ({' '.join(workers) or 'serial'}, {runs} sessions)"
    )
    medians: dict[str, list[float]] = {variant: [] for variant in BODIES}
    argv = pytest_argv(["-p", "no:randomly", *workers])
    run_session(argv, project, env)  # warm-up
    for _ in range(runs):
        run_session(argv, project, env)
        for variant, value in read_group_medians(project, lambda name: name.split("_")[1]).items():
            medians[variant].append(value)
    cost = {v: statistics.median(medians[v]) - statistics.median(medians["plain"]) for v in BODIES}
    parts = [f"{v} {c * 1e6:.0f} us" for v, c in cost.items() if v != "plain"]
    print(f"  a test's median time over the plain tests': {', '.join(parts)}")
    for ours in ("fixture", "function"):
        print(f"    openevals / {ours}: {ratio_text(cost['openevals'], cost[ours])}")


def ratio_text(peer: float, ours: float) -> str:
    """``peer / ours`` against the target; a cost at or below the floor is within the noise."""
    if peer <= 0 or ours <= 0:
        return "n/a: a cost within the noise of the plain sessions (use more runs or tests)"
    ratio = peer / ours
    verdict = "PASS" if ratio >= EVALUATION_TARGET_RATIO else "MISS"
    return f"{ratio:.2f}x   target >= {EVALUATION_TARGET_RATIO:g}x   {verdict}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the tests, 3 runs")
    parser.add_argument("--runs", type=int, default=None, help="timed runs per session")
    parser.add_argument("--only", choices=["plain", "evaluations", "mixed", "xdist"], default=None)
    options = parser.parse_args()
    scale = 10 if options.quick else 1
    print(header_line())
    started = perf_counter()
    with tempfile.TemporaryDirectory(prefix="agenttraj-sessions-") as tmp:
        env = child_env(Path(tmp, "pycache"))
        env.pop("GITHUB_STEP_SUMMARY", None)
        base = Path(tmp)
        if options.only in (None, "plain"):
            case_plain(base, env, options.runs or (3 if options.quick else 9), scale)
        if options.only in (None, "evaluations"):
            runs = options.runs or (3 if options.quick else 7)
            case_evaluations(base / "serial", env, runs, scale, [])
        if options.only in (None, "mixed"):
            runs = options.runs or (3 if options.quick else 5)
            case_mixed(base, env, runs, scale, [])
            case_mixed(base, env, runs, scale, ["-n", "2"])
        if options.only in (None, "xdist"):
            runs = options.runs or (3 if options.quick else 5)
            case_evaluations(base / "xdist", env, runs, scale, ["-n", "2"])
    print(f"\n(session benchmark took {perf_counter() - started:.0f} s; load {os.getloadavg()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
