"""``opsapi capacity`` against the shared simulator: the summary and the headroom table in 80
columns, colour only on a terminal, the same as JSON, and the requests it sends; its arguments
checked before any request, and a clusters listing the server refuses costing only the
deployments' cluster names."""

from __future__ import annotations

import io
import json
import re

import pytest

pytest.importorskip("opsapi._native", reason="the compiled opsapi package is not installed")

from test_cli import run  # noqa: E402  (the one in-process runner of the CLI tests)

from opsapi import cli  # noqa: E402
from opsapi.testing import Simulator  # noqa: E402

ANSI = re.compile(r"\x1b\[[0-9;]*m")


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def env(sim, monkeypatch):
    monkeypatch.setenv("OPSAPI_BASE_URL", sim.base_url)
    monkeypatch.setenv("OPSAPI_PUBLIC_KEY", sim.public_key)
    monkeypatch.setenv("OPSAPI_PRIVATE_KEY", sim.private_key)
    monkeypatch.delenv("OPSAPI_CA_FILE", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return sim


def _run(*argv: str, out: io.StringIO | None = None) -> tuple[int, str]:
    out = out if out is not None else io.StringIO()
    return cli.main(list(argv), out=out), out.getvalue()


def test_summary_then_table_in_80_columns(env) -> None:
    code, text = _run("capacity")
    assert code == 0
    lines = text.splitlines()
    assert lines[0] == "What runs out first"
    assert max(len(line) for line in lines) <= 80
    assert "\x1b[" not in text  # not a terminal: no colour
    head = next(i for i, line in enumerate(lines) if line.startswith("Days left"))
    assert lines[head].split()[2:] == [
        "disk", "oplog", "lag", "cpu", "cache", "conns", "tkts", "iops", "lat", "shard",
    ]  # fmt: skip
    summary = "\n".join(lines[1:head])
    truth = {t["resource"]: t for t in env.headroom_truth()}
    for resource, words in {
        "oplog_window": "oplog window below 24 h",
        "cpu": "above 90 %",
        "connections": "connections at 5,000",
        "cache": "dirty cache above 20 % now",
    }.items():
        member = truth[resource]["members"][0].split(".")[0]
        assert re.search(rf"{words}[^;]*\({member}\)", " ".join(summary.split())), resource
    assert f"{truth['shard_growth']['shard_name']} grows 4.0×" in " ".join(summary.split())
    # Deployments by project and cluster name (the clusters listing's), no ids, and no
    # cluster said by its shards.
    names = {c["name"] for c in env.cluster_truth()}
    said = set(re.findall(r"^  \w+ · ([\w-]+):", summary, re.M))
    assert names <= said and all(s.startswith("standalone") for s in said - names), said
    assert f"Prod · {_rs0(env)}" in text and not re.search(r"[0-9a-f]{24}", text)
    assert "cluster of" not in text


def _rs0(sim) -> str:
    """The name of the cluster that is the replica set rs0 of the project Prod."""
    (c,) = [c for c in sim.cluster_truth() if c["replica_set_name"] == "rs0"]
    return c["name"]


def test_colour_on_a_terminal(env, monkeypatch) -> None:
    code, text = _run("capacity", out=_Tty())
    assert code == 0 and "\x1b[31;1m" in text  # critical in red
    plain = ANSI.sub("", text)
    assert max(len(line) for line in plain.splitlines()) <= 80
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in _run("capacity", out=_Tty())[1]


def test_json_holds_the_summary_and_the_table(env) -> None:
    code, text = _run("capacity", "--output", "json")
    assert code == 0
    doc = json.loads(text)
    assert doc["window"] == "14d"
    assert [s["deployment"] for s in doc["summary"]] == [t["deployment"] for t in doc["table"]]
    rs0 = next(t for t in doc["table"] if t["deployment"] == f"Prod · {_rs0(env)}")
    assert rs0["resources"]["oplog_window"]["status"] == "warning"
    assert 10 < rs0["resources"]["oplog_window"]["days_left"] < 13
    first = doc["summary"][0]
    assert first["status"] == "critical" and first["summary"].startswith(first["deployment"])


def test_json_carries_each_findings_events_and_drivers(env) -> None:
    """The events the report's charts mark (each flagged deployment's seeded restarts), the
    query shapes behind each seeded CPU and connections finding (its seeded driver), and the
    databases behind each disk finding (the seeded one that makes most of its growth)."""
    doc = json.loads(_run("capacity", "--output", "json")[1])
    assert doc["events_missing"] == {} and doc["drivers_missing"] == {}
    restarts = {e["event_id"]: e for e in env.cause_truth()["restarts"]}
    said = [e for e in doc["events"] if e["id"] in restarts]
    flagged = {s["deployment"] for s in doc["summary"] if s["status"] != "ok"}
    assert said and all(e["deployment"] in flagged and e["kind"] == "restart" for e in said)
    for e in said:
        assert e["created"] == f"{restarts[e['id']]['at']:%Y-%m-%dT%H:%M:%SZ}"
    drivers = env.cause_truth()["drivers"]
    for t in env.headroom_truth():
        if t["resource"] not in ("cpu", "connections"):
            continue
        (d,) = [d for d in drivers if d["host_id"] in t["host_ids"]]
        named = [x for x in doc["drivers"]
                 if x["member"] == t["members"][0] and x["resource"] == t["resource"]]  # fmt: skip
        assert named and named[0]["namespace"] == d["namespace"] and named[0]["share"] > 0.5
    # Each disk finding's growing databases, the seeded one that makes most of it first.
    assert doc["disk_drivers_missing"] == {}
    grows = {(d["process_id"], d["partition_name"]): d["database_name"]
             for d in env.database_truth() if d["drives_growth"]}  # fmt: skip
    firsts = {}
    for x in doc["disk_drivers"]:
        firsts.setdefault((x["member"], x["partition_name"]), x["database_name"])
    checked = [k for k in firsts if k in grows]
    assert len(checked) >= 2 and all(firsts[k] == grows[k] for k in checked), firsts


def test_one_project_and_its_requests(env) -> None:
    env.clear_requests()
    g = env.group_ids[0]
    code, text = _run("capacity", "--group", g, "--window", "2d", "-o", "json")
    assert code == 0
    doc = json.loads(text)
    assert {s["deployment"].split(" · ")[0] for s in doc["summary"]} == {"Prod"}
    paths = {r["path"] for r in env.requests() if r["authorized"]}
    measured = {p for p in paths if p.endswith("/measurements")}
    assert measured and all(f"/groups/{g}/" in p for p in measured)
    queries = [r["query"] for r in env.requests() if r["path"].endswith("/measurements")]
    assert all("period=P2D" in q and "granularity=PT1H" in q for q in queries)
    env.clear_requests()


def test_every_date_has_its_range_and_the_note_says_where_ranges_come_from(env) -> None:
    code, text = _run("capacity")
    assert code == 0
    said = " ".join(text.split())
    # "oplog window below 24 h in ~11 days (10-12, 80 %, from 14 days of history), Mar 13
    # (rs0-1)": the range, its level and what it rests on (issue 37)
    rests = r"80 %, (backtested on \d+ days|from \d+ days [^)]*)"
    assert re.search(
        rf"oplog window below 24 h in ~\d+ days \(\d+-\d+, {rests}\), \w{{3}} \d+ \(rs0-1\)", said
    )
    assert "Ranges: 80 % intervals from the fits' residuals alone; --history 63d" in said
    doc = json.loads(_run("capacity", "--output", "json")[1])
    rs0 = next(t for t in doc["table"] if t["deployment"] == f"Prod · {_rs0(env)}")
    rs0 = rs0["resources"]
    oplog = rs0["oplog_window"]
    assert oplog["days_low"] <= oplog["days_left"] <= oplog["days_high"]
    assert doc["interval_level"] == 0.8 and doc["backtest"] is None
    first = doc["summary"][0]
    assert {"days_low", "days_high", "interval_source"} <= set(first)


def test_history_backtests_the_ranges(env) -> None:
    env.clear_requests()
    code, text = _run("capacity", "--history", "63d")
    assert code == 0 and max(len(line) for line in text.splitlines()) <= 80
    assert "Ranges: 80 % intervals from how wrong past forecasts were on this fleet" in " ".join(
        text.split()
    )
    queries = [r["query"] for r in env.requests() if r["path"].endswith("/measurements")]
    assert queries and all("period=P63D" in q for q in queries)
    doc = json.loads(_run("capacity", "--history", "63d", "-o", "json")[1])
    conns = [b for b in doc["backtest"] if b["resource"] == "connections"]
    assert [b["horizon"] for b in conns] == [7, 14, 30]
    assert all(b["interval_source"] == "backtest" for b in conns)
    env.clear_requests()


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (("--window", "xyz"), "--window"),
        (("--history", "soon"), "--history"),
        (("--granularity", "PT2M"), "--granularity"),
    ],
)
def test_every_argument_is_checked_before_any_request(env, capsys, argv, flag) -> None:
    env.clear_requests()
    code, out, err = run(capsys, "capacity", *argv)
    assert code == cli.EXIT_USAGE and out == ""
    assert err.startswith(f"error: {flag}: "), err
    assert env.requests() == []


