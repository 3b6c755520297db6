"""The alert tools: ``list_alerts``, ``explain_alert`` (:func:`explained` turns an alert
context into its result), ``alert_noise`` and ``acknowledge_alert``. Each is a thin call of
the client and :mod:`opsapi.alerts_analysis`; this module chooses, trims and pages."""

from __future__ import annotations

import functools
from datetime import datetime, timedelta
from typing import Any, NamedTuple, Optional

import polars as pl
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult

from opsapi import alerts_analysis as aa
from opsapi.report.alerts import config_name, minutes_text

from ._fleet import Fleet
from ._results import answer, at, fit, page, start_of, when
from ._series import summarise

__all__ = ["Length", "ack_length", "acknowledge", "alert_noise", "ask_to_acknowledge",
           "explain_alert", "explained", "list_alerts"]  # fmt: skip

#: The alert statuses ``list_alerts`` takes (``ANY``: every status).
STATUSES = ("OPEN", "TRACKING", "CLOSED", "CANCELLED", "ANY")


def alert_fields(a: Any, names: dict[str, str]) -> dict[str, Any]:
    """What a result shows of an alert (nulls left out)."""
    cv = a.current_value
    value = None
    if cv is not None and cv.number is not None:
        value = f"{cv.number:g} {cv.units or ''}".strip()
    d = {
        "id": a.id,
        "project": names.get(a.group_id or "", a.group_id),
        "event_type_name": a.event_type_name,
        "metric_name": a.metric_name,
        "status": a.status,
        "created": a.created,
        "resolved": a.resolved,
        "host": a.hostname_and_port,
        "replica_set_name": a.replica_set_name,
        "cluster_name": a.cluster_name,
        "current_value": value,
        "acknowledged_until": a.acknowledged_until,
        "acknowledging_username": a.acknowledging_username,
        "acknowledgement_comment": a.acknowledgement_comment,
        "alert_config_id": a.alert_config_id,
    }
    return {k: v for k, v in d.items() if v is not None}


def list_alerts(
    fleet: Fleet,
    project: Optional[str],
    status: str,
    since: Optional[str],
    limit: int,
    page_: Optional[str],
) -> CallToolResult:
    start = start_of(page_)
    since_ = when(since, "since")
    ids = fleet._project_ids(project)
    after = at(since_, fleet._now())
    listed = fleet.client.alerts.list_all(status=None if status == "ANY" else status, groups=ids)
    alerts = [a for a in listed if after is None or (a.created is not None and a.created >= after)]
    alerts.sort(key=lambda a: (a.created is not None, a.created), reverse=True)
    fleet._remember_alerts(alerts)
    names = fleet._names()
    items = [alert_fields(a, names) for a in alerts]
    where = f"project {project!r}" if project else f"{len(ids)} project(s)"
    what = "alerts" if status == "ANY" else f"{status} alerts"
    window = f" created since {after:%Y-%m-%d %H:%M} UTC" if after else ""

    def make(shown: Any, next_page: Optional[str], cut: bool) -> tuple[str, dict[str, Any]]:
        if shown:
            said = (f"{len(items)} {what} in {where}{window}, newest first: {start + 1}-"
                    f"{start + len(shown)}.")  # fmt: skip
        else:
            said = f"No {what} in {where}{window}."
            if status != "ANY":
                said += ' status="ANY" or an earlier since lists more.'
        if next_page:
            said += f" More: list_alerts(page={next_page!r}, same arguments)."
        said += " Then: explain_alert(alert_id) for one alert's series and threshold; "
        said += "alert_noise for which configurations are noise."
        return said, {"total": len(items), "alerts": shown, "next_page": next_page}

    return page(items, start, limit, make)


# ---- explain_alert --------------------------------------------------------------------------

#: What a result shows of each part of an alert's context beside its series (a frame each).
PARTS = {
    "events": ("created", "event_type_name", "said", "host", "replica_set_name"),
    "slow_queries": ("namespace", "shape", "count", "total_ms", "median_ms",
                     "examined_per_returned", "plan_summary", "index"),
    "suggested_indexes": ("namespace", "index", "shapes", "count", "avg_ms"),
}  # fmt: skip


def explain_alert(fleet: Fleet, alert_id: str, project: Optional[str]) -> CallToolResult:
    alert = fleet._alert(alert_id, project)
    ctx = fleet.client.alerts.context(alert)
    others = _others(fleet, alert, ctx)
    names = fleet._names()
    sizes = [(120, 10, 10), (60, 5, 5), (24, 3, 3), (8, 0, 0)]
    return fit([functools.partial(explained, ctx, names, others, *s) for s in sizes])


