"""Run the examples the way a user would, in three pytest sessions, and say what each shows.

1. every example with the default settings (all pass; the summary lists each evaluation);
2. a test with no marker, loosened from the command line;
3. an agent that regressed, to show the diff a failure prints (this session must fail);
4. baseline gating: a scoring suite's report from "main", then a run with a regressed agent
   whose tests all pass but whose session fails against that baseline;
5. a support agent refusing a refund over three turns, to a scripted customer and to a
   simulated one (an LLM persona, a scripted model standing in);
6. record/replay: an agent replayed from the cassette it ships (no provider asked), then the
   same agent with a changed system prompt, to show the request diff (this session must fail).

Exits non-zero if any session does not end as described.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _banner(text: str) -> None:
    print(f"\n{'#' * 100}\n# {text}\n{'#' * 100}", flush=True)


def _pytest(*args: str, env: dict[str, str] | None = None) -> int:
    # Plugins the examples do not use stay off: hypothesis comes with the dev extra, anyio's
    # with langsmith's dependencies, and langsmith's own (the examples log nothing to LangSmith)
    # costs a second per start.
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:hypothesispytest",
        "-p",
        "no:langsmith_plugin",
        "-p",
        "no:anyio",
        *args,
    ]
    prefix = "".join(f"{name}={value} " for name, value in (env or {}).items())
    print(f"$ {prefix}pytest " + " ".join(args), flush=True)
    return subprocess.run(command, cwd=ROOT, env={**os.environ, **(env or {})}).returncode


def _replay() -> list[str]:
    """Session 6: the recorded agent replays; with another prompt its request diff shows."""
    problems = []
    _banner("6. Record/replay: the agent's model calls come from its cassette; a changed prompt")
    if _pytest("examples/replay", "-v") != 0:
        problems.append("the recorded agent should replay from its cassette and pass")
    code = _pytest(
        "examples/replay",
        env={"AGENTTRAJ_DEMO_PROMPT": "You are a cheerful weather assistant who loves puns."},
    )
    if code != 1:
        problems.append(f"the changed prompt should fail the replay (exit 1), it exited {code}")
    return problems


def main() -> int:
    problems = []
    _banner("1. The examples, default settings (strict mode, exact args)")
    if (
        _pytest(
            "examples",
            "--trajectory-report=.demo/report.json",
            "--trajectory-html=.demo/report.html",
        )
        != 0
    ):
        problems.append("the examples should all pass")

    _banner("2. Settings from the command line: --trajectory-mode / --tool-args-mode")
    code = _pytest(
        "examples/cli", "-v", "-rs", "--trajectory-mode=unordered", "--tool-args-mode=ignore"
    )
    if code != 0:
        problems.append("the command-line example should pass when loosened")

    _banner("3. A regressed agent: this is what a failing trajectory test prints")
    code = _pytest(
        "examples/regression",
        "--trajectory-html=.demo/regression.html",
        env={"AGENTTRAJ_DEMO_FAILURE": "1"},
    )
    if code != 1:
        problems.append(f"the regression example should fail (exit 1), it exited {code}")

    _banner("4. Baseline gating: record scores on 'main', then catch a regression on a branch")
    if _pytest("examples/scoring", "-q", "--trajectory-report=.demo/main.json") != 0:
        problems.append("the scoring suite should pass on 'main'")
    code = _pytest(
        "examples/scoring",
        "-q",
        "--trajectory-baseline=.demo/main.json",
        "--trajectory-html=.demo/scoring.html",
        env={"AGENTTRAJ_DEMO_REGRESSED": "1"},
    )
    if code != 1:
        problems.append(f"the regressed scoring run should fail the session (exit 1), got {code}")

    _banner("5. Multi-turn conversations: a refund refused over three turns")
    if _pytest("examples/test_support_conversation.py", "-v") != 0:
        problems.append("the conversation examples should pass")

    problems += _replay()

    _banner("Done")
    if problems:
        for problem in problems:
            print(f"demo: UNEXPECTED: {problem}")
        return 1
    print("demo: every session ended as expected (the failures in 3, 4 and 6 are intended).")
    print(f"demo: the JSON report of session 1 is at {ROOT / '.demo' / 'report.json'}")
    for name in ("report", "regression", "scoring"):
        print(f"demo: an HTML page of the run: {ROOT / '.demo' / name}.html")
    return 0


if __name__ == "__main__":
    sys.exit(main())
