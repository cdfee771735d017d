"""The judge cache on its own: keys, atomic entries, corrupt files as misses (with a warning),
a directory that cannot be written (warned of once), modes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pytest_agenttraj.errors import JudgeCacheWarning
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


def _stored(cache: JudgeCache, key: str, data: bytes) -> None:
    path = cache.path(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "it is not JSON"),
        ("{not json", "it is not JSON"),
        ("[1, 2]", "it is not an entry of the judge cache"),
        ('{"version": 1, "key": "other", "answer": {}}', "it is not an entry of the judge cache"),
        ('{"version": 1, "key": "KEY", "answer": "yes"}', "it is not an entry of the judge cache"),
        ("\udcff", "it is not JSON"),
        ("[" * 100_000 + "]" * 100_000, "its JSON nests too deeply"),
    ],
    ids=["empty", "not-json", "list", "other-key", "answer-not-object", "not-utf8", "deep"],
)
def test_corrupt_entries_are_misses_with_one_warning(
    tmp_path: Path, text: str, problem: str
) -> None:
    cache = JudgeCache(tmp_path)
    key = cache_key({"q": 2})
    _stored(cache, key, text.replace("KEY", key).encode("utf-8", "surrogateescape"))
    with pytest.warns(JudgeCacheWarning) as warned:
        assert cache.get(key) is None
    assert [str(w.message) for w in warned] == [
        f"judge cache entry {cache.path(key)} cannot be used ({problem}): a miss, the model "
        "is asked again"
    ]


def test_missing_entries_and_other_versions_are_quiet_misses(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    key = cache_key({"q": 7})
    assert cache.get(key) is None  # never stored
    _stored(cache, key, f'{{"version": 99, "key": "{key}", "answer": {{}}}}'.encode())
    assert cache.get(key) is None  # written by another version of the package: no warning


def test_an_entry_the_caller_cannot_use_is_a_miss_with_a_warning(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path)
    key = cache_key({"q": 8})
    cache.put(key, {"answer": {"score": "maybe"}})

    def check(answer: dict[str, object]) -> dict[str, object]:
        raise ValueError(f"'score' must be true or false, got {answer['score']!r}")

    with pytest.warns(JudgeCacheWarning, match=r"\('score' must be true or false, got 'maybe'\)"):
        assert cache.get(key, check=check) is None
    assert cache.get(key, check=dict) is not None


def test_unwritable_cache_warns_once_naming_the_path(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    cache = JudgeCache(blocker / "cache")
    # caches derived from it (another mode, another directory under a run) share its warnings
    caches = [cache, cache, cache.with_mode("refresh")]
    with pytest.warns(JudgeCacheWarning) as warned:
        written = [c.put(cache_key({"q": n}), {"answer": {}}) for n, c in enumerate(caches)]
    assert written == [False, False, False]
    [message] = [str(w.message) for w in warned]
    assert message.startswith(f"judge cache {blocker / 'cache'} cannot be written (")
    assert message.endswith("): every judge answer is asked of the model, none is kept")
    elsewhere = cache.for_directory(blocker / "other")
    with pytest.warns(JudgeCacheWarning, match=str(blocker / "other")):
        assert elsewhere.put(cache_key({"q": 6}), {"answer": {}}) is False


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_cache_folder_warns(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o500)
    try:
        with pytest.warns(JudgeCacheWarning, match="cannot be written"):
            assert JudgeCache(folder).put(cache_key({"q": 9}), {"answer": {}}) is False
    finally:
        folder.chmod(0o700)


def test_cache_whose_folder_cannot_be_made_names_it(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")

    def where() -> Path:
        (blocker / "judge").mkdir(parents=True)  # raises, as pytest's cache.mkdir would
        return blocker / "judge"

    with pytest.warns(JudgeCacheWarning, match=f"judge cache {blocker / 'judge'} cannot be"):
        assert JudgeCache(where).put(cache_key({"q": 10}), {"answer": {}}) is False


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
