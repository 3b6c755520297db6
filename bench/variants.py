"""One benchmark variant, run in a subprocess of its own so that peak RSS does not mix.

Usage: ``python bench/variants.py VARIANT CONFIG.json``. Prints one JSON line:
``{"seconds": ..., "rss_mb": ..., "base_rss_mb": ..., "rows": ...}``. ``seconds`` covers the
call and building the final result (a polars DataFrame for measurements, a list of alerts for
global alerts), not interpreter start-up and imports; ``base_rss_mb`` is the RSS after imports.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from typing import Any, Callable


def _rss_mb() -> float:
    # Linux reports ru_maxrss in KiB.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _hwm_mb() -> float:
    """VmHWM, this process image's own peak (a cross-check: ru_maxrss also counts the parent's
    RSS at fork time, which is why the orchestrator stays small)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


# ---- measurements: one long frame -----------------------------------------------------------

LONG_SCHEMA = [
    "group_id",
    "host_id",
    "process_id",
    "partition_name",
    "measurement",
    "units",
    "timestamp",
    "value",
]


def _frame_from_columns(cols: dict[str, list[Any]]) -> Any:
    """What a user writes: column lists into polars, timestamps parsed by polars."""
    import polars as pl

    return pl.DataFrame(
        cols,
        schema={
            "group_id": pl.String,
            "host_id": pl.String,
            "process_id": pl.String,
            "partition_name": pl.String,
            "measurement": pl.String,
            "units": pl.String,
            "timestamp": pl.String,
            "value": pl.Float64,
        },
    ).with_columns(
        pl.col("timestamp").str.to_datetime("%Y-%m-%dT%H:%M:%SZ", time_unit="ms", time_zone="UTC")
    )


def _empty_columns() -> dict[str, list[Any]]:
    return {k: [] for k in LONG_SCHEMA}


def fleet_opsapi_sync(cfg: dict[str, Any]) -> Callable[[], Any]:
    import opsapi

    client = opsapi.Client(cfg["base_url"], cfg["public_key"], cfg["private_key"], timeout=120)
    targets = [tuple(t) for t in cfg["targets"]]

    def run() -> Any:
        return client.measurements.fleet(
            targets,
            granularity=cfg["granularity"],
            start=cfg["start"],
            end=cfg["end"],
            metrics=cfg["metrics"],
            progress=False,
        )

    return run


def fleet_opsapi_async(cfg: dict[str, Any]) -> Callable[[], Any]:
    import asyncio

    import opsapi

    targets = [tuple(t) for t in cfg["targets"]]

    async def pull() -> Any:
        client = opsapi.AsyncClient(
            cfg["base_url"], cfg["public_key"], cfg["private_key"], timeout=120
        )
        return await client.measurements.fleet(
            targets,
            granularity=cfg["granularity"],
            start=cfg["start"],
            end=cfg["end"],
            metrics=cfg["metrics"],
            progress=False,
        )

    return lambda: asyncio.run(pull())


def fleet_opsmanager(cfg: dict[str, Any]) -> Callable[[], Any]:
    from opsmanager import OpsManagerClient

    # rate_limit=0 switches its limiter off (its README: "Disable entirely"); the default is
    # 2 requests per second, which alone would make 100 calls take 50 s.
    client = OpsManagerClient(
        base_url=cfg["base_url"],
        public_key=cfg["public_key"],
        private_key=cfg["private_key"],
        rate_limit=0,
        timeout=120.0,
    )

    def run() -> Any:
        results = []
        for group_id, host_id in cfg["targets"]:
            # The README's call, with typed results (its default, as_obj=True).
            results.append(
                client.measurements.host(
                    project_id=group_id,
                    host_id=host_id,
                    granularity=cfg["granularity"],
                    period=None,
                    start=cfg["start"],
                    end=cfg["end"],
                    metrics=cfg["metrics"],
                )
            )
        cols = _empty_columns()
        for pm in results:
            for m in pm.measurements:
                n = len(m.data_points)
                cols["group_id"] += [pm.group_id] * n
                cols["host_id"] += [pm.host_id] * n
                cols["process_id"] += [pm.process_id] * n
                cols["partition_name"] += [None] * n
                cols["measurement"] += [m.name] * n
                cols["units"] += [m.units] * n
                cols["timestamp"] += [dp.timestamp for dp in m.data_points]
                cols["value"] += [dp.value for dp in m.data_points]
        return _frame_from_columns(cols)

    return run


