"""The report's charts (Altair, Vega-Lite): one per finding, and the shards' growth.

Each finding's chart shows what its sentence says, dated: the hourly series of the member
that sets the value, its trend (dashed) up to the day it reaches the limit, that day labelled
inside the plot and its 80 % range shaded, a rule at "now", and every threshold the sentence
cites (the limit, and the CPU's high mark), each labelled, and the events of its deployment
(elections, restarts, hosts down, auto-scaling, tier and disk changes), each a rule with its
label at its time. Day ticks carry the month and
never collide; a chart takes the width of its column.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any, Optional

import polars as pl

from opsapi import capacity
from opsapi.capacity import resources as res

from .html import GIB, short

__all__ = ["EVENT_LABELS", "LABELS", "finding_chart", "series_of", "shard_chart"]

LABELS = {
    "disk": "Disk space", "oplog_window": "Oplog window", "replication_lag": "Replication lag",
    "cpu": "CPU", "cache": "Cache (dirty)", "connections": "Connections", "tickets": "Tickets",
    "iops": "IOPS", "disk_latency": "Disk latency", "shard_growth": "Shard growth",
}  # fmt: skip
_UNITS = {"%": "%", "h": "hours", "s": "seconds", "": "", "IOPS": "IOPS", "ms": "ms"}
#: The farthest a chart reaches past now to show the day a trend crosses its limit; a later
#: day is named at the plot's right edge.
HORIZON_DAYS = 45
HEIGHT = 200
_RED, _GREY, _ORANGE, _BLUE = "#d62728", "#666666", "#f58518", "#4c78a8"
_T = pl.Datetime("ms", "UTC")


def series_of(row: dict, host_frame: pl.DataFrame, disk_frame: pl.DataFrame,
              topo: pl.DataFrame) -> pl.DataFrame:  # fmt: skip
    """The hourly series behind one headroom row: its member's (and partition's) values.

    >>> row = h.filter(pl.col("resource") == "cpu").row(0, named=True)  # doctest: +SKIP
    >>> series_of(row, host_frame, disk_frame, topo).columns  # doctest: +SKIP
    ['timestamp', 'value']
    """
    host_id = topo.filter(pl.col("member") == row["member"])["host_id"].cast(pl.String)[0]
    if row["resource"] == "disk":
        pts = capacity.disk_points(
            disk_frame.filter(
                pl.col("host_id").cast(pl.String) == host_id,
                pl.col("partition_name").cast(pl.String) == row["part"],
            )
        )
        return pts.select("timestamp", value="percent_used")
    frame = disk_frame if row["resource"] in ("iops", "disk_latency") else host_frame
    fn = getattr(res, row["resource"])
    s = fn(frame.filter(pl.col("host_id").cast(pl.String) == host_id), limit=row["limit"])
    if row.get("part"):
        s = s.filter(pl.col("part") == row["part"])
    return s.collect().select("timestamp", "value").sort("timestamp")


def _axis(start: datetime, end: datetime) -> Any:
    """Day ticks that carry the month, a few days apart, never overlapping."""
    import altair as alt

    days = max((end - start) / timedelta(days=1), 1.0)
    step = max(1, math.ceil(days / 7))
    # Every `step` days from the first midnight: evenly apart, whatever the months do.
    first = start.replace(hour=0, minute=0, second=0, microsecond=0)
    first += timedelta(days=1) if first < start else timedelta(0)
    ticks = []
    while first <= end:
        ticks.append(_ms(first))
        first += timedelta(days=step)
    return alt.Axis(
        format="%b %-d",
        values=ticks,
        labelOverlap="greedy",
        labelSeparation=6,
        title=None,
    )


def _ms(t: datetime) -> int:
    return int(t.timestamp() * 1000)


def _frame(**cols: list) -> pl.DataFrame:
    schema = {k: (_T if k in ("timestamp", "t2") else None) for k in cols}
    return pl.DataFrame(cols, schema_overrides={k: v for k, v in schema.items() if v})


def _rule_x(at: datetime, label: str, color: str, name: str, *, bottom: bool = False) -> list:
    """A vertical rule at ``at`` and its label inside the plot, ending at the rule: at the
    plot's top, or at its ``bottom``."""
    import altair as alt

    df = _frame(timestamp=[at], label=[label])
    rule = alt.Chart(df).mark_rule(color=color, strokeDash=[4, 3]).encode(x="timestamp:T")
    text = (
        alt.Chart(df)
        .mark_text(align="right", baseline="bottom" if bottom else "top", dx=-4,
                   dy=-3 if bottom else 3, color=color, fontSize=11, fontWeight="bold")
        .encode(x="timestamp:T", y=alt.value(HEIGHT if bottom else 0), text="label:N")
        .properties(name=name)
    )  # fmt: skip
    return [rule, text]


