"""What the plugin reads of each test at collection agrees with pytest's own answers."""

from __future__ import annotations

import pytest

CONFTEST = """
import json
from pytest_agenttraj.plugin.collection import MarkerNames, carries, marker_names

NAMES = ("trajectory", "agent_cassette", "langsmith", "slow", "parametrize", "skip", "nowhere")

def pytest_collection_finish(session):
    shared = MarkerNames()  # one reader for all, as the plugin's hooks read them
    for item in session.items:
        ours = sorted(shared(item))
        assert sorted(marker_names(item)) == ours
        theirs = sorted({mark.name for mark in item.iter_markers()})
        closest = [n for n in NAMES if item.get_closest_marker(n) is not None]
        carried = [n for n in NAMES if carries(item, n)]
        print("ITEM", json.dumps([item.nodeid, ours == theirs, closest == carried, ours]))
    items = session.items
    for start in range(len(items)):  # each tail, so that the parents differ where it starts
        for name in NAMES:
            found = MarkerNames().any_carries(items[start:], name)
            expected = any(carries(item, name) for item in items[start:])
            print("ANY", json.dumps([start, name, found, expected]))
"""

TESTS = """
import pytest

pytestmark = pytest.mark.slow

@pytest.mark.trajectory(mode="unordered")
@pytest.mark.parametrize("n", [1, pytest.param(2, marks=pytest.mark.agent_cassette)])
def test_marked(n):
    pass

def test_plain():
    pass

@pytest.mark.langsmith
class TestGroup:
    @pytest.mark.skip
    def test_method(self):
        pass

    def test_other(self):
        pass
"""


def test_marker_walks_agree_with_pytest(pytester: pytest.Pytester) -> None:
    import json

    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(TESTS)
    result = pytester.runpytest_subprocess("--collect-only", "-q", "-s", "-p", "no:randomly")
    items = [json.loads(line[5:]) for line in result.outlines if line.startswith("ITEM ")]
    assert len(items) == 5
    assert all(same and closest for _, same, closest, _ in items), items
    by_id = {nodeid.split("::", 1)[1]: names for nodeid, _, _, names in items}
    assert by_id["test_marked[2]"] == ["agent_cassette", "parametrize", "slow", "trajectory"]
    assert by_id["TestGroup::test_method"] == ["langsmith", "skip", "slow"]
    assert by_id["test_plain"] == ["slow"]
    tails = [json.loads(line[4:]) for line in result.outlines if line.startswith("ANY ")]
    assert len(tails) == 5 * 7
    assert all(found == expected for _, _, found, expected in tails), tails
    # the tails tell apart a marker on one item, on a class and on none
    assert {name for start, name, found, _ in tails if start == 3 and found} == {
        "langsmith",
        "slow",
        "skip",
    }


def test_the_folders_every_run_looks_for_are_the_kinds_of_files() -> None:
    """The collection looks for the kinds' folders and markers before loading the kinds: the two
    must agree."""
    from pytest_agenttraj.plugin import FOLDERS
    from pytest_agenttraj.plugin.unused_cassettes import CASSETTES
    from pytest_agenttraj.plugin.unused_references import REFERENCES

    assert {kind.folder: kind.marker for kind in (REFERENCES, CASSETTES)} == FOLDERS
