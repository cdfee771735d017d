"""The Python snippets of the README and of every page under ``docs/`` run as written.

Every ``python`` block is one of: a script that runs alone (executed here), the quick start (its
``conftest.py`` and test file copied into an empty folder and run there), a test to add to the
quick start's test file (run with it), another test file (run through pytester), a fragment of a
larger file, or a snippet that needs an LLM provider. A block that fits none fails the test, so a
new snippet cannot go untried. Where a page shows what code prints (a script's output, the quick
start's summary and its regression, the regression of ``examples/regression``, a graph mismatch),
the test compares the text line by line.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = (README, *sorted((ROOT / "docs").rglob("*.md")))

# Each block is known by a line of its own (a substring no other block has).
SCRIPTS = {
    "modes, openevals' names": "in_order = create_trajectory_match_evaluator(",
    "value matchers, in brief": 'Regex("weather (sf|san francisco)", flags=re.IGNORECASE)',
    "tool-call accuracy, in brief": 'assert result["score"] == 0.5  # one argument of two',
    "graph path, in brief": "assert_graph_trajectory(trajectory, reference)  # one superstep",
    "matchers": 'Regex("s(an )?f(rancisco)?", flags=re.IGNORECASE)',
    "ignored keys": 'ignore_keys=["request_id", "meta.ts"]',
    "tool usage": "max_total_calls=10,  # a budget for all calls",
    "graph path": "assert_graph_trajectory(trajectory, reference)  # node4 and node5",
    "interrupted thread": 'Command(resume="approve"), thread, previous=trajectory',
    "graded metrics": 'assert result["metadata"]["calls"][1]["differing_args"]',
    "scripted chat model": 'lambda request: f"It\'s {request.last_tool_message.content} in SF."',
    "simulation, in brief": "run_multiturn_simulation(app=support_agent(), user=customer, max",
    "spans outside pytest": 'tracer = provider.get_tracer("spans-outside-pytest")',
    "statistics": "stats = pass_stats(4, 5)",
}
PRINTS = {
    "modes, openevals' names",
    "graph path",
    "scripted chat model",
}
QUICK_START = {"conftest.py": "# conftest.py\n", "test_weather.py": "# test_weather.py\n"}
# the test named after its reference file, which --trajectory-update writes
RECORDED = "def test_weather_agent_as_recorded(agent):"
ON_QUICK_START = {
    "tool-usage rules": "def test_weather_agent_stays_in_bounds(agent):",
    "repeats": "def test_weather_agent_usually_calls_get_weather(agent):",
}
TEST_FILES = {
    "graph reference file": "def test_fan_out_by_marker(graph_trajectory_evaluator):",
    "simulate fixture": "def test_refund_refused_by_script(simulate):",
    "record and replay": "def test_support_agent():",
    "spans in a test": "def test_weather_agent_from_its_spans(captured_trace):",
    "runs in a test": "def test_traceable_agent(captured_trace):",
}
FRAGMENTS = {
    "reference files (uses the reader's run_agent)": 'assert_trajectory(result["messages"], "weat',
    "repeats (uses the reader's run_agent)": "def test_agent_usually_looks_up_the_code(",
    "hook signatures": "def pytest_agenttraj_record(config, record):",
    # run as tests/plugin/test_replay.py::test_the_cassette_keeps_each_calls_time_for_run_budgets
    "replayed run's budget (uses the reader's agent)": '"duration_s": agent_cassette.recorded_du',
}
NEEDS_PROVIDER = {
    "LLM judge (OpenAI)": "from langchain_openai import ChatOpenAI",
}


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    code: str
    end: int  # offset in the page's text just after the block

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def python_blocks(page: Path) -> list[Block]:
    """Each ``python`` block of a page, dedented (a block inside a list is indented)."""
    text = page.read_text(encoding="utf-8")
    blocks = []
    for match in re.finditer(r"^( *)```python\n(.*?)^\1```", text, re.S | re.M):
        line = text.count("\n", 0, match.start()) + 2
        blocks.append(Block(page, line, textwrap.dedent(match.group(2)), match.end()))
    return blocks


def all_blocks() -> list[Block]:
    return [found for page in PAGES for found in python_blocks(page)]


def block(marker: str) -> Block:
    found = [candidate for candidate in all_blocks() if marker in candidate.code]
    assert len(found) == 1, f"{[b.where for b in found]}: {len(found)} blocks contain {marker!r}"
    return found[0]


def test_every_python_block_is_tried_or_said_why_not() -> None:
    markers = [
        *SCRIPTS.values(),
        *QUICK_START.values(),
        *ON_QUICK_START.values(),
        RECORDED,
        *TEST_FILES.values(),
        *FRAGMENTS.values(),
        *NEEDS_PROVIDER.values(),
    ]
    blocks = all_blocks()
    assert len(blocks) >= 20
    for found in blocks:
        kinds = [marker for marker in markers if marker in found.code]
        assert len(kinds) == 1, f"{found.where}: a python block matched by {kinds}"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_no_python_block_escapes_the_search(page: Path) -> None:
    # a fence the pattern does not close (a stray indent) would leave a block untried
    opened = len(re.findall(r"^ *```python$", page.read_text(encoding="utf-8"), re.M))
    assert len(python_blocks(page)) == opened


def test_the_docs_are_searched() -> None:
    names = {str(page.relative_to(ROOT)) for page in PAGES}
    assert {"README.md", "docs/index.md", "docs/guides/matching.md"} <= names


@pytest.mark.parametrize("name", SCRIPTS)
def test_script_runs(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    found = block(SCRIPTS[name])
    namespace: dict[str, Any] = {"__name__": f"docs_{found.line}"}
    # dont_inherit: this module's ``from __future__ import annotations`` is not the snippet's
    script = compile(found.code, found.where, "exec", dont_inherit=True)
    exec(script, namespace)
    printed = capsys.readouterr().out
    # a page shows what a script prints, in the plain block after it
    assert printed == (printed_block(found) if name in PRINTS else "")


def printed_block(found: Block) -> str:
    """The plain block that follows ``found`` ("prints ...")."""
    after = found.page.read_text(encoding="utf-8")[found.end :]
    shown = re.match(r"\n+prints\n+```\n(.*?)^```", after, re.S | re.M)
    assert shown, f"{found.where}: no printed output shown after the block"
    return shown.group(1)


def plain_block_after(found: Block) -> list[str]:
    """The lines of the first plain block after ``found``."""
    after = found.page.read_text(encoding="utf-8")[found.end :]
    shown = re.search(r"^```\n(.*?)^```", after, re.S | re.M)
    assert shown, f"{found.where}: no plain block after the block"
    return shown.group(1).splitlines()


# ----------------------------------------------------------------------------- the quick start

# The quick start's folder stays empty but for its two files: no ini file. pytest-asyncio, installed
# here but not needed by the quick start, would warn that its loop scope is unset; the command line
# sets it instead.
QUIET = ("-o", "asyncio_default_fixture_loop_scope=function")


def quick_start(project: pytest.Pytester, extra: str = "") -> dict[str, str]:
    """The quick start's files, exactly as the README shows them, written into ``project``."""
    files = {name: block(marker).code for name, marker in QUICK_START.items()}
    for name, code in files.items():
        assert code.startswith(QUICK_START[name])
        assert block(QUICK_START[name]).page == README
    files["test_weather.py"] += extra
    for name, code in files.items():
        (project.path / name).write_text(code, encoding="utf-8")
    return files


