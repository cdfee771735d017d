"""The file names a source text mentions, read without running it: whole names, and patterns
for names built at run time, each with the function that builds it."""

from __future__ import annotations

from pytest_agenttraj.references.mentions import Pattern, mentions

SUFFIXES = (".yaml", ".yml", ".json")

SOURCE = '''
import pytest

NAMES = {"later": "shared/h.yaml"}

@pytest.mark.trajectory(reference="sub/g.yaml")
def test_cases(case):
    assert_trajectory(run(), "a.yaml")
    assert_trajectory(run(), f"case_{case}.yaml")
    assert_trajectory(run(), "x_" + case + ".json")
    assert_trajectory(run(), "%s.yml" % case)
    assert_trajectory(run(), "{}[{}].yaml".format(case, 1))

    def inner():
        return f"{folder}/{case}.json"

class TestGroup:
    def test_method(self, case):
        path = Path(case).with_suffix(".yaml")

GLOB = sorted(Path("trajectories").glob("*.json"))
TEXT = """a.yaml
spans lines"""
NOT_A_NAME = "yaml"
'''


def test_whole_names_are_their_last_part() -> None:
    assert mentions(SOURCE, SUFFIXES).names == {"h.yaml", "g.yaml", "a.yaml"}


def test_built_names_are_patterns_owned_by_their_outermost_function() -> None:
    found = {(p.glob, p.owner, p.folders) for p in mentions(SOURCE, SUFFIXES).patterns}
    assert found == {
        ("case_*.yaml", "test_cases", False),
        ("x_*.json", "test_cases", False),
        ("*.yml", "test_cases", False),
        ("*[[]*].yaml", "test_cases", False),  # brackets are literal, as in parametrized ids
        ("*.json", "test_cases", True),  # a folder part: it may lead anywhere
        ("*.yaml", "test_method", False),  # a suffix put to a name elsewhere
        ("*.json", None, False),  # a glob at module level
    }


def test_a_pattern_says_where_it_is_built() -> None:
    (pattern,) = mentions('def test_it(c):\n    name = f"{c}.yaml"\n', SUFFIXES).patterns
    assert pattern == Pattern("*.yaml", 2, "*.yaml", False, "test_it")


def test_text_without_a_suffix_is_not_parsed() -> None:
    assert mentions("def broken(:\n", SUFFIXES) == mentions("", SUFFIXES)


def test_other_text_and_broken_python_are_read_for_words() -> None:
    text = "See trajectories/weather.yaml, and 'other.json'.\n"
    assert mentions(text, SUFFIXES, python=False).names == {"weather.yaml", "other.json"}
    broken = 'def test_it(:\n    assert_trajectory(run(), "kept.yaml")\n'
    assert mentions(broken, SUFFIXES).names == {"kept.yaml"}
