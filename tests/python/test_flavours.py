"""One client for Ops Manager, Cloud Manager and Atlas: every operation a flavour has, sync and
async, against the simulator serving that flavour, with the exact request that went out (path,
query, the ``Accept`` header's version, Digest or Bearer) and the same result from the same
world; what a flavour lacks refused before any request. Every operation of the flavour table
(``opsapi._native.OPERATIONS``, Rust's ``Operation::ALL``) has its call here. The clients of
each flavour (``Client.atlas``, ``flavour=``, ``from_env``, profiles, tokens) are in
test_flavours_clients.py, the same frames and findings through each flavour in
test_flavours_world.py; the simulators (``sims``, ``clients``) are conftest.py's."""

from __future__ import annotations

import asyncio
import collections
from typing import Any, Callable

import pytest
from conftest import FIXED_NOW, api_requests

import opsapi
from opsapi._native import ATLAS_VERSIONS, OPERATION_TABLE, OPERATIONS
from opsapi.testing import Simulator

PAGE1 = "pageNum=1&itemsPerPage=500"
WINDOW = "granularity=PT1H&period=P1D"


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
        self.atlas = atlas
        self.api = "/api/atlas/v2" if atlas else "/api/public/v1.0"

    def path(self, op: str, n: int = 0) -> str:
        """The path of operation ``op`` on this flavour: its row's template with this world's
        identifiers; ``alert_id`` and ``entry_id`` are the ``n``-th project alert (a global
        one for ``global_alerts.*``) and access-list entry."""
        row = OPERATION_TABLE[op]
        alert = self.global_alerts[n] if op.startswith("global_alerts.") else self.project_alerts[n]
        ids = {
            "group_id": self.g, "host_id": self.h.replace(":", "%3A"), "partition_name": self.p,
            "database_name": self.d, "event_id": self.e, "alert_config_id": self.c,
            "alert_id": alert, "entry_id": self.x[n], "cluster": self.k,
        }  # fmt: skip
        return self.api + (row["atlas_path"] if self.atlas else row["path"]).format(**ids)


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
    return result


def _hosts(hs: Any) -> list[tuple[Any, ...]]:
    return [(h.hostname, h.port, h.type_name, h.replica_set_name) for h in hs]


def _frame(m: Any) -> list[dict[str, Any]]:
    return m.to_polars().drop("host_id").to_dicts()


