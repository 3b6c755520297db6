"""The client itself: errors, argument checks, retries, timeouts, from_env, secrets, the GIL."""

from __future__ import annotations

import datetime as dt
import logging
import threading

import pytest
from _truth import PAGE1, get, requests_of

import opsapi

UTC = dt.timezone.utc


def test_not_found(client, ids):
    with pytest.raises(opsapi.NotFoundError) as e:
        client.hosts.get(ids["group"], "nope")
    err = e.value
    assert isinstance(err, opsapi.ApiError) and isinstance(err, opsapi.OpsApiError)
    assert err.status == 404 and err.error_code == "HOST_NOT_FOUND"
    assert err.detail and isinstance(err.parameters, list) and "HOST_NOT_FOUND" in err.body


def test_wrong_private_key(sim):
    bad = opsapi.Client(sim.base_url, sim.public_key, "not-the-key", max_retries=0)
    with pytest.raises(opsapi.AuthenticationError) as e:
        bad.groups.list()
    assert e.value.status == 401
    assert "not-the-key" not in str(e.value) and "not-the-key" not in repr(bad)


@pytest.mark.parametrize(
    "call",
    [
        lambda c, g: c.measurements.host(g, "h", granularity="PT2M", period="P1D"),
        lambda c, g: c.measurements.host(g, "h", granularity="PT1M"),
        lambda c, g: c.measurements.host(
            g, "h", granularity="PT1M", start=dt.datetime(2024, 1, 1), end="2024-01-02T00:00:00Z"
        ),
        lambda c, g: c.global_alerts.list(status="CANCELLED"),
        lambda c, g: c.global_alerts.acknowledge("a", until="2024-01-01T00:00:00Z", forever=True),
        lambda c, g: c.hosts.get(g, ".."),
        lambda c, g: c.measurements.fleet([("g",)], granularity="PT1M", period="P1D"),
    ],
)
def test_invalid_arguments_send_nothing(sim, client, call):
    with pytest.raises(opsapi.InvalidArgumentError) as e:
        call(client, sim.group_ids[0])
    assert isinstance(e.value, ValueError) and e.value.argument
    assert sim.requests() == []


def test_naive_datetime_names_the_argument(client):
    with pytest.raises(opsapi.InvalidArgumentError) as e:
        client.global_alerts.list(created_on_or_after=dt.datetime(2024, 1, 1))
    assert e.value.argument == "created_on_or_after"


@pytest.mark.parametrize("status,cls", [(429, opsapi.RateLimitError), (503, opsapi.ServerError)])
def test_transient_faults_after_retries(sim, client, status, cls):
    sim.inject(status, 1, retry_after=2)
    with pytest.raises(cls) as e:
        client.groups.list()
    assert e.value.status == status
    if status == 429:
        assert e.value.retry_after == 2.0


def test_retries_log_a_warning(sim, caplog):
    c = sim.client(max_retries=2)
    sim.inject(503, 1, retry_after=0)
    with caplog.at_level(logging.DEBUG, logger="opsapi"):
        c.groups.list()
    levels = {r.levelno for r in caplog.records if r.name == "opsapi"}
    assert logging.WARNING in levels and logging.DEBUG in levels


def test_transport_error(closed_port):
    c = opsapi.Client(f"http://127.0.0.1:{closed_port}", "k", "secret-key", max_retries=0)
    with pytest.raises(opsapi.TransportError) as e:
        c.groups.list()
    assert not isinstance(e.value, opsapi.RequestTimeoutError)  # refused, not timed out
    assert (e.value.method, e.value.path) == ("GET", "/groups")
    # One sentence that names the URL and the refusal, in the operating system's words, not
    # the HTTP stack's chain of messages.
    url = f"http://127.0.0.1:{closed_port}/api/public/v1.0/groups"
    shown = str(e.value)
    assert shown.startswith(f"transport error on GET /groups: could not connect to {url} (")
    assert shown.endswith(")") and "refused" in shown, shown
    for chain in ("error sending request", "client error", "tcp connect", "os error"):
        assert chain not in shown
    assert "secret-key" not in shown


def test_timeout(sim):
    sim.set_faults(latency=1.0)
    try:
        c = sim.client(timeout=0.2, max_retries=0)
        with pytest.raises(opsapi.RequestTimeoutError) as e:
            c.groups.list()
        assert isinstance(e.value, TimeoutError) and isinstance(e.value, opsapi.TransportError)
    finally:
        sim.set_faults()


def test_from_env(sim, monkeypatch):
    monkeypatch.setenv("OPSAPI_BASE_URL", sim.base_url)
    monkeypatch.setenv("OPSAPI_PUBLIC_KEY", sim.public_key)
    monkeypatch.delenv("OPSAPI_PRIVATE_KEY", raising=False)
    with pytest.raises(opsapi.InvalidArgumentError) as e:
        opsapi.Client.from_env()
    assert e.value.argument == "OPSAPI_PRIVATE_KEY"
    monkeypatch.setenv("OPSAPI_PRIVATE_KEY", sim.private_key)
    groups = opsapi.Client.from_env().groups.list()
    assert [g.id for g in groups] == [p["id"] for p in sim.world()["projects"]]
    assert requests_of(sim) == [get("/groups", PAGE1)]


def test_no_key_in_reprs_errors_or_logs(sim, ids, caplog):
    key = sim.private_key
    with caplog.at_level(logging.DEBUG, logger="opsapi"):
        c = sim.client(max_retries=1)
        sim.inject(503, 1, retry_after=0)
        hosts = c.hosts.list(ids["group"])
        texts = [repr(c), repr(hosts), repr(hosts[0]), repr(c.hosts), repr(sim)]
        with pytest.raises(opsapi.NotFoundError) as e:
            c.hosts.get(ids["group"], "nope")
        texts += [str(e.value), repr(e.value)]
    texts += [r.getMessage() for r in caplog.records]
    assert len(caplog.records) >= 3
    assert not [t for t in texts if key in t or sim.public_key in t]


def test_gil_is_released_during_a_call(sim):
    """While a call waits for its answer, other Python threads run: here the answer is held
    until Python code in another thread releases it, which it can only do if the waiting call
    let go of the GIL (one that did not would end in its time budget instead)."""
    c = sim.client(timeout=30)
    c.groups.list()  # the handshake, so the held request is the call's own
    returned = threading.Event()
    ran = []

    def release_from_python(held):
        assert held.wait_arrived(timeout=30)
        ran.append(returned.is_set())  # Python ran while the call was still waiting
        held.release()

    with sim.hold(method="GET", path="/groups") as held:
        t = threading.Thread(target=release_from_python, args=(held,))
        t.start()
        try:
            groups = c.groups.list()
            returned.set()
        finally:
            t.join()
    assert ran == [False]
    assert [g.id for g in groups] == sim.group_ids


def test_submodules_are_reachable_from_the_package() -> None:
    import subprocess
    import sys

    code = "import opsapi; print(opsapi.testing.Simulator.__name__, opsapi.capacity.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["Simulator", "opsapi.capacity"]
