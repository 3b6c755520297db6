"""``opsapi alerts ack|unack|list`` with filters: what is matched (each filter alone changes
the selection; the expected sets are computed from the world and the documented fields), what
is sent, --dry-run, --yes (for ids too), the summary line and the exit codes (0, 7, and the
usual ones)."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime, timedelta
from urllib.parse import parse_qs

import polars as pl
import pytest
from test_cli import run  # the one in-process runner of the CLI tests

from opsapi import cli
from opsapi.testing import Simulator


@pytest.fixture
def asim(monkeypatch, fixed_now):
    """A fresh simulator (these commands change alerts), with OPSAPI_* pointing at it."""
    with Simulator(seed=5, projects=2, hosts_per_project=4, global_alerts=60, now=fixed_now) as s:
        monkeypatch.setenv("OPSAPI_BASE_URL", s.base_url)
        monkeypatch.setenv("OPSAPI_PUBLIC_KEY", s.public_key)
        monkeypatch.setenv("OPSAPI_PRIVATE_KEY", s.private_key)
        monkeypatch.delenv("OPSAPI_CA_FILE", raising=False)
        monkeypatch.delenv("OPSAPI_PROFILE", raising=False)
        monkeypatch.setenv("OPSAPI_CONFIG", "/nonexistent/opsapi.toml")
        yield s


def patches(sim) -> list[str]:
    return sorted(
        r["path"].rsplit("/", 1)[1]
        for r in sim.requests()
        if r["authorized"] and r["method"] == "PATCH"
    )


def open_alerts(sim) -> list:
    return list(sim.client().global_alerts.list(status="OPEN"))


def test_ack_by_event_type_acknowledges_exactly_the_matching_open_alerts(asim, capsys):
    alerts = open_alerts(asim)
    before = {a.id: a.acknowledged_until for a in alerts}
    event = str(alerts[0].event_type_name)
    want = sorted(a.id for a in alerts if str(a.event_type_name) == event)
    assert 0 < len(want) <= cli.CONFIRM_ABOVE
    asim.clear_requests()
    code, out, err = run(capsys, "alerts", "ack", "--event-type", event, "--for", "2h")
    assert code == 0, err
    assert patches(asim) == want
    summary = err.strip().splitlines()[-1]
    assert summary == f"acknowledged {len(want)} of {len(want)} alert(s), 0 failed"
    # Two hours of the server's clock, which stands still (to the second the header gives).
    soon = asim.now + timedelta(hours=2)
    for a in asim.client().global_alerts.list(status="OPEN"):
        if a.id in want:
            assert soon <= a.acknowledged_until <= soon + timedelta(seconds=2)
        else:
            assert a.acknowledged_until == before[a.id]


def all_alerts(sim) -> list:
    return list(sim.client().global_alerts.list())


def ids_of(out: str) -> set[str]:
    return {a["id"] for a in json.loads(out)}


def _gap_instant(alerts) -> datetime:
    """An instant hours away from every alert's creation: the middle of the widest gap
    between two creation times of the middle half (so that both sides hold alerts)."""
    created = sorted(a.created for a in alerts)
    n = len(created)
    pairs = list(zip(created, created[1:]))[n // 4 : 3 * n // 4]
    a, b = max(pairs, key=lambda p: p[1] - p[0])
    assert b - a > timedelta(minutes=30)
    return (a + (b - a) / 2).replace(microsecond=0)


def filter_cases(sim) -> dict[str, tuple[list[str], set[str]]]:
    """Each filter alone: its flags, and the alerts it must select, computed here from the
    world (statuses) and the alerts' documented fields (eventTypeName, created,
    hostnameAndPort, replicaSetName), not by the CLI's code."""
    alerts = all_alerts(sim)
    world = sim.world()
    # The rarest status the service filters on (not CANCELLED).
    statuses = Counter(a["status"] for a in world["alerts"] if a["status"] != "CANCELLED")
    status = statuses.most_common()[-1][0]
    event = Counter(str(a.event_type_name) for a in alerts).most_common(1)[0][0]
    cutoff = _gap_instant(alerts)
    older = sim.now - cutoff  # --older-than counts from the server's clock
    with_host = Counter(a.hostname_and_port for a in alerts if a.hostname_and_port)
    hostname = next(
        h["hostname"]
        for h in world["hosts"]
        if any(k.startswith(h["hostname"] + ":") for k in with_host)
    )
    host_port = with_host.most_common(1)[0][0]
    replica_set = Counter(a.replica_set_name for a in alerts if a.replica_set_name).most_common(1)
    rs = replica_set[0][0]
    return {
        "status": (
            ["--status", status],
            {a["id"] for a in world["alerts"] if a["status"] == status},
        ),
        "event-type": (
            ["--event-type", event],
            {a.id for a in alerts if str(a.event_type_name) == event},
        ),
        "older-than": (
            ["--older-than", f"PT{int(older.total_seconds())}S"],
            {a.id for a in alerts if a.created < cutoff},
        ),
        "created-since": (
            ["--created-since", cutoff.strftime("%Y-%m-%dT%H:%M:%SZ")],
            {a.id for a in alerts if a.created >= cutoff},
        ),
        "host": (
            ["--host", hostname],
            {a.id for a in alerts if (a.hostname_and_port or "").rsplit(":", 1)[0] == hostname},
        ),
        "host-and-port": (
            ["--host", host_port],
            {a.id for a in alerts if a.hostname_and_port == host_port},
        ),
        "replica-set": (
            ["--replica-set", rs],
            {a.id for a in alerts if a.replica_set_name == rs},
        ),
    }