def fleet_requests(cfg: dict[str, Any]) -> Callable[[], Any]:
    import json as jsonlib

    import requests
    from requests.auth import HTTPDigestAuth

    session = requests.Session()
    session.auth = HTTPDigestAuth(cfg["public_key"], cfg["private_key"])
    api = cfg["base_url"].rstrip("/") + "/api/public/v1.0"

    def run() -> Any:
        cols = _empty_columns()
        for group_id, host_id in cfg["targets"]:
            r = session.get(
                f"{api}/groups/{group_id}/hosts/{host_id}/measurements",
                params={
                    "granularity": cfg["granularity"],
                    "start": cfg["start"],
                    "end": cfg["end"],
                    "m": cfg["metrics"],
                },
                timeout=120,
            )
            r.raise_for_status()
            data = jsonlib.loads(r.content)
            for m in data["measurements"]:
                points = m["dataPoints"]
                n = len(points)
                cols["group_id"] += [data["groupId"]] * n
                cols["host_id"] += [data["hostId"]] * n
                cols["process_id"] += [data.get("processId")] * n
                cols["partition_name"] += [None] * n
                cols["measurement"] += [m["name"]] * n
                cols["units"] += [m["units"]] * n
                cols["timestamp"] += [p["timestamp"] for p in points]
                cols["value"] += [p["value"] for p in points]
        return _frame_from_columns(cols)

    return run


def fleet_floor(cfg: dict[str, Any]) -> Callable[[], Any]:
    """The same requests, over max_concurrency keep-alive connections, signed with one shared
    Digest challenge (N calls, N+1 requests); bodies read and discarded."""
    from concurrent.futures import ThreadPoolExecutor
    from urllib.parse import urlencode, urlsplit

    from rawdigest import RawDigestPool

    base = urlsplit(cfg["base_url"])
    pool = RawDigestPool(
        base.hostname, base.port, cfg["public_key"], cfg["private_key"], cfg["concurrency"]
    )
    query = urlencode(
        [("granularity", cfg["granularity"]), ("start", cfg["start"]), ("end", cfg["end"])]
        + [("m", m) for m in cfg["metrics"]]
    )
    paths = [
        f"/api/public/v1.0/groups/{g}/hosts/{h}/measurements?{query}" for g, h in cfg["targets"]
    ]
    executor = ThreadPoolExecutor(cfg["concurrency"])

    def run() -> Any:
        pool.prime(paths[0])
        return sum(executor.map(pool.get_len, paths))

    return run


def fleet_memory_floor(cfg: dict[str, Any]) -> Callable[[], Any]:
    """Writing a frame's bytes (``cfg["frame_bytes"]``, opsapi's frame size) into fresh memory
    on 2 threads, with nothing else: what any client that hands over this frame pays on top
    of the network, in the kernel's page faults and the first write of each page."""
    import ctypes
    import mmap
    from concurrent.futures import ThreadPoolExecutor

    size = int(cfg["frame_bytes"])
    executor = ThreadPoolExecutor(2)

    def run() -> Any:
        # An anonymous mapping, not touched yet: every page is faulted in by the writes below.
        buf = mmap.mmap(-1, size)
        base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
        half = size // 2
        # ctypes calls release the GIL: the two halves are written in parallel.
        parts = [(base, half), (base + half, size - half)]
        list(executor.map(lambda p: ctypes.memset(p[0], 1, p[1]), parts))
        return size

    return run


# ---- scaling and rate limits (issue 14) -------------------------------------------------------


def _fleet_call(cfg: dict[str, Any], client: Any, targets: list, **extra: Any) -> Any:
    return client.measurements.fleet(
        targets,
        granularity=cfg["granularity"],
        start=cfg["start"],
        end=cfg["end"],
        metrics=cfg["metrics"],
        progress=False,
        **extra,
    )


def scale_memory(cfg: dict[str, Any]) -> Callable[[], Any]:
    """The fleet pull of the first ``cfg["n_hosts"]`` targets into one frame."""
    import opsapi

    client = opsapi.Client(cfg["base_url"], cfg["public_key"], cfg["private_key"], timeout=120)
    targets = [tuple(t) for t in cfg["targets"][: cfg["n_hosts"]]]
    return lambda: _fleet_call(cfg, client, targets)


