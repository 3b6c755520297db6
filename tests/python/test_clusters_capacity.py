"""Capacity by cluster (issue 30 §4): with the clusters listing, headroom names deployments by
their cluster names and, on Atlas, rolls every process of a cluster up into it (mongos and
config servers included); each Atlas cluster's tier comes from the listing, so that the
oversized cluster seeded in the world is found and one tier down is checked; the tier table
is Rust's."""

from __future__ import annotations

import polars as pl
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


def test_the_tier_table_is_rusts() -> None:
    assert capacity.ATLAS_TIERS == dict(_native.ATLAS_TIERS)
    assert list(capacity.ATLAS_TIERS)[0] == "M10" and capacity.ATLAS_TIERS["M60"] == (16, 64.0)
