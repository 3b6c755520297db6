"""The measurement store (`opsapi.Store`, `client.measurements.sync`) against the simulator,
sync and async: the requests a sync sends (first, an hour later, with nothing new), what the
store holds against a fleet pull of the same window, retention, discovery of added and removed
hosts, faults, the lock (waiting, failing fast, a lock left by a killed process), kills at
write steps and at random delays, and the README's store section."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import parse_qs

import polars as pl
import pytest

import opsapi
from opsapi.testing import Simulator

sys.path.insert(0, os.path.dirname(__file__))
import _kills  # noqa: E402
from _children import stop  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIXED_NOW = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)
HOUR = timedelta(hours=1)
KEYS = ["group_id", "host_id", "partition_name", "database_name", "measurement", "timestamp"]


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


@pytest.fixture
def small():
    """A world of its own: one project, three hosts (the tests change it and its clock)."""
    with Simulator(seed=0, projects=1, hosts_per_project=3, now=FIXED_NOW) as s:
        yield s


def targets_of(sim, kinds=("host", "disk", "database")) -> list[tuple[str, ...]]:
    out = []
    for h in sim.world()["hosts"]:
        g, i = h["group_id"], h["id"]
        if "host" in kinds:
            out.append(("host", g, i))
        if "disk" in kinds:
            out += [("disk", g, i, p) for p in h["partitions"]]
    if "database" in kinds:
        out += [("database", d["group_id"], d["host_id"], d["database_name"])
                for d in sim.database_truth()]  # fmt: skip
    return out


def data_requests(sim) -> list[tuple[str, str, str]]:
    """(path, start, end) of every measurements request that reached the application."""
    out = []
    for r in sim.requests():
        if r["authorized"] and r["path"].endswith("/measurements"):
            q = parse_qs(r["query"])
            out.append((r["path"], q["start"][0], q["end"][0]))
    return out


def canonical(df: pl.DataFrame) -> pl.DataFrame:
    keys = [c for c in df.columns if df[c].dtype == pl.Categorical]
    return df.with_columns(pl.col(keys).cast(pl.String)).sort(KEYS, nulls_last=True)


def pulled(sim, kind: str, start: datetime, end: datetime) -> pl.DataFrame:
    """One fleet pull of every target of ``kind`` over ``start..=end``."""
    tuples = [t[1:] for t in targets_of(sim, (kind,))]
    return sim.client().measurements.fleet(
        tuples, kind=kind, granularity="PT1H", start=start, end=end, progress=False
    )


def assert_holds(sim, store, start: datetime, end: datetime, kinds=("host", "disk")) -> None:
    for kind in kinds:
        stored = store.scan(kind=kind, granularity="PT1H").collect()
        want = pulled(sim, kind, start, end)
        assert stored.schema == want.schema
        assert canonical(stored).equals(canonical(want)), kind


def test_first_sync_then_an_hour_later_only_the_new_hour(small, tmp_path):
    store = opsapi.Store(tmp_path / "store")
    client = small.client()
    report = client.measurements.sync(
        store, kind=("host", "disk"), granularity="PT1H", window="P2D", progress=False
    )
    targets = targets_of(small, ("host", "disk"))
    assert sorted(report.new) == sorted(targets)
    assert (report.updated, report.unchanged, report.failed) == ([], [], {})
    assert report.data_requests == len(targets)
    assert {(s, e) for _, s, e in data_requests(small)} == {
        (iso(FIXED_NOW - 48 * HOUR), iso(FIXED_NOW))
    }
    assert_holds(small, store, FIXED_NOW - 48 * HOUR, FIXED_NOW)
    assert store.targets()["points"].sum() == report.points_added

    small.advance(3600)
    small.clear_requests()
    report = client.measurements.sync(
        store, kind=("host", "disk"), granularity="PT1H", window="P2D", progress=False
    )
    # One request per target, from its last stored point (the overlap) to now: no listing of
    # partitions again (once a day), the projects and their hosts only.
    asked = data_requests(small)
    assert len(asked) == len(targets) == report.data_requests
    assert {(s, e) for _, s, e in asked} == {(iso(FIXED_NOW), iso(FIXED_NOW + HOUR))}
    assert report.requests == len(targets) + 2
    assert sorted(report.updated) == sorted(targets)
    # Every point once, and the overlapped point of each rate series kept its value: the
    # store is what one pull of the whole span returns.
    assert_holds(small, store, FIXED_NOW - 48 * HOUR, FIXED_NOW + HOUR)


def test_the_overlapped_null_never_replaces_the_stored_value(small, tmp_path):
    store = opsapi.Store(tmp_path / "store")
    client = small.client()
    host = next(t for t in targets_of(small, ("host",)))
    sync = {"targets": [host[1:]], "kind": "host", "granularity": "PT1H", "window": "P1D",
            "metrics": ["OPCOUNTER_CMD"], "progress": False}  # fmt: skip
    client.measurements.sync(store, **sync)
    small.advance(3600)
    client.measurements.sync(store, **sync)
    # The second answer started at FIXED_NOW with null (a rate series' first point).
    answer = client.measurements.host(
        host[1], host[2], granularity="PT1H", start=FIXED_NOW, end=FIXED_NOW + HOUR,
        metrics=["OPCOUNTER_CMD"],
    )  # fmt: skip
    assert answer.series[0].values[0] is None
    frame = store.scan(kind="host", granularity="PT1H").collect()
    at = frame.filter(pl.col("timestamp") == FIXED_NOW)
    assert at.height == 1 and at["value"][0] is not None
    assert frame.filter(pl.col("value").is_null()).height == 1  # the window's first point
    assert frame["timestamp"].is_unique().all()


async def test_async_sync_and_nothing_new_sends_no_data_request(small, tmp_path):
    store = opsapi.Store(tmp_path / "store")
    client = small.async_client()
    first = await client.measurements.sync(
        store, kind="disk", granularity="PT1H", window="P1D", progress=False
    )
    assert len(first.new) == len(targets_of(small, ("disk",)))
    small.clear_requests()
    again = await client.measurements.sync(
        store, kind="disk", granularity="PT1H", window="P1D", progress=False
    )
    assert data_requests(small) == []
    assert again.data_requests == 0 and again.points_added == 0
    assert sorted(again.unchanged) == sorted(first.new)
    assert re.fullmatch(
        r"SyncReport\(\d+ targets: 0 new, 0 updated, \d+ unchanged, 0 failed, 0 no longer "
        r"seen; 2 requests \(0 for data\), 0 points added, 0 B written, [\d.]+ s\)",
        repr(again),
    ), repr(again)


def test_retention_a_window_the_server_no_longer_holds_is_asked_once(tmp_path):
    with Simulator(seed=0, projects=1, hosts_per_project=1, now=FIXED_NOW,
                   retention=True) as sim:  # fmt: skip
        store = opsapi.Store(tmp_path / "store")
        client = sim.client()
        sync = {"kind": "host", "granularity": "PT1M", "window": "P7D",
                "metrics": ["CONNECTIONS"], "progress": False}  # fmt: skip
        client.measurements.sync(store, **sync)
        assert [(s, e) for _, s, e in data_requests(sim)] == [
            (iso(FIXED_NOW - timedelta(days=7)), iso(FIXED_NOW))
        ]
        # Minute data is kept two days: the store holds those, and asks no more of the rest.
        first = store.targets()["first"][0]
        assert first == FIXED_NOW - timedelta(days=2)
        sim.advance(60)
        sim.clear_requests()
        client.measurements.sync(store, **sync)
        assert [(s, e) for _, s, e in data_requests(sim)] == [
            (iso(FIXED_NOW), iso(FIXED_NOW + timedelta(minutes=1)))
        ]


def test_a_host_added_starts_filling_and_a_removed_one_is_kept_unseen(small, tmp_path):
    store = opsapi.Store(tmp_path / "store")
    client = small.client()
    sync = {"kind": ("host", "disk"), "granularity": "PT1H", "window": "P2D", "progress": False}
    client.measurements.sync(store, **sync)
    g = small.group_ids[0]
    gone = small.world()["hosts"][0]["id"]
    added = small.add_host(g)
    assert small.remove_host(gone)
    small.advance(3600)
    small.clear_requests()
    report = client.measurements.sync(store, **sync)
    new_host = next(h for h in small.world()["hosts"] if h["id"] == added)
    assert sorted(report.new) == sorted(
        [("host", g, added)] + [("disk", g, added, p) for p in new_host["partitions"]]
    )
    assert report.no_longer_seen and all(t[2] == gone for t in report.no_longer_seen)
    asked = data_requests(small)
    assert not any(gone in p for p, _, _ in asked)
    assert all(s == iso(FIXED_NOW - 47 * HOUR) for p, s, _ in asked if added in p)
    t = store.targets().filter(pl.col("host_id") == gone)
    assert t.height == len(report.no_longer_seen)
    assert not t["seen"].any() and t["points"].min() > 0


def test_a_failing_target_is_reported_and_recovers_next_sync(small, tmp_path):
    store = opsapi.Store(tmp_path / "store")
    client = small.client(max_retries=1)
    host = targets_of(small, ("host",))[1]
    path = f"/api/public/v1.0/groups/{host[1]}/hosts/{host[2]}/measurements"
    small.inject(503, 2, retry_after=0, path=path)  # the request and its one retry
    sync = {"kind": "host", "granularity": "PT1H", "window": "P1D", "progress": False}
    report = client.measurements.sync(store, **sync)
    assert list(report.failed) == [host]
    error = report.failed[host]
    assert isinstance(error, opsapi.ServerError) and error.status == 503
    assert len(report.new) == len(targets_of(small, ("host",))) - 1
    small.clear_requests()
    report = client.measurements.sync(store, **sync)
    assert report.failed == {} and report.new == [host]
    assert data_requests(small) == [(path, iso(FIXED_NOW - 24 * HOUR), iso(FIXED_NOW))]
    assert_holds(small, store, FIXED_NOW - 24 * HOUR, FIXED_NOW, kinds=("host",))
    assert report.to_dict()["failed"] == []


def test_arguments_are_checked_before_anything_is_sent(small, tmp_path):
    store = opsapi.Store(tmp_path / "store")
    client = small.client()
    cases = [
        ({"granularity": "PT2M", "window": "P1D"}, "granularity"),
        ({"granularity": "PT1H", "window": "P1M"}, "window"),
        ({"granularity": "PT1H", "window": "P1D", "kind": "disks"}, "kind"),
        ({"granularity": "PT1H", "window": "P1D", "targets": "some"}, "targets"),
        ({"granularity": "PT1H", "window": "P1D", "metrics": ["CONNECTIONS"]}, "metrics"),
        ({"granularity": "PT1H", "window": "P1D", "targets": [("g",)]}, "targets[0]"),
        ({"granularity": "PT1H", "window": "P1D", "wait": "no"}, "wait"),
    ]
    for kwargs, argument in cases:
        with pytest.raises(opsapi.InvalidArgumentError) as e:
            client.measurements.sync(store, **kwargs)
        assert e.value.argument == argument, kwargs
    with pytest.raises(opsapi.InvalidArgumentError) as e:
        client.measurements.sync(42, granularity="PT1H", window="P1D")
    assert e.value.argument == "store"
    assert small.requests() == [] and not (tmp_path / "store").exists()


def test_wait_false_raises_at_once_and_wait_true_waits(small, tmp_path):
    store = opsapi.Store(tmp_path / "store")
    host = targets_of(small, ("host",))[0]
    sync = {"targets": [host[1:]], "kind": "host", "granularity": "PT1H", "window": "P1D",
            "progress": False}  # fmt: skip
    client = small.client()
    client.groups.list()  # the handshake first
    path = f"/groups/{host[1]}/hosts/{host[2]}/measurements"
    results: dict[str, object] = {}
    with small.hold(path=path) as held:
        first = threading.Thread(
            target=lambda: results.update(first=client.measurements.sync(store, **sync))
        )
        first.start()
        assert held.wait_arrived(timeout=30)
        with pytest.raises(opsapi.StoreLockedError) as e:
            client.measurements.sync(store, wait=False, **sync)
        assert e.value.path == str(tmp_path / "store")
        assert "locked" in str(e.value)
        second = threading.Thread(
            target=lambda: results.update(second=client.measurements.sync(store, **sync))
        )
        second.start()
    first.join(60)
    second.join(60)
    assert results["first"].new == [host]  # type: ignore[attr-defined]
    # It waited for the first: nothing was left for it to ask.
    assert results["second"].unchanged == [host]  # type: ignore[attr-defined]
    assert results["second"].data_requests == 0  # type: ignore[attr-defined]


def test_a_lock_left_by_a_killed_process_is_free(small, tmp_path):
    store_path = tmp_path / "store"
    host = targets_of(small, ("host",))[0]
    path = f"/groups/{host[1]}/hosts/{host[2]}/measurements"
    script = (
        "import sys, opsapi\n"
        "c = opsapi.Client(*sys.argv[1:4])\n"
        "c.measurements.sync(opsapi.Store(sys.argv[4]), kind='host', granularity='PT1H',\n"
        "                    window='P1D', progress=False)\n"
    )
    with small.hold(path=path) as held:
        proc = subprocess.Popen(
            [sys.executable, "-c", script, small.base_url, small.public_key,
             small.private_key, str(store_path)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert held.wait_arrived(timeout=60)
            # The child holds the lock, its request waiting here: killed there.
            with pytest.raises(opsapi.StoreLockedError):
                small.client().measurements.sync(
                    opsapi.Store(store_path), kind="host", granularity="PT1H", window="P1D",
                    wait=False, progress=False,
                )  # fmt: skip
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
        finally:
            stop(proc)
    report = small.client().measurements.sync(
        opsapi.Store(store_path), kind="host", granularity="PT1H", window="P1D", wait=False,
        progress=False,
    )  # fmt: skip
    assert len(report.new) == len(targets_of(small, ("host",)))


@pytest.fixture(scope="module")
def kill_world(tmp_path_factory):
    world = _kills.make_world(tmp_path_factory.mktemp("kills"))
    yield world
    world.sim.close()


# A sample of the write steps of one sync (bench/store_kills.py kills at every one of them and
# at 100 random delays: the figure in bench/RESULTS.md).
KILL_STEPS = 16


@pytest.mark.timeout(600)
def test_a_sync_killed_at_write_steps_leaves_a_store_the_next_sync_completes(kill_world):
    steps = _kills.spread(kill_world.steps, KILL_STEPS)
    outcomes = [_kills.kill_at_step(kill_world, n) for n in steps]
    problems = [(o.how, p) for o in outcomes for p in o.problems]
    assert not problems, problems
    assert all(o.killed for o in outcomes)
    # Killed before the manifest's last write, readers see the store as it was; after it,
    # as the sync left it: both happen in this sample (its first and last steps).
    assert {o.saw for o in outcomes} == {"base", "clean"}


@pytest.mark.timeout(600)
def test_a_sync_killed_at_random_delays_leaves_a_store_the_next_sync_completes(kill_world):
    outcomes = [_kills.kill_after(kill_world, d) for d in _kills.delays(kill_world, 6)]
    problems = [(o.how, p) for o in outcomes for p in o.problems]
    assert not problems, problems


def test_the_store_in_the_command_line(small, tmp_path, monkeypatch, capsys):
    from opsapi import cli

    monkeypatch.setenv("OPSAPI_BASE_URL", small.base_url)
    monkeypatch.setenv("OPSAPI_PUBLIC_KEY", small.public_key)
    monkeypatch.setenv("OPSAPI_PRIVATE_KEY", small.private_key)
    monkeypatch.delenv("OPSAPI_CA_FILE", raising=False)
    path = str(tmp_path / "store")
    args = ["sync", path, "--kind", "host", "--kind", "disk", "--granularity", "PT1H",
            "--window", "P1D"]  # fmt: skip
    assert cli.main(args) == 0
    err = capsys.readouterr().err
    n = len(targets_of(small, ("host", "disk")))
    assert f"synced {n} targets: {n} new, 0 updated, 0 unchanged, 0 failed" in err
    assert cli.main([*args, "--output", "json"]) == 0
    out = capsys.readouterr().out
    import json

    report = json.loads(out)
    assert report["data_requests"] == 0 and len(report["unchanged"]) == n
    assert cli.main(["store", "info", path]) == 0
    info = capsys.readouterr().out
    assert re.search(r"^disk\s+PT1H\s+\d+\s+\d+", info, re.M), info
    assert cli.main(["-o", "json", "store", "info", path]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["kind"] for r in rows} == {"host", "disk"}
    assert sum(r["targets"] for r in rows) == n


def _readme_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## The measurement store")[1].split("\n## ")[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_readme_store_examples_run(tmp_path, monkeypatch):
    """The README's weekly job, DuckDB and Dask over the same store, as written."""
    pytest.importorskip("duckdb", reason="the README reads the store with DuckDB")
    pytest.importorskip("dask", reason="the README reads the store with Dask")
    blocks = _readme_blocks()
    assert len(blocks) >= 2
    monkeypatch.chdir(tmp_path)
    with Simulator(seed=0, projects=1, hosts_per_project=3, now=FIXED_NOW) as sim:
        monkeypatch.setenv("OPSAPI_BASE_URL", sim.base_url)
        monkeypatch.setenv("OPSAPI_PUBLIC_KEY", sim.public_key)
        monkeypatch.setenv("OPSAPI_PRIVATE_KEY", sim.private_key)
        monkeypatch.delenv("OPSAPI_CA_FILE", raising=False)
        monkeypatch.setenv("OPSAPI_PROGRESS", "0")
        scope: dict[str, object] = {}
        for block in blocks:
            exec(compile(block, "README.md", "exec"), scope)  # noqa: S102 (the README's code)
        store = opsapi.Store("fleet-store")
        assert store.targets().height > 0


def test_async_twin_waits_without_blocking_the_loop(small, tmp_path):
    async def main() -> None:
        client = small.async_client()
        store = opsapi.Store(tmp_path / "store")
        a, b = await asyncio.gather(
            client.measurements.sync(store, kind="host", granularity="PT1H", window="P1D",
                                     progress=False),
            client.measurements.sync(store, kind="host", granularity="PT1H", window="P1D",
                                     progress=False),
        )  # fmt: skip
        # One ran after the other (the lock): together, each target new once.
        assert sorted(a.new + b.new) == sorted(targets_of(small, ("host",)))
        assert sorted(a.unchanged + b.unchanged) == sorted(targets_of(small, ("host",)))

    asyncio.run(main())
