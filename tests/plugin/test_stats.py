"""Statistics of repeated tests in real runs: lower-bound pass rules, every attempt run, the
report's intervals and pass^k, and baselines that flag only significant falls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

AGENT = """
import os
from pathlib import Path
import pytest
from pytest_agenttraj import exact_match

def attempt():
    path = Path("agent.attempts")
    with path.open("a") as stream:
        stream.write(".")
    return len(path.read_text())

@pytest.mark.trajectory(repeat=int(os.environ["REPEAT"]), pass_rule=os.environ["RULE"])
def test_agent():
    number = attempt()
    outcome = os.environ["PATTERN"][number - 1]
    assert exact_match(outputs=outcome, reference_outputs="P")["score"]
"""


def _load(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


@pytest.fixture
def agent(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Any:
    project.makepyfile(test_agent=AGENT)

    def run(pattern: str, rule: str, *args: str) -> pytest.RunResult:
        monkeypatch.setenv("PATTERN", pattern)
        monkeypatch.setenv("REPEAT", str(len(pattern)))
        monkeypatch.setenv("RULE", rule)
        (project.path / "agent.attempts").unlink(missing_ok=True)
        return project.runpytest(*args)

    return run


def _attempts(project: pytest.Pytester) -> int:
    return len((project.path / "agent.attempts").read_text())


def test_lower_rule_runs_every_attempt_and_gates_on_the_bound(
    project: pytest.Pytester, agent: Any
) -> None:
    # 9/10 has a Wilson lower bound of 0.596; lower:0.5 needs 9 passes of 10
    met = agent("PPPPPPPPPF", "lower:0.5", "--trajectory-report=r.json")
    met.assert_outcomes(passed=1)
    met.stdout.fnmatch_lines(["    9/10 passed (90%, 95% CI 59.6-98.2%)"])
    record = _load(project.path / "r.json")["results"][0]
    assert record["pass_rate_interval"] == pytest.approx([0.59585, 0.982124], abs=1e-6)
    assert record["pass_hat_k"]["1"] == pytest.approx(0.9)
    assert record["pass_hat_k"]["10"] == 0
    assert record["pass_at_k"]["10"] == 1
    assert set(record["pass_hat_k"]) == {str(k) for k in range(1, 11)}
    # the rule's own rate would be settled after 9 passes; the bound needs every attempt
    early = agent("FPPPPPPPPP", "lower:0.5")
    early.assert_outcomes(failed=0, passed=1)
    assert _attempts(project) == 10
    missed = agent("PPPPPPPPFF", "lower:0.5")
    missed.assert_outcomes(failed=1)
    assert _attempts(project) == 10
    missed.stdout.fnmatch_lines(
        ["8 of 10 attempts passed (2 failed); pass_rule lower:0.5 needs 9", "*8/10 passed (80%*"]
    )


def test_pass_hat_rule_runs_every_attempt_and_gates_on_the_estimate(
    project: pytest.Pytester, agent: Any
) -> None:
    # pass^2 from 4 of 5 is C(4,2)/C(5,2) = 0.6; from 3 of 5, 0.3
    met = agent("FPPPP", "pass^2:0.5", "--trajectory-report=r.json")
    met.assert_outcomes(passed=1)
    assert _attempts(project) == 5  # the first failure settles nothing
    record = _load(project.path / "r.json")["results"][0]
    assert (record["passed"], record["pass_rule"]) == (True, "pass^2:0.5")
    assert record["pass_hat_k"]["2"] == pytest.approx(0.6)
    missed = agent("PPFPF", "pass^2:0.5")
    missed.assert_outcomes(failed=1)
    missed.stdout.fnmatch_lines(["3 of 5 attempts passed (2 failed); pass_rule pass^2:0.5 needs 4"])
    too_big = agent("PPP", "pass^4:0.5")
    assert too_big.ret == pytest.ExitCode.USAGE_ERROR
    too_big.stderr.fnmatch_lines(["*pass^4 needs at least 4 attempts but repeat=3"])


def test_lower_rule_that_cannot_be_met_is_a_usage_error(agent: Any) -> None:
    result = agent("PPPPP", "lower:0.8")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*test_agent: invalid pass_rule 'lower:0.8': even 5 of 5 passing attempts give a "
            "lower bound of 0.566 at confidence 0.95; raise repeat"
        ]
    )


def test_confidence_level_from_the_ini_and_the_command_line(
    project: pytest.Pytester, agent: Any
) -> None:
    ini = project.path / "pytest.ini"
    ini.write_text(ini.read_text(encoding="utf-8") + "\ntrajectory_confidence = 0.8\n")
    result = agent("PPPPF", "all")
    result.stdout.fnmatch_lines(["    4/5 passed (80%, 80% CI *"])
    flag = agent("PPPPF", "all", "--trajectory-confidence=0.95")
    flag.stdout.fnmatch_lines(["    4/5 passed (80%, 95% CI 37.6-96.4%)"])
    bad = agent("PPPPF", "all", "--trajectory-confidence=95")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*invalid --trajectory-confidence '95': must be in (0, 1)*"])


def test_stats_option_stops_no_rule_early(project: pytest.Pytester, agent: Any) -> None:
    agent("FPPPP", "all").assert_outcomes(failed=1)
    assert _attempts(project) == 1
    agent("FPPPP", "all", "--trajectory-stats", "--trajectory-report=r.json")
    assert _attempts(project) == 5
    record = _load(project.path / "r.json")["results"][0]
    assert (record["attempts"], record["passed_attempts"]) == (5, 4)


def test_noisy_agent_against_a_perfect_baseline(agent: Any) -> None:
    made = agent("PPPPP", "min:1", "--trajectory-report=main.json", "--trajectory-stats")
    assert made.ret == pytest.ExitCode.OK
    # each run judged against the baseline only (the test's own rule is loose), every attempt run
    against = ("--trajectory-baseline=main.json", "--trajectory-stats")
    noise = agent("PPPFP", "min:1", *against)
    assert noise.ret == pytest.ExitCode.OK
    noise.stdout.fnmatch_lines(
        [
            "changed, not significant: test_agent.py::test_agent exact_match: pass rate 1.00 "
            "(5/5) -> pass rate 0.80 (4/5), p=0.5 >= alpha 0.05",
            "baseline: 0 regressed, 0 improved, 0 new, 0 vanished, 1 changed, not significant, "
            "0 unchanged",
        ]
    )
    drop = agent("FFFFPFFFFF", "min:1", *against)
    assert drop.ret == pytest.ExitCode.TESTS_FAILED
    drop.stdout.fnmatch_lines(
        [
            "REGRESSED: test_agent.py::test_agent exact_match: pass rate 1.00 (5/5) -> pass "
            "rate 0.10 (1/10) (tightened: repeat 5 -> 10), p=0.002",
            "*the session fails",
        ]
    )
    strict = agent("PPPFP", "min:1", *against, "--trajectory-significance=0.6")
    assert strict.ret == pytest.ExitCode.TESTS_FAILED
    bad = agent("PPPFP", "min:1", *against, "--trajectory-significance=2")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR


def test_single_runs_keep_the_exact_gate(agent: Any) -> None:
    assert agent("P", "all", "--trajectory-report=main.json").ret == pytest.ExitCode.OK
    result = agent("F", "all", "--trajectory-baseline=main.json")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["REGRESSED: *test_agent exact_match: passed -> failed"])


GRADED = """
import os
from pathlib import Path
import pytest
from pytest_agenttraj import create_tool_call_accuracy_evaluator

