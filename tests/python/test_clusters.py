"""client.clusters: list, get and list_all, sync and async, on Ops Manager (a sharded cluster
and each replica set within it, named after it) and Atlas (its tier, disk, auto-scaling and
connection strings): the request sent, the clusters seeded (``sim.cluster_truth()``), the
JSON kept whole, the frame; the errors; and ``opsapi clusters``."""

from __future__ import annotations

import io
import json

import polars as pl
import pytest
from _truth import PAGE1, get, requests_of, served

import opsapi
from opsapi import cli


def _om_listing(truth: list[dict], g: str) -> list[tuple]:
    """What Ops Manager lists of the seeded clusters of ``g``: (id, type, name, replica set,
    shard), a sharded cluster followed by its shards' and config servers' replica sets."""
    out = []
    for c in (c for c in truth if c["group_id"] == g):
        if c["type"] == "replica_set":
            out.append((c["id"], "replica_set", c["name"], c["replica_set_name"], None))
            continue
        out.append((c["id"], "sharded", c["name"], None, None))
        for s in c["shards"]:
            rs = s["replica_set_name"]
            out.append((s["id"], "replica_set", c["name"], rs, rs))
        cfg = c["config_servers"]
        out.append((cfg["id"], "config_servers", c["name"], cfg["replica_set_name"], None))
    return out


def _rows(clusters) -> list[tuple]:
    return [(c.id, c.type, c.name, c.replica_set_name, c.shard_name) for c in clusters]


@pytest.mark.smoke
async def test_list_sends_one_page_request_and_gives_each_cluster_sync_and_async(
    sim, client, aclient
):
    truth = sim.cluster_truth()
    for g in sim.group_ids:
        for got in (client.clusters.list(g), await aclient.clusters.list(g)):
            assert _rows(got) == _om_listing(truth, g)
            assert got.total_count == len(got)
        assert requests_of(sim)[-2:] == [get(f"/groups/{g}/clusters", PAGE1)] * 2
    # Ops Manager sends no configuration.
    one = client.clusters.list(sim.group_ids[0])[0]
    assert (one.instance_size, one.auto_scaling, one.state) == (None, None, None)
    assert one.last_heartbeat is not None and one.last_heartbeat.tzinfo is not None


async def test_get_by_id_keeps_the_servers_json(sim, client, aclient):
    sharded = next(c for c in sim.cluster_truth() if len(c["shards"]) == 2)
    g, shard = sharded["group_id"], sharded["shards"][1]
    got = client.clusters.get(g, shard["id"])
    again = await aclient.clusters.get(g, shard["id"])
    assert requests_of(sim) == [get(f"/groups/{g}/clusters/{shard['id']}")] * 2
    assert (got.type, got.shard_name, got.name) == ("replica_set", shard["replica_set_name"],
                                                    sharded["name"])  # fmt: skip
    assert got.to_dict() == again.to_dict() == served(sim, f"/groups/{g}/clusters/{shard['id']}")
    assert got.to_dict()["clusterName"] == sharded["name"]
    assert repr(got).startswith(f"Cluster(id='{shard['id']}', name='{sharded['name']}', "
                                "type='replica_set'")  # fmt: skip


async def test_list_all_is_every_project_in_order(sim, client, aclient):
    truth = sim.cluster_truth()
    want = [row for g in sim.group_ids for row in _om_listing(truth, g)]
    for got in (client.clusters.list_all(), await aclient.clusters.list_all()):
        assert _rows(got) == want
    frame = client.clusters.list_all(groups=sim.group_ids[1:]).to_polars()
    assert (
        frame["group_id"].cast(pl.String).unique(maintain_order=True).to_list()
        == (sim.group_ids[1:])
    )
    assert frame.schema["id"] == pl.Categorical and frame.schema["type"] == pl.String
    assert {"auto_scaling_compute_max_instance_size", "disk_size_gb", "last_heartbeat"} <= set(
        frame.columns
    )


async def test_bad_arguments_are_refused_before_any_request(sim, client, aclient):
    for call in (
        lambda c: c.clusters.get("g", ""),
        lambda c: c.clusters.get("", "x"),
        lambda c: c.clusters.list(".."),
        lambda c: c.clusters.list_all(groups=[sim.group_ids[0], ""]),
    ):
        with pytest.raises(opsapi.InvalidArgumentError):
            call(client)
        with pytest.raises(opsapi.InvalidArgumentError):
            got = call(aclient)
            await got
    with pytest.raises(opsapi.InvalidArgumentError, match=r"groups\[1\]"):
        client.clusters.list_all(groups=[sim.group_ids[0], ""])
    with pytest.raises(opsapi.InvalidArgumentError, match="cluster"):
        client.clusters.get(sim.group_ids[0], 3)
    assert requests_of(sim) == []


