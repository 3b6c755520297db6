"""One Atlas service-account token across processes: the token cache that the processes of
one machine share (``token_cache=`` of ``Client.atlas``), as a user of Python sees it: one
purchase for many clients, the cache file's mode and contents, the option's arguments,
sixteen Dask workers pulling a fleet from a simulator whose token endpoint allows ten a
minute, and a token bought again by the server's clock, cache or not. (The cache's rules,
clock skew and refused tokens included, are tested in Rust: src/client/token_file.rs and
tests/it/oauth.rs.)"""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
import sys

import pytest

pytest.importorskip("opsapi._native", reason="the compiled opsapi package is not installed")

import opsapi  # noqa: E402
from opsapi.testing import Simulator  # noqa: E402

TOKEN = "/api/oauth/token"


def purchases(sim: Simulator) -> list[int]:
    """The statuses of the token endpoint's requests."""
    return [r["status"] for r in sim.requests() if r["path"] == TOKEN]


@pytest.fixture
def atlas(fixed_now):
    """An Atlas simulator on the suite's fixed clock: its token endpoint's bucket of ten is
    never refilled, so an eleventh purchase is a 429 that no wait ends."""
    with Simulator(flavour="atlas", projects=1, hosts_per_project=2, now=fixed_now) as s:
        yield s


def test_clients_of_one_machine_buy_one_token_and_the_file_holds_no_secret(atlas, tmp_path):
    cache = tmp_path / "tokens"
    clients = [atlas.client(token_cache=cache) for _ in range(12)]
    for c in clients:
        assert len(c.groups.list()) == 1
    assert purchases(atlas) == [200]
    text = (cache / "tokens.json").read_text()
    for secret in (atlas.client_secret, atlas.client_id, atlas.base_url):
        assert secret not in text
    assert len(json.loads(text)["tokens"]) == 1
    if sys.platform != "win32":
        assert stat.S_IMODE(os.stat(cache).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(cache / "tokens.json").st_mode) == 0o600


def test_the_users_cache_folder_by_default_and_token_cache_false_keeps_none(atlas, tmp_path):
    # The suite's conftest points XDG_CACHE_HOME at a folder of this test's own.
    default = os.path.join(os.environ["XDG_CACHE_HOME"], "opsapi", "tokens.json")
    off = atlas.client(token_cache=False)
    off.groups.list()
    assert not os.path.exists(default)
    atlas.client().groups.list()
    assert os.path.exists(default)
    atlas.client(token_cache=True).groups.list()
    assert purchases(atlas) == [200, 200], "the client without the cache, and one for both"


@pytest.mark.parametrize("cache", [False, True])
def test_a_token_is_bought_again_at_550_of_600_seconds_by_a_server_clock_ahead(tmp_path, cache):
    """The server's clock a month ahead of this machine's: once an answer's ``Date`` says
    550 of a token's 600 seconds have passed, the next call buys a new one first, with the
    token cache and without (one rule for the cache and the client)."""
    ahead = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=30)).replace(microsecond=0)
    with Simulator(flavour="atlas", projects=1, now=ahead, token_lifetime=600) as sim:
        client = sim.client(token_cache=tmp_path / "tokens" if cache else False)
        g = sim.group_ids[0]
        client.groups.get(g)
        sim.advance(550)
        client.groups.get(g)  # the first token still: its Date says 550 s have passed
        client.groups.get(g)
        log = [(r["path"] == TOKEN, r["status"]) for r in sim.requests()]
    token, api = True, False
    assert log == [(token, 200), (api, 200), (api, 200), (token, 200), (api, 200)]
    assert (tmp_path / "tokens" / "tokens.json").exists() == cache


def test_the_cache_is_keyed_by_client_id_and_a_wrong_secret_shows_without_it(atlas, tmp_path):
    cache = tmp_path / "tokens"
    atlas.client(token_cache=cache).groups.list()
    wrong = {"client_id": atlas.client_id, "client_secret": "mdb_sa_sk_wrong-but-long"}
    # The cached token is the account's: a client of its id takes it without buying (its
    # secret is not asked for until that token expires) ...
    assert opsapi.Client.atlas(**wrong, base_url=atlas.base_url, token_cache=cache).groups.list()
    assert purchases(atlas) == [200]
    # ... and one without the cache buys its own, with its own secret.
    with pytest.raises(opsapi.AuthenticationError) as e:
        opsapi.Client.atlas(**wrong, base_url=atlas.base_url, token_cache=False).groups.list()
    assert e.value.error_code == "invalid_client"
    assert purchases(atlas) == [200, 401]


