"""Every days-to-limit has an interval, and ``capacity.backtest`` says how good past forecasts
were (issue 33 §1): on the shared simulator with 63 days of hourly history (what Atlas keeps),
and on the seasonal cases."""

from __future__ import annotations

from datetime import datetime, timezone

import polars as pl
import pytest

from opsapi import InvalidArgumentError, capacity
from opsapi.testing import seasonal_cases

NOW = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def long(sim):
    """The shared world with 63 days of history (the window is 14)."""
    return capacity.headroom_inputs(sim.client(), window="14d", history="63d")


@pytest.fixture(scope="module")
def bt(long, fixed_now) -> pl.DataFrame:
    return capacity.backtest(*long, window="14d", now=fixed_now)


def test_backtest_counts_every_past_forecast_the_history_holds(bt, long) -> None:
    # 63 days, a 14-day window, a forecast every 2 days: made k days ago for k = 7, 9, ..., 49
    # (its window inside the history), each checked at the horizons h <= k it has seen come.
    origins = {h: len([k for k in range(7, 63 - 14 + 1, 2) if k >= h]) for h in (7, 14, 30)}
    assert origins == {7: 22, 14: 18, 30: 10}
    assert bt["resource"].unique(maintain_order=True).to_list() == [
        "disk", "oplog_window", "replication_lag", "cpu", "cache", "connections", "tickets",
        "iops", "disk_latency",
    ]  # fmt: skip
    # The disks' growth never changed: every forecast is checked.
    disk = bt.filter(pl.col("resource") == "disk")
    assert disk["horizon"].to_list() == [7, 14, 30]
    assert disk["forecasts"].to_list() == [disk["series"][0] * origins[h] for h in (7, 14, 30)]
    # A forecast whose horizon saw its series change (a storm, a step) forecast a regime that
    # did not last: left out, never counted twice.
    conns = bt.filter(pl.col("resource") == "connections")
    assert conns["series"][0] == len(long.hosts)  # every host has connections
    full = [len(long.hosts) * origins[h] for h in (7, 14, 30)]
    assert all(0 < n <= most for n, most in zip(conns["forecasts"], full)), conns


def test_backtest_says_its_errors_and_coverage(bt) -> None:
    assert (bt["interval_source"] == "backtest").all()
    assert (bt["interval_level"] == 0.8).all()
    # The ends a range is read at: calibration only ever widens the model's own (0.1, 0.9).
    assert ((bt["q_low"] <= 0.1) & (bt["q_high"] >= 0.9)).all()
    assert bt["coverage"].is_between(0.0, 1.0).all()
    # No forecast saw its outcome: at each resource's 7-day horizon (200 or more of them),
    # the model's own 80 % range held what came at least 70 % of the time (narrower is the
    # one outcome not allowed), about 80 % over all of them.
    week = bt.filter(pl.col("horizon") == 7)
    assert week["forecasts"].min() >= 200
    assert (week["coverage"] >= 0.7).all(), week
    pooled = (week["coverage"] * week["forecasts"]).sum() / week["forecasts"].sum()
    assert 0.75 <= pooled <= 0.9, pooled
    dated = bt.filter(pl.col("dated") > 0)
    assert (dated["abs_error_days_p90"] >= 0).all() and (dated["mae_days"] >= 0).all()
    assert (bt["dated"] <= bt["forecasts"]).all()


def test_headroom_intervals_come_from_the_backtest_with_history(long, fixed_now) -> None:
    h = capacity.headroom(*long, window="14d", now=fixed_now)
    dated = h.filter(pl.col("days_left") > 0)
    assert dated.height > 0
    assert (dated["interval_source"] == "backtest").all()
    assert (dated["days_low"] <= dated["days_left"]).all()
    assert (dated["days_left"] <= dated["days_high"].fill_null(float("inf"))).all()
    # Past the limit: nothing to forecast, the interval is that day.
    past = h.filter(pl.col("days_left") == 0)
    assert (past["days_low"] == 0).all() and (past["days_high"] == 0).all()
    assert past["interval_source"].is_null().all()
    # No date, no interval.
    none = h.filter(pl.col("days_left").is_null())
    assert none["days_low"].is_null().all() and none["interval_source"].is_null().all()


