"""Measurement names per flavour, from Python: the tables the native module exports (Rust's),
a name only another flavour has refused before any request (sync and async), one no catalog
knows sent for the server to judge (its refusal typed, one warning), the README's capacity
example against Atlas asking only names the specification accepts, at most 10 a request, and
the fleet benchmark's pull staying one request per target on Ops Manager."""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import re
from pathlib import Path
from urllib.parse import parse_qsl

import pytest
from conftest import FIXED_NOW

import opsapi
from opsapi._native import MAX_MEASUREMENTS, MEASUREMENT_NAMES
from opsapi.testing import Simulator

ROOT = Path(__file__).resolve().parents[2]
NAMES = {"ops-manager": "Ops Manager", "cloud-manager": "Cloud Manager", "atlas": "Atlas"}


async def _awaited(method, *args, **kw):
    return await method(*args, **kw)


def _kind(path: str) -> str:
    """The kind of a measurements path: ``host``, ``disk`` or ``database``."""
    below = path.rsplit("/measurements", 1)[0].split("/")
    return {"disks": "disk", "databases": "database"}.get(below[-2], "host")


def _asked(sim: Simulator) -> list[tuple[str, list[str]]]:
    """(kind, m values) of every measurements request that passed authentication."""
    return [
        (_kind(r["path"]), [v for k, v in parse_qsl(r["query"] or "") if k == "m"])
        for r in sim.requests()
        if r["authorized"] and r["path"].endswith("/measurements")
    ]


def test_the_native_module_exports_each_flavours_names_and_limit():
    assert MAX_MEASUREMENTS == {"ops-manager": None, "cloud-manager": None, "atlas": 10}
    assert MEASUREMENT_NAMES["ops-manager"] == MEASUREMENT_NAMES["cloud-manager"]
    host = {f: set(MEASUREMENT_NAMES[f]["host"]) for f in MAX_MEASUREMENTS}
    assert {"OPLOG_REPLICATION_LAG", "SYSTEM_NETWORK_IN", "CACHE_USED_BYTES"} <= host["atlas"]
    assert "OPLOG_REPLICATION_LAG_TIME" in host["ops-manager"] - host["atlas"]
    assert "DATABASE_VIEW_COUNT" in MEASUREMENT_NAMES["atlas"]["database"]


def _clients_and_a_host(sim: Simulator) -> tuple:
    """A client and an async client of ``sim``, a project and its first host (by the
    flavour's id), and an empty request log."""
    client, aclient = sim.client(), sim.async_client()
    g = sim.group_ids[0]
    h = client.hosts.list(g)[0].id
    sim.clear_requests()
    return client, aclient, g, h


@pytest.mark.parametrize(
    ("flavour", "lacks", "has"),
    [
        ("atlas", "DB_INDEX_SIZE_TOTAL", "a host measurement of Ops Manager and Cloud Manager"),
        ("ops-manager", "FTS_DISK_UTILIZATION", "a host measurement of Atlas"),
    ],
)
def test_a_name_only_another_flavour_has_is_refused_before_any_request(flavour, lacks, has):
    with Simulator(now=FIXED_NOW, flavour=flavour) as sim:
        client, aclient, g, h = _clients_and_a_host(sim)
        kw = {"granularity": "PT1H", "period": "P1D", "metrics": ["CONNECTIONS", lacks]}
        want = f"`{lacks}` is {has} that {NAMES[flavour]} does not have"
        for call in (
            lambda: client.measurements.host(g, h, **kw),
            lambda: client.measurements.fleet([(g, h)], **kw),
            lambda: asyncio.run(_awaited(aclient.measurements.host, g, h, **kw)),
        ):
            with pytest.raises(opsapi.InvalidArgumentError, match=re.escape(want)) as e:
                call()
            assert e.value.argument == "metrics"
        assert sim.requests() == []


