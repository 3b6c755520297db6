"""One client for Ops Manager, Cloud Manager and Atlas: every operation a flavour has, sync and
async, against the simulator serving that flavour, with the exact request that went out (path,
query, the ``Accept`` header's version, Digest or Bearer) and the same result from the same
world; what a flavour lacks refused before any request. Every operation of the flavour table
(``opsapi._native.OPERATIONS``, Rust's ``Operation::ALL``) has its call, and each flavour's
exact request for it, in the table of calls (tests/fixtures/calls.json, ``_calls.py``). The
clients of each flavour (``Client.atlas``, ``flavour=``, ``from_env``, profiles, tokens) are in
test_flavours_clients.py, the same frames and findings through each flavour in
test_flavours_world.py; the simulators (``sims``, ``clients``) are conftest.py's."""

from __future__ import annotations

import asyncio
import collections
from typing import Any, Callable

import _calls as calls
import pytest
from conftest import FIXED_NOW, api_requests

import opsapi
from opsapi._native import ATLAS_VERSIONS, OPERATION_TABLE, OPERATIONS
from opsapi.testing import Simulator


class Ids:
    """A mongod's identifiers, as the flavour names its host (hex id, or hostname:port)."""

    def __init__(self, sim: Simulator) -> None:
        # A database of a primary with an application's databases (it has slow queries).
        dbs = sim.database_truth()
        counts = collections.Counter(d["host_id"] for d in dbs)
        primaries = {
            h["id"]
            for h in sim.world()["hosts"]
            if h["type_name"].endswith("_PRIMARY") and counts[h["id"]] > 3
        }
        db = next(d for d in dbs if d["host_id"] in primaries)
        w = sim.world()
        atlas = sim.flavour == "atlas"
        self.g = db["group_id"]
        self.h = db["process_id"] if atlas else db["host_id"]
        self.p = db["partition_name"]
        self.d = db["database_name"]
        # An event of a type every flavour names alike (not a restart's or auto-scaling's).
        self.e = next(e["id"] for e in w["events"] if e["group_id"] == self.g
                      and e["event_type_name"] not in OWN_EVENTS)  # fmt: skip
        # A cluster of the project: its id on Ops Manager and Cloud Manager, its name on Atlas.
        cluster = next(c for c in sim.cluster_truth() if c["group_id"] == self.g)
        self.k = cluster["name"] if atlas else cluster["id"]
        agents = {c["id"] for c in w["alert_configs"]
                  if c["event_type_name"] in ATLAS_LACKS["alert types"]}  # fmt: skip
        self.c = next(
            a["alert_config_id"]
            for a in w["alerts"]
            if a["status"] == "OPEN"
            and a["group_id"] == self.g
            and a["alert_config_id"] not in agents
        )
        self.a = next(
            a["id"]
            for a in w["project_alerts"]
            if a["group_id"] == self.g and a["alert_config_id"] not in agents
        )
        # Two project alerts, two open global alerts, two access-list entries: one for the sync
        # call of a write, one for the async call (the alerts of a type every flavour has).
        self.project_alerts = [
            a["id"]
            for a in w["project_alerts"]
            if a["group_id"] == self.g and a["alert_config_id"] not in agents
        ]
        self.global_alerts = [a["id"] for a in w["alerts"] if a["status"] == "OPEN"]
        self.x = [x["id"] for x in w["access_list"]]

    def by_name(self, n: int = 0) -> dict[str, str]:
        """The identifiers by the names the table of calls gives them; ``alert``,
        ``global_alert`` and ``entry`` are the ``n``-th project alert, open global alert and
        access-list entry (a write's sync call takes one, its async call another)."""
        return {
            "group": self.g, "host": self.h, "partition": self.p, "database": self.d,
            "event": self.e, "alert_config": self.c, "alert": self.project_alerts[n],
            "global_alert": self.global_alerts[n], "entry": self.x[n], "cluster": self.k,
        }  # fmt: skip


