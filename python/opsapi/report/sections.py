"""The report's sections, in the order a team lead reads them: what runs out first, the
headroom table, a chart per finding, the disks closest to full and the databases behind
their growth, which alerts are noise (``alerts.py``), and every flagged host.

Every figure comes from :mod:`opsapi.capacity`'s public functions; a section only words and
lays out what they return.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Optional

import polars as pl

from opsapi import capacity
from opsapi._duration import parse_duration

from . import alerts as report_alerts
from .charts import LABELS, finding_chart, series_of, shard_chart, shard_points, title_text
from .html import GIB, date, e, labeller, number, page, short, table

__all__ = ["ReportData", "render"]

_FLAGGED = ["critical", "warning", "watch"]
#: The columns of the headroom table that are not a resource's.
_ROLE_COLUMNS = {"config_servers": "Config servers", "mongos": "Mongos"}
#: What a role's host is called, in the disks' and databases' tables.
_ROLE_NAMES = {"config": "config server", "mongos": "mongos", "arbiter": "arbiter"}


@dataclass
class ReportData:
    """What the report is made of: the long host, disk and database frames, the hosts, the
    project names by id, the window and the instant it ends; the project alerts
    (``AlertList.to_polars()``) and the projects' events (when each alert was acknowledged),
    and the sync that filled the measurement store the frames were read from.

    >>> data = ReportData(host_frame, disk_frame, hosts, names)  # doctest: +SKIP
    """

    host_frame: pl.DataFrame
    disk_frame: pl.DataFrame
    hosts: Any
    names: dict[str, str]
    window: str = "14d"
    now: Optional[datetime] = None
    db_frame: Optional[pl.DataFrame] = None
    alerts: Optional[pl.DataFrame] = None
    alert_events: Optional[pl.DataFrame] = None
    sync: Any = None
    frames: dict[str, pl.DataFrame] = field(default_factory=dict)
    #: Each Atlas deployment's tier by its headroom scope (``{"Cluster0": "M50"}``): the
    #: oversized section then says whether one tier down fits (``capacity.tier_down``).
    #: Without it, the clusters' (``capacity.cluster_tiers``).
    tiers: Optional[dict[str, str]] = None
    #: The projects' clusters (``client.clusters.list``): deployments are named by their
    #: cluster, on Atlas every process of a cluster is in its roll-up, and their tiers fill
    #: ``tiers``.
    clusters: Any = None
    #: The projects' events over the history the frames hold
    #: (:func:`opsapi.capacity.window_events`): each finding's chart marks its deployment's
    #: of the window, a tier change or disk resize restarts the forecasts of the hosts it
    #: changed (:func:`opsapi.capacity.event_breaks`), and a project whose events the server
    #: refused is named with why. Without it, no marks and no restarts but the series' own.
    events: Optional[capacity.WindowEvents] = None
    #: The namespaces and query shapes behind the CPU, cache, tickets and connections
    #: findings (:func:`opsapi.capacity.finding_drivers`), named under their charts, and why
    #: a host's are missing. Without it, none named.
    drivers: Optional[capacity.Drivers] = None


def render(data: ReportData) -> str:
    """The whole page; the frames behind it go into ``data.frames``.

    >>> html = render(data)  # doctest: +SKIP

    Raises ImportError naming the extra to install when Altair or vl-convert is missing.
    """
    try:
        import altair  # noqa: F401
        import vl_convert  # noqa: F401
    except ImportError as e:
        raise ImportError(
            f"the report's charts need Altair and vl-convert ({e.name} is missing): "
            "pip install 'opsapi[charts]'",
            name=e.name,
        ) from None
    if data.now is None:
        data.now = pl.concat(
            [data.host_frame.select("timestamp"), data.disk_frame.select("timestamp")]
        )["timestamp"].max()
    now = data.now
    data.frames["topology"] = capacity.topology(data.hosts, data.clusters)
    events = None if data.events is None else data.events.frame
    h = capacity.headroom(
        data.host_frame, data.disk_frame, data.hosts, window=data.window, now=data.now,
        clusters=data.clusters, events=events,
    )  # fmt: skip
    if data.tiers is None and data.clusters:
        data.tiers = capacity.cluster_tiers(h, data.clusters) or None
    summary = capacity.headroom_summary(h, names=data.names)
    table_ = capacity.headroom_table(h, names=data.names)
    forecast = capacity.disk_forecast(
        data.disk_frame, window=data.window, now=data.now, events=events, hosts=data.hosts,
        clusters=data.clusters,
    )  # fmt: skip
    bt = capacity.backtest(
        data.host_frame, data.disk_frame, data.hosts, window=data.window, now=data.now,
        events=events, clusters=data.clusters,
    )  # fmt: skip
    data.frames.update(
        headroom=h, summary=summary, headroom_table=table_, forecast=forecast, backtest=bt
    )
    if data.db_frame is not None and not data.db_frame.is_empty():
        data.frames["database_growth"] = capacity.database_growth(
            data.db_frame, window=data.window, disks=forecast, disk_frame=data.disk_frame,
            now=data.now,
        )  # fmt: skip
    parts = [
        _summary_section(summary, now, data.window, _ranges_said(h, bt, data)),
        _headroom_section(table_),
        _findings_section(h, data),
        _oversized_section(h, data),
        _disks_section(forecast, data),
        _databases_section(forecast, data),
        _alerts_section(data),
        _details_section(h),
    ]
    charts = [p for _, p in parts if p]
    body = "\n".join(s for s, _ in parts)
    return page(body, [c for group in charts for c in group])


def _summary_section(
    summary: pl.DataFrame, now: datetime, window: str, ranges: str
) -> tuple[str, list]:
    items = "".join(
        f'<li class="{e(r["status"])}">{e(r["summary"])}</li>'
        for r in summary.iter_rows(named=True)
    )
    return (
        '<section id="summary"><h1>What runs out first</h1>'
        f'<ul class="summary">{items}</ul>'
        f'<p class="asof">As of {now:%Y-%m-%d %H:%M} UTC, from the last {e(window)} of '
        "measurements. Days left count to each resource's limit at the trend of its daily "
        "peaks (a weekly cycle taken out: a quiet weekend is not a slowdown); <b>now</b>: past "
        "it. A sharded cluster's resources are its shards' data-bearing members'; its config "
        f'servers and mongos are named as such.</p><p class="ranges">{e(ranges)}</p></section>',
        [],
    )


def _ranges_said(h: pl.DataFrame, bt: pl.DataFrame, data: ReportData) -> str:
    """Where the ranges in brackets come from, in words: each forecast's own past on this
    fleet's history where it is long enough, or the fit alone where it is not; and that the
    days count to the series itself reaching its limit, from where its present regime
    starts."""
    sources = set(h["interval_source"].drop_nulls().to_list())
    stamps = pl.concat([data.host_frame.select("timestamp"), data.disk_frame.select("timestamp")])
    first = stamps["timestamp"].min()
    days = 0 if first is None else int((data.now - first).total_seconds() // 86_400)
    said = (
        "The figures in brackets are each date's 80 % range for the first time the series "
        "itself reaches its limit, fitted from where its present growth started (a step, a "
        "change of growth or of capacity restarts the fit, and the finding says so)"
    )
    if "backtest" in sources:
        return (
            f"{said}. Each range is calibrated on forecasts made the same way on its own last "
            f"{days} days and checked against what came (a backtest)."
        )
    return (
        f"{said}. With {days} days of history, too few to check past forecasts against what "
        "came, each range comes from the fit: the slope's uncertainty and how far the series "
        "strays from its trend."
    )


def _headroom_section(table_: pl.DataFrame) -> tuple[str, list]:
    labels = {**LABELS, **_ROLE_COLUMNS}
    shown = [r for r in labels if table_[f"{r}_status"].drop_nulls().len()]
    # A resource that runs out nowhere needs no column: it is named below the table.
    calm = [r for r in shown if set(table_[f"{r}_status"].drop_nulls()) == {"ok"}]
    columns = [r for r in shown if r not in calm]
    rows = [
        [row["deployment"]]
        + [
            (capacity.cell_text(row[r], row[f"{r}_status"]), row[f"{r}_status"] or "na")
            for r in columns
        ]
        for row in table_.iter_rows(named=True)
    ]
    header = ["Deployment"] + [labels[r] for r in columns]
    legend = "".join(
        f'<span class="{s}">{t}</span>'
        for s, t in (("critical", "within a week"), ("warning", "within a month"),
                     ("watch", "within 90 days"), ("ok", "not running out"),
                     ("oversized", "oversized: below half its limits"),
                     ("missing", "no data"))
    )  # fmt: skip
    return (
        '<section id="headroom"><h2>Headroom: days left per resource</h2>'
        + table(header, rows, cls="headroom", numeric=range(1, len(header)))
        + f'<p class="legend">{legend}</p>'
        + (
            f'<p class="calm">Not running out anywhere: {e(", ".join(labels[r] for r in calm))}.'
            "</p>"
            if calm
            else ""
        )
        + '<p class="asof"><b>high</b>: flagged without a date (the CPU\'s p95 past its mark). '
        "Config servers and mongos: the days left of their most urgent resource.</p>"
        "</section>",
        [],
    )


def _oversized_section(h: pl.DataFrame, data: ReportData) -> tuple[str, list]:
    """The deployments that could be smaller: each sizing resource's peak as a share of its
    limit and, with their Atlas tiers, whether one tier down fits."""
    big = capacity.oversized_deployments(h, names=data.names)
    data.frames["oversized"] = big
    if big.is_empty():
        return (
            '<section id="oversized"><h2>What is oversized</h2><p>No deployment: each has a '
            "resource that peaked above half its limit over the window, or a finding.</p>"
            "</section>",
            [],
        )
    down = (
        capacity.tier_down(h, data.tiers).rename({"binding": "down_binding"})
        if data.tiers
        else None
    )
    rows = []
    for r in big.iter_rows(named=True):
        cells = [r["deployment"]] + [
            "" if r[k] is None else f"{r[k] * 100:.0f} %" for k in ("cpu", "cache", "disk", "iops")
        ]
        if down is not None:
            d = down.filter(pl.col("scope") == r["scope"])
            d = d.row(0, named=True) if d.height else {}
            fits = d.get("fits")
            cells += [
                d.get("tier") or "",
                "" if fits is None else f"{'yes' if fits else 'no'}: {d['tier_down']}, "
                f"{d['down_binding']} at {d['share_of_limit'] * 100:.0f} % of its limit",
            ]  # fmt: skip
        rows.append(cells)
    header = ["Deployment", "CPU peak", "Cache (dirty) peak", "Disk space peak", "IOPS peak"]
    header += ["Tier", "One tier down"] if down is not None else []
    return (
        '<section id="oversized"><h2>What is oversized</h2>'
        "<p>Deployments whose CPU, cache, disk space and IOPS each peaked at most half their "
        "limit over the window, with nothing flagged: half the machine would still peak at "
        "or under every limit. Each peak as a share of its limit.</p>"
        + table(header, rows, numeric=range(1, 5))
        + (
            '<p class="asof">One tier down: the next smaller Atlas tier still leaves each '
            "resource's peak, moved by its trend 30 days ahead and scaled by the smaller tier's "
            "vCPUs and memory, at most 70 % of its limit.</p>"
            if down is not None
            else ""
        )
        + "</section>",
        [],
    )


def _finding_rows(h: pl.DataFrame, data: ReportData) -> pl.DataFrame:
    """The flagged rows of each deployment (its own scopes), in the summary's order, one per
    deployment, scope kind and resource."""
    summary = data.frames["summary"]
    order = summary.select("deployment").with_row_index("_o")
    rows = capacity.deployment_rows(h, data.names).join(order, on="deployment")
    return (
        rows.filter(pl.col("status").is_in(_FLAGGED), pl.col("resource") != "shard_growth")
        .sort("_o", maintain_order=True)
        .unique(["deployment", "scope_kind", "resource"], keep="first", maintain_order=True)
    )


def _findings_section(h: pl.DataFrame, data: ReportData) -> tuple[str, list]:
    now = data.now
    topo = data.frames["topology"]
    specs = []
    bt = data.frames["backtest"]
    rows = _finding_rows(h, data)
    marks = None
    if data.events is not None:
        start = now - parse_duration(data.window)
        shown = data.events.frame.filter(pl.col("created") >= start)
        marks = capacity.finding_events(rows, shown, topo)
        data.frames["events"] = marks
    for i, r in enumerate(rows.iter_rows(named=True)):
        series = series_of(r, data.host_frame, data.disk_frame, topo)
        mine = None if marks is None else marks.filter(pl.col("deployment") == r["deployment"])
        chart = finding_chart(r, series, now, mine)
        said = _caption(r, bt)
        specs.append((f"finding-{i}", title_text(r), chart.to_dict(), said, _driven(r, data)))
    flagged = h.filter(
        pl.col("resource") == "shard_growth", pl.col("status").is_in(["critical", "warning"])
    )
    if not flagged.is_empty():
        first = flagged.row(0, named=True)
        pts = shard_points(flagged, topo, data.frames["forecast"], data.disk_frame)
        deployment = _deployment_of(first["scope"], data)
        chart = shard_chart(first, deployment, pts, now)
        name = f"{deployment}: {LABELS['shard_growth']}"
        specs.append(("finding-shards", name, chart.to_dict(), "", ""))
    divs = "".join(
        f'<div class="finding"><div class="chart" id="{cid}" data-title="{e(name)}"></div>'
        + (f'<p class="accuracy">{e(caption)}</p>' if caption else "")
        + (f'<p class="drivers">{e(driven)}</p>' if driven else "")
        + "</div>"
        for cid, name, _, caption, driven in specs
    )
    return (
        '<section id="findings"><h2>The findings, most urgent first</h2>'
        "<p>Each chart: the hourly series of the member that sets the value, its trend "
        "(dashed, fitted to the daily peaks with the weekly cycle taken out) up to the day it "
        "reaches the limit, that day and its 80 % range (shaded), now, and every threshold "
        "the finding names (red), the deployment's elections, restarts, hosts down, "
        "auto-scaling and tier or disk changes (purple, each labelled at its time); below it, "
        "how close past forecasts of its kind came on this fleet; under a CPU, cache, "
        "tickets or connections chart the query shapes that took most of its host's "
        "slow-query time, under a disk chart the databases that make its growth (the APIs "
        "give database sizes, not collections'). Drag to pan, scroll to zoom "
        f"in time.</p>{_no_marks(data)}{_restarted(h, data.names)}"
        f'<div class="charts">{divs}</div></section>',
        [(cid, spec) for cid, _, spec, _, _ in specs],
    )


def _driven(row: dict, data: ReportData) -> str:
    """Under a CPU, cache, tickets or connections chart: the namespaces and query shapes
    that take most of its host's slow-query time, or why none is named."""
    if row["resource"] == "disk":
        return _growing(row, data)
    d = data.drivers
    if d is None or row["resource"] not in capacity.DRIVEN_RESOURCES:
        return ""
    host = short(row["member"])
    if row["member"] in d.missing:
        return f"Slow queries on {host}: {d.missing[row['member']]}."
    mine = d.frame.filter(pl.col("member") == row["member"], pl.col("resource") == row["resource"])
    text = capacity.driver_text(mine)
    return f"Slow queries on {host}: {text}." if text else f"Slow queries on {host}: none."


