"""``opsapi measurements``: host, disk, database and fleet measurements to stdout, CSV or
Parquet."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Optional, TextIO

from ._base import (
    _FORMATS,
    _WINDOW_HELP,
    EXIT_OK,
    _client,
    _common,
    _Parser,
    _UsageError,
    _write_json,
    _write_table,
)


def _measurements_target(args: argparse.Namespace) -> tuple[str, Optional[str]]:
    """``(kind, path)``: kind is csv/json/table (stdout, path None), or csv/parquet/dir."""
    target = getattr(args, "output", None) or "-"
    if target in ("-", *_FORMATS):
        return ("csv" if target == "-" else target), None
    lower = target.lower()
    if lower.endswith(".csv"):
        return "csv", target
    if lower.endswith((".parquet", ".pq")):
        return "parquet", target
    if args.command == "fleet" and not os.path.splitext(target.rstrip("/\\"))[1]:
        if args.shape != "long":
            raise _UsageError("--shape wide: a Parquet folder holds the long shape only")
        return "dir", target
    allowed = "a folder, " if args.command == "fleet" else ""
    raise _UsageError(
        f"--output: {target!r} is none of csv, json, table, '-', {allowed}"
        "a file name ending in .csv or .parquet"
    )


def _fleet_targets(client: Any, args: argparse.Namespace) -> list[tuple[str, ...]]:
    projects = args.projects or [g.id for g in client.groups.list()]
    hosts = [(g, h.id) for g in projects for h in client.hosts.list(g)]
    if not args.disks:
        return list(hosts)
    return [(g, h, p) for g, h in hosts for p in client.hosts.partitions(g, h)]


def _write_frame(frame: Any, kind: str, path: Optional[str], out: TextIO) -> None:
    if path is None:
        if kind == "json":
            _write_json(frame.to_dicts(), out)
        elif kind == "table":
            _write_table(frame, out)
        else:
            out.write(frame.write_csv())
        return
    if kind == "csv":
        frame.write_csv(path)
    else:
        frame.write_parquet(path)
    print(f"wrote {frame.height} rows to {path}", file=sys.stderr)


def _cmd_measurements(args: argparse.Namespace, out: TextIO) -> int:
    kind, path = _measurements_target(args)
    client = _client(args)
    window: dict[str, Any] = {
        "granularity": args.granularity,
        "period": args.period,
        "start": args.start,
        "end": args.end,
        "metrics": args.metrics,
    }
    if args.command == "fleet":
        targets = _fleet_targets(client, args)
        if not targets:
            raise _UsageError("no " + ("disk partitions" if args.disks else "hosts") + " found")
        if kind == "dir":
            assert path is not None
            client.measurements.fleet_to_parquet(targets, path, **window)
            print(f"wrote {len(targets)} targets to {path}", file=sys.stderr)
            return EXIT_OK
        frame = client.measurements.fleet(targets, shape=args.shape, **window)
    else:
        if args.command == "host":
            result = client.measurements.host(args.group_id, args.host_id, **window)
        elif args.command == "database":
            result = client.measurements.database(
                args.group_id, args.host_id, args.database_name, **window
            )
        else:
            result = client.measurements.disk(
                args.group_id, args.host_id, args.partition_name, **window
            )
        frame = result.to_polars(shape=args.shape)
    _write_frame(frame, kind, path, out)
    return EXIT_OK


def add_parser(top: Any) -> None:
    """``opsapi measurements host|disk|database|fleet``."""
    meas = top.add_parser("measurements", help="host and disk measurements to CSV or Parquet")
    m = meas.add_subparsers(dest="command", required=True, parser_class=_Parser)
    host = m.add_parser("host", help="measurements of a host")
    host.add_argument("group_id")
    host.add_argument("host_id")
    disk = m.add_parser("disk", help="measurements of a disk partition")
    disk.add_argument("group_id")
    disk.add_argument("host_id")
    disk.add_argument("partition_name")
    db = m.add_parser("database", help="measurements of a database")
    db.add_argument("group_id")
    db.add_argument("host_id")
    db.add_argument("database_name")
    fleet = m.add_parser(
        "fleet",
        help="measurements of every host (or disk partition) of projects, fetched concurrently",
    )
    fleet.add_argument(
        "--project",
        dest="projects",
        action="append",
        metavar="GROUP_ID",
        help="repeat for several (default: every project the key can see)",
    )
    fleet.add_argument(
        "--disks", action="store_true", help="every disk partition instead of every host"
    )
    for sp in (host, disk, db, fleet):
        sp.add_argument("--granularity", required=True, help=_WINDOW_HELP["granularity"])
        sp.add_argument("--period", help=_WINDOW_HELP["period"])
        sp.add_argument("--start", help="ISO 8601 instant (with --end)")
        sp.add_argument("--end", help="ISO 8601 instant (with --start)")
        sp.add_argument(
            "--metric",
            dest="metrics",
            action="append",
            metavar="M",
            help="measurement name; repeat for several (default: all)",
        )
        sp.add_argument("--shape", choices=["long", "wide"], default="long")
        sp.add_argument(
            "--output",
            "-o",
            default=argparse.SUPPRESS,
            metavar="FORMAT|FILE",
            help="csv (default, also '-'), json or table to stdout; or file.csv, file.parquet"
            + (", or a folder for hive-partitioned Parquet" if sp is fleet else ""),
        )
        _common(sp)