def scale_parquet(cfg: dict[str, Any]) -> Callable[[], Any]:
    """The same pull written to hive-partitioned Parquet (``fleet_to_parquet``) in a fresh
    folder (removed at exit); the result names the folder, whose rows are counted after the
    timing."""
    import atexit
    import shutil
    import tempfile
    import types

    import opsapi

    client = opsapi.Client(cfg["base_url"], cfg["public_key"], cfg["private_key"], timeout=120)
    targets = [tuple(t) for t in cfg["targets"][: cfg["n_hosts"]]]
    root = tempfile.mkdtemp(prefix="opsapi-bench-", dir=cfg.get("tmp"))
    atexit.register(shutil.rmtree, root, True)

    def run() -> Any:
        client.measurements.fleet_to_parquet(
            targets,
            root,
            granularity=cfg["granularity"],
            start=cfg["start"],
            end=cfg["end"],
            metrics=cfg["metrics"],
            progress=False,
        )
        return types.SimpleNamespace(parquet=root)

    return run


def ratelimit_learned(cfg: dict[str, Any]) -> Callable[[], Any]:
    """A fleet pull against a server that limits each project: the pace learned from its
    429s."""
    import opsapi

    client = opsapi.Client(cfg["base_url"], cfg["public_key"], cfg["private_key"], timeout=120)
    targets = [tuple(t) for t in cfg["targets"]]
    return lambda: _fleet_call(cfg, client, targets, keep_going=True)


def ratelimit_client(cfg: dict[str, Any]) -> Callable[[], Any]:
    """The same pull with the client's own opt-in limit at the server's rate."""
    import opsapi

    client = opsapi.Client(
        cfg["base_url"],
        cfg["public_key"],
        cfg["private_key"],
        timeout=120,
        rate_limit=cfg["rate_limit"],
    )
    targets = [tuple(t) for t in cfg["targets"]]
    return lambda: _fleet_call(cfg, client, targets, keep_going=True)


# ---- global alerts ----------------------------------------------------------------------------


def alerts_opsapi_list(cfg: dict[str, Any]) -> Callable[[], Any]:
    import opsapi

    client = opsapi.Client(cfg["base_url"], cfg["public_key"], cfg["private_key"], timeout=120)
    return lambda: client.global_alerts.list()


def alerts_opsapi_iter(cfg: dict[str, Any]) -> Callable[[], Any]:
    import opsapi

    client = opsapi.Client(cfg["base_url"], cfg["public_key"], cfg["private_key"], timeout=120)
    return lambda: list(client.global_alerts.iter())


