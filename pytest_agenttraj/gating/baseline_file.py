"""Reading a baseline (an earlier ``--trajectory-report``), which is untrusted input: the whole
file is checked when it is read, so that a bad one is a usage error naming the file and the
field before any test runs, never a traceback after they all passed."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import BaselineError
from ..plugin.results import REPORT_VERSION

__all__ = ["load_baseline", "load_report"]

_MAX_INDEX = 1_000_000
_STRINGS = ("nodeid", "key")
_OPTIONAL_STRINGS = (
    "comment",
    "mode",
    "tool_args_mode",
    "origin",
    "test_outcome",
    "diff",
    "settings_id",
)


def load_baseline(path: Path) -> dict[str, Any]:
    """Read and check a baseline report; ``BaselineError`` names the file and the problem."""
    return load_report(path)


def load_report(
    path: Path, *, role: str = "baseline", allow_incomplete: bool = False
) -> dict[str, Any]:
    """Read and check a ``--trajectory-report`` file; errors name it as ``role`` (``baseline``,
    ``report``) with the field. A report of a run that did not finish is refused unless
    ``allow_incomplete`` (a page may show it; a baseline must not be one)."""
    document = _parse(path, _read(path, role), role, allow_incomplete)
    results = document["results"]
    if not isinstance(results, list):
        raise BaselineError(f"{role} {path}: 'results' must be a list")
    for number, result in enumerate(results):
        _check_result(path, number, result, role)
    _check_top(path, document, role)
    return document


def _read(path: Path, role: str) -> str:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        hint = " on the reference branch" if role == "baseline" else ""
        raise BaselineError(
            f"{role} {path} does not exist; create one with --trajectory-report={path}{hint}"
        ) from None
    except OSError as error:
        raise BaselineError(f"{role} {path} cannot be read: {error}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BaselineError(
            f"{role} {path} is not UTF-8 text (byte {error.start}); it must be a "
            "--trajectory-report file"
        ) from None


def _parse(path: Path, text: str, role: str, allow_incomplete: bool) -> dict[str, Any]:
    """The report document, checked to be one of this version."""
    if not text.strip():
        raise BaselineError(f"{role} {path} is empty; it must be a --trajectory-report file")
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise BaselineError(
            f"{role} {path} is not valid JSON (line {error.lineno}, column {error.colno}: "
            f"{error.msg}); it must be a --trajectory-report file"
        ) from None
    except RecursionError:
        raise BaselineError(f"{role} {path}: JSON nested too deep to be a report") from None
    except ValueError as error:  # e.g. an integer longer than Python converts
        raise BaselineError(f"{role} {path} is not a trajectory report: {error}") from None
    if not isinstance(document, dict) or "results" not in document:
        raise BaselineError(
            f"{role} {path} is not a trajectory report: expected an object with 'version' "
            "and 'results'"
        )
    version = document.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise BaselineError(
            f"{role} {path}: field 'version': expected a whole number, got {_short(version)}"
        )
    if version != REPORT_VERSION:
        raise BaselineError(
            f"{role} {path} has report version {_short(version)}; this pytest-agenttraj "
            f"reads version {REPORT_VERSION}: make a new {role} with this version"
        )
    complete = document.get("complete")
    if complete is not None and not isinstance(complete, bool):
        raise BaselineError(
            f"{role} {path}: field 'complete': expected true or false, got {_short(complete)}"
        )
    if complete is False and not allow_incomplete:
        reason = document.get("incomplete_reason")
        raise BaselineError(
            f"{role} {path} is the report of a run that did not finish "
            f"({_short(reason) if isinstance(reason, str) else 'no reason given'}); make the "
            "baseline from a complete run"
        )
    return document


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**20 else "a huge number"
    return text if len(text) <= 60 else text[:57] + "..."


def _wrong(
    path: Path, number: int, field: str, expected: str, got: Any, role: str
) -> BaselineError:
    return BaselineError(
        f"{role} {path}: result {number}, field {field!r}: expected {expected}, got {_short(got)}"
    )


def _check_result(path: Path, number: int, result: Any, role: str) -> None:
    if not isinstance(result, dict):
        raise BaselineError(f"{role} {path}: result {number} is not an object")
    for name, expected, fits in _FIELDS:
        if name in result and not (name not in _REQUIRED and result[name] is None):
            if not fits(result[name]):
                raise _wrong(path, number, name, expected, result[name], role)
        elif name in _REQUIRED:
            raise _wrong(path, number, name, expected, None, role)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


_REQUIRED = frozenset(_STRINGS)
_FIELDS: tuple[tuple[str, str, Any], ...] = (
    *((name, "a string", lambda v: isinstance(v, str)) for name in _STRINGS + _OPTIONAL_STRINGS),
    (
        "index",
        f"a whole number from 0 to {_MAX_INDEX}",
        lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= _MAX_INDEX,
    ),
    ("passed", "true or false", lambda v: isinstance(v, bool)),
    ("score", "a number, true or false", lambda v: isinstance(v, bool | int | float | str)),
    ("pass_rate", "a number from 0 to 1", lambda v: _is_number(v) and 0 <= v <= 1),
    ("duration_s", "a number", _is_number),
    ("settings", "an object", lambda v: isinstance(v, dict)),
)


_TOP_FIELDS: tuple[tuple[str, str, type], ...] = (
    ("settings", "an object", dict),
    ("summary", "an object", dict),
    ("package_version", "a string", str),
    ("incomplete_reason", "a string", str),
)


def _check_top(path: Path, document: Mapping[str, Any], role: str) -> None:
    for name, expected, kind in _TOP_FIELDS:
        value = document.get(name)
        if value is not None and not isinstance(value, kind):
            raise BaselineError(
                f"{role} {path}: field {name!r}: expected {expected}, got {_short(value)}"
            )
