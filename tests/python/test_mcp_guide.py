"""The transcript in docs/guides/assistant.md is what the tools answer: the issue's questions
asked of the simulator's world (a store synced from it, the suite's fixed clock), each
tool's result as the assistant reads it (its JSON shortened, timings left out). Generated
here and compared with the page; ``OPSAPI_WRITE_GUIDE=1`` writes it (then review the diff)."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

if sys.version_info < (3, 10):
    pytest.skip("opsapi mcp needs CPython 3.10 or later (the MCP SDK)", allow_module_level=True)
pytest.importorskip("mcp", reason="the MCP SDK is not installed: pip install 'opsapi[mcp]'")

from _mcp import TAGGED, call, read, sync_store  # noqa: E402
from mcp_types import ElicitResult  # noqa: E402

from opsapi.mcp import Fleet, Settings, build_server  # noqa: E402

PAGE = Path(__file__).resolve().parents[2] / "docs" / "guides" / "assistant.md"
BEGIN = "<!-- transcript: written by tests/python/test_mcp_guide.py; do not edit by hand -->\n"
END = "<!-- /transcript -->\n"
# Values that differ run to run (how long a computation took, when): left out.
VOLATILE = {"seconds", "computed_at"}
# The measurement to show for a finding of each resource.
SERIES = {"oplog_window": "OPLOG_MASTER_TIME", "disk": "DISK_PARTITION_SPACE_PERCENT_USED",
          "connections": "CONNECTIONS", "replication_lag": "OPLOG_REPLICATION_LAG_TIME",
          "cpu": "PROCESS_NORMALIZED_CPU_USER"}  # fmt: skip


def shorten(v: Any, items: int = 2, numbers: int = 6) -> Any:
    """A result's JSON for a reader: lists to their first items, series to their first
    numbers, volatile values left out."""
    if isinstance(v, dict):
        return {k: shorten(x, items, numbers) for k, x in v.items() if k not in VOLATILE}
    if isinstance(v, list):
        plain = all(x is None or isinstance(x, (int, float)) for x in v)
        keep = numbers if plain else items
        out = [shorten(x, items, numbers) for x in v[:keep]]
        return out + ([f"... {len(v) - keep} more"] if len(v) > keep else [])
    return v


def shown(result: Any) -> str:
    """A result as the page shows it: its text, the JSON pretty and shortened."""
    text = result.content[0].text
    said, data = read(result)
    body = json.dumps(shorten(data), indent=2, ensure_ascii=False)
    m = TAGGED.search(text)
    if m:
        return f"{text[: m.start()]}<{m.group(1)}>\n{body}\n</{m.group(1)}>"
    return f"{said}\n{body}"


def args_text(args: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in args.items())


async def transcript(sim: Any, store: str) -> str:
    """The questions, the calls an assistant makes for them, and what each answers."""
    fleet = Fleet(sim.client(max_retries=0),
                  Settings(store=store, allow_writes=True, refresh_seconds=None))  # fmt: skip
    server = build_server(fleet)
    parts: list[str] = []

    async def ask(question: str, name: str, args: dict[str, Any], **kw: Any) -> Any:
        result = await call(server, name, args, **kw)
        assert not result.is_error, result.content[0].text
        parts.append(f'### "{question}"\n\n`{name}({args_text(args)})`\n\n'
                     f"```text\n{shown(result)}\n```\n")  # fmt: skip
        return read(result)[1]

    await ask("How fresh is what you know?", "store_status", {})
    first = await ask("What runs out first?", "what_runs_out_first", {"top": 3})
    finding = next(f for f in first["findings"] if f["resource"] in SERIES)
    target = finding["member"] + (f"/{finding['part']}" if finding.get("part") else "")
    await ask("Show me that one.", "resource_history",
              {"target": target, "metric": SERIES[finding["resource"]], "since": "P14D",
               "max_points": 14})  # fmt: skip
    alerts = await ask("Which alerts are open?", "list_alerts", {"limit": 3})
    alert = next(a for a in alerts["alerts"] if a.get("metric_name"))
    await ask("Why did this alert fire?", "explain_alert", {"alert_id": alert["id"]})
    await ask("Which alerts are noise?", "alert_noise", {"top": 2})
    await ask("What could be smaller?", "oversized", {})
    asked: list[str] = []

    async def yes(context: Any, params: Any) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"acknowledge": True})

    parts.append(
        '### "Silence it for four hours: the pool is being resized."\n\n'
        "With `--allow-writes`, the assistant may call `acknowledge_alert`; the client first "
        "asks the person:"
    )
    result = await call(server, "acknowledge_alert", {"alert_id": alert["id"], "duration": "PT4H",
                        "comment": "pool being resized"}, elicitation_callback=yes)  # fmt: skip
    assert not result.is_error, result.content[0].text
    parts.append(f"\n```text\n{asked[0]}\n```\n\nThey say yes, and only then:\n\n"
                 f"```text\n{shown(result)}\n```\n")  # fmt: skip
    return "\n".join(parts)


async def test_the_guides_transcript_is_what_the_tools_answer(own_sim, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = sync_store(own_sim, Path("fleet-store"))
    text = BEGIN + await transcript(own_sim, "fleet-store") + END
    page = PAGE.read_text(encoding="utf-8")
    assert page.count(BEGIN) == 1 and page.count(END) == 1, "the page lost its markers"
    now = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: text, page, flags=re.S)
    if os.environ.get("OPSAPI_WRITE_GUIDE"):
        PAGE.write_text(now, encoding="utf-8")
    assert store == "fleet-store"
    assert page == now, "docs/guides/assistant.md's transcript differs (OPSAPI_WRITE_GUIDE=1)"
