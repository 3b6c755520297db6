"""One client for Ops Manager, Cloud Manager and Atlas: every operation a flavour has, sync and
async, against the simulator serving that flavour, with the exact request that went out (path,
query, the ``Accept`` header's version, Digest or Bearer) and the same result from the same
world; what a flavour lacks refused before any request; ``Client.atlas``, ``flavour=``,
``from_env`` and profiles; the same frames and capacity findings through each flavour."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Callable

import polars as pl
import polars.testing
import pytest
from conftest import FIXED_NOW

import opsapi
from opsapi import capacity
from opsapi.testing import Simulator

ROOT = Path(__file__).resolve().parents[2]
FLAVOURS = ("ops-manager", "cloud-manager", "atlas")
PAGE1 = "pageNum=1&itemsPerPage=500"
WINDOW = "granularity=PT1H&period=P1D"
TOKEN = "/api/oauth/token"


@pytest.fixture(scope="module")
def sims():
    """One simulator per flavour, the same seeded world (read only: a test that writes or
    moves a clock starts its own)."""
    with ExitStack() as stack:
        yield {f: stack.enter_context(Simulator(now=FIXED_NOW, flavour=f)) for f in FLAVOURS}


@pytest.fixture(scope="module")
def clients(sims):
    """A Client and an AsyncClient of each flavour, kept for the module: an Atlas client buys
    one token for all its calls (the token endpoint allows 10 a minute)."""
    return {f: (s.client(max_retries=0), s.async_client(max_retries=0)) for f, s in sims.items()}


def api_requests(sim: Simulator) -> list[dict[str, Any]]:
    """Requests to the API that passed authentication (not the token endpoint)."""
    return [r for r in sim.requests() if r["authorized"] and r["path"] != TOKEN]


def token_requests(sim: Simulator) -> list[dict[str, Any]]:
    return [r for r in sim.requests() if r["path"] == TOKEN]


class Ids:
    """A mongod's identifiers, as the flavour names its host (hex id, or hostname:port)."""

    def __init__(self, sim: Simulator) -> None:
        db = sim.database_truth()[0]
        w = sim.world()
        atlas = sim.flavour == "atlas"
        self.g = db["group_id"]
        self.h = db["process_id"] if atlas else db["host_id"]
        self.p = db["partition_name"]
        self.d = db["database_name"]
        self.e = next(e["id"] for e in w["events"] if e["group_id"] == self.g)
        agents = {c["id"] for c in w["alert_configs"]
                  if c["event_type_name"] in ATLAS_LACKS["alert types"]}  # fmt: skip
        self.c = next(
            a["alert_config_id"]
            for a in w["alerts"]
            if a["status"] == "OPEN"
            and a["group_id"] == self.g
            and a["alert_config_id"] not in agents
        )
        self.a = next(
            a["id"]
            for a in w["project_alerts"]
            if a["group_id"] == self.g and a["alert_config_id"] not in agents
        )
        self.hosts = "processes" if atlas else "hosts"
        self.api = "/api/atlas/v2" if atlas else "/api/public/v1.0"

    def path(self, template: str) -> str:
        enc = self.h.replace(":", "%3A")
        return self.api + template.format(
            g=self.g, h=enc, p=self.p, d=self.d, e=self.e, c=self.c, a=self.a, hosts=self.hosts
        )


# What the simulator's world holds that Atlas does not have, and so does not serve: standalone
# processes, Ops Manager's agent alerts (and their configurations), two database measurements;
# and the alert metric Atlas names its own way.
ATLAS_LACKS = {
    "host types": {"STANDALONE"},
    "alert types": {"MONITORING_AGENT_DOWN", "BACKUP_AGENT_DOWN"},
    "database measurements": {"DATABASE_WRITE_LOCK_PERCENTAGE", "DATABASE_FILE_SIZE"},
}
ATLAS_ALERT_METRICS = {"OPLOG_REPLICATION_LAG_TIME": "OPLOG_SLAVE_LAG_MASTER_TIME"}


