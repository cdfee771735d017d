"""The ``simulate`` fixture's settings and runner: conversations with a test's app, configured by
the ``simulation`` marker (``max_turns``, ``persona``, ``model``), then ``--simulation-max-turns``
/ ini ``simulation_max_turns`` and ``--simulation-model`` / ini ``simulation_model``.

Each conversation is recorded like every other evaluation (a ``simulation`` result: turns, stop
reason, evaluator results), and compared turn by turn with the test's reference conversation
(``trajectories/<test>.yaml`` with ``turns``) when there is one or ``--trajectory-update`` is
writing it. The library (simulator, scenario, persona) is imported when a test first runs one.
"""

# No ``from __future__ import annotations``: ``typing.NamedTuple`` compiles each string
# annotation of its fields, and every run defines this module's at start-up.

import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, NamedTuple

import pytest

__all__ = [
    "SIMULATION_MARKER_HELP",
    "SimulationSettings",
    "Simulator",
    "add_simulation_options",
    "check_simulation_options",
    "simulation_settings",
]

SIMULATION_MARKER_ARGS = ("max_turns", "persona", "model")
SIMULATION_MARKER_HELP = (
    "simulation(max_turns=None, persona=None, model=None): the simulate fixture's defaults for "
    "this test, class or module (max_turns: turns at most, a whole number >= 1; persona: the "
    "system prompt of an LLM-simulated user; model: its chat model, a langchain-core chat "
    "model or a 'provider:model' string)"
)
_TURNS_OPTION = "--simulation-max-turns"
_TURNS_INI = "simulation_max_turns"
_MODEL_OPTION = "--simulation-model"
_MODEL_INI = "simulation_model"


def add_simulation_options(parser: pytest.Parser, group: pytest.OptionGroup) -> None:
    group.addoption(
        _TURNS_OPTION,
        dest="simulation_max_turns",
        default=None,
        metavar="N",
        help="turns at most in a conversation the simulate fixture runs, unless the test's "
        "simulation marker or the call says otherwise",
    )
    parser.addini(_TURNS_INI, f"default max_turns of the simulate fixture (see {_TURNS_OPTION})")
    group.addoption(
        _MODEL_OPTION,
        dest="simulation_model",
        default=None,
        metavar="PROVIDER:MODEL",
        help="the chat model that plays a persona in the simulate fixture (a 'provider:model' "
        "string for langchain's init_chat_model), unless the marker or the call gives one",
    )
    parser.addini(
        _MODEL_INI, f"default persona model of the simulate fixture (see {_MODEL_OPTION})"
    )


class SimulationSettings(NamedTuple):
    """The ``simulate`` fixture's defaults for one test (a named tuple, cheap to define at
    start-up)."""

    max_turns: int | None = None
    persona: str | None = None
    model: Any = None


def _turns(value: Any, where: str) -> int:
    try:
        turns = int(value) if isinstance(value, str) else value
    except ValueError:
        turns = value
    if isinstance(turns, bool) or not isinstance(turns, int) or turns < 1:
        raise pytest.UsageError(f"{where}: must be a whole number >= 1, got {value!r}")
    return turns


def _session_defaults(config: pytest.Config) -> tuple[int | None, str | None]:
    turns: int | None = None
    value = config.getoption("simulation_max_turns", default=None)
    if value is not None:
        turns = _turns(value, _TURNS_OPTION)
    elif str(config.getini(_TURNS_INI)).strip():
        turns = _turns(str(config.getini(_TURNS_INI)).strip(), f"ini {_TURNS_INI}")
    model = config.getoption("simulation_model", default=None)
    if model is None:
        model = str(config.getini(_MODEL_INI)).strip() or None
    return turns, model


def check_simulation_options(config: pytest.Config) -> None:
    """Validate ``--simulation-max-turns`` and its ini key once, at configure time: a bad value
    is a usage error before any test runs."""
    _session_defaults(config)


def simulation_settings(item: pytest.Item) -> SimulationSettings:
    """The item's ``simulation`` markers (the closest wins per key) over the session's options;
    a bad value fails the test naming it."""
    __tracebackhide__ = True
    turns, model = _session_defaults(item.config)
    chosen: dict[str, Any] = {}
    for mark in item.iter_markers("simulation"):
        unknown = sorted(set(mark.kwargs) - set(SIMULATION_MARKER_ARGS)) or (
            ["a positional argument"] if mark.args else []
        )
        if unknown:
            pytest.fail(
                f"{item.nodeid}: @pytest.mark.simulation got {', '.join(unknown)}; it takes "
                f"{', '.join(SIMULATION_MARKER_ARGS)} by keyword",
                pytrace=False,
            )
        for name, value in mark.kwargs.items():
            chosen.setdefault(name, value)
    if "max_turns" in chosen:
        try:
            turns = _turns(chosen["max_turns"], "max_turns")
        except pytest.UsageError as error:
            pytest.fail(f"{item.nodeid}: @pytest.mark.simulation {error}", pytrace=False)
    persona = chosen.get("persona")
    if persona is not None and (not isinstance(persona, str) or not persona.strip()):
        pytest.fail(
            f"{item.nodeid}: @pytest.mark.simulation persona must be a non-empty str (the "
            f"simulated user's system prompt), got {persona!r}",
            pytrace=False,
        )
    return SimulationSettings(turns, persona, chosen.get("model", model))


