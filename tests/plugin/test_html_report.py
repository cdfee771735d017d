"""The HTML report: ``--trajectory-html`` and ``python -m pytest_agenttraj report html``.

The page is checked twice: as a file (what it holds, that it is built from the report document,
that hostile text cannot become markup) and in a real browser, Debian's Chromium driven by
Playwright (nothing fails in the console, failures come first, the filters hide what they say,
the graph is drawn, the screenshot is not blank, a message holding ``<script>`` runs nothing).
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttraj.render.detail import MAX_ITEMS
from pytest_agenttraj.render.html import page

from .conftest import SERIAL_ONLY

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

HOSTILE = '<script>window.__pwned = 1</script></style><img src=x onerror="window.__pwned=2">'

AGENT_TESTS = f"""
import pytest
from pytest_agenttraj import assert_graph_trajectory, assert_trajectory

def weather(code, text="Sunny"):
    return [
        {{"role": "user", "content": {HOSTILE!r}}},
        {{"role": "assistant", "content": "", "tool_calls": [{{"function": {{
            "name": "get_weather", "arguments": '{{"location_code": "' + code + '"}}'}}}}]}},
        {{"role": "tool", "content": text}},
        {{"role": "assistant", "content": "It is " + text}},
    ]

def test_regressed():
    assert_trajectory(weather("location-999"), weather("location-123"))

def test_fine():
    assert_trajectory(weather("location-123"), weather("location-123"))

def test_graph_path():
    assert_graph_trajectory(
        {{"steps": [["__start__", "plan", ["search", "fetch"], "answer"]]}},
        {{"steps": [["__start__", "plan", ["search", "fetch"], "review", "answer"]]}},
    )

ATTEMPT = iter([True, False, True])

@pytest.mark.trajectory(repeat=3, pass_rule="min:2")
def test_flaky():
    code = "location-123" if next(ATTEMPT) else "location-9"
    assert_trajectory(weather(code), weather("location-123"))
