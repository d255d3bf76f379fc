"""One deadline for a whole HTTP exchange. urllib3's timeouts bound each socket operation, so a
server that trickles its answer a byte at a time would hold a call forever; at the deadline this
shuts the attempt's connection down, which ends whatever read or write is under way.
Hand-written; kept across regeneration."""
from __future__ import annotations

import heapq
import itertools
import socket
import threading
import time
from typing import Any, List, Optional, Tuple

import urllib3
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

_current = threading.local()


class _Watchdog:
    """One thread for every deadline of the process: the earliest due is expired when due
    (a thread per call would cost more than a call to a nearby server)."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._due: List[Tuple[float, int, "Deadline"]] = []
        self._order = itertools.count()
        self._thread: Optional[threading.Thread] = None
        self._watched = 0  # deadlines not yet finished

    def finished(self) -> None:
        with self._condition:
            self._watched -= 1

    def watch(self, seconds: float, deadline: "Deadline") -> None:
        with self._condition:
            self._watched += 1
            if len(self._due) > 64 + 2 * self._watched:
                # Finished deadlines wait in the heap until due: drop them before they pile up.
                self._due = [entry for entry in self._due if not entry[2].finished]
                heapq.heapify(self._due)
            heapq.heappush(self._due, (time.monotonic() + seconds, next(self._order), deadline))
            if self._thread is None or not self._thread.is_alive():  # none yet, or lost in a fork
                self._thread = threading.Thread(target=self._run, name="sendline-deadlines", daemon=True)
                self._thread.start()
            if self._due[0][2] is deadline:
                self._condition.notify()

    def _run(self) -> None:
        with self._condition:
            while True:
                if not self._due:
                    self._condition.wait()
                    continue
                wait = self._due[0][0] - time.monotonic()
                if wait > 0:
                    self._condition.wait(wait)
                    continue
                heapq.heappop(self._due)[2]._expire()


_watchdog = _Watchdog()


class Deadline:
    """`with Deadline(seconds) as deadline:` around one attempt, on the thread that makes it;
    `deadline.expired` tells afterwards whether it was cut short."""

    def __init__(self, seconds: float) -> None:
        self.expired = False
        self._seconds = seconds
        self._lock = threading.Lock()
        self.finished = False
        self._connections: List[HTTPConnection] = []

    def __enter__(self) -> "Deadline":
        _current.deadline = self
        _watchdog.watch(self._seconds, self)
        return self

    def __exit__(self, *exc: Any) -> None:
        with self._lock:
            self.finished = True
            self._connections.clear()
        _watchdog.finished()
        _current.deadline = None

    def _attach(self, connection: HTTPConnection) -> None:
        with self._lock:
            self._connections.append(connection)

    def _expire(self) -> None:
        with self._lock:
            if self.finished:
                return
            self.expired = True
            for connection in self._connections:
                sock: Optional[socket.socket] = getattr(connection, "sock", None)
                if sock is not None:
                    try:
                        sock.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass  # already closed


def _attach_to_deadline(connection: HTTPConnection) -> None:
    deadline: Optional[Deadline] = getattr(_current, "deadline", None)
    if deadline is not None:
        deadline._attach(connection)


class _DeadlineHTTPConnection(HTTPConnection):
    def request(self, *args: Any, **kwargs: Any) -> None:
        _attach_to_deadline(self)
        super().request(*args, **kwargs)


class _DeadlineHTTPSConnection(HTTPSConnection):
    def request(self, *args: Any, **kwargs: Any) -> None:
        _attach_to_deadline(self)
        super().request(*args, **kwargs)


class _DeadlineHTTPConnectionPool(HTTPConnectionPool):
    ConnectionCls = _DeadlineHTTPConnection


class _DeadlineHTTPSConnectionPool(HTTPSConnectionPool):
    ConnectionCls = _DeadlineHTTPSConnection


def enforce_deadlines(pool_manager: urllib3.PoolManager) -> None:
    """Makes the connections of `pool_manager` (before it opens any) answer to `Deadline`s."""
    pool_manager.pool_classes_by_scheme = {"http": _DeadlineHTTPConnectionPool, "https": _DeadlineHTTPSConnectionPool}
