"""Disk space: when each partition reaches each threshold of its capacity."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

import polars as pl

from opsapi._duration import parse_duration

from ._common import (
    _MAD_TO_SIGMA,
    _MS_PER_DAY,
    _PARTITION,
    _disk_points,
    _reference_now,
    _theil_sen,
    threshold_label,
)

__all__ = ["disk_forecast", "disk_points"]


def disk_points(frame: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
    """The disk measurements as one row per partition and timestamp: ``used`` bytes,
    ``free`` bytes, ``pct`` (percent used, as measured), ``point_capacity`` (used + free, or
    what the percentage gives) and ``percent_used`` (used over that capacity).

    Args:
        frame: long frame with ``DISK_PARTITION_SPACE_USED`` and either
            ``DISK_PARTITION_SPACE_FREE`` or ``DISK_PARTITION_SPACE_PERCENT_USED``.

    >>> disks = client.measurements.fleet(
    ...     [(g, h, "data")], granularity="PT1H", period="P1D",
    ...     metrics=["DISK_PARTITION_SPACE_USED", "DISK_PARTITION_SPACE_FREE"])
    >>> pts = disk_points(disks)
    >>> pts.columns[3:], pts.height
    (['timestamp', 'used', 'free', 'pct', 'point_capacity', 'percent_used'], 25)
    """
    return (
        _disk_points(frame)
        .with_columns(percent_used=pl.col("used") / pl.col("point_capacity") * 100.0)
        .sort([*_PARTITION, "timestamp"])
        .collect()
    )


def disk_forecast(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    window: str | timedelta = "14d",
    now: datetime | str | None = None,
    thresholds: Sequence[float] = (0.8, 0.9, 1.0),
    min_r2: float = 0.5,
    min_points: int = 8,
    max_fit_points: int = 120,
) -> pl.DataFrame:
    """Forecast when each disk partition reaches each threshold of its capacity.

    The growth rate is the Theil–Sen slope (median of the pairwise slopes of up to
    ``max_fit_points`` evenly spaced points of the window), so spikes and gaps do not bend
    it. A partition gets a date only when it grows by more than its noise over the window
    and the line explains at least ``min_r2`` of the variance of the non-outlying points;
    flat, shrinking and noisy disks get ``null`` days and dates and say why in ``trend``.

    Args:
        frame: long frame with ``DISK_PARTITION_SPACE_USED`` and either
            ``DISK_PARTITION_SPACE_FREE`` or ``DISK_PARTITION_SPACE_PERCENT_USED``.
        window: how far back from ``now`` the fit looks (``"14d"``, ``"36h"``, ``"P14D"``,
            or a ``timedelta``).
        now: the reference instant (timezone-aware); default: the newest timestamp in
            the frame.
        thresholds: fractions of capacity; ``1.0`` is named ``full``.
        min_r2: the least R² for which a date is given.
        min_points: the least number of data points in the window for a fit.
        max_fit_points: subsample size for the pairwise slopes (cost grows with its square).

    Returns:
        One row per ``(group_id, host_id, partition_name)``: ``used_bytes`` (latest),
        ``capacity_bytes``, ``percent_used``, ``last_timestamp``, ``fitted_used_bytes`` (the
        trend line at ``now``, from which the days are counted), ``growth_bytes_per_day``, ``r2``,
        ``residual_std_bytes`` (robust), ``points``, ``outliers``, ``trend``
        (``growing``, ``flat``, ``shrinking``, ``poor_fit``, ``insufficient_data``),
        then ``days_to_<t>`` and ``date_<t>`` per threshold (``days_to_80``,
        ``date_80``, …, ``days_to_full``, ``date_full``), sorted by ``days_to_full``
        (nulls last), then by ``percent_used`` descending.

    Example::

        >>> forecast = disk_forecast(frame, window="14d")
        >>> forecast.select("host_id", "partition_name", "percent_used", "days_to_full")
    """
    span = parse_duration(window)
    points = _disk_points(frame).collect()
    now_utc = _reference_now(points.get_column("timestamp"), now)
    now_lit = pl.lit(now_utc, dtype=pl.Datetime("ms", "UTC"))
    start_lit = pl.lit(now_utc - span, dtype=pl.Datetime("ms", "UTC"))

    labels = [threshold_label(t) for t in thresholds]
    window_pts = points.lazy().filter(
        (pl.col("timestamp") <= now_lit) & (pl.col("timestamp") >= start_lit)
    )
    # x: days relative to now (so the intercept is the fitted level at now); y: used bytes.
    window_pts = window_pts.with_columns(
        x=(pl.col("timestamp") - now_lit).dt.total_milliseconds().cast(pl.Float64) / _MS_PER_DAY,
        y=pl.col("used"),
    ).sort([*_PARTITION, "timestamp"])

    # Latest observation at or before now, and the robust capacity of the window.
    current = (
        points.lazy()
        .filter(pl.col("timestamp") <= now_lit)
        .sort("timestamp")
        .group_by(_PARTITION)
        .agg(
            used_bytes=pl.col("used").last(),
            last_timestamp=pl.col("timestamp").last(),
            capacity_bytes=pl.col("point_capacity").drop_nulls().tail(50).median(),
        )
    )

    slopes = _theil_sen(window_pts, _PARTITION, max_fit_points)
    fitted = (
        window_pts.join(slopes, on=_PARTITION, how="left", nulls_equal=True)
        .with_columns(slope=pl.col("slope").fill_null(0.0))
        .with_columns(
            intercept=(pl.col("y") - pl.col("slope") * pl.col("x")).median().over(_PARTITION)
        )
        .with_columns(resid=pl.col("y") - pl.col("intercept") - pl.col("slope") * pl.col("x"))
        .with_columns(
            sigma=_MAD_TO_SIGMA
            * (pl.col("resid") - pl.col("resid").median()).abs().median().over(_PARTITION)
        )
        .with_columns(
            # Points further than 3.5 sigma from the line are outliers: they neither move the
            # slope (Theil–Sen) nor count against the fit quality.
            inlier=(pl.col("resid").abs() <= 3.5 * pl.col("sigma")) | (pl.col("sigma") == 0)
        )
    )
    fit = fitted.group_by(_PARTITION).agg(
        growth_bytes_per_day=pl.col("slope").first(),
        fitted_used_bytes=pl.col("intercept").first(),
        residual_std_bytes=pl.col("sigma").first(),
        points=pl.len().cast(pl.Int64),
        outliers=(~pl.col("inlier")).sum().cast(pl.Int64),
        span_days=pl.col("x").max() - pl.col("x").min(),
        _ss_res=(pl.col("resid") ** 2).filter(pl.col("inlier")).sum(),
        _ss_tot=((pl.col("y") - pl.col("y").filter(pl.col("inlier")).mean()) ** 2)
        .filter(pl.col("inlier"))
        .sum(),
    )

    slope = pl.col("growth_bytes_per_day")
    change = slope * pl.col("span_days")
    r2 = (
        pl.when(pl.col("_ss_tot") > 0)
        .then(1.0 - pl.col("_ss_res") / pl.col("_ss_tot"))
        .otherwise(None)
        .alias("r2")
    )
    trend = (
        pl.when(pl.col("points").fill_null(0) < min_points)
        .then(pl.lit("insufficient_data"))
        .when(change.abs() <= 2.0 * pl.col("residual_std_bytes"))
        .then(pl.lit("flat"))
        .when(slope < 0)
        .then(pl.lit("shrinking"))
        .when(pl.col("r2").is_null() | (pl.col("r2") < min_r2))
        .then(pl.lit("poor_fit"))
        .otherwise(pl.lit("growing"))
        .alias("trend")
    )
    growing = pl.col("trend") == "growing"
    days_cols = []
    date_cols = []
    for t, label in zip(thresholds, labels):
        days = (
            pl.when(growing)
            .then(
                ((t * pl.col("capacity_bytes") - pl.col("fitted_used_bytes")) / slope).clip(
                    lower_bound=0.0
                )
            )
            .otherwise(None)
        )
        days_cols.append(days.alias(f"days_to_{label}"))
        date_cols.append(
            (
                now_lit
                + pl.duration(
                    milliseconds=(pl.col(f"days_to_{label}") * _MS_PER_DAY).round().cast(pl.Int64)
                )
            ).alias(f"date_{label}")
        )

    out = (
        current.join(fit, on=_PARTITION, how="left", nulls_equal=True)
        .with_columns(r2)
        .with_columns(trend, percent_used=pl.col("used_bytes") / pl.col("capacity_bytes") * 100.0)
        .with_columns(days_cols)
        .with_columns(date_cols)
        .select(
            *_PARTITION,
            "used_bytes",
            "capacity_bytes",
            "percent_used",
            "last_timestamp",
            "fitted_used_bytes",
            "growth_bytes_per_day",
            "r2",
            "residual_std_bytes",
            "points",
            "outliers",
            "trend",
            *[c for label in labels for c in (f"days_to_{label}", f"date_{label}")],
        )
        .sort(
            [f"days_to_{labels[-1]}" if labels else "percent_used", "percent_used"],
            descending=[False, True] if labels else [True, True],
            nulls_last=True,
        )
    )
    return out.collect()