def _growing(row: dict, data: ReportData) -> str:
    """Under a disk chart: the databases that make its partition's growth, each with its
    share (by database: the APIs give no collection sizes)."""
    growth = data.frames.get("database_growth")
    if growth is None:
        return ""
    topo = data.frames["topology"]
    one = pl.DataFrame({k: [row[k]] for k in ("deployment", "resource", "member", "part")},
                       schema_overrides={"part": pl.String})  # fmt: skip
    mine = capacity.disk_drivers(growth, one, topo)
    text = capacity.growth_text(mine)
    where = f"{short(row['member'])} {row['part']}"
    return f"Growing on {where}: {text} (by database)." if text else ""


def _restarted(h: pl.DataFrame, names: Optional[dict] = None) -> str:
    """One line per deployment whose forecasts a tier change or a disk resize restarted
    (:func:`opsapi.capacity.restart_texts`)."""
    return "".join(
        f'<p class="asof restarted">{e(t)}</p>' for t in capacity.restart_texts(h, names)
    )


def _no_marks(data: ReportData) -> str:
    """One line per project whose events the server refused: its charts carry no marks."""
    if data.events is None:
        return ""
    return "".join(
        f'<p class="asof missing-events">{e(data.names.get(g, g))}: {e(why)}.</p>'
        for g, why in data.events.missing.items()
    )


