"""Benchmark record/replay of chat-model calls: what replaying a recorded agent run costs, and
how long a large cassette takes to load.

What it measures (wall time, ``time.perf_counter``):

1. a ``create_agent`` agent making 10 model calls (9 turns of tool calls, then the answer),
   replayed from its cassette (the file read and checked, the interception switched on, the
   agent run, the interception switched off: what a test using ``agent_cassette`` pays) against
   the same agent running on ``ScriptedChatModel`` with the same replies, the two timed in
   alternating blocks; printed as the ratio of medians replay / scripted (target: at most 1.2x);
2. loading a cassette of 1,000 calls (that run's 10 calls a hundred times over, about 1.3 MB),
   the median of 15 loads (target: under 50 ms), with its CPU time (``time.process_time``)
   beside it, which a loaded machine bends less.

It is a report: the exit status is 0 whatever the numbers are. Run it with ``make bench`` or
``.venv/bin/python benchmarks/bench_replay.py``.
"""

from __future__ import annotations

import platform
import statistics
import sys
import tempfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from time import perf_counter, process_time
from typing import Any

from langchain.agents import create_agent
from langchain_core.tools import tool

from pytest_agenttraj.integrations.replay import intercept
from pytest_agenttraj.integrations.replay.recorder import Recorder
from pytest_agenttraj.references.cassette import load_cassette, write_cassette
from pytest_agenttraj.testing import ScriptedChatModel

CALLS = 10
RATIO_TARGET = 1.2
LOAD_TARGET = 0.050
REPEATS = 15
LOOPS = 5


@tool
def search(query: str, page: int = 1) -> str:
    """Search the documentation."""
    return f"result {page} for {query}: " + "lorem ipsum " * 8


SCRIPT: list[Any] = [
    {
        "content": f"Looking at page {n}.",
        "tool_calls": [{"name": "search", "args": {"query": "replay cost", "page": n}}],
        "usage": {"input_tokens": 120 + 40 * n, "output_tokens": 25},
    }
    for n in range(1, CALLS)
] + [{"content": "Replaying costs little.", "usage": {"input_tokens": 520, "output_tokens": 9}}]
QUESTION = {"messages": [{"role": "user", "content": "How much does replay cost?"}]}


def _recorder(mode: str, recorded: Any = None) -> Recorder:
    return Recorder(mode=mode, recorded=recorded, cassette="c.yaml", test="bench", command="")


def record(path: Path) -> list[Any]:
    """Run the agent once on the scripted model, recording its calls into ``path``."""
    recorder = _recorder("all")
    agent = create_agent(ScriptedChatModel(SCRIPT), [search], system_prompt="Be brief.")
    intercept.activate(recorder)
    try:
        messages = agent.invoke(QUESTION)["messages"]
    finally:
        intercept.deactivate()
    assert len(recorder.made) == CALLS, len(recorder.made)
    write_cassette(path, [recorder.made], test="bench", record="")
    return list(messages)


def interleaved(first: Callable[[], object], second: Callable[[], object]) -> tuple[float, float]:
    """Median seconds per call of each, their blocks alternating so that drift hits both."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(REPEATS):
        for index, fn in enumerate((first, second)):
            started = perf_counter()
            for _ in range(LOOPS):
                fn()
            times[index].append((perf_counter() - started) / LOOPS)
    return statistics.median(times[0]), statistics.median(times[1])


def main() -> int:
    print(
        f"python {platform.python_version()}, langchain-core {metadata.version('langchain-core')}"
        f", langchain {metadata.version('langchain')}; a shared machine: compare ratios, not "
        "times"
    )
    folder = Path(tempfile.mkdtemp(prefix="bench-replay-"))
    cassette = folder / "agent.yaml"
    expected = record(cassette)

    scripted_model = ScriptedChatModel(SCRIPT)
    scripted_agent = create_agent(scripted_model, [search], system_prompt="Be brief.")
    silent = ScriptedChatModel([])
    replay_agent = create_agent(silent, [search], system_prompt="Be brief.")

    def scripted() -> object:
        scripted_model.reset()
        return scripted_agent.invoke(QUESTION)

    def replayed() -> object:
        recorder = _recorder("none", load_cassette(cassette).attempts[0])
        intercept.activate(recorder)
        try:
            result = replay_agent.invoke(QUESTION)
        finally:
            intercept.deactivate()
        assert recorder.unused() is None
        return result

    replayed_messages = replayed()["messages"]  # type: ignore[index]
    assert [m.text for m in replayed_messages] == [m.text for m in expected]
    assert silent.calls_made == 0
    scripted_time, replay_time = interleaved(scripted, replayed)
    ratio = replay_time / scripted_time
    verdict = "PASS" if ratio <= RATIO_TARGET else "MISS"
    print(f"\n1. a {CALLS}-call create_agent run (median of {REPEATS} blocks of {LOOPS})")
    print(f"   scripted model   {scripted_time * 1000:8.2f} ms")
    print(f"   replayed         {replay_time * 1000:8.2f} ms")
    print(f"   ratio            {ratio:8.2f}x  (target <= {RATIO_TARGET}x)  {verdict}")

    calls = load_cassette(cassette).attempts[0]
    big = folder / "big.yaml"
    write_cassette(big, [[dict(c) for _ in range(100) for c in calls]], test="bench", record="")
    loads, cpu = [], []
    for _ in range(REPEATS):
        started, started_cpu = perf_counter(), process_time()
        loaded = load_cassette(big)
        loads.append(perf_counter() - started)
        cpu.append(process_time() - started_cpu)
    assert len(loaded.attempts[0]) == 100 * CALLS
    load = statistics.median(loads)
    verdict = "PASS" if load < LOAD_TARGET else "MISS"
    size = big.stat().st_size / 1e6
    print(f"\n2. loading a cassette of {100 * CALLS} calls ({size:.1f} MB, median of {REPEATS})")
    print(
        f"   load             {load * 1000:8.2f} ms  (target < {LOAD_TARGET * 1000:.0f} ms)  "
        f"{verdict}"
    )
    print(
        f"   cpu time         {statistics.median(cpu) * 1000:8.2f} ms  (what the load costs this "
        "process, whatever else the machine runs)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
