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
                "shard_name", "cluster_id", "user_alias"]  # fmt: skip
#: The kinds of cluster a deployment is (not a replica set within a sharded cluster, which
#: Ops Manager lists as a cluster of its own).
_DEPLOYMENTS = ("replica_set", "sharded", "geosharded")


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


def topology(hosts: Any, clusters: Any = None) -> pl.DataFrame:
    """The hosts as one frame: ``group_id``, ``host_id``, ``member`` (``hostname:port``),
    ``type_name``, ``role`` (:data:`ROLES`), ``replica_set_name``, ``shard_name``,
    ``cluster_id`` and ``cluster_name``.

    Args:
        hosts: a ``HostList``, a list of ``Host`` or of ``HostList`` (several projects), or
            their frame (``HostList.to_polars()``).
        clusters: the projects' clusters (``client.clusters.list``: a ``ClusterList``, a list
            of ``Cluster`` or of ``ClusterList``), or None. With them each host's
            ``cluster_name`` is its cluster's name, and on Atlas, whose processes do not name
            their cluster, every process of a cluster (mongos and config servers included)
            gets its ``cluster_id``: :meth:`Cluster.serves` matches a process's alias to
            the cluster's SRV host, as Atlas names them, or to its connection string.

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
    frame = frame.with_columns(pl.col("host_id").cast(pl.String))
    frame = frame.join(
        _clusters_of(frame, clusters), on="host_id", how="left", maintain_order="left"
    )
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
            "_listed_id",
            pl.col("cluster_id").cast(pl.String),
            pl.when(pl.col("shard_name").is_not_null()).then(
                pl.format(
                    "{} ({})",
                    pl.col("shard_name").cast(pl.String).str.replace(r"-?\d+$", ""),
                    pl.col("group_id").cast(pl.String),
                )
            ),
        ),
        cluster_name="_listed_name",
    )


def listed(clusters: Any) -> list[Any]:
    """The clusters of a ``ClusterList``, a list of ``Cluster`` or of ``ClusterList``, or
    None, as one list."""
    out: list[Any] = []
    for c in clusters or []:
        out.extend(c if hasattr(c, "total_count") or isinstance(c, list) else [c])
    return out


def _clusters_of(frame: pl.DataFrame, clusters: Any) -> pl.DataFrame:
    """Each host's cluster in the listing, by ``host_id``: ``_listed_id`` and
    ``_listed_name`` (the matching is :meth:`Cluster.serves`', in Rust)."""
    top = [c for c in listed(clusters) if c.type in _DEPLOYMENTS and c.shard_name is None]
    ids, names = [], []
    for h in frame.select("group_id", "hostname", "user_alias", "cluster_id",
                          "replica_set_name").iter_rows(named=True):  # fmt: skip
        found = next(
            (
                c
                for c in top
                if c.group_id in (None, str(h["group_id"]))
                and c.serves(
                    h["user_alias"] or h["hostname"],
                    cluster_id=h["cluster_id"],
                    replica_set_name=h["replica_set_name"],
                )
            ),
            None,
        )
        ids.append(None if found is None else found.id or found.name)
        names.append(None if found is None else found.name)
    return pl.DataFrame(
        {"host_id": frame["host_id"], "_listed_id": ids, "_listed_name": names},
        schema_overrides={"_listed_id": pl.String, "_listed_name": pl.String},
    )