def _caption(row: dict, bt: pl.DataFrame) -> str:
    """Under a finding's chart: its range, what the range rests on, where its regime starts,
    and how close past forecasts of its kind came."""
    days = row.get("days_left")
    if not days:
        return ""
    span = capacity.range_text(row.get("days_low"), row.get("days_high"))
    rests = row.get("rests_on") or "80 %"
    said = f"In ~{days:.0f} days ({span}, {rests})" if span else f"In ~{days:.0f} days"
    regime = capacity.regime_text(row)
    if regime:
        said = f"{said}; {regime}"
    accuracy = capacity.accuracy_text(bt, row["resource"], days)
    if row.get("interval_source") == "backtest" and accuracy:
        return f"{said}; {accuracy}."
    return f"{said}."


def _deployment_of(cluster: str, data: ReportData) -> str:
    summary = data.frames["summary"]
    hit = summary.filter(pl.col("scope") == cluster)["deployment"]
    return hit[0] if hit.len() else cluster


def _host_names(data: ReportData):
    """A host's label with its role where it holds no application data."""
    topo = data.frames["topology"]
    label = labeller(topo["member"].to_list())
    roles = dict(zip(topo["member"].to_list(), topo["role"].to_list()))

    def name(member: Optional[str]) -> str:
        role = _ROLE_NAMES.get(roles.get(member or "", "data"))
        return f"{label(member)} ({role})" if role else label(member)

    return name


