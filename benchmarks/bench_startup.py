"""Benchmark what pytest-agenttraj adds to pytest's start-up time (a report, not a test).

pytest imports every installed ``pytest11`` plugin in every run, so the plugin's import and
registration cost is paid by every test run of every project that has it installed. This
script measures that cost in wall time of fresh processes (``time.perf_counter`` around
``subprocess.run``) and in their CPU time (user + system, from ``resource.getrusage``), the
steadier of the two on a shared machine:

1. ``python -m pytest --collect-only -q -p no:cacheprovider`` on a throwaway project with
   one trivial test, (a) as installed vs (b) with ``-p no:agenttraj``; it prints the medians,
   their ratio and the plugin's overhead in percent against the target (<= 5%, PASS/MISS);
   1b. the same four runs without ``--collect-only``, so that the one test runs (collection
   alone leaves out what a run pays: the per-test hooks, the terminal summary, the session's
   end); ``--only collect`` / ``--only run`` runs one of the two;
2. for context, the same pair with ``-p no:langsmith_plugin`` added to both (the docs'
   performance page tells users they can drop langsmith's plugin), and what langsmith's plugin
   itself costs (median with it minus median without it, our plugin loaded in both);
3. ``python -c "import pytest_agenttraj.plugin"`` vs ``python -c "import pytest"``, i.e. the
   plugin module's own import cost on top of pytest's;
4. which of langchain_core, langsmith, langgraph, yaml, openevals are in ``sys.modules``
   after importing the plugin module (target: none);
5. (``--only exit``, not in the default run) what the interpreter's exit after the one test
   run takes, from ``pytest.main`` returning to the process ending, with the plugin and with
   ``-p no:agenttraj``, with and without langsmith's plugin: the mean of the paired
   differences with its standard error, since the exit (mostly the garbage collector going
   over what langsmith's plugin loaded) varies by more than the plugin adds to it.

Runs of the variants being compared are interleaved (A, B, A, B, ...) after one discarded
warm-up run, so a change in machine load affects both sides alike. The exit status is 0
whatever the numbers are. ``PYTEST_ADDOPTS``/``PYTEST_PLUGINS``/
``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` are removed from the children's environment so that
only the flags shown are in effect, and all bytecode is cached in a temporary
``PYTHONPYCACHEPREFIX``, as an ordinary install would cache it (see ``child_env``); set
``AGENTTRAJ_BENCH_INHERIT_BYTECODE=1`` to keep the caller's bytecode settings instead (e.g.
to see what ``PYTHONDONTWRITEBYTECODE=1`` costs). Total runtime is under 90 s on an idle
2-CPU machine.

Run it with ``make bench`` or ``.venv/bin/python benchmarks/bench_startup.py``.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from time import perf_counter

PLUGIN_NAME = "agenttraj"
PLUGIN_MODULE = "pytest_agenttraj.plugin"
LANGSMITH_PLUGIN_NAME = "langsmith_plugin"
OVERHEAD_TARGET_PERCENT = 5.0
MAIN_RUNS = 15  # per variant, default environment (the targeted comparison)
CONTEXT_RUNS = 9  # per variant, with langsmith's plugin disabled (context only)
IMPORT_RUNS = 11  # per snippet
HEAVY_MODULES: tuple[str, ...] = ("langchain_core", "langsmith", "langgraph", "yaml", "openevals")
PYTEST_ENV_VARS: tuple[str, ...] = (
    "PYTEST_ADDOPTS",
    "PYTEST_PLUGINS",
    "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
)
NO_PYC_VAR = "PYTHONDONTWRITEBYTECODE"
INHERIT_BYTECODE_ENV = "AGENTTRAJ_BENCH_INHERIT_BYTECODE"
BASE_PYTEST_ARGS: tuple[str, ...] = (
    "-m",
    "pytest",
    "--collect-only",
    "-q",
    "-p",
    "no:cacheprovider",
)
TEST_FILE = "def test_trivial():\n    assert 1 + 1 == 2\n"
INI_FILE = "[pytest]\nasyncio_default_fixture_loop_scope = function\n"


# --------------------------------------------------------------------------- setup


@dataclass(frozen=True)
class Variant:
    """One command line to time and how many times to run it."""

    label: str
    argv: tuple[str, ...]
    runs: int


def child_env(pycache: Path | None) -> dict[str, str]:
    """The environment for the timed processes.

    Variables that change pytest's plugin set are removed. With ``pycache``, bytecode is read
    from and written to it (``PYTHONPYCACHEPREFIX``) even if ``PYTHONDONTWRITEBYTECODE`` is
    set. That matters: pytest assertion-rewrites every module of a distribution that has a
    ``pytest11`` entry point (ours and langsmith's) and caches the rewritten bytecode only
    where bytecode may be written; and an editable install has no ``.pyc`` files at all.
    Without a cache each run recompiles those modules, which an ordinary install pays once.
    After the warm-up run every module is cached alike, and the repository is left untouched.
    ``pycache=None`` keeps the caller's bytecode settings.
    """
    env = {k: v for k, v in os.environ.items() if k not in PYTEST_ENV_VARS}
    if pycache is not None:
        env.pop(NO_PYC_VAR, None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def bytecode_note(env: Mapping[str, str], inherited: bool) -> str:
    if not inherited:
        return "bytecode: every module cached in a temporary PYTHONPYCACHEPREFIX"
    return (
        f"bytecode: inherited settings ({INHERIT_BYTECODE_ENV} set), "
        f"{NO_PYC_VAR}={env.get(NO_PYC_VAR, '')!r}, "
        f"PYTHONPYCACHEPREFIX={env.get('PYTHONPYCACHEPREFIX', '')!r}"
    )


def make_project(root: Path) -> None:
    """Write a minimal pytest project (one trivial test and a pytest.ini) into ``root``."""
    (root / "test_trivial.py").write_text(TEST_FILE)
    (root / "pytest.ini").write_text(INI_FILE)


RUN_PYTEST_ARGS: tuple[str, ...] = tuple(a for a in BASE_PYTEST_ARGS if a != "--collect-only")
"""The same command without ``--collect-only``: the one test runs (what a user's run pays)."""


def pytest_variant(
    label: str, extra: Sequence[str], runs: int, base: Sequence[str] = BASE_PYTEST_ARGS
) -> Variant:
    return Variant(label, (sys.executable, *base, *extra), runs)


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "absent"


def header_line() -> str:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"Python {platform.python_version()} | pytest {_version('pytest')} | "
        f"{os.cpu_count()} CPUs | {platform.platform()} | load average {load}\n"
        f"pytest-agenttraj {_version('pytest-agenttraj')}, langsmith {_version('langsmith')}"
    )


# --------------------------------------------------------------------------- timing


def run_once(argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``argv``; a non-zero exit status aborts the
    benchmark."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = perf_counter()
    result = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    elapsed = perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(
            f"command failed ({result.returncode}): {' '.join(argv)}\n"
            f"{result.stdout}\n{result.stderr}"
        )
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def time_interleaved(
    variants: Sequence[Variant], cwd: Path, env: Mapping[str, str]
) -> dict[str, list[float]]:
    """Wall seconds per run of each variant; round i runs every variant that wants > i runs."""
    both = time_both(variants, cwd, env)
    return {label: [wall for wall, _ in pairs] for label, pairs in both.items()}


def time_both(
    variants: Sequence[Variant], cwd: Path, env: Mapping[str, str]
) -> dict[str, list[tuple[float, float]]]:
    """Wall and CPU seconds per run of each variant, interleaved after one warm-up run."""
    run_once(variants[0].argv, cwd, env)  # warm-up: file cache, test file's .pyc
    samples: dict[str, list[tuple[float, float]]] = {v.label: [] for v in variants}
    for i in range(max(v.runs for v in variants)):
        for variant in variants:
            if i < variant.runs:
                samples[variant.label].append(run_once(variant.argv, cwd, env))
    return samples


# --------------------------------------------------------------------------- report


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def relative_iqr(samples: Sequence[float]) -> float:
    """Interquartile range as a fraction of the median (a noise measure)."""
    q1, _, q3 = statistics.quantiles(samples, n=4)
    return (q3 - q1) / statistics.median(samples)


def summarize(label: str, samples: Sequence[float]) -> float:
    """Print median, interquartile range and minimum of ``samples``; return the median."""
    median = statistics.median(samples)
    q1, _, q3 = statistics.quantiles(samples, n=4)
    print(
        f"  {label:<44} median {ms(median)}   IQR {ms(q1)} .. {ms(q3)}   "
        f"min {ms(min(samples))}   n={len(samples)}"
    )
    return median


def noise_note(samples: Mapping[str, Sequence[float]]) -> None:
    """Warn when the run-to-run spread is wider than the overhead target itself."""
    limit = OVERHEAD_TARGET_PERCENT / 100
    noisy = [label for label, values in samples.items() if relative_iqr(values) > limit]
    if noisy:
        print(
            f"  !! NOISY: IQR > {OVERHEAD_TARGET_PERCENT:g}% of the median for "
            f"{', '.join(noisy)}; re-run on a quieter machine before quoting the verdict"
        )


def overhead_line(with_s: float, without_s: float, target: float | None) -> str:
    """Ratio and overhead in percent; with a target, PASS/MISS against it."""
    ratio = with_s / without_s
    percent = (ratio - 1) * 100
    text = f"ratio {ratio:.3f}  overhead {percent:+.1f}% ({(with_s - without_s) * 1000:+.1f} ms)"
    if target is None:
        return f"{text}   (context, no target)"
    status = "PASS" if percent <= target else "MISS"
    return f"{text}   target <= {target:g}%   {status}"


# --------------------------------------------------------------------------- cases


def case_pytest_startup(
    project: Path, env: Mapping[str, str], base: Sequence[str] = BASE_PYTEST_ARGS, number: str = "1"
) -> None:
    no_plugin = ("-p", f"no:{PLUGIN_NAME}")
    no_langsmith = ("-p", f"no:{LANGSMITH_PLUGIN_NAME}")
    variants = [
        pytest_variant("(a) as installed", (), MAIN_RUNS, base),
        pytest_variant(f"(b) -p no:{PLUGIN_NAME}", no_plugin, MAIN_RUNS, base),
        pytest_variant(f"(c) -p no:{LANGSMITH_PLUGIN_NAME}", no_langsmith, CONTEXT_RUNS, base),
        pytest_variant(
            f"(d) -p no:{LANGSMITH_PLUGIN_NAME} -p no:{PLUGIN_NAME}",
            (*no_langsmith, *no_plugin),
            CONTEXT_RUNS,
            base,
        ),
    ]
    print(f"\n== {number}. `python {' '.join(base)} [...]`, one trivial test")
    both = time_both(variants, project, env)
    for index, what in enumerate(("wall", "CPU")):
        print(f"   {what} time per process; runs interleaved a, b, c, d, a, b, ...")
        samples = {label: [pair[index] for pair in pairs] for label, pairs in both.items()}
        a, b, c, d = (summarize(v.label, samples[v.label]) for v in variants)
        default_env = overhead_line(a, b, OVERHEAD_TARGET_PERCENT)
        print(f"  pytest-agenttraj, default environment (a vs b): {default_env}")
        print(f"  pytest-agenttraj, langsmith plugin off (c vs d): {overhead_line(c, d, None)}")
        print(
            f"  langsmith's pytest plugin costs (a - c): {(a - c) * 1000:+.1f} ms "
            f"({(a / c - 1) * 100:+.1f}% of a run without it)"
        )
        noise_note(samples)


def case_module_import(project: Path, env: Mapping[str, str]) -> None:
    variants = [
        Variant(f"import {module}", (sys.executable, "-c", f"import {module}"), IMPORT_RUNS)
        for module in (PLUGIN_MODULE, "pytest")
    ]
    print("\n== 2. plugin module import in a fresh interpreter (runs interleaved)")
    samples = time_interleaved(variants, project, env)
    plugin_s, pytest_s = (summarize(f"python -c '{v.label}'", samples[v.label]) for v in variants)
    print(
        f"  {PLUGIN_MODULE}'s own import cost on top of pytest: "
        f"{(plugin_s - pytest_s) * 1000:+.1f} ms (context, no target)"
    )


# What a pytest run has imported by the time it loads the plugins (so that the timed import
# pays only for the plugin's own modules: a run loads no other module for it).
_PYTEST_LOADED = (
    "import pytest, _pytest.config, _pytest.main, _pytest.python, _pytest.fixtures, "
    "_pytest.terminal, _pytest.runner, _pytest.reports, json, inspect, threading, hashlib, "
    "tempfile, contextvars, ast, importlib"
)
_TIMED_IMPORT = f"""{_PYTEST_LOADED}
from time import perf_counter
started = perf_counter()
import {PLUGIN_MODULE} as plugin
for name in plugin.PLUGINS:
    importlib.import_module(name)
print(perf_counter() - started)
"""


def import_seconds(env: Mapping[str, str], count: int, cwd: Path | None = None) -> list[float]:
    """The plugin's import (its module and the plugins it registers) timed inside ``count``
    fresh interpreters, after the modules pytest itself has loaded by then: the start-up cost
    without the noise of a whole process."""
    seconds = []
    for _ in range(count):
        argv = [sys.executable, "-c", _TIMED_IMPORT]
        result = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=True)
        seconds.append(float(result.stdout.strip()))
    return seconds


def case_import_in_process(project: Path, env: Mapping[str, str]) -> None:
    print("\n== 2b. the plugin's import timed inside a fresh interpreter, after pytest's modules")
    seconds = import_seconds(env, IMPORT_RUNS * 2, project)
    print(
        f"  import {PLUGIN_MODULE} and its {len(_plugin_names())} registered plugins: "
        f"median {ms(statistics.median(seconds))}, fastest {ms(min(seconds))}, "
        f"n={len(seconds)} (context, no target)"
    )


# Runs the one test as ``python -m pytest`` would, then notes when ``pytest.main`` returned
# (the file named by the environment) and lets the interpreter exit as usual.
_EXIT_SCRIPT = """
import os, sys, time
import pytest
code = pytest.main(sys.argv[1:])
with open(os.environ["AGENTTRAJ_EXIT_MARK"], "w") as mark:
    mark.write(repr(time.time()))
sys.exit(int(code))
"""
EXIT_PAIRS = 25


def case_exit(project: Path, env: Mapping[str, str]) -> None:
    """What the interpreter's exit takes after a one-test run: paired rounds (each round runs
    both sides, in a shuffled order), the mean of the differences and its standard error."""
    import random

    print("\n== 5. the interpreter's exit after the one test run (pytest.main returned -> end)")
    with tempfile.TemporaryDirectory(prefix="agenttraj-exit-") as tmp:
        mark = Path(tmp, "mark")
        marked = {**env, "AGENTTRAJ_EXIT_MARK": str(mark)}
        base = [sys.executable, "-c", _EXIT_SCRIPT, "-q", "-p", "no:cacheprovider"]
        for extra in ((), ("-p", f"no:{LANGSMITH_PLUGIN_NAME}")):
            sides = {
                "installed": [*base, *extra],
                "-p no:agenttraj": [*base, *extra, "-p", f"no:{PLUGIN_NAME}"],
            }
            exits: dict[str, list[float]] = {label: [] for label in sides}
            for round_ in range(EXIT_PAIRS + 1):
                order = list(sides.items())
                random.shuffle(order)
                for label, argv in order:
                    subprocess.run(argv, cwd=project, env=marked, capture_output=True, check=True)
                    ended = time.time()
                    if round_:  # the first round warms the caches
                        exits[label].append(ended - float(mark.read_text()))
            differences = [a - b for a, b in zip(*exits.values(), strict=True)]
            error = statistics.stdev(differences) / len(differences) ** 0.5
            where = " ".join(extra) or "langsmith's plugin loaded"
            print(
                f"  {where}: exit median {ms(statistics.median(exits['installed']))} installed, "
                f"{ms(statistics.median(exits['-p no:agenttraj']))} without; paired difference "
                f"{statistics.mean(differences) * 1000:+.1f} ms +- {error * 1000:.1f} ms "
                f"(mean, standard error; n={len(differences)}; context, no target)"
            )


def _plugin_names() -> tuple[str, ...]:
    from pytest_agenttraj.plugin import PLUGINS

    return PLUGINS


def loaded_heavy_modules(project: Path, env: Mapping[str, str]) -> list[str]:
    code = (
        f"import sys, json, {PLUGIN_MODULE}; "
        f"print(json.dumps([m for m in {list(HEAVY_MODULES)!r} if m in sys.modules]))"
    )
    argv = [sys.executable, "-c", code]
    result = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, check=True)
    loaded: list[str] = json.loads(result.stdout)
    return loaded


