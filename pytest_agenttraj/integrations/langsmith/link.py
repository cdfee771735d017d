"""The connection to LangSmith behind the sink: a reachability probe, a client whose every request
is bounded, and a drain with a deadline at the end of the session. Imported only when logging is
enabled (it imports langsmith and requests).

How a LangSmith outage is kept from changing the run:

* ``probe`` asks ``GET {endpoint}/info`` once, with a short timeout, before any test runs; when
  it fails nothing is tracked.
* Every request of the client goes through ``GuardedSession``: short timeouts (never past the
  session's deadline), and after the first failure (no connection, no answer, 5xx, 429, 401/403)
  the guard *trips*: that request and every later one is answered at once with a synthetic 503.
  langsmith does not retry a 503 (nor sleep between attempts), so background uploads, the
  exit-time flush and langsmith's ``atexit`` work all finish in milliseconds instead of minutes.
* ``Link.drain`` waits for the pending uploads at the end of the session for at most
  ``Timeouts.drain``; past that deadline the guard refuses every request.

The timeouts are :class:`.timeouts.Timeouts`.
"""

from __future__ import annotations

import atexit
import json
import logging
import socket
import threading
import time
import urllib.error
import urllib.request
import uuid
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit, urlunsplit

import langsmith
import requests
from langsmith import utils as ls_utils
from urllib3.util import Retry

from .timeouts import Timeouts

__all__ = [
    "Guard",
    "GuardedSession",
    "Link",
    "Verdict",
    "api_key",
    "endpoint",
    "probe",
    "public_url",
    "web_url",
]

_DEFAULTS = Timeouts()
_T = TypeVar("_T")
STOPPED = "stopped by pytest-agenttraj"
"""Text in every synthetic answer; langsmith's own log lines about them are dropped."""

_FATAL_STATUS = frozenset({401, 403, 407, 429})
_EXPECTED_STATUS = frozenset({404, 409})  # langsmith reads before it creates, and races xdist
_LANGSMITH_LOGGERS = (
    "langsmith",
    "langsmith.client",
    "langsmith._internal._background_thread",
    "langsmith._internal._operations",
    "langsmith.run_helpers",
    "langsmith.run_trees",
    "langsmith.testing._internal",
    "langsmith.utils",
)


def endpoint() -> str:
    """The LangSmith API URL langsmith itself would use (``LANGSMITH_ENDPOINT``, ...)."""
    return ls_utils.get_api_url(None)


def api_key() -> str | None:
    return ls_utils.get_api_key(None)


def public_url(url: str) -> str:
    """``url`` without credentials, query or fragment: safe to print."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


_CLOUD_HOST = "smith.langchain.com"
_API_PATHS = ("/api/v1", "/api")


def web_url(api_url: str) -> str | None:
    """The address of the LangSmith web app that shows what the API at ``api_url`` stores, when
    the endpoint tells: for LangSmith's cloud (``*.smith.langchain.com``) the app langsmith names;
    for an endpoint ending in ``/api`` or ``/api/v1`` (a self-hosted LangSmith serves the app and
    the API from one address) the endpoint without that path. Otherwise ``None``: langsmith would
    guess ``http://localhost`` for any local endpoint, port and path dropped, or LangSmith's cloud
    for any other, and neither shows a self-hosted experiment.

    >>> web_url("http://localhost:1980/api/v1"), web_url("http://127.0.0.1:1984")
    ('http://localhost:1980', None)
    """
    parts = urlsplit(api_url)
    host = (parts.hostname or "").lower()
    if host == _CLOUD_HOST or host.endswith("." + _CLOUD_HOST):
        return str(ls_utils.get_host_url(None, api_url))
    path = parts.path.rstrip("/")
    for suffix in _API_PATHS:
        if path.endswith(suffix):
            return public_url(
                urlunsplit((parts.scheme, parts.netloc, path[: -len(suffix)], "", ""))
            )
    return None


@dataclass(frozen=True)
class Verdict:
    """The probe's answer. Builtins only: the controller sends it to xdist workers."""

    ok: bool
    reason: str | None = None
    info: Mapping[str, Any] | None = None

    def as_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "reason": self.reason, "info": dict(self.info or {}) or None}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Verdict:
        return cls(bool(data.get("ok")), data.get("reason"), data.get("info"))


class _Late(Exception):
    """A call that did not finish within its deadline (its thread is left behind)."""