@pytest.mark.parametrize(("status", "why"), [(404, "the server has no clusters listing"),
                                             (403, "the key may not list clusters")])  # fmt: skip
def test_a_clusters_listing_refused_names_deployments_by_replica_set(
    own_sim, monkeypatch, capsys, status, why
) -> None:
    """An older Ops Manager (404) or a key without the permission (403): the listing only
    names the deployments, so the command goes on, naming them by replica set and shard, and
    says why once."""
    for name, value in (("OPSAPI_BASE_URL", own_sim.base_url),
                        ("OPSAPI_PUBLIC_KEY", own_sim.public_key),
                        ("OPSAPI_PRIVATE_KEY", own_sim.private_key)):  # fmt: skip
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("OPSAPI_CA_FILE", raising=False)
    g = own_sim.group_ids[0]
    own_sim.inject(status, path=f"/groups/{g}/clusters")
    code, out, err = run(capsys, "capacity", "--window", "2d")
    assert code == 0, err
    warnings = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert warnings == [
        f"warning: deployments are named by replica set and shard: {why} (project {g}: HTTP "
        f"{status})"
    ], err
    refused = [r for r in own_sim.requests() if r["path"].endswith("/clusters")]
    assert [r["status"] for r in refused] == [status], "one listing asked, then none"
    said = set(re.findall(r"^  \w+ · ([\w-]+):", out, re.M))
    clusters = {c["name"] for c in own_sim.cluster_truth()}
    assert said and not said & clusters, said
    assert "Prod · rs0" in out


