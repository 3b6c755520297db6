"""``opsapi alerts show ID [--project ID] [--context] [--chart out.html]``: one alert (global,
or of a project), and with ``--context`` its metric around it as a sparkline per series (a
small table with ``-o csv``, everything with ``-o json``), its threshold, the reading of what
may say why, the window's top slow queries and the deployment's events, what is missing and
why, and the chart written as HTML. What a person reads fits 100 columns (or the terminal, if
narrower)."""

from __future__ import annotations

import argparse
import math
from datetime import datetime
from typing import Any, Optional, TextIO

from ._base import (
    CHARTS,
    EXIT_NOT_FOUND,
    Failure,
    UsageError,
    csv_cell,
    project_ids,
    writable_file,
    write_json,
)
from ._table import Column, number, render, terminal_width, text, when, write_table
from .alert_list import alert_error, value_text

# Eight heights, low to high; a gap (a null point) is a space.
_BARS = "▁▂▃▄▅▆▇█"
# A sparkline is at most this many characters: longer series are averaged into buckets.
SPARK_WIDTH = 60
# The widest the context is printed, whatever the terminal (a pipe included).
WIDTH = 100
# The slow-query shapes and events printed (-o json: all).
TOP = 5


def show_arguments(sh: argparse.ArgumentParser) -> None:
    """The ``show`` subcommand of ``opsapi alerts``."""
    sh.add_argument("alert_id", metavar="ALERT_ID", help="the alert, by id")
    sh.add_argument("--project", metavar="PROJECT", help="a project alert of this project, by "
                    "name or id (default: a global alert)")  # fmt: skip
    sh.add_argument("--context", action="store_true",
                    help="the alert's metric on its host around it, and its threshold")  # fmt: skip
    sh.add_argument("--before", metavar="DURATION", help="context before it opened (PT2H)")
    sh.add_argument("--after", metavar="DURATION", help="context after it closed (PT1H)")
    sh.add_argument("--granularity", metavar="DURATION",
                    help="of the context (default: the finest the window allows)")  # fmt: skip
    sh.add_argument("--chart", metavar="FILE", help="write the context's chart here (.html; "
                    "needs the charts extra: pip install 'opsapi[charts]')")  # fmt: skip


def sparkline(values: list[Optional[float]], width: int = SPARK_WIDTH) -> str:
    """The values as a line of bars, scaled from their minimum to their maximum; a null point
    is a space; more than ``width`` points are averaged into ``width`` buckets.

    >>> sparkline([1, 2, 3, None, 8])
    '▁▂▃ █'
    """
    if len(values) > width:
        size = len(values) / width
        buckets = [values[math.floor(i * size) : math.floor((i + 1) * size)] for i in range(width)]
        values = [
            (sum(x for x in b if x is not None) / n)
            if (n := sum(x is not None for x in b))
            else None
            for b in buckets
        ]
    known = [v for v in values if v is not None]
    if not known:
        return " " * len(values)
    lo, hi = min(known), max(known)
    top = len(_BARS) - 1
    return "".join(
        " " if v is None else _BARS[0 if hi == lo else round((v - lo) / (hi - lo) * top)]
        for v in values
    )


def _series(ctx: Any) -> list[tuple[str, list[Optional[float]]]]:
    """(name, values) of each series of the context's frame, in time order."""
    import polars as pl

    frame = ctx.frame.with_columns(pl.col(c).cast(pl.String) for c in ("measurement",
                                   "partition_name", "database_name"))  # fmt: skip
    out = []
    for key, part in frame.sort("timestamp").group_by(
        ["measurement", "partition_name", "database_name"], maintain_order=True
    ):
        name = " ".join(str(k) for k in key if k is not None)
        out.append((name, part["value"].to_list()))
    return sorted(out)


def _summary(ctx: Any) -> dict[str, Any]:
    return {
        "kind": ctx.kind,
        "measurement": ctx.measurement,
        "granularity": ctx.granularity,
        "start": ctx.start,
        "end": ctx.end,
        "threshold": ctx.threshold,
        "threshold_units": ctx.threshold_units,
        "hosts": [
            {
                "id": h.id,
                "hostname_and_port": f"{h.hostname}:{h.port}",
                "replica_state_name": h.replica_state_name,
            }  # fmt: skip
            for h in ctx.hosts
        ],
        "note": ctx.note,
        "reading": ctx.reading,
        "missing": ctx.missing,
    }