def _others(fleet: Fleet, alert: Any, ctx: Any) -> list[Any]:
    """The project's other alerts about the same host or replica set, open at some time of
    the context's window."""
    if not alert.group_id:
        return []
    same = []
    for a in fleet.client.alerts.list(alert.group_id):
        if a.id == alert.id or a.created is None or a.created > ctx.end:
            continue
        if a.resolved is not None and a.resolved < ctx.start:
            continue
        host = alert.hostname_and_port and a.hostname_and_port == alert.hostname_and_port
        rs = alert.replica_set_name and a.replica_set_name == alert.replica_set_name
        if host or rs:
            same.append(a)
    return same


def explained(
    ctx: Any, names: dict[str, str], others: list[Any], points: int, n_others: int, n_rows: int
) -> tuple[str, dict[str, Any]]:
    """An alert context (``client.alerts.context``) as ``explain_alert``'s result: the
    alert, its window, the threshold, its metric's series around it summarised (the value
    when it was raised, the peak), the hosts it concerns, the project's other alerts about the
    same host or replica set in the window, and what may say why (:data:`PARTS`: the events,
    the slow queries and the suggested indexes; the reading; what is missing and why); at
    most ``points`` buckets of series, ``n_others`` other alerts and ``n_rows`` rows of each
    part."""
    a = ctx.alert
    series = summarise(ctx.frame, points=points, start=ctx.start, end=ctx.end, at=a.created)
    data: dict[str, Any] = {
        "alert": alert_fields(a, names),
        "window": {"start": ctx.start, "end": ctx.end, "granularity": ctx.granularity},
        "metric": {
            "kind": ctx.kind,
            "measurement": ctx.measurement,
            "threshold": ctx.threshold,
            "threshold_units": ctx.threshold_units,
        },
        "series": series,
        "hosts": [
            {
                k: v
                for k, v in (
                    ("host", f"{h.hostname}:{h.port}"),
                    ("id", h.id),
                    ("type_name", h.type_name),
                    ("replica_state_name", h.replica_state_name),
                )
                if v is not None
            }
            for h in ctx.hosts
        ],  # fmt: skip
        "other_alerts": [alert_fields(o, names) for o in others[:n_others]],
        "other_alert_count": len(others),
    }
    if ctx.note:
        data["note"] = ctx.note
    # Beside it, what may say why: the events (not the alert's own acknowledgements), the
    # slow queries and the indexes that would serve them, the reading, and what is missing.
    for part, columns in PARTS.items():
        frame = getattr(ctx, part)
        if part == "events" and frame.height:
            frame = frame.filter(pl.col("kind").cast(pl.String).fill_null("") != "alert")
        data[part] = _rows(frame, n_rows, columns)
    data["reading"] = ctx.reading
    data["missing"] = dict(ctx.missing)
    host = a.hostname_and_port or a.replica_set_name or "its hosts"
    peak = max((s["max"] for s in series), default=None)
    said = f"Alert {a.id} ({a.event_type_name}"
    said += f", {a.metric_name}" if a.metric_name else ""
    said += f") on {host}, {a.status}"
    if ctx.threshold is not None:
        said += f"; threshold {ctx.threshold:g} {ctx.threshold_units or ''}".rstrip()
    if peak is not None:
        said += f"; the series peaked at {peak:.4g} in the window"
    said += (f". Window {ctx.start:%Y-%m-%d %H:%M} to {ctx.end:%H:%M} UTC at "
             f"{ctx.granularity}.")  # fmt: skip
    if ctx.note:
        said += " No series: the note says why."
    said += (" The reading says what was found beside it (slow queries, indexes, events);"
             " missing, what could not be read and why.")  # fmt: skip
    said += " Then: resource_history for a longer view, what_runs_out_first for the trend"
    said += "; acknowledge_alert where the server allows writes."
    return said, data


def _rows(frame: pl.DataFrame, n: int, columns: tuple[str, ...] = ()) -> dict[str, Any]:
    """The first ``n`` rows of a frame (those of ``columns`` it has, else all), and how many
    there are."""
    if columns:
        frame = frame.select([c for c in columns if c in frame.columns])
    rows = [
        {k: v for k, v in r.items() if v is not None} for r in frame.head(n).iter_rows(named=True)
    ]
    return {"total": frame.height, "rows": rows}


# ---- alert_noise -----------------------------------------------------------------------------


