"""A small, self-contained fake LangSmith API server for tests.

The real ``langsmith`` client (and langsmith's own pytest plugin) talk plain HTTP to
it, so tests can assert on what was uploaded without mocking the client::

    with FakeLangSmith(mode="multipart") as server:
        client = langsmith.Client(api_url=server.url, api_key="test-key")
        ...
        client.flush()
        server.wait_for(lambda s: s.feedback())
        assert server.feedback()[0]["key"] == "pass"

``mode`` decides what ``GET /info`` reports and therefore which ingestion paths the
client picks:

* ``"multipart"``: ``batch_ingest_config.use_multipart_endpoint`` is true and
  ``version`` is recent (>= 0.8.10), so runs *and* feedback go through
  ``POST /runs/multipart`` (feedback as ``feedback.<id>`` parts); the instance flag
  ``dataset_examples_multipart_enabled`` sends examples through
  ``POST /v1/platform/datasets/{id}/examples``; the instance flag
  ``zstd_compression_enabled`` (``zstd=True``, the default) makes the client
  zstd-compress the multipart run stream when the ``zstandard`` module is importable.
* ``"legacy"``: ``use_multipart_endpoint`` is false, no instance flags and an old
  version, so runs go through ``POST /runs/batch`` (or ``POST /runs`` and
  ``PATCH /runs/{id}`` when the client does not batch), feedback through
  ``POST /feedback`` and examples through ``POST /examples`` or ``/examples/bulk``.

Every request is recorded (``server.requests``), bodies are decompressed (gzip,
deflate, zstd) and multipart bodies are split into parts.  Convenience accessors
(``feedback()``, ``runs()``, ``examples()``, ``datasets``, ``sessions``) merge what
arrived over both transports.  ``fault`` injects failures: ``"500"``, ``"429"``
(with ``Retry-After: 0``), ``"401"`` (the answer to a key LangSmith does not accept),
``"hang"`` (every request sleeps ``hang_seconds``, then is answered normally; the sleep is
cut short when the server stops) or ``"drip"`` (the answer is sent one byte every
``drip_seconds``, so that no read waits long enough to time out).  ``fault_on`` narrows
the fault to some requests, e.g. ingestion only::

    FakeLangSmith(fault="500", fault_on=lambda method, path: path.startswith("/runs"))

``fault`` and ``fault_on`` are plain attributes and may be changed while the server
runs.  ``refused_url()`` gives a URL where nothing listens.
"""

from __future__ import annotations

import contextlib
import copy
import gzip
import io
import json
import logging
import re
import socket
import sys
import threading
import time
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

__all__ = [
    "FakeLangSmith",
    "Fault",
    "Mode",
    "Part",
    "Recorded",
    "decode_body",
    "parse_multipart",
    "refused_url",
]

logger = logging.getLogger(__name__)

Mode = Literal["multipart", "legacy"]
Fault = Literal["500", "429", "401", "hang", "drip"]
_DRIP = "x-fake-drip"  # internal: tells the handler to drip this answer

TENANT_ID = "00000000-0000-4000-8000-00000000fa4e"
"""The tenant (workspace) id every object of the fake server belongs to."""

_DEFAULT_SESSION_ID = "00000000-0000-4000-8000-0000000defa1"


@dataclass(frozen=True)
class Part:
    """One part of a ``multipart/form-data`` request body."""

    name: str
    headers: dict[str, str]
    """Part headers, keys lower-cased."""
    content_type: str | None
    body: bytes
    json: Any | None
    """The decoded body when the part is JSON, else ``None``."""
    filename: str | None = None


@dataclass
class Recorded:
    """One request the server received."""

    method: str
    path: str
    query: dict[str, list[str]]
    """Query parameters; every value is a list (repeated keys are kept)."""
    headers: dict[str, str]
    """Request headers, keys lower-cased."""
    body: bytes
    """The body after undoing any ``Content-Encoding`` (gzip, deflate, zstd)."""
    json: Any | None
    """The decoded body when it is JSON, else ``None``."""
    parts: list[Part] | None
    """The parts when the body is ``multipart/form-data``, else ``None``."""
    raw_body: bytes = b""
    """The body as it came over the wire."""
    status: int | None = None
    """The status the server answered, ``None`` while unanswered (e.g. hanging)."""
    handled: bool = True
    """False when no route of the fake server matched the request."""

    def param(self, name: str) -> str | None:
        """The first value of query parameter ``name``."""
        values = self.query.get(name)
        return values[0] if values else None

    @property
    def content_encoding(self) -> str | None:
        return self.headers.get("content-encoding")

    def __str__(self) -> str:
        return f"{self.method} {self.path} -> {self.status}"


# --------------------------------------------------------------------------- helpers


