"""CI surfaces: per-result properties in the JUnit XML and the GitHub Actions step summary."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pytest_agenttraj.gating.baseline import compare
from pytest_agenttraj.gating.junit import junit_properties
from pytest_agenttraj.gating.step_summary import STEP_SUMMARY_ENV, step_summary_markdown
from pytest_agenttraj.plugin.results import TrajectoryResults

from .conftest import SERIAL_ONLY

TESTS = """
import pytest
from pytest_agenttraj import assert_trajectory, exact_match
from conftest import with_code

@pytest.mark.parametrize("x", [pytest.param(1, id="a|b*<c>")])
def test_asserted(reference, x):
    assert_trajectory(reference, reference)

@pytest.mark.trajectory(mode="unordered", tool_args="ignore")
def test_twice(reference, trajectory_evaluator):
    trajectory_evaluator(outputs=with_code("location-999"), reference_outputs=reference)
    trajectory_evaluator(outputs=reference[:2], reference_outputs=reference)

def test_fails(reference):
    assert_trajectory(with_code("location-999"), reference)

@pytest.fixture
def evaluated_in_teardown():
    yield
    exact_match(outputs=1, reference_outputs=1)

def test_teardown_evaluation(evaluated_in_teardown, request):
    request.node.user_properties.append(("own", "kept"))

@pytest.fixture
def broken_teardown():
    yield
    raise RuntimeError("teardown broke")

def test_call_and_teardown_fail(broken_teardown):
    exact_match(outputs=1, reference_outputs=2)
    assert False

def test_no_evaluation():
    pass
"""

STRICT = {"mode": "strict", "tool_args_mode": "exact"}


@pytest.fixture(autouse=True)
def no_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs here never append to the summary of a real GitHub Actions job running this suite."""
    monkeypatch.delenv(STEP_SUMMARY_ENV, raising=False)


def _properties(path: Path) -> dict[str, list[tuple[str, str]]]:
    """Each testcase name's properties, over every testcase element of that name.

    Leaves out the JSON record (``agenttraj``): pytest's junitxml writes the user properties of the
    teardown report (and of a failed call report when the teardown fails too), so a record reaches
    the XML only when its evaluation ran in one of those phases.
    """
    found: dict[str, list[tuple[str, str]]] = {}
    for testcase in ET.parse(path).getroot().iter("testcase"):
        props = found.setdefault(str(testcase.get("name")), [])
        props += [
            (str(p.get("name")), str(p.get("value")))
            for p in testcase.iter("property")
            if p.get("name") != "agenttraj"
        ]
    return found


def _result(stem: str, score: str, passed: str, **modes: str) -> list[tuple[str, str]]:
    pairs = [(f"{stem}.score", score), (f"{stem}.passed", passed)]
    return pairs + [(f"{stem}.{name}", value) for name, value in modes.items()]


# ------------------------------------------------------------------ a run with both


def _expected_junit() -> dict[str, list[tuple[str, str]]]:
    unordered = {"mode": "unordered", "tool_args_mode": "ignore"}
    return {
        "test_asserted[a|b*<c>]": _result(
            "agenttraj.trajectory_strict_match", "true", "true", **STRICT
        ),
        "test_twice": [
            *_result("agenttraj.trajectory_unordered_match", "true", "true", **unordered),
            *_result("agenttraj.trajectory_unordered_match[1]", "false", "false", **unordered),
        ],
        "test_fails": _result("agenttraj.trajectory_strict_match", "false", "false", **STRICT),
        "test_teardown_evaluation": [
            ("own", "kept"),
            *_result("agenttraj.exact_match", "true", "true"),
        ],
        # pytest writes two testcases here (call failure, teardown error); the result is on one.
        "test_call_and_teardown_fail": _result("agenttraj.exact_match", "false", "false"),
        "test_no_evaluation": [],
    }


