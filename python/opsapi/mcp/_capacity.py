"""The capacity tools: ``store_status``, ``what_runs_out_first``, ``resource_history`` and
``oversized``. Each is a thin call of what :mod:`opsapi.capacity`, the store and the client
already do; this module chooses, trims and pages what they return."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from typing import Any, Optional

import polars as pl
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult

from opsapi import capacity
from opsapi._duration import parse_duration

from ._fleet import Fleet, Headroom
from ._results import answer, at, fit, page, start_of, when
from ._series import summarise

__all__ = ["oversized", "resource_history", "store_status", "what_runs_out_first"]

_FLAGGED = ("critical", "warning", "watch")
# Headroom's columns a finding leaves out: the project is named instead of its id, and the
# sort key is headroom's own.
_LEAVE_OUT = {"group_id", "_rank"}


def _row(r: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """One headroom row as a finding: every column headroom gave it (whatever they are: a
    new column of headroom's shows up here as it is), nulls left out, the project by name
    and the days' interval said as a person reads it."""
    out = {"project": names.get(str(r.get("group_id")), r.get("group_id"))}
    out.update({k: v for k, v in r.items() if v not in (None, "") and k not in _LEAVE_OUT})
    said = capacity.range_text(r.get("days_low"), r.get("days_high"))
    if said and r.get("days_left"):
        out["range_days"] = said
    return out


def _computed(hr: Headroom) -> dict[str, Any]:
    """Where headroom came from, and whether an earlier question (or the server's start)
    computed it (how long it took: store_status)."""
    return {"source": hr.source, "cached": hr.hit}


def _headroom_of(
    fleet: Fleet, project: Optional[str], page_: Optional[str]
) -> tuple[list[str], int, Headroom, dict[str, str]]:
    """The projects a tool names, where its page starts (both checked first), their headroom
    and their names."""
    start = start_of(page_)
    ids = fleet._project_ids(project)
    return ids, start, fleet.headroom(ids), {g: fleet._names().get(g, g) for g in ids}


def what_runs_out_first(
    fleet: Fleet,
    project: Optional[str],
    cluster: Optional[str],
    horizon_days: float,
    top: int,
    page_: Optional[str],
) -> CallToolResult:
    ids, start, hr, names = _headroom_of(fleet, project, page_)

    def deployments() -> tuple[pl.DataFrame, dict[str, str]]:
        summary = capacity.headroom_summary(hr.frame, names=names)
        return (capacity.deployment_rows(hr.frame, names),
                dict(zip(summary["deployment"], summary["summary"])))  # fmt: skip

    rows, sentences = fleet._derived(hr, ("deployments", tuple(names.items())), deployments)
    if cluster is not None:
        rows = _in_cluster(rows, cluster)
    days = pl.col("days_left")
    findings = rows.filter(
        (days <= horizon_days) | (days.is_null() & pl.col("status").is_in(_FLAGGED[:2]))
    )
    missing = rows.filter(pl.col("status") == "missing")
    items = [_row(r, names) for r in findings.iter_rows(named=True)]
    where = f"cluster {cluster!r}" if cluster else f"{len(ids)} project(s)"

    def make(shown: Any, next_page: Optional[str], cut: bool) -> tuple[str, dict[str, Any]]:
        first = start + 1
        said = (
            f"What runs out first within {horizon_days:g} days in {where}: findings "
            f"{first}-{start + len(shown)} of {len(items)}, most urgent first"
            if shown
            else f"Nothing runs out within {horizon_days:g} days in {where}"
            + (" (no more findings past this page)" if start else "")
        )
        said += f" (headroom from {hr.source})."
        if next_page:
            said += f" More: what_runs_out_first(page={next_page!r}, same arguments)."
            if cut:
                said += " This page was cut to fit the size limit."
        if not items:
            said += " A longer horizon_days shows what runs out later."
        said += (" Then: resource_history(target=<member>, metric=...) for a finding's series,"
                 " list_alerts for what already fired.")  # fmt: skip
        deployments = list(dict.fromkeys(f["deployment"] for f in shown))
        data = {
            "as_of": hr.as_of,
            "window": fleet.settings.window,
            "headroom": _computed(hr),
            "horizon_days": horizon_days,
            "total": len(items),
            "findings": shown,
            "summary": {d: sentences[d] for d in deployments if d in sentences},
            "missing_data": sorted(set(missing["deployment"].to_list()))[:10],
            "next_page": next_page,
        }
        return said, data

    return page(items, start, top, make)


def _in_cluster(rows: pl.DataFrame, cluster: str) -> pl.DataFrame:
    """The rows of one cluster (its name or id) or replica set (its name)."""
    c = cluster.lower()
    named = [pl.col(x).cast(pl.String).str.to_lowercase() == c
             for x in ("cluster_name", "cluster_id", "scope") if x in rows.columns]  # fmt: skip
    out = rows.filter(pl.any_horizontal(named).fill_null(False))
    if out.is_empty():
        known = sorted(
            {str(v) for x in ("cluster_name", "scope") if x in rows.columns
             for v in rows[x].drop_nulls().to_list()}
        )[:20]  # fmt: skip
        raise ToolError(f"cluster: no cluster or replica set {cluster!r} in these projects; "
                        f"known: {', '.join(known)}")  # fmt: skip
    return out


def oversized(fleet: Fleet, project: Optional[str], page_: Optional[str]) -> CallToolResult:
    ids, start, hr, names = _headroom_of(fleet, project, page_)

    def smaller() -> tuple[pl.DataFrame, dict[str, str]]:
        big = capacity.oversized_deployments(hr.frame, names=names)
        tiers = capacity.cluster_tiers(hr.frame, hr.clusters)
        if tiers:
            down = capacity.tier_down(hr.frame, tiers)
            big = big.join(down.drop("binding"), on="scope", how="left", maintain_order="left")
        return big, tiers

    big, tiers = fleet._derived(hr, ("oversized", tuple(names.items())), smaller)
    items = [
        {"project": names.get(r["group_id"], r["group_id"]),
         **{k: v for k, v in r.items() if v is not None and k != "group_id"}}
        for r in big.iter_rows(named=True)
    ]  # fmt: skip

    def make(shown: Any, next_page: Optional[str], cut: bool) -> tuple[str, dict[str, Any]]:
        said = (
            f"{len(items)} oversized deployment(s): CPU, cache, disk space and IOPS each "
            "peaked at most half their limit over the window, nothing flagged (cpu, cache, "
            "disk, iops: the worst value as a share of its limit)"
            if items
            else "No deployment is oversized: each peaked above half its limit on CPU, cache, "
            "disk space or IOPS, or has a finding (what_runs_out_first)"
        )
        said += (
            "; on Atlas, tier_down and fits say whether one tier down leaves room."
            if tiers and items
            else "."
        )
        if next_page:
            said += f" More: oversized(page={next_page!r})."
        data = {"as_of": hr.as_of, "window": fleet.settings.window, "total": len(items),
                "deployments": shown, "next_page": next_page}  # fmt: skip
        return said, data

    return page(items, start, 20, make)


def store_status(fleet: Fleet, check: bool) -> CallToolResult:
    if fleet.store is None:
        return answer(
            "No measurement store: this server reads measurements from the API (opsapi mcp "
            "--store PATH reads a store that `opsapi sync PATH` fills).",
            {"store": None, "cache": fleet._cached()},
            untrusted=False,
        )
    from opsapi.cli.store import _info_rows

    store = fleet.store
    if check:
        t0 = time.perf_counter()
        result = store.check()
        fleet.last_check = {
            "at": fleet._now(),
            "ok": result.ok,
            "files": result.files,
            "bytes": result.bytes,
            "seconds": round(time.perf_counter() - t0, 2),
            "problems": result.problems.head(10).to_dicts(),
            "problem_count": result.problems.height,
        }
    rows = _info_rows(store)
    targets = store.targets()
    now = fleet._now()
    last = max((r["last"] for r in rows if r["last"] is not None), default=None)
    synced = max((r["last_sync"] for r in rows if r["last_sync"] is not None), default=None)
    lost: dict[str, int] = {
        c: int(targets[c].sum())
        for c in ("gaps", "points_lost", "points_pending")
        if c in targets.columns and targets.height
    }
    data = {
        "store": fleet.settings.store,
        "now": now,
        "newest_point": last,
        "hours_behind": None if last is None else round((now - last).total_seconds() / 3600, 1),
        "last_sync": synced,
        "kinds": rows,
        "targets_no_longer_seen": int((~targets["seen"]).sum()) if targets.height else 0,
        **lost,
        "last_check": fleet.last_check,
        "headroom_cache": fleet._cached(),
    }
    said = (
        "The measurement store: what it holds per kind and granularity, how far behind the "
        "API's clock its newest point is, and what it lost."
        if rows
        else "The measurement store is empty: `opsapi sync PATH` fills it."
    )
    if fleet.last_check is None:
        said += " Not checked since this server started: store_status(check=true) reads every "
        said += "file whole."
    said += " Then: what_runs_out_first."
    return fit([lambda: (said, data), lambda: (said, {**data, "kinds": rows[:4]})],
               untrusted=False)  # fmt: skip


def _kind(metric: str) -> str:
    if metric.startswith("DISK_PARTITION_"):
        return "disk"
    if metric.startswith("DATABASE_"):
        return "database"
    return "host"


# Granularities the API keeps by default, finest first, and the longest span each is asked
# for (Ops Manager keeps minute data 2 days, 5-minute data 8 days, hourly data 63 days).
_GRANULARITIES = [("PT1M", 2), ("PT5M", 8), ("PT1H", 63), ("P1D", None)]


def resource_history(
    fleet: Fleet,
    target: str,
    metric: str,
    since: Optional[str],
    until: Optional[str],
    max_points: int,
) -> CallToolResult:
    since_, until_ = when(since or "P7D", "since"), when(until, "until")
    now = fleet._now()
    start, end = at(since_, now), at(until_, now) or now
    assert start is not None
    if start >= end:
        raise ToolError(f"since: {since!r} is not before until ({until or 'now'})")
    name, _, part = target.partition("/")
    ids = fleet._project_ids(None)
    host = fleet._host(name, ids)
    kind = _kind(metric)
    frame, source = _from_store(fleet, host, kind, metric, part or None, start, end)
    if frame is None:
        frame, source = _from_api(fleet, host, kind, metric, part or None, start, end)
    member = f"{host.hostname}:{host.port}" + (f"/{part}" if part else "")

    def version(points: int) -> Any:
        def make() -> tuple[str, dict[str, Any]]:
            series = summarise(frame, points=points, start=start, end=end)
            said = (
                f"{metric} of {target} from {source}: {len(series)} series, each summarised "
                f"and in at most {points // max(1, len(series))} buckets (mean and max)."
                if series
                else f"No {metric} points of {target} between {start:%Y-%m-%d %H:%M} and "
                f"{end:%Y-%m-%d %H:%M} UTC ({source}); check the name (what_runs_out_first's "
                "findings and the alerts name the measurements) or a longer since."
            )
            data = {"target": member, "host_id": host.id, "metric": metric, "since": start,
                    "until": end, "source": source, "series": series}  # fmt: skip
            return said, data

        return make

    versions = [version(n) for n in (max_points, max_points // 2, max_points // 4, 8)]
    return fit(versions)


def _from_store(
    fleet: Fleet, host: Any, kind: str, metric: str, part: Optional[str],
    start: datetime, end: datetime,
) -> tuple[Optional[pl.DataFrame], str]:  # fmt: skip
    """The points from the store, at the finest granularity it holds of them, or None when
    it holds none in the span."""
    if fleet.store is None:
        return None, ""
    targets = fleet.store.targets()
    if targets.is_empty():
        return None, ""
    held = targets.filter(
        (pl.col("kind") == kind) & (pl.col("host_id") == host.id) & (pl.col("last") >= start)
    )
    granularities = sorted(set(held["granularity"].cast(pl.String).to_list()),
                           key=lambda g: parse_duration(g))  # fmt: skip
    if not granularities:
        return None, ""
    lf = fleet.store.scan(kind=kind, granularity=tuple(granularities)).filter(
        pl.col("host_id") == host.id,
        pl.col("measurement") == metric,
        pl.col("timestamp").is_between(start, end),
    )
    if part is not None:
        col = "partition_name" if kind == "disk" else "database_name"
        lf = lf.filter(pl.col(col) == part)
    frame = lf.drop("granularity").collect()
    if frame.is_empty():
        return None, ""
    return frame, f"the store ({', '.join(granularities)})"


def _from_api(
    fleet: Fleet, host: Any, kind: str, metric: str, part: Optional[str],
    start: datetime, end: datetime,
) -> tuple[pl.DataFrame, str]:  # fmt: skip
    """The points from the API, at the finest granularity it keeps for the span."""
    days = (end - start) / timedelta(days=1)
    g = next(g for g, most in _GRANULARITIES if most is None or days <= most)
    m = fleet.client.measurements
    args = {"granularity": g, "start": start, "end": end, "metrics": [metric]}
    if kind == "host":
        frames = [m.host(host.group_id, host.id, **args).to_polars()]
    else:
        lister = fleet.client.hosts.partitions if kind == "disk" else fleet.client.hosts.databases
        names = [part] if part else list(lister(host.group_id, host.id))[:4]
        pull = m.disk if kind == "disk" else m.database
        frames = [pull(host.group_id, host.id, n, **args).to_polars() for n in names]
    frames = [f for f in frames if f.height]
    frame = pl.concat(frames, how="vertical_relaxed") if frames else pl.DataFrame()
    return frame, f"the API ({g})"
