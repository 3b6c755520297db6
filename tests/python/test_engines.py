"""Past one machine: the hive-partitioned Parquet of fleet pulls in real engines (DuckDB,
polars, Dask on a 2-worker LocalCluster), and the sharded pull `opsapi.dask.fleet_to_parquet`
against the simulator, which runs in this process on 127.0.0.1."""

from __future__ import annotations

import datetime as dt
import pickle
import re
import shutil

import pytest

pytest.importorskip("opsapi._native", reason="the compiled opsapi package is not installed")
pl = pytest.importorskip("polars")

import opsapi  # noqa: E402
from opsapi.testing import Simulator  # noqa: E402

WINDOW = {"granularity": "PT1H", "period": "P7D"}
DISK_METRICS = ["DISK_PARTITION_SPACE_USED", "DISK_PARTITION_SPACE_FREE"]
HOST_METRICS = ["CONNECTIONS", "SYSTEM_NORMALIZED_CPU_USER"]
KEYS = ["group_id", "host_id", "partition_name", "measurement", "timestamp"]


@pytest.fixture(scope="module")
def esim(fixed_now):
    """The simulator every pull of this module asks, on the suite's fixed clock: "the last
    seven days" is the same window for the reference pull, the Dask pull and the fleet frame,
    whenever each runs."""
    with Simulator(seed=3, projects=2, hosts_per_project=4, now=fixed_now) as s:
        yield s


@pytest.fixture(scope="module")
def targets(esim):
    c = esim.client()
    hosts = [(g, h.id) for g in esim.group_ids for h in c.hosts.list(g)]
    disks = [(g, h, p) for g, h in hosts for p in c.hosts.partitions(g, h)]
    return hosts, disks


@pytest.fixture(scope="module")
def pulled(esim, targets, tmp_path_factory):
    """One single-process pull of each kind into the same folder (the reference)."""
    hosts, disks = targets
    root = tmp_path_factory.mktemp("single")
    c = esim.client()
    c.measurements.fleet_to_parquet(hosts, root, metrics=HOST_METRICS, progress=False, **WINDOW)
    c.measurements.fleet_to_parquet(disks, root, metrics=DISK_METRICS, progress=False, **WINDOW)
    return root


def files(root) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.parquet"))


def read_all(root, name: str) -> pl.DataFrame:
    frame = pl.read_parquet(root / "**" / name, hive_partitioning=True)
    return frame.sort([k for k in KEYS if k in frame.columns])


def test_fleet_to_parquet_binding_matches_fleet(esim, targets, pulled, fixed_now) -> None:
    hosts, _ = targets
    frame = esim.client().measurements.fleet(hosts, metrics=HOST_METRICS, progress=False, **WINDOW)
    on_disk = read_all(pulled, "host.parquet").select(frame.columns)
    expected = frame.sort([k for k in KEYS if k in frame.columns])
    assert on_disk.height == expected.height == len(hosts) * len(HOST_METRICS) * (7 * 24 + 1)
    assert on_disk.cast(expected.schema).equals(expected)
    # The window both pulls asked for: the seven days up to the fixed clock, hour by hour.
    stamps = on_disk.get_column("timestamp").unique().sort().to_list()
    assert stamps == [fixed_now - dt.timedelta(hours=n) for n in range(7 * 24, -1, -1)]


def test_fleet_to_parquet_argument_errors_before_any_request(esim, targets, tmp_path) -> None:
    hosts, _ = targets
    c = esim.client()
    esim.clear_requests()
    with pytest.raises(opsapi.InvalidArgumentError, match="path"):
        c.measurements.fleet_to_parquet(hosts, "", **WINDOW)
    with pytest.raises(opsapi.InvalidArgumentError, match="granularity"):
        c.measurements.fleet_to_parquet(hosts, tmp_path, granularity="PT2M", period="P1D")
    assert esim.requests() == []


def test_duckdb_prunes_hive_partitions(esim, targets, pulled) -> None:
    duckdb = pytest.importorskip("duckdb", reason="duckdb is not installed")
    hosts, _ = targets
    g, h = hosts[0]
    con = duckdb.connect()
    glob = str(pulled / "**" / "host.parquet")
    query = (
        f"SELECT count(*), max(value) FROM read_parquet('{glob}', hive_partitioning = true) "
        "WHERE group_id = ? AND host_id = ? AND measurement = 'CONNECTIONS'"
    )
    n, top = con.execute(query, [g, h]).fetchone()
    one = read_all(pulled, "host.parquet").filter(
        (pl.col("host_id") == h) & (pl.col("measurement").cast(pl.String) == "CONNECTIONS")
    )
    assert n == one.height > 0 and top == one.get_column("value").max()
    # Pruned: DuckDB's plan reads one file of the folder's many.
    plan = "\n".join(r[1] for r in con.execute("EXPLAIN ANALYZE " + query, [g, h]).fetchall())
    assert len(files(pulled)) > 2
    assert "Total Files Read: 1" in plan, plan


