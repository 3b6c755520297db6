"""The capacity report a team lead reads (``make demo``): one HTML file that works offline.

It opens with the answer (what runs out first, where and when, per deployment), then the
headroom table (one row per deployment, the days left of each resource, coloured by
urgency), a chart per finding (the series, the fit, the limit and the day it is crossed, in
urgency order), the disks closest to full and the databases behind their growth, and which
of the projects' alerts are noise (``opsapi._report_alerts``). Tables are plain HTML with a
stylesheet: host names, GiB, %, hours, days and dates. The charts are Altair (Vega-Lite) specs
embedded with the Vega libraries inline (``vl-convert``): no request leaves the page.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Optional

import polars as pl

from opsapi import _report_alerts, capacity
from opsapi.capacity import resources as res
from opsapi.capacity._common import _disk_points
from opsapi.capacity.topology import topology as _topology

GIB = 1024**3
_LABELS = {
    "disk": "Disk space", "oplog_window": "Oplog window", "replication_lag": "Replication lag",
    "cpu": "CPU", "cache": "Cache (dirty)", "connections": "Connections", "tickets": "Tickets",
    "iops": "IOPS", "disk_latency": "Disk latency", "shard_growth": "Shard growth",
}  # fmt: skip
_CHARTED = ("disk", "oplog_window", "cpu", "connections", "cache")
_UNITS = {"%": "%", "h": "hours", "s": "s", "": "", "IOPS": "IOPS", "ms": "ms", "×": "×"}


@dataclass
class ReportData:
    """What the report is made of: the long host, disk and database frames, the hosts, the
    project names by id, the window and the instant it ends; the project alerts
    (``AlertList.to_polars()``) and the projects' events (when each alert was acknowledged),
    and the sync that filled the measurement store the frames were read from."""

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


def _short(member: Optional[str]) -> str:
    return "" if member is None else member.split(":")[0].split(".")[0]


def _labeller(members: list[str]):
    """Host names without the domain every host shares (``rs0-1.prod`` of
    ``rs0-1.prod.example.net:27017``): short, and unique across projects."""
    names = [m.split(":")[0].split(".") for m in members if m]
    common = 0
    while (
        names
        and all(len(n) > common + 1 for n in names)
        and len({tuple(n[len(n) - common - 1 :]) for n in names}) == 1
    ):
        common += 1

    def label(member: Optional[str]) -> str:
        if not member:
            return ""
        parts = member.split(":")[0].split(".")
        return ".".join(parts[: len(parts) - common])

    return label


def _e(v: Any) -> str:
    return html.escape("" if v is None else str(v), quote=True)


def _table(header: list[str], rows: list[list[Any]], *, cls: str = "", numeric=()) -> str:
    """A plain table: text as it is (escaped), numbers right-aligned, each cell a string or a
    ``(text, class)`` pair."""

    def cell(tag: str, i: int, v: Any) -> str:
        text, klass = v if isinstance(v, tuple) else (v, "")
        classes = " ".join(c for c in (klass, "num" if i in numeric else "") if c)
        attr = f' class="{classes}"' if classes else ""
        return f"<{tag}{attr}>{_e(text)}</{tag}>"

    head = "".join(cell("th", i, h) for i, h in enumerate(header))
    body = "".join(
        "<tr>" + "".join(cell("td", i, v) for i, v in enumerate(r)) + "</tr>" for r in rows
    )
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _number(v: Optional[float], unit: str, digits: int = 1) -> str:
    if v is None:
        return ""
    unit = _UNITS.get(unit, unit)
    text = f"{v:,.{digits}f}" if abs(v) < 1e6 else f"{v:,.0f}"
    return f"{text} {unit}".strip() if unit not in ("%", "×") else f"{text} {unit}"


def _date(d: Optional[datetime]) -> str:
    return "" if d is None else f"{d:%a %b %-d, %Y}"


def render(data: ReportData) -> str:
    """The whole page."""
    if data.now is None:
        data.now = pl.concat(
            [data.host_frame.select("timestamp"), data.disk_frame.select("timestamp")]
        )["timestamp"].max()
    now = data.now
    data.frames["topology"] = _topology(data.hosts)
    h = capacity.headroom(
        data.host_frame, data.disk_frame, data.hosts, window=data.window, now=data.now
    )
    summary = capacity.headroom_summary(h, names=data.names)
    table = capacity.headroom_table(h, names=data.names)
    forecast = capacity.disk_forecast(data.disk_frame, window=data.window, now=data.now)
    data.frames.update(headroom=h, summary=summary, headroom_table=table, forecast=forecast)
    parts = [
        _summary_section(summary, now, data.window),
        _headroom_section(table),
        _findings_section(h, summary, data),
        _disks_section(forecast, data),
        _databases_section(forecast, data),
        _alerts_section(data),
        _details_section(h, data.names),
    ]
    charts = [p for _, p in parts if p]
    body = "\n".join(s for s, _ in parts)
    return _page(body, [c for group in charts for c in group])


def _summary_section(summary: pl.DataFrame, now: datetime, window: str) -> tuple[str, list]:
    items = "".join(
        f'<li class="{_e(r["status"])}">{_e(r["summary"])}</li>'
        for r in summary.iter_rows(named=True)
    )
    return (
        '<section id="summary"><h1>What runs out first</h1>'
        f'<ul class="summary">{items}</ul>'
        f'<p class="asof">As of {now:%Y-%m-%d %H:%M} UTC, from the last {_e(window)} of '
        "measurements. Days left count to each resource's limit at its current trend; "
        "<b>now</b>: past it.</p></section>",
        [],
    )


def _headroom_section(table: pl.DataFrame) -> tuple[str, list]:
    resources = [r for r in _LABELS if table[f"{r}_status"].drop_nulls().len()]
    rows = [
        [row["deployment"]]
        + [
            (capacity.cell_text(row[r], row[f"{r}_status"]), row[f"{r}_status"] or "na")
            for r in resources
        ]
        for row in table.iter_rows(named=True)
    ]
    header = ["Deployment"] + [_LABELS[r] for r in resources]
    legend = "".join(
        f'<span class="{s}">{t}</span>'
        for s, t in (("critical", "within a week"), ("warning", "within a month"),
                     ("watch", "within 90 days"), ("ok", "not running out"),
                     ("missing", "no data"))
    )  # fmt: skip
    return (
        '<section id="headroom"><h2>Headroom: days left per resource</h2>'
        + _table(header, rows, cls="headroom", numeric=range(1, len(header)))
        + f'<p class="legend">{legend}</p></section>',
        [],
    )


def _top_rows(h: pl.DataFrame, summary: pl.DataFrame) -> pl.DataFrame:
    """The flagged rows of each deployment (its own scope), in the summary's order."""
    keys = summary.select("group_id", "scope_kind", "scope", "deployment").with_row_index("_o")
    return (
        h.with_columns(pl.col("group_id").cast(pl.String))
        .join(keys, on=["group_id", "scope_kind", "scope"])
        .filter(pl.col("status").is_in(["critical", "warning", "watch"]))
        .sort("_o", maintain_order=True)
    )


