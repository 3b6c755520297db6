"""client.events: one project event, with and without its raw document."""

from __future__ import annotations

API = "/api/public/v1.0"


async def test_events_get(sim, client, aclient, ids, sent):
    g = ids["group"]
    e = ids["events"][0]
    got = client.events.get(g, e.id, include_raw=True)
    r = sent(sim)[-1]
    assert (r["path"], r["query"]) == (f"{API}/groups/{g}/events/{e.id}", "includeRaw=true")
    assert got.id == e.id and got.to_dict()["id"] == e.id
    got2 = await aclient.events.get(g, e.id)
    assert sent(sim)[-1]["query"] is None
    assert got2.id == e.id
