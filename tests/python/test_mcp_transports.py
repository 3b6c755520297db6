"""opsapi mcp as a client starts it: ``python -m opsapi.mcp`` over stdio (raw JSON-RPC lines,
each read under the suite's watchdog), and ``--http 127.0.0.1:0`` (streamable HTTP on a free
loopback port, said on stderr) with the SDK's client; a bearer token, when set, on every
request. Neither child's output holds the key."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

if sys.version_info < (3, 10):
    pytest.skip("opsapi mcp needs CPython 3.10 or later (the MCP SDK)", allow_module_level=True)
pytest.importorskip("mcp", reason="the MCP SDK is not installed: pip install 'opsapi[mcp]'")

from _children import Lines, stop  # noqa: E402
from _mcp import READ_ONLY, read, sync_store  # noqa: E402

TOKEN = "a-bearer-token-of-forty-characters-0123"


@pytest.fixture(scope="module")
def store(sim, tmp_path_factory):
    return sync_store(sim, tmp_path_factory.mktemp("mcp") / "store")


def _env(sim, **extra: str) -> dict[str, str]:
    keep = ("OPSAPI_CONFIG", "OPSAPI_SIM_EXCHANGES")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPSAPI_") or k in keep}
    env.update(OPSAPI_BASE_URL=sim.base_url, OPSAPI_PUBLIC_KEY=sim.public_key,
               OPSAPI_PRIVATE_KEY=sim.private_key, **extra)  # fmt: skip
    return env


def _child(sim, *args: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "opsapi.mcp", *args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=_env(sim, **env),
    )  # fmt: skip


def test_stdio(sim, store) -> None:
    proc = _child(sim, "--store", store)
    lines = Lines(proc)
    assert proc.stdin is not None

    def send(message: dict) -> None:
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()

    def answer(i: int) -> dict:
        while True:  # notifications (none expected) are skipped
            got = json.loads(lines.next(timeout=120, what=f"the answer to request {i}"))
            if got.get("id") == i:
                return got

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "smoke", "version": "0"}}})  # fmt: skip
        init = answer(1)["result"]
        assert init["serverInfo"]["name"] == "opsapi" and "instructions" in init
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert [t["name"] for t in answer(2)["result"]["tools"]] == READ_ONLY
        send({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
              "params": {"name": "what_runs_out_first", "arguments": {"top": 2}}})  # fmt: skip
        result = answer(3)["result"]
        assert result["isError"] is False
        text = result["content"][0]["text"]
        assert text.startswith("What runs out first within 90 days in 3 project(s): findings 1-2")
        proc.stdin.close()  # the client leaves: the server ends
        assert proc.wait(timeout=60) == 0
    finally:
        stop(proc)
    err = proc.stderr.read() if proc.stderr else ""
    assert sim.private_key not in err, err


async def test_streamable_http_on_loopback(sim, store) -> None:
    from mcp import Client

    proc = _child(sim, "--http", "127.0.0.1:0", "--store", store)
    try:
        banner = Lines(proc, proc.stderr).next(timeout=120, what="the address line")
        assert banner.startswith("opsapi mcp: streamable HTTP on http://127.0.0.1:")
        url = banner.split(" on ")[1].strip()
        assert url.endswith("/mcp") and not url.endswith(":0/mcp")
        async with Client(url) as c:
            assert [t.name for t in (await c.list_tools()).tools] == READ_ONLY
            said, data = read(await c.call_tool("store_status", {}))
            assert data["store"] == store and data["kinds"]
    finally:
        proc.terminate()
        stop(proc)


async def test_a_bearer_token_is_asked_of_every_request(sim, store) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    proc = _child(sim, "--http", "127.0.0.1:0", "--store", store, OPSAPI_MCP_TOKEN=TOKEN)
    try:
        banner = Lines(proc, proc.stderr).next(timeout=120, what="the address line")
        assert banner.rstrip().endswith("(bearer token required)")
        url = banner.split(" on ")[1].split()[0]
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        headers = {"Accept": "application/json, text/event-stream"}
        async with httpx2.AsyncClient() as http:
            for auth in (None, "Bearer wrong-token", f"Basic {TOKEN}"):
                h = {**headers, **({"Authorization": auth} if auth else {})}
                r = await http.post(url, json=body, headers=h)
                assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
        authed = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"})
        async with Client(streamable_http_client(url, http_client=authed)) as c:
            assert [t.name for t in (await c.list_tools()).tools] == READ_ONLY
    finally:
        proc.terminate()
        stop(proc)
    err = proc.stderr.read() if proc.stderr else ""
    assert TOKEN not in err and sim.private_key not in err
