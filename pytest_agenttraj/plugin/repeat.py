"""Repeated runs of a nondeterministic test: ``@pytest.mark.trajectory(repeat=N, pass_rule=...)``.

One run of an agent is weak evidence, so a test marked with ``repeat=N`` runs up to N times and is
judged by its pass rule (``all``, ``majority``, ``any``, ``rate:0.8``, ``min:3``; see
:mod:`pytest_agenttraj.plugin.pass_rules`).

How it runs:

* Each *attempt* is pytest's whole protocol (setup, call, teardown), so function-scoped fixtures
  are fresh per attempt. Between attempts only the test's own fixtures are torn down: class,
  module and session fixtures are kept (teardown is told that the next item is the test's parent).
  The attempt that ends the runs, known from its setup and call, tears down as far as the real
  next test needs, as pytest does; if a teardown error settles the verdict instead, that teardown
  is finished afterwards.
* An attempt *passes* when its test passes: setup, call and teardown all pass. A failure in the
  call is a failed attempt, an error in setup or teardown an errored one; both count against the
  rule. Runs stop as soon as the verdict is settled (``PassRule.verdict``), except under a
  ``lower:`` or ``pass^`` rule or ``--trajectory-stats``, where every attempt runs.
* A *skipped* attempt (``pytest.skip``, a skip marker, an ``xfail`` that failed) ends the runs and
  the test is reported skipped: a test skipped in its first attempt runs once.
* pytest is told about the test once: the reports of one attempt are logged. For a passing verdict
  that is the last passing attempt (so the test passes even if other attempts failed); for a
  failing verdict the last attempt that did not pass, with an ``agenttraj: repeat`` section such as
  ``2 of 5 attempts passed; pass_rule majority needs 3``.

What the report gets: the last logged report (teardown) carries, in ``user_properties``, one
``("agenttraj_repeat", json)`` entry with the attempt counts (:func:`repeat_info`) and one
``("agenttraj", json)`` entry per evaluation identity, *not* per attempt (:func:`aggregate`):
``attempts``, ``evaluated_attempts``, ``passed_attempts``, ``pass_rate``, ``attempt_passed``,
``repeat``, ``pass_rule`` and the statistics of its attempts (``pass_rate_interval``,
``confidence``, ``pass_hat_k``, ``pass_at_k``: :func:`pytest_agenttraj.core.stats.pass_stats`)
are added, and ``passed`` is the evaluation's own verdict: its pass rate reaches the share the
rule asks of the planned attempts (``required / repeat``; under a ``lower:`` rule, the Wilson
lower bound of its rate reaches the rule's share; under ``pass^k:share``, its pass^k estimate
does). Under
pytest-xdist a test runs on one worker, so the records ride on that one logged report, and
``pytest_agenttraj_record`` sees each aggregated record once. ``pytest_agenttraj_evaluated`` is
still called live for every attempt's evaluation; its record then has an ``attempt`` number.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

import pytest
from _pytest.runner import call_and_report, show_test_item

from .pass_rules import PassRule
from .session import REPEAT_PROPERTY

__all__ = [
    "REPEAT_PROPERTY",
    "AttemptRecorder",
    "aggregate",
    "attempt_outcome",
    "repeat_info",
    "repeat_line",
    "repeat_lines",
    "run_repeated",
    "stats_line",
]

_SECTION = "agenttraj: repeat"
_DEFAULT_ROWS = 20


class AttemptRecorder(Protocol):
    """What the runner needs from the session: evaluations gathered per attempt."""

    def begin_attempt(self, item: pytest.Item, number: int | None) -> None:
        """Start gathering a fresh attempt's evaluations (``None``: the closing teardown)."""

    def end_attempt(self, item: pytest.Item) -> list[dict[str, Any]]:
        """The records made since ``begin_attempt``, in order."""

    def end_repeat(self, item: pytest.Item) -> None:
        """The runs are over: reports are the session's again."""

    def attach(self, report: pytest.TestReport, records: Sequence[Mapping[str, Any]]) -> None:
        """Put records on a report, as the session does for a test that runs once."""

    def conflict(self, item: pytest.Item) -> int | None:
        """The attempt whose trajectory disagreed with a reference file an earlier attempt
        settled under ``--trajectory-update``, if one did."""


