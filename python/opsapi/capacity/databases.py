"""Databases: which grow, how fast, and how big they are when their disk is full."""

from __future__ import annotations

from datetime import datetime, timedelta

import polars as pl

from opsapi._duration import parse_duration

from ._common import (
    _DATABASE,
    _MAD_TO_SIGMA,
    _MS_PER_DAY,
    _PARTITION,
    INDEX_SIZE,
    STORAGE_SIZE,
    _days_before,
    _disk_points,
    _keyed,
    _reference_now,
    _theil_sen,
)
from .disk import disk_forecast

__all__ = ["database_growth"]


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
