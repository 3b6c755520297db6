"""client.alert_configs: the configurations of a project and the open alerts of one, sync and
async: the request sent and the seeded configurations and alerts."""

from __future__ import annotations

import collections

import pytest
from _truth import PAGE1, get, requests_of, served, views, world_rows

import opsapi


@pytest.fixture(scope="module")
def busiest(sim):
    """The configuration with the most open alerts, its project, and those alerts (seeded)."""
    open_alerts = world_rows(sim, "alerts", status="OPEN")
    counts = collections.Counter((a["group_id"], a["alert_config_id"]) for a in open_alerts)
    (g, c), n = counts.most_common(1)[0]
    assert n >= 2
    mine = [a for a in open_alerts if (a["group_id"], a["alert_config_id"]) == (g, c)]
    return g, c, mine


def test_alert_configs_list_sync(sim, client):
    g = sim.group_ids[0]
    configs = client.alert_configs.list(g)
    assert requests_of(sim) == [get(f"/groups/{g}/alertConfigs", PAGE1)]
    truth = world_rows(sim, "alert_configs", group_id=g)
    assert views(configs, truth) == truth
    assert [c.to_dict() for c in configs] == served(sim, f"/groups/{g}/alertConfigs")["results"]


async def test_alert_configs_list_async(sim, aclient):
    g = sim.group_ids[1]
    configs = await aclient.alert_configs.list(g)
    assert requests_of(sim) == [get(f"/groups/{g}/alertConfigs", PAGE1)]
    truth = world_rows(sim, "alert_configs", group_id=g)
    assert views(configs, truth) == truth


def test_open_alerts_sync(sim, client, busiest):
    g, c, truth = busiest
    alerts = client.alert_configs.open_alerts(g, c)
    assert requests_of(sim) == [get(f"/groups/{g}/alertConfigs/{c}/alerts", PAGE1)]
    assert isinstance(alerts, opsapi.AlertList)
    assert views(alerts, truth) == truth
    assert alerts.total_count == len(truth)
    assert alerts.to_polars()["id"].to_list() == [a["id"] for a in truth]


async def test_open_alerts_async(sim, aclient, busiest):
    g, c, truth = busiest
    alerts = await aclient.alert_configs.open_alerts(g, c)
    assert requests_of(sim) == [get(f"/groups/{g}/alertConfigs/{c}/alerts", PAGE1)]
    assert views(alerts, truth) == truth
    assert alerts.total_count == len(truth)


async def test_open_alerts_of_an_unknown_configuration(sim, client, aclient):
    g, missing = sim.group_ids[0], "0" * 24
    with pytest.raises(opsapi.NotFoundError) as e:
        client.alert_configs.open_alerts(g, missing)
    with pytest.raises(opsapi.NotFoundError) as e2:
        await aclient.alert_configs.open_alerts(g, missing)
    for err in (e.value, e2.value):
        assert (err.status, err.error_code) == (404, "ALERT_CONFIG_NOT_FOUND")
    assert requests_of(sim) == [get(f"/groups/{g}/alertConfigs/{missing}/alerts", PAGE1)] * 2
