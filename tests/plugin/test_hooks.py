"""The plugin's own hooks, implemented by a conftest as a user would."""

from __future__ import annotations

import json

import pytest

HOOK_CONFTEST = """

SEEN = []

def pytest_agenttraj_evaluated(item, result, record, evaluation):
    print(f"EVALUATED {item.name} {result['key']} {result['score']} {record['index']} "
          f"{record['origin']} {record['phase']} {evaluation.report is not None}")

def pytest_agenttraj_record(config, record):
    print(f"RECORD {record['nodeid'].split('::')[1]} {record['key']} {record['passed']}")
"""


def test_every_evaluation_reaches_both_hooks(project: pytest.Pytester) -> None:
    from tests.plugin.conftest import PROJECT_CONFTEST

    project.makeconftest(PROJECT_CONFTEST + HOOK_CONFTEST)
    project.makepyfile(
        """
        import pytest
        from pytest_agenttraj import (assert_trajectory, create_trajectory_match_evaluator,
                                      exact_match, graph_trajectory_strict_match)

        @pytest.fixture
        def evaluated_in_setup(reference):
            return create_trajectory_match_evaluator()(outputs=reference,
                                                        reference_outputs=reference)

        def test_many(reference, trajectory_evaluator, evaluated_in_setup):
            trajectory_evaluator(outputs=reference, reference_outputs=reference)
            trajectory_evaluator(outputs=reference[:2], reference_outputs=reference)
            assert_trajectory(reference, reference)
            exact_match(outputs={"a": 1}, reference_outputs={"a": 1})
            graph_trajectory_strict_match(outputs={"steps": [["a"]]},
                                          reference_outputs={"steps": [["b"]]})
        """
    )
    result = project.runpytest("-s", "-p", "no:randomly")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*EVALUATED test_many trajectory_strict_match True 0 evaluator setup True",
            "*EVALUATED test_many trajectory_strict_match True 1 trajectory_evaluator call True",
            "*EVALUATED test_many trajectory_strict_match False 2 trajectory_evaluator call True",
            "*EVALUATED test_many trajectory_strict_match True 3 assert_trajectory call True",
            "*EVALUATED test_many exact_match True 0 exact_match call True",
            "*EVALUATED test_many graph_trajectory_strict_match False 0 "
            "graph_trajectory_strict_match call True",
        ]
    )
    records = [line[line.index("RECORD") :] for line in result.outlines if "RECORD" in line]
    assert records == [
        "RECORD test_many trajectory_strict_match True",
        "RECORD test_many trajectory_strict_match True",
        "RECORD test_many trajectory_strict_match False",
        "RECORD test_many trajectory_strict_match True",
        "RECORD test_many exact_match True",
        "RECORD test_many graph_trajectory_strict_match False",
    ]


def test_records_reach_the_controller_once_under_xdist(project: pytest.Pytester) -> None:
    project.makeconftest(
        """
        import json, os

        def pytest_agenttraj_record(config, record):
            assert not hasattr(config, "workerinput"), "records belong to the controller"
            with open("records.jsonl", "a") as stream:
                stream.write(json.dumps(record) + "\\n")
        """
    )
    project.makepyfile(
        """
        import pytest
        from pytest_agenttraj import exact_match

        @pytest.mark.parametrize("n", range(6))
        def test_n(n):
            for _ in range(n % 3):
                exact_match(outputs=n, reference_outputs=n)
        """
    )
    result = project.runpytest("-n", "2")
    result.assert_outcomes(passed=6)
    import json

    lines = (project.path / "records.jsonl").read_text().splitlines()
    seen = sorted((json.loads(x)["nodeid"], json.loads(x)["index"]) for x in lines)
    expected = sorted(
        (f"test_records_reach_the_controller_once_under_xdist.py::test_n[{n}]", i)
        for n in range(6)
        for i in range(n % 3)
    )
    assert seen == expected


def test_a_repeated_test_reaches_the_repeated_hook_once_with_its_statistics(
    project: pytest.Pytester,
) -> None:
    project.makeconftest(
        """
        def pytest_agenttraj_repeated(item, records):
            for record in records:
                print(f"REPEATED {item.name} {record['key']} {record['passed_attempts']}/"
                      f"{record['attempts']} {record['pass_hat_k']}")
        """
    )
    project.makepyfile(
        """
        import pytest
        from pytest_agenttraj import exact_match

        RUNS = iter([1, 2, 1, 1])

        @pytest.mark.trajectory(repeat=4, pass_rule="pass^2:0.4")
        def test_agent():
            exact_match(outputs=next(RUNS), reference_outputs=1)

        def test_once():
            exact_match(outputs=1, reference_outputs=1)
        """
    )
    result = project.runpytest("-s")
    result.assert_outcomes(passed=2)
    lines = [line[line.index("REPEATED") :] for line in result.stdout.lines if "REPEATED" in line]
    # pass^2 from 3 of 4: C(3,2)/C(4,2) = 0.5
    assert lines == [
        "REPEATED test_agent exact_match 3/4 {'1': 0.75, '2': 0.5, '3': 0.25, '4': 0.0}"
    ]


