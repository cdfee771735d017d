"""LangSmith logging (``--langsmith-output``, ``--trajectory-langsmith``, ``trajectory_langsmith``).

The pytest runs are real subprocesses (entry points and environment matter) talking real HTTP to
``FakeLangSmith`` on 127.0.0.1; nothing of langsmith is mocked. The payload, probe and guard
tests at the end run in this process and take milliseconds.
"""

from __future__ import annotations

import dataclasses
import datetime
import fnmatch
import json
import math
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from langsmith_server import TENANT_ID, FakeLangSmith, Mode, refused_url

from .conftest import INNER_ADDOPTS

KEY = "lsv2_sk_agenttraj_test_key_0123456789abcdef"
"""The API key every run gets; it must not show up anywhere but the request headers."""

TRACKED_TESTS = '''
import time
import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

KEY = "%KEY%"
ASK = {"role": "user", "content": "What's the weather in Suzhou?"}
LOOKUP = {"role": "assistant", "content": "", "tool_calls": [
    {"function": {"name": "look_up", "arguments": '{"city": "Suzhou"}'}}]}
WEATHER = {"role": "assistant", "content": "", "tool_calls": [
    {"function": {"name": "get_weather", "arguments": '{"code": "suz"}'}}]}
RESULT = {"role": "tool", "content": "Sunny"}
ANSWER = {"role": "assistant", "content": "It is sunny."}
RIGHT = [ASK, LOOKUP, RESULT, WEATHER, RESULT, ANSWER]
SKIPPED_LOOKUP = [ASK, WEATHER, RESULT, ANSWER]


class Model:
    """A fixture value that is not JSON (and holds a secret): never an input."""
    api_key = KEY


@pytest.fixture
def model():
    return Model()


def test_passes(assert_trajectory, tmp_path, model):
    assert_trajectory(RIGHT, RIGHT)


def test_two_results(trajectory_evaluator):
    assert trajectory_evaluator(outputs=RIGHT, reference_outputs=RIGHT)["score"]
    result = trajectory_evaluator(outputs=SKIPPED_LOOKUP, reference_outputs=RIGHT)
    assert result["score"] is False


def test_mismatch(assert_trajectory):
    assert_trajectory(SKIPPED_LOOKUP, RIGHT)


def test_langchain_messages(trajectory_evaluator):
    messages = [
        HumanMessage("Weather in Suzhou? (my key is " + KEY + ")"),
        AIMessage("", tool_calls=[{"name": "get_weather", "id": "c1", "args": {
            "when": __import__("datetime").date(2024, 5, 1), "tags": {"b", "a"}}}]),
        ToolMessage("Sunny", tool_call_id="c1"),
        AIMessage("It is sunny."),
    ]
    assert trajectory_evaluator(outputs=messages, reference_outputs=messages)["score"]


@pytest.mark.asyncio
async def test_async(async_trajectory_evaluator):
    result = await async_trajectory_evaluator(outputs=RIGHT, reference_outputs=RIGHT)
    assert result["score"]


@pytest.mark.trajectory(repeat=2)
def test_repeated(assert_trajectory):
    assert_trajectory(RIGHT, RIGHT)


class TestInAClass:
    def test_method(self, assert_trajectory):
        assert_trajectory(RIGHT, RIGHT)


@pytest.mark.trajectory  # tracked, with a run in the experiment, but no evaluation
def test_evaluates_nothing():
    assert True


def test_not_tracked():
    assert True
'''.replace("%KEY%", KEY)

CONFTEST_TIMING = """

def pytest_runtest_logfinish(nodeid, location):
    import pathlib, time
    pathlib.Path("last_test_end.txt").write_text(repr(time.time()))
"""

FAULT_TESTS = """
import pytest

RIGHT = [{"role": "user", "content": "hi"},
         {"role": "assistant", "content": "", "tool_calls": [
             {"function": {"name": "look_up", "arguments": "{}"}}]},
         {"role": "tool", "content": "x"},
         {"role": "assistant", "content": "done"}]


# First: the first tracked test is the one whose tracking fails when LangSmith does.
def test_fails(assert_trajectory):
    assert_trajectory(RIGHT[:1] + RIGHT[3:], RIGHT)


def test_one(assert_trajectory):
    assert_trajectory(RIGHT, RIGHT)


def test_two(trajectory_evaluator):
    assert trajectory_evaluator(outputs=RIGHT, reference_outputs=RIGHT)["score"]


@pytest.mark.langsmith
def test_user_marked(trajectory_evaluator):
    assert trajectory_evaluator(outputs=RIGHT, reference_outputs=RIGHT)["score"]


def test_plain():
    assert True
"""

USER_TESTS = """
import pytest
from langsmith import testing as t

RIGHT = [{"role": "user", "content": "hi"},
         {"role": "assistant", "content": "", "tool_calls": [
             {"function": {"name": "look_up", "arguments": "{}"}}]},
         {"role": "tool", "content": "x"},
         {"role": "assistant", "content": "done"}]


@pytest.mark.langsmith
def test_user_marked(trajectory_evaluator):
    t.log_outputs({"answer": "done"})
    t.log_reference_outputs({"answer": "done!"})
    assert trajectory_evaluator(outputs=RIGHT, reference_outputs=RIGHT)["score"]


@pytest.mark.langsmith
def test_openevals_logs_its_own():
    from openevals.trajectory.match import create_trajectory_match_evaluator

    evaluator = create_trajectory_match_evaluator(trajectory_match_mode="unordered")
    assert evaluator(outputs=RIGHT, reference_outputs=RIGHT)["score"]


@pytest.mark.langsmith
def test_caller_logs_feedback(trajectory_evaluator):
    with t.trace_feedback():
        result = trajectory_evaluator(outputs=RIGHT, reference_outputs=RIGHT)
        t.log_feedback(key=result["key"], score=result["score"], comment="by the caller")
"""