"""


def embedded(html: str) -> dict[str, Any]:
    """The report document a page carries."""
    found = re.search(
        r'<script type="application/octet-stream" id="report-data">([^<]*)</script>', html
    )
    assert found is not None, "the page holds no report data"
    return json.loads(gzip.decompress(base64.b64decode(found.group(1))))


def _run_page(project: pytest.Pytester, *args: str) -> Path:
    project.makepyfile(test_agent=AGENT_TESTS)
    result = project.runpytest(
        "--trajectory-html=out/page.html", "--trajectory-report=report.json", *args
    )
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(["*trajectory page written to*page.html"])
    return project.path / "out" / "page.html"


@pytest.fixture
def run_page(project: pytest.Pytester) -> Path:
    return _run_page(project)


# ------------------------------------------------------------------ the file


@SERIAL_ONLY
def test_page_holds_the_report_and_no_text_of_it_as_markup(
    project: pytest.Pytester, plugin_args: list[str]
) -> None:
    html = _run_page(project, *plugin_args).read_text(encoding="utf-8")
    assert "<script>window.__pwned" not in html
    assert "onerror" not in html
    # one element of each: the page's own style, the data and the page's own script
    assert html.count("<script") == 2
    assert html.count("</style>") == 1
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in html
    document = embedded(html)
    keys = {(r["nodeid"].split("::")[1], r["key"]) for r in document["results"]}
    assert ("test_regressed", "trajectory_strict_match") in keys
    assert ("test_graph_path", "graph_trajectory_strict_match") in keys
    failed = next(r for r in document["results"] if r["nodeid"].endswith("test_regressed"))
    detail = failed["detail"]
    assert detail["view"] == "trajectory"
    assert detail["rows"][1][2] is True  # the marked row
    assert detail["problems"][0]["args"][0] == {
        "path": "location_code",
        "kind": "changed",
        "expected": "location-123",
        "actual": "location-999",
    }
    assert detail["output"][0]["text"] == HOSTILE
    flaky = next(r for r in document["results"] if r["nodeid"].endswith("test_flaky"))
    assert flaky["attempts"] == 3
    assert flaky["passed_attempts"] == 2


def test_the_command_draws_the_same_report_from_the_json_file(
    run_page: Path, project: pytest.Pytester
) -> None:
    out = project.path / "again.html"
    done = subprocess.run(
        [sys.executable, "-m", "pytest_agenttraj", "report", "html", "report.json", "-o", str(out)],
        cwd=project.path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "wrote" in done.stdout
    assert "4 evaluations" in done.stdout
    from_run = embedded(run_page.read_text(encoding="utf-8"))
    from_file = embedded(out.read_text(encoding="utf-8"))
    assert from_file["results"] == from_run["results"]
    assert from_file["summary"] == from_run["summary"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "does not exist; create one with --trajectory-report="),
        ("{not json", "is not valid JSON (line 1, column 2"),
        (
            '{"version": 1, "results": [{"nodeid": 3}]}',
            "result 0, field 'nodeid': expected a string",
        ),
        ('{"version": 7, "results": []}', "has report version 7"),
    ],
)
def test_the_command_names_the_file_and_field_of_a_bad_report(
    tmp_path: Path, content: str | None, expected: str
) -> None:
    report = tmp_path / "report.json"
    if content is not None:
        report.write_text(content)
    done = subprocess.run(
        [sys.executable, "-m", "pytest_agenttraj", "report", "html", str(report)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: report {report}")
    assert expected in done.stderr
    assert not (tmp_path / "report.html").exists()


def test_a_report_of_an_unfinished_run_is_drawn_and_says_so(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    report.write_text(
        json.dumps({"version": 1, "results": [], "complete": False, "incomplete_reason": "-x"})
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest_agenttraj", "report", "html", str(report)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert embedded((tmp_path / "report.html").read_text())["incomplete_reason"] == "-x"


def test_an_unwritable_page_path_is_a_usage_error_before_any_test(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(test_x="def test_x():\n    raise AssertionError('ran')\n")
    (project.path / "taken").write_text("a file, not a folder")
    result = project.runpytest("--trajectory-html=taken/page.html")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--trajectory-html*taken/page.html cannot be written*"])
    assert "ran" not in result.stdout.str()


def test_a_page_that_cannot_be_written_does_not_change_the_outcome(
    project: pytest.Pytester,
) -> None:
    # the test itself takes the page's path away (a folder where the file should go)
    project.makepyfile(
        test_x="""
        import os
        from pytest_agenttraj import assert_trajectory

        def test_x():
            os.makedirs("page.html/inside")
            said = [{"role": "user", "content": "hi"}]
            assert_trajectory(said, said)
        """
    )
    result = project.runpytest("--trajectory-html=page.html")
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*could not write the trajectory page to*page.html*"])


def _regressed_against_a_baseline(project: pytest.Pytester) -> Path:
    project.makepyfile(
        test_agent="""
        import os
        from pytest_agenttraj import assert_trajectory

        def test_agent():
            said = os.environ.get("SAID", "hi")
            assert_trajectory([{"role": "user", "content": "x"},
                               {"role": "assistant", "content": "", "tool_calls": [
                                   {"name": said, "args": {}}]}],
                              [{"role": "user", "content": "x"},
                               {"role": "assistant", "content": "", "tool_calls": [
                                   {"name": "hi", "args": {}}]}])
        """
    )
    project.runpytest("--trajectory-report=base.json").assert_outcomes(passed=1)
    os.environ["SAID"] = "bye"
    try:
        result = project.runpytest("--trajectory-baseline=base.json", "--trajectory-html=page.html")
    finally:
        del os.environ["SAID"]
    assert result.ret != 0
    return project.path / "page.html"


def test_the_page_lists_the_baselines_regressions(project: pytest.Pytester) -> None:
    baseline = embedded(_regressed_against_a_baseline(project).read_text())["baseline"]
    assert baseline["path"] == "base.json"
    assert baseline["failed"] is True
    assert baseline["counts"]["regressed"] == 1
    assert baseline["changes"][0]["change"] == "regressed"
    assert baseline["changes"][0]["nodeid"].endswith("test_agent")


def test_a_long_trajectory_keeps_a_bounded_detail() -> None:
    from pytest_agenttraj import TrajectoryMismatch, assert_trajectory
    from pytest_agenttraj.render.detail import detail

    long = [{"role": "user", "content": f"message {i}"} for i in range(3 * MAX_ITEMS)]
    other = [*long[:-1], {"role": "assistant", "content": "late"}]
    with pytest.raises(TrajectoryMismatch) as raised:
        assert_trajectory(long, other)
    view = detail(raised.value.report)
    assert len(view["rows"]) == MAX_ITEMS
    assert len(view["output"]) == MAX_ITEMS
    assert view["output_count"] == 3 * MAX_ITEMS
    assert len(json.dumps(view)) < 400_000


def test_the_pages_own_assets_cannot_close_their_elements() -> None:
    from importlib.resources import files

    for name in ("page.css", "page.js"):
        text = files("pytest_agenttraj.render.html").joinpath(name).read_text().lower()
        assert "</style" not in text
        assert "</script" not in text, name


def test_a_page_of_no_results_is_a_page() -> None:
    html = page({"version": 1, "results": [], "summary": {}})
    assert embedded(html)["results"] == []


# ------------------------------------------------------------------ in the browser


def _colours(browser: Any, png: bytes) -> int:
    """How many colours a screenshot shows (sampled on a grid), as the browser decodes it."""
    tab = browser.new_page()
    tab.set_content("<canvas></canvas>")
    count: int = tab.evaluate(
        """async (data) => {
            const image = new Image();
            image.src = "data:image/png;base64," + data;
            await image.decode();
            const canvas = document.querySelector("canvas");
            canvas.width = image.width; canvas.height = image.height;
            const context = canvas.getContext("2d");
            context.drawImage(image, 0, 0);
            const pixels = context.getImageData(0, 0, image.width, image.height).data;
            const seen = new Set();
            for (let y = 0; y < image.height; y += 7) {
                for (let x = 0; x < image.width; x += 7) {
                    const i = (y * image.width + x) * 4;
                    seen.add(pixels[i] + "," + pixels[i + 1] + "," + pixels[i + 2]);
                }
            }
            return seen.size;
        }""",
        base64.b64encode(png).decode("ascii"),
    )
    tab.close()
    return count


def _expand(evaluation: Any) -> None:
    """Open an evaluation's body (a click toggles it)."""
    if not evaluation.locator(".body").count() or not evaluation.locator(".body").is_visible():
        evaluation.locator(".head").click()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.skip("Chromium is not installed (.ci/run installs Debian's chromium)")
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield launched
        launched.close()


