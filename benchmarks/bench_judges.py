"""What an LLM judge costs besides the model (a report, not a test).

Every judge here is given the same instant model: ``pytest_agenttraj.testing.ScriptedChatModel``
answering each request with a call to the tool the request binds (agentevals, openevals and this
package all ask through ``with_structured_output``, which binds the schema as a tool), so what is
timed is everything but the model's thinking.

1. **Per judgment, in one process**: the weather agent's 6-message ``create_agent`` run judged by

   - ``ours``: ``create_trajectory_llm_as_judge(judge=model)`` (each model call under the default
     time bound, handed to a pooled worker thread);
   - ``ours, timeout=0``: the same without a time bound (the call made in the caller's thread);
   - ``ours, miss, stored``: the same with a ``JudgeCache`` and a new ``inputs`` each call, so
     that every call asks the model and stores its answer (a first run, in one process);
   - ``ours, cache hit``: the same with a ``JudgeCache`` holding the answer (a second run);
   - ``agentevals``: agentevals' ``create_trajectory_llm_as_judge(judge=model)``;
   - ``openevals``: openevals' ``create_llm_as_judge`` with its trajectory accuracy prompt;
   - ``model alone``: the structured model call itself
     (``model.with_structured_output(schema).invoke(messages)`` on the messages ``ours`` sends),
     the floor under all of them (the scripted model's cost grows with the prompt, which differs
     a little between the three packages).

   Blocks of calls are timed in turn (A, B, C, ... A, B, C), medians printed with ratios to
   agentevals. Target: ``ours / agentevals`` at most 1.2x.
2. **200 judged tests in a real pytest session, run twice with the run's judge cache**: each test
   judges the agent's run (a distinct ``inputs`` per test, so that no two share an answer) through
   the ``trajectory_judge`` fixture. ``first`` runs with the cache emptied, ``second`` right
   after it on the cache ``first`` filled; ``floor`` is the same tests without the judging and
   ``agentevals`` the same tests judged by agentevals. The judging's cost is a session's median
   time minus the floor's (and, as a check on a loaded machine, the fastest run's: the least
   disturbed); target: the second run's at most a third of the first's. The same is printed
   from the median time of one test inside its session (setup to teardown, timed by the
   projects' conftest: ``_test_timer.py``), which leaves out the interpreter's start-up and
   exit (a few hundred milliseconds that move between runs by as much as the whole judging
   costs, and that neither run spends on judging) and what only the first judged test pays
   (loading the judges' modules).

The machine may be shared: a ratio moves with the load, compare ratios from one run, never
times across runs. The exit status is 0 whatever the numbers.

Run it with ``make bench`` or ``.venv/bin/python benchmarks/bench_judges.py [--quick]``.
"""

from __future__ import annotations

import argparse
import itertools
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from time import perf_counter, process_time
from typing import Any

from _instant_model import instant_model
from _test_timer import CONFTEST as TIMER_CONFTEST, clear_test_times, read_test_median
from bench_startup import child_env, header_line

BENCHMARKS = Path(__file__).resolve().parent
EXAMPLES = BENCHMARKS.parent / "examples"
sys.path.insert(0, str(EXAMPLES))

PEER_TARGET = 1.2
CACHE_TARGET = 3.0
TESTS = 200

# --------------------------------------------------------------------------- 1. per judgment


def _judges(replies: int) -> tuple[dict[str, Callable[[], object]], list[Any]]:
    """The judgments timed, each a call of no arguments, and the models to rewind."""
    from agentevals.trajectory.llm import create_trajectory_llm_as_judge as agentevals_judge
    from openevals.llm import create_llm_as_judge
    from openevals.prompts import TRAJECTORY_ACCURACY_PROMPT as OPENEVALS_PROMPT
    from scripted_agents import WEATHER_QUESTION, weather_agent

    from pytest_agenttraj import JudgeCache, create_trajectory_llm_as_judge
    from pytest_agenttraj.evaluators.judges.replies import score_spec

    messages = weather_agent().invoke({"messages": [WEATHER_QUESTION]})["messages"]
    models = [instant_model(replies) for _ in range(7)]
    ours = create_trajectory_llm_as_judge(judge=models[0])
    untimed = create_trajectory_llm_as_judge(judge=models[1], timeout=0)
    cached = create_trajectory_llm_as_judge(
        judge=models[2], cache=JudgeCache(tempfile.mkdtemp(prefix="agenttraj-judge-bench-"))
    )
    cached(outputs=messages)  # the answer stored: every timed call is a hit
    storing = create_trajectory_llm_as_judge(
        judge=models[6], cache=JudgeCache(tempfile.mkdtemp(prefix="agenttraj-judge-bench-"))
    )
    case = itertools.count()  # a new input each call: every call a miss, its answer stored
    peer = agentevals_judge(judge=models[3])
    openevals = create_llm_as_judge(prompt=OPENEVALS_PROMPT, judge=models[4])
    structured = models[5].with_structured_output(dict(score_spec().schema))
    ours(outputs=messages)
    prompt = list(models[0].requests[-1].messages)  # what ours sends
    calls: dict[str, Callable[[], object]] = {
        "ours": lambda: ours(outputs=messages),
        "ours, timeout=0": lambda: untimed(outputs=messages),
        "ours, miss, stored": lambda: storing(outputs=messages, inputs=f"case {next(case)}"),
        "ours, cache hit": lambda: cached(outputs=messages),
        "agentevals": lambda: peer(outputs=messages),
        "openevals": lambda: openevals(outputs=messages),
        "model alone": lambda: structured.invoke(prompt),
    }
    for label, call in calls.items():  # each answers as the others do
        result = call()
        score = result.get("score") if isinstance(result, dict) else None
        if label != "model alone" and score is not True:
            sys.exit(f"{label} did not pass the trajectory: {result!r}")
    return calls, models


