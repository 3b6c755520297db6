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
    status = Counter(a["status"] for a in world["alerts"]).most_common()[-1][0]
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
