"""Which alerts are noise: alert history in polars expressions, and the chart of an alert in
its context.

Every function takes an alert frame, ``AlertList.to_polars()`` of project alerts
(``client.alerts.list_all()``) or global alerts, and returns a polars DataFrame; no function
loops over rows in Python.

- :func:`noise`: per alert configuration and event type, how many alerts, how long they stay
  open, how fast someone acknowledges them, and how many close with nobody acknowledging.
- :func:`flapping`: the same configuration on the same host opening again within minutes of
  closing, counted per host.
- :func:`noisiest`: the hosts (or configurations) with the most alerts, with their share.
- :func:`context_chart`: ``AlertContext.chart()``.

The alert resource does not record *when* it was acknowledged: give the project's events
(``EventList.to_polars()``), whose ``ALERT_ACKNOWLEDGED_AUDIT`` events do, as ``events=``;
an alert frame with a column ``acknowledged_at`` of your own works too. Without either,
times to acknowledge are null, and an alert counts as acknowledged only while its
acknowledgement shows (``acknowledging_username``).

Example::

    from opsapi import alerts_analysis as aa

    alerts = client.alerts.list_all().to_polars()
    events = pl.concat([client.events.list(g).to_polars() for g in groups], how="diagonal")
    aa.noise(alerts, events=events)         # one row per configuration, noisiest first
    aa.flapping(alerts, within="30m")       # the configurations that flap, per host
    aa.noisiest(alerts, by="host", top=5)   # the hosts with the most alerts, and their share
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Optional, Union

import polars as pl

from opsapi._duration import parse_duration

__all__ = ["ACKNOWLEDGED_EVENT", "context_chart", "flapping", "noise", "noisiest"]

#: The event type of an acknowledgement (its ``created`` is when, its ``alert_id`` of what).
ACKNOWLEDGED_EVENT = "ALERT_ACKNOWLEDGED_AUDIT"

_CONFIG = ["alert_config_id", "event_type_name"]
_MINUTES = 60.0


def _host() -> pl.Expr:
    """The host an alert is about: ``hostname_and_port`` (as people read it), else
    ``host_id``; null for alerts about no host (an agent, a replica set)."""
    return pl.coalesce(
        pl.col("hostname_and_port").cast(pl.String), pl.col("host_id").cast(pl.String)
    ).alias("host")


def _minutes(expr: pl.Expr) -> pl.Expr:
    return expr.dt.total_milliseconds() / 60_000.0


def _with_acknowledgements(alerts: pl.DataFrame, events: Optional[pl.DataFrame]) -> pl.DataFrame:
    """The alert frame with ``acknowledged_at`` (the first acknowledgement event of each
    alert, else the frame's own column, else null) and ``acknowledged``."""
    if events is not None:
        first = (
            events.filter(pl.col("event_type_name").cast(pl.String) == ACKNOWLEDGED_EVENT)
            .filter(pl.col("alert_id").is_not_null())
            .group_by(pl.col("alert_id").cast(pl.String).alias("_id"))
            .agg(pl.col("created").min().alias("_acknowledged_at"))
        )
        out = alerts.with_columns(pl.col("id").cast(pl.String).alias("_id")).join(
            first, on="_id", how="left"
        )
        if "acknowledged_at" in alerts.columns:
            at = pl.coalesce("_acknowledged_at", "acknowledged_at")
        else:
            at = pl.col("_acknowledged_at")
        out = out.with_columns(at.alias("acknowledged_at")).drop("_id", "_acknowledged_at")
    elif "acknowledged_at" in alerts.columns:
        out = alerts
    else:
        out = alerts.with_columns(pl.lit(None, pl.Datetime("ms", "UTC")).alias("acknowledged_at"))
    return out.with_columns(
        (
            pl.col("acknowledged_at").is_not_null() | pl.col("acknowledging_username").is_not_null()
        ).alias("acknowledged")
    )


def noise(
    alerts: pl.DataFrame,
    *,
    events: Optional[pl.DataFrame] = None,
    by: Union[str, list[str]] = _CONFIG,  # noqa: B006 (never mutated)
) -> pl.DataFrame:
    """Per alert configuration and event type (``by``): ``alerts`` (how many),
    ``open_minutes_p50``/``_p95`` (from ``created`` to ``resolved``, of the alerts that
    closed), ``ack_minutes_p50``/``_p95`` (from ``created`` to the first acknowledgement, of
    those acknowledged: needs ``events``, see the module's documentation),
    ``acknowledged_share`` (of all its alerts), ``closed_unacknowledged_share`` (closed
    with nobody acknowledging: the alerts nobody needed to act on), ``metric_name``; the
    configurations with the most alerts first. Percentiles interpolate linearly.

    >>> client = sim.client()
    >>> alerts = client.alerts.list_all().to_polars()
    >>> events = pl.concat([client.events.list(g).to_polars() for g in sim.group_ids])
    >>> table = noise(alerts, events=events)
    >>> table.columns[:4]
    ['alert_config_id', 'event_type_name', 'metric_name', 'alerts']
    >>> table["alerts"].sum() == alerts.height
    True
    """
    keys = [by] if isinstance(by, str) else list(by)
    frame = _with_acknowledgements(alerts, events).with_columns(
        _minutes(pl.col("resolved") - pl.col("created")).alias("_open"),
        _minutes(pl.col("acknowledged_at") - pl.col("created")).alias("_ack"),
        ((pl.col("status").cast(pl.String) == "CLOSED") & ~pl.col("acknowledged")).alias(
            "_closed_unacknowledged"
        ),
    )
    n = pl.len()
    return (
        frame.group_by(keys)
        .agg(
            pl.col("metric_name").drop_nulls().first().alias("metric_name"),
            n.alias("alerts"),
            pl.col("_open").quantile(0.5, "linear").alias("open_minutes_p50"),
            pl.col("_open").quantile(0.95, "linear").alias("open_minutes_p95"),
            pl.col("_ack").quantile(0.5, "linear").alias("ack_minutes_p50"),
            pl.col("_ack").quantile(0.95, "linear").alias("ack_minutes_p95"),
            (pl.col("acknowledged").sum() / n).alias("acknowledged_share"),
            (pl.col("_closed_unacknowledged").sum() / n).alias("closed_unacknowledged_share"),
        )
        .sort(["alerts", *keys], descending=[True, *([False] * len(keys))])
    )


def flapping(
    alerts: pl.DataFrame,
    *,
    within: Union[str, timedelta] = "30m",
    min_reopens: int = 2,
) -> pl.DataFrame:
    """The configurations that open again on the same host soon after closing, per
    configuration and host: ``alerts``, ``reopens`` (alerts created at most ``within`` after
    the previous alert of the same configuration on the same host was resolved),
    ``shortest_gap_minutes``, ``longest_gap_minutes`` (of those re-openings) and ``flapping``
    (at least ``min_reopens`` of them); only pairs that re-opened at least once, the most
    re-openings first.

    ``within`` (default 30 minutes): a condition that comes back within half an hour of
    clearing is the same condition oscillating around its threshold, not a new incident
    (the default notification interval is an hour). ``min_reopens`` (default 2): one quick
    re-opening happens to healthy configurations now and then; two in a row is a pattern.

    >>> alerts = sim.client().alerts.list_all().to_polars()
    >>> flaps = flapping(alerts, within="30m")
    >>> flaps.filter("flapping").select("metric_name", "reopens").rows()
    [('CONNECTIONS', 15)]
    """
    window = parse_duration(within) if isinstance(within, str) else within
    host = _host()
    keys = ["alert_config_id", "host"]
    gap = pl.col("created") - pl.col("resolved").shift(1).over(keys)
    reopened = gap.is_not_null() & (gap >= timedelta(0)) & (gap <= window)
    gaps = pl.when(pl.col("_reopened")).then(_minutes(pl.col("_gap")))
    return (
        alerts.with_columns(host)
        .filter(pl.col("host").is_not_null() & pl.col("created").is_not_null())
        .sort("created")
        .with_columns(gap.alias("_gap"))
        .with_columns(reopened.alias("_reopened"))
        .group_by(keys)
        .agg(
            pl.col("event_type_name").first(),
            pl.col("metric_name").drop_nulls().first().alias("metric_name"),
            pl.len().alias("alerts"),
            pl.col("_reopened").sum().cast(pl.Int64).alias("reopens"),
            gaps.min().alias("shortest_gap_minutes"),
            gaps.max().alias("longest_gap_minutes"),
        )
        .filter(pl.col("reopens") > 0)
        .with_columns((pl.col("reopens") >= min_reopens).alias("flapping"))
        .sort(["reopens", "alerts", "host"], descending=[True, True, False])
    )


def noisiest(
    alerts: pl.DataFrame,
    *,
    by: str = "host",
    top: int = 5,
    factor: float = 3.0,
) -> pl.DataFrame:
    """The hosts (``by="host"``) or alert configurations (``by="alert_config"``) with the
    most alerts, the ``top`` of them: ``alerts``, ``share`` (of all the frame's alerts,
    those about no host included), ``times_typical`` (its alerts over the median of all
    hosts, or configurations, that have any) and ``noisy`` (at least ``factor`` times the
    typical one).

    ``factor`` (default 3): a host with three times the alerts of the typical host is not
    having a bad week by chance; it is worth a look of its own.

    >>> alerts = sim.client().alerts.list_all().to_polars()
    >>> for row in noisiest(alerts, by="host", top=3).select("host", "alerts", "noisy").rows():
    ...     print(row)  # the noisy host, and the flapping one (its flaps are alerts too)
    ('sh0-0-0.analytics.example.net:27018', 41, True)
    ('standalone1.prod.example.net:27017', 17, True)
    ('rs0-2.prod.example.net:27017', 7, False)
    """
    if by == "host":
        keyed = alerts.with_columns(_host()).filter(pl.col("host").is_not_null())
        keys = ["host"]
    elif by == "alert_config":
        keyed = alerts.filter(pl.col("alert_config_id").is_not_null())
        keys = _CONFIG
    else:
        raise ValueError(f'by: {by!r} is neither "host" nor "alert_config"')
    total = alerts.height
    counts = keyed.group_by(keys).agg(
        pl.len().alias("alerts"),
        *([pl.col("metric_name").drop_nulls().first()] if by == "alert_config" else []),
    )
    typical = counts["alerts"].median() if counts.height else None
    return (
        counts.with_columns(
            (pl.col("alerts") / max(total, 1)).alias("share"),
            (pl.col("alerts") / (typical or 1.0)).alias("times_typical"),
        )
        .with_columns((pl.col("times_typical") >= factor).alias("noisy"))
        .sort(["alerts", *keys], descending=[True, *([False] * len(keys))])
        .head(top)
    )


def context_chart(ctx: Any, *, width: int = 640, height: int = 220) -> Any:
    """The chart of an ``AlertContext`` (what ``ctx.chart()`` returns): the series of the
    alert's metric (one line per measured host, partition or database), the configuration's
    threshold as a dashed rule, and the span the alert was open (to its resolution, or to the
    window's end while open) shaded. Altair is imported here, when a chart is asked for.

    >>> client = sim.client()
    >>> alert = client.alerts.list(sim.group_ids[0], status="OPEN")[0]
    >>> chart = client.alerts.context(alert).chart()
    >>> [layer["mark"]["type"] for layer in chart.to_dict()["layer"]]
    ['rect', 'line', 'rule']
    """
    try:
        import altair as alt
    except ImportError as e:
        raise ImportError(f"{e}: charts need pip install 'opsapi[charts]'", name=e.name) from e

    alert = ctx.alert
    frame = ctx.frame.with_columns(
        pl.concat_str(
            [
                pl.col("measurement").cast(pl.String),
                pl.col("partition_name").cast(pl.String),
                pl.col("database_name").cast(pl.String),
            ],
            separator=" ",
            ignore_nulls=True,
        ).alias("series")
    ).select("series", "timestamp", "value")
    opened = alert.created or ctx.start
    closed = alert.resolved or ctx.end
    span = pl.DataFrame(
        {"opened": [max(opened, ctx.start)], "closed": [min(closed, ctx.end)]},
        schema={"opened": pl.Datetime("ms", "UTC"), "closed": pl.Datetime("ms", "UTC")},
    )
    shade = (
        alt.Chart(span)
        .mark_rect(opacity=0.15, color="#d62728")
        .encode(x=alt.X("opened:T", title=None), x2="closed:T")
    )
    line = (
        alt.Chart(frame)
        .mark_line()
        .encode(
            x=alt.X("timestamp:T", title=None),
            y=alt.Y("value:Q", title=ctx.measurement or "value"),
            color=alt.Color("series:N", title=None),
        )
    )
    rule = (
        alt.Chart(pl.DataFrame({"threshold": [ctx.threshold]}, schema={"threshold": pl.Float64}))
        .mark_rule(strokeDash=[4, 4], color="#d62728")
        .encode(y="threshold:Q")
    )
    if ctx.threshold is None:
        rule = rule.transform_filter("datum.threshold != null")
    title = f"{alert.event_type_name or 'alert'} {alert.metric_name or ''} on " + (
        alert.hostname_and_port or alert.replica_set_name or "?"
    )
    if ctx.note:
        title += f" ({ctx.note})"
    return alt.layer(shade, line, rule).properties(width=width, height=height, title=title)
