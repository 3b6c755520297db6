"""Capacity by cluster (issue 30 §4): with the clusters listing, headroom names deployments by
their cluster names and, on Atlas, rolls every process of a cluster up into it (mongos and
config servers included); each Atlas cluster's tier comes from the listing, so that the
oversized cluster seeded in the world is found and one tier down is checked; the tier table
is Rust's."""

from __future__ import annotations

import polars as pl
import polars.testing
import pytest
from conftest import FIXED_NOW

from opsapi import _native, capacity
from opsapi.testing import Simulator


@pytest.fixture(scope="module")
def atlas():
    """The default world through Atlas, its headroom inputs with the clusters listing."""
    with Simulator(now=FIXED_NOW, flavour="atlas") as sim:
        yield sim, capacity.headroom_inputs(sim.client(max_retries=0), window="14d")


def test_every_process_of_an_atlas_cluster_is_in_its_roll_up_by_name(atlas) -> None:
    sim, inputs = atlas
    truth = sim.cluster_truth()
    assert len(inputs.clusters) == len(truth) and {c.name for c in inputs.clusters} == {
        c["name"] for c in truth
    }
    topo = capacity.topology(inputs.hosts, inputs.clusters)
    # Atlas's processes do not name their cluster: the listing does, for every one of its
    # processes, by the names Atlas gives them (their aliases against its SRV host).
    for c in truth:
        mine = topo.filter(pl.col("member").is_in(c["members"]))
        assert mine.height == len(c["members"])
        assert set(mine["cluster_id"]) == {c["id"]} and set(mine["cluster_name"]) == {c["name"]}
    roles = set(topo.filter(pl.col("cluster_id").is_not_null())["role"])
    assert roles == {"data", "config", "mongos"}
    # Without the listing, a sharded cluster's mongos and config servers are in none.
    bare = capacity.topology(inputs.hosts)
    assert bare.filter(pl.col("role") != "data")["cluster_id"].null_count() > 0
    assert bare["cluster_name"].null_count() == bare.height

    h = capacity.headroom(*inputs, now=FIXED_NOW, clusters=inputs.clusters)
    sharded = [c for c in truth if c["type"] == "sharded"]
    assert sharded
    for c in sharded:
        # Its mongos are a scope of the cluster (keyed by its id), named by its name.
        mongos = h.filter(pl.col("scope_kind") == "mongos", pl.col("scope") == c["id"])
        assert mongos.height and set(mongos["cluster_name"]) == {c["name"]}
    summary = capacity.headroom_summary(h)
    said = {d.split(" · ")[1] for d in summary["deployment"]}
    assert {c["name"] for c in truth} == said
    # Its documented signature keeps working without the clusters: deployments as before.
    plain = capacity.headroom_summary(capacity.headroom(*inputs, now=FIXED_NOW))
    assert any("cluster of" in d for d in plain["deployment"])


def test_ops_manager_names_deployments_by_their_clusters(sims, clients) -> None:
    inputs = capacity.headroom_inputs(clients["ops-manager"][0], window="14d")
    h = capacity.headroom(*inputs, now=FIXED_NOW, clusters=inputs.clusters)
    truth = sims["ops-manager"].cluster_truth()
    names = {c["id"]: c["name"] for c in truth}
    top = h.filter(pl.col("scope_kind").is_in(["cluster", "replica_set"]))
    assert dict(top.select("cluster_id", "cluster_name").unique().iter_rows()) == names
    # An Ops Manager cluster has no tier: nothing to check one tier down.
    assert capacity.cluster_tiers(h, inputs.clusters) == {}


def test_with_the_clusters_atlas_finds_what_ops_manager_finds_in_every_scope(sims, clients):
    """Through Ops Manager, hosts name their cluster; through Atlas, the listing does: the
    same world gives the same rows in every scope, its sharded clusters' and their mongos'
    included (hosts by their process ids; Atlas has no standalones; the compute-auto-scaling
    cluster's CPU and cache are Atlas's against its maximum tier)."""
    process = {t["host_id"]: t["process_id"] for t in sims["ops-manager"].partition_truth()}
    found = {}
    for flavour in ("ops-manager", "atlas"):
        inputs = capacity.headroom_inputs(clients[flavour][0], window="14d")
        h = capacity.headroom(*inputs, now=FIXED_NOW, clusters=inputs.clusters)
        text = [c for c, t in h.schema.items() if t in (pl.String, pl.Categorical)]
        found[flavour] = h.with_columns(pl.col(c).cast(pl.String).replace(process) for c in text)
    om, atlas = found["ops-manager"], found["atlas"]
    served = {t["process_id"] for t in sims["atlas"].partition_truth()}
    # Ops Manager's rows but its standalones' (and the roll-ups they set, which have none).
    om = om.filter(
        pl.col("member").is_null() | pl.col("member").is_in(list(served)),
        (pl.col("scope_kind") != "host") | pl.col("scope").is_in(list(served)),
    )
    (up,) = [c["id"] for c in sims["atlas"].cluster_truth() if c["compute_auto_scaling"]]
    same = ~(
        pl.col("cluster_id").eq(up).fill_null(False) & pl.col("resource").is_in(["cpu", "cache"])
    )
    kinds = set(atlas["scope_kind"])
    assert {"cluster", "mongos", "config_servers", "replica_set", "shard"} <= kinds
    pl.testing.assert_frame_equal(
        atlas.filter(same).drop("auto_scaling"),
        om.filter(same).drop("auto_scaling"),
        check_row_order=False,
    )


