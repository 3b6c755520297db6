"""Under a server's rate limit (issue 14): the simulator's per-project limit and its 429s, the
pace the client learns from them, and the opt-in `rate_limit=` (sync and async)."""

from __future__ import annotations

import pytest

import opsapi
from opsapi.testing import Simulator

API = "/api/public/v1.0"


@pytest.fixture(scope="module")
def limited():
    # 40 hosts a project at 20 requests per second: 20 fit each project's bucket, the other
    # 20 must be paced (unpaced, each of them would be refused at least once).
    with Simulator(seed=0, projects=2, hosts_per_project=40, rate_limit=20) as sim:
        yield sim


def targets(sim):
    return [(h["group_id"], h["id"]) for h in sim.world()["hosts"]]


def pull(client, sim, **kwargs):
    # A fixed window: 7 points with both ends (one ending now moves with the clock).
    return client.measurements.fleet(
        targets(sim),
        granularity="PT1H",
        start="2026-01-01T00:00:00Z",
        end="2026-01-01T06:00:00Z",
        metrics=["CONNECTIONS"],
        progress=False,
        **kwargs,
    )


def statuses(sim):
    return [r["status"] for r in sim.requests() if r["signed"]]


def test_past_the_limit_the_simulator_says_so_as_ops_manager_does(fixed_now):
    # On a clock that stands still no token comes back between the two calls, however slow
    # the machine is between them.
    with Simulator(seed=0, projects=2, hosts_per_project=1, rate_limit=1, now=fixed_now) as sim:
        g = sim.group_ids[0]
        client = sim.client(max_retries=0)
        client.groups.get(g)
        with pytest.raises(opsapi.RateLimitError) as e:
            client.groups.get(g)
        assert e.value.status == 429
        assert e.value.error_code == "RATE_LIMITED"
        assert (
            e.value.detail
            == f"Resource {API}/groups/{g} is limited to 60 requests every 1 minutes."
        )
        assert e.value.retry_after == 1
        # Another project has its own bucket; this one's token is back after a second.
        client.groups.get(sim.group_ids[1])
        sim.advance(1)
        client.groups.get(g)
        assert statuses(sim)[-4:] == [200, 429, 200, 200]


def test_a_pull_learns_the_pace_and_loses_no_target(limited):
    limited.set_rate_limit(20)  # buckets full
    limited.clear_requests()
    frame, failures = pull(limited.client(), limited, keep_going=True)
    assert failures.height == 0
    assert frame.height == 80 * 7
    seen = statuses(limited)
    assert seen.count(200) == 80
    # Only the requests on the wire when a bucket ran dry are refused (at most
    # max_concurrency, 8, per project) and a few paced ones a busy machine sends late: far
    # fewer than the 40 paced ones.
    assert seen.count(429) <= 20, seen


async def test_the_async_client_learns_it_too(limited):
    limited.set_rate_limit(20)
    limited.clear_requests()
    frame = await pull(limited.async_client(), limited)
    assert frame.height == 80 * 7
    assert statuses(limited).count(429) <= 20


def test_the_clients_own_rate_limit_sends_no_request_past_it(limited):
    limited.set_rate_limit(20)
    limited.clear_requests()
    frame = pull(limited.client(rate_limit=20), limited)
    assert frame.height == 80 * 7
    assert set(statuses(limited)) == {200}


@pytest.mark.parametrize("bad", [0, -1, float("inf"), float("nan")])
def test_rate_limit_is_checked_before_any_request(bad):
    with pytest.raises(opsapi.InvalidArgumentError, match="rate_limit"):
        opsapi.Client("http://127.0.0.1:9", "pub", "key", rate_limit=bad)


def test_rate_limit_must_be_a_number():
    with pytest.raises(opsapi.InvalidArgumentError, match="rate_limit.*requests per second"):
        opsapi.AsyncClient("http://127.0.0.1:9", "pub", "key", rate_limit="fast")