def alert_noise(
    fleet: Fleet, project: Optional[str], days: int, top: int, page_: Optional[str]
) -> CallToolResult:
    start = start_of(page_)
    ids = fleet._project_ids(project)
    since = fleet._now() - timedelta(days=days)
    alerts = fleet.client.alerts.list_all(groups=ids).to_polars()
    if alerts.height:
        alerts = alerts.filter(pl.col("created") >= since)
    names = fleet._names()
    # When each alert was acknowledged: its project's acknowledgement events.
    frames = [f for f in (fleet.client.events.list(g).to_polars() for g in ids) if f.height]
    acks = None
    if frames:
        acks = pl.concat(frames, how="diagonal_relaxed").filter(
            pl.col("event_type_name").cast(pl.String) == aa.ACKNOWLEDGED_EVENT
        )
    where = f"project {project!r}" if project else f"{len(ids)} project(s)"
    if alerts.is_empty():
        said = f"No alerts in {where} over the last {days} days: nothing to judge."
        return answer(said, {"alerts": 0, "configurations": [], "hosts": []})
    noise = aa.noise(alerts, events=acks)
    flaps = aa.flapping(alerts).filter("flapping")
    loud = aa.noisiest(alerts, by="host", top=5)
    group_of = dict(
        zip(alerts["alert_config_id"].cast(pl.String), alerts["group_id"].cast(pl.String))
    )
    items = []
    for r in noise.iter_rows(named=True):
        cid = str(r["alert_config_id"])
        mine = flaps.filter(pl.col("alert_config_id").cast(pl.String) == cid)
        flapping = [{"host": f["host"], "reopens": f["reopens"],
                     "shortest_gap_minutes": f["shortest_gap_minutes"]}
                    for f in mine.iter_rows(named=True)]  # fmt: skip
        why = [f"flaps on {f['host']}: opened again {f['reopens']} times within 30 min of "
               "closing" for f in flapping]  # fmt: skip
        if r["closed_unacknowledged_share"]:
            why.append(f"{r['closed_unacknowledged_share'] * 100:.0f} % closed with nobody "
                       "acknowledging")  # fmt: skip
        if r["open_minutes_p50"] is not None:
            why.append(f"open {minutes_text(r['open_minutes_p50'])} at the median")
        items.append(
            {
                "alert_config_id": cid,
                "project": names.get(group_of.get(cid, ""), group_of.get(cid)),
                "watches": config_name(r["event_type_name"], r["metric_name"]),
                **{k: v for k, v in r.items() if v is not None and k != "alert_config_id"},
                "share_of_alerts": r["alerts"] / alerts.height,
                "flapping": flapping,
                "why": why,
            }
        )
    hosts = [{k: v for k, v in r.items() if v is not None} for r in loud.iter_rows(named=True)]

    def make(shown: Any, next_page: Optional[str], cut: bool) -> tuple[str, dict[str, Any]]:
        said = (
            f"{alerts.height} alerts in {where} over the last {days} days, from "
            f"{len(items)} alert configurations; the configurations with the most alerts "
            f"first ({start + 1}-{start + len(shown)}). A configuration flaps when its alerts "
            "open again within 30 minutes of closing, twice or more; a host is noisy with 3x "
            "the alerts of the typical host."
        )
        if next_page:
            said += f" More: alert_noise(page={next_page!r}, same arguments)."
        said += " Then: list_alerts, explain_alert(alert_id) for one of them."
        data = {"alerts": alerts.height, "since": since, "configurations": shown,
                "hosts": hosts, "next_page": next_page}  # fmt: skip
        return said, data

    return page(items, start, top, make)


# ---- acknowledge_alert -----------------------------------------------------------------------


class Length(NamedTuple):
    """How long an acknowledgement asked for lasts: until an instant, or for a duration
    (its end then counted from the API server's clock once the person said yes)."""

    until: Optional[datetime]
    duration: Optional[timedelta]

    def end(self, now: datetime) -> datetime:
        """The end, ``now`` being the API server's clock (to the minute)."""
        if self.until is not None:
            return self.until
        assert self.duration is not None
        return now + self.duration

    def said(self, now: Optional[datetime]) -> str:
        """The length as the question says it: an end where the server's clock is known."""
        if self.until is not None:
            return f"until {self.until:%Y-%m-%d %H:%M} UTC"
        if now is not None:
            return f"until {self.end(now):%Y-%m-%d %H:%M} UTC"
        return f"for {_duration_words(self.duration)} from your yes"


