"""The roll-ups of :func:`opsapi.capacity.headroom`: a replica set's, shard's and sharded
cluster's row is its worst data-bearing member's; a cluster's config servers and its mongos
are scopes of their own (``config_servers``, ``mongos``); and a sharded cluster's shards'
growth is compared."""

from __future__ import annotations

import polars as pl

_HOST = ["group_id", "host_id"]
_SEVERITY = {"critical": 0, "warning": 1, "watch": 2, "ok": 3, "oversized": 3, "missing": 4}


def _rank() -> pl.Expr:
    """What is worse first: status, then fewer days left, then nearer the limit."""
    sev = pl.col("status").replace_strict(_SEVERITY, return_dtype=pl.Int32)
    closeness = (
        pl.when(pl.col("resource").is_in(["oplog_window", "tickets"]))
        .then(pl.col("limit") / pl.col("p95"))
        .otherwise(pl.col("p95") / pl.col("limit"))
    )
    return pl.struct(
        sev=sev,
        days=pl.col("days_left").fill_null(float("inf")),
        near=-closeness.fill_null(0.0).fill_nan(0.0),
    ).alias("_rank")


def _rolled_up(per_host: pl.DataFrame, topo: pl.DataFrame) -> pl.DataFrame:
    """Per replica set (``shard`` for a shard's) and per sharded cluster, per resource: the
    worst data-bearing member's row, ``member`` naming it; members without data are named in
    ``note``. A cluster's config servers (``config_servers``, by their replica set) and its
    mongos (``mongos``, by the cluster) are rolled up apart: what runs out there is never the
    cluster's data disk."""
    t = topo.select(*_HOST, "replica_set_name", "shard_name", "type_name")
    rows = per_host.drop("scope_kind", "scope").join(t, on=_HOST, how="left")
    role = pl.col("role")
    sharded = (
        topo.filter(
            pl.col("shard_name").is_not_null() | pl.col("type_name").str.starts_with("SHARD")
        )
        .get_column("cluster_id")
        .drop_nulls()
        .unique()
        .to_list()
    )
    data = rows.filter(role == "data")
    sets = data.filter(pl.col("replica_set_name").is_not_null()).with_columns(
        scope_kind=pl.when(pl.col("shard_name").is_not_null())
        .then(pl.lit("shard"))
        .otherwise(pl.lit("replica_set")),
        scope=pl.col("replica_set_name"),
    )
    clusters = data.filter(pl.col("cluster_id").is_in(sharded)).with_columns(
        scope_kind=pl.lit("cluster"), scope=pl.col("cluster_id")
    )
    config = rows.filter(role == "config").with_columns(
        scope_kind=pl.lit("config_servers"),
        scope=pl.coalesce("replica_set_name", "cluster_id", "member"),
    )
    mongos = rows.filter((role == "mongos") & pl.col("cluster_id").is_not_null()).with_columns(
        scope_kind=pl.lit("mongos"), scope=pl.col("cluster_id")
    )
    out = []
    for part in (sets, clusters, config, mongos):
        keys = ["group_id", "scope_kind", "scope", "resource"]
        missing = (
            part.filter(pl.col("status") == "missing")
            .group_by(keys)
            .agg(_absent=pl.col("member").str.split(".").list.first().sort().str.join(", "))
        )
        out.append(
            part.sort("_rank")
            .group_by(keys, maintain_order=True)
            .first()
            .join(missing, on=keys, how="left")
            .with_columns(
                note=pl.when(pl.col("_absent").is_null() | (pl.col("status") == "missing"))
                .then("note")
                .otherwise(
                    pl.concat_str(
                        [pl.col("note"), pl.format("no data from {}", "_absent")],
                        separator="; ",
                        ignore_nulls=True,
                    )
                ),
                member=pl.when(pl.col("status") == "missing").then(None).otherwise("member"),
            )
            .drop("_absent", "replica_set_name", "shard_name", "type_name")
        )
    return pl.concat(out, how="diagonal_relaxed")


def _shard_growth(
    forecast: pl.DataFrame,
    per_host: pl.DataFrame,
    topo: pl.DataFrame,
    ratio: float,
    critical: float,
    warning: float,
    watch: float,
) -> pl.DataFrame:
    """Per sharded cluster of two shards or more: the data growth of its fastest-growing
    shard (the median over its members of each one's fastest-growing partition) over the
    median of the other shards'. ``days_left`` is that shard's disk's."""
    host_growth = forecast.group_by(_HOST).agg(g=pl.col("growth_bytes_per_day").max())
    shards = (
        topo.filter(pl.col("shard_name").is_not_null())
        .join(host_growth, on=_HOST, how="left")
        .group_by("group_id", "cluster_id", "shard_name")
        .agg(g=pl.col("g").median())
        .filter(pl.len().over("cluster_id") >= 2)
        .sort("g", descending=True, nulls_last=True)
    )
    if shards.is_empty():
        return pl.DataFrame()
    fastest = shards.group_by("cluster_id", maintain_order=True).agg(
        group_id=pl.col("group_id").first(),
        shard=pl.col("shard_name").first(),
        fast=pl.col("g").first(),
        others=pl.col("g").slice(1).median(),
    )
    disks = per_host.filter(pl.col("resource") == "disk").join(
        topo.select(*_HOST, "shard_name"), on=_HOST
    )
    worst = (
        disks.join(
            fastest.select("cluster_id", shard_name="shard"), on=["cluster_id", "shard_name"]
        )
        .sort("_rank")
        .group_by("cluster_id", "shard_name", maintain_order=True)
        .first()
        .select("cluster_id", "member", "days_left", "part", "_rank")
    )
    gib = 1024.0**3
    level = pl.when(pl.col("others") > 0).then(pl.col("fast") / pl.col("others"))
    rows = (
        fastest.join(worst, on="cluster_id", how="left")
        .with_columns(level=level)
        .with_columns(
            scope_kind=pl.lit("cluster"),
            scope=pl.col("cluster_id"),
            resource=pl.lit("shard_growth"),
            unit=pl.lit("×"),
            worse=pl.lit("higher"),
            role=pl.lit("data"),
            p95=pl.lit(None, dtype=pl.Float64),
            peak=pl.lit(None, dtype=pl.Float64),
            trend=pl.lit(None, dtype=pl.Float64),
            limit=pl.lit(ratio),
            note=pl.when(pl.col("level").is_null())
            .then(pl.format("{} grows; the other shards do not", "shard"))
            .otherwise(
                pl.format(
                    "{} grows {}× as fast as the other shards ({} against {} GiB/day)",
                    "shard",
                    pl.col("level").round(1),
                    (pl.col("fast") / gib).round(2),
                    (pl.col("others") / gib).round(2),
                )
            ),
        )
    )
    d = pl.col("days_left")
    over = pl.col("level").is_null() & (pl.col("fast") > 0) | (pl.col("level") >= ratio)
    status = (
        pl.when(over & (d <= critical))
        .then(pl.lit("critical"))
        .when(over)
        .then(pl.lit("warning"))
        .when(d <= watch)
        .then(pl.lit("watch"))
        .otherwise(pl.lit("ok"))
    )
    _ = warning
    return rows.with_columns(status=status).drop("fast", "others", "shard").with_columns(_rank())