@pytest.fixture
def langsmith_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """Only what a test sets: no ambient LangSmith settings, one known API key."""
    for name in list(os.environ):
        # PYTEST_XDIST_*: when this suite runs under xdist, the inner run must not think it is
        # a worker (langsmith refuses --langsmith-output there).
        if name.startswith(("LANGSMITH_", "LANGCHAIN_", "PYTEST_XDIST_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("LANGSMITH_API_KEY", KEY)
    monkeypatch.setenv("LANGSMITH_TEST_SUITE", "agenttraj-tests")
    return monkeypatch


class Run(NamedTuple):
    result: pytest.RunResult
    seconds: float
    exit_seconds: float | None  # from the end of the last test to the end of the process
    report: dict[str, Any] | None


def _run(
    pytester: pytest.Pytester, env: pytest.MonkeyPatch, url: str, *args: str, timeout: float = 60
) -> Run:
    env.setenv("LANGSMITH_ENDPOINT", url)
    stamp = pytester.path / "last_test_end.txt"
    stamp.unlink(missing_ok=True)
    start = time.monotonic()
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--trajectory-report=report.json", *args, timeout=timeout
    )
    seconds = time.monotonic() - start
    ended = time.time()
    exit_seconds = ended - float(stamp.read_text()) if stamp.exists() else None
    report_path = pytester.path / "report.json"
    report = json.loads(report_path.read_text()) if report_path.exists() else None
    return Run(result, seconds, exit_seconds, report)


def _project(pytester: pytest.Pytester, tests: str, *, ini: str = "") -> None:
    addopts = "" if "addopts" in ini else INNER_ADDOPTS
    pytester.makeini(f"[pytest]\nasyncio_default_fixture_loop_scope = function\n{addopts}\n{ini}")
    pytester.makeconftest(CONFTEST_TIMING)
    pytester.makepyfile(test_agent=tests)


def _output(run: Run) -> str:
    return run.result.stdout.str() + "\n" + run.result.stderr.str()


def _warnings(run: Run) -> list[str]:
    return [line for line in _output(run).splitlines() if "agenttraj: WARNING" in line]


def _assert_no_key(
    run: Run, server: FakeLangSmith | None = None, files: Path | None = None
) -> None:
    """The key is nowhere: not in the output, the report, what was uploaded, nor (with
    ``files``) any file under that folder but the test's own sources."""
    assert KEY not in _output(run)
    assert KEY[:5] + "*" not in _output(run)  # langsmith's masked form
    assert KEY not in json.dumps(run.report)
    if server is not None:
        leaks = [str(r) for r in server.requests if KEY.encode() in r.body]
        assert leaks == []
    if files is not None:
        written = [p for p in files.rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc")]
        assert [p.name for p in written if KEY[:12].encode() in p.read_bytes()] == []


# ------------------------------------------------------------------ the round trip


def _check_round_trip(server: FakeLangSmith, run: Run) -> None:
    """What every logging run of TRACKED_TESTS must have sent."""
    assert server.errors == []
    assert server.unhandled == []
    every_run = list(server.runs().values())
    runs = {r["name"]: r for r in every_run}
    # repeat=2: each attempt is a run of its own, on the test's one example
    repeated = [r for r in every_run if r["name"] == "test_repeated"]
    assert len(repeated) == 2
    assert repeated[0]["reference_example_id"] == repeated[1]["reference_example_id"]
    assert set(runs) == {
        "test_passes",
        "test_two_results",
        "test_mismatch",
        "test_langchain_messages",
        "test_async",
        "test_method",
        "test_repeated",
        "test_evaluates_nothing",
    }
    (experiment,) = server.sessions
    assert {r["session_name"] for r in runs.values()} == {experiment["name"]}
    (dataset,) = server.datasets
    assert dataset["name"] == "agenttraj-tests"

    feedback: dict[str, list[dict[str, Any]]] = {}
    for item in server.feedback():
        feedback.setdefault(item["run_id"], []).append(item)

    def ours(name: str) -> list[tuple[Any, Any]]:
        items = feedback[runs[name]["id"]]
        assert all(f["session_id"] == experiment["id"] for f in items)
        return [(f["score"], f["comment"]) for f in items if f["key"] == "trajectory_strict_match"]

    # One feedback per evaluation, on the run of the test that made it.
    assert ours("test_passes") == [(True, None)]
    assert sorted(score for score, _ in ours("test_two_results")) == [False, True]
    ((score, comment),) = ours("test_mismatch")
    assert score is False
    assert comment.startswith("Trajectory does not match the reference (strict mode")
    assert run.report is not None
    (record,) = [r for r in run.report["results"] if r["nodeid"].endswith("test_mismatch")]
    assert comment == record["comment"]  # the result's own comment
    assert [s for s, _ in ours("test_langchain_messages")] == [True]
    # langsmith's own pass/fail feedback is there too, once per test.
    passes = {
        name: [f["score"] for f in feedback.get(r["id"], []) if f["key"] == "pass"]
        for name, r in runs.items()
        if name != "test_repeated"
    }
    assert passes == {
        "test_passes": [1],
        "test_two_results": [1],
        "test_mismatch": [0],
        "test_langchain_messages": [1],
        "test_async": [1],
        "test_method": [1],
        "test_evaluates_nothing": [1],
    }
    assert ours("test_async") == [(True, None)]
    assert ours("test_method") == [(True, None)]
    # The repeated test's statistics go on its last attempt's run, once.
    first, last = sorted(repeated, key=lambda r: str(r.get("start_time")))
    stats = {
        f["key"]: f for f in feedback[last["id"]] if f["key"].startswith("trajectory_strict_match.")
    }
    assert not [f for f in feedback[first["id"]] if "." in f["key"]]
    assert set(stats) == {
        "trajectory_strict_match.pass_rate",
        "trajectory_strict_match.pass_rate_lower",
        "trajectory_strict_match.pass_hat_k",
    }
    rate = stats["trajectory_strict_match.pass_rate"]
    assert (rate["score"], rate["comment"]) == (1, "2/2 passed (100%, 95% CI 34.2-100.0%)")
    assert stats["trajectory_strict_match.pass_rate_lower"]["score"] == pytest.approx(
        0.34238, abs=1e-4
    )
    assert stats["trajectory_strict_match.pass_hat_k"]["value"] == {"1": 1, "2": 1}
    assert all(f["session_id"] == experiment["id"] for f in stats.values())

    # The trajectory is the run's outputs, the reference the example's reference outputs.
    passes_run = runs["test_passes"]
    assert passes_run["outputs"]["trajectory"][0] == {
        "role": "user",
        "content": "What's the weather in Suzhou?",
    }
    two = runs["test_two_results"]["outputs"]
    assert set(two) == {"trajectory", "trajectory_2"}
    assert len(two["trajectory"]) == 6
    assert len(two["trajectory_2"]) == 4
    examples = {e["id"]: e for e in server.examples()}
    assert len(examples) == 8
    example = examples[passes_run["reference_example_id"]]
    assert example["outputs"]["trajectory"] == passes_run["outputs"]["trajectory"]
    # Inputs: the trajectory's input messages, never fixtures (tmp_path, model).
    assert example["inputs"] == {"messages": [passes_run["outputs"]["trajectory"][0]]}
    assert passes_run["inputs"] == {}
    assert example["metadata"]["pytest_nodeid"] == "test_agent.py::test_passes"

    # LangChain messages and non-JSON values arrive as plain JSON, the key blanked.
    lc = runs["test_langchain_messages"]["outputs"]["trajectory"]
    assert [m["type"] for m in lc] == ["human", "ai", "tool", "ai"]
    assert lc[0]["content"] == "Weather in Suzhou? (my key is [redacted])"
    assert lc[1]["tool_calls"][0]["args"] == {"when": "2024-05-01", "tags": ["a", "b"]}

    # No run for the test that is not tracked, and the normal report is complete.
    assert run.report is not None
    assert len(run.report["results"]) == 8  # the repeat's two results are one record
    _assert_no_key(run, server)


def test_round_trip_multipart(pytester: pytest.Pytester, langsmith_env: pytest.MonkeyPatch) -> None:
    _project(pytester, TRACKED_TESTS, ini="filterwarnings = error")  # logging warns nothing
    with FakeLangSmith(mode="multipart") as server:
        run = _run(pytester, langsmith_env, server.url, "--trajectory-langsmith")
    run.result.assert_outcomes(passed=8, failed=1)
    assert "POST /runs/multipart" in server.endpoints()
    _check_round_trip(server, run)
    # pytest's normal output is intact: the diff, and the summary with the experiment's URL.
    out = run.result.stdout
    out.fnmatch_lines(["*LangSmith logging on (--trajectory-langsmith)*"])
    out.fnmatch_lines(["*output vs reference*"])
    # An endpoint that does not say where its web app is (no /api path, not LangSmith's
    # cloud): the experiment's name, and no link (langsmith's guess, http://localhost, would
    # not resolve).
    # Both summaries count evaluations, and the tests that made one, alike; the LangSmith line
    # says why its own numbers differ: the repeated test's two attempts are two results there,
    # and the test that evaluates nothing has a run.
    out.fnmatch_lines(
        [
            "8 trajectory evaluations in 7 tests: 6 passed, 2 failed (7 of 9 attempts passed)",
            "*- LangSmith -*",
            "agenttraj: 8 evaluation(s) in 7 test(s) logged to LangSmith (as 9 results: a "
            "repeated test logs each attempt's; 1 more tracked test made none)",
            "  experiment '*'",
        ]
    )
    (line,) = [line for line in out.lines if line.startswith("  experiment '")]
    assert line == f"  experiment '{server.sessions[0]['name']}'"
    assert "localhost" not in _output(run)
    assert _warnings(run) == []


SIMULATION_TESTS = """
def app(message, *, thread_id):
    return {"role": "assistant", "content": "No refunds, sorry."}


def test_conversation(simulate):
    result = simulate(app, ["Refund my kettle!", "Please?"], max_turns=2)
    assert result["stop_reason"] == "max_turns"
"""


def test_a_simulation_is_logged_like_any_evaluation(
    pytester: pytest.Pytester, langsmith_env: pytest.MonkeyPatch
) -> None:
    _project(pytester, SIMULATION_TESTS)
    with FakeLangSmith(mode="multipart") as server:
        run = _run(pytester, langsmith_env, server.url, "--trajectory-langsmith")
    run.result.assert_outcomes(passed=1)
    assert server.errors == []
    (test_run,) = [r for r in server.runs().values() if r["name"] == "test_conversation"]
    assert run.report is not None
    (record,) = [r for r in run.report["results"] if r["key"] == "simulation"]
    logged = [f for f in server.feedback() if f["run_id"] == test_run["id"]]
    assert [(f["key"], f["score"]) for f in logged if f["key"] == "simulation"] == [
        ("simulation", record["score"])
    ]
    _assert_no_key(run, server)


def test_round_trip_legacy_with_langsmith_output(
    pytester: pytest.Pytester, langsmith_env: pytest.MonkeyPatch
) -> None:
    # langsmith's plugin loaded first: it registers the flag, ours finds it.
    _project(pytester, TRACKED_TESTS)
    # a self-hosted LangSmith's endpoint: the web app is at the same address, without /api/v1
    with FakeLangSmith(mode="legacy", prefix="/api/v1") as server:
        run = _run(
            pytester,
            langsmith_env,
            server.url,
            "-p",
            "langsmith_plugin",
            "-p",
            "agenttraj",
            "--langsmith-output",
        )
        web = f"http://127.0.0.1:{server.port}/o/{TENANT_ID}/datasets/"
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    assert {"POST /feedback", "POST /runs/batch"} <= set(server.endpoints())
    _check_round_trip(server, run)
    assert "Test Suite: agenttraj-tests" in run.result.stdout.str()  # langsmith's live table
    # the experiment's link, in our summary and in langsmith's table, is where the app is
    (experiment,) = server.sessions
    (dataset,) = server.datasets
    link = f"{web}{dataset['id']}/compare?selectedSessions={experiment['id']}"
    run.result.stdout.fnmatch_lines([f"  experiment '{experiment['name']}': {link}"])
    assert "".join(run.result.stdout.str().split()).count(link) == 2  # the table wraps it
    assert "localhost" not in _output(run)
    assert "already defined" not in _output(run)
    assert _warnings(run) == []


def test_langsmith_output_with_ours_loaded_first(
    pytester: pytest.Pytester, langsmith_env: pytest.MonkeyPatch
) -> None:
    _project(pytester, FAULT_TESTS)
    with FakeLangSmith() as server:
        run = _run(
            pytester,
            langsmith_env,
            server.url,
            "-p",
            "agenttraj",
            "-p",
            "langsmith_plugin",
            "--langsmith-output",
        )
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    assert "already defined" not in _output(run)
    assert "Test Suite: agenttraj-tests" in run.result.stdout.str()
    # no link where the endpoint does not say where the web app is: langsmith's table shows
    # "--" rather than its guess (http://localhost/o/..., which does not resolve)
    run.result.stdout.fnmatch_lines(["LangSmith URL: --*"])
    assert "localhost" not in _output(run)
    keys = sorted(f["key"] for f in server.feedback() if f["key"] != "pass")
    assert keys == ["trajectory_strict_match"] * 4
    assert _warnings(run) == []


def test_langsmith_output_without_langsmiths_plugin(
    pytester: pytest.Pytester, langsmith_env: pytest.MonkeyPatch
) -> None:
    _project(pytester, FAULT_TESTS, ini="addopts = -p no:hypothesispytest --strict-markers")
    with FakeLangSmith() as server:
        run = _run(
            pytester, langsmith_env, server.url, "-p", "no:langsmith_plugin", "--langsmith-output"
        )
    # No live table, no -qq: pytest's normal output, and our logging.
    run.result.assert_outcomes(passed=4, failed=1)
    run.result.stdout.fnmatch_lines(["test_agent.py F....*", "*output vs reference*"])
    names = sorted(r["name"] for r in server.runs().values())
    assert names == ["test_fails", "test_one", "test_two", "test_user_marked"]
    keys = sorted(f["key"] for f in server.feedback())
    assert keys == ["pass"] * 4 + ["trajectory_strict_match"] * 4
    assert _warnings(run) == []


def test_ini_key_under_xdist_logs_into_one_experiment(
    pytester: pytest.Pytester, langsmith_env: pytest.MonkeyPatch
) -> None:
    _project(pytester, FAULT_TESTS, ini="trajectory_langsmith = true")
    with FakeLangSmith(prefix="/api/v1") as server:
        run = _run(pytester, langsmith_env, server.url, "-n", "2")
    run.result.assert_outcomes(passed=4, failed=1)
    run.result.stdout.fnmatch_lines(["*trajectory_langsmith = true*", "*output vs reference*"])
    (experiment,) = server.sessions
    runs = server.runs().values()
    assert sorted(r["name"] for r in runs) == [
        "test_fails",
        "test_one",
        "test_two",
        "test_user_marked",
    ]
    assert {r["session_name"] for r in runs} == {experiment["name"]}
    assert len([f for f in server.feedback() if f["key"] == "trajectory_strict_match"]) == 4
    assert server.endpoints().count("GET /info") == 1  # the controller asked, once
    summary = [line for line in run.result.stdout.lines if "experiment '" in line]
    assert summary == [f"  experiment '{experiment['name']}': {summary[0].split(': ', 1)[1]}"]
    assert experiment["id"] in summary[0]
    assert run.report is not None
    assert len(run.report["results"]) == 4
    assert _warnings(run) == []


def test_tests_marked_langsmith_are_logged_without_the_switch(
    pytester: pytest.Pytester, langsmith_env: pytest.MonkeyPatch
) -> None:
    langsmith_env.setenv("LANGSMITH_TRACING", "true")  # langsmith's own tracking needs it
    _project(pytester, USER_TESTS)
    with FakeLangSmith() as server:
        run = _run(pytester, langsmith_env, server.url)
    run.result.assert_outcomes(passed=3)
    runs = {r["name"]: r for r in server.runs().values() if r["session_name"] != "evaluators"}
    by_run: dict[str, list[str]] = {}
    for item in server.feedback():
        by_run.setdefault(item["run_id"], []).append(item["key"])

    def keys(name: str) -> list[str]:
        return sorted(by_run[runs[name]["id"]])

    # Ours, once, beside langsmith's; the test's own outputs and reference outputs are kept.
    assert keys("test_user_marked") == ["pass", "trajectory_strict_match"]
    outputs = runs["test_user_marked"]["outputs"]
    assert outputs["answer"] == "done"
    assert len(outputs["trajectory"]) == 4
    example = next(
        e for e in server.examples() if e["id"] == runs["test_user_marked"]["reference_example_id"]
    )
    assert example["outputs"]["answer"] == "done!"
    assert len(example["outputs"]["trajectory"]) == 4
    # openevals logs its own result; a result made in trace_feedback is the caller's to log.
    assert keys("test_openevals_logs_its_own") == ["pass", "trajectory_unordered_match"]
    assert keys("test_caller_logs_feedback") == ["pass", "trajectory_strict_match"]
    run.result.stdout.fnmatch_lines(
        [
            "2 trajectory evaluations in 2 tests: 2 passed, 0 failed",
            "agenttraj: 2 evaluation(s) in 2 test(s) logged to LangSmith (1 with the feedback "
            "its test logged itself)",
        ]
    )
    assert _warnings(run) == []
    _assert_no_key(run, server)


def test_tests_marked_langsmith_under_xdist_are_counted_by_the_controller(
    pytester: pytest.Pytester, langsmith_env: pytest.MonkeyPatch
) -> None:
    # Without the switch the sink is made only where a test is marked langsmith: in the
    # workers; the controller adds up what they counted when they finish.
    langsmith_env.setenv("LANGSMITH_TRACING", "true")
    _project(pytester, USER_TESTS)
    with FakeLangSmith() as server:
        run = _run(pytester, langsmith_env, server.url, *_XDIST)
    run.result.assert_outcomes(passed=3)
    assert {f["key"] for f in server.feedback()} >= {"trajectory_strict_match"}
    run.result.stdout.fnmatch_lines(
        [
            "*LangSmith*",
            "agenttraj: 2 evaluation(s) in 2 test(s) logged to LangSmith (1 with the feedback "
            "its test logged itself)",
        ]
    )
    assert _warnings(run) == []


def test_tracking_off_turns_our_logging_off(
    pytester: pytest.Pytester, langsmith_env: pytest.MonkeyPatch
) -> None:
    langsmith_env.setenv("LANGSMITH_TEST_TRACKING", "false")
    _project(pytester, FAULT_TESTS, ini="trajectory_langsmith = true")
    with FakeLangSmith() as server:
        run = _run(pytester, langsmith_env, server.url)
    run.result.assert_outcomes(passed=4, failed=1)
    assert server.requests == []
    run.result.stdout.fnmatch_lines(["*LangSmith logging off (LANGSMITH_TEST_TRACKING=false*"])
    assert "- LangSmith -" not in run.result.stdout.str()


# ------------------------------------------------------------------ faults


def _tracked_paths(_method: str, path: str) -> bool:
    return path != "/info"


def _uploads(_method: str, path: str) -> bool:
    return path.startswith(("/runs", "/feedback", "/examples", "/v1/platform"))


_XDIST = ("-n", "2")

# Each way a request can fail, once, at each stage that handles it (the probe, the first
# request after it, the uploads); which words each status gets is checked in-process
# (test_probe_reports_each_fault_in_words).
FAULTS = [
    pytest.param("refused", "multipart", None, "connection refused", (), id="refused"),
    pytest.param("hang", "multipart", None, "/info: no *answer within 0.5 s", (), id="hang"),
    # after the probe, the first request (reading the dataset) of the first test, which fails
    pytest.param(
        "500",
        "multipart",
        _tracked_paths,
        "GET /datasets answered 500",
        _XDIST,
        id="500-after-probe-xdist",
    ),
    pytest.param(
        "401",
        "multipart",
        _tracked_paths,
        "GET /datasets answered 401 (check LANGSMITH_API_KEY)",
        (),
        id="401-after-probe",
    ),
    pytest.param(
        "hang",
        "multipart",
        _tracked_paths,
        "GET /datasets got no complete answer within 1 s",
        (),
        id="hang-after-probe",
    ),
    pytest.param("429", "legacy", _uploads, "answered 429", (), id="429-uploads"),
    pytest.param("hang", "legacy", _uploads, "answer within 1 s", (), id="hang-uploads"),
    # one byte every 0.2 s: a timeout that restarts with each byte would wait minutes
    pytest.param("drip", "multipart", None, "no complete answer within 0.5 s", (), id="drip"),
    pytest.param("drip", "legacy", _uploads, "no complete answer within", (), id="drip-uploads"),
]


@pytest.mark.parametrize(("fault", "mode", "fault_on", "reason", "args"), FAULTS)
def test_a_langsmith_fault_changes_no_outcome_and_shows_no_key(
    pytester: pytest.Pytester,
    langsmith_env: pytest.MonkeyPatch,
    fault: str,
    mode: Mode,
    fault_on: Any,
    reason: str,
    args: tuple[str, ...],
) -> None:
    """Whatever LangSmith does, the tests' outcomes are their own, the failing test's failure
    shows its own error only (no LangSmith traceback chained to it), one warning says what
    happened, and no output or file of the run holds the API key."""
    _project(pytester, FAULT_TESTS, ini="filterwarnings = error")
    # the defaults (2 s probe, 5 s read, 8 s drain) work the same, only slower
    langsmith_env.setenv(TIMEOUTS_ENV, "probe=0.5,connect=0.5,read=1,drain=2")
    langsmith_env.setenv("GITHUB_STEP_SUMMARY", str(pytester.path / "step-summary.md"))
    outputs = ("--trajectory-langsmith", "--junitxml=junit.xml", "-rA", *args)
    if fault == "refused":
        run = _run(pytester, langsmith_env, refused_url(), *outputs)
        server = None
    else:
        with FakeLangSmith(
            mode=mode, fault=fault, fault_on=fault_on, hang_seconds=600, drip_seconds=0.2
        ) as server:
            run = _run(pytester, langsmith_env, server.url, *outputs)
    print(f"{fault}/{mode}: session {run.seconds:.1f}s, last test -> exit {run.exit_seconds:.1f}s")
    run.result.assert_outcomes(passed=4, failed=1)  # as without logging
    assert run.report is not None
    assert len(run.report["results"]) == 4
    (warning,) = _warnings(run)
    assert fnmatch.fnmatch(warning, f"*{reason}*")
    assert "Test outcomes and reports are not affected" in warning
    assert "Traceback" not in _output(run)
    assert "During handling of the above exception" not in _output(run)
    assert "LangSmithError" not in _output(run)
    junit = (pytester.path / "junit.xml").read_text()
    assert junit.count("<failure") == 1
    assert "LangSmith" not in junit
    assert (pytester.path / "step-summary.md").exists()
    assert run.exit_seconds is not None
    assert run.exit_seconds < 15
    assert run.seconds < 30  # the whole run, start-up included: no fault waits it out
    _assert_no_key(run, server, files=pytester.path)


LATE_FAULT_CONFTEST = (
    CONFTEST_TIMING
    + """
import langsmith.testing._internal as _internal


def _end_run_fails(self, run_tree, outputs):
    raise RuntimeError("closing the run broke")


_internal._TestCase.end_run = _end_run_fails
"""
)


def test_an_error_after_a_passing_body_changes_no_outcome(
    pytester: pytest.Pytester, langsmith_env: pytest.MonkeyPatch
) -> None:
    """langsmith raising while it closes a test's run, after the test's body passed: the test
    still passes, and the one warning says what happened."""
    _project(pytester, FAULT_TESTS)
    pytester.makeconftest(LATE_FAULT_CONFTEST)
    with FakeLangSmith() as server:
        run = _run(pytester, langsmith_env, server.url, "--trajectory-langsmith")
    run.result.assert_outcomes(passed=4, failed=1)  # as without logging
    (warning,) = _warnings(run)
    assert "closing a tracked test raised RuntimeError" in warning
    assert "Test outcomes and reports are not affected" in warning


# ------------------------------------------------------------------ in-process units

from pytest_agenttraj.integrations.langsmith.payload import REDACTED, input_messages, to_payload  # noqa: E402
from pytest_agenttraj.integrations.langsmith.stats import LangSmithStats  # noqa: E402
from pytest_agenttraj.integrations.langsmith.timeouts import (  # noqa: E402
    TIMEOUTS_ENV,
    Timeouts,
)


@dataclasses.dataclass
class _Point:
    x: int
    when: datetime.datetime


class _BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no")


def test_payload_is_plain_json() -> None:
    from langchain_core.messages import AIMessage, HumanMessage
    from pydantic import BaseModel

    class Place(BaseModel):
        city: str

    loop: list[Any] = []
    loop.append(loop)
    value = {
        "lc": [
            HumanMessage("hi " + KEY),
            AIMessage("", tool_calls=[{"name": "f", "args": {}, "id": "1"}]),
        ],
        "model": Place(city="Suzhou"),
        "point": _Point(1, datetime.datetime(2024, 1, 2, 3, 4)),
        "odd": {1: b"\x00", "nan": math.nan, "inf": -math.inf, "id": uuid.UUID(int=1)},
        "set": {3, 1},
        "path": Path("/x"),
        "bad": _BadRepr(),
        "loop": loop,
        "long": "x" * 30_000,
    }
    out = to_payload(value, secret=KEY)
    json.dumps(out, allow_nan=False)  # plain JSON, nothing left to serialise
    assert out["lc"][0]["content"] == f"hi {REDACTED}"
    assert out["lc"][0]["type"] == "human"
    assert out["lc"][1]["tool_calls"][0]["name"] == "f"
    assert out["model"] == {"city": "Suzhou"}
    assert out["point"] == {"x": 1, "when": "2024-01-02T03:04:00"}
    assert out["odd"] == {
        "1": "<1 bytes>",
        "nan": "nan",
        "inf": "-inf",
        "id": str(uuid.UUID(int=1)),
    }
    assert out["set"] == [1, 3]
    assert out["path"] == "/x"
    assert out["bad"] == "<_BadRepr (repr failed: RuntimeError)>"
    assert out["loop"] == ["<cycle: list>"]
    assert len(out["long"]) < 20_100
    assert out["long"].endswith("more characters]")


def test_input_messages_are_what_came_before_the_first_reply() -> None:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    chat = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "q"},
        {"role": "assistant", "content": "a"},
    ]
    assert input_messages(chat) == chat[:2]
    assert input_messages({"messages": chat}) == chat[:2]
    lc = [SystemMessage("s"), HumanMessage("q"), AIMessage("a")]
    assert input_messages(lc) == lc[:2]
    assert input_messages([{"role": "user", "content": "q"}]) == []  # no reply: not a boundary
    assert input_messages("not a trajectory") == []


