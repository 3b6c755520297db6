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
