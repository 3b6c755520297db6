"""``opsapi measurements host|disk|database|fleet``: measurements to stdout (a table on a
terminal, CSV into a pipe; or JSON), or to a CSV or Parquet file, or (fleet) a folder of
hive-partitioned Parquet."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Optional, TextIO

from ._base import (
    EXIT_OK,
    FORMATS,
    WINDOW_HELP,
    Command,
    Parser,
    UsageError,
    client,
    common,
    project_ids,
    project_option,
    writable_file,
    writable_folder,
    write_json,
)
from ._table import Column, number, plural, when, write_table

# The long shape's columns as a person reads them (ids left out first: -o csv has them all).
_LONG = [
    Column("measurement", "Measurement", keep=9),
    Column("timestamp", "Time (UTC)", fmt=when, keep=8),
    Column("value", "Value", fmt=number, keep=9, right=True),
    Column("units", "Units", keep=7),
    Column("partition_name", "Partition", keep=5),
    Column("database_name", "Database", keep=5),
    Column("process_id", "Process", keep=4),
    Column("host_id", "Host id", keep=1),
    Column("group_id", "Project id", keep=0),
]


def _is_terminal(out: TextIO) -> bool:
    try:
        return bool(out.isatty())
    except (AttributeError, ValueError):
        return False


def _measurements_target(args: argparse.Namespace, out: TextIO) -> tuple[str, Optional[str]]:
    """``(kind, path)``: kind is csv/json/table (stdout, path None), or csv/parquet/dir. With
    no ``--output``: a table when stdout is a terminal, else CSV (what a pipe wants)."""
    target = getattr(args, "output", None)
    if target is None:
        return ("table" if _is_terminal(out) else "csv"), None
    if target in ("-", *FORMATS):
        return ("csv" if target == "-" else target), None
    lower = target.lower()
    if lower.endswith(".csv"):
        writable_file(target, "--output")
        return "csv", target
    if lower.endswith((".parquet", ".pq")):
        writable_file(target, "--output")
        return "parquet", target
    if args.command == "fleet" and not os.path.splitext(target.rstrip("/\\"))[1]:
        if args.shape != "long":
            raise UsageError("--shape wide: a Parquet folder holds the long shape only")
        writable_folder(target, "--output")
        return "dir", target
    allowed = "a folder, " if args.command == "fleet" else ""
    raise UsageError(
        f"--output: {target!r} is none of csv, json, table, '-', {allowed}"
        "a file name ending in .csv or .parquet"
    )


def _fleet_targets(c: Any, args: argparse.Namespace) -> list[tuple[str, ...]]:
    projects = project_ids(c, args.projects) or [g.id for g in c.groups.list()]
    hosts = [(g, h.id) for g in projects for h in c.hosts.list(g)]
    if not args.disks:
        return list(hosts)
    return [(g, h, p) for g, h in hosts for p in c.hosts.partitions(g, h)]


def _write_table(frame: Any, out: TextIO) -> None:
    """The long shape in its human columns; the wide one as it is (a column per metric)."""
    if "measurement" in frame.columns:
        columns = [c for c in _LONG if c.key in frame.columns]
    else:  # the metrics that do not fit are left out, the later first
        columns = [Column("timestamp", "Time (UTC)", fmt=when, keep=9)] + [
            Column(c, c, fmt=number, keep=-i, right=True)
            for i, c in enumerate(frame.columns)
            if c != "timestamp"
        ]
    write_table(columns, frame.to_dicts(), out, count=plural(frame.height, "point"))


def _write_frame(frame: Any, kind: str, path: Optional[str], out: TextIO) -> None:
    if path is None:
        if kind == "json":
            write_json(frame.to_dicts(), out)
        elif kind == "table":
            _write_table(frame, out)
        else:
            out.write(frame.write_csv())
        return
    if kind == "csv":
        frame.write_csv(path)
    else:
        frame.write_parquet(path)
    print(f"wrote {plural(frame.height, 'row')} to {path}", file=sys.stderr)


def _run(args: argparse.Namespace, out: TextIO) -> int:
    kind, path = _measurements_target(args, out)
    c = client(args)
    window: dict[str, Any] = {
        "granularity": args.granularity,
        "period": args.period,
        "start": args.start,
        "end": args.end,
        "metrics": args.metrics,
    }
    if args.command == "fleet":
        targets = _fleet_targets(c, args)
        if not targets:
            raise UsageError("no " + ("disk partitions" if args.disks else "hosts") + " found")
        if kind == "dir":
            assert path is not None
            c.measurements.fleet_to_parquet(targets, path, **window)
            print(f"wrote {plural(len(targets), 'target')} to {path}", file=sys.stderr)
            return EXIT_OK
        frame = c.measurements.fleet(targets, shape=args.shape, **window)
    else:
        (group_id,) = project_ids(c, [args.group_id], "PROJECT")
        if args.command == "host":
            result = c.measurements.host(group_id, args.host_id, **window)
        elif args.command == "database":
            result = c.measurements.database(group_id, args.host_id, args.database_name, **window)
        else:
            result = c.measurements.disk(group_id, args.host_id, args.partition_name, **window)
        frame = result.to_polars(shape=args.shape)
    _write_frame(frame, kind, path, out)
    return EXIT_OK


def _arguments(meas: argparse.ArgumentParser) -> None:
    """``opsapi measurements host|disk|database|fleet``."""
    m = meas.add_subparsers(dest="command", required=True, parser_class=Parser)
    project = {"metavar": "PROJECT", "help": "the project, by name or id"}
    host = m.add_parser("host", help="measurements of a host")
    host.add_argument("group_id", **project)
    host.add_argument("host_id", metavar="HOST_ID", help="the host's id")
    disk = m.add_parser("disk", help="measurements of a disk partition")
    disk.add_argument("group_id", **project)
    disk.add_argument("host_id", metavar="HOST_ID", help="the host's id")
    disk.add_argument("partition_name", metavar="PARTITION", help="the disk partition's name")
    db = m.add_parser("database", help="measurements of a database")
    db.add_argument("group_id", **project)
    db.add_argument("host_id", metavar="HOST_ID", help="the host's id")
    db.add_argument("database_name", metavar="DATABASE", help="the database's name")
    fleet = m.add_parser(
        "fleet",
        help="measurements of every host (or disk partition) of projects, fetched concurrently",
    )
    project_option(fleet)
    fleet.add_argument(
        "--disks", action="store_true", help="every disk partition instead of every host"
    )
    for sp in (host, disk, db, fleet):
        sp.add_argument("--granularity", required=True, help=WINDOW_HELP["granularity"])
        sp.add_argument("--period", help=WINDOW_HELP["period"])
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
            help="table (default on a terminal), csv (default into a pipe; also '-') or json "
            "to stdout; or file.csv, file.parquet"
            + (", or a folder for hive-partitioned Parquet" if sp is fleet else ""),
        )
        common(sp)


MEASUREMENTS = Command(arguments=_arguments, run=_run)
