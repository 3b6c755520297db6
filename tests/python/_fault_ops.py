"""The fault matrix's operations (tests/python/test_fault_matrix.py): each one's request, call
and check of its result against the seeded world. An operation of the flavour table is called
as the table of calls says (tests/fixtures/calls.json, ``_calls.py``), its request is the
table's Ops Manager request; ``OPS`` names those whose check is not the default (a GET of one
object: the object the server sent) and the public methods built on the operations."""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import _calls as calls
import polars as pl
import pytest
from _truth import LONG, PAGE1, frame_rows

from opsapi._native import OPERATION_TABLE

API = "/api/public/v1.0"
UTC = dt.timezone.utc
KEY = "9f2d3c4b-1a2b-4c3d-8e9f-0a1b2c3d4e5f"

TIMEOUT = 2.0  # the client's time budget for one request
SHORT = 0.3  # ... where the fault is a stall or a drip: the budget is what ends the call
LIMIT = 2 << 20  # max_response_bytes: above a page of 500 alerts (about 0.4 MB)
GLOBAL_ALERTS = 1200  # 3 pages: listings fetch pages 2 and 3 after the first
# A client counts acknowledgements from the server's Date (to the second) plus the time since
# that answer: on a fixed clock, what it sends is exact to this slack.
SLACK = dt.timedelta(seconds=2)

GET, PATCH, DELETE = "GET", "PATCH", "DELETE"
OK = "ok"  # the operation's success: a 2xx (200; 201 for the simulator's PATCH; 204 for a DELETE)

# ---- the operations ------------------------------------------------------------------------


@dataclass
class Ids:
    """Identifiers of one cell, and the truth its result is compared with, from
    ``sim.world()``, the truth accessors and the server's JSON (read once)."""

    now: dt.datetime = dt.datetime(1970, 1, 1, tzinfo=UTC)  # the simulator's clock
    g: str = ""
    h: str = ""
    p: str = ""
    d: str = ""
    e: str = ""
    c: str = ""
    a: str = ""  # an OPEN alert for the PATCH cells (of project g for the alerts.* ones)
    pa: str = ""  # an alert of project g (its history), for alerts.get
    cl: str = ""  # a cluster of project g, for clusters.get
    x: str = ""  # an access-list entry for the DELETE cells
    comment: str = ""
    out: str = ""  # fleet_to_parquet's folder
    alert_ids: list[str] = field(default_factory=list)
    project_alert_ids: list[str] = field(default_factory=list)  # /groups/{g}/alerts
    open_ids: list[str] = field(default_factory=list)  # configuration c's open alerts
    host_ids: list[str] = field(default_factory=list)
    cluster_ids: list[str] = field(default_factory=list)  # project g's, as the server lists them
    project_ids: list[str] = field(default_factory=list)
    config_ids: list[str] = field(default_factory=list)
    event_ids: list[str] = field(default_factory=list)
    access_ids: list[str] = field(default_factory=list)
    partitions: list[str] = field(default_factory=list)
    databases: list[str] = field(default_factory=list)
    served: dict[str, Any] = field(default_factory=dict)  # op name -> the server's JSON
    fleet_rows: list[tuple] = field(default_factory=list)  # the fleet target's long rows
    context: Any = None  # (alert, host, query, long rows, why's requests) of alerts.context's


# Which identifier of a cell fills each name of the table of calls (`Op.ids` for another).
PARAMS = {
    "group": "g", "host": "h", "partition": "p", "database": "d", "event": "e",
    "alert_config": "c", "alert": "a", "global_alert": "a", "cluster": "cl", "entry": "x",
}  # fmt: skip