def test_polars_scan_parquet_prunes_hive_partitions(targets, pulled, tmp_path) -> None:
    hosts, _ = targets
    g, h = hosts[1]

    def scan(root):
        lf = pl.scan_parquet(root / "**" / "*.parquet", hive_partitioning=True)
        return lf.filter((pl.col("group_id") == g) & (pl.col("host_id") == h))

    one = scan(pulled)
    got = one.collect()
    mine = [f for f in files(pulled) if f.startswith(f"group_id={g}/host_id={h}/")]
    assert set(got.get_column("host_id")) == {h}
    assert got.height == sum(pl.read_parquet(pulled / f).height for f in mine) > 0
    assert 0 < len(mine) < len(files(pulled))
    # Pruned on the path, whatever the polars version: in a copy of the folder where every
    # other host's file is not Parquet at all (but the first, which gives the schema), the
    # filtered scan reads only this host's files, and a scan of everything fails.
    spoiled = tmp_path / "spoiled"
    shutil.copytree(pulled, spoiled)
    for f in files(spoiled)[1:]:
        if f not in mine:
            (spoiled / f).write_bytes(b"not parquet")
    with pytest.raises(pl.exceptions.ComputeError):
        pl.scan_parquet(spoiled / "**" / "*.parquet", hive_partitioning=True).collect()
    assert scan(spoiled).collect().equals(got)
    plan = one.explain()
    scanned = re.search(r"Parquet SCAN \[([^,\]]*)(?:, \.\.\. (\d+) other sources)?\]", plan)
    assert scanned, plan
    if int(pl.__version__.split(".")[0]) < 2:
        # polars 1.x plans a scan of every source and prunes while reading: the filter on the
        # hive columns is the scan's own SELECTION (pushed down), not a FILTER above it.
        assert 1 + int(scanned.group(2) or 0) == len(files(pulled)), plan
        assert "SELECTION" in plan and "FILTER" not in plan, plan
    else:
        # The optimized plan scans only that host's files of the folder's many.
        assert f"group_id={g}/host_id={h}/" in scanned.group(1), plan
        assert 1 + int(scanned.group(2) or 0) == len(mine), plan


# ---- Dask ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dask_client():
    pytest.importorskip("dask.dataframe", reason="dask[dataframe] is not installed")
    distributed = pytest.importorskip("distributed", reason="distributed is not installed")
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=40,
        ) as cluster,
        distributed.Client(cluster) as dc,
    ):
        yield dc


def test_dask_reads_the_pull_per_host_p95_and_disk_growth(dask_client, pulled) -> None:
    import dask.dataframe as dd

    # Pruned on the hive columns (one Dask partition per file read), filtered on the data.
    h = read_all(pulled, "host.parquet").get_column("host_id")[0]
    one = dd.read_parquet(
        str(pulled), dataset={"partitioning": "hive"}, filters=[("host_id", "==", h)]
    )
    mine = [f for f in files(pulled) if f"/host_id={h}/" in f]
    assert one.npartitions == len(mine) < len(files(pulled))
    assert set(one["host_id"].compute().astype(str)) == {h}
    ddf = dd.read_parquet(str(pulled), dataset={"partitioning": "hive"})
    ddf = ddf[ddf["measurement"] == "CONNECTIONS"]
    p95 = (
        ddf[["host_id", "value"]]
        .groupby("host_id")["value"]
        .apply(lambda s: s.quantile(0.95), meta=("value", "f8"))
        .compute()
        .sort_index()
    )
    expected = (
        read_all(pulled, "host.parquet")
        .filter(pl.col("measurement").cast(pl.String) == "CONNECTIONS")
        .group_by("host_id")
        .agg(pl.col("value").quantile(0.95, interpolation="linear"))
        .sort("host_id")
    )
    assert list(p95.index) == expected.get_column("host_id").to_list()
    assert p95.to_list() == pytest.approx(expected.get_column("value").to_list())

    used = dd.read_parquet(str(pulled), dataset={"partitioning": "hive"})
    used = used[used["measurement"] == "DISK_PARTITION_SPACE_USED"]
    growth = (
        used.groupby(["host_id", "partition_name"])["value"]
        .agg(["min", "max"])
        .compute()
        .assign(growth=lambda d: d["max"] - d["min"])
    )
    # The reference: polars on the same files, per host and partition.
    reference = (
        read_all(pulled, "disk-*.parquet")
        .filter(pl.col("measurement").cast(pl.String) == "DISK_PARTITION_SPACE_USED")
        .group_by("host_id", "partition_name")
        .agg(pl.col("value").min().alias("min"), pl.col("value").max().alias("max"))
        .with_columns(growth=pl.col("max") - pl.col("min"))
    )
    expected = {
        (str(r["host_id"]), str(r["partition_name"])): (r["min"], r["max"], r["growth"])
        for r in reference.iter_rows(named=True)
    }
    got = {(str(h), str(p)): (r["min"], r["max"], r["growth"]) for (h, p), r in growth.iterrows()}
    assert got.keys() == expected.keys() and len(got) > 2
    for key, values in expected.items():
        assert got[key] == pytest.approx(values), key
    assert sum(g > 0 for _, _, g in expected.values()) > 0  # some disks do grow over the week


