"""``opsapi capacity``: what runs out first, where and when, fitted to the terminal (80
columns at most).

Pulls every host of the projects (``--project``, default all the key sees) over ``--window``,
runs :func:`opsapi.capacity.headroom`, and prints the summary (one sentence per deployment,
most urgent first, each date with its 80 % range) and the headroom table (one row per
deployment, the days left of each resource), coloured by urgency when stdout is a terminal
(``NO_COLOR`` turns colour off), and where the ranges come from. ``--history`` pulls more than
the window, so that the ranges come from how wrong past forecasts were on this fleet
(:func:`opsapi.capacity.backtest`). ``--output json`` prints the same as JSON, with the events
of each flagged deployment over the window that the report's charts mark (``events``:
elections, restarts, hosts down, auto-scaling, tier and disk changes) and, per project whose
events the server refused, why (``events_missing``); and the namespaces and query shapes
that take most of each CPU, cache, tickets and connections finding's host's slow-query time,
with their share (``drivers``; ``drivers_missing``: why a host's are absent); the databases
that make each disk finding's growth, with their share of it (``disk_drivers``: the database
measurements of those hosts alone; ``disk_drivers_missing``).

The measurements come from the server (:func:`_inputs`); a local measurement store plugs in
there (``--store PATH``, once the store exists), the rest of the command unchanged.

Example::

    $ opsapi capacity --window 14d
    $ opsapi capacity --window 14d --history 63d    # ranges backtested on 63 days
    $ opsapi --profile prod capacity --project Prod --output json | jq '.summary[0]'
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from typing import Any, TextIO

from ._base import (
    Command,
    UsageError,
    client,
    common,
    format_option,
    output_format,
    project_ids,
    project_option,
    write_json,
)
from ._table import terminal_width

# The help's description: what the module says, as plain text (no markup).
_DESCRIPTION = (
    "Pulls the measurements of every host of the projects (--project, default: every project "
    "the key can see) over --window, and prints what runs out first: one sentence per "
    "deployment, most urgent first, each date with its 80 % range, then the days left of each "
    "resource per deployment, coloured by urgency on a terminal (NO_COLOR turns colour off). "
    "--history pulls more than the window so that the ranges come from how wrong past "
    "forecasts were on this fleet (a backtest); without it they come from the fits' residuals. "
    "--output json prints the same as JSON."
)
WIDTH = 80
# Column heads of the table: the resources of capacity.RESOURCES (and shard_growth), short.
_HEADS = {
    "disk": "disk", "oplog_window": "oplog", "replication_lag": "lag", "cpu": "cpu",
    "cache": "cache", "connections": "conns", "tickets": "tkts", "iops": "iops",
    "disk_latency": "lat", "shard_growth": "shard",
}  # fmt: skip
_COLOURS = {"critical": "31;1", "warning": "33", "watch": "36", "ok": "32", "oversized": "34",
            "missing": "2"}  # fmt: skip


def _arguments(p: argparse.ArgumentParser) -> None:
    common(p)
    format_option(p, ("table", "json"))
    project_option(p, help="a project to look at, by name or id; repeat for more (default: "
                   "every project)")  # fmt: skip
    # The name it had before --project was everyone's: still taken, no longer shown.
    p.add_argument("--group", dest="projects", action="append", help=argparse.SUPPRESS)
    p.add_argument("--window", default="14d", metavar="DURATION", help="how far back (default 14d)")
    p.add_argument(
        "--granularity", default="PT1H", metavar="DURATION", help="ISO 8601, default PT1H"
    )
    p.add_argument(
        "--history", metavar="DURATION",
        help="pull this much (more than --window) to backtest the ranges, e.g. 63d",
    )  # fmt: skip


def _inputs(args: argparse.Namespace) -> tuple[Any, dict[str, str], Any]:
    """What ``headroom`` reads, the project names and the client: from the server (a profile
    or ``OPSAPI_*``), every argument checked first. The measurement store's reader goes here
    (``--store PATH``)."""
    import opsapi
    from opsapi import capacity
    from opsapi.capacity.headroom import check_pull

    c = client(args)
    pull = {"window": args.window, "granularity": args.granularity, "history": args.history}
    try:
        check_pull(c, **pull)
    except opsapi.InvalidArgumentError as e:
        if e.argument not in pull:
            raise
        raise UsageError(f"--{e.argument}: {str(e).split(': ', 1)[-1]}") from None
    groups = {g.id: g.name for g in c.groups.list()}
    ids = project_ids(c, args.projects) or list(groups)
    inputs = capacity.headroom_inputs(c, ids, **pull)
    for warning in inputs.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return inputs, {g: groups.get(g, g) for g in ids}, c


def _run(args: argparse.Namespace, out: TextIO) -> int:
    from opsapi import capacity

    fmt = output_format(args, formats=("table", "json"))
    inputs, names, c = _inputs(args)
    events = _events(c, inputs, names, args)
    if fmt != "json" and events is not None:
        for g, why in events.missing.items():
            print(f"warning: {names.get(g, g)}: {why}, nor restarts of its forecasts at "
                  "its tier changes and disk resizes", file=sys.stderr)  # fmt: skip
    changes = {"clusters": inputs.clusters, "events": None if events is None else events.frame}
    h = capacity.headroom(*inputs, window=args.window, **changes)
    summary = capacity.headroom_summary(h, names=names)
    table = capacity.headroom_table(h, names=names)
    sources = set(h["interval_source"].drop_nulls().to_list())
    restarted = capacity.restart_texts(h, names)
    if fmt == "json":
        bt = capacity.backtest(*inputs, window=args.window, **changes) if args.history else None
        doc = _as_json(summary, table, args.window, bt)
        doc["restarted"] = restarted
        doc.update(_events_json(c, inputs, h, names, args.window, events))
        write_json(doc, out)
        return 0
    colour = out.isatty() and not os.environ.get("NO_COLOR")
    width = min(WIDTH, terminal_width(out) or WIDTH)
    out.write(render(summary, table, colour=colour, width=width, sources=sources,
                     restarted=restarted))  # fmt: skip
    return 0


def _as_json(summary: Any, table: Any, window: str, bt: Any = None) -> dict[str, Any]:
    resources = list(_HEADS)
    return {
        "window": window,
        "interval_level": 0.8,
        "summary": summary.to_dicts(),
        "table": [
            {
                "deployment": row["deployment"],
                "resources": {
                    r: {
                        "days_left": row[r],
                        "days_low": row[f"{r}_low"],
                        "days_high": row[f"{r}_high"],
                        "status": row[f"{r}_status"],
                    }
                    for r in resources
                    if row[f"{r}_status"] is not None
                },
            }
            for row in table.iter_rows(named=True)
        ],
        "backtest": None if bt is None else bt.to_dicts(),
    }


def _events(c: Any, inputs: Any, names: dict[str, str], args: argparse.Namespace) -> Any:
    """The projects' charted events over all the history pulled (``capacity.window_events``):
    their tier changes and disk resizes restart the forecasts, and the window's are marked."""
    from opsapi import capacity
    from opsapi._duration import parse_duration

    stamps = _stamps(inputs)
    now = stamps.max()
    if now is None:
        return None
    span = max(parse_duration(args.window), parse_duration(args.history or args.window))
    return capacity.window_events(
        c, list(names), start=now - span, end=now, clusters=inputs.clusters
    )


