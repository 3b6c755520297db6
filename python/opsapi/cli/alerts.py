"""``opsapi alerts``: list, acknowledge and un-acknowledge alerts (by id or by filter): global
alerts (``--global``, the default), or project alerts of the projects given (``--project ID``,
repeatable) or of every project (``--all-projects``); show one alert, in its context; and the
open alerts of one alert configuration."""

from __future__ import annotations

import argparse
import csv
import io
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Optional, TextIO

from ._base import (
    _FORMATS,
    CONFIRM_ABOVE,
    EXIT_OK,
    EXIT_PARTIAL,
    _cell,
    _client,
    _common,
    _error_text,
    _exit_code,
    _format,
    _format_option,
    _Parser,
    _UsageError,
    _write_json,
    _write_table,
)

_TABLE_COLUMNS = [
    "id",
    "status",
    "event_type_name",
    "created",
    "acknowledged_until",
    "hostname_and_port",
    "replica_set_name",
    "metric_name",
    "current_value_number",
    "current_value_units",
]


def _filters(p: argparse.ArgumentParser, *, default_status: str) -> None:
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


def _scope(p: argparse.ArgumentParser) -> None:
    """Which alerts: global ones (the default), or the project alerts of some or every
    project."""
    g = p.add_argument_group("which alerts").add_mutually_exclusive_group()
    g.add_argument("--global", dest="global_", action="store_true",
                   help="global alerts (the default)")  # fmt: skip
    g.add_argument(
        "--project", dest="projects", action="append", metavar="ID",
        help="project alerts of this project (repeat for several)",
    )  # fmt: skip
    g.add_argument("--all-projects", action="store_true",
                   help="project alerts of every project the key can see")  # fmt: skip


def _projects(args: argparse.Namespace) -> bool:
    """Whether the command is about project alerts."""
    return bool(getattr(args, "projects", None)) or getattr(args, "all_projects", False)


def _targets(p: argparse.ArgumentParser) -> None:
    """``ack``/``unack``: alert ids, or filters (not both), with the safety switches."""
    p.add_argument("alert_ids", nargs="*", metavar="ALERT_ID")
    _filters(p, default_status="OPEN, when filtering")
    p.add_argument("--dry-run", action="store_true", help="print what would change; send nothing")
    p.add_argument(
        "--yes", action="store_true", help=f"confirm a change to more than {CONFIRM_ABOVE} alerts"
    )


def _alerts_frame(alerts: Any) -> Any:
    return alerts.to_polars()


def _write_alerts(alerts: Sequence[Any], frame: Any, fmt: str, out: TextIO) -> None:
    if fmt == "json":
        _write_json([a.to_dict() for a in alerts], out, default=str)
    elif fmt == "csv":
        out.write(frame.write_csv())
    else:
        _write_table(frame.select([c for c in _TABLE_COLUMNS if c in frame.columns]), out)


def _one_alert(alert: Any, fmt: str, out: TextIO) -> None:
    import polars as pl

    if fmt == "json":
        _write_json(alert.to_dict(), out, default=str)
        return
    row = {
        "id": alert.id,
        "status": str(alert.status) if alert.status is not None else None,
        "acknowledged_until": alert.acknowledged_until,
        "acknowledgement_comment": alert.acknowledgement_comment,
        "acknowledging_username": alert.acknowledging_username,
    }
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(row.keys())
        w.writerow(_cell(v) for v in row.values())
        out.write(buf.getvalue())
    else:
        _write_table(pl.DataFrame([row]), out)


# The client's argument names of the filters sent to the server, and their flags.
_FILTER_FLAGS = {
    "status": "--status",
    "created_on_or_after": "--created-since",
    "groups": "--project",
}


def _has_filters(args: argparse.Namespace) -> bool:
    names = ("status", "event_type", "older_than", "created_since", "host", "replica_set")
    return any(getattr(args, n, None) is not None for n in names)


