"""The HTML report at scale (a report, not a test): how big the page of a large run is and how
long Chromium takes to show it.

A real pytest session runs 2,000 generated tests, each evaluating a 100-message trajectory
(a user turn, then assistant tool calls, tool results and replies) with ``assert_trajectory``;
one test in ten has an agent whose arguments drifted, so it fails with a diff. The session
writes ``--trajectory-html`` (and the JSON report beside it). The page is then opened from disk
in headless Chromium (Debian's, through Playwright) ``--runs`` times; the time is from the start
of navigation to the page saying it is drawn (``body[data-ready]``: the report decoded, the
summary and all 2,000 rows in the document, the first failure opened).

Targets: the page under 10 MB, open in under 2 s. The exit status is 0 whatever the numbers.
Run it with ``make bench`` or ``.venv/bin/python benchmarks/bench_html.py [--tests N]``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from time import perf_counter

SIZE_TARGET_MB = 10.0
OPEN_TARGET_S = 2.0

TESTS = """
import json
import pytest
from pytest_agenttraj import assert_trajectory

MESSAGES = 100


def trajectory(seed, drift):
    messages = [{{"role": "user", "content": f"Plan trip {{seed}}: flights, hotels and weather"}}]
    step = 0
    while len(messages) < MESSAGES - 1:
        city = f"city-{{(seed + step) % 97}}"
        code = f"{{city}}-late" if drift and step == 7 else city
        messages.append({{"role": "assistant", "content": "", "tool_calls": [{{
            "id": f"call_{{step}}", "type": "function",
            "function": {{"name": "search_flights" if step % 2 else "get_weather",
                         "arguments": json.dumps({{"city": code, "day": step % 7}})}}}}]}})
        messages.append({{"role": "tool", "tool_call_id": f"call_{{step}}",
                         "content": f"result {{step}} for {{city}}: 21C, 3 flights from 120 EUR"}})
        step += 1
    messages.append({{"role": "assistant", "content": f"Here is the plan for trip {{seed}}."}})
    return messages


@pytest.mark.parametrize("seed", range({tests}))
def test_trip(seed):
    assert_trajectory(trajectory(seed, drift=seed % 10 == 0), trajectory(seed, drift=False))
"""


def _session(folder: Path, tests: int) -> Path:
    (folder / "test_trips.py").write_text(TESTS.format(tests=tests))
    (folder / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    page = folder / "page.html"
    started = perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:langsmith_plugin",
            "-p",
            "no:hypothesispytest",
            f"--trajectory-html={page}",
            f"--trajectory-report={folder / 'report.json'}",
        ],
        cwd=folder,
        capture_output=True,
        text=True,
    )
    print(f"session: {tests} tests in {perf_counter() - started:.1f} s (exit {done.returncode})")
    if not page.exists():
        print(done.stdout[-3000:], done.stderr[-3000:])
        raise SystemExit("the session wrote no page")
    return page


def _open_times(page: Path, runs: int, phases: list[dict[str, int]]) -> list[float]:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    times: list[float] = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, headless=True)
        for _ in range(runs + 1):  # the first is a warm-up
            tab = browser.new_page(viewport={"width": 1280, "height": 900})
            tab.goto(page.as_uri(), wait_until="commit")
            tab.wait_for_selector("body[data-ready]", state="attached", timeout=120_000)
            times.append(tab.evaluate("performance.now()") / 1000)
            phases.append(
                tab.evaluate(
                    "Object.fromEntries(performance.getEntriesByType('mark')"
                    ".map(m => [m.name, Math.round(m.startTime)]))"
                )
            )
            assert tab.evaluate("document.body.dataset.ready") == "true"
            tab.close()
        browser.close()
    return times[1:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if shutil.which("chromium") is None and shutil.which("chromium-browser") is None:
        print("bench_html: Chromium is not installed (apt-get install chromium); skipped")
        return 0
    with tempfile.TemporaryDirectory() as folder:
        page = _session(Path(folder), args.tests)
        size = page.stat().st_size / 1_000_000
        report = (Path(folder) / "report.json").stat().st_size / 1_000_000
        phases: list[dict[str, int]] = []
        times = _open_times(page, args.runs, phases)
    median = statistics.median(times)
    print(
        f"page: {size:.2f} MB (target < {SIZE_TARGET_MB:.0f} MB; the JSON report: {report:.1f} MB)"
    )
    print(
        f"open in Chromium: median {median:.2f} s, min {min(times):.2f} s, max {max(times):.2f} s "
        f"over {len(times)} runs (target < {OPEN_TARGET_S:.0f} s)"
    )
    print("phases (ms since navigation, last run):", phases[-1])
    print("targets: " + ("met" if size < SIZE_TARGET_MB and median < OPEN_TARGET_S else "MISSED"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