def _stamps(inputs: Any) -> Any:
    """Every timestamp of the inputs' frames."""
    import polars as pl

    return pl.concat([inputs.host_frame.select("timestamp"),
                      inputs.disk_frame.select("timestamp")])["timestamp"]  # fmt: skip


def _events_json(c: Any, inputs: Any, h: Any, names: dict[str, str], window: str, got: Any) -> dict:
    """The events the report's charts would mark: each flagged deployment's elections,
    restarts, hosts down, auto-scaling and tier or disk changes over the window
    (``capacity.finding_events``), and why a project's are missing; the query shapes behind
    each load finding (``capacity.finding_drivers``), and why a host's are missing."""
    import polars as pl

    from opsapi import capacity
    from opsapi._duration import parse_duration

    now = _stamps(inputs).max()
    if now is None:
        return {"events": [], "events_missing": {}, "drivers": [], "drivers_missing": {},
            "disk_drivers": [], "disk_drivers_missing": {}}  # fmt: skip
    shown = got.frame.filter(pl.col("created") >= now - parse_duration(window))
    rows = capacity.deployment_rows(h, names).filter(
        pl.col("status").is_in(["critical", "warning", "watch"])
    )
    topo = capacity.topology(inputs.hosts, inputs.clusters)
    marks = capacity.finding_events(rows, shown, topo)
    drivers = capacity.finding_drivers(c, rows, topo, start=now - parse_duration(window), end=now)
    created = pl.col("created").dt.strftime("%Y-%m-%dT%H:%M:%SZ")
    growing = capacity.database_drivers(c, rows, topo, inputs.disk_frame, window=window, now=now)
    return {
        "disk_drivers": growing.frame.to_dicts(),
        "disk_drivers_missing": growing.missing,
        "events": marks.with_columns(created).to_dicts(),
        "events_missing": {names.get(g, g): why for g, why in got.missing.items()},
        "drivers": drivers.frame.to_dicts(),
        "drivers_missing": drivers.missing,
    }


