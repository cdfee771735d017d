"""Reference files: load, dump, round trip, and every kind of bad file (without pytest runs)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pytest_agenttraj import to_trajectory
from pytest_agenttraj.references import (
    ReferenceFile,
    ReferenceFileError,
    dump_reference,
    load_reference,
    write_reference,
)

TRAJECTORY = [
    {"role": "user", "content": "Weather in 苏州?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "call_9", "function": {"name": "get_weather", "arguments": '{"b": 2, "a": 1}'}}
        ],
    },
    {"role": "tool", "content": "Sunny", "tool_call_id": "call_9"},
]


@pytest.mark.parametrize("suffix", [".yaml", ".yml", ".json"])
def test_round_trip_is_stable_and_drops_ids(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"ref{suffix}"
    write_reference(ReferenceFile(path, exists=False), to_trajectory(TRAJECTORY))
    first = path.read_text(encoding="utf-8")
    assert "call_9" not in first
    loaded = load_reference(path)
    write_reference(loaded, to_trajectory(loaded.messages))
    assert path.read_text(encoding="utf-8") == first
    assert to_trajectory(loaded.messages).messages[1].tool_calls[0].args == {"a": 1, "b": 2}


def test_yaml_is_sorted_and_readable(tmp_path: Path) -> None:
    text = dump_reference(to_trajectory(TRAJECTORY), tmp_path / "x.yaml", {"mode": "unordered"})
    assert text == (
        "messages:\n"
        "- content: Weather in 苏州?\n"
        "  role: user\n"
        "- role: assistant\n"
        "  tool_calls:\n"
        "  - args:\n"
        "      a: 1\n"
        "      b: 2\n"
        "    name: get_weather\n"
        "- content: Sunny\n"
        "  role: tool\n"
        "mode: unordered\n"
    )


def test_header_is_read_and_kept_on_rewrite(tmp_path: Path) -> None:
    path = tmp_path / "h.yaml"
    path.write_text(
        "mode: superset\ntool_args: subset\noverrides:\n  f: [a.b]\nmessages: []\n",
        encoding="utf-8",
    )
    loaded = load_reference(path)
    assert (loaded.mode, loaded.tool_args, loaded.overrides) == (
        "superset",
        "subset",
        {"f": ["a.b"]},
    )
    write_reference(loaded, to_trajectory(TRAJECTORY))
    again = load_reference(path)
    assert again.header() == loaded.header()
    assert len(again.messages) == 3


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("a.yaml", "- role: user\n  content: [\n", "a.yaml:3:"),
        ("b.yaml", "- !!python/name:os.system\n", "b.yaml:1: could not determine a constructor"),
        ("c.yaml", "messages: 3\n", "c.yaml: expected a list of messages"),
        ("d.yaml", "foo: 1\nmessages: []\n", "d.yaml: unknown key(s) foo"),
        ("e.yaml", "- role: robot\n", "e.yaml:1: message 0, field 'role': unknown role 'robot'"),
        ("f.yaml", "- role: user\n- {role: assistant, tool_calls: 7}\n", "f.yaml:2: message 1"),
        ("g.yaml", "tool_args: fuzzy\nmessages: []\n", "g.yaml: header: invalid tool_args"),
        ("h.json", "[1,", "h.json:1:"),
    ],
)
def test_bad_files_name_file_and_line(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReferenceFileError) as caught:
        load_reference(path)
    assert message in str(caught.value)


def test_missing_file_suggests_update(tmp_path: Path) -> None:
    with pytest.raises(ReferenceFileError, match="--trajectory-update"):
        load_reference(tmp_path / "nope.yaml")


def test_safe_load_never_runs_python_tags(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    path = tmp_path / "evil.yaml"
    path.write_text(
        f"- !!python/object/apply:pathlib.Path.touch [!!python/object/apply:pathlib.Path "
        f"['{marker}']]\n",
        encoding="utf-8",
    )
    with pytest.raises(ReferenceFileError):
        load_reference(path)
    assert not marker.exists()


def test_yaml_is_imported_only_when_a_file_is_used() -> None:
    import subprocess

    code = "import sys, pytest_agenttraj.references\nprint('yaml' in sys.modules)\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
