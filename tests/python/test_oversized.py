"""What is oversized (issue 33 §4): a deployment whose CPU, cache, disk space and IOPS each
peaked at most half their limit, with nothing flagged, is named; a busy or a flagged one is
not; and one Atlas tier down is checked against the tier table."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import polars as pl
import pytest

from opsapi import capacity

T0 = datetime(2026, 2, 15, tzinfo=timezone.utc)
NOW = T0 + timedelta(days=14)
SCHEMA = {
    "group_id": pl.String, "host_id": pl.String, "process_id": pl.String,
    "partition_name": pl.String, "database_name": pl.String, "measurement": pl.String,
    "units": pl.String, "timestamp": pl.Datetime("ms", "UTC"), "value": pl.Float64,
}  # fmt: skip
GIB = 1024**3


def _host(host: str, *, cpu: float, disk: float, dirty: float, iops: float) -> tuple[list, list]:
    """14 days of hourly points of one standalone host: normalized CPU peaking at ``cpu`` %
    in the afternoons, ``disk`` % of a 100 GiB disk used, dirty cache at ``dirty`` % and
    ``iops`` a second, flat."""
    hosts, disks = [], []
    for i in range(14 * 24 + 1):
        t = T0 + timedelta(hours=i)
        busy = cpu if 12 <= t.hour < 18 else cpu / 4
        for m, units, v in (
            ("SYSTEM_NORMALIZED_CPU_USER", "PERCENT", busy),
            ("DIRTY_FILL_RATIO", "PERCENT", dirty),
            ("CONNECTIONS", "SCALAR", 200.0),
        ):
            hosts.append(("g1", host, f"{host}.example.net:27017", None, None, m, units, t, v))
        used = disk / 100 * 100 * GIB
        for m, units, v in (
            ("DISK_PARTITION_SPACE_USED", "BYTES", used),
            ("DISK_PARTITION_SPACE_FREE", "BYTES", 100 * GIB - used),
            ("DISK_PARTITION_IOPS_TOTAL", "SCALAR_PER_SECOND", iops),
        ):
            disks.append(("g1", host, f"{host}.example.net:27017", "data", None, m, units, t, v))
    return hosts, disks


def _fleet(**hosts: dict) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    host_rows, disk_rows = [], []
    for name, usage in hosts.items():
        h, d = _host(name, **usage)
        host_rows += h
        disk_rows += d
    topo = pl.DataFrame(
        [{"id": n, "group_id": "g1", "hostname": f"{n}.example.net", "port": 27017,
          "type_name": "STANDALONE", "replica_set_name": None, "shard_name": None,
          "cluster_id": None} for n in hosts],
        schema_overrides={"replica_set_name": pl.String, "shard_name": pl.String,
                          "cluster_id": pl.String},
    )  # fmt: skip
    frame = lambda rows: pl.DataFrame(rows, schema=SCHEMA, orient="row")  # noqa: E731
    return frame(host_rows), frame(disk_rows), topo


def test_an_idle_deployment_is_oversized_and_a_busy_one_is_not() -> None:
    host_frame, disk_frame, hosts = _fleet(
        idle={"cpu": 30.0, "disk": 30.0, "dirty": 3.0, "iops": 400.0},
        busy={"cpu": 70.0, "disk": 30.0, "dirty": 3.0, "iops": 400.0},
        full={"cpu": 30.0, "disk": 60.0, "dirty": 3.0, "iops": 400.0},
        hot={"cpu": 30.0, "disk": 30.0, "dirty": 25.0, "iops": 400.0},  # dirty past 20 %: now
    )
    h = capacity.headroom(host_frame, disk_frame, hosts, now=NOW)
    big = capacity.oversized_deployments(h)
    assert big["scope"].to_list() == ["idle.example.net:27017"]
    row = big.row(0, named=True)
    assert row["cpu"] == pytest.approx(0.30) and row["disk"] == pytest.approx(0.30 / 0.9)
    assert row["cache"] == pytest.approx(0.15) and row["iops"] == pytest.approx(400 / 3000)
    assert row["nearest"] == "disk"
    # The idle host's sizing rows say it; its other rows stay ok; the others are not touched.
    idle = h.filter(pl.col("scope") == "idle.example.net:27017")
    assert set(
        idle.filter(pl.col("resource").is_in(["cpu", "cache", "disk", "iops"]))["status"]
    ) == {"oversized"}
    assert (h.filter(pl.col("scope") != "idle.example.net:27017")["status"] != "oversized").all()
    # Said in a sentence, and in the table as "low".
    summary = capacity.headroom_summary(h)
    (said,) = summary.filter(pl.col("scope") == "idle.example.net:27017")["summary"]
    assert said == (
        "example · idle: oversized: CPU, cache, disk space and IOPS each peaked at most half "
        "their limit (disk space 33 %, CPU 30 %, cache 15 %, IOPS 13 %); missing: disk_latency, "
        "tickets"
    )
    assert capacity.cell_text(None, "oversized") == "low"
    # A stricter share names none.
    strict = capacity.headroom(host_frame, disk_frame, hosts, now=NOW, oversized_share=0.3)
    assert capacity.oversized_deployments(strict).is_empty()


def test_in_the_simulated_world_no_deployment_with_a_finding_is_oversized(sim, fixed_now) -> None:
    h = capacity.headroom(*capacity.headroom_inputs(sim.client()), now=fixed_now)
    big = capacity.oversized_deployments(h)
    summary = capacity.headroom_summary(h)
    flagged = summary.filter(pl.col("status").is_in(["critical", "warning", "watch"]))
    assert flagged.height >= 5
    assert not set(big["deployment"]) & set(flagged["deployment"])
    # Every seeded finding's deployment is among the flagged ones.
    for t in sim.headroom_truth():
        hit = h.filter(pl.col("scope") == t["scope"], pl.col("resource") == t["resource"])
        assert hit.height and (hit["status"] != "oversized").all(), t["resource"]
    # What is named oversized peaked at most half of every sizing limit.
    assert (big.select(pl.max_horizontal("cpu", "cache", "disk", "iops")).to_series() <= 0.5).all()


def test_one_atlas_tier_down_is_checked_against_the_tier_table() -> None:
    assert list(capacity.ATLAS_TIERS)[:3] == ["M10", "M20", "M30"]
    assert capacity.ATLAS_TIERS["M50"] == (8, 32.0)
    h = pl.DataFrame(
        {
            "scope_kind": ["replica_set"] * 8,
            "scope": ["small"] * 4 + ["busy"] * 4,
            "resource": ["cpu", "cache", "disk", "iops"] * 2,
            "peak": [20.0, 4.0, 40.0, 500.0, 40.0, 4.0, 40.0, 500.0],
            "trend": [0.0, 0.0, 0.0, 0.0, 0.2, 0.0, 0.0, 0.0],
            "limit": [100.0, 20.0, 90.0, 3000.0] * 2,
        }
    )
    out = capacity.tier_down(h, {"small": "M50", "busy": "M50"}).sort("scope")
    busy, small = out.rows(named=True)
    # M50 -> M40: half the vCPUs and memory. small: CPU 20 % -> 40 %, cache 4 -> 8 of 20 %
    # (40 %), disk 40/90 (44 %): fits under 70 %.
    assert small["tier_down"] == "M40" and small["fits"] is True
    assert small["binding"] == "disk" and small["share_of_limit"] == pytest.approx(40 / 90)
    # busy: CPU 40 % now, +0.2 a day for 30 days = 46 %, doubled: 92 % > 70 %.
    assert busy["fits"] is False and busy["binding"] == "cpu"
    assert busy["share_of_limit"] == pytest.approx(0.92)
    smallest = capacity.tier_down(h.filter(pl.col("scope") == "small"), {"small": "M10"})
    assert smallest["tier_down"][0] is None and smallest["fits"][0] is None


def test_the_report_has_a_short_section_for_it(sim, fixed_now) -> None:
    pytest.importorskip("altair", reason="the report needs Altair")
    from opsapi.report import sections

    inputs = capacity.headroom_inputs(sim.client())
    h = capacity.headroom(*inputs, now=fixed_now)
    names = {g.id: g.name for g in sim.client().groups.list()}
    data = sections.ReportData(*inputs, names, now=fixed_now)
    html, _ = sections._oversized_section(h, data)
    big = data.frames["oversized"]
    assert big.height >= 1 and all(d in html for d in big["deployment"])
    assert "<h2>What is oversized</h2>" in html and "One tier down" not in html
    # With the deployments' Atlas tiers (the clusters listing's), one tier down is said.
    data.tiers = {big["scope"][0]: "M30"}
    html, _ = sections._oversized_section(h, data)
    assert "<th>Tier</th>" in html and ">M30<" in html and ": M20, " in html