def attempt():
    path = Path("agent.attempts")
    with path.open("a") as stream:
        stream.write(".")
    return len(path.read_text())

CALL = {"role": "assistant", "content": "", "tool_calls": [
    {"function": {"name": "search", "arguments": "{}"}}]}
OTHER = {"role": "assistant", "content": "", "tool_calls": [
    {"function": {"name": "other", "arguments": "{}"}}]}

@pytest.mark.trajectory(repeat=8, pass_rule="any")
def test_graded():
    number = attempt()
    good = os.environ["PATTERN"][number - 1] == "P"
    evaluator = create_tool_call_accuracy_evaluator()
    evaluator(outputs=[CALL, CALL if good else OTHER], reference_outputs=[CALL, CALL])
"""


def test_graded_scores_get_a_mean_interval_and_a_rank_test(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(test_graded_agent=GRADED)

    def run(pattern: str, *args: str) -> pytest.RunResult:
        monkeypatch.setenv("PATTERN", pattern)
        (project.path / "agent.attempts").unlink(missing_ok=True)
        return project.runpytest("--trajectory-stats", *args)

    run("PPPPPPPP", "--trajectory-report=main.json")
    record = _load(project.path / "main.json")["results"][0]
    assert record["attempt_scores"] == [1.0] * 8
    assert record["score_interval"] == [1.0, 1.0]
    slight = run("PPPPPPPF", "--trajectory-baseline=main.json", "--trajectory-report=now.json")
    assert slight.ret == pytest.ExitCode.OK
    slight.stdout.fnmatch_lines(["changed, not significant: *test_graded*p=0.5 >= alpha 0.05"])
    now = _load(project.path / "now.json")["results"][0]
    mean = sum(now["attempt_scores"]) / 8
    assert now["score_mean"] == pytest.approx(mean)
    assert mean < 1
    assert now["score_interval"][0] < mean < now["score_interval"][1]
    worse = run("FFFFFFFP", "--trajectory-baseline=main.json")
    assert worse.ret == pytest.ExitCode.TESTS_FAILED
    worse.stdout.fnmatch_lines(["REGRESSED: *test_graded*"])


MARKER_BUDGET = """
import pytest
from langchain.agents import create_agent
from pytest_agenttraj.testing import ScriptedChatModel

