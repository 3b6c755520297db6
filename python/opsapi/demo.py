"""``python -m opsapi.demo --out out/``: the capacity report, headless, against the simulator.

Syncs 14 days of measurements of every host, partition and database into a measurement
store, ``<out>/store`` (``<out>/live-store`` with ``--live``): the first run pulls the window,
a later run only what is new since (:func:`load`). The report's frames are read from the
store. Writes the report a team lead reads to ``<out>/capacity.html``
(one file that works offline: what runs out first, the headroom table, a chart per finding,
which alerts are noise; ``opsapi.report``), the frames behind it as Parquet next to it, and
prints what the sync did and the summary. The analyst's notebook
(``notebooks/capacity.ipynb``) calls the same functions, with its code.

Needs ``altair`` and ``vl-convert-python``.

Example::

    $ python -m opsapi.demo --out out/
    $ python -m opsapi.demo --history 63d   # ranges from a backtest of past forecasts
    $ python -m opsapi.demo --live          # OPSAPI_* kept: the report of a real deployment
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Union

if TYPE_CHECKING:
    from opsapi.report import ReportData

_CREDENTIALS = ("OPSAPI_BASE_URL", "OPSAPI_PUBLIC_KEY", "OPSAPI_PRIVATE_KEY", "OPSAPI_CA_FILE")
# The simulator's clock for the demo: the same report whenever it runs.
DEMO_NOW = datetime(2026, 3, 2, 10, tzinfo=timezone.utc)
GRANULARITY = "PT1H"
KINDS = ("host", "disk", "database")


def _metrics() -> dict[str, list[str]]:
    """What the report reads of each kind. The store holds every measurement (the notebook,
    which syncs the same store, reads more of them)."""
    from opsapi import capacity

    return {
        "host": list(capacity.HEADROOM_HOST_METRICS),
        "disk": list(capacity.HEADROOM_DISK_METRICS),
        "database": [capacity.STORAGE_SIZE, capacity.INDEX_SIZE],
    }


def load(
    live: bool,
    window: str = "14d",
    store: Union[str, os.PathLike[str]] = "out/store",
    history: Optional[str] = None,
) -> ReportData:
    """Everything the report reads, in one place: a real deployment's (``OPSAPI_*``) with
    ``live``, else the built-in simulator's (seed 0, on a fixed clock).

    The measurements go through the measurement store at ``store``: one sync asks every host,
    partition and database only what the store does not hold yet of the last ``window``
    (the whole window the first time; nothing more on the simulator's fixed clock), then the
    frames are read from the store. The sync's report is the result's ``sync``. The store
    keeps the window it is synced with: a wider ``window`` later is not filled in backwards
    for the targets it already holds (a store of its own does that). The project alerts and
    the events that say when each was acknowledged are read from the server, and the events
    the charts mark, over the history (``capacity.window_events``: a tier change or a disk
    resize among them restarts the forecasts of the hosts it changed), and the slow queries
    behind the load findings (``capacity.finding_drivers``).

    ``history`` (longer than ``window``) syncs and reads that much: the report still fits on
    ``window`` and backtests its forecasts on the rest, so that each date's range comes from
    how wrong past forecasts were, and says how close they came (``"63d"``: about 25 s more
    on the simulator, 3.3 million points)."""
    import polars as pl

    import opsapi
    from opsapi import capacity
    from opsapi._duration import parse_duration
    from opsapi.report import ReportData
    from opsapi.testing import Simulator

    span = parse_duration(window)
    if history is not None:
        span = max(span, parse_duration(history))
    metrics = _metrics()
    sim = None if live else Simulator(seed=0, now=DEMO_NOW)
    try:
        client = opsapi.Client.from_env() if sim is None else sim.client()
        names = {g.id: g.name for g in client.groups.list()}
        hosts = [h for g in names for h in client.hosts.list(g)]
        clusters = [c for g in names for c in client.clusters.list(g)]
        synced = client.measurements.sync(
            opsapi.Store(store), kind=KINDS, granularity=GRANULARITY, window=span,
            projects=list(names),
        )  # fmt: skip
        now = DEMO_NOW if sim is not None else client.server_time
        alerts = client.alerts.list_all(groups=list(names)).to_polars()
        per_project = [client.events.list(g).to_polars() for g in names]
        events = pl.concat(per_project, how="diagonal_relaxed") if per_project else None
        start = now - parse_duration(window)
        marked = capacity.window_events(client, list(names), start=now - span, end=now,
                                        clusters=clusters)  # fmt: skip
        frames = _read(opsapi.Store(store), metrics, [h.id for h in hosts], now - span, now)
        drivers = _drivers(client, frames, hosts, names, clusters, window, start, now,
                           marked.frame)  # fmt: skip
    finally:
        if sim is not None:
            sim.close()
    return ReportData(
        frames["host"], frames["disk"], hosts, names, window,
        now=None if live else DEMO_NOW, db_frame=frames["database"],
        alerts=alerts, alert_events=events, sync=synced, clusters=clusters, events=marked,
        drivers=drivers,
    )  # fmt: skip


def _drivers(client: Any, frames: dict[str, Any], hosts: Any, names: dict[str, str],
             clusters: Any, window: str, start: datetime, now: datetime,
             events: Any) -> Any:  # fmt: skip
    """The slow queries behind the load findings: the headroom's flagged rows decide which
    hosts' Performance Advisors are asked (one request each)."""
    import polars as pl

    from opsapi import capacity

    h = capacity.headroom(frames["host"], frames["disk"], hosts, window=window, now=now,
                          clusters=clusters, events=events)  # fmt: skip
    rows = capacity.deployment_rows(h, names).filter(
        pl.col("status").is_in(["critical", "warning", "watch"])
    )
    topo = capacity.topology(hosts, clusters)
    return capacity.finding_drivers(client, rows, topo, start=start, end=now)


def _read(
    store: Any, metrics: dict[str, list[str]], host_ids: list[str], since: datetime, until: datetime
) -> dict[str, Any]:
    """The long frame of each kind as the report reads it, from the store: the hosts of
    today's projects (the store keeps those it no longer sees), the measurements the report
    reads, the points of the window; by host (in the listing's order), partition or
    database, measurement and time, whatever order the store's files are in."""
    import polars as pl

    out = {}
    for kind in KINDS:
        key = {"disk": "partition_name", "database": "database_name"}.get(kind)
        frame = (
            store.scan(kind=kind, granularity=GRANULARITY)
            .filter(
                pl.col("host_id").cast(pl.String).is_in(host_ids),
                pl.col("measurement").cast(pl.String).is_in(metrics[kind]),
                pl.col("timestamp").is_between(since, until),
            )
            .collect()
        )
        order = [
            pl.col("host_id")
            .cast(pl.String)
            .replace_strict({h: i for i, h in enumerate(host_ids)}, return_dtype=pl.Int64)
        ]
        order += [pl.col(key).cast(pl.String)] if key else []
        order += [pl.col("measurement").cast(pl.String), "timestamp"]
        out[kind] = frame.sort(order)
    return out


def _n(count: int) -> str:
    return f"{count:,}".replace(",", " ")


def sync_text(report: Any) -> str:
    """What a sync did, in one line: its targets by what became of them, and its requests
    (those for data apart: none when the store already held everything).

    >>> class Report:
    ...     new, updated, unchanged, failed = [], [], [("host", "g", "h")] * 1204, {}
    ...     requests, data_requests, points_added = 4, 0, 0
    >>> print(*sync_text(Report()).split("; "), sep=";\\n")
    synced 1 204 targets: 0 new, 0 updated, 1 204 unchanged, 0 failed;
    0 requests for data (4 in all), 0 points added
    """
    failed = [k for k in report.failed if k[0] != "listing"]
    targets = len(report.new) + len(report.updated) + len(report.unchanged) + len(failed)
    listing = len(report.failed) - len(failed)
    return (
        f"synced {_n(targets)} targets: {_n(len(report.new))} new, "
        f"{_n(len(report.updated))} updated, {_n(len(report.unchanged))} unchanged, "
        f"{_n(len(failed))} failed{f' ({listing} listings failed)' if listing else ''}; "
        f"{_n(report.data_requests)} requests for data ({_n(report.requests)} in all), "
        f"{_n(report.points_added)} points added"
    )


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the demo; returns the exit code (0 on success, 2 when a dependency is missing)."""
    p = argparse.ArgumentParser(prog="python -m opsapi.demo", description=__doc__.splitlines()[0])
    p.add_argument("--out", default="out", help="output directory (default: out)")
    p.add_argument(
        "--live", action="store_true", help="keep OPSAPI_* (default: the built-in simulator)"
    )
    p.add_argument("--window", default="14d", help="how far back (default 14d)")
    p.add_argument(
        "--history",
        default=None,
        help="sync and read this much (more than --window) to backtest the forecasts' ranges, "
        "e.g. 63d",
    )
    args = p.parse_args(list(argv) if argv is not None else None)
    try:
        import altair  # noqa: F401
        import vl_convert  # noqa: F401
    except ImportError as e:
        print(f"error: {e.name} is missing: pip install 'opsapi[charts]'", file=sys.stderr)
        return 2
    from opsapi import report as _report

    if not args.live:  # the simulator, whatever credentials the shell holds
        for name in _CREDENTIALS:
            os.environ.pop(name, None)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    # A real deployment's store apart from the simulator's: neither holds the other's hosts.
    store = out / ("live-store" if args.live else "store")
    print("loading measurements ...", file=sys.stderr, flush=True)
    data = load(args.live, args.window, store, args.history)
    print(f"{sync_text(data.sync)} (store: {store})")
    report = out / "capacity.html"
    report.write_text(_report.render(data), encoding="utf-8")
    for name, frame in data.frames.items():
        frame.write_parquet(out / f"{name}.parquet")
    print(f"report: {report}")
    for line in data.frames["summary"]["summary"]:
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
