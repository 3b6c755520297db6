from __future__ import annotations

import os
import shutil
import socket
import tempfile
from contextlib import ExitStack
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from _atlas_spec import Reader, Spec, check_all

import opsapi
from opsapi.testing import Simulator

# The instant every simulator of the suite stands at (`Simulator(now=...)`): windows that end
# "now" hold the same points at whatever hour the suite runs, and nothing expires unless a
# test advances the clock. Chosen so that the first host of seed 0 has no missed sample in the
# 24 hours before it (tests/python/test_interop.py counts them); other series do have gaps there.
FIXED_NOW = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)


# The spec check (_atlas_spec.py): every Atlas simulator of the session, in this process or
# a child, records its exchanges in this folder, and what a test's simulators recorded is
# checked against Atlas's OpenAPI specification when the test ends.
_EXCHANGES = Path(tempfile.mkdtemp(prefix="opsapi-exchanges-"))
os.environ["OPSAPI_SIM_EXCHANGES"] = str(_EXCHANGES)
_READER = Reader(_EXCHANGES)
_SPEC: list[Spec] = []  # loaded at the first exchange


def _spec_problems() -> list[str]:
    exchanges = _READER.new()
    if not exchanges:
        return []
    if not _SPEC:
        _SPEC.append(Spec())
    return check_all(_SPEC[0], exchanges)


@pytest.fixture(autouse=True)
def _atlas_exchanges_follow_the_spec():
    """Fails a test whose Atlas simulators were asked or answered what Atlas's OpenAPI
    specification does not allow (checked when the test's own simulators have stopped)."""
    yield
    problems = _spec_problems()
    if problems:
        pytest.fail(
            f"{len(problems)} exchange(s) with an Atlas simulator break Atlas's OpenAPI "
            "specification (tests/python/_atlas_spec.py):\n" + "\n".join(problems[:20]),
            pytrace=False,
        )


def pytest_sessionfinish(session, exitstatus):
    """What simulators recorded after the last test's check (a module's shared one stopping)
    fails the session too; then the folder goes."""
    problems = _spec_problems()
    if problems:
        print("\nAtlas spec check, after the last test:\n" + "\n".join(problems[:20]))
        session.exitstatus = 1
    shutil.rmtree(_EXCHANGES, ignore_errors=True)


@pytest.fixture(autouse=True)
def _own_config_file(monkeypatch, tmp_path_factory):
    """No test reads or writes the profiles or the service-account token cache of the person
    running it. Each test has a token cache of its own: a simulator's port may be another
    one's before it, and a token of that one would cost this test's requests a 401."""
    home = tmp_path_factory.mktemp("config")
    monkeypatch.setenv("OPSAPI_CONFIG", str(home / "config.toml"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.delenv("OPSAPI_PROFILE", raising=False)


@pytest.fixture(scope="session")
def fixed_now() -> datetime:
    """The simulators' clock (:data:`FIXED_NOW`)."""
    return FIXED_NOW


@pytest.fixture(scope="session")
def sim():
    """The suite's shared simulator, for tests that only read: a test that changes its world
    (acknowledges, deletes, advances its clock) takes ``own_sim`` instead, and
    ``_shared_world_unchanged`` fails one that does not."""
    with Simulator(seed=0, now=FIXED_NOW) as s:
        yield s


def _reset(sim) -> None:
    """Standing faults, queued faults, the rate limit and the log, as a test finds them."""
    sim.set_faults()
    sim.clear_injected()
    sim.set_rate_limit(None)
    sim.clear_requests()


@pytest.fixture(autouse=True)
def _shared_world_unchanged(request):
    """A test that used the shared simulator leaves its world and clock as it found them,
    and no fault of its own behind for the next test."""
    if "sim" not in request.fixturenames:
        yield
        return
    sim = request.getfixturevalue("sim")
    _reset(sim)
    world, now = sim.world(), sim.now
    yield
    leftover = sim.injected()
    _reset(sim)
    assert sim.now == now, "the test advanced the shared simulator's clock: use own_sim"
    assert sim.world() == world, "the test changed the shared simulator's world: use own_sim"
    assert not leftover, f"faults the test queued and no request took: {leftover}"


@pytest.fixture
def own_sim():
    """A simulator of this test's own (seed 0, the same world and clock as ``sim``), for a
    test that changes the world."""
    with Simulator(seed=0, now=FIXED_NOW) as s:
        yield s


@pytest.fixture
def client(sim) -> opsapi.Client:
    return sim.client(max_retries=0)


@pytest.fixture
def aclient(sim) -> opsapi.AsyncClient:
    return sim.async_client(max_retries=0)


@pytest.fixture
def own_client(own_sim) -> opsapi.Client:
    return own_sim.client(max_retries=0)


@pytest.fixture
def own_aclient(own_sim) -> opsapi.AsyncClient:
    return own_sim.async_client(max_retries=0)


@pytest.fixture
def closed_port():
    """A loopback port this test holds bound and not listening: every connection to it is
    refused, and nothing else can take it while the test runs."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    try:
        yield s.getsockname()[1]
    finally:
        s.close()


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


# ---- One simulator per flavour (tests/python/test_flavours*.py) -----------------------------

FLAVOURS = ("ops-manager", "cloud-manager", "atlas")
TOKEN = "/api/oauth/token"


@pytest.fixture(scope="module")
def sims():
    """One simulator per flavour, the same seeded world (read only: a test that writes or
    moves a clock starts its own)."""
    with ExitStack() as stack:
        yield {f: stack.enter_context(Simulator(now=FIXED_NOW, flavour=f)) for f in FLAVOURS}


@pytest.fixture(scope="module")
def clients(sims):
    """A Client and an AsyncClient of each flavour, kept for the module: an Atlas client buys
    one token for all its calls (the token endpoint allows 10 a minute)."""
    return {f: (s.client(max_retries=0), s.async_client(max_retries=0)) for f, s in sims.items()}


def api_requests(sim: Simulator) -> list[dict[str, Any]]:
    """Requests to the API that passed authentication (not the token endpoint)."""
    return [r for r in sim.requests() if r["authorized"] and r["path"] != TOKEN]


def token_requests(sim: Simulator) -> list[dict[str, Any]]:
    return [r for r in sim.requests() if r["path"] == TOKEN]
