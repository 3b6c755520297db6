"""Forecasts of the peaks through weekly and daily cycles, and intervals whose coverage is
measured (issue 33 §1-2), against the simulator's seasonal cases (``opsapi.testing.
seasonal_cases``: known trend, cycles and noise), built in-process.

The long form of the coverage test (20 seeds of 400 cases) runs in ``make test-stress``:
``OPSAPI_COVERAGE_SEEDS=20 OPSAPI_COVERAGE_CASES=400``.
"""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone

import polars as pl
import pytest

from opsapi import capacity
from opsapi.capacity import trend
from opsapi.testing import forecast_cases, seasonal_cases

NOW = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)  # a Monday, the suite's FIXED_NOW
KEYS = ["host_id"]


def _peaks(frame: pl.DataFrame, quantile: float = 0.99) -> pl.LazyFrame:
    series = frame.lazy().select("host_id", "timestamp", "value")
    return trend.daily_peaks(series, KEYS, NOW, quantile=quantile, worse=1).collect().lazy()


def _with_truth(fits: pl.LazyFrame, truth: pl.DataFrame) -> pl.DataFrame:
    return fits.collect().with_columns(pl.col("host_id").cast(pl.String)).join(truth, on="host_id")


def test_seasonal_cases_are_the_simulators_and_say_their_truth():
    cases = seasonal_cases(4, now=NOW, days=28)
    again = seasonal_cases(4, now=NOW, days=28)
    assert cases.frame.equals(again.frame)
    # 28 days of hourly points and the one at now, per case.
    assert cases.frame.height == 4 * (28 * 24 + 1)
    assert cases.frame["measurement"].cast(pl.String).unique().to_list() == ["CONNECTIONS"]
    t = cases.truth
    # The trend of the peaks reaches the limit at crosses_at; the series first touches it on
    # a peak hour at or after it, within a week.
    at = t["peak_at_anchor"] + t["per_day"] * t["crosses_days"]
    assert ((at - t["limit"]).abs() < 1e-6 * t["limit"]).all()
    lag = (t["first_breach_at"] - t["crosses_at"]).dt.total_hours()
    assert lag.min() >= -1 and lag.max() <= 7 * 24
    assert cases.hosts["host_id"].to_list() == t["host_id"].to_list()


@pytest.mark.parametrize("bad", [{"n": 0}, {"days": 0}, {"granularity": "PT10S"}, {"limit": -1.0}])
def test_seasonal_cases_refuse_what_cannot_be_built(bad):
    args = {"n": 2, "now": NOW, "days": 7, **bad}
    with pytest.raises(ValueError):
        seasonal_cases(**args)


def test_the_trend_of_the_peaks_is_the_seeded_one_whatever_the_weekday():
    """Tolerance: the fitted trend is within 0.3 × the day-to-day noise (per day) of the seeded
    trend in at least 97 % of 200 cases, for a 14-day window ending on each weekday; the same
    fit without the weekly cycle (every pair of days) misses it in a fifth of the cases when
    the window ends on a Sunday, reading the weekend's dip as a slowdown."""
    cases = seasonal_cases(200, now=NOW, days=28)
    peaks = _peaks(cases.frame)
    origins = list(range(7))  # windows ending Monday (now), Sunday, ..., Tuesday
    err = (pl.col("trend") - pl.col("per_day")) / pl.col("day_noise")
    weekly = _with_truth(trend.fit_peaks(peaks, KEYS, window_days=14, origins=origins), cases.truth)
    naive = _with_truth(
        trend.fit_peaks(peaks, KEYS, window_days=14, origins=origins, weekly=False), cases.truth
    )
    by = weekly.group_by("origin").agg(within=(err.abs() <= 0.3).mean(), bias=err.mean())
    assert by.height == 7
    assert by["within"].min() >= 0.97, by
    # Unbiased: the mean error is within a tenth of the noise at every weekday.
    assert by["bias"].abs().max() <= 0.03, by
    # The median relative error of the trend is under 10 %.
    assert (weekly["trend"] / weekly["per_day"] - 1).abs().median() < 0.10
    sunday = naive.filter(pl.col("origin") == 1).select((err.abs() <= 0.3).mean()).item()
    assert sunday < 0.85
    assert weekly.filter(pl.col("origin") == 1)["weekly"].all()