def test_the_oversized_atlas_cluster_is_found_and_one_tier_down_fits() -> None:
    # The default world has no quiet replica set; a larger one seeds an oversized cluster.
    with Simulator(seed=0, projects=2, hosts_per_project=40, now=FIXED_NOW,
                   flavour="atlas") as sim:  # fmt: skip
        truth = sim.cluster_truth()
        (big,) = [c for c in truth if c["oversized"]]
        inputs = capacity.headroom_inputs(sim.client(max_retries=0), [big["group_id"]], window="5d")
    h = capacity.headroom(*inputs, window="5d", now=FIXED_NOW, clusters=inputs.clusters)
    found = capacity.oversized_deployments(h)
    assert found["scope"].to_list() == [big["replica_set_name"]]
    assert found["deployment"][0].endswith(f" · {big['name']}")
    tiers = capacity.cluster_tiers(h, inputs.clusters)
    assert tiers[big["replica_set_name"]] == big["instance_size"] == "M60"
    down = capacity.tier_down(h, tiers).filter(pl.col("scope") == big["replica_set_name"])
    assert down.select("tier", "tier_down", "fits").row(0) == ("M60", "M50", True)
    # Every other cluster of the project has its listed tier, and none is oversized.
    listed = {c["replica_set_name"] or c["id"]: c["instance_size"]
              for c in truth if c["group_id"] == big["group_id"]}  # fmt: skip
    assert tiers == listed


def test_auto_scaling_sets_each_clusters_limits_on_atlas(atlas) -> None:
    sim, inputs = atlas
    truth = sim.cluster_truth()
    (up,) = [c for c in truth if c["compute_auto_scaling"]]
    (grows,) = [c for c in truth if c["disk_auto_scaling"]]
    assert up["id"] != grows["id"]
    h = capacity.headroom(*inputs, now=FIXED_NOW, clusters=inputs.clusters)
    bare = capacity.headroom(*inputs, now=FIXED_NOW)
    topo = capacity.topology(inputs.hosts, inputs.clusters)

    def rows(frame: pl.DataFrame, c: dict, resource: str) -> pl.DataFrame:
        data = topo.filter(pl.col("cluster_id") == c["id"], pl.col("role") == "data")["member"]
        assert data.len() > 0
        return frame.filter(
            pl.col("scope_kind") == "host",
            pl.col("scope").is_in(data.to_list()),
            pl.col("resource") == resource,
        ).sort("scope")

    # Compute auto-scaling: CPU and cache against the largest tier it scales up to.
    tier, top = up["instance_size"], up["compute_auto_scaling"][1]
    (cores, memory), (top_cores, top_memory) = capacity.ATLAS_TIERS[tier], capacity.ATLAS_TIERS[top]
    for resource, ratio in (("cpu", cores / top_cores), ("cache", memory / top_memory)):
        at_top, as_is = rows(h, up, resource), rows(bare, up, resource)
        assert set(at_top["auto_scaling"]) == {f"up to {top}"}
        assert at_top["peak"].to_list() == pytest.approx((as_is["peak"] * ratio).to_list())
        assert at_top["limit"].to_list() == as_is["limit"].to_list()
    # Disk auto-scaling: the disk finding says when Atlas grows the disk, at 90 %.
    disk, as_is = rows(h, grows, "disk"), rows(bare, grows, "disk")
    assert set(disk["auto_scaling"]) == {"disk grows at 90 %"} and set(disk["limit"]) == {90.0}
    assert disk["days_left"].to_list() == as_is["days_left"].to_list()
    text = "\n".join(capacity.headroom_summary(h)["summary"])
    assert "disk grows (auto-scaling at 90 %) in ~" in text
    # Nothing else is said to auto-scale.
    others = {c["id"] for c in truth} - {up["id"], grows["id"]}
    assert h.filter(pl.col("cluster_id").is_in(list(others)))["auto_scaling"].null_count() == (
        h.filter(pl.col("cluster_id").is_in(list(others))).height
    )
    assert bare["auto_scaling"].null_count() == bare.height


def test_the_tier_table_is_rusts() -> None:
    assert capacity.ATLAS_TIERS == dict(_native.ATLAS_TIERS)
    assert list(capacity.ATLAS_TIERS)[0] == "M10" and capacity.ATLAS_TIERS["M60"] == (16, 64.0)
