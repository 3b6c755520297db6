"""client.global_alerts: listing, iterating, getting, acknowledging one alert and many at once, sync
and async: the requests sent (bodies counted from the simulator's fixed clock) and the results
against the seeded alerts, before and after the change."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest
from _truth import API, PAGE1, body, get, request, requests_of, sent, timestamp, view, views
from _truth import world_rows as rows

import opsapi
from opsapi.testing import Simulator

UTC = dt.timezone.utc
MISSING = "5d0000000000000000000000"
# A client counts acknowledgements from the server's clock (its Date header, to the second)
# plus the time since that answer: on a fixed clock, what it sends is exact to this slack.
SLACK = dt.timedelta(seconds=2)


def near(sent_at: dt.datetime, expected: dt.datetime) -> bool:
    return expected <= sent_at <= expected + SLACK


def open_ids(sim, n: int) -> list[str]:
    ids = [a["id"] for a in rows(sim, "alerts", status="OPEN")][:n]
    assert len(ids) == n
    return ids


def alert_row(sim, alert_id: str) -> dict:
    return rows(sim, "alerts", id=alert_id)[0]


async def call(client, name, *args, **kwargs):
    out = getattr(client.global_alerts, name)(*args, **kwargs)
    return await out if isinstance(client, opsapi.AsyncClient) else out


def patch(alert_id: str, sent_body: dict) -> tuple:
    return ("PATCH", f"{API}/globalAlerts/{alert_id}", None, sent_body)


def patches(sim) -> list[tuple]:
    """The PATCHes that reached the application, sorted by path (many at once run
    concurrently), with their JSON bodies."""
    return sorted(
        (r["method"], r["path"], r["query"], body(r)) for r in sent(sim, "PATCH")
    )  # fmt: skip


# ---- acknowledge_many / unacknowledge_many ---------------------------------------------------


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_acknowledge_many_one_result_per_id_in_order(own_sim, kind):
    a, b = open_ids(own_sim, 2)
    before = {i: alert_row(own_sim, i) for i in (a, b)}
    client = own_sim.client() if kind == "sync" else own_sim.async_client()
    own_sim.clear_requests()
    until = dt.datetime(2099, 1, 1, tzinfo=UTC)
    results = await call(client, "acknowledge_many", [a, MISSING, b], until=until, comment="inc-42")

    kinds = [opsapi.GlobalAlert, opsapi.NotFoundError, opsapi.GlobalAlert]
    assert [type(r) for r in results] == kinds
    err = results[1]
    assert isinstance(err, opsapi.OpsApiError)
    assert (err.status, err.error_code) == (404, "ALERT_NOT_FOUND")

    want = {"acknowledgedUntil": "2099-01-01T00:00:00Z", "acknowledgementComment": "inc-42"}
    assert patches(own_sim) == sorted(patch(i, want) for i in (a, MISSING, b))
    # The server's state, and the results are the alerts as the server now has them.
    for got, i in ((results[0], a), (results[2], b)):
        after = alert_row(own_sim, i)
        assert after == {
            **before[i],
            "acknowledged_until": until,
            "acknowledgement_comment": "inc-42",
            "acknowledging_username": after["acknowledging_username"],
        }
        assert after["acknowledging_username"]
        assert view(got, after) == after
    assert rows(own_sim, "alerts", id=MISSING) == []


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_unacknowledge_many(own_sim, kind):
    ids = open_ids(own_sim, 4)
    client = own_sim.client(max_concurrency=2) if kind == "sync" else own_sim.async_client()
    await call(client, "list")  # the client knows the server's clock
    own_sim.clear_requests()
    acked = await call(client, "acknowledge_many", ids, duration="PT2H")
    sent_at = {p[1]: timestamp(p[3]["acknowledgedUntil"]) for p in patches(own_sim)}
    assert sorted(sent_at) == sorted(f"{API}/globalAlerts/{i}" for i in ids)
    assert all(near(t, own_sim.now + dt.timedelta(hours=2)) for t in sent_at.values())
    assert [r.acknowledged_until for r in acked] == [
        sent_at[f"{API}/globalAlerts/{i}"] for i in ids
    ]
    own_sim.clear_requests()

    results = await call(client, "unacknowledge_many", iter(ids))
    assert [r.id for r in results] == ids
    sent_patches = patches(own_sim)
    assert [(m, p, q) for m, p, q, _ in sent_patches] == sorted(
        ("PATCH", f"{API}/globalAlerts/{i}", None) for i in ids
    )
    for *_, b in sent_patches:
        assert list(b) == ["acknowledgedUntil"]
        # "An acknowledgedUntil in the past": a minute before the server's now.
        assert near(timestamp(b["acknowledgedUntil"]), own_sim.now - dt.timedelta(minutes=1))
    for r, i in zip(results, ids):
        after = alert_row(own_sim, i)
        assert after["acknowledged_until"] is None and r.acknowledged_until is None
        assert view(r, after) == after


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
async def test_many_refuses_bad_arguments_before_any_request(
    sim, client, aclient, kind, ids, kwargs, argument
):
    with pytest.raises(opsapi.InvalidArgumentError) as e:
        await call(client if kind == "sync" else aclient, "acknowledge_many", ids, **kwargs)
    assert argument in str(e.value)
    assert sim.requests() == []


async def test_no_ids_no_request(sim, client, aclient):
    assert client.global_alerts.acknowledge_many([], forever=True) == []
    assert await aclient.global_alerts.unacknowledge_many(()) == []
    assert sim.requests() == []


# ---- list, iter, get ---------------------------------------------------------------------------


@pytest.mark.smoke
def test_global_alerts_list_filters(sim, client):
    after = dt.datetime(2020, 1, 1, tzinfo=UTC)
    alerts = client.global_alerts.list(status="OPEN", created_on_or_after=after)
    assert requests_of(sim) == [
        get("/globalAlerts", f"status=OPEN&createdOnOrAfter=2020-01-01T00%3A00%3A00Z&{PAGE1}")
    ]
    truth = rows(sim, "alerts", status="OPEN")  # every seeded alert was created after 2020
    assert views(alerts, truth) == truth
    assert alerts.total_count == len(truth) > 0
    assert all(a.created >= after for a in alerts)
    df = alerts.to_polars()
    assert df["id"].to_list() == [a["id"] for a in truth]
    assert df.schema["created"] == pl.Datetime("ms", "UTC")
    assert df["current_value_number"].to_list() == [
        None if a.current_value is None else a.current_value.number for a in alerts
    ]


async def test_global_alerts_list_async(sim, aclient):
    before = dt.datetime(2026, 2, 1, tzinfo=UTC)
    alerts = await aclient.global_alerts.list(status="CLOSED", created_on_or_before=before)
    assert requests_of(sim) == [
        get("/globalAlerts", f"status=CLOSED&createdOnOrBefore=2026-02-01T00%3A00%3A00Z&{PAGE1}")
    ]
    closed = {a["id"]: a for a in rows(sim, "alerts", status="CLOSED")}
    assert all(a.created <= before for a in alerts)
    assert 0 < len(alerts) == alerts.total_count
    assert [view(a, closed[a.id]) for a in alerts] == [closed[a.id] for a in alerts]
    # ... and the CLOSED alerts it left out were created after the bound.
    everything = {a.id: a for a in await aclient.global_alerts.list(status="CLOSED")}
    assert sorted(everything) == sorted(closed)
    left_out = set(closed) - {a.id for a in alerts}
    assert all(everything[i].created > before for i in left_out)


async def test_list_pages(fixed_now):
    """Every page is asked once, with its pageNum, and the items come back in the server's
    order (1200 alerts: three pages)."""
    with Simulator(seed=0, now=fixed_now, global_alerts=1200) as s:
        truth = rows(s, "alerts")
        for client in (s.client(), s.async_client()):
            s.clear_requests()
            got = await call(client, "list")
            assert sorted(requests_of(s), key=lambda r: r[2]) == [
                get("/globalAlerts", f"pageNum={n}&itemsPerPage=500") for n in (1, 2, 3)
            ]
            assert len(got) == got.total_count == len(truth) == 1200
            assert views(got, truth) == truth


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


def test_global_alerts_iter_sync(sim, client):
    got = list(client.global_alerts.iter(status="OPEN"))
    assert requests_of(sim) == [get("/globalAlerts", f"status=OPEN&{PAGE1}")]
    truth = rows(sim, "alerts", status="OPEN")
    assert views(got, truth) == truth


async def test_global_alerts_iter_async(sim, aclient):
    got = [a async for a in aclient.global_alerts.iter(status="TRACKING")]
    assert requests_of(sim) == [get("/globalAlerts", f"status=TRACKING&{PAGE1}")]
    truth = rows(sim, "alerts", status="TRACKING")
    assert views(got, truth) == truth and truth


def test_global_alert_get_sync(sim, client):
    truth = rows(sim, "alerts")[7]
    got = client.global_alerts.get(truth["id"])
    assert requests_of(sim) == [get(f"/globalAlerts/{truth['id']}")]
    assert view(got, truth) == truth


async def test_global_alert_get_async(sim, aclient):
    truth = rows(sim, "alerts", status="OPEN")[-1]
    got = await aclient.global_alerts.get(truth["id"])
    assert requests_of(sim) == [get(f"/globalAlerts/{truth['id']}")]
    assert view(got, truth) == truth


# ---- acknowledge / unacknowledge ----------------------------------------------------------------


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_acknowledge(own_sim, kind):
    alert_id = open_ids(own_sim, 3)[2]
    before = alert_row(own_sim, alert_id)
    client = own_sim.client() if kind == "sync" else own_sim.async_client()
    await call(client, "get", alert_id)  # the client knows the server's clock
    own_sim.clear_requests()
    a = await call(client, "acknowledge", alert_id, duration="PT4H", comment="on it")
    [r] = sent(own_sim)
    method, path, query, _ = request(r)
    assert (method, path, query) == ("PATCH", f"{API}/globalAlerts/{alert_id}", None)
    b = body(r)
    assert list(b) == ["acknowledgedUntil", "acknowledgementComment"]
    assert b["acknowledgementComment"] == "on it"
    until = timestamp(b["acknowledgedUntil"])
    assert near(until, own_sim.now + dt.timedelta(hours=4))
    after = alert_row(own_sim, alert_id)
    assert after == {
        **before,
        "acknowledged_until": until,
        "acknowledgement_comment": "on it",
        "acknowledging_username": after["acknowledging_username"],
    }
    assert view(a, after) == after
    assert a.acknowledged_until == until and a.acknowledged_until.tzinfo is not None


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_unacknowledge(own_sim, kind):
    # An alert the seed acknowledged (until two months after now).
    acked = [a for a in rows(own_sim, "alerts", status="OPEN") if a["acknowledged_until"]]
    alert_id = acked[0]["id"]
    assert acked[0]["acknowledged_until"] > own_sim.now
    client = own_sim.client() if kind == "sync" else own_sim.async_client()
    await call(client, "get", alert_id)  # the client knows the server's clock
    own_sim.clear_requests()
    b = await call(client, "unacknowledge", alert_id)
    [r] = sent(own_sim)
    assert request(r)[:3] == ("PATCH", f"{API}/globalAlerts/{alert_id}", None)
    sent_body = body(r)
    assert list(sent_body) == ["acknowledgedUntil"]
    at = timestamp(sent_body["acknowledgedUntil"])
    assert near(at, own_sim.now - dt.timedelta(minutes=1))
    after = alert_row(own_sim, alert_id)
    assert after["acknowledged_until"] is None
    assert isinstance(b, opsapi.GlobalAlert)
    assert b.acknowledged_until is None and "acknowledgedUntil" not in b.to_dict()
    assert view(b, after) == after


def test_an_acknowledgement_runs_out_when_the_clock_passes_it(own_sim, own_client):
    alert_id = open_ids(own_sim, 1)[0]
    own_client.global_alerts.get(alert_id)  # the client knows the server's clock
    a = own_client.global_alerts.acknowledge(alert_id, duration="PT1H", comment="brb")
    assert own_client.global_alerts.get(alert_id).acknowledged_until == a.acknowledged_until
    own_sim.advance(dt.timedelta(minutes=59))
    assert alert_row(own_sim, alert_id)["acknowledged_until"] == a.acknowledged_until
    own_sim.advance(dt.timedelta(minutes=1, seconds=5))
    after = alert_row(own_sim, alert_id)
    assert after["acknowledged_until"] is None and after["acknowledgement_comment"] is None
    assert view(own_client.global_alerts.get(alert_id), after) == after
