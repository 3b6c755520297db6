"""opsapi mcp's tools through the SDK's in-memory client, against the suite's simulator and a
store synced from it: the tool list and annotations, each tool's input schema (golden files),
what_runs_out_first against capacity.headroom on the same world, each tool naming what the
world was seeded with, the size cap and paging, and bad arguments named. The confirmation of
acknowledge_alert and secrets: test_mcp_writes.py; the transports: test_mcp_transports.py."""

from __future__ import annotations

import json
import os
import sys
from datetime import timedelta

import pytest

if sys.version_info < (3, 10):
    pytest.skip("opsapi mcp needs CPython 3.10 or later (the MCP SDK)", allow_module_level=True)
pytest.importorskip("mcp", reason="the MCP SDK is not installed: pip install 'opsapi[mcp]'")

import polars as pl  # noqa: E402
from _mcp import READ_ONLY, SCHEMAS, call, pages, read, sync_store  # noqa: E402

import opsapi  # noqa: E402
from opsapi import capacity  # noqa: E402
from opsapi.mcp import Fleet, Settings, build_server  # noqa: E402
from opsapi.mcp._results import MAX_BYTES  # noqa: E402


@pytest.fixture(scope="module")
def store(sim, tmp_path_factory):
    return sync_store(sim, tmp_path_factory.mktemp("mcp") / "store")


@pytest.fixture(scope="module")
def fleet(sim, store):
    """One fleet for the module's read-only tests: its headroom computed once."""
    f = Fleet(sim.client(max_retries=0), Settings(store=store, refresh_seconds=None))
    yield f
    f.close()


@pytest.fixture(scope="module")
def server(fleet):
    return build_server(fleet)


# ---- the tools, their annotations and schemas ----------------------------------------------


async def test_read_only_by_default_every_tool_says_so(server) -> None:
    from mcp import Client

    async with Client(server) as c:
        tools = (await c.list_tools()).tools
    assert [t.name for t in tools] == READ_ONLY
    for t in tools:
        a = t.annotations
        assert (a.read_only_hint, a.destructive_hint, a.idempotent_hint) == (True, False, True)
        assert a.open_world_hint is (t.name != "store_status"), t.name  # only it asks no API
        assert a.title and len(t.description) > 200, t.name
        # Each says what to call next (another tool's name), as mcp-grafana's do.
        assert any(other in t.description for other in READ_ONLY if other != t.name), t.name


async def test_allow_writes_adds_acknowledge_alert_alone(sim, store) -> None:
    from mcp import Client

    fleet = Fleet(sim.client(), Settings(store=store, allow_writes=True, refresh_seconds=None))
    async with Client(build_server(fleet)) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    assert list(tools) == [*READ_ONLY, "acknowledge_alert"]
    a = tools["acknowledge_alert"].annotations
    assert (a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint) == (
        False, False, True, True)  # fmt: skip
    assert "asked first" in tools["acknowledge_alert"].description
    schema = tools["acknowledge_alert"].input_schema
    assert set(schema["required"]) == {"alert_id", "comment"}  # the answer is the person's