def attempt_outcome(reports: Sequence[pytest.TestReport]) -> str:
    """``passed``, ``failed`` (the call failed), ``error`` (setup or teardown) or ``skipped``."""
    for report in reports:
        if report.failed:
            return "failed" if report.when == "call" else "error"
    if any(report.skipped for report in reports):
        return "skipped"
    return "passed"


@dataclass(frozen=True)
class _Attempt:
    number: int
    reports: list[pytest.TestReport]
    records: list[dict[str, Any]]
    outcome: str


def run_repeated(
    item: pytest.Item,
    nextitem: pytest.Item | None,
    *,
    repeat: int,
    rule: PassRule,
    recorder: AttemptRecorder,
    full: bool = False,
) -> None:
    """Run ``item`` up to ``repeat`` times and log one set of reports (see the module docstring);
    ``full``: no early stop, every attempt runs unless one is skipped."""
    early = rule.stops_early and not full
    ihook = item.ihook
    ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    own_properties = list(item.user_properties)
    attempts: list[_Attempt] = []
    closing: pytest.TestReport | None = None
    try:
        for number in range(1, repeat + 1):
            item.user_properties[:] = own_properties
            recorder.begin_attempt(item, number)

            def ends(reports: Sequence[pytest.TestReport], number: int = number) -> bool:
                outcome = attempt_outcome(reports)
                return (
                    outcome == "skipped"
                    or number == repeat
                    or (early and _settles(attempts, outcome, rule, repeat))
                )

            reports, torn_down = _run_attempt(item, nextitem, ends)
            records = recorder.end_attempt(item)
            attempts.append(_Attempt(number, reports, records, attempt_outcome(reports)))
            settled = early and _verdict(attempts, rule, repeat) is not None
            stop = attempts[-1].outcome == "skipped" or settled
            if stop or item.session.shouldstop or item.session.shouldfail:
                if not torn_down:
                    closing = _close(item, nextitem, recorder)
                break
    finally:
        recorder.end_repeat(item)

    info = repeat_info(item.nodeid, [a.outcome for a in attempts], repeat=repeat, rule=rule)
    conflict = recorder.conflict(item)
    if conflict is not None:  # the attempts must agree on what the file says, whatever the rule
        info["verdict"], info["reference_conflict"] = "failed", conflict
    shown = _shown(attempts, info["verdict"])
    info["shown_attempt"] = shown.number
    logged = list(shown.reports)
    properties = list(logged[-1].user_properties)
    if closing is not None:
        logged.append(closing)
    if info["verdict"] == "failed":
        failed = next(report for report in logged if report.failed)
        failed.sections.append((_SECTION, _failure_text(info, attempts)))
    last = logged[-1]
    last.user_properties = [*properties, (REPEAT_PROPERTY, json.dumps(info))]
    skipped = [a.number for a in attempts if a.outcome == "skipped"]
    records = aggregate(
        [a.records for a in attempts],
        shown=shown.number - 1,
        rule=rule,
        repeat=repeat,
        test_outcome=info["verdict"],
        skipped_attempt=skipped[0] - 1 if skipped else None,
    )
    recorder.attach(last, records)
    if records:
        ihook.pytest_agenttraj_repeated(item=item, records=records)
    for report in logged:
        ihook.pytest_runtest_logreport(report=report)
    ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)


def _show_test_item(item: pytest.Item) -> None:
    """The test's line of ``--setup-show``, as pytest's own run prints it (pytest 9.1 added the
    ``add_space`` keyword; earlier versions take the item alone)."""
    show: Callable[..., None] = show_test_item
    if "add_space" in inspect.signature(show_test_item).parameters:
        show(item, add_space=True)
    else:
        show(item)