def refused_url() -> str:
    """A URL on 127.0.0.1 where nothing listens (connections are refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def _new_id() -> str:
    return str(uuid.uuid4())


def _header_params(value: str) -> tuple[str, dict[str, str]]:
    """Split ``type/sub; a=1; b="x"`` into the main value and its parameters."""
    main, _, rest = value.partition(";")
    params: dict[str, str] = {}
    for match in re.finditer(r'([\w*-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))', rest):
        key = match.group(1).lower()
        params[key] = match.group(2) if match.group(2) is not None else match.group(3)
    return main.strip().lower(), params


def decode_body(raw: bytes, content_encoding: str | None) -> bytes:
    """Undo a request's ``Content-Encoding`` (gzip, deflate, zstd; may be chained)."""
    encodings = [e.strip().lower() for e in (content_encoding or "").split(",") if e.strip()]
    data = raw
    for encoding in reversed(encodings):
        if encoding == "identity":
            continue
        if encoding in ("gzip", "x-gzip"):
            data = gzip.decompress(data)
        elif encoding == "deflate":
            data = zlib.decompress(data)
        elif encoding == "zstd":
            import zstandard  # only needed when the client compresses

            reader = zstandard.ZstdDecompressor().stream_reader(
                io.BytesIO(data), read_across_frames=True
            )
            with reader:
                data = reader.read()
        else:
            raise ValueError(f"unsupported Content-Encoding {encoding!r}")
    return data


def _maybe_json(data: bytes, content_type: str | None) -> Any | None:
    if not data:
        return None
    mime = _header_params(content_type)[0] if content_type else ""
    if mime and "json" not in mime:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return None


def parse_multipart(body: bytes, content_type: str) -> list[Part]:
    """Split a ``multipart/form-data`` body into its parts."""
    _, params = _header_params(content_type)
    boundary = params.get("boundary")
    if not boundary:
        raise ValueError(f"no boundary in Content-Type {content_type!r}")
    delimiter = b"\r\n--" + boundary.encode("latin-1")
    parts: list[Part] = []
    # Prefix a CRLF so that the first delimiter looks like every other one.
    for segment in (b"\r\n" + body).split(delimiter)[1:]:
        if segment.startswith(b"--"):
            break  # the close delimiter
        # Skip transport padding and the CRLF that ends the delimiter line.
        _, _, segment = segment.partition(b"\r\n")
        head, sep, data = segment.partition(b"\r\n\r\n")
        if not sep:  # a part without a blank line has no body
            head, data = segment, b""
        headers: dict[str, str] = {}
        for line in head.decode("utf-8", "replace").split("\r\n"):
            if ":" in line:
                key, _, value = line.partition(":")
                headers[key.strip().lower()] = value.strip()
        _, disposition = _header_params(headers.get("content-disposition", ""))
        part_type = headers.get("content-type")
        parts.append(
            Part(
                name=disposition.get("name", ""),
                headers=headers,
                content_type=part_type,
                body=data,
                json=_maybe_json(data, part_type or "application/json")
                if part_type is None or "json" in part_type
                else None,
                filename=disposition.get("filename"),
            )
        )
    return parts


class _NotFound(Exception):
    pass


class _Conflict(Exception):
    pass


_Response = tuple[int, Any]
_Handler = Callable[["Recorded", "re.Match[str]"], _Response]


# --------------------------------------------------------------------------- server


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    owner: FakeLangSmith

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            # The client gave up (timeout, closed keep-alive connection): not a bug.
            logger.debug("fake langsmith: connection from %s dropped: %r", client_address, exc)
            return
        super().handle_error(request, client_address)


