"""CI gating, as a pytest plugin the main plugin registers (``PLUGINS``): baseline comparison
(``--trajectory-baseline``), pass-rate thresholds (``--trajectory-min-pass-rate``), per-result
JUnit XML properties and the GitHub Actions job summary. Each reads the session's results; none
is imported by another layer."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..plugin import SESSION_KEY
from ..plugin.registration import module_dir

if TYPE_CHECKING:
    from ..plugin.session import TrajectorySession
    from .baseline_gate import BaselineGate
    from .pass_rate import Threshold

__all__ = ["INI", "OPTION", "STEP_SUMMARY_ENV"]

# The gates themselves load only in runs that use them: pytest imports this module in every run.
OPTION = "--trajectory-min-pass-rate"
INI = "trajectory_min_pass_rate"
STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"

_PLUGINS: pytest.StashKey[list[object]] = pytest.StashKey()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("agenttraj", "agent trajectories (pytest-agenttraj)")
    group.addoption(
        "--trajectory-baseline",
        dest="trajectory_baseline",
        default=None,
        metavar="PATH",
        help="compare results with an earlier --trajectory-report file and fail the session "
        "on regressions",
    )
    group.addoption(
        "--trajectory-tolerance",
        dest="trajectory_tolerance",
        default=None,
        metavar="DELTA",
        help="how far a graded score or pass rate may fall before it counts as a regression "
        "(default: 0)",
    )
    group.addoption(
        "--trajectory-allow-vanished",
        dest="trajectory_allow_vanished",
        action="store_true",
        default=False,
        help="with --trajectory-baseline: a result that passed in the baseline and is gone "
        "does not fail the session",
    )
    group.addoption(
        "--trajectory-allow-new-failures",
        dest="trajectory_allow_new_failures",
        action="store_true",
        default=False,
        help="with --trajectory-baseline: a failing result the baseline does not have does not "
        "fail the session",
    )
    group.addoption(
        "--trajectory-allow-changed-settings",
        dest="trajectory_allow_changed_settings",
        action="store_true",
        default=False,
        help="with --trajectory-baseline: a result judged under other settings than the "
        "baseline's (mode, args rules, matchers, usage rules, judge, pass rule) is compared "
        "anyway, instead of failing the session as not comparable",
    )
    group.addoption(
        "--trajectory-significance",
        dest="trajectory_significance",
        default=None,
        metavar="ALPHA",
        help="with --trajectory-baseline: a repeated result's pass rate (or graded score) that "
        "fell counts as a regression only when the fall is significant at ALPHA (Fisher exact "
        "or Mann-Whitney, one-sided; default 0.05); otherwise it is changed, not significant",
    )
    group.addoption(
        OPTION,
        dest="trajectory_min_pass_rate",
        action="append",
        default=None,
        metavar="[GROUP=][lower:]RATE",
        help="fail the session when less than RATE (0..1) of the trajectory evaluations pass; "
        "GROUP=RATE for the tests marked GROUP, or of a parametrized family when GROUP is "
        "path::test_name; lower:RATE gates on the Wilson lower bound of the pass rate "
        "(repeatable; errors count as failed, skips against the rate)",
    )
    parser.addini(
        INI,
        "minimum pass rates, one [GROUP=][lower:]RATE per line (see --trajectory-min-pass-rate)",
        type="linelist",
        default=[],
    )


def _tolerance(config: pytest.Config) -> float:
    raw = config.getoption("trajectory_tolerance", default=None)
    if raw is None:
        return 0.0
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise pytest.UsageError(
            f"invalid --trajectory-tolerance {raw!r}: must be a number >= 0 (e.g. 0.05)"
        )
    return value


def _alpha(config: pytest.Config) -> float:
    raw = config.getoption("trajectory_significance", default=None)
    if raw is None:
        return 0.05
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value < 1:
        raise pytest.UsageError(
            f"invalid --trajectory-significance {raw!r}: must be in (0, 1), e.g. 0.05"
        )
    return value


def _thresholds(config: pytest.Config, session: TrajectorySession) -> list[Threshold]:
    """The pass-rate thresholds set by option or ini (their groups' tests tagged, on workers
    too); the gate's module loads only when there are some."""
    values = config.getoption("trajectory_min_pass_rate", default=None)
    where = OPTION
    if not values:
        values, where = config.getini(INI), f"ini {INI}"
    if not values:
        return []
    from .pass_rate import parse_thresholds

    thresholds = parse_thresholds(list(values), where=where, confidence=session.settings.confidence)
    session.tag_tests([t.group for t in thresholds if t.group is not None and not t.family])
    return thresholds


@pytest.hookimpl(trylast=True)  # after the main plugin has made the session
def pytest_configure(config: pytest.Config) -> None:
    session = config.stash[SESSION_KEY]
    tolerance = _tolerance(config)
    alpha = _alpha(config)
    thresholds = _thresholds(config, session)
    if session.is_worker:
        return
    plugins: list[tuple[object, str]] = []
    baseline = config.getoption("trajectory_baseline", default=None)
    gate: BaselineGate | None = None
    if baseline:
        from .baseline_gate import BaselineGate

        gate = BaselineGate(
            Path(config.invocation_params.dir, baseline),
            tolerance,
            session,
            allow_new_failures=bool(config.getoption("trajectory_allow_new_failures", False)),
            allow_vanished=bool(config.getoption("trajectory_allow_vanished", False)),
            allow_changed_settings=bool(
                config.getoption("trajectory_allow_changed_settings", False)
            ),
            alpha=alpha,
        )
        plugins.append((gate, "agenttraj-baseline"))
    if thresholds:
        from .pass_rate import PassRateGate

        plugins.append((PassRateGate(thresholds, session), "agenttraj-pass-rate"))
    if config.getoption("xmlpath", default=None):
        from .junit import JunitProperties

        plugins.append((JunitProperties(session, gate), "agenttraj-junit"))
    html_path = config.getoption("trajectory_html", default=None)
    if html_path:
        from .html_report import HtmlReport

        page = HtmlReport(Path(config.invocation_params.dir, html_path), session, gate)
        plugins.append((page, "agenttraj-html"))
    summary_path = os.environ.get(STEP_SUMMARY_ENV)
    if summary_path:
        from .step_summary import StepSummary

        path = Path(config.invocation_params.dir, summary_path)
        plugins.append((StepSummary(config, path, session, gate), "agenttraj-step-summary"))
    for plugin, name in plugins:
        config.pluginmanager.register(plugin, name)
    config.stash[_PLUGINS] = [plugin for plugin, _ in plugins]


def pytest_unconfigure(config: pytest.Config) -> None:
    for plugin in config.stash.get(_PLUGINS, []):
        config.pluginmanager.unregister(plugin)
    if _PLUGINS in config.stash:
        del config.stash[_PLUGINS]


__dir__ = module_dir(globals())  # see .registration
