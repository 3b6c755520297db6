"""capacity.headroom knows each host's role (issue 34): a sharded cluster's and a replica
set's disk are their data-bearing members'; a config server's and a mongos's are findings of
their own kind, said as such in the summary and given a column of their own in the table;
and every row says which way its resource is worse. On a small deployment made here: a
cluster whose mongos and config server fill faster than its shards, and a replica set whose
arbiter's disk fills."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import polars as pl
import pytest

from opsapi import capacity

GIB = 1024**3
T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)
NOW = T0 + timedelta(days=14)
SCHEMA = {
    "group_id": pl.String, "host_id": pl.String, "process_id": pl.String,
    "partition_name": pl.String, "database_name": pl.String, "measurement": pl.String,
    "units": pl.String, "timestamp": pl.Datetime("ms", "UTC"), "value": pl.Float64,
}  # fmt: skip
# id, type, replica set, shard, cluster, partition, used GiB now, GiB a day (of 100 GiB)
HOSTS = [
    ("m1", "SHARD_MONGOS", None, None, "c1", "root", 70.0, 4.0),  # 90 % in 5 days
    ("cfg1", "SHARD_CONFIG", "cfg", None, "c1", "data", 60.0, 3.0),  # in 10 days
    ("s0a", "SHARD_PRIMARY", "sh0", "sh0", "c1", "data", 40.0, 0.8),  # in 62.5 days
    ("s0b", "SHARD_SECONDARY", "sh0", "sh0", "c1", "data", 40.0, 0.8),
    ("r1", "REPLICA_PRIMARY", "rs9", None, "c2", "data", 30.0, 0.2),  # in 300 days
    ("r2", "REPLICA_ARBITER", "rs9", None, "c2", "root", 80.0, 2.0),  # in 5 days
    ("r3", "REPLICA_SECONDARY", "rs9", None, "c2", "data", 30.0, 0.2),
]


def _member(host: str) -> str:
    return f"{host}.example.net:27017"


@pytest.fixture(scope="module")
def h() -> pl.DataFrame:
    rows = []
    for host, _, _, _, _, part, now_gib, per_day in HOSTS:
        for i in range(14 * 24 + 1):
            used = (now_gib - per_day * (14 - i / 24)) * GIB
            ts = T0 + timedelta(hours=i)
            for name, v in (
                ("DISK_PARTITION_SPACE_USED", used),
                ("DISK_PARTITION_SPACE_FREE", 100 * GIB - used),
            ):
                rows.append(("g1", host, _member(host), part, None, name, "BYTES", ts, v))
    disks = pl.DataFrame(rows, schema=SCHEMA, orient="row")
    hosts = pl.DataFrame(
        [
            {"id": i, "group_id": "g1", "hostname": f"{i}.example.net", "port": 27017,
             "type_name": t, "replica_set_name": rs, "shard_name": sh, "cluster_id": c}
            for i, t, rs, sh, c, *_ in HOSTS
        ],
        schema_overrides={"replica_set_name": pl.String, "shard_name": pl.String},
    )  # fmt: skip
    return capacity.headroom(pl.DataFrame(schema=SCHEMA), disks, hosts, now=NOW)


def _row(h: pl.DataFrame, kind: str, scope: str, resource: str = "disk") -> dict:
    rows = h.filter(
        pl.col("scope_kind") == kind, pl.col("scope") == scope, pl.col("resource") == resource
    )
    assert rows.height == 1, (kind, scope, resource, rows)
    return rows.row(0, named=True)


def test_each_host_has_its_role() -> None:
    topo = capacity.topology(
        pl.DataFrame(
            {"id": [x[0] for x in HOSTS], "group_id": "g1", "hostname": [x[0] for x in HOSTS],
             "port": 27017, "type_name": [x[1] for x in HOSTS]}
        )
    )  # fmt: skip
    assert topo["role"].to_list() == [
        "mongos", "config", "data", "data", "data", "arbiter", "data"
    ]  # fmt: skip
    # Atlas names its config servers' processes by their replica set state.
    atlas = pl.DataFrame({"type_name": ["SHARD_CONFIG_PRIMARY", "SHARD_CONFIG_SECONDARY"]})
    assert atlas.select(capacity.role())["role"].to_list() == ["config", "config"]


def test_a_clusters_disk_is_its_shards_and_its_config_servers_and_mongos_are_their_own(h):
    cluster = _row(h, "cluster", "c1")
    assert cluster["member"] in (_member("s0a"), _member("s0b")) and cluster["role"] == "data"
    assert cluster["days_left"] == pytest.approx(62.5, abs=0.5)
    config = _row(h, "config_servers", "cfg")
    assert (config["member"], config["role"]) == (_member("cfg1"), "config")
    assert config["days_left"] == pytest.approx(10.0, abs=0.3) and config["cluster_id"] == "c1"
    mongos = _row(h, "mongos", "c1")
    assert (mongos["member"], mongos["role"], mongos["part"]) == (_member("m1"), "mongos", "root")
    assert mongos["days_left"] == pytest.approx(5.0, abs=0.3)
    # The config server's replica set is not a data-bearing replica set of its own.
    assert h.filter(pl.col("scope_kind") == "replica_set", pl.col("scope") == "cfg").is_empty()
    # Every data scope's row is a data-bearing member's.
    data = h.filter(pl.col("scope_kind").is_in(["replica_set", "shard", "cluster"]))
    assert set(data["role"].drop_nulls()) == {"data"}


def test_a_replica_sets_disk_is_its_data_bearing_members(h):
    rs = _row(h, "replica_set", "rs9")
    assert rs["member"] in (_member("r1"), _member("r3"))
    assert rs["days_left"] == pytest.approx(300.0, rel=0.05) and rs["status"] == "ok"
    arbiter = _row(h, "host", _member("r2"))
    assert (arbiter["role"], arbiter["status"]) == ("arbiter", "critical")


def test_the_summary_says_whose_disk_it_is(h):
    summary = capacity.headroom_summary(h)
    (text,) = summary.filter(pl.col("scope") == "c1")["summary"].to_list()
    said = text.split(": ", 1)[1].split("; ")
    assert said[0].startswith("mongos disk 90 % full in ~5 days") and "(m1, root)" in said[0]
    assert said[1].startswith("config server disk 90 % full in ~10 days") and "(cfg1" in said[1]
    # 50 GiB to go at 0.8 a day: 62.5 days, said rounded as the summary rounds it.
    shard = _row(h, "shard", "sh0")
    assert shard["days_left"] == pytest.approx(62.5, abs=0.1)
    days = f"{shard['days_left']:.0f}"
    assert said[2].startswith(f"disk 90 % full in ~{days} days") and "(s0" in said[2]
    # The cluster's own row: its status is its most urgent finding's, its scope the cluster's.
    row = summary.filter(pl.col("scope") == "c1").row(0, named=True)
    assert (row["scope_kind"], row["status"]) == ("cluster", "critical")
    # No sentence names a config server's or a mongos's disk without its role.
    for clause in [c for t in summary["summary"] for c in t.split(": ", 1)[1].split("; ")]:
        if "(m1" in clause:
            assert clause.startswith("mongos "), clause
        if "(cfg1" in clause:
            assert clause.startswith("config server "), clause


def test_the_table_gives_config_servers_and_mongos_a_column_each(h):
    table = capacity.headroom_table(h)
    row = table.filter(pl.col("deployment").str.ends_with("cluster of sh0")).row(0, named=True)
    assert row["disk"] == pytest.approx(62.5, abs=0.5) and row["disk_status"] == "watch"
    assert row["config_servers"] == pytest.approx(10.0, abs=0.3)
    assert row["config_servers_status"] == "warning"
    assert row["mongos"] == pytest.approx(5.0, abs=0.3) and row["mongos_status"] == "critical"
    rs = table.filter(pl.col("deployment").str.ends_with("rs9")).row(0, named=True)
    assert rs["config_servers_status"] is None and rs["mongos_status"] is None


def test_every_row_says_which_way_is_worse(h):
    worse = dict(zip(h["resource"], h["worse"]))
    assert worse["disk"] == "higher" and worse["oplog_window"] == "lower"
    assert worse["tickets"] == "lower" and worse["connections"] == "higher"


def test_a_mongos_in_no_cluster_is_still_said_to_be_one(h):
    # As Atlas lists them: its processes name no cluster, so its mongos are hosts of their
    # own (a deployment each), whose findings still say what they are.
    loose = h.filter(pl.col("member") == _member("m1"), pl.col("scope_kind") == "host")
    loose = loose.with_columns(cluster_id=pl.lit(None, pl.String))
    summary = capacity.headroom_summary(loose)
    (text,) = summary["summary"].to_list()
    assert text.split(": ", 1)[1].startswith("mongos disk 90 % full in ~5 days"), text
