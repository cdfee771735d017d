"""The judges' default prompts: string templates whose ``{placeholders}`` the judge fills.

These are the package's own texts, not agentevals' (whose constants have the same names): they
ask the same questions in other words, so a verdict may differ from agentevals' on a borderline
trajectory. agentevals' own constants, passed as ``prompt=``, are filled exactly as agentevals
fills them (:mod:`.peer`).

Trajectory judges fill ``{outputs}`` (the agent's trajectory, formatted readably),
``{reference_outputs}`` (the reference trajectory) and ``{inputs}`` when given; the graph
judge fills ``{thread}`` and ``{reference_outputs}`` (a paragraph holding the reference, or
nothing); the goal judge ``{outputs}`` and ``{reference_outputs}`` (the desired outcome); the
topic judge ``{outputs}`` and ``{reference_topics}``. Given values these prompts have no place
for (``inputs``, extra keywords) follow the template in blocks of their own. How to answer (a
score and the reasoning behind it) is added by the judge, as a schema or as instructions for a
JSON reply.
"""

from __future__ import annotations

__all__ = [
    "AGENT_GOAL_ACCURACY_PROMPT",
    "AGENT_GOAL_ACCURACY_PROMPT_WITH_REFERENCE",
    "GRAPH_TRAJECTORY_ACCURACY_PROMPT",
    "TOPIC_ADHERENCE_PROMPT",
    "TRAJECTORY_ACCURACY_PROMPT",
    "TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE",
]

TRAJECTORY_ACCURACY_PROMPT = """You review the work of AI agents. Below is the trajectory of one \
agent: the messages it exchanged, the tools it called with their arguments, and what the tools \
returned.

Judge whether the trajectory is accurate. An accurate trajectory:
- takes steps in a sensible order, each one following from what came before;
- keeps moving toward what the user asked for;
- calls tools that fit the task, with fitting arguments, and without needless detours (it does \
not have to be the shortest possible path).

Work out what the user wanted from the user's messages (the first one above all), then judge \
the steps and the final answer against that goal.

<trajectory>
{outputs}
</trajectory>
"""

TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE = """You review the work of AI agents. Below is the \
trajectory of one agent (the messages it exchanged, the tools it called with their arguments, \
and what the tools returned) and a reference trajectory known to be good for the same task.

Judge whether the agent's trajectory is accurate. An accurate trajectory:
- takes steps in a sensible order, each one following from what came before;
- keeps moving toward what the user asked for, without needless detours;
- does what the reference does in substance: the same tools for the same purposes, reaching an \
equivalent result. Wording, ids and the order of steps that do not depend on each other may \
differ.

<reference_trajectory>
{reference_outputs}
</reference_trajectory>

<trajectory>
{outputs}
</trajectory>
"""

GRAPH_TRAJECTORY_ACCURACY_PROMPT = """You review the work of AI agents built as graphs. Below is \
one thread of such an agent: for each time it was invoked, the input it got, the nodes it ran in \
order, and the result it returned.

Judge whether the agent's path through its nodes is accurate. An accurate path:
- runs nodes in a sensible order, each step following from the one before;
- makes steady progress on each input, without needless loops or detours;
- matches the reference path in substance, when one is given.

In the node lists, "__start__" marks where an invocation entered the graph, "__interrupt__" a \
pause while the agent waited for input from outside (such as a person), and nodes grouped in \
parentheses ran in the same step, in no particular order.

<thread>
{thread}
</thread>
{reference_outputs}
"""

AGENT_GOAL_ACCURACY_PROMPT = """You review conversations between users and AI agents. Below is \
one conversation, with the tools the agent called and what they returned.

Work out what the user set out to achieve (the user goal) and the state the conversation \
ended in (the end state), then judge whether the end state achieves the user goal. A goal the \
agent only promised to pursue, or achieved in part, is not achieved.

<conversation>
{outputs}
</conversation>
"""

AGENT_GOAL_ACCURACY_PROMPT_WITH_REFERENCE = """You review conversations between users and AI \
agents. Below is one conversation, with the tools the agent called and what they returned, and \
the outcome the user should have reached.

Work out what the user set out to achieve (the user goal) and the state the conversation \
ended in (the end state), then judge whether the end state is the desired outcome: the same in \
substance, though it may be worded differently or be more specific.

<desired_outcome>
{reference_outputs}
</desired_outcome>

<conversation>
{outputs}
</conversation>
"""

TOPIC_ADHERENCE_PROMPT = """You review conversations between users and AI agents that are meant \
to help only with certain topics. Below is one conversation and the topics the agent may help \
with.

List every topic the user raised. For each one, say whether the agent answered it (false when \
the agent declined, deflected or said it could not help) and whether it falls within any of \
the allowed topics.

<allowed_topics>
{reference_topics}
</allowed_topics>

<conversation>
{outputs}
</conversation>
"""

PACKAGE_PROMPTS = frozenset(
    {
        AGENT_GOAL_ACCURACY_PROMPT,
        AGENT_GOAL_ACCURACY_PROMPT_WITH_REFERENCE,
        GRAPH_TRAJECTORY_ACCURACY_PROMPT,
        TOPIC_ADHERENCE_PROMPT,
        TRAJECTORY_ACCURACY_PROMPT,
        TRAJECTORY_ACCURACY_PROMPT_WITH_REFERENCE,
    }
)
"""The package's own prompts: what they have no place for is shown after them, not refused."""
