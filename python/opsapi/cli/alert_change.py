"""``opsapi alerts ack|unack``: the ids given, or every alert the filters match, changed
concurrently, with one summary line; ``--dry-run`` shows each alert as the run would change
it (and warns where it would shorten an acknowledgement), ``--yes`` confirms more than
``CONFIRM_ABOVE``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, Optional, TextIO

from ._base import (
    CONFIRM_ABOVE,
    EXIT_OK,
    EXIT_PARTIAL,
    UsageError,
    csv_cell,
    error_text,
    exit_code,
    project_ids,
    write_json,
)
from ._table import Column, when, write_table
from .alert_list import (
    ID,
    PROJECT,
    STATUS,
    WHAT,
    alert_error,
    filters,
    has_filters,
    instant,
    matching,
    of_projects,
    project_names,
    row,
    scope,
)


def _targets(p: argparse.ArgumentParser) -> None:
    """``ack``/``unack``: alert ids, or filters (not both), with the safety switches."""
    p.add_argument("alert_ids", nargs="*", metavar="ALERT_ID", help="the alerts, by id")
    filters(p, default_status="OPEN, when filtering")
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="show each alert as the run would change it (warning where it would shorten an "
        "acknowledgement); send nothing",
    )
    p.add_argument(
        "--yes", action="store_true", help=f"confirm a change to more than {CONFIRM_ABOVE} alerts"
    )


def ack_arguments(ack: argparse.ArgumentParser) -> None:
    scope(ack)
    _targets(ack)
    when_ = ack.add_mutually_exclusive_group(required=True)
    when_.add_argument("--until", help="ISO 8601 instant with a time zone")
    when_.add_argument(
        "--for", dest="for_", metavar="DURATION", help="30m, 4h, 2d, 1w or ISO 8601 (PT4H)"
    )
    when_.add_argument("--forever", action="store_true", help="acknowledge without end")
    ack.add_argument("--comment")


def unack_arguments(unack: argparse.ArgumentParser) -> None:
    scope(unack)
    _targets(unack)


def _duration(args: argparse.Namespace) -> Optional[timedelta]:
    if getattr(args, "for_", None) is None:
        return None
    from opsapi._duration import parse_duration

    try:
        return parse_duration(args.for_)
    except ValueError as e:
        raise UsageError(f"--for: {e}") from None


def _forever(now: datetime) -> datetime:
    """The service's convention for "forever", as the client sends it: 100 years on."""
    try:
        return now.replace(year=now.year + 100)
    except ValueError:  # 29 February, in a year that has none
        return now.replace(year=now.year + 100, day=28)


def _fetch(client: Any, pairs: list[tuple[Optional[str], str]]) -> tuple[list[Any], list[Any]]:
    """The alerts of ids (for a dry run), and the failures as ``(id, error)``."""
    import opsapi

    found, failed = [], []
    for project, alert_id in pairs:
        try:
            if project is None:
                found.append(client.global_alerts.get(alert_id))
            else:
                found.append(client.alerts.get(project, alert_id))
        except opsapi.ApiError as e:
            failed.append((alert_id, project, e))
    return found, failed


# A dry run's table: the alert, its acknowledgement now, what the run would set, and where
# that is shorter. What the alert is gives way first.
_DRY = [
    ID,
    replace(PROJECT, keep=4),
    replace(STATUS, keep=3),
    replace(WHAT, keep=5),
    Column("acknowledged_until", "Acked until now", fmt=when, keep=8),
    Column("would_until", "Would be until", fmt=when, keep=9),
    Column("note", "Note", keep=9),
]


def _dry_run(
    client: Any,
    args: argparse.Namespace,
    alerts: Sequence[Any],
    fmt: str,
    out: TextIO,
    names: Optional[dict[str, str]],
) -> None:
    """Each alert as the run would change it; a warning line for each acknowledgement that
    the run would shorten (an alert acknowledged until 2027 that ``--for 2h`` would end in two
    hours)."""
    now = client.server_time
    ack = args.command == "ack"
    if not ack:
        until: Optional[datetime] = None
    elif args.forever:
        until = None if now is None else _forever(now)
    elif args.for_ is not None:
        d = _duration(args)
        until = None if now is None or d is None else now + d
    else:
        until = instant("--until", args.until)
    comment = args.comment if ack else None
    rows, shortened = [], []
    for a in alerts:
        r = row(a, now, names)
        current = a.acknowledged_until
        shortens = ack and current is not None and until is not None and current > until
        if shortens:
            shortened.append(a)
        r["would_until"] = until
        r["note"] = "shortens" if shortens else ""
        rows.append(r)
        if fmt == "json":
            r["json"] = {
                **a.to_dict(),
                "acknowledgedUntil": csv_cell(until) if until is not None else None,
                "acknowledgementComment": comment,
            }
    if fmt == "json":
        write_json([r["json"] for r in rows], out, default=str)
    elif fmt == "csv":
        import csv

        w = csv.writer(out, lineterminator="\n")
        keys = ["id", "group_id", "status", "acknowledged_until", "would_until", "note"]
        w.writerow(keys)
        for a, r in zip(alerts, rows):
            w.writerow([csv_cell(v) for v in (a.id, a.group_id, r["status"],
                        a.acknowledged_until, until, r["note"])])  # fmt: skip
    else:
        write_table([c for c in _DRY if c.key != "project" or names is not None], rows, out)
    verb = "acknowledge" if ack else "un-acknowledge"
    if shortened:
        print(
            f"warning: the run would shorten {len(shortened)} acknowledgement(s) to "
            f"{when(until)} UTC (note: shortens)",
            file=sys.stderr,
        )
    print(f"dry run: would {verb} {len(alerts)} alert(s)", file=sys.stderr)


