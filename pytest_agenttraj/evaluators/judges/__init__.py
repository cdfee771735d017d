"""LLM judges, agentevals-compatible: trajectory and graph-thread accuracy, agent goal accuracy
and topic adherence, any langchain-core chat model (structured output when it has tool calling,
a JSON reply in text otherwise), answers cached on disk (:mod:`.cache`).

Importing this package imports no langchain: the model is only touched when a judge is built
(``judge=`` is checked) or first asks it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .cache import JudgeCache
    from .engine import DEFAULT_MAX_CONCURRENCY, Verdict
    from .goal import (
        create_agent_goal_accuracy_evaluator,
        create_async_agent_goal_accuracy_evaluator,
    )
    from .prompts import (
        AGENT_GOAL_ACCURACY_PROMPT,
        AGENT_GOAL_ACCURACY_PROMPT_WITH_REFERENCE,
        GRAPH_TRAJECTORY_ACCURACY_PROMPT,
        TOPIC_ADHERENCE_PROMPT,
        TRAJECTORY_ACCURACY_PROMPT,
        TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE,
    )
    from .topics import (
        TOPIC_ADHERENCE_MODES,
        TopicAdherenceMode,
        create_async_topic_adherence_evaluator,
        create_topic_adherence_evaluator,
    )
    from .trajectory import (
        create_async_graph_trajectory_llm_as_judge,
        create_async_trajectory_llm_as_judge,
        create_graph_trajectory_llm_as_judge,
        create_trajectory_llm_as_judge,
    )

CACHE_MODES = ("use", "refresh", "off")
"""The judge cache's modes (:mod:`.cache`): ``use`` reads and writes, ``refresh`` writes only,
``off`` neither. Defined here, so that the plugin's options list them without the cache."""

_WHERE = {
    ".cache": ("JudgeCache",),
    ".engine": ("DEFAULT_MAX_CONCURRENCY", "Verdict"),
    ".goal": ("create_agent_goal_accuracy_evaluator", "create_async_agent_goal_accuracy_evaluator"),
    ".prompts": (
        "AGENT_GOAL_ACCURACY_PROMPT",
        "AGENT_GOAL_ACCURACY_PROMPT_WITH_REFERENCE",
        "GRAPH_TRAJECTORY_ACCURACY_PROMPT",
        "TOPIC_ADHERENCE_PROMPT",
        "TRAJECTORY_ACCURACY_PROMPT",
        "TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE",
    ),
    ".topics": (
        "TOPIC_ADHERENCE_MODES",
        "TopicAdherenceMode",
        "create_async_topic_adherence_evaluator",
        "create_topic_adherence_evaluator",
    ),
    ".trajectory": (
        "create_async_graph_trajectory_llm_as_judge",
        "create_async_trajectory_llm_as_judge",
        "create_graph_trajectory_llm_as_judge",
        "create_trajectory_llm_as_judge",
    ),
}
_MODULE_OF = {name: module for module, names in _WHERE.items() for name in names}


def __getattr__(name: str) -> Any:
    """The judges' public names, each module imported when one of its names is first used
    (so the plugin can list the cache's modes without the cache, and load the cache without the
    judges)."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "AGENT_GOAL_ACCURACY_PROMPT",
    "AGENT_GOAL_ACCURACY_PROMPT_WITH_REFERENCE",
    "CACHE_MODES",
    "DEFAULT_MAX_CONCURRENCY",
    "GRAPH_TRAJECTORY_ACCURACY_PROMPT",
    "TOPIC_ADHERENCE_MODES",
    "TOPIC_ADHERENCE_PROMPT",
    "TRAJECTORY_ACCURACY_PROMPT",
    "TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE",
    "JudgeCache",
    "TopicAdherenceMode",
    "Verdict",
    "create_agent_goal_accuracy_evaluator",
    "create_async_agent_goal_accuracy_evaluator",
    "create_async_graph_trajectory_llm_as_judge",
    "create_async_topic_adherence_evaluator",
    "create_async_trajectory_llm_as_judge",
    "create_graph_trajectory_llm_as_judge",
    "create_topic_adherence_evaluator",
    "create_trajectory_llm_as_judge",
]
