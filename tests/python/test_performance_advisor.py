"""client.performance_advisor, sync and async: the request each call sends (the window and
filters in the services' words), the answer as the server sent it, the slow queries' frame
read against each line's own words (json.loads here, not the client's reader), and argument
errors before any request. Every flavour's request and the same world through each are
test_flavours.py's."""

from __future__ import annotations

import collections
import datetime as dt
import json
import re
import urllib.parse

import pytest
from _truth import get, requests_of, served
from conftest import FIXED_NOW

import opsapi


def _primary(sim) -> tuple[str, str]:
    """A primary with an application's databases: it has a workload to advise on."""
    counts = collections.Counter(d["host_id"] for d in sim.database_truth())
    h = next(
        h
        for h in sim.world()["hosts"]
        if h["type_name"].endswith("_PRIMARY") and counts[h["id"]] > 3
    )
    return h["group_id"], h["id"]


def _base(g: str, h: str) -> str:
    return f"/groups/{g}/hosts/{h}/performanceAdvisor"


async def test_namespaces_sync_and_async(sim, client, aclient):
    g, h = _primary(sim)
    sim.clear_requests()
    names = client.performance_advisor.namespaces(g, h)
    again = await aclient.performance_advisor.namespaces(g, h)
    assert requests_of(sim) == [get(_base(g, h) + "/namespaces")] * 2
    assert [n.to_dict() for n in again] == [n.to_dict() for n in names]
    sent = served(sim, _base(g, h) + "/namespaces")["namespaces"]
    assert sent and [n.to_dict() for n in names] == sent
    assert all(isinstance(n, opsapi.Namespace) and n.type == "COLLECTION" for n in names)


async def test_slow_query_logs_with_a_window_and_filters(sim, client, aclient):
    g, h = _primary(sim)
    since = FIXED_NOW - dt.timedelta(hours=12)
    day = client.performance_advisor.slow_query_logs(g, h)
    ns = day.slow_queries[0].namespace
    sim.clear_requests()
    kw = {"since": since, "duration": "PT6H", "namespaces": [ns], "n_logs": 5}
    logs = client.performance_advisor.slow_query_logs(g, h, **kw)
    again = await aclient.performance_advisor.slow_query_logs(g, h, **kw)
    query = urllib.parse.urlencode(
        [("since", int(since.timestamp() * 1000)), ("duration", 6 * 3600 * 1000)]
        + [("namespaces", ns), ("nLogs", 5)]
    )
    assert requests_of(sim) == [get(_base(g, h) + "/slowQueryLogs", query)] * 2
    params = {"since": int(since.timestamp() * 1000), "duration": 21_600_000}
    sent = served(sim, _base(g, h) + "/slowQueryLogs", **params, namespaces=ns, nLogs=5)
    assert logs.to_dict() == again.to_dict() == sent
    assert 0 < len(logs) <= 5 and {q.namespace for q in logs.slow_queries} == {ns}

    # The frame: one row per line, each as the line says it.
    frame = day.to_polars()
    assert frame.columns == [
        "timestamp", "namespace", "shape", "duration_ms", "docs_examined", "docs_returned",
        "plan_summary", "line",
    ]  # fmt: skip
    assert frame.height == len(day) > 10
    for row, q in zip(frame.iter_rows(named=True), day.slow_queries):
        said = json.loads(q.line)
        attr = said["attr"]
        assert row["line"] == q.line and row["namespace"] == attr["ns"]
        assert row["duration_ms"] == attr["durationMillis"] >= 100
        assert (row["docs_examined"], row["docs_returned"]) == (
            attr["docsExamined"],
            attr["nreturned"],
        )
        assert row["plan_summary"] == attr["planSummary"]
        when = dt.datetime.fromisoformat(said["t"]["$date"])
        assert row["timestamp"] == when
        assert FIXED_NOW - dt.timedelta(hours=24) <= when <= FIXED_NOW
        # The shape names the command and the filter's fields, never a value.
        command = attr["command"]
        name = next(k for k in ("find", "aggregate", "count") if k in command)
        assert row["shape"].startswith(name + " {")
        for value in _values(command):
            assert json.dumps(value) not in row["shape"], (value, row["shape"])


def _values(command: dict) -> list:
    """The filter's scalar values of a command (which a shape must not show)."""
    filt = command.get("filter") or command.get("query") or command["pipeline"][0]["$match"]
    out = []

    def walk(v):
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        else:
            out.append(v)

    walk(filt)
    return [v for v in out if v != "?"]


