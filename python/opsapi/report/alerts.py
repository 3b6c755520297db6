"""The capacity report's alert section (``opsapi.report``): which of the projects' alerts
are noise.

From the project alerts of every project (``client.alerts.list_all().to_polars()``) and, when
given, the projects' events (whose acknowledgements say when each alert was acknowledged):
the configurations that flap on a host, the hosts that raise far more alerts than the
typical one, and the noisiest configurations with how long their alerts stay open and how
many close with nobody acknowledging them (``opsapi.alerts_analysis`` computes the figures).
Written for a team lead: host names without their shared domain, project names, alert
types and measurements in words; no ids.
"""

from __future__ import annotations

from typing import Callable, Optional

import polars as pl

from opsapi import alerts_analysis as aa

from .html import e

#: How soon a re-opening counts as flapping, and how many make a pattern (the defaults of
#: ``alerts_analysis.flapping``, said in the section's text).
FLAP_WITHIN = "30m"
FLAP_MINUTES = 30
#: Rows of the noisiest configurations and hosts.
TOP = 5

_WORDS = {"cpu": "CPU", "iops": "IOPS", "oplog": "oplog", "ssl": "SSL", "tls": "TLS"}


def words(name: Optional[str]) -> str:
    """An Ops Manager name as words: ``OUTSIDE_METRIC_THRESHOLD`` → ``Outside metric
    threshold``, ``SYSTEM_NORMALIZED_CPU_USER`` → ``System normalized CPU user``.

    >>> words("DISK_PARTITION_SPACE_PERCENT_USED")
    'Disk partition space percent used'
    """
    if not name:
        return ""
    parts = [_WORDS.get(p.lower(), p.lower()) for p in str(name).split("_")]
    first = parts[0] if parts[0].isupper() else parts[0].capitalize()
    return " ".join([first, *parts[1:]])


def config_name(event_type: Optional[str], metric: Optional[str]) -> str:
    """What an alert configuration watches, in words: its measurement outside its threshold
    (the metric alerts), its measurement and event type, or the event type alone.

    >>> config_name("OUTSIDE_METRIC_THRESHOLD", "CONNECTIONS")
    'Connections outside its threshold'
    >>> config_name("HOST_DOWN", None)
    'Host down'
    """
    what = words(event_type)
    if not metric:
        return what or "alert"
    if event_type == "OUTSIDE_METRIC_THRESHOLD":
        return f"{words(metric)} outside its threshold"
    return f"{words(metric)} ({what.lower()})" if what else words(metric)


def minutes_text(m: Optional[float]) -> str:
    """A duration in minutes as people say it: ``12 min``, ``3.5 h``, ``2.1 days``.

    >>> [minutes_text(m) for m in (0.4, 12.2, 210, 3000, None)]
    ['0 min', '12 min', '3.5 h', '2.1 days', '']
    """
    if m is None:
        return ""
    if m < 90:
        return f"{m:.0f} min"
    if m < 48 * 60:
        return f"{m / 60:.1f} h"
    return f"{m / 1440:.1f} days"


def _percent(share: Optional[float]) -> str:
    return "" if share is None else f"{share * 100:.0f} %"


def _ensure_columns(alerts: pl.DataFrame) -> pl.DataFrame:
    """The columns the analysis reads, null where an alert frame lacks them (an empty list
    has no columns)."""
    need = {
        "id": pl.String, "group_id": pl.String, "alert_config_id": pl.String,
        "event_type_name": pl.String, "metric_name": pl.String, "status": pl.String,
        "host_id": pl.String, "hostname_and_port": pl.String,
        "acknowledging_username": pl.String,
        "created": pl.Datetime("ms", "UTC"), "resolved": pl.Datetime("ms", "UTC"),
    }  # fmt: skip
    missing = [pl.lit(None, dtype).alias(c) for c, dtype in need.items() if c not in alerts.columns]
    return alerts.with_columns(missing) if missing else alerts


