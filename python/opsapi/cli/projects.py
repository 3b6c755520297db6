"""``opsapi projects``: the projects the key can see, by name and id (what ``--project``
takes, either way)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from ._base import Command, client, common, format_option, output_format, write_models
from ._table import Column, number, when

# One row per project, its name first (what --project takes), then its id.
_COLUMNS = [
    Column("name", "Name", keep=9, wrap=True, narrow=16),
    Column("id", "ID", keep=9),
    Column("hosts", "Hosts", fmt=number, keep=6, right=True),
    Column("replica_sets", "Replica sets", fmt=number, keep=5, right=True),
    Column("shards", "Shards", fmt=number, keep=4, right=True),
    Column("org_id", "Organization", keep=2),
    Column("last_active_agent", "Last agent (UTC)", fmt=when, keep=1),
]


def _arguments(p: argparse.ArgumentParser) -> None:
    format_option(p)
    common(p)


def _hosts(host_counts: object) -> object:
    """The project's host count: the sum of ``hostCounts`` (by role), when the server sends
    them."""
    if isinstance(host_counts, dict):
        return sum(v for v in host_counts.values() if isinstance(v, int))
    return None


def _run(args: argparse.Namespace, out: TextIO) -> int:
    fmt = output_format(args)
    groups = sorted(client(args).groups.list(), key=lambda g: ((g.name or "").lower(), g.id))
    return write_models(groups, fmt, out, _COLUMNS, _row, "project")


def _row(g: Any) -> dict[str, Any]:
    return {
        "name": g.name,
        "id": g.id,
        "hosts": _hosts(g.host_counts),
        "replica_sets": g.replica_set_count,
        "shards": g.shard_count,
        "org_id": g.org_id,
        "last_active_agent": g.last_active_agent,
    }


PROJECTS = Command(
    arguments=_arguments,
    run=_run,
    description="Lists the projects the key can see: their names and ids. --project takes "
    "either, on every command.",
)