# Every operation each flavour has: its call (sync or async: the same expression), the query
# it sends (its path is its row's), and what of its result the flavours must agree on.
READS: dict[str, tuple[Callable[..., Any], Any, Callable[[Any], Any]]] = {
    "groups.list": (lambda c, i: c.groups.list(), PAGE1, lambda r: [g.id for g in r]),
    "groups.get": (lambda c, i: c.groups.get(i.g), None, lambda r: r.name),
    "hosts.list": (lambda c, i: c.hosts.list(i.g), PAGE1, _hosts),
    "hosts.get": (
        lambda c, i: c.hosts.get(i.g, i.h),
        None,
        lambda r: _hosts([r]),
    ),
    "hosts.partitions": (
        lambda c, i: c.hosts.partitions(i.g, i.h),
        PAGE1,
        list,
    ),
    "hosts.databases": (
        lambda c, i: c.hosts.databases(i.g, i.h),
        PAGE1,
        list,
    ),
    "measurements.host": (
        lambda c, i: c.measurements.host(
            i.g, i.h, granularity="PT1H", period="P1D", metrics=["CONNECTIONS"]
        ),
        WINDOW + "&m=CONNECTIONS",
        _frame,
    ),
    "measurements.disk": (
        lambda c, i: c.measurements.disk(i.g, i.h, i.p, granularity="PT1H", period="P1D"),
        WINDOW,
        _frame,
    ),
    "measurements.database": (
        lambda c, i: c.measurements.database(i.g, i.h, i.d, granularity="PT1H", period="P1D"),
        WINDOW,
        _frame,
    ),
    "events.list": (
        lambda c, i: c.events.list(i.g),
        PAGE1,
        lambda r: [e.id for e in r if e.event_type_name not in OWN_EVENTS],
    ),
    "events.get": (
        lambda c, i: c.events.get(i.g, i.e),
        None,
        lambda r: {k: v for k, v in r.to_dict().items() if k != "links"},  # the servers' URLs
    ),
    "alerts.list": (
        lambda c, i: c.alerts.list(i.g),
        PAGE1,
        lambda r: [
            (a.hostname_and_port, a.id, a.status, a.metric_name, a.event_type_name) for a in r
        ],
    ),
    "alerts.get": (
        lambda c, i: c.alerts.get(i.g, i.a),
        None,
        lambda r: (r.id, r.event_type_name, r.created),
    ),
    "alert_configs.list": (
        lambda c, i: c.alert_configs.list(i.g),
        PAGE1,
        lambda r: [
            (x.id, (x.metric_threshold or {}).get("metricName"), x.event_type_name) for x in r
        ],  # fmt: skip
    ),
    "alert_configs.open_alerts": (
        lambda c, i: c.alert_configs.open_alerts(i.g, i.c),
        PAGE1,
        lambda r: [(a.hostname_and_port, a.id) for a in r],
    ),
    "clusters.list": (
        lambda c, i: c.clusters.list(i.g),
        PAGE1,
        lambda r: [(x.name, x.type, x.shard_name) for x in r],
    ),
    "clusters.get": (
        lambda c, i: c.clusters.get(i.g, i.k),
        None,
        lambda r: (r.name, r.type, r.replica_set_name),
    ),
    "performance_advisor.namespaces": (
        lambda c, i: c.performance_advisor.namespaces(i.g, i.h),
        None,
        lambda r: [n.namespace for n in r],
    ),
    "performance_advisor.slow_query_logs": (
        lambda c, i: c.performance_advisor.slow_query_logs(i.g, i.h, n_logs=20),
        "nLogs=20",
        lambda r: [(q.namespace, q.line) for q in r.slow_queries],
    ),
    "performance_advisor.suggested_indexes": (
        lambda c, i: c.performance_advisor.suggested_indexes(i.g, i.h),
        None,
        lambda r: [(x.namespace, x.index, x.impact) for x in r.indexes],
    ),
    # Ops Manager's alone.
    "global_alerts.list": (
        lambda c, i: c.global_alerts.list(),
        PAGE1,
        lambda r: [a.id for a in r],
    ),
    "global_alerts.get": (
        lambda c, i: c.global_alerts.get(i.global_alerts[0]),
        None,
        lambda r: (r.id, r.status),
    ),
    "access_list.list": (
        lambda c, i: c.access_list.list(),
        PAGE1,
        lambda r: [x.id for x in r],
    ),
}

# Every operation that writes, on a simulator of each flavour of its own: its call (the
# ``n``-th of its kind: the sync call writes to one, the async one to another) and the status
# Ops Manager answers (its method and path are its row's).
WRITES: dict[str, tuple[Callable[..., Any], int]] = {
    "alerts.acknowledge": (
        lambda c, i, n: c.alerts.acknowledge(i.g, i.project_alerts[n], duration="4h"),
        201,
    ),
    "global_alerts.acknowledge": (
        lambda c, i, n: c.global_alerts.acknowledge(i.global_alerts[n], duration="4h"),
        201,
    ),
    "access_list.delete": (
        lambda c, i, n: c.access_list.delete(i.x[n]),
        204,
    ),
}


def _accept(flavour: str, op: str) -> str:
    """Atlas: the operation's version of the flavour table (the specification check holds
    it to the specification's)."""
    if flavour != "atlas":
        return "application/json"
    return f"application/vnd.atlas.{ATLAS_VERSIONS[op]}+json"