def _host() -> pl.Expr:
    """The host an alert is about, as ``alerts_analysis`` keys it: ``hostname_and_port``,
    else ``host_id``."""
    return pl.coalesce(
        pl.col("hostname_and_port").cast(pl.String), pl.col("host_id").cast(pl.String)
    )


def analyse(
    alerts: pl.DataFrame,
    events: Optional[pl.DataFrame],
    names: dict[str, str],
    host: Callable[[Optional[str]], str],
) -> dict[str, pl.DataFrame]:
    """The section's three tables as frames, with the words the page shows: ``alert_noise``
    (the noisiest configurations), ``alert_flapping`` (the configurations that flap, per
    host) and ``alert_hosts`` (the hosts with the most alerts, and the alert each raises
    most)."""
    alerts = _ensure_columns(alerts)
    project = (
        alerts.select(pl.col("alert_config_id").cast(pl.String), pl.col("group_id").cast(pl.String))
        .drop_nulls()
        .unique("alert_config_id", keep="first", maintain_order=True)
    )
    hosts = (
        alerts.select(host=_host(), group_id=pl.col("group_id").cast(pl.String))
        .drop_nulls()
        .unique("host", keep="first", maintain_order=True)
    )

    def readable(frame: pl.DataFrame) -> pl.DataFrame:
        return frame.with_columns(
            project=pl.col("group_id").replace_strict(names, default=pl.col("group_id")),
            configuration=pl.struct("event_type_name", "metric_name").map_elements(
                lambda r: config_name(r["event_type_name"], r["metric_name"]),
                return_dtype=pl.String,
            ),
        )

    noise = aa.noise(alerts, events=events).with_columns(
        pl.col("alert_config_id", "event_type_name").cast(pl.String),
        share=pl.col("alerts") / max(alerts.height, 1),
    )
    noise = readable(
        noise.join(project, on="alert_config_id", how="left", maintain_order="left")
    ).head(TOP)
    flaps = aa.flapping(alerts, within=FLAP_WITHIN).filter("flapping")
    flaps = readable(
        flaps.with_columns(pl.col("alert_config_id", "event_type_name").cast(pl.String)).join(
            project, on="alert_config_id", how="left", maintain_order="left"
        )
    ).with_columns(host_name=pl.col("host").map_elements(host, return_dtype=pl.String))
    # What each host raises most: its commonest alert, and how many of it.
    commonest = (
        alerts.with_columns(host=_host(), event_type_name=pl.col("event_type_name").cast(pl.String))
        .filter(pl.col("host").is_not_null())
        .group_by("host", "event_type_name", "metric_name")
        .agg(commonest_alerts=pl.len())
        .sort(
            ["commonest_alerts", "event_type_name", "metric_name"],
            descending=[True, False, False],
            nulls_last=True,
        )
        .unique("host", keep="first", maintain_order=True)
    )
    loud = (
        aa.noisiest(alerts, by="host", top=TOP)
        .join(hosts, on="host", how="left", maintain_order="left")
        .join(commonest, on="host", how="left", maintain_order="left")
    )
    loud = readable(loud).with_columns(
        host_name=pl.col("host").map_elements(host, return_dtype=pl.String)
    )
    return {"alert_noise": noise, "alert_flapping": flaps, "alert_hosts": loud}


