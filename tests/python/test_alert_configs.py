"""client.alert_configs: the open alerts of a configuration, sync and async."""

from __future__ import annotations

import opsapi

API = "/api/public/v1.0"


async def test_open_alerts(sim, client, aclient, ids, sent):
    g = ids["group"]
    cfg = ids["configs"][0]
    alerts = client.alert_configs.open_alerts(g, cfg.id)
    assert sent(sim)[-1]["path"] == f"{API}/groups/{g}/alertConfigs/{cfg.id}/alerts"
    assert isinstance(alerts, opsapi.AlertList)
    assert len(await aclient.alert_configs.open_alerts(g, cfg.id)) == len(alerts)