def test_probe_reports_each_fault_in_words() -> None:
    from pytest_agenttraj.integrations.langsmith.link import probe

    with FakeLangSmith() as server:
        verdict = probe(server.url)
    assert verdict.ok
    assert verdict.info is not None
    assert "batch_ingest_config" in verdict.info
    for fault in ("500", "429", "401"):
        with FakeLangSmith(fault=fault) as server:
            assert f"{server.url}/info answered {fault}" in str(probe(server.url).reason)
    with FakeLangSmith(fault="drip", drip_seconds=0.1) as server:
        assert probe(server.url, timeout=0.3).reason == (
            f"GET {server.url}/info: no complete answer within 0.3 s"
        )
    with FakeLangSmith(fault="hang", hang_seconds=30) as server:
        assert (
            probe(server.url, timeout=0.2).reason
            == f"GET {server.url}/info: no complete answer within 0.2 s"
        )
    assert "connection refused" in str(probe(refused_url()).reason)


@pytest.mark.usefixtures("langsmith_env")
def test_the_guard_stops_at_the_first_failure_without_retrying() -> None:
    from langsmith.utils import LangSmithError

    from pytest_agenttraj.integrations.langsmith.link import Link, Verdict

    with FakeLangSmith(fault="500") as server:
        link = Link(Verdict(True, None, server.info), api_url=server.url, key=KEY)
        start = time.monotonic()
        for _ in range(3):
            with pytest.raises(LangSmithError, match="stopped by pytest-agenttraj"):
                link.client.read_project(project_name="p")
        assert time.monotonic() - start < 1  # no urllib3 backoff, no langsmith sleeps
        assert [r.status for r in server.requests] == [500]  # the rest never left
        assert link.guard.failure == "GET /sessions answered 500"
        link.client.cleanup()