def run():
    usage = {"input_tokens": 90, "output_tokens": 20}
    model = ScriptedChatModel([{"content": "hi", "usage": usage}])
    return create_agent(model, tools=[]).invoke({"messages": [{"role": "user", "content": "hi"}]})

@pytest.mark.trajectory(mode="superset", max_total_tokens=100)
def test_over_budget(trajectory_evaluator):
    trajectory_evaluator(outputs=run(), reference_outputs=[])

@pytest.mark.trajectory(mode="superset", max_total_tokens=200)
def test_within_budget(trajectory_evaluator):
    trajectory_evaluator(outputs=run(), reference_outputs=[])
"""


def test_marker_budgets_check_every_evaluated_trajectory(project: pytest.Pytester) -> None:
    project.makepyfile(test_budget=MARKER_BUDGET)
    result = project.runpytest("--trajectory-report=r.json")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*110 tokens over 1 model calls, more than max_total_tokens=100*"])


TIMED_MARKER = """
import pytest

# a traced run, as trajectory_from_spans gives it: the run's wall time, each tool call's latency
RUN = {
    "messages": [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": "", "duration": 0.4,
         "tool_calls": [{"id": "c1", "function": {"name": "lookup", "arguments": "{}"}}]},
        {"role": "tool", "content": "75F", "tool_call_id": "c1", "name": "lookup",
         "status": "success", "duration": 2.5},
        {"role": "assistant", "content": "75F.", "duration": 0.3},
    ],
    "graph": None,
    "duration_s": 3.2,
}

@pytest.mark.trajectory(mode="superset", max_tool_duration_s={"lookup": 1.0})
def test_slow_tool(trajectory_evaluator):
    trajectory_evaluator(outputs=RUN, reference_outputs=[])

@pytest.mark.trajectory(mode="superset", max_duration_s=3.0)
def test_slow_run(trajectory_evaluator):
    trajectory_evaluator(outputs=RUN, reference_outputs=[])

@pytest.mark.trajectory(mode="superset", max_duration_s=4, max_tool_duration_s={"lookup": 3})
def test_in_time(trajectory_evaluator):
    trajectory_evaluator(outputs=RUN, reference_outputs=[])
"""


def test_marker_latency_budgets(project: pytest.Pytester) -> None:
    project.makepyfile(test_timed=TIMED_MARKER)
    result = project.runpytest()
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines_random(
        [
            "*tool 'lookup' was slower than max_tool_duration_s=1 per call: message 2 took 2.5 s*",
            "*the run took 3.2 s, more than max_duration_s=3*",
        ]
    )


def test_junit_and_step_summary_show_the_statistics(
    project: pytest.Pytester, agent: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = project.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    agent("PPPPF", "all", "--junitxml=junit.xml")
    xml = (project.path / "junit.xml").read_text(encoding="utf-8")
    assert '<property name="agenttraj.exact_match.pass_rate_interval" value="0.376-0.964"' in xml
    assert 'name="agenttraj.exact_match.pass_hat_k" value="{&quot;1&quot;: 0.8, ' in xml
    text = summary.read_text(encoding="utf-8")
    assert "❌ FAIL 4/5 passed (80%, 95% CI 37.6-96.4%), pass^5 0 |" in text