def _rule_y(value: float, label: str, at: datetime, below: bool, name: str,
            left: bool = False) -> list:  # fmt: skip
    """A horizontal rule at ``value`` and its label at ``at`` (the plot's right edge, or its
    left one), on the side of the line where the series is (``below`` it: a limit higher
    than the series)."""
    import altair as alt

    df = _frame(value=[value], timestamp=[at], label=[label])
    rule = alt.Chart(df).mark_rule(color=_RED, strokeDash=[2, 2]).encode(y="value:Q")
    text = (
        alt.Chart(df)
        .mark_text(align="left" if left else "right", baseline="top" if below else "bottom",
                   dx=4 if left else -4, dy=3 if below else -3, color=_RED, fontSize=11)
        .encode(x="timestamp:T", y="value:Q", text="label:N")
        .properties(name=name)
    )  # fmt: skip
    return [rule, text]


#: A mark's label by the event's kind (``EventList.timeline()``'s ``kind``): a word or two,
#: the event's own words in its tooltip.
EVENT_LABELS = {
    "election": "election", "restart": "restart", "host_down": "host down",
    "scaling": "auto-scaling", "cluster_change": "tier/disk change",
}  # fmt: skip
_PURPLE = "#7b4fa0"


def _event_marks(events: pl.DataFrame, start: datetime, right: datetime) -> list:
    """A vertical rule per event inside the plot's time, and its label written up along the
    rule from the plot's bottom (rotated: marks hours apart never overlap); the event's
    words and time in the tooltip."""
    import altair as alt

    shown = events.filter(pl.col("created").is_between(start, right)).select(
        timestamp=pl.col("created").cast(_T),
        label=pl.col("kind").replace_strict(EVENT_LABELS, default=pl.col("kind")),
        said=pl.col("said"),
    )
    if shown.is_empty():
        return []
    tip = [alt.Tooltip("timestamp:T", title="time", format="%b %-d %H:%M"),
           alt.Tooltip("said:N", title="event")]  # fmt: skip
    rule = (
        alt.Chart(shown)
        .mark_rule(color=_PURPLE, strokeWidth=1.5, opacity=0.8)
        .encode(x="timestamp:T", tooltip=tip)
        .properties(name="events")
    )
    text = (
        alt.Chart(shown)
        .mark_text(angle=270, align="left", baseline="bottom", dx=4, dy=-2, color=_PURPLE,
                   fontSize=10)
        .encode(x="timestamp:T", y=alt.value(HEIGHT), text="label:N", tooltip=tip)
        .properties(name="event_labels")
    )  # fmt: skip
    return [rule, text]