def ranges_note(sources: set[str]) -> str:
    """Where the summary's ranges come from, in a sentence.

    >>> print(ranges_note({"backtest"}))
    Ranges: 80 % intervals from how wrong past forecasts were on this fleet.
    """
    if sources == {"backtest"}:
        return "Ranges: 80 % intervals from how wrong past forecasts were on this fleet."
    if "backtest" in sources:
        return (
            "Ranges: 80 % intervals from how wrong past forecasts were on this fleet, where "
            "there were enough of them; else from the fits' residuals."
        )
    return (
        "Ranges: 80 % intervals from the fits' residuals alone; --history 63d checks them "
        "against past forecasts."
    )


def _paint(text: str, status: Any, colour: bool) -> str:
    code = _COLOURS.get(status) if colour else None
    return f"\x1b[{code}m{text}\x1b[0m" if code else text


def render(
    summary: Any,
    table: Any,
    *,
    colour: bool = False,
    width: int = WIDTH,
    sources: set[str] | None = None,
    restarted: list[str] | None = None,
) -> str:
    """The summary and the headroom table as text of at most ``width`` columns, the
    deployments whose forecasts a tier change or disk resize restarted (``restarted``:
    ``capacity.restart_texts``), and where the ranges come from (``sources``: the
    headroom's ``interval_source`` values) if any.

    >>> import polars as pl
    >>> s = pl.DataFrame({"summary": ["prod · rs0: oplog window below 24 h in ~12 days"],
    ...                   "status": ["warning"]})
    >>> t = pl.DataFrame({"deployment": ["prod · rs0"], "oplog_window": [11.7],
    ...                   "oplog_window_status": ["warning"]})
    >>> print(render(s, t))  # doctest: +NORMALIZE_WHITESPACE
    What runs out first
      prod · rs0: oplog window below 24 h in ~12 days
    <BLANKLINE>
    Days left          oplog
    prod · rs0          12 d
    """
    from opsapi.capacity import cell_text

    lines = ["What runs out first"]
    for row in summary.iter_rows(named=True):
        wrapped = textwrap.wrap(row["summary"], width - 2, subsequent_indent="    ")
        lines += [_paint("  " + w, row["status"], colour) for w in wrapped]
    resources = [r for r in _HEADS if f"{r}_status" in table.columns
                 and table[f"{r}_status"].drop_nulls().len()]  # fmt: skip
    cell = 6
    name_width = max(12, width - cell * len(resources) - 1)
    head = "Days left".ljust(name_width) + "".join(_HEADS[r].rjust(cell) for r in resources)
    lines += ["", head.rstrip()]
    for row in table.iter_rows(named=True):
        names = textwrap.wrap(row["deployment"], name_width - 1) or [""]
        cells = "".join(
            _paint(cell_text(row[r], row[f"{r}_status"]).rjust(cell), row[f"{r}_status"], colour)
            for r in resources
        )
        lines.append(names[0].ljust(name_width) + cells)
        lines += names[1:]
    if restarted:
        lines += ["", "Forecasts restarted"]
        for said in restarted:
            lines += textwrap.wrap(said, width - 2, initial_indent="  ", subsequent_indent="    ")
    if sources:
        lines += [""] + textwrap.wrap(ranges_note(sources), width)
    return "\n".join(line.rstrip() for line in lines) + "\n"


CAPACITY = Command(arguments=_arguments, run=_run, description=_DESCRIPTION)
