from __future__ import annotations

import datetime as dt
import json
import logging
import threading
import time

import polars as pl
import pytest

import opsapi

API = "/api/public/v1.0"
UTC = dt.timezone.utc


def sent(sim, method=None):
    """Requests that reached the application (not the digest challenge round trip)."""
    return [
        r for r in sim.requests() if r["authorized"] and (method is None or r["method"] == method)
    ]


@pytest.fixture(scope="module")
def ids(sim):
    c = sim.client()
    g = sim.group_ids[0]
    hosts = c.hosts.list(g)
    alerts = c.global_alerts.list()
    configs = c.alert_configs.list(g)
    events = c.events.list(g)
    return {"group": g, "hosts": hosts, "alerts": alerts, "configs": configs, "events": events}


def test_hosts_get_sync(sim, client, ids):
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


async def test_hosts_get_async(sim, aclient, ids):
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


async def test_partitions_sync_and_async(sim, client, aclient, ids):
    g, h = ids["group"], ids["hosts"][0].id
    parts = client.hosts.partitions(g, h)
    assert parts and all(isinstance(p, str) for p in parts)
    assert sent(sim)[-1]["path"] == f"{API}/groups/{g}/hosts/{h}/disks"
    assert await aclient.hosts.partitions(g, h) == parts


def test_global_alerts_list_filters(sim, client):
    after = dt.datetime(2020, 1, 1, tzinfo=UTC)
    alerts = client.global_alerts.list(status="OPEN", created_on_or_after=after)
    queries = [r["query"] for r in sent(sim) if r["path"] == f"{API}/globalAlerts"]
    assert queries and all(
        "status=OPEN" in q and "createdOnOrAfter=2020-01-01T00%3A00%3A00Z" in q for q in queries
    )
    assert len(alerts) == alerts.total_count
    assert all(a.status == "OPEN" for a in alerts)
    df = alerts.to_polars()
    assert df.height == len(alerts)
    assert df.schema["created"] == pl.Datetime("ms", "UTC")
    assert "current_value_number" in df.columns


def test_list_items_are_the_servers_objects(sim, client):
    import requests
    from requests.auth import HTTPDigestAuth

    alerts = client.global_alerts.list()
    session = requests.Session()
    session.auth = HTTPDigestAuth(sim.public_key, sim.private_key)
    r = session.get(
        sim.base_url.rstrip("/") + f"{API}/globalAlerts",
        params={"pageNum": 1, "itemsPerPage": 500},
        timeout=30,
    )
    sent_items = r.json()["results"]
    assert 10 < len(sent_items) == len(alerts)
    # Every object as sent, in the server's key order.
    assert [a.to_dict() for a in alerts] == sent_items
    assert [list(a.to_dict()) for a in alerts] == [list(d) for d in sent_items]
    # Indexing, slicing and iterating give objects over the same items.
    assert [a.id for a in alerts[::-3]] == [d["id"] for d in sent_items[::-3]]
    assert alerts[-2].to_dict() == sent_items[-2]
    # An item outlives its list.
    one = alerts[7]
    del alerts
    assert one.to_dict() == sent_items[7] and one.id == sent_items[7]["id"]


def test_list_iterators_are_lazy_and_independent(client):
    alerts = client.global_alerts.list()
    first, second = iter(alerts), iter(alerts)
    assert iter(first) is first
    assert next(first).id == alerts[0].id
    assert next(first).id == alerts[1].id
    assert next(second).id == alerts[0].id
    assert [a.id for a in first] == [a.id for a in alerts[2:]]
    with pytest.raises(StopIteration):
        next(first)
    with pytest.raises(StopIteration):
        next(first)
    assert len(list(second)) == len(alerts) - 1


async def test_global_alerts_iter_sync_and_async(client, aclient):
    listed = [a.id for a in client.global_alerts.list(status="OPEN")]
    assert [a.id for a in client.global_alerts.iter(status="OPEN")] == listed
    got = [a.id async for a in aclient.global_alerts.iter(status="OPEN")]
    assert got == listed


