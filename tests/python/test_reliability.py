"""Issue 12 on the Python side: fork, arguments, secrets, exit, async iteration, logging, and
results exactly as sent. Each test failed on the release before it."""

from __future__ import annotations

import datetime as dt
import http.server
import json
import multiprocessing
import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import opsapi

API = "/api/public/v1.0"
UTC = dt.timezone.utc
KEY = "9f2d3c4b-1a2b-4c3d-8e9f-0a1b2c3d4e5f"


def sent(sim, method=None):
    return [
        r for r in sim.requests() if r["authorized"] and (method is None or r["method"] == method)
    ]


def run_python(code: str, *, env=None, timeout=60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


# ---- 1. fork ---------------------------------------------------------------------------


def _wait_child(pid: int, seconds: float = 20.0) -> int:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.02)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("the child process hung")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_calls_work_in_a_forked_child_with_old_and_new_clients(sim):
    group = sim.group_ids[0]
    before = sim.client(timeout=5)
    assert len(before.hosts.list(group)) == 5  # the parent's runtime and pool are warm
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        try:
            os.close(read)
            after = sim.client(timeout=5)
            got = [len(before.hosts.list(group)), len(after.hosts.list(group))]
            os.write(write, json.dumps(got).encode())
            os._exit(0)
        except BaseException as e:  # report anything
            os.write(write, json.dumps(repr(e)).encode())
            os._exit(1)
    os.close(write)
    code = _wait_child(pid)
    with os.fdopen(read) as f:
        out = json.loads(f.read() or "null")
    assert (code, out) == (0, [5, 5])
    # The parent is unaffected.
    assert len(before.hosts.list(group)) == 5


def _pool_task(args):
    base_url, public, private, group = args
    import opsapi

    return len(opsapi.Client(base_url, public, private, timeout=5).hosts.list(group))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_fork_pool_runs_calls(sim):
    sim.client().groups.list()  # the parent's runtime is running when the pool forks
    ctx = multiprocessing.get_context("fork")
    args = [(sim.base_url, sim.public_key, sim.private_key, g) for g in sim.group_ids]
    with ctx.Pool(2) as pool:
        got = pool.map_async(_pool_task, args * 2).get(timeout=30)
    assert got == [5] * (2 * len(sim.group_ids))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
async def test_async_client_in_a_forked_child(sim):
    client = sim.async_client(timeout=5)
    group = sim.group_ids[0]
    assert len(await client.hosts.list(group)) == 5
    pid = os.fork()
    if pid == 0:
        import asyncio

        try:
            n = asyncio.run(_count_hosts(sim, group))
            os._exit(0 if n == 5 else 2)
        except BaseException:
            os._exit(1)
    assert _wait_child(pid) == 0


async def _count_hosts(sim, group):
    return len(await sim.async_client(timeout=5).hosts.list(group))


# ---- 9. arguments ----------------------------------------------------------------------

SURROGATE = "id\udcff"


def _surrogate_calls(g):
    s = SURROGATE
    return {
        "entry_id": lambda c: c.access_list.delete(s),
        "alert_id": lambda c: c.global_alerts.get(s),
        "alert_id ": lambda c: c.global_alerts.acknowledge(s, duration="PT1H"),
        "alert_id  ": lambda c: c.global_alerts.unacknowledge(s),
        "comment": lambda c: c.global_alerts.acknowledge("a", duration="PT1H", comment=s),
        "status": lambda c: c.global_alerts.list(status=s),
        "created_on_or_after": lambda c: c.global_alerts.list(created_on_or_after=s),
        "group_id": lambda c: c.hosts.get(s, "h"),
        "host_id": lambda c: c.hosts.partitions(g, s),
        "alert_config_id": lambda c: c.alert_configs.open_alerts(g, s),
        "event_id": lambda c: c.events.get(g, s),
        "partition_name": lambda c: c.measurements.disk(
            g, "h", s, granularity="PT1M", period="P1D"
        ),
        "granularity": lambda c: c.measurements.host(g, "h", granularity=s, period="P1D"),
        "period": lambda c: c.measurements.host(g, "h", granularity="PT1M", period=s),
        "metrics[1]": lambda c: c.measurements.host(
            g, "h", granularity="PT1M", period="P1D", metrics=["CONNECTIONS", s]
        ),
        "targets[0][1]": lambda c: c.measurements.fleet([(g, s)], granularity="PT1M", period="P1D"),
    }


