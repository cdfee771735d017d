"""The statistics of repeated runs against brute force and scipy."""

from __future__ import annotations

import itertools
import re
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from pytest_agenttraj.core.stats import (
    fisher_exact_less,
    mann_whitney_less,
    mean_interval,
    pass_at_k,
    pass_hat_k,
    pass_stats,
    t_quantile,
    wilson_interval,
)
from pytest_agenttraj.plugin.results import family_stats

scipy_stats = pytest.importorskip("scipy.stats")


@st.composite
def counts(draw: st.DrawFn, most: int = 12) -> tuple[int, int]:
    attempts = draw(st.integers(1, most))
    return draw(st.integers(0, attempts)), attempts


@given(counts(), st.data())
def test_pass_at_k_is_the_share_of_k_subsets_with_a_pass(found: tuple[int, int], data) -> None:
    passed, attempts = found
    k = data.draw(st.integers(1, attempts))
    outcomes = [True] * passed + [False] * (attempts - passed)
    subsets = list(itertools.combinations(outcomes, k))
    some = Fraction(sum(any(s) for s in subsets), len(subsets))
    every = Fraction(sum(all(s) for s in subsets), len(subsets))
    assert pass_at_k(passed, attempts, k) == pytest.approx(float(some), abs=1e-12)
    assert pass_hat_k(passed, attempts, k) == pytest.approx(float(every), abs=1e-12)


@given(counts())
def test_pass_at_one_and_pass_hat_one_are_the_rate(found: tuple[int, int]) -> None:
    passed, attempts = found
    stats = pass_stats(passed, attempts)
    assert stats.pass_hat[0] == pytest.approx(passed / attempts)
    assert stats.pass_at[0] == pytest.approx(passed / attempts)
    assert list(stats.pass_hat) == sorted(stats.pass_hat, reverse=True)
    assert list(stats.pass_at) == sorted(stats.pass_at)


@given(counts(200), st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_wilson_matches_scipy_and_holds_the_rate(found: tuple[int, int], level: float) -> None:
    passed, attempts = found
    interval = wilson_interval(passed, attempts, level)
    reference = scipy_stats.binomtest(passed, attempts).proportion_ci(level, method="wilson")
    assert interval.low == pytest.approx(reference.low, abs=1e-9)
    assert interval.high == pytest.approx(reference.high, abs=1e-9)
    assert 0 <= interval.low <= passed / attempts <= interval.high <= 1


def test_wilson_of_the_issue() -> None:
    assert pass_stats(4, 5).text() == "4/5 passed (80%, 95% CI 37.6-96.4%)"
    seven = wilson_interval(7, 10)
    assert (round(seven.low, 2), round(seven.high, 2)) == (0.40, 0.89)
    assert pass_stats(5, 5).as_json()["pass_hat_k"] == {str(k): 1.0 for k in range(1, 6)}


@given(counts(15), counts(15))
def test_fisher_matches_scipy_one_sided(before: tuple[int, int], now: tuple[int, int]) -> None:
    (c1, n1), (c2, n2) = before, now
    table = [[c2, n2 - c2], [c1, n1 - c1]]
    expected = scipy_stats.fisher_exact(table, alternative="less").pvalue
    assert fisher_exact_less(c1, n1, c2, n2) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_fisher_of_a_noisy_agent() -> None:
    assert fisher_exact_less(5, 5, 4, 5) == pytest.approx(0.5)
    assert fisher_exact_less(5, 5, 1, 10) < 0.05


scores = st.lists(st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]), min_size=1, max_size=7)


@given(scores, scores)
@settings(max_examples=60, deadline=None)
def test_mann_whitney_matches_a_brute_force_permutation_test(
    before: list[float], now: list[float]
) -> None:
    pooled = before + now
    ranks = scipy_stats.rankdata(pooled)
    observed = sum(ranks[len(before) :])
    subsets = itertools.combinations(range(len(pooled)), len(now))
    sums = [sum(ranks[i] for i in chosen) for chosen in subsets]
    expected = sum(1 for s in sums if s <= observed + 1e-9) / len(sums)
    assert mann_whitney_less(before, now) == pytest.approx(expected, abs=1e-12)