def _series(row: dict, data: ReportData) -> pl.DataFrame:
    """The hourly series behind one headroom row: its member's (and partition's) values."""
    frame = data.disk_frame if row["resource"] == "disk" else data.host_frame
    member = row["member"]
    hosts = data.frames["topology"]
    host_id = hosts.filter(pl.col("member") == member)["host_id"].cast(pl.String)[0]
    if row["resource"] == "disk":
        pts = _disk_points(
            frame.filter(pl.col("host_id") == host_id, pl.col("partition_name") == row["part"])
        ).collect()
        return pts.select("timestamp", value=pl.col("used") / pl.col("point_capacity") * 100.0)
    fn = getattr(res, row["resource"])
    return (
        fn(frame.filter(pl.col("host_id") == host_id), limit=row["limit"])
        .collect()
        .select("timestamp", "value")
    )


def _chart(row: dict, data: ReportData, now: datetime) -> Any:
    """One finding: the series, its fit to the day it crosses the limit, the limit."""
    import altair as alt

    series = _series(row, data).sort("timestamp")
    unit = _UNITS.get(row["unit"], row["unit"])
    start = series["timestamp"].min()
    line = (
        alt.Chart(series)
        .mark_line(strokeWidth=1.5, color="#4c78a8")
        .encode(
            x=alt.X("timestamp:T", title=None),
            y=alt.Y("value:Q", title=unit or row["resource"], scale=alt.Scale(zero=False)),
            tooltip=[
                alt.Tooltip("timestamp:T", title="time"),
                alt.Tooltip("value:Q", title=unit or "value", format=",.1f"),
            ],
        )  # fmt: skip
    )
    layers = []
    end = row["date"] if row["date"] is not None else now + timedelta(days=14)
    if row["days_left"] and row["trend"]:
        fitted = row["limit"] - row["trend"] * row["days_left"]
        days0 = (start - now) / timedelta(days=1)
        fit = pl.DataFrame(
            {"timestamp": [start, row["date"]], "value": [fitted + row["trend"] * days0,
                                                          row["limit"]]},
            schema={"timestamp": pl.Datetime("ms", "UTC"), "value": pl.Float64},
        )  # fmt: skip
        layers.append(
            alt.Chart(fit)
            .mark_line(color="#f58518", strokeDash=[6, 3])
            .encode(x="timestamp:T", y="value:Q")
        )
        cross = pl.DataFrame({"timestamp": [row["date"]], "label": [f"{row['date']:%b %-d}"]})
        layers.append(alt.Chart(cross).mark_rule(color="#e45756").encode(x="timestamp:T"))
        layers.append(
            alt.Chart(cross)
            .mark_text(align="left", dx=4, dy=-60, color="#e45756")
            .encode(x="timestamp:T", text="label:N")
        )
    limit = pl.DataFrame({"value": [row["limit"]], "timestamp": [end]})
    layers.append(
        alt.Chart(limit).mark_rule(color="#e45756", strokeDash=[2, 2]).encode(y="value:Q")
    )
    layers.append(line)  # on top: the fit of a steady series would hide it
    what = f"{_short(row['member'])}{', ' + row['part'] if row['part'] else ''}"
    title = f"{row['deployment']}: {_LABELS[row['resource']]} ({what})"
    return (
        alt.layer(*layers).properties(width=520, height=190, title=title).interactive(bind_y=False)
    )