def case_per_judgment(rounds: int, per_block: int) -> None:
    print(
        f"\n== 1. one judgment of a 6-message create_agent run, instant model "
        f"({rounds} rounds of {per_block} calls each, interleaved)"
    )
    calls, models = _judges(replies=(rounds + 4) * per_block + 10)
    clocks = {"wall": perf_counter, "cpu": process_time}
    samples: dict[str, dict[str, list[float]]] = {
        what: {label: [] for label in calls} for what in clocks
    }
    for round_number in range(rounds + 2):
        for label, call in calls.items():
            wall, cpu = perf_counter(), process_time()
            for _ in range(per_block):
                call()
            if round_number >= 2:  # two warm-up rounds
                samples["wall"][label].append((perf_counter() - wall) / per_block)
                samples["cpu"][label].append((process_time() - cpu) / per_block)
    for what, by_label in samples.items():
        medians = {label: statistics.median(values) for label, values in by_label.items()}
        peer, floor = medians["agentevals"], medians["model alone"]
        print(f"  {what} time per judgment (median, IQR; less the model alone; / agentevals)")
        for label, value in medians.items():
            q1, _, q3 = statistics.quantiles(by_label[label], n=4)
            print(
                f"    {label:<18} {value * 1e6:7.0f} µs  ({q1 * 1e6:.0f}-{q3 * 1e6:.0f})   "
                f"{(value - floor) * 1e6:+6.0f} µs   {value / peer:5.2f}x"
            )
        ratio = medians["ours"] / peer
        verdict = "PASS" if ratio <= PEER_TARGET else "MISS"
        print(
            f"    ours / agentevals {ratio:.2f}x   target <= {PEER_TARGET:g}x   {verdict};   "
            f"ours / openevals {medians['ours'] / medians['openevals']:.2f}x;   the time bound's "
            f"worker thread {(medians['ours'] - medians['ours, timeout=0']) * 1e6:+.0f} µs"
        )
        ratio = medians["ours, miss, stored"] / medians["ours, cache hit"]
        verdict = "PASS" if ratio >= CACHE_TARGET else "MISS"
        print(
            f"    miss and store / cache hit {ratio:.2f}x   target >= {CACHE_TARGET:g}x   {verdict}"
        )
    del models


# --------------------------------------------------------------------------- 2. pytest sessions

INI = "[pytest]\nasyncio_default_fixture_loop_scope = function\n"

CONFTEST = f"""
import sys

sys.path[:0] = [{str(EXAMPLES)!r}, {str(BENCHMARKS)!r}]
{TIMER_CONFTEST}
"""

HEAD = """
from _instant_model import instant_model
from scripted_agents import WEATHER_QUESTION, weather_agent

MESSAGES = weather_agent().invoke({{"messages": [WEATHER_QUESTION]}})["messages"]
MODEL = instant_model({per_file})
"""

BODIES = {
    "floor": ("", "def test_{i}():\n    assert len(MESSAGES) == 6\n\n\n"),
    "ours": (
        "",
        "def test_{i}(trajectory_judge):\n"
        "    result = trajectory_judge(judge=MODEL)(outputs=MESSAGES, inputs='case {i}')\n"
        "    assert result['score'], result['comment']\n\n\n",
    ),
    "agentevals": (
        "from agentevals.trajectory.llm import create_trajectory_llm_as_judge\n",
        "def test_{i}():\n"
        "    judge = create_trajectory_llm_as_judge(judge=MODEL)\n"
        "    result = judge(outputs=MESSAGES, inputs='case {i}')\n"
        "    assert result['score'], result['comment']\n\n\n",
    ),
}


