"""Reports of sharded runs merged into one (``python -m pytest_agenttraj report merge``), gated
and summarised as one run; a shard missing, given twice or overlapping is an error."""

from __future__ import annotations

import fnmatch
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

TESTS = """
import pytest
from pytest_agenttraj import exact_match

@pytest.mark.parametrize("n", range(4))
def test_case(n):
    exact_match(outputs=n, reference_outputs=0 if n == 3 else n)
"""

pytestmark = pytest.mark.subprocess


def _merge(project: pytest.Pytester, *args: str, env: dict[str, str] | None = None) -> Any:
    return subprocess.run(
        [sys.executable, "-m", "pytest_agenttraj", "report", "merge", *args],
        cwd=project.path,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def _shards(project: pytest.Pytester) -> None:
    project.makepyfile(test_cases=TESTS)
    for index, cases in ((1, "0 or 1"), (2, "2 or 3")):
        project.runpytest(
            f"--trajectory-report=s{index}.json",
            f"--trajectory-shard={index}/2",
            "-k",
            " or ".join(f"case[{c}]" for c in cases.split(" or ")),
        )
    project.runpytest("--trajectory-report=whole.json")


def _load(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def test_merged_shards_read_as_one_run(project: pytest.Pytester) -> None:
    _shards(project)
    done = _merge(project, "s2.json", "s1.json", "-o", "all.json")
    assert done.returncode == 0, done.stderr
    assert "merged 2 reports into all.json: 4 evaluations in 4 tests, 3 passed, 1 failed" in (
        done.stdout
    )
    merged, whole = _load(project.path / "all.json"), _load(project.path / "whole.json")
    strip = ("duration_s",)
    assert [{k: v for k, v in r.items() if k not in strip} for r in merged["results"]] == [
        {k: v for k, v in r.items() if k not in strip} for r in whole["results"]
    ]
    assert merged["summary"] == whole["summary"]
    # the merged report is a baseline like any other, and gates as one
    again = project.runpytest("--trajectory-baseline=all.json")
    again.stdout.fnmatch_lines(
        ["baseline: 0 regressed, 0 improved, 0 new, 0 vanished, 4 unchanged"]
    )
    gated = _merge(project, "s1.json", "s2.json", "-o", "b.json", "--baseline", "all.json")
    assert gated.returncode == 0
    assert "baseline: 0 regressed" in gated.stdout


def test_step_summary_of_the_merged_report(project: pytest.Pytester, tmp_path: Path) -> None:
    _shards(project)
    summary = tmp_path / "summary.md"
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary)}
    assert _merge(project, "s1.json", "s2.json", "-o", "all.json", env=env).returncode == 0
    text = summary.read_text(encoding="utf-8")
    assert "## Agent trajectories" in text
    assert "4 trajectory evaluations in 4 tests: 3 passed, 1 failed" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["s1.json"], "error: shard 2 of 2 missing: only s1.json (1/2) given"),
        (["s1.json", "s1.json"], "error: shard 1/2 given twice: s1.json and s1.json"),
        (
            ["s1.json", "whole.json"],
            "error: whole.json record no shard, while s1.json does: run every shard with "
            "--trajectory-shard=I/N",
        ),
        (["missing.json"], "error: report missing.json does not exist*"),
    ],
)
def test_shards_missing_or_duplicated_are_errors(
    project: pytest.Pytester, args: list[str], message: str
) -> None:
    _shards(project)
    done = _merge(project, *args, "-o", "all.json")
    assert done.returncode == 2
    assert fnmatch.fnmatch(done.stderr.strip(), message), done.stderr
    assert not (project.path / "all.json").exists()


def test_overlapping_reports_are_an_error(project: pytest.Pytester) -> None:
    _shards(project)
    done = _merge(project, "whole.json", "whole.json", "-o", "all.json")
    assert done.returncode == 2
    assert "error: result test_cases.py::test_case[0] exact_match [0] is in both whole.json " in (
        done.stderr
    )


def test_bad_shard_option_is_a_usage_error(project: pytest.Pytester) -> None:
    project.makepyfile(test_cases=TESTS)
    result = project.runpytest("--trajectory-report=r.json", "--trajectory-shard=3/2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*invalid --trajectory-shard '3/2': expected I/N*"])
