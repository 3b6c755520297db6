"""client.alerts.context: a seeded alert of each kind (a host metric, a disk partition's space,
a replica set without a primary), sync and awaited, placed on its host, partition or replica
set: the window, granularity and threshold, the exact requests, a frame equal to what the
server serves for that window, and the deployment's events of the window; and the chart. On
Atlas, every metric alert of the world, by its process's ``hostnameAndPort`` (``alerts show
--context`` too). What the context says of why (slow queries, indexes, the causes seeded into
the world, missing parts): ``test_alerts_why.py``."""

from __future__ import annotations

import datetime as dt
from urllib.parse import parse_qsl, quote

import polars as pl
import pytest
from _truth import LONG, PAGE1, frame_rows, get, requests_of, served_rows
from _truth import world_rows as rows
from conftest import FIXED_NOW

import opsapi
from opsapi._duration import parse_duration
from opsapi.testing import Simulator

UTC = dt.timezone.utc


def floor(t: dt.datetime, step: dt.timedelta) -> dt.datetime:
    epoch = dt.datetime(1970, 1, 1, tzinfo=UTC)
    return epoch + (t - epoch) // step * step


def iso(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def q(t: dt.datetime) -> str:
    return iso(t).replace(":", "%3A")


async def call(client, *args, **kwargs):
    out = client.alerts.context(*args, **kwargs)
    return await out if isinstance(client, opsapi.AsyncClient) else out


def events_asked(req, start: dt.datetime, end: dt.datetime) -> set[str]:
    """The event types an events request of a context's window asked for (``eventType``,
    repeated), after checking its path and window (``minDate``, ``maxDate``)."""
    method, path, query, _ = req
    pairs = parse_qsl(query)
    assert (method, path.rsplit("/", 1)[-1]) == ("GET", "events")
    assert ("minDate", iso(start)) in pairs and ("maxDate", iso(end)) in pairs
    return {v for k, v in pairs if k == "eventType"}


#: What a deployment's events are on Ops Manager, as a person reads its event types: its
#: hosts' and replica sets' (elections, restarts, hosts down and up), the project's
#: configuration (the automation configuration is a project's), the alert's own audits; not
#: who joined the project.
OPS_MANAGER_ASKED = {"PRIMARY_ELECTED", "HOST_RESTARTED", "HOST_DOWN", "HOST_UP",
                     "AUTOMATION_CONFIG_PUBLISHED_AUDIT", "ALERT_ACKNOWLEDGED_AUDIT"}  # fmt: skip


def deployment_events(sim, g, ctx, host_ids, sets) -> list[str]:
    """The ids of the project's events of the context's window that are its deployment's,
    oldest first."""
    out = []
    for e in sim.client().events.list(g):
        if not ctx.start <= e.created <= ctx.end or e.event_type_name == "JOINED_GROUP":
            continue
        if e.event_type_name == "AUTOMATION_CONFIG_PUBLISHED_AUDIT":
            out.append(e)
        elif e.event_type_name.startswith("ALERT_"):
            if e.alert_id == ctx.alert.id:
                out.append(e)
        elif e.host_id in host_ids or e.replica_set_name in sets:
            out.append(e)
    return [e.id for e in sorted(out, key=lambda e: (e.created, e.id))]


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_a_host_metric_alert(sim, fixed_now, kind):
    client = sim.client() if kind == "sync" else sim.async_client()
    g = sim.group_ids[0]
    alert = next(
        a for a in sim.client().alerts.list(g, status="OPEN") if a.metric_name == "CONNECTIONS"
    )
    config = next(c for c in sim.client().alert_configs.list(g) if c.id == alert.alert_config_id)
    sim.clear_requests()

    ctx = await call(client, alert, before=dt.timedelta(hours=1), after="PT30M")

    # Open for weeks: from an hour before it opened to now, at hours (minutes and five
    # minutes are not kept that far back).
    hour = dt.timedelta(hours=1)
    start, end = floor(alert.created - hour, hour), floor(fixed_now, hour)
    assert (ctx.start, ctx.end, ctx.granularity) == (start, end, "PT1H")
    assert (ctx.kind, ctx.measurement, ctx.note) == ("host", "CONNECTIONS", None)
    assert ctx.threshold == config.metric_threshold["threshold"] == 2000.0
    assert ctx.threshold_units == "RAW"
    assert ctx.alert.id == alert.id and ctx.host.id == alert.host_id
    assert [h.id for h in ctx.hosts] == [alert.host_id]
    # The host and the configurations at once; then at once the measurements and the events.
    sent = requests_of(sim)
    assert sorted(sent[:2]) == [
        get(f"/groups/{g}/alertConfigs", PAGE1),
        get(f"/groups/{g}/hosts/{alert.host_id}"),
    ]
    [measured] = [r for r in sent[2:] if r[1].endswith("/measurements")]
    [events] = [r for r in sent[2:] if r[1].endswith("/events")]
    window = {"granularity": "PT1H", "start": iso(start), "end": iso(end), "m": "CONNECTIONS"}
    assert measured == get(
        f"/groups/{g}/hosts/{alert.host_id}/measurements",
        f"granularity=PT1H&start={q(start)}&end={q(end)}&m=CONNECTIONS",
    )
    asked = events_asked(events, start, end)
    assert asked >= OPS_MANAGER_ASKED and "COMPUTE_AUTO_SCALE_INITIATED_BASE" not in asked
    # The events of its deployment: its host's, its replica set's, the project's configuration.
    sets = {alert.replica_set_name} - {None}
    want = deployment_events(sim, g, ctx, {alert.host_id}, sets)
    assert ctx.events["id"].cast(pl.String).to_list() == want and len(want) > 0
    assert ctx.events.columns == ["created", "event_type_name", "kind", "said", "host",
                                  "replica_set_name", "id", "host_id", "alert_id"]  # fmt: skip
    want = served_rows(sim, [(g, alert.host_id)], **window)
    assert frame_rows(ctx.frame) == want and len(want) > 24 * 7
    assert [m.host_id for m in ctx.measurements] == [alert.host_id]
    assert "CONNECTIONS" in repr(ctx)


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_a_disk_alert(sim, fixed_now, kind):
    client = sim.client() if kind == "sync" else sim.async_client()
    truth = sim.alert_truth()["disk_alerts"][-1]
    g, h, p = truth["group_id"], truth["host_id"], truth["partition_name"]
    alert = sim.client().alerts.get(g, truth["alert_id"])
    assert alert.metric_name == "DISK_PARTITION_SPACE_USED_DATA" and alert.status == "OPEN"
    sim.clear_requests()

    ctx = await call(client, alert)

    # Raised days ago (the minute its series first went past the threshold), within the
    # week: five minutes (minutes are kept two days), from two hours before to now.
    assert dt.timedelta(days=2) < fixed_now - alert.created < dt.timedelta(days=7)
    five = dt.timedelta(minutes=5)
    start = floor(alert.created - dt.timedelta(hours=2), five)
    assert (ctx.start, ctx.end, ctx.granularity) == (start, fixed_now, "PT5M")
    assert (ctx.kind, ctx.measurement) == ("disk", "DISK_PARTITION_SPACE_PERCENT_USED")
    assert ctx.threshold == truth["threshold"] < alert.current_value.number
    sent = requests_of(sim)
    assert sorted(sent[:2]) == [
        get(f"/groups/{g}/alertConfigs", PAGE1),
        get(f"/groups/{g}/hosts/{h}"),
    ]
    # The partitions, then its measurements; the events meanwhile.
    disks, measured = [r for r in sent[2:] if "/disks" in r[1]]
    [events] = [r for r in sent[2:] if r[1].endswith("/events")]
    assert events_asked(events, start, fixed_now) >= OPS_MANAGER_ASKED
    assert disks == get(f"/groups/{g}/hosts/{h}/disks", PAGE1)
    m = "DISK_PARTITION_SPACE_PERCENT_USED"
    assert measured == get(
        f"/groups/{g}/hosts/{h}/disks/{p}/measurements",
        f"granularity=PT5M&start={q(start)}&end={q(fixed_now)}&m={m}",
    )
    window = {"granularity": "PT5M", "start": iso(start), "end": iso(fixed_now), "m": m}
    want = served_rows(sim, [(g, h, p)], **window)
    assert frame_rows(ctx.frame) == want
    assert len(want) == (fixed_now - start) // five + 1
    assert ctx.frame["partition_name"].cast(pl.String).unique().to_list() == ["data"]


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_a_replica_set_alert_gives_state_and_events_and_never_raises(sim, kind):
    client = sim.client() if kind == "sync" else sim.async_client()
    truth = sim.alert_truth()["replica_set_alerts"][0]
    g, rs = truth["group_id"], truth["replica_set_name"]
    alert = sim.client().alerts.get(g, truth["alert_id"])
    assert alert.event_type_name == "NO_PRIMARY" and alert.metric_name is None
    sim.clear_requests()

    ctx = await call(client, alert, granularity="PT5M")

    assert (ctx.kind, ctx.measurement, ctx.threshold, ctx.host) == (None, None, None, None)
    assert ctx.note == "the alert carries no metric"
    assert ctx.frame.columns == LONG and ctx.frame.height == 0
    assert ctx.measurements == []
    members = [h for h in sim.client().hosts.list(g) if h.replica_set_name == rs]
    assert len(members) >= 2
    assert [(h.id, h.replica_state_name) for h in ctx.hosts] == [
        (h.id, h.replica_state_name) for h in members
    ]
    five = dt.timedelta(minutes=5)
    assert ctx.granularity == "PT5M"
    assert ctx.start == floor(alert.created - dt.timedelta(hours=2), five)
    assert ctx.end == floor(alert.resolved + dt.timedelta(hours=1), five)
    # The members first; then the events (and each member's Performance Advisor) at once.
    hosts, *rest = requests_of(sim)
    [events] = [r for r in rest if r[1].endswith("/events")]
    assert hosts == get(f"/groups/{g}/hosts", PAGE1)
    assert events_asked(events, ctx.start, ctx.end) >= OPS_MANAGER_ASKED
    # The window's events about its members, its replica set or the alert itself, and the
    # project's configuration changes.
    want = deployment_events(sim, g, ctx, {h.id for h in members}, {rs})
    assert ctx.events["id"].cast(pl.String).to_list() == want
    # The election that gave it a primary again ended it.
    [elected] = [e for e in sim.cause_truth()["elections"] if e["alert_id"] == alert.id]
    assert elected["ends"] and elected["at"] == alert.resolved.replace(microsecond=0)
    assert elected["event_id"] in want


def test_the_chart_shows_series_threshold_and_open_span(sim):
    pytest.importorskip("altair", reason="charts need Altair (pip install altair)")
    client = sim.client()
    truth = sim.alert_truth()["disk_alerts"][0]
    alert = client.alerts.get(truth["group_id"], truth["alert_id"])
    chart = client.alerts.context(alert).chart(width=300)
    spec = chart.to_dict()
    marks = sorted(layer["mark"]["type"] for layer in spec["layer"])
    assert marks == ["line", "rect", "rule"] and spec["width"] == 300
    shade, line, rule = spec["layer"]
    assert (shade["mark"]["type"], rule["mark"]["type"]) == ("rect", "rule")
    datasets = spec["datasets"]
    assert datasets[rule["data"]["name"]] == [{"threshold": truth["threshold"]}]
    span = datasets[shade["data"]["name"]][0]
    assert span["opened"].startswith(alert.created.strftime("%Y-%m-%dT%H:%M"))
    assert len(datasets[line["data"]["name"]]) == client.alerts.context(alert).frame.height
    # No metric: a chart all the same, of the open span alone.
    rs = sim.alert_truth()["replica_set_alerts"][0]
    no_metric = client.alerts.get(rs["group_id"], rs["alert_id"])
    assert (
        client.alerts.context(no_metric)
        .chart()
        .to_dict()["title"]
        .endswith("(the alert carries no metric)")
    )


def test_a_global_alert_has_its_context_too(sim, client):
    alert = next(
        a for a in client.global_alerts.list(status="OPEN") if a.metric_name == "ASSERT_REGULAR"
    )
    ctx = client.alerts.context(alert, granularity=dt.timedelta(days=1))
    assert (ctx.kind, ctx.granularity, ctx.threshold) == ("host", "P1D", 0.0)
    assert ctx.frame["host_id"].cast(pl.String).unique().to_list() == [alert.host_id]


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"before": "P1M"}, "before"),
        ({"after": "soon"}, "after"),
        ({"after": 3}, "after"),
        ({"granularity": "PT2M"}, "granularity"),
    ],
)
async def test_options_are_refused_before_any_request(sim, client, aclient, kwargs, argument):
    a = rows(sim, "project_alerts")[0]
    sim_alert = client.alerts.get(a["group_id"], a["id"])
    sim.clear_requests()
    for c in (client, aclient):
        with pytest.raises(opsapi.InvalidArgumentError) as e:
            await call(c, sim_alert, **kwargs)
        assert f"`{argument}`" in str(e.value)
    assert sim.requests() == []