@pytest.mark.usefixtures("langsmith_env")
def test_the_guard_refuses_after_the_deadline() -> None:
    from langsmith.utils import LangSmithError

    from pytest_agenttraj.integrations.langsmith.link import Link, Verdict

    with FakeLangSmith() as server:
        link = Link(Verdict(True, None, server.info), api_url=server.url, key=KEY)
        assert link.drain(seconds=1.0)  # nothing pending
        link.guard.deadline = time.monotonic() - 1
        with pytest.raises(LangSmithError, match="the end-of-session deadline passed"):
            link.client.read_project(project_name="p")
        link.client.cleanup()
    assert server.endpoints() == []


@pytest.mark.parametrize(
    ("endpoint", "app"),
    [
        ("https://api.smith.langchain.com", "https://smith.langchain.com"),
        ("https://eu.api.smith.langchain.com", "https://eu.smith.langchain.com"),
        ("https://langsmith.example.com/api/v1", "https://langsmith.example.com"),
        ("http://localhost:1980/api/v1/", "http://localhost:1980"),
        ("https://user:secret@ls.example.com/base/api", "https://ls.example.com/base"),
        ("http://localhost:1984", None),
        ("http://127.0.0.1:8080/", None),
        ("https://langsmith.example.com", None),
    ],
)
def test_the_web_app_is_where_the_endpoint_says_or_unknown(endpoint: str, app: str | None) -> None:
    from pytest_agenttraj.integrations.langsmith.link import web_url

    assert web_url(endpoint) == app


