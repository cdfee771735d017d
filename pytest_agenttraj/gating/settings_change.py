"""Whether a result was judged under the same settings as its baseline, and if not, how they
differ and whether the change only tightens the check.

Tightening is claimed only where a pass under the new settings implies a pass under the old
ones, for every trajectory, as the matching rules define them; every other change makes the
result not comparable:

* ``tool_args`` of a trajectory match becomes ``exact``, or was ``ignore`` (exact args match
  under subset and superset, and anything matches under ignore: a pairing of calls valid under
  the new rule is valid under the old one, in every mode);
* ``ignore_keys`` of a trajectory match lose some keys and gain none (fewer keys left out,
  more compared);
* ``allow_empty`` goes from true to false (only refusals are added);
* ``min_score`` rises (a missing one is 1, the default threshold);
* ``repeat`` changes between whole numbers above 1: it is the sample size of a pass rate, and
  the baseline compares repeated results by their pass counts with a significance test that
  accounts for it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["SettingsChange", "settings_change", "tightened"]

_SETTINGS, _ID = "settings", "settings_id"
_ARGS_MODES = ("exact", "ignore", "subset", "superset")


@dataclass(frozen=True)
class SettingsChange:
    """How a result's settings differ from its baseline's: each difference as
    ``name old -> new``, and whether they only tighten the check. ``unrecorded``: the baseline's
    result does not say (a report of an earlier version); ``now`` is this run's settings."""

    differences: tuple[str, ...]
    tightened: bool
    unrecorded: bool = False
    now: str = ""

    def text(self) -> str:
        if self.unrecorded:
            return (
                "the baseline does not record the settings it was judged under (a report of "
                f"an earlier pytest-agenttraj); now {self.now or 'none'}"
            )
        if not self.differences:
            return "judged under other settings (this result does not record its own)"
        word = "tightened" if self.tightened else "judged under other settings"
        return f"{word}: {', '.join(self.differences)}"


def settings_change(before: Mapping[str, Any], after: Mapping[str, Any]) -> SettingsChange | None:
    """``None`` when both results were judged under the same settings (equal fingerprints, or
    equal settings)."""
    fingerprint = before.get(_ID)
    if fingerprint is not None and fingerprint == after.get(_ID):
        return None
    old, new = before.get(_SETTINGS), after.get(_SETTINGS)
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        if old == new:
            return None
        return SettingsChange(tuple(_differences(old, new)), tightened(old, new))
    now = _flat(new) if isinstance(new, Mapping) else ""
    return SettingsChange((), tightened=False, unrecorded=not isinstance(old, Mapping), now=now)


def _show(value: Any) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    return json.dumps(value, sort_keys=True, default=str)


def _differences(old: Mapping[str, Any], new: Mapping[str, Any], prefix: str = "") -> list[str]:
    """``name old -> new`` for each setting that differs (nested ones as ``judge.prompt``)."""
    out = []
    for name in sorted(old.keys() | new.keys()):
        was, now = old.get(name), new.get(name)
        if was == now:
            continue
        if isinstance(was, Mapping) and isinstance(now, Mapping):
            out += _differences(was, now, f"{prefix}{name}.")
        else:
            out.append(f"{prefix}{name} {_show(was)} -> {_show(now)}")
    return out


def _flat(settings: Mapping[str, Any]) -> str:
    return ", ".join(
        f"{name}={_show(value)}" for name, value in sorted(settings.items()) if name != "kind"
    )


def _args_mode(was: Any, now: Any, settings: Mapping[str, Any]) -> bool:
    return (
        settings.get("kind") == "trajectory"
        and was in _ARGS_MODES
        and now in _ARGS_MODES
        and (now == "exact" or was == "ignore")
    )


def _fewer_keys(was: Any, now: Any, settings: Mapping[str, Any]) -> bool:
    before, after = set(was or ()), set(now or ())
    return settings.get("kind") == "trajectory" and after < before


def _refuses_empty(was: Any, now: Any, _settings: Mapping[str, Any]) -> bool:
    return was is True and now is False


def _threshold(value: Any) -> float | None:
    if value is None:
        return 1.0
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _higher_threshold(was: Any, now: Any, _settings: Mapping[str, Any]) -> bool:
    before, after = _threshold(was), _threshold(now)
    return before is not None and after is not None and after > before


def _sample_size(was: Any, now: Any, _settings: Mapping[str, Any]) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) and v > 1 for v in (was, now))


_TIGHTER: dict[str, Callable[[Any, Any, Mapping[str, Any]], bool]] = {
    "repeat": _sample_size,
    "tool_args": _args_mode,
    "ignore_keys": _fewer_keys,
    "allow_empty": _refuses_empty,
    "min_score": _higher_threshold,
}


def tightened(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether every difference between ``old`` and ``new`` only tightens the check (a pass
    under ``new`` implies a pass under ``old``); see the module docstring.

    >>> match = {"kind": "trajectory"}
    >>> tightened({**match, "tool_args": "ignore"}, {**match, "tool_args": "exact"})
    True
    >>> tightened({**match, "mode": "strict"}, {**match, "mode": "superset"})
    False
    """
    if old.get("kind") != new.get("kind"):
        return False
    for name in old.keys() | new.keys():
        was, now = old.get(name), new.get(name)
        if was == now:
            continue
        rule = _TIGHTER.get(name)
        if rule is None or not rule(was, now, new):
            return False
    return True
