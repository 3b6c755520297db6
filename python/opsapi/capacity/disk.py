"""Disk space: when each partition reaches each threshold of its capacity."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Optional

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
from .events import event_breaks, series_breaks
from .passage import capacity_breaks, first_passage, rests_on, short_note
from .topology import topology
from .trend import (
    INTERVAL_LEVEL,
    forecast_errors,
    origin_plan,
    spans,
)

__all__ = ["disk_errors", "disk_fits", "disk_forecast", "disk_points"]


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
    interval_level: float = INTERVAL_LEVEL,
    horizons: Sequence[int] = (7, 14, 30),
    events: Any = None,
    hosts: Any = None,
    clusters: Any = None,
) -> pl.DataFrame:
    """Forecast when each disk partition reaches each threshold of its capacity, with an
    interval.

    The growth rate is the Theil–Sen slope (median of the pairwise slopes of up to
    ``max_fit_points`` evenly spaced points of the window), so spikes and gaps do not bend
    it. A partition gets a date only when it grows by more than its noise over the window
    and the line explains at least ``min_r2`` of the variance of the non-outlying points;
    flat, shrinking and noisy disks get ``null`` days and dates and say why in ``trend``.

    The days count to the first time the used space itself reaches each threshold of the
    capacity now (:mod:`opsapi.capacity.passage`, :mod:`opsapi::forecast`), fitted from where
    the present regime starts: a level shift (a bulk load, a delete), a change of growth or
    a change of capacity (a resize, seen in the disk's own size) within the window restarts
    the fit, and ``fit_since``/``fit_reason`` say where and why. Each has a range at
    ``interval_level`` (80 % by default): ``days_to_<t>_low`` to ``days_to_<t>_high`` (null:
    beyond three years), read from the distribution of that first passage (the slope's
    uncertainty and how far the used space strays from its trend, a sawtooth's teeth
    included), calibrated by rolling-origin forecasts on the partition's own history where
    it has enough of them (``interval_source`` ``"backtest"``), else the model's own
    (``"residuals"``); ``rests_on`` says so in a phrase. A partition without a trend toward
    the threshold beyond its noise, or with too few days since a change, has no days, and
    ``note`` says why.

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
        interval_level: the share of outcomes each interval should hold (0 to 1).
        horizons: the days ahead at which past forecasts are checked, for the backtest.
        events: the projects' events over the history the frame holds
            (:func:`~opsapi.capacity.window_events`), or None: a disk resize or tier change
            they name (Atlas's disk auto-scaling, a cluster's update) restarts the fits of
            its hosts' partitions there (``fit_reason`` ``capacity_change`` or
            ``tier_change``) whether or not the disk's size shows it
            (:func:`~opsapi.capacity.event_breaks`).
        hosts, clusters: the hosts (and the projects' clusters), to find the hosts of the
            events that name a replica set or (Atlas's) a cluster
            (:func:`~opsapi.capacity.topology`); without them only an event that names a
            host by its id is placed.

    Returns:
        One row per ``(group_id, host_id, partition_name)``: ``used_bytes`` (latest),
        ``capacity_bytes``, ``percent_used``, ``last_timestamp``, ``fitted_used_bytes`` (the
        trend line at ``now``, from which the days are counted), ``growth_bytes_per_day``, ``r2``,
        ``residual_std_bytes`` (robust), ``points``, ``outliers``, ``trend``
        (``growing``, ``flat``, ``shrinking``, ``poor_fit``, ``insufficient_data``),
        then ``days_to_<t>``, ``days_to_<t>_low``, ``days_to_<t>_high`` and ``date_<t>``
        per threshold (``days_to_80``, …, ``date_full``), ``interval_source``, ``fit_since``,
        ``fit_reason``, ``rests_on`` and ``note`` (why there are no days); sorted by
        ``days_to_full`` (nulls last), then by ``percent_used`` descending.

    Example::

        >>> forecast = disk_forecast(frame, window="14d")
        >>> forecast.select("host_id", "partition_name", "percent_used", "days_to_full")
    """
    span = parse_duration(window)
    points = _disk_points(frame).collect()
    now_utc = _reference_now(points.get_column("timestamp"), now)
    now_lit = pl.lit(now_utc, dtype=pl.Datetime("ms", "UTC"))
    labels = [threshold_label(t) for t in thresholds]

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
    fits = disk_fits(points.lazy(), now_utc, span, [0], max_fit_points)
    fit = fits.drop("origin").rename(
        {
            "trend": "growth_bytes_per_day",
            "level": "fitted_used_bytes",
            "sigma": "residual_std_bytes",
            "days": "points",
            "span": "span_days",
        }
    )
    slope = pl.col("growth_bytes_per_day")
    change = slope * pl.col("span_days")
    r2 = (
        pl.when(pl.col("_ss_tot") > 0)
        .then(1.0 - pl.col("_ss_res") / pl.col("_ss_tot"))
        .otherwise(None)
        .alias("r2")
    )
    trend_class = (
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
    base = (
        current.join(fit, on=_PARTITION, how="left", nulls_equal=True)
        .with_columns(r2)
        .with_columns(
            trend_class, percent_used=pl.col("used_bytes") / pl.col("capacity_bytes") * 100.0
        )
        .collect()
    )
    named = _named_breaks(events, hosts, clusters, points, now_utc)
    ranges = _disk_ranges(points, base, now_utc, span, thresholds, labels, interval_level,
                          horizons, named)  # fmt: skip
    out = (
        base.lazy()
        .join(ranges.lazy(), on=_PARTITION, how="left", nulls_equal=True)
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
            *[
                c
                for label in labels
                for c in (
                    f"days_to_{label}",
                    f"days_to_{label}_low",
                    f"days_to_{label}_high",
                    f"date_{label}",
                )
            ],  # fmt: skip
            "interval_source",
            "fit_since",
            "fit_reason",
            "rests_on",
            "note",
        )
        .sort(
            [f"days_to_{labels[-1]}" if labels else "percent_used", "percent_used"],
            descending=[False, True] if labels else [True, True],
            nulls_last=True,
        )
    )
    return out.collect()


def disk_fits(
    points: pl.LazyFrame,
    now: datetime,
    span: timedelta,
    origins: Sequence[int],
    max_fit_points: int = 120,
) -> pl.LazyFrame:
    """:func:`disk_forecast`'s fit at each of ``origins`` (days before ``now``), each on the
    ``span`` up to it: per partition and origin, ``trend`` (bytes a day, Theil–Sen),
    ``level`` (the line at the origin), ``sigma`` (robust residual spread), ``days``
    (points), ``outliers``, ``span`` (days between the first and last point), ``_ss_res`` and
    ``_ss_tot`` (for R²), and ``A``, ``C``, ``B`` of the forecast's spread (as
    :func:`opsapi.capacity.trend.fit_peaks` gives them).

    >>> fits = disk_fits(points, now, timedelta(days=14), [0])  # doctest: +SKIP
    """
    keys = [*_PARTITION, "origin"]
    now_lit = pl.lit(now, dtype=pl.Datetime("ms", "UTC"))
    w = span.total_seconds() / 86_400
    # Age in days; a point belongs to the origins o with o <= age <= o + w.
    age = (now_lit - pl.col("timestamp")).dt.total_milliseconds().cast(pl.Float64) / _MS_PER_DAY
    pts = spans(
        points.filter(pl.col("timestamp") <= now_lit).with_columns(_age=age),
        (pl.col("_age") - w).ceil().cast(pl.Int64),
        pl.col("_age").floor().cast(pl.Int64),
        origins,
    )
    # x: days relative to the origin (the intercept is the line there); y: used bytes.
    pts = pts.with_columns(x=pl.col("origin").cast(pl.Float64) - pl.col("_age"), y=pl.col("used"))
    pts = pts.sort([*keys, "timestamp"])
    slopes = _theil_sen(pts, keys, max_fit_points)
    fitted = (
        pts.join(slopes, on=keys, how="left", nulls_equal=True)
        .with_columns(slope=pl.col("slope").fill_null(0.0))
        .with_columns(intercept=(pl.col("y") - pl.col("slope") * pl.col("x")).median().over(keys))
        .with_columns(resid=pl.col("y") - pl.col("intercept") - pl.col("slope") * pl.col("x"))
        .with_columns(
            sigma=_MAD_TO_SIGMA
            * (pl.col("resid") - pl.col("resid").median()).abs().median().over(keys)
        )
        .with_columns(
            # Points further than 3.5 sigma from the line are outliers: they neither move the
            # slope (Theil–Sen) nor count against the fit quality.
            inlier=(pl.col("resid").abs() <= 3.5 * pl.col("sigma")) | (pl.col("sigma") == 0)
        )
    )
    fit = fitted.group_by(keys).agg(
        trend=pl.col("slope").first(),
        level=pl.col("intercept").first(),
        sigma=pl.col("sigma").first(),
        days=pl.len().cast(pl.Int64),
        outliers=(~pl.col("inlier")).sum().cast(pl.Int64),
        span=pl.col("x").max() - pl.col("x").min(),
        _ss_res=(pl.col("resid") ** 2).filter(pl.col("inlier")).sum(),
        _ss_tot=((pl.col("y") - pl.col("y").filter(pl.col("inlier")).mean()) ** 2)
        .filter(pl.col("inlier"))
        .sum(),
        _xbar=pl.col("x").mean(),
        _sxx=((pl.col("x") - pl.col("x").mean()) ** 2).sum(),
    )
    # Theil–Sen's slope: about 1.1 times the least-squares one's variance; the line's level at
    # the origin: the median's (pi/2 / n) and the slope's carried from the points' middle.
    vs = 1.1 / pl.col("_sxx")
    xbar = pl.col("_xbar")
    return fit.with_columns(
        A=math.pi / 2 / pl.col("days") + xbar**2 * vs, C=-2.0 * xbar * vs, B=vs
    ).drop("_xbar", "_sxx")


def disk_errors(
    points: pl.LazyFrame,
    now: datetime,
    span: timedelta,
    horizons: Sequence[int],
    *,
    every: int = 7,
    max_fit_points: int = 120,
) -> pl.LazyFrame | None:
    """The errors of :func:`disk_forecast`'s past forecasts on the history of ``points``
    (:func:`opsapi.capacity.trend.forecast_errors`), a forecast every ``every`` days; None
    when the history is too short for any.

    >>> errors = disk_errors(points, now, timedelta(days=14), (7, 14, 30))  # doctest: +SKIP
    """
    now_lit = pl.lit(now, dtype=pl.Datetime("ms", "UTC"))
    first = points.filter(pl.col("timestamp") <= now_lit).select(pl.col("timestamp").min())
    first_at = first.collect().item()
    w = max(1, round(span.total_seconds() / 86_400))
    history = 0 if first_at is None else int((now - first_at).total_seconds() // 86_400)
    forecast_origins, truth_origins = origin_plan(history, w, horizons, stride=every)
    if not forecast_origins:
        return None
    fits = disk_fits(points, now, timedelta(days=w), forecast_origins, max_fit_points)
    truths = disk_fits(points, now, timedelta(days=2 * w), truth_origins, max_fit_points)
    return forecast_errors(fits, truths, _PARTITION, horizons, window_days=w)


def _named_breaks(
    events: Any, hosts: Any, clusters: Any, points: pl.DataFrame, now: datetime
) -> Optional[pl.DataFrame]:
    """The partitions' restarts that ``events`` name (:func:`~opsapi.capacity.event_breaks`),
    their hosts found through ``hosts`` and ``clusters``, else by the host ids alone."""
    if events is None:
        return None
    topo = (
        topology(hosts, clusters)
        if hosts is not None
        else points.select(
            pl.col("group_id").cast(pl.String), pl.col("host_id").cast(pl.String),
            member=pl.lit(None, pl.String), replica_set_name=pl.lit(None, pl.String),
            cluster_name=pl.lit(None, pl.String),
        ).unique()
    )  # fmt: skip
    return series_breaks(event_breaks(events, topo, now), "disk", points.select(_PARTITION))


def _disk_ranges(
    points: pl.DataFrame,
    current: pl.DataFrame,
    now: datetime,
    span: timedelta,
    thresholds: Sequence[float],
    labels: Sequence[str],
    level: float,
    horizons: Sequence[int],
    named: Optional[pl.DataFrame] = None,
) -> pl.DataFrame:
    """Per partition, the days to each threshold of its capacity now and their range
    (:func:`opsapi.capacity.passage.first_passage`: the used bytes themselves reaching it,
    from where the present regime starts; a capacity change in the points, or one that the
    events name (``named``), restarts the fit),
    with ``date_<t>``, ``interval_source``, ``fit_since``, ``fit_reason``, ``rests_on`` and
    ``note`` (why a partition has no days)."""
    pts = points.select(*_PARTITION, "timestamp", value="used", capacity="point_capacity")
    limits = pl.concat(
        [
            current.select(
                *_PARTITION,
                "trend",
                "used_bytes",
                label=pl.lit(label),
                limit=t * pl.col("capacity_bytes"),
            )
            for t, label in zip(thresholds, labels)
        ]
    ).filter(pl.col("limit").is_not_null())
    first = pts.group_by(_PARTITION).agg(_first=pl.col("timestamp").min())
    w = max(1, round(span.total_seconds() / 86_400))
    out = first_passage(
        pts.select(*_PARTITION, "timestamp", "value"),
        limits,
        _PARTITION,
        now,
        window_days=w,
        level=level,
        horizons=horizons,
        breaks=pl.concat(
            [capacity_breaks(pts, _PARTITION, now), *([] if named is None else [named])],
            how="vertical_relaxed",
        ),
    ).join(first, on=_PARTITION, how="left", nulls_equal=True)
    now_lit = pl.lit(now, dtype=pl.Datetime("ms", "UTC"))
    # A date where the regime's trend heads for the threshold beyond its noise, and the line
    # through the window agrees (growing), or disagrees only by its fit (a sawtooth: poor_fit)
    # with a range that closes within three years.
    agrees = (pl.col("trend") == "growing") | (
        (pl.col("trend") == "poor_fit") & pl.col("days_high").is_not_null()
    )
    given = pl.col("dated") & ~pl.col("regime_short") & agrees & pl.col("days").is_not_null()
    past = pl.col("used_bytes") >= pl.col("limit")
    history = (now_lit - pl.col("_first")).dt.total_hours() / 24.0
    out = out.with_columns(
        [
            pl.when(past).then(0.0).when(given).then(c).alias(c)
            for c in ("days", "days_low", "days_high")
        ],
    ).with_columns(
        rests_on=rests_on(level, history),
        note=pl.when(past)
        .then(pl.lit("past the threshold"))
        .otherwise(
            pl.coalesce(
                short_note(now), pl.when(~given).then(pl.lit("not growing beyond its noise"))
            )
        ),
    )
    per = out.unique(_PARTITION, maintain_order=True).select(
        *_PARTITION, "interval_source", "fit_since", "fit_reason", "rests_on", "note"
    )
    for label in labels:
        one = out.filter(pl.col("label") == label).select(
            *_PARTITION,
            pl.col("days").alias(f"days_to_{label}"),
            pl.col("days_low").alias(f"days_to_{label}_low"),
            pl.col("days_high").alias(f"days_to_{label}_high"),
            (
                now_lit
                + pl.duration(milliseconds=(pl.col("days") * _MS_PER_DAY).round().cast(pl.Int64))
            ).alias(f"date_{label}"),
        )
        per = per.join(one, on=_PARTITION, how="left", nulls_equal=True)
    return per
