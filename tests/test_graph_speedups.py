"""Strict graph matching's C loop (``core/graph/_names.c``): it answers as Python's comparison
does, and a match gives the same report with it and without it (an install where it could not
be built)."""

from __future__ import annotations

import shutil
import sysconfig
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings, strategies as st

from pytest_agenttraj import GraphTrajectoryFormatError
from pytest_agenttraj.core.graph import match, match_graph_trajectories, speedups


class Name(str):
    """A ``str`` subclass: the C loop leaves it to Python."""


# names of every width CPython stores (1, 2 and 4 bytes a code point), equal ones built apart
TEXTS = ["a", "b", "ab", "é", "λ", "λx", "\U0001f600", ""]
NAME = st.sampled_from(TEXTS).map(lambda text: "".join(list(text)))
ENTRY = st.one_of(
    NAME,
    NAME.map(Name),
    st.lists(NAME, min_size=1, max_size=2),
    st.sampled_from([3, None, [], ("a",), ["a", 4]]),
)
SEQUENCE = st.tuples(st.lists(ENTRY, max_size=6), st.booleans()).map(
    lambda drawn: tuple(drawn[0]) if drawn[1] else drawn[0]
)


def shared_in_python(one: Any, other: Any) -> int:
    """What ``shared_names`` answers, in Python."""
    count = 0
    for a, b in zip(one, other, strict=False):
        if type(a) is not str or type(b) is not str or a != b:
            break
        count += 1
    return count


needs_c_loop = pytest.mark.skipif(
    speedups.shared_names is None, reason="the package was installed without its C loop"
)


@needs_c_loop
@settings(max_examples=400, deadline=None)
@given(one=SEQUENCE, other=SEQUENCE, same_start=st.integers(0, 6))
def test_the_c_loop_answers_as_python_compares(one: Any, other: Any, same_start: int) -> None:
    other = type(other)([*list(one)[:same_start], *other])
    assert speedups.shared_names is not None
    assert speedups.shared_names(one, other) == shared_in_python(one, other)
    assert speedups.shared_names(one, one) == shared_in_python(one, one)


@needs_c_loop
def test_the_c_loop_takes_only_lists_and_tuples() -> None:
    assert speedups.shared_names is not None
    with pytest.raises(TypeError, match="lists or tuples"):
        speedups.shared_names("ab", "ab")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expected 2 arguments"):
        speedups.shared_names(["a"])  # type: ignore[call-arg]


def test_the_c_loop_is_built_where_a_compiler_is() -> None:
    """The extension is optional, so a failed build would only be slower: where this machine
    has a C compiler, the install must have built it."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}) here: the package runs its Python loop")
    assert speedups.shared_names is not None


def _report(output: list[Any], reference: list[Any]) -> tuple[Any, ...]:
    """Everything a strict match says, or the error it raises."""
    try:
        report = match_graph_trajectories({"steps": output}, {"steps": reference})
        return (report.matched, report.summary, report.comment(), report.problem_texts())
    except GraphTrajectoryFormatError as error:
        return ("raised", str(error))


PATHS = st.lists(st.lists(ENTRY, max_size=6), min_size=1, max_size=3)


@settings(max_examples=300, deadline=None)
@given(output=PATHS, reference=PATHS, same_start=st.integers(0, 6))
def test_a_strict_match_says_the_same_with_and_without_the_c_loop(
    output: list[list[Any]], reference: list[list[Any]], same_start: int
) -> None:
    reference = [out[:same_start] + ref for out, ref in zip(output, reference, strict=False)]
    with_loop = _report(output, reference)
    with mock.patch.object(match, "shared_names", None):
        without = _report(output, reference)
    assert with_loop == without
