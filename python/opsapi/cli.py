"""``opsapi``: alert handling and measurement export from scripts.

Credentials come from ``OPSAPI_BASE_URL``, ``OPSAPI_PUBLIC_KEY``, ``OPSAPI_PRIVATE_KEY`` (and
optionally ``OPSAPI_CA_FILE``), as for :meth:`opsapi.Client.from_env`.

Exit codes a script can rely on:

====  =========================================================
0     success
2     usage error, invalid argument or missing configuration
3     not found (404)
4     authentication failed (401) or forbidden (403)
5     any other error answer from the API, or an undecodable one
6     transport: connect, TLS, timeout, reset
====  =========================================================

On an API failure the one line on stderr is ``error: <errorCode>: <detail>``.

Example::

    $ opsapi alerts list --status OPEN --format csv > open.csv
    $ opsapi alerts ack 5b7c... --for 4h --comment "disk resize scheduled"
    $ opsapi measurements host $GROUP $HOST --granularity PT1M --period P1D \\
          --metric CONNECTIONS --output conn.parquet
"""

from __future__ import annotations

import argparse
import csv
import io
import json
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


def _build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="opsapi",
        description="Ops Manager public API from the command line (credentials from OPSAPI_*).",
    )
    top = p.add_subparsers(dest="area", required=True, parser_class=_Parser)

    alerts = top.add_parser("alerts", help="global alerts and open alerts of a configuration")
    a = alerts.add_subparsers(dest="command", required=True, parser_class=_Parser)

    ls = a.add_parser("list", help="list global alerts")
    ls.add_argument("--status", help="OPEN, TRACKING, CLOSED, ... (default: all)")
    ls.add_argument("--format", choices=["table", "json", "csv"], default="table")

    ack = a.add_parser("ack", help="acknowledge a global alert")
    ack.add_argument("alert_id")
    when = ack.add_mutually_exclusive_group(required=True)
    when.add_argument("--until", help="ISO 8601 instant with a time zone")
    when.add_argument(
        "--for", dest="for_", metavar="DURATION", help="30m, 4h, 2d, 1w or ISO 8601 (PT4H)"
    )
    when.add_argument("--forever", action="store_true", help="acknowledge without end")
    ack.add_argument("--comment")
    ack.add_argument("--format", choices=["table", "json", "csv"], default="table")

    unack = a.add_parser("unack", help="un-acknowledge a global alert")
    unack.add_argument("alert_id")
    unack.add_argument("--format", choices=["table", "json", "csv"], default="table")

    op = a.add_parser("open", help="open alerts of one alert configuration")
    op.add_argument("group_id")
    op.add_argument("alert_config_id")
    op.add_argument("--format", choices=["table", "json", "csv"], default="table")

    meas = top.add_parser("measurements", help="host and disk measurements to CSV or Parquet")
    m = meas.add_subparsers(dest="command", required=True, parser_class=_Parser)
    host = m.add_parser("host", help="measurements of a host")
    host.add_argument("group_id")
    host.add_argument("host_id")
    disk = m.add_parser("disk", help="measurements of a disk partition")
    disk.add_argument("group_id")
    disk.add_argument("host_id")
    disk.add_argument("partition_name")
    for sp in (host, disk):
        sp.add_argument("--granularity", required=True, help="ISO 8601 duration, e.g. PT1M")
        sp.add_argument("--period", help="ISO 8601 duration, e.g. P1D")
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
            default="-",
            help="file.csv or file.parquet; '-' (default) writes CSV to stdout",
        )
    return p


def _client() -> Any:
    import opsapi

    return opsapi.Client.from_env()


def _alerts_frame(alerts: Any) -> Any:
    return alerts.to_polars()


def _write_alerts(alerts: Sequence[Any], frame: Any, fmt: str, out: TextIO) -> None:
    if fmt == "json":
        json.dump([a.to_dict() for a in alerts], out, indent=2, default=str)
        out.write("\n")
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
    """Plain aligned columns (no box drawing), one alert per line: easy to grep and cut."""
    header = [c.upper() for c in frame.columns]
    rows = [[_cell(v) for v in row] for row in frame.iter_rows()]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]
    for line in [header, *rows]:
        out.write("  ".join(s.ljust(w) for s, w in zip(line, widths)).rstrip() + "\n")