def test_quick_start_runs_as_written_in_an_empty_folder(pytester: pytest.Pytester) -> None:
    assert not list(pytester.path.iterdir())
    quick_start(pytester)
    result = pytester.runpytest(*QUIET)
    result.assert_outcomes(passed=2)
    # what the README says pytest prints is a run of lines of its output
    shown = plain_block_after(block(QUICK_START["test_weather.py"]))
    printed = [line.rstrip() for line in result.outlines]
    first = printed.index(shown[0])
    assert printed[first : first + len(shown)] == shown


def test_quick_start_regression_prints_the_diff_shown(pytester: pytest.Pytester) -> None:
    files = quick_start(pytester)
    script = files["conftest.py"]
    # the regression the README describes: the script calls get_weather for NYC, not SF
    assert script.count('"args": {"city": "SF"}') == 1
    regressed = script.replace('"args": {"city": "SF"}', '"args": {"city": "NYC"}')
    (pytester.path / "conftest.py").write_text(regressed, encoding="utf-8")
    result = pytester.runpytest(*QUIET, "test_weather.py::test_weather_agent")
    result.assert_outcomes(failed=1)
    printed = [line.rstrip() for line in result.outlines if line.startswith("E ")]
    assert printed == shown_diff(
        README, "(strict mode, exact args): 1 problem\nE         1. message 1"
    )


def shown_diff(page: Path, beginning: str) -> list[str]:
    """The lines of the plain block on ``page`` that shows a TrajectoryMismatch so beginning."""
    text = page.read_text(encoding="utf-8")
    start = r"E       pytest_agenttraj\.TrajectoryMismatch: Trajectory does not match "
    start += r"the reference " + re.escape(beginning)
    found = re.findall(r"^```\n(" + start + r".*?)^```", text, re.S | re.M)
    assert len(found) == 1, f"{page.name}: {len(found)} such diffs"
    return str(found[0]).splitlines()


@pytest.mark.parametrize("name", ON_QUICK_START)
def test_a_test_added_to_the_quick_start_passes(pytester: pytest.Pytester, name: str) -> None:
    quick_start(pytester, extra="\n\n" + block(ON_QUICK_START[name]).code)
    pytester.runpytest(*QUIET).assert_outcomes(passed=3)


def test_the_reference_file_shown_is_what_update_writes(pytester: pytest.Pytester) -> None:
    quick_start(pytester, extra="\n\n" + block(RECORDED).code)
    pytester.runpytest(*QUIET).assert_outcomes(passed=2, failed=1)  # no file yet
    pytester.runpytest(*QUIET, "--trajectory-update").assert_outcomes(passed=3)
    path = pytester.path / "trajectories" / "test_weather_agent_as_recorded.yaml"
    shown = yaml_block("# trajectories/test_weather_agent_as_recorded.yaml")
    assert path.read_text(encoding="utf-8") == shown.split("\n", 1)[1]
    path.write_text(shown, encoding="utf-8")  # as the README shows it, with its comment
    pytester.runpytest(*QUIET).assert_outcomes(passed=3)


