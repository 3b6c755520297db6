"""Databases: hosts.databases, measurements.database, kind="database" fleet pulls, and
capacity.database_growth finding the database the simulator seeded as the growth driver."""

from __future__ import annotations

import polars as pl
import pytest

import opsapi
from opsapi import capacity

API = "/api/public/v1.0"
SIZES = ["DATABASE_STORAGE_SIZE", "DATABASE_INDEX_SIZE"]


def sent(sim):
    return [r for r in sim.requests() if r["authorized"]]


async def call(client, resource, name, *args, **kwargs):
    out = getattr(getattr(client, resource), name)(*args, **kwargs)
    return await out if isinstance(client, opsapi.AsyncClient) else out


@pytest.fixture(params=["sync", "async"])
def any_client(request, client, aclient):
    return client if request.param == "sync" else aclient


@pytest.fixture(scope="module")
def truth(sim):
    return pl.DataFrame(sim.database_truth())


def a_mongod(truth) -> tuple[str, str, list[str]]:
    row = truth.row(0, named=True)
    names = truth.filter(pl.col("host_id") == row["host_id"])["database_name"].to_list()
    return row["group_id"], row["host_id"], names


async def test_databases_lists_every_name(sim, any_client, truth):
    g, h, names = a_mongod(truth)
    got = await call(any_client, "hosts", "databases", g, h)
    assert got == names and "admin" in got
    r = sent(sim)[-1]
    assert (r["method"], r["path"]) == ("GET", f"{API}/groups/{g}/hosts/{h}/databases")


async def test_database_measurements(sim, any_client, truth):
    g, h, names = a_mongod(truth)
    m = await call(
        any_client, "measurements", "database", g, h, names[0],
        granularity="PT1H", period="P1D", metrics=SIZES,
    )  # fmt: skip
    r = sent(sim)[-1]
    assert r["path"] == f"{API}/groups/{g}/hosts/{h}/databases/{names[0]}/measurements"
    assert r["query"] == "granularity=PT1H&period=P1D&m=DATABASE_STORAGE_SIZE&m=DATABASE_INDEX_SIZE"
    assert (m.database_name, m.partition_name, m.host_id) == (names[0], None, h)
    assert [s.name for s in m.series] == SIZES
    assert all(s.units == "BYTES" for s in m.series)
    frame = m.to_polars()
    assert frame.columns[:6] == [
        "group_id", "host_id", "process_id", "partition_name", "database_name", "measurement",
    ]  # fmt: skip
    assert frame["database_name"].unique().to_list() == [names[0]]
    assert m.to_dict()["databaseName"] == names[0]


async def test_database_errors(sim, any_client, truth):
    g, h, names = a_mongod(truth)
    with pytest.raises(opsapi.NotFoundError) as e:
        await call(
            any_client, "measurements", "database", g, h, "nope", granularity="PT1H", period="P1D"
        )
    assert e.value.error_code == "DATABASE_NOT_FOUND"
    with pytest.raises(opsapi.NotFoundError) as e:
        await call(
            any_client, "measurements", "database", g, h, names[0],
            granularity="PT1H", period="P1D", metrics=["CONNECTIONS"],
        )  # fmt: skip
    assert e.value.error_code == "NOT_DATABASE_OR_DISK_METRIC"
    sim.clear_requests()
    with pytest.raises(opsapi.InvalidArgumentError, match="database_name"):
        await call(
            any_client, "measurements", "database", g, h, "", granularity="PT1H", period="P1D"
        )
    assert sim.requests() == []


async def test_fleet_of_databases(sim, any_client, truth):
    g, h, names = a_mongod(truth)
    frame = await call(
        any_client, "measurements", "fleet", [(g, h, n) for n in names],
        kind="database", granularity="PT1H", period="PT6H", metrics=SIZES,
    )  # fmt: skip
    assert frame["database_name"].null_count() == 0
    assert sorted(frame["database_name"].unique().to_list()) == sorted(names)
    assert frame["partition_name"].null_count() == frame.height
    paths = {r["path"] for r in sent(sim)}
    assert {f"{API}/groups/{g}/hosts/{h}/databases/{n}/measurements" for n in names} <= paths


@pytest.mark.parametrize(
    ("targets", "kind", "argument"),
    [
        ([("g", "h")], "database", "targets[0]"),
        ([("g", "h", "d")], "host", "targets[0]"),
        ([("g", "h", "d")], "tables", "kind"),
        ([("g", "h", "d", "x")], None, "targets[0]"),
    ],
)
def test_fleet_kind_is_checked_before_any_request(sim, client, targets, kind, argument):
    sim.clear_requests()
    with pytest.raises(opsapi.InvalidArgumentError) as e:
        client.measurements.fleet(targets, kind=kind, granularity="PT1H", period="PT1H")
    assert argument in str(e.value)
    assert sim.requests() == []


def test_database_growth_names_the_seeded_driver_of_every_growing_disk(sim, client, truth):
    disks = pl.DataFrame(sim.partition_truth())
    hosts = truth.select("group_id", "host_id").unique()
    disk_targets = [
        (r["group_id"], r["host_id"], r["partition_name"])
        for r in disks.join(hosts, on=["group_id", "host_id"]).iter_rows(named=True)
    ]
    db_targets = [
        (r["group_id"], r["host_id"], r["database_name"]) for r in truth.iter_rows(named=True)
    ]
    disk_frame = client.measurements.fleet(
        disk_targets, granularity="PT1H", period="P14D",
        metrics=["DISK_PARTITION_SPACE_USED", "DISK_PARTITION_SPACE_FREE"], progress=False,
    )  # fmt: skip
    db_frame = client.measurements.fleet(
        db_targets,
        kind="database",
        granularity="PT1H",
        period="P14D",
        metrics=SIZES,
        progress=False,
    )
    forecast = capacity.disk_forecast(disk_frame, window="14d")
    growth = capacity.database_growth(db_frame, window="14d", disks=forecast)

    assert growth.height == truth.height
    top = growth.group_by("host_id", maintain_order=True).first()
    drivers = truth.filter(pl.col("drives_growth"))
    assert drivers.height > 0
    checked = 0
    for d in drivers.iter_rows(named=True):
        row = top.filter(pl.col("host_id") == d["host_id"]).row(0, named=True)
        assert row["database_name"] == d["database_name"], d
        assert row["partition_name"] == d["partition_name"], d
        assert row["growth_bytes_per_day"] == pytest.approx(d["growth_bytes_per_day"], rel=0.02)
        assert row["share_of_disk_growth"] == pytest.approx(d["share_of_disk_growth"], abs=0.15)
        checked += 1
    # A disk forecast full gives its databases a size on that date.
    full = growth.filter(pl.col("date_full").is_not_null())
    assert full.height > 0
    assert (full["size_at_full_bytes"] >= full["size_bytes"] - 1).all()
    assert checked == drivers.height
