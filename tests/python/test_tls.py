"""TLS as on-premise servers use it: the simulator serving HTTPS with an internal CA or its
own self-signed certificate, trusted through ``ca_file``, refused with a message that says what
would help, and ``verify=False``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from _children import Lines, stop

import opsapi
from opsapi.testing import Simulator

API = "/api/public/v1.0"
UNTRUSTED = (
    "the server's certificate is not signed by an authority this system trusts: pass "
    "ca_file=<PEM of the server's CA or of its own certificate>, or verify=False to skip "
    "verification (insecure)"
)


@pytest.fixture(scope="module")
def ca_sim():
    with Simulator(tls=True) as s:
        yield s


@pytest.fixture(scope="module")
def self_signed_sim():
    with Simulator(tls="self-signed") as s:
        yield s


def sent(sim: Simulator) -> list[tuple[str, str, int]]:
    return [(r["method"], r["path"], r["status"]) for r in sim.requests() if r["authorized"]]


def check_get(sim: Simulator, client: opsapi.Client) -> None:
    sim.clear_requests()
    gid = sim.group_ids[0]
    assert client.groups.get(gid).id == gid
    assert sent(sim) == [("GET", f"{API}/groups/{gid}", 200)]


def refused(sim: Simulator, client: opsapi.Client) -> str:
    sim.clear_requests()
    with pytest.raises(opsapi.TransportError) as e:
        client.groups.get(sim.group_ids[0])
    assert type(e.value) is opsapi.TransportError
    assert sim.requests() == []
    return str(e.value)


@pytest.mark.smoke
def test_internal_ca_in_ca_file(ca_sim):
    assert ca_sim.base_url.startswith("https://127.0.0.1:")
    assert ca_sim.ca_file.endswith("ca.pem")
    # sim.client() passes ca_file; so does a client built by hand.
    check_get(ca_sim, ca_sim.client())
    by_hand = opsapi.Client(
        ca_sim.base_url, ca_sim.public_key, ca_sim.private_key, ca_file=ca_sim.ca_file
    )
    check_get(ca_sim, by_hand)


@pytest.mark.smoke
def test_self_signed_certificate_in_ca_file_is_pinned(self_signed_sim):
    assert self_signed_sim.ca_file.endswith("server.pem")
    with open(self_signed_sim.ca_file) as f:
        assert f.read().count("BEGIN CERTIFICATE") == 1
    check_get(self_signed_sim, self_signed_sim.client())


async def test_self_signed_certificate_in_ca_file_is_pinned_async(self_signed_sim):
    self_signed_sim.clear_requests()
    gid = self_signed_sim.group_ids[0]
    group = await self_signed_sim.async_client().groups.get(gid)
    assert group.id == gid
    assert sent(self_signed_sim) == [("GET", f"{API}/groups/{gid}", 200)]


@pytest.mark.parametrize("mode", ["ca_sim", "self_signed_sim"])
def test_no_ca_file_is_refused_and_says_what_helps(mode, request):
    sim = request.getfixturevalue(mode)
    client = opsapi.Client(sim.base_url, sim.public_key, sim.private_key, max_retries=0)
    msg = refused(sim, client)
    assert UNTRUSTED in msg
    assert sim.private_key not in msg


async def test_no_ca_file_is_refused_async(self_signed_sim):
    sim = self_signed_sim
    client = opsapi.AsyncClient(sim.base_url, sim.public_key, sim.private_key, max_retries=0)
    with pytest.raises(opsapi.TransportError, match="verify=False to skip verification"):
        await client.groups.get(sim.group_ids[0])


def test_another_servers_certificate_is_refused(ca_sim, self_signed_sim):
    for sim, other in [(ca_sim, self_signed_sim), (self_signed_sim, ca_sim)]:
        msg = refused(sim, sim.client(ca_file=other.ca_file))
        assert (
            f"the server's certificate is neither signed by a certificate in ca_file "
            f"({other.ca_file}) nor one of them: pass ca_file=<PEM of the server's CA or of its "
            f"own certificate>, or verify=False to skip verification (insecure)"
        ) in msg


def test_wrong_host_name_is_said(ca_sim):
    port = ca_sim.base_url.rsplit(":", 1)[1]
    client = opsapi.Client(
        f"https://localhost:{port}", ca_sim.public_key, ca_sim.private_key, ca_file=ca_sim.ca_file
    )
    msg = refused(ca_sim, client)
    assert "the server's certificate is not valid for the host name in base_url" in msg
    assert "(it names 127.0.0.1, ::1)" in msg


@pytest.mark.parametrize("mode", ["ca_sim", "self_signed_sim"])
def test_verify_false_skips_verification(mode, request):
    sim = request.getfixturevalue(mode)
    client = opsapi.Client(sim.base_url, sim.public_key, sim.private_key, verify=False)
    check_get(sim, client)


def test_from_env_takes_the_ca_file(self_signed_sim, monkeypatch):
    sim = self_signed_sim
    monkeypatch.setenv("OPSAPI_BASE_URL", sim.base_url)
    monkeypatch.setenv("OPSAPI_PUBLIC_KEY", sim.public_key)
    monkeypatch.setenv("OPSAPI_PRIVATE_KEY", sim.private_key)
    monkeypatch.setenv("OPSAPI_CA_FILE", sim.ca_file)
    check_get(sim, opsapi.Client.from_env())


def test_plain_simulator_has_no_ca_file_and_bad_modes_are_refused():
    with Simulator(tls=False) as sim:
        assert sim.ca_file is None and sim.base_url.startswith("http://")
    with pytest.raises(ValueError, match="unknown TLS mode `tofu`"):
        Simulator(tls="tofu")


def test_pem_files_go_with_the_simulator():
    sim = Simulator(tls="self-signed")
    path = sim.ca_file
    assert os.path.isfile(path)
    sim.close()
    assert sim.closed
    assert not os.path.exists(os.path.dirname(path))


def test_python_m_opsapi_sim_tls_prints_the_ca_file():
    proc = subprocess.Popen(
        [sys.executable, "-m", "opsapi", "sim", "--port", "0", "--tls", "self-signed"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        env = Lines(proc).env_until("# Ctrl-C")
        assert env["OPSAPI_BASE_URL"].startswith("https://127.0.0.1:")
        assert env["OPSAPI_CA_FILE"].endswith("server.pem")
        client = opsapi.Client(
            env["OPSAPI_BASE_URL"],
            env["OPSAPI_PUBLIC_KEY"],
            env["OPSAPI_PRIVATE_KEY"],
            ca_file=env["OPSAPI_CA_FILE"],
        )
        assert len(client.groups.list()) == 3  # the default world
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
        assert not os.path.exists(env["OPSAPI_CA_FILE"])
    finally:
        stop(proc)
