"""client.global_alerts: acknowledging and un-acknowledging many alerts at once, sync and async."""

from __future__ import annotations

import datetime as dt
import json

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
