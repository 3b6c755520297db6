"""``opsapi``: alert handling and measurement export from scripts.

Credentials come from a profile (``--profile NAME`` or ``$OPSAPI_PROFILE``, see ``opsapi
config init``), else from ``OPSAPI_BASE_URL``, ``OPSAPI_PUBLIC_KEY``, ``OPSAPI_PRIVATE_KEY`` (and
optionally ``OPSAPI_CA_FILE``) as for :meth:`opsapi.Client.from_env`, else from the profile
named ``default`` when the config file has one.

``--output json`` (``-o json``) on every command, before or after it, prints JSON for ``jq``;
``table`` and ``csv`` are the other formats. ``sim`` and ``completion`` print text (the
simulator's address and keys, a shell script): there ``--output`` other than ``table`` is
refused (exit 2), and ``--profile`` has nothing to choose (they connect to no server).

Exit codes a script can rely on:

====  =========================================================
0     success
2     usage error, invalid argument or missing configuration
3     not found (404)
4     authentication failed (401) or forbidden (403)
5     any other error answer from the API, or an undecodable one
6     transport: connect, TLS, timeout, reset
7     ``alerts ack``/``unack`` of several alerts: some succeeded, some failed
====  =========================================================

On an API failure the one line on stderr is ``error: <errorCode>: <detail>``; ``alerts
ack``/``unack`` always end with a summary line (``acknowledged 5 of 6 alert(s), 1 failed``),
and want ``--yes`` to change more than 20 alerts, given as ids or matched by filters.

Example::

    $ opsapi alerts list --status OPEN --format csv > open.csv
    $ opsapi alerts ack 5b7c... --for 4h --comment "disk resize scheduled"
    $ opsapi alerts ack --event-type OUTSIDE_METRIC_THRESHOLD --replica-set rs0 --for 2h --dry-run
    $ opsapi alerts list --status OPEN --older-than 2h --format parquet --file open.parquet
    $ opsapi measurements host $GROUP $HOST --granularity PT1M --period P1D \\
          --metric CONNECTIONS --output conn.parquet
    $ opsapi --profile prod measurements fleet --disks --granularity PT1H --period P14D \\
          --output out/disks/            # hive-partitioned Parquet, a progress bar on a TTY
    $ opsapi config init --profile prod        # asks; or every answer as a flag
    $ source <(opsapi completion bash)

(Over 600 lines: the whole command tree in one parser, so that completion and the tests read
it from one place; the filters and output formats are its helpers.)
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import sys
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Optional, TextIO

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_NOT_FOUND = 3
EXIT_AUTH = 4
EXIT_API = 5
EXIT_TRANSPORT = 6
EXIT_PARTIAL = 7
# Above this many matching alerts, ack/unack by filter needs --yes.
CONFIRM_ABOVE = 20

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


class _Parser(argparse.ArgumentParser):
    """Raises instead of exiting, so that ``main(argv)`` returns the exit code."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        self.print_usage(sys.stderr)
        raise _UsageError(f"{self.prog}: {message}")


class _UsageError(Exception):
    pass


_FORMATS = ("table", "json", "csv")
_WINDOW_HELP = {
    "granularity": "ISO 8601 duration, e.g. PT1M",
    "period": "ISO 8601 duration, e.g. P1D",
}


def _common(p: argparse.ArgumentParser) -> None:
    """``--profile`` after the command too (``opsapi alerts list --profile prod``).

    SUPPRESS as the default, so that a subcommand that is not given the flag keeps the value
    given before the command (argparse would otherwise overwrite it with the default).
    """
    p.add_argument(
        "--profile",
        default=argparse.SUPPRESS,
        metavar="NAME",
        help="profile of the config file (default: $OPSAPI_PROFILE, else OPSAPI_* variables)",
    )


def _format_option(p: argparse.ArgumentParser, choices: Sequence[str] = ()) -> None:
    choices = tuple(choices) or _FORMATS
    p.add_argument(
        "--output",
        "-o",
        "--format",
        dest="output",
        choices=choices,
        default=argparse.SUPPRESS,
        help="table (default), " + ", ".join(choices[1:]),
    )


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