# ---- On Atlas: the process by its hostnameAndPort, every metric alert ------------------------


@pytest.fixture(scope="module")
def atlas():
    """An Atlas simulator of the suite's world, read only."""
    with Simulator(flavour="atlas", now=FIXED_NOW) as s:
        yield s


def atlas_metric_alerts(sim) -> list[dict]:
    """The world's metric alerts about processes Atlas has (it has no standalone ones)."""
    c = sim.client()
    served = {h.id for g in sim.group_ids for h in c.hosts.list(g)}
    return [t for t in sim.alert_truth()["metric_alerts"] if t["process_id"] in served]


def crosses(ctx, alert, threshold: float, end) -> bool:
    """Whether the context's series is within ``threshold`` before the alert was raised and
    past it while it was open (until ``end``)."""
    step = parse_duration(ctx.granularity)
    raised = floor(alert.created, step)
    f = ctx.frame.filter(pl.col("value").is_not_null())
    before = f.filter((pl.col("timestamp") < raised) & (pl.col("value") <= threshold))
    during = f.filter(
        (pl.col("timestamp") >= raised)
        & (pl.col("timestamp") < (end or ctx.end + step))
        & (pl.col("value") > threshold)
    )
    return before.height > 0 and during.height > 0


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_on_atlas_every_metric_alert_shows_its_series_crossing_its_threshold(atlas, kind):
    """Atlas's alerts carry ``hostnameAndPort`` and no ``hostId``: the context asks the process
    by it (``/processes/{hostname:port}``), and every metric alert's series crosses its
    threshold, as on Ops Manager."""
    client = atlas.client() if kind == "sync" else atlas.async_client()
    reader = atlas.client()
    truth = atlas_metric_alerts(atlas)
    assert len(truth) > 40
    metrics = set()
    for t in truth:
        g, process = t["group_id"], t["process_id"]
        alert = reader.alerts.get(g, t["alert_id"])
        assert (alert.host_id, alert.hostname_and_port) == (None, process)
        assert "hostId" not in alert.to_dict()
        metrics.add(alert.metric_name)
        atlas.clear_requests()
        ctx = await call(client, alert)
        what = f"{t['alert_id']} {alert.metric_name} on {process}"
        asked = [r["path"] for r in atlas.requests() if r["authorized"]]
        assert f"/api/atlas/v2/groups/{g}/processes/{quote(process, safe='')}" in asked, what
        # The configuration's threshold in the series' units: Atlas measures the replication
        # lag in milliseconds, and its configuration says seconds.
        units = ctx.frame["units"].cast(pl.String).unique().to_list()
        threshold = t["threshold"]
        if alert.metric_name == "OPLOG_SLAVE_LAG_MASTER_TIME":
            assert (ctx.threshold_units, units) == ("MILLISECONDS", ["MILLISECONDS"]), what
            threshold *= 1000
        assert (ctx.note, ctx.threshold, ctx.host.id) == (None, threshold, process), what
        assert crosses(ctx, alert, threshold, t["end"]), what
    assert metrics == {
        "ASSERT_REGULAR", "CONNECTIONS", "DISK_PARTITION_SPACE_USED_DATA",
        "OPLOG_SLAVE_LAG_MASTER_TIME",
    }  # fmt: skip


