"""The fault matrix's adversary (tests/python/test_fault_matrix.py): a small loopback server
that plays what the simulator cannot (a DELETE answered with a cut, drip-fed, oversize or
endless body; the other origin of a redirect)."""

from __future__ import annotations

import collections
import socket
import threading
import time
from typing import Any, Callable

# ---- the adversary: what the simulator cannot do ---------------------------------------------


def _head(status: int, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status} X"] + [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


# A scripted answer: its status, and what writes it (the client may hang up part-way).
Act = tuple[int, Callable[[socket.socket, threading.Event], None]]


def answer(status: int) -> Act:
    def act(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(_head(status, {"Content-Length": "0", "Connection": "close"}))

    return status, act


def _cut(conn: socket.socket, stop: threading.Event) -> None:
    conn.sendall(_head(200, {"Content-Type": "application/json", "Content-Length": "64"}))
    conn.sendall(b'{"pad": "' + b"x" * 23)
    time.sleep(0.02)


def _drip(conn: socket.socket, stop: threading.Event) -> None:
    conn.sendall(_head(200, {"Content-Type": "application/json", "Content-Length": "2000"}))
    for _ in range(2000):
        if stop.wait(0.05):
            break
        conn.sendall(b" ")


def _oversize(conn: socket.socket, stop: threading.Event) -> None:
    conn.sendall(_head(200, {"Content-Type": "application/json", "Content-Length": str(1 << 30)}))
    while not stop.is_set():
        conn.sendall(b"x" * 65536)


def _endless(conn: socket.socket, stop: threading.Event) -> None:
    conn.sendall(_head(200, {"Content-Type": "application/json", "Transfer-Encoding": "chunked"}))
    chunk = b"10000\r\n" + b"x" * 65536 + b"\r\n"
    while not stop.is_set():
        conn.sendall(chunk)


CUT: Act = (200, _cut)  # 64 bytes announced, 32 sent, then the connection closes
DRIP: Act = (200, _drip)  # 2000 bytes announced, one every 50 ms
OVERSIZE: Act = (200, _oversize)  # 1 GiB announced, sent until the client hangs up
ENDLESS: Act = (200, _endless)  # chunked, without end


class Adversary:
    """A loopback HTTP server that answers each request with the next scripted action
    (``Connection: close``), and records every request it saw with its headers."""

    def __init__(self) -> None:
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.1)
        self.port = self._server.getsockname()[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.script: collections.deque[Act] = collections.deque()
        self.seen: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def reset(self, *script: Act) -> None:
        with self._lock:
            self.script = collections.deque(script)
            self.seen = []

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._server.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            try:
                data = b""
                while b"\r\n\r\n" not in data:
                    more = conn.recv(65536)
                    if not more:
                        return
                    data += more
                head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
                method, target, _ = head[0].split(" ", 2)
                headers = {
                    k.strip().lower(): v.strip()
                    for k, v in (line.split(":", 1) for line in head[1:] if ":" in line)
                }
                with self._lock:
                    status, act = self.script.popleft() if self.script else answer(404)
                    self.seen.append(
                        {
                            "method": method,
                            "path": target.split("?")[0],
                            "headers": headers,
                            "status": status,
                        }
                    )
                act(conn, self._stop)
            except OSError:
                pass  # the client hung up: what the adversary is for

    def close(self) -> None:
        self._stop.set()
        self._server.close()
        self._thread.join(timeout=2)
