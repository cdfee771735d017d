"""Which tests the collection finds using the plugin: through the names their code uses, each
shape of reaching the package, and the quick look at a module's names agreeing with following
every name."""

from __future__ import annotations

import json

import pytest

CONFTEST = """
import json
from pytest_agenttraj.plugin.session import PLUGIN_FIXTURES, SESSION_KEY
from pytest_agenttraj.plugin.uses import UseDetector


def pytest_collection_finish(session):
    used = session.config.stash[SESSION_KEY].used
    quick = UseDetector(session.config.rootpath, PLUGIN_FIXTURES)
    followed = UseDetector(session.config.rootpath, PLUGIN_FIXTURES)
    followed._names_nothing = lambda func: False  # every name followed, as before the quick look
    followed._like = lambda item, plain: False  # every test looked at on its own
    for item in session.items:
        verdicts = [item in used, quick(item, marked=False), followed(item, marked=False)]
        print("USES", json.dumps([item.nodeid.split("::", 1)[1], verdicts]))
"""

HELPERS = """
from pytest_agenttraj import match_graph_trajectories


def check(a, b):
    return match_graph_trajectories(a, b)


def unrelated():
    return 1
"""

TESTS = """
import functools
import os

import pytest

import helpers
import pytest_agenttraj as agenttraj
from helpers import unrelated
from pytest_agenttraj import create_trajectory_match_evaluator, match_graph_trajectories

EVALUATOR = create_trajectory_match_evaluator(trajectory_match_mode="strict")
LIMIT = 3
M = [{"role": "user", "content": "q"}]
G = {"steps": [["a"]]}


def local_helper():
    return match_graph_trajectories(G, G)


def harmless_helper():
    return os.sep


def wrapped(func):
    @functools.wraps(func)
    def call(*args, **kwargs):
        return func(*args, **kwargs)

    return call


def test_plain():
    assert LIMIT + 1 == 4


def test_stdlib_and_unrelated_helper():
    assert os.sep and unrelated() == 1 and harmless_helper()


def test_imported_name():
    assert match_graph_trajectories(G, G).matched


def test_module_alias():
    assert agenttraj.match_graph_trajectories(G, G).matched


def test_local_helper():
    assert local_helper().matched


def test_helper_module():
    assert helpers.check(G, G).matched


def test_package_instance():
    assert EVALUATOR(outputs=M, reference_outputs=M)


def test_in_a_comprehension():
    assert all([match_graph_trajectories(G, G).matched for _ in range(2)])


def test_in_a_lambda():
    assert (lambda: match_graph_trajectories(G, G))().matched


@wrapped
def test_decorated():
    assert match_graph_trajectories(G, G).matched


@wrapped
def test_decorated_plain():
    assert LIMIT


@pytest.mark.parametrize("n", [1, 2])
def test_parametrized_plain(n):
    assert n


def test_fixture(assert_trajectory):
    assert_trajectory(M, M)


class TestMethods:
    def helper(self):
        return match_graph_trajectories(G, G)

    def test_through_self(self):
        assert self.helper().matched

    def test_plain_method(self):
        assert LIMIT
"""

# A module that imports nothing of the package, its tests calling its own helpers: decided once
# for the whole module; and one reaching the package only through a function its own code made.
CLEAN = """
import os

LIMIT = 3


def helper():
    return other() + LIMIT


def other():
    return len(os.sep)


def test_clean_plain():
    assert LIMIT == 3


def test_clean_helper_chain():
    assert helper() == 4
"""

THROUGH_A_MADE_FUNCTION = """
def make():
    from pytest_agenttraj import match_graph_trajectories

    def check():
        return match_graph_trajectories({"steps": [["a"]]}, {"steps": [["a"]]})

    return check


check = make()


def test_through_a_made_function():
    assert check().matched


def test_naming_the_maker_uncalled():
    assert make is not None
"""

