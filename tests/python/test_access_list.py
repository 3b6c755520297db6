"""client.access_list: deleting an entry returns None, sync and async."""

from __future__ import annotations

import pytest

import opsapi

API = "/api/public/v1.0"


async def test_access_list_delete(sim, client, aclient, sent):
    with pytest.raises(opsapi.NotFoundError):
        client.access_list.delete("000000000000000000000000")
    r = sent(sim)[-1]
    assert (r["method"], r["path"]) == (
        "DELETE",
        f"{API}/admin/accessList/000000000000000000000000",
    )
    with pytest.raises(opsapi.NotFoundError):
        await aclient.access_list.delete("000000000000000000000001")
