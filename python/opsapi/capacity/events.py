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
from typing import Any, Iterable, Optional

import polars as pl

from ..exceptions import ForbiddenError, NotFoundError
from .topology import listed

__all__ = ["WindowEvents", "event_breaks", "finding_events", "window_events"]

#: The resources whose series a change of tier moves: the CPU (normalized to the cores) and
#: the cache (a share of the memory). A connection count, the tickets, the IOPS and the
#: latency are the workload's, whatever the tier (where the tier sets a limit, the limit is
#: the user's threshold), so a tier change does not restart their fits.
LOAD = ("cpu", "cache")

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
    return (
        hosts.join(ev, on="group_id")
        .filter(_names_host("member_h"))
        .unique(["deployment", "id", "created", "event_type_name"], maintain_order=True)
        .sort("created", maintain_order=True)
        .select("deployment", *EVENT_COLUMNS)
    )


def _names_host(member: str) -> pl.Expr:
    """Whether an event (``_host_id``, ``host``, ``_rs``, ``_cl``) names a host (``host_id``,
    ``member``, ``replica_set_name``, ``cluster_name``), joined on their project: by its id,
    its ``hostname:port``, its replica set or (Atlas's cluster events) its cluster."""
    eq = lambda a, b: pl.col(a).is_not_null() & (pl.col(a) == pl.col(b))  # noqa: E731
    return (
        eq("_host_id", "host_id")
        | eq("host", member)
        | eq("_rs", "replica_set_name")
        | eq("_cl", "cluster_name")
    )


def event_breaks(events: Any, topo: pl.DataFrame, now: datetime) -> pl.DataFrame:
    """Where the events say a host's machine changed, which restarts its forecasts there
    (:func:`opsapi.capacity.passage.first_passage`'s ``breaks``) whether or not its series
    shows it: per host and change, ``group_id``, ``host_id``, ``age`` (days before ``now``),
    ``reason`` and ``resources`` (the resources it restarts).

    - Atlas's disk auto-scaling (``DISK_AUTO_SCALE_INITIATED``): the disk's space, reason
      ``capacity_change`` (the disk resized).
    - Its compute auto-scaling (reactive, predictive, analytics): :data:`LOAD` (the CPU and
      the cache), reason ``tier_change``.
    - A person's change of the cluster (``CLUSTER_UPDATE_STARTED``/``_COMPLETED``: a tier,
      a disk size): the CPU, the cache and the disk's space, reason ``tier_change``.

    An event is a host's as in :func:`finding_events` (its id, ``hostname:port``, replica set
    or cluster); events after ``now`` are not.

    Args:
        events: :class:`WindowEvents` or its ``frame`` (:func:`window_events`), over the
            history the forecasts read (a change older than the window still starts a fit
            within the history).
        topo: :func:`~opsapi.capacity.topology` of the hosts (with the clusters, for Atlas's
            cluster names).
        now: the forecasts' reference instant.

    >>> event_breaks(ev, topology(hosts, clusters), now).columns  # doctest: +SKIP
    ['group_id', 'host_id', 'age', 'reason', 'resources']
    """
    frame = events.frame if isinstance(events, WindowEvents) else events
    s = pl.String
    now_lit = pl.lit(now, dtype=pl.Datetime("ms", "UTC"))
    disk = pl.col("event_type_name") == "DISK_AUTO_SCALE_INITIATED"
    ev = frame.filter(
        pl.col("kind").is_in(["scaling", "cluster_change"]), pl.col("created") <= now_lit
    ).select(
        pl.col("group_id").cast(s), pl.col("host").cast(s),
        _host_id=pl.col("host_id").cast(s), _rs=pl.col("replica_set_name").cast(s),
        _cl=pl.col("cluster_name").cast(s),
        age=(now_lit - pl.col("created")).dt.total_milliseconds() / 86_400_000,
        reason=pl.when(disk).then(pl.lit("capacity_change")).otherwise(pl.lit("tier_change")),
        resources=pl.when(disk).then(pl.lit(["disk"]))
        .when(pl.col("kind") == "scaling").then(pl.lit(list(LOAD)))
        .otherwise(pl.lit([*LOAD, "disk"])),
    )  # fmt: skip
    hosts = topo.select(
        pl.col("group_id").cast(s), pl.col("host_id").cast(s), pl.col("member").cast(s),
        pl.col("replica_set_name").cast(s), pl.col("cluster_name").cast(s),
    )  # fmt: skip
    return (
        hosts.join(ev, on="group_id")
        .filter(_names_host("member"))
        .select("group_id", "host_id", "age", "reason", "resources")
        .unique(maintain_order=True)
    )


def series_breaks(
    breaks: Optional[pl.DataFrame], resource: str, series: pl.DataFrame
) -> Optional[pl.DataFrame]:
    """The rows of :func:`event_breaks` that restart ``resource``, on each of ``series``'
    keys (``group_id``, ``host_id`` and the part or partition): ``first_passage``'s
    ``breaks``; None without any."""
    if breaks is None or not breaks.height:
        return None
    mine = breaks.filter(pl.col("resources").list.contains(resource)).drop("resources")
    keys = series.unique(maintain_order=True).with_columns(
        _g=pl.col("group_id").cast(pl.String), _h=pl.col("host_id").cast(pl.String)
    )
    out = keys.join(mine.rename({"group_id": "_g", "host_id": "_h"}), on=["_g", "_h"])
    return out.select(*series.columns, "age", "reason") if out.height else None
