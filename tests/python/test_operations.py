"""Walks the README's operation table against the simulator, so that no row can go stale. The
table is written from the flavour table and ``docs/_ext/operation_table.py``'s calls (a README
that is not that table fails here); each call (sync and async) sends exactly its row's method
and path, with the query and body the call says it sends, the Rust call exists in
src/api/<resource>.rs, and the CLI command sends the same request. The other way round, every
method of the clients' resource objects (found by introspection) must have a row, and the
fleet pulls may send only the rows' requests."""

from __future__ import annotations

import datetime as dt
import importlib.util
import io
import json
import re
import sys
from pathlib import Path

import pytest

import opsapi
from opsapi import cli
from opsapi._native import OPERATION_TABLE
from opsapi.testing import Simulator

ROOT = Path(__file__).resolve().parents[2]
API = "/api/public/v1.0"


def _generator():
    path = ROOT / "docs" / "_ext" / "operation_table.py"
    spec = importlib.util.spec_from_file_location("operation_table", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


TABLE = _generator()
CALLS = TABLE.calls()
WINDOW = TABLE.WINDOW
# The identifiers the calls name, by their row's placeholders.
IDS = TABLE.SHORT
# A client counts acknowledgements from the server's Date (to the second) plus the time since
# that answer: on a fixed clock, exact to this slack.
SLACK = dt.timedelta(seconds=2)


def test_the_readme_table_is_the_generators():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert TABLE.readme(text, TABLE.render()) == text, (
        "README.md's operation table differs from the flavour table and "
        "docs/_ext/operation_table.py; regenerate it: "
        ".venv/bin/python docs/_ext/operation_table.py --write"
    )


def test_every_call_is_of_an_operation_of_the_table():
    assert {c.operation for c in CALLS} <= set(OPERATION_TABLE)
    assert len({c.python for c in CALLS}) == len(CALLS), "each call once"


def resource_methods(client) -> set[tuple[str, str]]:
    """``(resource, method)`` for every public method of the client's resource objects
    (``client.hosts.list``, ...), found by introspection: what the client can ask the server."""
    out = set()
    for name in dir(client):
        value = getattr(client, name)
        if name.startswith("_") or callable(value):
            continue
        if not type(value).__module__.startswith("opsapi"):
            continue  # base_url, server_version
        out |= {(name, m) for m in dir(type(value)) if not m.startswith("_")}
    return out


def calls_in(cell: str) -> set[tuple[str, str]]:
    """The calls a table cell shows: `client.hosts.list(g)`, and `.iter(...)` after one."""
    out, resource = set(), None
    for code in cell.split("`")[1::2]:
        full = re.match(r"(?:await )?client\.(\w+)\.(\w+)\(", code)
        more = re.match(r"\.(\w+)\(", code)
        if full:
            resource = full.group(1)
            out.add(full.groups())
        elif more and resource:
            out.add((resource, more.group(1)))
    return out


# Many requests per call, one per target (or per part of an alert's context): named in the
# sentences after the table, and their requests checked against the table's rows by
# test_fleet_pulls_send_only_the_rows_requests and test_contexts_send_only_the_rows_requests
# (a store's sync: by tests/python/test_store.py, listing and data requests).
MANY_REQUESTS = {
    ("measurements", "fleet"),
    ("measurements", "fleet_to_parquet"),
    ("measurements", "sync"),
    ("alerts", "context"),
}


def test_every_client_method_has_a_row():
    sync = resource_methods(opsapi.Client("http://127.0.0.1:9", "p", "k"))
    asynchronous = resource_methods(opsapi.AsyncClient("http://127.0.0.1:9", "p", "k"))
    assert ("hosts", "databases") in sync and len(sync) > 20  # the introspection sees them
    assert asynchronous == sync  # the same methods on both clients
    listed = set().union(*(calls_in(f"`{c.python}`, `{c.more}`") for c in CALLS))
    missing = sync - listed - MANY_REQUESTS
    assert not missing, f"client methods without a row in the README's table: {sorted(missing)}"
    assert not listed - sync, "rows naming methods the client does not have"
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("### Every operation")[1]
    lines = section.split("\n### ")[0].splitlines()
    last_row = max(i for i, line in enumerate(lines) if line.startswith("|"))
    after = "\n".join(lines[last_row + 1 :])  # the text under the table
    for _resource, method in sorted(MANY_REQUESTS):
        assert f"`{method}" in after or f".{method}(" in after, method


@pytest.fixture
def world(fixed_now):
    """A fresh simulator per row (the DELETE and PATCH rows change it), with real ids."""
    with Simulator(seed=0, projects=1, hosts_per_project=3, now=fixed_now) as sim:
        c = sim.client()
        g = sim.group_ids[0]
        truth = [t for t in sim.database_truth() if t["group_id"] == g]
        h = truth[0]["host_id"]
        ids = {
            "g": g,
            "h": h,
            "p": c.hosts.partitions(g, h)[0],
            "d": truth[0]["database_name"],
            "a": c.global_alerts.list(status="OPEN")[0].id,
            "c": c.alert_configs.list(g)[0].id,
            "e": c.events.list(g)[0].id,
            "x": sim.world()["access_list"][0]["id"],
            "k": sim.cluster_truth()[0]["id"],
        }
        yield sim, ids


def expected(call, ids) -> tuple[str, str]:
    """The call's row's method and path (Ops Manager's), with the world's identifiers."""
    row = OPERATION_TABLE[call.operation]
    return row["method"], API + row["path"].format(**{p: ids[IDS[p]] for p in row["params"]})


def last_request(sim) -> tuple[str, str]:
    r = [r for r in sim.requests() if r["authorized"]][-1]
    return r["method"], r["path"]


def check_sent(sim, call, what) -> None:
    """The last request's query and body are the ones the call says it sends."""
    r = [r for r in sim.requests() if r["authorized"]][-1]
    assert r["query"] == call.query, (what, r["query"])
    if call.body is None:
        assert r["body"] == b"", (what, r["body"])
        return
    got = json.loads(r["body"])
    assert sorted(got) == sorted(call.body), (what, got)
    for key, want in call.body.items():
        if isinstance(want, dt.timedelta) or callable(want):
            expected = sim.now + want if isinstance(want, dt.timedelta) else want(sim.now)
            at = dt.datetime.fromisoformat(got[key].replace("Z", "+00:00"))
            assert expected <= at <= expected + SLACK, (what, key, got[key])
        else:
            assert got[key] == want, (what, key)


@pytest.mark.parametrize("call", CALLS, ids=[c.python for c in CALLS])
async def test_each_row_sends_its_request(world, call):
    sim, ids = world
    want = expected(call, ids)

    sim.clear_requests()
    eval(call.python, {}, {"client": sim.client(), **ids})  # noqa: S307 (the README's own text)
    assert last_request(sim) == want, call.python
    check_sent(sim, call, call.python)

    if want[0] == "DELETE":
        # The entry is gone now: the async twin must send the same request (and get a 404).
        with pytest.raises(opsapi.NotFoundError):
            await eval(call.python, {}, {"client": sim.async_client(), **ids})
    else:
        sim.clear_requests()
        await eval(call.python, {}, {"client": sim.async_client(), **ids})
    assert last_request(sim) == want, f"await {call.python}"
    check_sent(sim, call, f"await {call.python}")

    # The Rust call: `client.<resource>().<method>(` exists in src/api/<resource>.rs.
    for resource, method in re.findall(r"client\.(\w+)\(\)\.(\w+)\(", call.rust):
        src = (ROOT / "src" / "api" / f"{resource}.rs").read_text(encoding="utf-8")
        assert re.search(rf"pub (async )?fn {method}\b", src), (resource, method)
    for method in re.findall(r"`\.(\w+)\(", f"`{call.rust}`"):
        resource = re.findall(r"client\.(\w+)\(\)", call.rust)[0]
        src = (ROOT / "src" / "api" / f"{resource}.rs").read_text(encoding="utf-8")
        assert re.search(rf"pub (async )?fn {method}\b", src), (resource, method)

    if call.cli:
        argv = call.cli.split()[1:]
        argv = [a.format(**ids) for a in argv]
        if argv[0] == "measurements":
            argv += ["--output", "-"]
        sim.clear_requests()
        env = {
            "OPSAPI_BASE_URL": sim.base_url,
            "OPSAPI_PUBLIC_KEY": sim.public_key,
            "OPSAPI_PRIVATE_KEY": sim.private_key,
        }
        with pytest.MonkeyPatch.context() as mp:
            for k, v in env.items():
                mp.setenv(k, v)
            mp.delenv("OPSAPI_CA_FILE", raising=False)
            code = cli.main(argv, out=io.StringIO())
        assert code == 0, argv
        assert last_request(sim) == want, argv
        check_sent(sim, call, argv)


def _row_patterns() -> list[re.Pattern[str]]:
    """Each row's method and path (Ops Manager's), its placeholders as wildcards."""
    return [
        re.compile(re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(f"{r['method']} {API}{r['path']}")))
        for r in OPERATION_TABLE.values()
    ]


