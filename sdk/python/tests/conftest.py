"""A real HTTP server on loopback whose answers each test scripts, recording what it received."""
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Dict, List, Union

import pytest


@dataclass
class Received:
    method: str
    path: str
    headers: Dict[str, str]
    body: bytes


@dataclass
class Answer:
    status: int = 200
    body: Union[dict, list, str, None] = None
    headers: Dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    trickle: float = 0.0  # seconds between the bytes of the body


class Server:
    def __init__(self) -> None:
        self.answers: List[Union[Answer, Callable[[Received], Answer]]] = []
        self.received: List[Received] = []
        self.done = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def handle_any(self) -> None:
                length = self.headers.get("Content-Length")
                if length is not None:
                    body = self.rfile.read(int(length))
                elif self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    body = b""
                    while True:
                        size = int(self.rfile.readline().strip(), 16)
                        chunk = self.rfile.read(size + 2)[:size]
                        if not size:
                            break
                        body += chunk
                else:
                    body = b""
                request = Received(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                server.received.append(request)
                scripted = server.answers.pop(0) if server.answers else Answer(404, {"code": "not_found"})
                answer = scripted(request) if callable(scripted) else scripted
                if answer.delay:
                    server.done.wait(answer.delay)
                payload = answer.body if isinstance(answer.body, str) else json.dumps(answer.body) if answer.body is not None else ""
                data = payload.encode()
                content_type = "application/problem+json" if answer.status >= 400 else "application/json"
                try:
                    self.send_response(answer.status)
                    if not any(name.lower() == "content-type" for name in answer.headers):
                        self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in answer.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    if answer.trickle:
                        for byte in data:
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                            if server.done.wait(answer.trickle):
                                return
                    else:
                        self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (a timeout test)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self.done.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    running = Server()
    yield running
    running.close()


@pytest.fixture
def refused_url() -> str:
    """An address where nothing listens."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def contact(id: str = "ct_1", email: str = "ada@example.com", **extra: object) -> dict:
    return {
        "id": id,
        "email": email,
        "first_name": None,
        "last_name": None,
        "attributes": {},
        "tags": [],
        "timezone": None,
        "status": "subscribed",
        "status_reason": None,
        "created_at": "2026-11-23T06:00:00.000Z",
        "updated_at": "2026-11-23T06:00:00.000Z",
        **extra,
    }


def elapsed(since: float) -> float:
    return time.monotonic() - since


