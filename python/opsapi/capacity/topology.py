"""The hosts as one frame, with the role each plays: what holds data, what holds a sharded
cluster's metadata, what only routes.

A host's role decides which of its findings are a deployment's: a replica set's or sharded
cluster's disk is its data-bearing members'; a config server's and a mongos's resources are
findings of their own kind (:func:`opsapi.capacity.headroom`'s ``config_servers`` and
``mongos`` scopes), never a cluster's data disk.
"""

from __future__ import annotations

from typing import Any

import polars as pl

__all__ = ["ROLES", "role", "topology"]

#: The roles, from the host's ``type_name``: ``data`` (a replica set's or shard's member, a
#: standalone: it holds the application's data), ``config`` (a config server: the cluster's
#: metadata), ``mongos`` (a router: no data) and ``arbiter`` (votes, holds no data).
ROLES = ("data", "config", "mongos", "arbiter")

_HOST_FIELDS = ["id", "group_id", "hostname", "port", "type_name", "replica_set_name",
                "shard_name", "cluster_id"]  # fmt: skip


def role(type_name: pl.Expr | str = "type_name") -> pl.Expr:
    """A host's role from its ``type_name`` (Ops Manager's ``SHARD_CONFIG``, Atlas's
    ``SHARD_CONFIG_PRIMARY``, ``SHARD_MONGOS``, ``REPLICA_ARBITER``; anything else holds
    data).

    >>> pl.DataFrame({"type_name": ["SHARD_MONGOS", "SHARD_CONFIG", "SHARD_PRIMARY"]}).select(
    ...     role())["role"].to_list()
    ['mongos', 'config', 'data']
    """
    t = (pl.col(type_name) if isinstance(type_name, str) else type_name).cast(pl.String)
    return (
        pl.when(t == "SHARD_MONGOS")
        .then(pl.lit("mongos"))
        .when(t.str.contains("CONFIG"))
        .then(pl.lit("config"))
        .when(t.str.contains("ARBITER"))
        .then(pl.lit("arbiter"))
        .otherwise(pl.lit("data"))
        .alias("role")
    )


def topology(hosts: Any) -> pl.DataFrame:
    """The hosts as one frame: ``group_id``, ``host_id``, ``member`` (``hostname:port``),
    ``type_name``, ``role`` (:data:`ROLES`), ``replica_set_name``, ``shard_name`` and
    ``cluster_id``.

    Args:
        hosts: a ``HostList``, a list of ``Host`` or of ``HostList`` (several projects), or
            their frame (``HostList.to_polars()``).

    >>> topo = topology([client.hosts.list(g.id) for g in client.groups.list()])
    >>> for row in topo.filter(pl.col("role") != "data").select("member", "role").rows():
    ...     print(row)
    ('mongos0-0.staging.example.net:27017', 'mongos')
    ('cfg0-0.staging.example.net:27019', 'config')
    ('mongos0-0.analytics.example.net:27017', 'mongos')
    ('cfg0-0.analytics.example.net:27019', 'config')
    """
    if isinstance(hosts, (pl.DataFrame, pl.LazyFrame)):
        frame = hosts.lazy().collect()
    elif hasattr(hosts, "to_polars") and hasattr(hosts, "total_count"):
        frame = hosts.to_polars()
    else:
        parts = []
        for h in hosts:
            if hasattr(h, "to_polars") and hasattr(h, "total_count"):
                parts.append(h.to_polars())
            else:
                parts.append(pl.DataFrame([{k: getattr(h, k, None) for k in _HOST_FIELDS}]))
        frame = pl.concat(parts, how="diagonal_relaxed") if parts else pl.DataFrame()
    if "host_id" not in frame.columns and "id" in frame.columns:
        frame = frame.rename({"id": "host_id"})
    for c in _HOST_FIELDS[1:]:
        if c not in frame.columns:
            frame = frame.with_columns(pl.lit(None, dtype=pl.String).alias(c))
    return frame.select(
        pl.col("group_id").cast(pl.String).cast(pl.Categorical),
        pl.col("host_id").cast(pl.String).cast(pl.Categorical),
        member=pl.col("hostname").cast(pl.String) + ":" + pl.col("port").cast(pl.String),
        type_name=pl.col("type_name").cast(pl.String),
        role=role(),
        replica_set_name=pl.col("replica_set_name").cast(pl.String),
        shard_name=pl.col("shard_name").cast(pl.String),
        # Atlas's processes do not name their cluster: its shards do, by a common stem
        # (Atlas's `atlas-abc123-shard-0`, `-shard-1`, ...), which stands for it within the
        # project. Its mongos and config servers are then in no cluster's roll-up.
        cluster_id=pl.coalesce(
            pl.col("cluster_id").cast(pl.String),
            pl.when(pl.col("shard_name").is_not_null()).then(
                pl.format(
                    "{} ({})",
                    pl.col("shard_name").cast(pl.String).str.replace(r"-?\d+$", ""),
                    pl.col("group_id").cast(pl.String),
                )
            ),
        ),
    )
