"""The raw-bytes floor's transport: keep-alive ``http.client`` connections (one per thread) and
one Digest challenge shared by all of them, each request signed up front with the next nonce
count (RFC 7616, MD5, ``qop=auth``). N calls cost N+1 requests. Bodies are read and dropped."""

from __future__ import annotations

import hashlib
import http.client
import itertools
import os
import re
import threading
from typing import Optional


def _md5(s: str) -> str:
    return hashlib.md5(s.encode()).hexdigest()


class RawDigestPool:
    def __init__(self, host: str, port: int, user: str, password: str, size: int) -> None:
        self.host, self.port, self.user, self.password = host, port, user, password
        self.size = size
        self._local = threading.local()
        self._lock = threading.Lock()
        self._challenge: Optional[dict[str, str]] = None
        self._nc = itertools.count(1)

    def _conn(self) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
            self._local.conn = conn
        return conn

    def _update(self, header: str) -> None:
        params = {k: a or b for k, a, b in re.findall(r'(\w+)=(?:"([^"]*)"|([^,\s]*))', header)}
        with self._lock:
            self._challenge = params
            self._nc = itertools.count(1)

    def _sign(self, method: str, uri: str) -> Optional[str]:
        c = self._challenge
        if c is None:
            return None
        with self._lock:
            nc = f"{next(self._nc):08x}"
        cnonce = os.urandom(8).hex()
        ha1 = _md5(f"{self.user}:{c['realm']}:{self.password}")
        ha2 = _md5(f"{method}:{uri}")
        response = _md5(f"{ha1}:{c['nonce']}:{nc}:{cnonce}:auth:{ha2}")
        header = (
            f'Digest username="{self.user}", realm="{c["realm"]}", nonce="{c["nonce"]}", '
            f'uri="{uri}", algorithm=MD5, response="{response}", qop=auth, nc={nc}, '
            f'cnonce="{cnonce}"'
        )
        if "opaque" in c:
            header += f', opaque="{c["opaque"]}"'
        return header

    def _request(self, path: str) -> tuple[int, bytes, Optional[str]]:
        conn = self._conn()
        headers = {"Accept": "application/json"}
        auth = self._sign("GET", path)
        if auth:
            headers["Authorization"] = auth
        conn.request("GET", path, headers=headers)
        resp = conn.getresponse()
        body = resp.read()
        return resp.status, body, resp.getheader("WWW-Authenticate")

    def prime(self, path: str) -> None:
        """Fetches the challenge once (the one extra request), unless already known."""
        if self._challenge is None:
            status, _, challenge = self._request(path)
            if status == 401 and challenge:
                self._update(challenge)

    def get(self, path: str) -> bytes:
        """GET ``path``; answers a (stale) challenge once; returns the body."""
        for _ in range(2):
            status, body, challenge = self._request(path)
            if status == 401 and challenge:
                self._update(challenge)
                continue
            if status != 200:
                raise RuntimeError(f"GET {path}: HTTP {status}")
            return body
        raise RuntimeError(f"GET {path}: not authorized")

    def get_len(self, path: str) -> int:
        """GET ``path``; returns the body's length."""
        return len(self.get(path))
