"""Headroom: every resource of every host, rolled up per replica set, shard and cluster.

The question: what runs out first, where, and when. Each resource (``resources.py``) is a
series per host; the same steps turn each into a row (:func:`_host_rows`), the roll-up takes
a replica set's, shard's or cluster's worst member (:func:`_rolled_up`), and a sharded
cluster adds the imbalance of its shards' data growth (:func:`_shard_growth`).

(Just over 600 lines: most of it is :func:`headroom`'s documentation of every limit.)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any, NamedTuple, Optional

import polars as pl

from opsapi._duration import parse_duration
from opsapi.exceptions import ForbiddenError, InvalidArgumentError, NotFoundError

from ._common import _MS_PER_DAY, _disk_points, _reference_now
from .autoscaling import at_max_tier, auto_scaling, said
from .backtest import KEYS, _check, window_days
from .disk import disk_forecast
from .events import event_breaks, series_breaks
from .oversized import OVERSIZED_SHARE, mark_oversized
from .passage import first_passage, rests_on, short_note
from .resources import _SPECS, _applies, _Spec
from .rollup import _HOST, _rank, _rolled_up, _shard_growth
from .topology import topology
from .trend import INTERVAL_LEVEL, daily_peaks, fit_peaks

__all__ = ["HEADROOM_DISK_METRICS", "HEADROOM_HOST_METRICS", "RESOURCES", "check_pull",
           "headroom", "headroom_inputs"]  # fmt: skip

#: The host measurements :func:`headroom` reads (pull them with ``metrics=``).
HEADROOM_HOST_METRICS = [
    "OPLOG_MASTER_TIME",
    "OPLOG_REPLICATION_LAG_TIME",
    "PROCESS_NORMALIZED_CPU_USER",
    "PROCESS_NORMALIZED_CPU_KERNEL",
    "SYSTEM_NORMALIZED_CPU_USER",
    "SYSTEM_NORMALIZED_CPU_KERNEL",
    "SYSTEM_NORMALIZED_CPU_NICE",
    "SYSTEM_NORMALIZED_CPU_IRQ",
    "SYSTEM_NORMALIZED_CPU_SOFTIRQ",
    "SYSTEM_NORMALIZED_CPU_STEAL",
    "CACHE_USED_BYTES",
    "CACHE_DIRTY_BYTES",
    "CACHE_FILL_RATIO",
    "DIRTY_FILL_RATIO",
    "CONNECTIONS",
    "TICKETS_AVAILABLE_READS",
    "TICKETS_AVAILABLE_WRITE",
]
#: The disk measurements :func:`headroom` reads.
HEADROOM_DISK_METRICS = [
    "DISK_PARTITION_SPACE_USED",
    "DISK_PARTITION_SPACE_FREE",
    "DISK_PARTITION_SPACE_PERCENT_USED",
    "DISK_PARTITION_IOPS_TOTAL",
    "DISK_PARTITION_LATENCY_READ",
    "DISK_PARTITION_LATENCY_WRITE",
]
#: The resources, in the order tables show them.
RESOURCES = ["disk", "oplog_window", "replication_lag", "cpu", "cache", "connections",
             "tickets", "iops", "disk_latency"]  # fmt: skip


class _Inputs(NamedTuple):
    host_frame: pl.DataFrame
    disk_frame: pl.DataFrame
    hosts: list[Any]


class HeadroomInputs(_Inputs):
    """What :func:`headroom` reads: the long host and disk frames and the hosts
    (``headroom(*inputs)``), and the projects' clusters (``inputs.clusters``: pass them as
    ``headroom(*inputs, clusters=inputs.clusters)`` to name deployments by their clusters)."""

    clusters: list[Any]
    #: What :func:`headroom_inputs` noticed without stopping for it (a clusters listing the
    #: server refused), one sentence each.
    warnings: list[str]

    def __new__(cls, host_frame: Any, disk_frame: Any, hosts: Any, clusters: Any = None) -> Any:
        self = super().__new__(cls, host_frame, disk_frame, hosts)
        self.clusters = list(clusters or [])
        self.warnings = []
        return self


def headroom_inputs(
    client: Any,
    group_ids: Iterable[str] | None = None,
    *,
    window: str | timedelta = "14d",
    granularity: str = "PT1H",
    history: str | timedelta | None = None,
) -> HeadroomInputs:
    """Pulls what :func:`headroom` reads from a client: every host and cluster of
    ``group_ids`` (default: every project the key sees; the clusters as ``.clusters``), the
    host measurements of :data:`HEADROOM_HOST_METRICS` and the disk measurements of
    :data:`HEADROOM_DISK_METRICS` over ``window``, one fleet pull each. The client asks each
    flavour in its own names, as many a request as it takes (on Atlas at most 10, so the
    host measurements take two), and the frames carry one set of names whatever the flavour.

    ``history`` (longer than ``window``) pulls that much instead: :func:`headroom` still fits
    on ``window``, and backtests its forecasts on the rest, so that its intervals come from
    how wrong they were before (:func:`backtest`; ``"63d"`` is what Atlas keeps of hourly
    data, enough for horizons up to 30 days with a 14-day window).

    Every argument is checked before any request (:func:`check_pull`). A clusters listing
    the server refuses (404: an Ops Manager older than the endpoint; 403: a key without the
    permission) only costs the deployments' names: ``inputs.clusters`` is then empty,
    :func:`headroom` names them by replica set and shard, and ``inputs.warnings`` says why.

    >>> inputs = headroom_inputs(client, window="2d")
    >>> len(inputs.hosts), sorted(inputs.disk_frame["measurement"].unique().cast(str))[:2]
    (15, ['DISK_PARTITION_IOPS_TOTAL', 'DISK_PARTITION_LATENCY_READ'])
    """
    period = check_pull(client, window=window, granularity=granularity, history=history)
    if group_ids is None:
        group_ids = [g.id for g in client.groups.list()]
    group_ids = list(group_ids)
    hosts = [h for g in group_ids for h in client.hosts.list(g)]
    clusters, warnings = _clusters(client, group_ids)
    host_targets = [(h.group_id, h.id) for h in hosts]
    disk_targets = [(g, h, p) for g, h in host_targets for p in client.hosts.partitions(g, h)]
    host_frame = client.measurements.fleet(
        host_targets, granularity=granularity, period=period, metrics=HEADROOM_HOST_METRICS
    )
    disk_frame = client.measurements.fleet(
        disk_targets, granularity=granularity, period=period, metrics=HEADROOM_DISK_METRICS
    )
    inputs = HeadroomInputs(host_frame, disk_frame, hosts, clusters)
    inputs.warnings = warnings
    return inputs


def check_pull(
    client: Any,
    *,
    window: str | timedelta = "14d",
    granularity: str = "PT1H",
    history: str | timedelta | None = None,
) -> str:
    """Checks the arguments of :func:`headroom_inputs` without sending anything (an
    ``InvalidArgumentError`` naming the one refused), and returns the period it pulls: the
    longer of ``window`` and ``history``, in ISO 8601.

    >>> check_pull(client, window="14d", history="63d")
    'P63D'
    >>> check_pull(client, window="xyz")
    Traceback (most recent call last):
    opsapi.exceptions.InvalidArgumentError: invalid argument `window`: ...
    """
    spans = []
    for name, value in (("window", window), ("history", history)):
        if value is None:
            continue
        try:
            spans.append(parse_duration(value))
        except InvalidArgumentError as e:
            detail = str(e).split(": ", 1)[-1]
            raise InvalidArgumentError(f"invalid argument `{name}`: {detail}", name) from None
    secs = int(max(spans).total_seconds())
    period = (
        f"P{secs // 86400}D" if secs % 86400 == 0
        else f"PT{secs // 3600}H" if secs % 3600 == 0
        else f"PT{secs}S"
    )  # fmt: skip
    # The granularity and the period as the fleet pulls check them: a pull of no target
    # checks its arguments and sends nothing.
    client.measurements.fleet([], granularity=granularity, period=period)
    return period


def _clusters(client: Any, group_ids: list[str]) -> tuple[list[Any], list[str]]:
    """The projects' clusters, or none and why where the server refuses a listing (they only
    name the deployments)."""
    clusters: list[Any] = []
    for g in group_ids:
        try:
            clusters += client.clusters.list(g)
        except (NotFoundError, ForbiddenError) as e:
            why = "the server has no clusters listing" if e.status == 404 else (
                "the key may not list clusters")  # fmt: skip
            return [], [
                f"deployments are named by replica set and shard: {why} (project {g}: HTTP "
                f"{e.status})"
            ]
    return clusters, []


def resource_peaks(
    frames: dict[str, Any], now: datetime, topo: pl.DataFrame | None = None
) -> pl.DataFrame:
    """Each day's peak of every host resource but disk space (:data:`_SPECS`), toward its limit,
    over all the history of the frames up to ``now``: keys :data:`KEYS`, then ``day``, ``dow``,
    ``y`` and ``n`` (:func:`opsapi.capacity.trend.daily_peaks`); only the hosts a resource
    applies to when ``topo`` is given.

    >>> peaks = resource_peaks({"host": host_frame, "disk": disk_frame}, now)  # doctest: +SKIP
    """
    keys = KEYS[1:]
    now_lit = pl.lit(now, dtype=pl.Datetime("ms", "UTC"))
    parts = []
    for name, spec in _SPECS.items():
        # The limit is not read here (only which way is worse), so 1.0 stands for it.
        series = spec.series(frames[spec.needs], limit=1.0).filter(pl.col("timestamp") <= now_lit)
        if topo is not None:
            hosts = _applies(topo, spec.applies).select("group_id", "host_id").lazy()
            series = series.join(hosts, on=["group_id", "host_id"], how="semi")
        peaks = daily_peaks(series, keys, now, quantile=spec.quantile, worse=spec.worse)
        parts.append(peaks.with_columns(resource=pl.lit(name)))
    return pl.concat(parts, how="vertical_relaxed").select(*KEYS, "day", "dow", "y", "n").collect()


def headroom(
    host_frame: pl.DataFrame | pl.LazyFrame,
    disk_frame: pl.DataFrame | pl.LazyFrame,
    hosts: Any,
    *,
    window: str | timedelta = "14d",
    now: datetime | str | None = None,
    disk_percent: float = 90.0,
    oplog_window_hours: float = 24.0,
    replication_lag_seconds: float = 60.0,
    cpu_percent: float = 100.0,
    cpu_high_percent: float = 90.0,
    cache_dirty_percent: float = 20.0,
    connections: float = 5000.0,
    tickets: float = 16.0,
    iops: float = 3000.0,
    disk_latency_ms: float = 20.0,
    shard_growth_ratio: float = 2.0,
    critical_days: float = 7.0,
    warning_days: float = 30.0,
    watch_days: float = 90.0,
    min_days: int = 4,
    oversized_share: float = OVERSIZED_SHARE,
    interval_level: float = INTERVAL_LEVEL,
    horizons: Sequence[int] = (7, 14, 30),
    clusters: Any = None,
    events: Any = None,
) -> pl.DataFrame:
    """How much room each resource has left, per host and rolled up per replica set, shard
    and sharded cluster: what runs out first, where, and when.

    Each resource is a series per host (``opsapi.capacity.resources``: one function each):
    its ``level`` now, its ``p95`` and ``peak`` over ``window``, its ``trend`` (the trend of
    its daily peaks, with a weekly cycle taken out: :mod:`opsapi.capacity.trend`), the
    ``limit`` it is measured against, and the ``days_left`` until the trend of the peaks
    reaches it, with its interval: ``days_low`` to ``days_high`` at ``interval_level`` (80 %),
    from how wrong the same forecasts were on the history the frames hold before the window
    (a backtest, :func:`backtest`: pull the history with ``headroom_inputs(history=...)``), or
    where that is too short from the fits' residuals (``interval_source`` says which). A
    replica set's
    (shard's, cluster's) row is its worst member's, and ``member`` says which; a sharded
    cluster also gets a ``shard_growth`` row: its fastest-growing shard's data growth over
    the median of the others'.

    The limits, each a keyword argument, and why each default:

    - ``disk_percent=90``: past 90 % a compaction or an initial sync's copy no longer fits.
    - ``oplog_window_hours=24`` (the target; lower is worse): a secondary down longer than
      the window needs a full resync, and a day covers a weekend's slow response.
    - ``replication_lag_seconds=60``: reads from secondaries and majority writes wait that
      long, and a failover may roll back as much.
    - ``cpu_percent=100`` (all cores busy), and ``cpu_high_percent=90``: a p95 above it
      leaves no room for a failover's extra load, so it is a ``warning`` without a trend.
    - ``cache_dirty_percent=20``: WiredTiger's ``eviction_dirty_trigger``; past it
      application threads evict, and writes stall.
    - ``connections=5000``: opsapi cannot read a deployment's limit (``maxIncomingConnections``,
      the open-files limit); each connection holds about 1 MiB of memory, and by 5 000 a
      typical mongod feels it. Set yours.
    - ``tickets=16`` (lower is worse): an eighth of the 128 read or write tickets; fewer
      available means operations queue in the storage engine.
    - ``iops=3000``: the baseline of the commonest provisioned SSD volumes (gp3); set your
      disks'.
    - ``disk_latency_ms=20``: an SSD answering slower than 20 ms per I/O is saturated.
    - ``shard_growth_ratio=2``: a shard that grows twice as fast as the others fills
      first (a hot shard key, a balancer behind).
    - ``critical_days=7``, ``warning_days=30``, ``watch_days=90``: ``status`` by the days
      left: this week, this month, this quarter.
    - ``min_days=4``: fewer daily values than this give no trend.
    - ``oversized_share=0.5``: a deployment (sharded cluster, replica set, standalone) whose
      CPU, cache, disk space and IOPS each peaked at most half their limit over the window,
      with nothing flagged, is ``oversized``: half the machine would still peak at or under
      every limit (:mod:`opsapi.capacity.oversized`; on Atlas,
      :func:`~opsapi.capacity.oversized.tier_down` says whether one tier down fits).
    - ``interval_level=0.8``, ``horizons=(7, 14, 30)``: the intervals' level and the days
      ahead at which the backtest checks past forecasts.

    Args:
        host_frame: long host measurements (:data:`HEADROOM_HOST_METRICS`).
        disk_frame: long disk measurements (:data:`HEADROOM_DISK_METRICS`).
        hosts: a ``HostList``, a list of ``Host`` (from several projects), or their frame
            (``HostList.to_polars()``): replica sets, shards and clusters come from it.
        window: how far back from ``now`` the statistics and fits look.
        now: the reference instant (default: the newest timestamp of the frames).
        clusters: the projects' clusters (``client.clusters.list``; ``headroom_inputs``
            lists them as ``inputs.clusters``), or None: each row's ``cluster_name`` is its
            cluster's, and on Atlas every process of a cluster, its mongos and config servers
            included, rolls up into it (:func:`~opsapi.capacity.topology`); a cluster
            that auto-scales has its CPU and cache measured against its maximum tier, and its
            disk at 90 % said as when Atlas grows it (``auto_scaling``;
            :mod:`opsapi.capacity.autoscaling`).
        events: the projects' events over the history the frames hold
            (:func:`~opsapi.capacity.window_events`), or None: a tier change or a disk
            resize they name (Atlas's auto-scaling, a cluster's update) restarts the fits of
            the resources it changes there (``fit_reason`` ``tier_change`` or
            ``capacity_change``), whether or not the series shows it
            (:func:`~opsapi.capacity.event_breaks`).

    A host's role (:func:`~opsapi.capacity.topology`) decides where its rows roll up: a
    replica set's, shard's and cluster's rows are their data-bearing members' (never an
    arbiter's, a config server's or a mongos's), a cluster's config servers roll up into its
    ``config_servers`` scope and its mongos into its ``mongos`` scope.

    Returns:
        One row per (scope, resource): ``group_id``, ``cluster_id``, ``cluster_name``
        (with ``clusters``), ``scope_kind``
        (``host``, ``replica_set``, ``shard``, ``cluster``, ``config_servers``, ``mongos``),
        ``scope`` (``hostname:port``, the replica set or shard name, the cluster id: the
        config servers' replica set name, the mongos' cluster id), ``role`` (of the member
        that sets the value: ``data``, ``config``, ``mongos``, ``arbiter``), ``resource``
        (:data:`RESOURCES`, and ``shard_growth``), ``unit``, ``worse`` (``higher`` or
        ``lower``: which way the resource runs out), ``level``, ``p95`` (toward the limit:
        p99 for connections, the 5th percentile where lower is worse), ``peak`` (the worst
        value: the minimum where lower is worse), ``trend`` (per day), ``limit``,
        ``high_mark`` (the mark a p95 past which is flagged without a date: the CPU's
        ``cpu_high_percent``), ``days_left`` (0: past the limit; null: not trending
        toward it or no data, as ``note`` says), ``days_low`` and ``days_high`` (its interval;
        ``days_high`` null: the trend's own uncertainty outgrows it), ``interval_source``
        (``backtest`` or ``residuals``; null without a date), ``rests_on`` (what the range rests
        on, with its level: ``"80 %, backtested on 60 days"``), ``fit_since`` and
        ``fit_reason`` (where the present regime starts, and why), ``date`` (when it runs out),
        ``status`` (``critical``, ``warning``, ``watch``, ``ok``, ``oversized`` (a sizing
        resource of an oversized deployment) or ``missing``), ``binding`` (the
        resource of the scope that runs out first), ``member`` (the host that sets the
        value), ``part`` (the partition), ``note`` and ``auto_scaling`` (with ``clusters``:
        ``up to M80``, ``disk grows at 90 %``, else null); most urgent first. Missing data is
        never zero: its values are null and ``note`` says what is missing.

    >>> h = headroom(*headroom_inputs(client))
    >>> rs = h.filter(pl.col("scope_kind") == "replica_set", pl.col("scope") == "rs0")
    >>> rs.filter(pl.col("resource") == "oplog_window").select("member", "status").row(0)
    ('rs0-1.prod.example.net:27017', 'warning')
    """
    hs = _check(interval_level, horizons, 1)
    span = parse_duration(window)
    topo = topology(hosts, clusters)
    scaling = auto_scaling(topo, clusters)  # CPU and cache against the max tier (Atlas)
    host_frame = at_max_tier(host_frame, scaling) if clusters else host_frame
    stamps = pl.concat([f.lazy().select("timestamp") for f in (host_frame, disk_frame)]).collect()[
        "timestamp"
    ]
    now_utc = _reference_now(stamps, now)
    breaks = None if events is None else event_breaks(events, topo, now_utc)
    limits = {
        "oplog_window": oplog_window_hours,
        "replication_lag": replication_lag_seconds,
        "cpu": cpu_percent,
        "cache": cache_dirty_percent,
        "connections": connections,
        "tickets": tickets,
        "iops": iops,
        "disk_latency": disk_latency_ms,
    }
    frames = {"host": host_frame, "disk": disk_frame}
    # Every resource's daily peaks over all the history the frames hold: today's fits on the
    # window, and the past ones (backtests) that give each resource its interval.
    days = window_days(span)
    peaks = resource_peaks(frames, now_utc, topo)
    fits = (
        fit_peaks(peaks.lazy(), KEYS, window_days=days)
        .drop("origin")
        .rename({"level": "_at"})
        .join(
            peaks.lazy().filter(pl.col("day") == 0).select(*KEYS, recent="y"), on=KEYS, how="left"
        )  # fmt: skip
        .collect()
    )
    rows = [
        _host_rows(
            name,
            spec,
            frames[spec.needs],
            limits[name],
            topo,
            now_utc,
            span,
            min_days,
            fits.filter(pl.col("resource") == name).drop("resource"),
            interval_level,
            hs,
            breaks,
        )  # fmt: skip
        for name, spec in _SPECS.items()
    ]
    forecast = disk_forecast(
        disk_frame,
        window=span,
        now=now_utc,
        thresholds=(disk_percent / 100,),
        interval_level=interval_level,
        horizons=hs,
        events=events,
        hosts=hosts,
        clusters=clusters,
    )
    rows.append(_disk_rows(forecast, disk_frame, topo, disk_percent, now_utc, span))
    hosts_rows = pl.concat(rows, how="diagonal_relaxed").with_columns(
        high=(pl.col("resource") == "cpu") & (pl.col("p95") >= cpu_high_percent)
    )
    days = (critical_days, warning_days, watch_days)
    high = (pl.col("resource") == "cpu") & (pl.col("status") == "warning")
    per_host = (
        _status(hosts_rows, *days)
        .with_columns(
            note=pl.when(high & pl.col("days_left").is_null())
            .then(pl.lit(f"p95 above {cpu_high_percent:g} %"))
            .otherwise("note")
        )
        .join(topo.select(*_HOST, "cluster_id", "role"), on=_HOST, how="left")
        .with_columns(high_mark=pl.when(pl.col("resource") == "cpu").then(pl.lit(cpu_high_percent)))
        .with_columns(scope_kind=pl.lit("host"), scope=pl.col("member"))
    )
    shards = _shard_growth(forecast, per_host, topo, shard_growth_ratio, *days)
    parts = [per_host, _rolled_up(per_host, topo)] + ([shards] if shards.height else [])
    scoped = mark_oversized(pl.concat(parts, how="diagonal_relaxed"), topo, oversized_share)
    named = topo.select("cluster_id", "cluster_name").drop_nulls("cluster_id").unique("cluster_id")
    scoped = said(scoped, scaling).with_columns(pl.col("cluster_id").cast(pl.String))
    return _finish(scoped.join(named, on="cluster_id", how="left", maintain_order="left"), now_utc)


def _host_rows(
    name: str,
    spec: _Spec,
    frame: pl.DataFrame | pl.LazyFrame,
    limit: float,
    topo: pl.DataFrame,
    now: datetime,
    span: timedelta,
    min_days: int,
    fit: pl.DataFrame,
    level: float,
    horizons: Sequence[int],
    breaks: Optional[pl.DataFrame] = None,
) -> pl.DataFrame:
    """One row per host (and part) of one resource: level, p95, peak over the window, and
    from ``fit`` (its rows of :func:`~opsapi.capacity.trend.fit_peaks` and ``recent``, the
    last day's peak) the trend of the daily peaks, the days left and their interval."""
    keys = [*_HOST, "part"]
    now_lit = pl.lit(now, dtype=pl.Datetime("ms", "UTC"))
    series = spec.series(frame, limit=limit).filter(
        pl.col("timestamp").is_between(now_lit - pl.duration(milliseconds=_ms(span)), now_lit)
    )
    q = spec.quantile if spec.worse > 0 else 1.0 - spec.quantile
    worst = pl.col("value").max() if spec.worse > 0 else pl.col("value").min()
    stats = (
        series.sort("timestamp")
        .group_by(keys)
        .agg(
            level=pl.col("value").last(),
            p95=pl.col("value").quantile(q, interpolation="linear"),
            peak=worst,
            limit=pl.col("limit").first(),
            points=pl.len().cast(pl.Int64),
        )
    )
    expected = _applies(topo, spec.applies).select(*_HOST, "member")
    ranges = _ranges(name, spec, frame, limit, expected, now, span, min_days, level, horizons,
                     breaks)  # fmt: skip
    out = (
        expected.lazy()
        .join(stats.join(fit.lazy(), on=keys, how="left"), on=_HOST, how="left")
        .join(ranges.lazy(), on=keys, how="left", nulls_equal=True)
        .with_columns(
            resource=pl.lit(name),
            unit=pl.lit(spec.unit),
            limit=pl.lit(limit),
            worse=pl.lit("higher" if spec.worse > 0 else "lower"),
        )
        .collect()
    )
    return _days_left(out, spec, min_days, now, level)


def _ranges(
    name: str,
    spec: _Spec,
    frame: pl.DataFrame | pl.LazyFrame,
    limit: float,
    expected: pl.DataFrame,
    now: datetime,
    span: timedelta,
    min_days: int,
    level: float,
    horizons: Sequence[int],
    breaks: Optional[pl.DataFrame],
) -> pl.DataFrame:
    """Per host and part of one resource, the first passage of its series (all the history
    the frame holds up to ``now``) through ``limit``
    (:func:`opsapi.capacity.passage.first_passage`, the resource's series pooled as one
    group): ``_median`` (days), ``days_low``, ``days_high``, ``interval_source``, ``fit_since``,
    ``fit_reason``, ``fit_days``, ``regime_short``, ``dated``, ``_history`` (days)."""
    keys = [*_HOST, "part"]
    now_lit = pl.lit(now, dtype=pl.Datetime("ms", "UTC"))
    pts = (
        spec.series(frame, limit=limit)
        .join(expected.lazy().select(_HOST), on=_HOST, how="semi")
        .filter(pl.col("timestamp") <= now_lit)
        .select(*keys, "timestamp", value=pl.col("value") * spec.worse)
        .collect()
    )
    limits = pts.select(keys).unique(maintain_order=True).with_columns(limit=limit * spec.worse)
    first = pts.group_by(keys).agg(
        _history=(now_lit - pl.col("timestamp").min()).dt.total_hours() / 24.0
    )
    out = first_passage(
        pts,
        limits,
        keys,
        now,
        window_days=max(1, round(span.total_seconds() / 86_400)),
        level=level,
        quantile=spec.quantile,
        min_days=min_days,
        horizons=horizons,
        breaks=series_breaks(breaks, name, limits.select(keys)),
    )
    return (
        out.drop("limit")
        .rename({"days": "_median"})
        .join(first, on=keys, how="left", nulls_equal=True)
    )


def _days_left(
    out: pl.DataFrame, spec: _Spec, min_days: int, now: datetime, level: float
) -> pl.DataFrame:
    """``days_left`` and ``note``: 0 past the limit, the days until the series itself first
    reaches it (their median, :mod:`opsapi.capacity.passage`) when the trend of its present
    regime heads for it beyond the noise, else null and why; ``days_low`` and ``days_high``
    (the range), ``interval_source`` and ``rests_on`` beside them, ``fit_since`` and
    ``fit_reason`` always. ``trend``, ``_at`` and ``recent`` come toward the limit
    (:func:`~opsapi.capacity.trend.fit_peaks`); ``trend`` leaves in the resource's own
    direction."""
    w = spec.worse
    toward_limit = w * pl.col("limit")
    past = (pl.col("recent") - toward_limit) >= 0
    moving = (pl.col("trend") * pl.col("span")).abs() > 2.0 * pl.col("sigma")
    toward = moving & (pl.col("trend") > 0)
    # A date where the regime's trend heads for the limit beyond its noise, and the series
    # gets there within three years more often than not.
    dated = (
        pl.col("dated").fill_null(False)
        & ~pl.col("regime_short").fill_null(False)
        & pl.col("_median").is_not_null()
        & ~past
    )
    missing = pl.col("points").is_null()

    def edge(col: str) -> pl.Expr:
        return pl.when(missing).then(None).when(past).then(0.0).when(dated).then(pl.col(col))

    return out.with_columns(
        days_left=edge("_median"),
        days_low=edge("days_low"),
        days_high=edge("days_high"),
        interval_source=pl.when(dated & ~missing).then("interval_source"),
    ).with_columns(
        rests_on=pl.when(dated & ~missing).then(rests_on(level, pl.col("_history"))),
        note=pl.when(missing)
        .then(pl.lit(f"missing: no {spec.measured} data for this host"))
        .when(past)
        .then(pl.lit("past the limit"))
        .when(pl.col("days") < min_days)
        .then(pl.format("too few days for a trend ({})", pl.col("days")))
        .when(pl.col("days").is_null())
        .then(pl.lit("too few days for a trend (0)"))
        .when(short_note(now).is_not_null())
        .then(short_note(now))
        .when(dated)
        .then(pl.lit(None, dtype=pl.String))
        .when(toward)
        .then(pl.lit("not trending toward the limit beyond its noise"))
        .when(moving)
        .then(pl.lit("moving away from the limit"))
        .otherwise(pl.lit("not trending toward the limit")),
        trend=w * pl.col("trend"),
    ).select(
        *_HOST, "member", "resource", "unit", "worse", "part", "level", "p95", "peak", "trend",
        "limit", "days_left", "days_low", "days_high", "interval_source", "rests_on",
        "fit_since", "fit_reason", "note",
    )  # fmt: skip


def _disk_rows(
    forecast: pl.DataFrame,
    disk_frame: pl.DataFrame | pl.LazyFrame,
    topo: pl.DataFrame,
    limit: float,
    now: datetime,
    span: timedelta,
) -> pl.DataFrame:
    """Disk space, from :func:`disk_forecast`: percent used, growth in % a day, the days to
    ``limit`` %; p95 and peak of the percent used over the window."""
    part = ["group_id", "host_id", "partition_name"]
    label = [c for c in forecast.columns if c.startswith("days_to_")][0]
    now_lit = pl.lit(now, dtype=pl.Datetime("ms", "UTC"))
    pct = (
        _disk_points(disk_frame)
        .filter(
            pl.col("timestamp").is_between(now_lit - pl.duration(milliseconds=_ms(span)), now_lit)
        )  # fmt: skip
        .with_columns(p=pl.col("used") / pl.col("point_capacity") * 100.0)
        .group_by(part)
        .agg(p95=pl.col("p").quantile(0.95, interpolation="linear"), peak=pl.col("p").max())
    )
    f = (
        forecast.lazy()
        .join(pct, on=part, how="left")
        .select(
            *_HOST,
            part=pl.col("partition_name").cast(pl.String),
            level=pl.col("percent_used"),
            p95="p95",
            peak="peak",
            trend=pl.col("growth_bytes_per_day") / pl.col("capacity_bytes") * 100.0,
            days_left=pl.when(pl.col("percent_used") >= limit).then(0.0).otherwise(pl.col(label)),
            days_low=pl.when(pl.col("percent_used") >= limit)
            .then(0.0)
            .otherwise(pl.col(f"{label}_low")),
            days_high=pl.when(pl.col("percent_used") >= limit)
            .then(0.0)
            .otherwise(pl.col(f"{label}_high")),
            interval_source=pl.when(
                (pl.col("percent_used") < limit) & pl.col(label).is_not_null()
            ).then("interval_source"),
            rests_on=pl.when((pl.col("percent_used") < limit) & pl.col(label).is_not_null()).then(
                "rests_on"
            ),
            fit_since="fit_since",
            fit_reason="fit_reason",
            note=pl.when(pl.col("percent_used") >= limit)
            .then(pl.lit("past the limit"))
            .when(pl.col(label).is_null())
            .then(
                pl.coalesce(
                    pl.col("trend").replace_strict(
                        {
                            "insufficient_data": "too few points for a trend",
                            "flat": "not growing",
                            "shrinking": "shrinking",
                            "poor_fit": "growth too irregular for a date",
                        },
                        default=None,
                        return_dtype=pl.String,
                    ),
                    "note",
                )  # fmt: skip
            ),
        )
    )
    return (
        topo.lazy()
        .select(*_HOST, "member")
        .join(f, on=_HOST, how="left")
        .with_columns(
            resource=pl.lit("disk"),
            unit=pl.lit("%"),
            worse=pl.lit("higher"),
            limit=pl.lit(limit),
            note=pl.when(pl.col("level").is_null())
            .then(pl.lit("missing: no disk space data for this host"))
            .otherwise("note"),
        )
        .collect()
    )


def _status(rows: pl.DataFrame, critical: float, warning: float, watch: float) -> pl.DataFrame:
    """``status`` from the days left (and a CPU p95 past its high mark); each host keeps its
    worst part of each resource."""
    d = pl.col("days_left")
    status = (
        pl.when(pl.col("level").is_null())
        .then(pl.lit("missing"))
        .when(d <= critical)
        .then(pl.lit("critical"))
        .when((d <= warning) | pl.col("high").fill_null(False))
        .then(pl.lit("warning"))
        .when(d <= watch)
        .then(pl.lit("watch"))
        .otherwise(pl.lit("ok"))
    )
    return (
        rows.with_columns(status=status)
        .with_columns(_rank())
        .sort("_rank")
        .group_by([*_HOST, "resource"], maintain_order=True)
        .first()
        .drop("high")
    )


def _finish(rows: pl.DataFrame, now: datetime) -> pl.DataFrame:
    """``binding`` and ``date``; the columns in order, most urgent first."""
    keys = ["group_id", "scope_kind", "scope"]
    counts = pl.col("days_left").is_not_null() | pl.col("status").is_in(
        ["critical", "warning", "watch"]
    )
    binding = (
        rows.filter(counts)
        .sort("_rank")
        .group_by(keys, maintain_order=True)
        .agg(binding=pl.col("resource").first())
    )
    now_lit = pl.lit(now, dtype=pl.Datetime("ms", "UTC"))
    return (
        rows.join(binding, on=keys, how="left")
        .with_columns(
            date=now_lit
            + pl.duration(milliseconds=(pl.col("days_left") * _MS_PER_DAY).round().cast(pl.Int64)),
            cluster_id=pl.col("cluster_id").cast(pl.String),
            scope=pl.col("scope").cast(pl.String),
        )
        .sort("_rank", "scope_kind", "scope", "resource")
        .select(
            "group_id",
            "cluster_id",
            "cluster_name",
            "scope_kind",
            "scope",
            "role",
            "resource",
            "unit",
            "worse",
            "level",
            "p95",
            "peak",
            "trend",
            "limit",
            "high_mark",
            "days_left",
            "days_low",
            "days_high",
            "interval_source",
            "rests_on",
            "fit_since",
            "fit_reason",
            "date",
            "status",
            "binding",
            "member",
            "part",
            "note",
            "auto_scaling",
        )  # fmt: skip
    )


def _ms(span: timedelta) -> int:
    return int(span.total_seconds() * 1000)
