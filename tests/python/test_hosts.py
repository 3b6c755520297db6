"""client.hosts: get, list, partitions, sync and async."""

from __future__ import annotations

import pytest

import opsapi

API = "/api/public/v1.0"


def test_hosts_get_sync(sim, client, ids, sent):
    h = ids["hosts"][0]
    got = client.hosts.get(ids["group"], h.id)
    r = sent(sim)[-1]
    assert (r["method"], r["path"], r["query"]) == (
        "GET",
        f"{API}/groups/{ids['group']}/hosts/{h.id}",
        None,
    )
    assert isinstance(got, opsapi.Host)
    assert got.id == h.id and got.hostname == h.hostname
    assert got.to_dict()["id"] == h.id and "hostname" in got.to_dict()
    assert got.created is None or got.created.tzinfo is not None
    assert client.server_version


async def test_hosts_get_async(sim, aclient, ids, sent):
    h = ids["hosts"][1]
    got = await aclient.hosts.get(ids["group"], h.id)
    assert sent(sim)[-1]["path"] == f"{API}/groups/{ids['group']}/hosts/{h.id}"
    assert got.id == h.id


def test_host_list_is_a_sequence(ids):
    hosts = ids["hosts"]
    assert len(hosts) == hosts.total_count == 5
    assert hosts[-1].id == hosts[len(hosts) - 1].id
    assert [h.id for h in hosts[1:3]] == [hosts[1].id, hosts[2].id]
    assert [h.id for h in hosts] == [hosts[i].id for i in range(5)]
    with pytest.raises(IndexError):
        hosts[5]
    df = hosts.to_polars()
    assert df.height == 5 and df["id"].to_list() == [h.id for h in hosts]


async def test_partitions_sync_and_async(sim, client, aclient, ids, sent):
    g, h = ids["group"], ids["hosts"][0].id
    parts = client.hosts.partitions(g, h)
    assert parts and all(isinstance(p, str) for p in parts)
    assert sent(sim)[-1]["path"] == f"{API}/groups/{g}/hosts/{h}/disks"
    assert await aclient.hosts.partitions(g, h) == parts
