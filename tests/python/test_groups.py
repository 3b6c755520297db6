"""client.groups: list and get."""

from __future__ import annotations


def test_groups(client, sim):
    groups = client.groups.list()
    assert [x.id for x in groups] == sim.group_ids


# --- errors ---------------------------------------------------------------------------
