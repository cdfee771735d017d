"""The run's cache of LLM judge answers: ``--trajectory-judge-cache=use|refresh|off`` (ini
``trajectory_judge_cache``, default ``use``) and a directory in pytest's cache
(``.pytest_cache/d/agenttraj-judge``), made only when a judge first writes to it. Judges made
through the plugin's fixtures or with ``cache=True`` find it in the test's scope."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..evaluators.judges.cache import CACHE_MODES, JudgeCache, check_cache_mode

__all__ = ["CACHE_DIRECTORY", "add_judge_options", "judge_cache_for"]

CACHE_DIRECTORY = "agenttraj-judge"
_OPTION = "--trajectory-judge-cache"
_INI = "trajectory_judge_cache"


def add_judge_options(parser: pytest.Parser, group: pytest.OptionGroup) -> None:
    group.addoption(
        _OPTION,
        dest="trajectory_judge_cache",
        default=None,
        metavar="MODE",
        help=f"LLM judge answers cached in pytest's cache directory: {', '.join(CACHE_MODES)} "
        "(use: reuse and store; refresh: ask again and store; off: neither; default: use)",
    )
    parser.addini(_INI, f"LLM judge cache mode (see {_OPTION})", default="")


def _mode(config: pytest.Config) -> str:
    value = config.getoption("trajectory_judge_cache", default=None)
    where = _OPTION
    if value is None:
        value, where = str(config.getini(_INI)).strip() or "use", f"ini {_INI}"
    try:
        return check_cache_mode(value, where=where)
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None


def judge_cache_for(config: pytest.Config) -> JudgeCache | None:
    """The run's judge cache (``None`` when pytest's cache plugin is off: ``-p
    no:cacheprovider``); its folder is made when first written."""
    mode = _mode(config)
    cache = getattr(config, "cache", None)
    if cache is None:
        return None

    def directory() -> Path:
        return Path(cache.mkdir(CACHE_DIRECTORY))

    return JudgeCache(directory, mode=mode)
