"""Tests of the fake LangSmith server, driven by the real ``langsmith`` client.

Nothing of langsmith is mocked: the client and langsmith's pytest plugin do real
HTTP to ``127.0.0.1``.  The pytester runs also document which endpoints a
``@pytest.mark.langsmith`` test hits and how long a session takes.
"""

from __future__ import annotations

import gzip
import http.client
import importlib.util
import inspect
import json
import os
import time
import urllib.error
import urllib.request
import uuid
from typing import Any

import langsmith
import pytest
from langsmith import run_trees
from langsmith.utils import (
    LangSmithConflictError,
    LangSmithConnectionError,
    LangSmithNotFoundError,
    LangSmithRateLimitError,
)
from langsmith_server import FakeLangSmith, Mode, decode_body, parse_multipart, refused_url
from urllib3.util import Retry

HAS_ZSTD = importlib.util.find_spec("zstandard") is not None

TRACKED_TEST = """
import pytest
from langsmith import testing as t


@pytest.mark.langsmith
def test_tracked():
    t.log_inputs({"question": "q"})
    t.log_outputs({"answer": "a"})
    t.log_reference_outputs({"answer": "ref"})
    t.log_feedback(key="k", score=1)
"""

# What a single passing @pytest.mark.langsmith test hits (ids shown as {id}).
TRACKED_ENDPOINTS: dict[Mode, set[str]] = {
    "multipart": {
        "GET /info",
        "GET /datasets",  # read the test suite by name: [] -> create it
        "POST /datasets",
        "GET /sessions",  # tenant id lookup (limit=1)
        "POST /sessions",  # the experiment
        "GET /examples/{id}",  # 404, then re-read after the upload
        "POST /v1/platform/datasets/{id}/examples",
        "POST /runs/multipart",  # post + patch of the run, both feedbacks
        "PATCH /sessions/{id}",  # experiment metadata, at exit
    },
    "legacy": {
        "GET /info",
        "GET /datasets",
        "POST /datasets",
        "GET /sessions",
        "POST /sessions",
        "GET /examples/{id}",
        "POST /examples",
        "POST /feedback",  # once per feedback ("k" and "pass")
        "POST /runs/batch",
        "PATCH /sessions/{id}",
    },
}

# The inner session runs without this project's plugin, which others edit
# concurrently, and without unrelated plugins that only add noise.
INNER_ARGS = (
    "-p",
    "no:cacheprovider",
    "-p",
    "no:agenttraj",
    "-p",
    "no:asyncio",
    "-p",
    "no:hypothesispytest",
    "-q",
)


def _get(url: str, timeout: float = 5.0) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, dict(response.headers.items()), response.read()
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, dict(exc.headers.items()), exc.read()


@pytest.fixture
def langsmith_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """Clear ambient LangSmith/LangChain settings so only what a test sets applies."""
    for name in list(os.environ):
        if name.startswith(("LANGSMITH_", "LANGCHAIN_")):
            monkeypatch.delenv(name)
    return monkeypatch


def _make_client(url: str, **kwargs: Any) -> langsmith.Client:
    return langsmith.Client(api_url=url, api_key="test-key", **kwargs)


def _retries(total: int) -> Retry:
    return Retry(
        total=total, status_forcelist=[429, 500], backoff_factor=0.5, raise_on_status=False
    )


# --------------------------------------------------------------------- real client