@pytest.mark.parametrize("argument", list(_surrogate_calls("g")))
def test_a_lone_surrogate_is_an_argument_error_naming_it(sim, client, argument):
    call = _surrogate_calls(sim.group_ids[0])[argument]
    with pytest.raises(opsapi.InvalidArgumentError) as e:
        call(client)
    assert e.value.argument == argument.strip()
    assert f"`{argument.strip()}`" in str(e.value) and "lone surrogate" in str(e.value)
    assert sim.requests() == []


@pytest.mark.parametrize(
    "kwargs,argument,message",
    [
        ({"period": "P99999999W"}, "period", "`P99999999W` is longer than 100 years"),
        ({"period": "P4294967295Y"}, "period", "`P4294967295Y` is longer than 100 years"),
        ({"period": dt.timedelta.max}, "period", "is longer than 100 years"),
        ({"period": "P1D", "metrics": []}, "metrics", "is empty; leave it out"),
        ({"period": "P1D", "metrics": "CONNECTIONS"}, "metrics", "must be a list"),
    ],
)
def test_windows_that_would_reach_the_server_are_refused(sim, client, kwargs, argument, message):
    with pytest.raises(opsapi.InvalidArgumentError) as e:
        client.measurements.host(sim.group_ids[0], "h", granularity="PT1M", **kwargs)
    assert e.value.argument == argument and message in str(e.value)
    assert sim.requests() == []


@pytest.mark.parametrize(
    "kwargs,argument,message",
    [
        ({"max_retries": 10**20}, "max_retries", "must be at most 100"),
        ({"max_concurrency": 10**20}, "max_concurrency", "must be from 1 to 1024"),
        ({"max_concurrency": 0}, "max_concurrency", "must be from 1 to 1024"),
        ({"max_retries": -1}, "max_retries", "must be 0 or more"),
        ({"max_retries": "3"}, "max_retries", "must be an int, not str"),
        ({"timeout": float("inf")}, "timeout", "positive number"),
        ({"timeout": 10**400}, "timeout", "positive number"),
        ({"timeout": 0}, "timeout", "positive number"),
        ({"verify": "no"}, "verify", "must be True or False, not str"),
        ({"user_agent": "tool/1.0\r\nX-Injected: 1"}, "user_agent", "contains a line break"),
        ({"user_agent": "outil/ü"}, "user_agent", "printable ASCII"),
        ({"max_response_bytes": 0}, "max_response_bytes", "positive number of bytes"),
    ],
)
def test_client_settings_are_checked_by_name(sim, kwargs, argument, message):
    with pytest.raises(opsapi.InvalidArgumentError) as e:
        opsapi.Client(sim.base_url, sim.public_key, sim.private_key, **kwargs)
    assert e.value.argument == argument and message in str(e.value), str(e.value)


@pytest.mark.parametrize(
    "public,private,argument",
    [
        ("pub\n", KEY, "public_key"),
        ("pub", KEY + "\n", "private_key"),
        ("pub", KEY + "\r\n", "private_key"),
        ("pub", " " + KEY, "private_key"),
        ("pub", "", "private_key"),
        (7, KEY, "public_key"),
    ],
)
def test_keys_with_line_breaks_are_refused_without_echoing_them(sim, public, private, argument):
    with pytest.raises(opsapi.InvalidArgumentError) as e:
        opsapi.Client(sim.base_url, public, private)
    assert e.value.argument == argument
    assert KEY not in str(e.value)


def test_type_errors_name_the_argument_in_the_message(sim, client):
    g = sim.group_ids[0]
    for call, argument in [
        (lambda: client.hosts.get(g, 42), "host_id"),
        (lambda: client.events.get(g, "e", include_raw="yes"), "include_raw"),
        (lambda: client.global_alerts.acknowledge("a", forever=1), "forever"),
        (lambda: client.measurements.fleet([(g, "h")], granularity="PT1M", period=5), "period"),
    ]:
        with pytest.raises(opsapi.InvalidArgumentError) as e:
            call()
        assert e.value.argument == argument and f"`{argument}`" in str(e.value)
    assert sim.requests() == []


def test_acknowledging_until_the_past_points_to_unacknowledge(sim, client):
    past = dt.datetime.now(UTC) - dt.timedelta(minutes=5)
    with pytest.raises(opsapi.InvalidArgumentError) as e:
        client.global_alerts.acknowledge("5a0a1e7e0f2912c554080adc", until=past)
    assert e.value.argument == "until" and "unacknowledge()" in str(e.value)
    assert sim.requests() == []