def test_atlas_versions_are_the_tables():
    """Acknowledging is a newer resource version than reading; clusters the newest."""
    assert set(ATLAS_VERSIONS) == {op for op, fs in OPERATIONS.items() if "atlas" in fs}
    assert ATLAS_VERSIONS["alerts.acknowledge"] == "2024-05-30"
    assert ATLAS_VERSIONS["clusters.list"] == ATLAS_VERSIONS["clusters.get"] == "2024-08-05"
    assert ATLAS_VERSIONS["hosts.list"] == "2023-01-01"


def test_every_operation_of_the_table_is_called_here():
    """A new operation of src/flavour.rs's table fails here until it has its call."""
    assert len(OPERATIONS) >= 21
    missing = set(OPERATIONS) - set(READS) - set(WRITES)
    assert not missing, f"operations of the flavour table without a call here: {sorted(missing)}"
    assert not (set(READS) | set(WRITES)) - set(OPERATIONS), "calls of no operation"


def _in_the_rows_words(op: str, query: Any) -> None:
    """What the call sends in its query are parameters its row names (or paging's)."""
    names = {kv.split("=")[0] for kv in (query or "").split("&") if kv}
    allowed = set(OPERATION_TABLE[op]["query"]) | {"pageNum", "itemsPerPage"}
    assert names <= allowed, (op, names - allowed)


async def _unsupported(sim: Simulator, op: str, clients: Any, call: Any, *args: Any) -> None:
    """``call(client, *args)`` raises UnsupportedError before any request, with each of
    ``clients`` (sync, then async)."""
    sim.clear_requests()
    for client in clients:
        with pytest.raises(opsapi.UnsupportedError) as e:
            got = call(client, *args)
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


@pytest.mark.parametrize("op", sorted(READS))
async def test_each_flavour_sends_its_request_sync_and_async(sims, clients, op):
    call, query, summary = READS[op]
    _in_the_rows_words(op, query)
    results = {}
    for flavour, sim in sims.items():
        ids = Ids(sim)
        if flavour not in OPERATIONS[op]:
            await _unsupported(sim, op, clients[flavour], call, ids)
            continue
        scheme = "Bearer" if flavour == "atlas" else "Digest"
        for client in clients[flavour]:
            sim.clear_requests()
            got = call(client, ids)
            if asyncio.iscoroutine(got) or hasattr(got, "__await__"):
                got = await got
            sent = [
                (r["method"], r["path"], r["query"], r["accept"], r["auth"])
                for r in api_requests(sim)
            ]
            want = ("GET", ids.path(op), query, _accept(flavour, op), scheme)
            assert sent == [want], (flavour, client)
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


@pytest.mark.parametrize("op", sorted(WRITES))
async def test_each_flavour_writes_sync_and_async(op):
    """On a simulator of its own per flavour: the request of each flavour that has the
    operation, answered with success; the others refuse it before any request."""
    call, status = WRITES[op]
    method = OPERATION_TABLE[op]["method"]
    for flavour in ("ops-manager", "cloud-manager", "atlas"):
        with Simulator(now=FIXED_NOW, flavour=flavour) as sim:
            ids = Ids(sim)
            both = [sim.client(max_retries=0), sim.async_client(max_retries=0)]
            if flavour not in OPERATIONS[op]:
                await _unsupported(sim, op, both, call, ids, 0)
                continue
            scheme = "Bearer" if flavour == "atlas" else "Digest"
            for n, client in enumerate(both):
                sim.clear_requests()
                got = call(client, ids, n)
                if n:
                    await got
                sent = [
                    (r["method"], r["path"], r["status"], r["accept"], r["auth"])
                    for r in api_requests(sim)
                ]
                # Ops Manager and Cloud Manager document 201 for a PATCH, Atlas's specification 200.
                answered = 200 if (flavour, method) == ("atlas", "PATCH") else status
                want = (method, ids.path(op, n), answered, _accept(flavour, op), scheme)
                assert sent == [want], (flavour, client)


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