def test_sharded_pull_on_dask_writes_the_same_rows(dask_client, esim, targets, pulled, tmp_path):
    from opsapi import dask as odask

    hosts, disks = targets
    options = {
        "base_url": esim.base_url,
        "public_key": esim.public_key,
        "private_key": esim.private_key,
    }
    from distributed import get_task_stream

    workers = set(dask_client.scheduler_info()["workers"])
    assert len(workers) == 2
    esim.clear_requests()
    for kind, t, metrics in (("host", hosts, HOST_METRICS), ("disk", disks, DISK_METRICS)):
        with get_task_stream(client=dask_client) as stream:
            assert (
                odask.fleet_to_parquet(
                    t,
                    tmp_path,
                    client_options=options,
                    dask_client=dask_client,
                    kind=kind,
                    metrics=metrics,
                    **WINDOW,
                )
                is None
            )
        # Both workers pulled: the scheduler's record of where each shard's task ran.
        shards = [task for task in stream.data if "-shard-" in str(task["key"])]
        assert len(shards) > 2 and all(task["status"] == "OK" for task in shards), kind
        assert {task["worker"] for task in shards} == workers, kind
    assert files(tmp_path) == files(pulled)
    for name in ("host.parquet", "disk-*.parquet"):
        assert read_all(tmp_path, name).equals(read_all(pulled, name))
    # The workers did the pulling: one measurements request per target, from two processes
    # (each worker's own client), none from this one.
    measurement_requests = [
        r for r in esim.requests() if r["authorized"] and "/measurements" in r["path"]
    ]
    assert len(measurement_requests) == len(hosts) + len(disks)
    # The plugin is gone with the pull: a worker that joins later gets no key.
    info = dask_client.run(lambda dask_worker: sorted(dask_worker.plugins))
    assert all(not any(n.startswith("opsapi") for n in names) for names in info.values())


def test_dask_credentials_stay_out_of_task_reprs(dask_client, esim, targets, tmp_path) -> None:
    from opsapi import dask as odask

    hosts, _ = targets
    secret = esim.private_key
    seen: list[str] = []
    original = dask_client.submit

    def spy(fn, *args, **kwargs):
        seen.append(repr((fn, args, kwargs)))
        seen.append(repr(pickle.dumps(args)))
        return original(fn, *args, **kwargs)

    dask_client.submit = spy
    try:
        odask.fleet_to_parquet(
            hosts[:3],
            tmp_path,
            client_options={
                "base_url": esim.base_url,
                "public_key": esim.public_key,
                "private_key": secret,
            },
            dask_client=dask_client,
            metrics=HOST_METRICS,
            **WINDOW,
        )
    finally:
        del dask_client.submit
    assert seen and all(secret not in s for s in seen)
    plugin = odask._plugin_class()({"private_key": odask._Secret(secret), "base_url": "x"})
    assert secret not in repr(plugin) and secret not in repr(odask._Secret(secret))


def test_dask_argument_errors_before_any_task(dask_client, esim, targets, tmp_path) -> None:
    from opsapi import dask as odask

    hosts, disks = targets
    good = {"base_url": esim.base_url, "public_key": esim.public_key, "private_key": "k"}
    esim.clear_requests()
    with pytest.raises(opsapi.InvalidArgumentError, match="targets\\[0\\]"):
        odask.fleet_to_parquet(
            disks, tmp_path, client_options=good, dask_client=dask_client, kind="host", **WINDOW
        )
    with pytest.raises(opsapi.InvalidArgumentError, match="private_key"):
        odask.fleet_to_parquet(
            hosts, tmp_path, client_options={"base_url": esim.base_url}, dask_client=dask_client,
            **WINDOW,
        )  # fmt: skip
    with pytest.raises(opsapi.InvalidArgumentError, match="granularity"):
        odask.fleet_to_parquet(
            hosts, tmp_path, client_options=good, dask_client=dask_client,
            granularity="PT2M", period="P1D",
        )  # fmt: skip
    assert esim.requests() == []


def test_dask_keep_going_returns_the_failures(dask_client, esim, targets, tmp_path) -> None:
    from opsapi import dask as odask

    hosts, _ = targets
    g = hosts[0][0]
    bad = [*hosts[:2], (g, "0123456789abcdef01234567")]
    failures = odask.fleet_to_parquet(
        bad,
        tmp_path,
        client_options={
            "base_url": esim.base_url,
            "public_key": esim.public_key,
            "private_key": esim.private_key,
        },
        dask_client=dask_client,
        keep_going=True,
        shards=3,
        metrics=HOST_METRICS,
        **WINDOW,
    )
    assert failures.select("host_id", "status").rows() == [("0123456789abcdef01234567", 404)]
    assert len(files(tmp_path)) == 2
    with pytest.raises(opsapi.NotFoundError):
        odask.fleet_to_parquet(
            bad,
            tmp_path / "strict",
            client_options={
                "base_url": esim.base_url,
                "public_key": esim.public_key,
                "private_key": esim.private_key,
            },
            dask_client=dask_client,
            metrics=HOST_METRICS,
            **WINDOW,
        )
