"""Reference files: load, dump, round trip, value matchers and graph paths in files, and every
kind of bad file (without pytest runs)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_agenttraj import (
    ANY,
    Approx,
    Contains,
    OneOf,
    Regex,
    TrajectoryMismatch,
    assert_trajectory,
    to_trajectory,
)
from pytest_agenttraj.references import (
    ReferenceFile,
    ReferenceFileError,
    dump_graph_reference,
    dump_reference,
    load_reference,
    updated_messages,
    write_graph_reference,
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


@pytest.mark.subprocess
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
        ("graph_alias.yaml", b"steps:\n- &x [a, b]\n- *x\n", "graph_alias.yaml:2: anchors"),
        (
            "graph_deep.yaml",
            ("steps:\n- " + "[" * 200 + "a" + "]" * 200 + "\n").encode(),
            "nest more than 100 levels",
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


# ---------------------------------------------------------------- value matchers in files

MATCHERS_YAML = """\
# the weather agent: whatever the city is called, one request id or another
messages:
- content: Weather in SF?
  role: user
- role: assistant
  tool_calls:
  - args:
      city: {$regex: "s(an )?f(rancisco)?", flags: i}   # any spelling of SF
      request_id: {$any: true}
      temp_hint: {$approx: 75, abs: 1}
      unit: {$one_of: [c, f]}
      tags: {$contains: weather}
      filter: {$literal: {$gt: 5}}
    name: get_weather
- content: Sunny
  role: tool
"""


def _weather(**args: Any) -> list[dict[str, Any]]:
    """The weather agent's trajectory, with these arguments for its call."""
    values = {
        "city": "San Francisco",
        "request_id": "r-81f3",
        "temp_hint": 75.4,
        "unit": "f",
        "tags": ["weather", "today"],
        "filter": {"$gt": 5},
        **args,
    }
    return [
        {"role": "user", "content": "Weather in SF?"},
        {"role": "assistant", "tool_calls": [{"name": "get_weather", "args": values}]},
        {"role": "tool", "content": "Sunny"},
    ]


def test_spelled_matchers_are_read_into_matchers(tmp_path: Path) -> None:
    path = tmp_path / "weather.yaml"
    path.write_text(MATCHERS_YAML, encoding="utf-8")
    args = load_reference(path).messages[1]["tool_calls"][0]["args"]
    assert args == {
        "city": Regex("s(an )?f(rancisco)?", flags=re.IGNORECASE),
        "request_id": ANY,
        "temp_hint": Approx(75, abs=1),
        "unit": OneOf("c", "f"),
        "tags": Contains("weather"),
        "filter": {"$gt": 5},
    }
    assert_trajectory(_weather(), load_reference(path))
    assert_trajectory(_weather(city="SF", request_id=None, temp_hint=74), load_reference(path))


def test_a_value_that_breaks_a_matcher_shows_what_it_requires(tmp_path: Path) -> None:
    path = tmp_path / "weather.yaml"
    path.write_text(MATCHERS_YAML, encoding="utf-8")
    with pytest.raises(TrajectoryMismatch) as mismatch:
        assert_trajectory(_weather(city="NYC", temp_hint=80), load_reference(path))
    text = str(mismatch.value)
    assert "- city: Regex('s(an )?f(rancisco)?', flags=re.IGNORECASE)" in text
    assert "+ city: 'NYC'" in text
    assert "- temp_hint: Approx(75, abs=1)" in text


def test_matchers_in_json_files_and_in_function_arguments(tmp_path: Path) -> None:
    path = tmp_path / "weather.json"
    path.write_text(
        json.dumps(
            [
                {"role": "user", "content": "Weather in SF?"},
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "function": {
                                "name": "get_weather",
                                "arguments": {"city": {"$regex": "S.*"}, "request_id": ANY_SPELLED},
                            }
                        }
                    ],
                },
            ]
        ),
        encoding="utf-8",
    )
    loaded = load_reference(path)
    assert loaded.messages[1]["tool_calls"][0]["function"]["arguments"] == {
        "city": Regex("S.*"),
        "request_id": ANY,
    }
    assert_trajectory(_weather()[:2], loaded, tool_args="superset")


