"""``opsapi alerts list`` and what the other alert subcommands share with it: which alerts
(global, or of projects given by name or id, or of every project), the filters, the alerts
they match, and an alert as a person reads it (one table row, a value with its unit, the
project's name, a hint where else an alert that is not found may be)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Optional, TextIO

from ._base import (
    UsageError,
    error_text,
    project_ids,
    writable_file,
    write_json,
)
from ._table import Column, number, plural, size, span, write_table


def filters(p: argparse.ArgumentParser, *, default_status: str) -> None:
    """The alert filters of ``list``, ``ack`` and ``unack``. ``--status`` and
    ``--created-since`` go to the server; the others are matched here on documented fields
    (the API has no server-side filter for them)."""
    g = p.add_argument_group("filters")
    g.add_argument("--status", help=f"OPEN, TRACKING, CLOSED, ... (default: {default_status})")
    g.add_argument(
        "--event-type", metavar="NAME", help="eventTypeName, e.g. OUTSIDE_METRIC_THRESHOLD"
    )
    g.add_argument("--older-than", metavar="DURATION", help="created before now minus this (2h)")
    g.add_argument("--created-since", metavar="ISO", help="created at or after this instant")
    g.add_argument("--host", metavar="HOST[:PORT]", help="hostnameAndPort, or its host name")
    g.add_argument("--replica-set", metavar="NAME", help="replicaSetName")


def scope(p: argparse.ArgumentParser) -> None:
    """Which alerts: global ones (the default), or the project alerts of some or every
    project."""
    g = p.add_argument_group("which alerts").add_mutually_exclusive_group()
    g.add_argument("--global", dest="global_", action="store_true",
                   help="global alerts (the default)")  # fmt: skip
    g.add_argument(
        "--project", dest="projects", action="append", metavar="PROJECT",
        help="project alerts of this project, by name or id (repeat for several)",
    )  # fmt: skip
    g.add_argument("--all-projects", action="store_true",
                   help="project alerts of every project the key can see")  # fmt: skip


def of_projects(args: argparse.Namespace) -> bool:
    """Whether the command is about project alerts."""
    return bool(getattr(args, "projects", None)) or getattr(args, "all_projects", False)


def has_filters(args: argparse.Namespace) -> bool:
    names = ("status", "event_type", "older_than", "created_since", "host", "replica_set")
    return any(getattr(args, n, None) is not None for n in names)


# The client's argument names of the filters sent to the server, and their flags.
_FILTER_FLAGS = {
    "status": "--status",
    "created_on_or_after": "--created-since",
    "groups": "--project",
}


def instant(flag: str, value: Optional[str]) -> Optional[datetime]:
    """An ISO 8601 instant with a time zone, for a filter matched here."""
    if value is None:
        return None
    try:
        t = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        t = None
    if t is None or t.tzinfo is None:
        raise UsageError(f"{flag}: `{value}` is not an ISO 8601 instant with a time zone")
    return t


def matching(
    client: Any, args: argparse.Namespace, default_status: Optional[str]
) -> tuple[list[Any], Any]:
    """The alerts the filters match, and their frame (the columns of
    ``AlertList.to_polars()``): ``--status`` and ``--created-since`` asked of the server, the
    rest matched on documented fields. ``args.projects`` holds ids once this returns."""
    from opsapi._duration import parse_duration

    older_than = None
    if args.older_than is not None:
        try:
            older_than = parse_duration(args.older_than)
        except ValueError as e:
            raise UsageError(f"--older-than: {e}") from None
    status = args.status if args.status is not None else default_status
    import opsapi

    since = None
    try:
        if of_projects(args):
            # Project alerts have no created-date filter: --created-since is matched here.
            since = instant("--created-since", args.created_since)
            args.projects = project_ids(client, args.projects)
            alerts = client.alerts.list_all(status=status, groups=args.projects)
        else:
            alerts = client.global_alerts.list(
                status=status, created_on_or_after=args.created_since
            )
    except opsapi.InvalidArgumentError as e:  # raised before any request: name the flag
        flag = _FILTER_FLAGS.get((e.argument or "").split("[")[0])
        if flag is None:
            raise
        prefix = f"invalid argument `{e.argument}`: "
        detail = str(e)[len(prefix) :] if str(e).startswith(prefix) else str(e)
        raise UsageError(f"{flag}: {detail}") from None

    # "Older than 2h" by the server's clock, which stamped `created` (the list's answers
    # told the client what it says).
    cutoff = None if older_than is None else client.server_time - older_than

    def host_matches(a: Any) -> bool:
        hp = a.hostname_and_port or ""
        return hp == args.host or hp.split(":")[0] == args.host

    import polars as pl

    kept = [
        a
        for a in alerts
        if (args.event_type is None or str(a.event_type_name) == args.event_type)
        and (cutoff is None or (a.created is not None and a.created < cutoff))
        and (since is None or (a.created is not None and a.created >= since))
        and (args.host is None or host_matches(a))
        and (args.replica_set is None or a.replica_set_name == args.replica_set)
    ]
    ids = [a.id for a in kept]
    return kept, alerts.to_polars().filter(pl.col("id").cast(pl.String).is_in(ids))


# ---- an alert as a person reads it ---------------------------------------------------------

# Units of a value (currentValue.units) in the words of a table; sizes in binary units.
_SIZES = {"BYTES": 1, "KILOBYTES": 2**10, "MEGABYTES": 2**20, "GIGABYTES": 2**30,
          "TERABYTES": 2**40, "PETABYTES": 2**50}  # fmt: skip
_TIMES = {"MILLISECONDS": "ms", "SECONDS": "s", "MINUTES": "min", "HOURS": "h", "DAYS": "d"}


def is_percent(metric: Optional[str]) -> bool:
    """Whether an alert metric is a percentage, which the API sends with the units ``RAW``:
    disk space used (``DISK_PARTITION_SPACE_USED_DATA``), CPU and the ``*_PERCENT*`` ones."""
    m = metric or ""
    return "PERCENT" in m or "CPU" in m or m.startswith("DISK_PARTITION_SPACE_USED")


def value_text(n: Optional[float], units: Optional[str], metric: Optional[str]) -> str:
    """A metric value with the unit that means something: ``91.5 %``, ``2.7 MiB``,
    ``3,259``, ``75 s`` (``RAW`` is no unit).

    >>> value_text(91.456, "RAW", "DISK_PARTITION_SPACE_USED_DATA")
    '91.46 %'
    >>> value_text(3259, "RAW", "CONNECTIONS")
    '3,259'
    >>> value_text(2807101, "BYTES", "X"), value_text(75, "SECONDS", "OPLOG_REPLICATION_LAG_TIME")
    ('2.7 MiB', '75 s')
    """
    if n is None:
        return ""
    u = (units or "RAW").upper()
    if u == "RAW":
        return f"{number(n)} %" if is_percent(metric) else number(n)
    if u in _SIZES:
        return size(n * _SIZES[u])
    if u in _TIMES:
        return f"{number(n)} {_TIMES[u]}"
    return f"{number(n)} {u.lower()}"


def row(a: Any, now: Optional[datetime], names: Optional[dict[str, str]] = None) -> dict[str, Any]:
    """One alert as a table's row: ``what`` is the metric and its value, or the event."""
    cv = a.current_value
    metric = a.metric_name
    what = str(a.event_type_name or "")
    if metric:
        value = value_text(cv.number, cv.units, metric) if cv is not None else ""
        what = f"{metric} {value}".strip()
    until = a.acknowledged_until
    # How much longer it stays acknowledged, by the server's clock (nothing once it ended).
    acked_for = until - now if until is not None and now is not None and until > now else None
    return {
        "id": a.id,
        "project": None if names is None else names.get(str(a.group_id), a.group_id),
        "status": None if a.status is None else str(a.status),
        "what": what,
        "host": a.hostname_and_port,
        "replica_set": a.replica_set_name,
        "age": None if now is None or a.created is None else now - a.created,
        "acked_for": acked_for,
        "acknowledged_until": until,
        "acknowledgement_comment": a.acknowledgement_comment,
        "acknowledging_username": a.acknowledging_username,
    }


