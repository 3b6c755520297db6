"""The same world through each flavour: the same fleet frames and capacity findings, headroom
through Atlas; the simulator's flavour and its command line."""

from __future__ import annotations

import polars as pl
import polars.testing
import pytest
from conftest import FIXED_NOW

import opsapi
from opsapi import capacity
from opsapi.testing import Simulator


def _atlas_processes(sims: dict[str, Simulator]) -> list[str]:
    """The processes the Atlas simulator serves: the world's hosts but its standalones."""
    return sorted({t["process_id"] for t in sims["atlas"].partition_truth()})


def _fleet(sim: Simulator, client: opsapi.Client, kind: str) -> pl.DataFrame:
    truth = sim.partition_truth()
    host = "process_id" if sim.flavour == "atlas" else "host_id"
    if kind == "disk":
        targets = [(t["group_id"], t[host], t["partition_name"]) for t in truth]
        metrics = ["DISK_PARTITION_SPACE_USED", "DISK_PARTITION_SPACE_FREE"]
        return client.measurements.fleet(
            targets, granularity="PT1H", period="P14D", metrics=metrics
        )
    targets = list(dict.fromkeys((t["group_id"], t[host]) for t in truth))  # world order
    metrics = ["CONNECTIONS", "OPCOUNTER_CMD"]
    return client.measurements.fleet(targets, granularity="PT1H", period="P1D", metrics=metrics)


def test_the_same_world_gives_the_same_frames_and_capacity_findings_through_each_flavour(
    sims, clients
):
    process = {t["host_id"]: t["process_id"] for t in sims["ops-manager"].partition_truth()}

    def as_processes(frame: pl.DataFrame) -> pl.DataFrame:
        return frame.with_columns(
            pl.col("host_id").cast(pl.String).replace_strict(process).cast(pl.Categorical)
        )

    frames = {
        f: (_fleet(s, clients[f][0], "host"), _fleet(s, clients[f][0], "disk"))
        for f, s in sims.items()
    }
    om_hosts, om_disks = frames["ops-manager"]
    # Atlas serves the world without its standalones (ATLAS_LACKS): the same frames of the rest.
    served = pl.col("process_id").cast(pl.String).is_in(_atlas_processes(sims))
    for flavour, (hosts, disks) in frames.items():
        assert hosts.schema == om_hosts.schema and disks.schema == om_disks.schema
        want_hosts, want_disks = (
            (as_processes(om_hosts.filter(served)), as_processes(om_disks.filter(served)))
            if flavour == "atlas"
            else (om_hosts, om_disks)
        )
        pl.testing.assert_frame_equal(hosts, want_hosts, categorical_as_str=True)
        pl.testing.assert_frame_equal(disks, want_disks, categorical_as_str=True)
    # The capacity analysis finds the same: the same disks, the same dates.
    keys = ["group_id", "host_id", "partition_name"]
    om = as_processes(capacity.disk_forecast(om_disks.filter(served), window="14d")).sort(keys)
    atlas = capacity.disk_forecast(frames["atlas"][1], window="14d").sort(keys)
    pl.testing.assert_frame_equal(atlas, om, categorical_as_str=True)
    fast = om.filter(pl.col("days_to_full").is_not_null())
    assert fast.height > 0
    # One notebook, a mixed fleet: the frames of two flavours concatenate as they are.
    atlas_disks = frames["atlas"][1]
    assert pl.concat([om_disks, atlas_disks]).height == om_disks.height + atlas_disks.height