ANY_SPELLED = {"$any": True}


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "regex.yaml",
            "- role: user\n  content: q\n- role: assistant\n  tool_calls:\n  - name: w\n"
            "    args:\n      unit: c\n      city: {$regex: '('}\n",
            "regex.yaml:8: message 1, tool_calls[0].args.city: invalid Regex '(': missing )",
        ),
        (
            "approx.yaml",
            "messages:\n- role: assistant\n  tool_calls:\n  - name: w\n    args:\n"
            "      legs:\n      - {at: 1}\n      - at:\n          $approx: x\n",
            "approx.yaml:9: message 0, tool_calls[0].args.legs[1].at: Approx needs a number, "
            "got 'x' (str)",
        ),
        (
            "unknown.yaml",
            "- role: assistant\n  tool_calls:\n  - name: w\n    args: {city: {$regx: SF}}\n",
            "unknown.yaml:4: message 0, tool_calls[0].args.city: unknown matcher '$regx'; "
            "expected one of $any, $regex",
        ),
        (
            "nested.yaml",
            "- role: assistant\n  tool_calls:\n  - name: w\n    args:\n      unit:\n"
            "        $one_of:\n        - c\n        - {$regex: '['}\n",
            "nested.yaml:8: message 0, tool_calls[0].args.unit.$one_of[1]: invalid Regex '['",
        ),
        (
            "dotted.yaml",
            "- role: assistant\n  tool_calls:\n  - name: w\n    args:\n      meta.ts: 1\n"
            "      meta:\n        ts: {$any: false}\n",
            "dotted.yaml:7: message 0, tool_calls[0].args.meta.ts: $any takes true, got False",
        ),
        (
            "regex.json",
            '{"messages": [\n  {"role": "user", "content": "q"},\n  {"role": "assistant",\n'
            '   "tool_calls": [{"name": "w",\n     "args": {"city": {"$regex": "("}}}]}\n]}\n',
            "regex.json:5: message 1, tool_calls[0].args.city: invalid Regex '('",
        ),
        (
            "approx.json",
            '[{"role": "assistant", "tool_calls": [{"name": "w", "args": {"t": {"$approx": "x"}}}]}'
            "]",
            "approx.json:1: message 0, tool_calls[0].args.t: Approx needs a number",
        ),
    ],
)
def test_an_invalid_matcher_names_file_line_message_and_path(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReferenceFileError) as caught:
        load_reference(path)
    assert str(caught.value).startswith(f"{path.parent}/{message}")