RESULTS_TABLE = [
    "### Results",
    "",
    "| test | key | mode | score | result |",
    "| --- | --- | --- | --- | --- |",
    r"| test\_ci.py::test\_call\_and\_teardown\_fail | exact\_match | - | false | ❌ FAIL |",
    r"| test\_ci.py::test\_fails | trajectory\_strict\_match | strict/exact | false | ❌ FAIL |",
    r"| test\_ci.py::test\_twice \[1\] | trajectory\_unordered\_match | unordered/ignore "
    "| false | ❌ FAIL |",
    r"| test\_ci.py::test\_asserted\[a\|b\*\<c>\] | trajectory\_strict\_match | strict/exact "
    "| true | ✅ PASS |",
    r"| test\_ci.py::test\_teardown\_evaluation | exact\_match | - | true | ✅ PASS |",
    r"| test\_ci.py::test\_twice | trajectory\_unordered\_match | unordered/ignore | true "
    "| ✅ PASS |",
    "",
    "**6 trajectory evaluations in 5 tests: 3 passed, 3 failed**",
    "",
]


def test_junit_properties_and_step_summary(
    project: pytest.Pytester, plugin_args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(test_ci=TESTS)
    summary = project.path / "summary.md"
    summary.write_text("# Build\nearlier step", encoding="utf-8")
    monkeypatch.setenv(STEP_SUMMARY_ENV, str(summary))
    result = project.runpytest("--junitxml=out/junit.xml", *plugin_args)
    result.assert_outcomes(passed=4, failed=2, errors=1)
    assert _properties(project.path / "out" / "junit.xml") == _expected_junit()
    assert summary.read_text(encoding="utf-8").split("\n") == [
        "# Build",
        "earlier step",
        "",
        "## Agent trajectories",
        "",
        *RESULTS_TABLE,
    ]


def test_plain_run_adds_nothing(project: pytest.Pytester) -> None:
    project.makeconftest(
        "from conftest import *\n"
        "def pytest_runtest_logreport(report):\n"
        "    print('PROPS', report.when, [name for name, _ in report.user_properties])\n"
        "def pytest_unconfigure(config):\n"
        "    print('SUMMARY', config.pluginmanager.get_plugin('agenttraj-step-summary'))\n"
    )
    project.makepyfile(
        "from pytest_agenttraj import exact_match\n"
        "def test_x():\n    exact_match(outputs=1, reference_outputs=1)\n"
    )
    result = project.runpytest("-s")
    result.assert_outcomes(passed=1)
    # the record rode on the call report to the session, which took it off
    result.stdout.fnmatch_lines(["*PROPS call ??", "PROPS teardown ??", "*SUMMARY None"])


def test_junit_properties_of_a_record() -> None:
    record = {"key": "k", "index": 2, "score": 0.25, "passed": False, "pass_rate": 0.5}
    assert junit_properties(record) == [
        ("agenttraj.k[2].score", "0.25"),
        ("agenttraj.k[2].passed", "false"),
        ("agenttraj.k[2].pass_rate", "0.5"),
    ]


# ------------------------------------------------------------------ step summary


BASELINE_TESTS = """
import pytest
from pytest_agenttraj import exact_match

@pytest.mark.parametrize("n", [1, 2, 3])
def test_exact(n):
    exact_match(outputs=n, reference_outputs={reference})
"""


def test_step_summary_shows_baseline_regressions_first(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(test_gate=BASELINE_TESTS.format(reference="1 if n != 3 else 3"))
    project.runpytest("--trajectory-report=baseline/report.json").assert_outcomes(passed=3)
    project.makepyfile(test_gate=BASELINE_TESTS.format(reference="1"))
    summary = project.path / "summary.md"
    monkeypatch.setenv(STEP_SUMMARY_ENV, str(summary))
    args = ("--trajectory-baseline=baseline/report.json", "--trajectory-tolerance=0.05")
    regressed = project.runpytest(*args)
    assert regressed.ret == pytest.ExitCode.TESTS_FAILED
    lines = summary.read_text(encoding="utf-8").splitlines()
    assert lines[:12] == [
        "## Agent trajectories",
        "",
        "### Baseline: baseline/report.json",
        "",
        "❌ **1 regression** against the baseline (tolerance 0.05): the session fails.",
        "",
        "| test | key | change |",
        "| --- | --- | --- |",
        r"| test\_gate.py::test\_exact\[3\] | exact\_match | passed -> failed |",
        "",
        "baseline: 1 regressed, 0 improved, 0 new, 0 vanished, 2 unchanged",
        "",
    ]
    assert lines[12] == "### Results"
    assert lines[16].startswith(r"| test\_gate.py::test\_exact\[2\] | exact\_match | - | false")


LOOSENED_TESTS = """
from pytest_agenttraj import exact_match
from conftest import REFERENCE, with_code

def test_weather(assert_trajectory):
    assert_trajectory(with_code("location-999"), REFERENCE)

def test_exact():
    exact_match(outputs=1, reference_outputs=1)
"""


@SERIAL_ONLY
def test_a_result_that_is_not_comparable_shows_both_settings_in_junit_and_the_step_summary(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, plugin_args: list[str]
) -> None:
    """The baseline compared exact args; the change ignores them (and its agent calls the tool
    otherwise). The JUnit XML carries the verdict on the test's own testcase (the session's
    comes after the XML is written), and the step summary's table lists it with the old and new
    settings."""
    project.makepyfile(test_gate=LOOSENED_TESTS.replace('with_code("location-999")', "REFERENCE"))
    project.runpytest("--trajectory-report=main.json").assert_outcomes(passed=2)
    project.makepyfile(test_gate=LOOSENED_TESTS)
    summary = project.path / "summary.md"
    monkeypatch.setenv(STEP_SUMMARY_ENV, str(summary))
    result = project.runpytest(
        "--trajectory-baseline=main.json",
        "--tool-args-mode=ignore",
        "--junitxml=junit.xml",
        *plugin_args,
    )
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    reason = "judged under other settings: tool_args exact -> ignore; passed -> passed"
    properties = _properties(project.path / "junit.xml")
    assert (
        "agenttraj.trajectory_strict_match.baseline",
        f"NOT COMPARABLE: {reason}",
    ) in properties["test_weather"]
    assert [name for name, _ in properties["test_exact"] if name.endswith(".baseline")] == []
    lines = summary.read_text(encoding="utf-8").splitlines()
    assert lines[4] == (
        "❌ **1 regression** against the baseline (tolerance 0): the session fails. 1 of them "
        "judged under other settings than the baseline's, so not comparable."
    )
    assert (
        r"| test\_gate.py::test\_weather | trajectory\_strict\_match | judged under other "
        r"settings: tool\_args exact -> ignore; passed -> passed |"
    ) in lines
    assert (
        "baseline: 0 regressed, 0 improved, 0 new, 0 vanished, 1 not comparable, 1 unchanged"
        in (lines)
    )


def test_unwritable_step_summary_warns_without_changing_the_outcome(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(
        "from pytest_agenttraj import exact_match\n"
        "def test_x():\n    exact_match(outputs=1, reference_outputs=1)\n"
    )
    monkeypatch.setenv(STEP_SUMMARY_ENV, str(project.path / "missing" / "summary.md"))
    result = project.runpytest()
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    assert len([line for line in result.outlines if STEP_SUMMARY_ENV in line]) == 1
    result.stdout.fnmatch_lines(
        [
            "agenttraj: could not append the trajectory summary to $GITHUB_STEP_SUMMARY "
            "(*missing/summary.md): *No such file or directory*"
        ]
    )


def test_no_evaluations_write_nothing(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile("def test_plain():\n    pass\n")
    summary = project.path / "summary.md"
    monkeypatch.setenv(STEP_SUMMARY_ENV, str(summary))
    result = project.runpytest("--junitxml=junit.xml")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    assert not summary.exists()
    assert _properties(project.path / "junit.xml") == {"test_plain": []}
    assert "agenttraj: could not" not in result.stdout.str()


# ------------------------------------------------------------------ the Markdown on its own


def _records(count: int, *, failed: int = 0) -> TrajectoryResults:
    return TrajectoryResults(
        [
            {
                "nodeid": f"t.py::test_{n:02d}",
                "key": "k",
                "index": 0,
                "score": n >= failed,
                "passed": n >= failed,
                "mode": None,
                "settings": {"kind": "value"},
            }
            for n in range(count)
        ]
    )


def test_markdown_caps_rows_with_a_note() -> None:
    lines = step_summary_markdown(_records(5, failed=3), max_rows=2).splitlines()
    assert lines[4:] == [
        "| test | key | mode | score | result |",
        "| --- | --- | --- | --- | --- |",
        r"| t.py::test\_00 | k | - | false | ❌ FAIL |",
        r"| t.py::test\_01 | k | - | false | ❌ FAIL |",
        "",
        "_... 3 more results not shown (1 failed)._",
        "",
        "**5 trajectory evaluations in 5 tests: 2 passed, 3 failed**",
    ]


def test_markdown_gives_each_parametrized_test_its_rate_and_interval() -> None:
    records = [
        {"nodeid": f"t.py::test_city[{n}]", "key": "k", "index": 0, "passed": n != 3}
        for n in range(5)
    ]
    records.append({"nodeid": "t.py::test_alone", "key": "k", "index": 0, "passed": True})
    text = step_summary_markdown(TrajectoryResults(records))
    assert text.splitlines()[-3:] == [
        "### Parametrized tests",
        "",
        r"- t.py::test\_city: 4/5 passed (80%, 95% CI 37.6-96.4%)",
    ]


def test_markdown_turns_newlines_into_breaks() -> None:
    results = TrajectoryResults(
        [{"nodeid": "t.py::x", "key": "line one\nline two|\r\n", "score": 1.0, "passed": True}]
    )
    assert r"| t.py::x | line one<br>line two\|<br> | - | 1 | ✅ PASS |" in (
        step_summary_markdown(results)
    )


def test_markdown_caps_regressions_and_shows_warnings() -> None:
    plain = {"kind": "value"}
    before = {
        "results": [
            {"nodeid": f"t.py::test_{n}", "key": "k", "passed": True, "settings": plain}
            for n in range(3)
        ],
        "settings": {"mode": "superset"},
    }
    now = [
        {"nodeid": f"t.py::test_{n}", "key": "k", "passed": False, "settings": plain}
        for n in range(3)
    ]
    comparison = compare(before, now, settings={"mode": "strict"})
    text = step_summary_markdown(
        TrajectoryResults(now), comparison=comparison, baseline="b.json", max_rows=1
    )
    assert "> baseline was made with other settings (mode=superset; now mode=strict)" in text
    assert "❌ **3 regressions** against the baseline (tolerance 0): the session fails.\n" in text
    assert "_... 2 more regressions not shown._" in text
    assert text.index("### Baseline: b.json") < text.index("### Results")


def test_markdown_says_when_nothing_regressed() -> None:
    results = _records(2)
    comparison = compare(results.to_json(), results.records, tolerance=0.05)
    text = step_summary_markdown(results, comparison=comparison, tolerance=0.05)
    assert text.splitlines()[:7] == [
        "## Agent trajectories",
        "",
        "### Baseline",
        "",
        "✅ No regressions against the baseline (tolerance 0.05).",
        "",
        "baseline: 0 regressed, 0 improved, 0 new, 0 vanished, 2 unchanged",
    ]


def test_markdown_is_empty_without_results() -> None:
    assert step_summary_markdown(TrajectoryResults()) == ""
