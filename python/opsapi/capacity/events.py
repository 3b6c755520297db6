"""The events a capacity chart marks: each project's elections and failovers, restarts, hosts
down, auto-scaling, tier changes and disk resizes over the window (:func:`window_events`),
and which of them are each finding's deployment's (:func:`finding_events`).

The client asks each flavour in its own event types (``Events::charted`` in Rust: the type
table is the Rust core's, ``opsapi::api::event_kinds``), one listing per project, and on
Atlas, whose cluster events name no cluster, one per cluster. A project whose events the
server refuses (the key's permission, an endpoint it lacks) costs only its marks: its
reason is in :attr:`WindowEvents.missing`.

Example::

    events = capacity.window_events(client, group_ids, start=now - timedelta(days=14),
                                    end=now, clusters=clusters)
    marks = capacity.finding_events(rows, events.frame, capacity.topology(hosts, clusters))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterable

import polars as pl

from ..exceptions import ForbiddenError, NotFoundError
from .topology import listed

__all__ = ["WindowEvents", "finding_events", "window_events"]

#: The columns of :func:`finding_events`, after the finding's ``deployment``.
EVENT_COLUMNS = ["created", "kind", "event_type_name", "said", "host", "id"]


@dataclass
class WindowEvents:
    """The projects' charted events over a window: ``frame`` (``EventList.timeline()``'s
    columns and ``group_id``, oldest first) and ``missing`` (project id -> why its events
    are absent).

    >>> ev = window_events(client, [group_id], start=start, end=now)  # doctest: +SKIP
    >>> ev.frame.select("created", "kind", "said")  # doctest: +SKIP
    """

    frame: pl.DataFrame
    missing: dict[str, str] = field(default_factory=dict)


def window_events(
    client: Any,
    group_ids: Iterable[str],
    *,
    start: datetime,
    end: datetime,
    clusters: Any = None,
) -> WindowEvents:
    """The events a chart marks of each project from ``start`` to ``end``
    (``Events::charted`` in Rust: one listing per project, every page; on Atlas one more per
    cluster of ``clusters``, the projects' ``client.clusters.list``). A listing the server
    refuses (HTTP 403 or 404) leaves that project without events and says why; any other
    error is raised.

    >>> ev = window_events(client, [g.id for g in client.groups.list()], start=start,
    ...                    end=now)  # doctest: +SKIP
    >>> ev.frame.select("created", "kind", "said", "host")  # doctest: +SKIP
    """
    by_group: dict[str, list[str]] = {}
    for c in listed(clusters):
        if c.group_id and c.name and c.shard_name is None:
            by_group.setdefault(c.group_id, []).append(c.name)
    parts, missing = [], {}
    for g in group_ids:
        try:
            events = client.events._charted(g, start, end, clusters=by_group.get(g) or None)
        except (ForbiddenError, NotFoundError) as e:
            why = "the key may not read" if e.status == 403 else "the server has no"
            missing[g] = f"{why} the project's events (HTTP {e.status}): no event marks"
            continue
        parts.append(events.timeline().with_columns(group_id=pl.lit(g, pl.String)))
    frame = pl.concat(parts, how="diagonal_relaxed") if parts else _empty()
    return WindowEvents(frame.sort("created", maintain_order=True), missing)


def _empty() -> pl.DataFrame:
    strings = ["event_type_name", "kind", "said", "host", "replica_set_name", "id", "host_id",
               "alert_id", "cluster_name", "group_id"]  # fmt: skip
    return pl.DataFrame(
        schema={"created": pl.Datetime("ms", "UTC"), "charted": pl.Boolean}
        | {c: pl.String for c in strings}
    )


def finding_events(rows: pl.DataFrame, events: pl.DataFrame, topo: pl.DataFrame) -> pl.DataFrame:
    """The charted events of each row's deployment: one row per ``deployment`` and event
    (``created``, ``kind``, ``event_type_name``, ``said``, ``host``, ``id``), oldest first.

    An event is a deployment's when it names one of its hosts (by ``host_id`` or
    ``hostname:port``), one of its replica sets, or (Atlas's cluster events) its cluster.
    A deployment's hosts are those of its cluster (``cluster_id``), of its member's replica
    set, or its member alone.

    Args:
        rows: finding rows with ``deployment``, ``group_id``, ``member`` and ``cluster_id``
            (:func:`~opsapi.capacity.deployment_rows`).
        events: :attr:`WindowEvents.frame`.
        topo: :func:`~opsapi.capacity.topology` of the hosts (with the clusters, for
            Atlas's cluster names).

    >>> rows = deployment_rows(h, names)  # doctest: +SKIP
    >>> finding_events(rows, ev.frame, topology(hosts, clusters)).columns[:3]  # doctest: +SKIP
    ['deployment', 'created', 'kind']
    """
    s = pl.String
    topo = topo.select(
        pl.col("group_id").cast(s), pl.col("host_id").cast(s), pl.col("member").cast(s),
        pl.col("replica_set_name").cast(s), pl.col("cluster_id").cast(s),
        pl.col("cluster_name").cast(s),
    )  # fmt: skip
    deployments = rows.select(
        "deployment", pl.col("group_id").cast(s), pl.col("member").cast(s),
        pl.col("cluster_id").cast(s),
    ).unique(maintain_order=True)  # fmt: skip
    own_set = topo.select("member", _rs="replica_set_name")
    hosts = (
        deployments.join(own_set, on="member", how="left")
        .join(topo, on="group_id", suffix="_h")
        .filter(
            (pl.col("cluster_id").is_not_null() & (pl.col("cluster_id_h") == pl.col("cluster_id")))
            | (pl.col("_rs").is_not_null() & (pl.col("replica_set_name") == pl.col("_rs")))
            | (pl.col("member_h") == pl.col("member"))
        )
        .select(
            "deployment", "group_id", "host_id", "member_h", "replica_set_name", "cluster_name"
        )  # fmt: skip
    )
    ev = events.filter(pl.col("charted")).select(
        pl.col("group_id").cast(s), "created", "kind", "event_type_name", "said",
        pl.col("host").cast(s), pl.col("id").cast(s), _host_id=pl.col("host_id").cast(s),
        _rs=pl.col("replica_set_name").cast(s), _cl=pl.col("cluster_name").cast(s),
    )  # fmt: skip
    eq = lambda a, b: pl.col(a).is_not_null() & (pl.col(a) == pl.col(b))  # noqa: E731
    return (
        hosts.join(ev, on="group_id")
        .filter(
            eq("_host_id", "host_id")
            | eq("host", "member_h")
            | eq("_rs", "replica_set_name")
            | eq("_cl", "cluster_name")
        )  # fmt: skip
        .unique(["deployment", "id", "created", "event_type_name"], maintain_order=True)
        .sort("created", maintain_order=True)
        .select("deployment", *EVENT_COLUMNS)
    )