def _open(browser: Any, path: Path) -> tuple[Any, list[str]]:
    tab = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.goto(path.as_uri())
    tab.wait_for_selector("body[data-ready]", state="attached")
    return tab, errors


def test_the_page_in_chromium(browser: Any, run_page: Path, tmp_path: Path) -> None:
    tab, errors = _open(browser, run_page)
    assert tab.evaluate("document.body.dataset.ready") == "true"
    # failed first, and the first failure opened by itself
    outcomes = tab.eval_on_selector_all(".evaluation", "ns => ns.map(n => n.dataset.outcome)")
    assert outcomes == sorted(outcomes, key=lambda o: o == "pass")
    assert outcomes[0] == "fail"
    assert outcomes.count("fail") == 2
    assert outcomes.count("pass") == 2
    assert tab.is_visible("#evaluation-0 .body")
    # the hostile message is shown as text and ran nothing
    regressed = tab.locator(".evaluation", has_text="test_regressed")
    _expand(regressed)
    assert HOSTILE in regressed.locator(".side").inner_text()
    assert tab.evaluate("window.__pwned === undefined")
    assert tab.eval_on_selector_all("img", "ns => ns.length") == 0
    # the differing argument is highlighted on both sides
    marked = regressed.locator("tr.marked .hl").all_inner_texts()
    assert marked == ['location_code="location-999"', 'location_code="location-123"']
    # the graph: both lanes drawn, the superstep the output lacks marked
    graph = tab.locator(".evaluation", has_text="test_graph_path")
    _expand(graph)
    boxes = graph.locator("svg.graph rect.superstep")
    assert boxes.count() == 4 + 5
    assert graph.locator("svg.graph rect.marked").count() >= 1
    box = graph.locator("svg.graph").bounding_box()
    assert box is not None
    assert box["width"] > 300
    assert box["height"] > 40
    assert "review" in graph.locator("svg.graph").text_content()
    # the repeated test's attempts
    flaky = tab.locator(".evaluation", has_text="test_flaky")
    _expand(flaky)
    assert flaky.locator(".attempts .ok").count() == 2
    assert flaky.locator(".attempts .no").count() == 1
    assert "2/3 passed (67%, 95% CI 20.8-93.9%)" in flaky.locator(".attempts").inner_text()
    assert "2/3 passed (67%, 95% CI" in tab.locator("#pass-rates").inner_text()
    # filters: failed only, then by kind
    tab.select_option("#filter-outcome", "failed")
    shown = tab.eval_on_selector_all(
        ".evaluation:not([hidden])", "ns => ns.map(n => n.dataset.outcome)"
    )
    assert shown == ["fail", "fail"]
    assert tab.inner_text("#count") == "2 of 4 shown"
    tab.select_option("#filter-kind", "graph")
    assert tab.eval_on_selector_all(".evaluation:not([hidden])", "ns => ns.length") == 1
    tab.select_option("#filter-outcome", "all")
    tab.select_option("#filter-kind", "all")
    tab.fill("#filter-test", "fine")
    assert tab.inner_text("#count") == "1 of 4 shown"
    shot = tab.screenshot(full_page=True)
    (tmp_path / "page.png").write_bytes(shot)
    assert _colours(browser, shot) > 8
    assert errors == []
    tab.close()