def _run_attempt(
    item: pytest.Item,
    nextitem: pytest.Item | None,
    ends: Callable[[Sequence[pytest.TestReport]], bool],
) -> tuple[list[pytest.TestReport], bool]:
    """One attempt: pytest's ``runtestprotocol`` without logging, except where teardown stops.

    Teardown goes as far as the real next test needs when ``ends`` says, from the setup and call
    reports, that this attempt ends the runs; otherwise it stops at the test's parent, so that
    only the test's own fixtures are torn down (``SetupState.teardown_exact`` asks the "next item"
    only for its chain of nodes, and the parent's chain keeps every higher scope). Returns the
    reports and whether teardown went all the way.
    """
    if hasattr(item, "_request") and not item._request:  # a function item run again
        item._initrequest()  # type: ignore[attr-defined]
    try:
        reports = [call_and_report(item, "setup", log=False)]
        if reports[0].passed:
            if item.config.getoption("setupshow", False):
                _show_test_item(item)
            reports.append(call_and_report(item, "call", log=False))
        last = ends(reports)
        target = nextitem if last else cast("pytest.Item | None", item.parent)
        if item.session.shouldfail or item.session.shouldstop:
            target, last = None, True
        reports.append(call_and_report(item, "teardown", log=False, nextitem=target))
    finally:
        if hasattr(item, "_request"):
            item._request = False
            item.funcargs = None  # type: ignore[attr-defined]
    return reports, last


def _settles(attempts: Sequence[_Attempt], outcome: str, rule: PassRule, repeat: int) -> bool:
    """Whether one more attempt with ``outcome`` settles the verdict."""
    passed = sum(1 for a in attempts if a.outcome == "passed") + (outcome == "passed")
    return rule.verdict(passed, len(attempts) + 1 - passed, repeat) is not None


def _verdict(attempts: Sequence[_Attempt], rule: PassRule, repeat: int) -> bool | None:
    passed = sum(1 for a in attempts if a.outcome == "passed")
    return rule.verdict(passed, len(attempts) - passed, repeat)


def _close(
    item: pytest.Item, nextitem: pytest.Item | None, recorder: AttemptRecorder
) -> pytest.TestReport | None:
    """Finish a teardown that stopped at the parent, when a teardown error settled the verdict
    after all. Returns a failed teardown report if a higher-scoped fixture's teardown failed."""
    recorder.begin_attempt(item, None)
    call = pytest.CallInfo.from_call(
        lambda: item.session._setupstate.teardown_exact(nextitem),
        when="teardown",
        reraise=(pytest.exit.Exception, KeyboardInterrupt),
    )
    report: pytest.TestReport | None = None
    if call.excinfo is not None:
        report = item.ihook.pytest_runtest_makereport(item=item, call=call)
    recorder.end_attempt(item)
    return report


def _shown(attempts: Sequence[_Attempt], verdict: str) -> _Attempt:
    """The attempt whose reports pytest sees: the last one that agrees with the verdict."""
    wanted = {"passed": ("passed",), "skipped": ("skipped",)}.get(verdict, ("failed", "error"))
    for attempt in reversed(attempts):
        if attempt.outcome in wanted:
            return attempt
    return attempts[-1]


def repeat_info(
    nodeid: str, outcomes: Sequence[str], *, repeat: int, rule: PassRule
) -> dict[str, Any]:
    """A repeated test's attempt counts and verdict, builtins only.

    >>> from pytest_agenttraj.plugin.pass_rules import parse_pass_rule
    >>> info = repeat_info("t.py::t", ["passed", "failed", "passed", "passed"], repeat=5,
    ...                    rule=parse_pass_rule("majority", repeat=5))
    >>> info["verdict"], info["passed"], info["required"], info["stopped_early"]
    ('passed', 3, 3, True)
    """
    counts = {name: sum(1 for o in outcomes if o == name) for name in _OUTCOMES}
    if counts["skipped"]:
        verdict = "skipped"
    else:
        settled = rule.verdict(counts["passed"], len(outcomes) - counts["passed"], repeat)
        if settled is None:  # stopped before the verdict was settled (the session is stopping)
            settled = counts["passed"] >= rule.required(len(outcomes))
        verdict = "passed" if settled else "failed"
    return {
        "nodeid": nodeid,
        "repeat": repeat,
        "pass_rule": rule.text,
        "required": rule.required(repeat),
        "attempts": len(outcomes),
        "passed": counts["passed"],
        "failed": counts["failed"],
        "errors": counts["error"],
        "skipped": counts["skipped"],
        "outcomes": list(outcomes),
        "verdict": verdict,
        "stopped_early": len(outcomes) < repeat,
        **_stats(counts["passed"], len(outcomes) - counts["skipped"], rule.confidence),
    }


