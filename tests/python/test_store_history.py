"""History beyond the server's retention (issue 33 §3), from Python: one sync keeps several
granularities, each with its own window (``keep=``), so that synced daily over a simulated
year the store holds the year at ``PT1H`` while the server holds 63 days; ``scan`` reads one
resource's whole history across them, the finest where it exists. (The Rust side:
tests/it/store_history.rs.)"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import polars as pl
import pytest

import opsapi
from opsapi.testing import Simulator

# A year that lies behind this machine's clock (no sync finds the server's clock ahead).
FIXED_NOW = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)
T0 = FIXED_NOW - timedelta(days=365)
DAY = timedelta(days=1)
HOUR = timedelta(hours=1)


@pytest.fixture
def kept():
    """One host, measurements kept as Ops Manager keeps them (minutes 2 days, hours 63 days,
    days for good), the clock at T0."""
    with Simulator(seed=0, projects=1, hosts_per_project=1, now=T0, retention=True) as s:
        yield s


def options(sim: Simulator, **kw: object) -> dict[str, object]:
    h = sim.world()["hosts"][0]
    return {"targets": [(h["group_id"], h["id"])], "kind": "host",
            "metrics": ["CONNECTIONS"], "progress": False, **kw}  # fmt: skip


@pytest.mark.timeout(300)
def test_synced_daily_for_a_year_the_store_holds_the_year_at_pt1h_the_server_63_days(
    kept, tmp_path
):
    client = kept.client()
    store = opsapi.Store(tmp_path / "store")
    o = options(kept, granularity="PT1H", window="P395D", keep={"P1D": None})
    first = client.measurements.sync(store, **o)
    assert first.data_requests == 2  # one per granularity
    for _ in range(365):
        kept.advance(DAY)
        r = client.measurements.sync(store, **o)
        assert not r.failed and not r.gaps and not r.warnings, r
    end = kept.now
    assert end == T0 + timedelta(days=365)
    h = kept.world()["hosts"][0]
    served = client.measurements.host(
        h["group_id"], h["id"], granularity="PT1H", start=T0, end=end, metrics=["CONNECTIONS"]
    )
    assert served.series[0].timestamps[0] == end - timedelta(days=63)

    hours = store.scan(kind="host", granularity="PT1H").collect()["timestamp"].sort()
    assert hours.is_unique().all()
    assert hours[0] < T0  # the whole year, and what the window kept of the days before
    assert hours[-1] == end
    assert (hours.diff().drop_nulls() == HOUR).all(), "an hour missing"
    days = store.scan(kind="host", granularity="P1D").collect()["timestamp"].sort()
    assert (days.diff().drop_nulls() == DAY).all()
    assert days[0] <= T0 - timedelta(days=394)  # the first sync's lookback: 395 days

    # The whole history: days before the first hour, hours from there.
    history = store.scan(kind="host", granularity=("PT1H", "P1D")).collect()
    assert history.columns[-3:] == ["granularity", "timestamp", "value"]
    by = {g: f["timestamp"].sort() for (g,), f in history.group_by(pl.col("granularity").cast(str))}
    assert by["PT1H"].equals(hours)
    assert by["P1D"].equals(days.filter(days < hours[0]))
    assert store.targets().height == 2


def test_a_history_reads_the_finest_granularity_where_it_exists(kept, tmp_path):
    client = kept.client()
    store = opsapi.Store(tmp_path / "store")
    o = options(kept, granularity="PT1M", window="P2D", keep={"PT1H": "P395D", "P1D": None})
    for _ in range(3):
        client.measurements.sync(store, **o)
        kept.advance(DAY)
    history = store.scan(kind="host", granularity=["P1D", "PT1H", "PT1M"]).collect()
    g = history["granularity"].cast(str)
    minutes = store.scan(kind="host", granularity="PT1M").collect()["timestamp"].sort()
    m = history.filter(g == "PT1M")["timestamp"].sort()
    hh = history.filter(g == "PT1H")["timestamp"].sort()
    d = history.filter(g == "P1D")["timestamp"].sort()
    assert m.equals(minutes)
    assert hh[-1] == m[0] - HOUR and d[-1] < hh[0]
    assert history.select("timestamp").is_unique().all()
    # The same as Rust reads it.
    assert store.scan(kind="disk", granularity=("PT1H",)).collect().height == 0


def test_keep_is_checked_before_anything_is_sent(kept, tmp_path):
    client = kept.client()
    store = opsapi.Store(tmp_path / "store")
    for keep, says in [
        ({"PT1H": "P1M"}, "`P1M` (kept for PT1H) is not a fixed duration"),  # months vary
        ({"PT1M": "P2D"}, "names PT1M twice"),  # the sync's own granularity
        ({"PT2H": "P2D"}, "granularity"),
        (["PT1H"], "must be a dict"),
    ]:
        with pytest.raises(opsapi.InvalidArgumentError) as e:
            client.measurements.sync(store, **options(kept, granularity="PT1M", window="P2D",
                                                      keep=keep))  # fmt: skip
        assert says in str(e.value), (keep, e.value)
    assert kept.requests() == []
