"""The clients of each flavour: ``Client.atlas`` (a service account or an API key), the
``flavour=`` argument, ``from_env`` and profiles learning the flavour and the service account;
no client secret or token in a repr, an error or a log line; one token for a thousand calls,
and one more when it expires in the middle of a fleet pull."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from typing import Any

import polars as pl
import pytest
from conftest import FIXED_NOW, api_requests, token_requests

import opsapi
from opsapi.testing import Simulator


def test_client_atlas_and_the_flavour_argument(sims):
    atlas = sims["atlas"]
    c = opsapi.Client.atlas(
        client_id=atlas.client_id, client_secret=atlas.client_secret, base_url=atlas.base_url
    )
    assert (c.flavour, c.base_url) == ("atlas", atlas.base_url + "/api/atlas/v2")
    assert repr(c) == f'Client(base_url="{c.base_url}", flavour="atlas")'
    default = opsapi.AsyncClient.atlas(client_id="mdb_sa_id_1", client_secret="mdb_sa_sk_2")
    assert default.base_url == "https://cloud.mongodb.com/api/atlas/v2"
    digest = opsapi.Client.atlas(
        public_key=atlas.public_key, private_key=atlas.private_key, base_url=atlas.base_url
    )
    atlas.clear_requests()
    assert len(digest.groups.list()) == len(atlas.world()["projects"])
    assert {r["auth"] for r in atlas.requests()} == {None, "Digest"}
    assert opsapi.Client("https://cloud.mongodb.com", "p", "k").flavour == "cloud-manager"
    assert opsapi.Client("https://om:8443", "p", "k").flavour == "ops-manager"
    cm = opsapi.Client("http://127.0.0.1:1", "p", "k", flavour="cloud-manager")
    assert cm.flavour == "cloud-manager"
    for kwargs, argument in [
        ({}, "client_id"),
        ({"client_id": "id"}, "client_secret"),
        ({"client_secret": "s"}, "client_id"),
        ({"public_key": "p"}, "private_key"),
        (
            {"public_key": "p", "private_key": "k", "client_id": "i", "client_secret": "s"},
            "client_id",
        ),
        ({"client_id": "i", "client_secret": "s", "rate_limit": {"logs": 1}}, "rate_limit"),
        ({"client_id": "i", "client_secret": "s", "rate_limit": {"alerts": "x"}}, "rate_limit"),
        (
            {"client_id": "i", "client_secret": "s", "base_url": "https://om/api/public/v1.0"},
            "base_url",
        ),
    ]:
        with pytest.raises(opsapi.InvalidArgumentError) as e:
            opsapi.Client.atlas(**kwargs)
        assert e.value.argument == argument, kwargs
    with pytest.raises(opsapi.InvalidArgumentError) as e:
        opsapi.Client("https://om:8443", "p", "k", flavour="mars")
    assert e.value.argument == "flavour"
    ok = opsapi.Client.atlas(
        client_id="i", client_secret="s", rate_limit={"monitoring": 1.5, "alerts": 8}
    )
    assert ok.flavour == "atlas"


def test_from_env_learns_the_flavour_and_the_service_account(sims, monkeypatch):
    atlas = sims["atlas"]
    for name in ("OPSAPI_PUBLIC_KEY", "OPSAPI_PRIVATE_KEY", "OPSAPI_FLAVOUR", "OPSAPI_CA_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPSAPI_BASE_URL", atlas.base_url)
    monkeypatch.setenv("OPSAPI_CLIENT_ID", atlas.client_id)
    monkeypatch.delenv("OPSAPI_CLIENT_SECRET", raising=False)
    with pytest.raises(opsapi.InvalidArgumentError) as e:
        opsapi.Client.from_env()
    assert e.value.argument == "OPSAPI_CLIENT_SECRET"
    monkeypatch.setenv("OPSAPI_CLIENT_SECRET", atlas.client_secret)
    c = opsapi.Client.from_env()
    assert c.flavour == "atlas"
    assert [g.id for g in c.groups.list()] == atlas.group_ids
    monkeypatch.delenv("OPSAPI_BASE_URL")
    assert opsapi.AsyncClient.from_env().base_url == "https://cloud.mongodb.com/api/atlas/v2"
    cm = sims["cloud-manager"]
    monkeypatch.delenv("OPSAPI_CLIENT_ID")
    monkeypatch.setenv("OPSAPI_BASE_URL", cm.base_url)
    monkeypatch.setenv("OPSAPI_PUBLIC_KEY", cm.public_key)
    monkeypatch.setenv("OPSAPI_PRIVATE_KEY", cm.private_key)
    monkeypatch.setenv("OPSAPI_FLAVOUR", "cloud-manager")
    c = opsapi.Client.from_env()
    assert c.flavour == "cloud-manager"
    with pytest.raises(opsapi.UnsupportedError):
        c.global_alerts.list()


def test_profiles_learn_the_flavour_and_the_service_account(sims, monkeypatch, capsys):
    from opsapi import cli, config

    atlas = sims["atlas"]
    monkeypatch.setenv("ATLAS_SECRET", atlas.client_secret)
    code = cli.main(
        ["config", "init", "--profile", "atlas", "--flavour", "atlas", "--base-url",
         atlas.base_url, "--client-id", atlas.client_id, "--client-secret-env", "ATLAS_SECRET",
         "--no-input"]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    text = config.config_path().read_text()
    assert atlas.client_secret not in text
    assert 'client_secret_env = "ATLAS_SECRET"' in text and 'flavour = "atlas"' in text
    c = opsapi.Client.from_profile("atlas")
    assert c.flavour == "atlas" and len(c.groups.list()) == len(atlas.world()["projects"])
    # A profile of Atlas without a base URL is Atlas's own.
    config.write_profile(
        config.Profile("cloud", None, client_id="mdb_sa_id_1", private_key_env="ATLAS_SECRET")
    )
    assert opsapi.AsyncClient.from_profile("cloud").base_url.startswith("https://cloud.mongodb.com")
    # The CLI reads measurements of an Atlas process with it.
    g = atlas.group_ids[0]
    process = next(p["process_id"] for p in atlas.partition_truth() if p["group_id"] == g)
    out = io.StringIO()
    code = cli.main(
        ["--profile", "atlas", "measurements", "host", g, process, "--granularity", "PT1H",
         "--period", "PT2H", "--metric", "CONNECTIONS", "-o", "json"],
        out=out,
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    assert '"host_id"' in out.getvalue() and process in out.getvalue()
    buf = io.StringIO()
    assert cli.main(["config", "list", "-o", "json"], out=buf) == 0
    rows = {r["name"]: r for r in json.loads(buf.getvalue())}
    assert (rows["atlas"]["flavour"], rows["atlas"]["client_id"]) == ("atlas", atlas.client_id)
    for bad, why in [
        (
            {"flavour": "atlas", "client_id": "x", "public_key": "p", "client_secret_env": "S"},
            "not both",
        ),
        (
            {
                "flavour": "mars",
                "base_url": "https://om",
                "public_key": "p",
                "private_key_env": "K",
            },
            "flavour",
        ),
        ({"client_id": "x", "private_key_env": "S"}, "does not go with"),
        ({"flavour": "ops-manager", "client_id": "x", "client_secret_env": "S"}, "Atlas's"),
        ({"client_id": "x", "client_secret": "leaked"}, "never reads a key"),
    ]:
        path = config.config_path().with_name("bad.toml")
        path.write_text(config.dumps({"bad": bad}))
        with pytest.raises(opsapi.ConfigError, match=why):
            config.load_profiles(path)


def test_no_client_secret_or_token_in_reprs_errors_or_logs(caplog):
    with (
        Simulator(now=FIXED_NOW, flavour="atlas") as sim,
        caplog.at_level(logging.DEBUG, logger="opsapi"),
    ):
        c = sim.client(max_retries=0)
        hosts = c.hosts.list(sim.group_ids[0])
        # Without the token cache, where the right secret's token waits (tests/python/
        # test_token_cache.py): this client must buy its own.
        wrong = opsapi.Client.atlas(
            client_id=sim.client_id,
            client_secret="mdb_sa_sk_wrong-but-long",
            base_url=sim.base_url,
            token_cache=False,
        )
        with pytest.raises(opsapi.AuthenticationError) as e:
            wrong.groups.list()
        assert e.value.error_code == "invalid_client"
        texts = [repr(c), repr(hosts), repr(wrong), str(e.value), repr(e.value), repr(sim)]
        secret = sim.client_secret
        texts += [r.getMessage() for r in caplog.records]
    secrets = (secret, "mdb_sa_sk_wrong-but-long", "Bearer ")
    assert not [t for t in texts if any(s in t for s in secrets)]


def _mixed_calls(client: opsapi.AsyncClient, group: str, n: int) -> Any:
    async def run() -> None:
        for _ in range(n):
            await client.groups.get(group)

    return run


async def test_one_token_serves_a_thousand_calls_over_eight_threads_and_eight_tasks():
    from concurrent.futures import ThreadPoolExecutor

    with Simulator(now=FIXED_NOW, flavour="atlas") as sim:
        # Each client's token its own: the token cache that processes share would hand the
        # second the first's (tests/python/test_token_cache.py).
        aclient = sim.async_client(token_cache=False)
        client = sim.client(token_cache=False)
        g = sim.group_ids[0]
        # One AsyncClient: 8 threads, each with an event loop of its own, and 8 tasks here.
        with ThreadPoolExecutor(8) as pool:
            threads = [pool.submit(asyncio.run, _mixed_calls(aclient, g, 63)()) for _ in range(8)]
            await asyncio.gather(*(_mixed_calls(aclient, g, 62)() for _ in range(8)))
            for t in threads:
                t.result()
        assert len(token_requests(sim)) == 1
        assert len(api_requests(sim)) == 1000
        # One Client: 8 threads.
        sim.clear_requests()
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda _: client.groups.get(g), range(1000)))
        assert len(token_requests(sim)) == 1
        assert {r["auth"] for r in api_requests(sim)} == {"Bearer"}


@pytest.mark.parametrize("use_async", [False, True])
async def test_a_token_expiring_in_the_middle_of_a_fleet_pull_costs_one_more(use_async):
    from concurrent.futures import ThreadPoolExecutor

    with Simulator(now=FIXED_NOW, flavour="atlas") as sim:
        client = sim.async_client() if use_async else sim.client()
        truth = sim.partition_truth()
        targets = [(t["group_id"], t["process_id"], t["partition_name"]) for t in truth]
        held_path = "/groups/{}/processes/{}/disks/{}/measurements".format(
            truth[5]["group_id"],
            truth[5]["process_id"].replace(":", "%3A"),
            truth[5]["partition_name"],
        )
        client.groups.list() if not use_async else await client.groups.list()
        with ThreadPoolExecutor(1) as pool, sim.hold(path=held_path) as held:

            def pull() -> pl.DataFrame:
                kw = dict(granularity="PT1H", period="P1D", metrics=["DISK_PARTITION_SPACE_USED"])
                if use_async:

                    async def fleet() -> pl.DataFrame:
                        return await client.measurements.fleet(targets, **kw)

                    return asyncio.run(fleet())
                return client.measurements.fleet(targets, **kw)

            frame = pool.submit(pull)
            assert held.wait_arrived(timeout=30)
            sim.advance(3600)
            held.release()
            frame = frame.result(timeout=60)
        assert frame.height == len(targets) * 25
        assert [r["status"] for r in token_requests(sim)] == [200, 200]
        measured = [r for r in sim.requests() if r["path"].endswith("/measurements")]
        refused = [r for r in measured if r["status"] == 401]
        assert refused and len(measured) == len(targets) + len(refused)
