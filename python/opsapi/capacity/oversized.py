"""What is oversized (issue 33 §4): deployments whose every resource a smaller machine has less
of stayed well below its limit, and on Atlas whether one tier down would still leave room.

- :func:`mark_oversized` (used by :func:`headroom`): a deployment (a sharded cluster, a
  replica set outside one, a standalone host) whose CPU, cache, disk space and IOPS each
  peaked at most ``share`` of their limit over the window, with nothing flagged, gets the
  status ``oversized`` on those rows.
- :func:`cluster_tiers`: each deployment's Atlas tier, from the clusters listing;
- :func:`tier_down` and :data:`ATLAS_TIERS`: given each deployment's Atlas tier, whether the
  next tier down would still leave the documented room at the forecast horizon: its CPU and
  cache scaled by the smaller tier's vCPUs and memory, each at most ``share`` of its limit.

Example::

    >>> tier_below("M30"), tier_below("M10")
    ('M20', None)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

import polars as pl

from opsapi._native import ATLAS_TIERS as _ATLAS_TIERS

from .topology import listed

__all__ = ["ATLAS_TIERS", "OVERSIZED_SHARE", "SIZING", "TIER_DOWN_SHARE", "cluster_tiers",
           "mark_oversized", "tier_below", "tier_down"]  # fmt: skip

#: The resources a smaller machine has less of: what says a deployment is oversized.
SIZING = ("cpu", "cache", "disk", "iops")
#: Well below: each sizing resource's worst value over the window at most half its limit (so
#: a machine of half the size would still be at or under each limit at its peak).
OVERSIZED_SHARE = 0.5
#: The room one tier down must leave at the horizon: each resource's forecast peak at most
#: 70 % of its limit (above it, the next peak or a failover's extra load has no room).
TIER_DOWN_SHARE = 0.7

#: Atlas's dedicated tiers, smallest first, with each one's vCPUs and memory (GiB) per
#: data-bearing node, as Atlas's AWS documentation lists them for the General class
#: (mongodb.com/docs/atlas/reference/amazon-aws/; Google Cloud and Azure differ slightly,
#: the ratios between neighbouring tiers, which is what :func:`tier_down` reads, hardly).
#: The one table is Rust's (``opsapi::ATLAS_TIERS``), which the simulator's clusters use too.
ATLAS_TIERS: dict[str, tuple[int, float]] = dict(_ATLAS_TIERS)


def tier_below(tier: str) -> Optional[str]:
    """The next tier down of an Atlas tier (``None`` for the smallest, or a tier the table
    lacks).

    >>> tier_below("M50"), tier_below("M700"), tier_below("R40")
    ('M40', 'M400', None)
    """
    names = list(ATLAS_TIERS)
    i = names.index(tier) if tier in ATLAS_TIERS else -1
    return names[i - 1] if i > 0 else None


def _closeness() -> pl.Expr:
    """How near its limit a row's worst value came: the peak over the limit, or the limit
    over the minimum where lower is worse."""
    lower = pl.col("worse") == "lower"
    return (
        pl.when(lower)
        .then(pl.col("limit") / pl.col("peak"))
        .otherwise(pl.col("peak") / pl.col("limit"))
    )


def mark_oversized(rows: pl.DataFrame, topo: pl.DataFrame, share: float) -> pl.DataFrame:
    """``rows`` (headroom's, every scope) with ``status`` ``oversized`` on the
    :data:`SIZING` rows of each deployment that is: a sharded cluster, a replica set outside
    one, or a standalone host, whose CPU and disk space were measured, whose every sizing
    resource's worst value over the window was at most ``share`` of its limit, and none of
    whose rows is flagged (critical, warning, watch).

    >>> h = mark_oversized(rows, topo, 0.5)  # doctest: +SKIP
    """
    keys = ["group_id", "scope_kind", "scope"]
    # A standalone: a data-bearing host in no replica set or cluster (on Atlas a mongos can be
    # in neither: it is no deployment of its own).
    standalone = topo.filter(
        pl.col("replica_set_name").is_null()
        & pl.col("cluster_id").is_null()
        & (pl.col("role") == "data")
    ).select(scope=pl.col("member"))
    # A replica set outside a sharded cluster (Ops Manager's, and with the clusters listing
    # Atlas's, name a replica set's own cluster).
    sharded = rows.filter(pl.col("scope_kind") == "cluster")["scope"].unique().to_list()
    top = (pl.col("scope_kind") == "cluster") | (
        (pl.col("scope_kind") == "replica_set")
        & ~pl.col("cluster_id").cast(pl.String).is_in(sharded).fill_null(False)
    )
    deployments = rows.filter(
        top
        | ((pl.col("scope_kind") == "host") & pl.col("scope").is_in(standalone["scope"].to_list()))
    )
    sizing = pl.col("resource").is_in(list(SIZING))
    verdict = deployments.group_by(keys).agg(
        _flagged=pl.col("status").is_in(["critical", "warning", "watch"]).any(),
        _measured=pl.col("resource").filter(sizing & (pl.col("status") != "missing")),
        _worst=_closeness().filter(sizing).max(),
    )
    oversized = verdict.filter(
        ~pl.col("_flagged")
        & pl.col("_measured").list.contains("cpu")
        & pl.col("_measured").list.contains("disk")
        & (pl.col("_worst") <= share)
    ).select(keys, _oversized=pl.lit(True))
    return (
        rows.join(oversized, on=keys, how="left")
        .with_columns(
            status=pl.when(
                pl.col("_oversized").fill_null(False) & sizing & (pl.col("status") == "ok")
            )
            .then(pl.lit("oversized"))
            .otherwise("status")
        )
        .drop("_oversized")
    )


def tier_down(
    h: pl.DataFrame,
    tiers: Mapping[str, str],
    *,
    horizon_days: float = 30.0,
    share: float = TIER_DOWN_SHARE,
) -> pl.DataFrame:
    """Whether each deployment of ``tiers`` (its headroom ``scope`` → its Atlas tier, e.g.
    ``{"Cluster0": "M50"}``) would still leave room one tier down: each of its CPU's and
    cache's forecast peak at ``horizon_days`` (the window's worst plus its trend, from
    :func:`headroom`'s rows), scaled by the smaller tier's vCPUs (CPU) and memory (cache),
    and its disk space and IOPS as they are (a tier does not set them), at most ``share`` of
    its limit.

    A pure function over :data:`ATLAS_TIERS` and the headroom frame: the clusters' tiers come
    from the Atlas clusters listing (``client.clusters``) where it exists.

    Returns:
        One row per deployment: ``scope``, ``tier``, ``tier_down`` (null: none smaller or
        unknown), ``fits`` (null without a smaller tier), ``binding`` (the resource nearest
        its limit one tier down), ``share_of_limit`` (how near) and ``horizon_days``.

    >>> tier_down(h, {"Cluster0": "M50"})  # doctest: +SKIP
    """
    names = list(tiers)
    rows = h.filter(
        pl.col("scope").is_in(names),
        pl.col("scope_kind").is_in(["cluster", "replica_set", "host"]),
        pl.col("resource").is_in(list(SIZING)),
        pl.col("peak").is_not_null(),
    )
    below = {s: tier_below(t) for s, t in tiers.items()}
    cpu_ratio = {s: _ratio(tiers[s], d, 0) for s, d in below.items()}
    ram_ratio = {s: _ratio(tiers[s], d, 1) for s, d in below.items()}
    scale = (
        pl.when(pl.col("resource") == "cpu")
        .then(pl.col("scope").replace_strict(cpu_ratio, default=None, return_dtype=pl.Float64))
        .when(pl.col("resource") == "cache")
        .then(pl.col("scope").replace_strict(ram_ratio, default=None, return_dtype=pl.Float64))
        .otherwise(1.0)
    )
    # The worst value over the window, moved by the trend to the horizon (never below it).
    ahead = pl.max_horizontal(
        pl.col("peak"), pl.col("peak") + pl.col("trend").fill_null(0.0) * horizon_days
    )
    forecast = (
        rows.with_columns(_share=ahead * scale / pl.col("limit"))
        .sort("_share", descending=True, nulls_last=True)
        .group_by("scope", maintain_order=True)
        .agg(binding=pl.col("resource").first(), share_of_limit=pl.col("_share").max())
    )
    out = pl.DataFrame(
        {"scope": names, "tier": [tiers[s] for s in names], "tier_down": [below[s] for s in names]},
        schema={"scope": pl.String, "tier": pl.String, "tier_down": pl.String},
    )
    return (
        out.join(forecast, on="scope", how="left")
        .with_columns(
            fits=pl.when(
                pl.col("tier_down").is_not_null() & pl.col("share_of_limit").is_not_null()
            ).then(pl.col("share_of_limit") <= share),
            horizon_days=pl.lit(float(horizon_days)),
        )
        .select("scope", "tier", "tier_down", "fits", "binding", "share_of_limit", "horizon_days")
    )


def cluster_tiers(h: pl.DataFrame, clusters: Any) -> dict[str, str]:
    """Each deployment's Atlas tier by its headroom ``scope`` (what :func:`tier_down` and the
    report's ``tiers`` read), from the clusters listing (``client.clusters.list``;
    ``headroom_inputs(...).clusters``): the sharded clusters and replica sets of ``h``
    (a :func:`headroom` frame made with ``clusters=``) whose cluster the listing gives a tier.
    Ops Manager's clusters have none: ``{}``.

    >>> cluster_tiers(h, inputs.clusters)  # doctest: +SKIP
    {'rs0': 'M60', '66a0c31fe73f2a2df8d6273d': 'M60'}
    """
    sizes = {c.id or c.name: c.instance_size for c in listed(clusters) if c.instance_size}
    top = (
        h.filter(
            pl.col("scope_kind").is_in(["cluster", "replica_set"]),
            pl.col("cluster_id").is_not_null(),
        )
        .select("scope", "cluster_id")
        .unique(maintain_order=True)
    )
    return {s: sizes[c] for s, c in top.iter_rows() if c in sizes}


def _ratio(tier: str, down: Optional[str], i: int) -> Optional[float]:
    """How much more of a tier's vCPUs (``i`` 0) or memory (1) the work needs one tier down."""
    if down is None or tier not in ATLAS_TIERS:
        return None
    return ATLAS_TIERS[tier][i] / ATLAS_TIERS[down][i]