def test_workers_stats_add_up_to_one_warning() -> None:
    total = LangSmithStats()
    for worker in range(2):
        stats = LangSmithStats(
            tracked_tests=2,
            logged_results=3,
            logged_evaluations=2,
            evaluated_tests=2,
            untracked_tests=1,
        )
        stats.fail(f"GET /datasets answered 500 (worker {worker})")
        stats.experiments["exp:1"] = "http://x/compare" if worker else None
        total.merge(json.loads(json.dumps(stats.as_json())))
    lines = total.lines()
    assert [kind for kind, _ in lines].count("warning") == 1
    assert lines[0][1] == (
        "agenttraj: 4 evaluation(s) in 4 test(s) handed to LangSmith; some may be missing (see "
        "the warning) (as 6 results: a repeated test logs each attempt's)"
    )
    assert lines[1] == ("info", "  experiment 'exp:1': http://x/compare")
    assert "(worker 0)" in lines[2][1]
    assert "2 test(s) ran without LangSmith tracking" in lines[2][1]


def test_importing_the_sink_does_not_import_langsmith() -> None:
    code = (
        "import sys, pytest_agenttraj.integrations.langsmith.sink; "
        "print('langsmith' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_bad_ini_value_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini(
        "[pytest]\nasyncio_default_fixture_loop_scope = function\n"
        "trajectory_langsmith = sometimes\n"
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*invalid trajectory_langsmith (*'sometimes'*): use true or false*"]
    )


