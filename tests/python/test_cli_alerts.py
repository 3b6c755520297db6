"""``opsapi alerts ack|unack|list`` with filters: what is matched, what is sent, --dry-run,
--yes, the summary line and the exit codes (0, 7, and the usual ones)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import polars as pl
import pytest
from test_cli import run  # the one in-process runner of the CLI tests

from opsapi import cli
from opsapi.testing import Simulator


@pytest.fixture
def asim(monkeypatch):
    """A fresh simulator (these commands change alerts), with OPSAPI_* pointing at it."""
    with Simulator(seed=5, projects=2, hosts_per_project=4, global_alerts=60) as s:
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
    soon = datetime.now(timezone.utc) + timedelta(hours=2)
    for a in asim.client().global_alerts.list(status="OPEN"):
        if a.id in want:
            assert abs(a.acknowledged_until - soon) < timedelta(minutes=1)
        else:
            assert a.acknowledged_until == before[a.id]


def test_host_replica_set_and_age_filters(asim, capsys):
    alerts = [a for a in open_alerts(asim) if a.hostname_and_port and a.replica_set_name]
    a0 = alerts[0]
    host = a0.hostname_and_port.split(":")[0]
    cutoff = datetime.now(timezone.utc) - timedelta(hours=2)
    want = sorted(
        a.id
        for a in open_alerts(asim)
        if a.hostname_and_port
        and a.hostname_and_port.split(":")[0] == host
        and a.replica_set_name == a0.replica_set_name
        and a.created < cutoff
    )
    code, out, err = run(
        capsys, "alerts", "list", "--status", "OPEN", "--host", host,
        "--replica-set", a0.replica_set_name, "--older-than", "2h", "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    assert sorted(a["id"] for a in json.loads(out)) == want


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
