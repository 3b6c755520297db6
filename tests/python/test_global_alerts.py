"""client.global_alerts: listing, iterating, getting, acknowledging one alert and many at once, sync
and async."""

from __future__ import annotations

import datetime as dt
import json

import polars as pl
import pytest

import opsapi
from opsapi.testing import Simulator

API = "/api/public/v1.0"
UTC = dt.timezone.utc
MISSING = "5d0000000000000000000000"


@pytest.fixture
def fresh():
    """A simulator of our own: these tests change alerts."""
    with Simulator(seed=3) as s:
        yield s


def patches(sim) -> list[dict]:
    return [r for r in sim.requests() if r["authorized"] and r["method"] == "PATCH"]


def open_ids(sim, n: int) -> list[str]:
    ids = [a.id for a in sim.client().global_alerts.list(status="OPEN")][:n]
    assert len(ids) == n
    return ids


async def call(client, name, *args, **kwargs):
    out = getattr(client.global_alerts, name)(*args, **kwargs)
    return await out if isinstance(client, opsapi.AsyncClient) else out


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_acknowledge_many_one_result_per_id_in_order(fresh, kind):
    a, b = open_ids(fresh, 2)
    fresh.clear_requests()
    client = fresh.client() if kind == "sync" else fresh.async_client()
    until = dt.datetime(2099, 1, 1, tzinfo=UTC)
    results = await call(client, "acknowledge_many", [a, MISSING, b], until=until, comment="inc-42")

    kinds = [opsapi.GlobalAlert, opsapi.NotFoundError, opsapi.GlobalAlert]
    assert [type(r) for r in results] == kinds
    assert [results[0].id, results[2].id] == [a, b]
    assert all(r.acknowledged_until == until for r in (results[0], results[2]))
    assert all(r.acknowledgement_comment == "inc-42" for r in (results[0], results[2]))
    err = results[1]
    assert isinstance(err, opsapi.OpsApiError)
    assert (err.status, err.error_code) == (404, "ALERT_NOT_FOUND")

    sent = patches(fresh)
    assert sorted(r["path"] for r in sent) == sorted(
        f"{API}/globalAlerts/{i}" for i in (a, MISSING, b)
    )
    for r in sent:
        assert json.loads(r["body"]) == {
            "acknowledgedUntil": "2099-01-01T00:00:00Z",
            "acknowledgementComment": "inc-42",
        }
    # The server's state.
    assert fresh.client().global_alerts.get(a).acknowledged_until == until


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_unacknowledge_many(fresh, kind):
    ids = open_ids(fresh, 4)
    client = fresh.client(max_concurrency=2) if kind == "sync" else fresh.async_client()
    acked = await call(client, "acknowledge_many", ids, duration="PT2H")
    assert all(r.acknowledged_until is not None for r in acked)
    fresh.clear_requests()

    results = await call(client, "unacknowledge_many", iter(ids))
    assert [r.id for r in results] == ids
    assert all(r.acknowledged_until is None for r in results)
    sent = patches(fresh)
    assert len(sent) == 4
    for r in sent:
        body = json.loads(r["body"])
        assert list(body) == ["acknowledgedUntil"]
        at = dt.datetime.fromisoformat(body["acknowledgedUntil"].replace("Z", "+00:00"))
        assert at < dt.datetime.now(UTC)


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize(
    ("ids", "kwargs", "argument"),
    [
        ("a1", {"forever": True}, "alert_ids"),  # a string is not a list of ids
        (["a1", 7], {"forever": True}, "alert_ids[1]"),
        (["a1", ""], {"forever": True}, "alert_ids[1]"),
        (["a1", "\ud800"], {"forever": True}, "alert_ids[1]"),
        (["a1"], {}, "until"),  # none of until/duration/forever
        (["a1"], {"duration": "PT1H", "forever": True}, "until"),
    ],
)
async def test_many_refuses_bad_arguments_before_any_request(fresh, kind, ids, kwargs, argument):
    client = fresh.client() if kind == "sync" else fresh.async_client()
    fresh.clear_requests()
    with pytest.raises(opsapi.InvalidArgumentError) as e:
        await call(client, "acknowledge_many", ids, **kwargs)
    assert argument in str(e.value)
    assert fresh.requests() == []


async def test_no_ids_no_request(fresh):
    fresh.clear_requests()
    assert fresh.client().global_alerts.acknowledge_many([], forever=True) == []
    assert await fresh.async_client().global_alerts.unacknowledge_many(()) == []
    assert fresh.requests() == []


def test_global_alerts_list_filters(sim, client, sent):
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


async def test_acknowledge_and_unacknowledge(sim, client, aclient, ids, sent):
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


def test_global_alert_get(sim, client, ids, sent):
    a = ids["alerts"][0]
    got = client.global_alerts.get(a.id)
    assert sent(sim)[-1]["path"] == f"{API}/globalAlerts/{a.id}"
    assert got.id == a.id