@pytest.mark.parametrize("value", [1, "", b"\0", ["a"]])
def test_token_cache_takes_a_flag_or_a_folder(value):
    with pytest.raises(opsapi.InvalidArgumentError, match="token_cache"):
        opsapi.Client.atlas(client_id="mdb_sa_id_1", client_secret="s", token_cache=value)


def test_a_corrupt_cache_is_replaced(atlas, tmp_path):
    cache = tmp_path / "tokens"
    cache.mkdir(mode=0o700)
    (cache / "tokens.json").write_text('{"format": 1, "tokens": ')
    assert len(atlas.client(token_cache=str(cache)).groups.list()) == 1
    assert atlas.client(token_cache=cache).groups.list()
    assert purchases(atlas) == [200]
    assert len(json.loads((cache / "tokens.json").read_text())["tokens"]) == 1


# ---- Sixteen Dask workers -------------------------------------------------------------------


def test_dask_takes_a_service_account_and_shows_its_secret_as_stars(atlas, tmp_path):
    pytest.importorskip("distributed", reason="distributed is not installed")
    from opsapi import dask as odask

    account = {"client_id": atlas.client_id, "client_secret": atlas.client_secret}
    opts = odask._checked_options({**account, "base_url": atlas.base_url, "token_cache": tmp_path})
    plugin = odask._plugin_class()(opts)
    assert atlas.client_secret not in repr(plugin) and atlas.client_secret not in repr(opts)
    # What a worker builds: the Atlas client of the account, with the cache it was given.
    client = odask._build_client(opts)
    assert (client.flavour, len(client.groups.list())) == ("atlas", 1)
    assert (tmp_path / "tokens.json").exists()
    for wrong, match in [
        ({"client_id": atlas.client_id}, "client_secret"),
        ({**account, "public_key": "p", "private_key": "k"}, "not both"),
        ({**account, "profile": "prod"}, "not both"),
    ]:
        with pytest.raises(opsapi.InvalidArgumentError, match=match):
            odask._checked_options(wrong)


# Slow: sixteen worker processes take about 20 s to start and stop on two cores.
@pytest.mark.slow
def test_sixteen_dask_workers_pulling_a_fleet_buy_one_token(fixed_now, tmp_path):
    dask = pytest.importorskip("dask", reason="dask is not installed")
    distributed = pytest.importorskip("distributed", reason="distributed is not installed")
    from opsapi import dask as odask

    workers = 16
    with Simulator(flavour="atlas", projects=2, hosts_per_project=24, now=fixed_now) as sim:
        # The targets from the simulator's truth: this process asks the server nothing.
        targets = sorted({(p["group_id"], p["process_id"]) for p in sim.partition_truth()})
        assert len(targets) >= 2 * workers
        options = {
            "client_id": sim.client_id,
            "client_secret": sim.client_secret,
            "base_url": sim.base_url,
            "token_cache": str(tmp_path / "tokens"),
        }
        with (
            # Each worker a process of its own (what the cache is for), forked from a server
            # that has imported distributed once, rather than each importing it anew.
            dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"}),
            distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                silence_logs=40,
            ) as cluster,
            distributed.Client(cluster) as dc,
        ):
            dc.wait_for_workers(workers)
            with distributed.get_task_stream(client=dc) as stream:
                failures = odask.fleet_to_parquet(
                    targets,
                    tmp_path / "out",
                    client_options=options,
                    dask_client=dc,
                    granularity="PT1H",
                    period="P1D",
                    metrics=["CONNECTIONS"],
                    keep_going=True,
                )
        assert failures.height == 0, failures
        # More workers pulled than the token endpoint's ten a minute: had each bought its
        # own token, the eleventh would have failed.
        pulled_by = {t["worker"] for t in stream.data if "-shard-" in str(t["key"])}
        assert len(pulled_by) > 10, pulled_by
        assert purchases(sim) == [200]
        measurements = [r for r in sim.requests() if r["path"].endswith("/measurements")]
        assert len(measurements) == len(targets)
        assert all(r["status"] == 200 and r["auth"] == "Bearer" for r in measurements)
