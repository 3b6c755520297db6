"""Streamable HTTP: the SDK's app on a socket bound here (so that port 0 gives a free port,
said on stderr), behind a bearer token when one is set.

Loopback only unless ``--allow-remote``; then every request must carry the token (checked
in constant time, on every request, before the SDK sees it). The SDK's own protection against
DNS rebinding stays on for loopback (it checks the ``Host`` and ``Origin`` headers).

>>> address("127.0.0.1:8765"), address("[::1]:0"), address("localhost:9000")
(('127.0.0.1', 8765), ('::1', 0), ('127.0.0.1', 9000))
>>> loopback("127.0.0.1"), loopback("::1"), loopback("0.0.0.0")
(True, True, False)
"""

from __future__ import annotations

import hmac
import ipaddress
import socket
from typing import Any, Callable, Optional

__all__ = ["TOKEN_ENV", "Bearer", "address", "loopback", "serve_http"]

#: The environment variable that holds the bearer token.
TOKEN_ENV = "OPSAPI_MCP_TOKEN"
#: The shortest token taken for a server past loopback.
MIN_TOKEN = 32


def address(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[IPv6]:PORT``; ``localhost`` is 127.0.0.1) as (host, port); a
    ``ValueError`` saying what is wrong."""
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"{value!r} is not HOST:PORT (127.0.0.1:8765; port 0: a free one)")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if host.lower() == "localhost":
        host = "127.0.0.1"
    return host, int(port)


def loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name: not known to be loopback


class Bearer:
    """ASGI middleware: a request without ``Authorization: Bearer <token>`` gets 401 and
    never reaches the app. The token is kept as bytes only (no repr shows it)."""

    def __init__(self, app: Any, token: str) -> None:
        self._app = app
        self._want = token.encode()

    def __repr__(self) -> str:
        return "Bearer(<token>)"

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            got = dict(scope.get("headers") or []).get(b"authorization", b"")
            scheme, _, token = got.partition(b" ")
            if scheme.lower() != b"bearer" or not hmac.compare_digest(token.strip(), self._want):
                body = b"missing or wrong bearer token\n"
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer"),
                    (b"content-length", str(len(body)).encode())]})  # fmt: skip
                await send({"type": "http.response.body", "body": body})
                return
        await self._app(scope, receive, send)


def serve_http(
    server: Any, host: str, port: int, token: Optional[str], announce: Callable[[str], None]
) -> None:
    """Serves ``server`` (an ``MCPServer``) at ``http://host:port/mcp`` until interrupted."""
    import uvicorn

    app: Any = server.streamable_http_app(host=host)
    if token:
        app = Bearer(app, token)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    # Listening before the address is said: a client that connects at once waits in the
    # backlog until uvicorn accepts, rather than being refused (as it was, now and then, on
    # a loaded machine while uvicorn started).
    sock.listen(2048)
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    announce(f"opsapi mcp: streamable HTTP on http://{shown}:{bound}/mcp"
             + (" (bearer token required)" if token else ""))  # fmt: skip
    uvicorn.Server(config).run(sockets=[sock])
