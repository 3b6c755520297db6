"""Capacity analysis over the long measurement frame, in polars expressions.

Every function takes the *long* frame that ``Measurements.to_polars()`` and
``client.measurements.fleet(...)`` return (columns ``group_id, host_id, process_id,
partition_name, database_name, measurement, units, timestamp, value``) and returns a polars
DataFrame.
Null data points are ignored; no function loops over rows in Python.

Example::

    import opsapi
    from opsapi import capacity

    client = opsapi.Client.from_env()
    disks = client.measurements.fleet(
        [(g, h, p) for g, h in targets for p in client.hosts.partitions(g, h)],
        granularity="PT1H", period="P14D",
    )
    capacity.disk_forecast(disks)          # one row per partition, soonest full first

(Over 600 lines: each analysis with its docstring and example; they share the key handling
and robust fits at the top.)
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta, timezone

import polars as pl

from opsapi._duration import parse_duration
from opsapi._native import LONG_KEY_COLUMNS

__all__ = [
    "busiest_hours",
    "database_growth",
    "disk_forecast",
    "hour_of_day_profile",
    "metric_summary",
    "threshold_label",
]

USED = "DISK_PARTITION_SPACE_USED"
FREE = "DISK_PARTITION_SPACE_FREE"
PERCENT_USED = "DISK_PARTITION_SPACE_PERCENT_USED"

STORAGE_SIZE = "DATABASE_STORAGE_SIZE"
INDEX_SIZE = "DATABASE_INDEX_SIZE"

# The long frame's key columns (the native module's list): Categorical, as opsapi's frames
# hold them, so that every frame this module returns joins with every frame the client returns
# as it is.
_KEYS = LONG_KEY_COLUMNS
_PARTITION = ["group_id", "host_id", "partition_name"]
_DATABASE = ["group_id", "host_id", "database_name"]
_MS_PER_DAY = 86_400_000.0
# 1.4826 * MAD estimates the standard deviation of normal noise; robust to spikes.
_MAD_TO_SIGMA = 1.4826


def threshold_label(threshold: float) -> str:
    """Column suffix for a threshold: ``0.8`` → ``"80"``, ``1.0`` → ``"full"``.

    >>> threshold_label(0.85), threshold_label(1.0)
    ('85', 'full')
    """
    if threshold >= 1.0:
        return "full"
    pct = threshold * 100
    return str(int(pct)) if float(pct).is_integer() else f"{pct:g}".replace(".", "_")


def _as_utc(now: datetime | str | None) -> datetime | None:
    if now is None:
        return None
    if isinstance(now, str):
        now = datetime.fromisoformat(now.replace("Z", "+00:00"))
    if now.tzinfo is None:
        raise ValueError("now: a naive datetime is ambiguous; pass a timezone-aware one")
    return now.astimezone(timezone.utc)


def _keyed(frame: pl.DataFrame | pl.LazyFrame) -> pl.LazyFrame:
    """The frame, lazy, with its key columns Categorical (a frame built by hand may hold them
    as String)."""
    lazy = frame.lazy()
    names = lazy.collect_schema().names()
    return lazy.with_columns(pl.col(c).cast(pl.Categorical) for c in _KEYS if c in names)


def _disk_points(frame: pl.DataFrame | pl.LazyFrame) -> pl.LazyFrame:
    """One row per (partition, timestamp) with used bytes and per-point capacity."""
    m = pl.col("measurement")
    return (
        _keyed(frame)
        .filter(m.is_in([USED, FREE, PERCENT_USED]) & pl.col("value").is_not_null())
        .group_by([*_PARTITION, "timestamp"])
        .agg(
            used=pl.col("value").filter(m == USED).first(),
            free=pl.col("value").filter(m == FREE).first(),
            pct=pl.col("value").filter(m == PERCENT_USED).first(),
        )
        .filter(pl.col("used").is_not_null())
        .with_columns(
            point_capacity=pl.when(pl.col("free").is_not_null())
            .then(pl.col("used") + pl.col("free"))
            .when(pl.col("pct") > 0)
            .then(pl.col("used") * 100.0 / pl.col("pct"))
        )
    )


def _theil_sen(points: pl.LazyFrame, keys: list[str], max_fit_points: int) -> pl.LazyFrame:
    """The Theil–Sen slope of ``y`` over ``x`` per ``keys``: the median of the pairwise slopes
    of up to ``max_fit_points`` evenly spaced points (``points`` sorted by ``x`` per key)."""
    sub = points.with_columns(
        _i=pl.int_range(pl.len()).over(keys),
        _step=((pl.len() + max_fit_points - 1) // max_fit_points).over(keys),
    ).filter(pl.col("_i") % pl.col("_step") == 0)
    pairs = sub.select([*keys, "x", "y"])
    return (
        pairs.join(pairs, on=keys, suffix="_r", nulls_equal=True)
        .filter(pl.col("x_r") > pl.col("x"))
        .group_by(keys)
        .agg(slope=((pl.col("y_r") - pl.col("y")) / (pl.col("x_r") - pl.col("x"))).median())
    )


def _reference_now(timestamps: pl.Series, now: datetime | str | None) -> datetime:
    """``now`` in UTC, or the newest timestamp of the frame, or the current time."""
    now_utc = _as_utc(now)
    if now_utc is None:
        now_utc = timestamps.max() if timestamps.len() else None  # type: ignore[assignment]
    return now_utc if now_utc is not None else datetime.now(timezone.utc)


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


def database_growth(
    frame: pl.DataFrame | pl.LazyFrame,
    *,
    window: str | timedelta = "14d",
    disks: pl.DataFrame | None = None,
    disk_frame: pl.DataFrame | pl.LazyFrame | None = None,
    now: datetime | str | None = None,
    max_fit_points: int = 120,
) -> pl.DataFrame:
    """Which databases grow, how fast, and how big they will be when their disk is full.

    A database's size is ``DATABASE_STORAGE_SIZE + DATABASE_INDEX_SIZE`` (what it takes on
    disk); its growth per day is the same robust (Theil–Sen) fit as :func:`disk_forecast`'s,
    over ``window`` back from ``now``.

    With ``disks``, each host's databases are matched to the partition of that host that holds
    their files, from what the measurements show. The model: that partition's used space is the
    databases' summed size plus an overhead that does not grow with them (journal, diagnostics,
    the OS), so that ``used − Σ databases`` is, over the window, a level of at least 0 with no
    trend. That difference is fitted per partition (a robust line, then least squares on the
    points near it), and the partition taken is, in this order of preference:

    1. one that can hold the databases: the level is not below 0 by more than 3 noise sigmas;
    2. one whose growth the databases' growth explains: the trend of the difference is within
       3 standard errors of 0; failing that, within that plus 10 % of the databases' growth
       (what the model leaves out, such as growing logs);
    3. of those, the one the databases leave least unexplained: the share of the disk's growth
       they may not explain (the trend's bound 3 standard errors out, over their growth, at
       most 1) plus the share of its used space they do not account for (the overhead).

    With ``disk_frame`` (the long disk measurements) the difference is taken point by point, so
    that what moves a database and its disk together (bulk loads, deletions) cancels out;
    without it, it comes from the forecast's fitted level, growth and noise. On a host whose
    databases do not grow, only the level tells: the tightest fit is taken, and another flat
    partition with a little less used space could be taken for it.

    Args:
        frame: long frame of database measurements (``kind="database"`` fleet pulls) with
            both size measurements.
        window: how far back from ``now`` the fit looks.
        disks: the :func:`disk_forecast` of the same hosts' partitions. With it, each database
            gets the partition that holds it (see above), its share of that disk's growth and
            its size on the date the disk is forecast full.
        disk_frame: the long frame of the same hosts' disk measurements (``disks`` is its
            forecast), pulled at the same granularity: the better match (see above). Alone,
            without ``disks``, its forecast is made here with the same ``window``.
        now: the reference instant (timezone-aware); default: the newest timestamp.
        max_fit_points: subsample size for the pairwise slopes.

    Returns:
        One row per ``(group_id, host_id, database_name)``: ``size_bytes`` (latest),
        ``growth_bytes_per_day``, ``share_of_host_growth`` (of the growth of all the host's
        databases), and with ``disks``: ``partition_name``, ``disk_growth_bytes_per_day``,
        ``share_of_disk_growth``, ``date_full`` and ``size_at_full_bytes`` (null when the disk
        has no forecast date). Sorted by host, fastest-growing database first.

    Example::

        >>> dbs = client.measurements.fleet(db_targets, kind="database", granularity="PT1H",
        ...                                 period="P14D", metrics=[STORAGE_SIZE, INDEX_SIZE])
        >>> forecast = disk_forecast(disk_frame)
        >>> database_growth(dbs, disks=forecast, disk_frame=disk_frame).head()
    """
    span = parse_duration(window)
    m = pl.col("measurement")
    points = (
        _keyed(frame)
        .filter(m.is_in([STORAGE_SIZE, INDEX_SIZE]) & pl.col("value").is_not_null())
        .group_by([*_DATABASE, "timestamp"])
        .agg(y=pl.col("value").sum(), parts=pl.len())
        # A timestamp with only one of the two sizes would look like a drop.
        .filter(pl.col("parts") == 2)
        .collect()
    )
    now_utc = _reference_now(points.get_column("timestamp"), now)
    now_lit = pl.lit(now_utc, dtype=pl.Datetime("ms", "UTC"))
    window_pts = (
        points.lazy()
        .filter(
            (pl.col("timestamp") <= now_lit)
            & (pl.col("timestamp") >= pl.lit(now_utc - span, dtype=pl.Datetime("ms", "UTC")))
        )
        .with_columns(x=_days_before(now_lit))
        .sort([*_DATABASE, "timestamp"])
    )
    slopes = _theil_sen(window_pts, _DATABASE, max_fit_points)
    latest = window_pts.group_by(_DATABASE).agg(size_bytes=pl.col("y").last())
    host = ["group_id", "host_id"]
    out = (
        latest.join(slopes, on=_DATABASE, how="left", nulls_equal=True)
        .rename({"slope": "growth_bytes_per_day"})
        .with_columns(pl.col("growth_bytes_per_day").fill_null(0.0))
        .with_columns(
            share_of_host_growth=pl.when(pl.col("growth_bytes_per_day").sum().over(host) > 0)
            .then(
                pl.col("growth_bytes_per_day").clip(lower_bound=0.0)
                / pl.col("growth_bytes_per_day").clip(lower_bound=0.0).sum().over(host)
            )
            .otherwise(None)
        )
        .collect()
    )
    if disks is None and disk_frame is not None:
        disks = disk_forecast(disk_frame, window=span, now=now, max_fit_points=max_fit_points)
    if disks is not None:
        series = None
        if disk_frame is not None:
            series = _series_match(window_pts, disk_frame, now_utc, span, max_fit_points)
        out = _with_disk(out, disks, now_utc, span, series, max_fit_points)
    return out.sort(
        ["group_id", "host_id", "growth_bytes_per_day"], descending=[False, False, True]
    )


def _days_before(now: pl.Expr) -> pl.Expr:
    """``timestamp`` as days relative to ``now`` (negative before it)."""
    return (pl.col("timestamp") - now).dt.total_milliseconds().cast(pl.Float64) / _MS_PER_DAY


# How far the databases' growth may miss the disk's beyond the noise, as a share of the
# databases' growth: what the model (a constant overhead) leaves out, such as growing logs.
_MATCH_SLACK = 0.1
# Sigmas: the least level, and the most trend, of ``used − Σ databases`` on a matching disk.
_MATCH_SIGMAS = 3.0


def _series_match(
    db_points: pl.LazyFrame,
    disk_frame: pl.DataFrame | pl.LazyFrame,
    now: datetime,
    span: timedelta,
    max_fit_points: int,
) -> pl.LazyFrame:
    """Per partition of a host with databases, the fit of ``used − Σ databases`` over the
    window, point by point: ``overhead`` (its level at ``now``), ``mismatch`` (its trend, bytes
    per day), ``se`` (the trend's standard error) and ``sigma`` (its robust noise)."""
    host = ["group_id", "host_id"]
    now_lit = pl.lit(now, dtype=pl.Datetime("ms", "UTC"))
    # The databases' total at every timestamp any of them has: a database missing a point (a
    # gap) is interpolated (or carried at the window's ends) rather than counted as 0.
    grid = (
        db_points.select(*host, "timestamp")
        .unique()
        .join(db_points.select(_DATABASE).unique(), on=host)
    )
    total = (
        grid.join(
            db_points.select(*_DATABASE, "timestamp", "y"), on=[*_DATABASE, "timestamp"], how="left"
        )
        .sort("timestamp")
        .with_columns(
            pl.col("y").interpolate_by("timestamp").forward_fill().backward_fill().over(_DATABASE)
        )
        .group_by([*host, "timestamp"])
        .agg(db_total=pl.col("y").sum())
    )
    pairs = (
        _disk_points(disk_frame)
        .select(*_PARTITION, "timestamp", "used")
        .filter(
            (pl.col("timestamp") <= now_lit)
            & (pl.col("timestamp") >= pl.lit(now - span, dtype=pl.Datetime("ms", "UTC")))
        )
        .join(total, on=[*host, "timestamp"])
        .select(*_PARTITION, x=_days_before(now_lit), y=pl.col("used") - pl.col("db_total"))
        .sort([*_PARTITION, "x"])
    )
    # A robust line first (Theil–Sen, median level, MAD noise), then least squares on the
    # points within 3.5 sigmas of it: robust to spikes, and as precise as the data allow.
    robust = (
        pairs.join(_theil_sen(pairs, _PARTITION, max_fit_points), on=_PARTITION, nulls_equal=True)
        .with_columns(level=(pl.col("y") - pl.col("slope") * pl.col("x")).median().over(_PARTITION))
        .with_columns(resid=pl.col("y") - pl.col("level") - pl.col("slope") * pl.col("x"))
        .with_columns(
            sigma=_MAD_TO_SIGMA
            * (pl.col("resid") - pl.col("resid").median()).abs().median().over(_PARTITION)
        )
        .filter((pl.col("resid").abs() <= 3.5 * pl.col("sigma")) | (pl.col("sigma") == 0))
    )
    dx = pl.col("x") - pl.col("x").mean()
    return (
        robust.group_by(_PARTITION)
        .agg(
            sigma=pl.col("sigma").first(),
            _sxx=(dx**2).sum(),
            _sxy=(dx * (pl.col("y") - pl.col("y").mean())).sum(),
            _mx=pl.col("x").mean(),
            _my=pl.col("y").mean(),
            _n=pl.len(),
        )
        .filter((pl.col("_n") >= 3) & (pl.col("_sxx") > 0))
        .with_columns(mismatch=pl.col("_sxy") / pl.col("_sxx"))
        .select(
            *_PARTITION,
            "sigma",
            "mismatch",
            overhead=pl.col("_my") - pl.col("mismatch") * pl.col("_mx"),
            se=pl.col("sigma") / pl.col("_sxx").sqrt(),
        )
    )


def _with_disk(
    dbs: pl.DataFrame,
    disks: pl.DataFrame,
    now: datetime,
    span: timedelta,
    series: pl.LazyFrame | None,
    max_fit_points: int,
) -> pl.DataFrame:
    """Matches each host's databases to the partition that holds them (the rule is in
    :func:`database_growth`) and adds that disk's growth and full date."""
    host = ["group_id", "host_id"]
    totals = (
        dbs.lazy()
        .group_by(host)
        .agg(db_size=pl.col("size_bytes").sum(), db_growth=pl.col("growth_bytes_per_day").sum())
    )
    d = disks.lazy().select(
        *[pl.col(c).cast(pl.Categorical) for c in _PARTITION],
        "fitted_used_bytes",
        "residual_std_bytes",
        "points",
        "date_full",
        disk_growth_bytes_per_day=pl.col("growth_bytes_per_day"),
    )
    candidates = totals.join(d, on=host, how="inner")
    # From the forecast alone: its fitted level, growth and noise (the standard error of a
    # slope over n evenly spaced points spanning the window is sigma * sqrt(12 / n) / span;
    # the forecast's slope comes from at most max_fit_points of them).
    span_days = span.total_seconds() / 86_400.0
    from_forecast = (
        pl.col("fitted_used_bytes") - pl.col("db_size"),
        pl.col("disk_growth_bytes_per_day").fill_null(0.0) - pl.col("db_growth"),
        pl.col("residual_std_bytes").fill_null(0.0),
        pl.col("residual_std_bytes").fill_null(0.0)
        * (12.0 / pl.col("points").fill_null(1).clip(1, max_fit_points)).sqrt()
        / span_days,
    )
    names = ("overhead", "mismatch", "sigma", "se")
    if series is not None:
        candidates = candidates.join(
            series.rename({n: f"_s_{n}" for n in names}),
            on=_PARTITION,
            how="left",
            nulls_equal=True,
        )
        cols = [pl.coalesce(f"_s_{n}", e).alias(n) for n, e in zip(names, from_forecast)]
    else:
        cols = [e.alias(n) for n, e in zip(names, from_forecast)]
    miss = pl.col("mismatch").abs()
    noise = _MATCH_SIGMAS * pl.col("se")
    chosen = (
        candidates.with_columns(cols)
        .with_columns(
            holds=pl.col("overhead") >= -_MATCH_SIGMAS * pl.col("sigma"),
            # 0: the databases' growth explains the disk's within its noise; 1: within the
            # slack; 2: not at all.
            tier=pl.when(miss <= noise)
            .then(0)
            .when(miss <= noise + _MATCH_SLACK * pl.col("db_growth").abs())
            .then(1)
            .otherwise(2),
        )
        .with_columns(
            # What the databases leave unexplained: the share of the disk's growth (at its
            # bound, 3 standard errors out; at most 1, which is all a flat host can say) and
            # the share of its used space.
            rank=pl.when(pl.col("db_growth").abs() > 0)
            .then(((miss + noise) / pl.col("db_growth").abs()).clip(upper_bound=1.0))
            .otherwise(1.0)
            + pl.col("overhead") / (pl.col("overhead") + pl.col("db_size")).abs()
        )
        .sort(
            [*host, "holds", "tier", "rank"],
            descending=[False, False, True, False, False],
            nulls_last=True,
        )
        .group_by(host, maintain_order=True)
        .first()
        .select(*host, "partition_name", "disk_growth_bytes_per_day", "date_full")
    )
    days_to_full = (
        pl.col("date_full") - pl.lit(now, dtype=pl.Datetime("ms", "UTC"))
    ).dt.total_milliseconds() / _MS_PER_DAY
    return (
        dbs.lazy()
        .join(chosen, on=host, how="left")
        .with_columns(
            share_of_disk_growth=pl.when(pl.col("disk_growth_bytes_per_day") > 0)
            .then(pl.col("growth_bytes_per_day") / pl.col("disk_growth_bytes_per_day"))
            .otherwise(None),
            size_at_full_bytes=pl.when(pl.col("date_full").is_not_null())
            .then(
                pl.col("size_bytes")
                + pl.col("growth_bytes_per_day") * days_to_full.clip(lower_bound=0.0)
            )
            .otherwise(None),
        )
        .collect()
    )


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