def test_parse_duration_refuses_what_a_timedelta_cannot_hold():
    from opsapi._duration import parse_duration

    assert parse_duration("4h") == dt.timedelta(hours=4)
    with pytest.raises(opsapi.InvalidArgumentError) as e:
        parse_duration("P4294967295W")
    assert "longer than 100 years" in str(e.value)


def test_cli_refuses_an_endless_ack_with_exit_2(sim, tmp_path):
    env = {
        "OPSAPI_BASE_URL": sim.base_url,
        "OPSAPI_PUBLIC_KEY": sim.public_key,
        "OPSAPI_PRIVATE_KEY": sim.private_key,
    }
    r = subprocess.run(
        [sys.executable, "-m", "opsapi.cli", "alerts", "ack", "x", "--for", "P4294967295W"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=60,
    )
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "longer than 100 years" in r.stderr
    assert "Traceback" not in r.stderr


# ---- 10. secrets -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        f"https://pub:{KEY}@om.example.com:8443",
        f"https://{KEY}@om.example.com:8443",
        f"https://om.example.com:8443/{KEY}",
        f"https://om.example.com:8443/api/public/v1.0?key={KEY}",
        f"https://om.example.com:8443/#{KEY}",
        f"om.example.com:8443/{KEY}",
    ],
)
def test_a_key_pasted_into_base_url_is_never_echoed(url, caplog):
    import logging

    with caplog.at_level(logging.DEBUG, logger="opsapi"):
        with pytest.raises(opsapi.InvalidArgumentError) as e:
            opsapi.Client(url, "pub", KEY)
    texts = [str(e.value), repr(e.value), *(r.getMessage() for r in caplog.records)]
    assert e.value.argument == "base_url"
    assert not [t for t in texts if KEY in t]


def test_the_cli_does_not_echo_a_key_in_base_url(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "opsapi.cli", "alerts", "list"],
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "OPSAPI_BASE_URL": f"https://pub:{KEY}@om.example.com:8443/{KEY}",
            "OPSAPI_PUBLIC_KEY": "pub",
            "OPSAPI_PRIVATE_KEY": KEY,
        },
        timeout=60,
    )
    assert r.returncode == 2
    assert "base_url" in r.stderr and KEY not in r.stderr + r.stdout


def test_no_key_in_debug_logs_or_reprs_of_a_failing_call(sim, caplog):
    import logging

    c = opsapi.Client(sim.base_url, sim.public_key, sim.private_key, max_retries=1, timeout=5)
    sim.inject(503, 1, retry_after=0)
    with caplog.at_level(logging.DEBUG, logger="opsapi"):
        c.groups.list()
        with pytest.raises(opsapi.AuthenticationError) as e:
            opsapi.Client(sim.base_url, sim.public_key, KEY, max_retries=0).groups.list()
    texts = [repr(c), str(e.value), repr(e.value), e.value.body]
    texts += [r.getMessage() for r in caplog.records]
    assert caplog.records
    assert not [t for t in texts if sim.private_key in t or KEY in t]


# ---- 11. exit with calls in flight ---------------------------------------------------------

EXIT_WITH_CALLS_IN_FLIGHT = """
    import sys, threading, time
    import opsapi
    from opsapi.testing import Simulator

    sim = Simulator(seed=0)
    sim.set_faults(latency=3.0)
    client = sim.client(timeout=30)
    aclient = sim.async_client(timeout=30)

    def call():
        client.groups.list()

    for _ in range(4):
        threading.Thread(target=call, daemon=True).start()

    import asyncio
    async def main():
        task = asyncio.ensure_future(aclient.groups.list())
        await asyncio.sleep(0.2)
        return task
    loop = asyncio.new_event_loop()
    loop.run_until_complete(main())
    time.sleep(0.3)
    print("exiting", flush=True)
    sys.exit(0)
"""