def test_a_blank_page_is_seen_as_blank(browser: Any, tmp_path: Path) -> None:
    """The screenshot check above can fail: an empty page is blank to it."""
    empty = tmp_path / "empty.html"
    empty.write_text("<!DOCTYPE html><html><body data-ready='true'></body></html>")
    tab, _ = _open(browser, empty)
    assert _colours(browser, tab.screenshot()) == 1
    tab.close()


def test_the_baseline_section_in_chromium(browser: Any, project: pytest.Pytester) -> None:
    tab, errors = _open(browser, _regressed_against_a_baseline(project))
    section = tab.locator("#baseline")
    assert "Against the baseline (base.json)" in section.inner_text()
    headers = section.locator("th").all_inner_texts()
    assert headers == ["change", "test", "key", "before", "after", "detail"]
    row = section.locator("tr").nth(1).locator("td").all_inner_texts()
    assert row[0] == "regressed"
    assert row[1].endswith("test_agent")
    assert errors == []
    tab.close()


def test_a_secret_an_agent_repeats_is_in_neither_page_nor_report(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-test-0123456789abcdefXYZ"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    project.makepyfile(
        test_x=f"""
        from pytest_agenttraj import assert_trajectory

        def test_x():
            said = [{{"role": "user", "content": "my key is {secret}"}}]
            assert_trajectory(said, said)
        """
    )
    result = project.runpytest("--trajectory-html=page.html", "--trajectory-report=report.json")
    result.assert_outcomes(passed=1)
    page_data = json.dumps(embedded((project.path / "page.html").read_text()))
    report = (project.path / "report.json").read_text()
    for text in (page_data, report):
        assert secret not in text
        assert "my key is [redacted]" in text


def test_a_replay_mismatch_shows_both_requests_in_chromium(browser: Any, tmp_path: Path) -> None:
    from pytest_agenttraj.core.replay import Difference, ReplayReport
    from pytest_agenttraj.render.detail import detail

    report = ReplayReport(
        "differs",
        "cassettes/test_weather.yaml",
        command="pytest --trajectory-record=all 'test_weather.py::test_weather'",
        model="ScriptedChatModel",
        call=1,
        differences=(Difference("message 0 (system).content", "terse", "chatty"),),
        live={"messages": [{"role": "system", "content": "chatty"}]},
        recorded={"messages": [{"role": "system", "content": "terse"}]},
    )
    record = {"nodeid": "test_weather.py::test_weather", "key": "agent_cassette", "index": 0}
    record |= {"passed": False, "comment": report.comment(), "detail": detail(report)}
    path = tmp_path / "page.html"
    path.write_text(page({"version": 1, "results": [record], "summary": {"failed": 1}}))
    tab, errors = _open(browser, path)
    view = tab.locator(".replay-view")
    assert "cassettes/test_weather.yaml" in view.inner_text()
    assert view.locator("code").inner_text() == report.command
    assert view.locator(".args td").all_inner_texts() == [
        "message 0 (system).content",
        '"terse"',
        '"chatty"',
    ]
    assert '"content": "chatty"' in view.locator(".side td").nth(0).inner_text()
    assert '"content": "terse"' in view.locator(".side td").nth(1).inner_text()
    assert errors == []
    tab.close()