def case_heavy_modules(project: Path, env: Mapping[str, str]) -> None:
    loaded = loaded_heavy_modules(project, env)
    status = "MISS" if loaded else "PASS"
    print(f"\n== 3. heavy modules in sys.modules after `import {PLUGIN_MODULE}`")
    print(
        f"  checked {', '.join(HEAVY_MODULES)}: {', '.join(loaded) or 'none'}   "
        f"target: none   {status}"
    )


# --------------------------------------------------------------------------- main


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--only",
        choices=["collect", "run", "import", "exit"],
        default=None,
        help="only case 1 (--collect-only), 1b (the one test run), 2b (the import, in process) "
        "or 5 (the interpreter's exit, not in the default run)",
    )
    options = parser.parse_args()
    print(header_line())
    start = perf_counter()
    with tempfile.TemporaryDirectory(prefix="agenttraj-bench-") as tmp:
        project = Path(tmp, "project")
        project.mkdir()
        make_project(project)
        inherit = os.environ.get(INHERIT_BYTECODE_ENV) == "1"
        env = child_env(None if inherit else Path(tmp, "pycache"))
        print(bytecode_note(env, inherit))
        if options.only in (None, "collect"):
            case_pytest_startup(project, env)
        if options.only in (None, "run"):
            case_pytest_startup(project, env, RUN_PYTEST_ARGS, "1b")
        if options.only == "import":
            case_import_in_process(project, env)
        if options.only == "exit":
            case_exit(project, env)
        if options.only is not None:
            return 0
        case_module_import(project, env)
        case_import_in_process(project, env)
        case_heavy_modules(project, env)
    print(f"\n(start-up benchmark took {perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
