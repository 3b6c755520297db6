from __future__ import annotations

import pytest

import opsapi
from opsapi.testing import Simulator


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