def _targets(p: argparse.ArgumentParser) -> None:
    """``ack``/``unack``: alert ids, or filters (not both), with the safety switches."""
    p.add_argument("alert_ids", nargs="*", metavar="ALERT_ID")
    _filters(p, default_status="OPEN, when filtering")
    p.add_argument("--dry-run", action="store_true", help="print what would change; send nothing")
    p.add_argument(
        "--yes", action="store_true", help=f"confirm a change to more than {CONFIRM_ABOVE} alerts"
    )


def _build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="opsapi",
        description="Ops Manager public API from the command line (credentials from a profile "
        "or OPSAPI_*).",
    )
    p.add_argument(
        "--profile",
        metavar="NAME",
        help="profile of the config file (default: $OPSAPI_PROFILE, else OPSAPI_* variables, "
        "else the profile 'default')",
    )
    p.add_argument(
        "--output",
        "-o",
        metavar="FORMAT",
        help="table, json or csv for every command; measurements also take a file or folder "
        "(sim and completion print text: table only)",
    )
    top = p.add_subparsers(dest="area", required=True, parser_class=_Parser)

    alerts = top.add_parser("alerts", help="global alerts and open alerts of a configuration")
    a = alerts.add_subparsers(dest="command", required=True, parser_class=_Parser)

    ls = a.add_parser("list", help="list global alerts (with filters)")
    _filters(ls, default_status="all")
    ls.add_argument("--file", metavar="PATH", help="write here instead of stdout (parquet)")

    ack = a.add_parser(
        "ack", help="acknowledge global alerts: by id, or every one a filter matches"
    )
    _targets(ack)
    when = ack.add_mutually_exclusive_group(required=True)
    when.add_argument("--until", help="ISO 8601 instant with a time zone")
    when.add_argument(
        "--for", dest="for_", metavar="DURATION", help="30m, 4h, 2d, 1w or ISO 8601 (PT4H)"
    )
    when.add_argument("--forever", action="store_true", help="acknowledge without end")
    ack.add_argument("--comment")

    unack = a.add_parser("unack", help="un-acknowledge global alerts: by id or by filter")
    _targets(unack)

    op = a.add_parser("open", help="open alerts of one alert configuration")
    op.add_argument("group_id")
    op.add_argument("alert_config_id")
    for sp in (ls, ack, unack, op):
        _format_option(sp, (*_FORMATS, "parquet") if sp is ls else ())
        _common(sp)

    # Its flags go to the simulator's own (Rust) parser, as the opsapi-sim binary reads them:
    # everything this parser does not know (parse_known_args), --help included. The global
    # options are accepted after it too (never as prefixes: --port is the simulator's).
    sim = top.add_parser(
        "sim",
        help="run the API simulator until Ctrl-C (its flags: opsapi sim --help)",
        add_help=False,
        allow_abbrev=False,
    )
    sim.add_argument(
        "--output", "-o", default=argparse.SUPPRESS, metavar="FORMAT", help="table only: text"
    )
    _common(sim)
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

    cfg = top.add_parser("config", help="profiles: connection settings by name")
    c = cfg.add_subparsers(dest="command", required=True, parser_class=_Parser)
    init = c.add_parser(
        "init",
        help="add a profile (asks for what the flags do not give)",
        description="Writes a profile into the config file ($OPSAPI_CONFIG or the platform's "
        "config folder). The private key is never written there: it comes from an environment "
        "variable, a file with mode 0600, or the system keyring.",
    )
    init.add_argument("--base-url")
    init.add_argument("--public-key")
    src = init.add_mutually_exclusive_group()
    src.add_argument("--private-key-env", metavar="NAME", help="environment variable of the key")
    src.add_argument("--private-key-file", metavar="PATH", help="file holding the key (mode 0600)")
    src.add_argument("--keyring", action="store_true", help="the key in the system keyring")
    init.add_argument(
        "--private-key-stdin",
        action="store_true",
        help="read the key from stdin and store it in --private-key-file (0600) or --keyring",
    )
    init.add_argument("--ca-file", metavar="PATH", help="PEM bundle for a self-signed server")
    init.add_argument("--timeout", type=float, metavar="SECONDS")
    init.add_argument("--force", action="store_true", help="replace an existing profile")
    init.add_argument(
        "--no-input", action="store_true", help="never ask (also when stdin is not a terminal)"
    )
    lsp = c.add_parser("list", help="profiles of the config file (never the private key)")
    for sp in (init, lsp):
        _format_option(sp)
        _common(sp)

    comp = top.add_parser(
        "completion",
        help="print a shell completion script",
        description="bash: source <(opsapi completion bash); zsh: opsapi completion zsh > "
        '"${fpath[1]}/_opsapi"; fish: opsapi completion fish > '
        "~/.config/fish/completions/opsapi.fish",
    )
    comp.add_argument("shell", choices=["bash", "zsh", "fish"])
    # Accepted after the command too, as everywhere; anything but table is refused when run.
    comp.add_argument(
        "--output",
        "-o",
        default=argparse.SUPPRESS,
        metavar="FORMAT",
        help="table only: the script is shell code",
    )
    _common(comp)
    return p


