"""The run's LLM judge settings. The cache of answers: ``--trajectory-judge-cache=use|refresh|off``
(ini ``trajectory_judge_cache``, default ``use``) and a directory in pytest's cache
(``.pytest_cache/d/agenttraj-judge``), made only when a judge first writes to it; judges made
through the plugin's fixtures or with ``cache=True`` find it in the test's scope. The bound on one
model call: ``--trajectory-judge-timeout=SECONDS`` (ini ``trajectory_judge_timeout``, default
120, 0 for none), for every judge made without ``timeout=``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..evaluators.judges import CACHE_MODES

if TYPE_CHECKING:  # the cache loads with the first test that judges
    from ..evaluators.judges.cache import JudgeCache

__all__ = [
    "CACHE_DIRECTORY",
    "add_judge_options",
    "judge_cache_for",
    "judge_cache_mode",
    "judge_timeout_for",
]

CACHE_DIRECTORY = "agenttraj-judge"
_OPTION = "--trajectory-judge-cache"
_INI = "trajectory_judge_cache"
_TIMEOUT_OPTION = "--trajectory-judge-timeout"
_TIMEOUT_INI = "trajectory_judge_timeout"
_DEFAULT_TIMEOUT = "120"  # seconds; the library's DEFAULT_TIMEOUT (loaded with the judges)


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
    group.addoption(
        _TIMEOUT_OPTION,
        dest="trajectory_judge_timeout",
        default=None,
        metavar="SECONDS",
        help="seconds an LLM judge waits for one model call before the test fails with "
        f"JudgeError, for judges made without timeout= (default: {_DEFAULT_TIMEOUT}; 0: no bound)",
    )
    parser.addini(_TIMEOUT_INI, f"LLM judge timeout in seconds (see {_TIMEOUT_OPTION})", default="")


def judge_cache_mode(config: pytest.Config) -> str:
    """The run's judge cache mode; an invalid one is a usage error (asked at configure)."""
    value = config.getoption("trajectory_judge_cache", default=None)
    where = _OPTION
    if value is None:
        value, where = str(config.getini(_INI)).strip() or "use", f"ini {_INI}"
    if value in CACHE_MODES:
        return str(value)
    from ..evaluators.judges.cache import check_cache_mode

    try:
        return check_cache_mode(value, where=where)
    except ValueError as error:
        raise pytest.UsageError(str(error)) from None


def judge_timeout_for(config: pytest.Config) -> float:
    """The run's bound in seconds on one judge model call (``0``: none)."""
    value = config.getoption("trajectory_judge_timeout", default=None)
    where = _TIMEOUT_OPTION
    if value is None:
        value = str(config.getini(_TIMEOUT_INI)).strip() or _DEFAULT_TIMEOUT
        where = f"ini {_TIMEOUT_INI}"
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds < float("inf"):
        raise pytest.UsageError(
            f"invalid {where} {value!r}: must be a number of seconds >= 0 (0: no bound)"
        )
    return seconds


def judge_cache_for(config: pytest.Config) -> JudgeCache | None:
    """The run's judge cache (``None`` when pytest's cache plugin is off: ``-p
    no:cacheprovider``); its folder is made when first written."""
    mode = judge_cache_mode(config)
    cache = getattr(config, "cache", None)
    if cache is None:
        return None
    from ..evaluators.judges.cache import JudgeCache

    def directory() -> Path:
        # an OSError (a file where the folder should be) is the cache's to warn of, once
        return Path(cache.mkdir(CACHE_DIRECTORY))

    return JudgeCache(directory, mode=mode)