def test_headroom_finds_the_same_through_atlas(sims, clients):
    """The capacity notebook's analysis (``headroom_inputs`` then ``headroom``) against Atlas
    finds what it finds against Ops Manager: every resource of every host, replica set and
    shard, the seeded findings, and the shard growing faster than the others, with hosts named
    by their process ids. The frames carry the same names through both (the replication lag is
    asked of Atlas as OPLOG_REPLICATION_LAG). Atlas's processes do not name their cluster: a
    sharded cluster is its shards' common stem, without its mongos and config servers; its
    config servers are a scope of their own all the same (their replica set), its mongos hosts
    of their own."""
    process = {t["host_id"]: t["process_id"] for t in sims["ops-manager"].partition_truth()}
    found = {}
    for flavour in ("ops-manager", "atlas"):
        inputs = capacity.headroom_inputs(clients[flavour][0], window="14d")
        names = set(inputs.host_frame["measurement"].cast(pl.String).unique())
        assert names == set(capacity.HEADROOM_HOST_METRICS), flavour
        found[flavour] = capacity.headroom(*inputs, now=FIXED_NOW)

    def as_processes(frame: pl.DataFrame) -> pl.DataFrame:
        text = [c for c, t in frame.schema.items() if t in (pl.String, pl.Categorical)]
        return frame.with_columns(pl.col(c).cast(pl.String).replace(process) for c in text)

    om, atlas = as_processes(found["ops-manager"]), as_processes(found["atlas"])
    # Atlas serves the world without its standalones (ATLAS_LACKS): the same findings of the rest.
    standalones = set(process.values()) - set(_atlas_processes(sims))
    om = om.filter(~pl.col("scope").is_in(standalones) & ~pl.col("member").is_in(standalones))
    # The cluster's scopes (its own, its mongos') are keyed by the cluster, which Atlas's
    # processes do not name; Atlas's mongos are then hosts, said as mongos all the same.
    sets = ~pl.col("scope_kind").is_in(["cluster", "mongos"])
    mongos = atlas.filter(pl.col("role") == "mongos")
    assert set(mongos["scope_kind"]) == {"host"} and mongos["cluster_id"].null_count() > 0
    assert atlas.filter(sets).height == om.filter(sets).height > 0
    pl.testing.assert_frame_equal(
        atlas.filter(sets).drop("cluster_id"),
        om.filter(sets).drop("cluster_id"),
        check_row_order=False,
    )
    growth = pl.col("resource") == "shard_growth"
    keep = ["group_id", "member", "level", "status", "note"]
    pl.testing.assert_frame_equal(
        atlas.filter(growth).select(keep).sort("group_id"),
        om.filter(growth).select(keep).sort("group_id"),
    )
    # Every seeded finding, through each flavour: the world seeds them on replica sets'
    # members, never on a standalone (which Atlas does not have).
    truth = sims["ops-manager"].headroom_truth()
    assert not {m for t in truth for m in t["members"]} & standalones
    seeded = {t["resource"] for t in truth}
    assert seeded == {"shard_growth", "oplog_window", "cpu", "connections", "cache"}
    for frame in (om, atlas):
        flagged = frame.filter(pl.col("status").is_in(["critical", "warning", "watch"]))
        assert seeded <= set(flagged["resource"]), (seeded, flagged)


def test_the_simulators_flavour_and_its_command_line():
    import signal
    import subprocess
    import sys

    from _children import Lines, stop

    with pytest.raises(ValueError, match="flavour"):
        Simulator(flavour="mars")
    with Simulator(now=FIXED_NOW, flavour="atlas", token_buckets={"monitoring": (2, 60)}) as sim:
        c = sim.client(max_retries=0)
        g, h = sim.group_ids[0], sim.partition_truth()[0]["process_id"]
        c.hosts.list(g)
        c.hosts.get(g, h)
        with pytest.raises(opsapi.RateLimitError) as e:
            c.hosts.partitions(g, h)
        assert e.value.error_code == "RATE_LIMITED_TOKEN_BUCKET"
        assert e.value.parameters[2:] == [2, 60, 60]
    proc = subprocess.Popen(
        [sys.executable, "-m", "opsapi", "sim", "--port", "0", "--flavour", "atlas",
         "--projects", "1", "--hosts-per-project", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        env = Lines(proc).env_until("# Ctrl-C")
        assert env["OPSAPI_FLAVOUR"] == "atlas"
        assert "OPSAPI_PUBLIC_KEY" not in env
        client = opsapi.Client.atlas(
            client_id=env["OPSAPI_CLIENT_ID"],
            client_secret=env["OPSAPI_CLIENT_SECRET"],
            base_url=env["OPSAPI_BASE_URL"],
        )
        groups = client.groups.list()
        assert [len(client.hosts.list(g.id)) for g in groups] == [2]
        assert ":" in client.hosts.list(groups[0].id)[0].id
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
    finally:
        stop(proc)