def _findings_section(h: pl.DataFrame, summary: pl.DataFrame, data: ReportData):
    import altair as alt

    now = data.now
    rows = _top_rows(h, summary).filter(pl.col("resource").is_in(_CHARTED))
    rows = rows.unique(["deployment", "resource"], keep="first", maintain_order=True)
    charts = [_chart(r, data, now) for r in rows.iter_rows(named=True)]
    specs = []
    for i, c in enumerate(charts):
        specs.append((f"finding-{i}", c.to_dict()))
    shard = _shard_chart(h, data)
    if shard is not None:
        specs.append(("finding-shards", shard.to_dict()))
    divs = "".join(
        f'<div class="chart" id="{cid}" data-title="{_e(s.get("title", ""))}"></div>'
        for cid, s in specs
    )
    _ = alt
    return (
        '<section id="findings"><h2>The findings, most urgent first</h2>'
        "<p>Each chart: the hourly series of the member that sets the value, its trend "
        "(dashed, fitted to the daily p95) up to the day it reaches the limit (the red line), "
        "and that day. Drag to pan, scroll to zoom in time.</p>"
        f'<div class="charts">{divs}</div></section>',
        specs,
    )


def _shard_chart(h: pl.DataFrame, data: ReportData) -> Any:
    """Used space of each shard's data partitions in the clusters whose shards grow unevenly."""
    import altair as alt

    flagged = h.filter(
        pl.col("resource") == "shard_growth", pl.col("status").is_in(["critical", "warning"])
    )
    if flagged.is_empty():
        return None
    topo = data.frames["topology"]
    clusters = flagged["scope"].to_list()
    members = topo.filter(pl.col("cluster_id").is_in(clusters), pl.col("shard_name").is_not_null())
    # Each member's fastest-growing partition: where its data grows.
    fastest = (
        data.frames["forecast"]
        .sort("growth_bytes_per_day", descending=True, nulls_last=True)
        .group_by("group_id", "host_id", maintain_order=True)
        .first()
        .select("group_id", "host_id", "partition_name")
    )
    pts = (
        _disk_points(data.disk_frame)
        .join(fastest.lazy(), on=["group_id", "host_id", "partition_name"])
        .collect()
        .join(members.select("host_id", "shard_name", "member"), on="host_id")
        .select(
            "shard_name", "timestamp", gib=pl.col("used") / GIB,
            host=pl.col("member").map_elements(_short, return_dtype=pl.String),
        )
        .sort("timestamp")
    )  # fmt: skip
    deployment = _top_deployment(h, data, flagged["scope"][0])
    title = alt.TitleParams(
        f"{deployment}: {_LABELS['shard_growth']} (used GiB of each shard's members)",
        subtitle=str(flagged["note"][0]),
    )
    return (
        alt.Chart(pts)
        .mark_line()
        .encode(
            x=alt.X("timestamp:T", title=None),
            y=alt.Y("gib:Q", title="GiB used", scale=alt.Scale(zero=False)),
            color=alt.Color("shard_name:N", title="shard", legend=alt.Legend(orient="top-left")),
            detail="host:N",
            tooltip=["host:N", "shard_name:N", alt.Tooltip("gib:Q", format=",.1f")],
        )
        .properties(width=520, height=190, title=title)
        .interactive(bind_y=False)
    )