def section(
    alerts: Optional[pl.DataFrame],
    events: Optional[pl.DataFrame],
    names: dict[str, str],
    host: Callable[[Optional[str]], str],
    table: Callable[..., str],
    frames: dict[str, pl.DataFrame],
) -> tuple[str, list]:
    """The section's HTML (no charts): a few sentences, then the flapping configurations, the
    noisiest hosts and the noisiest configurations. Its frames go into ``frames``. Nothing
    without an alert frame (a report made without alerts)."""
    if alerts is None:
        return "", []
    head = '<section id="alerts"><h2>Alerts: which are noise</h2>'
    if alerts.is_empty():
        return head + "<p>The projects hold no alerts.</p></section>", []
    got = analyse(alerts, events, names, host)
    frames.update(got)
    noise, flaps, loud = got["alert_noise"], got["alert_flapping"], got["alert_hosts"]
    created = _ensure_columns(alerts)["created"].drop_nulls()
    span = (
        f" opened between {created.min():%b %-d} and {created.max():%b %-d, %Y}"
        if created.len()
        else ""
    )
    said = [
        f"<b>{_e(r['host_name'])}</b>{_in(r['project'])}: {_e(r['configuration'])} flaps, "
        f"re-opening {r['reopens']} times within {FLAP_MINUTES} minutes of closing "
        f"({r['alerts']} alerts)."
        for r in flaps.iter_rows(named=True)
    ]
    said += [
        f"<b>{_e(r['host_name'])}</b>{_in(r['project'])} raised {r['alerts']} of the "
        f"{alerts.height} alerts "
        f"({_percent(r['share'])}), {r['times_typical']:.1f}× as many as the typical host."
        for r in loud.filter("noisy").iter_rows(named=True)
    ]
    if not said:
        said = ["No configuration flaps and no host raises far more alerts than the others."]
    intro = (
        f"<p>{alerts.height} project alerts{span}. A configuration <b>flaps</b> on a host when "
        f"its alerts open again within {FLAP_MINUTES} minutes of closing, twice or more: the "
        "condition hovers at its threshold. A host is <b>noisy</b> with three times the "
        "alerts of the typical host.</p>" + "".join(f'<p class="said">{s}</p>' for s in said)
    )
    parts = [head, intro]
    if not flaps.is_empty():
        rows = [
            [
                r["host_name"], r["project"] or "", r["configuration"], str(r["alerts"]),
                (str(r["reopens"]), "warning"),
                _gaps(r["shortest_gap_minutes"], r["longest_gap_minutes"]),
            ]
            for r in flaps.iter_rows(named=True)
        ]  # fmt: skip
        header = ["host", "project", "alert", "alerts", "re-openings", "back after"]
        parts.append("<h3>Flapping</h3>" + table(header, rows, cls="alerts", numeric=(3, 4, 5)))
    rows = [
        [
            r["host_name"], r["project"] or "", str(r["alerts"]), _percent(r["share"]),
            (f"{r['times_typical']:.1f}×", "warning" if r["noisy"] else ""),
            f"{r['configuration']} ({r['commonest_alerts']})",
        ]
        for r in loud.iter_rows(named=True)
    ]  # fmt: skip
    header = ["host", "project", "alerts", "share of all alerts", "vs the typical host",
              "its commonest alert"]  # fmt: skip
    parts.append(
        f"<h3>The {loud.height} hosts with the most alerts</h3>"
        + table(header, rows, cls="alerts", numeric=(2, 3, 4))
    )
    rows = [
        [
            r["configuration"], r["project"] or "", str(r["alerts"]), _percent(r["share"]),
            minutes_text(r["open_minutes_p50"]), minutes_text(r["open_minutes_p95"]),
            _percent(r["acknowledged_share"]), _percent(r["closed_unacknowledged_share"]),
        ]
        for r in noise.iter_rows(named=True)
    ]  # fmt: skip
    header = ["alert", "project", "alerts", "share of all alerts", "open (median)",
              "open (p95)", "acknowledged", "closed with nobody acknowledging"]  # fmt: skip
    parts.append(
        f"<h3>The {noise.height} noisiest alert configurations</h3>"
        + table(header, rows, cls="alerts", numeric=(2, 3, 4, 5, 6, 7))
    )
    return "".join(parts) + "</section>", []


def _in(project: Optional[str]) -> str:
    return f" ({_e(project)})" if project else ""


def _gaps(shortest: Optional[float], longest: Optional[float]) -> str:
    if shortest is None:
        return ""
    if longest is None or round(longest) == round(shortest):
        return minutes_text(shortest)
    return f"{shortest:.0f}–{minutes_text(longest)}"


_e = e