def _disks_section(forecast: pl.DataFrame, data: ReportData) -> tuple[str, list]:
    topo = data.frames["topology"]
    view = forecast.join(topo.select("host_id", "member", "role"), on="host_id",
                         how="left").head(10)  # fmt: skip
    host = _host_names(data)
    rows = [
        [
            host(r["member"]), r["partition_name"], number(r["used_bytes"] / GIB, "GiB"),
            number(r["capacity_bytes"] / GIB, "GiB", 0), number(r["percent_used"], "%"),
            number((r["growth_bytes_per_day"] or 0) / GIB, "GiB", 2), r["trend"],
            "" if r["days_to_90"] is None else f"{r['days_to_90']:.0f}",
            capacity.range_text(r["days_to_90_low"], r["days_to_90_high"]),
            date(r["date_90"]), date(r["date_full"]),
        ]
        for r in view.iter_rows(named=True)
    ]  # fmt: skip
    data.frames["forecast_view"] = view.with_columns(
        host=pl.col("member").map_elements(host, return_dtype=pl.String)
    )
    header = ["host", "partition", "used", "capacity", "used %", "growth a day", "trend",
              "days to 90 %", "80 % range", "90 % on", "full on"]  # fmt: skip
    return (
        '<section id="disks"><h2>Disks closest to full</h2>'
        + table(header, rows, numeric=(2, 3, 4, 5, 7, 8), dates=(9, 10))
        + "</section>",
        [],
    )


