"""How good past forecasts were: rolling-origin backtests of :func:`headroom`'s and
:func:`disk_forecast`'s forecasts on the fleet's own history (issue 33 §1, issue 37).

Every ``every`` days of the history, the same forecast as today's (:mod:`opsapi.capacity.
passage`: where the series' regime starts, its trend since, the first passage of the series
itself through a limit) is made on the window before that day, and what it said of the
``horizon`` days after is checked against the highest the series then reached
(:func:`opsapi.capacity.passage.past_forecasts`). Each series' own past forecasts calibrate
its ranges; :func:`backtest` shows them, per resource and horizon.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import polars as pl

from opsapi import _native
from opsapi._duration import parse_duration
from opsapi.exceptions import InvalidArgumentError

from ._common import _disk_points, _reference_now
from .events import event_breaks, series_breaks
from .passage import capacity_breaks, past_forecasts
from .resources import _SPECS, _applies
from .topology import topology
from .trend import INTERVAL_LEVEL

__all__ = ["backtest"]

#: The keys of a resource's series: which resource, of which host, of which part of it.
KEYS = ["resource", "group_id", "host_id", "part"]
#: The series per resource a backtest reads at most (every n-th of a larger fleet).
MAX_SERIES = 300
#: The fewest past forecasts a range is calibrated on (``opsapi::forecast::MIN_PITS``).
MIN_PITS = 20


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


def backtest(
    host_frame: pl.DataFrame | pl.LazyFrame,
    disk_frame: pl.DataFrame | pl.LazyFrame,
    hosts: Any,
    *,
    window: str | timedelta = "14d",
    horizons: Sequence[int] = (7, 14, 30),
    now: datetime | str | None = None,
    interval_level: float = INTERVAL_LEVEL,
    every: int = 2,
    max_series: int = MAX_SERIES,
    events: Any = None,
    clusters: Any = None,
    **thresholds: float,
) -> pl.DataFrame:
    """How good :func:`headroom`'s and :func:`disk_forecast`'s forecasts were on this fleet's
    own history: per resource and horizon, how far past forecasts were off and how often
    what came fell inside their range.

    Every ``every`` days of the history, each series' forecast is made as today's is
    (:func:`opsapi.capacity.passage.past_forecasts`: from where its regime then started, on
    the ``window`` before that day, each series alone) and checked against the highest the
    series reached in the ``horizon`` days after (forecasts whose horizon saw the series
    change are left out: they forecast a regime that did not last). The frames need the
    window and the horizon of history: ``window="14d"`` and ``horizons=(7, 14, 30)`` want 44
    days for all three (Atlas keeps 63 of hourly data); pull them with
    ``headroom_inputs(client, history="63d")``.

    Each series' own past forecasts (20 or more) calibrate its ranges in :func:`headroom`
    and :func:`disk_forecast` (``interval_source`` ``"backtest"``); here they are pooled per
    resource, to say how good the method was on this fleet. ``coverage`` is the share of
    outcomes inside the forecast's own ``interval_level`` range, before any calibration (an
    honest figure: no forecast saw its outcome). At most ``max_series`` series per resource
    are read (every n-th). ``thresholds`` are :func:`headroom`'s (accepted for the same call;
    a backtest does not depend on a limit's value). ``events`` and ``clusters`` are
    :func:`headroom`'s: a tier change or a disk resize they name restarts the past forecasts
    there too (:func:`~opsapi.capacity.event_breaks`).

    Returns:
        One row per (resource, horizon) with past forecasts: ``resource``, ``horizon``
        (days), ``unit`` (of ``mean_abs_error``), ``series``, ``forecasts`` (past forecasts
        checked), ``dated`` (those that gave a date: a trend toward the limit beyond the
        noise), ``mae_days`` (their mean absolute error in days: how much earlier or later
        the series reached what the forecast's line said of the horizon's last day),
        ``abs_error_days_p90`` (9 forecasts in 10 were within so many days),
        ``mean_abs_error`` (in ``unit``), ``coverage``, ``interval_level``, ``q_low`` and
        ``q_high`` (the probabilities of the first-passage distribution a range would be read
        at, calibrated on all the resource's past forecasts, over every horizon; never inside
        the model's own) and ``interval_source`` (``"backtest"`` with 20 or more past
        forecasts, else ``"residuals"``). Empty where the history is too short for any.

    >>> from opsapi.capacity import headroom_inputs
    >>> inputs = headroom_inputs(client, window="14d", history="63d")
    >>> bt = backtest(*inputs, window="14d")
    >>> bt.filter(pl.col("resource") == "connections").select("horizon", "forecasts").rows()
    [(7, 317), (14, 242), (30, 117)]
    """
    hs = _check(interval_level, horizons, every)
    limits_of(thresholds)
    span = parse_duration(window)
    topo = topology(hosts, clusters)
    stamps = pl.concat([f.lazy().select("timestamp") for f in (host_frame, disk_frame)])
    now_utc = _reference_now(stamps.collect()["timestamp"], now)
    named = None if events is None else event_breaks(events, topo, now_utc)
    days = window_days(span)
    now_lit = pl.lit(now_utc, dtype=pl.Datetime("ms", "UTC"))
    parts = []
    disk = _disk_points(disk_frame).collect().filter(pl.col("timestamp") <= now_lit)
    if disk.height:
        keys = ["group_id", "host_id", "partition_name"]
        pts = disk.select(*keys, "timestamp", value="used", capacity="point_capacity")
        past = past_forecasts(
            _every_nth(pts.select(*keys, "timestamp", "value"), keys, max_series),
            keys, now_utc, window_days=days, horizons=hs, every=every,
            breaks=pl.concat(
                [capacity_breaks(pts, keys, now_utc)]
                + [b for b in [series_breaks(named, "disk", pts.select(keys))] if b is not None],
                how="vertical_relaxed",
            ),
        )  # fmt: skip
        parts.append(past.rename({"partition_name": "part"}).with_columns(resource=pl.lit("disk")))
    frames = {"host": host_frame, "disk": disk_frame}
    for name, spec in _SPECS.items():
        # Which way is worse is all a backtest reads of the limit: 1.0 stands for it.
        applies = _applies(topo, spec.applies).select("group_id", "host_id").lazy()
        pts = (
            spec.series(frames[spec.needs], limit=1.0)
            .join(applies, on=["group_id", "host_id"], how="semi")
            .filter(pl.col("timestamp") <= now_lit)
            .select(*KEYS[1:], "timestamp", value=pl.col("value") * spec.worse)
            .collect()
        )
        if not pts.height:
            continue
        past = past_forecasts(
            _every_nth(pts, KEYS[1:], max_series), KEYS[1:], now_utc, window_days=days,
            quantile=spec.quantile, horizons=hs, every=every,
            breaks=series_breaks(named, name, pts.select(KEYS[1:])),
        )  # fmt: skip
        parts.append(past.with_columns(resource=pl.lit(name)))
    parts = [p for p in parts if p.height]
    if not parts:
        return _empty()
    cols = [*KEYS, "origin", "horizon", "pit", "error", "error_days", "dated"]
    past = pl.concat(
        [p.with_columns(pl.col("group_id", "host_id", "part").cast(pl.String)).select(cols)
         for p in parts],
        how="vertical_relaxed",
    )  # fmt: skip
    return _summary(past, interval_level)


def _every_nth(points: pl.DataFrame, keys: list[str], most: int) -> pl.DataFrame:
    """The points of at most ``most`` of the series (every n-th, in a stable order)."""
    series = points.select(keys).unique().sort(keys)
    if series.height <= most:
        return points
    step = -(-series.height // most)
    kept = series.gather_every(step)
    return points.join(kept, on=keys, how="semi", nulls_equal=True)


def _summary(past: pl.DataFrame, level: float) -> pl.DataFrame:
    """Per resource and horizon: counts, errors, how often the outcome fell in the forecast's
    own range, and the range's ends as calibrated by those outcomes."""
    a = (1.0 - level) / 2.0
    units = {name: spec.unit for name, spec in _SPECS.items()} | {"disk": "bytes"}
    off = pl.col("error_days").abs()
    pit = pl.col("pit").drop_nulls()
    order = {r: i for i, r in enumerate(["disk", *_SPECS])}
    return (
        past.lazy()
        .group_by("resource", "horizon")
        .agg(
            series=pl.struct(*KEYS[1:]).n_unique().cast(pl.Int64),
            forecasts=pl.len().cast(pl.Int64),
            dated=pl.col("dated").sum().cast(pl.Int64),
            mae_days=off.filter(pl.col("dated")).mean(),
            abs_error_days_p90=off.filter(pl.col("dated")).quantile(0.9, interpolation="linear"),
            mean_abs_error=pl.col("error").abs().mean(),
            coverage=pit.is_between(a, 1.0 - a).mean(),
        )
        .with_columns(
            interval_source=pl.when(pl.col("forecasts") >= MIN_PITS)
            .then(pl.lit("backtest"))
            .otherwise(pl.lit("residuals")),
            unit=pl.col("resource").replace_strict(units, default="", return_dtype=pl.String),
            interval_level=pl.lit(level),
            horizon=pl.col("horizon").cast(pl.Int64),
        )
        .join(_ends(past, level).lazy(), on="resource", how="left")
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
        )
        .sort(
            pl.col("resource").replace_strict(order, default=99, return_dtype=pl.Int32),
            "horizon",
        )
        .collect()
    )


def _ends(past: pl.DataFrame, level: float) -> pl.DataFrame:
    """Per resource, over every horizon, the probabilities its ranges' ends would be read at
    if calibrated on all its series' past forecasts (``q_low``, ``q_high``:
    ``opsapi::forecast::calibrated``, never inside the model's own); null with too few."""
    rows = []
    for (resource,), one in past.group_by("resource"):
        ends = _native._Forecasts.calibrated(one["pit"].drop_nulls().to_list(), level)
        rows.append((resource, *(ends or (None, None))))
    return pl.DataFrame(
        rows, schema={"resource": pl.String, "q_low": pl.Float64, "q_high": pl.Float64},
        orient="row",
    )  # fmt: skip


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