def _top_deployment(h: pl.DataFrame, data: ReportData, cluster: str) -> str:
    summary = data.frames["summary"]
    hit = summary.filter(pl.col("scope") == cluster)["deployment"]
    return hit[0] if hit.len() else cluster


def _disks_section(forecast: pl.DataFrame, data: ReportData) -> tuple[str, list]:
    topo = data.frames["topology"]
    view = forecast.join(topo.select("host_id", "member"), on="host_id", how="left").head(10)
    host = _labeller(topo["member"].to_list())
    rows = [
        [
            host(r["member"]), r["partition_name"], _number(r["used_bytes"] / GIB, "GiB"),
            _number(r["capacity_bytes"] / GIB, "GiB", 0), _number(r["percent_used"], "%"),
            _number((r["growth_bytes_per_day"] or 0) / GIB, "GiB", 2), r["trend"],
            "" if r["days_to_90"] is None else f"{r['days_to_90']:.0f}",
            _date(r["date_90"]), _date(r["date_full"]),
        ]
        for r in view.iter_rows(named=True)
    ]  # fmt: skip
    data.frames["forecast_view"] = view.with_columns(
        host=pl.col("member").map_elements(host, return_dtype=pl.String)
    )
    header = ["host", "partition", "used", "capacity", "used %", "growth a day", "trend",
              "days to 90 %", "90 % on", "full on"]  # fmt: skip
    return (
        '<section id="disks"><h2>Disks closest to full</h2>'
        + _table(header, rows, numeric=(2, 3, 4, 5, 7))
        + "</section>",
        [],
    )


def _databases_section(forecast: pl.DataFrame, data: ReportData) -> tuple[str, list]:
    if data.db_frame is None or data.db_frame.is_empty():
        return "", []
    growth = capacity.database_growth(
        data.db_frame, window=data.window, disks=forecast, disk_frame=data.disk_frame,
        now=data.now,
    )  # fmt: skip
    topo = data.frames["topology"]
    keys = ["group_id", "host_id", "partition_name"]
    fullest = (
        forecast.head(5)
        .join(topo.select("host_id", "member"), on="host_id", how="left", maintain_order="left")
        .with_columns(rank=pl.int_range(1, pl.len() + 1))
    )
    rows = []
    host = _labeller(topo["member"].to_list())
    for disk in fullest.iter_rows(named=True):
        name = f"{host(disk['member'])} {disk['partition_name']}"
        mine = growth.filter(
            *[pl.col(k).cast(pl.String) == str(disk[k]) for k in keys],
            pl.col("growth_bytes_per_day") > 0,
        ).sort("growth_bytes_per_day", descending=True)
        first = [str(disk["rank"]), name, _date(disk["date_full"])]
        if mine.is_empty():
            rows.append(first + ["none growing", "", "", "", ""])
            continue
        for i, d in enumerate(mine.iter_rows(named=True)):
            share = d["share_of_disk_growth"]
            rows.append(
                (first if i == 0 else ["", "", ""])
                + [
                    str(d["database_name"]),
                    _number(d["size_bytes"] / GIB, "GiB"),
                    _number(d["growth_bytes_per_day"] / GIB, "GiB", 3),
                    "" if share is None else f"{share * 100:.0f} %",
                    "" if d["size_at_full_bytes"] is None
                    else _number(d["size_at_full_bytes"] / GIB, "GiB"),
                ]
            )  # fmt: skip
    header = ["#", "disk", "disk full on", "database", "size", "growth a day",
              "share of the disk's growth", "size when the disk is full"]  # fmt: skip
    return (
        '<section id="databases"><h2>Databases behind the growth</h2>'
        "<p>The growing databases of the five disks closest to full: their size, growth, "
        "share of the disk's growth, and size on the day the disk is full.</p>"
        + _table(header, rows, numeric=(4, 5, 6, 7))
        + "</section>",
        [],
    )


def _alerts_section(data: ReportData) -> tuple[str, list]:
    host = _labeller(data.frames["topology"]["member"].to_list())
    return _report_alerts.section(
        data.alerts, data.alert_events, data.names, host, _table, data.frames
    )


