from __future__ import annotations

import pytest

import opsapi
from opsapi.testing import Simulator


@pytest.fixture(autouse=True)
def _own_config_file(monkeypatch, tmp_path_factory):
    """No test reads or writes the profiles of the person running it."""
    home = tmp_path_factory.mktemp("config")
    monkeypatch.setenv("OPSAPI_CONFIG", str(home / "config.toml"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.delenv("OPSAPI_PROFILE", raising=False)


@pytest.fixture(scope="session")
def sim():
    with Simulator(seed=0) as s:
        yield s


@pytest.fixture
def client(sim) -> opsapi.Client:
    sim.set_faults()
    sim.clear_requests()
    return sim.client(max_retries=0)


@pytest.fixture
def aclient(sim) -> opsapi.AsyncClient:
    sim.set_faults()
    sim.clear_requests()
    return sim.async_client(max_retries=0)


def _sent(sim, method=None):
    """Requests that reached the application (not the Digest challenge round trip)."""
    return [
        r for r in sim.requests() if r["authorized"] and (method is None or r["method"] == method)
    ]


@pytest.fixture
def sent():
    """``sent(sim, method=None)``: the requests that reached the application."""
    return _sent


@pytest.fixture(scope="module")
def ids(sim):
    """Identifiers of the seeded world: the first project, its hosts, alerts, configs, events."""
    c = sim.client()
    g = sim.group_ids[0]
    hosts = c.hosts.list(g)
    alerts = c.global_alerts.list()
    configs = c.alert_configs.list(g)
    events = c.events.list(g)
    return {"group": g, "hosts": hosts, "alerts": alerts, "configs": configs, "events": events}
