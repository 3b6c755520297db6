"""A user's mistake at the command line ends with one line and a documented exit code, never
a traceback: a path that cannot be written, an unknown flag (with the subcommand's own usage),
a missing store, a project name that matches none or several, an alert not where it was looked
for (and where else to look), Ctrl-C (130); and ``--version`` and the help say what they
should."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys

import pytest

pytest.importorskip("opsapi._native", reason="the compiled opsapi package is not installed")

from _children import Lines, stop  # noqa: E402
from conftest import FIXED_NOW  # noqa: E402

import opsapi  # noqa: E402
from opsapi import cli  # noqa: E402
from opsapi.testing import Simulator  # noqa: E402


@pytest.fixture
def esim(monkeypatch):
    with Simulator(seed=0, projects=2, hosts_per_project=2, now=FIXED_NOW) as s:
        monkeypatch.setenv("OPSAPI_BASE_URL", s.base_url)
        monkeypatch.setenv("OPSAPI_PUBLIC_KEY", s.public_key)
        monkeypatch.setenv("OPSAPI_PRIVATE_KEY", s.private_key)
        monkeypatch.delenv("OPSAPI_CA_FILE", raising=False)
        yield s


def run(capsys, *argv: str) -> tuple[int, str, str]:
    out = io.StringIO()
    code = cli.main(list(argv), out=out)
    captured = capsys.readouterr()
    return code, out.getvalue() + captured.out, captured.err


def one_line(code: int, err: str, expected: int, *needles: str) -> None:
    assert code == expected, err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, (needle, err)


def test_a_path_that_cannot_be_written_is_one_line_before_any_request(
    esim, capsys, tmp_path
) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    g = esim.group_ids[0]
    h = esim.client().hosts.list(g)[0].id
    window = ["--granularity", "PT1H", "--period", "P1D"]
    cases = {
        "a missing folder": (["alerts", "list", "--file", str(tmp_path / "no" / "x.csv")],
                             "does not exist"),
        "a folder": (["alerts", "list", "--file", str(tmp_path)], "is a folder"),
        "a file as a folder": (["alerts", "list", "--file", str(afile / "x.csv")],
                               "is a file, not a folder"),
        "measurements to a missing folder": (
            ["measurements", "host", g, h, *window, "-o", str(tmp_path / "no" / "m.parquet")],
            "does not exist"),
        "a fleet folder that is a file": (
            ["measurements", "fleet", *window, "-o", str(afile / "sub")], "is a file"),
        "a chart in a missing folder": (
            ["alerts", "show", "0" * 24, "--chart", str(tmp_path / "no" / "c.html")],
            "does not exist"),
        "a store that is a file": (["sync", str(afile), "--window", "P1D"], "is a file"),
    }  # fmt: skip
    for name, (argv, needle) in cases.items():
        esim.clear_requests()
        code, out, err = run(capsys, *argv)
        one_line(code, err, cli.EXIT_USAGE, needle)
        assert out == "", name
        assert [r for r in esim.requests() if r["authorized"]] == [], name


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_a_full_disk_is_one_line_and_exit_1(esim, capsys) -> None:
    code, out, err = run(capsys, "alerts", "list", "--file", "/dev/full")
    one_line(code, err, cli.EXIT_FAILURE, "No space left on device")
    assert out == ""


def test_an_unknown_flag_prints_the_subcommands_usage(capsys) -> None:
    for argv, usage in (
        (["alerts", "list", "--bogus"], "usage: opsapi alerts list "),
        (["store", "info", "x", "--bogus"], "usage: opsapi store info "),
        (["capacity", "--bogus"], "usage: opsapi capacity "),
        (["--profile", "p", "alerts", "ack", "X", "--for", "1h", "--bogus"],
         "usage: opsapi alerts ack "),
    ):  # fmt: skip
        code, out, err = run(capsys, *argv)
        assert code == cli.EXIT_USAGE and out == ""
        assert err.startswith(usage), err
        last = err.rstrip("\n").splitlines()[-1]
        assert last.startswith("error: opsapi ") and last.endswith(
            "unrecognized arguments: --bogus"
        ), err


def test_store_info_of_no_store_exits_3(capsys, tmp_path) -> None:
    code, out, err = run(capsys, "store", "info", str(tmp_path / "missing"))
    one_line(code, err, cli.EXIT_NOT_FOUND, "no such folder", "opsapi sync")
    assert out == ""
    code, out, err = run(capsys, "store", "info", str(tmp_path))  # a folder, not a store
    one_line(code, err, cli.EXIT_NOT_FOUND, "not a measurement store")


def test_version_and_helps(capsys) -> None:
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out == f"opsapi {opsapi.__version__}\n"
    code, out, _ = run(capsys, "capacity", "--help")
    assert code == 0
    assert "``" not in out and ":func:" not in out and ":data:" not in out  # no Sphinx markup
    assert "--project PROJECT" in out and "--group" not in out
    code, out, _ = run(capsys, "--help")
    assert code == 0
    # One line of words: argparse wraps at the terminal's width, and at a hyphen where a word
    # has one ("un-\nacknowledge"), which CPython 3.13 does where 3.11 did not.
    words = re.sub(r"(\w)- (\w)", r"\1-\2", " ".join(out.split()))
    for name, info in cli.COMMANDS.items():  # the table's summary, each command
        assert f"{name} {info.summary}" in words


def test_the_group_flag_of_capacity_still_works(esim, capsys) -> None:
    g = esim.group_ids[0]
    a = run(capsys, "capacity", "--window", "1d", "--group", g, "-o", "json")
    b = run(capsys, "capacity", "--window", "1d", "--project", g, "-o", "json")
    assert a[0] == b[0] == 0 and a[1] == b[1]


def test_projects_by_name_or_id(esim, capsys, monkeypatch) -> None:
    groups = esim.client().groups.list()
    g = groups[0]
    code, out, err = run(capsys, "projects")
    assert code == 0, err
    assert out.splitlines()[0].split()[:2] == ["Name", "ID"]
    assert all(x.name in out and x.id in out for x in groups)
    assert err == f"{len(groups)} projects\n"
    by_name = run(capsys, "alerts", "list", "--project", g.name, "-o", "json")
    by_id = run(capsys, "alerts", "list", "--project", g.id, "-o", "json")
    assert by_name[0] == 0 and by_name[1] == by_id[1]
    by_lower = run(capsys, "alerts", "list", "--project", g.name.lower(), "-o", "json")
    assert by_lower[1] == by_id[1]  # a name's case is forgiven when it matches one
    code, out, err = run(capsys, "alerts", "list", "--project", "Nope")
    one_line(code, err, cli.EXIT_USAGE, "--project Nope: no project", "opsapi projects")
    # Two projects of one name (Atlas: one per organization): a usage error listing both.
    twin = type("G", (), {"id": "f" * 24, "name": g.name})()
    from opsapi.cli import _base

    monkeypatch.setattr(_base, "_groups", lambda client: [*client.groups.list(), twin])
    code, out, err = run(capsys, "alerts", "list", "--project", g.name)
    one_line(code, err, cli.EXIT_USAGE, "2 projects have this name", g.id, "f" * 24)


def test_an_alert_not_found_says_where_else_to_look(esim, capsys) -> None:
    g = esim.group_ids[0]
    global_ids = {a.id for a in esim.client().global_alerts.list()}
    project_alert = next(a.id for a in esim.client().alerts.list(g) if a.id not in global_ids)
    code, out, err = run(capsys, "alerts", "ack", project_alert, "--for", "1h")
    lines = err.splitlines()
    assert code == cli.EXIT_NOT_FOUND
    assert lines[0].startswith("error: ALERT_NOT_FOUND") and "--project" in lines[0], err
    assert "opsapi alerts list --all-projects" in lines[0]
    global_alert = esim.client().global_alerts.list()[0].id
    code, out, err = run(capsys, "alerts", "show", global_alert, "--project", g)
    one_line(code, err, cli.EXIT_NOT_FOUND, "a global alert? leave out --project")


def test_dry_run_by_id_shows_each_alert_as_the_run_would_change_it(esim, capsys) -> None:
    c = esim.client()
    a, b = [x.id for x in c.global_alerts.list(status="OPEN")[:2]]
    c.global_alerts.acknowledge(a, until="2027-06-01T00:00:00Z")
    esim.clear_requests()
    code, out, err = run(capsys, "alerts", "ack", a, b, "--for", "2h", "--dry-run")
    assert code == 0, err
    assert [r["method"] for r in esim.requests() if r["authorized"]] == ["GET", "GET"]
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert set(rows) == {a, b}
    assert "2027-06-01 00:00" in rows[a] and rows[a].rstrip().endswith("shortens")
    assert not rows[b].rstrip().endswith("shortens")
    assert err.splitlines()[0].startswith("warning: the run would shorten 1 acknowledgement")
    code, out, err = run(capsys, "alerts", "ack", a, b, "--forever", "--dry-run", "-o", "json")
    docs = {d["id"]: d for d in __import__("json").loads(out)}
    assert docs[a]["acknowledgedUntil"].startswith(str(FIXED_NOW.year + 100))
    assert "warning" not in err


def test_ctrl_c_during_sync_exits_130_without_a_traceback(tmp_path) -> None:
    with Simulator(seed=0, projects=1, hosts_per_project=2, now=FIXED_NOW) as s:
        g = s.group_ids[0]
        held = s.hold(path=f"/groups/{g}/hosts")  # the sync's discovery, held in flight
        env = {**os.environ, "OPSAPI_BASE_URL": s.base_url, "OPSAPI_PUBLIC_KEY": s.public_key,
               "OPSAPI_PRIVATE_KEY": s.private_key, "OPSAPI_PROGRESS": "0"}  # fmt: skip
        env.pop("OPSAPI_CA_FILE", None)
        child = subprocess.Popen(
            [sys.executable, "-m", "opsapi", "sync", str(tmp_path / "store"), "--project", g,
             "--window", "P1D"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert held.wait_arrived(60), "the sync never asked for the hosts"
            child.send_signal(signal.SIGINT)
            err_lines = Lines(child, child.stderr)
            last = err_lines.next(what="the line of the interruption")
            assert child.wait(timeout=60) == cli.EXIT_INTERRUPTED == 130
        finally:
            held.release()
            stop(child)
        assert last == "interrupted\n"
        assert "Traceback" not in (child.stderr.read() if child.stderr else "")
