"""A long measurement frame as a model can read it: per series, its statistics
(:func:`opsapi.capacity.metric_summary`'s quantiles, and its first and last point) and the
series itself in at most ``points`` buckets of equal length (each bucket's mean and maximum),
never the raw points.

>>> import polars as pl
>>> from datetime import datetime, timezone
>>> t0 = datetime(2026, 3, 1, tzinfo=timezone.utc)
>>> frame = pl.DataFrame({
...     "group_id": "g", "host_id": "h", "process_id": None, "partition_name": None,
...     "database_name": None, "measurement": "CONNECTIONS", "units": "SCALAR",
...     "timestamp": pl.datetime_range(t0, t0.replace(hour=5), "1h", eager=True),
...     "value": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})
>>> s = summarise(frame, points=3)[0]
>>> s["p50"], s["buckets"]["every"], s["buckets"]["mean"], s["buckets"]["max"]
(3.5, 'PT3H', [2.0, 5.0], [3.0, 6.0])
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any, Optional

import polars as pl

from opsapi import capacity

from ._results import iso_duration

__all__ = ["KEYS", "summarise"]

#: What tells one series from another in a long frame.
KEYS = ["host_id", "partition_name", "database_name", "measurement", "units"]


def summarise(
    frame: pl.DataFrame,
    *,
    points: int,
    start: Optional[datetime] = None,
    end: Optional[datetime] = None,
    at: Optional[datetime] = None,
) -> list[dict[str, Any]]:
    """One dict per series of ``frame``: its keys, ``points`` (how many), ``first`` and
    ``last`` (instants), ``last_value``, ``min``, ``mean``, ``p50``, ``p95``, ``p99``,
    ``max``, with ``at`` the value at or just before that instant (``value_at``), and
    ``buckets``: ``start``, ``every`` (ISO 8601) and each bucket's ``mean`` and ``max`` (null
    where the bucket has no point), ``points`` buckets or fewer between ``start`` and ``end``
    (default: the series' own first and last points). The series share ``points`` among
    them, so that many series cost no more than one."""
    if frame.is_empty():
        return []
    frame = frame.filter(pl.col("value").is_not_null())
    if frame.is_empty():
        return []
    keyed = frame.with_columns(pl.col(KEYS).cast(pl.String))
    groups = keyed.partition_by(KEYS, maintain_order=True, as_dict=True)
    each = max(2, points // max(1, len(groups)))
    out = []
    for key, part in groups.items():
        part = part.sort("timestamp")
        stats = capacity.metric_summary(part).row(0, named=True)
        row: dict[str, Any] = {k: v for k, v in zip(KEYS, key) if v is not None}
        row.update(
            points=stats["count"],
            first=part["timestamp"][0],
            last=part["timestamp"][-1],
            last_value=part["value"][-1],
            min=part["value"].min(),
            mean=stats["mean"],
            p50=stats["p50"],
            p95=stats["p95"],
            p99=stats["p99"],
            max=stats["max"],
        )
        if at is not None:
            before = part.filter(pl.col("timestamp") <= at)
            row["value_at"] = before["value"][-1] if before.height else None
        row["buckets"] = _buckets(part, each, start or part["timestamp"][0],
                                  end or part["timestamp"][-1])  # fmt: skip
        out.append(row)
    return out


def _buckets(part: pl.DataFrame, n: int, start: datetime, end: datetime) -> dict[str, Any]:
    """The series in at most ``n`` buckets of one length from ``start`` (each bucket: its
    points' mean and maximum); the length a round one (:data:`_LENGTHS`), the shortest that
    puts ``end`` in the last bucket."""
    span = max((end - start).total_seconds() / 60.0, 0.0)
    need = span / max(1, n - 1)
    minutes = next((m for m in _LENGTHS if m >= need), 1440 * math.ceil(need / 1440))
    count = int(span // minutes) + 1
    start_ms = int(start.timestamp() * 1000)
    every_ms = minutes * 60_000
    agg = (
        part.filter(pl.col("timestamp") >= start)
        .with_columns(
            b=((pl.col("timestamp").dt.epoch("ms") - start_ms) // every_ms).cast(pl.Int64)
        )
        .filter(pl.col("b") < count)
        .group_by("b")
        .agg(mean=pl.col("value").mean(), max=pl.col("value").max())
    )
    means: list[Optional[float]] = [None] * count
    maxes: list[Optional[float]] = [None] * count
    for b, mean, top in agg.iter_rows():
        means[b], maxes[b] = mean, top
    every = iso_duration(timedelta(minutes=minutes))
    return {"start": start, "every": every, "mean": means, "max": maxes}


#: Bucket lengths, in minutes: round ones a person reads (1 min to a week).
_LENGTHS = [1, 2, 5, 10, 15, 30, 60, 120, 180, 240, 360, 480, 720, 1440, 2880, 10080]
