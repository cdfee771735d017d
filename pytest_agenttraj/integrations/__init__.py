"""Integrations with the rest of the LangChain ecosystem, each importing its heavy dependency only
inside: LangSmith logging (:mod:`.langsmith`). No other layer imports them."""