def _client(args: argparse.Namespace) -> Any:
    import opsapi
    from opsapi import config

    name = getattr(args, "profile", None) or os.environ.get(config.PROFILE_ENV)
    if name:
        return opsapi.Client.from_profile(name)
    if os.environ.get("OPSAPI_BASE_URL"):
        return opsapi.Client.from_env()
    if config.DEFAULT_PROFILE in config.load_profiles():
        return opsapi.Client.from_profile(config.DEFAULT_PROFILE)
    try:
        return opsapi.Client.from_env()
    except opsapi.ConfigError as e:
        raise opsapi.ConfigError(
            f"{e} (or create a profile: opsapi config init --profile default)"
        ) from None


def _format(
    args: argparse.Namespace, default: str = "table", formats: Sequence[str] = _FORMATS
) -> str:
    fmt = getattr(args, "output", None) or default
    if fmt not in formats:
        raise _UsageError(f"--output: {fmt!r} is not one of {', '.join(formats)}")
    return fmt


def _json_default(v: Any) -> Any:
    if isinstance(v, datetime):
        return v.isoformat().replace("+00:00", "Z")
    return str(v)


def _write_json(value: Any, out: TextIO, *, default: Any = _json_default) -> None:
    json.dump(value, out, indent=2, default=default)
    out.write("\n")


def _alerts_frame(alerts: Any) -> Any:
    return alerts.to_polars()


def _write_alerts(alerts: Sequence[Any], frame: Any, fmt: str, out: TextIO) -> None:
    if fmt == "json":
        _write_json([a.to_dict() for a in alerts], out, default=str)
    elif fmt == "csv":
        out.write(frame.write_csv())
    else:
        _write_table(frame.select([c for c in _TABLE_COLUMNS if c in frame.columns]), out)


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, datetime):
        return v.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _write_table(frame: Any, out: TextIO) -> None:
    """Plain aligned columns (no box drawing), one row per line: easy to grep and cut."""
    header = [c.upper() for c in frame.columns]
    rows = [[_cell(v) for v in row] for row in frame.iter_rows()]
    _write_rows(header, rows, out)


def _write_rows(header: list[str], rows: list[list[str]], out: TextIO) -> None:
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]
    for line in [header, *rows]:
        out.write("  ".join(s.ljust(w) for s, w in zip(line, widths)).rstrip() + "\n")


def _write_records(header: list[str], rows: list[list[Any]], fmt: str, out: TextIO) -> None:
    """Small results that are not frames (profiles): a table, JSON objects or CSV."""
    if fmt == "json":
        _write_json([dict(zip(header, r)) for r in rows], out)
    elif fmt == "csv":
        w = csv.writer(out, lineterminator="\n")
        w.writerow(header)
        w.writerows([_cell(v) for v in r] for r in rows)
    else:
        _write_rows([h.upper() for h in header], [[_cell(v) for v in r] for r in rows], out)


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
_FILTER_FLAGS = {"status": "--status", "created_on_or_after": "--created-since"}


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

    try:
        alerts = client.global_alerts.list(status=status, created_on_or_after=args.created_since)
    except opsapi.InvalidArgumentError as e:  # raised before any request: name the flag
        flag = _FILTER_FLAGS.get(e.argument or "")
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
        and (args.host is None or host_matches(a))
        and (args.replica_set is None or a.replica_set_name == args.replica_set)
    ]
    ids = [a.id for a in kept]
    return kept, alerts.to_polars().filter(pl.col("id").cast(pl.String).is_in(ids))


def _exit_code(e: Exception) -> int:
    """The exit code of one failure, raised (``main``) or returned (``acknowledge_many``)."""
    import opsapi

    if isinstance(e, (opsapi.AuthenticationError, opsapi.ForbiddenError)):
        return EXIT_AUTH
    if isinstance(e, opsapi.NotFoundError):
        return EXIT_NOT_FOUND
    if isinstance(e, opsapi.TransportError):
        return EXIT_TRANSPORT
    if isinstance(e, (opsapi.InvalidArgumentError, opsapi.ConfigError)):
        return EXIT_USAGE
    return EXIT_API


