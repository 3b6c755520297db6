"""The table of calls (``tests/fixtures/calls.json``, which the Rust flavours test reads too):
each operation of the flavour table, by its row's name, with its call's arguments and the exact
request each flavour sends for it, written out (not derived from the row: a test of the row
that read its paths from the row could not fail). Read by test_flavours.py and the fault
matrix (_fault_ops.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple, Optional

FILE = Path(__file__).resolve().parents[1] / "fixtures" / "calls.json"
CALLS: dict[str, dict[str, Any]] = json.loads(FILE.read_text(encoding="utf-8"))["calls"]
FLAVOURS = ("ops-manager", "cloud-manager", "atlas")


class Sent(NamedTuple):
    """A request as the table writes it: ``METHOD /path?query Accept status``."""

    method: str
    path: str
    query: Optional[str]
    accept: str
    status: int


def _fill(text: str, ids: dict[str, str], encode: bool) -> str:
    for name, value in ids.items():
        text = text.replace("{" + name + "}", value.replace(":", "%3A") if encode else value)
    return text


def flavours(name: str) -> tuple[str, ...]:
    """The flavours the table of calls gives operation ``name`` (the others lack it)."""
    return tuple(f for f in FLAVOURS if f in CALLS[name])


def sent(name: str, flavour: str, ids: dict[str, str]) -> Sent:
    """The request ``flavour`` sends for operation ``name``, with the identifiers ``ids``
    (``{"group": ..., "host": ...}``, URL-encoded in the path)."""
    method, target, accept, status = _fill(CALLS[name][flavour], ids, True).split(" ")
    path, _, query = target.partition("?")
    return Sent(method, path, query or None, accept, int(status))


def method(name: str) -> str:
    """The method of operation ``name`` (Ops Manager's request: every operation has one)."""
    return CALLS[name]["ops-manager"].split(" ")[0]


def call(client: Any, name: str, ids: dict[str, str]) -> Any:
    """Calls operation ``name`` (``resource.method``) on ``client`` with the table's arguments
    and ``ids``' identifiers: the result, or for an async client the awaitable."""
    entry = CALLS[name]
    resource, fn = name.split(".")
    args = [_fill(a, ids, False) for a in entry["args"]]
    return getattr(getattr(client, resource), fn)(*args, **entry.get("kwargs", {}))
