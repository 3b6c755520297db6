"""How good past forecasts were: rolling-origin backtests of :func:`headroom`'s forecasts on
the fleet's own history (issue 33 §1).

Every ``every`` days of the history before the last ``window``, the same fit as today's is
made on the window before that day, and its forecast ``h`` days ahead (each of ``horizons``)
is compared with what the same method measures of that day once it has seen a window after it
(:func:`opsapi.capacity.trend.forecast_errors`). Pooled per resource over the fleet, those
errors give the intervals of :func:`headroom` and :func:`disk_forecast`; :func:`backtest`
shows them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import polars as pl

from opsapi._duration import parse_duration
from opsapi.exceptions import InvalidArgumentError

from ._common import _disk_points, _reference_now
from .disk import disk_errors
from .resources import _SPECS, _applies
from .topology import topology
from .trend import (
    INTERVAL_LEVEL,
    MIN_FORECASTS,
    Quantiles,
    calibrate,
    daily_peaks,
    normal_quantiles,
    peak_errors,
)

__all__ = ["backtest"]

#: The keys of a resource's series: which resource, of which host, of which part of it.
KEYS = ["resource", "group_id", "host_id", "part"]
#: The series per resource a backtest reads at most (every n-th of a larger fleet).
MAX_SERIES = 300
_FOLDS = 5


#: :func:`headroom`'s thresholds (keyword arguments), which :func:`backtest` also takes.
THRESHOLDS = ("disk_percent", "oplog_window_hours", "replication_lag_seconds", "cpu_percent",
              "cpu_high_percent", "cache_dirty_percent", "connections", "tickets", "iops",
              "disk_latency_ms", "shard_growth_ratio", "critical_days", "warning_days",
              "watch_days", "min_days", "oversized_share")  # fmt: skip


def limits_of(thresholds: dict[str, float]) -> dict[str, float]:
    """``thresholds`` checked: each one of :data:`THRESHOLDS` and a number.

    >>> limits_of({"connections": 3000})
    {'connections': 3000.0}
    """
    out = {}
    for name, value in thresholds.items():
        if name not in THRESHOLDS:
            raise InvalidArgumentError(
                f"{name} is not a threshold of headroom (one of {', '.join(THRESHOLDS)})", name
            )
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidArgumentError(f"{name} must be a number, not {value!r}", name)
        out[name] = float(value)
    return out


def _check(level: float, horizons: Sequence[int], every: int) -> tuple[int, ...]:
    if not 0.0 < level < 1.0:
        raise InvalidArgumentError(
            f"interval_level must be between 0 and 1, not {level!r}", "interval_level"
        )
    hs = tuple(horizons)
    if not hs or any(not isinstance(h, int) or isinstance(h, bool) or h < 1 for h in hs):
        raise InvalidArgumentError(
            f"horizons must be whole days, 1 or more, not {horizons!r}", "horizons"
        )
    if not isinstance(every, int) or isinstance(every, bool) or every < 1:
        raise InvalidArgumentError(f"every must be a whole number of days, not {every!r}", "every")
    return hs


def window_days(span: timedelta) -> int:
    """A window in whole days (the fits' unit), at least one.

    >>> window_days(timedelta(days=14)), window_days(timedelta(hours=36))
    (14, 2)
    """
    return max(1, round(span.total_seconds() / 86_400))


def resource_peaks(
    frames: dict[str, Any], now: datetime, topo: pl.DataFrame | None = None
) -> pl.DataFrame:
    """Each day's peak of every host resource but disk space (:data:`_SPECS`), toward its limit,
    over all the history of the frames up to ``now``: keys :data:`KEYS`, then ``day``, ``dow``,
    ``y`` and ``n`` (:func:`opsapi.capacity.trend.daily_peaks`); only the hosts a resource
    applies to when ``topo`` is given.

    >>> peaks = resource_peaks({"host": host_frame, "disk": disk_frame}, now)  # doctest: +SKIP
    """
    keys = KEYS[1:]
    now_lit = pl.lit(now, dtype=pl.Datetime("ms", "UTC"))
    parts = []
    for name, spec in _SPECS.items():
        # The limit is not read here (only which way is worse), so 1.0 stands for it.
        series = spec.series(frames[spec.needs], limit=1.0).filter(pl.col("timestamp") <= now_lit)
        if topo is not None:
            hosts = _applies(topo, spec.applies).select("group_id", "host_id").lazy()
            series = series.join(hosts, on=["group_id", "host_id"], how="semi")
        peaks = daily_peaks(series, keys, now, quantile=spec.quantile, worse=spec.worse)
        parts.append(peaks.with_columns(resource=pl.lit(name)))
    return pl.concat(parts, how="vertical_relaxed").select(*KEYS, "day", "dow", "y", "n").collect()


def resource_quantiles(
    errors: pl.LazyFrame | None, *, level: float = INTERVAL_LEVEL
) -> dict[str, Quantiles]:
    """Each resource's interval edges from its pooled past errors (at least
    :data:`~opsapi.capacity.trend.MIN_FORECASTS` of them), by resource name; a resource
    without enough is not in it (its intervals come from the fit's residuals).

    >>> resource_quantiles(None)
    {}
    """
    if errors is None:
        return {}
    cal = calibrate(errors, ["resource"], level=level).collect()
    return {
        r["resource"]: Quantiles(r["q_low"], r["q_high"], "backtest", r["forecasts"])
        for r in cal.iter_rows(named=True)
        if r["forecasts"] >= MIN_FORECASTS and r["q_low"] is not None
    }


def _disk_errors(
    disk_frame: Any, now: datetime, span: timedelta, horizons: Sequence[int], every: int
) -> pl.LazyFrame | None:
    """Disk space's past errors (:func:`opsapi.capacity.disk.disk_errors`), keyed as the
    other resources'."""
    points = _disk_points(disk_frame)
    errors = disk_errors(points, now, span, horizons, every=max(every, 7))
    if errors is None:
        return None
    return errors.rename({"partition_name": "part"}).with_columns(
        resource=pl.lit("disk"), part=pl.col("part").cast(pl.String)
    )


def backtest(
    host_frame: pl.DataFrame | pl.LazyFrame,
    disk_frame: pl.DataFrame | pl.LazyFrame,
    hosts: Any,
    *,
    window: str | timedelta = "14d",
    horizons: Sequence[int] = (7, 14, 30),
    now: datetime | str | None = None,
    interval_level: float = INTERVAL_LEVEL,
    every: int = 1,
    max_series: int = MAX_SERIES,
    **thresholds: float,
) -> pl.DataFrame:
    """How good :func:`headroom`'s forecasts were on this fleet's own history: per resource
    and horizon, the errors of past forecasts and the share of truths inside their interval.

    Every ``every`` days (disk space: every week, its fit reads every point), the same fit as
    :func:`headroom`'s is made on the ``window`` before that day, and its forecast
    ``horizon`` days ahead is compared with what the same method measured of that day once a
    window after it had come (so neither one noisy day nor a fit's own extrapolation is taken
    for the truth). The frames need the window, the horizon and another window of history:
    ``window="14d"`` and ``horizons=(7, 14, 30)`` want 58 days (Atlas keeps 63 of hourly
    data); pull them with ``headroom_inputs(client, history="63d")``.

    The intervals :func:`headroom` gives are these errors' quantiles, pooled per resource over
    every series and horizon, in units of each forecast's own spread. ``coverage`` is measured
    out of sample: each fifth of the series (and weeks) is checked against the quantiles of
    the other four fifths. At most ``max_series`` series per resource are read (every n-th).
    ``thresholds`` are :func:`headroom`'s (accepted for the same call; a backtest does not
    depend on a limit's value).

    Returns:
        One row per (resource, horizon) with past forecasts: ``resource``, ``horizon``
        (days), ``unit`` (of ``mean_abs_error``), ``series``, ``forecasts`` (past forecasts
        checked), ``dated`` (those that gave a date: a trend toward the limit beyond the
        noise), ``mae_days`` (their mean absolute error in days: how much earlier or later
        they reached the level that came), ``abs_error_days_p90`` (9 forecasts in 10 were
        within so many days), ``mean_abs_error`` (in ``unit``), ``coverage`` (the share of
        truths inside their ``interval_level`` interval), ``interval_level``, ``q_low``,
        ``q_high`` (the interval's edges in units of the spread, the resource's over all
        horizons) and ``interval_source`` (``"backtest"``, or ``"residuals"`` where there
        were fewer than 30 past forecasts and :func:`headroom` falls back to the fit's
        residuals). Empty where the history is too short for any.

    >>> from opsapi.capacity import headroom_inputs
    >>> inputs = headroom_inputs(client, window="14d", history="63d")
    >>> bt = backtest(*inputs, window="14d")
    >>> bt.filter(pl.col("resource") == "connections").select("horizon", "forecasts").rows()
    [(7, 435), (14, 330), (30, 90)]
    """
    hs = _check(interval_level, horizons, every)
    limits_of(thresholds)
    span = parse_duration(window)
    topo = topology(hosts)
    stamps = pl.concat([f.lazy().select("timestamp") for f in (host_frame, disk_frame)])
    now_utc = _reference_now(stamps.collect()["timestamp"], now)
    days = window_days(span)
    peaks = resource_peaks({"host": host_frame, "disk": disk_frame}, now_utc, topo)
    parts = [
        e
        for e in (
            peak_errors(
                peaks.lazy(),
                KEYS,
                window_days=days,
                horizons=hs,
                every=every,
                max_series=max_series,
                by=["resource"],
            ),  # fmt: skip
            _disk_errors(disk_frame, now_utc, timedelta(days=days), hs, every),
        )
        if e is not None
    ]
    if not parts:
        return _empty()
    cols = [*KEYS, "origin", "horizon", "error", "score", "dated", "error_days"]
    errors = pl.concat([p.select(cols) for p in parts], how="vertical_relaxed").collect()
    return _summary(errors, days, interval_level)


def _summary(errors: pl.DataFrame, days: int, level: float) -> pl.DataFrame:
    """Per resource and horizon: counts, errors, out-of-fold coverage and the edges."""
    fold = (
        pl.struct(*KEYS[1:], (pl.col("origin") // days).alias("_week")).hash(seed=33) % _FOLDS
    ).alias("_fold")
    e = errors.lazy().with_columns(fold)
    checked = []
    for f in range(_FOLDS):
        cal = calibrate(e.filter(pl.col("_fold") != f), ["resource"], level=level)
        checked.append(
            e.filter(pl.col("_fold") == f)
            .join(cal.select("resource", "q_low", "q_high"), on="resource", how="left")
            .with_columns(
                inside=(pl.col("score") >= pl.col("q_low")) & (pl.col("score") <= pl.col("q_high"))
            )
        )
    pooled = calibrate(e, ["resource"], level=level)
    low, high = normal_quantiles(level)
    units = {name: spec.unit for name, spec in _SPECS.items()} | {"disk": "bytes"}
    a = pl.col("error_days").abs()
    return (
        pl.concat(checked)
        .group_by("resource", "horizon")
        .agg(
            series=pl.struct(*KEYS[1:]).n_unique().cast(pl.Int64),
            forecasts=pl.len().cast(pl.Int64),
            dated=pl.col("dated").sum().cast(pl.Int64),
            mae_days=a.filter(pl.col("dated")).mean(),
            abs_error_days_p90=a.filter(pl.col("dated")).quantile(0.9, interpolation="linear"),
            mean_abs_error=pl.col("error").abs().mean(),
            coverage=pl.col("inside").drop_nulls().mean(),
        )
        .join(
            pooled.select("resource", "forecasts", "q_low", "q_high").rename({"forecasts": "_all"}),
            on="resource",
            how="left",
        )  # fmt: skip
        .with_columns(
            interval_source=pl.when(
                (pl.col("_all") >= MIN_FORECASTS) & pl.col("q_low").is_not_null()
            )
            .then(pl.lit("backtest"))
            .otherwise(pl.lit("residuals")),
        )
        .with_columns(
            q_low=pl.when(pl.col("interval_source") == "backtest").then("q_low").otherwise(low),
            q_high=pl.when(pl.col("interval_source") == "backtest").then("q_high").otherwise(high),
            unit=pl.col("resource").replace_strict(units, default="", return_dtype=pl.String),
            interval_level=pl.lit(level),
            horizon=pl.col("horizon").cast(pl.Int64),
        )
        .select(
            "resource",
            "horizon",
            "unit",
            "series",
            "forecasts",
            "dated",
            "mae_days",
            "abs_error_days_p90",
            "mean_abs_error",
            "coverage",
            "interval_level",
            "q_low",
            "q_high",
            "interval_source",
        )  # fmt: skip
        .sort(
            pl.col("resource").replace_strict(
                {r: i for i, r in enumerate(["disk", *_SPECS])}, default=99, return_dtype=pl.Int32
            ),
            "horizon",
        )
        .collect()
    )


def _empty() -> pl.DataFrame:
    return pl.DataFrame(
        schema={
            "resource": pl.String,
            "horizon": pl.Int64,
            "unit": pl.String,
            "series": pl.Int64,
            "forecasts": pl.Int64,
            "dated": pl.Int64,
            "mae_days": pl.Float64,
            "abs_error_days_p90": pl.Float64,
            "mean_abs_error": pl.Float64,
            "coverage": pl.Float64,
            "interval_level": pl.Float64,
            "q_low": pl.Float64,
            "q_high": pl.Float64,
            "interval_source": pl.String,
        }  # fmt: skip
    )