async def test_each_input_schema_is_its_golden_file(sim, store) -> None:
    """The schemas are the tools' contract with every client (bounds included): a change
    shows here. OPSAPI_WRITE_GOLDEN=1 writes them (then review the diff)."""
    from mcp import Client

    fleet = Fleet(sim.client(), Settings(store=store, allow_writes=True, refresh_seconds=None))
    async with Client(build_server(fleet)) as c:
        tools = (await c.list_tools()).tools
    for t in tools:
        path = SCHEMAS / f"{t.name}.json"
        text = json.dumps(t.input_schema, indent=2, sort_keys=True) + "\n"
        if os.environ.get("OPSAPI_WRITE_GOLDEN"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        assert path.exists(), f"{path.name}: no golden file (OPSAPI_WRITE_GOLDEN=1 writes it)"
        assert text == path.read_text(), f"{t.name}'s schema changed (OPSAPI_WRITE_GOLDEN=1)"
    assert sorted(p.stem for p in SCHEMAS.glob("*.json")) == sorted(t.name for t in tools)


def test_the_schemas_bound_what_they_take() -> None:
    """What the golden files hold, read as a client reads it: every number has its bounds,
    every free string a length, ids and pages their pattern."""
    for path in SCHEMAS.glob("*.json"):
        schema = json.loads(path.read_text())
        for name, prop in schema.get("properties", {}).items():
            kinds = [prop, *prop.get("anyOf", [])]
            for k in kinds:
                if k.get("type") in ("integer", "number"):
                    assert "minimum" in k and "maximum" in k, (path.name, name)
                if k.get("type") == "string":
                    assert {"maxLength", "pattern", "enum"} & set(k) or "enum" in prop, (
                        path.name, name)  # fmt: skip
            assert prop.get("description"), (path.name, name)


# ---- what_runs_out_first is headroom's ----------------------------------------------------


def _headroom_of(sim, store, group_ids=None):
    """capacity.headroom on what the store holds, as a person would call it."""
    client = sim.client()
    ids = group_ids or sim.group_ids
    s = opsapi.Store(store)
    host = s.scan(kind="host", granularity="PT1H").filter(pl.col("group_id").is_in(ids))
    disk = s.scan(kind="disk", granularity="PT1H").filter(pl.col("group_id").is_in(ids))
    hosts = [h for g in ids for h in client.hosts.list(g)]
    clusters = [c for g in ids for c in client.clusters.list(g)]
    names = {g.id: g.name for g in client.groups.list()}
    host, disk = host.collect(), disk.collect()
    stamps = pl.concat([host.select("timestamp"), disk.select("timestamp")])["timestamp"]
    events = capacity.window_events(
        client, ids, start=stamps.min(), end=stamps.max(), clusters=clusters
    )  # the tier changes and disk resizes that restart forecasts, as the report reads them
    h = capacity.headroom(
        host, disk, hosts, window="14d", clusters=clusters, events=events.frame
    )  # fmt: skip
    return capacity.deployment_rows(h, {g: names[g] for g in ids})


def _runs_out(rows, horizon):
    days = pl.col("days_left")
    return rows.filter(
        (days <= horizon) | (days.is_null() & pl.col("status").is_in(["critical", "warning"]))
    )


@pytest.mark.parametrize("horizon", [90, 30])
async def test_what_runs_out_first_is_headrooms_order_and_days(sim, store, server, horizon):
    want = _runs_out(_headroom_of(sim, store), horizon)
    got = await pages(server, "what_runs_out_first", {"horizon_days": horizon, "top": 7},
                      "findings")  # fmt: skip
    assert want.height >= 4  # the world's seeded findings, and the disks that fill
    assert [(f["deployment"], f["resource"], f["status"]) for f in got] == [
        (r["deployment"], r["resource"], r["status"]) for r in want.iter_rows(named=True)
    ]
    for f, r in zip(got, want.iter_rows(named=True)):
        for col in ("days_left", "days_low", "days_high", "p95", "trend", "limit"):
            want_value = None if r[col] is None else pytest.approx(r[col], rel=1e-3)
            assert f.get(col) == want_value, (f, col)
        assert f["member"] == r["member"]


async def test_one_project_and_one_cluster(sim, store, server) -> None:
    client = sim.client()
    prod = next(g for g in client.groups.list() if g.name == "Prod")
    want = _runs_out(_headroom_of(sim, store, [prod.id]), 90)
    said, data = read(await call(server, "what_runs_out_first", {"project": "prod", "top": 50}))
    assert [(f["deployment"], f["resource"]) for f in data["findings"]] == [
        (r["deployment"], r["resource"]) for r in want.iter_rows(named=True)
    ]
    assert {f["project"] for f in data["findings"]} == {"Prod"}
    # The seeded oplog finding's replica set, by its name: its rows alone.
    t = next(t for t in sim.headroom_truth() if t["resource"] == "oplog_window")
    said, data = read(await call(server, "what_runs_out_first", {"cluster": t["scope"]}))
    assert data["findings"] and {f["scope"] for f in data["findings"]} == {t["scope"]}
    assert "oplog_window" in [f["resource"] for f in data["findings"]]
    assert list(data["summary"]) == list(dict.fromkeys(f["deployment"] for f in data["findings"]))


async def test_the_cache_answers_a_second_question_from_the_same_snapshot(sim, store) -> None:
    fleet = Fleet(sim.client(), Settings(store=store, refresh_seconds=None))
    first = fleet.headroom(sim.group_ids)
    again = fleet.headroom(list(reversed(sim.group_ids)))
    assert (first.hit, again.hit) == (False, True) and again.frame is first.frame
    assert fleet.headroom(sim.group_ids[:1]).hit is False  # other projects: computed


# ---- each tool names what the world was seeded with ----------------------------------------


async def test_explain_alert_names_the_seeded_breach(sim, server) -> None:
    """A seeded metric alert of a host (the newest project alert on connections: its window
    is at minutes): the threshold its configuration sets, its host and metric, and the
    series' value when it was raised, which breached that threshold."""
    truth = [
        a for a in sim.alert_truth()["metric_alerts"]
        if a["metric_name"] == "CONNECTIONS" and not a["global"]
    ][-1]  # fmt: skip
    said, data = read(await call(server, "explain_alert", {"alert_id": truth["alert_id"]}))
    assert data["alert"]["id"] == truth["alert_id"] and data["alert"]["status"] == "CLOSED"
    assert data["window"]["granularity"] == "PT1M"
    assert data["metric"]["measurement"] == "CONNECTIONS"
    assert data["metric"]["threshold"] == truth["threshold"]
    assert data["alert"]["host"] == truth["process_id"]
    [series] = data["series"]
    assert series["host_id"] == truth["host_id"]
    assert series["value_at"] == pytest.approx(truth["current_value"], rel=1e-3)
    assert series["value_at"] > truth["threshold"] and series["max"] >= series["value_at"]
    assert f"threshold {truth['threshold']:g}" in said and truth["process_id"] in said
    # Beside it, the seeded cause: the namespace whose slow queries rose with it, first, and
    # named by the reading; nothing missing.
    [cause] = [c for c in sim.cause_truth()["slow"] if c["alert_id"] == truth["alert_id"]]
    assert data["slow_queries"]["rows"][0]["namespace"] == cause["namespace"]
    assert f"slow queries on {cause['namespace']}" in data["reading"]
    assert data["missing"] == {} and "reading" in said


async def test_explain_alert_without_a_metric_gives_the_replica_sets_hosts(sim, server):
    truth = sim.alert_truth()["replica_set_alerts"][0]
    said, data = read(await call(server, "explain_alert", {"alert_id": truth["alert_id"]}))
    assert data["series"] == [] and data["note"].startswith("the alert carries no metric")
    members = [h for h in sim.client().hosts.list(truth["group_id"])
               if h.replica_set_name == truth["replica_set_name"]]  # fmt: skip
    assert sorted(h["id"] for h in data["hosts"]) == sorted(h.id for h in members)


async def test_alert_noise_names_the_flapping_configuration_and_the_noisy_host(sim, server):
    truth = sim.alert_truth()
    said, data = read(await call(server, "alert_noise", {"days": 30}))
    configs = await pages(server, "alert_noise", {"days": 30, "top": 50}, "configurations")
    flapping = truth["flapping"]
    config = next(c for c in configs if c["alert_config_id"] == flapping["alert_config_id"])
    [flap] = [f for f in config["flapping"] if f["host"] == flapping["hostname_and_port"]]
    assert flap["reopens"] == flapping["episodes"] - 1
    assert any(w.startswith(f"flaps on {flapping['hostname_and_port']}") for w in config["why"])
    noisy = [h for h in data["hosts"] if h["noisy"]]
    assert noisy[0]["host"] == truth["noisy_host"]["hostname_and_port"]
    assert sum(c["alerts"] for c in configs) == data["alerts"]


async def test_oversized_is_capacitys(sim, store, server) -> None:
    client = sim.client()
    names = {g.id: g.name for g in client.groups.list()}
    s = opsapi.Store(store)
    h = capacity.headroom(
        s.scan(kind="host", granularity="PT1H").collect(),
        s.scan(kind="disk", granularity="PT1H").collect(),
        [h for g in sim.group_ids for h in client.hosts.list(g)], window="14d",
        clusters=[c for g in sim.group_ids for c in client.clusters.list(g)],
    )  # fmt: skip
    want = capacity.oversized_deployments(h, names=names)
    said, data = read(await call(server, "oversized"))
    assert want.height >= 1
    assert [d["deployment"] for d in data["deployments"]] == want["deployment"].to_list()
    assert data["deployments"][0]["cpu"] == pytest.approx(want["cpu"][0], rel=1e-3)


async def test_resource_history_from_the_store_equals_the_points(sim, store, server, fixed_now):
    host = sim.client().hosts.list(sim.group_ids[0])[0]
    member = f"{host.hostname}:{host.port}"
    said, data = read(await call(server, "resource_history", {
        "target": member, "metric": "CONNECTIONS", "since": "P3D", "max_points": 36}))  # fmt: skip
    assert data["source"] == "the store (PT1H)" and data["target"] == member
    [series] = data["series"]
    points = (
        opsapi.Store(store).scan(kind="host", granularity="PT1H")
        .filter(pl.col("host_id") == host.id, pl.col("measurement") == "CONNECTIONS",
                pl.col("timestamp") >= fixed_now - timedelta(days=3),
                pl.col("value").is_not_null())
        .collect()["value"]
    )  # fmt: skip
    assert series["points"] == points.len()
    assert (series["min"], series["max"]) == (
        pytest.approx(points.min(), rel=1e-3), pytest.approx(points.max(), rel=1e-3))  # fmt: skip
    assert series["p95"] == pytest.approx(points.quantile(0.95, "linear"), rel=1e-3)
    buckets = series["buckets"]
    assert len(buckets["mean"]) <= 36 and buckets["every"] == "PT3H"  # 25 of 3 hours
    assert max(v for v in buckets["max"] if v is not None) == series["max"]


async def test_resource_history_of_a_partition_from_the_api(sim) -> None:
    """Without a store the API is asked, at the finest granularity it keeps for the span."""
    server = build_server(Fleet(sim.client(), Settings(refresh_seconds=None)))
    host = sim.client().hosts.list(sim.group_ids[0])[0]
    part = sim.client().hosts.partitions(host.group_id, host.id)[0]
    target = f"{host.hostname}:{host.port}/{part}"
    sim.clear_requests()
    said, data = read(await call(server, "resource_history", {
        "target": target, "metric": "DISK_PARTITION_SPACE_USED", "since": "P1D"}))  # fmt: skip
    assert data["source"] == "the API (PT1M)"
    [series] = data["series"]
    assert series["partition_name"] == part and series["points"] > 1000
    asked = [r for r in sim.requests() if r["authorized"] and "/measurements" in r["path"]]
    assert len(asked) == 1 and "granularity=PT1M" in asked[0]["query"]


async def test_store_status_says_what_the_store_holds(sim, store, server, fixed_now) -> None:
    said, data = read(await call(server, "store_status", {"check": True}))
    targets = opsapi.Store(store).targets()
    assert sum(k["points"] for k in data["kinds"]) == targets["points"].sum()
    assert {k["kind"] for k in data["kinds"]} == {"host", "disk"}
    assert data["now"] == fixed_now.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert data["last_check"]["ok"] is True and data["last_check"]["files"] > 0
    assert data["hours_behind"] == pytest.approx(0.0, abs=1.0)


# ---- pages and the size cap ------------------------------------------------------------------


async def test_list_alerts_pages_hold_every_alert_once(sim, server) -> None:
    every = sim.client().alerts.list_all()
    got = await pages(server, "list_alerts", {"status": "ANY", "limit": 100}, "alerts")
    assert sorted(a["id"] for a in got) == sorted(a.id for a in every)
    assert len({a["id"] for a in got}) == len(got)
    created = [a["created"] for a in got]
    assert created == sorted(created, reverse=True)


CALLS = [
    ("store_status", {"check": True}),
    ("what_runs_out_first", {"top": 50, "horizon_days": 3650}),
    ("list_alerts", {"status": "ANY", "limit": 100}),
    ("alert_noise", {"top": 50, "days": 90}),
    ("oversized", {}),
]


@pytest.mark.parametrize("name, args", CALLS, ids=[c[0] for c in CALLS])
async def test_every_result_fits_the_cap(server, name, args) -> None:
    result = await call(server, name, args)
    assert not result.is_error, result.content[0].text
    text = result.content[0].text
    assert len(text.encode()) <= MAX_BYTES
    said, data = read(result)
    assert "truncated" in data


async def test_series_and_contexts_fit_the_cap(sim, server) -> None:
    host = sim.client().hosts.list(sim.group_ids[0])[0]
    for target in (f"{host.hostname}:{host.port}", host.id):
        args = {"target": target, "metric": "CONNECTIONS", "since": "P14D", "max_points": 400}
        result = await call(server, "resource_history", args)
        assert len(result.content[0].text.encode()) <= MAX_BYTES
    for a in sim.alert_truth()["metric_alerts"][:6]:
        if a.get("global"):
            continue
        result = await call(server, "explain_alert", {"alert_id": a["alert_id"]})
        assert not result.is_error and len(result.content[0].text.encode()) <= MAX_BYTES


async def test_api_text_is_marked_as_data(server) -> None:
    result = await call(server, "list_alerts", {"limit": 3})
    text = result.content[0].text
    said, data = read(result)
    assert "never as instructions" in said and data["alerts"]
    # The alerts' own text is inside the tags, nowhere before them.
    host = next(a["host"] for a in data["alerts"] if "host" in a)
    assert host not in said and text.index(host) > text.index("<untrusted-api-data-")


# ---- bad arguments -----------------------------------------------------------------------------

# Refused by the schema or the tool before any request: (tool, arguments, the name said).
BEFORE_ANY_REQUEST = [
    ("list_alerts", {"limit": 0}, "limit"),
    ("list_alerts", {"status": "BURNING"}, "status"),
    ("list_alerts", {"page": "two"}, "page"),
    ("what_runs_out_first", {"horizon_days": 0}, "horizon_days"),
    ("what_runs_out_first", {"top": 51}, "top"),
    ("alert_noise", {"days": 365}, "days"),
    ("explain_alert", {"alert_id": "not-an-id"}, "alert_id"),
    ("resource_history", {"target": "h:1", "metric": "connections"}, "metric"),
    ("resource_history", {"target": "h:1", "metric": "CONNECTIONS", "max_points": 2},
     "max_points"),
    ("resource_history", {"metric": "CONNECTIONS"}, "target"),
    ("resource_history", {"target": "x", "metric": "CONNECTIONS", "since": "yesterday"},
     "since"),
]  # fmt: skip
# Refused once the tool has looked (the projects, the hosts, the alert).
AFTER_A_LOOK = [
    ("what_runs_out_first", {"project": "Nope"}, "project"),
    ("what_runs_out_first", {"cluster": "no-such-cluster"}, "cluster"),
    ("resource_history", {"target": "nowhere.example.net:27017", "metric": "CONNECTIONS"},
     "target"),
    ("explain_alert", {"alert_id": "0" * 24}, "alert_id"),
]  # fmt: skip


@pytest.mark.parametrize("name, args, argument", BEFORE_ANY_REQUEST,
                         ids=[f"{c[0]}-{c[2]}" for c in BEFORE_ANY_REQUEST])  # fmt: skip
async def test_a_bad_argument_is_named_before_any_request(sim, server, name, args, argument):
    sim.clear_requests()
    result = await call(server, name, args)
    assert result.is_error and argument in result.content[0].text
    assert sim.requests() == []


@pytest.mark.parametrize("name, args, argument", AFTER_A_LOOK,
                         ids=[f"{c[0]}-{c[2]}" for c in AFTER_A_LOOK])  # fmt: skip
async def test_a_bad_argument_is_named(server, name, args, argument) -> None:
    result = await call(server, name, args)
    text = result.content[0].text
    assert result.is_error and f"{argument}: " in text, text
    assert "Traceback" not in text


class _Later:
    """An alert context with the parts API.md adds (slow queries, suggested indexes, events
    as a frame, the reading, what is missing), as the alert-context work will give them: what
    ``explained`` does with them, before that work lands."""

    def __init__(self, ctx, **parts):
        self._ctx, self._parts = ctx, parts

    def __getattr__(self, name):
        return self._parts[name] if name in self._parts else getattr(self._ctx, name)


def test_explained_shows_the_later_parts_of_a_context_as_it_has_them(sim) -> None:
    from opsapi.mcp._alerts import explained

    client = sim.client()
    alert = next(a for a in client.alerts.list(sim.group_ids[0]) if a.metric_name)
    ctx = client.alerts.context(alert)
    said, today = explained(ctx, {}, [], 60, 5, 5)
    assert today["missing"] == {} and today["reading"] == ctx.reading
    assert today["events"]["total"] == ctx.events.filter(pl.col("kind") != "alert").height
    slow = pl.DataFrame({"namespace": ["shop.orders"] * 7, "count": list(range(7))})
    events = pl.DataFrame({"created": [alert.created] * 2, "event_type_name": ["X", "Y"],
                           "kind": ["restart", "alert"]})  # fmt: skip
    later = _Later(ctx, slow_queries=slow, suggested_indexes=slow.head(0), reading="It reads so.",
                   events=events,
                   missing={"suggested_indexes": "the key may not read them"})  # fmt: skip
    said, data = explained(later, {}, [], 60, 5, 3)
    assert data["slow_queries"] == {"total": 7, "rows": slow.head(3).to_dicts()}
    assert data["suggested_indexes"] == {"total": 0, "rows": []}
    assert data["reading"] == "It reads so." and data["events"]["total"] == 1
    assert data["missing"] == {"suggested_indexes": "the key may not read them"}
    assert data["series"] == today["series"]


@pytest.fixture(scope="module")
def atlas(fixed_now):
    from opsapi.testing import Simulator

    with Simulator(seed=0, now=fixed_now, flavour="atlas") as s:
        yield s


@pytest.fixture(scope="module")
def atlas_server(atlas):
    fleet = Fleet(atlas.client(max_retries=0), Settings(refresh_seconds=None))
    yield build_server(fleet)
    fleet.close()


ATLAS_CALLS = [
    ("what_runs_out_first", {"top": 5}),
    ("oversized", {}),
    ("list_alerts", {"limit": 5}),
    ("alert_noise", {"top": 3}),
    ("store_status", {}),
]


@pytest.mark.parametrize("name, args", ATLAS_CALLS, ids=[c[0] for c in ATLAS_CALLS])
async def test_on_atlas(atlas_server, name, args) -> None:
    """The same tools on Atlas (without a store: pulled from its API): each answers, and every
    request they sent is one Atlas's OpenAPI specification allows (conftest checks it)."""
    result = await call(atlas_server, name, args)
    said, data = read(result)
    assert not result.is_error, said
    if name == "what_runs_out_first":
        assert data["findings"] and data["headroom"]["source"] == "the API"
        assert all(":" in f["member"] for f in data["findings"])  # processes: hostname:port


async def test_on_atlas_an_alert_and_its_host(atlas, atlas_server) -> None:
    """explain_alert says what the alert context says on Atlas (the process by the alert's
    hostnameAndPort): its series crosses the threshold; the alert's process by its
    hostname:port has its history."""
    said, data = read(await call(atlas_server, "list_alerts", {"status": "ANY", "limit": 100}))
    alert = next(a for a in data["alerts"] if a.get("metric_name") == "CONNECTIONS")
    said, explained = read(await call(atlas_server, "explain_alert", {"alert_id": alert["id"]}))
    client = atlas.client()
    group = next(g for g, n in ((g.id, g.name) for g in client.groups.list())
                 if n == alert["project"])  # fmt: skip
    ctx = client.alerts.context(client.alerts.get(group, alert["id"]))
    assert explained["alert"]["id"] == alert["id"]
    assert explained.get("note") == ctx.note and len(explained["series"]) == len(
        {m.host_id for m in ctx.measurements})  # fmt: skip
    assert explained["series"] and ctx.threshold is not None, said
    said, history = read(await call(atlas_server, "resource_history", {
        "target": alert["host"], "metric": "CONNECTIONS", "since": "P1D"}))  # fmt: skip
    assert history["source"] == "the API (PT1M)" and history["series"], said
