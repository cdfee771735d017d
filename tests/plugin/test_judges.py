"""LLM judges in pytest: the run's judge cache (a second unchanged run makes no model call),
``--trajectory-judge-cache``, a cache folder that cannot be used (warned of once),
``--trajectory-judge-timeout``, the judge line of the terminal summary, and judge results reaching
the report and the plugin's hooks. The judge models are scripted langchain-core chat models
defined in the test project; with ``NO_MODEL_CALLS`` set, calling one fails the test."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from .conftest import PROJECT_CONFTEST, SERIAL_ONLY

JUDGE_CONFTEST = (
    PROJECT_CONFTEST
    + '''
import json
import os
import threading

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

USAGE = {"input_tokens": 1100, "output_tokens": 300, "total_tokens": 1400}
ANSWER = {"reasoning": "The steps make sense.", "score": True}


class TextJudge(BaseChatModel):
    """Answers with JSON in text (no tool calling)."""

    @property
    def _llm_type(self):
        return "text-judge"

    def _reply(self):
        return AIMessage(content=json.dumps(ANSWER), usage_metadata=USAGE)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        if os.environ.get("NO_MODEL_CALLS"):
            raise RuntimeError("the judge model was called")
        return ChatResult(generations=[ChatGeneration(message=self._reply())])


class ToolJudge(TextJudge):
    """Answers through a tool call (structured output)."""

    @property
    def _llm_type(self):
        return "tool-judge"

    def bind_tools(self, tools, *, tool_choice=None, **kwargs):
        return self.bind(**kwargs)

    def _reply(self):
        call = {"name": "score", "args": ANSWER, "id": "c1", "type": "tool_call"}
        return AIMessage(content="", tool_calls=[call], usage_metadata=USAGE)


@pytest.fixture
def chat_model():
    return ToolJudge()


RELEASE = threading.Event()


class HangingJudge(TextJudge):
    """Answers only when the session ends (or after 10 s)."""

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        RELEASE.wait(10)
        return super()._generate(messages, stop, run_manager, **kwargs)


@pytest.fixture(autouse=True, scope="session")
def _release_hanging_judges():
    yield
    RELEASE.set()
'''
)

JUDGED_TESTS = """
import pytest
from pytest_agenttraj import create_trajectory_llm_as_judge
from conftest import TextJudge, with_code


def test_fixture_judge(trajectory_judge, chat_model, reference):
    result = trajectory_judge(judge=chat_model)(outputs=reference)
    assert result["score"], result["comment"]


def test_cache_true(reference):
    judge = create_trajectory_llm_as_judge(judge=TextJudge(), cache=True)
    assert judge(outputs=with_code("location-999"))["score"]


@pytest.mark.asyncio
async def test_async_judge(async_trajectory_judge, chat_model):
    result = await async_trajectory_judge(judge=chat_model)(outputs=with_code("location-000"))
    assert result["score"]
