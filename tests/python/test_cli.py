"""The ``opsapi`` command line against the simulator: outputs, requests sent, exit codes."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from urllib.parse import parse_qs

import pytest

pytest.importorskip("opsapi._native", reason="the compiled opsapi package is not installed")
pl = pytest.importorskip("polars")

from opsapi import cli  # noqa: E402
from opsapi.testing import Simulator  # noqa: E402


@pytest.fixture
def csim(monkeypatch, fixed_now):
    """A fresh simulator per test (ack changes state), with OPSAPI_* pointing at it."""
    with Simulator(seed=0, projects=2, hosts_per_project=3, now=fixed_now) as s:
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


def api_requests(sim, method: str | None = None) -> list[dict]:
    return [
        r for r in sim.requests() if r["authorized"] and (method is None or r["method"] == method)
    ]


def query(r: dict) -> dict[str, list[str]]:
    return parse_qs(r["query"] or "")


def open_alert_ids(sim) -> list[str]:
    return [a.id for a in sim.client().global_alerts.list(status="OPEN")]


def test_alerts_list_json_is_what_the_server_sent(csim, capsys) -> None:
    code, out, err = run(capsys, "alerts", "list", "--status", "OPEN", "--format", "json")
    assert code == 0, err
    alerts = json.loads(out)
    assert alerts and all(a["status"] == "OPEN" for a in alerts)
    assert {a["id"] for a in alerts} == set(open_alert_ids(csim))
    gets = [r for r in api_requests(csim, "GET") if r["path"].endswith("/globalAlerts")]
    assert gets and all(query(r).get("status") == ["OPEN"] for r in gets)


def test_alerts_list_csv_and_table(csim, capsys) -> None:
    code, out, _ = run(capsys, "alerts", "list", "--format", "csv")
    assert code == 0
    frame = pl.read_csv(io.StringIO(out))
    total = len(csim.client().global_alerts.list())
    assert frame.height == total
    assert {"id", "status", "created", "current_value_number"} <= set(frame.columns)

    code, out, err = run(capsys, "alerts", "list")
    lines = out.splitlines()
    assert code == 0
    assert lines[0].split()[:3] == ["ID", "Status", "Alert"]  # human headers
    assert len(lines) == total + 1  # into a pipe: one line per alert, every column
    assert err == f"{total} alerts\n"  # the count line, on stderr


def test_ack_for_a_duration_with_comment(csim, capsys) -> None:
    alert_id = open_alert_ids(csim)[0]
    csim.clear_requests()
    code, out, err = run(
        capsys,
        "alerts",
        "ack",
        alert_id,
        "--for",
        "4h",
        "--comment",
        "disk resize",
        "--format",
        "json",
    )
    assert code == 0, err
    patches = api_requests(csim, "PATCH")
    assert len(patches) == 1
    assert patches[0]["path"].endswith(f"/globalAlerts/{alert_id}")
    body = json.loads(patches[0]["body"])
    assert body["acknowledgementComment"] == "disk resize"
    until = datetime.fromisoformat(body["acknowledgedUntil"].replace("Z", "+00:00"))
    # Four hours of the server's clock (its Date header, to the second; the bracket is the
    # time the client may take between that answer and the PATCH).
    assert csim.now + timedelta(hours=4) <= until <= csim.now + timedelta(hours=4, seconds=2)
    shown = json.loads(out)
    assert shown["id"] == alert_id and shown["acknowledgementComment"] == "disk resize"


@pytest.mark.parametrize(
    ("flag", "expected"),
    [
        (["--for", "PT30M"], timedelta(minutes=30)),
        (["--for", "2d"], timedelta(days=2)),
        (["--until", "2031-05-01T12:00:00Z"], None),
        (["--forever"], timedelta(days=365 * 99)),
    ],
)
def test_ack_until_variants(csim, capsys, flag, expected) -> None:
    alert_id = open_alert_ids(csim)[0]
    csim.clear_requests()
    now = csim.now  # the server's clock, which the client counts from
    code, out, err = run(capsys, "alerts", "ack", alert_id, *flag)
    assert code == 0, err
    assert alert_id in out
    body = json.loads(api_requests(csim, "PATCH")[0]["body"])
    until = datetime.fromisoformat(body["acknowledgedUntil"].replace("Z", "+00:00"))
    if expected is None:
        assert until == datetime(2031, 5, 1, 12, tzinfo=timezone.utc)
    elif flag == ["--forever"]:
        assert until - now > expected
    else:
        assert expected <= until - now <= expected + timedelta(seconds=2)
    assert "acknowledgementComment" not in body or body["acknowledgementComment"] is None


def test_unack_sends_a_past_instant(csim, capsys) -> None:
    alert_id = open_alert_ids(csim)[0]
    assert run(capsys, "alerts", "ack", alert_id, "--for", "1h")[0] == 0
    csim.clear_requests()
    code, out, err = run(capsys, "alerts", "unack", alert_id, "--format", "csv")
    assert code == 0, err
    body = json.loads(api_requests(csim, "PATCH")[0]["body"])
    until = datetime.fromisoformat(body["acknowledgedUntil"].replace("Z", "+00:00"))
    # A minute before the server's now: in its past, whatever this machine's clock says.
    assert csim.now - timedelta(seconds=62) <= until <= csim.now - timedelta(seconds=58)
    assert out.splitlines()[0].startswith("id,status,acknowledged_until")


@pytest.mark.parametrize(
    "argv",
    [
        ["alerts", "ack", "X"],  # no --until/--for/--forever
        ["alerts", "ack", "X", "--for", "4h", "--forever"],
        ["alerts", "ack", "X", "--for", "4 parsecs"],
        ["alerts", "ack", "X", "--until", "2031-05-01T12:00:00"],  # naive: rejected by opsapi
        ["alerts", "list", "--format", "xml"],
        ["alerts"],
        [
            "measurements",
            "host",
            "g",
            "h",
            "--granularity",
            "PT1M",
            "--period",
            "P1D",
            "-o",
            "x.txt",
        ],
        ["measurements", "host", "g", "h", "--period", "P1D"],
        [],
    ],
)
def test_usage_errors_exit_2_before_any_request(csim, capsys, argv) -> None:
    csim.clear_requests()
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.strip()
    assert csim.requests() == []


def test_not_found_exits_3_with_error_code(csim, capsys) -> None:
    code, out, err = run(capsys, "alerts", "ack", "0123456789abcdef01234567", "--for", "1h")
    assert code == 3
    assert out == ""
    assert err.startswith("error: ") and err.count(":") >= 2
    assert err.strip().split(": ")[1].isupper()  # the API's errorCode, e.g. ALERT_NOT_FOUND


def test_wrong_key_exits_4(csim, capsys, monkeypatch) -> None:
    monkeypatch.setenv("OPSAPI_PRIVATE_KEY", "not-the-key-0000")
    code, out, err = run(capsys, "alerts", "list")
    assert code == 4
    assert err.startswith("error: ")
    assert "not-the-key-0000" not in err and "not-the-key-0000" not in out


def test_server_error_exits_5(csim, capsys) -> None:
    csim.inject(500, 20)
    code, _, err = run(capsys, "alerts", "list")
    assert code == 5
    assert err.startswith("error: ")


def test_transport_error_exits_6(capsys, monkeypatch, closed_port) -> None:
    monkeypatch.setenv("OPSAPI_BASE_URL", f"http://127.0.0.1:{closed_port}")
    monkeypatch.setenv("OPSAPI_PUBLIC_KEY", "pub")
    monkeypatch.setenv("OPSAPI_PRIVATE_KEY", "secret-private-key")
    code, out, err = run(capsys, "alerts", "list")
    assert code == 6
    assert err.startswith("error: transport") and err.count("\n") == 1
    assert err.rstrip().endswith("(is the server up? it is OPSAPI_BASE_URL)")  # what to check
    assert "secret-private-key" not in err + out


def test_missing_configuration_exits_2(capsys, monkeypatch) -> None:
    for name in ("OPSAPI_BASE_URL", "OPSAPI_PUBLIC_KEY", "OPSAPI_PRIVATE_KEY"):
        monkeypatch.delenv(name, raising=False)
    code, _, err = run(capsys, "alerts", "list")
    assert code == 2
    assert err.startswith("error: ")


def _first_host(sim) -> tuple[str, str]:
    g = sim.group_ids[0]
    return g, sim.client().hosts.list(g)[0].id


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_host_measurements_to_file(csim, capsys, tmp_path, suffix) -> None:
    g, h = _first_host(csim)
    target = tmp_path / f"m.{suffix}"
    csim.clear_requests()
    code, _, err = run(
        capsys,
        "measurements", "host", g, h,
        "--granularity", "PT1M", "--period", "P1D",
        "--metric", "CONNECTIONS", "--metric", "OPCOUNTER_QUERY",
        "--output", str(target),
    )  # fmt: skip
    assert code == 0, err
    assert f"to {target}" in err
    (req,) = api_requests(csim, "GET")
    assert req["path"].endswith(f"/groups/{g}/hosts/{h}/measurements")
    q = query(req)
    assert q["granularity"] == ["PT1M"] and q["period"] == ["P1D"]
    assert q["m"] == ["CONNECTIONS", "OPCOUNTER_QUERY"]
    frame = pl.read_csv(target) if suffix == "csv" else pl.read_parquet(target)
    assert frame.columns == [
        "group_id", "host_id", "process_id", "partition_name", "database_name",
        "measurement", "units", "timestamp", "value",
    ]  # fmt: skip
    assert set(frame.get_column("measurement").cast(pl.String)) == {
        "CONNECTIONS",
        "OPCOUNTER_QUERY",
    }
    assert frame.height > 1000


def test_disk_measurements_wide_to_stdout(csim, capsys) -> None:
    g, h = _first_host(csim)
    partition = csim.client().hosts.partitions(g, h)[0]
    csim.clear_requests()
    code, out, err = run(
        capsys,
        "measurements", "disk", g, h, partition,
        "--granularity", "PT1H", "--period", "P2D",
        "--metric", "DISK_PARTITION_SPACE_USED", "--shape", "wide",
    )  # fmt: skip
    assert code == 0, err
    (req,) = api_requests(csim, "GET")
    assert req["path"].endswith(f"/groups/{g}/hosts/{h}/disks/{partition}/measurements")
    frame = pl.read_csv(io.StringIO(out))
    assert frame.columns == ["timestamp", "DISK_PARTITION_SPACE_USED"]
    assert 47 <= frame.height <= 50


def test_measurements_of_unknown_host_exit_3(csim, capsys) -> None:
    code, _, err = run(
        capsys, "measurements", "host", csim.group_ids[0], "f" * 32,
        "--granularity", "PT1H", "--period", "P1D",
    )  # fmt: skip
    assert code == 3
    assert err.startswith("error: ")


def test_open_alerts_of_a_configuration(csim, capsys) -> None:
    alerts = csim.client().global_alerts.list(status="OPEN")
    a = next(a for a in alerts if a.group_id and a.alert_config_id)
    csim.clear_requests()
    code, out, err = run(
        capsys, "alerts", "open", a.group_id, a.alert_config_id, "--format", "json"
    )
    assert code == 0, err
    got = json.loads(out)
    assert all(x["alertConfigId"] == a.alert_config_id and x["status"] == "OPEN" for x in got)
    reqs = api_requests(csim, "GET")
    assert reqs[0]["path"].endswith(f"/groups/{a.group_id}/alertConfigs/{a.alert_config_id}/alerts")

    code, _, err = run(capsys, "alerts", "open", a.group_id, "0" * 24)
    assert code == 3, err


def test_python_dash_m_and_private_key_never_printed(csim) -> None:
    env = {**os.environ}
    r = subprocess.run(
        [sys.executable, "-m", "opsapi.cli", "alerts", "list", "--format", "json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)
    assert csim.private_key not in r.stdout + r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "opsapi.cli", "alerts", "ack", "nope", "--for", "1h"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode in (2, 3)
    assert r.stderr.startswith("error: ")
    assert csim.private_key not in r.stdout + r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "opsapi.cli", "--help"], capture_output=True, text=True
    )
    assert r.returncode == 0 and "alerts" in r.stdout


# ---- --output json on every command (issue 16) --------------------------------------------


def test_output_json_on_every_alerts_command(csim, capsys) -> None:
    alert_id = open_alert_ids(csim)[0]
    code, out, err = run(capsys, "alerts", "ack", alert_id, "--for", "1h", "-o", "json")
    assert code == 0, err
    acked = json.loads(out)
    assert acked["id"] == alert_id and acked["acknowledgedUntil"]
    code, out, err = run(capsys, "--output", "json", "alerts", "unack", alert_id)
    assert code == 0, err
    assert json.loads(out)["id"] == alert_id
    config_id = acked["alertConfigId"]
    code, out, err = run(capsys, "alerts", "open", acked["groupId"], config_id, "-o", "json")
    assert code == 0, err
    assert all(a["alertConfigId"] == config_id for a in json.loads(out))


def test_measurements_output_json_to_stdout(csim, capsys) -> None:
    g, h = _first_host(csim)
    code, out, err = run(
        capsys,
        "measurements", "host", g, h,
        "--granularity", "PT1H", "--period", "P1D", "--metric", "CONNECTIONS",
        "--output", "json",
    )  # fmt: skip
    assert code == 0, err
    rows = json.loads(out)
    expected = (
        csim.client()
        .measurements.host(g, h, granularity="PT1H", period="P1D", metrics=["CONNECTIONS"])
        .to_polars()
    )
    assert len(rows) == expected.height > 0
    assert rows[0]["measurement"] == "CONNECTIONS" and rows[0]["timestamp"].endswith("Z")
    assert [r["value"] for r in rows] == expected.get_column("value").to_list()


def test_measurements_fleet_to_a_folder_and_to_json(csim, capsys, tmp_path) -> None:
    g = csim.group_ids[0]
    window = ["--granularity", "PT1H", "--period", "P1D", "--metric", "CONNECTIONS"]
    code, out, err = run(
        capsys, "measurements", "fleet", "--project", g, *window, "-o", str(tmp_path / "f")
    )
    assert code == 0, err
    hosts = [h.id for h in csim.client().hosts.list(g)]
    files = sorted(p.relative_to(tmp_path / "f").as_posix() for p in (tmp_path / "f").rglob("*"))
    assert [f for f in files if f.endswith(".parquet")] == sorted(
        f"group_id={g}/host_id={h}/host.parquet" for h in hosts
    )
    code, out, err = run(capsys, "measurements", "fleet", "--project", g, *window, "-o", "json")
    assert code == 0, err
    rows = json.loads(out)
    on_disk = pl.scan_parquet(tmp_path / "f" / "**" / "*.parquet", hive_partitioning=True)
    assert len(rows) == on_disk.select(pl.len()).collect().item() > 0
    assert {r["host_id"] for r in rows} == set(hosts)


# ---- global options before (or after) every command, sim and completion included -----------


def _top_level_commands() -> list[str]:
    """The commands of the parser itself: a new one must get a case below."""
    parser = cli.build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, cli.argparse._SubParsersAction)]
    return sorted(sub.choices)


@pytest.fixture
def profiled(csim, capsys, monkeypatch):
    """A profile `simp` for the simulator, while OPSAPI_* point elsewhere: a command that
    works with `--profile simp` used the profile."""
    monkeypatch.setenv("SIMP_KEY", csim.private_key)
    code, _, err = run(
        capsys, "config", "init", "--profile", "simp", "--base-url", csim.base_url,
        "--public-key", csim.public_key, "--private-key-env", "SIMP_KEY", "--no-input",
    )  # fmt: skip
    assert code == 0, err
    monkeypatch.setenv("OPSAPI_PRIVATE_KEY", "not-the-key-0000")
    return csim


@pytest.fixture
def fake_sim(monkeypatch) -> list[list[str]]:
    """`opsapi sim` runs the simulator's own (Rust) command line until Ctrl-C: recorded here
    instead, with the flags it would have been given."""
    from opsapi import _native

    calls: list[list[str]] = []
    monkeypatch.setattr(_native, "_sim_main", lambda argv: calls.append(list(argv)) or 0)
    return calls


@pytest.fixture
def fake_mcp(monkeypatch) -> list[dict]:
    """`opsapi mcp` serves until its client leaves: recorded here instead, once its options
    are checked, with what it would serve (so that it runs on CPython 3.9, without the SDK)."""
    from opsapi.cli import mcp

    calls: list[dict] = []

    def serve(args, http, token, max_ack) -> int:
        calls.append({"store": args.store, "http": http, "profile": args.profile})
        return 0

    monkeypatch.setattr(mcp, "serve", serve)
    return calls


def _one_line_usage_error(code: int, out: str, err: str, *needles: str) -> None:
    assert code == cli.EXIT_USAGE, err
    assert out == ""
    assert err.startswith("error: ") and err.count("\n") == 1, err  # one line, no traceback
    for needle in needles:
        assert needle in err, (needle, err)


def test_global_options_before_or_after_every_command(
    profiled, capsys, fake_sim, fake_mcp, tmp_path
) -> None:
    g, h = _first_host(profiled)
    store = str(tmp_path / "store")
    window = ["--granularity", "PT1H", "--period", "P1D", "--metric", "CONNECTIONS"]
    # Each command, and what `--output json` gives there (None: refused, it prints text).
    cases = {
        "alerts": (["alerts", "list", "--status", "OPEN"], list),
        "projects": (["projects"], list),
        "clusters": (["clusters", "list"], list),
        "measurements": (["measurements", "host", g, h, *window], list),
        "capacity": (["capacity", "--window", "2d"], dict),
        "sync": (["sync", store, "--kind", "host", "--project", g, "--window", "P1D"], dict),
        "store": (["store", "info", store], list),  # what the sync above stored
        "config": (["config", "list"], list),
        "completion": (["completion", "bash"], None),
        "mcp": (["mcp", "--http", "127.0.0.1:0"], None),
        "sim": (["sim", "--port", "0", "--seed", "3"], None),
    }
    assert sorted(cases) == _top_level_commands(), "a new command needs its case here"
    for area, (argv, json_type) in cases.items():
        before = ["--profile", "simp", "--output", "json", *argv]
        after = [*argv, "--profile", "simp", "-o", "json"]
        for words in (before, after):
            fake_sim.clear()
            code, out, err = run(capsys, *words)
            if json_type is None:
                _one_line_usage_error(code, out, err, "--output json", f"opsapi {area}")
                assert fake_sim == []  # refused before the simulator starts
            else:
                assert code == 0, (words, err)
                assert isinstance(json.loads(out), json_type), words
        # --profile alone (and -o table) before the command: the command runs as without it.
        code, out, err = run(capsys, "--profile", "simp", "-o", "table", *argv)
        assert code == 0, (argv, err)
        assert "Traceback" not in err
    assert fake_sim == [["--port", "0", "--seed", "3"]]  # the globals are not the sim's flags
    assert fake_mcp == [{"store": None, "http": ("127.0.0.1", 0), "profile": "simp"}]
    code, out, _ = run(capsys, "--profile", "simp", "completion", "zsh")
    assert out.startswith("#compdef opsapi")


def test_sim_takes_its_own_flags_after_the_global_options(capsys, fake_sim) -> None:
    code, _, err = run(capsys, "-o", "table", "--profile", "x", "sim", "--port", "0", "--tls",
                       "self-signed", "--latency-ms", "5", "--profile", "y")  # fmt: skip
    assert code == 0, err
    assert fake_sim == [["--port", "0", "--tls", "self-signed", "--latency-ms", "5"]]
    fake_sim.clear()
    for argv in (["sim", "--output=csv"], ["sim", "-ojson", "--seed", "1"]):
        code, out, err = run(capsys, *argv)
        _one_line_usage_error(code, out, err, "--output ", "opsapi sim")
    code, out, err = run(capsys, "sim", "--seed", "1", "-o")  # a global option without value
    assert code == cli.EXIT_USAGE and "opsapi sim: argument --output/-o: expected one" in err
    assert fake_sim == []
    # --help is the simulator's own, whatever comes with it.
    assert run(capsys, "-o", "json", "sim", "--help")[0] == 0
    assert fake_sim == [["--help"]]
