"""client.hosts: get, list, partitions, sync and async: the request sent and the result
against the seeded world."""

from __future__ import annotations

import pytest
from _truth import PAGE1, get, host_row, requests_of, served, view, views, world_rows

import opsapi


def test_hosts_get_sync(sim, client, ids):
    g, h = ids["group"], ids["hosts"][0].id
    got = client.hosts.get(g, h)
    assert requests_of(sim) == [get(f"/groups/{g}/hosts/{h}")]
    assert isinstance(got, opsapi.Host)
    truth = world_rows(sim, "hosts", id=h)
    assert [view(got, truth[0])] == truth
    # Every field as the server sent it, and typed where the model types it.
    sent = served(sim, f"/groups/{g}/hosts/{h}")
    assert got.to_dict() == sent
    assert (got.port, got.replica_state_name) == (sent["port"], sent["replicaStateName"])
    assert got.created.isoformat().replace("+00:00", "Z") == sent["created"]
    assert client.server_version == "opsapi-sim-1.0"  # versionString of the last answer


async def test_hosts_get_async(sim, aclient, ids):
    g, h = ids["group"], ids["hosts"][1].id
    got = await aclient.hosts.get(g, h)
    assert requests_of(sim) == [get(f"/groups/{g}/hosts/{h}")]
    truth = world_rows(sim, "hosts", id=h)
    assert [view(got, truth[0])] == truth
    assert got.to_dict() == served(sim, f"/groups/{g}/hosts/{h}")


@pytest.mark.smoke
def test_hosts_list_sync(sim, client):
    g = sim.group_ids[1]
    hosts = client.hosts.list(g)
    assert requests_of(sim) == [get(f"/groups/{g}/hosts", PAGE1)]
    truth = world_rows(sim, "hosts", group_id=g)
    assert views(hosts, truth) == truth
    assert hosts.total_count == len(truth)


async def test_hosts_list_async(sim, aclient):
    g = sim.group_ids[0]
    hosts = await aclient.hosts.list(g)
    assert requests_of(sim) == [get(f"/groups/{g}/hosts", PAGE1)]
    truth = world_rows(sim, "hosts", group_id=g)
    assert views(hosts, truth) == truth
    assert hosts.total_count == len(truth)


def test_host_list_is_a_sequence(sim, ids):
    hosts = ids["hosts"]
    truth = [h["id"] for h in world_rows(sim, "hosts", group_id=ids["group"])]
    assert len(hosts) == hosts.total_count == len(truth) == 5
    assert hosts[-1].id == hosts[len(hosts) - 1].id == truth[-1]
    assert [h.id for h in hosts[1:3]] == truth[1:3]
    assert [h.id for h in hosts] == [hosts[i].id for i in range(5)] == truth
    with pytest.raises(IndexError):
        hosts[5]
    df = hosts.to_polars()
    assert df.height == 5 and df["id"].to_list() == truth


def test_partitions_sync(sim, client):
    # Every host of both projects: each lists exactly its seeded partitions.
    for host in sim.world()["hosts"]:
        g, h = host["group_id"], host["id"]
        sim.clear_requests()
        assert client.hosts.partitions(g, h) == host["partitions"]
        assert requests_of(sim) == [get(f"/groups/{g}/hosts/{h}/disks", PAGE1)]
    truth = {(p["host_id"], p["partition_name"]) for p in sim.partition_truth()}
    assert truth == {(h["id"], p) for h in sim.world()["hosts"] for p in h["partitions"]}


async def test_partitions_async(sim, aclient, ids):
    g, h = ids["group"], ids["hosts"][2].id
    got = await aclient.hosts.partitions(g, h)
    assert requests_of(sim) == [get(f"/groups/{g}/hosts/{h}/disks", PAGE1)]
    assert got == host_row(sim, h)["partitions"]
    assert got == [p["partition_name"] for p in sim.partition_truth() if p["host_id"] == h]