def _weekly_frame(level: float, plateau: dict[int, float], days: int = 28) -> pl.DataFrame:
    """One host's CONNECTIONS, hourly: flat ``level``, plus on weekday ``d`` (1 = Monday) a
    business-hours plateau of ``plateau[d]`` (09:00-18:00 UTC); no noise but a deterministic
    ripple of ±1 so that no two days are equal."""
    rows = []
    t = NOW - timedelta(days=days)
    while t <= NOW:
        extra = plateau.get(t.isoweekday(), 0.0) if 9 <= t.hour < 18 else 0.0
        ripple = ((t.day * 7 + t.hour) % 3) - 1
        rows.append({"host_id": "h1", "timestamp": t, "value": level + extra + ripple})
        t += timedelta(hours=1)
    return pl.DataFrame(rows).with_columns(pl.col("timestamp").cast(pl.Datetime("ms", "UTC")))


def test_a_weekend_dip_is_not_a_slowdown_and_a_monday_peak_is_the_peak():
    """A flat week: 1 000 at night, 3 000 on working days, 3 600 on Mondays, 1 500 at
    weekends. Whatever weekday the window ends on, the trend is flat and the peak the limit
    is compared with is Monday's."""
    frame = _weekly_frame(1000.0, {1: 2600.0, 2: 2000.0, 3: 2000.0, 4: 2000.0, 5: 2000.0,
                                   6: 500.0, 7: 500.0})  # fmt: skip
    fits = trend.fit_peaks(_peaks(frame), KEYS, window_days=14, origins=range(7)).collect()
    assert fits.height == 7
    assert fits["trend"].abs().max() < 1.0  # connections a day, against a 2 600 cycle
    assert (fits["level"] - 3600).abs().max() <= 2.0
    assert not fits.select(trend._dated()).to_series().any()


def _coverage(seed: int, n: int) -> dict[str, float]:
    """Through :func:`opsapi.capacity.headroom`: the 80 % interval of each case's days to its
    limit (calibrated by rolling-origin forecasts on each case's own 63 days), against the
    first hour the served series itself reaches the limit (issue 37: what a person sees
    happen, noise and all), on the simulator's ``connections_weekly`` truth family (a
    business-hours plateau, quiet weekends, in half the cases a busier Monday; day noise
    that lasts). The seasonal cases this test used to read define their truth by their trend
    (the crossing of its line, or the noise-free series'), which the method shares."""
    cases = forecast_cases("connections_weekly", n, seed=seed, now=NOW, days=63)
    h = capacity.headroom(
        cases.host_frame, cases.disk_frame, cases.hosts, window="14d", now=NOW, connections=5000
    )
    rows = h.filter(pl.col("scope_kind") == "host", pl.col("resource") == "connections")
    truth = cases.truth.select("first_breach_days", scope=pl.col("hostname") + ":27017")
    now = rows.join(truth, on="scope")
    fb = pl.col("first_breach_days")
    low, high = pl.col("days_low"), pl.col("days_high")
    return now.select(
        cases=pl.len().cast(pl.Float64),
        dated=pl.col("days_left").is_not_null().mean(),
        backtest=(pl.col("interval_source") == "backtest").mean(),
        # A null days_high is an open range ("12 or more": beyond three years), as the
        # summary says it.
        coverage=((low <= fb) & (fb <= high.fill_null(float("inf")))).fill_null(False).mean(),
        early=(fb < low).fill_null(False).mean(),
        late=(fb > high).fill_null(False).mean(),
        median_abs_error_days=(pl.col("days_left") - fb).abs().median(),
        median_width_days=(high - low).median(),
    ).row(0, named=True) | {"seed": seed}


def test_the_80_interval_covers_the_first_breach_4_times_in_5():
    """The issue's test: 200 seeded cases (seed 0), 63 days of hourly history each, a 14-day
    window, the truth the first hour the series itself reaches its limit (issue 37; it was the
    day the seeded trend's line did, which the method shares). Measured at the time of
    writing: 76.5 % covered (9.5 % of first breaches before the range, 13.5 % after), the
    median range 19 days wide."""
    seeds = int(os.environ.get("OPSAPI_COVERAGE_SEEDS", "1"))
    n = int(os.environ.get("OPSAPI_COVERAGE_CASES", "200"))
    runs = [_coverage(seed, n) for seed in range(seeds)]
    for r in runs:
        print(r)
    cases = sum(r["cases"] for r in runs)
    covered = sum(r["coverage"] * r["cases"] for r in runs) / cases
    assert cases >= 200
    # Nearly every case trends beyond its noise, so nearly every one gets a date, and every
    # interval comes from the backtest.
    assert min(r["dated"] for r in runs) >= 0.97
    assert min(r["backtest"] for r in runs) >= 0.97
    # behaviour: the band for an 80 % interval, measured on at least 200 cases.
    assert 0.75 <= covered <= 0.85, runs