async def test_acknowledge_and_unacknowledge(sim, client, aclient, ids):
    alert_id = ids["alerts"][0].id
    a = client.global_alerts.acknowledge(alert_id, duration="PT4H", comment="on it")
    r = sent(sim, "PATCH")[-1]
    assert r["path"] == f"{API}/globalAlerts/{alert_id}"
    body = json.loads(r["body"])
    assert body["acknowledgementComment"] == "on it"
    until = dt.datetime.fromisoformat(body["acknowledgedUntil"].replace("Z", "+00:00"))
    assert abs((until - dt.datetime.now(UTC)) - dt.timedelta(hours=4)) < dt.timedelta(minutes=1)
    assert a.acknowledged_until is not None and a.acknowledged_until.tzinfo is not None
    assert a.acknowledgement_comment == "on it"
    b = await aclient.global_alerts.unacknowledge(alert_id)
    body = json.loads(sent(sim, "PATCH")[-1]["body"])
    until = dt.datetime.fromisoformat(body["acknowledgedUntil"].replace("Z", "+00:00"))
    assert until < dt.datetime.now(UTC)
    assert isinstance(b, opsapi.GlobalAlert)


def test_global_alert_get(sim, client, ids):
    a = ids["alerts"][0]
    got = client.global_alerts.get(a.id)
    assert sent(sim)[-1]["path"] == f"{API}/globalAlerts/{a.id}"
    assert got.id == a.id


async def test_open_alerts(sim, client, aclient, ids):
    g = ids["group"]
    cfg = ids["configs"][0]
    alerts = client.alert_configs.open_alerts(g, cfg.id)
    assert sent(sim)[-1]["path"] == f"{API}/groups/{g}/alertConfigs/{cfg.id}/alerts"
    assert isinstance(alerts, opsapi.AlertList)
    assert len(await aclient.alert_configs.open_alerts(g, cfg.id)) == len(alerts)


async def test_events_get(sim, client, aclient, ids):
    g = ids["group"]
    e = ids["events"][0]
    got = client.events.get(g, e.id, include_raw=True)
    r = sent(sim)[-1]
    assert (r["path"], r["query"]) == (f"{API}/groups/{g}/events/{e.id}", "includeRaw=true")
    assert got.id == e.id and got.to_dict()["id"] == e.id
    got2 = await aclient.events.get(g, e.id)
    assert sent(sim)[-1]["query"] is None
    assert got2.id == e.id


async def test_access_list_delete(sim, client, aclient):
    with pytest.raises(opsapi.NotFoundError):
        client.access_list.delete("000000000000000000000000")
    r = sent(sim)[-1]
    assert (r["method"], r["path"]) == (
        "DELETE",
        f"{API}/admin/accessList/000000000000000000000000",
    )
    with pytest.raises(opsapi.NotFoundError):
        await aclient.access_list.delete("000000000000000000000001")


async def test_measurements_host_and_nulls(sim, client, aclient, ids):
    g, h = ids["group"], ids["hosts"][0].id
    m = client.measurements.host(
        g, h, granularity="PT1M", period=dt.timedelta(minutes=10), metrics=["OPCOUNTER_CMD"]
    )
    r = sent(sim)[-1]
    assert r["path"] == f"{API}/groups/{g}/hosts/{h}/measurements"
    assert r["query"] == "granularity=PT1M&period=PT10M&m=OPCOUNTER_CMD"
    s = m.series[0]
    assert s.name == "OPCOUNTER_CMD" and s.values[0] is None
    assert all(t.tzinfo is not None for t in s.timestamps)
    df = m.to_polars()
    assert list(df.schema.items()) == [
        ("group_id", pl.Categorical),
        ("host_id", pl.Categorical),
        ("process_id", pl.Categorical),
        ("partition_name", pl.Categorical),
        ("database_name", pl.Categorical),
        ("measurement", pl.Categorical),
        ("units", pl.Categorical),
        ("timestamp", pl.Datetime("ms", "UTC")),
        ("value", pl.Float64),
    ]
    assert df["value"][0] is None and df["partition_name"].null_count() == df.height
    wide = m.to_polars(shape="wide")
    assert wide.columns == ["timestamp", "OPCOUNTER_CMD"]
    m2 = await aclient.measurements.host(
        g,
        h,
        granularity="PT1M",
        start="2024-01-01T00:00:00Z",
        end=dt.datetime(2024, 1, 1, 0, 5, tzinfo=UTC),
    )
    assert (
        sent(sim)[-1]["query"]
        == "granularity=PT1M&start=2024-01-01T00%3A00%3A00Z&end=2024-01-01T00%3A05%3A00Z"
    )
    assert m2.start == dt.datetime(2024, 1, 1, tzinfo=UTC)