def test_json_files_name_the_line_of_a_bad_message(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('[\n  {"role": "user", "content": "q"},\n\n  {"role": "robot"}\n]\n')
    with pytest.raises(ReferenceFileError, match=r"bad\.json:4: message 1, field 'role'"):
        load_reference(path)


def test_update_keeps_matchers_that_still_match_and_their_lines(tmp_path: Path) -> None:
    path = tmp_path / "weather.yaml"
    path.write_text(MATCHERS_YAML, encoding="utf-8")
    reference = load_reference(path)
    # the city still matches its regex, the unit no longer matches OneOf("c", "f")
    write_reference(reference, to_trajectory(_weather(city="SF", unit="k")))
    text = path.read_text(encoding="utf-8")
    before, after = MATCHERS_YAML.splitlines(), text.splitlines()
    assert after[:8] == before[:8]  # comments and the kept matcher's line, byte for byte
    assert '      city: {$regex: "s(an )?f(rancisco)?", flags: i}   # any spelling of SF' in after
    assert "      unit: k" in after
    assert "      unit: {$one_of: [c, f]}" not in after
    for line in ("request_id: {$any: true}", "temp_hint: {$approx: 75, abs: 1}"):
        assert f"      {line}" in after
    again = load_reference(path)
    args = again.messages[1]["tool_calls"][0]["args"]
    assert args["city"] == Regex("s(an )?f(rancisco)?", flags=re.IGNORECASE)
    assert args["unit"] == "k"
    assert args["filter"] == {"$gt": 5}  # still data, still wrapped in the file
    assert "      filter: {$literal: {$gt: 5}}" in after
    assert_trajectory(_weather(city="SF", unit="k"), again)


def test_parallel_calls_keep_their_matchers_in_another_order(tmp_path: Path) -> None:
    path = tmp_path / "parallel.yaml"
    path.write_text(
        "- role: assistant\n  tool_calls:\n"
        "  - {name: get_weather, args: {code: {$regex: 'location-[0-9]+'}}}\n"
        "  - {name: get_time, args: {code: {$any: true}, zone: UTC}}\n"
    )
    calls = [
        {"name": "get_time", "args": {"code": "x", "zone": "PST"}},
        {"name": "get_weather", "args": {"code": "location-9"}},
    ]
    messages = updated_messages(
        load_reference(path), to_trajectory([{"role": "assistant", "tool_calls": calls}])
    )
    assert messages[0]["tool_calls"] == [
        {"args": {"code": ANY, "zone": "PST"}, "name": "get_time"},
        {"args": {"code": Regex("location-[0-9]+")}, "name": "get_weather"},
    ]


def test_update_of_a_trajectory_that_still_matches_changes_no_byte(tmp_path: Path) -> None:
    path = tmp_path / "weather.yaml"
    path.write_text(MATCHERS_YAML, encoding="utf-8")
    write_reference(load_reference(path), to_trajectory(_weather(request_id="other")))
    assert path.read_text(encoding="utf-8") == MATCHERS_YAML


def test_update_keeps_matchers_in_json_files(tmp_path: Path) -> None:
    path = tmp_path / "weather.json"
    messages = [
        {"role": "user", "content": "Weather in SF?"},
        {
            "role": "assistant",
            "tool_calls": [{"name": "get_weather", "args": {"city": {"$regex": "S.*"}, "n": 1}}],
        },
    ]
    path.write_text(json.dumps({"mode": "strict", "messages": messages}), encoding="utf-8")
    write_reference(load_reference(path), to_trajectory(_weather(n=2)[:2]))
    written = json.loads(path.read_text(encoding="utf-8"))
    assert list(written) == ["mode", "messages"]
    args = written["messages"][1]["tool_calls"][0]["args"]
    assert args["city"] == {"$regex": "S.*"}
    assert args["n"] == 2
    assert args["filter"] == {"$literal": {"$gt": 5}}
    assert args["request_id"] == "r-81f3"


def test_rewritten_text_reads_back_as_text(tmp_path: Path) -> None:
    """The file is read as YAML 1.1, where yes, on and ~ are not text: quoted they stay."""
    path = tmp_path / "answers.yaml"
    path.write_text("- content: 'yes'\n  role: user\n- content: x\n  role: assistant\n")
    answers = [
        {"role": "user", "content": "yes"},
        {"role": "assistant", "tool_calls": [{"name": "f", "args": {"on": "~", "v": "no"}}]},
    ]
    write_reference(load_reference(path), to_trajectory(answers))
    text = path.read_text(encoding="utf-8")
    assert text.startswith("- content: 'yes'\n")
    assert to_trajectory(load_reference(path).messages) == to_trajectory(answers)


# ---------------------------------------------------------------- graph reference files

GRAPH_YAML = """\
# the 7-node workflow, reviewed
mode: superset   # other nodes may run between
steps:
# the first invocation
- [__start__, node1, node3, [node4, node5], node6, node7]   # node4 and node5 together
- - review
  - publish
"""


def test_a_graph_file_is_read_with_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "flow.yaml"
    path.write_text(GRAPH_YAML, encoding="utf-8")
    loaded = load_reference(path)
    assert loaded.is_graph
    assert loaded.header() == {"mode": "superset"}
    assert loaded.graph_document() == {
        "steps": [
            ["__start__", "node1", "node3", ["node4", "node5"], "node6", "node7"],
            ["review", "publish"],
        ]
    }
    assert loaded.messages == []
    json_path = tmp_path / "flow.json"
    json_path.write_text('{"steps": [["a", ["b", "c"]]]}', encoding="utf-8")
    assert load_reference(json_path).steps == [["a", ["b", "c"]]]
    assert load_reference(json_path).mode is None


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "flat.yaml",
            "steps: [node1, node2]\n",
            "flat.yaml:1: flat.yaml['steps'][0] must be a list of node names (one list per "
            "invocation), got 'node1'",
        ),
        (
            "steps.yaml",
            "mode: strict\nsteps: 3\n",
            "steps.yaml:2: steps.yaml['steps'] must be a list",
        ),
        (
            "number.yaml",
            "steps:\n- - a\n  - 7\n",
            "number.yaml:3: number.yaml['steps'][0][1] (invocation 0, step 1) must be a node name "
            "or a list of node names that ran in one superstep, got 7; YAML reads yes, no, on, "
            "off, null, ~ and numbers as such",
        ),
        (
            "on.yaml",
            "steps:\n- [a, [b, on]]\n",
            "on.yaml:2: on.yaml['steps'][0][1] (invocation 0, step 1) must list node names, got "
            "True in ['b', True]; YAML reads yes",
        ),
        (
            "deep.yaml",
            "steps:\n- - a\n  - [b, [c, d]]\n",
            "deep.yaml:3: deep.yaml['steps'][0][1] (invocation 0, step 1) must list node names, "
            "got ['c', 'd'] in ['b', ['c', 'd']]; supersteps do not nest",
        ),
        (
            "empty.yaml",
            "steps:\n- [a, []]\n",
            "empty.yaml:2: empty.yaml['steps'][0][1] (invocation 0, step 1) is an empty superstep",
        ),
        (
            "blank.json",
            '{"steps": [\n["a",\n ""]]}',
            "blank.json:3: steps[0][1] (invocation 0, step 1) holds an empty node name",
        ),
        (
            "mixed.yaml",
            "messages: []\nsteps:\n- [a]\n",
            "mixed.yaml:3: holds both 'messages' and 'steps'; a reference file is either a message "
            "trajectory (messages) or a graph path (steps)",
        ),
        (
            "extra.yaml",
            "tool_args: exact\nsteps: [[a]]\n",
            "extra.yaml: unknown key(s) tool_args; a graph reference file holds 'steps' and "
            "optionally 'mode'",
        ),
        (
            "mode.yaml",
            "mode: loose\nsteps: [[a]]\n",
            "mode.yaml: header: invalid graph mode 'loose'",
        ),
        ("number.json", '{"steps": [["a", 7]]}', "number.json:1: number.json['steps'][0][1]"),
    ],
)
def test_bad_graph_files_name_file_and_line(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReferenceFileError) as caught:
        load_reference(path)
    assert str(caught.value).startswith(f"{path.parent}/{message}")
    if name.endswith(".json"):
        assert "YAML reads" not in str(caught.value)