def _no_growth(disk: dict, matched: Optional[str], has_dbs: bool) -> str:
    """Why no database is listed under a disk, said beside its growth."""
    grows = (disk["growth_bytes_per_day"] or 0) > 0 and disk["trend"] == "growing"
    if disk["role"] == "mongos":
        return "none: a mongos holds no data" + ("; the growth is its system's" if grows else "")
    if not has_dbs:
        return "none measured on this host"
    if matched is not None and matched != disk["partition_name"]:
        return f"none here: its databases are on {matched}" + (
            "; the growth is not theirs (journal, logs)" if grows else ""
        )
    if grows:
        return "none growing: the growth is outside the databases (journal, logs)"
    return "none growing"


def _databases_section(forecast: pl.DataFrame, data: ReportData) -> tuple[str, list]:
    growth = data.frames.get("database_growth")
    if growth is None:
        return "", []
    topo = data.frames["topology"]
    keys = ["group_id", "host_id", "partition_name"]
    fullest = (
        forecast.head(5)
        .join(topo.select("host_id", "member", "role"), on="host_id", how="left",
              maintain_order="left")
        .with_columns(rank=pl.int_range(1, pl.len() + 1))
    )  # fmt: skip
    rows = []
    host = _host_names(data)
    for disk in fullest.iter_rows(named=True):
        name = f"{host(disk['member'])} {disk['partition_name']}"
        mine = growth.filter(
            *[pl.col(k).cast(pl.String) == str(disk[k]) for k in keys],
            pl.col("growth_bytes_per_day") > 0,
        ).sort("growth_bytes_per_day", descending=True)
        first = [str(disk["rank"]), name, date(disk["date_full"])]
        if mine.is_empty():
            of_host = growth.filter(pl.col("host_id").cast(pl.String) == str(disk["host_id"]))
            matched = of_host["partition_name"].drop_nulls()
            why = _no_growth(disk, str(matched[0]) if matched.len() else None, of_host.height > 0)
            rows.append([*first, (why, "why", 5)])
            continue
        for i, d in enumerate(mine.iter_rows(named=True)):
            share = d["share_of_disk_growth"]
            rows.append(
                (first if i == 0 else ["", "", ""])
                + [
                    str(d["database_name"]),
                    number(d["size_bytes"] / GIB, "GiB"),
                    number(d["growth_bytes_per_day"] / GIB, "GiB", 3),
                    "" if share is None else f"{share * 100:.0f} %",
                    "" if d["size_at_full_bytes"] is None
                    else number(d["size_at_full_bytes"] / GIB, "GiB"),
                ]
            )  # fmt: skip
    header = ["#", "disk", "disk full on", "database", "size", "growth a day",
              "share of the disk's growth", "size when the disk is full"]  # fmt: skip
    return (
        '<section id="databases"><h2>Databases behind the growth</h2>'
        "<p>The growing databases of the five disks closest to full: their size, growth, "
        "share of the disk's growth, and size on the day the disk is full; where none "
        "grows, why.</p>" + table(header, rows, numeric=(4, 5, 6, 7), dates=(2,)) + "</section>",
        [],
    )


