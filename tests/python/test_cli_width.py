"""The command line in a 100-column terminal: every command's default output (stdout and
stderr) fits, with human headers and formatted numbers; into a pipe the table keeps every
column, and ``--output json`` is the same whole record on a terminal as in a pipe."""

from __future__ import annotations

import io
import json

import pytest

pytest.importorskip("opsapi._native", reason="the compiled opsapi package is not installed")

from conftest import FIXED_NOW  # noqa: E402

from opsapi import cli  # noqa: E402
from opsapi.testing import Simulator  # noqa: E402

WIDTH = 100


class Tty(io.StringIO):
    """stdout as a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.fixture(scope="module")
def wsim():
    """A world of its own (acks change it): 3 projects of 5 hosts, 60 global alerts."""
    with Simulator(seed=0, now=FIXED_NOW) as s:
        yield s


@pytest.fixture
def terminal(wsim, monkeypatch):
    monkeypatch.setenv("OPSAPI_BASE_URL", wsim.base_url)
    monkeypatch.setenv("OPSAPI_PUBLIC_KEY", wsim.public_key)
    monkeypatch.setenv("OPSAPI_PRIVATE_KEY", wsim.private_key)
    monkeypatch.delenv("OPSAPI_CA_FILE", raising=False)
    monkeypatch.setenv("COLUMNS", str(WIDTH))  # shutil.get_terminal_size reads it first
    monkeypatch.setenv("NO_COLOR", "1")
    return wsim


def run(capsys, *argv: str, tty: bool = True) -> tuple[int, str, str]:
    out = Tty() if tty else io.StringIO()
    code = cli.main(list(argv), out=out)
    captured = capsys.readouterr()
    return code, out.getvalue() + captured.out, captured.err


def commands(sim, store: str) -> dict[str, list[str]]:
    """One run of every command and subcommand that prints for a person."""
    c = sim.client()
    group = c.groups.list()[0]
    host = c.hosts.list(group.id)[0]
    partition = c.hosts.partitions(group.id, host.id)[0]
    database = c.hosts.databases(group.id, host.id)[0]
    alerts = list(c.global_alerts.list(status="OPEN"))
    disk = sim.alert_truth()["disk_alerts"][0]
    with_config = next(a for a in alerts if a.group_id and a.alert_config_id)
    window = ["--granularity", "PT1H", "--period", "PT6H"]
    return {
        "alerts list": ["alerts", "list"],
        "alerts list --all-projects": ["alerts", "list", "--all-projects"],
        "alerts show": ["alerts", "show", alerts[0].id],
        "alerts show --context": [
            "alerts",
            "show",
            disk["alert_id"],
            "--project",
            disk["group_id"],
            "--context",
        ],  # fmt: skip
        "alerts ack --dry-run": [
            "alerts",
            "ack",
            "--all-projects",
            "--status",
            "OPEN",
            "--for",
            "2h",
            "--dry-run",
        ],  # fmt: skip
        "alerts ack": [
            "alerts",
            "ack",
            alerts[1].id,
            "--for",
            "1h",
            "--comment",
            "a comment long enough to need more than the column it is given " * 2,
        ],
        "alerts unack": ["alerts", "unack", alerts[1].id],
        "alerts open": ["alerts", "open", with_config.group_id, with_config.alert_config_id],
        "projects": ["projects"],
        "clusters list": ["clusters", "list"],
        "clusters show": [
            "clusters",
            "show",
            sim.cluster_truth()[1]["id"],
            "--project",
            sim.cluster_truth()[1]["group_id"],
        ],  # fmt: skip
        "measurements host": ["measurements", "host", group.name, host.id, *window],
        "measurements host --shape wide": [
            "measurements",
            "host",
            group.id,
            host.id,
            *window,
            "--shape",
            "wide",
        ],  # fmt: skip
        "measurements disk": ["measurements", "disk", group.id, host.id, partition, *window],
        "measurements database": [
            "measurements",
            "database",
            group.id,
            host.id,
            database,
            *window,
        ],  # fmt: skip
        "measurements fleet": [
            "measurements",
            "fleet",
            "--project",
            group.name,
            *window,
            "--metric",
            "CONNECTIONS",
        ],  # fmt: skip
        "capacity": ["capacity", "--window", "1d"],
        "sync": ["sync", store, "--kind", "host", "--project", group.id, "--window", "P1D"],
        "store info": ["store", "info", store],
        "config list": ["config", "list"],
    }


def test_every_command_is_run_here(terminal, tmp_path) -> None:
    """A new command fails here until ``commands`` runs it (``completion`` and ``sim`` print
    a script and the simulator's keys: text the width does not concern; ``mcp`` prints
    nothing, it speaks MCP on stdio)."""
    from opsapi.cli import COMMANDS

    ran = {name.split()[0] for name in commands(terminal, str(tmp_path / "store"))}
    assert set(COMMANDS) - {"completion", "sim", "mcp"} <= ran, set(COMMANDS) - ran


def test_every_command_fits_100_columns(terminal, capsys, tmp_path) -> None:
    store = str(tmp_path / "store")
    cli.main(["config", "init", "--profile", "a-profile-with-a-long-name", "--base-url",
              terminal.base_url + "/a/long/path/of/a/proxy/in/front/of/the/server",
              "--public-key", terminal.public_key, "--private-key-env",
              "A_VARIABLE_WITH_A_RATHER_LONG_NAME_FOR_ITS_KEY", "--no-input"])  # fmt: skip
    capsys.readouterr()
    for name, argv in commands(terminal, store).items():
        code, out, err = run(capsys, *argv)
        assert code == 0, (name, err)
        assert (out + err).strip(), name
        wide = [line for line in (out + err).splitlines() if len(line) > WIDTH]
        assert wide == [], (name, wide)


def test_a_table_fits_by_wrapping_and_leaving_out_columns_said_so(terminal, capsys) -> None:
    code, piped, err = run(capsys, "alerts", "list", "--all-projects", tty=False)
    assert code == 0, err
    # Into a pipe: every column, one line an alert, however wide.
    head = piped.splitlines()[0].split("  ")
    assert [h.strip() for h in head if h.strip()] == [
        "ID", "Project", "Status", "Alert", "Host", "Age", "Acked for", "Replica set",
    ]  # fmt: skip
    assert max(len(line) for line in piped.splitlines()) > WIDTH  # so the terminal's fit is real
    n = len(piped.splitlines()) - 1
    assert err == f"{n} alerts\n"
    code, shown, err = run(capsys, "alerts", "list", "--all-projects")
    assert code == 0, err
    assert shown.splitlines()[0].startswith("ID")
    assert "left out to fit 100 columns; -o csv or json: all" in err
    assert err.startswith(f"{n} alerts (")
    # Names of projects, not their ids, in the project column.
    names = {g.name for g in terminal.client().groups.list()}
    assert any(name in shown for name in names)


def test_json_stays_whole_on_a_terminal(terminal, capsys) -> None:
    for argv in (["alerts", "list"], ["projects"], ["alerts", "list", "--all-projects"]):
        _, on_tty, _ = run(capsys, *argv, "-o", "json")
        _, piped, _ = run(capsys, *argv, "-o", "json", tty=False)
        assert on_tty == piped and json.loads(on_tty), argv
    doc = json.loads(run(capsys, "alerts", "list", "-o", "json")[1])[0]
    assert {"id", "eventTypeName", "created", "links"} <= set(doc)  # the server's record


def test_numbers_units_and_headers_as_people_read_them(terminal, capsys, tmp_path) -> None:
    store = str(tmp_path / "store")
    g = terminal.group_ids[0]
    code, _, err = run(capsys, "sync", store, "--kind", "host", "--project", g, "--window", "P1D")
    assert code == 0, err
    code, out, err = run(capsys, "store", "info", store, tty=False)
    assert code == 0, err
    head, row = out.splitlines()[:2]
    assert head.split()[:5] == ["Kind", "Every", "Targets", "Seen", "Points"]
    import opsapi

    total = int(opsapi.Store(store).targets()["points"].sum())  # the store's own count
    assert total > 1000 and f"{total:,}" in row
    assert err.startswith(f"{total:,} points in ")
    assert " KiB" in row or " MiB" in row
    # A disk alert's value is a percentage: "%" and never "RAW".
    disk = terminal.alert_truth()["disk_alerts"][0]
    code, out, err = run(capsys, "alerts", "list", "--project", disk["group_id"], tty=False)
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.startswith(disk["alert_id"]))
    assert " %" in line and "RAW" not in out
