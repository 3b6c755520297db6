"""``opsapi clusters list|show``: the clusters of projects by name (replica sets and sharded
clusters), with what Atlas configures for each (tier, disk, auto-scaling); one cluster by its
id (Ops Manager, Cloud Manager) or its name (Atlas).

Ops Manager and Cloud Manager also list each replica set within a sharded cluster (its
shards', its config servers'): the table names them by their cluster and their replica set."""

from __future__ import annotations

import argparse
from typing import Any, Optional, TextIO

# (The names a listing command takes from _base: `duplicates` pairs this list with
# capacity.py's, which takes the same; a list of names, not logic written twice.)
from ._base import (
    Command,
    Parser,
    client,
    common,
    format_option,
    output_format,
    project_ids,
    project_option,
    write_models,
)
from ._table import Column, number

_COLUMNS = [
    Column("name", "Name", keep=9, wrap=True, narrow=12),
    Column("project", "Project", keep=7, wrap=True, narrow=10),
    Column("type", "Type", keep=8),
    Column("replica_set", "Replica set", keep=6),
    Column("tier", "Tier", keep=5),
    Column("disk_gb", "Disk GB", fmt=number, keep=4, right=True),
    Column("auto_scaling", "Auto-scaling", keep=3, wrap=True, narrow=8),
    Column("state", "State", keep=2),
    Column("id", "ID", keep=1),
]


def auto_scaling_text(a: Any) -> Optional[str]:
    """What an Atlas cluster's auto-scaling does, in a few words (``None`` without it).

    >>> from types import SimpleNamespace as A
    >>> auto_scaling_text(A(compute_enabled=True, compute_min_instance_size="M30",
    ...                     compute_max_instance_size="M50", disk_gb_enabled=True))
    'M30-M50, disk'
    """
    if a is None:
        return None
    said = []
    if a.compute_enabled:
        said.append(f"{a.compute_min_instance_size or '?'}-{a.compute_max_instance_size or '?'}")
    if a.disk_gb_enabled:
        said.append("disk")
    return ", ".join(said) or "off"


def _row(c: Any, names: dict[str, str]) -> dict[str, Any]:
    return {
        "name": c.name,
        "project": names.get(c.group_id or "", c.group_id),
        "type": c.type,
        "replica_set": c.replica_set_name,
        "tier": c.instance_size,
        "disk_gb": c.disk_size_gb,
        "auto_scaling": auto_scaling_text(c.auto_scaling),
        "state": c.state,
        "id": c.id,
    }


def _arguments(clusters: argparse.ArgumentParser) -> None:
    a = clusters.add_subparsers(dest="command", required=True, parser_class=Parser)
    ls = a.add_parser("list", help="the clusters of projects (default: every project)")
    project_option(ls)
    sh = a.add_parser("show", help="one cluster: by id (Ops Manager) or name (Atlas)")
    sh.add_argument("cluster", metavar="CLUSTER", help="its id (Ops Manager, Cloud Manager) "
                    "or its name (Atlas)")  # fmt: skip
    sh.add_argument("--project", required=True, metavar="PROJECT",
                    help="its project, by name or id")  # fmt: skip
    for sp in (ls, sh):
        format_option(sp)
        common(sp)


def _run(args: argparse.Namespace, out: TextIO) -> int:
    fmt = output_format(args)
    c = client(args)
    # A person reads projects by name: the table's, asked first.
    names = {g.id: g.name for g in c.groups.list()} if fmt == "table" else {}
    if args.command == "show":
        (group_id,) = project_ids(c, [args.project])
        found = [c.clusters.get(group_id, args.cluster)]
    else:
        found = list(c.clusters.list_all(groups=project_ids(c, args.projects)))
    return write_models(found, fmt, out, _COLUMNS, lambda x: _row(x, names), "cluster")


CLUSTERS = Command(
    arguments=_arguments,
    run=_run,
    description="Lists the clusters of projects by name: replica sets and sharded clusters "
    "(Ops Manager and Cloud Manager also list each replica set within a sharded cluster), "
    "with Atlas's tier, disk size and auto-scaling; or shows one.",
)
