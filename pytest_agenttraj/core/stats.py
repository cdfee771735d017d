"""Statistics for nondeterministic agents: how sure a pass rate is, and whether two runs differ.

Pure standard library. Pass counts: the Wilson score interval of a pass rate, the unbiased
estimators pass@k (at least one of k attempts passes) and pass^k (all k pass) from n attempts
with c passes, Fisher's exact test for a fall in the pass count. Graded scores: the mean with a
Student t interval, and a one-sided Mann-Whitney U test (exact for small samples, a normal
approximation with tie correction beyond). Every function checks its input and raises
``ValueError`` saying which argument is wrong.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist, fmean, stdev

__all__ = [
    "Interval",
    "PassStats",
    "fisher_exact_less",
    "mann_whitney_less",
    "mean_interval",
    "pass_at_k",
    "pass_hat_k",
    "pass_stats",
    "rate_text",
    "t_quantile",
    "wilson_interval",
]

_EXACT_MANN_WHITNEY = 400
"""Largest n1 * n2 for which the Mann-Whitney p-value is counted exactly."""


@dataclass(frozen=True, slots=True)
class Interval:
    """A two-sided interval ``[low, high]`` at ``confidence``."""

    low: float
    high: float
    confidence: float


def _check_counts(passed: int, attempts: int) -> None:
    if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 0:
        raise ValueError(f"invalid attempts {attempts!r}: must be a whole number >= 0")
    if isinstance(passed, bool) or not isinstance(passed, int) or not 0 <= passed <= attempts:
        raise ValueError(f"invalid passed {passed!r}: must be a whole number in 0..{attempts}")


def _check_confidence(confidence: float) -> None:
    if not isinstance(confidence, int | float) or not 0 < confidence < 1:
        raise ValueError(f"invalid confidence {confidence!r}: must be in (0, 1), e.g. 0.95")


def wilson_interval(passed: int, attempts: int, confidence: float = 0.95) -> Interval:
    """The Wilson score interval of the pass rate ``passed / attempts``.

    Unlike the normal (Wald) interval it stays inside [0, 1] and is not empty at 0 or n passes;
    with no attempts it is the whole of [0, 1].

    >>> i = wilson_interval(4, 5)
    >>> round(i.low, 3), round(i.high, 3)
    (0.376, 0.964)
    """
    _check_counts(passed, attempts)
    _check_confidence(confidence)
    if attempts == 0:
        return Interval(0.0, 1.0, confidence)
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    rate = passed / attempts
    z2n = z * z / attempts
    centre = (rate + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(rate * (1 - rate) / attempts + z2n / (4 * attempts)) / (1 + z2n)
    low = 0.0 if passed == 0 else max(0.0, centre - half)
    high = 1.0 if passed == attempts else min(1.0, centre + half)
    return Interval(low, high, confidence)


def _check_k(k: int, attempts: int) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= attempts:
        raise ValueError(f"invalid k {k!r}: must be a whole number in 1..{attempts} (the attempts)")


def pass_at_k(passed: int, attempts: int, k: int) -> float:
    """Unbiased pass@k: the chance that at least one of k attempts drawn without replacement
    from the n made passes, ``1 - C(n - c, k) / C(n, k)``.

    >>> round(pass_at_k(1, 5, 1), 6), pass_at_k(1, 5, 5)
    (0.2, 1.0)
    """
    _check_counts(passed, attempts)
    _check_k(k, attempts)
    return 1.0 - math.comb(attempts - passed, k) / math.comb(attempts, k)


def pass_hat_k(passed: int, attempts: int, k: int) -> float:
    """Unbiased pass^k: the chance that all of k attempts drawn without replacement pass,
    ``C(c, k) / C(n, k)``.

    >>> pass_hat_k(4, 5, 1), pass_hat_k(4, 5, 4), pass_hat_k(4, 5, 5)
    (0.8, 0.2, 0.0)
    """
    _check_counts(passed, attempts)
    _check_k(k, attempts)
    return math.comb(passed, k) / math.comb(attempts, k)


@dataclass(frozen=True, slots=True)
class PassStats:
    """What n attempts with c passes say: the rate, its interval, pass^k and pass@k per k."""

    passed: int
    attempts: int
    interval: Interval
    pass_hat: tuple[float, ...]
    """pass^k for k = 1..attempts."""
    pass_at: tuple[float, ...]
    """pass@k for k = 1..attempts."""

    @property
    def rate(self) -> float:
        return self.passed / self.attempts if self.attempts else 0.0

    def as_json(self) -> dict[str, object]:
        """The report's fields: ``pass_rate_interval``, ``pass_hat_k`` and ``pass_at_k`` (keys
        are k as text, values rounded to 6 places), ``confidence``."""
        return {
            "pass_rate_interval": [round(self.interval.low, 6), round(self.interval.high, 6)],
            "confidence": self.interval.confidence,
            "pass_hat_k": {str(k): round(v, 6) for k, v in enumerate(self.pass_hat, 1)},
            "pass_at_k": {str(k): round(v, 6) for k, v in enumerate(self.pass_at, 1)},
        }

    def text(self) -> str:
        """``4/5 passed (80%, 95% CI 37.6-96.4%)``."""
        return rate_text(self.passed, self.attempts, self.interval)


def rate_text(passed: int, attempts: int, interval: Interval) -> str:
    """``4/5 passed (80%, 95% CI 37.6-96.4%)``: a pass count with its interval."""
    rate = passed / attempts if attempts else 0.0
    return (
        f"{passed}/{attempts} passed ({rate * 100:.0f}%, "
        f"{round(interval.confidence * 100, 6):g}% CI "
        f"{interval.low * 100:.1f}-{interval.high * 100:.1f}%)"
    )


def pass_stats(passed: int, attempts: int, confidence: float = 0.95) -> PassStats:
    """Every pass-count statistic of ``passed`` of ``attempts``.

    >>> pass_stats(4, 5).text()
    '4/5 passed (80%, 95% CI 37.6-96.4%)'
    """
    interval = wilson_interval(passed, attempts, confidence)
    ks = range(1, attempts + 1)
    return PassStats(
        passed,
        attempts,
        interval,
        tuple(pass_hat_k(passed, attempts, k) for k in ks),
        tuple(pass_at_k(passed, attempts, k) for k in ks),
    )


def t_quantile(probability: float, df: int) -> float:
    """The quantile of Student's t distribution with ``df`` degrees of freedom, found by
    bisection on its distribution function (the regularised incomplete beta function)."""
    if not 0 < probability < 1:
        raise ValueError(f"invalid probability {probability!r}: must be in (0, 1)")
    if isinstance(df, bool) or not isinstance(df, int) or df < 1:
        raise ValueError(f"invalid df {df!r}: must be a whole number >= 1")
    if probability < 0.5:
        return -t_quantile(1 - probability, df)
    low, high = 0.0, 1.0
    while _t_cdf(high, df) < probability:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        if _t_cdf(middle, df) < probability:
            low = middle
        else:
            high = middle
        if high - low < 1e-12 * max(1.0, high):
            break
    return (low + high) / 2


def _t_cdf(t: float, df: int) -> float:
    x = df / (df + t * t)
    tail = 0.5 * _incomplete_beta(df / 2, 0.5, x)
    return 1 - tail if t >= 0 else tail


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b), by its continued fraction."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x > (a + 1) / (a + b + 2):
        return 1.0 - _incomplete_beta(b, a, 1 - x)
    return front * _beta_fraction(a, b, x) / a


def _beta_fraction(a: float, b: float, x: float) -> float:
    """Lentz's evaluation of the incomplete beta function's continued fraction."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 500):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return result