async def test_measurements_disk(sim, client, aclient, ids):
    g, h = ids["group"], ids["hosts"][0].id
    p = client.hosts.partitions(g, h)[0]
    m = client.measurements.disk(g, h, p, granularity="PT1H", period="P1D")
    assert sent(sim)[-1]["path"] == f"{API}/groups/{g}/hosts/{h}/disks/{p}/measurements"
    assert m.partition_name == p
    m2 = await aclient.measurements.disk(g, h, p, granularity="PT1H", period="P1D")
    assert m2.to_polars()["partition_name"].unique().to_list() == [p]


async def test_fleet(sim, client, aclient, ids):
    g = ids["group"]
    targets = [(g, h.id) for h in ids["hosts"]]
    df = client.measurements.fleet(targets, granularity="PT5M", period="PT1H", progress=False)
    assert df.columns[:4] == ["group_id", "host_id", "process_id", "partition_name"]
    assert set(df["host_id"].unique()) == {h.id for h in ids["hosts"]}
    frame, failures = await aclient.measurements.fleet(
        [(g, "nope"), targets[0]],
        granularity="PT5M",
        period="PT1H",
        keep_going=True,
        progress=False,
    )
    assert set(frame["host_id"].unique()) == {targets[0][1]}
    assert failures["error_code"].to_list() == ["HOST_NOT_FOUND"]
    seen = []
    client.measurements.fleet(
        targets[:2],
        granularity="PT5M",
        period="PT1H",
        shape="wide",
        progress=lambda done, total, target, ok: seen.append((done, total, ok)),
    )
    assert sorted(seen) == [(1, 2, True), (2, 2, True)]


def test_empty_and_all_null_frames_cross(sim, client, ids):
    g = ids["group"]
    frame, failures = client.measurements.fleet(
        [(g, "nope")], granularity="PT1M", period="PT1H", keep_going=True, progress=False
    )
    assert frame.height == 0 and frame.schema["timestamp"] == pl.Datetime("ms", "UTC")
    assert failures.height == 1 and failures["partition_name"].null_count() == 1
    empty = client.measurements.fleet([], granularity="PT1M", period="PT1H", progress=False)
    assert empty.height == 0


def test_groups(client, sim):
    groups = client.groups.list()
    assert [x.id for x in groups] == sim.group_ids


# --- errors ---------------------------------------------------------------------------


def test_not_found(client, ids):
    with pytest.raises(opsapi.NotFoundError) as e:
        client.hosts.get(ids["group"], "nope")
    err = e.value
    assert isinstance(err, opsapi.ApiError) and isinstance(err, opsapi.OpsApiError)
    assert err.status == 404 and err.error_code == "HOST_NOT_FOUND"
    assert err.detail and isinstance(err.parameters, list) and "HOST_NOT_FOUND" in err.body


def test_wrong_private_key(sim):
    bad = opsapi.Client(sim.base_url, sim.public_key, "not-the-key", max_retries=0)
    with pytest.raises(opsapi.AuthenticationError) as e:
        bad.groups.list()
    assert e.value.status == 401
    assert "not-the-key" not in str(e.value) and "not-the-key" not in repr(bad)


