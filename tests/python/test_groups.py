"""client.groups: list and get, sync and async: the request sent and the projects seeded."""

from __future__ import annotations

import pytest
from _truth import PAGE1, get, requests_of, served, view, views, world_rows

import opsapi


@pytest.mark.smoke
def test_groups_list_sync(sim, client):
    groups = client.groups.list()
    assert requests_of(sim) == [get("/groups", PAGE1)]
    truth = world_rows(sim, "projects")
    assert views(groups, truth) == truth
    assert [x.id for x in groups] == sim.group_ids


@pytest.mark.smoke
async def test_groups_list_async(sim, aclient):
    groups = await aclient.groups.list()
    assert requests_of(sim) == [get("/groups", PAGE1)]
    truth = world_rows(sim, "projects")
    assert views(groups, truth) == truth


def test_groups_get_sync(sim, client):
    g = sim.group_ids[1]
    got = client.groups.get(g)
    assert requests_of(sim) == [get(f"/groups/{g}")]
    truth = world_rows(sim, "projects", id=g)
    assert [view(got, truth[0])] == truth
    assert got.to_dict() == served(sim, f"/groups/{g}")


async def test_groups_get_async(sim, aclient):
    g = sim.group_ids[0]
    got = await aclient.groups.get(g)
    assert requests_of(sim) == [get(f"/groups/{g}")]
    truth = world_rows(sim, "projects", id=g)
    assert [view(got, truth[0])] == truth
    assert got.to_dict() == served(sim, f"/groups/{g}")


# --- errors ---------------------------------------------------------------------------


@pytest.mark.smoke
async def test_groups_get_unknown(sim, client, aclient):
    missing = "0" * 24
    with pytest.raises(opsapi.NotFoundError) as e:
        client.groups.get(missing)
    with pytest.raises(opsapi.NotFoundError) as e2:
        await aclient.groups.get(missing)
    for err in (e.value, e2.value):
        assert (err.status, err.error_code) == (404, "GROUP_NOT_FOUND")
    assert requests_of(sim) == [get(f"/groups/{missing}")] * 2