def test_a_window_with_no_history_before_it_says_its_interval_is_the_residuals(
    sim, fixed_now
) -> None:
    short = capacity.headroom_inputs(sim.client(), window="14d")
    h = capacity.headroom(*short, window="14d", now=fixed_now)
    dated = h.filter(pl.col("days_left") > 0)
    assert dated.height > 0 and (dated["interval_source"] == "residuals").all()
    assert (dated["days_low"] <= dated["days_left"]).all()
    assert capacity.backtest(*short, window="14d", now=fixed_now).height == 0
    f = capacity.disk_forecast(short.disk_frame, window="14d", now=fixed_now)
    assert f["interval_source"].unique().to_list() == ["residuals"]


def test_disk_forecast_has_an_interval_around_every_date(long, sim, fixed_now) -> None:
    f = capacity.disk_forecast(long.disk_frame, window="14d", now=fixed_now)
    assert f["interval_source"].unique().to_list() == ["backtest"]
    for label in ("80", "90", "full"):
        days, low, high = (f[f"days_to_{label}{e}"] for e in ("", "_low", "_high"))
        has = days.is_not_null()
        assert (low.is_not_null() == has).all()
        assert ((low <= days) & (days <= high.fill_null(float("inf")))).filter(has).all()
    # The seeded growing disks fill inside their 80 % interval, most of them (the truth is the
    # seeded trend; 4 in 5 is the level, and the growing disks here are few).
    truth = pl.DataFrame(sim.partition_truth()).filter(pl.col("growth_bytes_per_day") > 0)
    truth = truth.select(
        "host_id", "partition_name",
        full=(pl.col("capacity_bytes") - pl.col("used_bytes_at_anchor"))
        / pl.col("growth_bytes_per_day"),
    )  # fmt: skip
    j = f.with_columns(pl.col("host_id", "partition_name").cast(pl.String)).join(
        truth, on=["host_id", "partition_name"]
    )
    j = j.filter(pl.col("days_to_full").is_not_null())
    inside = (pl.col("days_to_full_low") <= pl.col("full")) & (
        pl.col("full") <= pl.col("days_to_full_high")
    )
    assert j.height >= 10
    assert j.select(inside.mean()).item() >= 0.6


def test_bad_arguments_are_refused_by_name(long) -> None:
    for kwargs, name in (
        ({"interval_level": 1.5}, "interval_level"),
        ({"interval_level": 0}, "interval_level"),
        ({"horizons": (0, 7)}, "horizons"),
        ({"horizons": ()}, "horizons"),
        ({"every": 0}, "every"),
        ({"conections": 3000}, "conections"),
        ({"connections": "3000"}, "connections"),
    ):
        with pytest.raises(InvalidArgumentError) as err:
            capacity.backtest(*long, **kwargs)
        assert err.value.argument == name, kwargs
    with pytest.raises(InvalidArgumentError):
        capacity.headroom(*long, interval_level=2.0)


def test_a_90_interval_is_wider_than_an_80_one() -> None:
    cases = seasonal_cases(40, now=NOW, days=63)
    empty = cases.frame.head(0)
    rows = [
        capacity.headroom(cases.frame, empty, cases.hosts, now=NOW, interval_level=level)
        .filter(pl.col("scope_kind") == "host", pl.col("resource") == "connections")
        .sort("scope")
        for level in (0.8, 0.9)
    ]
    assert rows[0]["days_left"].equals(rows[1]["days_left"])
    dated = rows[0]["days_left"].is_not_null()
    assert (rows[1]["days_low"] <= rows[0]["days_low"]).filter(dated).all()
    wider = rows[1]["days_high"].fill_null(1e9) >= rows[0]["days_high"].fill_null(1e9)
    assert wider.filter(dated).all()
    bt = capacity.backtest(cases.frame, empty, cases.hosts, now=NOW, interval_level=0.9)
    assert bt["coverage"].filter(bt["resource"] == "connections").is_between(0.8, 1.0).all()


def test_a_short_history_backtests_what_it_can(sim, fixed_now) -> None:
    # 40 days: forecasts made 7, 9, ..., 25 days ago (a 14-day window before each), checked
    # 7 days ahead (10 of them) and 14 days ahead (those made 15 days ago or more: 6); none
    # has seen 30 days come.
    inputs = capacity.headroom_inputs(sim.client(), window="14d", history="40d")
    bt = capacity.backtest(*inputs, window="14d", now=fixed_now)
    disk = bt.filter(pl.col("resource") == "disk")
    assert disk["horizon"].to_list() == [7, 14]
    assert disk["forecasts"].to_list() == [disk["series"][0] * 10, disk["series"][0] * 6]