def _stats(passed: int, attempts: int, confidence: float) -> dict[str, Any]:
    """The statistics fields of ``passed`` of ``attempts`` (none without an attempt)."""
    if attempts < 1:
        return {}
    from ..core.stats import pass_stats

    return pass_stats(passed, attempts, confidence).as_json()


def _graded_stats(scores: Sequence[Any], rule: PassRule) -> dict[str, Any]:
    """``attempt_scores``, ``score_mean`` and ``score_interval`` (a t interval) of a graded
    evaluation's attempts; nothing for verdicts."""
    graded = [s for s in scores if isinstance(s, int | float) and not isinstance(s, bool)]
    if not graded or len(graded) != len(scores):
        return {}
    from ..core.stats import mean_interval

    interval = mean_interval(graded, rule.confidence)
    return {
        "attempt_scores": list(graded),
        "score_mean": round(sum(graded) / len(graded), 6),
        "score_interval": [round(interval.low, 6), round(interval.high, 6)],
    }


def stats_line(info: Mapping[str, Any]) -> str | None:
    """``4/5 passed (80%, 95% CI 37.6-96.4%)`` for a record or repeat info with an interval."""
    interval = info.get("pass_rate_interval")
    if not interval:
        return None
    from ..core.stats import Interval, PassStats

    attempts = int(info["attempts"]) - int(info.get("skipped") or 0)
    passed = int(info.get("passed_attempts", info.get("passed")) or 0)
    confidence = float(info.get("confidence") or 0.95)
    shown = PassStats(passed, attempts, Interval(interval[0], interval[1], confidence), (), ())
    return shown.text()


_OUTCOMES = ("passed", "failed", "error", "skipped")


def repeat_line(info: Mapping[str, Any]) -> str:
    """``2 of 5 attempts passed; pass_rule majority needs 3`` (and what else happened).

    >>> repeat_line({"attempts": 3, "passed": 0, "failed": 2, "errors": 1, "skipped": 0,
    ...              "repeat": 5, "required": 3, "pass_rule": "majority", "verdict": "failed"})
    '0 of 3 attempts passed (2 failed, 1 error); pass_rule majority needs 3 of 5, stopped early'
    """
    attempts, repeat = info["attempts"], info["repeat"]
    if info["verdict"] == "skipped":
        before = attempts - 1
        text = f"skipped in attempt {attempts} of {repeat}"
        if before:
            text += f" ({info['passed']} of {before} earlier attempts passed)"
        return text
    text = f"{info['passed']} of {attempts} attempts passed"
    others = [(info["failed"], "failed"), (info["errors"], "error")]
    details = [f"{n} {word}{'s' if word == 'error' and n != 1 else ''}" for n, word in others if n]
    if details:
        text += f" ({', '.join(details)})"
    text += f"; pass_rule {info['pass_rule']} needs {info['required']}"
    if attempts < repeat:
        text += f" of {repeat}, stopped early"
    return text


def _failure_text(info: Mapping[str, Any], attempts: Sequence[_Attempt]) -> str:
    outcomes = ", ".join(f"{a.number} {a.outcome}" for a in attempts)
    text = f"{repeat_line(info)}\nattempts: {outcomes}; shown: attempt {info['shown_attempt']}"
    stats = stats_line(info)
    if stats is not None:
        text += f"\n{stats}"
    if "reference_conflict" in info:
        text += (
            f"\nattempt {info['reference_conflict']} disagreed with a reference file an earlier "
            "attempt wrote under --trajectory-update: the attempts must agree"
        )
    return text