# Fixtures: one of the project's that calls the package, and a name whose definition leads in
# one module only (overriding the conftest's, which does not).
FIXTURES_CONFTEST = """
import pytest
from pytest_agenttraj import match_graph_trajectories


@pytest.fixture
def matched():
    return match_graph_trajectories({"steps": [["a"]]}, {"steps": [["a"]]}).matched


@pytest.fixture
def overridden():
    return 1
"""

OVERRIDING = """
import pytest
from pytest_agenttraj import match_graph_trajectories


@pytest.fixture
def overridden():
    return match_graph_trajectories({"steps": [["a"]]}, {"steps": [["a"]]}).matched


def test_the_overriding_fixture(overridden):
    assert overridden
"""

REQUESTING = """
def test_a_fixture_that_calls_the_package(matched):
    assert matched


def test_the_conftest_fixture(overridden):
    assert overridden == 1
"""

# A clean module whose tests the quick look decides from the one before: each way a later test
# differs (a fixture that calls the package, a parameter named like it, its own reference file).
SIBLINGS = """
import pytest


def test_sibling_plain():
    assert True


def test_sibling_requesting(matched):
    assert matched


@pytest.mark.parametrize("matched", [1])
def test_sibling_parameter_named_like_the_fixture(matched):
    assert matched == 1


def test_sibling_requesting_again(matched):
    assert matched


def test_sibling_plain_again():
    assert True


def test_sibling_with_its_file():
    assert True
"""

SIBLING_FILE = """\
- role: user
  content: hi
"""

EXPECTED_USED = {
    "test_plain": False,
    "test_stdlib_and_unrelated_helper": False,
    "test_imported_name": True,
    "test_module_alias": True,
    "test_local_helper": True,
    "test_helper_module": True,
    "test_package_instance": True,
    "test_in_a_comprehension": True,
    "test_in_a_lambda": True,
    "test_decorated": True,
    "test_decorated_plain": False,
    "test_parametrized_plain[1]": False,
    "test_parametrized_plain[2]": False,
    "test_fixture": True,
    "TestMethods::test_through_self": True,
    "TestMethods::test_plain_method": False,
    "test_clean_plain": False,
    "test_clean_helper_chain": False,
    "test_through_a_made_function": True,
    "test_naming_the_maker_uncalled": False,
    "test_the_overriding_fixture": True,
    "test_a_fixture_that_calls_the_package": True,
    "test_the_conftest_fixture": False,
    "test_sibling_plain": False,
    "test_sibling_requesting": True,
    "test_sibling_parameter_named_like_the_fixture[1]": False,
    "test_sibling_requesting_again": True,
    "test_sibling_plain_again": False,
    "test_sibling_with_its_file": True,
}


def test_the_collection_finds_each_way_a_test_reaches_the_package(
    pytester: pytest.Pytester,
) -> None:
    pytester.makeconftest(CONFTEST + FIXTURES_CONFTEST)
    pytester.makepyfile(
        helpers=HELPERS,
        test_shapes=TESTS,
        test_clean=CLEAN,
        test_made=THROUGH_A_MADE_FUNCTION,
        test_overriding=OVERRIDING,
        test_requesting=REQUESTING,
        test_siblings=SIBLINGS,
    )
    (pytester.path / "trajectories").mkdir()
    (pytester.path / "trajectories" / "test_sibling_with_its_file.yaml").write_text(SIBLING_FILE)
    result = pytester.runpytest_subprocess("-s", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=len(EXPECTED_USED))
    lines = [line.removeprefix("USES ") for line in result.outlines if line.startswith("USES ")]
    found = dict(json.loads(line) for line in lines)
    assert {name: verdicts[0] for name, verdicts in found.items()} == EXPECTED_USED
    # the quick look at a module's names decides as following every name does
    assert all(verdicts[1] == verdicts[2] == verdicts[0] for verdicts in found.values()), found