@given(
    st.lists(st.floats(0, 1), min_size=25, max_size=40),
    st.lists(st.floats(0, 1), min_size=25, max_size=40),
)
@settings(max_examples=40)
def test_mann_whitney_large_samples_match_scipy(before: list[float], now: list[float]) -> None:
    expected = scipy_stats.mannwhitneyu(now, before, alternative="less", method="asymptotic")
    assert mann_whitney_less(before, now) == pytest.approx(expected.pvalue, abs=1e-9)


@given(st.integers(1, 60), st.sampled_from([0.6, 0.9, 0.975, 0.995]))
def test_t_quantile_matches_scipy(df: int, probability: float) -> None:
    assert t_quantile(probability, df) == pytest.approx(
        scipy_stats.t.ppf(probability, df), rel=1e-7
    )


@given(st.lists(st.floats(0, 1), min_size=2, max_size=30))
def test_mean_interval_matches_scipy(values: list[float]) -> None:
    interval = mean_interval(values, 0.95)
    mean = sum(values) / len(values)
    spread = scipy_stats.sem(values)
    if spread == 0:
        assert interval.low == pytest.approx(mean)
        assert interval.high == pytest.approx(mean)
        return
    low, high = scipy_stats.t.interval(0.95, len(values) - 1, loc=mean, scale=spread)
    assert interval.low == pytest.approx(low, abs=1e-7)
    assert interval.high == pytest.approx(high, abs=1e-7)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: wilson_interval(6, 5), "invalid passed 6: must be a whole number in 0..5"),
        (lambda: wilson_interval(1, 5, 1.5), "invalid confidence 1.5: must be in (0, 1)"),
        (lambda: pass_at_k(1, 5, 6), "invalid k 6: must be a whole number in 1..5"),
        (lambda: mean_interval([]), "no scores"),
        (lambda: mann_whitney_less([], [1.0]), "a Mann-Whitney test needs scores on both sides"),
    ],
)
def test_bad_input_says_which_argument(call, message: str) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        call()


@given(
    st.lists(
        st.tuples(st.integers(1, 6), st.integers(0, 6), st.floats(0, 1)), min_size=2, max_size=12
    )
)
def test_family_statistics_count_every_attempt_and_average_graded_scores(
    members: list[tuple[int, int, float]],
) -> None:
    records = [
        {
            "nodeid": f"t.py::test_a[{n}]",
            "attempts": runs,
            "passed_attempts": min(ok, runs),
            "score": score,
        }
        for n, (runs, ok, score) in enumerate(members)
    ]
    records.append({"nodeid": "t.py::test_alone", "passed": True, "score": True})
    families = family_stats(records, 0.9)
    assert list(families) == ["t.py::test_a"]
    stats = families["t.py::test_a"]
    attempts = sum(runs for runs, _, _ in members)
    passed = sum(min(ok, runs) for runs, ok, _ in members)
    assert (stats["tests"], stats["attempts"], stats["passed_attempts"]) == (
        len(members),
        attempts,
        passed,
    )
    low, high = scipy_stats.binomtest(passed, attempts).proportion_ci(0.9, method="wilson")
    assert stats["pass_rate_interval"] == pytest.approx([low, high], abs=1e-6)
    scores = [score for _, _, score in members]
    assert stats["score_mean"] == pytest.approx(sum(scores) / len(scores), abs=1e-6)
    spread = scipy_stats.sem(scores)
    if spread > 0:
        low, high = scipy_stats.t.interval(
            0.9, len(scores) - 1, loc=stats["score_mean"], scale=spread
        )
        assert stats["score_interval"] == pytest.approx([low, high], abs=1e-5)
