"""capacity.headroom against the simulator's seeded findings (``sim.headroom_truth()``) and
partitions (``sim.partition_truth()``), and on small frames made here: every finding named
with its resource, scope and member; the healthy not flagged; missing data said."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from opsapi import capacity

FLAGGED = ("critical", "warning", "watch")
T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def pulled(sim):
    return capacity.headroom_inputs(sim.client())


@pytest.fixture(scope="module")
def h(pulled, fixed_now) -> pl.DataFrame:
    return capacity.headroom(*pulled, now=fixed_now)


def _row(h: pl.DataFrame, scope_kind: str, scope: str, resource: str) -> dict:
    rows = h.filter(
        pl.col("scope_kind") == scope_kind, pl.col("scope") == scope, pl.col("resource") == resource
    )
    assert rows.height == 1, (scope_kind, scope, resource, rows)
    return rows.row(0, named=True)


def _truth(sim, resource: str) -> dict:
    (t,) = [t for t in sim.headroom_truth() if t["resource"] == resource]
    return t


def test_the_default_world_holds_every_finding(sim) -> None:
    assert [t["resource"] for t in sim.headroom_truth()] == [
        "shard_growth", "oplog_window", "cpu", "connections", "cache",
    ]  # fmt: skip


def test_oplog_window_named_for_its_replica_set_and_member(sim, h, fixed_now) -> None:
    t = _truth(sim, "oplog_window")
    row = _row(h, "replica_set", t["scope"], "oplog_window")
    assert row["member"] == t["members"][0]
    assert row["status"] in FLAGGED and row["unit"] == "h" and row["limit"] == 24.0
    assert row["trend"] == pytest.approx(t["per_day"], rel=0.1)
    # The day the window falls below 24 h, within a day of the seeded crossing.
    expected = (t["crosses_at"] - fixed_now) / timedelta(days=1)
    assert row["days_left"] == pytest.approx(expected, abs=1.0)
    assert abs(row["date"] - t["crosses_at"]) < timedelta(days=1)
    # What binds the set is its oplog, unless one of its members lags past its alert's 60 s
    # now (an open replication-lag alert): that is past the limit already.
    members = {
        f"{x.hostname}:{x.port}"
        for x in sim.client().hosts.list(t["group_id"])
        if x.replica_set_name == t["scope"]
    }
    lagging = [
        a for a in sim.alert_truth()["metric_alerts"]
        if a["metric_name"] == "OPLOG_REPLICATION_LAG_TIME" and a["end"] is None
        and a["process_id"] in members
    ]  # fmt: skip
    assert row["binding"] == ("replication_lag" if lagging else "oplog_window")
    # The other members' windows are healthy.
    members = h.filter(
        pl.col("scope_kind") == "host",
        pl.col("resource") == "oplog_window",
        pl.col("status").is_in(FLAGGED),
    )
    assert members["member"].to_list() == t["members"]


def test_cpu_above_90_percent_named_with_its_host_and_roll_ups(sim, h) -> None:
    t = _truth(sim, "cpu")
    member = t["members"][0]
    row = _row(h, "host", member, "cpu")
    assert row["p95"] > 90.0 and row["status"] == "warning" and row["limit"] == 100.0
    assert row["days_left"] is None and row["note"] == "p95 above 90 %"
    # Its replica set (a shard) and its cluster take their worst member's CPU: this one.
    assert t["replica_set_name"] is not None and t["cluster_id"] is not None
    for kind, scope in (("shard", t["replica_set_name"]), ("cluster", t["cluster_id"])):
        rolled = h.filter(
            pl.col("scope_kind") == kind,
            pl.col("scope") == scope,
            pl.col("resource") == "cpu",
            pl.col("group_id") == t["group_id"],
        ).row(0, named=True)
        assert rolled["member"] == member and rolled["p95"] == row["p95"]


def test_climbing_connections_named_with_a_date(sim, h) -> None:
    t = _truth(sim, "connections")
    row = _row(h, "host", t["members"][0], "connections")
    assert row["status"] in FLAGGED
    # The daily p99 climbs as the seeded level does, times its busy-hour peak.
    assert row["trend"] == pytest.approx(t["per_day"] * 1.21, rel=0.15)
    assert 0 < row["days_left"] < 90
    assert row["p95"] > row["level"] * 0.8  # p99 of the window, near the newest values


def test_cache_under_pressure_is_past_its_limit(sim, h) -> None:
    t = _truth(sim, "cache")
    row = _row(h, "host", t["members"][0], "cache")
    assert row["status"] == "critical" and row["days_left"] == 0.0
    assert row["p95"] > t["threshold"] == row["limit"] == 20.0
    assert row["note"] == "past the limit" and row["binding"] == "cache"


def test_shard_growing_faster_named_in_its_cluster(sim, h) -> None:
    t = _truth(sim, "shard_growth")
    row = _row(h, "cluster", t["scope"], "shard_growth")
    assert row["level"] == pytest.approx(4.0, rel=0.1)
    assert row["member"] in t["members"] and row["status"] in FLAGGED
    assert row["note"].startswith(f"{t['shard_name']} grows 4.0× as fast")
    # Its days left are the fast shard's disk's, which the disk truth gives.
    part = next(
        p for p in sim.partition_truth()
        if p["host_id"] in t["host_ids"] and p["partition_name"] == "data"
    )  # fmt: skip
    days = (0.9 * p_cap(part) - part["used_bytes_at_anchor"]) / part["growth_bytes_per_day"]
    assert row["days_left"] == pytest.approx(days, abs=1.5)


def p_cap(part: dict) -> float:
    return float(part["capacity_bytes"])


def test_healthy_hosts_are_not_flagged(sim, h, fixed_now) -> None:
    """A flagged host row is a seeded finding, a disk the partition truth fills within the
    watch horizon (90 days to 90 %), or a secondary whose replication lag an alert says is
    past 60 s (its breach still open, or within the last day); nothing else."""
    findings = {(m, t["resource"]) for t in sim.headroom_truth() for m in t["members"]}
    day = fixed_now - timedelta(days=1)
    lagging = {
        (a["process_id"], "replication_lag")
        for a in sim.alert_truth()["metric_alerts"]
        if a["metric_name"] == "OPLOG_REPLICATION_LAG_TIME"
        and a["threshold"] >= 60
        and (a["end"] is None or a["end"] > day)
    }
    still = {
        (a["process_id"], "replication_lag")
        for a in sim.alert_truth()["metric_alerts"]
        if a["metric_name"] == "OPLOG_REPLICATION_LAG_TIME" and a["end"] is None
    }
    processes = {p["host_id"]: p["process_id"] for p in sim.partition_truth()}
    filling = set()
    for p in sim.partition_truth():
        if p["growth_bytes_per_day"] > 0:
            days = (0.9 * p_cap(p) - p["used_bytes_at_anchor"]) / p["growth_bytes_per_day"]
            if days <= 92:
                filling.add((processes[p["host_id"]], p["partition_name"]))
    flagged = h.filter(pl.col("scope_kind") == "host", pl.col("status").is_in(FLAGGED))
    assert flagged.height
    for row in flagged.iter_rows(named=True):
        if row["resource"] == "disk":
            assert (row["member"], row["part"]) in filling, row
        else:
            assert (row["member"], row["resource"]) in findings | lagging, row
    # ... and every seeded host finding is among them, and every lag still past its alert's.
    named = {(r["member"], r["resource"]) for r in flagged.iter_rows(named=True)}
    assert {f for f in findings if f[1] != "shard_growth"} <= named
    assert still and still <= named
    assert not h.filter(pl.col("status") == "missing").height


def test_every_resource_of_every_host(sim, h) -> None:
    hosts = {x["id"]: x for x in sim.world()["hosts"]}
    per_host = h.filter(pl.col("scope_kind") == "host")
    assert per_host["member"].n_unique() == len(hosts)
    for member, rows in per_host.group_by("member"):
        got = set(rows["resource"])
        assert {"disk", "cpu", "connections", "iops", "disk_latency"} <= got, member
    mongos = per_host.filter(pl.col("member").str.starts_with("mongos"))
    assert not set(mongos["resource"]) & {"cache", "tickets", "oplog_window"}
    standalone = per_host.filter(pl.col("member").str.starts_with("standalone"))
    assert not set(standalone["resource"]) & {"oplog_window", "replication_lag"}
    # Every row has a binding where something runs out, and a scope's binding is one of its
    # own resources.
    for _, rows in h.group_by("group_id", "scope_kind", "scope"):
        binding = rows["binding"].unique().to_list()
        assert len(binding) == 1
        assert binding[0] is None or binding[0] in rows["resource"].to_list()


def test_missing_data_is_said_never_zero(pulled, sim, fixed_now) -> None:
    t = _truth(sim, "oplog_window")
    gone = t["host_ids"][0]
    host_frame = pulled.host_frame.filter(
        ~((pl.col("host_id") == gone) & (pl.col("measurement") == "OPLOG_MASTER_TIME"))
        & (pl.col("measurement") != "CONNECTIONS")
    )
    h = capacity.headroom(host_frame, pulled.disk_frame, pulled.hosts, now=fixed_now)
    conns = h.filter(pl.col("resource") == "connections")
    assert set(conns["status"]) == {"missing"}
    assert conns["level"].null_count() == conns.height and conns["days_left"].null_count()
    host = _row(h, "host", t["members"][0], "oplog_window")
    assert host["status"] == "missing" and host["level"] is None
    assert host["note"] == "missing: no OPLOG_MASTER_TIME data for this host"
    # The replica set takes its other members' worst, and says whose data is missing.
    rs = _row(h, "replica_set", t["scope"], "oplog_window")
    assert rs["status"] == "ok" and rs["member"] != t["members"][0]
    assert rs["note"].endswith(f"no data from {t['members'][0].split('.')[0]}")
    summary = capacity.headroom_summary(h)
    assert summary["summary"].str.contains("missing: connections").all()


def test_hosts_as_a_host_list_a_list_of_hosts_or_a_frame(pulled, sim, fixed_now) -> None:
    client = sim.client()
    lists = [client.hosts.list(g) for g in sim.group_ids]
    frame = pl.concat([x.to_polars() for x in lists], how="diagonal_relaxed")
    results = [
        capacity.headroom(pulled.host_frame, pulled.disk_frame, hosts, now=fixed_now)
        for hosts in (pulled.hosts, lists, frame)
    ]
    # The same rows (float sums may differ in their last bits: polars adds in parallel).
    keys = ["group_id", "scope_kind", "scope", "resource"]
    first, *others = [r.sort(keys) for r in results]
    for other in others:
        assert_frame_equal(first, other, check_exact=False, rel_tol=1e-9)
    one = capacity.headroom(pulled.host_frame, pulled.disk_frame, lists[0], now=fixed_now)
    assert set(one["group_id"].cast(pl.String)) == {sim.group_ids[0]}


def _series(measurement: str, units: str, values: list[float], host: str = "h1") -> list[tuple]:
    return [
        ("g1", host, f"{host}.example.net:27017", None, None, measurement, units,
         T0 + timedelta(hours=i), v)
        for i, v in enumerate(values)
    ]  # fmt: skip


SCHEMA = {
    "group_id": pl.String, "host_id": pl.String, "process_id": pl.String,
    "partition_name": pl.String, "database_name": pl.String, "measurement": pl.String,
    "units": pl.String, "timestamp": pl.Datetime("ms", "UTC"), "value": pl.Float64,
}  # fmt: skip
HOSTS = pl.DataFrame(
    {"id": ["h1"], "group_id": ["g1"], "hostname": ["h1.example.net"], "port": [27017],
     "type_name": ["REPLICA_PRIMARY"], "replica_set_name": ["rs9"], "shard_name": [None],
     "cluster_id": ["c1"]},
    schema_overrides={"shard_name": pl.String},
)  # fmt: skip


def _frame(rows: list[tuple]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")


def test_a_steady_climb_is_dated_and_units_are_converted() -> None:
    n = 14 * 24 + 1
    hours = [72.0 - 2.0 * i / 24 for i in range(n)]  # 72 h falling 2 h a day
    conns = [1000.0 + 100.0 * i / 24 for i in range(n)]  # 100 more a day
    for units, scale in (("HOURS", 1.0), ("SECONDS", 3600.0), ("MINUTES", 60.0)):
        frame = _frame(
            _series("OPLOG_MASTER_TIME", units, [x * scale for x in hours])
            + _series("CONNECTIONS", "SCALAR", conns)
        )
        empty = _frame([])
        h = capacity.headroom(frame, empty, HOSTS, now=T0 + timedelta(days=14))
        oplog = _row(h, "replica_set", "rs9", "oplog_window")
        assert oplog["level"] == pytest.approx(44.0) and oplog["peak"] == pytest.approx(44.0)
        assert oplog["trend"] == pytest.approx(-2.0, rel=0.01)
        # The daily 5th percentile sits near each day's end: 44 h now, 24 h in about 10 days.
        assert oplog["days_left"] == pytest.approx(10.0, abs=0.6)
        c = _row(h, "host", "h1.example.net:27017", "connections")
        assert c["trend"] == pytest.approx(100.0, rel=0.01)
        assert c["days_left"] == pytest.approx((5000 - 2400) / 100, abs=0.6)
        # No disk data: said, never zero.
        disk = _row(h, "host", "h1.example.net:27017", "disk")
        assert disk["status"] == "missing" and disk["level"] is None
        # A threshold of one's own moves the date.
        h2 = capacity.headroom(frame, empty, HOSTS, now=T0 + timedelta(days=14), connections=3400.0)
        c2 = _row(h2, "host", "h1.example.net:27017", "connections")
        assert c2["days_left"] == pytest.approx(10.0, abs=0.6) and c2["limit"] == 3400.0


def test_a_flat_series_has_no_date_and_a_short_one_no_trend() -> None:
    flat = [500.0 + (5.0 if i % 2 else -5.0) for i in range(14 * 24 + 1)]
    frame = _frame(_series("CONNECTIONS", "SCALAR", flat))
    h = capacity.headroom(frame, _frame([]), HOSTS, now=T0 + timedelta(days=14))
    c = _row(h, "host", "h1.example.net:27017", "connections")
    assert c["days_left"] is None and c["status"] == "ok"
    assert c["note"] == "not trending toward the limit"
    short = _frame(_series("CONNECTIONS", "SCALAR", [500.0 + i for i in range(48)]))
    h = capacity.headroom(short, _frame([]), HOSTS, now=T0 + timedelta(days=2))
    c = _row(h, "host", "h1.example.net:27017", "connections")
    assert c["days_left"] is None and c["note"] == "too few days for a trend (2)"


def test_summary_and_table_name_every_finding(sim, h) -> None:
    summary = capacity.headroom_summary(h)
    text = "\n".join(summary["summary"])
    t = {x["resource"]: x for x in sim.headroom_truth()}
    short = {r: x["members"][0].split(".")[0] for r, x in t.items()}
    assert "oplog window below 24 h in ~" in text and f"({short['oplog_window']})" in text
    assert "CPU p95 9" in text and f"%, above 90 % ({short['cpu']})" in text
    assert "connections at 5,000 in ~" in text and f"({short['connections']})" in text
    assert f"dirty cache above 20 % now ({short['cache']})" in text
    assert f"{t['shard_growth']['shard_name']} grows 4.0× as fast" in text
    assert not any(c in text for c in ("0x", "None", "null"))
    table = capacity.headroom_table(h)
    assert table["deployment"].to_list() == summary["deployment"].to_list()
    rs = table.filter(pl.col("deployment").str.ends_with(f"· {t['oplog_window']['scope']}"))
    assert rs["oplog_window_status"].to_list() == ["warning"]
    assert capacity.cell_text(rs["oplog_window"][0], "warning").endswith(" d")
