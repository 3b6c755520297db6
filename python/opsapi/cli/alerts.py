"""``opsapi alerts list|ack|unack|show|open``: list, acknowledge and un-acknowledge alerts (by
id or by filter): global alerts (``--global``, the default), or project alerts of the projects
given by name or id (``--project``, repeatable) or of every project (``--all-projects``); show
one alert, in its context; and the open alerts of one alert configuration.

The subcommands live beside this module: ``alert_list`` (list, and the filters and rows the
others share), ``alert_change`` (ack, unack, dry runs), ``alert_show`` (show)."""

from __future__ import annotations

import argparse
from typing import TextIO

from ._base import (
    EXIT_OK,
    FORMATS,
    Command,
    Parser,
    UsageError,
    client,
    common,
    format_option,
    output_format,
    project_ids,
)
from .alert_change import ack_arguments, run_change, unack_arguments
from .alert_list import list_arguments, run_list, write_alerts
from .alert_show import show, show_arguments


def _run(args: argparse.Namespace, out: TextIO) -> int:
    fmt = output_format(args, formats=(*FORMATS, "parquet") if args.command == "list" else FORMATS)
    if args.command == "ack" and args.for_ is not None:
        from opsapi._duration import parse_duration

        try:
            parse_duration(args.for_)
        except ValueError as e:
            raise UsageError(f"--for: {e}") from None
    c = client(args)
    if args.command == "list":
        run_list(c, args, fmt, out)
    elif args.command == "show":
        show(c, args, fmt, out)
    elif args.command == "open":
        (group_id,) = project_ids(c, [args.group_id], "PROJECT")
        alerts = c.alert_configs.open_alerts(group_id, args.alert_config_id)
        write_alerts(alerts, alerts.to_polars(), fmt, out, now=c.server_time)
    else:
        return run_change(c, args, fmt, out)
    return EXIT_OK


def _arguments(alerts: argparse.ArgumentParser) -> None:
    a = alerts.add_subparsers(dest="command", required=True, parser_class=Parser)
    ls = a.add_parser("list", help="list global or project alerts (with filters)")
    list_arguments(ls)
    ack = a.add_parser("ack", help="acknowledge alerts: by id, or every one a filter matches")
    ack_arguments(ack)
    unack = a.add_parser("unack", help="un-acknowledge alerts: by id or by filter")
    unack_arguments(unack)
    sh = a.add_parser("show", help="one alert; with --context, its metric around it")
    show_arguments(sh)
    op = a.add_parser("open", help="open alerts of one alert configuration")
    op.add_argument("group_id", metavar="PROJECT", help="the project, by name or id")
    op.add_argument("alert_config_id", metavar="ALERT_CONFIG_ID", help="the alert configuration")
    for sp in (ls, ack, unack, sh, op):
        format_option(sp, (*FORMATS, "parquet") if sp is ls else ())
        common(sp)


ALERTS = Command(arguments=_arguments, run=_run)