def _acked(d: Any) -> str:
    return "" if d is None else ("forever" if d.days > 365 * 50 else span(d))


ID = Column("id", "ID", keep=10)
PROJECT = Column("project", "Project", keep=7, wrap=True, narrow=10)
STATUS = Column("status", "Status", keep=9)
WHAT = Column("what", "Alert", keep=8, wrap=True, narrow=16)
# The columns of a listing, least needed last: ids, then what it is, where, and how old.
LIST = [
    ID,
    PROJECT,
    STATUS,
    WHAT,
    Column("host", "Host", keep=6, wrap=True, narrow=14, breaks=".:"),
    Column("age", "Age", fmt=span, keep=5, right=True),
    Column("acked_for", "Acked for", fmt=_acked, keep=4, right=True),
    Column("replica_set", "Replica set", keep=3),
]


def project_names(client: Any, args: argparse.Namespace, fmt: str) -> Optional[dict[str, str]]:
    """The names of the projects by id when alerts of several projects go to a table or CSV
    (their column; one request), else None (no column; JSON is the server's record)."""
    if fmt not in ("table", "csv") or not of_projects(args) or len(args.projects or ()) == 1:
        return None
    return {str(g.id): str(g.name) for g in client.groups.list()}


def write_alerts(
    alerts: Sequence[Any],
    frame: Any,
    fmt: str,
    out: TextIO,
    *,
    now: Optional[datetime] = None,
    names: Optional[dict[str, str]] = None,
    count: bool = True,
) -> None:
    """Alerts as JSON (whole), CSV (every column of the frame) or a table fitted to the
    terminal, with a project column when ``names`` is given and (``count``) a count line."""
    if fmt == "json":
        write_json([a.to_dict() for a in alerts], out, default=str)
    elif fmt == "csv":
        if names is not None and "group_id" in frame.columns:
            import polars as pl

            name = pl.col("group_id").cast(pl.String).replace_strict(names, default=None)
            frame = frame.with_columns(name.alias("project_name"))
        out.write(frame.write_csv())
    else:
        columns = [c for c in LIST if c is not PROJECT or names is not None]
        rows = [row(a, now, names) for a in alerts]
        write_table(columns, rows, out, count=plural(len(alerts), "alert") if count else None)


