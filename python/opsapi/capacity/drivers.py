"""What drives a load finding: the namespaces and query shapes that take most of the slow-query
time of a CPU, cache, tickets or connections finding's host over the window
(:func:`finding_drivers`), from the Performance Advisor's slow query logs, summarised by the
Rust core (``SlowQueryLogs.summary()``, the alert context's own summary).

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

__all__ = ["DRIVEN_RESOURCES", "Drivers", "driver_text", "finding_drivers"]

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
