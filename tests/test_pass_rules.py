"""Pass rules: parsing, how many attempts each needs, and verdicts settled early."""

from __future__ import annotations

import itertools
import re

import pytest

from pytest_agenttraj.plugin.pass_rules import PassRule, parse_pass_rule

RULES = ["all", "majority", "any", "rate:0.8", "rate:0.5", "rate:0.01", "rate:1", "min:1", "min:3"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("all", PassRule("all", text="all")),
        (" majority ", PassRule("majority", text="majority")),
        ("any", PassRule("any", text="any")),
        ("rate:0.8", PassRule("rate", 0.8, "rate:0.8")),
        ("rate:1", PassRule("rate", 1.0, "rate:1")),
        ("min:3", PassRule("min", 3.0, "min:3")),
    ],
)
def test_valid_rules_keep_how_they_were_written(text: str, expected: PassRule) -> None:
    assert parse_pass_rule(text, repeat=5) == expected


FORMS = (
    "must be one of 'all', 'majority', 'any', 'rate:<0..1>', 'min:<count>', 'lower:<0..1>' "
    "or 'pass^<k>:<0..1>'"
)
PASS_HAT = "pass^ needs a whole k >= 1 and a share in (0, 1], e.g. pass^3:0.5"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (3, f"invalid pass_rule 3: {FORMS}"),
        ("most", f"invalid pass_rule 'most': {FORMS}"),
        ("rate:0", "invalid pass_rule 'rate:0': a rate must be in (0, 1], e.g. rate:0.8"),
        ("rate:1.5", "invalid pass_rule 'rate:1.5': a rate must be in (0, 1], e.g. rate:0.8"),
        ("rate:high", "invalid pass_rule 'rate:high': a rate must be in (0, 1], e.g. rate:0.8"),
        ("min:0", "invalid pass_rule 'min:0': min needs a whole number >= 1, e.g. min:3"),
        ("min:-1", "invalid pass_rule 'min:-1': min needs a whole number >= 1, e.g. min:3"),
        ("min:4", "invalid pass_rule 'min:4': needs 4 passing attempts but repeat=3"),
        ("pass^0:0.5", f"invalid pass_rule 'pass^0:0.5': {PASS_HAT}"),
        ("pass^2", f"invalid pass_rule 'pass^2': {PASS_HAT}"),
        ("pass^k:0.5", f"invalid pass_rule 'pass^k:0.5': {PASS_HAT}"),
        ("pass^2:1.5", f"invalid pass_rule 'pass^2:1.5': {PASS_HAT}"),
        (
            "pass^4:0.5",
            "invalid pass_rule 'pass^4:0.5': pass^4 needs at least 4 attempts but repeat=3",
        ),
    ],
)
def test_invalid_rules_say_what_is_allowed(text: object, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        parse_pass_rule(text, repeat=3)


@pytest.mark.parametrize(
    ("text", "attempts", "required"),
    [
        ("all", 5, 5),
        ("majority", 5, 3),
        ("majority", 4, 3),
        ("majority", 1, 1),
        ("any", 5, 1),
        ("rate:0.8", 5, 4),
        ("rate:0.8", 10, 8),
        ("rate:0.5", 3, 2),
        ("rate:0.01", 5, 1),
        ("rate:1", 7, 7),
        ("min:3", 5, 3),
    ],
)
def test_required(text: str, attempts: int, required: int) -> None:
    assert parse_pass_rule(text, repeat=attempts).required(attempts) == required


@pytest.mark.parametrize(
    ("text", "passed", "failed", "verdict"),
    [
        ("all", 0, 1, False),  # the first failure settles it
        ("all", 4, 0, None),
        ("all", 5, 0, True),
        ("any", 1, 0, True),  # the first pass settles it
        ("any", 0, 4, None),
        ("any", 0, 5, False),
        ("majority", 3, 0, True),
        ("majority", 0, 3, False),
        ("majority", 2, 2, None),
        ("rate:0.8", 0, 2, False),  # 4 of 5 needed, at most 3 left
        ("rate:0.8", 3, 1, None),
        ("rate:0.8", 4, 0, True),
        ("min:3", 3, 0, True),
        ("min:3", 2, 2, None),
        ("min:3", 0, 3, False),
    ],
)
def test_verdict_settles_as_soon_as_it_cannot_change(
    text: str, passed: int, failed: int, verdict: bool | None
) -> None:
    assert parse_pass_rule(text, repeat=5).verdict(passed, failed, 5) is verdict


def test_a_single_attempt_is_the_test_itself() -> None:
    rule = parse_pass_rule("all")
    assert (rule.verdict(0, 0, 1), rule.verdict(1, 0, 1), rule.verdict(0, 1, 1)) == (
        None,
        True,
        False,
    )


@pytest.mark.parametrize("text", RULES)
def test_verdict_is_open_exactly_while_the_remaining_attempts_could_change_it(text: str) -> None:
    for repeat in range(1, 7):
        try:
            rule = parse_pass_rule(text, repeat=repeat)
        except ValueError:
            continue  # min:3 with fewer attempts
        for passed, failed in itertools.product(range(repeat + 1), repeat=2):
            if passed + failed > repeat:
                continue
            left = repeat - passed - failed
            finals = {passed + extra >= rule.required(repeat) for extra in range(left + 1)}
            expected = finals.pop() if len(finals) == 1 else None
            assert rule.verdict(passed, failed, repeat) is expected, (repeat, passed, failed)


@pytest.mark.parametrize("text", RULES)
def test_stopping_at_the_first_settled_verdict_never_changes_the_outcome(text: str) -> None:
    repeat = 5
    rule = parse_pass_rule(text, repeat=repeat)
    for outcomes in itertools.product((True, False), repeat=repeat):
        final = sum(outcomes) >= rule.required(repeat)
        passed = failed = 0
        for outcome in outcomes:
            passed, failed = passed + outcome, failed + (not outcome)
            settled = rule.verdict(passed, failed, repeat)
            if settled is not None:
                break
        assert settled is final, outcomes


def _brute_pass_hat(passed: int, attempts: int, k: int) -> float:
    """pass^k by counting: the share of k-subsets of the attempts in which every attempt passed."""
    outcomes = [True] * passed + [False] * (attempts - passed)
    subsets = list(itertools.combinations(outcomes, k))
    return sum(all(s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("attempts", [3, 5, 8])
@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("share", [0.2, 0.5, 0.9, 1.0])
def test_pass_hat_rule_needs_the_fewest_passes_whose_estimate_reaches_the_share(
    attempts: int, k: int, share: float
) -> None:
    rule = parse_pass_rule(f"pass^{k}:{share}", repeat=attempts)
    assert (rule.kind, rule.k, rule.value, rule.stops_early) == ("pass^", k, share, False)
    need = rule.required(attempts)
    assert _brute_pass_hat(need, attempts, k) >= share - 1e-12
    assert need == 0 or _brute_pass_hat(need - 1, attempts, k) < share
    # an estimate from every attempt: never settled while attempts are left
    assert rule.verdict(attempts - 1, 0, attempts) is None
    assert rule.verdict(need, attempts - need, attempts) is True