class _RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        self.server.owner._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.owner._track(self.connection, add=False)

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("fake langsmith: " + format, *args)

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                size_line = self.rfile.readline()
                size = int(size_line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _handle(self) -> None:
        owner = self.server.owner
        raw = self._read_body()
        status, payload, extra_headers = owner._serve(
            self.command, self.path, dict(self.headers.items()), raw
        )
        if status == 0:  # the server stopped while this request hung: drop it
            self.close_connection = True
            return
        data = json.dumps(payload).encode()
        if extra_headers.pop(_DRIP, None):
            self._drip(status, data)
            return
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in extra_headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
        except (ConnectionError, TimeoutError):  # the client gave up on a hung request
            self.close_connection = True

    def _drip(self, status: int, data: bytes) -> None:
        """The whole answer, one byte every ``drip_seconds`` until it is sent or the server
        stops: a client whose timeout restarts with every byte waits for all of it."""
        head = (
            f"HTTP/1.1 {status} OK\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n"
        ).encode()
        stop = self.server.owner._stop
        try:
            for byte in head + data:
                if stop.wait(self.server.owner.drip_seconds):
                    break
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
        except (ConnectionError, TimeoutError):
            pass
        self.close_connection = True

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle


class FakeLangSmith:
    """An in-process fake of the LangSmith REST API on ``127.0.0.1``.

    Use it as a context manager; ``url`` is valid inside the ``with`` block.
    """

    def __init__(
        self,
        mode: Mode = "multipart",
        *,
        fault: Fault | None = None,
        hang_seconds: float = 30.0,
        drip_seconds: float = 1.0,
        zstd: bool = True,
        fault_on: Callable[[str, str], bool] | None = None,
        prefix: str = "",
    ) -> None:
        if mode not in ("multipart", "legacy"):
            raise ValueError(f"mode must be 'multipart' or 'legacy', not {mode!r}")
        if fault not in (None, "500", "429", "401", "hang", "drip"):
            raise ValueError(f"unknown fault {fault!r}")
        self.mode: Mode = mode
        self.fault: Fault | None = fault
        self.hang_seconds = hang_seconds
        self.drip_seconds = drip_seconds
        self.zstd = zstd
        self.fault_on = fault_on
        """When set, ``fault`` only hits requests for which ``fault_on(method, path)``."""
        self.prefix = prefix.rstrip("/")
        """A path the API lives under (``/api/v1``, as on a self-hosted LangSmith): part of
        ``url``, and taken off every request's path before it is recorded and answered."""
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._requests: list[Recorded] = []
        self.errors: list[str] = []
        """Tracebacks of exceptions raised by the fake server's own handlers."""
        self._datasets: dict[str, dict[str, Any]] = {}
        self._sessions: dict[str, dict[str, Any]] = {}
        self._examples: dict[str, dict[str, Any]] = {}
        self._run_creates: dict[str, dict[str, Any]] = {}
        self._run_updates: dict[str, dict[str, Any]] = {}
        self._run_order: list[str] = []
        self._feedback: list[dict[str, Any]] = []
        self._dataset_tags: list[dict[str, Any]] = []
        self._routes: list[tuple[str, re.Pattern[str], _Handler]] = self._build_routes()

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> FakeLangSmith:
        if self._httpd is not None:
            raise RuntimeError("already started")
        self._stop.clear()
        httpd = _HTTPServer(("127.0.0.1", 0), _RequestHandler)
        httpd.owner = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"FakeLangSmith:{httpd.server_address[1]}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stop.set()  # wakes hanging requests
        httpd.shutdown()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:  # ends idle keep-alive connections
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeLangSmith:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the server is not running")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The API's endpoint: ``http://127.0.0.1:<port>`` and the ``prefix``."""
        return f"http://127.0.0.1:{self.port}{self.prefix}"

    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            if add:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)

    # ------------------------------------------------------------------ inspection

    @property
    def requests(self) -> list[Recorded]:
        """Every request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def unhandled(self) -> list[Recorded]:
        """Requests no route matched (they were answered 404)."""
        with self._lock:
            return [r for r in self._requests if not r.handled]

    def endpoints(self) -> list[str]:
        """``"METHOD /path"`` of every request, ids replaced by ``{id}``."""
        id_re = re.compile(
            r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
        )
        return [f"{r.method} {id_re.sub('{id}', r.path)}" for r in self.requests]

    @property
    def info(self) -> dict[str, Any]:
        """What ``GET /info`` answers."""
        ingest = {
            "scale_up_qsize_trigger": 1000,
            "scale_up_nthreads_limit": 16,
            "scale_down_nempty_trigger": 4,
            "size_limit": 100,
            "size_limit_bytes": 20_971_520,
        }
        if self.mode == "multipart":
            return {
                "version": "0.11.0",
                "license_expiration_time": None,
                "batch_ingest_config": {**ingest, "use_multipart_endpoint": True},
                "instance_flags": {
                    "dataset_examples_multipart_enabled": True,
                    "examples_multipart_enabled": True,
                    "zstd_compression_enabled": self.zstd,
                },
            }
        return {
            "version": "0.7.0",
            "license_expiration_time": None,
            "batch_ingest_config": {**ingest, "use_multipart_endpoint": False},
            "instance_flags": {},
        }

    @property
    def datasets(self) -> list[dict[str, Any]]:
        """Datasets created through the API, in creation order."""
        with self._lock:
            return copy.deepcopy(list(self._datasets.values()))

    @property
    def sessions(self) -> list[dict[str, Any]]:
        """Projects / experiments created through the API, in creation order."""
        with self._lock:
            return copy.deepcopy(list(self._sessions.values()))

    @property
    def dataset_tags(self) -> list[dict[str, Any]]:
        """Bodies of ``PUT /datasets/{id}/tags`` (with ``dataset_id`` added)."""
        with self._lock:
            return copy.deepcopy(self._dataset_tags)

    def examples(self) -> list[dict[str, Any]]:
        """Examples (``inputs``, ``outputs`` = reference outputs, ``dataset_id``, ...)."""
        with self._lock:
            return copy.deepcopy(list(self._examples.values()))

    def feedback(self) -> list[dict[str, Any]]:
        """Feedback from ``POST /feedback`` and multipart ``feedback.<id>`` parts.

        Every dict has at least ``id``, ``key``, ``score``, ``value``, ``comment``,
        ``run_id``, ``trace_id`` and ``session_id`` (``None`` when not sent).
        """
        with self._lock:
            return copy.deepcopy(self._feedback)

    def runs(self) -> dict[str, dict[str, Any]]:
        """Runs by id: every create merged with every later update.

        Fields set by an update (``PATCH /runs/{id}``, a ``patch`` batch entry or
        ``patch.<id>`` parts) override those of the create when not ``None``.
        """
        with self._lock:
            return {run_id: self._merged_run(run_id) for run_id in self._run_order}

    def wait_for(
        self,
        predicate: Callable[[FakeLangSmith], object],
        timeout: float = 10.0,
        interval: float = 0.05,
    ) -> None:
        """Poll until ``predicate(self)`` is truthy; ``TimeoutError`` otherwise."""
        deadline = time.monotonic() + timeout
        while True:
            if predicate(self):
                return
            if time.monotonic() >= deadline:
                seen = "\n".join(f"  {r}" for r in self.requests) or "  (none)"
                raise TimeoutError(f"condition not met within {timeout}s; requests:\n{seen}")
            time.sleep(interval)

    # ------------------------------------------------------------------ request entry

    def _serve(
        self, method: str, target: str, headers: dict[str, str], raw: bytes
    ) -> tuple[int, Any, dict[str, str]]:
        """Record and answer one request. Status 0 means: drop the connection."""
        split = urlsplit(target)
        if self.prefix and split.path.startswith(self.prefix + "/"):
            split = split._replace(path=split.path[len(self.prefix) :])
        lower_headers = {k.lower(): v for k, v in headers.items()}
        content_type = lower_headers.get("content-type")
        rec = Recorded(
            method=method,
            path=split.path,
            query=parse_qs(split.query, keep_blank_values=True),
            headers=lower_headers,
            body=raw,
            json=None,
            parts=None,
            raw_body=raw,
            status=None,
        )
        try:
            rec.body = decode_body(raw, lower_headers.get("content-encoding"))
            mime = _header_params(content_type)[0] if content_type else ""
            if mime == "multipart/form-data" and content_type:
                rec.parts = parse_multipart(rec.body, content_type)
            else:
                rec.json = _maybe_json(rec.body, content_type)
        except Exception as exc:  # record what arrived even if it is garbage
            self._note_error(f"could not decode {method} {split.path}: {exc!r}")
        with self._lock:
            self._requests.append(rec)

        fault = self.fault
        if fault is not None and self.fault_on is not None and not self.fault_on(method, rec.path):
            fault = None
        if fault == "hang":
            if self._stop.wait(self.hang_seconds):
                return 0, None, {}
        elif fault == "500":
            rec.status = 500
            return 500, {"detail": "Internal Server Error (injected fault)"}, {}
        elif fault == "429":
            rec.status = 429
            return 429, {"detail": "Too Many Requests (injected fault)"}, {"Retry-After": "0"}
        elif fault == "401":
            rec.status = 401
            return 401, {"detail": "Invalid token (injected fault)"}, {}

        status, payload = self._dispatch(rec)
        rec.status = status
        return status, payload, {_DRIP: "1"} if fault == "drip" else {}

    def _note_error(self, message: str) -> None:
        logger.error("fake langsmith: %s", message)
        with self._lock:
            self.errors.append(message)

    def _dispatch(self, rec: Recorded) -> _Response:
        path = rec.path.rstrip("/") or "/"
        for method, pattern, handler in self._routes:
            if method != rec.method:
                continue
            match = pattern.fullmatch(path)
            if match is None:
                continue
            try:
                with self._lock:
                    return handler(rec, match)
            except _NotFound as exc:
                return 404, {"detail": str(exc) or "Not Found"}
            except _Conflict as exc:
                return 409, {"detail": str(exc) or "Conflict"}
            except Exception as exc:
                import traceback

                self._note_error(
                    f"handler for {rec.method} {rec.path} failed: {exc!r}\n"
                    + traceback.format_exc()
                )
                return 500, {"detail": f"fake server error: {exc!r}"}
        rec.handled = False
        logger.warning("fake langsmith: unhandled %s %s", rec.method, rec.path)
        return 404, {"detail": "Not Found"}

    def _build_routes(self) -> list[tuple[str, re.Pattern[str], _Handler]]:
        uid = r"(?P<id>[0-9a-fA-F-]{36})"
        table: list[tuple[str, str, _Handler]] = [
            ("GET", r"/info", self._get_info),
            ("GET", r"/settings", self._get_settings),
            # datasets
            ("GET", r"/datasets", self._list_datasets),
            ("POST", r"/datasets", self._create_dataset),
            ("GET", rf"/datasets/{uid}", self._read_dataset),
            ("PATCH", rf"/datasets/{uid}", self._update_dataset),
            ("DELETE", rf"/datasets/{uid}", self._delete_dataset),
            ("GET", rf"/datasets/{uid}/versions", self._list_dataset_versions),
            ("GET", rf"/datasets/{uid}/version", self._read_dataset_version),
            ("PUT", rf"/datasets/{uid}/tags", self._put_dataset_tag),
            ("GET", rf"/datasets/{uid}/splits", self._list_splits),
            ("PUT", rf"/datasets/{uid}/splits", self._put_splits),
            # examples
            ("POST", rf"(?:/v1)?/platform/datasets/{uid}/examples", self._upload_examples),
            ("PATCH", rf"(?:/v1)?/platform/datasets/{uid}/examples", self._upload_examples),
            ("POST", r"(?:/v1)?/platform/examples/multipart", self._upsert_examples),
            ("GET", r"/examples", self._list_examples),
            ("POST", r"/examples", self._create_example),
            ("POST", r"/examples/bulk", self._create_examples_bulk),
            ("PATCH", r"/examples/bulk", self._update_examples_bulk),
            ("GET", rf"/examples/{uid}", self._read_example),
            ("PATCH", rf"/examples/{uid}", self._update_example),
            ("DELETE", rf"/examples/{uid}", self._delete_example),
            # sessions (projects, experiments)
            ("GET", r"/sessions", self._list_sessions),
            ("POST", r"/sessions", self._create_session),
            ("GET", rf"/sessions/{uid}", self._read_session),
            ("PATCH", rf"/sessions/{uid}", self._update_session),
            ("DELETE", rf"/sessions/{uid}", self._delete_session),
            # runs
            ("POST", r"/runs", self._create_run),
            ("POST", r"/runs/batch", self._batch_runs),
            ("POST", r"/runs/multipart", self._multipart_runs),
            ("POST", r"/runs/query", self._query_runs),
            ("GET", rf"/runs/{uid}", self._read_run),
            ("PATCH", rf"/runs/{uid}", self._update_run),
            # feedback
            ("GET", r"/feedback", self._list_feedback),
            ("POST", r"/feedback", self._create_feedback),
            ("GET", rf"/feedback/{uid}", self._read_feedback),
            ("PATCH", rf"/feedback/{uid}", self._update_feedback),
            ("DELETE", rf"/feedback/{uid}", self._delete_feedback),
        ]
        return [(method, re.compile(rx), handler) for method, rx, handler in table]

    # ------------------------------------------------------------------ generic

    def _get_info(self, rec: Recorded, m: re.Match[str]) -> _Response:
        return 200, self.info

    def _get_settings(self, rec: Recorded, m: re.Match[str]) -> _Response:
        return 200, {
            "id": TENANT_ID,
            "display_name": "fake",
            "created_at": "2024-01-01T00:00:00+00:00",
            "tenant_handle": "fake",
        }

    @staticmethod
    def _page(items: list[dict[str, Any]], rec: Recorded) -> list[dict[str, Any]]:
        offset = int(rec.param("offset") or 0)
        limit = rec.param("limit")
        end = offset + int(limit) if limit else None
        return copy.deepcopy(items[offset:end])

    @staticmethod
    def _body(rec: Recorded) -> dict[str, Any]:
        if not isinstance(rec.json, dict):
            raise ValueError(f"expected a JSON object body, got {rec.json!r}")
        return rec.json

    # ------------------------------------------------------------------ datasets

    def _dataset(self, dataset_id: str) -> dict[str, Any]:
        try:
            return self._datasets[dataset_id]
        except KeyError:
            raise _NotFound("Dataset not found") from None

    def _list_datasets(self, rec: Recorded, m: re.Match[str]) -> _Response:
        items = list(self._datasets.values())
        if "name" in rec.query:
            items = [d for d in items if d["name"] in rec.query["name"]]
        if "id" in rec.query:
            items = [d for d in items if d["id"] in rec.query["id"]]
        if contains := rec.param("name_contains"):
            items = [d for d in items if contains in d["name"]]
        return 200, self._page(items, rec)

    def _create_dataset(self, rec: Recorded, m: re.Match[str]) -> _Response:
        body = self._body(rec)
        name = body["name"]
        if any(d["name"] == name for d in self._datasets.values()):
            raise _Conflict(f"Dataset with name {name!r} already exists")
        now = _now()
        extra = body.get("extra") or {}
        dataset = {
            "id": str(body.get("id") or _new_id()),
            "name": name,
            "description": body.get("description"),
            "data_type": body.get("data_type") or "kv",
            "created_at": now,
            "modified_at": now,
            "example_count": 0,
            "session_count": 0,
            "last_session_start_time": None,
            "inputs_schema_definition": body.get("inputs_schema_definition"),
            "outputs_schema_definition": body.get("outputs_schema_definition"),
            "transformations": body.get("transformations"),
            "metadata": extra.get("metadata"),
            "tenant_id": TENANT_ID,
        }
        self._datasets[dataset["id"]] = dataset
        return 200, copy.deepcopy(dataset)

    def _read_dataset(self, rec: Recorded, m: re.Match[str]) -> _Response:
        return 200, copy.deepcopy(self._dataset(m["id"]))

    def _update_dataset(self, rec: Recorded, m: re.Match[str]) -> _Response:
        dataset = self._dataset(m["id"])
        for key, value in self._body(rec).items():
            if value is not None and key != "id":
                dataset[key] = value
        dataset["modified_at"] = _now()
        return 200, copy.deepcopy(dataset)

    def _delete_dataset(self, rec: Recorded, m: re.Match[str]) -> _Response:
        self._dataset(m["id"])
        del self._datasets[m["id"]]
        return 200, {}

    def _list_dataset_versions(self, rec: Recorded, m: re.Match[str]) -> _Response:
        dataset = self._dataset(m["id"])
        tags = [t["tag"] for t in self._dataset_tags if t["dataset_id"] == m["id"]]
        return 200, self._page([{"as_of": dataset["modified_at"], "tags": tags}], rec)

    def _read_dataset_version(self, rec: Recorded, m: re.Match[str]) -> _Response:
        dataset = self._dataset(m["id"])
        as_of = rec.param("as_of") or rec.param("tag") or dataset["modified_at"]
        tags = [t["tag"] for t in self._dataset_tags if t["dataset_id"] == m["id"]]
        return 200, {"as_of": as_of, "tags": tags}

    def _put_dataset_tag(self, rec: Recorded, m: re.Match[str]) -> _Response:
        self._dataset(m["id"])
        body = self._body(rec)
        self._dataset_tags.append({**body, "dataset_id": m["id"]})
        return 200, {"as_of": body.get("as_of"), "tags": [body.get("tag")]}

    def _list_splits(self, rec: Recorded, m: re.Match[str]) -> _Response:
        self._dataset(m["id"])
        splits: set[str] = set()
        for example in self._examples.values():
            if example["dataset_id"] == m["id"]:
                splits.update((example.get("metadata") or {}).get("dataset_split") or [])
        return 200, sorted(splits)

    def _put_splits(self, rec: Recorded, m: re.Match[str]) -> _Response:
        self._dataset(m["id"])
        return 200, []

    # ------------------------------------------------------------------ examples

    def _store_example(
        self,
        dataset_id: str,
        fields: dict[str, Any],
        *,
        example_id: str | None = None,
        conflict: bool = True,
    ) -> dict[str, Any]:
        dataset = self._dataset(dataset_id)
        example_id = str(example_id or fields.get("id") or _new_id())
        if conflict and example_id in self._examples:
            raise _Conflict(f"Example {example_id} already exists")
        split = fields.get("split") or "base"
        metadata = dict(fields.get("metadata") or {})
        # The real service keeps the split(s) in metadata["dataset_split"]; the
        # langsmith pytest integration pops that key when it re-reads an example.
        metadata["dataset_split"] = [split] if isinstance(split, str) else list(split)
        now = _now()
        example = {
            "id": example_id,
            "dataset_id": dataset_id,
            "inputs": fields.get("inputs"),
            "outputs": fields.get("outputs", fields.get("reference_outputs")),
            "metadata": metadata,
            "created_at": fields.get("created_at") or now,
            "modified_at": now,
            "source_run_id": fields.get("source_run_id"),
            "attachment_urls": None,
        }
        if fields.get("attachments"):
            example["attachments"] = fields["attachments"]
        self._examples[example_id] = example
        dataset["example_count"] = sum(
            1 for e in self._examples.values() if e["dataset_id"] == dataset_id
        )
        dataset["modified_at"] = now
        return example

    def _patch_example(self, example_id: str, fields: dict[str, Any]) -> dict[str, Any]:
        example = self._examples.get(example_id)
        if example is None:
            raise _NotFound("Example not found")
        for key in ("inputs", "outputs", "source_run_id"):
            if fields.get(key) is not None:
                example[key] = fields[key]
        if fields.get("metadata") is not None:
            split = example["metadata"].get("dataset_split", ["base"])
            example["metadata"] = {**fields["metadata"], "dataset_split": split}
        if fields.get("split") is not None:
            split = fields["split"]
            example["metadata"]["dataset_split"] = [split] if isinstance(split, str) else split
        if fields.get("dataset_id") is not None:
            example["dataset_id"] = str(fields["dataset_id"])
        if fields.get("attachments"):
            example.setdefault("attachments", {}).update(fields["attachments"])
        example["modified_at"] = _now()
        if example["dataset_id"] in self._datasets:
            self._datasets[example["dataset_id"]]["modified_at"] = example["modified_at"]
        return example

    @staticmethod
    def _example_fields_from_parts(parts: list[Part]) -> dict[str, dict[str, Any]]:
        """Group ``<id>``, ``<id>.inputs``, ``<id>.outputs``, ... parts by example id."""
        grouped: dict[str, dict[str, Any]] = {}
        for part in parts:
            example_id, _, sub = part.name.partition(".")
            fields = grouped.setdefault(example_id, {})
            if not sub:
                if isinstance(part.json, dict):
                    fields.update(part.json)
            elif sub.startswith("attachment."):
                name = sub[len("attachment.") :]
                fields.setdefault("attachments", {})[name] = {
                    "content_type": part.content_type,
                    "data": part.body,
                }
            else:
                fields[sub] = part.json
        return grouped

    def _upload_examples(self, rec: Recorded, m: re.Match[str]) -> _Response:
        dataset_id = m["id"]
        self._dataset(dataset_id)
        grouped = self._example_fields_from_parts(rec.parts or [])
        for example_id, fields in grouped.items():
            if rec.method == "PATCH":
                self._patch_example(example_id, fields)
            else:
                self._store_example(dataset_id, fields, example_id=example_id, conflict=False)
        return 200, {"example_ids": list(grouped), "count": len(grouped), "as_of": _now()}

    def _upsert_examples(self, rec: Recorded, m: re.Match[str]) -> _Response:
        grouped = self._example_fields_from_parts(rec.parts or [])
        for example_id, fields in grouped.items():
            if example_id in self._examples:
                self._patch_example(example_id, fields)
            else:
                dataset_id = str(fields.get("dataset_id"))
                self._store_example(dataset_id, fields, example_id=example_id)
        return 200, {"example_ids": list(grouped), "count": len(grouped), "as_of": _now()}

    def _list_examples(self, rec: Recorded, m: re.Match[str]) -> _Response:
        items = list(self._examples.values())
        if "dataset" in rec.query:
            items = [e for e in items if e["dataset_id"] in rec.query["dataset"]]
        if "id" in rec.query:
            items = [e for e in items if e["id"] in rec.query["id"]]
        return 200, self._page(items, rec)

    def _create_example(self, rec: Recorded, m: re.Match[str]) -> _Response:
        body = self._body(rec)
        return 200, copy.deepcopy(self._store_example(str(body.get("dataset_id")), body))

    def _create_examples_bulk(self, rec: Recorded, m: re.Match[str]) -> _Response:
        if not isinstance(rec.json, list):
            raise ValueError("expected a JSON list body")
        created = [self._store_example(str(b.get("dataset_id")), b) for b in rec.json]
        return 200, copy.deepcopy(created)

    def _update_examples_bulk(self, rec: Recorded, m: re.Match[str]) -> _Response:
        if not isinstance(rec.json, list):
            raise ValueError("expected a JSON list body")
        for update in rec.json:
            self._patch_example(str(update["id"]), update)
        return 200, {"message": f"{len(rec.json)} examples updated"}

    def _read_example(self, rec: Recorded, m: re.Match[str]) -> _Response:
        example = self._examples.get(m["id"])
        if example is None:
            raise _NotFound("Example not found")
        return 200, copy.deepcopy(example)

    def _update_example(self, rec: Recorded, m: re.Match[str]) -> _Response:
        return 200, copy.deepcopy(self._patch_example(m["id"], self._body(rec)))

    def _delete_example(self, rec: Recorded, m: re.Match[str]) -> _Response:
        if self._examples.pop(m["id"], None) is None:
            raise _NotFound("Example not found")
        return 200, {}

    # ------------------------------------------------------------------ sessions

    def _default_session(self) -> dict[str, Any]:
        return {
            "id": _DEFAULT_SESSION_ID,
            "name": "default",
            "description": None,
            "extra": None,
            "reference_dataset_id": None,
            "tenant_id": TENANT_ID,
            "start_time": "2024-01-01T00:00:00+00:00",
            "end_time": None,
            "run_count": 0,
        }

    def _session(self, session_id: str) -> dict[str, Any]:
        if session_id == _DEFAULT_SESSION_ID:
            return self._default_session()
        try:
            return self._sessions[session_id]
        except KeyError:
            raise _NotFound("Session not found") from None

    def _list_sessions(self, rec: Recorded, m: re.Match[str]) -> _Response:
        # The client reads the tenant id from the first project of an unfiltered
        # list, so a built-in "default" project (as on the real service) comes last.
        items = [*self._sessions.values(), self._default_session()]
        if "name" in rec.query:
            items = [s for s in items if s["name"] in rec.query["name"]]
        if "id" in rec.query:
            items = [s for s in items if s["id"] in rec.query["id"]]
        if "reference_dataset" in rec.query:
            wanted = rec.query["reference_dataset"]
            items = [s for s in items if s["reference_dataset_id"] in wanted]
        if contains := rec.param("name_contains"):
            items = [s for s in items if contains in s["name"]]
        return 200, self._page(items, rec)

    def _create_session(self, rec: Recorded, m: re.Match[str]) -> _Response:
        body = self._body(rec)
        name = body.get("name") or f"project-{uuid.uuid4().hex[:8]}"
        existing = [s for s in self._sessions.values() if s["name"] == name]
        if existing:
            if rec.param("upsert") in ("true", "True", "1"):
                return self._update_session_fields(existing[0], body)
            raise _Conflict(f"Session with name {name!r} already exists")
        reference_dataset_id = body.get("reference_dataset_id")
        session: dict[str, Any] = {
            "id": str(body.get("id") or _new_id()),
            "name": name,
            "description": body.get("description"),
            "extra": body.get("extra"),
            "reference_dataset_id": str(reference_dataset_id) if reference_dataset_id else None,
            "tenant_id": TENANT_ID,
            "start_time": body.get("start_time") or _now(),
            "end_time": body.get("end_time"),
            "run_count": 0,
        }
        for key in ("num_examples", "num_repetitions", "evaluator_keys"):
            if key in body:
                session[key] = body[key]
        self._sessions[session["id"]] = session
        if session["reference_dataset_id"] in self._datasets:
            dataset = self._datasets[session["reference_dataset_id"]]
            dataset["session_count"] += 1
            dataset["last_session_start_time"] = session["start_time"]
        return 200, copy.deepcopy(session)

    def _read_session(self, rec: Recorded, m: re.Match[str]) -> _Response:
        return 200, copy.deepcopy(self._session(m["id"]))

    def _update_session_fields(self, session: dict[str, Any], body: dict[str, Any]) -> _Response:
        for key in ("name", "description", "extra", "end_time"):
            if body.get(key) is not None:
                session[key] = body[key]
        session.setdefault("updates", []).append(copy.deepcopy(body))
        return 200, copy.deepcopy(session)

    def _update_session(self, rec: Recorded, m: re.Match[str]) -> _Response:
        if m["id"] not in self._sessions:
            raise _NotFound("Session not found")
        return self._update_session_fields(self._sessions[m["id"]], self._body(rec))

    def _delete_session(self, rec: Recorded, m: re.Match[str]) -> _Response:
        if self._sessions.pop(m["id"], None) is None:
            raise _NotFound("Session not found")
        return 200, {}

    # ------------------------------------------------------------------ runs

    def _apply_run(self, op: str, run_id: str, fields: dict[str, Any]) -> None:
        if run_id not in self._run_order:
            self._run_order.append(run_id)
        layer = self._run_creates if op == "post" else self._run_updates
        layer.setdefault(run_id, {"id": run_id}).update(fields)

    def _merged_run(self, run_id: str) -> dict[str, Any]:
        merged = dict(self._run_creates.get(run_id, {"id": run_id}))
        for key, value in self._run_updates.get(run_id, {}).items():
            if value is not None:
                merged[key] = value
        return copy.deepcopy(merged)

    def _create_run(self, rec: Recorded, m: re.Match[str]) -> _Response:
        body = self._body(rec)
        self._apply_run("post", str(body["id"]), body)
        return 200, {}

    def _update_run(self, rec: Recorded, m: re.Match[str]) -> _Response:
        self._apply_run("patch", m["id"], self._body(rec))
        return 200, {}

    def _batch_runs(self, rec: Recorded, m: re.Match[str]) -> _Response:
        body = self._body(rec)
        for op in ("post", "patch"):
            for run in body.get(op) or []:
                self._apply_run(op, str(run["id"]), run)
        return 202, {}

    def _multipart_runs(self, rec: Recorded, m: re.Match[str]) -> _Response:
        for part in rec.parts or []:
            kind, _, rest = part.name.partition(".")
            if kind == "feedback":
                if isinstance(part.json, dict):
                    self._add_feedback(part.json)
            elif kind in ("post", "patch"):
                run_id, _, sub = rest.partition(".")
                if not sub:
                    fields = part.json if isinstance(part.json, dict) else {}
                else:
                    fields = {sub: part.json}
                self._apply_run(kind, run_id, fields)
            elif kind == "attachment":
                run_id, _, name = rest.partition(".")
                attachment = {"content_type": part.content_type, "data": part.body}
                if run_id not in self._run_order:
                    self._run_order.append(run_id)
                layer = self._run_updates.setdefault(run_id, {"id": run_id})
                layer.setdefault("attachments", {})[name] = attachment
            else:
                logger.warning("fake langsmith: unknown multipart part %r", part.name)
        return 202, {}

    def _query_runs(self, rec: Recorded, m: re.Match[str]) -> _Response:
        body = self._body(rec) if rec.json is not None else {}
        runs = [self._merged_run(run_id) for run_id in self._run_order]
        if body.get("id"):
            wanted = {str(i) for i in body["id"]}
            runs = [r for r in runs if r["id"] in wanted]
        if body.get("trace"):
            runs = [r for r in runs if str(r.get("trace_id")) == str(body["trace"])]
        if body.get("session"):
            sessions = {str(s) for s in body["session"]}
            runs = [r for r in runs if str(r.get("session_id")) in sessions]
        return 200, {"runs": runs, "cursors": {"next": None}}

    def _read_run(self, rec: Recorded, m: re.Match[str]) -> _Response:
        if m["id"] not in self._run_order:
            raise _NotFound("Run not found")
        return 200, self._merged_run(m["id"])

    # ------------------------------------------------------------------ feedback

    def _add_feedback(self, body: dict[str, Any]) -> dict[str, Any]:
        feedback = dict(body)
        feedback["id"] = str(feedback.get("id") or _new_id())
        for key in ("key", "score", "value", "comment", "run_id", "trace_id", "session_id"):
            feedback.setdefault(key, None)
        # Feedback ids are primary keys: a retried upload replaces, not duplicates.
        for index, existing in enumerate(self._feedback):
            if existing["id"] == feedback["id"]:
                self._feedback[index] = feedback
                break
        else:
            self._feedback.append(feedback)
        return feedback

    def _feedback_by_id(self, feedback_id: str) -> dict[str, Any]:
        for feedback in self._feedback:
            if feedback["id"] == feedback_id:
                return feedback
        raise _NotFound("Feedback not found")

    def _list_feedback(self, rec: Recorded, m: re.Match[str]) -> _Response:
        items = list(self._feedback)
        if "run" in rec.query:
            items = [f for f in items if str(f["run_id"]) in rec.query["run"]]
        if "key" in rec.query:
            items = [f for f in items if f["key"] in rec.query["key"]]
        return 200, self._page(items, rec)

    def _create_feedback(self, rec: Recorded, m: re.Match[str]) -> _Response:
        return 200, copy.deepcopy(self._add_feedback(self._body(rec)))

    def _read_feedback(self, rec: Recorded, m: re.Match[str]) -> _Response:
        return 200, copy.deepcopy(self._feedback_by_id(m["id"]))

    def _update_feedback(self, rec: Recorded, m: re.Match[str]) -> _Response:
        feedback = self._feedback_by_id(m["id"])
        feedback.update(self._body(rec))
        return 200, copy.deepcopy(feedback)

    def _delete_feedback(self, rec: Recorded, m: re.Match[str]) -> _Response:
        self._feedback.remove(self._feedback_by_id(m["id"]))
        return 200, {}
