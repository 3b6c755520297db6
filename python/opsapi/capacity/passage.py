"""When a series itself first reaches a limit, with a range that keeps its word (issue 37).

The method is :mod:`opsapi::forecast` (Rust): each series' days (their high quantile and
their maximum), where its present regime starts (a level shift, a change of growth, a
capacity or tier change: ``fit_since`` and ``fit_reason``), the trend since, and the
distribution of the first day the series' own maximum reaches the limit, the range's ends
read from it at ``level`` or, where the series' own past (else its group's) has enough
rolling-origin forecasts, where those past forecasts say they should be
(``interval_source``: ``"backtest"`` or ``"residuals"``). This module only shapes frames for
it and says, in one phrase, what each range rests on (:func:`rests_on`).

Example::

    >>> out = first_passage(points, limits, ["host_id"], now, window_days=14)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Optional

import polars as pl

from .. import _native

__all__ = ["capacity_breaks", "first_passage", "past_forecasts", "rests_on"]

#: What each ``fit_reason`` of a change says, in a phrase (the report, the CLI, notes).
REASON_SAID = {
    "level_shift": "the level stepped",
    "slope_change": "growth changed",
    "capacity_change": "the capacity changed",
    "tier_change": "the tier changed",
}


def capacity_breaks(points: pl.DataFrame, keys: Sequence[str], now: datetime) -> pl.DataFrame:
    """Where each series' capacity (``capacity``) changed by more than 1 % from one point to
    the next (a disk resized, moved to another tier): ``keys``, ``age`` (days before ``now``)
    and ``reason`` (``capacity_change``).

    >>> capacity_breaks(points, ["host_id"], now)  # doctest: +SKIP
    """
    keys = list(keys)
    now_lit = pl.lit(now, dtype=pl.Datetime("ms", "UTC"))
    prev = pl.col("capacity").shift(1).over(keys)
    return (
        points.lazy()
        .filter(pl.col("capacity").is_not_null())
        .sort([*keys, "timestamp"])
        .filter((pl.col("capacity") - prev).abs() > 0.01 * prev)
        .select(
            *keys,
            age=(now_lit - pl.col("timestamp")).dt.total_milliseconds() / 86_400_000 + 1 / 24,
            reason=pl.lit("capacity_change"),
        )
        .collect()
    )


def first_passage(
    points: pl.DataFrame,
    limits: pl.DataFrame,
    keys: Sequence[str],
    now: datetime,
    *,
    window_days: int,
    level: float,
    quantile: float = 0.95,
    min_days: int = 4,
    backtest: bool = True,
    horizons: Sequence[int] = (7, 14, 30),
    breaks: Optional[pl.DataFrame] = None,
    group: Optional[str] = None,
) -> pl.DataFrame:
    """The first passage of each series of ``points`` (``keys``, ``timestamp``, ``value``
    toward the limit: lower-is-worse values negated) through each of its ``limits`` (rows of
    ``keys`` and ``limit``, toward the limit, any other columns kept).

    ``breaks`` (``keys``, ``age`` in days before ``now``, ``reason``: ``capacity_change`` or
    ``tier_change``) restart a series' fit; ``group`` (a column of ``limits``) names series
    alike, whose past forecasts and shocks are pooled. Without it each series stands alone,
    on its own past and its own shocks: a host's answer does not depend on which other hosts
    were asked with it (pooled over a fleet's series of one resource, one host's connection
    storms dated its calm neighbours, and Atlas, which serves no standalones, dated a host a
    day apart from Ops Manager on the same world).

    Returns ``limits`` with ``days`` (the median), ``days_low``, ``days_high`` (null: beyond
    three years), ``interval_source``, and per series ``fit_since`` (datetime), ``fit_reason``,
    ``fit_days`` (days in the fit), ``regime_short`` (too few days since a change to
    forecast), ``dated`` (a trend toward the limit beyond the noise) and ``fit_trend``.
    """
    keys = list(keys)
    series = limits.select(keys).unique(maintain_order=True).with_row_index("_sid")
    if group is not None:
        groups = (
            limits.select(*keys, group)
            .unique(keys, maintain_order=True)
            .with_columns(_g=pl.col(group).rank("dense").cast(pl.UInt32) - 1)
        )
        series = series.join(groups.select(*keys, "_g"), on=keys, how="left", nulls_equal=True)
    else:
        series = series.with_columns(_g=pl.col("_sid"))
    f = _forecasts(
        points, series, keys, now, breaks,
        quantile=quantile, window_days=window_days, min_days=min_days, level=level,
        backtest=backtest, horizons=horizons,
    )  # fmt: skip
    fits = pl.DataFrame(f.fits([0])).select(
        _sid=pl.col("sid").cast(pl.UInt32),
        fit_since=pl.lit(now, dtype=pl.Datetime("ms", "UTC"))
        - pl.duration(
            milliseconds=(pl.col("since").cast(pl.Float64) * 86_400_000).round().cast(pl.Int64)
        ),
        fit_reason=pl.col("reason").cast(pl.String),
        fit_days=pl.col("days").cast(pl.Int64),
        regime_short=pl.col("short").cast(pl.Boolean),
        dated=pl.col("dated").cast(pl.Boolean),
        fit_trend=pl.col("trend").cast(pl.Float64),
    )
    rows = limits.join(series.select(*keys, "_sid"), on=keys, how="left", nulls_equal=True)
    crossed = pl.DataFrame(
        f.crossings(rows["_sid"].to_list(), rows["limit"].cast(pl.Float64).to_list()),
        schema={"days_low": pl.Float64, "days": pl.Float64, "days_high": pl.Float64,
                "interval_source": pl.String},
    )  # fmt: skip
    return (
        pl.concat([rows, crossed], how="horizontal").join(fits, on="_sid", how="left").drop("_sid")
    )


def _forecasts(
    points: pl.DataFrame,
    series: pl.DataFrame,
    keys: list[str],
    now: datetime,
    breaks: Optional[pl.DataFrame],
    *,
    quantile: float,
    window_days: int,
    min_days: int,
    level: float,
    backtest: bool,
    horizons: Sequence[int],
) -> Any:
    """The Rust forecasts (``_native._Forecasts``) of ``series`` (``keys``, ``_sid``, ``_g``)
    from their ``points``, restarted at ``breaks``."""
    pts = points.join(series, on=keys, how="inner", nulls_equal=True).filter(
        pl.col("value").is_not_null() & pl.col("value").is_finite()
    )
    br = (
        breaks.join(series, on=keys, how="inner", nulls_equal=True)
        if breaks is not None and breaks.height
        else pl.DataFrame({"_sid": [], "age": [], "reason": []},
                          schema={"_sid": pl.UInt32, "age": pl.Float64, "reason": pl.String})
    )  # fmt: skip
    return _native._Forecasts(
        series.height,
        pts["_sid"].to_list(),
        (pts["timestamp"].dt.epoch("ms") // 1000).to_list(),
        pts["value"].cast(pl.Float64).to_list(),
        series["_g"].fill_null(0).to_list(),
        br["_sid"].to_list(),
        br["age"].cast(pl.Float64).to_list(),
        br["reason"].to_list(),
        now=int(now.timestamp()),
        quantile=quantile,
        window_days=int(window_days),
        min_days=int(min_days),
        level=float(level),
        backtest=backtest,
        horizons=[int(h) for h in horizons],
    )


def past_forecasts(
    points: pl.DataFrame,
    keys: Sequence[str],
    now: datetime,
    *,
    window_days: int,
    quantile: float = 0.95,
    min_days: int = 4,
    horizons: Sequence[int] = (7, 14, 30),
    every: int = 2,
    breaks: Optional[pl.DataFrame] = None,
) -> pl.DataFrame:
    """Each series' past forecasts, made as today's is (:func:`first_passage`, each series
    alone): one every ``every`` days whose window the history holds, each checked at the
    ``horizons`` it has seen come, those whose horizon saw the series change left out (they
    forecast a regime that did not last). One row per forecast and horizon: ``keys``,
    ``origin`` (days before ``now``), ``horizon``, ``pit`` (the probability the forecast gave
    that no day of the horizon would reach the highest that came: inside the central
    ``L`` of it, the outcome was inside the forecast's ``L`` range), ``error`` (that highest
    less the forecast's line, toward the limit), ``error_days`` (that error in days of the
    trend, where the forecast gave a date) and ``dated``.

    >>> past = past_forecasts(points, ["host_id"], now, window_days=14)  # doctest: +SKIP
    """
    keys = list(keys)
    series = (
        points.select(keys)
        .unique(maintain_order=True)
        .with_row_index("_sid")
        .with_columns(_g=pl.col("_sid"))
    )
    f = _forecasts(
        points, series, keys, now, breaks,
        quantile=quantile, window_days=window_days, min_days=min_days, level=0.8,
        backtest=False, horizons=horizons,
    )  # fmt: skip
    rows = pl.DataFrame(
        f.backtest([int(h) for h in horizons], int(every)),
        schema={"sid": pl.UInt32, "origin": pl.Int64, "horizon": pl.Int64, "pit": pl.Float64,
                "error": pl.Float64, "error_days": pl.Float64, "dated": pl.Boolean},
    )  # fmt: skip
    return rows.join(
        series.select("_sid", *keys), left_on="sid", right_on="_sid", how="left"
    ).select(*keys, "origin", "horizon", "pit", "error", "error_days", "dated")


def rests_on(level: float, history_days: pl.Expr) -> pl.Expr:
    """What a range rests on, in one phrase with its level: ``"80 %, backtested on 60 days"``,
    ``"80 %, from 9 days since growth changed"`` or ``"80 %, from 14 days of history"``; null
    without a range. Reads ``interval_source``, ``fit_reason``, ``fit_days`` and
    ``days_low``; ``history_days`` is the days of history the series has.

    >>> pl.DataFrame(...).select(rests_on(0.8, pl.lit(60)))  # doctest: +SKIP
    """
    pct = f"{level * 100:g} %"
    since = pl.col("fit_reason").replace_strict(REASON_SAID, default=None, return_dtype=pl.String)
    return (
        pl.when(pl.col("days_low").is_null())
        .then(None)
        .when(pl.col("interval_source") == "backtest")
        .then(pl.format(f"{pct}, backtested on {{}} days", history_days.round(0).cast(pl.Int64)))
        .when(since.is_not_null())
        .then(pl.format(f"{pct}, from {{}} days since {{}}", pl.col("fit_days"), since))
        .otherwise(pl.format(f"{pct}, from {{}} days of history", pl.col("fit_days")))
    )


def short_note(now: datetime) -> pl.Expr:
    """Why a series without a range has none after a change: ``"growth changed 5 days ago:
    too little history since to forecast"`` (reads ``fit_reason``, ``fit_since``,
    ``regime_short``); null otherwise."""
    since = pl.col("fit_reason").replace_strict(REASON_SAID, default=None, return_dtype=pl.String)
    ago = (pl.lit(now, dtype=pl.Datetime("ms", "UTC")) - pl.col("fit_since")).dt.total_days()
    when = (
        pl.when(ago < 1)
        .then(pl.lit("today"))
        .when(ago == 1)
        .then(pl.lit("yesterday"))
        .otherwise(pl.format("{} days ago", ago))
    )
    return pl.when(pl.col("regime_short").fill_null(False) & since.is_not_null()).then(
        pl.format("{} {}: too little history since to forecast", since, when)
    )
