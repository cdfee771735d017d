"""What LangSmith logging did in one process, added up on the controller, and the summary lines
it prints (at most one warning: the first failure, with what it cost)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["LangSmithStats"]


_COUNTS = (
    "tracked_tests",
    "logged_results",  # feedback entries: a repeated test logs each attempt's
    "logged_evaluations",  # evaluations as the trajectory results count them
    "evaluated_tests",  # tracked tests with an evaluation logged (by us or the test)
    "caller_logged",  # evaluations whose feedback the test logged itself
    "untracked_tests",  # would have been tracked, ran without LangSmith after a failure
    "unlogged_results",  # made in a tracked test but could not be logged
    "untracked_evaluations",  # made in tests that are not tracked
    "untracked_evaluation_tests",
)


class LangSmithStats:
    """What one process did; workers send theirs to the controller, which adds them up.

    The counts are :data:`_COUNTS`; ``failure`` is the first failure, ``problems`` the
    non-fatal ones (rejected uploads, log errors), ``experiments`` each experiment's URL by
    name. A plain class, whose methods cost nothing to define where a dataclass's are generated
    (about a millisecond) when the module loads.
    """

    tracked_tests: int
    logged_results: int
    logged_evaluations: int
    evaluated_tests: int
    caller_logged: int
    untracked_tests: int
    unlogged_results: int
    untracked_evaluations: int
    untracked_evaluation_tests: int

    def __init__(
        self,
        *,
        failure: str | None = None,
        problems: list[str] | None = None,
        experiments: dict[str, str | None] | None = None,
        **counts: int,
    ) -> None:
        unknown = set(counts) - set(_COUNTS)
        if unknown:
            raise TypeError(f"LangSmithStats has no count(s) {', '.join(sorted(unknown))}")
        for name in _COUNTS:
            setattr(self, name, counts.get(name, 0))
        self.failure = failure
        self.problems = [] if problems is None else problems
        self.experiments = {} if experiments is None else experiments

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LangSmithStats):
            return NotImplemented
        return self.as_json() == other.as_json()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={value!r}" for name, value in self.as_json().items())
        return f"LangSmithStats({inner})"

    def note(self, problem: str) -> None:
        if problem not in self.problems and len(self.problems) < 5:
            self.problems.append(problem)

    def fail(self, reason: str) -> None:
        if self.failure is None:
            self.failure = reason

    def as_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {name: getattr(self, name) for name in _COUNTS}
        document.update(failure=self.failure, problems=self.problems, experiments=self.experiments)
        return document

    def merge(self, data: Mapping[str, Any]) -> None:
        for name in _COUNTS:
            setattr(self, name, getattr(self, name) + int(data.get(name) or 0))
        if data.get("failure"):
            self.fail(str(data["failure"]))
        for problem in data.get("problems") or []:
            self.note(str(problem))
        for name, url in (data.get("experiments") or {}).items():
            if url or name not in self.experiments:
                self.experiments[str(name)] = url

    def _logged_line(self) -> str:
        """What was logged, counted as the trajectory results count (evaluations, and tests
        that made one), with what makes LangSmith's own numbers differ: a repeated test logs
        one result per attempt, a test may log its own feedback, and a tracked test that made
        no evaluation still has its run.
        """
        done = (
            "logged to LangSmith"
            if self.failure is None
            else "handed to LangSmith; some may be missing (see the warning)"
        )
        line = (
            f"agenttraj: {self.logged_evaluations + self.caller_logged} evaluation(s) in "
            f"{self.evaluated_tests} test(s) {done}"
        )
        notes = []
        if self.logged_results != self.logged_evaluations:
            notes.append(f"as {self.logged_results} results: a repeated test logs each attempt's")
        if self.caller_logged:
            notes.append(f"{self.caller_logged} with the feedback its test logged itself")
        idle = self.tracked_tests - self.evaluated_tests
        if idle > 0:
            notes.append(f"{idle} more tracked test{'s' if idle != 1 else ''} made none")
        return line + (f" ({'; '.join(notes)})" if notes else "")

    def lines(self) -> list[tuple[str, str]]:
        """``(kind, text)`` lines for the terminal summary; kind is ``info`` or ``warning``.

        At most one warning: the first failure, with what it cost.
        """
        out: list[tuple[str, str]] = []
        if self.experiments:
            out.append(("info", self._logged_line()))
        for name, url in self.experiments.items():
            out.append(("info", f"  experiment {name!r}" + (f": {url}" if url else "")))
        lost = []
        if self.untracked_tests:
            lost.append(f"{self.untracked_tests} test(s) ran without LangSmith tracking")
        if self.unlogged_results:
            lost.append(f"{self.unlogged_results} result(s) were not logged")
        if self.failure is not None:
            cost = f" ({'; '.join(lost)})" if lost else ""
            extra = f"; also: {self.problems[0]}" if self.problems else ""
            out.append(
                (
                    "warning",
                    f"agenttraj: WARNING: LangSmith logging failed: {self.failure}{cost}{extra}. "
                    "Test outcomes and reports are not affected.",
                )
            )
        elif self.problems or lost:
            what = "; ".join([*lost, *self.problems])
            out.append(("warning", f"agenttraj: WARNING: LangSmith logging incomplete: {what}."))
        if self.untracked_evaluations:
            out.append(
                (
                    "info",
                    f"agenttraj: {self.untracked_evaluations} evaluation(s) in "
                    f"{self.untracked_evaluation_tests} test(s) were not logged to LangSmith: "
                    "those tests are not tracked (mark them @pytest.mark.trajectory)",
                )
            )
        return out