def _details_section(h: pl.DataFrame, names: dict[str, str]) -> tuple[str, list]:
    flagged = h.filter(
        pl.col("scope_kind") == "host", pl.col("status").is_in(["critical", "warning", "watch"])
    )
    host = _labeller(h.filter(pl.col("scope_kind") == "host")["member"].to_list())
    rows = [
        [
            host(r["member"]), _LABELS[r["resource"]], r["part"] or "",
            _number(r["level"], r["unit"]), _number(r["p95"], r["unit"]),
            _number(r["peak"], r["unit"]),
            "" if r["trend"] is None else _number(r["trend"], r["unit"], 2) + " a day",
            _number(r["limit"], r["unit"], 0),
            ("now" if r["days_left"] == 0 else "" if r["days_left"] is None
             else f"{r['days_left']:.0f}", r["status"]),
            _date(r["date"]), r["note"] or "",
        ]
        for r in flagged.iter_rows(named=True)
    ]  # fmt: skip
    header = ["host", "resource", "partition", "now", "p95", "peak", "trend", "limit",
              "days left", "date", "note"]  # fmt: skip
    _ = names
    return (
        '<section id="details"><h2>Every flagged host</h2>'
        "<p>p95 is taken toward the limit: the p99 for connections, the 5th percentile for "
        "the oplog window and tickets (lower is worse there).</p>"
        + _table(header, rows, numeric=(3, 4, 5, 6, 7, 8))
        + "</section>",
        [],
    )


_CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222;
       margin: 0 auto; padding: 16px 24px; max-width: 1180px; }
h1 { font-size: 24px; margin: 8px 0; } h2 { font-size: 18px; margin: 28px 0 8px; }
h3 { font-size: 15px; margin: 18px 0 4px; }
p.said { margin: 4px 0; padding-left: 6px; border-left: 4px solid #ff7f0e; }
ul.summary { padding-left: 20px; } ul.summary li { margin: 4px 0; padding-left: 6px;
  border-left: 4px solid #ccc; list-style: none; }
ul.summary li.critical { border-color: #d62728; } ul.summary li.warning { border-color: #ff7f0e; }
ul.summary li.watch { border-color: #e6c700; } ul.summary li.ok { border-color: #2ca02c; }
.asof { color: #666; font-size: 12px; }
table { border-collapse: collapse; margin: 8px 0; font-size: 13px; max-width: 100%; }
th, td { border-bottom: 1px solid #e4e4e4; padding: 4px 8px; text-align: left;
         vertical-align: top; }
th { background: #f6f6f6; font-weight: 600; }
td.num, th.num { text-align: right; white-space: nowrap; }
td.critical { background: #f8c9c9; font-weight: 600; } td.warning { background: #fde2c2; }
td.watch { background: #fbf3c0; } td.ok { background: #e3f3e1; } td.missing { background: #e4e4e4;
  color: #555; } td.na { background: #fff; }
.legend span { display: inline-block; padding: 2px 8px; margin-right: 6px; font-size: 12px; }
.legend .critical { background: #f8c9c9; } .legend .warning { background: #fde2c2; }
.legend .watch { background: #fbf3c0; } .legend .ok { background: #e3f3e1; }
.legend .missing { background: #e4e4e4; }
.charts { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 12px; }
.chart { min-height: 240px; overflow: hidden; }
"""


def _page(body: str, specs: list[tuple[str, dict]]) -> str:
    """The page: the stylesheet, the body and, inline, the Vega libraries and the charts."""
    scripts = ""
    if specs:
        import vl_convert as vlc

        bundle = vlc.javascript_bundle()
        payload = json.dumps(dict(specs)).replace("</", "<\\/")
        scripts = (
            f'<script type="module">{bundle}</script>\n'
            '<script type="module">\n'
            f"const specs = {payload};\n"
            "for (const [id, spec] of Object.entries(specs)) {\n"
            "  const el = document.getElementById(id);\n"
            '  window.vegaEmbed(el, spec, {renderer: "svg", actions: false})\n'
            '    .then(() => el.setAttribute("data-rendered", "1"))\n'
            '    .catch((e) => el.setAttribute("data-error", String(e)));\n'
            "}\n</script>"
        )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Capacity: what runs out first</title><style>{_CSS}</style></head>"
        f"<body>\n{body}\n{scripts}\n</body></html>\n"
    )
