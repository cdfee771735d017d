"""Importing the package, or the pytest plugin pytest loads in every run, stays light.

Each check runs in a fresh interpreter: this test session has long imported everything.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pytest_agenttraj._lazy import exported_names

HEAVY = ("langchain_core", "langsmith", "langgraph", "yaml", "openevals")


def loaded_after(code: str) -> list[str]:
    """The modules of ``HEAVY`` (and pytest) that are in ``sys.modules`` after running ``code``."""
    script = textwrap.dedent(code) + textwrap.dedent(
        f"""
        import sys
        watched = {(*HEAVY, "pytest")!r}
        print(",".join(name for name in watched if name in sys.modules))
        """
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert completed.returncode == 0, completed.stderr
    last = completed.stdout.strip().splitlines()[-1] if completed.stdout.strip() else ""
    return [name for name in last.split(",") if name]


@pytest.mark.subprocess
def test_import_package_leaves_heavy_modules_out() -> None:
    loaded = loaded_after("import pytest_agenttraj")
    assert [name for name in loaded if name in HEAVY] == []


@pytest.mark.subprocess
def test_import_package_does_not_import_pytest() -> None:
    # the library works outside pytest (openevals users switch by changing an import)
    assert "pytest" not in loaded_after("import pytest_agenttraj")


@pytest.mark.subprocess
def test_import_plugin_leaves_heavy_modules_out() -> None:
    loaded = loaded_after("import pytest_agenttraj.plugin")
    assert [name for name in loaded if name in HEAVY] == []


@pytest.mark.subprocess
def test_evaluating_and_rendering_dicts_leaves_heavy_modules_out() -> None:
    loaded = loaded_after(
        """
        from pytest_agenttraj import (
            TrajectoryMismatch,
            assert_trajectory,
            create_trajectory_match_evaluator,
            exact_match,
            graph_trajectory_strict_match,
        )

        reference = [
            {"role": "user", "content": "q"},
            {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]},
        ]
        output = [
            {"role": "user", "content": "q"},
            {"role": "assistant", "tool_calls": [{"name": "f", "args": {"a": 1}}]},
        ]
        evaluator = create_trajectory_match_evaluator(trajectory_match_mode="superset")
        assert evaluator(outputs=output, reference_outputs=reference)["score"] is False
        try:
            assert_trajectory(output, reference)
        except TrajectoryMismatch as error:
            assert "a: 1" in str(error)
        else:
            raise SystemExit("expected a mismatch")
        assert exact_match(outputs={"a": 1}, reference_outputs={"a": 1})["score"]
        steps = {"inputs": [], "results": [], "steps": [["a"]]}
        assert graph_trajectory_strict_match(outputs=steps, reference_outputs=steps)["score"]
        """
    )
    assert [name for name in loaded if name in HEAVY] == []


@pytest.mark.subprocess
def test_graph_evaluations_and_diffs_leave_heavy_modules_out() -> None:
    loaded = loaded_after(
        """
        from pytest_agenttraj import (
            GraphTrajectoryMismatch,
            assert_graph_trajectory,
            create_async_graph_trajectory_match_evaluator,
            create_graph_trajectory_match_evaluator,
        )

        reference = {"steps": [["__start__", "a", ["b", "c"], "d"]]}
        evaluator = create_graph_trajectory_match_evaluator(mode="superset")
        assert evaluator(outputs=reference, reference_outputs=reference)["score"]
        create_async_graph_trajectory_match_evaluator(mode="in_order")
        try:
            assert_graph_trajectory({"steps": [["__start__", "a", "d"]]}, reference)
        except GraphTrajectoryMismatch as error:
            assert "missing node b" in str(error)
        else:
            raise SystemExit("expected a mismatch")
        """
    )
    assert [name for name in loaded if name in HEAVY] == []


@pytest.mark.subprocess
def test_graded_scores_and_their_diffs_leave_heavy_modules_out() -> None:
    loaded = loaded_after(
        """
        from pytest_agenttraj import (
            GradedMismatch,
            assert_tool_call_accuracy,
            create_tool_call_f1_evaluator,
        )
        import pytest_agenttraj.evaluators.judges  # the judges load langchain only when built

        output = [{"role": "assistant", "tool_calls": [{"name": "f", "args": {"a": 1}}]}]
        reference = [{"name": "f", "args": {"a": 2}}]
        assert create_tool_call_f1_evaluator()(outputs=output, reference_outputs=reference)[
            "score"
        ] == 0.0
        try:
            assert_tool_call_accuracy(output, reference)
        except GradedMismatch as error:
            assert "+ a: 1" in str(error)
        else:
            raise SystemExit("expected a mismatch")
        """
    )
    assert [name for name in loaded if name in HEAVY] == []


LAZY_PACKAGES = ("pytest_agenttraj", "pytest_agenttraj.evaluators", "pytest_agenttraj.references")


def test_every_public_name_of_a_lazy_package_resolves_and_is_listed() -> None:
    """Each public name is listed once, in the package's ``TYPE_CHECKING`` block; ``__all__``
    and the table of names imported on first use derive from it, and each name is there to be
    had, the object its module defines."""
    import importlib

    for name in LAZY_PACKAGES:
        package = importlib.import_module(name)
        lazy = exported_names(Path(package.__file__).read_text(encoding="utf-8"))
        eager = set(vars(package))
        listed = set(package.__all__)
        assert lazy.keys() <= listed, f"{name}: lazily exported but not in __all__"
        assert listed <= lazy.keys() | eager, f"{name}: in __all__ but not defined"
        for public, module in lazy.items():
            source = importlib.import_module(module, name)
            assert getattr(package, public) is getattr(source, public), f"{name}.{public}"
        assert listed <= set(dir(package))


@pytest.mark.subprocess
def test_the_scripted_chat_model_needs_langchain_core_only() -> None:
    # users' tests import it, inside or outside pytest; the package's own names never load it
    script = textwrap.dedent(
        """
        import sys
        from pytest_agenttraj import ScriptExhaustedError
        assert "pytest_agenttraj.testing" not in sys.modules
        from pytest_agenttraj.testing import ScriptedChatModel
        assert ScriptedChatModel(["hi"]).invoke("q").content == "hi"
        print(",".join(n for n in ("langchain_core", "langgraph", "langchain", "pytest")
                       if n in sys.modules))
        """
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "langchain_core"


@pytest.mark.parametrize(
    ("block", "problem"),
    [
        ("if TYPE_CHECKING:\n    from .x import N\n", "re-export N as itself"),
        ("if TYPE_CHECKING:\n    import os\n", "holds only"),
    ],
)
def test_a_public_listing_that_is_not_an_explicit_re_export_is_refused(
    block: str, problem: str
) -> None:
    with pytest.raises(ValueError, match=problem):
        exported_names(block)