def finding_chart(
    row: dict, series: pl.DataFrame, now: datetime, events: Optional[pl.DataFrame] = None
) -> Any:
    """One finding's chart (see the module's documentation). ``row`` is a headroom row with
    its ``deployment``; ``series`` its :func:`series_of`; ``events`` its deployment's events
    (``created``, ``kind``, ``said``: :func:`opsapi.capacity.finding_events`), each marked by
    a rule with its label (:data:`EVENT_LABELS`) at its time.

    >>> chart = finding_chart({**row, "deployment": "Prod · rs0"}, series, now)  # doctest: +SKIP
    >>> [layer["name"] for layer in chart.to_dict()["layer"] if "name" in layer]  # doctest: +SKIP
    ['now', 'limit', 'crossing']
    """
    import altair as alt

    unit = _UNITS.get(row["unit"], row["unit"])
    start = series["timestamp"].min() if series.height else now - timedelta(days=14)
    date: Optional[datetime] = row.get("date") if row.get("days_left") else None
    far = now + timedelta(days=HORIZON_DAYS)
    shown = date if date is not None and date <= far else None
    right = max(now + timedelta(days=3), (shown or now) + timedelta(days=2))
    if date is not None and shown is None:
        right = far
    x = alt.X(
        "timestamp:T", axis=_axis(start, right), scale=alt.Scale(domain=[_ms(start), _ms(right)])
    )
    lower = row.get("worse") == "lower"
    # Where the series is, against the limit: each label goes on that side of its line, and
    # the crossing day's label away from the limit's.
    values = series["value"].drop_nulls()
    under = bool(values.median() < row["limit"]) if values.len() else not lower
    layers: list = []
    if date is not None and row.get("trend"):
        fitted = row["limit"] - row["trend"] * row["days_left"]
        days0 = (start - now) / timedelta(days=1)
        end = shown or right
        days1 = (end - now) / timedelta(days=1)
        ends = [fitted + row["trend"] * days0, fitted + row["trend"] * days1]
        fit = _frame(timestamp=[start, end], value=ends)
        layers.append(
            alt.Chart(fit).mark_line(color=_ORANGE, strokeDash=[6, 3]).encode(x=x, y="value:Q")
        )
    band = _range_band(row, now, start, right)
    if band is not None:
        layers.append(band)
    if events is not None:
        layers += _event_marks(events, start, right)
    layers += _rule_x(now, "now", _GREY, "now")
    what = f"{row['limit']:,.4g} {unit}".strip()
    layers += _rule_y(row["limit"], f"limit {what}", right, below=under, name="limit")
    high = row.get("high_mark")
    if high is not None and not (isinstance(high, float) and math.isnan(high)):
        mark = f"p95 mark {high:,.4g} {unit}".strip()
        layers += _rule_y(high, mark, start, below=False, name="high_mark", left=True)
    # The crossing day's label at the bottom where the limit is above the series.
    if shown is not None:
        layers += _rule_x(shown, f"crosses {shown:%b %-d}", _RED, "crossing", bottom=under)
    elif date is not None:
        # Past the horizon: named at the right edge, inside the plot.
        layers += _rule_x(right, f"crosses {date:%b %-d} →", _RED, "crossing", bottom=under)
    line = (
        alt.Chart(series)
        .mark_line(strokeWidth=1.5, color=_BLUE)
        .encode(
            x=x,
            y=alt.Y("value:Q", title=unit or LABELS[row["resource"]],
                    scale=alt.Scale(zero=False, nice=True, padding=16)),
            tooltip=[alt.Tooltip("timestamp:T", title="time", format="%b %-d %H:%M"),
                     alt.Tooltip("value:Q", title=unit or "value", format=",.1f")],
        )
    )  # fmt: skip
    layers.append(line)  # on top: the fit of a steady series would hide it
    return (
        alt.layer(*layers)
        .properties(width="container", height=HEIGHT, title=title(row))
        .interactive(bind_y=False)
    )


def _range_band(row: dict, now: datetime, start: datetime, right: datetime) -> Any:
    """The crossing day's 80 % range (``days_low`` to ``days_high``), shaded over the plot's
    height and cut at its right edge; None without a range inside the plot."""
    import altair as alt

    low, high = row.get("days_low"), row.get("days_high")
    if not row.get("days_left") or low is None:
        return None
    t0 = max(start, now + timedelta(days=low))
    t1 = right if high is None else min(right, now + timedelta(days=high))
    if t0 >= right or t1 <= t0:
        return None
    df = _frame(timestamp=[t0], t2=[t1])
    return (
        alt.Chart(df)
        .mark_rect(color=_RED, opacity=0.12)
        .encode(x="timestamp:T", x2="t2:T")
        .properties(name="range")
    )


