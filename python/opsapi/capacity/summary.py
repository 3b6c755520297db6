"""Headroom said for people: one sentence per deployment, and one row per deployment with
the days left of each resource (what the report and ``opsapi capacity`` show)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Optional

import polars as pl

from .headroom import RESOURCES
from .passage import REASON_SAID

__all__ = ["accuracy_text", "cell_text", "deployment_rows", "headroom_summary", "headroom_table",
           "oversized_deployments", "range_text", "restart_texts", "role_name"]  # fmt: skip

#: The scopes of a sharded cluster's hosts that hold no data: findings of their own kind, said
#: with their role ("config server disk 90 % full ...") and given a column of their own.
ROLE_SCOPES = {"config_servers": "config server", "mongos": "mongos"}

_FLAGGED = ("critical", "warning", "watch")
#: A resource as a sentence names it.
_NAMED = {"disk": "disk space", "oplog_window": "oplog window",
          "replication_lag": "replication lag", "cpu": "CPU", "cache": "dirty cache",
          "connections": "connections", "tickets": "tickets", "iops": "IOPS",
          "disk_latency": "disk latency"}  # fmt: skip
_PHRASE = {
    "disk": "disk {limit:g} % full",
    "oplog_window": "oplog window below {limit:g} h",
    "replication_lag": "replication lag above {limit:g} s",
    "cpu": "CPU at {limit:g} %",
    "cache": "dirty cache above {limit:g} %",
    "connections": "connections at {limit:,.0f}",
    "tickets": "tickets below {limit:g}",
    "iops": "IOPS at {limit:,.0f}",
    "disk_latency": "disk latency above {limit:g} ms",
}


def _short(member: Optional[str]) -> str:
    """``rs0-2.prod.example.net:27017`` → ``rs0-2``."""
    return "" if member is None else member.split(":")[0].split(".")[0]


def deployment_rows(h: pl.DataFrame, names: Optional[Mapping[str, str]] = None) -> pl.DataFrame:
    """The rows of the top-level deployments of a :func:`~opsapi.capacity.headroom` frame
    (sharded clusters, replica sets outside them, standalone hosts), each with a
    ``deployment`` label a person reads: its cluster's name where ``headroom`` had the
    clusters listing (``Prod · orders``), else what its hosts say (``Prod · rs0``, ``Prod ·
    cluster of sh0-0, sh0-1``); a sharded cluster's ``config_servers`` and ``mongos`` rows
    carry their cluster's label. Most urgent first, as ``h``.

    Args:
        h: a :func:`~opsapi.capacity.headroom` frame.
        names: project names by group id (see :func:`headroom_summary`).

    >>> from opsapi.capacity import headroom, headroom_inputs
    >>> rows = deployment_rows(headroom(*headroom_inputs(client)))
    >>> sorted(rows["scope_kind"].unique())
    ['cluster', 'config_servers', 'host', 'mongos', 'replica_set']
    """
    kind = pl.col("scope_kind")
    clusters = h.filter(kind == "cluster")["scope"].unique().to_list()
    shards = (
        h.filter(kind == "shard")
        .group_by("cluster_id")
        .agg(pl.col("scope").unique().sort().str.join(", "))
    )
    top = h.filter(
        (kind == "cluster")
        | kind.is_in(list(ROLE_SCOPES))
        | ((kind == "replica_set") & ~pl.col("cluster_id").is_in(clusters).fill_null(False))
        | ((kind == "host") & pl.col("cluster_id").is_null())
    ).join(shards.rename({"scope": "_shards"}), on="cluster_id", how="left", maintain_order="left")
    # A deployment's cluster name where the clusters listing gave it (``headroom(...,
    # clusters=...)``), else what its hosts say.
    named = pl.col("cluster_name") if "cluster_name" in h.columns else pl.lit(None, pl.String)
    deployment = kind.is_in(["cluster", "replica_set", *ROLE_SCOPES])
    label = (
        pl.when(deployment & named.is_not_null())
        .then(named)
        .when(kind.is_in(["cluster", *ROLE_SCOPES]) & pl.col("_shards").is_not_null())
        .then(pl.lit("cluster of ") + pl.col("_shards"))
        .when(kind == "cluster")
        .then(pl.lit("cluster of no shards"))
        .when(kind == "host")
        .then(pl.col("scope").map_elements(_short, return_dtype=pl.String))
        .otherwise(pl.col("scope"))
    )
    # Project names, or where they are not given the domain of a project's hosts.
    domains = (
        h.filter(pl.col("scope_kind") == "host")
        .group_by("group_id")
        .agg(_project=pl.col("scope").str.extract(r"^[^.:]+\.([^.:]+)").drop_nulls().min())
    )
    if names:
        given = pl.col("group_id").cast(pl.String).replace_strict(dict(names), default=None)
        domains = domains.with_columns(_project=pl.coalesce(given, "_project"))
    return (
        top.join(domains, on="group_id", how="left", maintain_order="left")
        .with_columns(
            deployment=pl.concat_str(
                [pl.col("_project"), label], separator=" · ", ignore_nulls=True
            )  # fmt: skip
        )
        .drop("_shards", "_project")
    )


def role_name(row: Mapping) -> Optional[str]:
    """What a headroom row's finding is of, where that is not a deployment's data: ``config
    server`` or ``mongos`` (their scopes' rows, and their hosts' own); else ``None``.

    >>> role_name({"scope_kind": "mongos", "role": "mongos"})
    'mongos'
    >>> role_name({"scope_kind": "host", "role": "config"}), role_name({"scope_kind": "cluster"})
    ('config server', None)
    """
    kind = row.get("scope_kind") or ""
    if kind in ROLE_SCOPES:
        return ROLE_SCOPES[kind]
    return _ROLE_WORDS.get(row.get("role") or "") if kind == "host" else None


_ROLE_WORDS = {"config": "config server", "mongos": "mongos"}


def _sentence(row: dict) -> str:
    """What one headroom row says: when it runs out, or why it is flagged; a config
    server's or mongos's finding says so first."""
    role = role_name(row)
    return f"{role} {_said(row)}" if role else _said(row)


def _said(row: dict) -> str:
    member = _short(row["member"])
    where = f" ({member}{', ' + row['part'] if row.get('part') else ''})" if member else ""
    if row["resource"] == "shard_growth":
        days = row["days_left"]
        fills = f", its disk at the limit in ~{days:.0f} days ({member})" if days else ""
        return f"{row['note']}{fills}"
    phrase = _PHRASE[row["resource"]].format(limit=row["limit"])
    scaling = row.get("auto_scaling")
    if scaling and row["resource"] == "disk":  # Atlas grows it there: not full, bigger
        phrase = f"disk grows (auto-scaling at {row['limit']:g} %)"
    elif scaling:
        phrase = f"{phrase} ({scaling})"  # CPU and cache against the maximum tier
    days = row["days_left"]
    if days is None:
        if row["resource"] == "cpu" and row["status"] == "warning":
            return f"CPU p95 {row['p95']:.0f} %, {row['note'][4:]}{where}"
        return f"{row['resource']}: {row['note']}{where}"
    if days == 0:
        return f"{phrase} now{where}"
    span = range_text(row.get("days_low"), row.get("days_high"))
    # Commas inside the brackets: a semicolon separates a deployment's findings.
    rests = ", ".join(x for x in (span, row.get("rests_on"), regime_text(row)) if x)
    rests = f" ({rests})" if rests else ""
    return f"{phrase} in ~{days:.0f} days{rests}, {row['date']:%b %-d}{where}"


def restart_texts(h: pl.DataFrame, names: Optional[Mapping[str, str]] = None) -> list[str]:
    """One sentence per deployment whose forecasts a tier change or a disk resize restarted
    (one that the events name, :func:`~opsapi.capacity.event_breaks`, or the disk's own size
    shows): which resources, since when, and whether there is a date yet. The report shows
    them under its findings and ``opsapi capacity`` under its summary.

    >>> restart_texts(h, names)  # doctest: +SKIP
    ['Prod · orders: CPU and dirty cache fitted since Mar 2, when the tier changed (too
    little history since for a date).']
    """
    rows = deployment_rows(h, names).filter(
        pl.col("fit_reason").is_in(["tier_change", "capacity_change"]),
        pl.col("fit_since").is_not_null(),
    )
    out = []
    keys = ["deployment", "fit_reason", "fit_since"]
    for (dep, reason, since), one in rows.group_by(keys, maintain_order=True):
        what = [_NAMED.get(r, r) for r in dict.fromkeys(one["resource"].to_list())]
        said = " and ".join([", ".join(what[:-1]), what[-1]] if len(what) > 1 else what)
        dated = one["days_left"].drop_nulls().len() > 0
        tail = "" if dated else " (too little history since for a date)"
        when = REASON_SAID[reason]
        out.append(f"{dep}: {said} fitted since {since:%b %-d}, when {when}{tail}.")
    return out


def regime_text(row: Mapping) -> Optional[str]:
    """Where a forecast's present regime starts, where one was found and its range does not
    already say so: ``"fitted since Feb 20, when growth changed"``; else None.

    >>> from datetime import datetime, timezone
    >>> regime_text({"fit_reason": "slope_change", "interval_source": "backtest",
    ...              "fit_since": datetime(2026, 2, 20, tzinfo=timezone.utc)})
    'fitted since Feb 20, when growth changed'
    >>> regime_text({"fit_reason": "history"}) is None
    True
    """
    said = REASON_SAID.get(row.get("fit_reason") or "")
    since = row.get("fit_since")
    if said is None or since is None or "since" in (row.get("rests_on") or ""):
        return None
    return f"fitted since {since:%b %-d}, when {said}"


def range_text(low: Optional[float], high: Optional[float]) -> str:
    """A days-to-limit interval as a person reads it: whole days, the earliest rounded down
    and the latest up; ``or more`` where the latest is open (the trend's own uncertainty
    outgrows it) or beyond a year; blank without an interval.

    >>> range_text(12.4, 25.2), range_text(3.0, None), range_text(40.2, 900.0)
    ('12-26', '3 or more', '40 or more')
    >>> range_text(None, None)
    ''
    """
    if low is None:
        return ""
    if high is None or high >= 365:
        return f"{math.floor(low)} or more"
    return f"{math.floor(low)}-{math.ceil(high)}"


def accuracy_text(bt: pl.DataFrame, resource: str, days: Optional[float]) -> Optional[str]:
    """How good past forecasts of ``resource`` were on this fleet (a :func:`backtest` frame),
    at the backtested horizon nearest ``days`` ahead, in words; ``None`` without past dated
    forecasts of it.

    >>> bt = pl.DataFrame({"resource": ["cpu", "cpu"], "horizon": [7, 30], "dated": [40, 12],
    ...                    "abs_error_days_p90": [2.6, 9.1], "coverage": [0.82, 0.75],
    ...                    "interval_level": [0.8, 0.8]})
    >>> print(accuracy_text(bt, "cpu", 11.0))  # doctest: +NORMALIZE_WHITESPACE
    past forecasts of this kind on this fleet were within ±3 days, 9 times out of 10 (7 days
    ahead, 40 of them; 82 % fell in their 80 % range)
    """
    rows = bt.filter(pl.col("resource") == resource, pl.col("dated") > 0)
    if rows.is_empty():
        return None
    target = 14.0 if days is None else days
    row = rows.sort((pl.col("horizon") - target).abs(), "horizon").row(0, named=True)
    within = math.ceil(row["abs_error_days_p90"])
    covered = row.get("coverage")
    inside = (
        f"; {covered * 100:.0f} % fell in their {row['interval_level'] * 100:.0f} % range"
        if covered is not None
        else ""
    )
    return (
        f"past forecasts of this kind on this fleet were within ±{within} day"
        f"{'' if within == 1 else 's'}, 9 times out of 10 ({row['horizon']} days ahead, "
        f"{row['dated']} of them{inside})"
    )


_SIZING_WORDS = {"cpu": "CPU", "cache": "cache", "disk": "disk space", "iops": "IOPS"}


def _oversized_said(rows: pl.DataFrame) -> str:
    """An oversized deployment's sentence: its sizing resources' peaks as shares of their
    limits, the nearest first."""
    share = (pl.col("peak") / pl.col("limit") * 100).alias("share")
    parts = rows.with_columns(share).sort("share", descending=True)
    said = ", ".join(
        f"{_SIZING_WORDS.get(r['resource'], r['resource'])} {r['share']:.0f} %"
        for r in parts.iter_rows(named=True)
    )
    return (
        f"oversized: CPU, cache, disk space and IOPS each peaked at most half their limit ({said})"
    )


def oversized_deployments(
    h: pl.DataFrame, *, names: Optional[Mapping[str, str]] = None
) -> pl.DataFrame:
    """The oversized deployments of a :func:`headroom` frame (status ``oversized``), one row
    each: ``deployment``, ``group_id``, ``scope_kind``, ``scope``, and per sizing resource
    (``cpu``, ``cache``, ``disk``, ``iops``) its worst value over the window as a share of
    its limit; ``nearest`` (the resource nearest its limit). On Atlas,
    :func:`~opsapi.capacity.oversized.tier_down` says whether one tier down fits.

    >>> from opsapi.capacity import headroom, headroom_inputs
    >>> oversized_deployments(headroom(*headroom_inputs(client)))["deployment"].to_list()
    ['prod · standalone0']
    """
    rows = deployment_rows(h, names).filter(pl.col("status") == "oversized")
    keys = ["deployment", "group_id", "scope_kind", "scope"]
    if rows.is_empty():
        return pl.DataFrame(
            schema={
                **{k: pl.String for k in keys},
                **{r: pl.Float64 for r in _SIZING_WORDS},
                "nearest": pl.String,
            }  # fmt: skip
        )
    rows = rows.with_columns(
        pl.col("group_id").cast(pl.String), share=pl.col("peak") / pl.col("limit")
    )
    wide = rows.pivot(on="resource", index=keys, values="share", aggregate_function="max")
    nearest = (
        rows.sort("share", descending=True)
        .group_by(keys, maintain_order=True)
        .agg(nearest=pl.col("resource").first())
    )
    cols = [pl.col(r) if r in wide.columns else pl.lit(None, pl.Float64).alias(r)
            for r in _SIZING_WORDS]  # fmt: skip
    return wide.select(*keys, *cols).join(nearest, on=keys, how="left")


def headroom_summary(
    h: pl.DataFrame, *, names: Optional[Mapping[str, str]] = None, most: int = 4
) -> pl.DataFrame:
    """What runs out first, where and when: one row per deployment (sharded cluster, replica
    set, standalone host) of a :func:`headroom` frame, most urgent first.

    Args:
        h: a :func:`headroom` frame.
        names: project names by group id, to label deployments (``Prod · rs0``); without
            them, the domain of a member's host name tells projects apart.
        most: the most findings a deployment's sentence names (most urgent first).

    Returns:
        ``deployment``, ``group_id``, ``scope_kind``, ``scope``, ``binding``, ``days_left``,
        ``days_low``, ``days_high``, ``interval_source``, ``date``, ``status`` (of the binding
        resource), ``member`` and ``summary``: e.g. ``"Prod · rs0: oplog window below 24 h
        in ~11 days (9-13), Mar 13 (rs0-1)"``; each date's interval (:func:`range_text`) is
        :func:`headroom`'s (80 % by default).

    >>> from opsapi.capacity import headroom, headroom_inputs
    >>> h = headroom(*headroom_inputs(client))
    >>> headroom_summary(h).filter(pl.col("scope") == "rs0")["summary"][0]
    'prod · rs0: replication lag above 60 s now (rs0-2); oplog window below 24 h in ~12 days...'
    """
    top = deployment_rows(h, names).sort("deployment", maintain_order=True)
    out = []
    for (deployment,), rows in top.group_by("deployment", maintain_order=True):
        flagged = rows.filter(pl.col("status").is_in(_FLAGGED))
        first = flagged.head(1).to_dicts() or [{}]
        said = [_sentence(r) for r in flagged.head(most).iter_rows(named=True)]
        more = flagged.height - len(said)
        text = "; ".join(said) + (f"; {more} more" if more > 0 else "")
        main = rows.filter(~pl.col("scope_kind").is_in(list(ROLE_SCOPES)))
        any_row = (main if main.height else rows).row(0, named=True)
        # The deployment's own resources first, then its config servers' and mongos'.
        missing = sorted(
            {
                (role_name(r) is not None, f"{role_name(r) or ''} {r['resource']}".strip())
                for r in rows.filter(pl.col("status") == "missing").iter_rows(named=True)
            }
        )
        missing = [text for _, text in missing]
        big = rows.filter(pl.col("status") == "oversized")
        if not said:
            text = "nothing runs out within the horizon"
            if big.height:
                text = _oversized_said(big)
                first = [{"status": "oversized"}]
        if missing:
            text += "; missing: " + ", ".join(missing)
        out.append(
            {
                "deployment": deployment,
                "group_id": str(any_row["group_id"]),
                "scope_kind": any_row["scope_kind"],
                "scope": any_row["scope"],
                "binding": first[0].get("resource"),
                "days_left": first[0].get("days_left"),
                "days_low": first[0].get("days_low"),
                "days_high": first[0].get("days_high"),
                "interval_source": first[0].get("interval_source"),
                "rests_on": first[0].get("rests_on"),
                "date": first[0].get("date"),
                "status": first[0].get("status", "ok"),
                "member": first[0].get("member"),
                "summary": f"{deployment}: {text}",
            }
        )
    frame = pl.DataFrame(
        out,
        schema={"deployment": pl.String, "group_id": pl.String, "scope_kind": pl.String,
                "scope": pl.String, "binding": pl.String, "days_left": pl.Float64,
                "days_low": pl.Float64, "days_high": pl.Float64, "interval_source": pl.String,
                "rests_on": pl.String, "date": pl.Datetime("ms", "UTC"), "status": pl.String,
                "member": pl.String,
                "summary": pl.String},
    )  # fmt: skip
    sev = pl.col("status").replace_strict(
        {"critical": 0, "warning": 1, "watch": 2, "ok": 3, "oversized": 3, "missing": 4},
        return_dtype=pl.Int32,
    )
    return frame.sort(sev, pl.col("days_left").fill_null(float("inf")), "deployment")


def headroom_table(h: pl.DataFrame, *, names: Optional[Mapping[str, str]] = None) -> pl.DataFrame:
    """One row per deployment, one column per resource: the days left (null: not running
    out, missing or not applicable), in ``<resource>_status`` its status, and in
    ``<resource>_low`` and ``<resource>_high`` the interval of its days left; in the order
    of :func:`headroom_summary`. A resource's column is the deployment's data-bearing
    members'; a sharded cluster's config servers and mongos have a column each
    (``config_servers``, ``mongos``): their most urgent resource's days left.

    >>> from opsapi.capacity import headroom, headroom_inputs
    >>> t = headroom_table(headroom(*headroom_inputs(client)))
    >>> rs0 = t.filter(pl.col("deployment") == "prod · rs0")
    >>> rs0.select("oplog_window", "oplog_window_status").row(0)
    (12.0, 'warning')
    """
    top = deployment_rows(h, names)
    order = headroom_summary(h, names=names).select("deployment")
    resources = [*RESOURCES, "shard_growth"]
    roles = top.filter(pl.col("scope_kind").is_in(list(ROLE_SCOPES)))
    top = top.filter(~pl.col("scope_kind").is_in(list(ROLE_SCOPES)))
    wide = top.pivot(
        on="resource",
        index="deployment",
        values=["days_left", "status", "days_low", "days_high"],
        aggregate_function="first",
    )
    cols = []
    for r in resources:
        for value, name, dtype in (
            ("days_left", r, pl.Float64),
            ("status", f"{r}_status", pl.String),
            ("days_low", f"{r}_low", pl.Float64),
            ("days_high", f"{r}_high", pl.Float64),
        ):
            c = f"{value}_{r}"
            cols.append(
                pl.col(c).alias(name) if c in wide.columns else pl.lit(None, dtype).alias(name)
            )
    out = order.join(wide.select("deployment", *cols), on="deployment", how="left",
                     maintain_order="left")  # fmt: skip
    for kind in ROLE_SCOPES:
        # The scope's most urgent row (``h`` is most urgent first).
        worst = (
            roles.filter(pl.col("scope_kind") == kind)
            .group_by("deployment", maintain_order=True)
            .first()
            .select("deployment", pl.col("days_left").alias(kind),
                    pl.col("status").alias(f"{kind}_status"))
        )  # fmt: skip
        out = out.join(worst, on="deployment", how="left", maintain_order="left")
    return out


def cell_text(days: Optional[float], status: Optional[str]) -> str:
    """A headroom table cell as a person reads it: the days left, ``now`` when past the
    limit, ``high`` when flagged without a date, ``ok`` when not running out, ``low`` for
    an oversized deployment's resource that is not, ``missing`` without data, blank where the
    resource does not apply.

    >>> [cell_text(12.4, "warning"), cell_text(0.0, "critical"), cell_text(None, "ok"),
    ...  cell_text(None, "missing"), cell_text(500.0, "ok"), cell_text(None, None)]
    ['12 d', 'now', 'ok', 'missing', '>1 y', '']
    """
    if status is None:
        return ""
    if status == "missing":
        return "missing"
    if days is None:
        return "high" if status in _FLAGGED else "low" if status == "oversized" else "ok"
    if days == 0:
        return "now"
    if days < 1:
        return "<1 d"
    if days >= 365:
        return ">1 y"
    return f"{days:.0f} d"