def _matching(
    client: Any, args: argparse.Namespace, default_status: Optional[str]
) -> tuple[list[Any], Any]:
    """The global alerts the filters match, and their frame (the columns of
    ``AlertList.to_polars()``): ``--status`` and ``--created-since`` asked of the server, the
    rest matched on documented fields."""
    from opsapi._duration import parse_duration

    older_than = None
    if args.older_than is not None:
        try:
            older_than = parse_duration(args.older_than)
        except ValueError as e:
            raise _UsageError(f"--older-than: {e}") from None
    status = args.status if args.status is not None else default_status
    import opsapi

    since = None
    try:
        if _projects(args):
            # Project alerts have no created-date filter: --created-since is matched here.
            since = _instant("--created-since", args.created_since)
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
        raise _UsageError(f"{flag}: {detail}") from None

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


def _instant(flag: str, value: Optional[str]) -> Optional[datetime]:
    """An ISO 8601 instant with a time zone, for a filter matched here."""
    if value is None:
        return None
    try:
        t = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        t = None
    if t is None or t.tzinfo is None:
        raise _UsageError(f"{flag}: `{value}` is not an ISO 8601 instant with a time zone")
    return t


def _cmd_change(args: argparse.Namespace, client: Any, fmt: str, out: TextIO) -> int:
    """``ack``/``unack``: the ids given, or every alert the filters match (``--dry-run`` shows
    them, ``--yes`` confirms more than CONFIRM_ABOVE), concurrently; one summary line."""
    filtered = _has_filters(args)
    if args.alert_ids and filtered:
        raise _UsageError("give alert ids or filters, not both")
    if not args.alert_ids and not filtered:
        raise _UsageError("give alert ids, or filters (--status, --event-type, --older-than, ...)")
    kwargs: dict[str, Any] = {}
    if args.command == "ack":
        kwargs["comment"] = args.comment
        if args.forever:
            kwargs["forever"] = True
        elif args.for_ is not None:
            from opsapi._duration import parse_duration

            try:
                kwargs["duration"] = parse_duration(args.for_)
            except ValueError as e:
                raise _UsageError(f"--for: {e}") from None
        else:
            kwargs["until"] = args.until
    verb = "acknowledge" if args.command == "ack" else "un-acknowledge"
    ids = list(args.alert_ids)
    projects = _projects(args)
    if projects and ids and len(args.projects or ()) != 1:
        raise _UsageError("alert ids of project alerts: give the one --project they belong to")
    pairs = [(args.projects[0], i) for i in ids] if projects else []
    if filtered:
        matched, frame = _matching(client, args, "OPEN")
        ids = [a.id for a in matched]
        pairs = [(str(a.group_id), a.id) for a in matched]
    if args.dry_run:
        if filtered:
            _write_alerts(matched, frame, fmt, out)
        else:
            for i in ids:
                out.write(i + "\n")
        print(f"dry run: would {verb} {len(ids)} alert(s)", file=sys.stderr)
        return EXIT_OK
    if len(ids) > CONFIRM_ABOVE and not args.yes:
        what, look = ("alerts match", "see") if filtered else ("alert ids given", "list")
        raise _UsageError(
            f"{len(ids)} {what}: pass --yes to {verb} more than {CONFIRM_ABOVE} "
            f"(or --dry-run to {look} them)"
        )
    if not ids:
        print(f"no alert matches: nothing to {verb}", file=sys.stderr)
        return EXIT_OK
    name = f"{args.command.replace('ack', 'acknowledge')}_many"
    if projects:
        results = getattr(client.alerts, name)(pairs, **kwargs)
    else:
        results = getattr(client.global_alerts, name)(ids, **kwargs)
    done = [r for r in results if not isinstance(r, Exception)]
    failed = [(i, r) for i, r in zip(ids, results) if isinstance(r, Exception)]
    if len(ids) == 1 and not filtered:
        if failed:  # one id: the usual error line (as any command prints it), then the summary
            print(f"error: {_error_text(failed[0][1])}", file=sys.stderr)
        else:
            _one_alert(done[0], fmt, out)
    else:
        for i, e in failed:
            print(f"error: {i}: {_error_text(e)}", file=sys.stderr)
        if done:
            _write_changed(done, fmt, out)
    past = "acknowledged" if args.command == "ack" else "un-acknowledged"
    print(f"{past} {len(done)} of {len(ids)} alert(s), {len(failed)} failed", file=sys.stderr)
    if not failed:
        return EXIT_OK
    return EXIT_PARTIAL if done else _exit_code(failed[0][1])