FILTERS = ["status", "event-type", "older-than", "created-since", "host", "host-and-port",
           "replica-set"]  # fmt: skip


@pytest.mark.parametrize("name", FILTERS)
def test_each_filter_alone_selects_what_the_documented_fields_say(asim, capsys, name):
    flags, want = filter_cases(asim)[name]
    everything = {a.id for a in all_alerts(asim)}
    assert want and want < everything  # this filter, alone, changes the selection
    code, out, err = run(capsys, "alerts", "list", "--format", "json")
    assert code == 0, err
    assert ids_of(out) == everything
    code, out, err = run(capsys, "alerts", "list", *flags, "--format", "json")
    assert code == 0, err
    assert ids_of(out) == want


def test_replica_set_is_not_one_host_and_filters_combine(asim, capsys):
    cases = filter_cases(asim)
    alerts = {a.id: a for a in all_alerts(asim)}
    rs_flags, in_rs = cases["replica-set"]
    # Not implied by any one --host: the replica set's alerts come from several hosts.
    assert len({alerts[i].hostname_and_port for i in in_rs}) > 1
    flags = [*rs_flags, *cases["event-type"][0], *cases["older-than"][0]]
    want = in_rs & cases["event-type"][1] & cases["older-than"][1]
    code, out, err = run(capsys, "alerts", "list", *flags, "--format", "json")
    assert code == 0, err
    assert ids_of(out) == want


def test_ack_by_replica_set_changes_only_its_open_alerts(asim, capsys):
    flags, in_rs = filter_cases(asim)["replica-set"]
    before = {a["id"]: a for a in asim.world()["alerts"]}
    want = sorted(i for i in in_rs if before[i]["status"] == "OPEN")  # ack's default status
    assert 0 < len(want) < len(in_rs)  # the replica set has alerts that are not OPEN
    asim.clear_requests()
    code, out, err = run(capsys, "alerts", "ack", *flags, "--for", "2h", "--comment", "rs")
    assert code == 0, err
    assert patches(asim) == want
    after = {a["id"]: a for a in asim.world()["alerts"]}
    assert sorted(i for i, a in after.items() if a["acknowledgement_comment"] == "rs") == want


def test_created_since_is_asked_of_the_server_as_created_on_or_after(asim, capsys):
    flags, want = filter_cases(asim)["created-since"]
    since = datetime.fromisoformat(flags[1].replace("Z", "+00:00"))
    asim.clear_requests()
    code, out, err = run(capsys, "alerts", "list", *flags, "--format", "json")
    assert code == 0, err
    assert ids_of(out) == want
    gets = [r for r in asim.requests() if r["authorized"] and r["path"].endswith("/globalAlerts")]
    assert gets
    for r in gets:  # the documented query parameter, on every page
        (sent,) = parse_qs(r["query"])["createdOnOrAfter"]
        assert datetime.fromisoformat(sent.replace("Z", "+00:00")) == since


