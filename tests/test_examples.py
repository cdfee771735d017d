"""The examples run as `make demo` runs them: every session ends as it says it does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.demo
def test_the_demo_sessions_end_as_described() -> None:
    # Bytecode may be cached, as on a developer's machine: the sessions then share the work of
    # rewriting the plugin's modules (see the root conftest).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "run_demo.py")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = result.stdout
    # a session that ended otherwise than described: its banner and the lines that say why
    said = [
        line
        for line in out.splitlines()
        if line.startswith(("$ ", "FAILED", "ERROR", "E   ", "demo:")) or "Error" in line
    ]
    assert result.returncode == 0, "\n".join(said[:200]) + "\n" + result.stderr[-3000:]
    assert "demo: every session ended as expected" in out
    # the intended failure shows the diff a newcomer should see
    assert "+ location_code: 'location-999'" in out
    assert "- location_code: 'location-123'" in out
    # and the baseline session names the regression
    assert "REGRESSED: examples/scoring/test_agent_scores.py::test_weather_agent_score" in out
    # and the replayed agent's changed prompt shows the request diff
    assert '    - recorded "You are a concise weather assistant."' in out
    assert "If the change is intended, record the test again:" in out
