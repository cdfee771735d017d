"""A langsmith client that keeps the runs it is given and sends nothing over the network."""

from __future__ import annotations

import copy
import threading
from typing import Any

from langsmith import Client

__all__ = ["RunCollector"]


class RunCollector(Client):
    """Records ``create_run`` / ``update_run`` (what ``RunTree.post`` and ``patch`` call, from
    ``@traceable``, ``wrap_openai`` and LangChain's tracer) as run dicts; ``runs()`` links them
    into trees."""

    def __init__(self) -> None:
        # ``info`` given, the client never asks the API for it; no batching thread is started
        super().__init__(
            api_url="http://127.0.0.1:9",
            api_key="captured-trace",
            info={},
            auto_batch_tracing=False,
        )
        self._records: dict[str, dict[str, Any]] = {}
        self._record_lock = threading.Lock()

    def create_run(  # records instead of sending
        self, name: str, inputs: dict[str, Any], run_type: str, **kwargs: Any
    ) -> None:
        run = {"name": name, "inputs": _snapshot(inputs), "run_type": run_type, **kwargs}
        run_id = str(kwargs.get("id"))
        with self._record_lock:
            self._records.setdefault(run_id, {}).update(run)

    def update_run(self, run_id: Any, **kwargs: Any) -> None:
        values = {k: _snapshot(v) for k, v in kwargs.items() if v is not None or k == "error"}
        if values.get("inputs") is None:
            values.pop("inputs", None)
        with self._record_lock:
            self._records.setdefault(str(run_id), {"id": run_id}).update(values)

    def collected_runs(self) -> list[dict[str, Any]]:
        """The root runs recorded so far, each with its ``child_runs``, oldest first."""
        with self._record_lock:
            records = {key: {**value, "child_runs": []} for key, value in self._records.items()}
        roots = []
        for run in records.values():
            parent = run.get("parent_run_id")
            if parent is not None and str(parent) in records:
                records[str(parent)]["child_runs"].append(run)
            else:
                roots.append(run)
        return sorted(roots, key=lambda r: str(r.get("start_time") or ""))


def _snapshot(value: Any) -> Any:
    """The value as it is now: the agent may go on changing a list it passed (the real client
    serialises at this point for the same reason)."""
    try:
        return copy.deepcopy(value)
    except Exception:  # an object that cannot be copied is kept as it is
        return value