"""


@pytest.fixture
def judged(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.delenv("NO_MODEL_CALLS", raising=False)
    project.makeconftest(JUDGE_CONFTEST)
    project.makepyfile(test_judged=JUDGED_TESTS)
    return project


def _judge_records(path: Path) -> list[dict[str, object]]:
    document = json.loads(path.read_text(encoding="utf-8"))
    return [r["judge"] for r in document["results"]]


def test_second_unchanged_run_makes_no_model_call(
    judged: pytest.Pytester, plugin_args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = judged.runpytest("--trajectory-report=first.json", *plugin_args)
    first.assert_outcomes(passed=3)
    first.stdout.fnmatch_lines(
        ["judge: 3 calls, 0 cached, 4k tokens", "3 trajectory evaluations in 3 tests: 3 passed*"]
    )
    assert [
        (j["model_calls"], j["cached"]) for j in _judge_records(judged.path / "first.json")
    ] == [(1, False)] * 3
    monkeypatch.setenv("NO_MODEL_CALLS", "1")
    second = judged.runpytest("--trajectory-report=second.json", *plugin_args)
    second.assert_outcomes(passed=3)
    second.stdout.fnmatch_lines(["judge: 0 calls, 3 cached, 0 tokens"])
    records = _judge_records(judged.path / "second.json")
    assert [(j["model_calls"], j["cached"], j["tokens"]) for j in records] == [(0, True, 0)] * 3
    summary = json.loads((judged.path / "second.json").read_text(encoding="utf-8"))["summary"]
    assert summary["judge"] == {"evaluations": 3, "model_calls": 0, "cached": 3, "tokens": 0}
    entries = list((judged.path / ".pytest_cache" / "d" / "agenttraj-judge").rglob("*.json"))
    assert len(entries) == 3


def test_refresh_asks_again_and_stores(
    judged: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    judged.runpytest().assert_outcomes(passed=3)
    refreshed = judged.runpytest("--trajectory-judge-cache=refresh")
    refreshed.assert_outcomes(passed=3)
    refreshed.stdout.fnmatch_lines(["judge: 3 calls, 0 cached, 4k tokens"])
    monkeypatch.setenv("NO_MODEL_CALLS", "1")
    judged.runpytest().assert_outcomes(passed=3)


def test_off_neither_reads_nor_writes(judged: pytest.Pytester) -> None:
    for _ in range(2):
        result = judged.runpytest("--trajectory-judge-cache=off")
        result.assert_outcomes(passed=3)
        result.stdout.fnmatch_lines(["judge: 3 calls, 0 cached, 4k tokens"])
    assert not (judged.path / ".pytest_cache" / "d" / "agenttraj-judge").exists()


def test_ini_sets_the_mode(judged: pytest.Pytester) -> None:
    judged.makefile(
        ".ini",
        pytest="[pytest]\nasyncio_default_fixture_loop_scope = function\n"
        "addopts = -p no:hypothesispytest -p no:langsmith_plugin\n"
        "trajectory_judge_cache = off\n",
    )
    for _ in range(2):
        judged.runpytest().stdout.fnmatch_lines(["judge: 3 calls, 0 cached, 4k tokens"])


@pytest.mark.parametrize(
    ("args", "ini", "message"),
    [
        (
            ["--trajectory-judge-cache=sometimes"],
            "",
            "invalid --trajectory-judge-cache 'sometimes'*",
        ),
        ([], "trajectory_judge_cache = always", "invalid ini trajectory_judge_cache 'always'*"),
    ],
)
def test_bad_mode_is_a_usage_error(
    project: pytest.Pytester, args: list[str], ini: str, message: str
) -> None:
    project.makefile(
        ".ini", pytest=f"[pytest]\nasyncio_default_fixture_loop_scope = function\n{ini}\n"
    )
    project.makepyfile("def test_x():\n    pass\n")
    result = project.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}: must be one of 'use', 'refresh', 'off'"])


def test_without_pytests_cache_judges_run_uncached(judged: pytest.Pytester) -> None:
    judged.makepyfile(
        test_fixture="def test_cache_fixture(judge_cache):\n    assert judge_cache is None\n"
    )
    for _ in range(2):
        result = judged.runpytest("-p", "no:cacheprovider")
        result.assert_outcomes(passed=4)
        result.stdout.fnmatch_lines(["judge: 3 calls, 0 cached, 4k tokens"])


def test_judge_cache_fixture_is_in_pytests_cache(judged: pytest.Pytester) -> None:
    judged.makepyfile(
        test_fixture="""
        def test_cache_fixture(judge_cache, request):
            assert judge_cache.mode == "refresh"
            assert judge_cache.directory == request.config.cache.mkdir("agenttraj-judge")
        """
    )
    judged.runpytest("test_fixture.py", "--trajectory-judge-cache=refresh").assert_outcomes(
        passed=1
    )


def test_judge_results_reach_the_hooks(judged: pytest.Pytester) -> None:
    judged.makeconftest(
        JUDGE_CONFTEST
        + """

def pytest_agenttraj_evaluated(item, result, record):
    item.add_report_section("call", "judge", f"cached={result['metadata']['cached']}")


def pytest_agenttraj_record(config, record):
    print("RECORD", record["key"], record["origin"], record["judge"]["model_calls"])
