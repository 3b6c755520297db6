"""client.measurements: host and disk measurements, nulls kept, fleet pulls."""

from __future__ import annotations

import datetime as dt

import polars as pl

API = "/api/public/v1.0"
UTC = dt.timezone.utc


async def test_measurements_host_and_nulls(sim, client, aclient, ids, sent):
    g, h = ids["group"], ids["hosts"][0].id
    m = client.measurements.host(
        g, h, granularity="PT1M", period=dt.timedelta(minutes=10), metrics=["OPCOUNTER_CMD"]
    )
    r = sent(sim)[-1]
    assert r["path"] == f"{API}/groups/{g}/hosts/{h}/measurements"
    assert r["query"] == "granularity=PT1M&period=PT10M&m=OPCOUNTER_CMD"
    s = m.series[0]
    assert s.name == "OPCOUNTER_CMD" and s.values[0] is None
    assert all(t.tzinfo is not None for t in s.timestamps)
    df = m.to_polars()
    assert list(df.schema.items()) == [
        ("group_id", pl.Categorical),
        ("host_id", pl.Categorical),
        ("process_id", pl.Categorical),
        ("partition_name", pl.Categorical),
        ("database_name", pl.Categorical),
        ("measurement", pl.Categorical),
        ("units", pl.Categorical),
        ("timestamp", pl.Datetime("ms", "UTC")),
        ("value", pl.Float64),
    ]
    assert df["value"][0] is None and df["partition_name"].null_count() == df.height
    wide = m.to_polars(shape="wide")
    assert wide.columns == ["timestamp", "OPCOUNTER_CMD"]
    m2 = await aclient.measurements.host(
        g,
        h,
        granularity="PT1M",
        start="2024-01-01T00:00:00Z",
        end=dt.datetime(2024, 1, 1, 0, 5, tzinfo=UTC),
    )
    assert (
        sent(sim)[-1]["query"]
        == "granularity=PT1M&start=2024-01-01T00%3A00%3A00Z&end=2024-01-01T00%3A05%3A00Z"
    )
    assert m2.start == dt.datetime(2024, 1, 1, tzinfo=UTC)


async def test_measurements_disk(sim, client, aclient, ids, sent):
    g, h = ids["group"], ids["hosts"][0].id
    p = client.hosts.partitions(g, h)[0]
    m = client.measurements.disk(g, h, p, granularity="PT1H", period="P1D")
    assert sent(sim)[-1]["path"] == f"{API}/groups/{g}/hosts/{h}/disks/{p}/measurements"
    assert m.partition_name == p
    m2 = await aclient.measurements.disk(g, h, p, granularity="PT1H", period="P1D")
    assert m2.to_polars()["partition_name"].unique().to_list() == [p]


async def test_fleet(sim, client, aclient, ids):
    g = ids["group"]
    targets = [(g, h.id) for h in ids["hosts"]]
    df = client.measurements.fleet(targets, granularity="PT5M", period="PT1H", progress=False)
    assert df.columns[:4] == ["group_id", "host_id", "process_id", "partition_name"]
    assert set(df["host_id"].unique()) == {h.id for h in ids["hosts"]}
    frame, failures = await aclient.measurements.fleet(
        [(g, "nope"), targets[0]],
        granularity="PT5M",
        period="PT1H",
        keep_going=True,
        progress=False,
    )
    assert set(frame["host_id"].unique()) == {targets[0][1]}
    assert failures["error_code"].to_list() == ["HOST_NOT_FOUND"]
    seen = []
    client.measurements.fleet(
        targets[:2],
        granularity="PT5M",
        period="PT1H",
        shape="wide",
        progress=lambda done, total, target, ok: seen.append((done, total, ok)),
    )
    assert sorted(seen) == [(1, 2, True), (2, 2, True)]


def test_empty_and_all_null_frames_cross(sim, client, ids):
    g = ids["group"]
    frame, failures = client.measurements.fleet(
        [(g, "nope")], granularity="PT1M", period="PT1H", keep_going=True, progress=False
    )
    assert frame.height == 0 and frame.schema["timestamp"] == pl.Datetime("ms", "UTC")
    assert failures.height == 1 and failures["partition_name"].null_count() == 1
    empty = client.measurements.fleet([], granularity="PT1M", period="PT1H", progress=False)
    assert empty.height == 0
