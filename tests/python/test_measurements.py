"""client.measurements: host and disk measurements, nulls kept, fleet pulls in memory and to
Parquet, sync and async: the requests sent, and the values against the server's answers and the
seeded disks and databases (every window ends at the simulator's fixed clock)."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest
from _truth import (
    LONG,
    a_mongod,
    frame_rows,
    get,
    measurement_path,
    requests_of,
    series,
    served,
    served_rows,
    window,
)

UTC = dt.timezone.utc
HOUR, MINUTE = dt.timedelta(hours=1), dt.timedelta(minutes=1)
DISK = ["DISK_PARTITION_SPACE_USED", "DISK_PARTITION_SPACE_FREE"]
SIZES = ["DATABASE_STORAGE_SIZE", "DATABASE_INDEX_SIZE"]
HOST = ["CONNECTIONS", "OPCOUNTER_CMD"]


@pytest.fixture(scope="module")
def mongod(sim):
    return a_mongod(sim)


def long_schema():
    return [
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


def check_disk(m_series, p: dict) -> None:
    """A partition's space against its seed: used + free is the capacity at every point, and
    used at the anchor is the seeded level to within its noise."""
    units_u, ts_u, used = m_series["DISK_PARTITION_SPACE_USED"]
    units_f, ts_f, free = m_series["DISK_PARTITION_SPACE_FREE"]
    assert (units_u, units_f) == ("BYTES", "BYTES") and ts_u == ts_f
    points = [(u, f) for u, f in zip(used, free) if u is not None]
    assert len(points) >= len(used) - 1 and points
    assert all(u + f == p["capacity_bytes"] for u, f in points)
    assert ts_u[-1] == p["anchor"]
    assert abs(used[-1] - p["used_bytes_at_anchor"]) <= 3 * p["noise_bytes"]


# ---- host ------------------------------------------------------------------------------------


@pytest.mark.smoke
def test_measurements_host_sync(sim, client, fixed_now, mongod):
    g, h = mongod["group_id"], mongod["host_id"]
    m = client.measurements.host(
        g, h, granularity="PT1M", period=dt.timedelta(minutes=10), metrics=["OPCOUNTER_CMD"]
    )
    path = f"/groups/{g}/hosts/{h}/measurements"
    assert requests_of(sim) == [get(path, "granularity=PT1M&period=PT10M&m=OPCOUNTER_CMD")]
    assert m.to_dict() == served(sim, path, granularity="PT1M", period="PT10M", m="OPCOUNTER_CMD")
    assert (m.group_id, m.host_id, m.process_id) == (g, h, mongod["process_id"])
    assert (m.start, m.end, m.granularity) == (fixed_now - 10 * MINUTE, fixed_now, "PT1M")
    units, stamps, values = series(m)["OPCOUNTER_CMD"]
    assert units == "SCALAR_PER_SECOND"
    assert stamps == window(fixed_now, 10 * MINUTE, MINUTE)
    sent = m.to_dict()["measurements"][0]["dataPoints"]
    assert values == [p["value"] for p in sent] and values[0] is None  # a null stays null
    df = m.to_polars()
    assert list(df.schema.items()) == long_schema()
    assert df["value"].to_list() == values and df["timestamp"].to_list() == stamps
    assert df["partition_name"].null_count() == df.height
    wide = m.to_polars(shape="wide")
    assert wide.columns == ["timestamp", "OPCOUNTER_CMD"]
    assert wide["OPCOUNTER_CMD"].to_list() == values


async def test_measurements_host_async(sim, aclient, mongod):
    g, h = mongod["group_id"], mongod["host_id"]
    start, end = dt.datetime(2026, 2, 27, 23, 0, tzinfo=UTC), "2026-02-28T01:00:00Z"
    m = await aclient.measurements.host(g, h, granularity="PT1H", start=start, end=end)
    path = f"/groups/{g}/hosts/{h}/measurements"
    assert requests_of(sim) == [
        get(path, "granularity=PT1H&start=2026-02-27T23%3A00%3A00Z&end=2026-02-28T01%3A00%3A00Z")
    ]
    sent = served(sim, path, granularity="PT1H", start="2026-02-27T23:00:00Z", end=end)
    assert m.to_dict() == sent
    assert (m.start, m.end) == (start, start + 2 * HOUR)
    got = series(m)
    assert list(got) == [s["name"] for s in sent["measurements"]] and len(got) > 20
    for s in sent["measurements"]:
        units, stamps, values = got[s["name"]]
        assert units == s["units"] and stamps == window(start + 2 * HOUR, 2 * HOUR, HOUR)
        assert values == [p["value"] for p in s["dataPoints"]]


# ---- disk ------------------------------------------------------------------------------------


def test_measurements_disk_sync(sim, client, fixed_now, mongod):
    p = mongod["partitions"][0]
    g, h, name = p["group_id"], p["host_id"], p["partition_name"]
    m = client.measurements.disk(g, h, name, granularity="PT1H", period="P1D")
    path = f"/groups/{g}/hosts/{h}/disks/{name}/measurements"
    assert requests_of(sim) == [get(path, "granularity=PT1H&period=P1D")]
    assert (m.partition_name, m.database_name, m.host_id) == (name, None, h)
    assert m.to_dict() == served(sim, path, granularity="PT1H", period="P1D")
    got = series(m)
    assert all(s[1] == window(fixed_now, 24 * HOUR, HOUR) for s in got.values())
    check_disk(got, p)


async def test_measurements_disk_async(sim, aclient, fixed_now):
    # The fastest-growing partition: a day of growth is its seeded rate, to within its noise.
    p = max(sim.partition_truth(), key=lambda p: p["growth_bytes_per_day"])
    assert p["growth"] == "fast"
    g, h, name = p["group_id"], p["host_id"], p["partition_name"]
    m = await aclient.measurements.disk(g, h, name, granularity="PT1H", period="P1D", metrics=DISK)
    path = f"/groups/{g}/hosts/{h}/disks/{name}/measurements"
    assert requests_of(sim) == [
        get(
            path,
            "granularity=PT1H&period=P1D&m=DISK_PARTITION_SPACE_USED&m=DISK_PARTITION_SPACE_FREE",
        )
    ]
    got = series(m)
    assert sorted(got) == sorted(DISK)
    check_disk(got, p)
    used = got["DISK_PARTITION_SPACE_USED"][2]
    assert abs((used[-1] - used[0]) - p["growth_bytes_per_day"]) <= 6 * p["noise_bytes"]
    assert m.to_polars()["partition_name"].unique().to_list() == [name]


# ---- fleet -----------------------------------------------------------------------------------


@pytest.mark.smoke
def test_fleet_sync(sim, client, ids):
    g = ids["group"]
    targets = [(g, h.id) for h in ids["hosts"]]
    params = {"granularity": "PT5M", "period": "PT1H"}
    df = client.measurements.fleet(targets, metrics=HOST, progress=False, **params)
    query = "granularity=PT5M&period=PT1H&m=CONNECTIONS&m=OPCOUNTER_CMD"
    assert sorted(requests_of(sim)) == sorted(get(measurement_path(t), query) for t in targets)
    assert list(df.schema.items()) == long_schema()
    assert frame_rows(df) == served_rows(sim, targets, **params, m=HOST)
    assert df.height == len(targets) * len(HOST) * 13


async def test_fleet_async(sim, aclient, mongod):
    """Disks and databases of one mongod in one pull each: the rows the server sent, and the
    seeded sizes at the anchor."""
    g, h = mongod["group_id"], mongod["host_id"]
    params = {"granularity": "PT1H", "period": "PT6H"}
    disks = [(g, h, p["partition_name"]) for p in mongod["partitions"]]
    frame = await aclient.measurements.fleet(disks, metrics=DISK, progress=False, **params)
    assert sorted(requests_of(sim)) == sorted(
        get(measurement_path(t), "granularity=PT1H&period=PT6H&m=" + "&m=".join(DISK))
        for t in disks
    )
    assert frame_rows(frame) == served_rows(sim, disks, **params, m=DISK)
    for p in mongod["partitions"]:
        mine = frame.filter(pl.col("partition_name") == p["partition_name"])
        at_anchor = mine.filter(pl.col("timestamp") == p["anchor"])
        used = at_anchor.filter(pl.col("measurement") == "DISK_PARTITION_SPACE_USED")["value"]
        assert abs(used.item() - p["used_bytes_at_anchor"]) <= 3 * p["noise_bytes"]
        assert at_anchor["value"].sum() == p["capacity_bytes"]

    sim.clear_requests()
    dbs = [(g, h, d["database_name"]) for d in mongod["databases"]]
    frame = await aclient.measurements.fleet(
        dbs, kind="database", metrics=SIZES, progress=False, **params
    )
    assert sorted(requests_of(sim)) == sorted(
        get(measurement_path(t, "database"), "granularity=PT1H&period=PT6H&m=" + "&m=".join(SIZES))
        for t in dbs
    )
    assert frame_rows(frame) == served_rows(sim, dbs, "database", **params, m=SIZES)
    sizes = (
        frame.filter(pl.col("timestamp") == mongod["databases"][0]["anchor"])
        .group_by(pl.col("database_name").cast(pl.String))
        .agg(pl.col("value").sum())
    )
    got = dict(sizes.rows())
    assert sorted(got) == sorted(d["database_name"] for d in mongod["databases"])
    for d in mongod["databases"]:
        assert got[d["database_name"]] == pytest.approx(d["size_bytes_at_anchor"], abs=1)


async def test_fleet_keep_going_and_progress(sim, client, aclient, ids):
    g = ids["group"]
    targets = [(g, h.id) for h in ids["hosts"]]
    frame, failures = await aclient.measurements.fleet(
        [(g, "nope"), targets[0]],
        granularity="PT5M",
        period="PT1H",
        keep_going=True,
        progress=False,
    )
    assert sorted(requests_of(sim)) == sorted(
        get(measurement_path(t), "granularity=PT5M&period=PT1H") for t in [(g, "nope"), targets[0]]
    )
    assert frame_rows(frame) == served_rows(sim, targets[:1], granularity="PT5M", period="PT1H")
    assert failures["error_code"].to_list() == ["HOST_NOT_FOUND"]
    assert failures["host_id"].to_list() == ["nope"]
    seen = []
    wide = client.measurements.fleet(
        targets[:2],
        granularity="PT5M",
        period="PT1H",
        metrics=HOST,
        shape="wide",
        progress=lambda done, total, target, ok: seen.append((done, total, ok)),
    )
    assert sorted(seen) == [(1, 2, True), (2, 2, True)]
    assert wide.columns == [
        "group_id", "host_id", "partition_name", "database_name", "timestamp", *sorted(HOST),
    ]  # fmt: skip
    assert wide.height == 2 * 13


def test_empty_and_all_null_frames_cross(sim, client, ids):
    g = ids["group"]
    frame, failures = client.measurements.fleet(
        [(g, "nope")], granularity="PT1M", period="PT1H", keep_going=True, progress=False
    )
    assert frame.height == 0 and frame.schema["timestamp"] == pl.Datetime("ms", "UTC")
    assert failures.height == 1 and failures["partition_name"].null_count() == 1
    empty = client.measurements.fleet([], granularity="PT1M", period="PT1H", progress=False)
    assert empty.height == 0 and empty.columns == LONG


# ---- fleet_to_parquet ---------------------------------------------------------------------------


def read_back(root) -> pl.DataFrame:
    """Every file of a hive-partitioned pull, as one long frame with plain string keys."""
    frame = pl.read_parquet(root / "**" / "*.parquet", hive_partitioning=True)
    return frame.select(LONG)


def files(root) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.parquet"))


def test_fleet_to_parquet_sync(sim, client, mongod, tmp_path):
    g, h = mongod["group_id"], mongod["host_id"]
    targets = [(g, h), *((g, h, p["partition_name"]) for p in mongod["partitions"])]
    params = {"granularity": "PT1H", "period": "PT3H"}
    assert client.measurements.fleet_to_parquet(targets, tmp_path, progress=False, **params) is None
    assert sorted(requests_of(sim)) == sorted(
        get(measurement_path(t), "granularity=PT1H&period=PT3H") for t in targets
    )
    assert files(tmp_path) == sorted(
        [f"group_id={g}/host_id={h}/host.parquet"]
        + [
            f"group_id={g}/host_id={h}/disk-{p['partition_name']}.parquet"
            for p in mongod["partitions"]
        ]
    )
    assert frame_rows(read_back(tmp_path)) == served_rows(sim, targets, **params)


async def test_fleet_to_parquet_async(sim, aclient, mongod, tmp_path):
    g, h = mongod["group_id"], mongod["host_id"]
    dbs = [(g, h, d["database_name"]) for d in mongod["databases"]]
    params = {"granularity": "PT1H", "period": "PT2H", "metrics": SIZES}
    out = await aclient.measurements.fleet_to_parquet(
        dbs, tmp_path, kind="database", progress=False, **params
    )
    assert out is None
    assert sorted(requests_of(sim)) == sorted(
        get(measurement_path(t, "database"), "granularity=PT1H&period=PT2H&m=" + "&m=".join(SIZES))
        for t in dbs
    )
    assert files(tmp_path) == sorted(
        f"group_id={g}/host_id={h}/database-{d['database_name']}.parquet"
        for d in mongod["databases"]
    )
    frame = read_back(tmp_path)
    assert frame_rows(frame) == served_rows(
        sim, dbs, "database", granularity="PT1H", period="PT2H", m=SIZES
    )
    at_anchor = frame.filter(pl.col("timestamp") == mongod["databases"][0]["anchor"])
    got = dict(at_anchor.group_by("database_name").agg(pl.col("value").sum()).rows())
    for d in mongod["databases"]:
        assert got[d["database_name"]] == pytest.approx(d["size_bytes_at_anchor"], abs=1)