def mean_interval(scores: Sequence[float], confidence: float = 0.95) -> Interval:
    """The mean of graded ``scores`` with a Student t interval. One score says nothing about
    the spread, so its interval is the whole score range [0, 1] (widened to hold the score)."""
    _check_confidence(confidence)
    values = [float(s) for s in scores]
    if not values:
        raise ValueError("no scores: a mean needs at least one")
    if any(not math.isfinite(v) for v in values):
        raise ValueError(f"invalid scores {values!r}: every score must be a finite number")
    if len(values) == 1:
        return Interval(min(0.0, values[0]), max(1.0, values[0]), confidence)
    mean = fmean(values)
    half = t_quantile(1 - (1 - confidence) / 2, len(values) - 1) * stdev(values)
    half /= math.sqrt(len(values))
    return Interval(mean - half, mean + half, confidence)


def fisher_exact_less(
    passed_before: int, attempts_before: int, passed_now: int, attempts_now: int
) -> float:
    """One-sided Fisher exact test: the p-value that the pass rate now is *lower* than before,
    given the pass counts (the chance, with the margins fixed, of ``passed_now`` or fewer passes
    now if both runs had the same rate).

    >>> round(fisher_exact_less(5, 5, 4, 5), 3), round(fisher_exact_less(5, 5, 1, 10), 4)
    (0.5, 0.002)
    """
    _check_counts(passed_before, attempts_before)
    _check_counts(passed_now, attempts_now)
    total_passed = passed_before + passed_now
    total = attempts_before + attempts_now
    if total == 0:
        return 1.0
    denominator = math.comb(total, total_passed)
    low = max(0, total_passed - attempts_before)
    tail = sum(
        math.comb(attempts_now, x) * math.comb(attempts_before, total_passed - x)
        for x in range(low, passed_now + 1)
    )
    return min(1.0, tail / denominator)