@dataclass(frozen=True)
class Op:
    operation: str  # the operation whose request the fault is aimed at (the table of calls')
    call: Optional[Callable[[Any, Ids], Any]]  # None: the table of calls' call
    check: Callable[[Any, Ids], None]
    pages: Callable[[Ids], int] = lambda ids: 1
    iterates: bool = False  # the call returns an iterator to drain (sync) or async-drain
    # The first request's query string (or a function of the Ids); ...: the table of calls'.
    query: Any = ...
    many: bool = False  # one result per id, a failure returned in its place (one id here)
    body: Optional[Callable[[dict, Ids], None]] = None  # checks a PATCH's JSON body
    # Requests the call sends besides its own, each once and answered 200 before its own
    # (the fault is aimed at its own): (path, query) pairs.
    also: Callable[[Ids], list[tuple[str, Optional[str]]]] = lambda ids: []
    # Requests the call sends at the same time as its own, on the same time budget: each once
    # and answered 200 where the call succeeds; where it fails, those it had not sent yet when
    # it ended may be missing (never one more, never one twice).
    beside: Callable[[Ids], list[tuple[str, Optional[str]]]] = lambda ids: []
    # The client's time budget for one request where no fault is a stall or a drip: the
    # budget a fault ends, not a measure of speed.
    timeout: float = TIMEOUT
    # A name filled otherwise than by PARAMS: its value from the cell's identifiers.
    ids: dict[str, Callable[[Ids], str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.query is ...:
            object.__setattr__(self, "query", calls.sent(self.operation, "ops-manager", {}).query)

    @property
    def method(self) -> str:
        return calls.method(self.operation)

    def values(self, ids: Ids) -> dict[str, str]:
        """The cell's identifiers by the names of the table of calls."""
        return {
            p: self.ids[p](ids) if p in self.ids else getattr(ids, a) for p, a in PARAMS.items()
        }

    def path(self, ids: Ids) -> str:
        """The operation's request path: the table of calls' (Ops Manager's), with the cell's
        identifiers."""
        return calls.sent(self.operation, "ops-manager", self.values(ids)).path

    def run(self, client: Any, ids: Ids) -> Any:
        """The call: its own, or the table of calls'."""
        if self.call is None:
            return calls.call(client, self.operation, self.values(ids))
        return self.call(client, ids)


def path_of(operation: str, **ids: str) -> str:
    """The path of ``operation``'s request (Ops Manager's, the table of calls') with ``ids``."""
    return calls.sent(operation, "ops-manager", ids).path


WINDOW = {"granularity": "PT1H", "period": "P1D"}
WINDOW_QUERY = "granularity=PT1H&period=P1D"
FLEET = {**WINDOW, "metrics": ["CONNECTIONS"], "progress": False}


def _as_served(name: str) -> Callable[[Any, Ids], None]:
    """The result is the object the server sent (the JSON read once by a plain client)."""

    def check(r: Any, ids: Ids) -> None:
        assert r.to_dict() == ids.served[name]

    return check


def _measurements(name: str, kind: str) -> Callable[[Any, Ids], None]:
    def check(m: Any, ids: Ids) -> None:
        assert (m.group_id, m.host_id) == (ids.g, ids.h)
        assert (m.partition_name, m.database_name) == (
            ids.p if kind == "disk" else None,
            ids.d if kind == "database" else None,
        )
        assert m.to_dict() == ids.served[name]

    return check


def _ids_of(attr: str) -> Callable[[Any, Ids], None]:
    """A listing gives the seeded items, in order, each once."""

    def check(items: Any, ids: Ids) -> None:
        assert [x.id for x in items] == getattr(ids, attr)

    return check


def _until(b: dict, expected: dt.datetime) -> dt.datetime:
    at = dt.datetime.fromisoformat(b["acknowledgedUntil"].replace("Z", "+00:00"))
    assert expected <= at <= expected + SLACK, (at, expected)
    return at


def _ack_body(b: dict, ids: Ids) -> None:
    assert sorted(b) == ["acknowledgedUntil", "acknowledgementComment"]
    assert b["acknowledgementComment"] == ids.comment
    _until(b, ids.now + dt.timedelta(hours=4))


def _unack_body(b: dict, ids: Ids) -> None:
    assert list(b) == ["acknowledgedUntil"]
    _until(b, ids.now - dt.timedelta(minutes=1))


def _acknowledged(a: Any, ids: Ids) -> None:
    assert a.id == ids.a and a.acknowledgement_comment == ids.comment
    expected = ids.now + dt.timedelta(hours=4)
    assert expected <= a.acknowledged_until <= expected + SLACK


def _unacknowledged(a: Any, ids: Ids) -> None:
    assert a.id == ids.a and a.acknowledged_until is None


def _frame(frame: Any, ids: Ids) -> None:
    assert frame_rows(frame) == ids.fleet_rows


def _parquet(r: Any, ids: Ids) -> None:
    assert r is None
    files = sorted(p.relative_to(ids.out).as_posix() for p in Path(ids.out).rglob("*.parquet"))
    assert files == [f"group_id={ids.g}/host_id={ids.h}/host.parquet"]
    frame = pl.read_parquet(Path(ids.out) / "**" / "*.parquet", hive_partitioning=True)
    assert frame_rows(frame.select(pl.col(LONG))) == ids.fleet_rows


def _listing(operation: str, call: Callable[[Any, Ids], Any], attr: str, **kw: Any) -> Op:
    """A listing: a GET of its first page, then the rest; the seeded items in order."""
    return Op(operation, call, _ids_of(attr), query=PAGE1, **kw)


OPS: dict[str, Op] = {
    "access_list.delete": Op(
        "access_list.delete",
        lambda c, i: c.access_list.delete(i.x),
        lambda r, i: None if r is None else pytest.fail(f"delete returned {r!r}"),
    ),
    "access_list.list": _listing(
        "access_list.list", lambda c, i: c.access_list.list(), "access_ids"
    ),
    "global_alerts.list": _listing(
        "global_alerts.list",
        lambda c, i: c.global_alerts.list(),
        "alert_ids",
        pages=lambda i: math.ceil(len(i.alert_ids) / 500),
    ),
    "global_alerts.iter": _listing(
        "global_alerts.list",
        lambda c, i: c.global_alerts.iter(),
        "alert_ids",
        pages=lambda i: math.ceil(len(i.alert_ids) / 500),
        iterates=True,
    ),
    "global_alerts.acknowledge": Op(
        "global_alerts.acknowledge",
        lambda c, i: c.global_alerts.acknowledge(i.a, duration="PT4H", comment=i.comment),
        _acknowledged,
        body=_ack_body,
    ),
    "global_alerts.unacknowledge": Op(
        "global_alerts.acknowledge",
        lambda c, i: c.global_alerts.unacknowledge(i.a),
        _unacknowledged,
        body=_unack_body,
    ),
    "global_alerts.acknowledge_many": Op(
        "global_alerts.acknowledge",
        lambda c, i: c.global_alerts.acknowledge_many([i.a], duration="PT4H", comment=i.comment),
        _acknowledged,
        many=True,
        body=_ack_body,
    ),
    "global_alerts.unacknowledge_many": Op(
        "global_alerts.acknowledge",
        lambda c, i: c.global_alerts.unacknowledge_many([i.a]),
        _unacknowledged,
        many=True,
        body=_unack_body,
    ),
    "alerts.list": _listing(
        "alerts.list",
        lambda c, i: c.alerts.list(i.g),
        "project_alert_ids",
        pages=lambda i: math.ceil(len(i.project_alert_ids) / 500),
    ),
    "alerts.iter": _listing(
        "alerts.list",
        lambda c, i: c.alerts.iter(i.g),
        "project_alert_ids",
        pages=lambda i: math.ceil(len(i.project_alert_ids) / 500),
        iterates=True,
    ),
    "alerts.list_all": _listing(
        "alerts.list",
        lambda c, i: c.alerts.list_all(groups=[i.g]),
        "project_alert_ids",
        pages=lambda i: math.ceil(len(i.project_alert_ids) / 500),
    ),
    "alerts.get": Op(
        "alerts.get",
        lambda c, i: c.alerts.get(i.g, i.pa),
        _as_served("alerts.get"),
        ids={"alert": lambda i: i.pa},
    ),
    "alerts.acknowledge": Op(
        "alerts.acknowledge",
        lambda c, i: c.alerts.acknowledge(i.g, i.a, duration="PT4H", comment=i.comment),
        _acknowledged,
        body=_ack_body,
    ),
    "alerts.unacknowledge": Op(
        "alerts.acknowledge",
        lambda c, i: c.alerts.unacknowledge(i.g, i.a),
        _unacknowledged,
        body=_unack_body,
    ),
    "alerts.acknowledge_many": Op(
        "alerts.acknowledge",
        lambda c, i: c.alerts.acknowledge_many([(i.g, i.a)], duration="PT4H", comment=i.comment),
        _acknowledged,
        many=True,
        body=_ack_body,
    ),
    "alerts.unacknowledge_many": Op(
        "alerts.acknowledge",
        lambda c, i: c.alerts.unacknowledge_many([(i.g, i.a)]),
        _unacknowledged,
        many=True,
        body=_unack_body,
    ),
    # The measurement of an alert's context is its own request; its host and the project's
    # alert configurations are asked first, at once; its events and Performance Advisor's
    # answers beside its own.
    "alerts.context": Op(
        "measurements.host",
        lambda c, i: c.alerts.context(i.context[0]),
        lambda ctx, i: frame_rows(ctx.frame) == i.context[3] or pytest.fail("context frame"),
        query=lambda i: i.context[2],
        also=lambda i: [
            (path_of("hosts.get", group=i.g, host=i.context[1]), None),
            (path_of("alert_configs.list", group=i.g), PAGE1),
        ],
        beside=lambda i: i.context[4],
        # Its slow query logs are up to 20 000 lines the simulator writes for the window:
        # 0.2 s in the release build, 1.5 s in a debug one, more on a loaded machine.
        timeout=10.0,
        ids={"host": lambda i: i.context[1]},
    ),
    "groups.list": _listing("groups.list", lambda c, i: c.groups.list(), "project_ids"),
    "alert_configs.list": _listing(
        "alert_configs.list",
        lambda c, i: c.alert_configs.list(i.g),
        "config_ids",
    ),
    "alert_configs.open_alerts": _listing(
        "alert_configs.open_alerts",
        lambda c, i: c.alert_configs.open_alerts(i.g, i.c),
        "open_ids",
    ),
    "clusters.list": _listing("clusters.list", lambda c, i: c.clusters.list(i.g), "cluster_ids"),
    "clusters.list_all": _listing(
        "clusters.list",
        lambda c, i: c.clusters.list_all(groups=[i.g]),
        "cluster_ids",
    ),
    "hosts.list": _listing("hosts.list", lambda c, i: c.hosts.list(i.g), "host_ids"),
    "hosts.partitions": Op(
        "hosts.partitions",
        lambda c, i: c.hosts.partitions(i.g, i.h),
        lambda r, i: r == i.partitions or pytest.fail(f"partitions {r}"),
        query=PAGE1,
    ),
    "hosts.databases": Op(
        "hosts.databases",
        lambda c, i: c.hosts.databases(i.g, i.h),
        lambda r, i: r == i.databases or pytest.fail(f"databases {r}"),
        query=PAGE1,
    ),
    "measurements.host": Op(
        "measurements.host",
        lambda c, i: c.measurements.host(i.g, i.h, **WINDOW, metrics=["CONNECTIONS"]),
        _measurements("measurements.host", "host"),
        query=f"{WINDOW_QUERY}&m=CONNECTIONS",
    ),
    "measurements.disk": Op(
        "measurements.disk",
        lambda c, i: c.measurements.disk(i.g, i.h, i.p, **WINDOW),
        _measurements("measurements.disk", "disk"),
        query=WINDOW_QUERY,
    ),
    "measurements.database": Op(
        "measurements.database",
        lambda c, i: c.measurements.database(i.g, i.h, i.d, **WINDOW),
        _measurements("measurements.database", "database"),
        query=WINDOW_QUERY,
    ),
    "measurements.fleet": Op(
        "measurements.host",
        lambda c, i: c.measurements.fleet([(i.g, i.h)], **FLEET),
        _frame,
        query=f"{WINDOW_QUERY}&m=CONNECTIONS",
    ),
    "measurements.fleet_to_parquet": Op(
        "measurements.host",
        lambda c, i: c.measurements.fleet_to_parquet([(i.g, i.h)], i.out, **FLEET),
        _parquet,
        query=f"{WINDOW_QUERY}&m=CONNECTIONS",
    ),
    "events.list": _listing("events.list", lambda c, i: c.events.list(i.g), "event_ids"),
    "performance_advisor.namespaces": Op(
        "performance_advisor.namespaces",
        lambda c, i: c.performance_advisor.namespaces(i.g, i.h),
        lambda r, i: (
            [n.to_dict() for n in r] == i.served["performance_advisor.namespaces"]["namespaces"]
            or pytest.fail(f"namespaces {r}")
        ),
    ),
}

# Every other operation of the table of calls is a GET of one object, called as the table
# says, its result the object the server sent.
for _name in calls.CALLS:
    if _name not in OPS:
        assert OPERATION_TABLE[_name]["answer"] == "one" and calls.method(_name) == GET, (
            f"{_name}: a listing or a write needs its Op in OPS (its check)"
        )
        OPS[_name] = Op(_name, None, _as_served(_name))