def within(seconds: float, call: Callable[[], _T]) -> _T:
    """``call()``, or ``_Late`` once ``seconds`` have passed, however the call is going.

    A socket timeout restarts with every byte that arrives, so a server that answers one byte
    a second keeps a request going for minutes; only a deadline on the whole call bounds it.
    The call runs in a daemon thread, which the process does not wait for at exit.
    """
    done = threading.Event()
    box: list[Any] = []

    def run() -> None:
        try:
            box.append((True, call()))
        except BaseException as error:  # handed to the caller below
            box.append((False, error))
        finally:
            done.set()

    threading.Thread(target=run, name="agenttraj-langsmith-call", daemon=True).start()
    if not done.wait(seconds):
        raise _Late
    ok, value = box[0]
    if not ok:
        raise value
    return cast("_T", value)


def probe(api_url: str, timeout: float = _DEFAULTS.probe) -> Verdict:
    """``GET {api_url}/info`` once, all of it within ``timeout``: is LangSmith there, and what
    does it support?"""
    url = f"{api_url.rstrip('/')}/info"
    shown = f"GET {public_url(url)}"
    request = urllib.request.Request(url, headers={"Accept": "application/json"})

    def ask() -> bytes:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return bytes(response.read(1_000_000))

    try:
        body = within(timeout, ask)
    except _Late:
        return Verdict(False, f"{shown}: no complete answer within {timeout:g} s")
    except urllib.error.HTTPError as error:
        error.close()
        return Verdict(False, f"{shown} answered {error.code}")
    except urllib.error.URLError as error:
        return Verdict(False, f"{shown}: {_describe_os_error(error.reason, timeout)}")
    except OSError as error:  # includes TimeoutError while reading the answer
        return Verdict(False, f"{shown}: {_describe_os_error(error, timeout)}")
    try:
        info = json.loads(body)
    except ValueError:
        return Verdict(False, f"{shown} answered something that is not JSON")
    return Verdict(True, None, info if isinstance(info, dict) else None)


def _describe_os_error(error: object, timeout: float) -> str:
    if isinstance(error, TimeoutError | socket.timeout):
        return f"no complete answer within {timeout:g} s"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, socket.gaierror):
        return "unknown host"
    if isinstance(error, BaseException):
        return f"could not connect ({type(error).__name__})"
    return f"could not connect ({error})"


class Guard:
    """Shared by every request of one client: the first failure, the deadline, and counters."""

    def __init__(self, *, connect: float = _DEFAULTS.connect, read: float = _DEFAULTS.read) -> None:
        self._lock = threading.Lock()
        self.connect = connect
        self.read = read
        self.failure: str | None = None
        self.deadline: float | None = None  # time.monotonic(); later requests are refused
        self.rejected: list[str] = []  # non-fatal 4xx answers, for the summary

    def trip(self, reason: str) -> None:
        with self._lock:
            if self.failure is None:
                self.failure = reason

    @property
    def tripped(self) -> bool:
        return self.failure is not None

    def refusal(self) -> str | None:
        """Why a new request must not be sent, if it must not."""
        if self.failure is not None:
            return self.failure
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return "the end-of-session deadline passed"
        return None

    def timeout(self, given: Any) -> tuple[float, float]:
        connect, read = self.connect, self.read
        if isinstance(given, int | float):
            connect, read = min(connect, given), min(read, given)
        elif isinstance(given, tuple) and len(given) == 2:
            connect = min(connect, given[0]) if isinstance(given[0], int | float) else connect
            read = min(read, given[1]) if isinstance(given[1], int | float) else read
        if self.deadline is not None:
            left = max(0.05, self.deadline - time.monotonic())
            connect, read = min(connect, left), min(read, left)
        return connect, read

    def reject(self, reason: str) -> None:
        with self._lock:
            if len(self.rejected) < 5:
                self.rejected.append(reason)


class GuardedSession(requests.Session):
    """A ``requests.Session`` for the langsmith client that never waits long and, once LangSmith
    has failed, never waits at all (see the module docstring)."""

    def __init__(self, guard: Guard) -> None:
        super().__init__()
        self.guard = guard

    def request(  # type: ignore[override]
        self, method: str, url: str, *args: Any, **kwargs: Any
    ) -> requests.Response:
        what = f"{method.upper()} {urlsplit(url).path}"
        refused = self.guard.refusal()
        if refused is not None:
            return _stopped(method, url, refused)
        kwargs["timeout"] = timeout = self.guard.timeout(kwargs.get("timeout"))
        budget = max(timeout)  # the whole request, however the answer trickles in
        try:
            response = within(
                budget, lambda: requests.Session.request(self, method, url, *args, **kwargs)
            )
        except _Late:
            return self._fail(method, url, f"{what} got no complete answer within {budget:g} s")
        except requests.Timeout:
            return self._fail(method, url, f"{what} got no complete answer within {timeout[1]:g} s")
        except requests.ConnectionError as error:  # urllib3 reports read timeouts as these too
            reason = _connection_reason(error, timeout)
            joined = " got " if reason.startswith("no complete answer") else ": "
            return self._fail(method, url, f"{what}{joined}{reason}")
        except requests.RequestException as error:
            return self._fail(method, url, f"{what}: {type(error).__name__}")
        status = response.status_code
        if status >= 500 or status in _FATAL_STATUS:
            response.close()
            hint = " (check LANGSMITH_API_KEY)" if status in (401, 403) else ""
            return self._fail(method, url, f"{what} answered {status}{hint}")
        if status >= 400 and status not in _EXPECTED_STATUS:
            self.guard.reject(f"{what} answered {status}")
        return response

    def _fail(self, method: str, url: str, reason: str) -> requests.Response:
        self.guard.trip(reason)
        return _stopped(method, url, self.guard.failure or reason)


