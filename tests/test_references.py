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


def test_yaml_is_sorted_and_readable_header_first(tmp_path: Path) -> None:
    header = {"tool_args": "exact", "mode": "unordered"}
    text = dump_reference(to_trajectory(TRAJECTORY), tmp_path / "x.yaml", header)
    assert text == (
        "mode: unordered\n"
        "tool_args: exact\n"
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


COMMENTED = """\
# How the weather agent should behave: reviewed by the team.
messages:
# the question
- content: Weather in 苏州?
  role: user
- role: assistant   # looks the weather up
  tool_calls:
  - args:
      city: 苏州
    name: get_weather
- content: Sunny
  role: tool
mode: superset   # the header stays here, after the messages
"""


def test_rewrite_keeps_comments_header_place_and_unchanged_messages(tmp_path: Path) -> None:
    path = tmp_path / "commented.yaml"
    path.write_text(COMMENTED, encoding="utf-8")
    reference = load_reference(path)
    changed = [
        {"role": "user", "content": "Weather in 苏州?"},
        {"role": "assistant", "tool_calls": [{"name": "get_weather", "args": {"city": "Suzhou"}}]},
        {"role": "tool", "content": "Sunny"},
        {"role": "assistant", "content": "It is sunny."},
    ]
    write_reference(reference, to_trajectory(changed))
    text = path.read_text(encoding="utf-8")
    before, after = COMMENTED.splitlines(), text.splitlines()
    assert after[:4] == before[:4]  # leading comments and the first message, as written
    assert "mode: superset   # the header stays here, after the messages" in after
    assert after.index("messages:") < after.index(
        "mode: superset   # the header stays here, after the messages"
    )
    assert "      city: Suzhou" in after
    assert "      city: 苏州" not in after
    assert after[-3:-1] == ["- content: It is sunny.", "  role: assistant"]
    assert after[-5:-3] == before[-3:-1] == ["- content: Sunny", "  role: tool"]  # kept
    again = load_reference(path)
    assert again.mode == "superset"
    assert to_trajectory(again.messages) == to_trajectory(changed)


def test_rewrite_of_an_unchanged_trajectory_changes_no_byte(tmp_path: Path) -> None:
    path = tmp_path / "commented.yaml"
    path.write_text(COMMENTED, encoding="utf-8")
    write_reference(load_reference(path), to_trajectory(load_reference(path).messages))
    assert path.read_text(encoding="utf-8") == COMMENTED


def test_json_rewrite_keeps_the_header_first(tmp_path: Path) -> None:
    path = tmp_path / "ref.json"
    path.write_text(
        '{"tool_args": "ignore", "mode": "unordered", "messages": [{"role": "user", '
        '"content": "q"}]}',
        encoding="utf-8",
    )
    write_reference(load_reference(path), to_trajectory(TRAJECTORY))
    text = path.read_text(encoding="utf-8")
    assert text.index('"tool_args"') < text.index('"mode"') < text.index('"messages"')
    assert load_reference(path).header() == {"mode": "unordered", "tool_args": "ignore"}


# ---------------------------------------------------------------- untrusted files


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "latin1.yaml",
            "- role: user\n  content: caf\xe9\n".encode("latin-1"),
            "latin1.yaml:2: not UTF-8",
        ),
        ("utf16.json", '[{"role": "user"}]'.encode("utf-16"), "utf16.json:1: not UTF-8"),
        (
            "deep.yaml",
            ("a:\n" + "".join("  " * i + "- \n" for i in range(1, 5000))).encode(),
            "nest more than 100 levels",
        ),
        ("flow.yaml", ("[" * 5000 + "]" * 5000).encode(), "nest more than 100 levels"),
        ("deep.json", ("[" * 100_000 + "]" * 100_000).encode(), "nest more than 100 levels"),
        ("deepish.json", ("[" * 150 + "]" * 150).encode(), "nest more than 100 levels"),
        (
            "alias.yaml",
            b"- role: user\n  content: &x hi\n- role: user\n  content: *x\n",
            "alias.yaml:2: anchors and aliases",
        ),
    ],
)
@pytest.mark.parametrize("libyaml", [True, False], ids=["libyaml", "pure-python-yaml"])
def test_untrusted_files_fail_clearly_and_fast(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    content: bytes,
    message: str,
    libyaml: bool,
) -> None:
    if not libyaml:
        import yaml

        monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ReferenceFileError, match=message) as info:
        load_reference(path)
    assert str(path) in str(info.value)


def test_a_billion_laughs_is_refused_at_once(tmp_path: Path) -> None:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    bomb = (
        "\n".join(lines)
        + "\nmessages:\n- role: assistant\n  tool_calls:\n  - name: f\n    args: {x: *a9}\n"
    )
    path = tmp_path / "bomb.yaml"
    path.write_text(bomb, encoding="utf-8")
    with pytest.raises(ReferenceFileError, match=r"bomb.yaml:\d+: anchors and aliases"):
        load_reference(path)
