"""client.events: the events of a project, and one event with and without its raw document,
sync and async: the request sent and the seeded events."""

from __future__ import annotations

from _truth import PAGE1, get, requests_of, served, view, views, world_rows


def test_events_list_sync(sim, client):
    g = sim.group_ids[0]
    events = client.events.list(g)
    assert requests_of(sim) == [get(f"/groups/{g}/events", PAGE1)]
    truth = world_rows(sim, "events", group_id=g)
    assert views(events, truth) == truth
    assert events.total_count == len(truth)


async def test_events_list_async(sim, aclient):
    g = sim.group_ids[1]
    events = await aclient.events.list(g)
    assert requests_of(sim) == [get(f"/groups/{g}/events", PAGE1)]
    truth = world_rows(sim, "events", group_id=g)
    assert views(events, truth) == truth
    assert events.to_polars()["id"].to_list() == [e["id"] for e in truth]


def test_events_get_sync(sim, client):
    g = sim.group_ids[0]
    truth = world_rows(sim, "events", group_id=g)[3]
    e = truth["id"]
    got = client.events.get(g, e, include_raw=True)
    assert requests_of(sim) == [get(f"/groups/{g}/events/{e}", "includeRaw=true")]
    assert view(got, truth) == truth
    sent = served(sim, f"/groups/{g}/events/{e}", includeRaw="true")
    assert got.to_dict() == sent and "raw" in sent


async def test_events_get_async(sim, aclient):
    g = sim.group_ids[1]
    truth = world_rows(sim, "events", group_id=g)[0]
    e = truth["id"]
    got = await aclient.events.get(g, e)
    assert requests_of(sim) == [get(f"/groups/{g}/events/{e}")]
    assert view(got, truth) == truth
    sent = served(sim, f"/groups/{g}/events/{e}")
    assert got.to_dict() == sent and "raw" not in sent
    sim.clear_requests()
    raw = await aclient.events.get(g, e, include_raw=True)
    assert requests_of(sim) == [get(f"/groups/{g}/events/{e}", "includeRaw=true")]
    assert raw.to_dict()["raw"] == served(sim, f"/groups/{g}/events/{e}", includeRaw="true")["raw"]