async def test_suggested_indexes_sync_and_async(sim, client, aclient):
    g, h = _primary(sim)
    sim.clear_requests()
    s = client.performance_advisor.suggested_indexes(g, h, n_examples=1, n_indexes=10)
    again = await aclient.performance_advisor.suggested_indexes(g, h, n_examples=1, n_indexes=10)
    path = _base(g, h) + "/suggestedIndexes"
    assert requests_of(sim) == [get(path, "nIndexes=10&nExamples=1")] * 2
    assert s.to_dict() == again.to_dict() == served(sim, path, nIndexes=10, nExamples=1)
    assert isinstance(s, opsapi.SuggestedIndexes) and s.indexes and s.shapes
    shapes = {x.id: x for x in s.shapes}
    for index in s.indexes:
        assert isinstance(index, opsapi.SuggestedIndex)
        (shape,) = [shapes[i] for i in index.impact]
        assert isinstance(shape, opsapi.QueryShape)
        assert shape.namespace == index.namespace and len(shape.operations) == 1
        # Ops Manager's example is its log line: a scan of the index's collection, whose
        # filter names the index's fields.
        said = json.loads(shape.operations[0]["raw"])["attr"]
        assert said["ns"] == index.namespace and said["planSummary"] == "COLLSCAN"
        command = said["command"]
        filt = command.get("filter") or command.get("query") or command["pipeline"][0]["$match"]
        assert sorted(next(iter(k)) for k in index.index) == sorted(filt)
        assert all(list(k.values()) == [1] for k in index.index)


@pytest.mark.parametrize(
    "kwargs, argument",
    [
        ({"n_logs": 20_001}, "n_logs"),
        ({"n_logs": "10"}, "n_logs"),
        ({"namespaces": "orders.users"}, "namespaces"),
        ({"namespaces": ["orders"]}, "namespaces[0]"),
        ({"since": dt.datetime(2026, 3, 1)}, "since"),
        ({"since": dt.datetime(2001, 1, 1, tzinfo=dt.timezone.utc)}, "since"),
        ({"duration": "P1M"}, "duration"),
        ({"duration": dt.timedelta(0)}, "duration"),
    ],
)
async def test_bad_arguments_are_refused_before_any_request(sim, client, aclient, kwargs, argument):
    g, h = _primary(sim)
    sim.clear_requests()
    with pytest.raises(opsapi.InvalidArgumentError, match=re.escape(f"`{argument}`")):
        client.performance_advisor.slow_query_logs(g, h, **kwargs)
    with pytest.raises(opsapi.InvalidArgumentError, match=re.escape(f"`{argument}`")):
        await aclient.performance_advisor.slow_query_logs(g, h, **kwargs)
    assert requests_of(sim) == []


async def test_events_of_some_types_between_two_dates(sim, client, aclient):
    g = sim.group_ids[0]
    every = client.events.list(g)
    kinds = sorted({e.event_type_name for e in every})[:2]
    low, high = FIXED_NOW - dt.timedelta(days=20), FIXED_NOW - dt.timedelta(days=2)
    sim.clear_requests()
    one = client.events.list(g, event_type=kinds[0])
    some = await aclient.events.list(g, event_type=kinds, min_date=low, max_date=high.isoformat())
    stamp = "%Y-%m-%dT%H:%M:%SZ"
    assert requests_of(sim) == [
        get(f"/groups/{g}/events", f"eventType={kinds[0]}&pageNum=1&itemsPerPage=500"),
        get(
            f"/groups/{g}/events",
            urllib.parse.urlencode(
                [("eventType", kinds[0]), ("eventType", kinds[1])]
                + [("minDate", low.strftime(stamp)), ("maxDate", high.strftime(stamp))]
                + [("pageNum", 1), ("itemsPerPage", 500)]
            ),
        ),
    ]
    # What a person filtering the whole list would keep.
    assert [e.id for e in one] == [e.id for e in every if e.event_type_name == kinds[0]]
    kept = [e.id for e in every if e.event_type_name in kinds and low <= e.created <= high]
    assert [e.id for e in some] == kept and kept
    with pytest.raises(opsapi.InvalidArgumentError, match="`max_date`"):
        client.events.list(g, min_date=high, max_date=low)
    with pytest.raises(opsapi.InvalidArgumentError, match=r"`event_type\[1\]`"):
        client.events.list(g, event_type=["HOST_DOWN", 3])
