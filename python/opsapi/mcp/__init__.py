"""``opsapi mcp``: the Model Context Protocol server, so that an assistant answers "what runs
out first" and "why did this alert fire" from the team's own store and API, with numbers it
can cite, and never acts without the person's yes.

Read-only tools: ``store_status``, ``what_runs_out_first``, ``resource_history``,
``list_alerts``, ``explain_alert``, ``alert_noise``, ``oversized``; ``acknowledge_alert`` only
with ``--allow-writes``, and only once the person confirms through the client. Each tool is a
thin call of :mod:`opsapi.capacity`, :mod:`opsapi.alerts_analysis`, the store and the client.

It needs the extra ``opsapi[mcp]`` (the official MCP Python SDK, which needs CPython 3.10 or
later). Run it as ``opsapi mcp`` or ``python -m opsapi.mcp`` (the same options); from Python,
:func:`build_server` gives the server of a client (the SDK's in-memory client talks to it)::

    from mcp import Client
    from opsapi.mcp import Fleet, Settings, build_server

    server = build_server(Fleet(opsapi.Client.from_env(), Settings(store="fleet-store")))
    async with Client(server) as c:
        print((await c.call_tool("what_runs_out_first", {"top": 3})).content[0].text)

The modules: ``_server.py`` (the tools' schemas, descriptions and annotations),
``_capacity.py`` and ``_alerts.py`` (what each tool does), ``_fleet.py`` (the client, the
store and the caches), ``_results.py`` (compact results, the size cap, pages, the API's text
marked as data), ``_series.py`` (series summarised), ``_http.py`` (streamable HTTP, its bearer
token) and ``_memo.py``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Fleet", "INSTRUCTIONS", "Settings", "build_server"]

#: What a missing SDK is told.
NEEDS = "opsapi mcp needs the MCP SDK: pip install 'opsapi[mcp]' (CPython 3.10 or later)"


def __getattr__(name: str) -> Any:
    # Lazy, so that `python -m opsapi.mcp` and `opsapi mcp --help` work without the SDK and
    # say what to install instead of a traceback.
    if name not in __all__:
        raise AttributeError(f"module 'opsapi.mcp' has no attribute {name!r}")
    try:
        from . import _fleet, _server
    except ImportError as e:
        raise ImportError(f"{NEEDS} ({e})", name=e.name) from e
    found = {
        "Fleet": _fleet.Fleet,
        "Settings": _fleet.Settings,
        "INSTRUCTIONS": _server.INSTRUCTIONS,
        "build_server": _server.build_server,
    }
    return found[name]
