"""The trend of a resource's peaks, when it reaches a limit, and how sure that is.

A working week's load has two cycles: the day (busy hours, quiet nights) and the week (quiet
weekends, perhaps a busier Monday). A limit is about the peaks, so the forecast is of the
peaks, and neither cycle may read as a trend:

- **the daily cycle**: each day (the 24 hours before ``now``, the 24 before those, ...) is
  its peak, a high quantile of its points (the resource's own: p95, p99 for connections);
- **the weekly cycle**: the trend is the median slope between *the same weekday a week or
  more apart* (a weekly cycle cancels out of each), the level the median of the days once
  the trend is taken out, and the *peak weekday*'s offset above it is added back: the weekday
  that is highest in one week, read in the other week (so that the highest of seven noisy
  weekdays does not pass for a higher peak). A window shorter than 14 days cannot see a week
  twice: there the trend is the median slope of every pair of days (Theil–Sen) and no weekly
  offset is added.

The forecast is ``level + trend · h``, in the direction of the limit (``y`` is negated where
lower is worse, so that higher is always worse here). How wrong it may be grows with the
horizon: its standard deviation is ``sigma · sqrt(A + C·h + B·h²)``, ``sigma`` the day-to-day
noise of the peaks and ``A``, ``C``, ``B`` what the fit's design says of its level's and its
slope's errors (:func:`fit_peaks`). An interval at ``level`` takes the quantiles of the
errors measured *in units of that spread*: from rolling-origin backtests of the same method on
the same history where there are enough of them (:func:`forecast_errors`, :func:`calibrate`),
else the normal distribution's (the fit's residuals alone: a model's assumption, and said so).
The days to a limit and their interval follow in closed form (:func:`crossing_days`).

Everything is polars expressions over all series and all origins at once.

Example::

    >>> peaks = daily_peaks(series, ["host_id"], now, quantile=0.95, worse=1)
    >>> fits = fit_peaks(peaks, ["host_id"], window_days=14)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from statistics import NormalDist
from typing import NamedTuple

import polars as pl

from ._common import _MAD_TO_SIGMA

__all__ = [
    "INTERVAL_LEVEL",
    "MIN_FORECASTS",
    "Quantiles",
    "calibrate",
    "crossing_days",
    "daily_peaks",
    "fit_peaks",
    "forecast_errors",
    "interval_quantiles",
    "normal_quantiles",
    "origin_plan",
    "peak_errors",
    "spans",
]

#: The default level of every interval: 80 % (one forecast in five falls outside it).
INTERVAL_LEVEL = 0.8
_DAY_MS = 86_400_000
#: A window this long (two weeks) sees each weekday twice: the weekly cycle can be removed.
WEEKLY_MIN_DAYS = 14


def daily_peaks(
    series: pl.LazyFrame,
    keys: Sequence[str],
    now: datetime,
    *,
    quantile: float,
    worse: int,
) -> pl.LazyFrame:
    """Each day's peak per series: ``day`` (0: the 24 hours up to ``now``, 1: the 24 before,
    ...), ``dow`` (the weekday of the day's middle, 1 = Monday), ``y`` (the day's ``quantile``
    toward the limit, negated where lower is worse: ``worse=-1``) and ``n`` (its points).
    Days with fewer than half the points of the fullest day of their series are left out (a
    day cut by a gap would show a lower peak).

    ``series`` has ``keys``, ``timestamp`` and ``value``; points after ``now`` are ignored.

    >>> daily_peaks(series, ["host_id"], now, quantile=0.95, worse=1).collect()  # doctest: +SKIP
    """
    keys = list(keys)
    now_lit = pl.lit(now, dtype=pl.Datetime("ms", "UTC"))
    q = quantile if worse > 0 else 1.0 - quantile
    return (
        series.filter(pl.col("timestamp") <= now_lit)
        .with_columns(day=(now_lit - pl.col("timestamp")).dt.total_milliseconds() // _DAY_MS)
        .group_by([*keys, "day"])
        .agg(y=pl.col("value").quantile(q, interpolation="linear") * worse, n=pl.len())
        .filter(pl.col("n") >= pl.col("n").max().over(keys) / 2)
        .with_columns(
            dow=(
                now_lit - pl.duration(milliseconds=pl.col("day") * _DAY_MS + _DAY_MS // 2)
            ).dt.weekday()
        )
    )


def spans(frame: pl.LazyFrame, first: pl.Expr, last: pl.Expr, origins: list[int]) -> pl.LazyFrame:
    """Each row once per origin of ``origins`` whose window holds it: those from ``first``
    to ``last`` (expressions of the row), as ``origin``.

    >>> spans(days, pl.col("day") - 13, pl.col("day"), [0, 7])  # doctest: +SKIP
    """
    lo, hi = min(origins), max(origins)
    out = (
        frame.with_columns(
            origin=pl.int_ranges(
                pl.max_horizontal(first, pl.lit(lo)), pl.min_horizontal(last, pl.lit(hi)) + 1
            )
        )
        .explode("origin")
        .drop_nulls("origin")
    )
    if len(origins) < hi - lo + 1:
        out = out.filter(pl.col("origin").is_in(origins))
    return out


def _slopes(pairs: pl.LazyFrame, k: list[str], weekly: bool) -> pl.LazyFrame:
    """Per ``k``: ``trend`` (the median slope of ``pairs``), ``pairs``, ``sigma`` (each pair's
    rise off the trend is the difference of two days' noise) and ``_slope_var`` (the trend's
    variance in units of sigma², by how it was taken)."""
    slopes = pairs.group_by(k).agg(
        trend=(pl.col("rise") / pl.col("lag")).median(),
        pairs=pl.len().cast(pl.Int64),
        _lag2=(pl.col("lag") ** 2).mean(),
    )
    noise = (
        pairs.join(slopes, on=k)
        .group_by(k)
        .agg(
            sigma=_MAD_TO_SIGMA
            / math.sqrt(2.0)
            * (pl.col("rise") - pl.col("trend") * pl.col("lag")).abs().median()
        )
    )
    return slopes.join(noise, on=k).with_columns(weekly=pl.lit(weekly))


def _pairs(a: pl.LazyFrame, b: pl.LazyFrame, on: list[str], w: int, origins: list[int]):
    """The pairs of days of ``a`` and ``b`` matched ``on``, fewer than ``w`` days apart, once
    per origin whose window holds both: ``lag`` (days) and ``rise`` (the later minus the
    earlier)."""
    pairs = a.join(b, on=on).filter((pl.col("b") > pl.col("a")) & (pl.col("b") - pl.col("a") < w))
    return spans(pairs, pl.col("b") - w + 1, pl.col("a"), origins).with_columns(
        lag=(pl.col("b") - pl.col("a")).cast(pl.Float64), rise=pl.col("ya") - pl.col("yb")
    )


def fit_peaks(
    peaks: pl.LazyFrame,
    keys: Sequence[str],
    *,
    window_days: int,
    origins: Sequence[int] = (0,),
    weekly: bool = True,
) -> pl.LazyFrame:
    """The trend of the peaks (:func:`daily_peaks`) at each of ``origins`` (days before
    ``now``: 0 is now), each fitted on the ``window_days`` days up to it. With
    ``weekly=False``, a window under two weeks, or fewer than 3 pairs of the same weekday in
    it, the trend is the median slope of every pair of days and no weekly offset is added
    (the method before weekly cycles were seen).

    One row per series and origin with data: ``trend`` (per day, toward the limit; null
    with fewer than two days), ``fitted`` (the level of the days at the origin), ``peak``
    (the peak weekday's offset above it, 0 without a weekly cycle), ``level`` (``fitted +
    peak``: what the limit is compared with), ``sigma`` (the day-to-day noise of the peaks,
    robust), ``days`` (days in the window), ``pairs`` (the slopes the trend is the median of),
    ``span`` (days between the first and the last), ``weekly`` (whether the weekly cycle was
    taken out), and ``A``, ``C``, ``B``: the forecast ``h`` days past the origin errs by about
    ``sigma · sqrt(A + C·h + B·h²)`` (the level's error, the slope's carried from the window's
    middle, the peak weekday's).

    >>> fit_peaks(peaks, ["host_id"], window_days=14).collect()  # doctest: +SKIP
    """
    keys = list(keys)
    origins = sorted(set(int(o) for o in origins))
    k = [*keys, "origin"]
    w = int(window_days)
    weekly = weekly and w >= WEEKLY_MIN_DAYS
    a = peaks.select(*keys, "dow", a="day", ya="y")
    b = peaks.select(*keys, "dow", b="day", yb="y")
    days = spans(peaks, pl.col("day") - w + 1, pl.col("day"), origins)
    if weekly:
        # Same weekday a week or more apart: the weekly cycle cancels out of each.
        same = _slopes(_pairs(a, b, [*keys, "dow"], w, origins), k, True).filter(
            pl.col("pairs") >= 3
        )
        # The windows without enough of them: every pair of days (of those series only).
        rest = days.select(k).unique().join(same.select(k), on=k, how="anti").collect().lazy()
        few = rest.select(keys).unique()
        a, b = (x.drop("dow").join(few, on=keys, how="semi") for x in (a, b))
        every = _pairs(a, b, keys, w, origins).join(rest, on=k)
        slopes = pl.concat([same, _slopes(every, k, False)], how="vertical_relaxed")
    else:
        slopes = _slopes(_pairs(a.drop("dow"), b.drop("dow"), keys, w, origins), k, False)
    days = days.join(slopes, on=k, how="left").with_columns(
        # The day as an offset from the origin (its middle: -0.5 is the last day), and its
        # peak with the trend taken out.
        x=-((pl.col("day") - pl.col("origin")).cast(pl.Float64) + 0.5),
    )
    days = days.with_columns(r=pl.col("y") - pl.col("trend") * pl.col("x"))
    out = days.group_by(k).agg(
        pl.col("trend", "pairs", "sigma", "_lag2", "weekly").first(),
        fitted=pl.col("r").median(),
        days=pl.len().cast(pl.Int64),
        span=pl.col("x").max() - pl.col("x").min(),
        _xbar=pl.col("x").mean(),
        _sxx=((pl.col("x") - pl.col("x").mean()) ** 2).sum(),
    )
    if weekly:
        # The peak weekday chosen in one parity of weeks, its offset read in the other.
        par = days.filter(pl.col("weekly").fill_null(False)).with_columns(
            par=((pl.col("day") - pl.col("origin")) // 7) % 2
        )
        per_dow = par.group_by([*k, "dow", "par"]).agg(m=pl.col("r").median())
        best = (
            per_dow.sort("m", descending=True)
            .group_by([*k, "par"])
            .agg(dow=pl.col("dow").first(), seen=pl.len())
            .with_columns(par=1 - pl.col("par"))
        )
        crossed = (
            per_dow.join(best, on=[*k, "dow", "par"])
            .group_by(k)
            .agg(_top=pl.col("m").mean(), _halves=pl.len(), _seen=pl.col("seen").min())
        )
        out = out.join(crossed, on=k, how="left").with_columns(
            weekly=pl.col("weekly").fill_null(False)
            & (pl.col("_halves") == 2).fill_null(False)
            & (pl.col("_seen") == 7).fill_null(False)
        )
        peak = pl.when(pl.col("weekly")).then(pl.col("_top") - pl.col("fitted")).otherwise(0.0)
    else:
        out = out.with_columns(weekly=pl.lit(False))
        peak = pl.lit(0.0)
    # The trend's variance in sigma² units: the median of same-weekday slopes (each a
    # difference of two days' noise over its lag), or Theil–Sen's over every pair (about 1.1
    # times least squares' under normal noise).
    slope_var = (
        pl.when(pl.col("_lag2").is_not_null() & pl.col("weekly"))
        .then(math.pi / 2 * 2.0 / (pl.col("_lag2") * pl.col("pairs")))
        .otherwise(1.1 / pl.col("_sxx"))
    )
    peak_var = pl.when(pl.col("weekly")).then(0.5).otherwise(0.0)
    xbar = pl.col("_xbar")
    return (
        out.with_columns(peak=peak)
        .with_columns(level=pl.col("fitted") + pl.col("peak"))
        .with_columns(
            A=math.pi / 2 / pl.col("days") + xbar**2 * slope_var + peak_var,
            C=-2.0 * xbar * slope_var,
            B=slope_var,
        )
        .select(
            *k,
            "trend",
            "fitted",
            "peak",
            "level",
            "sigma",
            "days",
            "pairs",
            "span",
            "weekly",
            "A",
            "C",
            "B",
        )  # fmt: skip
    )


def origin_plan(
    span_days: int, window_days: int, horizons: Sequence[int], *, stride: int = 1
) -> tuple[list[int], list[int]]:
    """The origins of a rolling-origin backtest over ``span_days`` days of history (days
    before ``now``, 0 is now): the forecasts' (each with its ``window_days`` in the history and
    a truth for at least one horizon, every ``stride`` days) and their truths' (``h`` days
    after a forecast's origin, fitted on twice the window centered there: :func:`forecast_errors`).

    >>> origin_plan(63, 14, (7, 14, 30), stride=7)
    ([21, 28, 35, 42, 49], [0, 7, 14, 21, 28, 5])
    """
    w = int(window_days)
    hs = sorted({int(h) for h in horizons if int(h) > 0})
    forecasts, truths = [], []
    for k in range(0, span_days - w + 1, max(1, int(stride))):
        ts = [k - h - w for h in hs if k - h - w >= 0 and k - h + w <= span_days]
        if ts:
            forecasts.append(k)
            truths.extend(t for t in ts if t not in truths)
    return forecasts, truths


def forecast_errors(
    forecasts: pl.LazyFrame,
    truths: pl.LazyFrame,
    keys: Sequence[str],
    horizons: Sequence[int],
    *,
    window_days: int,
) -> pl.LazyFrame:
    """The errors of past forecasts: each origin's forecast ``h`` days ahead (``level +
    trend·h``, ``forecasts`` fitted on ``window_days``) against what the same method measures
    of that day once it has seen as much after it as before: ``truths``, fitted on twice the
    window, at their window's middle (origin ``h + window_days`` days nearer now). So neither
    one noisy day nor a fit's own extrapolation is taken for the truth.

    One row per series, origin and horizon with a truth: ``error`` (truth − forecast, toward
    the limit), ``score`` (the error in units of the forecast's spread, ``sigma · sqrt(A + C·h
    + B·h²)``), ``trend``, ``dated`` (whether that forecast gave a date: a trend toward the
    limit beyond the noise) and ``error_days`` (for a dated one, how many days late it was in
    reaching the level that came: ``error / trend``).

    >>> errors = forecast_errors(fits, truths, ["h"], (7, 14), window_days=14)  # doctest: +SKIP
    """
    keys = list(keys)
    w = int(window_days)
    truth = truths.select(
        *keys, _at=pl.col("origin") + w, truth=pl.col("level") - w * pl.col("trend")
    )
    parts = [
        forecasts.with_columns(horizon=pl.lit(int(h)), _at=pl.col("origin") - int(h))
        .join(truth, on=[*keys, "_at"])
        .drop("_at")
        for h in horizons
    ]
    h = pl.col("horizon").cast(pl.Float64)
    spread = pl.col("sigma") * (pl.col("A") + pl.col("C") * h + pl.col("B") * h**2).sqrt()
    err = pl.col("truth") - (pl.col("level") + pl.col("trend") * h)
    return (
        pl.concat(parts)
        .with_columns(error=err, _spread=spread)
        .with_columns(
            score=pl.when(pl.col("_spread") > 0).then(pl.col("error") / pl.col("_spread")),
            dated=_dated(),
        )
        .with_columns(
            error_days=pl.when(pl.col("dated")).then(pl.col("error") / pl.col("trend")),
        )
        .drop("_spread")
    )


def peak_errors(
    peaks: pl.LazyFrame,
    keys: Sequence[str],
    *,
    window_days: int,
    horizons: Sequence[int],
    every: int = 1,
    max_series: int | None = None,
    by: Sequence[str] = (),
) -> pl.LazyFrame | None:
    """The errors of :func:`fit_peaks`' past forecasts on the history of ``peaks``
    (:func:`origin_plan`, :func:`forecast_errors`), a forecast every ``every`` days, on at
    most ``max_series`` series per group of ``by`` (a resource; every n-th in key order, so
    that a large fleet's backtest stays bounded); None when the history is too short for any.

    >>> errors = peak_errors(peaks, ["host_id"], window_days=14, horizons=(7, 14))  # doctest: +SKIP
    """
    keys = list(keys)
    w = int(window_days)
    span = peaks.select(pl.col("day").max()).collect().item()
    forecasts, truths = origin_plan(0 if span is None else span + 1, w, horizons, stride=every)
    if not forecasts:
        return None
    if max_series is not None:
        i, n = pl.int_range(pl.len()), pl.len()
        if by:
            i, n = i.over(list(by)), n.over(list(by))
        series = (
            peaks.select(keys)
            .unique()
            .sort(keys)
            .with_columns(_i=i, _n=n)
            .filter(pl.col("_i") % ((pl.col("_n") + max_series - 1) // max_series) == 0)
            .select(keys)
        )
        peaks = peaks.join(series, on=keys, nulls_equal=True)
    peaks = peaks.collect().lazy()
    fits = fit_peaks(peaks, keys, window_days=w, origins=forecasts)
    truth = fit_peaks(peaks, keys, window_days=2 * w, origins=truths)
    return forecast_errors(fits, truth, keys, horizons, window_days=w)


def _dated(min_days: int = 4) -> pl.Expr:
    """Whether a fit gives a date: enough days, a trend toward the limit, and one that moves
    more than twice the noise over the window."""
    return (
        (pl.col("days") >= min_days)
        & (pl.col("trend") > 0)
        & ((pl.col("trend") * pl.col("span")).abs() > 2.0 * pl.col("sigma"))
    )


def normal_quantiles(level: float) -> tuple[float, float]:
    """The quantiles of a standard normal that hold ``level`` between them: the interval's
    edges in units of the spread when only the fit's residuals speak.

    >>> [round(q, 3) for q in normal_quantiles(0.8)]
    [-1.282, 1.282]
    """
    z = NormalDist().inv_cdf(0.5 + level / 2.0)
    return -z, z


def calibrate(
    errors: pl.LazyFrame, by: Sequence[str], *, level: float = INTERVAL_LEVEL
) -> pl.LazyFrame:
    """The interval's edges in units of the spread, from past errors (:func:`forecast_errors`)
    pooled per ``by`` (a resource) over every series, origin and horizon: ``q_low`` and
    ``q_high``, the conformal quantiles of the scores (the ``⌊(n+1)·(1−level)/2⌋``-th and the
    ``⌈(n+1)·(1+level)/2⌉``-th smallest of ``n``, so that a new forecast's score falls between
    them with probability ``level`` at least, if it is like the past ones), and ``forecasts``
    (``n``). ``q_low`` is null when ``n`` is too small for the level
    (``n < 2 / (1 − level) − 1``).

    >>> calibrate(errors, ["resource"]).collect()  # doctest: +SKIP
    """
    by = list(by)
    alpha = 1.0 - level
    n = pl.len()
    lo_rank = (((n + 1) * (alpha / 2)).floor() - 1).cast(pl.Int64)
    hi_rank = (((n + 1) * (1 - alpha / 2)).ceil() - 1).cast(pl.Int64)
    s = pl.col("score").sort()
    return (
        errors.filter(pl.col("score").is_not_null())
        .group_by(by)
        .agg(
            forecasts=n.cast(pl.Int64),
            q_low=pl.when(lo_rank >= 0).then(s.gather(lo_rank.clip(0, None)).first()),
            q_high=pl.when(hi_rank < n).then(s.gather(hi_rank.clip(None, n - 1)).first()),
        )
        .with_columns(
            q_low=pl.when(pl.col("q_high").is_not_null()).then("q_low"),
            q_high=pl.when(pl.col("q_low").is_not_null()).then("q_high"),
        )
    )


class Quantiles(NamedTuple):
    """An interval's edges in units of the forecast's spread, and where they come from."""

    low: float
    high: float
    #: ``"backtest"`` (past errors) or ``"residuals"`` (the normal distribution's).
    source: str
    #: The past forecasts they were taken from (0 for ``"residuals"``).
    forecasts: int


#: The least number of past forecasts (all series and horizons) a backtest interval needs.
MIN_FORECASTS = 30


def interval_quantiles(
    errors: pl.LazyFrame | None,
    *,
    level: float = INTERVAL_LEVEL,
    min_forecasts: int = MIN_FORECASTS,
) -> Quantiles:
    """The edges for one resource: :func:`calibrate`'s from ``errors`` where there are at least
    ``min_forecasts`` of them, else :func:`normal_quantiles` (``source`` says which).

    >>> interval_quantiles(None, level=0.8)
    Quantiles(low=-1.2815515655446004, high=1.2815515655446004, source='residuals', forecasts=0)
    """
    if not 0.0 < level < 1.0:
        raise ValueError(f"interval_level must be between 0 and 1, not {level!r}")
    if errors is not None:
        cal = calibrate(errors.with_columns(_one=pl.lit(1)), ["_one"], level=level).collect()
        if cal.height and cal["forecasts"][0] >= min_forecasts and cal["q_low"][0] is not None:
            row = cal.row(0, named=True)
            return Quantiles(row["q_low"], row["q_high"], "backtest", row["forecasts"])
    low, high = normal_quantiles(level)
    return Quantiles(low, high, "residuals", 0)


def crossing_days(
    distance: pl.Expr,
    q: pl.Expr,
    *,
    trend: pl.Expr | None = None,
    sigma: pl.Expr | None = None,
) -> pl.Expr:
    """The first day ``h >= 0`` on which the forecast's edge ``level + trend·h + q · sigma ·
    sqrt(A + C·h + B·h²)`` reaches the limit, ``distance`` (limit − level, toward it) away;
    columns ``trend``, ``sigma``, ``A``, ``C``, ``B`` of :func:`fit_peaks` (``trend`` and
    ``sigma`` may be given as expressions). ``q > 0`` is the
    upper edge (the earliest day: ``days_low``), ``q < 0`` the lower (the latest:
    ``days_high``, null where the edge never gets there: the slope's own uncertainty outgrows
    it). Null without a trend toward the limit.

    Squaring ``trend·h − distance = −q·sigma·sqrt(...)`` gives a quadratic in ``h``; the root
    taken is the one on the right side of ``distance / trend``.

    >>> low = crossing_days(5000 - pl.col("level"), pl.lit(1.28))  # doctest: +SKIP
    """
    s = pl.col("trend") if trend is None else trend
    sig = pl.col("sigma") if sigma is None else sigma
    k = (q * sig) ** 2
    a = s**2 - k * pl.col("B")
    minus_b = 2.0 * distance * s + k * pl.col("C")
    c = distance**2 - k * pl.col("A")
    disc = (minus_b**2 - 4.0 * a * c).clip(lower_bound=0.0).sqrt()
    # The upper edge: the root in [0, distance / trend] (the stable form of the smaller one).
    upper = (
        pl.when(c <= 0)
        .then(0.0)
        .when(minus_b + disc > 0)
        .then(2.0 * c / (minus_b + disc))
        .otherwise(None)
    )
    # The lower edge: the larger root, beyond distance / trend; none when a <= 0.
    lower = pl.when(a > 0).then((minus_b + disc) / (2.0 * a)).otherwise(None)
    return (
        pl.when((s <= 0) | distance.is_null())
        .then(None)
        .when(distance <= 0)
        .then(0.0)
        .when(q >= 0)
        .then(upper)
        .otherwise(lower)
    )