def _alerts_section(data: ReportData) -> tuple[str, list]:
    host = labeller(data.frames["topology"]["member"].to_list())
    return report_alerts.section(data.alerts, data.alert_events, data.names, host, table,
                                 data.frames)  # fmt: skip


def _stat(v: Optional[float], unit: str, r: dict, which: str) -> str:
    """A p95 or peak cell, saying which statistic it is where that is not the plain one:
    the 5th percentile and the minimum where lower is worse, the p99 of connections."""
    if v is None:
        return ""
    text = number(v, unit)
    if r["worse"] == "lower":
        return f"{text} ({'p5' if which == 'p95' else 'min'})"
    if which == "p95" and r["resource"] == "connections":
        return f"{text} (p99)"
    return text


def _details_section(h: pl.DataFrame) -> tuple[str, list]:
    flagged = h.filter(pl.col("scope_kind") == "host", pl.col("status").is_in(_FLAGGED))
    host = labeller(h.filter(pl.col("scope_kind") == "host")["member"].to_list())
    roles = {"config": " (config server)", "mongos": " (mongos)", "arbiter": " (arbiter)"}
    rows = [
        [
            host(r["member"]) + roles.get(r["role"] or "", ""), LABELS[r["resource"]],
            r["part"] or "", number(r["level"], r["unit"]), _stat(r["p95"], r["unit"], r, "p95"),
            _stat(r["peak"], r["unit"], r, "peak"), r["worse"],
            "" if r["trend"] is None else number(r["trend"], r["unit"], 2) + " a day",
            number(r["limit"], r["unit"], 0),
            (capacity.cell_text(r["days_left"], r["status"]), r["status"]),
            capacity.range_text(r["days_low"], r["days_high"]) if r["days_left"] else "",
            date(r["date"]), r["note"] or "",
        ]
        for r in flagged.iter_rows(named=True)
    ]  # fmt: skip
    header = ["host", "resource", "partition", "now", "p95 toward the limit", "worst",
              "worse when", "trend", "limit", "days left", "80 % range", "date",
              "note"]  # fmt: skip
    return (
        '<section id="details"><h2>Every flagged host</h2>'
        "<p>Each statistic is taken toward the limit: where higher is worse, the p95 (the "
        "p99 for connections) and the maximum; where lower is worse (the oplog window, "
        "tickets), the 5th percentile (p5) and the minimum.</p>"
        + table(header, rows, numeric=(3, 4, 5, 7, 8, 9, 10), dates=(11,))
        + "</section>",
        [],
    )