def test_a_finished_test_keeps_none_of_its_evaluations(project: pytest.Pytester) -> None:
    """Items live until the session ends: once a test's reports are made, the plugin lets go of
    its evaluations (their reports, the trajectories they compared), whose records live on."""
    project.makeconftest(
        """
        import gc, weakref

        KEPT = []

        def pytest_agenttraj_evaluated(item, result, record, evaluation):
            KEPT.append((item.name, weakref.ref(evaluation), weakref.ref(evaluation.report)))

        def pytest_runtest_logfinish(nodeid, location):
            gc.collect()
            alive = [name for name, *refs in KEPT if any(ref() is not None for ref in refs)]
            print(f"ALIVE after {nodeid.split('::')[1]}: {alive}")
        """
    )
    project.makepyfile(
        """
        import pytest
        from pytest_agenttraj import assert_trajectory, exact_match

        MESSAGES = [{"role": "user", "content": "q"}]

        def test_first():
            assert_trajectory(MESSAGES, MESSAGES, allow_empty=True)

        @pytest.mark.trajectory(repeat=2)
        def test_repeated():
            exact_match(outputs=1, reference_outputs=1)

        def test_last(assert_trajectory):
            assert_trajectory(MESSAGES, MESSAGES, allow_empty=True)
            assert exact_match(outputs=1, reference_outputs=2)["score"] is False
        """
    )
    # in a process of its own: an in-process run records every hook call, arguments and all
    result = project.runpytest_subprocess(
        "-s", "-p", "no:randomly", "--trajectory-report=report.json"
    )
    result.assert_outcomes(passed=3)
    alive = [line[line.index("ALIVE") :] for line in result.outlines if "ALIVE" in line]
    assert alive == [
        "ALIVE after test_first: []",
        "ALIVE after test_repeated: []",
        "ALIVE after test_last: []",
    ]
    # the records themselves are all there
    records = json.loads((project.path / "report.json").read_text())["results"]
    assert sorted((r["nodeid"].split("::")[1], r["key"]) for r in records) == [
        ("test_first", "trajectory_strict_match"),
        ("test_last", "exact_match"),
        ("test_last", "trajectory_strict_match"),
        ("test_repeated", "exact_match"),  # its attempts, as one result
    ]


def test_a_serial_run_hands_over_the_records_an_xdist_run_sends(project: pytest.Pytester) -> None:
    """In one process the records are copied onto the reports, not written as JSON and read
    back as a worker's are: the hook sees the same values either way (lists for tuples, text
    for other objects), what a report's HTML detail adds included."""
    from tests.plugin.conftest import PROJECT_CONFTEST

    project.makeconftest(
        PROJECT_CONFTEST
        + """
import json
from decimal import Decimal

import pytest

def pytest_agenttraj_evaluated(record):
    record["annotation"] = (1, Decimal("2.5"), {"tags": ("slow",)})  # what a user might add

@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    report = yield
    json.dumps(report.user_properties)  # a plugin writing the report out finds JSON values
    return report

def pytest_agenttraj_record(config, record):
    record = {k: v for k, v in record.items() if k != "duration_s"}
    with open(f"records-{config.getoption('numprocesses', None)}.txt", "a") as stream:
        stream.write(repr(sorted(record.items())) + "\\n")
"""
    )
    project.makepyfile(
        """
        import pytest
        from pytest_agenttraj import assert_trajectory, create_tool_call_f1_evaluator, exact_match
        from conftest import with_code

        @pytest.mark.trajectory(mode="unordered", ignore_keys=["id"], required=["get_weather"],
                                overrides={"get_weather": lambda a, b: True})
        def test_marked(reference, trajectory_evaluator):
            trajectory_evaluator(outputs=with_code("location-999"), reference_outputs=reference)

        def test_fails(reference):
            assert_trajectory(with_code("location-999"), reference)

        def test_graded(reference):
            create_tool_call_f1_evaluator()(outputs=with_code("location-999"),
                                            reference_outputs=reference)

        @pytest.mark.parametrize("value", [(1, 2), {"when": 1.5}])
        def test_values(value):
            exact_match(outputs=value, reference_outputs=value)
        """
    )
    # with a report asked for, each record carries what the HTML page draws of its result
    report = "--trajectory-report=report.json"
    project.runpytest("-p", "no:randomly", report).assert_outcomes(passed=4, failed=1)
    project.runpytest("-p", "no:randomly", report, "-n", "2").assert_outcomes(passed=4, failed=1)
    serial = sorted((project.path / "records-None.txt").read_text().splitlines())
    xdist = sorted((project.path / "records-2.txt").read_text().splitlines())
    assert len(serial) == 6
    assert all("('annotation', [1, '2.5', {'tags': ['slow']}])" in line for line in serial)
    assert serial == xdist