def title(row: dict) -> Any:
    """A chart's title: the deployment, then what and where (a config server's or mongos's
    finding says so).

    >>> title({"deployment": "Prod · rs0", "resource": "cpu", "member": "rs0-1.p:1",
    ...        "part": None, "scope_kind": "replica_set"}).text
    'Prod · rs0'
    """
    import altair as alt

    role = capacity.role_name(row)
    label = LABELS[row["resource"]]
    label = f"{role.capitalize()} {label[0].lower()}{label[1:]}" if role else label
    where = f"{short(row['member'])}{', ' + row['part'] if row.get('part') else ''}"
    return alt.TitleParams(row["deployment"], subtitle=f"{label} ({where})", anchor="start")


def title_text(row: dict) -> str:
    """The title as one line (``Prod · rs0: CPU (rs0-1)``): what the page names the chart by.

    >>> title_text({"deployment": "Prod · rs0", "resource": "cpu", "member": "rs0-1.p:1",
    ...             "part": None, "scope_kind": "replica_set"})
    'Prod · rs0: CPU (rs0-1)'
    """
    t = title(row)
    return f"{t.text}: {t.subtitle}"


def shard_chart(flagged: dict, deployment: str, pts: pl.DataFrame, now: datetime) -> Any:
    """Used space of each shard member's data partition, in a cluster whose shards grow
    unevenly: a line per member, coloured by shard; ``pts`` has ``shard_name``, ``host``,
    ``timestamp`` and ``gib``.

    >>> chart = shard_chart(row, "Analytics · cluster of sh0-0, sh0-1", pts, now)  # doctest: +SKIP
    >>> chart.to_dict()["title"]["text"]  # doctest: +SKIP
    'Analytics · cluster of sh0-0, sh0-1'
    """
    import altair as alt

    start = pts["timestamp"].min() if pts.height else now - timedelta(days=14)
    right = now + timedelta(days=3)
    x = alt.X(
        "timestamp:T", axis=_axis(start, right), scale=alt.Scale(domain=[_ms(start), _ms(right)])
    )
    lines = (
        alt.Chart(pts)
        .mark_line()
        .encode(
            x=x,
            y=alt.Y("gib:Q", title="GiB used", scale=alt.Scale(zero=False)),
            color=alt.Color("shard_name:N", title="shard", legend=alt.Legend(orient="top-left")),
            detail="host:N",
            tooltip=["host:N", "shard_name:N", alt.Tooltip("gib:Q", format=",.1f")],
        )
    )
    head = alt.TitleParams(
        deployment, subtitle=f"{LABELS['shard_growth']}: {flagged['note']}", anchor="start"
    )
    return (
        alt.layer(*_rule_x(now, "now", _GREY, "now"), lines)
        .properties(width="container", height=HEIGHT, title=head)
        .interactive(bind_y=False)
    )


def shard_points(flagged: pl.DataFrame, topo: pl.DataFrame, forecast: pl.DataFrame,
                 disk_frame: pl.DataFrame) -> pl.DataFrame:  # fmt: skip
    """The points of :func:`shard_chart`: each shard member's fastest-growing partition
    (where its data grows), in GiB.

    >>> flagged = h.filter(pl.col("resource") == "shard_growth")  # doctest: +SKIP
    >>> shard_points(flagged, topo, forecast, disk_frame).columns  # doctest: +SKIP
    ['shard_name', 'timestamp', 'gib', 'host']
    """
    clusters = flagged["scope"].to_list()
    members = topo.filter(pl.col("cluster_id").is_in(clusters), pl.col("shard_name").is_not_null())
    fastest = (
        forecast.sort("growth_bytes_per_day", descending=True, nulls_last=True)
        .group_by("group_id", "host_id", maintain_order=True)
        .first()
        .select("group_id", "host_id", "partition_name")
    )
    keys = ["group_id", "host_id", "partition_name"]
    pts = capacity.disk_points(disk_frame).join(fastest, on=keys)
    return (
        pts.join(members.select("host_id", "shard_name", "member"), on="host_id")
        .select(
            "shard_name", "timestamp", gib=pl.col("used") / GIB,
            host=pl.col("member").map_elements(short, return_dtype=pl.String),
        )
        .sort("timestamp")
    )  # fmt: skip
