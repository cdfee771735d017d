"""@pytest.mark.trajectory(repeat=N, pass_rule=...): attempts, early stopping, one report per test,
one record per evaluation with its pass rate, and baselines comparing rates."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttraj.plugin.pass_rules import parse_pass_rule
from pytest_agenttraj.plugin.repeat import aggregate, repeat_line

ATTEMPT = '''
from pathlib import Path

def attempt(name):
    """This attempt's number (1, 2, ...): each attempt appends a dot to NAME.attempts."""
    path = Path(f"{name}.attempts")
    with path.open("a") as stream:
        stream.write(".")
    return len(path.read_text())
'''

# (id, repeat, pass_rule, outcome of attempt 1, 2, ... as P/F, verdict, attempts run)
RULE_CASES = [
    ("all-pass", 3, "all", "PPP", "passed", 3),
    ("all-stops-at-first-failure", 3, "all", "PFP", "failed", 2),
    ("majority-flaky", 5, "majority", "PFPFP", "passed", 5),
    ("majority-settled-by-3-passes", 5, "majority", "PPPFF", "passed", 3),
    ("majority-settled-by-3-failures", 5, "majority", "FFFPP", "failed", 3),
    ("any-first-pass", 5, "any", "FFPFF", "passed", 3),
    ("any-none", 3, "any", "FFF", "failed", 3),
    ("rate-met", 5, "rate:0.8", "PFPPP", "passed", 5),
    ("rate-missed-early", 5, "rate:0.8", "FFPPP", "failed", 2),
    ("min-met-late", 4, "min:2", "FPFP", "passed", 4),
    ("min-met-early", 4, "min:2", "PPFF", "passed", 2),
]


def _attempts(project: pytest.Pytester, name: str) -> int:
    path = project.path / f"{name}.attempts"
    return len(path.read_text()) if path.exists() else 0


def _load(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def test_each_pass_rule_and_early_stopping(project: pytest.Pytester) -> None:
    cases = ",\n".join(
        f"    pytest.param({pattern!r}, id={name!r}, "
        f"marks=pytest.mark.trajectory(repeat={repeat}, pass_rule={rule!r}))"
        for name, repeat, rule, pattern, _, _ in RULE_CASES
    )
    project.makepyfile(
        test_rules=ATTEMPT
        + f"""
import pytest

@pytest.mark.parametrize("pattern", [
{cases}
])
def test_rule(request, pattern):
    number = attempt(request.node.callspec.id)
    assert pattern[number - 1] == "P"
"""
    )
    result = project.runpytest("-v")
    failed = [case for case in RULE_CASES if case[4] == "failed"]
    result.assert_outcomes(passed=len(RULE_CASES) - len(failed), failed=len(failed))
    for name, _, _, _, verdict, attempts in RULE_CASES:
        assert _attempts(project, name) == attempts, name
        result.stdout.fnmatch_lines([f"test_rules.py::test_rule[[]{name}] {verdict.upper()}*"])
    result.stdout.fnmatch_lines(
        [
            "*= trajectory repeats =*",
            "FAILED test_rules.py::test_rule[[]all-stops-at-first-failure]: 1 of 2 attempts "
            "passed (1 failed); pass_rule all needs 3 of 3, stopped early",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "PASSED test_rules.py::test_rule[[]majority-flaky]: 3 of 5 attempts passed "
            "(2 failed); pass_rule majority needs 3",
        ]
    )


def test_failing_verdict_shows_a_failing_attempt_and_the_counts(project: pytest.Pytester) -> None:
    project.makepyfile(
        ATTEMPT
        + """
import pytest

@pytest.mark.trajectory(repeat=5, pass_rule="majority")
def test_flaky():
    number = attempt("flaky")
    assert "PFPFF"[number - 1] == "P", f"attempt {number} went wrong"
"""
    )
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    assert _attempts(project, "flaky") == 5
    result.stdout.fnmatch_lines(
        [
            "*AssertionError: attempt 5 went wrong",
            "*- agenttraj: repeat -*",
            "2 of 5 attempts passed (3 failed); pass_rule majority needs 3",
            "attempts: 1 passed, 2 failed, 3 passed, 4 failed, 5 failed; shown: attempt 5",
        ]
    )


def test_fresh_function_fixtures_and_kept_module_fixtures(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_first=ATTEMPT
        + """
import pytest

@pytest.fixture(scope="module")
def agent():
    attempt("module-setup")
    yield object()
    attempt("module-teardown")

@pytest.fixture
def memory():
    yield []
    attempt("function-teardown")

def test_before(agent):
    pass

@pytest.mark.trajectory(repeat=4, pass_rule="all")
def test_repeated(agent, memory):
    memory.append(attempt("repeated"))
    assert len(memory) == 1
""",
        test_second="def test_after():\n    pass\n",
    )
    result = project.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=3)
    assert _attempts(project, "repeated") == 4
    assert _attempts(project, "function-teardown") == 4
    assert _attempts(project, "module-setup") == 1
    assert _attempts(project, "module-teardown") == 1


def test_setup_show_shows_every_attempt(project: pytest.Pytester) -> None:
    """``--setup-show`` prints each attempt's fixtures and test line, on every pytest supported
    (before 9.1 pytest's function for the test line takes no ``add_space``)."""
    project.makepyfile(
        test_shown="""
import pytest

@pytest.fixture
def memory():
    return []

@pytest.mark.trajectory(repeat=2, pass_rule="all")
def test_repeated(memory):
    pass
"""
    )
    result = project.runpytest("--setup-show")
    result.assert_outcomes(passed=1)
    out = result.stdout.str()
    assert out.count("SETUP    F memory") == 2, out
    assert out.count("TEARDOWN F memory") == 2, out
    assert out.count("test_shown.py::test_repeated (fixtures used: ") == 2, out


def test_teardown_error_that_settles_the_verdict_finishes_the_teardown(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        test_first=ATTEMPT
        + """
import pytest

@pytest.fixture(scope="module")
def agent():
    yield
    attempt("module-teardown")

@pytest.fixture
def leaky():
    yield
    raise RuntimeError("could not close the agent")

@pytest.mark.trajectory(repeat=3, pass_rule="all")
def test_repeated(agent, leaky):
    attempt("repeated")
""",
        test_second="def test_after():\n    pass\n",
    )
    result = project.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=2, errors=1)
    assert _attempts(project, "repeated") == 1
    assert _attempts(project, "module-teardown") == 1
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_repeated*",
            "*RuntimeError: could not close the agent",
            "*- agenttraj: repeat -*",
            "0 of 1 attempts passed (1 error); pass_rule all needs 3 of 3, stopped early",
        ]
    )


def test_async_test_is_repeated(project: pytest.Pytester) -> None:
    project.makepyfile(
        ATTEMPT
        + """
import asyncio
import pytest

@pytest.mark.asyncio
@pytest.mark.trajectory(repeat=3, pass_rule="majority")
async def test_agent(reference, async_trajectory_evaluator):
    number = attempt("async")
    await asyncio.sleep(0)
    outputs = reference if number > 1 else reference[:2]
    result = await async_trajectory_evaluator(outputs=outputs, reference_outputs=reference)
    assert result["score"]
"""
    )
    result = project.runpytest("--trajectory-report=report.json")
    result.assert_outcomes(passed=1)
    assert _attempts(project, "async") == 3
    (record,) = _load(project.path / "report.json")["results"]
    assert (record["attempts"], record["passed_attempts"], record["passed"]) == (3, 2, True)
    assert record["attempt_passed"] == [False, True, True]


def test_setup_errors_count_as_failed_attempts(project: pytest.Pytester) -> None:
    project.makepyfile(
        ATTEMPT
        + """
import pytest

@pytest.fixture
def flaky_agent():
    if attempt("setup") == 1:
        raise ConnectionError("agent unreachable")
    return "agent"

@pytest.mark.trajectory(repeat=3, pass_rule="majority")
def test_recovers(flaky_agent):
    pass

@pytest.fixture
def broken_agent():
    attempt("broken")
    raise ConnectionError("agent unreachable")

@pytest.mark.trajectory(repeat=3, pass_rule="majority")
def test_never_set_up(broken_agent):
    pass
"""
    )
    result = project.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=1, errors=1)
    assert _attempts(project, "setup") == 3
    assert _attempts(project, "broken") == 2
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of test_never_set_up*",
            "E * ConnectionError: agent unreachable",
            "*- agenttraj: repeat -*",
            "0 of 2 attempts passed (2 errors); pass_rule majority needs 2 of 3, stopped early",
        ]
    )
    result.stdout.fnmatch_lines(
        ["PASSED *test_recovers: 2 of 3 attempts passed (1 error); pass_rule majority needs 2"]
    )


def test_skips_end_the_attempts(project: pytest.Pytester) -> None:
    project.makepyfile(
        ATTEMPT
        + """
import pytest

@pytest.mark.skip(reason="no agent today")
@pytest.mark.trajectory(repeat=4)
def test_marked_skip():
    attempt("marked")

@pytest.mark.trajectory(repeat=4)
def test_skips_at_once():
    attempt("at-once")
    pytest.skip("rate limited")

@pytest.mark.trajectory(repeat=4, pass_rule="any")
def test_skips_later():
    if attempt("later") == 2:
        pytest.skip("rate limited")
    assert False
"""
    )
    result = project.runpytest("-rs", "-p", "no:randomly")
    result.assert_outcomes(skipped=3)
    assert [_attempts(project, n) for n in ("marked", "at-once", "later")] == [0, 1, 2]
    result.stdout.fnmatch_lines(
        [
            "SKIPPED *test_marked_skip: skipped in attempt 1 of 4",
            "SKIPPED *test_skips_at_once: skipped in attempt 1 of 4",
            "SKIPPED *test_skips_later: skipped in attempt 2 of 4 (0 of 1 earlier attempts passed)",
        ]
    )


REPORTED = (
    ATTEMPT
    + """
import pytest
from pytest_agenttraj import exact_match

@pytest.mark.trajectory(repeat=4, pass_rule="all")
@pytest.mark.parametrize("n", [1, 2])
def test_two_evaluations(request, n):
    number = attempt(f"two-{n}")
    exact_match(outputs=1, reference_outputs=1)
    exact_match(outputs=number % 2, reference_outputs=1)

@pytest.mark.trajectory(repeat=3, pass_rule="any")
def test_fails_once(reference, trajectory_evaluator):
    if attempt("once") == 1:
        trajectory_evaluator(outputs=reference[:2], reference_outputs=reference)
        assert False
    trajectory_evaluator(outputs=reference, reference_outputs=reference)

def test_once():
    exact_match(outputs=1, reference_outputs=1)
"""
)


REPEAT_FIELDS = (
    "attempts",
    "evaluated_attempts",
    "passed_attempts",
    "pass_rate",
    "attempt_passed",
    "repeat",
    "pass_rule",
)


def _comparable(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "duration_s"} for r in document["results"]]


def test_one_record_per_evaluation_with_its_rate_and_xdist_agrees(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(REPORTED)
    project.runpytest("--trajectory-report=serial.json").assert_outcomes(passed=4)
    for path in project.path.glob("*.attempts"):
        path.unlink()
    result = project.runpytest("--trajectory-report=xdist.json", "-n", "2")
    result.assert_outcomes(passed=4)
    serial = _load(project.path / "serial.json")
    assert _comparable(serial) == _comparable(_load(project.path / "xdist.json"))
    by_id = {(r["nodeid"].split("::")[1], r["key"], r["index"]): r for r in serial["results"]}
    assert len(serial["results"]) == 6
    flaky = by_id[("test_two_evaluations[1]", "exact_match", 1)]
    assert {k: flaky[k] for k in REPEAT_FIELDS} == {
        "attempts": 4,
        "evaluated_attempts": 4,
        "passed_attempts": 2,
        "pass_rate": 0.5,
        "attempt_passed": [True, False, True, False],
        "repeat": 4,
        "pass_rule": "all",
    }
    assert flaky["passed"] is False
    assert flaky["test_outcome"] == "passed"
    assert "attempt" not in flaky
    steady = by_id[("test_two_evaluations[1]", "exact_match", 0)]
    assert (steady["passed"], steady["pass_rate"]) == (True, 1.0)
    once = by_id[("test_fails_once", "trajectory_strict_match", 0)]
    assert once["attempt_passed"] == [False, True]
    assert (once["passed"], once["score"], once["test_outcome"]) == (True, True, "passed")
    assert "attempts" not in by_id[("test_once", "exact_match", 0)]
    assert serial["summary"]["attempts"] == 4 * 4 + 2 + 1
    assert serial["summary"]["passed_attempts"] == 4 + 2 + 4 + 2 + 1 + 1


def test_baseline_compares_pass_rates_with_the_tolerance(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(
        ATTEMPT
        + """
import os
from pathlib import Path
import pytest
from pytest_agenttraj import exact_match

@pytest.mark.trajectory(repeat=5, pass_rule="all")
def test_agent():
    number = attempt("agent")
    exact_match(outputs=os.environ["PATTERN"][number - 1], reference_outputs="P")
"""
    )

    def run(pattern: str, *args: str) -> pytest.RunResult:
        monkeypatch.setenv("PATTERN", pattern)
        (project.path / "agent.attempts").unlink(missing_ok=True)
        return project.runpytest(*args)

    assert run("PPPPF", "--trajectory-report=main.json").ret == pytest.ExitCode.OK
    assert _load(project.path / "main.json")["results"][0]["pass_rate"] == 0.8

    # 4/5 -> 3/5 has p = 0.5: only a loose significance level lets the tolerance decide
    loose = "--trajectory-significance=0.6"
    worse = run("PPPFF", "--trajectory-baseline=main.json", "--trajectory-tolerance=0.1", loose)
    assert worse.ret == pytest.ExitCode.TESTS_FAILED
    worse.stdout.fnmatch_lines(
        [
            "REGRESSED: *test_agent exact_match: pass rate 0.80 (4/5) -> pass rate 0.60 (3/5), "
            "p=0.5",
            "*1 regressed*",
        ]
    )
    within = run("PPPFF", "--trajectory-baseline=main.json", "--trajectory-tolerance=0.25", loose)
    assert within.ret == pytest.ExitCode.OK
    within.stdout.fnmatch_lines(["baseline: 0 regressed, 0 improved, 0 new, 0 vanished, 1 *"])
    better = run("PPPPP", "--trajectory-baseline=main.json", "--trajectory-tolerance=0.1", loose)
    assert better.ret == pytest.ExitCode.OK
    better.stdout.fnmatch_lines(
        ["improved: *test_agent exact_match: pass rate 0.80 (4/5) -> pass rate 1.00 (5/5), p=0.5"]
    )
    noisy = run("PPPFF", "--trajectory-baseline=main.json")
    assert noisy.ret == pytest.ExitCode.OK
    noisy.stdout.fnmatch_lines(
        [
            "changed, not significant: *test_agent exact_match: pass rate 0.80 (4/5) -> pass "
            "rate 0.60 (3/5), p=0.5 >= alpha 0.05"
        ]
    )


def test_aggregate_counts_a_skipped_last_attempt_only_for_what_it_evaluated() -> None:
    rule = parse_pass_rule("majority", repeat=5)

    def record(key: str, passed: bool) -> dict[str, Any]:
        return {"key": key, "index": 0, "passed": passed, "attempt": 1, "comment": str(passed)}

    runs = [[record("a", True), record("b", False)], [record("a", False)], [record("a", True)]]
    a, b = aggregate(runs, shown=1, rule=rule, repeat=5, test_outcome="skipped", skipped_attempt=2)
    assert (a["attempts"], a["passed_attempts"], a["passed"], a["comment"]) == (3, 2, True, "True")
    assert (b["attempts"], b["attempt_passed"], b["passed"]) == (2, [False, None], False)


def test_repeat_line_wording() -> None:
    info = {
        "attempts": 5,
        "passed": 2,
        "failed": 3,
        "errors": 0,
        "skipped": 0,
        "repeat": 5,
        "required": 3,
        "pass_rule": "majority",
        "verdict": "failed",
    }
    assert repeat_line(info) == "2 of 5 attempts passed (3 failed); pass_rule majority needs 3"


def test_junit_properties_describe_the_whole_repeat(project: pytest.Pytester) -> None:
    import xml.etree.ElementTree as ET

    project.makepyfile(
        ATTEMPT
        + """
import pytest
from pytest_agenttraj import exact_match

@pytest.mark.trajectory(repeat=4, pass_rule="any")
def test_scored():
    number = attempt("scored")
    assert exact_match(outputs=number, reference_outputs=3)["score"]
"""
    )
    project.runpytest("--junitxml=junit.xml").assert_outcomes(passed=1)
    properties = {
        p.get("name"): p.get("value")
        for p in ET.parse(project.path / "junit.xml").iter("property")
        if str(p.get("name")).startswith("agenttraj.exact_match")
    }
    assert properties == {
        "agenttraj.exact_match.score": "true",
        "agenttraj.exact_match.passed": "true",
        "agenttraj.exact_match.pass_rate": "0.333",
        "agenttraj.exact_match.pass_rate_interval": "0.061-0.792",
        "agenttraj.exact_match.confidence": "0.95",
        "agenttraj.exact_match.pass_hat_k": '{"1": 0.333333, "2": 0.0, "3": 0.0}',
        "agenttraj.exact_match.pass_at_k": '{"1": 0.333333, "2": 0.666667, "3": 1.0}',
    }