def alerts_floor(cfg: dict[str, Any]) -> Callable[[], Any]:
    """Every page of the listing over max_concurrency keep-alive connections, signed with one
    shared Digest challenge; bodies read and discarded (the page count comes from the first
    page's ``totalCount``, as any concurrent pager learns it)."""
    import re
    from concurrent.futures import ThreadPoolExecutor
    from urllib.parse import urlsplit

    from rawdigest import RawDigestPool

    base = urlsplit(cfg["base_url"])
    pool = RawDigestPool(
        base.hostname, base.port, cfg["public_key"], cfg["private_key"], cfg["concurrency"]
    )
    per = cfg["page_size"]
    path = "/api/public/v1.0/globalAlerts?itemsPerPage={}&pageNum={}"
    executor = ThreadPoolExecutor(cfg["concurrency"])

    def run() -> Any:
        pool.prime(path.format(per, 1))
        first = pool.get(path.format(per, 1))
        found = re.search(rb'"totalCount"\s*:\s*(\d+)', first)
        assert found, "no totalCount in the first page"
        total = int(found.group(1))
        pages = [path.format(per, p) for p in range(2, -(-total // per) + 1)]
        return len(first) + sum(executor.map(pool.get_len, pages))

    return run


def alerts_opsmanager(cfg: dict[str, Any]) -> Callable[[], Any]:
    from opsmanager import OpsManagerClient

    client = OpsManagerClient(
        base_url=cfg["base_url"],
        public_key=cfg["public_key"],
        private_key=cfg["private_key"],
        rate_limit=0,
        timeout=120.0,
    )
    # 500 per page, the API's maximum, as opsapi uses (its default is 100).
    return lambda: client.global_alerts.list(items_per_page=cfg["page_size"])


def alerts_requests(cfg: dict[str, Any]) -> Callable[[], Any]:
    import json as jsonlib

    import requests
    from requests.auth import HTTPDigestAuth

    session = requests.Session()
    session.auth = HTTPDigestAuth(cfg["public_key"], cfg["private_key"])
    url = cfg["base_url"].rstrip("/") + "/api/public/v1.0/globalAlerts"

    def run() -> Any:
        items: list[Any] = []
        page = 1
        while True:
            r = session.get(
                url, params={"pageNum": page, "itemsPerPage": cfg["page_size"]}, timeout=120
            )
            r.raise_for_status()
            data = jsonlib.loads(r.content)
            items += data["results"]
            if len(items) >= data["totalCount"] or not data["results"]:
                return items
            page += 1

    return run


VARIANTS: dict[str, Callable[[dict[str, Any]], Callable[[], Any]]] = {
    "fleet_opsapi_sync": fleet_opsapi_sync,
    "fleet_opsapi_async": fleet_opsapi_async,
    "fleet_opsmanager": fleet_opsmanager,
    "fleet_requests": fleet_requests,
    "fleet_floor": fleet_floor,
    "fleet_memory_floor": fleet_memory_floor,
    "scale_memory": scale_memory,
    "scale_parquet": scale_parquet,
    "ratelimit_learned": ratelimit_learned,
    "ratelimit_client": ratelimit_client,
    "alerts_floor": alerts_floor,
    "alerts_opsapi_list": alerts_opsapi_list,
    "alerts_opsapi_iter": alerts_opsapi_iter,
    "alerts_opsmanager": alerts_opsmanager,
    "alerts_requests": alerts_requests,
}


def _physical_bytes(result: Any) -> int | None:
    """The bytes a frame's columns occupy as laid out: a 16-byte view per string, 8 bytes per
    number, a validity bit per row where there are nulls (``estimated_size()`` also counts
    the length of every string each view points at, far more than is stored)."""
    if not hasattr(result, "get_columns"):
        return None
    import polars as pl

    total = 0
    for col in result.get_columns():
        if col.dtype == pl.String:
            width = 16
        elif col.dtype == pl.Categorical:
            width = 4  # a u32 category id per row; the categories are shared by the process
        else:
            width = 8
        total += len(col) * width
        total += -(-len(col) // 8) if col.null_count() else 0
    return total


def _rows(result: Any) -> int:
    if isinstance(result, int):  # the floor: bytes read
        return 0
    if hasattr(result, "parquet"):  # rows written, from the files' metadata
        import polars as pl

        files = f"{result.parquet}/**/*.parquet"
        return int(pl.scan_parquet(files, hive_partitioning=True).select(pl.len()).collect()[0, 0])
    if hasattr(result, "height"):
        return int(result.height)
    return len(result)


def main() -> None:
    name, cfg_path = sys.argv[1], sys.argv[2]
    with open(cfg_path) as f:
        cfg = json.load(f)
    if name.startswith(("fleet_", "scale_", "ratelimit_")):
        # Every fleet variant ends in polars (or, for the floors, imports it): one baseline.
        # Listing alerts needs no polars, and a script that acknowledges alerts does not load
        # it: those variants start from their own imports alone.
        import polars  # noqa: F401

    run = VARIANTS[name](cfg)
    base_rss = _rss_mb()
    t0 = time.perf_counter()
    result = run()
    seconds = time.perf_counter() - t0
    failures = None
    if isinstance(result, tuple):  # keep_going=True: (frame, failures)
        result, failed = result
        failures = failed.height
    out = {
        "failures": failures,
        "seconds": seconds,
        "rss_mb": _rss_mb(),
        "base_rss_mb": base_rss,
        "hwm_mb": _hwm_mb(),
        "rows": _rows(result),
        # Bytes read (floors), or the frame's size.
        "bytes": result if isinstance(result, int) else _physical_bytes(result),
    }
    if cfg.get("dump") and hasattr(result, "write_parquet"):
        result.write_parquet(cfg["dump"])
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
