"""The judge cache on its own: keys, atomic entries, corrupt files as misses, modes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_agenttraj.evaluators.judges.cache import JudgeCache, cache_key, check_cache_mode


def test_key_is_stable_and_ignores_dict_order() -> None:
    one = cache_key(
        {"model": {"a": 1, "b": [1, 2]}, "messages": [{"role": "user", "content": "x"}]}
    )
    two = cache_key(
        {"messages": [{"content": "x", "role": "user"}], "model": {"b": [1, 2], "a": 1}}
    )
    assert one == two
    assert len(one) == 64
    assert cache_key({"model": {"a": 2}}) != cache_key({"model": {"a": 1}})


def test_key_of_unencodable_values_stands_for_their_type() -> None:
    class Opaque:
        pass

    assert cache_key({"x": Opaque()}) == cache_key({"x": Opaque()})  # no memory address in it


def test_put_then_get(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    key = cache_key({"q": 1})
    assert cache.get(key) is None
    assert cache.put(key, {"answer": {"score": True}, "model": "m"})
    entry = cache.get(key)
    assert entry is not None
    assert entry["answer"] == {"score": True}
    assert cache.path(key) == tmp_path / key[:2] / f"{key}.json"
    assert not list(tmp_path.rglob("*.tmp"))  # written through a temporary file, renamed


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{not json",
        "[1, 2]",
        '{"version": 99, "key": "KEY", "answer": {}}',
        '{"version": 1, "key": "other", "answer": {}}',
        '{"version": 1, "key": "KEY", "answer": "yes"}',
        "\udcff",
    ],
)
def test_corrupt_entries_are_misses(tmp_path: Path, text: str) -> None:
    cache = JudgeCache(tmp_path)
    key = cache_key({"q": 2})
    path = cache.path(key)
    path.parent.mkdir(parents=True)
    path.write_bytes(text.replace("KEY", key).encode("utf-8", "surrogateescape"))
    assert cache.get(key) is None


def test_unwritable_cache_costs_nothing_but_a_miss(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    cache = JudgeCache(blocker / "cache")
    assert cache.put(cache_key({"q": 3}), {"answer": {}}) is False


def test_modes(tmp_path: Path) -> None:
    key = cache_key({"q": 4})
    JudgeCache(tmp_path).put(key, {"answer": {"score": 1}})
    assert JudgeCache(tmp_path, mode="refresh").get(key) is None
    assert JudgeCache(tmp_path, mode="off").put(key, {"answer": {}}) is False
    refreshed = JudgeCache(tmp_path, mode="refresh")
    assert refreshed.put(key, {"answer": {"score": 0}})
    assert json.loads(refreshed.path(key).read_text(encoding="utf-8"))["answer"] == {"score": 0}
    assert refreshed.with_mode("use").get(key) is not None


def test_directory_is_resolved_when_first_needed(tmp_path: Path) -> None:
    asked: list[int] = []

    def where() -> Path:
        asked.append(1)
        return tmp_path / "made-late"

    cache = JudgeCache(where)
    assert asked == []
    cache.put(cache_key({"q": 5}), {"answer": {}})
    cache.get(cache_key({"q": 5}))
    assert asked == [1]
    assert (tmp_path / "made-late").is_dir()


def test_mode_is_checked() -> None:
    with pytest.raises(
        ValueError, match="invalid mode 'always': must be one of 'use', 'refresh', 'off'"
    ):
        JudgeCache("x", mode="always")
    assert check_cache_mode("off") == "off"