def not_found_hint(e: BaseException, project: Optional[str]) -> str:
    """After an alert's ``ALERT_NOT_FOUND``: where else it may be."""
    import opsapi

    if not isinstance(e, opsapi.NotFoundError):
        return ""
    if project is None:
        return (" (no global alert has this id; a project alert? give its --project; "
                "opsapi alerts list --all-projects lists them)")  # fmt: skip
    return (f" (not an alert of project {project}; a global alert? leave out --project; of "
            "another project? opsapi alerts list --all-projects)")  # fmt: skip


def alert_error(e: BaseException, project: Optional[str]) -> str:
    """The error text of one alert's failure, with where else to look when not found."""
    return error_text(e) + not_found_hint(e, project)


def write_list(
    client: Any,
    args: argparse.Namespace,
    alerts: Sequence[Any],
    frame: Any,
    fmt: str,
    out: TextIO,
) -> None:
    """``alerts list``: table, CSV or JSON to stdout or ``--file``; Parquet to ``--file`` or to
    a binary stdout that is not a terminal."""
    path = args.file
    names = project_names(client, args, fmt)
    now = client.server_time
    if fmt == "parquet":
        if path is not None:
            frame.write_parquet(path)
            print(f"wrote {plural(len(alerts), 'alert')} to {path}", file=sys.stderr)
            return
        stream = getattr(out, "buffer", None)
        if stream is None or out.isatty():
            raise UsageError("--format parquet: give --file PATH, or redirect stdout to a file")
        frame.write_parquet(stream)
        return
    if path is not None:
        with open(path, "w", encoding="utf-8", newline="") as f:
            write_alerts(alerts, frame, fmt, f, now=now, names=names, count=False)
        # Once the file is whole (a full disk fails its close).
        print(f"wrote {plural(len(alerts), 'alert')} to {path}", file=sys.stderr)
        return
    write_alerts(alerts, frame, fmt, out, now=now, names=names)


def list_arguments(ls: argparse.ArgumentParser) -> None:
    scope(ls)
    filters(ls, default_status="all")
    ls.add_argument("--file", metavar="PATH", help="write here instead of stdout (parquet)")


def run_list(client: Any, args: argparse.Namespace, fmt: str, out: TextIO) -> None:
    if args.file is not None:
        writable_file(args.file, "--file")
    alerts, frame = matching(client, args, None)
    write_list(client, args, alerts, frame, fmt, out)