@pytest.mark.parametrize("run", range(3))
def test_exit_with_calls_in_flight_is_clean(run):
    r = run_python(EXIT_WITH_CALLS_IN_FLIGHT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "exiting"
    assert "Traceback" not in r.stderr and "RuntimeError" not in r.stderr, r.stderr


def test_a_call_after_shutdown_raises_a_typed_error():
    r = run_python(
        """
        import atexit

        def late():
            import opsapi
            try:
                opsapi.Client("http://127.0.0.1:9", "pub", "key").groups.list()
            except opsapi.ShutdownError as e:
                print("ShutdownError:", e, flush=True)

        atexit.register(late)  # runs after opsapi's own atexit hook (LIFO)
        import opsapi
        opsapi.Client("http://127.0.0.1:9", "pub", "key")
        """
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ShutdownError: the opsapi runtime is shut down"), r.stdout


# ---- 12. async iteration -----------------------------------------------------------------


async def test_a_plain_for_over_an_async_iterator_says_async_for(aclient, sim):
    it = aclient.global_alerts.iter(status="OPEN")
    with pytest.raises(TypeError, match="use `async for"):
        for _ in it:
            pass
    assert sim.requests() == []
    got = [a async for a in it]
    assert got and all(a.status == "OPEN" for a in got)


# ---- 13. logging -------------------------------------------------------------------------


def test_retry_warnings_do_not_reach_stderr_without_logging_configured():
    r = run_python(
        """
        from opsapi.testing import Simulator
        with Simulator(seed=0) as sim:
            sim.inject(503, 1, retry_after=0)
            sim.client(max_retries=2).groups.list()
            print("ok")
        """
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok" and r.stderr == ""


def test_the_opsapi_logger_has_a_null_handler():
    import logging

    handlers = logging.getLogger("opsapi").handlers
    assert any(isinstance(h, logging.NullHandler) for h in handlers)


# ---- 14. results exactly as sent -------------------------------------------------------


async def test_delete_returns_none_sync_and_async(own_sim, own_client, own_aclient):
    sim, client, aclient = own_sim, own_client, own_aclient
    entries = client.access_list.list()
    assert len(entries) >= 2 and all(isinstance(e, opsapi.AccessListEntry) for e in entries)
    first, second = entries[0], entries[1]
    assert first.id and first.cidr_block and first.to_dict()["id"] == first.id
    sim.clear_requests()
    assert client.access_list.delete(first.id) is None
    assert await aclient.access_list.delete(second.id) is None
    deletes = sent(sim, "DELETE")
    assert [(r["path"], r["status"]) for r in deletes] == [
        (f"{API}/admin/accessList/{first.id}", 204),
        (f"{API}/admin/accessList/{second.id}", 204),
    ]
    left = {e.id for e in await aclient.access_list.list()}
    assert first.id not in left and second.id not in left


class _Canned(http.server.BaseHTTPRequestHandler):
    """Answers every GET with the body of its path from `BODIES`, without auth (an unsigned
    first request that gets a 200 is how a client meets a server without Digest)."""

    BODIES: dict[str, bytes] = {}

    def do_GET(self):  # noqa: N802
        body = self.BODIES.get(self.path.split("?")[0], b"{}")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def canned():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Canned)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def test_big_integers_stay_exact_in_attributes_and_to_dict(canned):
    big = 123456789012345678901234567890
    event = (
        '{"id": "e", "raw": {"n": BIG, "nested": [BIG, 1.5]}, "diffs": [{"params": '
        '[{"param": "p", "new": BIG, "old": 1}]}]}'
    ).replace("BIG", str(big))
    _Canned.BODIES = {f"{API}/groups/g/events/e": event.encode()}
    c = opsapi.Client(f"http://127.0.0.1:{canned.server_port}", "pub", KEY, max_retries=0)
    e = c.events.get("g", "e")
    assert e.raw == {"n": big, "nested": [big, 1.5]}
    assert e.to_dict()["raw"]["n"] == big
    assert e.diffs[0].params[0].new == big


def test_measurements_to_dict_is_the_servers_json(canned):
    body = (
        '{"groupId": "g", "hostId": "h", "granularity": "PT1M", "zeta": 1.0e3,'
        ' "links": [{"href": "https://x/self", "rel": "self", "title": "me"}],'
        ' "measurements": [{"name": "CONNECTIONS", "units": "SCALAR", "dataPoints": ['
        '{"timestamp": "2024-05-01T00:00:00Z", "value": 5, "flag": true},'
        '{"timestamp": "2024-05-01T00:01:00Z", "value": null}]}]}'
    )
    _Canned.BODIES = {f"{API}/groups/g/hosts/h/measurements": body.encode()}
    c = opsapi.Client(f"http://127.0.0.1:{canned.server_port}", "pub", KEY, max_retries=0)
    m = c.measurements.host("g", "h", granularity="PT1M", period="PT2M")
    d = m.to_dict()
    assert d == json.loads(body)
    assert list(d["links"][0]) == ["href", "rel", "title"]
    assert type(d["measurements"][0]["dataPoints"][0]["value"]) is int
    assert m.series[0].values == [5.0, None]