def as_atlas(op: str, result: Any) -> Any:
    """An Ops Manager result as Atlas gives it (:data:`ATLAS_LACKS`)."""
    if op == "hosts.list":
        return [h for h in result if h[2] not in ATLAS_LACKS["host types"]]
    if op in ("alerts.list", "alert_configs.list"):
        return [
            (*x[:-2], ATLAS_ALERT_METRICS.get(x[-2], x[-2]), x[-1])
            for x in result
            if x[-1] not in ATLAS_LACKS["alert types"]
        ]
    if op == "measurements.database":
        return [r for r in result if r["measurement"] not in ATLAS_LACKS["database measurements"]]
    return result


def _hosts(hs: Any) -> list[tuple[Any, ...]]:
    return [(h.hostname, h.port, h.type_name, h.replica_set_name) for h in hs]


def _frame(m: Any) -> list[dict[str, Any]]:
    return m.to_polars().drop("host_id").to_dicts()


# Every operation each flavour has: its call (sync or async: the same expression), the path
# and query it sends, and what of its result the flavours must agree on.
READS: dict[str, tuple[Callable[..., Any], str, Any, Callable[[Any], Any]]] = {
    "groups.list": (lambda c, i: c.groups.list(), "/groups", PAGE1, lambda r: [g.id for g in r]),
    "groups.get": (lambda c, i: c.groups.get(i.g), "/groups/{g}", None, lambda r: r.name),
    "hosts.list": (lambda c, i: c.hosts.list(i.g), "/groups/{g}/{hosts}", PAGE1, _hosts),
    "hosts.get": (
        lambda c, i: c.hosts.get(i.g, i.h),
        "/groups/{g}/{hosts}/{h}",
        None,
        lambda r: _hosts([r]),
    ),
    "hosts.partitions": (
        lambda c, i: c.hosts.partitions(i.g, i.h),
        "/groups/{g}/{hosts}/{h}/disks",
        PAGE1,
        list,
    ),
    "hosts.databases": (
        lambda c, i: c.hosts.databases(i.g, i.h),
        "/groups/{g}/{hosts}/{h}/databases",
        PAGE1,
        list,
    ),
    "measurements.host": (
        lambda c, i: c.measurements.host(
            i.g, i.h, granularity="PT1H", period="P1D", metrics=["CONNECTIONS"]
        ),
        "/groups/{g}/{hosts}/{h}/measurements",
        WINDOW + "&m=CONNECTIONS",
        _frame,
    ),
    "measurements.disk": (
        lambda c, i: c.measurements.disk(i.g, i.h, i.p, granularity="PT1H", period="P1D"),
        "/groups/{g}/{hosts}/{h}/disks/{p}/measurements",
        WINDOW,
        _frame,
    ),
    "measurements.database": (
        lambda c, i: c.measurements.database(i.g, i.h, i.d, granularity="PT1H", period="P1D"),
        "/groups/{g}/{hosts}/{h}/databases/{d}/measurements",
        WINDOW,
        _frame,
    ),
    "events.list": (
        lambda c, i: c.events.list(i.g),
        "/groups/{g}/events",
        PAGE1,
        lambda r: [e.id for e in r],
    ),
    "events.get": (
        lambda c, i: c.events.get(i.g, i.e),
        "/groups/{g}/events/{e}",
        None,
        lambda r: {k: v for k, v in r.to_dict().items() if k != "links"},  # the servers' URLs
    ),
    "alerts.list": (
        lambda c, i: c.alerts.list(i.g),
        "/groups/{g}/alerts",
        PAGE1,
        lambda r: [(a.id, a.status, a.metric_name, a.event_type_name) for a in r],
    ),
    "alerts.get": (
        lambda c, i: c.alerts.get(i.g, i.a),
        "/groups/{g}/alerts/{a}",
        None,
        lambda r: (r.id, r.event_type_name, r.created),
    ),
    "alert_configs.list": (
        lambda c, i: c.alert_configs.list(i.g),
        "/groups/{g}/alertConfigs",
        PAGE1,
        lambda r: [
            (x.id, (x.metric_threshold or {}).get("metricName"), x.event_type_name) for x in r
        ],  # fmt: skip
    ),
    "alert_configs.open_alerts": (
        lambda c, i: c.alert_configs.open_alerts(i.g, i.c),
        "/groups/{g}/alertConfigs/{c}/alerts",
        PAGE1,
        lambda r: [a.id for a in r],
    ),
}