class Simulator:
    """Runs conversations with an app for one test: ``simulate(app, user)`` (openevals'
    ``run_multiturn_simulation``), ``simulate(app, steps=[...])`` (a scripted scenario), or with
    a persona (``persona=``, or the marker's) played by ``model``. ``await simulate.arun(...)``
    is the async twin. Each returns the simulation's result (``trajectory``, ``conversation``,
    ``stop_reason``, ``evaluator_results``)."""

    def __init__(self, settings: SimulationSettings) -> None:
        self.settings = settings

    def _plan(self, user: Any, persona: str | None, model: Any, asynchronous: bool) -> Any:
        from ..errors import SimulationError

        persona = persona if persona is not None else self.settings.persona
        if user is not None or persona is None:
            return user
        model = model if model is not None else self.settings.model
        if model is None:
            raise SimulationError(
                "a persona needs a chat model to play it: pass model= (a chat model or a "
                f"'provider:model' string), give the marker model=, or set {_MODEL_OPTION}",
                field="model",
            )
        from ..evaluators import simulated_user

        make = (
            simulated_user.create_async_llm_simulated_user
            if asynchronous
            else simulated_user.create_llm_simulated_user
        )
        if isinstance(model, str):
            return make(system=persona, model=model)
        return make(system=persona, client=model)

    def _arguments(self, app: Any, user: Any, options: Mapping[str, Any]) -> dict[str, Any]:
        max_turns = options.get("max_turns")
        arguments = {
            "app": app,
            "user": user,
            "max_turns": self.settings.max_turns if max_turns is None else max_turns,
            "stopping_condition": options.get("stopping_condition"),
            "trajectory_evaluators": options.get("trajectory_evaluators"),
            "reference_outputs": options.get("reference_outputs"),
            "thread_id": options.get("thread_id"),
        }
        if options.get("steps") is not None:
            arguments["steps"] = options["steps"]
        return arguments

    def __call__(
        self,
        app: Any,
        user: Any = None,
        *,
        steps: Sequence[Any] | None = None,
        persona: str | None = None,
        model: Any = None,
        max_turns: int | None = None,
        stopping_condition: Callable[..., Any] | None = None,
        trajectory_evaluators: Sequence[Any] | None = None,
        reference_outputs: Any = None,
        reference: str | bool | None = None,
        thread_id: str | None = None,
    ) -> Any:
        __tracebackhide__ = True
        from ..assertions.scenario import run_scenario
        from ..evaluators.simulation import run_multiturn_simulation

        started = time.perf_counter()
        options = locals()
        arguments = self._arguments(app, self._plan(user, persona, model, False), options)
        run = run_scenario if steps is not None else run_multiturn_simulation
        result = _recorded(partial(run, **arguments), started, arguments)
        _compare(result, reference)
        return result

    async def arun(
        self,
        app: Any,
        user: Any = None,
        *,
        steps: Sequence[Any] | None = None,
        persona: str | None = None,
        model: Any = None,
        max_turns: int | None = None,
        stopping_condition: Callable[..., Any] | None = None,
        trajectory_evaluators: Sequence[Any] | None = None,
        reference_outputs: Any = None,
        reference: str | bool | None = None,
        thread_id: str | None = None,
    ) -> Any:
        """``simulate(...)`` awaiting the app, the user and every callable."""
        __tracebackhide__ = True
        from ..assertions.scenario import run_scenario_async
        from ..evaluators.simulation import run_multiturn_simulation_async

        started = time.perf_counter()
        options = locals()
        arguments = self._arguments(app, self._plan(user, persona, model, True), options)
        run = run_scenario_async if steps is not None else run_multiturn_simulation_async
        try:
            result = await run(**arguments)
        except Exception as error:
            _announce_error(error, started)
            raise
        _announce(result, started, arguments)
        _compare(result, reference)
        return result


def _recorded(run: Callable[[], Any], started: float, arguments: Mapping[str, Any]) -> Any:
    __tracebackhide__ = True
    try:
        result = run()
    except Exception as error:
        _announce_error(error, started)
        raise
    _announce(result, started, arguments)
    return result


def _announce_error(error: Exception, started: float) -> None:
    from ..evaluators.scope import announce_error

    so_far = getattr(error, "result", None)
    announce_error(
        error,
        "simulation",
        outputs=so_far.get("trajectory") if isinstance(so_far, Mapping) else None,
        reference_outputs=None,
        started=started,
        origin="simulate",
        extra={"stop_reason": "error", "turn": getattr(error, "turn", None)},
    )


def _announce(result: Mapping[str, Any], started: float, arguments: Mapping[str, Any]) -> None:
    from ..core.simulated import SimulationReport
    from ..evaluators.scope import announce

    user = arguments.get("user")
    report = SimulationReport(
        turns=len(result["conversation"]),
        stop_reason=str(result.get("stop_reason")),
        evaluator_results=tuple(result.get("evaluator_results") or ()),
        max_turns=arguments.get("max_turns"),
        persona=getattr(user, "system", None),
    )
    announce(
        {
            "key": "simulation",
            "score": report.passed,
            "comment": report.comment(),
            "metadata": {"turns": report.turns, "stop_reason": report.stop_reason},
        },
        report=report,
        outputs=result["trajectory"],
        reference_outputs=None,
        started=started,
        origin="simulate",
        extra={"turns": report.turns, "stop_reason": report.stop_reason},
    )


def _compare(result: Any, reference: str | bool | None) -> None:
    """Compare the conversation with its reference file: the one named, else the test's own
    when it exists or ``--trajectory-update`` writes it (``reference=False``: none)."""
    __tracebackhide__ = True
    if reference is False:
        return
    from ..assertions.conversation import assert_conversation

    if isinstance(reference, str):
        assert_conversation(result, reference)
        return
    from ..evaluators.scope import current_scope

    scope = current_scope()
    if scope is None or scope.references is None:
        return
    own = scope.references.resolve(None)
    if reference is True or own.exists or scope.references.update:
        assert_conversation(result, own)