def show(client: Any, args: argparse.Namespace, fmt: str, out: TextIO) -> None:
    """Prints the alert (and its context with ``--context``); writes ``--chart``."""
    wants_context = args.context or args.chart is not None
    if not wants_context and any(
        getattr(args, k) is not None for k in ("before", "after", "granularity")
    ):
        raise UsageError("--before, --after and --granularity are options of --context")
    if args.chart is not None:
        writable_file(args.chart, "--chart")
    import opsapi

    project = None
    if args.project is not None:
        (project,) = project_ids(client, [args.project])
    try:
        if project is not None:
            alert = client.alerts.get(project, args.alert_id)
        else:
            alert = client.global_alerts.get(args.alert_id)
    except opsapi.NotFoundError as e:
        raise Failure(alert_error(e, args.project), code=EXIT_NOT_FOUND) from None
    ctx = None
    if wants_context:
        try:
            ctx = client.alerts.context(
                alert, before=args.before, after=args.after, granularity=args.granularity
            )
        except opsapi.InvalidArgumentError as e:
            flag = str(e).replace("invalid argument `", "--").replace("`:", ":", 1)
            raise UsageError(flag) from None
        if args.chart is not None:
            try:
                chart = ctx.chart()
            except ImportError:
                raise UsageError(f"--chart needs Altair and vl-convert: {CHARTS}") from None
            chart.save(args.chart)
    if fmt == "json":
        doc: dict[str, Any] = {"alert": alert.to_dict()}
        if ctx is not None:
            doc["context"] = {
                **_summary(ctx),
                "points": ctx.frame.select(
                    "measurement", "partition_name", "database_name", "timestamp", "value"
                ).to_dicts(),  # fmt: skip
                "events": _records(ctx.events),
                "slow_queries": _records(ctx.slow_queries),
                "suggested_indexes": _records(ctx.suggested_indexes),
            }
        write_json(doc if ctx is not None else alert.to_dict(), out)
        return
    if fmt == "csv" and ctx is not None:
        # The small table: the context's points.
        frame = ctx.frame.select("measurement", "partition_name", "database_name",
                                 "timestamp", "value")  # fmt: skip
        out.write(frame.write_csv())
        return
    cv = alert.current_value
    metric = alert.metric_name
    fields = [
        ("id", "ID", alert.id),
        ("status", "Status", alert.status),
        ("event_type_name", "Event", alert.event_type_name),
        ("created", "Created (UTC)", alert.created),
        ("resolved", "Resolved (UTC)", alert.resolved),
        ("acknowledged_until", "Acked until (UTC)", alert.acknowledged_until),
        ("hostname_and_port", "Host", alert.hostname_and_port),
        ("replica_set_name", "Replica set", alert.replica_set_name),
        ("metric_name", "Metric", metric),
        ("current_value", "Value",
         None if cv is None else value_text(cv.number, cv.units, metric)),
    ]  # fmt: skip
    if fmt == "csv":
        import csv

        w = csv.writer(out, lineterminator="\n")
        raw = None if cv is None else f"{csv_cell(cv.number)} {cv.units or ''}".strip()
        w.writerows([k, csv_cell(raw if k == "current_value" else v)] for k, _, v in fields)
        return
    rows = [{"field": label, "value": v} for _, label, v in fields if v is not None]
    columns = [Column("field", "Field", keep=9),
               Column("value", "Value", fmt=_value, keep=9, wrap=True)]  # fmt: skip
    write_table(columns, rows, out)
    if ctx is None:
        return
    out.write("\n")
    width = min(WIDTH, terminal_width(out) or WIDTH)
    window = f"{when(ctx.start)} .. {when(ctx.end)} UTC at {ctx.granularity}"
    if ctx.note:
        out.write(f"context {window}: {ctx.note}\n")
        for h in ctx.hosts:
            out.write(f"  {h.hostname}:{h.port}  {h.replica_state_name or h.type_name or ''}\n")
    else:
        out.write(f"context {window}")
        if ctx.threshold is not None:
            out.write(f", threshold {value_text(ctx.threshold, ctx.threshold_units, metric)}")
        out.write("\n")
        for name, values in _series(ctx):
            known = [v for v in values if v is not None]
            stats = (
                f"min {number(min(known))}  max {number(max(known))}  last {number(known[-1])}"
                if known
                else "no data"
            )
            out.write(f"  {name}\n  {sparkline(values)}\n  {stats}\n")
    _why(ctx, out, width)


def _records(frame: Any) -> list[dict[str, Any]]:
    """A context's part as JSON records (identifiers as text)."""
    import polars as pl

    return frame.with_columns(pl.col(pl.Categorical).cast(pl.String)).to_dicts()


def _ms(v: Any) -> str:
    return "" if v is None else f"{number(round(v))} ms"


#: The top slow queries, as a person reads them.
_SLOW = [
    Column("namespace", "Namespace", keep=9, wrap=True, narrow=10, breaks="."),
    Column("shape", "Shape", keep=5, wrap=True, narrow=16),
    Column("count", "Count", fmt=number, keep=8, right=True),
    Column("median_ms", "Median", fmt=_ms, keep=6, right=True),
    Column("examined_per_returned", "Examined/ret.", fmt=number, keep=4, right=True),
    Column("index", "Missing index", keep=7, wrap=True, narrow=12),
]
#: The deployment's events.
_EVENTS = [
    Column("created", "When (UTC)", fmt=when, keep=9),
    Column("kind", "Kind", keep=6),
    Column("said", "What", keep=8, wrap=True, narrow=20),
]


def _why(ctx: Any, out: TextIO, width: int) -> None:
    """What may say why, within ``width``: the reading, the top slow queries, the events,
    what is missing and why."""
    import textwrap

    out.write("\n" + "\n".join(textwrap.wrap(f"Reading: {ctx.reading}", width,
                                             subsequent_indent="  ")) + "\n")  # fmt: skip
    slow = ctx.slow_queries
    if slow.height:
        shown = min(TOP, slow.height)
        out.write(f"\nSlow queries: the top {shown} of {slow.height} shapes by time\n")
        for line in render(_SLOW, slow.head(TOP).to_dicts(), width):
            out.write(f"{line}\n")
    events = ctx.events.filter(ctx.events["kind"] != "alert") if ctx.events.height else ctx.events
    if events.height:
        shown = min(TOP, events.height)
        nearest = events.with_columns(
            _d=(events["created"] - (ctx.alert.created or ctx.start)).abs()
        ).sort("_d").head(TOP).sort("created")  # fmt: skip
        head = f"the {shown} nearest the alert of {events.height}" if shown < events.height else (
            f"{events.height}")  # fmt: skip
        out.write(f"\nEvents: {head}\n")
        for line in render(_EVENTS, nearest.to_dicts(), width):
            out.write(f"{line}\n")
    for part, why in sorted(ctx.missing.items()):
        for line in textwrap.wrap(f"Missing {part}: {why}", width, subsequent_indent="  "):
            out.write(f"{line}\n")


def _value(v: Any) -> str:
    return when(v) if isinstance(v, datetime) else text(v)