def write_project(root: Path, variant: str, files: int, per_file: int) -> None:
    root.mkdir(parents=True)
    (root / "pytest.ini").write_text(INI)
    (root / "conftest.py").write_text(CONFTEST)
    head, body = BODIES[variant]
    for f in range(files):
        tests = "".join(body.format(i=f * per_file + i) for i in range(per_file))
        (root / f"test_{f:02d}.py").write_text(
            HEAD.format(per_file=per_file) + head + "\n\n" + tests
        )


def run_session(cwd: Path, env: Mapping[str, str], expect: str = "") -> tuple[float, float, float]:
    """Wall and CPU seconds of one pytest session, and the median time of one of its tests in
    it (setup to teardown, see ``_test_timer.py``); a failing session, or one whose output
    lacks ``expect``, aborts the benchmark."""
    clear_test_times(cwd)
    argv = [sys.executable, "-m", "pytest", "-q", "--trajectory-judge-cache=use"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0 or expect not in done.stdout:
        sys.exit(f"session failed ({done.returncode}) in {cwd}:\n{done.stdout[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, read_test_median(cwd)


def _cache_entries(project: Path) -> int:
    folder = project / ".pytest_cache" / "d" / "agenttraj-judge"
    return sum(1 for _ in folder.rglob("*.json")) if folder.is_dir() else 0


def case_sessions(base: Path, env: Mapping[str, str], runs: int, tests: int) -> None:
    files = 10
    per_file = tests // files
    count = files * per_file
    for variant in BODIES:
        write_project(base / variant, variant, files, per_file)
    ours = base / "ours"
    print(
        f"\n== 2. {count} judged tests in a pytest session, the run's judge cache "
        f"(medians of {runs} interleaved rounds: floor, agentevals, first, second)"
    )
    samples: dict[str, list[tuple[float, float, float]]] = {
        "floor": [],
        "agentevals": [],
        "first": [],
        "second": [],
    }
    for round_number in range(runs + 1):  # the first round warms up
        taken = {
            "floor": run_session(base / "floor", env),
            "agentevals": run_session(base / "agentevals", env),
        }
        shutil.rmtree(ours / ".pytest_cache" / "d" / "agenttraj-judge", ignore_errors=True)
        taken["first"] = run_session(ours, env, f"judge: {count} calls, 0 cached")
        if _cache_entries(ours) != count:
            sys.exit(f"the first run stored {_cache_entries(ours)} answers, not {count}")
        taken["second"] = run_session(ours, env, f"judge: 0 calls, {count} cached")
        if round_number:
            for label, timing in taken.items():
                samples[label].append(timing)
    for what, index, pick, tests_in in (
        ("wall", 0, statistics.median, count),
        ("cpu", 1, statistics.median, count),
        ("wall, fastest run", 0, min, count),
        ("a test's median time in its session (setup to teardown)", 2, statistics.median, 1),
    ):
        medians = {label: pick(t[index] for t in v) for label, v in samples.items()}
        floor = medians["floor"]
        cost = {label: medians[label] - floor for label in ("agentevals", "first", "second")}
        shown = ", ".join(f"{label} {medians[label] * 1e3:.3f} ms" for label in medians)
        print(f"  {what}: {shown}")
        per_test = ", ".join(f"{label} {c / tests_in * 1e6:.0f} µs" for label, c in cost.items())
        print(f"    judging per test over the floor: {per_test}")
        if cost["second"] <= 0:
            print("    first / second: n/a (the second run's cost is within the floor's noise)")
            continue
        ratio = cost["first"] / cost["second"]
        verdict = "PASS" if ratio >= CACHE_TARGET else "MISS"
        print(
            f"    first / second (judging cost): {ratio:.2f}x   target >= {CACHE_TARGET:g}x   "
            f"{verdict};   first / second in all {medians['first'] / medians['second']:.2f}x;   "
            f"agentevals / second {cost['agentevals'] / cost['second']:.2f}x"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and calls")
    parser.add_argument("--runs", type=int, default=None, help="timed rounds of sessions")
    parser.add_argument("--only", choices=["judgment", "sessions"], default=None)
    options = parser.parse_args()
    print(header_line())
    started = perf_counter()
    if options.only in (None, "judgment"):
        case_per_judgment(rounds=9 if options.quick else 25, per_block=20)
    if options.only in (None, "sessions"):
        with tempfile.TemporaryDirectory(prefix="agenttraj-judge-sessions-") as tmp:
            env = child_env(Path(tmp, "pycache"))
            env.pop("GITHUB_STEP_SUMMARY", None)
            runs = options.runs or (3 if options.quick else 7)
            case_sessions(Path(tmp), env, runs, TESTS)
    print(f"\n(judge benchmark took {perf_counter() - started:.0f} s; load {os.getloadavg()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
