"""client.access_list: listing the entries, and deleting one (None; the entry is gone), sync and
async."""

from __future__ import annotations

import pytest
from _truth import API, PAGE1, get, requests_of, views, world_rows

import opsapi

MISSING = "000000000000000000000000"


def test_access_list_list_sync(sim, client):
    entries = client.access_list.list()
    assert requests_of(sim) == [get("/admin/accessList", PAGE1)]
    truth = world_rows(sim, "access_list")
    assert views(entries, truth) == truth


async def test_access_list_list_async(sim, aclient):
    entries = await aclient.access_list.list()
    assert requests_of(sim) == [get("/admin/accessList", PAGE1)]
    truth = world_rows(sim, "access_list")
    assert views(entries, truth) == truth


def test_access_list_delete_sync(own_sim, own_client):
    before = world_rows(own_sim, "access_list")
    x = before[2]["id"]
    own_sim.clear_requests()
    assert own_client.access_list.delete(x) is None
    assert requests_of(own_sim) == [("DELETE", f"{API}/admin/accessList/{x}", None, b"")]
    assert world_rows(own_sim, "access_list") == [e for e in before if e["id"] != x]


async def test_access_list_delete_async(own_sim, own_aclient):
    before = world_rows(own_sim, "access_list")
    x = before[0]["id"]
    own_sim.clear_requests()
    assert await own_aclient.access_list.delete(x) is None
    assert requests_of(own_sim) == [("DELETE", f"{API}/admin/accessList/{x}", None, b"")]
    assert world_rows(own_sim, "access_list") == before[1:]


async def test_access_list_delete_missing(sim, client, aclient):
    with pytest.raises(opsapi.NotFoundError) as e:
        client.access_list.delete(MISSING)
    with pytest.raises(opsapi.NotFoundError) as e2:
        await aclient.access_list.delete(MISSING)
    for err in (e.value, e2.value):
        assert (err.status, err.error_code) == (404, "ACCESS_LIST_NOT_FOUND")
    assert requests_of(sim) == [("DELETE", f"{API}/admin/accessList/{MISSING}", None, b"")] * 2
