"""The documentation's reference page, generated from the plugin (``docs/hooks/reference.py``), says
everything pytest itself shows of it, and fails loudly when it cannot read the plugin; the option
names the pages mention exist."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")))
GROUP = "agent trajectories (pytest-agenttraj):"


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "docs_reference_hook", ROOT / "docs" / "hooks" / "reference.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    return load_generator()


@pytest.fixture(scope="module")
def page(generator: ModuleType) -> str:
    return str(generator.render(generator.collect()))


def shown(pytester: pytest.Pytester, *args: str) -> list[str]:
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    return [line.rstrip() for line in pytester.runpytest(*args).outlines]


def group_options(lines: list[str]) -> set[str]:
    """The option names ``pytest --help`` lists in the plugin's group."""
    start = lines.index(GROUP) + 1
    end = lines.index("", start)
    return {
        name
        for line in lines[start:end]
        if re.match(r"  -", line)
        for name in re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*", line.split("  ", 2)[1])
    }


def test_the_page_lists_every_option_help_shows_in_the_plugins_group(
    pytester: pytest.Pytester, page: str
) -> None:
    options = group_options(shown(pytester, "--help"))
    assert {"--trajectory-mode", "--trajectory-baseline", "--trajectory-langsmith"} <= options
    rows = set(re.findall(r"^\| `(--[\w-]+)`", page, re.M))
    assert options <= rows, f"missing from the reference page: {sorted(options - rows)}"


def test_the_page_lists_every_ini_key_the_plugin_adds(pytester: pytest.Pytester, page: str) -> None:
    def keys(lines: list[str]) -> set[str]:
        return {m.group(1) for line in lines if (m := re.match(r"  ([\w-]+) \(\w+\):", line))}

    ours = keys(shown(pytester, "--help")) - keys(shown(pytester, "--help", "-p", "no:agenttraj"))
    assert {"trajectory_mode", "trajectory_min_pass_rate", "trajectory_langsmith"} <= ours
    rows = set(re.findall(r"^\| `(\w+)` \|", page, re.M))
    assert ours <= rows, f"missing from the reference page: {sorted(ours - rows)}"


def test_the_page_lists_every_marker_the_plugin_registers(
    pytester: pytest.Pytester, page: str
) -> None:
    def markers(lines: list[str]) -> set[str]:
        return {m.group(1) for line in lines if (m := re.match(r"@pytest\.mark\.(\w+)", line))}

    ours = markers(shown(pytester, "--markers"))
    ours -= markers(shown(pytester, "--markers", "-p", "no:agenttraj"))
    assert "trajectory" in ours
    headings = set(re.findall(r"^### `@pytest\.mark\.(\w+)`", page, re.M))
    assert ours <= headings, f"missing from the reference page: {sorted(ours - headings)}"


def test_the_page_lists_every_fixture_the_plugin_defines(
    pytester: pytest.Pytester, page: str
) -> None:
    def fixtures(lines: list[str]) -> set[str]:
        return {m.group(1) for line in lines if (m := re.match(r"(\w+)(?: \[.*\])? -- ", line))}

    ours = fixtures(shown(pytester, "--fixtures"))
    ours -= fixtures(shown(pytester, "--fixtures", "-p", "no:agenttraj"))
    assert {"assert_trajectory", "trajectory_evaluator", "judge_cache"} <= ours
    headings = set(re.findall(r"^### `(\w+)`", page, re.M))
    assert ours <= headings, f"missing from the reference page: {sorted(ours - headings)}"


def test_the_page_shows_each_fixtures_documentation(page: str) -> None:
    from pytest_agenttraj.plugin import fixtures

    first_line = (fixtures.trajectory_evaluator.__doc__ or "").strip().splitlines()[0]
    assert first_line.strip() in page
    assert "def test_agent(trajectory_evaluator):" in page  # its Example:: block, as code


def test_the_page_lists_the_plugins_own_hooks(page: str) -> None:
    from pytest_agenttraj.plugin import hookspecs

    hooks = {name for name in vars(hookspecs) if name.startswith("pytest_agenttraj_")}
    assert hooks
    assert hooks <= set(re.findall(r"^### `(pytest_\w+)`", page, re.M))


# --------------------------------------------------------------- when the plugin cannot be read


def fake_plugin(pytester: pytest.Pytester, **modules: str) -> None:
    for name, source in modules.items():
        path = pytester.path.joinpath(*name.split(".")).with_suffix(".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    pytester.syspathinsert()


def test_a_module_moved_away_fails_the_build_naming_it(
    pytester: pytest.Pytester, generator: ModuleType
) -> None:
    fake_plugin(pytester, fake_entry='pytest_plugins = ("fake_entry_gone.fixtures",)\n')
    with pytest.raises(generator.ReferencePageError, match=re.escape("'fake_entry_gone.fixtures'")):
        generator.collect("fake_entry")


def test_a_plugin_that_yields_nothing_fails_the_build_rather_than_an_empty_page(
    pytester: pytest.Pytester, generator: ModuleType
) -> None:
    fake_plugin(
        pytester,
        fake_options=(
            "def pytest_addoption(parser):\n"
            '    parser.getgroup("fake").addoption("--fake", help="an option")\n'
        ),
    )
    with pytest.raises(generator.ReferencePageError, match="no inis, markers, fixtures, hooks"):
        generator.collect("fake_options")


def test_a_hook_asking_for_what_the_generator_lacks_fails_the_build(
    pytester: pytest.Pytester, generator: ModuleType
) -> None:
    fake_plugin(pytester, fake_hook="def pytest_addoption(parser, early_config):\n    pass\n")
    with pytest.raises(generator.ReferencePageError, match=r"takes \['early_config'\]"):
        generator.collect("fake_hook")


def test_fixtures_it_cannot_recognise_fail_the_build(
    generator: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as if pytest's fixture objects changed shape: the source still says @pytest.fixture
    monkeypatch.setattr(generator, "_fixture", lambda _value: None)
    with pytest.raises(generator.ReferencePageError, match="none was recognised"):
        generator.collect()


def test_without_its_entry_point_the_build_fails(
    generator: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(generator, "PACKAGE", "pytest_agenttraj_renamed")
    with pytest.raises(generator.ReferencePageError, match="entry point"):
        generator.collect()


# ------------------------------------------------------------------------ names the pages use


def test_every_option_the_pages_name_exists(page: str) -> None:
    known = set(re.findall(r"^\| `(--[\w-]+)`", page, re.M))
    for doc in PAGES:
        for name in re.findall(
            r"(?<![\w-])(--(?:trajectory|tool-args)[\w-]*)", doc.read_text(encoding="utf-8")
        ):
            assert name in known, f"{doc.relative_to(ROOT)} names {name}, which is no option"
