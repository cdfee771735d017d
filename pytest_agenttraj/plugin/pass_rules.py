"""Pass rules for repeated runs of a nondeterministic agent: how many of N attempts must pass.

``all``, ``majority``, ``any``, ``rate:0.8`` (at least that share), ``min:3`` (at least that
many), ``lower:0.8`` (the Wilson lower bound of the pass rate, at the run's confidence level,
reaches that share) and ``pass^3:0.5`` (the unbiased pass^3 estimate from every attempt, the
chance that 3 attempts in a row all pass, reaches 0.5). A verdict can be settled before every
attempt has run, so runs stop early, except under a ``lower:`` or ``pass^`` rule: its verdict is
an estimate from every attempt.
"""

# No ``from __future__ import annotations``: ``typing.NamedTuple`` compiles each string
# annotation of its fields, and every run defines this module's at start-up.

import math
from typing import NamedTuple

__all__ = ["PassRule", "parse_pass_rule"]

_FORMS = (
    "'all', 'majority', 'any', 'rate:<0..1>', 'min:<count>', 'lower:<0..1>' or 'pass^<k>:<0..1>'"
)
_ESTIMATES = ("lower", "pass^")


class PassRule(NamedTuple):
    """A parsed pass rule; ``text`` is how the user wrote it. A named tuple: the settings of
    every run hold one, and it costs the start-up a fraction of a frozen dataclass."""

    kind: str
    value: float = 0.0
    text: str = "all"
    confidence: float = 0.95
    """The confidence level of a ``lower:`` rule's interval."""
    k: int = 0
    """The k of a ``pass^k`` rule."""

    @property
    def stops_early(self) -> bool:
        """Whether runs may stop once the verdict is settled (not under a ``lower:`` or
        ``pass^`` rule, whose estimate is reported from every attempt)."""
        return self.kind not in _ESTIMATES

    @property
    def estimated(self) -> bool:
        """Whether the verdict is an estimate from the attempts that ran (``lower:``, ``pass^``)
        rather than a share of the planned attempts."""
        return self.kind in _ESTIMATES

    def required(self, attempts: int) -> int:
        """How many of ``attempts`` must pass (``attempts + 1`` when none would do)."""
        if self.kind == "lower":
            return _lowest_passing(self.value, attempts, self.confidence)
        if self.kind == "pass^":
            return _fewest_for_pass_hat(self.k, self.value, attempts)
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
        if not self.stops_early and passed + failed < attempts:
            return None
        need = self.required(attempts)
        if passed >= need:
            return True
        if passed + (attempts - passed - failed) < need:
            return False
        return None


def _lowest_passing(share: float, attempts: int, confidence: float) -> int:
    """The fewest passes of ``attempts`` whose Wilson lower bound reaches ``share``."""
    from ..core.stats import wilson_interval

    for passed in range(attempts + 1):
        if wilson_interval(passed, attempts, confidence).low + 1e-12 >= share:
            return passed
    return attempts + 1


def _fewest_for_pass_hat(k: int, share: float, attempts: int) -> int:
    """The fewest passes of ``attempts`` whose pass^k estimate reaches ``share``."""
    from ..core.stats import pass_hat_k

    if k > attempts:
        return attempts + 1
    for passed in range(attempts + 1):
        if pass_hat_k(passed, attempts, k) + 1e-12 >= share:
            return passed
    return attempts + 1


def _pass_hat_rule(text: str, repeat: int, confidence: float) -> PassRule:
    raw_k, _, raw = text[len("pass^") :].partition(":")
    try:
        share = float(raw)
    except ValueError:
        share = -1.0
    if not raw_k.isdigit() or int(raw_k) < 1 or not 0 < share <= 1:
        raise ValueError(
            f"invalid pass_rule {text!r}: pass^ needs a whole k >= 1 and a share in (0, 1], "
            "e.g. pass^3:0.5"
        )
    k = int(raw_k)
    if k > repeat:
        raise ValueError(
            f"invalid pass_rule {text!r}: pass^{k} needs at least {k} attempts but repeat={repeat}"
        )
    return PassRule("pass^", share, text, confidence, k)


def _lower_rule(text: str, raw: str, repeat: int, confidence: float) -> PassRule:
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value < 1:
        raise ValueError(
            f"invalid pass_rule {text!r}: a lower bound must be in (0, 1), e.g. lower:0.8"
        )
    rule = PassRule("lower", value, text, confidence)
    if rule.required(repeat) > repeat:
        from ..core.stats import wilson_interval

        best = wilson_interval(repeat, repeat, confidence).low
        raise ValueError(
            f"invalid pass_rule {text!r}: even {repeat} of {repeat} passing attempts give a "
            f"lower bound of {best:.3f} at confidence {confidence:g}; raise repeat"
        )
    return rule


def _rate_rule(text: str, raw: str, _repeat: int, confidence: float) -> PassRule:
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value <= 1:
        raise ValueError(f"invalid pass_rule {text!r}: a rate must be in (0, 1], e.g. rate:0.8")
    return PassRule("rate", value, text, confidence)


def _min_rule(text: str, raw: str, repeat: int, confidence: float) -> PassRule:
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"invalid pass_rule {text!r}: min needs a whole number >= 1, e.g. min:3")
    if int(raw) > repeat:
        raise ValueError(
            f"invalid pass_rule {text!r}: needs {raw} passing attempts but repeat={repeat}"
        )
    return PassRule("min", float(raw), text, confidence)


_PARSERS = {"rate": _rate_rule, "min": _min_rule, "lower": _lower_rule}


def parse_pass_rule(text: object, *, repeat: int = 1, confidence: float = 0.95) -> PassRule:
    """Parse and check a pass rule against the number of attempts; ``ValueError`` if invalid.
    ``confidence`` is the level of a ``lower:`` rule's interval."""
    if not isinstance(text, str):
        raise ValueError(f"invalid pass_rule {text!r}: must be one of {_FORMS}")
    rule = text.strip()
    if rule in ("all", "majority", "any"):
        return PassRule(rule, text=rule, confidence=confidence)
    if rule.startswith("pass^"):
        return _pass_hat_rule(rule, repeat, confidence)
    kind, _, raw = rule.partition(":")
    parser = _PARSERS.get(kind)
    if parser is None:
        raise ValueError(f"invalid pass_rule {text!r}: must be one of {_FORMS}")
    return parser(rule, raw, repeat, confidence)
