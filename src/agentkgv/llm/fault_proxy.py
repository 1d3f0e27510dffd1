"""An HTTP proxy in front of an OpenAI-compatible server that fails on purpose, at set rates.

It stands between a run and a real server and, for each request, draws from a seeded RNG whether to pass
it through or to drop the connection, stall, answer 500, answer 429 with Retry-After, or answer 200 with a
body that is not a completion. It measures how a long run survives a flaky server (tests and BENCHMARKS.md,
fault run): every triple must end with exactly one verdict.

The standard library's threading HTTP server, because the proxy must be able to misbehave below HTTP
(close a socket without answering), which a web framework does not let a handler do.
"""

from __future__ import annotations

import json
import random
import signal
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from pydantic import BaseModel, ConfigDict, Field, model_validator

FAULTS = ("drop", "stall", "error_500", "throttle_429", "malformed")


class FaultConfig(BaseModel):
    """The share of requests that meet each fault; the rest pass through."""

    model_config = ConfigDict(extra="forbid")

    drop: float = Field(0.0, ge=0, le=1, description="close the connection without an answer")
    stall: float = Field(0.0, ge=0, le=1, description="wait stall_s before answering (past a client timeout)")
    error_500: float = Field(0.0, ge=0, le=1)
    throttle_429: float = Field(0.0, ge=0, le=1, description="429 with a Retry-After header")
    malformed: float = Field(0.0, ge=0, le=1, description="200 with a body cut off mid-JSON")
    stall_s: float = Field(5.0, ge=0)
    retry_after_s: float = Field(0.5, ge=0)
    seed: int = 0

    @model_validator(mode="after")
    def _rates_add_up(self) -> "FaultConfig":
        if sum(getattr(self, fault) for fault in FAULTS) > 1:
            raise ValueError("the fault rates add up to more than 1")
        return self


class FaultProxy:
    """Serves on 127.0.0.1 (port 0: any free one) in a background thread; use as a context manager."""

    def __init__(self, upstream: str, faults: FaultConfig, port: int = 0):
        self.upstream = upstream.rstrip("/")
        self.faults = faults
        self.counts: Counter[str] = Counter()  # requests by what was done to them: a fault or "passed"
        self._rng = random.Random(faults.seed)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> "FaultProxy":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def serve_forever(self) -> None:
        self._server.serve_forever()

    def _draw(self) -> str:
        with self._lock:
            roll, edge = self._rng.random(), 0.0
            outcome = "passed"
            for fault in FAULTS:
                edge += getattr(self.faults, fault)
                if roll < edge:
                    outcome = fault
                    break
            self.counts[outcome] += 1
            return outcome

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet: a run's own progress is what the console shows
                pass

            def do_GET(self) -> None:
                self._forward(None)

            def do_POST(self) -> None:
                self._forward(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

            def _forward(self, body: bytes | None) -> None:
                fault = proxy._draw()
                if fault == "drop":
                    self.close_connection = True
                    return
                if fault == "stall":
                    time.sleep(proxy.faults.stall_s)
                if fault == "error_500":
                    return self._send(500, {"error": {"message": "injected fault", "type": "server_error"}})
                if fault == "throttle_429":
                    return self._send(429, {"error": {"message": "injected throttle", "type": "rate_limit"}},
                                      {"Retry-After": f"{proxy.faults.retry_after_s:g}"})
                request = urllib.request.Request(proxy.upstream + self.path, data=body, method=self.command,
                                                 headers={"Content-Type": "application/json"})
                try:
                    with urllib.request.urlopen(request, timeout=600) as upstream:
                        status, payload = upstream.status, upstream.read()
                except urllib.error.HTTPError as error:
                    status, payload = error.code, error.read()
                if fault == "malformed" and status == 200:
                    payload = payload[:len(payload) // 2]
                self._send_bytes(status, payload)

            def _send(self, status: int, record: dict, headers: dict[str, str] | None = None) -> None:
                self._send_bytes(status, json.dumps(record).encode(), headers)

            def _send_bytes(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                for key, value in {"Content-Type": "application/json", "Content-Length": str(len(payload)),
                                   **(headers or {})}.items():
                    self.send_header(key, value)
                self.end_headers()
                try:
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (its timeout) while the upstream worked: what a stall tests

        return Handler


def serve(upstream: str, config: FaultConfig, port: int, note: Callable[[str], None] = print) -> Counter[str]:
    """Run a proxy in the foreground until Ctrl-C or SIGTERM; what it did to the requests it saw."""
    proxy = FaultProxy(upstream, config, port)
    note(f"fault proxy on {proxy.url} -> {upstream}; Ctrl-C or SIGTERM prints what it did")
    # A shell starts background jobs with SIGINT ignored; either signal ends the loop below.
    for stop in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop, signal.default_int_handler)
    try:
        proxy.serve_forever()
    except KeyboardInterrupt:
        pass
    return proxy.counts