def test_timeouts_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TIMEOUTS_ENV, raising=False)
    assert Timeouts.from_env() == Timeouts(probe=2.0, connect=3.0, read=5.0, drain=8.0)
    monkeypatch.setenv(TIMEOUTS_ENV, " read=10, drain=20.5 ")
    assert Timeouts.from_env() == Timeouts(probe=2.0, connect=3.0, read=10.0, drain=20.5)
    for bad in ("read", "read=0", "read=-1", "reed=3", "read=x", "read=1,,drain=2"):
        monkeypatch.setenv(TIMEOUTS_ENV, bad)
        with pytest.raises(pytest.UsageError, match=f"invalid {TIMEOUTS_ENV} .*e.g. read=10"):
            Timeouts.from_env()


def test_bad_timeouts_are_a_usage_error_when_logging_is_on(
    pytester: pytest.Pytester, langsmith_env: pytest.MonkeyPatch
) -> None:
    _project(pytester, FAULT_TESTS)
    langsmith_env.setenv(TIMEOUTS_ENV, "read=soon")
    result = pytester.runpytest_subprocess("--trajectory-langsmith", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*invalid {TIMEOUTS_ENV} 'read=soon'*"])


# ------------------------------------------------------------------ --langsmith-output's table


def _output_run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "--langsmith-output", *args)


