"""Atlas auto-scaling in :func:`opsapi.capacity.headroom` (issue 30 §4): each cluster's limits
come from its configuration (the clusters listing, ``client.clusters.list``).

- Compute auto-scaling: Atlas moves the cluster up to its configured maximum tier as the load
  grows, so its CPU and cache are measured against that tier: the CPU's share of the cores
  scaled by the tier's vCPUs over the maximum's, the cache's fill and dirty shares by its
  memory over the maximum's (:data:`~opsapi.capacity.ATLAS_TIERS`). The rows say which tier
  (``auto_scaling``: ``"up to M80"``).
- Disk auto-scaling: Atlas grows the disk when it is 90 % used (:data:`DISK_GROWS_AT`), so a
  disk finding at that limit says when the disk next grows, not when it is full
  (``auto_scaling``: ``"disk grows at 90 %"``).

Example::

    >>> h = headroom(*inputs, clusters=inputs.clusters)  # doctest: +SKIP
    >>> h.filter(pl.col("auto_scaling").is_not_null()).select("scope", "resource", "auto_scaling")
"""

from __future__ import annotations

from typing import Any

import polars as pl

from .oversized import ATLAS_TIERS
from .topology import listed

__all__ = ["DISK_GROWS_AT", "at_max_tier", "auto_scaling", "said"]

#: Atlas grows an auto-scaling disk when it is this full (percent).
DISK_GROWS_AT = 90.0
#: The cache measurements that are a share of the cache, which grows with the memory.
_MEMORY = ["DIRTY_FILL_RATIO", "CACHE_FILL_RATIO"]
_SCHEMA = {"cluster_id": pl.String, "max_tier": pl.String, "cpu_ratio": pl.Float64,
           "memory_ratio": pl.Float64, "disk_grows": pl.Boolean}  # fmt: skip


def auto_scaling(topo: pl.DataFrame, clusters: Any) -> pl.DataFrame:
    """Per host of a cluster that auto-scales: ``host_id``, ``max_tier`` (compute: the largest
    tier, when the table knows it and the cluster's), ``cpu_ratio`` and ``memory_ratio`` (its
    tier's vCPUs and memory over the maximum's; 1 without compute auto-scaling) and
    ``disk_grows``.

    >>> auto_scaling(topology(hosts, clusters), clusters)  # doctest: +SKIP
    """
    rows = []
    for c in listed(clusters):
        a = c.auto_scaling
        if a is None or c.instance_size is None:
            continue
        top = a.compute_max_instance_size if a.compute_enabled else None
        now, most = ATLAS_TIERS.get(c.instance_size), ATLAS_TIERS.get(top or "")
        sized = now is not None and most is not None
        rows.append({
            "cluster_id": c.id or c.name,
            "max_tier": top if sized else None,
            "cpu_ratio": now[0] / most[0] if sized else 1.0,
            "memory_ratio": now[1] / most[1] if sized else 1.0,
            "disk_grows": bool(a.disk_gb_enabled),
        })  # fmt: skip
    frame = pl.DataFrame(rows, schema=_SCHEMA).filter(
        pl.col("max_tier").is_not_null() | pl.col("disk_grows")
    )
    return (
        topo.select(pl.col("host_id").cast(pl.String), "cluster_id")
        .join(frame, on="cluster_id")
        .drop("cluster_id")
    )


def at_max_tier(frame: pl.DataFrame | pl.LazyFrame, scaling: pl.DataFrame) -> pl.DataFrame:
    """The long host frame with the CPU and cache shares of each host of a cluster whose
    compute auto-scales as they would be on its maximum tier.

    >>> host_frame = at_max_tier(host_frame, auto_scaling(topo, clusters))  # doctest: +SKIP
    """
    up = scaling.filter(pl.col("max_tier").is_not_null()).select(
        "host_id", "cpu_ratio", "memory_ratio"
    )
    out = frame.lazy().collect()
    if up.is_empty():
        return out
    m = pl.col("measurement").cast(pl.String)
    return (
        out.with_columns(_h=pl.col("host_id").cast(pl.String))
        .join(up, left_on="_h", right_on="host_id", how="left", maintain_order="left")
        .with_columns(
            value=pl.when(m.str.contains("NORMALIZED_CPU_") & pl.col("cpu_ratio").is_not_null())
            .then(pl.col("value") * pl.col("cpu_ratio"))
            .when(m.is_in(_MEMORY) & pl.col("memory_ratio").is_not_null())
            .then(pl.col("value") * pl.col("memory_ratio"))
            .otherwise(pl.col("value"))
        )
        .select(out.columns)
    )


def said(rows: pl.DataFrame, scaling: pl.DataFrame) -> pl.DataFrame:
    """``rows`` (headroom's, every scope, with their member's ``host_id``) with
    ``auto_scaling``: ``"up to M80"`` on the CPU and cache rows of a host whose cluster's
    compute auto-scales, ``"disk grows at 90 %"`` on the disk rows at that limit of a
    data-bearing one whose disk does; else null.

    >>> rows = said(rows, auto_scaling(topo, clusters))  # doctest: +SKIP
    """
    s = scaling.select("host_id", "max_tier", "disk_grows")
    r = pl.col("resource")
    return (
        rows.with_columns(_h=pl.col("host_id").cast(pl.String))
        .join(s, left_on="_h", right_on="host_id", how="left", maintain_order="left")
        .with_columns(
            auto_scaling=pl.when(r.is_in(["cpu", "cache"]) & pl.col("max_tier").is_not_null())
            .then(pl.format("up to {}", "max_tier"))
            .when(
                (r == "disk")
                & (pl.col("role") == "data")
                & pl.col("disk_grows").fill_null(False)
                & (pl.col("limit") == DISK_GROWS_AT)
            )
            .then(pl.lit(f"disk grows at {DISK_GROWS_AT:g} %"))
        )
        .drop("_h", "max_tier", "disk_grows")
    )
