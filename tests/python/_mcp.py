"""What the tests of ``opsapi mcp`` share: a result read as the model reads it (the sentence,
the JSON inside its untrusted-data tags), a tool called through the SDK's in-memory client,
and the store they read (synced from the suite's simulator).

Imported only by modules that have skipped already where the SDK is missing (CPython 3.9).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import opsapi

# The JSON of a result: inside its tags (text from the API), or after the sentence.
TAGGED = re.compile(r"<(untrusted-api-data-[0-9a-f]{16})>\n(.*)\n</\1>\Z", re.S)
SCHEMAS = Path(__file__).resolve().parents[1] / "fixtures" / "mcp" / "schemas"
READ_ONLY = ["store_status", "what_runs_out_first", "resource_history", "list_alerts",
             "explain_alert", "alert_noise", "oversized"]  # fmt: skip


def read(result: Any) -> tuple[str, dict[str, Any]]:
    """A tool's result: its sentence and its JSON (a failed call: its text and ``{}``)."""
    assert len(result.content) == 1, result.content
    text = result.content[0].text
    if result.is_error:
        return text, {}
    m = TAGGED.search(text)
    if m:
        return text[: m.start()], json.loads(m.group(2))
    said, _, body = text.rpartition("\n")
    return said, json.loads(body)


async def call(server: Any, name: str, args: dict[str, Any] | None = None, **kw: Any) -> Any:
    """The result of one call through the SDK's in-memory client (``kw``: the client's
    options: ``elicitation_callback``, ``mode``)."""
    from mcp import Client

    async with Client(server, **kw) as c:
        return await c.call_tool(name, args or {})


async def pages(server: Any, name: str, args: dict[str, Any], key: str) -> list[Any]:
    """Every item of a paged tool's ``key``, page after page as its ``next_page`` says."""
    out: list[Any] = []
    page = None
    for _ in range(100):
        said, data = read(await call(server, name, {**args, **({"page": page} if page else {})}))
        assert data, said
        out += data[key]
        page = data["next_page"]
        if page is None:
            return out
    raise AssertionError(f"{name}: more than 100 pages")


def sync_store(sim: Any, path: Path) -> str:
    """A store of the simulator's hosts and disks, 14 days at PT1H (every measurement)."""
    report = sim.client().measurements.sync(
        opsapi.Store(path), kind=("host", "disk"), granularity="PT1H", window="P14D"
    )
    assert not report.failed, report.failed
    return str(path)