def _failures_reach_the_terminal(result: pytest.RunResult, *, table: bool = False) -> None:
    result.stdout.fnmatch_lines(
        [
            "*= FAILURES =*",
            "*TrajectoryMismatch: Trajectory does not match the reference*",
            "*4 trajectory evaluations in 4 tests: 3 passed, 1 failed*",
            "FAILED test_agent.py::test_fails - *",
            # under langsmith's table pytest runs -qq, which prints no counts line
            *([] if table else ["*1 failed, 4 passed*"]),
        ]
    )


def test_an_unreachable_langsmith_gives_the_terminal_back(
    pytester: pytest.Pytester, langsmith_env: pytest.MonkeyPatch
) -> None:
    _project(pytester, FAULT_TESTS)
    langsmith_env.setenv("LANGSMITH_ENDPOINT", refused_url())
    langsmith_env.setenv(TIMEOUTS_ENV, "probe=0.5")
    result = _output_run(pytester)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    _failures_reach_the_terminal(result)
    result.stdout.fnmatch_lines(["*LangSmith logging failed: LangSmith is unreachable*"])


def test_no_api_key_means_logging_off_and_pytests_own_output(
    pytester: pytest.Pytester, langsmith_env: pytest.MonkeyPatch
) -> None:
    _project(pytester, FAULT_TESTS.replace("@pytest.mark.langsmith\n", ""))
    langsmith_env.delenv("LANGSMITH_API_KEY")
    with FakeLangSmith() as server:
        langsmith_env.setenv("LANGSMITH_ENDPOINT", server.url)
        result = _output_run(pytester)
    assert [r for r in server.requests if r.path != "/info"] == []
    result.stdout.fnmatch_lines(
        ["agenttraj: LangSmith logging off: LANGSMITH_API_KEY is not set (--langsmith-output)"]
    )
    _failures_reach_the_terminal(result)