@pytest.mark.parametrize("flavour", ["ops-manager", "cloud-manager", "atlas"])
def test_a_name_no_catalog_knows_is_sent_and_the_servers_refusal_is_typed(flavour, caplog):
    """Servers add measurements: a name no catalog of opsapi's has is sent as it is, the
    server's 404 ``INVALID_METRIC_NAME`` is a ``NotFoundError`` with the name in its detail,
    and the ``opsapi`` logger says once per name (in this process) that opsapi does not know
    it."""
    unknown = f"NEXT_YEARS_MEASUREMENT_{flavour.upper().replace('-', '_')}"
    with Simulator(now=FIXED_NOW, flavour=flavour) as sim:
        client, aclient, g, h = _clients_and_a_host(sim)
        kw = {"granularity": "PT1H", "period": "P1D", "metrics": ["CONNECTIONS", unknown]}
        with caplog.at_level(logging.WARNING, logger="opsapi"):
            for call in (
                lambda: client.measurements.host(g, h, **kw),
                lambda: asyncio.run(_awaited(aclient.measurements.host, g, h, **kw)),
            ):
                with pytest.raises(opsapi.NotFoundError) as e:
                    call()
                assert (e.value.status, e.value.error_code) == (404, "INVALID_METRIC_NAME")
                assert unknown in e.value.detail
        asked = _asked(sim)
    assert asked == [("host", ["CONNECTIONS", unknown])] * 2
    said = [r.getMessage() for r in caplog.records if r.name == "opsapi" and unknown in r.message]
    assert said == [
        f"opsapi does not know the measurement {unknown}: sent to {NAMES[flavour]} as it is, "
        "for the server to judge"
    ]


def _readme_capacity_code() -> str:
    """The README's capacity analysis and headroom examples, as a reader pastes them."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("Capacity analysis (`opsapi.capacity`", 1)[1]
    blocks = re.findall(r"^```python\n(.*?)^```", section, re.S | re.M)
    return blocks[0] + blocks[1]


def test_the_readme_capacity_example_runs_against_atlas_asking_only_its_names():
    """The README's capacity example with only the simulator's constructor changed: every
    measurement request names only what Atlas's specification accepts, at most 10 a request
    (the headroom's 17 host measurements take two)."""
    code = _readme_capacity_code()
    assert "headroom_inputs(client)" in code
    with Simulator(now=FIXED_NOW, flavour="atlas") as sim:
        client = sim.client()
        scope = {"sim": sim, "client": client}
        exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 (the README's own example)
        asked = _asked(sim)
    kinds = {kind for kind, _ in asked}
    assert kinds == {"host", "disk", "database"}
    for kind, names in asked:
        assert 1 <= len(names) <= MAX_MEASUREMENTS["atlas"], names
        assert set(names) <= set(MEASUREMENT_NAMES["atlas"][kind]), names
    host_requests = [names for kind, names in asked if kind == "host"]
    assert sorted({len(n) for n in host_requests}) == [7, 10]
    assert "OPLOG_REPLICATION_LAG" in {n for names in host_requests for n in names}
    # The analysis found what it finds against Ops Manager's world: every resource.
    assert set(scope["h"]["resource"].unique()) >= {"disk", "cpu", "cache", "replication_lag"}


def _bench_metrics() -> list[str]:
    """The fleet benchmark's measurement names (bench/run.py's METRICS)."""
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "bench" / "run.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.METRICS)


@pytest.mark.parametrize(("flavour", "per_target"), [("ops-manager", 1), ("atlas", 2)])
def test_the_fleet_benchmarks_pull_is_one_request_per_target_on_ops_manager(flavour, per_target):
    """bench/run.py's fleet pull (20 names a host): one request per target on Ops Manager (its
    "1.010 requests per call" is that, and the Digest handshake's one 401), two on Atlas."""
    metrics = _bench_metrics()
    assert len(metrics) == 20
    with Simulator(now=FIXED_NOW, flavour=flavour) as sim:
        client = sim.client()
        targets = [(g, h.id) for g in sim.group_ids for h in client.hosts.list(g)]
        sim.clear_requests()
        frame = client.measurements.fleet(
            targets, granularity="PT1H", period="PT6H", metrics=metrics
        )
        asked = _asked(sim)
        unauthorized = [r for r in sim.requests() if not r["authorized"]]
    assert len(asked) == per_target * len(targets)
    assert unauthorized == []  # the handshake was the listing's
    assert set(frame["measurement"].cast(str).unique()) == set(metrics)
