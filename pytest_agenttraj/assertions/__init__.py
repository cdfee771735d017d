"""The ``assert_*`` helpers, one module per kind of result, all raising one exception family
(:mod:`.base`): trajectories, graph paths, tool usage, graded scores."""