# What the simulator's world holds that Atlas does not have, and so does not serve: standalone
# processes (and their alerts), Ops Manager's agent alerts (and their configurations), Ops
# Manager's own fields of events, two database measurements,
# the replica sets within a sharded cluster as clusters of their own (Ops Manager lists them);
# and the alert metric Atlas names its own way.
ATLAS_LACKS = {
    "host types": {"STANDALONE"},
    "alert types": {"MONITORING_AGENT_DOWN", "BACKUP_AGENT_DOWN"},
    "database measurements": {"DATABASE_WRITE_LOCK_PERCENTAGE", "DATABASE_FILE_SIZE"},
    # Ops Manager's own: a host event's host id (and name, but for a replica set's event,
    # which has no isGlobalAdmin instead), an audit's diffs, an alert audit's configuration
    # (no schema of Atlas's events has these).
    "event fields": {"hostId", "diffs", "alertConfigId"},
}
ATLAS_ALERT_METRICS = {"OPLOG_REPLICATION_LAG_TIME": "OPLOG_SLAVE_LAG_MASTER_TIME"}


#: The event types one flavour names its own way (a restart: Ops Manager's HOST_RESTARTED,
#: Atlas's CLUSTER_INSTANCE_RESTARTED) or alone has (Atlas's auto-scaling): compared apart.
OWN_EVENTS = {"HOST_RESTARTED", "CLUSTER_INSTANCE_RESTARTED", "COMPUTE_AUTO_SCALE_INITIATED_BASE",
              "DISK_AUTO_SCALE_INITIATED"}  # fmt: skip


def as_atlas(op: str, result: Any, standalones: set[str]) -> Any:
    """An Ops Manager result as Atlas gives it (:data:`ATLAS_LACKS`; ``standalones``: the
    hostnames of the world's standalone processes, whose alerts Atlas does not serve)."""
    if op == "hosts.list":
        return [h for h in result if h[2] not in ATLAS_LACKS["host types"]]
    if op in ("alerts.list", "alert_configs.open_alerts"):
        result = [x for x in result if (x[0] or ":").rsplit(":", 1)[0] not in standalones]
    if op in ("alerts.list", "alert_configs.list"):
        return [
            (*x[:-2], ATLAS_ALERT_METRICS.get(x[-2], x[-2]), x[-1])
            for x in result
            if x[-1] not in ATLAS_LACKS["alert types"]
        ]
    if op == "events.get":
        lacks = {*ATLAS_LACKS["event fields"], "isGlobalAdmin"
                 if result["eventTypeName"] == "PRIMARY_ELECTED" else "hostname"}  # fmt: skip
        return {k: v for k, v in result.items() if k not in lacks}
    if op == "measurements.database":
        return [r for r in result if r["measurement"] not in ATLAS_LACKS["database measurements"]]
    if op == "clusters.list":
        # (name, type, shard_name): a shard's replica set has a shard name, the config
        # servers' their own type.
        return [x for x in result if x[2] is None and x[1] != "config_servers"]
    if isinstance(result, dict) and "metricName" in result.get("metricThreshold", {}):
        # An object as served (an alert configuration): its metric in Atlas's words.
        metric = result["metricThreshold"]["metricName"]
        threshold = {
            **result["metricThreshold"],
            "metricName": ATLAS_ALERT_METRICS.get(metric, metric),
        }
        return {**result, "metricThreshold": threshold}
    return result


def _hosts(hs: Any) -> list[tuple[Any, ...]]:
    return [(h.hostname, h.port, h.type_name, h.replica_set_name) for h in hs]


def _frame(m: Any) -> list[dict[str, Any]]:
    return m.to_polars().drop("host_id").to_dicts()


def _as_served(r: Any) -> Any:
    """What the flavours agree on by default: the result as the server sent it, but its links
    (the servers' URLs)."""
    if isinstance(r, list):
        return [_as_served(x) for x in r]
    return {k: v for k, v in r.to_dict().items() if k != "links"}


