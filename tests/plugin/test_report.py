"""The JSON report (--trajectory-report) and its equality under pytest-xdist."""

from __future__ import annotations

import fnmatch
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttraj.core.fingerprint import fingerprint

from .conftest import SERIAL_ONLY

TESTS = """
import pytest
from pytest_agenttraj import assert_trajectory, exact_match
from conftest import with_code

@pytest.mark.parametrize("code", ["location-123", "location-999"])
def test_weather(reference, trajectory_evaluator, code):
    trajectory_evaluator(outputs=with_code(code), reference_outputs=reference)
    trajectory_evaluator(outputs=reference, reference_outputs=reference)

@pytest.mark.trajectory(mode="superset", tool_args="ignore")
def test_assert(reference):
    assert_trajectory(with_code("location-999"), reference)

def test_fails(reference):
    assert_trajectory(with_code("location-999"), reference)

@pytest.mark.parametrize("n", range(8))
def test_exact(n):
    exact_match(outputs=n, reference_outputs=n % 3)
"""


def _load(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


@SERIAL_ONLY
def test_report_document(project: pytest.Pytester, plugin_args: list[str]) -> None:
    project.makepyfile(TESTS)
    result = project.runpytest("--trajectory-report=out/report.json", *plugin_args)
    result.assert_outcomes(passed=11, failed=1)
    result.stdout.fnmatch_lines(["agenttraj: trajectory report written to */out/report.json"])
    document = _load(project.path / "out" / "report.json")
    assert document["version"] == 1
    assert document["settings"] == {"mode": "strict", "tool_args": "exact", "overrides": None}
    assert document["summary"] == {
        "evaluations": 14,
        "passed": 7,
        "failed": 7,
        "tests": 12,
        "by_key": {
            "exact_match": {"passed": 3, "failed": 5},
            "trajectory_strict_match": {"passed": 3, "failed": 2},
            "trajectory_superset_match": {"passed": 1, "failed": 0},
        },
        # the whole run's pass rate, every evaluation one attempt: 7 of 14
        "pass_rate_interval": [0.267992, 0.732008],
        "confidence": 0.95,
        # each parametrized test's cases, as one group
        "families": {
            "test_report_document.py::test_exact": {
                "tests": 8,
                "evaluations": 8,
                "attempts": 8,
                "passed_attempts": 3,
                "pass_rate": 0.375,
                "pass_rate_interval": [0.136844, 0.694258],
            },
            "test_report_document.py::test_weather": {
                "tests": 2,
                "evaluations": 4,
                "attempts": 4,
                "passed_attempts": 3,
                "pass_rate": 0.75,
                "pass_rate_interval": [0.300642, 0.954413],
            },
        },
    }
    first = document["results"][0]
    required = {"nodeid", "key", "score", "passed", "comment", "mode", "tool_args_mode"}
    assert required | {"duration_s", "index"} <= set(first)
    failing = [r for r in document["results"] if r["nodeid"].endswith("test_fails")]
    assert failing == [
        {
            "nodeid": "test_report_document.py::test_fails",
            "key": "trajectory_strict_match",
            "index": 0,
            "score": False,
            "passed": False,
            "comment": failing[0]["comment"],
            "mode": "strict",
            "tool_args_mode": "exact",
            "duration_s": failing[0]["duration_s"],
            "origin": "assert_trajectory",
            "phase": "call",
            "test_outcome": "failed",
            "diff": failing[0]["diff"],
            "settings": {
                "kind": "trajectory",
                "mode": "strict",
                "tool_args": "exact",
                "allow_empty": False,
            },
            "settings_id": fingerprint(failing[0]["settings"]),
            "detail": failing[0]["detail"],
        }
    ]
    # what the HTML page draws: the rows, the marked one, the argument that differs
    assert failing[0]["detail"]["view"] == "trajectory"
    assert [row[2] for row in failing[0]["detail"]["rows"]] == [False] * 3 + [True] + [False] * 2
    assert failing[0]["detail"]["problems"][0]["args"][0]["actual"] == "location-999"
    assert "location_code expected 'location-123', got 'location-999'" in failing[0]["comment"]
    assert "+ location_code: 'location-999'" in failing[0]["diff"]
    indices = [r["index"] for r in document["results"] if r["nodeid"].endswith("[location-999]")]
    assert indices == [0, 1]


def _comparable(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in record.items() if k != "duration_s"} for record in document["results"]
    ]


