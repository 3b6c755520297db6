"""``opsapi sync PATH``, ``opsapi store info PATH`` and ``opsapi store check PATH``: the
measurement store from the command line (``opsapi.Store``, ``client.measurements.sync``): a
progress bar on a terminal, a one-screen summary on stderr (``--output json``: the report on
stdout), what a store holds, and every file checked whole (exit 7 names the bad ones). Two
commands of the table, :data:`SYNC` and :data:`STORE` (its subcommands: ``info``, ``check``)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, TextIO

from ._base import (
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_PARTIAL,
    Command,
    Failure,
    Parser,
    client,
    common,
    error_text,
    format_option,
    output_format,
    project_ids,
    project_option,
    writable_folder,
    write_json,
    write_records,
)
from ._table import Column, number, plural, size, when

KINDS = ("host", "disk", "database")
# What the summary lists of the failures, at most (the rest are counted).
SHOW_FAILED = 10


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
        f"  {number(report.requests)} requests ({number(report.data_requests)} for data), "
        f"{plural(report.points_added, 'point')} added, {size(report.bytes_written)} written, "
        f"{report.seconds:.1f} s",
        file=err,
    )
    for key, error in list(failed.items())[:SHOW_FAILED]:
        print(f"error: {' '.join(key)}: {error_text(error)}", file=err)
    if len(failed) > SHOW_FAILED:
        print(f"  ... and {len(failed) - SHOW_FAILED} more failed", file=err)
    for gap in report.gaps:
        print(
            f"gap: {' '.join(gap['target'])} {gap['granularity']} {when(gap['first'])} to "
            f"{when(gap['last'])}: {plural(gap['points'], 'point')} lost (the server no longer "
            "has them)",
            file=err,
        )
    for warning in report.warnings:
        print(f"warning: {warning}", file=err)


def _run_sync(args: argparse.Namespace, out: TextIO) -> int:
    import opsapi

    fmt = output_format(args, formats=("table", "json"))
    writable_folder(args.path, "PATH")
    c = client(args)
    report = c.measurements.sync(
        opsapi.Store(args.path),
        kind=tuple(args.kinds or KINDS),
        granularity=args.granularity,
        window=args.window,
        metrics=args.metrics,
        projects=project_ids(c, args.projects),
        wait=not args.no_wait,
    )
    if fmt == "json":
        write_json(report.to_dict(), out)
    _summary(report, sys.stderr)
    return EXIT_PARTIAL if report.failed else EXIT_OK


# `store info`: one row per kind and granularity.
_INFO = [
    Column("kind", "Kind", keep=9),
    Column("granularity", "Every", keep=8),
    Column("targets", "Targets", fmt=number, keep=7, right=True),
    Column("seen", "Seen", fmt=number, keep=1, right=True),
    Column("points", "Points", fmt=number, keep=6, right=True),
    Column("files", "Files", fmt=number, keep=2, right=True),
    Column("bytes", "Size", fmt=size, keep=5, right=True),
    Column("first", "From (UTC)", fmt=when, keep=4),
    Column("last", "To (UTC)", fmt=when, keep=4),
    Column("last_sync", "Last sync (UTC)", fmt=when, keep=3),
]


def _info_rows(store: Any) -> list[dict[str, Any]]:
    """One row per kind and granularity: targets (and how many discovery still sees), points,
    files, bytes, the first and last point, the last sync."""
    import polars as pl

    t = store.targets()
    if t.height == 0:
        return []
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
    return by.select([c.key for c in _INFO]).to_dicts()


# `store check`: one row per bad file.
_CHECK = [
    Column("path", "File", keep=2, wrap=True, breaks="/"),
    Column("problem", "Problem", keep=1, wrap=True),
]


def _store_at(path: str) -> Any:
    """The store at ``path``; none there (no folder, or no manifest in it) is exit 3."""
    import opsapi

    if not os.path.isdir(path):
        raise Failure(f"{path}: no such folder, so no measurement store (opsapi sync {path} "
                      "makes one)", code=EXIT_NOT_FOUND)  # fmt: skip
    if not os.path.exists(os.path.join(path, "MANIFEST.json")):
        raise Failure(f"{path}: not a measurement store (no MANIFEST.json; opsapi sync "
                      f"{path} makes one)", code=EXIT_NOT_FOUND)  # fmt: skip
    return opsapi.Store(path)


def _run_store(args: argparse.Namespace, out: TextIO) -> int:
    fmt = output_format(args)
    store = _store_at(args.path)
    if args.command == "check":
        return _check(store, fmt, out)
    rows = _info_rows(store)
    points = sum(r["points"] or 0 for r in rows)
    count = f"{plural(points, 'point')} in {args.path}"
    write_records(_INFO, rows, fmt, out, count=count)
    return EXIT_OK


def _check(store: Any, fmt: str, out: TextIO) -> int:
    """Every live file read whole (``store.check()``): the bad ones, a summary on stderr;
    exit 7 when one is bad."""
    check = store.check()
    rows = check.problems.to_dicts()
    checked = f"checked {plural(check.files, 'file')} ({size(check.bytes)})"
    if rows:
        count = f"{checked}: {len(rows)} missing or damaged (the next sync drops them and asks "
        count += "the server again)"
    else:
        count = f"{checked}: every one whole"
    write_records(_CHECK, rows, fmt, out, count=count)
    if fmt != "table":  # the count goes to stderr with the table only
        print(count, file=sys.stderr)
    return EXIT_PARTIAL if rows else EXIT_OK


def _sync_arguments(sync: argparse.ArgumentParser) -> None:
    """``opsapi sync PATH``."""
    sync.description = (
        "Discovers every project, host, partition and database the key can see "
        "(or those of --project) and asks each only what the store at PATH does not hold yet. "
        "A progress bar on a terminal; a summary on stderr; exit 7 when some targets failed "
        "(asked again by the next sync)."
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
    project_option(sync)
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
    format_option(sync, ("table", "json"))
    common(sync)


def _store_arguments(store: argparse.ArgumentParser) -> None:
    """``opsapi store info PATH`` and ``opsapi store check PATH``."""
    s = store.add_subparsers(dest="command", required=True, parser_class=Parser)
    info = s.add_parser("info", help="targets, points, files and bytes per kind and granularity")
    info.add_argument("path", metavar="PATH", help="the store's folder")
    check = s.add_parser(
        "check",
        help="read every file whole: present, size, checksum, Parquet, rows; exit 7 if one is bad",
    )
    check.add_argument("path", metavar="PATH", help="the store's folder")
    for sp in (info, check):
        format_option(sp)
        common(sp)


SYNC = Command(arguments=_sync_arguments, run=_run_sync)
STORE = Command(arguments=_store_arguments, run=_run_store)
