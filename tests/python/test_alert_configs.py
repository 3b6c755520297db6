"""client.alert_configs: the configurations of a project, one of them, and the open alerts of one,
sync and async: the request sent and the seeded configurations and alerts."""

from __future__ import annotations

import collections

import pytest
from _truth import PAGE1, get, requests_of, served, view, views, world_rows

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


async def _not_found(method: str, client, aclient, g: str, missing: str) -> None:
    """``alert_configs.<method>(g, missing)`` of the sync and the async client: 404
    ALERT_CONFIG_NOT_FOUND naming the configuration."""
    with pytest.raises(opsapi.NotFoundError) as e:
        getattr(client.alert_configs, method)(g, missing)
    with pytest.raises(opsapi.NotFoundError) as e2:
        await getattr(aclient.alert_configs, method)(g, missing)
    for err in (e.value, e2.value):
        assert (err.status, err.error_code) == (404, "ALERT_CONFIG_NOT_FOUND")
        assert missing in err.detail


async def test_open_alerts_of_an_unknown_configuration(sim, client, aclient):
    g, missing = sim.group_ids[0], "0" * 24
    await _not_found("open_alerts", client, aclient, g, missing)
    assert requests_of(sim) == [get(f"/groups/{g}/alertConfigs/{missing}/alerts", PAGE1)] * 2


def test_get_each_configuration_of_a_project_sync(sim, client):
    """Each configuration of a project, one GET each: as seeded, and the object the server
    lists for it (with a metric threshold or without)."""
    g = sim.group_ids[0]
    truth = world_rows(sim, "alert_configs", group_id=g)
    got = [client.alert_configs.get(g, t["id"]) for t in truth]
    assert requests_of(sim) == [get(f"/groups/{g}/alertConfigs/{t['id']}") for t in truth]
    assert all(isinstance(c, opsapi.AlertConfig) for c in got)
    assert views(got, truth) == truth
    listed = served(sim, f"/groups/{g}/alertConfigs")["results"]
    assert [c.to_dict() for c in got] == listed
    thresholds = [c.metric_threshold for c in got]
    assert any(thresholds) and not all(thresholds), "configurations with and without one"


async def test_get_a_configuration_async(sim, aclient):
    g = sim.group_ids[1]
    truth = world_rows(sim, "alert_configs", group_id=g)[-1]
    config = await aclient.alert_configs.get(g, truth["id"])
    assert requests_of(sim) == [get(f"/groups/{g}/alertConfigs/{truth['id']}")]
    assert view(config, truth) == truth


async def test_get_an_unknown_configuration(sim, client, aclient):
    """404 ALERT_CONFIG_NOT_FOUND, sync and async; another project's configuration is unknown
    in this one."""
    g, other = sim.group_ids[0], world_rows(sim, "alert_configs", group_id=sim.group_ids[1])[0]
    for missing in ("0" * 24, other["id"]):
        await _not_found("get", client, aclient, g, missing)
    assert requests_of(sim) == [
        get(f"/groups/{g}/alertConfigs/{m}") for m in ("0" * 24, other["id"]) for _ in "ab"
    ]


async def test_get_checks_its_arguments_before_any_request(sim, client, aclient):
    g = sim.group_ids[0]
    for args, name in (
        ((g, ""), "alert_config_id"),
        (("", "x"), "group_id"),
        ((g, 3), "alert_config_id"),
    ):
        with pytest.raises(opsapi.InvalidArgumentError, match=name):
            client.alert_configs.get(*args)
        with pytest.raises(opsapi.InvalidArgumentError, match=name):
            await aclient.alert_configs.get(*args)
    assert requests_of(sim) == []
