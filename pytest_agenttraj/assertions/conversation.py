"""``assert_conversation``: a conversation matches its reference turn by turn, or a
``ConversationMismatch`` saying at which turn it diverged, with that turn's diff.

The reference is a conversation (a ``Conversation``, a ``{"turns": [...]}`` document, a
simulation's result) or the name of a conversation reference file; inside a pytest test,
omitted, it is the test's own file (``trajectories/<test>.yaml`` with ``turns``), which
``--trajectory-update`` writes.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from ..evaluators.conversation import evaluate_conversation
from ..evaluators.result import EvaluatorResult
from ..evaluators.scope import announce, announce_error, current_scope
from ..references import evaluate_conversation_reference_file, names_a_file, resolve_reference
from .base import AgentTrajAssertionError
from .trajectory import _config

__all__ = ["ConversationMismatch", "assert_conversation"]


class ConversationMismatch(AgentTrajAssertionError):
    """A conversation diverged from its reference; ``report.diverged_at`` is the turn."""

    __module__ = "pytest_agenttraj"


def assert_conversation(
    outputs: Any,
    reference_outputs: Any = None,
    *,
    mode: str | None = None,
    tool_args: str | None = None,
    overrides: Mapping[str, Any] | None = None,
    ignore_keys: Sequence[str] | None = None,
) -> EvaluatorResult:
    """Return the ``conversation_<mode>_match`` result if every turn of ``outputs`` matches the
    same turn of ``reference_outputs`` (each turn compared as ``assert_trajectory`` compares a
    trajectory, in ``mode`` with ``tool_args`` and ``overrides``, which default as there), else
    raise ``ConversationMismatch`` naming the turn where the conversation diverged.

    Example::

        result = run_scenario(app=agent, steps=steps)
        assert_conversation(result, "refund_refused.yaml")
    """
    __tracebackhide__ = True
    scope = current_scope()
    started = time.perf_counter()
    extra: dict[str, Any] = {}
    key = "conversation_match"
    try:
        named = reference_outputs is None or names_a_file(reference_outputs)
        reference = (
            resolve_reference(reference_outputs, scope, function="assert_conversation")
            if named
            else None
        )
        header = reference.header() if reference is not None else {}
        config = _config(scope, header, mode, tool_args, overrides, ignore_keys, True)
        key = f"conversation_{config.mode}_match"
        if reference is not None:
            result, report, reference_outputs = evaluate_conversation_reference_file(
                outputs, reference, config, scope, extra
            )
        else:
            result, report = evaluate_conversation(outputs, reference_outputs, config)
    except Exception as error:
        announce_error(
            error,
            key,
            outputs=outputs,
            reference_outputs=reference_outputs,
            started=started,
            origin="assert_conversation",
            extra=extra,
        )
        raise
    announce(
        result,
        report=report,
        outputs=outputs,
        reference_outputs=reference_outputs,
        started=started,
        origin="assert_conversation",
        extra=extra,
    )
    if not report.passed:
        raise ConversationMismatch(report, result, verbose=scope.verbose if scope else 0)
    return result