def run_change(client: Any, args: argparse.Namespace, fmt: str, out: TextIO) -> int:
    """``ack``/``unack`` of the ids given or of every alert the filters match."""
    filtered = has_filters(args)
    if args.alert_ids and filtered:
        raise UsageError("give alert ids or filters, not both")
    if not args.alert_ids and not filtered:
        raise UsageError("give alert ids, or filters (--status, --event-type, --older-than, ...)")
    kwargs: dict[str, Any] = {}
    if args.command == "ack":
        kwargs["comment"] = args.comment
        if args.forever:
            kwargs["forever"] = True
        elif args.for_ is not None:
            kwargs["duration"] = _duration(args)
        else:
            kwargs["until"] = args.until
    verb = "acknowledge" if args.command == "ack" else "un-acknowledge"
    ids = list(args.alert_ids)
    projects = of_projects(args)
    if projects and ids and len(args.projects or ()) != 1:
        raise UsageError("alert ids of project alerts: give the one --project they belong to")
    project = None
    if projects and ids:
        (project,) = project_ids(client, args.projects)
    pairs = [(project, i) for i in ids] if projects else []
    if filtered:
        matched, _ = matching(client, args, "OPEN")
        ids = [a.id for a in matched]
        pairs = [(str(a.group_id), a.id) for a in matched]
    if args.dry_run:
        failed: list[Any] = []
        if not filtered:
            matched, failed = _fetch(client, [(project, i) for i in ids])
        for i, p, e in failed:
            print(f"error: {i}: {alert_error(e, p)}", file=sys.stderr)
        _dry_run(client, args, matched, fmt, out, project_names(client, args, fmt))
        return EXIT_OK if not failed else exit_code(failed[0][2])
    if len(ids) > CONFIRM_ABOVE and not args.yes:
        what, look = ("alerts match", "see") if filtered else ("alert ids given", "list")
        raise UsageError(
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
    failures = [(i, r) for i, r in zip(ids, results) if isinstance(r, Exception)]
    names = project_names(client, args, fmt)
    if len(ids) == 1 and not filtered:
        if failures:  # one id: the usual error line (as any command prints it), then the summary
            print(f"error: {alert_error(failures[0][1], project)}", file=sys.stderr)
        else:
            _write_changed(done, fmt, out, names, single=True)
    else:
        for i, e in failures:
            # An id that the filters found exists: no hint where else it might be.
            text = error_text(e) if filtered else alert_error(e, project)
            print(f"error: {i}: {text}", file=sys.stderr)
        if done:
            _write_changed(done, fmt, out, names)
    past = "acknowledged" if args.command == "ack" else "un-acknowledged"
    print(f"{past} {len(done)} of {len(ids)} alert(s), {len(failures)} failed", file=sys.stderr)
    if not failures:
        return EXIT_OK
    return EXIT_PARTIAL if done else exit_code(failures[0][1])


# The changed alerts: what the acknowledgement now says.
_CHANGED = [
    ID,
    PROJECT,
    STATUS,
    Column("acknowledged_until", "Acked until (UTC)", fmt=when, keep=8),
    Column("acknowledgement_comment", "Comment", keep=6, wrap=True, narrow=12),
    Column("acknowledging_username", "By", keep=5, wrap=True, narrow=10),
]


def _write_changed(
    alerts: Sequence[Any],
    fmt: str,
    out: TextIO,
    names: Optional[dict[str, str]],
    *,
    single: bool = False,
) -> None:
    """The alerts as the server answered the change: JSON (one object for the one id given),
    CSV of the acknowledgement's fields, or a table."""
    if fmt == "json":
        docs = [a.to_dict() for a in alerts]
        write_json(docs[0] if single else docs, out, default=str)
        return
    rows = [row(a, None, names) for a in alerts]
    if fmt == "csv":
        import csv

        keys = ["id", "status", "acknowledged_until", "acknowledgement_comment",
                "acknowledging_username"]  # fmt: skip
        w = csv.writer(out, lineterminator="\n")
        w.writerow(keys)
        w.writerows([csv_cell(r[k]) for k in keys] for r in rows)
        return
    columns = [c for c in _CHANGED if c is not PROJECT or names is not None]
    write_table(columns, rows, out)  # the summary line counts them