# What of an operation's result the flavours must agree on, where it is not the result as
# served (``_as_served``): its call and its exact requests are the table of calls'
# (tests/fixtures/calls.json).
SUMMARIES: dict[str, Callable[[Any], Any]] = {
    "groups.list": lambda r: [g.id for g in r],
    "groups.get": lambda r: r.name,
    "hosts.list": _hosts,
    "hosts.get": lambda r: _hosts([r]),
    "hosts.partitions": list,
    "hosts.databases": list,
    "measurements.host": _frame,
    "measurements.disk": _frame,
    "measurements.database": _frame,
    "events.list": lambda r: [e.id for e in r if e.event_type_name not in OWN_EVENTS],
    "alerts.list": lambda r: [
        (a.hostname_and_port, a.id, a.status, a.metric_name, a.event_type_name) for a in r
    ],
    "alerts.get": lambda r: (r.id, r.event_type_name, r.created),
    "alert_configs.list": lambda r: [
        (x.id, (x.metric_threshold or {}).get("metricName"), x.event_type_name) for x in r
    ],  # fmt: skip
    "alert_configs.open_alerts": lambda r: [(a.hostname_and_port, a.id) for a in r],
    "clusters.list": lambda r: [(x.name, x.type, x.shard_name) for x in r],
    "clusters.get": lambda r: (r.name, r.type, r.replica_set_name),
    "performance_advisor.namespaces": lambda r: [n.namespace for n in r],
    "performance_advisor.slow_query_logs": lambda r: [
        (q.namespace, q.line) for q in r.slow_queries
    ],
    "performance_advisor.suggested_indexes": lambda r: [
        (x.namespace, x.index, x.impact) for x in r.indexes
    ],
    "global_alerts.list": lambda r: [a.id for a in r],
    "global_alerts.get": lambda r: (r.id, r.status),
    "access_list.list": lambda r: [x.id for x in r],
}

# The operations that read, and those that write (each flavour on a simulator of its own).
READS = sorted(name for name in calls.CALLS if calls.method(name) == "GET")
WRITES = sorted(name for name in calls.CALLS if calls.method(name) != "GET")


def test_atlas_versions_are_the_tables():
    """Acknowledging is a newer resource version than reading; clusters the newest."""
    assert set(ATLAS_VERSIONS) == {op for op, fs in OPERATIONS.items() if "atlas" in fs}
    assert ATLAS_VERSIONS["alerts.acknowledge"] == "2024-05-30"
    assert ATLAS_VERSIONS["clusters.list"] == ATLAS_VERSIONS["clusters.get"] == "2024-08-05"
    assert ATLAS_VERSIONS["hosts.list"] == "2023-01-01"


def test_every_operation_of_the_table_is_called_here():
    """A new operation of the flavour table (src/flavour/operations.rs) fails here until the
    table of calls has its call, with the requests of the flavours its row gives it."""
    assert len(OPERATIONS) >= 21
    missing = set(OPERATIONS) - set(calls.CALLS)
    assert not missing, f"operations without a call in {calls.FILE.name}: {sorted(missing)}"
    assert not set(calls.CALLS) - set(OPERATIONS), "calls of no operation"
    for name, flavours in OPERATIONS.items():
        assert calls.flavours(name) == flavours, name
        assert calls.method(name) == OPERATION_TABLE[name]["method"], name


def _in_the_rows_words(op: str, query: Any) -> None:
    """What the call sends in its query are parameters its row names (or paging's)."""
    names = {kv.split("=")[0] for kv in (query or "").split("&") if kv}
    allowed = set(OPERATION_TABLE[op]["query"]) | {"pageNum", "itemsPerPage"}
    assert names <= allowed, (op, names - allowed)


async def _unsupported(sim: Simulator, op: str, clients: Any, ids: dict[str, str]) -> None:
    """Operation ``op``'s call raises UnsupportedError before any request, with each of
    ``clients`` (sync, then async)."""
    sim.clear_requests()
    for client in clients:
        with pytest.raises(opsapi.UnsupportedError) as e:
            got = calls.call(client, op, ids)
            if asyncio.iscoroutine(got) or hasattr(got, "__await__"):
                await got
        assert (e.value.operation, e.value.flavour) == (op, sim.flavour)
    assert sim.requests() == []


def _exported(op: str, result: Any) -> None:
    """The class of what ``op`` returns (or of its items) is opsapi's: a model that the module
    does not register, or the package does not export, fails here."""
    item = result[0] if isinstance(result, list) and result else result
    cls = type(item)
    if cls.__module__.startswith("opsapi"):
        assert getattr(opsapi, cls.__name__, None) is cls, f"{op}: opsapi.{cls.__name__}"


def _sent(sim: Simulator) -> list[tuple[Any, ...]]:
    return [
        (r["method"], r["path"], r["query"], r["accept"], r["status"], r["auth"])
        for r in api_requests(sim)
    ]