@pytest.mark.parametrize(
    "call",
    [
        lambda c, g: c.measurements.host(g, "h", granularity="PT2M", period="P1D"),
        lambda c, g: c.measurements.host(g, "h", granularity="PT1M"),
        lambda c, g: c.measurements.host(
            g, "h", granularity="PT1M", start=dt.datetime(2024, 1, 1), end="2024-01-02T00:00:00Z"
        ),
        lambda c, g: c.global_alerts.list(status="CANCELLED"),
        lambda c, g: c.global_alerts.acknowledge("a", until="2024-01-01T00:00:00Z", forever=True),
        lambda c, g: c.hosts.get(g, ".."),
        lambda c, g: c.measurements.fleet([("g",)], granularity="PT1M", period="P1D"),
    ],
)
def test_invalid_arguments_send_nothing(sim, client, call):
    with pytest.raises(opsapi.InvalidArgumentError) as e:
        call(client, sim.group_ids[0])
    assert isinstance(e.value, ValueError) and e.value.argument
    assert sim.requests() == []


def test_naive_datetime_names_the_argument(client):
    with pytest.raises(opsapi.InvalidArgumentError) as e:
        client.global_alerts.list(created_on_or_after=dt.datetime(2024, 1, 1))
    assert e.value.argument == "created_on_or_after"


@pytest.mark.parametrize("status,cls", [(429, opsapi.RateLimitError), (503, opsapi.ServerError)])
def test_transient_faults_after_retries(sim, client, status, cls):
    sim.inject(status, 1, retry_after=2)
    with pytest.raises(cls) as e:
        client.groups.list()
    assert e.value.status == status
    if status == 429:
        assert e.value.retry_after == 2.0


def test_retries_log_a_warning(sim, caplog):
    c = sim.client(max_retries=2)
    sim.inject(503, 1, retry_after=0)
    with caplog.at_level(logging.DEBUG, logger="opsapi"):
        c.groups.list()
    levels = {r.levelno for r in caplog.records if r.name == "opsapi"}
    assert logging.WARNING in levels and logging.DEBUG in levels


def test_transport_error(sim):
    c = opsapi.Client("http://127.0.0.1:9", "k", "secret-key", max_retries=0, timeout=2)
    with pytest.raises(opsapi.TransportError) as e:
        c.groups.list()
    assert "secret-key" not in str(e.value)


def test_timeout(sim):
    sim.set_faults(latency=1.0)
    try:
        c = sim.client(timeout=0.2, max_retries=0)
        with pytest.raises(opsapi.RequestTimeoutError) as e:
            c.groups.list()
        assert isinstance(e.value, TimeoutError) and isinstance(e.value, opsapi.TransportError)
    finally:
        sim.set_faults()


def test_from_env(sim, monkeypatch):
    monkeypatch.setenv("OPSAPI_BASE_URL", sim.base_url)
    monkeypatch.setenv("OPSAPI_PUBLIC_KEY", sim.public_key)
    monkeypatch.delenv("OPSAPI_PRIVATE_KEY", raising=False)
    with pytest.raises(opsapi.InvalidArgumentError) as e:
        opsapi.Client.from_env()
    assert e.value.argument == "OPSAPI_PRIVATE_KEY"
    monkeypatch.setenv("OPSAPI_PRIVATE_KEY", sim.private_key)
    assert opsapi.Client.from_env().groups.list()


def test_no_key_in_reprs_errors_or_logs(sim, ids, caplog):
    key = sim.private_key
    with caplog.at_level(logging.DEBUG, logger="opsapi"):
        c = sim.client(max_retries=1)
        sim.inject(503, 1, retry_after=0)
        hosts = c.hosts.list(ids["group"])
        texts = [repr(c), repr(hosts), repr(hosts[0]), repr(c.hosts), repr(sim)]
        try:
            c.hosts.get(ids["group"], "nope")
        except opsapi.NotFoundError as e:
            texts += [str(e), repr(e)]
    texts += [r.getMessage() for r in caplog.records]
    assert len(caplog.records) >= 3
    assert not [t for t in texts if key in t or sim.public_key in t]


def test_gil_is_released_during_a_slow_call(sim):
    sim.set_faults(latency=0.5)
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.01)

    t = threading.Thread(target=count)
    try:
        c = sim.client()
        t.start()
        c.groups.list()
    finally:
        stop.set()
        t.join()
        sim.set_faults()
    assert len(ticks) >= 20


def test_submodules_are_reachable_from_the_package() -> None:
    import subprocess
    import sys

    code = "import opsapi; print(opsapi.testing.Simulator.__name__, opsapi.capacity.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["Simulator", "opsapi.capacity"]