"""
    )
    result = judged.runpytest("-s", "-rA")
    result.assert_outcomes(passed=3)
    output = result.stdout.str()
    assert output.count("RECORD trajectory_accuracy trajectory_llm_judge 1") == 3
    assert output.count("cached=False") == 3


def test_unusable_run_cache_is_warned_of_once_per_session(
    judged: pytest.Pytester, plugin_args: list[str]
) -> None:
    folder = judged.path / ".pytest_cache" / "d" / "agenttraj-judge"
    folder.parent.mkdir(parents=True)
    folder.write_text("a file where the judge cache folder should be", encoding="utf-8")
    # "always": a warning made twice would show twice (the outer run's "error" is not inherited)
    result = judged.runpytest("-W", "always::pytest_agenttraj.JudgeCacheWarning", *plugin_args)
    result.assert_outcomes(passed=3, warnings=1 if not plugin_args else None)
    result.stdout.fnmatch_lines(
        [
            f"*JudgeCacheWarning: judge cache {folder} cannot be written (File exists: {folder}):"
            " every judge answer is asked of the model, none is kept"
        ]
    )
    result.stdout.fnmatch_lines(["judge: 3 calls, 0 cached, 4k tokens"])
    assert result.stdout.str().count("JudgeCacheWarning") <= (2 if plugin_args else 1)


HANGING_TESTS = """
from pytest_agenttraj import create_async_trajectory_llm_as_judge, create_trajectory_llm_as_judge
from conftest import HangingJudge


def test_run_timeout(reference):
    create_trajectory_llm_as_judge(judge=HangingJudge())(outputs=reference)


def test_own_timeout_wins(reference):
    create_trajectory_llm_as_judge(judge=HangingJudge(), timeout=0.2)(outputs=reference)


async def test_async_run_timeout(reference):
    await create_async_trajectory_llm_as_judge(judge=HangingJudge())(outputs=reference)
"""


def _hanging_project(project: pytest.Pytester) -> pytest.Pytester:
    project.makeconftest(JUDGE_CONFTEST)
    project.makepyfile(test_hanging=HANGING_TESTS)
    return project


def _fails_at_the_bounds(result: pytest.RunResult, run_bound: str) -> None:
    result.assert_outcomes(failed=3)
    late = "*JudgeError: the judge (HangingJudge) did not answer within its timeout of {} s;*"
    result.stdout.fnmatch_lines(["*test_run_timeout*", late.format(run_bound)])
    result.stdout.fnmatch_lines(["*test_own_timeout_wins*", late.format("0.2")])
    result.stdout.fnmatch_lines(["*test_async_run_timeout*", late.format(run_bound)])
    # each test ends at its bound, teardown (the event loop's close) included: no 10 s hang
    timed = re.findall(r"^([\d.]+)s (call|teardown) +test_hanging\.py::", result.stdout.str(), re.M)
    assert len([t for t in timed if t[1] == "call"]) == 3
    assert all(float(seconds) < 5 for seconds, _ in timed), timed


DURATIONS = ("--durations=0", "--durations-min=0")


@SERIAL_ONLY
def test_judge_timeout_option_fails_the_test_naming_model_and_bound(
    project: pytest.Pytester, plugin_args: list[str]
) -> None:
    hanging = _hanging_project(project)
    args = ["--trajectory-judge-timeout=0.3", "-o", "asyncio_mode=auto", *DURATIONS]
    _fails_at_the_bounds(hanging.runpytest(*args, *plugin_args), "0.3")


def test_judge_timeout_ini(project: pytest.Pytester) -> None:
    hanging = _hanging_project(project)
    hanging.makefile(
        ".ini",
        pytest="[pytest]\nasyncio_default_fixture_loop_scope = function\nasyncio_mode = auto\n"
        "addopts = -p no:hypothesispytest -p no:langsmith_plugin\n"
        "trajectory_judge_timeout = 0.4\n",
    )
    _fails_at_the_bounds(hanging.runpytest(*DURATIONS), "0.4")


@pytest.mark.parametrize(
    ("args", "ini", "message"),
    [
        (["--trajectory-judge-timeout=soon"], "", "invalid --trajectory-judge-timeout 'soon'"),
        (["--trajectory-judge-timeout=-1"], "", "invalid --trajectory-judge-timeout '-1'"),
        ([], "trajectory_judge_timeout = nan", "invalid ini trajectory_judge_timeout 'nan'"),
    ],
)
def test_bad_judge_timeout_is_a_usage_error(
    project: pytest.Pytester, args: list[str], ini: str, message: str
) -> None:
    project.makefile(
        ".ini", pytest=f"[pytest]\nasyncio_default_fixture_loop_scope = function\n{ini}\n"
    )
    project.makepyfile("def test_x():\n    pass\n")
    result = project.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"ERROR: {message}: must be a number of seconds >= 0 (0: no bound)"]
    )