def mann_whitney_less(before: Sequence[float], now: Sequence[float]) -> float:
    """One-sided Mann-Whitney U test: the p-value that scores ``now`` tend to be *lower* than
    ``before``. Exact (counting every assignment of the pooled ranks) while
    ``len(before) * len(now) <= 400``, else the normal approximation with tie correction and a
    continuity correction."""
    first, second = [float(v) for v in before], [float(v) for v in now]
    if not first or not second:
        raise ValueError("a Mann-Whitney test needs scores on both sides")
    pooled = sorted(first + second)
    ranks = _ranks(pooled)
    u_now = sum(ranks[v] for v in second) - len(second) * (len(second) + 1) / 2
    if len(first) * len(second) <= _EXACT_MANN_WHITNEY:
        return _exact_u_less(tuple(sorted(ranks[v] for v in pooled)), len(second), u_now)
    n1, n2 = len(first), len(second)
    n = n1 + n2
    counts: dict[float, int] = {}
    for value in pooled:
        counts[value] = counts.get(value, 0) + 1
    ties = sum(t**3 - t for t in counts.values())
    variance = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    if variance <= 0:
        return 1.0
    z = (u_now - n1 * n2 / 2 + 0.5) / math.sqrt(variance)
    return min(1.0, NormalDist().cdf(z))


def _ranks(pooled: Sequence[float]) -> dict[float, float]:
    """Mid-ranks (1-based) of the sorted ``pooled`` values."""
    ranks: dict[float, float] = {}
    start = 0
    while start < len(pooled):
        end = start
        while end + 1 < len(pooled) and pooled[end + 1] == pooled[start]:
            end += 1
        ranks[pooled[start]] = (start + end + 2) / 2
        start = end + 1
    return ranks


@lru_cache(maxsize=64)
def _exact_u_less(ranks: tuple[float, ...], size: int, observed: float) -> float:
    """P(U <= observed) over every choice of ``size`` of the pooled ``ranks`` (ties kept)."""
    # counts[j] maps a rank sum of j chosen ranks (doubled, so mid-ranks stay whole) to a count.
    counts: list[dict[int, int]] = [{0: 1}] + [{} for _ in range(size)]
    for rank in ranks:
        doubled = round(rank * 2)
        for chosen in range(min(size, len(ranks)) - 1, -1, -1):
            for total, ways in counts[chosen].items():
                bucket = counts[chosen + 1]
                bucket[total + doubled] = bucket.get(total + doubled, 0) + ways
    offset = size * (size + 1)  # doubled minimum rank sum
    limit = round(observed * 2) + offset
    every = sum(counts[size].values())
    at_most = sum(ways for total, ways in counts[size].items() if total <= limit)
    return at_most / every
