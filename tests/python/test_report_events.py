"""The events every finding's chart marks (issue 40 §2): each project's elections, restarts,
hosts down, auto-scaling and tier or disk changes over the report's window, asked in the
flavour's own event types (one listing per project; on Atlas, whose cluster events name no
cluster, one more per cluster), each marked on the charts of its deployment. The truth is the
simulator's seeded causes (``Simulator.cause_truth``): every one of them in the window on a
flagged deployment is marked there, and nothing of another deployment is. A project whose
events the server refuses costs only its marks, said in one line."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import parse_qs

import polars as pl
import pytest
from _flagged import flagged_world

from opsapi import capacity

pytest.importorskip("altair", reason="the report's charts need Altair")

from opsapi.report import charts, sections  # noqa: E402

WINDOW = timedelta(days=14)
#: What each flavour's documentation calls the charted kinds of a host's events.
OPS_MANAGER_TYPES = ["PRIMARY_ELECTED", "HOST_NOW_PRIMARY", "HOST_NOW_SECONDARY", "NO_PRIMARY",
                     "HOST_RESTARTED", "HOST_DOWN"]  # fmt: skip
ATLAS_HOST_TYPES = ["PRIMARY_ELECTED", "NO_PRIMARY", "HOST_DOWN"]
ATLAS_CLUSTER_TYPES = ["TEST_FAILOVER_REQUESTED", "CLUSTER_INSTANCE_RESTARTED",
                       "PROCESS_RESTART_REQUESTED", "COMPUTE_AUTO_SCALE_INITIATED",
                       "COMPUTE_AUTO_SCALE_INITIATED_BASE",
                       "COMPUTE_AUTO_SCALE_INITIATED_ANALYTICS",
                       "PREDICTIVE_COMPUTE_AUTO_SCALE_INITIATED_BASE",
                       "DISK_AUTO_SCALE_INITIATED", "CLUSTER_UPDATE_STARTED",
                       "CLUSTER_UPDATE_COMPLETED"]  # fmt: skip


@pytest.fixture(scope="module", params=["ops-manager", "atlas"])
def world(request, fixed_now):
    """Per flavour: the simulator, the findings' rows, their topology, the events the report
    asked and the requests it sent for them."""
    with flagged_world(request.param, fixed_now) as w:
        w["got"] = capacity.window_events(
            w["client"], list(w["names"]), start=fixed_now - WINDOW, end=fixed_now,
            clusters=w["inputs"].clusters,
        )  # fmt: skip
        sent = w["sim"].requests()
        w["sent"] = [r for r in sent if r["authorized"] and r["path"].endswith("/events")]
        yield w


def _expected(w, fixed_now) -> dict[str, set[str]]:
    """The seeded events of the window that a person reads as each flagged deployment's: a
    restart of one of its hosts (Atlas: of its cluster), an election in one of its replica
    sets, an auto-scaling of its cluster."""
    topo = w["topo"].with_columns(pl.col("group_id", "host_id").cast(pl.String))
    start = fixed_now - WINDOW
    truth = w["sim"].cause_truth()
    out: dict[str, set[str]] = {}
    keys = ["deployment", "group_id", "member", "cluster_id"]
    for d in w["rows"].select(keys).unique().iter_rows(named=True):
        of_group = topo.filter(pl.col("group_id") == str(d["group_id"]))
        rs = of_group.filter(pl.col("member") == d["member"])["replica_set_name"][0]
        mine = of_group.filter(
            pl.col("cluster_id").eq_missing(d["cluster_id"]) & pl.lit(d["cluster_id"] is not None)
            | pl.col("replica_set_name").eq_missing(rs) & pl.lit(rs is not None)
            | (pl.col("member") == d["member"])
        )  # fmt: skip
        groups = {str(d["group_id"])}
        hosts, sets = set(mine["host_id"]), set(mine["replica_set_name"].drop_nulls())
        clusters = set(mine["cluster_name"].drop_nulls())
        ids = out.setdefault(d["deployment"], set())
        for e in truth["restarts"]:
            if start <= e["at"] <= fixed_now and e["host_id"] in hosts:
                ids.add(e["event_id"])
        for e in truth["elections"]:
            if start <= e["at"] <= fixed_now and e["group_id"] in groups:
                if e["replica_set_name"] in sets:
                    ids.add(e["event_id"])
        for e in truth["scaling"]:
            if start <= e["at"] <= fixed_now and e["cluster_name"] in clusters:
                ids.add(e["event_id"])
    return out


def test_each_flavour_is_asked_in_its_own_types_once_a_project(world, fixed_now):
    sent, names = world["sent"], world["names"]
    project = [r for r in sent if "clusterNames" not in r["query"]]
    assert sorted(r["path"].split("/groups/")[1].split("/")[0] for r in project) == sorted(names)
    expected = OPS_MANAGER_TYPES if world["flavour"] == "ops-manager" else ATLAS_HOST_TYPES
    for r in project:
        q = parse_qs(r["query"])
        assert q["eventType"] == expected
        assert q["minDate"] == [f"{fixed_now - WINDOW:%Y-%m-%dT%H:%M:%SZ}"]
        assert q["maxDate"] == [f"{fixed_now:%Y-%m-%dT%H:%M:%SZ}"]
    per_cluster = [parse_qs(r["query"]) for r in sent if "clusterNames" in r["query"]]
    if world["flavour"] == "ops-manager":
        assert per_cluster == []  # Ops Manager's events name their hosts
    else:
        listed = {c.name for c in world["inputs"].clusters}
        assert sorted(q["clusterNames"][0] for q in per_cluster) == sorted(listed)
        assert all(q["eventType"] == ATLAS_CLUSTER_TYPES for q in per_cluster)
    assert world["got"].missing == {}


def test_every_seeded_event_of_a_flagged_deployment_is_marked_on_its_charts(world, fixed_now):
    marks = capacity.finding_events(world["rows"], world["got"].frame, world["topo"])
    expected = _expected(world, fixed_now)
    assert sum(map(len, expected.values())) >= 2, expected  # the truth is not empty
    for deployment, ids in expected.items():
        marked = set(marks.filter(pl.col("deployment") == deployment)["id"])
        assert ids <= marked, (deployment, ids - marked)
    # Nothing of another deployment: every mark is a seeded event of its own.
    seeded = {i for ids in expected.values() for i in ids}
    for row in marks.iter_rows(named=True):
        if row["id"] in seeded:
            assert row["id"] in expected[row["deployment"]], row
    if world["flavour"] == "atlas":
        assert "scaling" in set(marks["kind"]), "Atlas's seeded auto-scaling is marked"


def test_a_tier_change_or_a_disk_resize_restarts_its_clusters_forecasts(world, fixed_now):
    """Atlas's auto-scaling of a cluster (issue 37): compute (a tier change) and disk (a
    resize), which the series themselves do not show. Given the events, no forecast of the
    cluster's data-bearing hosts reads across them: each fit of a resource the change sets
    starts at it or later (at it where the series shows no later change of its own), and the
    phrase the report and the CLI show says so. Ops Manager serves no such event, and no fit
    restarts for one."""
    inputs = world["inputs"]
    h_all = capacity.headroom(
        *inputs, now=fixed_now, clusters=inputs.clusters, events=world["got"].frame
    )
    h = h_all.filter(pl.col("scope_kind") == "host")
    start = fixed_now - WINDOW
    scaling = [s for s in world["sim"].cause_truth()["scaling"] if s["at"] >= start]
    if world["flavour"] == "ops-manager":
        assert scaling == []
        assert not {"tier_change", "capacity_change"} & set(h["fit_reason"].drop_nulls())
        assert sections._restarted(h_all, world["names"]) == ""
        return
    assert {s["event_type_name"] for s in scaling} == {
        "COMPUTE_AUTO_SCALE_INITIATED_BASE", "DISK_AUTO_SCALE_INITIATED"
    }  # fmt: skip
    topo = world["topo"]
    for s in scaling:
        disk = s["event_type_name"] == "DISK_AUTO_SCALE_INITIATED"
        members = topo.filter(pl.col("cluster_id") == s["cluster_id"], pl.col("role") == "data")
        mine = h.filter(
            pl.col("member").is_in(members["member"].to_list()),
            pl.col("resource").is_in(["disk"] if disk else list(capacity.events.LOAD)),
            pl.col("fit_since").is_not_null(),
        )
        assert mine.height >= members.height, (s, mine)
        assert (mine["fit_since"] >= s["at"] - timedelta(minutes=1)).all(), mine
        at = mine.filter(
            pl.col("fit_reason") == ("capacity_change" if disk else "tier_change")
        )  # fmt: skip
        assert at.height, mine.select("member", "resource", "fit_since", "fit_reason")
        assert ((at["fit_since"] - s["at"]).dt.total_minutes().abs() <= 60).all()
        said = "the capacity changed" if disk else "the tier changed"
        for r in at.iter_rows(named=True):
            phrase = " ".join(
                x for x in (r["rests_on"], capacity.regime_text(r), r["note"]) if x
            )  # fmt: skip
            if r["days_left"] is not None or said in (r["note"] or ""):
                assert said in phrase, r
    # The report says, under its findings, which deployment's forecasts start where and why.
    lines = sections._restarted(h_all, world["names"])
    for s in scaling:
        disk = s["event_type_name"] == "DISK_AUTO_SCALE_INITIATED"
        said = "the capacity changed" if disk else "the tier changed"
        what = "disk space" if disk else "CPU and dirty cache"
        assert f"· {s['cluster_name']}: {what} fitted since {s['at']:%b %-d}, when {said}" in (
            lines
        ), lines


def test_a_chart_draws_a_labelled_rule_at_each_of_its_deployments_events(world, fixed_now):
    marks = capacity.finding_events(world["rows"], world["got"].frame, world["topo"])
    inputs, drawn = world["inputs"], 0
    for r in world["rows"].unique("deployment", keep="first").iter_rows(named=True):
        if r["resource"] == "shard_growth":
            continue
        mine = marks.filter(pl.col("deployment") == r["deployment"])
        series = charts.series_of(r, inputs.host_frame, inputs.disk_frame, world["topo"])
        spec = charts.finding_chart(r, series, fixed_now, mine).to_dict()
        layers = {x.get("name"): x for x in spec["layer"]}
        if mine.is_empty():
            assert "events" not in layers
            continue
        rules = spec["datasets"][layers["events"]["data"]["name"]]
        labels = spec["datasets"][layers["event_labels"]["data"]["name"]]
        assert sorted(x["timestamp"][:16] for x in rules) == sorted(
            f"{t:%Y-%m-%dT%H:%M}" for t in mine["created"]
        )
        assert {x["label"] for x in labels} <= set(charts.EVENT_LABELS.values())
        assert layers["event_labels"]["mark"]["angle"] == 270
        drawn += 1
    assert drawn >= 1


def test_a_refused_listing_costs_only_that_projects_marks(own_sim, fixed_now):
    client = own_sim.client(max_retries=0)
    groups = own_sim.group_ids
    own_sim.inject(403, path=f"/groups/{groups[0]}/events")
    got = capacity.window_events(client, groups, start=fixed_now - WINDOW, end=fixed_now)
    assert got.missing == {
        groups[0]: "the key may not read the project's events (HTTP 403): no event marks"
    }
    assert set(got.frame["group_id"]) <= set(groups[1:]) and got.frame.height > 0
    data = sections.ReportData(pl.DataFrame(), pl.DataFrame(), [], {groups[0]: "Prod"},
                               events=got)  # fmt: skip
    assert sections._no_marks(data) == (
        '<p class="asof missing-events">Prod: the key may not read the project&#x27;s events '
        "(HTTP 403): no event marks.</p>"
    )