def test_the_forecasts_a_tier_change_or_disk_resize_restarted_are_named(env, monkeypatch):
    """Atlas's seeded auto-scaling (issue 37), which only its events name: under the summary,
    each deployment whose forecasts the change restarted, with which resources and since when,
    in 80 columns. Ops Manager (no such events, no resize in its series) has no such section,
    and ``-o json``'s ``restarted`` is empty."""
    code, text = _run("capacity")
    assert code == 0 and "Forecasts restarted" not in text
    assert json.loads(_run("capacity", "-o", "json")[1])["restarted"] == []
    with Simulator(seed=0, now=env.now, flavour="atlas") as atlas:
        for name, value in (("OPSAPI_BASE_URL", atlas.base_url),
                            ("OPSAPI_CLIENT_ID", atlas.client_id),
                            ("OPSAPI_CLIENT_SECRET", atlas.client_secret),
                            ("OPSAPI_FLAVOUR", "atlas")):  # fmt: skip
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("OPSAPI_PUBLIC_KEY")
        monkeypatch.delenv("OPSAPI_PRIVATE_KEY")
        code, text = _run("capacity")
        assert code == 0 and max(len(line) for line in text.splitlines()) <= 80
        scaling = atlas.cause_truth()["scaling"]
    # (-o json's restarted is the same list, asked above on Ops Manager: on Atlas its drivers
    # would read thousands of slow-query lines that the spec check then validates one by one.)
    said = " ".join(text.split("Forecasts restarted\n", 1)[1].split())
    assert len(scaling) == 2 and said.count(" fitted since ") == 2, said
    for s in scaling:
        what, why = (
            ("disk space", "the capacity changed")
            if s["event_type_name"] == "DISK_AUTO_SCALE_INITIATED"
            else ("CPU and dirty cache", "the tier changed")
        )
        line = f"· {s['cluster_name']}: {what} fitted since {s['at']:%b %-d}, when {why}"
        assert line in said, said