def test_failures_are_printed_after_the_live_table(
    pytester: pytest.Pytester, langsmith_env: pytest.MonkeyPatch
) -> None:
    _project(pytester, FAULT_TESTS)
    with FakeLangSmith() as server:
        langsmith_env.setenv("LANGSMITH_ENDPOINT", server.url)
        result = _output_run(pytester)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert server.feedback()  # logging went on, with langsmith's table
    result.stdout.fnmatch_lines(["*Finishing up...*"])
    _failures_reach_the_terminal(result, table=True)


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        ("import sys\nsys.modules['rich'] = None\n", [], "*pip install 'langsmith?pytest?'*"),
        ("", ["-n", "2"], "*--langsmith-output does not run with pytest-xdist*"),
        ("", ["--tracking-off"], "*--langsmith-output does not run with LANGSMITH_TEST_TRACKING*"),
    ],
    ids=["no-rich", "xdist", "tracking-off"],
)
def test_what_langsmiths_plugin_refuses_is_a_usage_error(
    pytester: pytest.Pytester,
    langsmith_env: pytest.MonkeyPatch,
    setup: str,
    args: list[str],
    message: str,
) -> None:
    _project(pytester, FAULT_TESTS)
    pytester.makeconftest(CONFTEST_TIMING + setup)
    if "--tracking-off" in args:
        langsmith_env.setenv("LANGSMITH_TEST_TRACKING", "false")
        args = []
    result = _output_run(pytester, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