@pytest.mark.parametrize(
    ("mode", "batched"),
    [("multipart", True), ("legacy", True), ("legacy", False)],
    ids=["multipart", "legacy-batch", "legacy-unbatched"],
)
@pytest.mark.usefixtures("langsmith_env")
def test_real_client_round_trip(
    mode: Mode,
    batched: bool,
) -> None:
    with FakeLangSmith(mode=mode) as server:
        client = _make_client(server.url, auto_batch_tracing=batched)
        try:
            dataset = client.create_dataset("suite", description="d")
            # langsmith before 0.14.12 calls the example's outputs outputs; later versions
            # call them reference_outputs (and warn of the old name)
            named = inspect.signature(client.create_example).parameters
            field = "reference_outputs" if "reference_outputs" in named else "outputs"
            example = client.create_example(
                inputs={"q": 1}, dataset_id=dataset.id, **{field: {"a": 2}}
            )
            project = client.create_project("experiment", reference_dataset_id=dataset.id)
            run_id = uuid.uuid4()
            run = run_trees.RunTree(
                id=run_id,
                name="agent",
                run_type="chain",
                inputs={"q": 1},
                project_name="experiment",
                reference_example_id=example.id,
                ls_client=client,
            )
            run.post()
            run.end(outputs={"a": 2})
            run.patch()
            client.create_feedback(
                run_id, key="k", score=1, comment="why", trace_id=run_id, session_id=project.id
            )
            client.flush()
            server.wait_for(
                lambda s: s.feedback() and s.runs().get(str(run_id), {}).get("end_time")
            )
        finally:
            client.cleanup()
            client.session.close()

        assert server.errors == []
        assert server.unhandled == []
        endpoints = set(server.endpoints())
        if mode == "multipart":
            assert {
                "POST /v1/platform/datasets/{id}/examples",
                "POST /runs/multipart",
            } <= endpoints
            assert not endpoints & {"POST /feedback", "POST /runs/batch", "POST /examples"}
            (ingest,) = [r for r in server.requests if r.path == "/runs/multipart"]
            assert ingest.content_encoding == ("zstd" if HAS_ZSTD else None)
            assert ingest.parts is not None
            names = [p.name for p in ingest.parts]
            assert f"post.{run_id}" in names
            assert f"post.{run_id}.inputs" in names
            assert any(n.startswith("feedback.") for n in names)
        elif batched:
            assert {"POST /examples", "POST /feedback", "POST /runs/batch"} <= endpoints
            assert "POST /runs/multipart" not in endpoints
        else:
            assert {"POST /runs", "PATCH /runs/{id}", "POST /feedback"} <= endpoints
            assert not endpoints & {"POST /runs/batch", "POST /runs/multipart"}

        (feedback,) = server.feedback()
        assert feedback["key"] == "k"
        assert feedback["score"] == 1
        assert feedback["comment"] == "why"
        assert feedback["run_id"] == str(run_id)
        assert feedback["session_id"] == str(project.id)

        merged = server.runs()[str(run_id)]
        assert merged["inputs"] == {"q": 1}
        assert merged["outputs"] == {"a": 2}
        assert merged["reference_example_id"] == str(example.id)
        assert merged["session_name"] == "experiment"

        (stored,) = server.examples()
        assert stored["id"] == str(example.id)
        assert stored["dataset_id"] == str(dataset.id)
        assert stored["inputs"] == {"q": 1}
        assert stored["outputs"] == {"a": 2}

        assert [d["name"] for d in server.datasets] == ["suite"]
        assert server.datasets[0]["example_count"] == 1
        (session,) = server.sessions
        assert session["id"] == str(project.id)
        assert session["reference_dataset_id"] == str(dataset.id)


@pytest.mark.usefixtures("langsmith_env")
def test_client_reads_back_what_it_wrote() -> None:
    with FakeLangSmith() as server:
        client = _make_client(server.url, auto_batch_tracing=False)
        try:
            assert not client.has_dataset(dataset_name="suite")
            created = client.create_dataset("suite")
            with pytest.raises(LangSmithConflictError):
                client.create_dataset("suite")
            assert client.read_dataset(dataset_name="suite").id == created.id
            assert client.read_dataset(dataset_id=created.id).name == "suite"
            project = client.create_project("p", reference_dataset_id=created.id)
            assert client.read_project(project_name="p").id == project.id
            with pytest.raises(LangSmithNotFoundError):
                client.read_example(uuid.uuid4())
            example = client.create_example(inputs={"x": 1}, dataset_id=created.id)
            client.update_example(example.id, outputs={"y": 2})
            assert client.read_example(example.id).outputs == {"y": 2}
            assert [e.id for e in client.list_examples(dataset_id=created.id)] == [example.id]
            client.update_project(project.id, metadata={"m": 1})
        finally:
            client.cleanup()
            client.session.close()
        assert server.errors == []
        assert server.unhandled == []
        assert server.sessions[0]["extra"] == {"metadata": {"m": 1}}


# --------------------------------------------------------------------- pytest plugin


def _run_tracked(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, url: str
) -> tuple[pytest.RunResult, float]:
    monkeypatch.setenv("LANGSMITH_ENDPOINT", url)
    monkeypatch.setenv("LANGSMITH_API_KEY", "test-key")
    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    monkeypatch.setenv("LANGSMITH_TEST_SUITE", "agenttraj-suite")
    pytester.makepyfile(test_tracked=TRACKED_TEST)
    start = time.monotonic()
    result = pytester.runpytest_subprocess(*INNER_ARGS, timeout=60)
    return result, time.monotonic() - start


