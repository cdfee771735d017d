"""The guarded session the LangSmith client is given: a request LangSmith does not answer in time
is reported in one wording, whichever way requests raises it."""

from __future__ import annotations

import pytest
from langsmith_server import FakeLangSmith
from requests.adapters import HTTPAdapter
from urllib3.util import Retry

from pytest_agenttraj.integrations.langsmith.link import Guard, GuardedSession


@pytest.mark.parametrize(
    "retries",
    [Retry(total=0, read=False), Retry(total=0)],
    # urllib3 raises the read timeout itself, or wraps it when retries run out (requests then
    # raises ConnectionError, not Timeout)
    ids=["read-timeout", "read-timeout-after-retries"],
)
def test_an_unanswered_request_is_reported_alike(retries: Retry) -> None:
    guard = Guard(connect=2.0, read=0.2)
    with FakeLangSmith(fault="hang", hang_seconds=5.0) as server:
        session = GuardedSession(guard)
        session.mount("http://", HTTPAdapter(max_retries=retries))
        try:
            response = session.get(f"{server.url}/datasets")
        finally:
            session.close()
    assert guard.failure == "GET /datasets got no complete answer within 0.2 s"
    assert response.status_code >= 400
