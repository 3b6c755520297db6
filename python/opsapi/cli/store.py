"""``opsapi sync PATH``, ``opsapi store info PATH`` and ``opsapi store check PATH``: the
measurement store from the command line (``opsapi.Store``, ``client.measurements.sync``): a
progress bar on a terminal, a one-screen summary on stderr (``--output json``: the report on
stdout), what a store holds, and every file checked whole (exit 7 when one is not)."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from ._base import (
    EXIT_OK,
    EXIT_PARTIAL,
    _client,
    _common,
    _error_text,
    _format,
    _format_option,
    _Parser,
    _write_json,
    _write_records,
)

KINDS = ("host", "disk", "database")
# What the summary lists of the failures, at most (the rest are counted).
SHOW_FAILED = 10


def _human_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "kB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{n} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{n} B"


def _summary(report: Any, err: TextIO) -> None:
    """The one screen: counts, requests, points, bytes, time, and the first failures."""
    failed = report.failed
    targets = len(report.new) + len(report.updated) + len(report.unchanged)
    targets += sum(1 for k in failed if k[0] != "listing")
    print(
        f"synced {targets} targets: {len(report.new)} new, {len(report.updated)} updated, "
        f"{len(report.unchanged)} unchanged, {len(failed)} failed, "
        f"{len(report.no_longer_seen)} no longer seen",
        file=err,
    )
    print(
        f"  {report.requests} requests ({report.data_requests} for data), "
        f"{report.points_added} points added, {_human_bytes(report.bytes_written)} written, "
        f"{report.seconds:.1f} s",
        file=err,
    )
    for key, error in list(failed.items())[:SHOW_FAILED]:
        print(f"error: {' '.join(key)}: {_error_text(error)}", file=err)
    if len(failed) > SHOW_FAILED:
        print(f"  ... and {len(failed) - SHOW_FAILED} more failed", file=err)
    for gap in report.gaps:
        print(
            f"gap: {' '.join(gap['target'])} {gap['granularity']} {gap['first']:%Y-%m-%d %H:%M} "
            f"to {gap['last']:%Y-%m-%d %H:%M}: {gap['points']} points lost (the server no "
            "longer has them)",
            file=err,
        )
    for warning in report.warnings:
        print(f"warning: {warning}", file=err)


def _cmd_sync(args: argparse.Namespace, out: TextIO) -> int:
    import opsapi

    fmt = _format(args, formats=("table", "json"))
    client = _client(args)
    report = client.measurements.sync(
        opsapi.Store(args.path),
        kind=tuple(args.kinds or KINDS),
        granularity=args.granularity,
        window=args.window,
        metrics=args.metrics,
        projects=args.projects,
        wait=not args.no_wait,
    )
    if fmt == "json":
        _write_json(report.to_dict(), out)
    _summary(report, sys.stderr)
    return EXIT_PARTIAL if report.failed else EXIT_OK


def _info_rows(store: Any) -> tuple[list[str], list[list[Any]]]:
    """One row per kind and granularity: targets (and how many discovery still sees), points,
    files, bytes, the first and last point, the last sync."""
    import polars as pl

    header = ["kind", "granularity", "targets", "seen", "points", "files", "bytes", "first",
              "last", "last_sync"]  # fmt: skip
    t = store.targets()
    if t.height == 0:
        return header, []
    by = (
        t.with_columns(pl.col("kind", "granularity").cast(pl.String))
        .group_by("kind", "granularity")
        .agg(
            pl.len().alias("targets"),
            pl.col("seen").sum(),
            pl.col("points").sum(),
            pl.col("files").sum(),
            pl.col("bytes").sum(),
            pl.col("first").min(),
            pl.col("last").max(),
            pl.col("last_sync").max(),
        )
        .sort("kind", "granularity")
    )
    return header, [list(r) for r in by.select(header).iter_rows()]


def _cmd_store(args: argparse.Namespace, out: TextIO) -> int:
    import opsapi

    if args.command == "check":
        return _cmd_check(args, out)
    fmt = _format(args)
    header, rows = _info_rows(opsapi.Store(args.path))
    _write_records(header, rows, fmt, out)
    return EXIT_OK


def _cmd_check(args: argparse.Namespace, out: TextIO) -> int:
    """Every live file read whole; the bad ones on stdout, a summary on stderr; exit 7 when
    one is bad."""
    import opsapi

    fmt = _format(args)
    check = opsapi.Store(args.path).check()
    rows = [list(r) for r in check.problems.iter_rows()]
    _write_records(["path", "problem"], rows, fmt, out)
    size = _human_bytes(check.bytes)
    if check.ok:
        print(f"checked {check.files} files ({size}): every one whole", file=sys.stderr)
        return EXIT_OK
    print(
        f"checked {check.files} files ({size}): {len(rows)} missing or damaged (the next sync "
        "drops them and asks the server again)",
        file=sys.stderr,
    )
    return EXIT_PARTIAL


def add_parser(top: Any) -> None:
    """``opsapi sync PATH`` and ``opsapi store info PATH``."""
    sync = top.add_parser(
        "sync",
        help="sync a measurement store: only what is new since the last sync",
        description="Discovers every project, host, partition and database the key can see "
        "(or those of --project) and asks each only what the store at PATH does not hold yet. "
        "A progress bar on a terminal; a summary on stderr; exit 7 when some targets failed "
        "(asked again by the next sync).",
    )
    sync.add_argument("path", metavar="PATH", help="the store's folder (created on first use)")
    sync.add_argument(
        "--kind",
        dest="kinds",
        action="append",
        choices=KINDS,
        help="repeat for several (default: host, disk and database)",
    )
    sync.add_argument("--granularity", default="PT1H", help="ISO 8601 duration (default PT1H)")
    sync.add_argument(
        "--window",
        default="P35D",
        help="how far back the store keeps data, in days or hours (default P35D)",
    )
    sync.add_argument(
        "--project",
        dest="projects",
        action="append",
        metavar="GROUP_ID",
        help="repeat for several (default: every project the key can see)",
    )
    sync.add_argument(
        "--metric",
        dest="metrics",
        action="append",
        metavar="M",
        help="measurement name, with a single --kind; repeat for several (default: all)",
    )
    sync.add_argument(
        "--no-wait",
        action="store_true",
        help="fail at once when another sync holds the store (default: wait for it)",
    )
    _format_option(sync, ("table", "json"))
    _common(sync)

    store = top.add_parser("store", help="what a measurement store holds")
    s = store.add_subparsers(dest="command", required=True, parser_class=_Parser)
    info = s.add_parser("info", help="targets, points, files and bytes per kind and granularity")
    info.add_argument("path", metavar="PATH", help="the store's folder")
    _format_option(info)
    _common(info)
    check = s.add_parser(
        "check",
        help="read every file whole: present, size, checksum, Parquet, rows; exit 7 if one is bad",
    )
    check.add_argument("path", metavar="PATH", help="the store's folder")
    _format_option(check)
    _common(check)