def _one_alert(alert: Any, fmt: str, out: TextIO) -> None:
    import polars as pl

    if fmt == "json":
        json.dump(alert.to_dict(), out, indent=2, default=str)
        out.write("\n")
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


def _cmd_alerts(args: argparse.Namespace, out: TextIO) -> int:
    client = _client()
    if args.command == "list":
        alerts = client.global_alerts.list(status=args.status)
        _write_alerts(alerts, _alerts_frame(alerts), args.format, out)
    elif args.command == "open":
        alerts = client.alert_configs.open_alerts(args.group_id, args.alert_config_id)
        _write_alerts(alerts, _alerts_frame(alerts), args.format, out)
    elif args.command == "ack":
        kwargs: dict[str, Any] = {"comment": args.comment}
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
        alert = client.global_alerts.acknowledge(args.alert_id, **kwargs)
        _one_alert(alert, args.format, out)
    elif args.command == "unack":
        alert = client.global_alerts.unacknowledge(args.alert_id)
        _one_alert(alert, args.format, out)
    return EXIT_OK


def _cmd_measurements(args: argparse.Namespace, out: TextIO) -> int:
    target = args.output
    lower = target.lower()
    if target != "-" and not lower.endswith((".csv", ".parquet", ".pq")):
        raise _UsageError("--output: the file name must end in .csv or .parquet (or be '-')")
    client = _client()
    window: dict[str, Any] = {
        "granularity": args.granularity,
        "period": args.period,
        "start": args.start,
        "end": args.end,
        "metrics": args.metrics,
    }
    if args.command == "host":
        result = client.measurements.host(args.group_id, args.host_id, **window)
    else:
        result = client.measurements.disk(
            args.group_id, args.host_id, args.partition_name, **window
        )
    frame = result.to_polars(shape=args.shape)
    if target == "-":
        out.write(frame.write_csv())
    elif lower.endswith(".csv"):
        frame.write_csv(target)
    else:
        frame.write_parquet(target)
    if target != "-":
        print(f"wrote {frame.height} rows to {target}", file=sys.stderr)
    return EXIT_OK


def _api_message(e: Any) -> str:
    code = e.error_code or e.reason or f"HTTP {e.status}"
    return f"{code}: {e.detail}" if e.detail else str(code)


def main(argv: Optional[Sequence[str]] = None, *, out: Optional[TextIO] = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``) and return the exit code.

    >>> main(["alerts", "list", "--status", "OPEN", "--format", "json"])  # doctest: +SKIP
    0
    """
    out = out if out is not None else sys.stdout
    parser = _build_parser()
    try:
        args = parser.parse_args(list(argv) if argv is not None else None)
    except _UsageError as e:
        print(e, file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as e:  # --help
        return int(e.code or 0)

    import opsapi

    try:
        if args.area == "alerts":
            return _cmd_alerts(args, out)
        return _cmd_measurements(args, out)
    except _UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except (opsapi.AuthenticationError, opsapi.ForbiddenError) as e:
        print(f"error: {_api_message(e)}", file=sys.stderr)
        return EXIT_AUTH
    except opsapi.NotFoundError as e:
        print(f"error: {_api_message(e)}", file=sys.stderr)
        return EXIT_NOT_FOUND
    except opsapi.ApiError as e:
        print(f"error: {_api_message(e)}", file=sys.stderr)
        return EXIT_API
    except opsapi.TransportError as e:
        print(f"error: transport: {e}", file=sys.stderr)
        return EXIT_TRANSPORT
    except (opsapi.InvalidArgumentError, opsapi.ConfigError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except opsapi.OpsApiError as e:  # DecodeError, PagingError: the server said something odd
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
        return EXIT_API
    except BrokenPipeError:
        return EXIT_OK


def run() -> None:
    """Console-script entry point: ``opsapi = "opsapi.cli:run"``."""
    sys.exit(main())


if __name__ == "__main__":
    run()
