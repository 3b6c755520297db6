"""The measurement store's promises to readers and against a hostile world, from Python
(issue 31, failures 1, 3, 4 and 6): readers in other processes through compacting syncs, a
LazyFrame taken before a sync and collected after it, a store inside a hive-partitioned data
lake, a damaged file named by ``scan()``, ``check()`` and ``opsapi store check``, a server
clock a year ahead. (The Rust side: tests/it/store_integrity.rs.)"""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime, timedelta, timezone

import polars as pl
import pytest

import opsapi
from opsapi.testing import Simulator

sys.path.insert(0, os.path.dirname(__file__))
from _readers import Readers  # noqa: E402

FIXED_NOW = datetime(2026, 3, 2, 10, 0, tzinfo=timezone.utc)
KINDS = ("host", "disk")
OPTIONS = {"kind": KINDS, "granularity": "PT1H", "window": "P2D", "progress": False}
KEYS = ["group_id", "host_id", "partition_name", "database_name", "measurement", "timestamp"]
# The syncs readers go through: 50 in `make test`; `make test-stress` sets more.
SYNCS = int(os.environ.get("OPSAPI_STORE_READER_SYNCS", "50"))


@pytest.fixture
def world():
    with Simulator(seed=0, projects=1, hosts_per_project=2, now=FIXED_NOW) as s:
        yield s


def canonical(df: pl.DataFrame) -> pl.DataFrame:
    keys = [c for c in df.columns if df[c].dtype == pl.Categorical]
    return df.with_columns(pl.col(keys).cast(pl.String)).sort(KEYS, nulls_last=True)


def held(store: opsapi.Store, kind: str = "disk") -> pl.DataFrame:
    return canonical(store.scan(kind=kind, granularity="PT1H").collect())


@pytest.mark.timeout(600)
def test_readers_in_other_processes_never_fail_through_compacting_syncs(world, tmp_path):
    store = opsapi.Store(tmp_path / "store")
    client = world.client()
    client.measurements.sync(store, **OPTIONS)
    compacted = 0
    with Readers(2, tmp_path / "store", KINDS, tmp_path / "readers") as readers:
        for _ in range(SYNCS):
            world.advance(3600)
            report = client.measurements.sync(store, **OPTIONS)
            compacted += report.files_removed > 0
        result = readers.stop()
    assert result.errors == [], [e["error"] for e in result.errors[:3]]
    assert result.scans >= 2
    # The syncs did replace files under the readers: compactions, and the window's moves.
    assert compacted >= SYNCS // 4, compacted


def test_a_lazyframe_taken_before_syncs_reads_its_snapshot_when_collected_after(world, tmp_path):
    store = opsapi.Store(tmp_path / "store")
    client = world.client()
    client.measurements.sync(store, **OPTIONS)
    world.advance(3600)
    client.measurements.sync(store, **OPTIONS)
    before = held(store)
    lazy = store.scan(kind="disk", granularity="PT1H")
    removed = 0
    for _ in range(4):
        world.advance(3600)
        removed += client.measurements.sync(store, **OPTIONS).files_removed
    assert removed > 0  # files it lists were replaced
    assert canonical(lazy.collect()).equals(before)
    assert held(store).height > before.height
    # Once vacuumed (no reader left), the old snapshot's replaced files are gone.
    assert store.vacuum() == removed
    with pytest.raises(Exception):  # noqa: B017 (polars' own error: the file is gone)
        lazy.collect()


@pytest.mark.parametrize("lake", ["lake/team=ops/ds=2026-01-01", "lake/kind=x/host_id=y"])
def test_a_store_inside_a_hive_partitioned_lake_is_read_below_its_folder(world, tmp_path, lake):
    store = opsapi.Store(tmp_path / lake / "store")
    plain = opsapi.Store(tmp_path / "plain")
    client = world.client()
    client.measurements.sync(store, **OPTIONS)
    client.measurements.sync(plain, **OPTIONS)
    for kind in KINDS:
        assert held(store, kind).equals(held(plain, kind)), kind
    host = world.world()["hosts"][0]["id"]
    one = store.scan(kind="disk", granularity="PT1H").filter(pl.col("host_id") == host).collect()
    assert one.height > 0 and set(one["host_id"].cast(pl.String)) == {host}


def test_a_damaged_file_is_named_by_scan_check_and_the_command_line(
    world, tmp_path, monkeypatch, capsys
):
    from opsapi import cli

    path = tmp_path / "store"
    store = opsapi.Store(path)
    client = world.client()
    client.measurements.sync(store, **OPTIONS)
    whole = held(store)
    # March's file of a partition (one that starts the window comes back with its first
    # point's value, where the first request had a rate series' null).
    bad = sorted(f for f in store.files(kind="disk", granularity="PT1H") if ".2026-03." in f)[0]
    size = os.path.getsize(bad)
    with open(bad, "r+b") as f:
        f.truncate(size // 2)
    with pytest.raises(opsapi.StoreFileError) as e:
        store.scan(kind="disk", granularity="PT1H")
    assert e.value.path == bad and "truncated" in str(e.value)
    check = store.check()
    assert not check.ok and check.files > 1
    want = f"truncated: {size // 2} bytes, the manifest records {size}"
    assert check.problems.rows() == [(bad, want)]

    assert cli.main(["store", "check", str(path)]) == 7
    out, err = capsys.readouterr()
    assert bad in out and "1 missing or damaged" in err
    assert cli.main(["-o", "json", "store", "check", str(path)]) == 7
    assert [r["path"] for r in json.loads(capsys.readouterr().out)] == [bad]

    report = client.measurements.sync(store, **OPTIONS)
    assert report.gaps == []
    assert any(w.startswith(bad) for w in report.warnings), report.warnings
    assert store.check().ok
    assert held(store).equals(whole)
    assert cli.main(["store", "check", str(path)]) == 0
    assert "every one whole" in capsys.readouterr().err


def test_a_server_clock_a_year_ahead_is_a_warning_and_removes_nothing(world, tmp_path):
    store = opsapi.Store(tmp_path / "store")
    client = world.client()
    client.measurements.sync(store, **OPTIONS)
    points = store.targets()["points"].sum()
    world.advance(3600)
    ahead = datetime.now(timezone.utc) + timedelta(days=365) - world.now
    world.set_date_skew(ahead)
    report = client.measurements.sync(store, **OPTIONS)
    assert report.files_removed == 0
    assert any("ahead of this machine's" in w for w in report.warnings), report.warnings
    assert "1 warning" in repr(report)
    assert store.targets()["points"].sum() > points
    world.set_date_skew(0)
    world.advance(3600)
    again = client.measurements.sync(store, **OPTIONS)
    assert again.warnings == [] and len(again.updated) == len(again.new + again.updated)
    assert len(again.updated) == store.targets().height
