"""Evaluators: openevals/agentevals-compatible factories and result dicts, one implementation
with sync and async faces, and the evaluation scope through which the running test hears of each
evaluation (:mod:`.scope`). Each name is imported when first used."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .exact import (
        exact_match as exact_match,
        exact_match_async as exact_match_async,
    )
    from .faces import (
        AsyncEvaluator as AsyncEvaluator,
        Evaluator as Evaluator,
    )
    from .graded import (
        create_async_tool_call_accuracy_evaluator as create_async_tool_call_accuracy_evaluator,
        create_async_tool_call_f1_evaluator as create_async_tool_call_f1_evaluator,
        create_tool_call_accuracy_evaluator as create_tool_call_accuracy_evaluator,
        create_tool_call_f1_evaluator as create_tool_call_f1_evaluator,
    )
    from .graph import (
        create_async_graph_trajectory_match_evaluator as create_async_graph_trajectory_match_evaluator,
        create_graph_trajectory_match_evaluator as create_graph_trajectory_match_evaluator,
        graph_trajectory_strict_match as graph_trajectory_strict_match,
        graph_trajectory_strict_match_async as graph_trajectory_strict_match_async,
    )
    from .result import (
        EvaluatorResult as EvaluatorResult,
        result_passed as result_passed,
    )
    from .trajectory import (
        create_async_trajectory_match_evaluator as create_async_trajectory_match_evaluator,
        create_trajectory_match_evaluator as create_trajectory_match_evaluator,
        evaluate_trajectory as evaluate_trajectory,
    )
    from .usage import (
        create_async_tool_usage_evaluator as create_async_tool_usage_evaluator,
        create_tool_usage_evaluator as create_tool_usage_evaluator,
    )

__getattr__, __dir__ = lazy_exports(__name__, __file__)  # ``__all__`` too