@pytest.mark.parametrize("mode", ["multipart", "legacy"])
def test_tracked_pytest_run(
    pytester: pytest.Pytester, langsmith_env: pytest.MonkeyPatch, mode: Mode
) -> None:
    with FakeLangSmith(mode=mode) as server:
        result, seconds = _run_tracked(pytester, langsmith_env, server.url)
        print(f"tracked pytest session ({mode}): {seconds:.2f}s")
        result.assert_outcomes(passed=1)
        # The subprocess flushed everything before it exited: no waiting needed.
        requests = server.requests

    assert server.errors == []
    assert server.unhandled == []
    assert set(server.endpoints()) == TRACKED_ENDPOINTS[mode]
    # Only the first read of the (not yet created) example is answered 404.
    assert [r.status for r in requests if r.status not in (200, 202)] == [404]

    (dataset,) = server.datasets
    assert dataset["name"] == "agenttraj-suite"
    (experiment,) = server.sessions
    assert experiment["reference_dataset_id"] == dataset["id"]
    assert experiment["extra"]["metadata"]["__ls_runner"] == "pytest"
    assert len(experiment["updates"]) == 1  # PATCH /sessions/{id} at exit

    (example,) = server.examples()
    assert example["dataset_id"] == dataset["id"]
    assert example["inputs"] == {"question": "q"}
    assert example["outputs"] == {"answer": "ref"}

    (run,) = server.runs().values()
    assert run["name"] == "test_tracked"
    assert run["outputs"] == {"answer": "a"}
    assert run["reference_example_id"] == example["id"]
    assert run["session_name"] == experiment["name"]
    # langsmith posts the run before the test body runs and (by default,
    # LANGSMITH_EXCLUDE_INPUTS_ON_PATCH unset) leaves inputs out of the patch, so
    # inputs logged with log_inputs() reach the example only, not the run.
    assert run["inputs"] == {}

    by_key = {f["key"]: f for f in server.feedback()}
    assert set(by_key) == {"k", "pass"}
    assert by_key["k"]["score"] == 1
    assert by_key["k"]["run_id"] == run["id"]
    assert by_key["k"]["session_id"] == experiment["id"]
    assert by_key["pass"]["score"] == 1

    multipart = [r for r in requests if r.path == "/runs/multipart"]
    if mode == "multipart":
        assert multipart
        assert all(r.content_encoding == ("zstd" if HAS_ZSTD else None) for r in multipart)
    else:
        assert multipart == []


def test_tracked_pytest_run_against_failing_server(
    pytester: pytest.Pytester, langsmith_env: pytest.MonkeyPatch
) -> None:
    """Every endpoint answers 500: the tracked test itself fails.

    langsmith reads the test suite (``GET /datasets``) inside the test call, gets a
    ``LangSmithAPIError`` once urllib3's retries (backoff 0 + 1 + 2 s) are spent and
    lets it escape into the test.  Nothing reaches the ingestion endpoints.
    """
    with FakeLangSmith(mode="multipart", fault="500") as server:
        result, seconds = _run_tracked(pytester, langsmith_env, server.url)
        print(f"tracked pytest session against 500s: {seconds:.2f}s")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*LangSmithAPIError*GET /datasets*"])
    assert {r.status for r in server.requests} == {500}
    assert set(server.endpoints()) == {"GET /info", "GET /datasets"}
    assert server.feedback() == []
    assert server.runs() == {}


# --------------------------------------------------------------------- faults


def test_fault_429_carries_retry_after() -> None:
    with FakeLangSmith(fault="429") as server:
        status, headers, body = _get(server.url + "/info")
    assert status == 429
    assert headers["Retry-After"] == "0"
    assert json.loads(body)["detail"]
    assert [r.status for r in server.requests] == [429]


@pytest.mark.usefixtures("langsmith_env")
def test_fault_429_surfaces_in_the_real_client() -> None:
    # By default urllib3 retries a 429 three times beneath the client, backing off
    # 0 + 1 + 2 s (Retry-After: 0 does not shorten that); one retry keeps this fast.
    with FakeLangSmith(fault="429") as server:
        client = _make_client(server.url, auto_batch_tracing=False, retry_config=_retries(total=1))
        try:
            with pytest.raises(LangSmithRateLimitError):
                client.read_project(project_id=str(uuid.uuid4()))
        finally:
            client.session.close()
    assert [r.status for r in server.requests] == [429, 429]