def test_every_readme_row_that_every_flavour_has_is_here():
    """The README's operation table: its rows below a project are this file's reads (so that
    an operation added there is added here)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8").split("### Every operation", 1)[1]
    rows = {
        re.sub(r"\{(\w)\}", r"{\1}", m)
        for m in re.findall(r"^\| `GET (/groups[^`]*)`", text, flags=re.M)
    }
    ours = {p.replace("{hosts}", "hosts") for _, p, _, _ in READS.values()}
    assert rows <= ours, rows - ours


@pytest.mark.parametrize("op", sorted(READS))
async def test_each_flavour_sends_its_request_sync_and_async(sims, clients, op):
    call, template, query, summary = READS[op]
    results = {}
    for flavour, sim in sims.items():
        ids = Ids(sim)
        accept = (
            "application/vnd.atlas.2023-01-01+json" if flavour == "atlas" else "application/json"
        )
        scheme = "Bearer" if flavour == "atlas" else "Digest"
        for client in clients[flavour]:
            sim.clear_requests()
            got = call(client, ids)
            if asyncio.iscoroutine(got) or hasattr(got, "__await__"):
                got = await got
            sent = [
                (r["method"], r["path"], r["query"], r["accept"], r["auth"])
                for r in api_requests(sim)
            ]
            assert sent == [("GET", ids.path(template), query, accept, scheme)], (flavour, client)
            results.setdefault(flavour, []).append(summary(got))
    assert results["ops-manager"][0] == results["ops-manager"][1]
    assert results["cloud-manager"] == results["ops-manager"]
    assert results["atlas"] == [as_atlas(op, r) for r in results["ops-manager"]]


LACKING = [
    ("global_alerts.list", lambda c: c.global_alerts.list()),
    ("global_alerts.get", lambda c: c.global_alerts.get("5efda6aea0b2e4a5f8e1bd46")),
    ("global_alerts.acknowledge", lambda c: c.global_alerts.acknowledge("a1", duration="1h")),
    ("global_alerts.acknowledge", lambda c: c.global_alerts.unacknowledge("a1")),
    ("global_alerts.acknowledge", lambda c: c.global_alerts.acknowledge_many([], forever=True)),
    ("global_alerts.acknowledge", lambda c: c.global_alerts.unacknowledge_many(["a1"])),
    ("access_list.list", lambda c: c.access_list.list()),
    ("access_list.delete", lambda c: c.access_list.delete("x1")),
]


@pytest.mark.parametrize("flavour", ["cloud-manager", "atlas"])
async def test_what_a_flavour_lacks_raises_unsupported_before_any_request(sims, flavour):
    sim = sims[flavour]
    sim.clear_requests()
    client, aclient = sim.client(), sim.async_client()
    for operation, call in LACKING:
        with pytest.raises(opsapi.UnsupportedError) as e:
            call(client)
        assert (e.value.operation, e.value.flavour) == (operation, flavour)
        assert isinstance(e.value, opsapi.OpsApiError)
        with pytest.raises(opsapi.UnsupportedError):
            await call(aclient)
    with pytest.raises(opsapi.UnsupportedError) as e:
        list(client.global_alerts.iter(status="OPEN"))
    assert e.value.operation == "global_alerts.list"
    with pytest.raises(opsapi.UnsupportedError):
        [a async for a in aclient.global_alerts.iter()]
    name = {"atlas": "Atlas", "cloud-manager": "Cloud Manager"}[flavour]
    assert str(e.value) == (
        f"`global_alerts.list` is not available on {name}: it has no global alerts (the alerts "
        "of a project are client.alerts)"
    )
    assert sim.requests() == []


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
    # Every seeded finding of the hosts each serves (the world seeds some on its standalones,
    # which Atlas does not have; `om` is already without them).
    truth = sims["ops-manager"].headroom_truth()
    seeded = {t["resource"] for t in truth if not set(t["members"]) & standalones}
    for frame in (om, atlas):
        flagged = frame.filter(pl.col("status").is_in(["critical", "warning", "watch"]))
        assert seeded <= set(flagged["resource"]), (seeded, flagged)
    assert {t["resource"] for t in truth} <= set(
        as_processes(found["ops-manager"]).filter(
            pl.col("status").is_in(["critical", "warning", "watch"])
        )["resource"]
    )


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