def _write_changed(alerts: Sequence[Any], fmt: str, out: TextIO) -> None:
    if fmt == "json":
        _write_json([a.to_dict() for a in alerts], out, default=str)
        return
    import polars as pl

    rows = [
        {
            "id": a.id,
            "status": None if a.status is None else str(a.status),
            "acknowledged_until": a.acknowledged_until,
            "acknowledgement_comment": a.acknowledgement_comment,
            "acknowledging_username": a.acknowledging_username,
        }
        for a in alerts
    ]
    frame = pl.DataFrame(rows)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(frame.columns)
        w.writerows([_cell(v) for v in r] for r in frame.iter_rows())
        out.write(buf.getvalue())
    else:
        _write_table(frame, out)


def _write_list(
    alerts: Sequence[Any], frame: Any, fmt: str, path: Optional[str], out: TextIO
) -> None:
    """``alerts list``: table, CSV or JSON to stdout or ``--file``; Parquet to ``--file`` or to
    a binary stdout that is not a terminal."""
    if fmt == "parquet":
        if path is not None:
            frame.write_parquet(path)
            return
        stream = getattr(out, "buffer", None)
        if stream is None or out.isatty():
            raise _UsageError("--format parquet: give --file PATH, or redirect stdout to a file")
        frame.write_parquet(stream)
        return
    if path is not None:
        with open(path, "w", encoding="utf-8", newline="") as f:
            _write_alerts(alerts, frame, fmt, f)
        return
    _write_alerts(alerts, frame, fmt, out)


def _cmd_alerts(args: argparse.Namespace, out: TextIO) -> int:
    fmt = _format(args, formats=(*_FORMATS, "parquet") if args.command == "list" else _FORMATS)
    if args.command == "ack" and args.for_ is not None:
        from opsapi._duration import parse_duration

        try:
            parse_duration(args.for_)
        except ValueError as e:
            raise _UsageError(f"--for: {e}") from None
    client = _client(args)
    if args.command == "list":
        alerts, frame = _matching(client, args, None)
        _write_list(alerts, frame, fmt, args.file, out)
    elif args.command == "show":
        from .alert_show import show

        show(client, args, fmt, out)
    elif args.command == "open":
        alerts = client.alert_configs.open_alerts(args.group_id, args.alert_config_id)
        _write_alerts(alerts, _alerts_frame(alerts), fmt, out)
    else:
        return _cmd_change(args, client, fmt, out)
    return EXIT_OK


def add_parser(top: Any) -> None:
    """``opsapi alerts list|ack|unack|show|open``."""
    alerts = top.add_parser(
        "alerts", help="global and project alerts, and open alerts of a configuration"
    )
    a = alerts.add_subparsers(dest="command", required=True, parser_class=_Parser)

    ls = a.add_parser("list", help="list global or project alerts (with filters)")
    _scope(ls)
    _filters(ls, default_status="all")
    ls.add_argument("--file", metavar="PATH", help="write here instead of stdout (parquet)")

    ack = a.add_parser("ack", help="acknowledge alerts: by id, or every one a filter matches")
    _scope(ack)
    _targets(ack)
    when = ack.add_mutually_exclusive_group(required=True)
    when.add_argument("--until", help="ISO 8601 instant with a time zone")
    when.add_argument(
        "--for", dest="for_", metavar="DURATION", help="30m, 4h, 2d, 1w or ISO 8601 (PT4H)"
    )
    when.add_argument("--forever", action="store_true", help="acknowledge without end")
    ack.add_argument("--comment")

    unack = a.add_parser("unack", help="un-acknowledge alerts: by id or by filter")
    _scope(unack)
    _targets(unack)

    from .alert_show import add_show

    sh = add_show(a)

    op = a.add_parser("open", help="open alerts of one alert configuration")
    op.add_argument("group_id")
    op.add_argument("alert_config_id")
    for sp in (ls, ack, unack, sh, op):
        _format_option(sp, (*_FORMATS, "parquet") if sp is ls else ())
        _common(sp)