def _error_text(e: Exception) -> str:
    """The text after ``error: `` (or ``error: ID: ``) of one failure: the API's
    ``errorCode: detail``, ``transport: ...``, the argument error, or the class and message of
    anything else (the server said something odd)."""
    import opsapi

    if isinstance(e, opsapi.ApiError):
        return _api_message(e)
    if isinstance(e, opsapi.TransportError):
        return f"transport: {e}"
    if isinstance(e, (opsapi.InvalidArgumentError, opsapi.ConfigError)):
        return str(e)
    return f"{type(e).__name__}: {e}"


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
    if filtered:
        matched, frame = _matching(client, args, "OPEN")
        ids = [a.id for a in matched]
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
    many = getattr(client.global_alerts, f"{args.command.replace('ack', 'acknowledge')}_many")
    results = many(ids, **kwargs)
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
    elif args.command == "open":
        alerts = client.alert_configs.open_alerts(args.group_id, args.alert_config_id)
        _write_alerts(alerts, _alerts_frame(alerts), fmt, out)
    else:
        return _cmd_change(args, client, fmt, out)
    return EXIT_OK


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


def _ask(prompt: str, default: Optional[str] = None) -> str:
    shown = f"{prompt} [{default}]: " if default else f"{prompt}: "
    try:
        answer = input(shown).strip()
    except EOFError:
        raise _UsageError(f"no answer for {prompt!r}") from None
    return answer or (default or "")


def _read_secret(args: argparse.Namespace, interactive: bool) -> str:
    if args.private_key_stdin:
        key = sys.stdin.readline().strip()
    elif interactive:
        import getpass

        key = getpass.getpass("private key (not shown): ").strip()
    else:
        raise _UsageError("the private key to store: pass --private-key-stdin and pipe it in")
    if not key:
        raise _UsageError("the private key is empty")
    return key


def _cmd_config(args: argparse.Namespace, out: TextIO) -> int:
    from opsapi import config

    fmt = _format(args)
    if args.command == "list":
        file = config.config_path()
        profiles = config.load_profiles(file)
        header = ["name", "base_url", "public_key", "private_key", "file"]
        rows = [
            [p.name, p.base_url, p.public_key, p.key_source, str(file)] for p in profiles.values()
        ]
        _write_records(header, rows, fmt, out)
        if not profiles and fmt == "table":
            print(f"no profiles in {file}; add one with: opsapi config init", file=sys.stderr)
        return EXIT_OK

    name = config.profile_name(getattr(args, "profile", None))
    if name in config.load_profiles() and not args.force:
        raise _UsageError(f"profile {name!r} exists in {config.config_path()}; pass --force")
    interactive = not args.no_input and not args.private_key_stdin and sys.stdin.isatty()
    base_url = args.base_url or (_ask("base URL (https://host:port)") if interactive else "")
    public_key = args.public_key or (_ask("public key") if interactive else "")
    env, file_, keyring = args.private_key_env, args.private_key_file, args.keyring
    if not (env or file_ or keyring) and interactive:
        choice = _ask("private key from an environment variable, a file or the keyring", "env")
        if choice.startswith("e"):
            env = _ask("environment variable", f"OPSAPI_{name.upper()}_PRIVATE_KEY")
        elif choice.startswith("f"):
            file_ = _ask("file (mode 0600)", str(config.config_path().parent / f"{name}.key"))
        elif choice.startswith("k"):
            keyring = True
        else:
            raise _UsageError(f"{choice!r}: answer env, file or keyring")
    missing = [
        flag
        for flag, given in (
            ("--base-url", base_url),
            ("--public-key", public_key),
            ("--private-key-env, --private-key-file or --keyring", env or file_ or keyring),
        )
        if not given
    ]
    if missing:
        raise _UsageError("config init: missing " + "; ".join(missing))
    if args.private_key_stdin and not (file_ or keyring):
        raise _UsageError("--private-key-stdin: give --private-key-file or --keyring to store it")
    if env and os.environ.get(env) is None:
        print(f"note: {env} is not set in this shell", file=sys.stderr)
    if file_:
        file_ = str(os.path.abspath(os.path.expanduser(file_)))
        if args.private_key_stdin or (interactive and not os.path.exists(file_)):
            config.write_private_key_file(file_, _read_secret(args, interactive), force=args.force)
    options: dict[str, Any] = {}
    if args.ca_file:
        options["ca_file"] = str(os.path.abspath(os.path.expanduser(args.ca_file)))
    if args.timeout is not None:
        options["timeout"] = args.timeout
    profile = config.Profile(
        name=name,
        base_url=base_url,
        public_key=public_key,
        private_key_env=env,
        private_key_file=file_,
        private_key_keyring=bool(keyring),
        options=options,
    )
    if file_:
        profile.private_key()  # a missing or readable-by-others file is refused now, not later
    if keyring:
        config.store_in_keyring(name, _read_secret(args, interactive))
    written = config.write_profile(profile, force=args.force)
    if fmt == "table":
        print(
            f"wrote profile {name!r} to {written} (private key: {profile.key_source})",
            file=sys.stderr,
        )
    else:
        header = ["name", "base_url", "public_key", "private_key", "file"]
        row = [name, base_url, public_key, profile.key_source, str(written)]
        if fmt == "json":
            _write_json(dict(zip(header, row)), out)
        else:
            _write_records(header, [row], fmt, out)
    return EXIT_OK