def _duration_words(d: Optional[timedelta]) -> str:
    minutes = int((d or timedelta(0)).total_seconds() // 60)
    days, minutes = divmod(minutes, 24 * 60)
    hours, minutes = divmod(minutes, 60)
    parts = [f"{n} {w}{'s' if n != 1 else ''}"
             for n, w in ((days, "day"), (hours, "hour"), (minutes, "minute")) if n]  # fmt: skip
    return " ".join(parts) or "less than a minute"


def ack_length(fleet: Fleet, until: Optional[str], duration: Optional[str]) -> Length:
    """How long the acknowledgement lasts: exactly one of ``until`` and ``duration``, in the
    future and at most :attr:`Settings.max_ack` away. Checked without any request: an instant
    against the API server's clock where an answer has shown it already (else once the person
    said yes: :func:`ack_end`)."""
    if (until is None) == (duration is None):
        raise ToolError("until, duration: give exactly one (until: an ISO 8601 instant; "
                        "duration: P1D, 4h)")  # fmt: skip
    most = fleet.settings.max_ack
    if duration is not None:
        d = when(duration, "duration")
        if not isinstance(d, timedelta):
            raise ToolError(f"duration: {duration!r} is not a duration (P1D, 4h, 30m)")
        if d <= timedelta(0) or d > most:
            raise ToolError(f"duration: {duration} is not between 0 and the server's limit, "
                            f"{most} (opsapi mcp --max-ack)")  # fmt: skip
        # To the minute, as the question says it (asked again on a retry, it must read the
        # same).
        return Length(None, timedelta(minutes=int(d.total_seconds() // 60)) or d)
    end = when(until, "until")
    if not isinstance(end, datetime):
        raise ToolError(f"until: {until!r} is not an instant (2026-03-09T10:00:00Z)")
    length = Length(end, None)
    now = fleet._known_now()
    if now is not None:
        _in_range(fleet, length, now)
    return length


def _in_range(fleet: Fleet, length: Length, now: datetime) -> datetime:
    """The acknowledgement's end, checked against the server's clock ``now``."""
    end = length.end(now)
    most = fleet.settings.max_ack
    if end <= now or end - now > most:
        raise ToolError(f"until: {end:%Y-%m-%dT%H:%M:%SZ} is not between now "
                        f"({now:%Y-%m-%dT%H:%M:%SZ}) and the server's limit, {most} from now "
                        "(opsapi mcp --max-ack); nothing was sent")  # fmt: skip
    return end


def ask_to_acknowledge(fleet: Fleet, alert_id: str, length: Length, comment: str) -> str:
    """What the person is asked before the alert is acknowledged, from what the server's
    earlier answers showed (the alert as list_alerts or explain_alert showed it, the
    server's clock) and nothing asked now: a no sends no request at all."""
    alert = fleet._seen_alert(alert_id)
    now = fleet._known_now()
    if alert is None:
        return (f"Acknowledge alert {alert_id} {length.said(now)}, with the comment "
                f"{comment!r}? Its notifications stop until then.")  # fmt: skip
    names = fleet._known_names()
    what = alert.event_type_name or "alert"
    if alert.metric_name:
        what += f" {alert.metric_name}"
    where = alert.hostname_and_port or alert.replica_set_name or "no host"
    message = (
        f"Acknowledge alert {alert.id} ({what} on {where}, project "
        f"{names.get(alert.group_id or '', alert.group_id)}, {alert.status} when last listed) "
        f"{length.said(now)}, with the comment {comment!r}? Its notifications stop until then."
    )
    if now is not None and alert.acknowledged_until is not None and alert.acknowledged_until > now:
        by = f" by {alert.acknowledging_username}" if alert.acknowledging_username else ""
        sooner = "sooner" if length.end(now) < alert.acknowledged_until else "later"
        message += (f" It was acknowledged{by} until {alert.acknowledged_until:%Y-%m-%d %H:%M} "
                    f"UTC: this ends that {sooner}.")  # fmt: skip
    return message


def acknowledge(
    fleet: Fleet, alert_id: str, project: Optional[str], length: Length, comment: str
) -> CallToolResult:
    """Acknowledges (the person said yes): the alert is found, the end checked against the
    server's clock, then one PATCH; the result is the API's record of the alert afterwards."""
    alert = fleet._alert(alert_id, project)
    end = _in_range(fleet, length, fleet._now())
    done = fleet.client.alerts.acknowledge(alert.group_id, alert.id, until=end, comment=comment)
    fleet._remember_alerts([done])
    said = (f"Acknowledged alert {done.id} until {done.acknowledged_until:%Y-%m-%d %H:%M} UTC; "
            "this is the API's record of it now.")  # fmt: skip
    return answer(said, {"acknowledged": True, "alert": alert_fields(done, fleet._names())})


def not_acknowledged(action: str) -> CallToolResult:
    """The person did not say yes (``action``: the elicitation's, ``accept`` with a no)."""
    said = {"decline": "declined", "cancel": "cancelled"}.get(action, "answered no")
    said = f"Not acknowledged: the person {said}; nothing was sent to the API."
    return answer(said, {"acknowledged": False, "answer": action}, untrusted=False)