@pytest.mark.parametrize("value", ["yesterday", "2031-05-01T12:00:00"])  # not ISO; no zone
@pytest.mark.parametrize("command", [["list"], ["ack", "--for", "1h"], ["unack"]])
def test_bad_created_since_names_the_flag(asim, capsys, command, value):
    asim.clear_requests()
    code, out, err = run(capsys, "alerts", *command, "--created-since", value)
    assert code == cli.EXIT_USAGE, err
    assert out == "" and err.count("\n") == 1, err  # one line
    assert err.startswith(f"error: --created-since: `{value}` "), err
    assert "created_on_or_after" not in err
    assert asim.requests() == []  # refused before any request


def test_dry_run_sends_no_patch_and_says_what_would_change(asim, capsys):
    n = len(open_alerts(asim))
    asim.clear_requests()
    code, out, err = run(capsys, "alerts", "ack", "--status", "OPEN", "--forever", "--dry-run",
                         "--format", "csv")  # fmt: skip
    assert code == 0, err
    assert patches(asim) == []
    assert len(out.strip().splitlines()) == n + 1  # header + one row per alert
    assert f"would acknowledge {n} alert(s)" in err


def test_more_than_20_needs_yes(asim, capsys):
    n = len(open_alerts(asim))
    assert n > cli.CONFIRM_ABOVE
    asim.clear_requests()
    code, out, err = run(capsys, "alerts", "ack", "--status", "OPEN", "--for", "1h")
    assert code == cli.EXIT_USAGE
    assert "--yes" in err and str(n) in err
    assert patches(asim) == []
    code, out, err = run(capsys, "alerts", "ack", "--status", "OPEN", "--for", "1h", "--yes")
    assert code == 0, err
    assert len(patches(asim)) == n


@pytest.mark.parametrize("command", [["ack", "--for", "1h"], ["unack"]])
def test_more_than_20_ids_need_yes_too(asim, capsys, command):
    verb, *rest = command
    ids = [a.id for a in open_alerts(asim)][: cli.CONFIRM_ABOVE + 2]
    assert len(ids) == 22
    asim.clear_requests()
    code, out, err = run(capsys, "alerts", verb, *ids, *rest)
    assert code == cli.EXIT_USAGE
    assert out == "" and err.count("\n") == 1 and "--yes" in err and "22" in err, err
    assert asim.requests() == []  # refused before any request
    code, out, err = run(capsys, "alerts", verb, *ids, *rest, "--yes")
    assert code == 0, err
    assert patches(asim) == sorted(ids)
    past = "acknowledged" if verb == "ack" else "un-acknowledged"
    assert err.strip().splitlines()[-1] == f"{past} 22 of 22 alert(s), 0 failed"
    asim.clear_requests()
    code, out, err = run(capsys, "alerts", verb, *ids[: cli.CONFIRM_ABOVE], *rest)  # 20: no --yes
    assert code == 0, err
    assert patches(asim) == sorted(ids[: cli.CONFIRM_ABOVE])


