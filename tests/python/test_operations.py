"""Walks the README's operation table against the simulator, so that no row can go stale:
each Python call (sync and async) sends exactly the row's method and path, the Rust call
exists in src/api/<resource>.rs, and the CLI command sends the same request."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

import opsapi
from opsapi import cli
from opsapi.testing import Simulator

ROOT = Path(__file__).resolve().parents[2]
API = "/api/public/v1.0"


def rows() -> list[dict[str, str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("### Every operation", 1)[1]
    out = []
    for line in section.splitlines():
        if not line.startswith("| `"):
            if out:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        method_path, rust, sync, async_, cli_cmd = cells
        out.append(
            {
                "method_path": method_path.split("`")[1],
                "rust": rust,
                "sync": sync.split("`")[1],
                "async": async_.split("`")[1],
                "cli": cli_cmd.strip("`"),
            }
        )
    return out


ROWS = rows()


def test_the_table_lists_every_operation_of_the_api():
    paths = {r["method_path"] for r in ROWS}
    for needed in [
        "DELETE /admin/accessList/{x}",
        "GET /globalAlerts",
        "PATCH /globalAlerts/{a}",
        "GET /groups/{g}/alertConfigs/{c}/alerts",
        "GET /groups/{g}/hosts/{h}",
        "GET /groups/{g}/hosts/{h}/measurements",
        "GET /groups/{g}/hosts/{h}/disks/{p}/measurements",
        "GET /groups/{g}/hosts/{h}/databases",
        "GET /groups/{g}/hosts/{h}/databases/{d}/measurements",
        "GET /groups/{g}/events/{e}",
    ]:
        assert needed in paths


@pytest.fixture
def world():
    """A fresh simulator per row (the DELETE and PATCH rows change it), with real ids."""
    with Simulator(seed=0, projects=1, hosts_per_project=3) as sim:
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
        }
        yield sim, ids


def expected(row, ids) -> tuple[str, str]:
    method, path = row["method_path"].split(" ")[:2]
    return method, API + path.format(**ids)


def last_request(sim) -> tuple[str, str]:
    r = [r for r in sim.requests() if r["authorized"]][-1]
    return r["method"], r["path"]


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['method_path']}::{r['sync']}" for r in ROWS])
async def test_each_row_sends_its_request(world, row):
    sim, ids = world
    want = expected(row, ids)

    sim.clear_requests()
    eval(row["sync"], {}, {"client": sim.client(), **ids})  # noqa: S307 (the README's own text)
    assert last_request(sim) == want, row["sync"]

    if row["method_path"].startswith("DELETE"):
        # The entry is gone now: the async twin must send the same request (and get a 404).
        with pytest.raises(opsapi.NotFoundError):
            await eval(
                row["async"].removeprefix("await "), {}, {"client": sim.async_client(), **ids}
            )
    else:
        sim.clear_requests()
        await eval(row["async"].removeprefix("await "), {}, {"client": sim.async_client(), **ids})
    assert last_request(sim) == want, row["async"]

    # The Rust call: `client.<resource>().<method>(` exists in src/api/<resource>.rs.
    for resource, method in re.findall(r"client\.(\w+)\(\)\.(\w+)\(", row["rust"]):
        src = (ROOT / "src" / "api" / f"{resource}.rs").read_text(encoding="utf-8")
        assert re.search(rf"pub (async )?fn {method}\b", src), (resource, method)
    for method in re.findall(r"`\.(\w+)\(", row["rust"]):
        resource = re.findall(r"client\.(\w+)\(\)", row["rust"])[0]
        src = (ROOT / "src" / "api" / f"{resource}.rs").read_text(encoding="utf-8")
        assert re.search(rf"pub (async )?fn {method}\b", src), (resource, method)

    if row["cli"]:
        argv = row["cli"].split()[1:]
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
