"""What drives each load finding (issue 40 §2): the report and ``opsapi capacity`` name the
namespaces and query shapes that take most of the slow-query time of each CPU and
connections finding's host over the window, with their share. The truth is the simulator's
seeded driver of each seeded finding (``Simulator.cause_truth()["drivers"]``: a namespace
whose slow queries rise and fall with the finding's own series), on Ops Manager and Atlas
(whose exchanges the suite's fixture checks against the specification)."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import quote

import polars as pl
import pytest
from _flagged import flagged_world

from opsapi import capacity

pytest.importorskip("altair", reason="the report's sections need Altair")

from opsapi.report import sections  # noqa: E402

WINDOW = timedelta(days=14)


@pytest.fixture(scope="module", params=["ops-manager", "atlas"])
def world(request, fixed_now):
    """Per flavour: the simulator, the findings' rows, their topology, the drivers the
    report asked and the requests it sent for them."""
    with flagged_world(request.param, fixed_now) as w:
        w["got"] = capacity.finding_drivers(
            w["client"], w["rows"], w["topo"], start=fixed_now - WINDOW, end=fixed_now
        )
        w["sent"] = [r for r in w["sim"].requests() if r["authorized"]]
        w["sim"].clear_requests()
        yield w


def _seeded(sim) -> list[tuple[dict, dict]]:
    """Each seeded CPU or connections finding with its seeded driver."""
    drivers = sim.cause_truth()["drivers"]
    out = []
    for t in sim.headroom_truth():
        if t["resource"] in ("cpu", "connections"):
            (d,) = [d for d in drivers if d["host_id"] in t["host_ids"]]
            assert d["resource"] == t["resource"]
            out.append((t, d))
    assert {t["resource"] for t, _ in out} == {"cpu", "connections"}
    return out


def test_the_seeded_driver_of_every_load_finding_is_named_first(world):
    frame = world["got"].frame
    assert world["got"].missing == {}
    for t, d in _seeded(world["sim"]):
        mine = frame.filter(pl.col("member") == t["members"][0],
                            pl.col("resource") == t["resource"])  # fmt: skip
        assert mine.height >= 1, (t["resource"], frame)
        first = mine.row(0, named=True)
        assert first["namespace"] == d["namespace"]
        assert first["share"] > 0.5  # most of the host's slow-query time
        # The shape names the fields the seeded queries filter on.
        assert all(f'"{f}"' in first["shape"] for f in d["fields"]), first["shape"]
        # Said under the finding's chart, with its share.
        row = (
            world["rows"]
            .filter(pl.col("member") == t["members"][0], pl.col("resource") == t["resource"])
            .row(0, named=True)
        )
        data = sections.ReportData(pl.DataFrame(), pl.DataFrame(), [], world["names"],
                                   drivers=world["got"])  # fmt: skip
        said = sections._driven(row, data)
        assert f"{d['namespace']} " in said and f"{first['share'] * 100:.0f} % of slow" in said


def test_one_request_a_finding_host_at_the_window(world, fixed_now):
    logs = [r for r in world["sent"] if r["path"].endswith("/slowQueryLogs")]
    hosts = world["rows"].filter(pl.col("resource").is_in(capacity.DRIVEN_RESOURCES))
    assert len(logs) == hosts["member"].n_unique() >= 2
    for r in logs:
        assert f"since={int((fixed_now - WINDOW).timestamp() * 1000)}" in r["query"]
        assert f"duration={int(WINDOW.total_seconds() * 1000)}" in r["query"]


def test_the_driver_rises_with_its_connections(world, fixed_now):
    """The seeded namespace's slow queries climb with the connections they come with."""
    sim, client = world["sim"], world["client"]
    ((t, d),) = [(t, d) for t, d in _seeded(sim) if t["resource"] == "connections"]
    host = world["topo"].filter(pl.col("member") == t["members"][0]).row(0, named=True)

    def count(since):
        logs = client.performance_advisor.slow_query_logs(
            str(host["group_id"]), str(host["host_id"]), since=since, duration=timedelta(days=2)
        )
        return logs.to_polars().filter(pl.col("namespace") == d["namespace"]).height

    assert count(fixed_now - timedelta(days=2)) > 2 * count(fixed_now - WINDOW)


def test_a_refused_host_costs_only_its_drivers(world, fixed_now):
    sim, client, rows = world["sim"], world["client"], world["rows"]
    ((t, _),) = [(t, d) for t, d in _seeded(sim) if t["resource"] == "cpu"]
    member = t["members"][0]
    host = world["topo"].filter(pl.col("member") == member).row(0, named=True)
    # Atlas's process is its hostname:port, escaped in the path as sent.
    where = "processes" if sim.flavour == "atlas" else "hosts"
    process = quote(str(host["host_id"]), safe="")
    sim.inject(403, path=f"/groups/{host['group_id']}/{where}/{process}"
               "/performanceAdvisor/slowQueryLogs")  # fmt: skip
    got = capacity.finding_drivers(client, rows, world["topo"], start=fixed_now - WINDOW,
                                   end=fixed_now)  # fmt: skip
    assert list(got.missing) == [member] and "HTTP 403" in got.missing[member]
    assert member not in set(got.frame["member"]) and got.frame.height > 0
    row = rows.filter(pl.col("member") == member, pl.col("resource") == "cpu").row(0, named=True)
    data = sections.ReportData(pl.DataFrame(), pl.DataFrame(), [], world["names"], drivers=got)
    said = sections._driven(row, data)
    assert said.startswith(f"Slow queries on {member.split('.')[0]}: no slow queries: ")


def test_each_disk_finding_names_the_database_that_grows_it(world, fixed_now):
    """The seeded database that makes most of a filling disk's growth is named first, with
    its share; only the disk findings' hosts' databases are asked."""
    w = world
    got = capacity.database_drivers(w["client"], w["rows"], w["topo"], w["inputs"].disk_frame,
                                    now=fixed_now)  # fmt: skip
    assert got.missing == {}
    truth = {(d["process_id"], d["partition_name"]): d
             for d in w["sim"].database_truth() if d["drives_growth"]}  # fmt: skip
    disks = w["rows"].filter(pl.col("resource") == "disk")
    checked = 0
    for r in disks.iter_rows(named=True):
        t = truth.get((r["member"], r["part"]))
        if t is None:
            continue
        mine = got.frame.filter(pl.col("member") == r["member"],
                                pl.col("partition_name") == r["part"])  # fmt: skip
        first = mine.row(0, named=True)
        assert first["database_name"] == t["database_name"]
        assert abs(first["share_of_disk_growth"] - t["share_of_disk_growth"]) < 0.1
        said = capacity.growth_text(mine)
        assert said.startswith(f"{t['database_name']} {first['share_of_disk_growth'] * 100:.0f} %")
        checked += 1
    assert checked >= 2
    hosts = w["topo"].filter(pl.col("member").is_in(disks["member"].to_list()))["host_id"]
    ids = {quote(str(h), safe="") for h in hosts}
    asked = [r["path"] for r in w["sim"].requests() if "/databases" in r["path"]]
    assert asked and all(any(f"/{h}/databases" in p for h in ids) for p in asked), asked