def repeat_lines(infos: Sequence[Mapping[str, Any]], verbosity: int = 0) -> list[str]:
    """The terminal summary of repeated tests: failed verdicts first, one line each."""
    order = {"failed": 0, "skipped": 1, "passed": 2}
    rows = sorted(infos, key=lambda i: (order.get(str(i.get("verdict")), 3), str(i["nodeid"])))
    shown = rows if verbosity >= 1 else rows[:_DEFAULT_ROWS]
    lines = []
    for info in shown:
        lines.append(f"{str(info['verdict']).upper()} {info['nodeid']}: {repeat_line(info)}")
        stats = stats_line(info) if info["verdict"] != "skipped" else None
        if stats is not None:
            lines.append(f"    {stats}")
    if len(shown) < len(rows):
        lines.append(f"... {len(rows) - len(shown)} more repeated tests (-v shows all)")
    return lines


def aggregate(
    attempt_records: Sequence[Sequence[Mapping[str, Any]]],
    *,
    shown: int,
    rule: PassRule,
    repeat: int,
    test_outcome: str,
    skipped_attempt: int | None = None,
) -> list[dict[str, Any]]:
    """One record per evaluation identity (key, index within an attempt) over all attempts.

    ``attempt_records[n]`` are attempt n's records; ``shown`` is the index of the attempt whose
    reports were logged. An attempt that did not make an evaluation counts as not passing it,
    except the skipped attempt that ended the runs (``skipped_attempt``), which counts only for
    the evaluations it made. ``passed`` is ``passed_attempts / attempts >= required / repeat``:
    the evaluation's own rate against the share the rule asks of the planned attempts (with every
    attempt run that is the rule itself; stopped early, the same share). Fields of one occurrence
    (score, comment, diff, ...) are kept: the shown attempt's if it agrees with ``passed``, else
    the latest that agrees, else the latest.

    >>> from pytest_agenttraj.plugin.pass_rules import parse_pass_rule
    >>> runs = [[{"key": "k", "index": 0, "passed": p, "duration_s": 1.0}] for p in (1, 0, 1)]
    >>> record, = aggregate(runs, shown=2, rule=parse_pass_rule("majority", repeat=3), repeat=3,
    ...                     test_outcome="passed")
    >>> record["passed"], record["passed_attempts"], record["pass_rate"], record["attempt_passed"]
    (True, 2, 0.666667, [True, False, True])
    """
    required = rule.required(repeat)
    found: dict[tuple[str, int], dict[int, Mapping[str, Any]]] = {}
    for number, records in enumerate(attempt_records):
        for record in records:
            identity = (str(record.get("key")), int(record.get("index", 0) or 0))
            found.setdefault(identity, {})[number] = record
    out = []
    for occurrences in found.values():
        counted = [
            n for n in range(len(attempt_records)) if n != skipped_attempt or n in occurrences
        ]
        flags = [bool(occurrences[n].get("passed")) if n in occurrences else None for n in counted]
        passed_attempts = sum(1 for flag in flags if flag)
        if rule.estimated:
            passed = rule.required(len(counted)) <= passed_attempts
        else:
            passed = passed_attempts * repeat >= required * len(counted)
        agreeing = [n for n in occurrences if bool(occurrences[n].get("passed")) == passed]
        chosen = max(agreeing or occurrences)
        if shown in agreeing:
            chosen = shown
        record = {k: v for k, v in occurrences[chosen].items() if k != "attempt"}
        if any(r.get("reference_written") for r in occurrences.values()):
            record["reference_written"] = True  # by an earlier attempt, if not the chosen one
        durations = [float(r.get("duration_s") or 0.0) for r in occurrences.values()]
        record.update(
            passed=passed,
            test_outcome=test_outcome,
            duration_s=round(sum(durations) / len(durations), 6),
            attempts=len(counted),
            evaluated_attempts=len(occurrences),
            passed_attempts=passed_attempts,
            pass_rate=round(passed_attempts / len(counted), 6),
            attempt_passed=flags,
            repeat=repeat,
            pass_rule=rule.text,
            **_stats(passed_attempts, len(counted), rule.confidence),
            **_graded_stats([occurrences[n].get("score") for n in sorted(occurrences)], rule),
        )
        out.append(record)
    return out
