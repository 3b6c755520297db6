"""Capacity analysis over the long measurement frame, in polars expressions.

Every function takes the *long* frame that ``Measurements.to_polars()`` and
``client.measurements.fleet(...)`` return (columns ``group_id, host_id, process_id,
partition_name, database_name, measurement, units, timestamp, value``) and returns a polars
DataFrame.
Null data points are ignored; no function loops over rows in Python.

- :func:`disk_forecast` (``disk.py``): when each partition reaches 80 %, 90 %, full, each
  date with its 80 % interval;
- :func:`database_growth` (``databases.py``): which databases grow, on which disk;
- :func:`headroom` (``headroom.py``; one function per resource in ``resources.py``, the roll-ups
  in ``rollup.py``): every resource of every host, rolled up per replica set, shard and
  cluster, with the days left and their interval; :func:`headroom_summary` and
  :func:`headroom_table` say it in a sentence and a table; :func:`oversized_deployments`
  and, on Atlas, :func:`tier_down` say what could be smaller, with each cluster's tier from
  the clusters listing (:func:`cluster_tiers`) (``oversized.py``); with the listing, a
  cluster that auto-scales is measured against its configured limits (``autoscaling.py``);
- :func:`backtest` (``backtest.py``): how good those forecasts were on the fleet's own
  history, per resource and horizon (the intervals of every days-to-limit come from it; the
  trend of the peaks and the intervals themselves: ``trend.py``);
- :func:`metric_summary`, :func:`hour_of_day_profile`, :func:`busiest_hours` (``load.py``);
- :func:`window_events` and :func:`finding_events` (``events.py``): the elections,
  restarts, hosts down, auto-scaling, tier changes and disk resizes of each finding's
  deployment over the window, which the report's charts mark, and :func:`event_breaks`: where
  those events restart a host's forecasts (a tier change, a disk resize);
- :func:`finding_drivers` (``drivers.py``): the namespaces and query shapes that take most of
  the slow-query time of each CPU, cache, tickets and connections finding's host;
- :func:`topology` (``topology.py``): the hosts as one frame with the role each plays, and
  :func:`disk_points`: the disk measurements as used space per partition and timestamp (what
  the report charts).

Example::

    import opsapi
    from opsapi import capacity

    client = opsapi.Client.from_env()
    disks = client.measurements.fleet(
        [(g, h, p) for g, h in targets for p in client.hosts.partitions(g, h)],
        granularity="PT1H", period="P14D",
    )
    capacity.disk_forecast(disks)          # one row per partition, soonest full first
"""

from __future__ import annotations

from ._common import (
    _PARTITION,
    FREE,
    INDEX_SIZE,
    PERCENT_USED,
    STORAGE_SIZE,
    USED,
    threshold_label,
)
from .backtest import backtest
from .databases import database_growth
from .disk import disk_forecast, disk_points
from .drivers import (
    DRIVEN_RESOURCES,
    Drivers,
    database_drivers,
    disk_drivers,
    driver_text,
    finding_drivers,
    growth_text,
)
from .events import WindowEvents, event_breaks, finding_events, window_events
from .headroom import (
    HEADROOM_DISK_METRICS,
    HEADROOM_HOST_METRICS,
    RESOURCES,
    headroom,
    headroom_inputs,
)
from .load import busiest_hours, hour_of_day_profile, metric_summary
from .oversized import ATLAS_TIERS, cluster_tiers, tier_down
from .summary import (
    ROLE_SCOPES,
    accuracy_text,
    cell_text,
    deployment_rows,
    headroom_summary,
    headroom_table,
    oversized_deployments,
    range_text,
    regime_text,
    restart_texts,
    role_name,
)
from .topology import ROLES, role, topology

__all__ = [
    "ATLAS_TIERS",
    "DRIVEN_RESOURCES",
    "Drivers",
    "FREE",
    "HEADROOM_DISK_METRICS",
    "HEADROOM_HOST_METRICS",
    "INDEX_SIZE",
    "PERCENT_USED",
    "RESOURCES",
    "ROLES",
    "ROLE_SCOPES",
    "STORAGE_SIZE",
    "USED",
    "WindowEvents",
    "accuracy_text",
    "backtest",
    "busiest_hours",
    "cell_text",
    "cluster_tiers",
    "database_drivers",
    "database_growth",
    "deployment_rows",
    "disk_forecast",
    "disk_drivers",
    "disk_points",
    "driver_text",
    "finding_drivers",
    "event_breaks",
    "finding_events",
    "growth_text",
    "headroom",
    "headroom_inputs",
    "headroom_summary",
    "headroom_table",
    "hour_of_day_profile",
    "metric_summary",
    "oversized_deployments",
    "range_text",
    "restart_texts",
    "regime_text",
    "role",
    "role_name",
    "threshold_label",
    "tier_down",
    "topology",
    "window_events",
]

_ = _PARTITION  # the partition key, used by tests as capacity._PARTITION