# --------------------------------------------------------------------------- other test files


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A test project whose ini keeps pytest-asyncio quiet."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    return pytester


@pytest.mark.parametrize("name", ["spans in a test", "runs in a test"])
def test_trace_guide_passes(project: pytest.Pytester, name: str) -> None:
    project.makepyfile(test_traced=block(TEST_FILES[name]).code)
    project.runpytest().assert_outcomes(passed=1)


def test_graph_reference_file_is_written_then_holds(project: pytest.Pytester) -> None:
    project.makepyfile(test_fan_out=block(TEST_FILES["graph reference file"]).code)
    project.runpytest("--trajectory-update").assert_outcomes(passed=2)
    written = (project.path / "trajectories" / "fan_out.yaml").read_text(encoding="utf-8")
    assert written == "steps:\n- [__start__, plan, [browse, search], answer]\n"
    project.runpytest().assert_outcomes(passed=2)
    # the file as the page shows it, header and comments added: it holds, and an update
    # leaves it as it is
    shown = yaml_block("# trajectories/fan_out.yaml")
    (project.path / "trajectories" / "fan_out.yaml").write_text(shown, encoding="utf-8")
    project.runpytest().assert_outcomes(passed=2)
    project.runpytest("--trajectory-update").assert_outcomes(passed=2)
    assert (project.path / "trajectories" / "fan_out.yaml").read_text(encoding="utf-8") == shown


def test_simulate_fixture_writes_then_holds_its_reference_conversations(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(test_refunds=block(TEST_FILES["simulate fixture"]).code)
    project.runpytest("--trajectory-update").assert_outcomes(passed=3)
    written = project.path / "trajectories" / "test_refund_refused_by_script.yaml"
    shown = yaml_block("# trajectories/test_refund_refused_by_script.yaml")
    assert written.read_text(encoding="utf-8") == shown.split("\n", 1)[1]
    project.runpytest().assert_outcomes(passed=3)


def test_record_and_replay_shows_the_diff_shown(project: pytest.Pytester) -> None:
    found = block(TEST_FILES["record and replay"])
    project.makepyfile(test_support_agent=found.code)
    project.runpytest("--trajectory-record=new").assert_outcomes(passed=1)
    assert (project.path / "cassettes" / "test_support_agent.yaml").is_file()
    project.runpytest().assert_outcomes(passed=1)
    changed = found.code.replace('"You are brief."', '"You are brief and polite."')
    project.makepyfile(test_support_agent=changed)
    result = project.runpytest()
    result.assert_outcomes(failed=1)
    page = found.page.read_text(encoding="utf-8")
    shown_block = re.search(r"^```\n(Call 1 to .*?)^```", page, re.S | re.M)
    assert shown_block, f"{found.page}: the failure is not shown"
    shown = shown_block.group(1).splitlines()
    printed = [line.rstrip() for line in result.outlines]
    first = printed.index(shown[0])
    assert printed[first : first + len(shown)] == shown


def yaml_block(first_line: str) -> str:
    """The one ``yaml`` block, on any page, whose first line begins with ``first_line``."""
    pattern = r"^```yaml\n(" + re.escape(first_line) + r".*?)^```"
    found = [
        match
        for page in PAGES
        for match in re.findall(pattern, page.read_text(encoding="utf-8"), re.S | re.M)
    ]
    assert len(found) == 1
    return str(found[0])


def test_the_regression_shown_is_what_the_examples_regressed_agent_prints(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    example = ROOT / "examples" / "regression" / "test_regressed_agent.py"
    monkeypatch.setenv("AGENTTRAJ_DEMO_FAILURE", "1")
    result = pytester.runpytest(str(example), "-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    printed = [line.rstrip() for line in result.outlines if line.startswith("E ")]
    matching = ROOT / "docs" / "guides" / "matching.md"
    assert printed == shown_diff(
        matching, "(strict mode, exact args): 1 problem\nE         1. message 3"
    )


# ------------------------------------------------------------------------- included sections


def test_every_included_section_exists() -> None:
    # the site's home page includes the README's quick start (pymdownx.snippets): a section
    # renamed on one side would leave a hole in the page
    includes = [
        (page, source, section)
        for page in PAGES
        for source, section in re.findall(
            r'^--8<-- "([^":]+):([^"]+)"$', page.read_text(encoding="utf-8"), re.M
        )
    ]
    assert ("README.md", "quick-start") in {(source, section) for _, source, section in includes}
    for page, source, section in includes:
        text = (ROOT / source).read_text(encoding="utf-8")
        start, end = f"<!-- --8<-- [start:{section}] -->", f"<!-- --8<-- [end:{section}] -->"
        assert text.count(start) == 1, f"{page.name}: {source} has no section {section!r}"
        assert text.count(end) == 1
        assert text.index(start) < text.index(end)