def test_a_new_graph_file_has_one_line_per_invocation(tmp_path: Path) -> None:
    document = {
        "steps": [
            ["__start__", "draft", "review", "__interrupt__"],
            ["review", ["publish", "notify"], "on", "agent:tools"],
        ]
    }
    yaml_path, json_path = tmp_path / "new.yaml", tmp_path / "new.json"
    write_graph_reference(ReferenceFile(yaml_path, exists=False), document)
    write_graph_reference(ReferenceFile(json_path, exists=False), document)
    assert yaml_path.read_text(encoding="utf-8") == (
        "steps:\n"
        "- [__start__, draft, review, __interrupt__]\n"
        "- [review, [publish, notify], 'on', 'agent:tools']\n"
    )
    assert json_path.read_text(encoding="utf-8") == (
        "{\n"
        '  "steps": [\n'
        '    ["__start__", "draft", "review", "__interrupt__"],\n'
        '    ["review", ["publish", "notify"], "on", "agent:tools"]\n'
        "  ]\n"
        "}\n"
    )
    for path in (yaml_path, json_path):
        assert load_reference(path).graph_document() == document
    assert dump_graph_reference(document, yaml_path, {"mode": "subset"}).startswith(
        "mode: subset\nsteps:\n"
    )


def test_rewriting_a_graph_file_keeps_header_comments_and_unchanged_invocations(
    tmp_path: Path,
) -> None:
    path = tmp_path / "flow.yaml"
    path.write_text(GRAPH_YAML, encoding="utf-8")
    recorded = {
        "steps": [
            ["__start__", "node1", "node3", ["node5", "node4"], "node6", "node7"],
            ["review", "draft", "review", "publish"],
        ]
    }
    write_graph_reference(load_reference(path), recorded)
    text = path.read_text(encoding="utf-8")
    before = GRAPH_YAML.splitlines()
    assert text.splitlines() == [*before[:5], "- [review, draft, review, publish]"]
    assert load_reference(path).header() == {"mode": "superset"}
    write_graph_reference(load_reference(path), recorded)
    assert path.read_text(encoding="utf-8") == text  # nothing changed: no byte changes


def test_rewriting_a_json_graph_file_keeps_its_keys(tmp_path: Path) -> None:
    path = tmp_path / "flow.json"
    path.write_text('{"steps": [["a"], ["b"]], "mode": "unordered"}', encoding="utf-8")
    write_graph_reference(load_reference(path), {"steps": [["a"], ["c", ["d", "e"]]]})
    assert path.read_text(encoding="utf-8") == (
        '{\n  "steps": [\n    ["a"],\n    ["c", ["d", "e"]]\n  ],\n  "mode": "unordered"\n}\n'
    )


# ---------------------------------------------------------------- where values are


@pytest.mark.parametrize(
    ("suffix", "text"),
    [
        (
            ".yaml",
            "messages:\n- role: user\n- role: assistant\n  tool_calls:\n  - name: w\n"
            "    args:\n      a.b: {c: 1}\n      a: 2\n      a: {b: 3}\n",
        ),
        (
            ".json",
            '{"messages": [\n{"role": "user"},\n{"role": "assistant",\n "tool_calls": [\n'
            '  {"name": "w",\n   "args": {\n    "a.b": {"c": 1},\n    "a": 2,\n'
            '    "a": {"b": 3}}}]}]}',
        ),
    ],
)
def test_positions_follow_keys_with_dots_and_the_last_of_a_repeated_key(
    tmp_path: Path, suffix: str, text: str
) -> None:
    from pytest_agenttraj.references.reading import _parse

    _, positions = _parse(tmp_path / f"x{suffix}", text)
    lines = text.splitlines()

    def at(line: int | None) -> str:
        assert line is not None
        return lines[line - 1]

    assert "a.b" in at(positions.line(["messages", 1], "tool_calls[0].args.a.b.c"))
    assert "b" in at(positions.line(["messages", 1], "tool_calls[0].args.a.b"))
    assert "3" in at(positions.line(["messages", 1], "tool_calls[0].args.a"))
    # a place the document does not have: the deepest value on the way
    assert "user" in at(positions.line(["messages", 0, "tool_calls"], "x"))
    assert positions.line(["messages", 9]) == positions.line(["messages"])