def test_one_id_prints_the_summary_line_too(asim, capsys):
    alert_id = open_alerts(asim)[0].id
    code, out, err = run(capsys, "alerts", "ack", alert_id, "--for", "1h", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["id"] == alert_id  # stdout: the alert, as before
    assert err == "acknowledged 1 of 1 alert(s), 0 failed\n"
    code, out, err = run(capsys, "alerts", "unack", alert_id)
    assert code == 0, err
    assert err == "un-acknowledged 1 of 1 alert(s), 0 failed\n"
    missing = "5d0000000000000000000000"
    code, out, err = run(capsys, "alerts", "ack", missing, "--for", "1h")
    assert code == cli.EXIT_NOT_FOUND and out == ""
    first, summary = err.strip().splitlines()
    assert first.startswith("error: ALERT_NOT_FOUND: ")  # the usual error line of one failure
    assert summary == "acknowledged 0 of 1 alert(s), 1 failed"


def test_some_failed_exits_7_all_failed_the_usual_code(asim, capsys):
    good = open_alerts(asim)[0].id
    missing = "5d0000000000000000000000"
    asim.clear_requests()
    code, out, err = run(capsys, "alerts", "unack", good, missing)
    assert code == cli.EXIT_PARTIAL == 7
    assert f"error: {missing}: ALERT_NOT_FOUND" in err
    assert err.strip().splitlines()[-1] == "un-acknowledged 1 of 2 alert(s), 1 failed"
    assert good in out and missing not in out
    code, out, err = run(capsys, "alerts", "unack", missing, "5d0000000000000000000001")
    assert code == cli.EXIT_NOT_FOUND
    assert out == ""


@pytest.mark.parametrize(
    "argv",
    [
        ["alerts", "ack", "--for", "1h"],  # neither ids nor filters
        ["alerts", "ack", "X", "--status", "OPEN", "--for", "1h"],  # both
        ["alerts", "ack", "--older-than", "soon", "--for", "1h"],
    ],
)
def test_usage_errors_send_nothing(asim, capsys, argv):
    asim.clear_requests()
    code, _, err = run(capsys, *argv)
    assert code == cli.EXIT_USAGE, err
    assert patches(asim) == []


def test_list_to_parquet(asim, capsys, tmp_path):
    target = tmp_path / "open.parquet"
    code, out, err = run(capsys, "alerts", "list", "--status", "OPEN", "--format", "parquet",
                         "--file", str(target))  # fmt: skip
    assert code == 0, err
    frame = pl.read_parquet(target)
    assert sorted(frame["id"].to_list()) == sorted(a.id for a in open_alerts(asim))
    assert "current_value_number" in frame.columns
    code, _, err = run(capsys, "alerts", "list", "--format", "parquet")  # a text stream
    assert code == cli.EXIT_USAGE and "--file" in err


# ---- project alerts: --project ID (repeatable), --all-projects; --global stays the default -----


def paths(sim, method: str) -> list[str]:
    api = "/api/public/v1.0"
    return sorted(
        r["path"].removeprefix(api)
        for r in sim.requests()
        if r["authorized"] and r["method"] == method
    )


def project_alerts(sim, *groups: str, status=None) -> list:
    client = sim.client()
    return [a for g in groups for a in client.alerts.list(g, status=status)]


def test_list_of_one_project_several_or_all(asim, capsys):
    g0, g1 = asim.group_ids
    for flags, groups, listing in (
        (["--project", g1], [g1], []),
        (["--project", g0, "--project", g1], [g0, g1], []),
        (["--all-projects"], [g0, g1], ["/groups"]),
    ):
        want = [a.id for a in project_alerts(asim, *groups, status="OPEN")]
        asim.clear_requests()
        code, out, err = run(capsys, "alerts", "list", *flags, "--status", "OPEN", "-o", "json")
        assert code == 0, err
        assert [a["id"] for a in json.loads(out)] == want
        assert paths(asim, "GET") == sorted(listing + [f"/groups/{g}/alerts" for g in groups])
    # --global (the default) is today's listing.
    everything = {a.id for a in all_alerts(asim)}
    for flags in ([], ["--global"]):
        asim.clear_requests()
        code, out, err = run(capsys, "alerts", "list", *flags, "-o", "json")
        assert code == 0, err
        assert ids_of(out) == everything
        assert paths(asim, "GET") == ["/globalAlerts"]


def test_project_filters_are_the_same_filters(asim, capsys):
    g0, g1 = asim.group_ids
    alerts = project_alerts(asim, g0, g1)
    event = Counter(str(a.event_type_name) for a in alerts).most_common(1)[0][0]
    since = sorted(a.created for a in alerts)[len(alerts) // 2]
    want = {a.id for a in alerts if str(a.event_type_name) == event and a.created >= since}
    assert 0 < len(want) < len(alerts)
    asim.clear_requests()
    stamp = since.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    code, out, err = run(capsys, "alerts", "list", "--all-projects", "--event-type", event,
                         "--created-since", stamp, "-o", "json")  # fmt: skip
    assert code == 0, err
    assert ids_of(out) == want
    # Project alerts have no created-date filter: matched here, not asked of the server.
    assert all("createdOnOrAfter" not in (r["query"] or "") for r in asim.requests())
    for bad in ("yesterday", "2031-05-01T12:00:00"):
        asim.clear_requests()
        code, out, err = run(capsys, "alerts", "list", "--project", g0, "--created-since", bad)
        assert code == cli.EXIT_USAGE and out == ""
        assert (
            err == f"error: --created-since: `{bad}` is not an ISO 8601 instant with a time zone\n"
        )
        assert asim.requests() == []


def test_ack_by_filter_across_projects_dry_run_yes_and_summary(asim, capsys):
    g0, g1 = asim.group_ids
    opened = project_alerts(asim, g0, g1, status="OPEN")
    assert len(opened) > cli.CONFIRM_ABOVE
    asim.clear_requests()
    scope = ["--all-projects", "--status", "OPEN"]
    code, out, err = run(capsys, "alerts", "ack", *scope, "--for", "1h", "--dry-run", "-o", "json")
    assert code == 0, err
    assert ids_of(out) == {a.id for a in opened}
    assert f"would acknowledge {len(opened)} alert(s)" in err and paths(asim, "PATCH") == []
    code, out, err = run(capsys, "alerts", "ack", *scope, "--for", "1h")
    assert code == cli.EXIT_USAGE and "--yes" in err and paths(asim, "PATCH") == []
    code, out, err = run(capsys, "alerts", "ack", *scope, "--for", "1h", "--yes",
                         "--comment", "all of them")  # fmt: skip
    assert code == 0, err
    assert paths(asim, "PATCH") == sorted(f"/groups/{a.group_id}/alerts/{a.id}" for a in opened)
    assert err.strip().splitlines()[-1] == (
        f"acknowledged {len(opened)} of {len(opened)} alert(s), 0 failed"
    )
    after = {a.id: a for a in project_alerts(asim, g0, g1)}
    assert all(after[a.id].acknowledgement_comment == "all of them" for a in opened)


def test_ids_of_one_project(asim, capsys):
    g0, g1 = asim.group_ids
    mine = [a.id for a in project_alerts(asim, g1, status="CLOSED")[:2]]
    asim.clear_requests()
    code, out, err = run(capsys, "alerts", "ack", *mine, "--project", g1, "--for", "2h")
    assert code == 0, err
    assert paths(asim, "PATCH") == sorted(f"/groups/{g1}/alerts/{i}" for i in mine)
    asim.clear_requests()
    # Of another project: not found there, every one failed.
    code, out, err = run(capsys, "alerts", "unack", *mine, "--project", g0)
    assert code == cli.EXIT_NOT_FOUND, err
    assert err.strip().splitlines()[-1] == "un-acknowledged 0 of 2 alert(s), 2 failed"
    for flags in (["--all-projects"], ["--project", g0, "--project", g1]):
        asim.clear_requests()
        code, out, err = run(capsys, "alerts", "unack", *mine, *flags)
        assert code == cli.EXIT_USAGE and "the one --project" in err
        assert asim.requests() == []
    code, out, err = run(capsys, "alerts", "list", "--global", "--project", g0)
    assert code == cli.EXIT_USAGE and "not allowed with" in err


# ---- alerts show [--context] [--chart] ----------------------------------------------------------


def test_show_a_global_alert_and_a_project_alert_in_context(asim, capsys, tmp_path):
    pytest.importorskip("altair", reason="--chart needs Altair (pip install altair)")
    alert = open_alerts(asim)[0]
    code, out, err = run(capsys, "alerts", "show", alert.id)
    assert code == 0, err
    assert out.splitlines()[1].split() == ["ID", alert.id]
    code, out, err = run(capsys, "alerts", "show", alert.id, "-o", "json")
    assert json.loads(out) == alert.to_dict()

    truth = asim.alert_truth()["disk_alerts"][0]
    g, a = truth["group_id"], truth["alert_id"]
    chart = tmp_path / "alert.html"
    code, out, err = run(capsys, "alerts", "show", a, "--project", g, "--context",
                         "--before", "30m", "--chart", str(chart))  # fmt: skip
    assert code == 0, err
    ctx = asim.client().alerts.context(asim.client().alerts.get(g, a), before="30m")
    assert f", threshold {truth['threshold']:g} %" in out  # a percentage: never "RAW"
    # The series' three lines, then what may say why (test_show_context_reads_why_...).
    lines = out.splitlines()
    name, line, stats = lines[lines.index(next(x for x in lines if x.startswith("context"))) + 1 :][
        :3
    ]
    assert name.strip() == f"DISK_PARTITION_SPACE_PERCENT_USED {truth['partition_name']}"
    values = ctx.frame["value"].to_list()
    from opsapi.cli.alert_show import sparkline

    assert line.strip() == sparkline(values).strip() and len(line.strip()) > 10
    assert stats.split()[:2] == ["min", f"{min(v for v in values if v is not None):g}"]
    assert chart.read_text().count("vega") > 0
    code, out, err = run(capsys, "alerts", "show", a, "--project", g, "--context", "-o", "json")
    doc = json.loads(out)
    assert doc["alert"]["id"] == a
    # The default window: two hours before it, not 30 min, at the granularity the alert's age
    # allows (it was raised days ago, when its series first went past the threshold).
    default = asim.client().alerts.context(asim.client().alerts.get(g, a))
    assert (doc["context"]["kind"], doc["context"]["granularity"]) == ("disk", default.granularity)
    assert len(doc["context"]["points"]) == default.frame.height > ctx.frame.height
    code, out, err = run(capsys, "alerts", "show", a, "--project", g, "--context", "-o", "csv")
    assert out.splitlines()[0] == "measurement,partition_name,database_name,timestamp,value"


def test_show_context_reads_why_within_100_columns(asim, capsys):
    """A connections alert whose seeded cause is a collection scan: the reading and the top
    slow queries (the seeded namespace first, with the index that would serve it), every line
    within 100 columns; ``-o json`` carries every part as the context has it."""
    cause = next(c for c in asim.cause_truth()["slow"] if c["index"])
    g, a = cause["group_id"], cause["alert_id"]
    code, out, err = run(capsys, "alerts", "show", a, "--project", g, "--context")
    assert code == 0, err
    assert max(len(x) for x in out.splitlines()) <= 100
    client = asim.client()
    ctx = client.alerts.context(client.alerts.get(g, a))
    words = " ".join(out.split())
    assert " ".join(f"Reading: {ctx.reading}".split()) in words
    assert f"slow queries on {cause['namespace']} (no index on {cause['index']})" in ctx.reading
    head = out.splitlines().index(
        f"Slow queries: the top {min(5, ctx.slow_queries.height)} of "
        f"{ctx.slow_queries.height} shapes by time"
    )
    table = out.splitlines()[head + 1 :]
    assert table[0].split()[:3] == ["Namespace", "Shape", "Count"]
    assert table[1].startswith(cause["namespace"] + " ")
    assert f"{ctx.slow_queries['count'][0]:,}" in table[1]
    code, out, err = run(capsys, "alerts", "show", a, "--project", g, "--context", "-o", "json")
    doc = json.loads(out)["context"]
    assert (doc["reading"], doc["missing"]) == (ctx.reading, {})
    for part in ("events", "slow_queries", "suggested_indexes"):
        assert len(doc[part]) == getattr(ctx, part).height > 0, part
    assert doc["slow_queries"][0]["namespace"] == cause["namespace"]
    assert doc["slow_queries"][0]["index"] == cause["index"]
    assert {i["index"] for i in doc["suggested_indexes"]} >= {cause["index"]}


def test_show_an_alert_without_a_metric_and_bad_options(asim, capsys):
    truth = asim.alert_truth()["replica_set_alerts"][0]
    g, a = truth["group_id"], truth["alert_id"]
    code, out, err = run(capsys, "alerts", "show", a, "--project", g, "--context")
    assert code == 0, err
    assert ": the alert carries no metric" in out
    assert sum(line.startswith("  ") for line in out.splitlines()) >= 2  # members' states
    asim.clear_requests()
    code, out, err = run(capsys, "alerts", "show", a, "--project", g, "--before", "1h")
    assert code == cli.EXIT_USAGE and "--context" in err and asim.requests() == []
    code, out, err = run(capsys, "alerts", "show", a, "--project", g, "--context",
                         "--granularity", "PT2M")  # fmt: skip
    assert code == cli.EXIT_USAGE and err.startswith("error: --granularity: "), err
    code, out, err = run(capsys, "alerts", "show", "5d0000000000000000000000", "--project", g)
    assert code == cli.EXIT_NOT_FOUND and "ALERT_NOT_FOUND" in err


def test_chart_without_altair_says_what_to_install(asim, capsys, monkeypatch, tmp_path):
    truth = asim.alert_truth()["disk_alerts"][0]
    monkeypatch.setitem(__import__("sys").modules, "altair", None)  # as if not installed
    target = tmp_path / "alert.html"
    code, out, err = run(capsys, "alerts", "show", truth["alert_id"], "--project",
                         truth["group_id"], "--chart", str(target))  # fmt: skip
    assert code == cli.EXIT_USAGE
    assert err == "error: --chart needs Altair and vl-convert: pip install 'opsapi[charts]'\n"
    assert not target.exists()
