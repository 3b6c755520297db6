"""Days-to-limit forecasts on series shaped like real ones (issue 37): the simulator's
``forecast_cases`` (steady, noisy, sawtooth, bent, stepped and resized disks; connections
with a weekly peak, storms or a pool resized; the oplog window, cache, CPU, tickets), each
with the truth a person sees: the first hour the series itself reaches its limit.

The per-family coverage over 200 cases a family is measured in Rust
(``sim::shapes::coverage``; ``make test-stress``); here, what a user of
``opsapi.capacity`` sees of it, on a few cases.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import polars as pl
import pytest

from opsapi import capacity
from opsapi.testing import forecast_cases

NOW = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)  # a Monday, the suite's FIXED_NOW
RESTS_ON = re.compile(r"^80 %, (backtested on \d+ days|from \d+ days (of history|since .+))$")


def _headroom(cases, window: str) -> pl.DataFrame:
    h = capacity.headroom(cases.host_frame, cases.disk_frame, cases.hosts, window=window, now=NOW)
    return h.filter(pl.col("scope_kind") == "host").join(
        cases.truth.select("first_breach_days", "change", scope=pl.col("hostname") + ":27017"),
        on="scope",
    )


def test_forecast_cases_are_the_simulators_and_refuse_an_unknown_family():
    a = forecast_cases("disk_sawtooth", 3, now=NOW, days=14)
    b = forecast_cases("disk_sawtooth", 3, now=NOW, days=14)
    assert a.disk_frame.equals(b.disk_frame) and a.host_frame.height == 0
    assert (a.truth["first_breach_days"] > 0).all()
    with pytest.raises(ValueError, match="family must be one of"):
        forecast_cases("disk_wobbly", 1, now=NOW)


@pytest.mark.parametrize(
    ("family", "resource"),
    [("connections_storm", "connections"), ("oplog_window", "oplog_window"),
     ("tickets", "tickets"), ("disk_noisy", "disk")],
)  # fmt: skip
@pytest.mark.parametrize("window", ["60d", "14d"])
def test_every_days_to_limit_has_its_range_and_says_what_it_rests_on(family, resource, window):
    """Four cases a family, 60 days of hourly history: the window as long as the history
    (residual ranges) or the default 14 days (ranges calibrated on each host's own past). Each
    dated row has a range around its days, its source and a phrase with the level. (Four
    cases say little of how often a range holds: that is measured on 200 cases a family, through
    the same functions, by ``sim::shapes::coverage`` in ``make test-stress``.)"""
    cases = forecast_cases(family, 4, seed=5, now=NOW, days=60)
    rows = _headroom(cases, window).filter(pl.col("resource") == resource)
    assert rows.height == 4
    dated = rows.filter(pl.col("days_left").is_not_null())
    assert dated.height >= 3, rows
    assert (dated["days_low"] <= dated["days_left"]).all()
    assert ((dated["days_left"] <= dated["days_high"]) | dated["days_high"].is_null()).all()
    source = "residuals" if window == "60d" else "backtest"
    assert dated["interval_source"].to_list() == [source] * dated.height
    assert all(RESTS_ON.match(r) for r in dated["rests_on"]), dated["rests_on"].to_list()
    if source == "backtest":
        assert all(r == "80 %, backtested on 60 days" for r in dated["rests_on"])


def test_a_resized_disk_restarts_its_forecast_and_the_summary_says_so():
    """A disk resized 5 to 40 days ago, the window the 60 days of history: its fit starts at
    the resize (``fit_reason`` ``capacity_change``, ``fit_since`` within a day of it), and
    the report's sentence says where its forecast starts."""
    cases = forecast_cases("disk_resize", 3, seed=2, now=NOW, days=60)
    f = capacity.disk_forecast(cases.disk_frame, now=NOW, window="60d").join(
        cases.truth.select(pl.col("host_id").cast(pl.Categorical), "changed_at"), on="host_id"
    )
    assert f["fit_reason"].to_list() == ["capacity_change"] * 3
    off = (f["fit_since"] - f["changed_at"]).dt.total_hours().abs()
    assert off.max() <= 24, f.select("fit_since", "changed_at")
    h = capacity.headroom(cases.host_frame, cases.disk_frame, cases.hosts, now=NOW, window="60d")
    disk = h.filter(pl.col("scope_kind") == "host", pl.col("resource") == "disk")
    assert disk["fit_reason"].to_list() == ["capacity_change"] * 3
    said = [s for s in capacity.headroom_summary(h)["summary"] if "disk 90 % full in" in s]
    assert said and all("days since the capacity changed" in s for s in said), said


def test_a_step_in_the_history_starts_the_fit_after_it():
    """A bulk load (or a delete) 3 to 40 days ago, the window the 60 days of history: the fit
    starts where the level stepped, or says why it gives no date yet."""
    cases = forecast_cases("disk_step", 6, seed=3, now=NOW, days=60)
    f = capacity.disk_forecast(cases.disk_frame, now=NOW, window="60d").join(
        cases.truth.select(pl.col("host_id").cast(pl.Categorical), "changed_at"), on="host_id"
    )
    found = f.filter(pl.col("fit_reason") == "level_shift")
    assert found.height >= 4, f.select("fit_reason", "fit_since", "changed_at")
    off = (found["fit_since"] - found["changed_at"]).dt.total_hours().abs()
    assert off.max() <= 48
    short = f.filter(pl.col("days_to_90").is_null())
    assert all("too little history since" in n for n in short["note"].drop_nulls())


def _tier_events(cases, days_ago: float, event_type: str, kind: str) -> pl.DataFrame:
    """An event of ``event_type`` on each case's host ``days_ago`` before now, in the columns
    of ``EventList.timeline()`` (``capacity.window_events``' frame): what Atlas's event
    stream names, and which the series itself does not show."""
    hosts = cases.truth.select(
        pl.col("host_id").cast(pl.String), pl.col("group_id").cast(pl.String)
    ).unique(maintain_order=True)  # fmt: skip
    at = NOW - timedelta(days=days_ago)
    return hosts.select(
        created=pl.lit(at, pl.Datetime("ms", "UTC")), charted=pl.lit(True),
        event_type_name=pl.lit(event_type), kind=pl.lit(kind), said=pl.lit(event_type),
        host=pl.lit(None, pl.String), replica_set_name=pl.lit(None, pl.String),
        id=pl.lit("e") + pl.col("host_id"), host_id="host_id",
        alert_id=pl.lit(None, pl.String), cluster_name=pl.lit(None, pl.String),
        group_id="group_id",
    )  # fmt: skip


def test_a_tier_change_the_events_name_restarts_the_forecasts_it_changes():
    """A tier change (Atlas's compute auto-scaling) 20 days ago that the CPU series
    themselves do not show: given the events, no host's CPU fit reads across it, one
    starts at it (``fit_reason`` ``tier_change``) unless its series changed since, and its
    range says so. Without the events, each fit reads across it."""
    cases = forecast_cases("cpu", 3, seed=4, now=NOW, days=60)
    events = _tier_events(cases, 20, "COMPUTE_AUTO_SCALE_INITIATED_BASE", "scaling")
    at = NOW - timedelta(days=20)

    def rows(**kw):
        h = capacity.headroom(
            cases.host_frame, cases.disk_frame, cases.hosts, window="60d", now=NOW, **kw
        )
        return h.filter(pl.col("scope_kind") == "host", pl.col("resource") == "cpu")

    before = rows()
    assert before.height == 3 and before["fit_since"].null_count() == 0, before
    assert (before["fit_since"] < at - timedelta(days=5)).all(), before
    after = rows(events=events)
    # No fit reads across the change; one starts at it unless the series changed since.
    assert after["fit_since"].null_count() == 0
    assert (after["fit_since"] >= at).all(), after.select("fit_since", "fit_reason")
    at_change = after.filter(pl.col("fit_reason") == "tier_change")
    assert at_change.height >= 1, after.select("fit_since", "fit_reason")
    assert (at_change["fit_since"] == at).all()
    assert at_change["rests_on"].to_list() == ["80 %, from 20 days since the tier changed"] * (
        at_change.height
    ), at_change.select("days_left", "rests_on", "note")


def test_a_disk_resize_the_events_name_restarts_only_the_disks_forecast():
    """Atlas's disk auto-scaling 12 days ago on steady disks: each partition's fit starts at
    it (``capacity_change``), through ``disk_forecast`` and ``headroom`` alike, and a compute
    resource's fit is not restarted by it."""
    cases = forecast_cases("disk_steady", 3, seed=6, now=NOW, days=60)
    events = _tier_events(cases, 12, "DISK_AUTO_SCALE_INITIATED", "scaling")
    at = NOW - timedelta(days=12)
    plain = capacity.disk_forecast(cases.disk_frame, now=NOW, window="60d")
    assert "capacity_change" not in plain["fit_reason"].to_list()
    f = capacity.disk_forecast(cases.disk_frame, now=NOW, window="60d", events=events)
    assert f["fit_reason"].to_list() == ["capacity_change"] * 3, f
    assert (f["fit_since"] - at).dt.total_hours().abs().max() <= 1
    h = capacity.headroom(
        cases.host_frame, cases.disk_frame, cases.hosts, window="60d", now=NOW, events=events
    )
    host = h.filter(pl.col("scope_kind") == "host")
    assert (
        host.filter(pl.col("resource") == "disk")["fit_reason"].to_list() == ["capacity_change"] * 3
    )
    assert (
        "capacity_change" not in host.filter(pl.col("resource") != "disk")["fit_reason"].to_list()
    )
