"""What ``client.alerts.context`` says of why, against the causes seeded into the world
(``Simulator.cause_truth``), on Ops Manager, Cloud Manager and Atlas: the slow queries that rose
with the connections or the CPU that raised an alert (the namespace, and the index the
Performance Advisor suggests for it), the election before a replication-lag alert, and Atlas's
compute and disk auto-scaling; each part a frame, the reading naming what was found; the exact
Performance Advisor requests of the window; a part the key may not read is missing, with why,
and the context still answers."""

from __future__ import annotations

from urllib.parse import parse_qsl

import polars as pl
import pytest
from conftest import FLAVOURS


def served_alerts(sim, client) -> set[str]:
    """The ids of the alerts the flavour serves (Atlas has no standalone hosts' alerts)."""
    return {a.id for g in sim.group_ids for a in client.alerts.list(g)}


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_the_context_names_the_seeded_cause_of_every_seeded_alert(sims, clients, flavour):
    sim, client = sims[flavour], clients[flavour][0]
    truth = sim.cause_truth()
    served = served_alerts(sim, client)
    # Every alert with a seeded cause, and its causes.
    causes: dict[str, list[tuple[str, dict]]] = {}
    for kind in ("slow", "elections", "scaling"):
        for c in truth[kind]:
            if c.get("alert_id") in served and not c.get("ends"):
                causes.setdefault(c["alert_id"], []).append((kind, c))
    assert sum(kind == "slow" for cs in causes.values() for kind, _ in cs) >= 15
    assert any(c["index"] for cs in causes.values() for k, c in cs if k == "slow")
    assert sum(kind == "elections" for cs in causes.values() for kind, _ in cs) >= 10
    scaled = {c["event_type_name"] for cs in causes.values() for k, c in cs if k == "scaling"}
    assert scaled == (
        {"COMPUTE_AUTO_SCALE_INITIATED_BASE", "DISK_AUTO_SCALE_INITIATED"}
        if flavour == "atlas"
        else set()
    )
    for alert_id, cs in causes.items():
        alert = client.alerts.get(cs[0][1]["group_id"], alert_id)
        ctx = client.alerts.context(alert)
        what = f"{flavour} {alert_id} {alert.metric_name}: {ctx.reading}"
        assert ctx.missing == {}, what
        for kind, c in cs:
            if kind == "slow":
                # The namespace whose slow queries took the most time, named in the reading,
                # and the index that would serve its top shape, when none does.
                top = ctx.slow_queries.row(0, named=True)
                assert top["namespace"] == c["namespace"], what
                assert f"slow queries on {c['namespace']}" in ctx.reading, what
                if c["index"]:
                    assert top["index"] == c["index"] and top["plan_summary"] == "COLLSCAN"
                    assert f"(no index on {c['index']})" in ctx.reading, what
                    ix = ctx.suggested_indexes.filter(pl.col("namespace") == c["namespace"])
                    assert c["index"] in ix["index"].to_list(), what
            else:
                # The event itself, among the deployment's events of the window.
                [row] = ctx.events.filter(pl.col("id") == c["event_id"]).to_dicts()
                assert row["event_type_name"] == c["event_type_name"], what
                assert row["created"] == c["at"], what
                if kind == "scaling":
                    assert row["kind"] == "scaling" and "auto-scaling" in ctx.reading, what


def test_the_slow_queries_are_asked_for_the_window_and_summarised(sim, fixed_now):
    """One alert with a seeded scan: the Performance Advisor asked for the context's window
    (``since`` in epoch milliseconds, ``duration`` in milliseconds), and the frame equal to
    the slow query logs the server serves for that window, summarised by hand."""
    client = sim.client()
    [cause, *_] = [c for c in sim.cause_truth()["slow"] if c["index"]]
    g, h = cause["group_id"], cause["host_id"]
    alert = client.alerts.get(g, cause["alert_id"])
    sim.clear_requests()
    ctx = client.alerts.context(alert)
    since = int(ctx.start.timestamp() * 1000)
    duration = int((ctx.end - ctx.start).total_seconds() * 1000)
    advisor = sorted(
        (r["path"].rsplit("/", 1)[-1], dict(parse_qsl(r["query"])))
        for r in sim.requests()
        if "/performanceAdvisor/" in r["path"] and f"/hosts/{h}/" in r["path"]
    )
    window = {"since": str(since), "duration": str(duration)}
    assert advisor == [("slowQueryLogs", window), ("suggestedIndexes", window)]
    logs = client.performance_advisor.slow_query_logs(
        g, h, since=ctx.start, duration=ctx.end - ctx.start
    ).to_polars()
    want = (
        logs.group_by("namespace", "shape")
        .agg(
            count=pl.len(),
            total_ms=pl.col("duration_ms").sum().cast(pl.Float64),
            median_ms=pl.col("duration_ms").median(),
            docs_examined=pl.col("docs_examined").sum(),
            docs_returned=pl.col("docs_returned").sum(),
        )
        .sort(["total_ms", "namespace", "shape"], descending=[True, False, False])
        .head(20)
    )
    got = ctx.slow_queries.select(want.columns)
    assert got.with_columns(pl.col("count").cast(pl.UInt32)).equals(want), (got, want)
    top = ctx.slow_queries.row(0, named=True)
    assert top["examined_per_returned"] == top["docs_examined"] / top["docs_returned"]
    assert ctx.suggested_indexes.columns == ["host", "namespace", "index", "shapes", "count",
                                             "avg_ms", "weight"]  # fmt: skip


def test_a_part_the_key_may_not_read_is_missing_with_why(sim):
    """The Performance Advisor refused (403): the context still answers, with its events and
    its series, and ``missing`` says why the slow queries and the indexes are absent."""
    client = sim.client(max_retries=0)
    cause = sim.cause_truth()["slow"][0]
    alert = client.alerts.get(cause["group_id"], cause["alert_id"])
    for part in ("slowQueryLogs", "suggestedIndexes"):
        sim.inject(403, path=f"/groups/{cause['group_id']}/hosts/{cause['host_id']}"
                   f"/performanceAdvisor/{part}")  # fmt: skip
    ctx = client.alerts.context(alert)
    assert sorted(ctx.missing) == ["slow_queries", "suggested_indexes"]
    assert ctx.missing["slow_queries"].startswith(
        "the key may not read the Performance Advisor's slow query logs (HTTP 403"
    )
    assert ctx.slow_queries.height == 0 and ctx.suggested_indexes.height == 0
    assert ctx.frame.height > 0 and ctx.events.height > 0
    assert "slow quer" not in ctx.reading