def _connection_reason(error: requests.ConnectionError, timeout: tuple[float, float]) -> str:
    text = repr(error)
    if "Connection refused" in text or "ConnectionRefusedError" in text:
        return "connection refused"
    if "Read timed out" in text or "ReadTimeout" in text:
        return f"no complete answer within {timeout[1]:g} s"
    if "timed out" in text or "Timeout" in text:
        return f"no connection within {timeout[0]:g} s"
    if "NameResolutionError" in text or "getaddrinfo" in text:
        return "unknown host"
    return "could not connect"


def _stopped(method: str, url: str, reason: str) -> requests.Response:
    response = requests.Response()
    response.status_code = 503
    response.reason = f"LangSmith logging {STOPPED}"
    response._content = json.dumps({"detail": f"LangSmith logging {STOPPED}: {reason}"}).encode()
    response.headers["Content-Type"] = "application/json"
    response.url = url
    response.request = requests.Request(method.upper(), url).prepare()
    return response


class _DropStoppedRecords(logging.Filter):
    """langsmith logs a warning for each upload the guard stopped; the sink reports the cause
    once, so those lines are noise (and some would show a masked API key)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except Exception:  # a record whose arguments do not format: keep it, as logging would
            return True
        if STOPPED in text:
            return False
        exc = record.exc_info[1] if record.exc_info else None
        return exc is None or STOPPED not in str(exc)


_FILTER = _DropStoppedRecords()


def quiet_stopped_uploads() -> None:
    for name in _LANGSMITH_LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)


class Link:
    """One process's connection: the guarded client and what the sink learned through it."""

    def __init__(
        self,
        verdict: Verdict,
        *,
        api_url: str,
        key: str | None,
        timeouts: Timeouts = _DEFAULTS,
    ) -> None:
        self.timeouts = timeouts
        self.guard = Guard(connect=timeouts.connect, read=timeouts.read)
        self.api_url = api_url
        self.web_url = web_url(api_url)
        self.session = GuardedSession(self.guard)
        retry = Retry(
            total=1,
            connect=1,
            read=0,
            status=0,
            backoff_factor=0.1,
            allowed_methods=None,
            raise_on_status=False,
            respect_retry_after_header=False,
        )
        with warnings.catch_warnings():
            # e.g. a missing API key: a warning here would be an error under
            # ``filterwarnings = error``; the first refused request (401) says it once instead
            warnings.simplefilter("ignore", ls_utils.LangSmithWarning)
            self.client = langsmith.Client(
                api_url=api_url,
                api_key=key,
                web_url=self.web_url,  # links in langsmith's table too (None: its own guess)
                session=self.session,
                retry_config=retry,
                timeout_ms=(int(timeouts.connect * 1000), int(timeouts.read * 1000)),
                info=dict(verdict.info) if verdict.info else None,
            )
        self._datasets: dict[str, Any] = {}
        self._lock = threading.Lock()
        quiet_stopped_uploads()

    def example_id(self, suite: str, nodeid: str) -> uuid.UUID:
        """A stable example id for a test: one example per test in the suite's dataset.

        The dataset's id (random, per workspace) is part of it, so ids never collide across
        datasets or workspaces; reading (or creating) the dataset is the first request of a run.
        """
        dataset = self.dataset(suite)
        return uuid.uuid5(uuid.UUID(str(dataset.id)), nodeid)

    def dataset(self, suite: str) -> Any:
        with self._lock:
            found = self._datasets.get(suite)
            if found is not None:
                return found
            client = self.client
            if client.has_dataset(dataset_name=suite):
                found = client.read_dataset(dataset_name=suite)
            else:
                try:
                    found = client.create_dataset(
                        dataset_name=suite,
                        description="Trajectory tests logged by pytest-agenttraj",
                        metadata={"__ls_runner": "pytest"},
                    )
                except ls_utils.LangSmithConflictError:  # another xdist worker was first
                    found = client.read_dataset(dataset_name=suite)
            self._datasets[suite] = found
            return found

    def guessed_web_url(self) -> str | None:
        """langsmith's own guess of the web app's address, when the endpoint does not tell it
        (``None`` when it does): links made from it are not printed."""
        return None if self.web_url is not None else str(ls_utils.get_host_url(None, self.api_url))

    def experiment_url(self, experiment: str, suite: str | None) -> str | None:
        """Where to see ``experiment`` (one request): the comparison view of ``suite``'s
        dataset with it selected, else the experiment's own page; ``None`` when the endpoint
        does not tell where its web app is (see ``web_url``)."""
        if self.web_url is None or self.guard.refusal() is not None:
            return None
        try:
            project = self.client.read_project(project_name=experiment)
        except ls_utils.LangSmithError:
            return None
        dataset = self._datasets.get(suite) if suite is not None else None
        base = getattr(dataset, "url", None)
        if base:
            return f"{base}/compare?selectedSessions={project.id}"
        url = getattr(project, "url", None)
        return url if isinstance(url, str) else None

    def drain(self, seconds: float | None = None) -> bool:
        """Send what is pending, at most ``seconds``; afterwards every request is refused.

        langsmith finishes its test suites (pending results, examples, feedback, then the
        experiment's metadata) at interpreter exit; here they are finished now, inside the
        deadline (``Timeouts.drain`` unless ``seconds`` is given), and the client's run queue is
        flushed. True when everything was sent.
        """
        if seconds is None:
            seconds = self.timeouts.drain
        self.guard.deadline = time.monotonic() + seconds
        done = threading.Event()

        def work() -> None:
            try:
                finish_suites(self.client, self.guard)
                left = max(0.0, (self.guard.deadline or 0.0) - time.monotonic())
                self.client.flush(timeout=left)
            finally:
                done.set()

        threading.Thread(target=work, name="agenttraj-langsmith-drain", daemon=True).start()
        finished = done.wait(seconds + 0.5)
        queue = getattr(self.client, "tracing_queue", None)
        pending = getattr(queue, "unfinished_tasks", 0) if queue is not None else 0
        late = time.monotonic() >= (self.guard.deadline or 0.0)  # flush() gave up waiting
        if not finished or pending or late:
            self.guard.trip(f"uploads were still pending {seconds:g} s after the last test")
            return False
        return True


