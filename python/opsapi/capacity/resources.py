"""The resources of :func:`opsapi.capacity.headroom`: one function of polars expressions each.

Each takes the long measurement frame and returns one row per ``(group_id, host_id, part,
timestamp)``: the resource's ``value`` in its unit (whatever units the server reported it
in) and the ``limit`` it is measured against. ``part`` names what within the host the value
is of: a partition; ``""`` for a host's own series.

Example::

    >>> cpu(host_frame, limit=100.0).collect()      # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import polars as pl

from ._common import _keyed

__all__ = [
    "cache",
    "connections",
    "cpu",
    "disk_latency",
    "iops",
    "oplog_window",
    "replication_lag",
    "tickets",
]

# Units Ops Manager reports durations and sizes in (API-FACTS: an open list), to one scale.
_SECONDS = {"MILLISECONDS": 1e-3, "SECONDS": 1.0, "MINUTES": 60.0, "HOURS": 3600.0, "DAYS": 86400.0}
_BYTES = {"BYTES": 1.0, "KILOBYTES": 1024.0, "MEGABYTES": 1024.0**2, "GIGABYTES": 1024.0**3}
_HOST = ["group_id", "host_id"]


def _points(frame: pl.DataFrame | pl.LazyFrame, names: Sequence[str]) -> pl.LazyFrame:
    """The non-null points of ``names``, with ``units`` as text."""
    return (
        _keyed(frame)
        .filter(pl.col("measurement").is_in(list(names)) & pl.col("value").is_not_null())
        .with_columns(pl.col("measurement").cast(pl.String), pl.col("units").cast(pl.String))
    )


def _scaled(scale: dict[str, float], to: float) -> pl.Expr:
    """``value`` converted by its ``units`` (a table of factors to one base unit) to units
    of ``to`` base units; a unit the table lacks is taken as the base unit."""
    factor = pl.col("units").replace_strict(scale, default=1.0, return_dtype=pl.Float64)
    return pl.col("value") * factor / to


def _sum_of(points: pl.LazyFrame, keys: list[str], names: Sequence[str]) -> pl.LazyFrame:
    """Per ``keys`` and timestamp, the sum of those of ``names`` present (null if none)."""
    return (
        points.filter(pl.col("measurement").is_in(list(names)))
        .group_by([*keys, "timestamp"])
        .agg(value=pl.col("value").sum())
    )


def _shape(lazy: pl.LazyFrame, part: pl.Expr | str, limit: float) -> pl.LazyFrame:
    part_expr = pl.lit(part) if isinstance(part, str) else part
    return lazy.select(
        *_HOST,
        part=part_expr.cast(pl.String),
        timestamp="timestamp",
        value=pl.col("value").cast(pl.Float64),
        limit=pl.lit(float(limit)),
    )


def oplog_window(frame: pl.DataFrame | pl.LazyFrame, *, limit: float) -> pl.LazyFrame:
    """Hours of replication history each member's oplog holds (``OPLOG_MASTER_TIME``),
    against a target of ``limit`` hours: lower is worse.

    Example::

        >>> oplog_window(host_frame, limit=24.0).collect()   # doctest: +SKIP
    """
    p = _points(frame, ["OPLOG_MASTER_TIME"]).with_columns(value=_scaled(_SECONDS, 3600.0))
    return _shape(p, "", limit)


def replication_lag(frame: pl.DataFrame | pl.LazyFrame, *, limit: float) -> pl.LazyFrame:
    """Seconds a secondary is behind its primary (``OPLOG_REPLICATION_LAG_TIME``).

    Example::

        >>> replication_lag(host_frame, limit=60.0).collect()   # doctest: +SKIP
    """
    p = _points(frame, ["OPLOG_REPLICATION_LAG_TIME"]).with_columns(value=_scaled(_SECONDS, 1.0))
    return _shape(p, "", limit)


_PROCESS_CPU = [f"PROCESS_NORMALIZED_CPU_{k}" for k in ("USER", "KERNEL", "CHILDREN_USER",
                                                         "CHILDREN_KERNEL")]  # fmt: skip
# Busy time of the machine; GUEST is already inside USER on Linux, IOWAIT is idle time.
_SYSTEM_CPU = [f"SYSTEM_NORMALIZED_CPU_{k}" for k in ("USER", "KERNEL", "NICE", "IRQ",
                                                       "SOFTIRQ", "STEAL")]  # fmt: skip


def cpu(frame: pl.DataFrame | pl.LazyFrame, *, limit: float) -> pl.LazyFrame:
    """Normalized CPU busy, percent of all cores: the machine's (``SYSTEM_NORMALIZED_CPU_*``
    but idle and I/O wait) or the process's (``PROCESS_NORMALIZED_CPU_*``), whichever is
    higher at each point (the machine's holds the process's; the process's alone is all a
    host without system metrics has).

    Example::

        >>> cpu(host_frame, limit=100.0).collect()   # doctest: +SKIP
    """
    p = _points(frame, [*_PROCESS_CPU, *_SYSTEM_CPU])
    process = _sum_of(p, _HOST, _PROCESS_CPU)
    system = _sum_of(p, _HOST, _SYSTEM_CPU)
    both = pl.concat([process, system]).group_by([*_HOST, "timestamp"]).agg(pl.col("value").max())
    return _shape(both, "", limit)


def cache(frame: pl.DataFrame | pl.LazyFrame, *, limit: float) -> pl.LazyFrame:
    """Dirty bytes in the WiredTiger cache, percent of its size (``DIRTY_FILL_RATIO``, else
    ``CACHE_DIRTY_BYTES`` over the size that ``CACHE_USED_BYTES`` / ``CACHE_FILL_RATIO``
    gives), against the dirty eviction trigger. The used share is not the limit: eviction
    holds it near 80 %, and a cache full of clean pages is a cache doing its job; dirty bytes
    past the trigger make application threads evict, and writes stall.

    Example::

        >>> cache(host_frame, limit=20.0).collect()   # doctest: +SKIP
    """
    names = ["DIRTY_FILL_RATIO", "CACHE_FILL_RATIO", "CACHE_DIRTY_BYTES", "CACHE_USED_BYTES"]
    p = _points(frame, names).with_columns(
        value=pl.when(pl.col("units") == "PERCENT")
        .then(pl.col("value"))
        .otherwise(_scaled(_BYTES, 1.0))
    )
    m = pl.col("measurement")
    v = p.group_by([*_HOST, "timestamp"]).agg(
        ratio=pl.col("value").filter(m == "DIRTY_FILL_RATIO").first(),
        fill=pl.col("value").filter(m == "CACHE_FILL_RATIO").first(),
        dirty=pl.col("value").filter(m == "CACHE_DIRTY_BYTES").first(),
        used=pl.col("value").filter(m == "CACHE_USED_BYTES").first(),
    )
    size = pl.col("used") * 100.0 / pl.col("fill")
    dirty = pl.coalesce("ratio", pl.when(pl.col("fill") > 0).then(pl.col("dirty") / size * 100.0))
    return _shape(v.with_columns(value=dirty), "", limit).filter(pl.col("value").is_not_null())


def connections(frame: pl.DataFrame | pl.LazyFrame, *, limit: float) -> pl.LazyFrame:
    """Open client connections (``CONNECTIONS``).

    Example::

        >>> connections(host_frame, limit=5000.0).collect()   # doctest: +SKIP
    """
    return _shape(_points(frame, ["CONNECTIONS"]), "", limit)


def tickets(frame: pl.DataFrame | pl.LazyFrame, *, limit: float) -> pl.LazyFrame:
    """Available WiredTiger read or write tickets, whichever are fewer
    (``TICKETS_AVAILABLE_READS``, ``TICKETS_AVAILABLE_WRITE``): lower is worse.

    Example::

        >>> tickets(host_frame, limit=16.0).collect()   # doctest: +SKIP
    """
    p = _points(frame, ["TICKETS_AVAILABLE_READS", "TICKETS_AVAILABLE_WRITE"])
    return _shape(p.group_by([*_HOST, "timestamp"]).agg(pl.col("value").min()), "", limit)


def iops(frame: pl.DataFrame | pl.LazyFrame, *, limit: float) -> pl.LazyFrame:
    """I/O operations per second of each partition (``DISK_PARTITION_IOPS_TOTAL``, else
    ``_READ`` + ``_WRITE``).

    Example::

        >>> iops(disk_frame, limit=3000.0).collect()   # doctest: +SKIP
    """
    names = ["DISK_PARTITION_IOPS_TOTAL", "DISK_PARTITION_IOPS_READ", "DISK_PARTITION_IOPS_WRITE"]
    m = pl.col("measurement")
    v = (
        _points(frame, names)
        .group_by([*_HOST, "partition_name", "timestamp"])
        .agg(
            total=pl.col("value").filter(m == names[0]).first(),
            parts=pl.col("value").filter(m != names[0]).sum(),
            n=(m != names[0]).sum(),
        )
        .with_columns(value=pl.coalesce("total", pl.when(pl.col("n") > 0).then(pl.col("parts"))))
        .filter(pl.col("value").is_not_null())
    )
    return _shape(v, pl.col("partition_name"), limit)


def disk_latency(frame: pl.DataFrame | pl.LazyFrame, *, limit: float) -> pl.LazyFrame:
    """Milliseconds per I/O of each partition, reads or writes whichever are slower
    (``DISK_PARTITION_LATENCY_READ``, ``_WRITE``).

    Example::

        >>> disk_latency(disk_frame, limit=20.0).collect()   # doctest: +SKIP
    """
    p = _points(frame, ["DISK_PARTITION_LATENCY_READ", "DISK_PARTITION_LATENCY_WRITE"])
    v = (
        p.with_columns(value=_scaled(_SECONDS, 1e-3))
        .group_by([*_HOST, "partition_name", "timestamp"])
        .agg(pl.col("value").max())
    )
    return _shape(v, pl.col("partition_name"), limit)


@dataclass(frozen=True)
class _Spec:
    """How one resource is read: its series, unit, which way is worse, the quantile that
    stands for it, the hosts it applies to and the measurements it needs."""

    series: Callable[..., pl.LazyFrame]
    unit: str
    worse: int  # +1: higher is worse; -1: lower is worse
    quantile: float
    applies: str  # "all", "mongod" (not a mongos) or "member" (of a replica set)
    needs: str  # "host" or "disk": the frame it reads
    measured: str  # what a missing row says is missing


#: How :func:`opsapi.capacity.headroom` reads each resource but disk space.
_SPECS: dict[str, _Spec] = {
    "oplog_window": _Spec(oplog_window, "h", -1, 0.95, "member", "host",
                          "OPLOG_MASTER_TIME"),
    "replication_lag": _Spec(replication_lag, "s", +1, 0.95, "member", "host",
                             "OPLOG_REPLICATION_LAG_TIME"),
    "cpu": _Spec(cpu, "%", +1, 0.95, "all", "host", "normalized CPU"),
    "cache": _Spec(cache, "%", +1, 0.95, "mongod", "host", "WiredTiger cache"),
    "connections": _Spec(connections, "", +1, 0.99, "all", "host", "CONNECTIONS"),
    "tickets": _Spec(tickets, "", -1, 0.95, "mongod", "host", "TICKETS_AVAILABLE"),
    "iops": _Spec(iops, "IOPS", +1, 0.95, "all", "disk", "DISK_PARTITION_IOPS"),
    "disk_latency": _Spec(disk_latency, "ms", +1, 0.95, "all", "disk",
                          "DISK_PARTITION_LATENCY"),
}  # fmt: skip


def _applies(topo: pl.DataFrame, applies: str) -> pl.DataFrame:
    """The hosts of ``topo`` a resource applies to (:attr:`_Spec.applies`)."""
    if applies == "member":
        return topo.filter(pl.col("replica_set_name").is_not_null())
    if applies == "mongod":
        return topo.filter(pl.col("type_name") != "SHARD_MONGOS")
    return topo