def test_fleet_pulls_send_only_the_rows_requests(world, tmp_path):
    sim, ids = world
    g, h = ids["g"], ids["h"]
    patterns = _row_patterns()
    c = sim.client()
    window = {"granularity": "PT1H", "period": "P1D", "progress": False}
    sim.clear_requests()
    c.measurements.fleet([(g, h), (g, h, ids["p"])], **window)
    c.measurements.fleet([(g, h, ids["d"])], kind="database", **window)
    c.measurements.fleet_to_parquet([(g, h), (g, h, ids["p"])], tmp_path / "f", **window)
    sent = [r for r in sim.requests() if r["authorized"]]
    assert len(sent) == 5
    for r in sent:
        request = f"{r['method']} {r['path']}"
        assert any(p.fullmatch(request) for p in patterns), request
        assert (r["query"], r["body"]) == (WINDOW, b""), request
    paths = sorted(r["path"] for r in sent)
    assert paths == sorted(
        [f"{API}/groups/{g}/hosts/{h}/measurements"] * 2
        + [f"{API}/groups/{g}/hosts/{h}/disks/{ids['p']}/measurements"] * 2
        + [f"{API}/groups/{g}/hosts/{h}/databases/{ids['d']}/measurements"]
    )


def test_contexts_send_only_the_rows_requests(world):
    """An alert's context, of each kind the world has (a host metric, a disk partition's
    space, no metric), sends only requests of the table's rows."""
    sim, ids = world
    patterns = _row_patterns()
    c = sim.client()
    alerts = c.alerts.list(ids["g"])
    kinds = set()
    for metric in ("CONNECTIONS", "DISK_PARTITION_SPACE_USED_DATA", None):
        alert = next(a for a in alerts if a.metric_name == metric)
        sim.clear_requests()
        kinds.add(c.alerts.context(alert).kind)
        sent = [r for r in sim.requests() if r["authorized"]]
        assert len(sent) >= 2
        for r in sent:
            request = f"{r['method']} {r['path']}"
            assert any(p.fullmatch(request) for p in patterns), request
    assert kinds == {"host", "disk", None}
