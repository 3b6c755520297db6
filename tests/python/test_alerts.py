"""client.alerts: project alerts, sync and async. Listing with the status filter, iterating,
getting, acknowledging and un-acknowledging one alert and many ((group_id, alert_id) pairs of
several projects), every project at once: the requests sent (bodies counted from the
simulator's fixed clock) and the results against the seeded project alerts
(``sim.world()["project_alerts"]``: the world's alerts and the seeded history), before and
after the change; arguments refused before anything is sent."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest
from _truth import API, PAGE1, body, get, request, requests_of, sent, timestamp, view, views
from _truth import world_rows as rows

import opsapi

UTC = dt.timezone.utc
MISSING = "5d0000000000000000000000"
# A client counts acknowledgements from the server's clock (its Date header, to the second)
# plus the time since that answer: on a fixed clock, what it sends is exact to this slack.
SLACK = dt.timedelta(seconds=2)


def near(sent_at: dt.datetime, expected: dt.datetime) -> bool:
    return expected <= sent_at <= expected + SLACK


def project(sim, g: str, **where) -> list[dict]:
    return rows(sim, "project_alerts", group_id=g, **where)


def alert_row(sim, alert_id: str) -> dict:
    return rows(sim, "project_alerts", id=alert_id)[0]


async def call(client, name, *args, **kwargs):
    out = getattr(client.alerts, name)(*args, **kwargs)
    return await out if isinstance(client, opsapi.AsyncClient) else out


def both(sim):
    return [sim.client(max_retries=0), sim.async_client(max_retries=0)]


def patches(sim) -> list[tuple]:
    """The PATCHes that reached the application, sorted by path, with their JSON bodies."""
    return sorted((r["method"], r["path"], r["query"], body(r)) for r in sent(sim, "PATCH"))


# ---- list, iter, get -----------------------------------------------------------------------------


@pytest.mark.parametrize("status", [None, "OPEN", "CLOSED", "TRACKING"])
async def test_list_sends_the_status_and_returns_the_projects_alerts(sim, status):
    for g in sim.group_ids:
        truth = project(sim, g, **({} if status is None else {"status": status}))
        assert truth
        for client in both(sim):
            sim.clear_requests()
            alerts = await call(client, "list", g, status=status)
            query = PAGE1 if status is None else f"status={status}&{PAGE1}"
            assert requests_of(sim) == [get(f"/groups/{g}/alerts", query)]
            assert isinstance(alerts, opsapi.AlertList)
            assert views(alerts, truth) == truth
            assert alerts.total_count == len(truth)
            frame = alerts.to_polars()
            assert frame["id"].cast(pl.String).to_list() == [a["id"] for a in truth]
            assert frame["group_id"].cast(pl.String).unique().to_list() == [g]


def test_project_alerts_hold_the_history_global_alerts_do_not(sim, client):
    g = sim.group_ids[0]
    ids = {a.id for a in client.alerts.list(g)}
    global_ids = {a["id"] for a in rows(sim, "alerts", group_id=g)}
    assert global_ids < ids  # every global alert of the project, and the history besides
    assert {a.id for a in client.global_alerts.list()}.isdisjoint(ids - global_ids)


def test_iter_sync(sim, client):
    g = sim.group_ids[1]
    it = client.alerts.iter(g, status="CLOSED")
    assert requests_of(sim) == []  # lazy
    got = list(it)
    assert requests_of(sim) == [get(f"/groups/{g}/alerts", f"status=CLOSED&{PAGE1}")]
    truth = project(sim, g, status="CLOSED")
    assert views(got, truth) == truth


async def test_iter_async(sim, aclient):
    g = sim.group_ids[0]
    it = aclient.alerts.iter(g, status="OPEN")
    with pytest.raises(TypeError, match=r"AsyncClient\.alerts\.iter\(\) is an async iterator"):
        iter(it)
    got = [a async for a in it]
    assert requests_of(sim) == [get(f"/groups/{g}/alerts", f"status=OPEN&{PAGE1}")]
    truth = project(sim, g, status="OPEN")
    assert views(got, truth) == truth


async def test_get_reads_an_alert_of_its_project_only(sim):
    g, other = sim.group_ids[:2]
    truth = project(sim, g, status="CLOSED")[-1]
    for client in both(sim):
        sim.clear_requests()
        got = await call(client, "get", g, truth["id"])
        assert requests_of(sim) == [get(f"/groups/{g}/alerts/{truth['id']}")]
        assert view(got, truth) == truth
        with pytest.raises(opsapi.NotFoundError) as e:
            await call(client, "get", other, truth["id"])
        assert e.value.error_code == "ALERT_NOT_FOUND"
        assert e.value.detail == f"No alert with ID {truth['id']} exists in group {other}."


# ---- acknowledge / unacknowledge -----------------------------------------------------------------


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_acknowledge_and_unacknowledge_round_trip(own_sim, kind):
    g = own_sim.group_ids[1]
    # One alert of the history (closed) and one that /globalAlerts shows too (open).
    history = project(own_sim, g, status="CLOSED")[0]["id"]
    shared = rows(own_sim, "alerts", group_id=g, status="OPEN", acknowledged_until=None)[0]["id"]
    client = own_sim.client() if kind == "sync" else own_sim.async_client()
    await call(client, "get", g, shared)  # the client knows the server's clock
    for alert_id in (history, shared):
        before = alert_row(own_sim, alert_id)
        own_sim.clear_requests()
        a = await call(client, "acknowledge", g, alert_id, duration="PT4H", comment="on it")
        [r] = sent(own_sim)
        assert request(r)[:3] == ("PATCH", f"{API}/groups/{g}/alerts/{alert_id}", None)
        b = body(r)
        assert list(b) == ["acknowledgedUntil", "acknowledgementComment"]
        until = timestamp(b["acknowledgedUntil"])
        assert (
            near(until, own_sim.now + dt.timedelta(hours=4))
            and b["acknowledgementComment"] == "on it"
        )
        after = alert_row(own_sim, alert_id)
        assert after == {
            **before,
            "acknowledged_until": until,
            "acknowledgement_comment": "on it",
            "acknowledging_username": own_sim.public_key,
        }
        assert view(a, after) == after and isinstance(a, opsapi.Alert)

        own_sim.clear_requests()
        u = await call(client, "unacknowledge", g, alert_id)
        [r] = sent(own_sim)
        assert request(r)[:3] == ("PATCH", f"{API}/groups/{g}/alerts/{alert_id}", None)
        assert list(body(r)) == ["acknowledgedUntil"]
        assert near(timestamp(body(r)["acknowledgedUntil"]), own_sim.now - dt.timedelta(minutes=1))
        assert alert_row(own_sim, alert_id) == before
        assert view(u, before) == before and "acknowledgedUntil" not in u.to_dict()
    # The alert both listings show is the same alert: the global one saw both changes.
    assert rows(own_sim, "alerts", id=shared)[0] == alert_row(own_sim, shared)


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_acknowledge_many_pairs_of_two_projects(own_sim, kind):
    g0, g1 = own_sim.group_ids[:2]
    a0 = project(own_sim, g0, status="OPEN", acknowledged_until=None)[0]["id"]
    a1 = project(own_sim, g1, status="CLOSED")[0]["id"]
    client = own_sim.client() if kind == "sync" else own_sim.async_client()
    own_sim.clear_requests()
    until = dt.datetime(2099, 1, 1, tzinfo=UTC)
    pairs = [(g0, a0), (g0, a1), [g1, a1], (g1, MISSING)]
    results = await call(client, "acknowledge_many", pairs, until=until, comment="inc-42")

    kinds = [opsapi.Alert, opsapi.NotFoundError, opsapi.Alert, opsapi.NotFoundError]
    assert [type(r) for r in results] == kinds
    assert results[1].error_code == "ALERT_NOT_FOUND"  # a1 is not of g0
    want = {"acknowledgedUntil": "2099-01-01T00:00:00Z", "acknowledgementComment": "inc-42"}
    assert patches(own_sim) == sorted(
        ("PATCH", f"{API}/groups/{g}/alerts/{a}", None, want) for g, a in pairs
    )
    for got, alert_id in ((results[0], a0), (results[2], a1)):
        after = alert_row(own_sim, alert_id)
        assert after["acknowledged_until"] == until and after["acknowledgement_comment"] == "inc-42"
        assert view(got, after) == after

    own_sim.clear_requests()
    results = await call(client, "unacknowledge_many", iter([(g0, a0), (g1, a1)]))
    assert [r.id for r in results] == [a0, a1]
    assert [(m, p) for m, p, _, _ in patches(own_sim)] == sorted(
        [("PATCH", f"{API}/groups/{g0}/alerts/{a0}"), ("PATCH", f"{API}/groups/{g1}/alerts/{a1}")]
    )
    for _, _, _, b in patches(own_sim):
        assert near(timestamp(b["acknowledgedUntil"]), own_sim.now - dt.timedelta(minutes=1))
    assert all(alert_row(own_sim, i)["acknowledged_until"] is None for i in (a0, a1))


async def test_no_pairs_no_request(sim, client, aclient):
    assert client.alerts.acknowledge_many([], forever=True) == []
    assert await aclient.alerts.unacknowledge_many(()) == []
    assert sim.requests() == []


# ---- list_all ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_list_all_reads_every_project_concurrently(sim, kind):
    client = sim.client() if kind == "sync" else sim.async_client()
    alerts = await call(client, "list_all", status="OPEN")
    first, *rest = requests_of(sim)
    assert first == get("/groups", PAGE1)
    # The projects' listings run at once: their order in the log is not fixed.
    assert sorted(rest) == sorted(
        get(f"/groups/{g}/alerts", f"status=OPEN&{PAGE1}") for g in sim.group_ids
    )
    truth = [a for g in sim.group_ids for a in project(sim, g, status="OPEN")]
    assert views(alerts, truth) == truth
    assert alerts.total_count == len(truth)
    frame = alerts.to_polars()
    assert frame["group_id"].cast(pl.String).to_list() == [a["group_id"] for a in truth]
    assert frame.group_by("group_id").len()["len"].sum() == len(truth)
    assert set(frame["group_id"].cast(pl.String)) == set(sim.group_ids)


async def test_list_all_of_given_projects(sim, client, aclient):
    g = sim.group_ids[1]
    got = client.alerts.list_all(groups=[g])
    assert requests_of(sim) == [get(f"/groups/{g}/alerts", PAGE1)]
    assert views(got, project(sim, g)) == project(sim, g)
    sim.clear_requests()
    with pytest.raises(opsapi.NotFoundError) as e:
        await aclient.alerts.list_all(groups=(g, MISSING), status="CLOSED")
    assert e.value.error_code == "GROUP_NOT_FOUND"  # a project that fails fails the call


# ---- arguments -----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["sync", "async"])
@pytest.mark.parametrize(
    ("name", "args", "kwargs", "argument"),
    [
        ("list", (7,), {}, "group_id"),
        ("list", ("g",), {"status": "CANCELLED"}, "status"),
        ("list", ("g",), {"status": 3}, "status"),
        ("iter", ("",), {}, "group_id"),
        ("get", ("g", ".."), {}, "alert_id"),
        ("acknowledge", ("g", "a"), {}, "until"),
        ("acknowledge", ("g", "a"), {"duration": "soon"}, "duration"),
        ("acknowledge", ("/", ""), {"forever": True}, "alert_id"),
        ("unacknowledge", (None, "a"), {}, "group_id"),
        ("acknowledge_many", ("ga",), {"forever": True}, "pairs"),
        ("acknowledge_many", ([("g", "a"), ("g",)],), {"forever": True}, "pairs[1]"),
        ("acknowledge_many", ([("g", "a", "x")],), {"forever": True}, "pairs[0]"),
        ("acknowledge_many", ([("g", 7)],), {"forever": True}, "pairs[0][1]"),
        ("acknowledge_many", ([("g", "a"), ("..", "a")],), {"forever": True}, "pairs[1]"),
        ("acknowledge_many", ([("g", "a")],), {"duration": "PT0S"}, "duration"),
        ("unacknowledge_many", ([("g", "")],), {}, "pairs[0]"),
        ("list_all", (), {"groups": "g"}, "groups"),
        ("list_all", (), {"groups": ["g", " "]}, "groups[1]"),
        ("list_all", (), {"status": "CANCELLED"}, "status"),
        ("context", ("not an alert",), {}, "alert"),
    ],
)
async def test_arguments_are_refused_before_any_request(
    sim, client, aclient, kind, name, args, kwargs, argument
):
    with pytest.raises(opsapi.InvalidArgumentError) as e:
        await call(client if kind == "sync" else aclient, name, *args, **kwargs)
    assert f"`{argument}`" in str(e.value), str(e.value)
    assert sim.requests() == []