async def test_an_unknown_cluster_is_not_found(sim, client, aclient):
    g = sim.group_ids[0]
    missing = "0" * 24
    for call in (lambda: client.clusters.get(g, missing), lambda: aclient.clusters.get(g, missing)):
        with pytest.raises(opsapi.NotFoundError) as e:
            got = call()
            if not isinstance(got, opsapi.Cluster):
                await got
        assert (e.value.status, e.value.error_code) == (404, "CLUSTER_NOT_FOUND")


async def test_atlas_gives_each_cluster_once_with_its_configuration(sims, clients):
    sim, (client, aclient) = sims["atlas"], clients["atlas"]
    truth = sim.cluster_truth()
    for g in sim.group_ids:
        got = client.clusters.list(g)
        want = [c for c in truth if c["group_id"] == g]
        assert [(c.id, c.name, c.type) for c in got] == [
            (c["id"], c["name"], c["type"]) for c in want
        ]
        for c, w in zip(got, want):
            assert (c.instance_size, c.disk_size_gb, c.state) == (
                w["instance_size"], w["disk_size_gb"], "IDLE")  # fmt: skip
            a = c.auto_scaling
            compute = (a.compute_min_instance_size, a.compute_max_instance_size)
            assert (compute if a.compute_enabled else None) == w["compute_auto_scaling"]
            assert a.disk_gb_enabled == w["disk_auto_scaling"]
            assert c.replica_set_name == w["replica_set_name"]
            srv = c.connection_strings["standardSrv"]
            assert srv == f"mongodb+srv://{w['srv_host']}"
    # One by name, sync and async, in the version the specification gives now.
    first = truth[0]
    sim.clear_requests()
    one = client.clusters.get(first["group_id"], first["name"])
    two = await aclient.clusters.get(first["group_id"], first["name"])
    assert one.to_dict() == two.to_dict() and one.id == first["id"]
    accepts = {r["accept"] for r in sim.requests() if "/clusters/" in r["path"]}
    assert accepts == {"application/vnd.atlas.2024-08-05+json"}
    # The truths: one cluster with compute auto-scaling, another with disk auto-scaling.
    compute = [c["name"] for c in truth if c["compute_auto_scaling"]]
    disk = [c["name"] for c in truth if c["disk_auto_scaling"]]
    assert len(compute) == len(disk) == 1 and compute != disk


def test_atlas_processes_carry_their_alias(sims, clients):
    sim, (client, _) = sims["atlas"], clients["atlas"]
    for c in sim.cluster_truth():
        for p in client.hosts.list(c["group_id"]):
            if p.id in c["aliases"]:
                assert p.user_alias == c["aliases"][p.id]
                label, domain = c["srv_host"].split(".", 1)
                assert p.user_alias.startswith(f"{label}-") and p.user_alias.endswith(domain)


def _cli(sim, argv: list[str], monkeypatch) -> tuple[int, str]:
    monkeypatch.setenv("OPSAPI_BASE_URL", sim.base_url)
    monkeypatch.setenv("OPSAPI_PUBLIC_KEY", sim.public_key)
    monkeypatch.setenv("OPSAPI_PRIVATE_KEY", sim.private_key)
    monkeypatch.delenv("OPSAPI_CA_FILE", raising=False)
    out = io.StringIO()
    return cli.main(argv, out=out), out.getvalue()


def test_the_command_line_lists_and_shows_clusters(sim, monkeypatch, capsys):
    truth = sim.cluster_truth()
    code, out = _cli(sim, ["clusters", "list", "-o", "json"], monkeypatch)
    assert code == 0
    assert [c["id"] for c in json.loads(out)] == [
        row[0] for g in sim.group_ids for row in _om_listing(truth, g)
    ]
    code, out = _cli(sim, ["clusters", "list", "--project", "Analytics"], monkeypatch)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:4] == ["Name", "Project", "Type", "Replica"]
    analytics = [c for c in truth if c["group_id"] == sim.group_ids[2]]
    assert all(f"{c['name']}  " in out for c in analytics) and "Analytics" in out
    assert capsys.readouterr().err.endswith(f"{len(lines) - 1} clusters\n")
    shard = analytics[0]["shards"][0]
    code, out = _cli(sim, ["clusters", "show", shard["id"], "--project", "Analytics", "-o",
                           "csv"], monkeypatch)  # fmt: skip
    assert code == 0
    assert out.splitlines()[1].startswith(f"{analytics[0]['name']},")
    code, _ = _cli(sim, ["clusters", "show", "0" * 24, "--project", "Analytics"], monkeypatch)
    assert code == cli.EXIT_NOT_FOUND
    code, _ = _cli(sim, ["clusters", "show", "x"], monkeypatch)
    assert code == cli.EXIT_USAGE
