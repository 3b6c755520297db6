"""Load: quantiles per host and measurement, and the hours of the day that are busiest."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from ._common import _keyed

__all__ = ["busiest_hours", "hour_of_day_profile", "metric_summary"]


def metric_summary(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """Per host (and partition, for disk series) and measurement: p50, p95, p99, max.

    Quantiles interpolate linearly between data points (as ``numpy.percentile`` does);
    null data points are ignored and counted in ``nulls``.

    Example::

        >>> metric_summary(frame).filter(pl.col("measurement") == "CONNECTIONS")
    """
    keys = ["group_id", "host_id", "partition_name", "measurement", "units"]
    v = pl.col("value")
    return (
        _keyed(frame)
        .group_by(keys)
        .agg(
            count=v.count().cast(pl.Int64),
            nulls=v.null_count().cast(pl.Int64),
            mean=v.mean(),
            p50=v.quantile(0.50, interpolation="linear"),
            p95=v.quantile(0.95, interpolation="linear"),
            p99=v.quantile(0.99, interpolation="linear"),
            max=v.max(),
        )
        .sort(keys, nulls_last=False)
        .collect()
    )


def _hourly(frame: pl.DataFrame | pl.LazyFrame, measurement: str | Sequence[str]) -> pl.LazyFrame:
    names = [measurement] if isinstance(measurement, str) else list(measurement)
    return (
        _keyed(frame)
        .filter(pl.col("measurement").is_in(names) & pl.col("value").is_not_null())
        .group_by(
            "group_id", "host_id", "measurement", hour=pl.col("timestamp").dt.hour().cast(pl.Int8)
        )
        .agg(
            mean=pl.col("value").mean(),
            p95=pl.col("value").quantile(0.95, interpolation="linear"),
            count=pl.len(),
        )
    )


def hour_of_day_profile(
    frame: pl.DataFrame | pl.LazyFrame, measurement: str | Sequence[str]
) -> pl.DataFrame:
    """Mean and p95 of a measurement per host and hour of day (UTC), for a heatmap.

    Returns ``group_id, host_id, measurement, hour (0–23), mean, p95, count``, sorted by host
    and hour.

    Example::

        >>> profile = hour_of_day_profile(frame, "CONNECTIONS")
        >>> alt.Chart(profile).mark_rect().encode(x="hour:O", y="host_id:N", color="mean:Q")
    """
    return (
        _hourly(frame, measurement)
        .with_columns(pl.col("count").cast(pl.Int64))
        .sort("group_id", "host_id", "measurement", "hour")
        .collect()
    )


def busiest_hours(
    frame: pl.DataFrame | pl.LazyFrame, measurement: str, *, top: int = 3
) -> pl.DataFrame:
    """Per host, the ``top`` hours of day (UTC) with the highest mean of ``measurement``.

    Returns ``group_id, host_id, rank (1 = busiest), hour, mean``.

    Example::

        >>> busiest_hours(frame, "SYSTEM_CPU_USER", top=3)
    """
    return (
        _hourly(frame, measurement)
        .sort("hour")
        .with_columns(
            rank=pl.col("mean")
            .rank(method="ordinal", descending=True)
            .over("group_id", "host_id", "measurement")
            .cast(pl.Int64)
        )
        .filter(pl.col("rank") <= top)
        .select("group_id", "host_id", "measurement", "rank", "hour", "mean")
        .sort("group_id", "host_id", "measurement", "rank")
        .collect()
    )