@pytest.mark.parametrize("op", READS)
async def test_each_flavour_sends_its_request_sync_and_async(sims, clients, op):
    summary = SUMMARIES.get(op, _as_served)
    results = {}
    for flavour, sim in sims.items():
        ids = Ids(sim)
        if flavour not in OPERATIONS[op]:
            await _unsupported(sim, op, clients[flavour], ids.by_name())
            continue
        scheme = "Bearer" if flavour == "atlas" else "Digest"
        want = calls.sent(op, flavour, ids.by_name())
        _in_the_rows_words(op, want.query)
        for client in clients[flavour]:
            sim.clear_requests()
            got = calls.call(client, op, ids.by_name())
            if asyncio.iscoroutine(got) or hasattr(got, "__await__"):
                got = await got
            assert _sent(sim) == [(*want, scheme)], (flavour, client)
            _exported(op, got)
            results.setdefault(flavour, []).append(summary(got))
    assert list(results) == list(OPERATIONS[op])  # the flavours that have it, each called
    first = results["ops-manager"]
    assert first[0] == first[1]
    if "cloud-manager" in results:
        assert results["cloud-manager"] == first
    if "atlas" in results:
        hosts = sims["ops-manager"].world()["hosts"]
        standalones = {h["hostname"] for h in hosts if h["type_name"] == "STANDALONE"}
        assert results["atlas"] == [as_atlas(op, r, standalones) for r in first]


@pytest.mark.parametrize("op", WRITES)
async def test_each_flavour_writes_sync_and_async(op):
    """On a simulator of its own per flavour: the request of each flavour that has the
    operation, answered with success (Ops Manager and Cloud Manager document 201 for a PATCH,
    Atlas's specification 200: the table of calls says each); the others refuse it before any
    request."""
    for flavour in ("ops-manager", "cloud-manager", "atlas"):
        with Simulator(now=FIXED_NOW, flavour=flavour) as sim:
            ids = Ids(sim)
            both = [sim.client(max_retries=0), sim.async_client(max_retries=0)]
            if flavour not in OPERATIONS[op]:
                await _unsupported(sim, op, both, ids.by_name())
                continue
            scheme = "Bearer" if flavour == "atlas" else "Digest"
            for n, client in enumerate(both):
                sim.clear_requests()
                got = calls.call(client, op, ids.by_name(n))
                if n:
                    await got
                want = calls.sent(op, flavour, ids.by_name(n))
                assert _sent(sim) == [(*want, scheme)], (flavour, client)


LACKING = [
    ("global_alerts.list", lambda c: c.global_alerts.list()),
    ("global_alerts.get", lambda c: c.global_alerts.get("5efda6aea0b2e4a5f8e1bd46")),
    ("global_alerts.acknowledge", lambda c: c.global_alerts.acknowledge("a1", duration="1h")),
    ("global_alerts.acknowledge", lambda c: c.global_alerts.unacknowledge("a1")),
    ("global_alerts.acknowledge", lambda c: c.global_alerts.acknowledge_many([], forever=True)),
    ("global_alerts.acknowledge", lambda c: c.global_alerts.unacknowledge_many(["a1"])),
    ("access_list.list", lambda c: c.access_list.list()),
    ("access_list.delete", lambda c: c.access_list.delete("x1")),
]


@pytest.mark.parametrize("flavour", ["cloud-manager", "atlas"])
async def test_what_a_flavour_lacks_raises_unsupported_before_any_request(sims, flavour):
    sim = sims[flavour]
    sim.clear_requests()
    client, aclient = sim.client(), sim.async_client()
    for operation, call in LACKING:
        with pytest.raises(opsapi.UnsupportedError) as e:
            call(client)
        assert (e.value.operation, e.value.flavour) == (operation, flavour)
        assert isinstance(e.value, opsapi.OpsApiError)
        with pytest.raises(opsapi.UnsupportedError):
            await call(aclient)
    with pytest.raises(opsapi.UnsupportedError) as e:
        list(client.global_alerts.iter(status="OPEN"))
    assert e.value.operation == "global_alerts.list"
    with pytest.raises(opsapi.UnsupportedError):
        [a async for a in aclient.global_alerts.iter()]
    name = {"atlas": "Atlas", "cloud-manager": "Cloud Manager"}[flavour]
    assert str(e.value) == (
        f"`global_alerts.list` is not available on {name}: it has no global alerts (the alerts "
        "of a project are client.alerts)"
    )
    assert sim.requests() == []
