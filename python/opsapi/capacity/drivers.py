"""What drives a finding. A load finding: the namespaces and query shapes that take most of
the slow-query time of a CPU, cache, tickets or connections finding's host over the window
(:func:`finding_drivers`), from the Performance Advisor's slow query logs, summarised by the
Rust core (``SlowQueryLogs.summary()``, the alert context's own summary). A disk finding:
the databases that make its partition's growth, each with its share
(:func:`disk_drivers`, from :func:`~opsapi.capacity.database_growth`). The APIs give database
sizes, not collection sizes: a disk's drivers are named by database.

One request per host (each finding's member that sets its value), asked with ``since`` and
``duration`` at the window. A host whose logs the server refuses (the key's permission, an
endpoint the server lacks, an answer over ``max_response_bytes``) costs only its drivers: the
reason is in :attr:`Drivers.missing`.

Example::

    d = capacity.finding_drivers(client, rows, topo, start=now - timedelta(days=14), end=now)
    d.frame.select("deployment", "resource", "namespace", "share")
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import polars as pl

from ..exceptions import (
    ForbiddenError,
    NotFoundError,
    ResponseTooLargeError,
    UnsupportedError,
)

__all__ = [
    "DRIVEN_RESOURCES",
    "Drivers",
    "database_drivers",
    "disk_drivers",
    "driver_text",
    "finding_drivers",
    "growth_text",
]

#: The resources whose findings slow queries drive.
DRIVEN_RESOURCES = ("cpu", "cache", "tickets", "connections")
_COLUMNS = {"deployment": pl.String, "resource": pl.String, "member": pl.String,
            "namespace": pl.String, "shape": pl.String, "count": pl.Int64,
            "total_ms": pl.Float64, "share": pl.Float64}  # fmt: skip


@dataclass
class Drivers:
    """The drivers of the load findings: ``frame`` (one row per finding and top shape:
    ``deployment``, ``resource``, ``member``, ``namespace``, ``shape``, ``count``,
    ``total_ms`` and ``share`` of the host's slow-query time, the most first) and ``missing``
    (``hostname:port`` -> why its slow queries are absent).

    >>> d = finding_drivers(client, rows, topo, start=start, end=now)  # doctest: +SKIP
    >>> d.frame.select("deployment", "namespace", "share")  # doctest: +SKIP
    """

    frame: pl.DataFrame
    missing: dict[str, str] = field(default_factory=dict)


def finding_drivers(
    client: Any,
    rows: pl.DataFrame,
    topo: pl.DataFrame,
    *,
    start: datetime,
    end: datetime,
    top: int = 2,
) -> Drivers:
    """The namespaces and query shapes that take the most slow-query time on the host of each
    CPU, cache, tickets and connections finding of ``rows`` from ``start`` to ``end``: the
    ``top`` shapes of each, with their share of the host's slow-query time.

    Args:
        client: a ``Client``.
        rows: finding rows with ``deployment``, ``resource`` and ``member`` (the host that
            sets the value): :func:`~opsapi.capacity.deployment_rows`, flagged ones.
        topo: :func:`~opsapi.capacity.topology` of the hosts (the member's project and id).
        start, end: the window.
        top: how many shapes to name per finding.

    A host the server refuses (HTTP 403 or 404, an operation the flavour lacks, an answer
    over the client's ``max_response_bytes``) leaves its findings without drivers and says why
    in ``missing``; any other error is raised.

    >>> d = finding_drivers(client, rows, topology(hosts), start=start, end=now)  # doctest: +SKIP
    >>> d.frame.row(0, named=True)["namespace"]  # doctest: +SKIP
    'billing.carts'
    """
    ids = topo.select(
        pl.col("member").cast(pl.String), pl.col("group_id").cast(pl.String),
        pl.col("host_id").cast(pl.String),
    )  # fmt: skip
    found = (
        rows.filter(pl.col("resource").is_in(DRIVEN_RESOURCES))
        .select("deployment", "resource", pl.col("member").cast(pl.String))
        .unique(maintain_order=True)
        .join(ids, on="member", how="inner", maintain_order="left")
    )
    duration = end - start
    parts, missing, asked = [], {}, {}
    for member, g, h in found.select("member", "group_id", "host_id").unique(
        maintain_order=True
    ).iter_rows():  # fmt: skip
        try:
            logs = client.performance_advisor.slow_query_logs(g, h, since=start, duration=duration)
        except (ForbiddenError, NotFoundError, ResponseTooLargeError, UnsupportedError) as e:
            missing[member] = f"no slow queries: {e}"
            continue
        asked[member] = (
            logs.summary().head(top).select("namespace", "shape", "count", "total_ms", "share")
        )
    for row in found.iter_rows(named=True):
        shapes = asked.get(row["member"])
        if shapes is not None and not shapes.is_empty():
            parts.append(
                shapes.with_columns(
                    deployment=pl.lit(row["deployment"]),
                    resource=pl.lit(row["resource"]),
                    member=pl.lit(row["member"]),
                )  # fmt: skip
            )
    frame = (
        pl.concat(parts, how="diagonal_relaxed").select(list(_COLUMNS))
        if parts
        else pl.DataFrame(schema=_COLUMNS)
    )
    return Drivers(frame, missing)


def driver_text(frame: pl.DataFrame) -> str:
    """A finding's drivers (its rows of :attr:`Drivers.frame`) in words.

    >>> driver_text(pl.DataFrame({"namespace": ["orders.items"], "shape": ['find {"status":"?"}'],
    ...                           "share": [0.61]}))
    'orders.items find {"status":"?"}: 61 % of slow-query time'
    """
    return "; ".join(
        f"{r['namespace']} {r['shape']}: {r['share'] * 100:.0f} % of slow-query time"
        for r in frame.iter_rows(named=True)
        if r["share"] is not None
    )


def disk_drivers(growth: pl.DataFrame, rows: pl.DataFrame, topo: pl.DataFrame) -> pl.DataFrame:
    """The databases that make each disk finding's growth: one row per finding and growing
    database of its partition (``deployment``, ``member``, ``partition_name``,
    ``database_name``, ``growth_bytes_per_day``, ``share_of_disk_growth``), the largest share
    first.

    Args:
        growth: :func:`~opsapi.capacity.database_growth` with ``disks`` (each database's
            partition and share of its growth), of the disk findings' hosts at least.
        rows: finding rows with ``deployment``, ``resource``, ``member`` and ``part`` (the
            partition): :func:`~opsapi.capacity.deployment_rows`, flagged ones.
        topo: :func:`~opsapi.capacity.topology` of the hosts.

    >>> disk_drivers(growth, rows, topology(hosts)).columns[:4]  # doctest: +SKIP
    ['deployment', 'member', 'partition_name', 'database_name']
    """
    s = pl.String
    disks = (
        rows.filter(pl.col("resource") == "disk")
        .select("deployment", pl.col("member").cast(s), partition_name=pl.col("part").cast(s))
        .unique(maintain_order=True)
        .join(topo.select(pl.col("member").cast(s), pl.col("host_id").cast(s)), on="member")
    )
    grown = growth.filter(pl.col("growth_bytes_per_day") > 0).select(
        pl.col("host_id").cast(s), pl.col("partition_name").cast(s),
        pl.col("database_name").cast(s), "growth_bytes_per_day", "share_of_disk_growth",
    )  # fmt: skip
    return (
        disks.join(grown, on=["host_id", "partition_name"], maintain_order="left")
        .sort(
            ["deployment", "share_of_disk_growth"],
            descending=[False, True],
            nulls_last=True,
            maintain_order=True,
        )  # fmt: skip
        .select(
            "deployment",
            "member",
            "partition_name",
            "database_name",
            "growth_bytes_per_day",
            "share_of_disk_growth",
        )  # fmt: skip
    )


def growth_text(frame: pl.DataFrame, top: int = 3) -> str:
    """A disk's growing databases (its rows of :func:`disk_drivers`) in words, the largest
    share first.

    >>> growth_text(pl.DataFrame({"database_name": ["orders", "logs"],
    ...                           "share_of_disk_growth": [0.78, 0.2]}))
    "orders 78 % of the disk's growth, logs 20 %"
    """
    said = [
        f"{r['database_name']} {r['share_of_disk_growth'] * 100:.0f} %"
        for r in frame.head(top).iter_rows(named=True)
        if r["share_of_disk_growth"] is not None
    ]
    if not said:
        return ""
    return ", ".join([f"{said[0]} of the disk's growth", *said[1:]])


def database_drivers(
    client: Any,
    rows: pl.DataFrame,
    topo: pl.DataFrame,
    disk_frame: pl.DataFrame,
    *,
    window: str = "14d",
    now: datetime,
    granularity: str = "PT1H",
) -> Drivers:
    """The databases that make each disk finding's growth (:func:`disk_drivers`), from the
    database measurements of the disk findings' hosts alone (each host's databases listed,
    then one fleet pull of their sizes over ``window``), not the fleet's. A host whose
    databases the server refuses (HTTP 403 or 404) is left out, with why in ``missing``.

    Args:
        client: a ``Client``.
        rows: finding rows (:func:`disk_drivers`).
        topo: :func:`~opsapi.capacity.topology` of the hosts.
        disk_frame: the long disk measurements (each database's partition is matched to it).
        window: the fit's window; now: its end; granularity: of the database measurements.

    >>> d = database_drivers(client, rows, topo, inputs.disk_frame, now=now)  # doctest: +SKIP
    >>> d.frame.row(0, named=True)["database_name"]  # doctest: +SKIP
    'inventory'
    """
    from .._duration import parse_duration
    from ._common import INDEX_SIZE, STORAGE_SIZE
    from .databases import database_growth
    from .disk import disk_forecast

    members = rows.filter(pl.col("resource") == "disk")["member"].unique().to_list()
    hosts = topo.filter(pl.col("member").cast(pl.String).is_in(members)).select(
        pl.col("group_id").cast(pl.String), pl.col("host_id").cast(pl.String),
        pl.col("member").cast(pl.String),
    )  # fmt: skip
    targets, missing = [], {}
    for g, h, member in hosts.iter_rows():
        try:
            targets += [(g, h, d) for d in client.hosts.databases(g, h)]
        except (ForbiddenError, NotFoundError) as e:
            missing[member] = f"no database sizes: {e}"
    schema = {"host_id": pl.String, "partition_name": pl.String, "database_name": pl.String,
              "growth_bytes_per_day": pl.Float64, "share_of_disk_growth": pl.Float64}  # fmt: skip
    growth = pl.DataFrame(schema=schema)
    if targets:
        span = parse_duration(window)
        db = client.measurements.fleet(
            targets, kind="database", granularity=granularity, start=now - span, end=now,
            metrics=[STORAGE_SIZE, INDEX_SIZE],
        )  # fmt: skip
        forecast = disk_forecast(disk_frame, window=window, now=now)
        growth = database_growth(db, window=window, disks=forecast, disk_frame=disk_frame,
                                 now=now)  # fmt: skip
    return Drivers(disk_drivers(growth, rows, topo), missing)