def test_fault_on_narrows_the_fault() -> None:
    with FakeLangSmith(fault="500", fault_on=lambda _method, path: path == "/runs/batch") as server:
        assert _get(server.url + "/info")[0] == 200
        request = urllib.request.Request(
            server.url + "/runs/batch",
            data=b'{"post": []}',
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with pytest.raises(urllib.error.HTTPError) as excinfo:
            urllib.request.urlopen(request, timeout=5)
        excinfo.value.close()
        assert excinfo.value.code == 500
        server.fault = None
        with urllib.request.urlopen(request, timeout=5) as response:
            assert response.status == 202


def test_fault_hang_times_out_and_stops_promptly() -> None:
    server = FakeLangSmith(fault="hang", hang_seconds=30)
    with server:
        with pytest.raises((TimeoutError, urllib.error.URLError)):
            _get(server.url + "/info", timeout=0.3)
        server.wait_for(lambda s: len(s.requests) == 1, timeout=2)
        start = time.monotonic()
    assert time.monotonic() - start < 2, "stopping must interrupt the hang"
    (recorded,) = server.requests
    assert recorded.status is None  # never answered


def test_fault_hang_answers_after_hang_seconds() -> None:
    with FakeLangSmith(fault="hang", hang_seconds=0.2) as server:
        start = time.monotonic()
        status, _, body = _get(server.url + "/info")
    assert status == 200
    assert time.monotonic() - start >= 0.2
    assert "batch_ingest_config" in json.loads(body)


def test_refused_url_refuses() -> None:
    url = refused_url()
    assert url.startswith("http://127.0.0.1:")
    with pytest.raises(urllib.error.URLError) as excinfo:
        _get(url + "/info", timeout=2)
    assert isinstance(excinfo.value.reason, ConnectionRefusedError)


@pytest.mark.usefixtures("langsmith_env")
def test_refused_url_in_the_real_client() -> None:
    # No urllib3 retries: by default it backs off 0 + 1 + 2 s before giving up.
    client = _make_client(refused_url(), auto_batch_tracing=False, retry_config=_retries(total=0))
    try:
        with pytest.raises(LangSmithConnectionError):
            client.read_project(project_id=str(uuid.uuid4()))
    finally:
        client.session.close()


# --------------------------------------------------------------------- server basics


def test_unknown_endpoints_are_recorded_and_answered_404() -> None:
    with FakeLangSmith() as server:
        status, _, _ = _get(server.url + "/no/such/thing?x=1&x=2")
    assert status == 404
    (unknown,) = server.unhandled
    assert unknown.path == "/no/such/thing"
    assert unknown.query == {"x": ["1", "2"]}
    assert unknown.param("x") == "1"


@pytest.mark.parametrize("mode", ["multipart", "legacy"])
def test_info_selects_the_ingestion_path(mode: Mode) -> None:
    with FakeLangSmith(mode=mode) as server:
        _, _, body = _get(server.url + "/info")
    info = json.loads(body)
    multipart = mode == "multipart"
    assert info["batch_ingest_config"]["use_multipart_endpoint"] is multipart
    flags = info["instance_flags"]
    assert flags.get("dataset_examples_multipart_enabled", False) is multipart
    assert flags.get("zstd_compression_enabled", False) is multipart


def test_wait_for_times_out_with_the_traffic_so_far() -> None:
    with FakeLangSmith() as server:
        _get(server.url + "/info")
        with pytest.raises(TimeoutError, match="GET /info -> 200"):
            server.wait_for(lambda s: s.feedback(), timeout=0.1)


def test_gzip_request_bodies_are_decoded() -> None:
    with FakeLangSmith(mode="legacy") as server:
        payload = {"key": "k", "score": 1, "run_id": str(uuid.uuid4())}
        request = urllib.request.Request(
            server.url + "/feedback",
            data=gzip.compress(json.dumps(payload).encode()),
            headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            assert response.status == 200
    (recorded,) = server.requests
    assert recorded.json == payload
    assert recorded.raw_body != recorded.body
    assert server.feedback()[0]["key"] == "k"


@pytest.mark.skipif(not HAS_ZSTD, reason="zstandard is not installed")
def test_zstd_decoding() -> None:
    import zstandard

    assert decode_body(zstandard.ZstdCompressor().compress(b"hello"), "zstd") == b"hello"


def test_parse_multipart() -> None:
    body = (
        b"--XyZ\r\n"
        b'Content-Disposition: form-data; name="post.1"\r\n'
        b"Content-Type: application/json\r\n\r\n"
        b'{"a": 1}\r\n'
        b"--XyZ\r\n"
        b'Content-Disposition: form-data; name="attachment.1.img"; filename="i.png"\r\n'
        b"Content-Type: image/png\r\n\r\n"
        b"\x89PNG\r\n\r\n"
        b"--XyZ--\r\n"
    )
    first, second = parse_multipart(body, "multipart/form-data; boundary=XyZ")
    assert (first.name, first.json, first.content_type) == ("post.1", {"a": 1}, "application/json")
    assert (second.name, second.filename, second.json) == ("attachment.1.img", "i.png", None)
    assert second.body == b"\x89PNG\r\n"


def test_stop_closes_idle_keep_alive_connections() -> None:
    with FakeLangSmith() as server:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        conn.request("GET", "/info")
        response = conn.getresponse()
        assert response.status == 200
        response.read()
        assert conn.sock is not None  # kept alive (HTTP/1.1)
        sock = conn.sock
    try:
        assert sock.recv(1) == b""  # closed by the server on stop
    finally:
        conn.close()