def test_xdist_report_equals_serial_report(project: pytest.Pytester) -> None:
    project.makepyfile(TESTS)
    project.runpytest("--trajectory-report=serial.json").assert_outcomes(passed=11, failed=1)
    project.runpytest("--trajectory-report=xdist.json", "-n", "2").assert_outcomes(
        passed=11, failed=1
    )
    serial, xdist = _load(project.path / "serial.json"), _load(project.path / "xdist.json")
    assert len(serial["results"]) == 14
    assert _comparable(serial) == _comparable(xdist)
    assert serial["summary"] == xdist["summary"]


def test_report_is_replaced_atomically(project: pytest.Pytester) -> None:
    project.makepyfile(TESTS)
    target = project.path / "report.json"
    target.write_text("old", encoding="utf-8")
    project.runpytest(f"--trajectory-report={target}")
    assert _load(target)["version"] == 1
    leftovers = [p.name for p in project.path.iterdir() if p.name.startswith(".report.json")]
    assert leftovers == []


@pytest.mark.parametrize("where", ["blocker/report.json", "folder"])
def test_an_unwritable_report_is_a_usage_error_before_any_test(
    project: pytest.Pytester, plugin_args: list[str], where: str
) -> None:
    project.makepyfile("def test_x():\n    raise SystemExit('no test may run')\n")
    (project.path / "blocker").write_text("a file, not a folder", encoding="utf-8")
    (project.path / "folder").mkdir()
    result = project.runpytest(f"--trajectory-report={where}", *plugin_args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --trajectory-report */{where} cannot be written: *"])


def test_a_report_written_late_reports_the_failure_without_changing_outcomes(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        "import os\n"
        "from pytest_agenttraj import exact_match\n"
        "def test_x():\n"
        "    exact_match(outputs=1, reference_outputs=1)\n"
        "    os.mkdir('report.json')  # the path turns into a folder while the tests run\n"
    )
    result = project.runpytest("--trajectory-report=report.json")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["agenttraj: could not write the trajectory report to *"])


def test_written_files_get_the_usual_permissions(tmp_path: Path) -> None:
    from pytest_agenttraj._files import write_atomically

    mask = os.umask(0o027)
    try:
        fresh = tmp_path / "fresh.json"
        write_atomically(fresh, "{}")
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o640
        kept = tmp_path / "kept.json"
        kept.write_text("old", encoding="utf-8")
        kept.chmod(0o604)
        write_atomically(kept, "{}")
        assert stat.S_IMODE(kept.stat().st_mode) == 0o604
    finally:
        os.umask(mask)


def test_a_killed_writer_leaves_nothing_behind_the_next_write(tmp_path: Path) -> None:
    from pytest_agenttraj._files import write_atomically

    target = tmp_path / "report.json"
    (tmp_path / ".report.json.abc123.tmp").write_text("half", encoding="utf-8")
    (tmp_path / ".other.json.x.tmp").write_text("not ours", encoding="utf-8")
    write_atomically(target, "{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".other.json.x.tmp", "report.json"]


@pytest.mark.parametrize(
    ("body", "args", "reason"),
    [
        ("raise KeyboardInterrupt", [], "the run was interrupted"),
        ("assert False", ["-x"], "the run stopped early: *"),
    ],
)
def test_an_unfinished_run_is_marked_incomplete(
    project: pytest.Pytester, body: str, args: list[str], reason: str
) -> None:
    project.makepyfile(
        "from pytest_agenttraj import exact_match\n"
        "def test_a():\n    exact_match(outputs=1, reference_outputs=1)\n"
        f"def test_b():\n    {body}\n"
        "def test_c():\n    exact_match(outputs=1, reference_outputs=1)\n"
    )
    # a subprocess: an interrupted inline run would interrupt this session too
    project.runpytest_subprocess("--trajectory-report=report.json", *args)
    document = _load(project.path / "report.json")
    assert document["complete"] is False
    assert fnmatch.fnmatch(document["incomplete_reason"], reason)
    assert [r["nodeid"] for r in document["results"]] == [
        "test_an_unfinished_run_is_marked_incomplete.py::test_a"
    ]
    baseline = project.runpytest("--trajectory-baseline=report.json")
    assert baseline.ret == pytest.ExitCode.USAGE_ERROR
    baseline.stderr.fnmatch_lines(["*is the report of a run that did not finish*"])


def test_a_finished_run_is_marked_complete(project: pytest.Pytester) -> None:
    project.makepyfile(TESTS)
    project.runpytest("--trajectory-report=report.json")
    assert _load(project.path / "report.json")["complete"] is True


def test_write_atomically_keeps_the_old_file_when_writing_fails(tmp_path: Path) -> None:
    from pytest_agenttraj._files import write_atomically

    target = tmp_path / "report.json"
    target.write_text("old", encoding="utf-8")

    with pytest.raises(TypeError):
        write_atomically(target, 42)  # type: ignore[arg-type]
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]