def _text_only(args: argparse.Namespace, what: str) -> None:
    """``sim`` and ``completion`` print text: ``--output`` other than table is a usage error
    (one line, exit 2) rather than text where JSON was asked for."""
    fmt = getattr(args, "output", None)
    if fmt is not None and fmt != "table":
        raise _UsageError(f"--output {fmt}: {what}; leave out --output")


def _cmd_completion(args: argparse.Namespace, out: TextIO) -> int:
    from opsapi._completion import script

    _text_only(args, "opsapi completion prints a shell script, only as text")
    out.write(script(_build_parser(), args.shell))
    return EXIT_OK


def _api_message(e: Any) -> str:
    code = e.error_code or e.reason or f"HTTP {e.status}"
    return f"{code}: {e.detail}" if e.detail else str(code)


def _cmd_sim(args: argparse.Namespace, argv: list[str]) -> int:
    """``opsapi [--profile P] [-o table] sim [flags]``: the simulator's own command line (Rust:
    the same parser, flags and output as the ``opsapi-sim`` binary), until Ctrl-C or SIGTERM.
    It connects to nothing, so a profile has nothing to choose; it prints text, so
    ``--output`` other than table is refused."""
    from opsapi import _native

    if not {"-h", "--help"} & set(argv):  # the simulator's help, whatever comes with it
        _text_only(
            args,
            "opsapi sim prints the address and keys as text (and OPSAPI_*= lines for a shell)",
        )
    try:
        return _native._sim_main(argv)
    except KeyboardInterrupt:  # the signal that stopped it, re-raised by Python on return
        return EXIT_OK


def main(argv: Optional[Sequence[str]] = None, *, out: Optional[TextIO] = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``) and return the exit code.

    >>> main(["alerts", "list", "--status", "OPEN", "--format", "json"])  # doctest: +SKIP
    0
    """
    out = out if out is not None else sys.stdout
    argv = list(argv) if argv is not None else sys.argv[1:]
    parser = _build_parser()
    try:
        # Known args: whatever follows `sim` is the simulator's own flags (its Rust parser
        # reads them), after the global options that may come before any command.
        args, rest = parser.parse_known_args(argv)
        if rest and args.area != "sim":
            parser.error("unrecognized arguments: " + " ".join(rest))
    except _UsageError as e:
        print(e, file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as e:  # --help
        return int(e.code or 0)

    import opsapi

    commands = {
        "alerts": _cmd_alerts,
        "measurements": _cmd_measurements,
        "config": _cmd_config,
        "completion": _cmd_completion,
        "sim": lambda args, out: _cmd_sim(args, rest),
    }
    try:
        return commands[args.area](args, out)
    except _UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except opsapi.OpsApiError as e:  # one line; the exit code of its class (see _exit_code)
        print(f"error: {_error_text(e)}", file=sys.stderr)
        return _exit_code(e)
    except BrokenPipeError:
        return EXIT_OK


def run() -> None:
    """Console-script entry point: ``opsapi = "opsapi.cli:run"``."""
    sys.exit(main())


if __name__ == "__main__":
    run()
