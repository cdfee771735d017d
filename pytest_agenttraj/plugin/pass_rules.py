"""Pass rules for repeated runs of a nondeterministic agent: how many of N attempts must pass.

``all``, ``majority``, ``any``, ``rate:0.8`` (at least that share) and ``min:3`` (at least that
many). A verdict can be settled before every attempt has run, so runs stop early.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["PassRule", "parse_pass_rule"]

_FORMS = "'all', 'majority', 'any', 'rate:<0..1>' or 'min:<count>'"


@dataclass(frozen=True)
class PassRule:
    """A parsed pass rule; ``text`` is how the user wrote it."""

    kind: str
    value: float = 0.0
    text: str = "all"

    def required(self, attempts: int) -> int:
        """How many of ``attempts`` must pass."""
        if self.kind == "all":
            return attempts
        if self.kind == "majority":
            return attempts // 2 + 1
        if self.kind == "any":
            return 1
        if self.kind == "rate":
            return max(1, math.ceil(self.value * attempts - 1e-9))
        return int(self.value)

    def verdict(self, passed: int, failed: int, attempts: int) -> bool | None:
        """``True``/``False`` once settled by the attempts so far, ``None`` while it is open."""
        need = self.required(attempts)
        if passed >= need:
            return True
        if passed + (attempts - passed - failed) < need:
            return False
        return None


def parse_pass_rule(text: object, *, repeat: int = 1) -> PassRule:
    """Parse and check a pass rule against the number of attempts; ``ValueError`` if invalid."""
    if not isinstance(text, str):
        raise ValueError(f"invalid pass_rule {text!r}: must be one of {_FORMS}")
    rule = text.strip()
    if rule in ("all", "majority", "any"):
        return PassRule(rule, text=rule)
    kind, _, raw = rule.partition(":")
    if kind == "rate":
        try:
            value = float(raw)
        except ValueError:
            value = -1.0
        if not 0 < value <= 1:
            raise ValueError(f"invalid pass_rule {text!r}: a rate must be in (0, 1], e.g. rate:0.8")
        return PassRule("rate", value, rule)
    if kind == "min":
        if not raw.isdigit() or int(raw) < 1:
            raise ValueError(
                f"invalid pass_rule {text!r}: min needs a whole number >= 1, e.g. min:3"
            )
        if int(raw) > repeat:
            raise ValueError(
                f"invalid pass_rule {text!r}: needs {raw} passing attempts but repeat={repeat}"
            )
        return PassRule("min", float(raw), rule)
    raise ValueError(f"invalid pass_rule {text!r}: must be one of {_FORMS}")