# ---------------------------------------------------------------- langsmith internals
#
# langsmith.testing keeps its test suites (one per suite name and process: the experiment, an
# upload pool, an ``atexit`` hook) and the running test case on private names. The functions
# below are the only places that touch them; each degrades to doing nothing when they change.


def _suites() -> list[Any]:
    try:
        from langsmith.testing._internal import _LangSmithTestSuite
    except ImportError:
        return []
    return list((getattr(_LangSmithTestSuite, "_instances", None) or {}).values())


def finish_suites(client: langsmith.Client, guard: Guard) -> None:
    """Finish now, not at exit, every langsmith test suite that uses ``client``.

    ``atexit`` runs langsmith's ``_end_tests`` per suite: it waits for the suite's uploads and
    then updates the experiment, and raises a traceback into the exit when LangSmith fails.
    Ours are taken off that list (the others are put back) and run here, under the guard.
    """
    try:
        from langsmith.testing import _internal
    except ImportError:
        return
    end = getattr(_internal, "_end_tests", None)
    suites = _suites()
    ours = [s for s in suites if getattr(s, "client", None) is client]
    if not ours:
        return
    if callable(end):
        atexit.unregister(end)
        for other in suites:
            if not any(other is suite for suite in ours):
                atexit.register(end, other)
    for suite in ours:
        _finish_suite(suite, end if callable(end) else None, guard)


def _finish_suite(suite: Any, end: Any, guard: Guard) -> None:
    """Wait for one suite's uploads, then end it as langsmith would at exit (``end``)."""
    shutdown = getattr(suite, "shutdown", None)
    if callable(shutdown):
        shutdown()  # waits for the suite's pending uploads (each bounded by the guard)
    if end is None or guard.tripped:
        return
    try:
        end(suite)
    except Exception as error:  # the guard records request failures; note the rest
        if not guard.tripped:
            guard.reject(f"finishing the experiment raised {type(error).__name__}")


def logged_reference_outputs() -> Mapping[str, Any]:
    """What the running test already logged as reference outputs (``log_reference_outputs``
    replaces rather than merges; langsmith keeps the value on its private test case)."""
    try:
        from langsmith.testing._internal import _TEST_CASE
    except ImportError:
        return {}
    logged = getattr(_TEST_CASE.get(), "_logged_reference_outputs", None)
    return logged if isinstance(logged, Mapping) else {}