def test_on_atlas_alerts_show_context_shows_each_metric_alerts_series(atlas, capsys, monkeypatch):
    """``opsapi alerts show ID --project G --context`` against Atlas: a metric alert of each
    metric, its series (its sparkline) and threshold, as ``alerts.context`` gives them."""
    from test_cli import run

    from opsapi.cli.alert_show import sparkline

    for name, value in (("OPSAPI_FLAVOUR", "atlas"), ("OPSAPI_BASE_URL", atlas.base_url),
                        ("OPSAPI_CLIENT_ID", atlas.client_id),
                        ("OPSAPI_CLIENT_SECRET", atlas.client_secret)):  # fmt: skip
        monkeypatch.setenv(name, value)
    for name in ("OPSAPI_PUBLIC_KEY", "OPSAPI_PRIVATE_KEY", "OPSAPI_CA_FILE", "OPSAPI_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPSAPI_CONFIG", "/nonexistent/opsapi.toml")
    reader = atlas.client()
    each = {t["metric_name"]: t for t in atlas_metric_alerts(atlas)}
    assert len(each) == 4
    for t in each.values():
        g, a = t["group_id"], t["alert_id"]
        code, out, err = run(capsys, "alerts", "show", a, "--project", g, "--context")
        assert code == 0, err
        ctx = reader.alerts.context(reader.alerts.get(g, a))
        assert f", threshold {ctx.threshold:,g}" in out, out
        # The series' name, sparkline and figures follow the context's line.
        lines = out.splitlines()
        line = lines[[i for i, x in enumerate(lines) if x.startswith("context ")][0] + 2]
        values = ctx.frame["value"].to_list()
        assert len(values) > 2 and line.strip() == sparkline(values).strip(), (a, out)
