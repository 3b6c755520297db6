"""``Store.scan``: a polars LazyFrame over the files a store's manifest lists.

Defined in Python (polars' lazy engine is Python polars'), set on the native
:class:`opsapi.Store` by ``import opsapi``; the files (each checked: inside the store, present,
of its recorded size, Parquet), their hive folders and the columns come from the native side
(``Store._scan_files``).

The hive columns are read below the store's folder only: polars reads every ``key=value`` of a
path, so the ``key=`` names of the store's own path (``lake/team=ops/store``) are given to it
and left out. Where one of them is also a column of the store (``lake/kind=x/store``), each
host's files are read with its ids as constants instead (slower, but right).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from ._native import LONG_KEY_COLUMNS

# The hive folders of a data file, read as text (a group or host id of digits stays text).
_HIVE = {"kind": pl.String, "granularity": pl.String, "group_id": pl.String, "host_id": pl.String}


def _long_schema() -> dict[str, Any]:
    schema: dict[str, Any] = {name: pl.Categorical for name in LONG_KEY_COLUMNS}
    schema["timestamp"] = pl.Datetime("ms", "UTC")
    schema["value"] = pl.Float64
    return schema


def scan(self: Any, *, kind: str, granularity: Any) -> pl.LazyFrame:
    """Every stored point of one kind (``"host"``, ``"disk"``, ``"database"``) at one
    granularity, as a LazyFrame with the long frame's columns and dtypes (key columns
    Categorical, ``timestamp`` Datetime(ms, UTC), ``value`` Float64). It reads the files of
    one manifest when the frame is collected, whatever syncs run meanwhile (a file a sync
    replaces stays a day for it): filters on ``group_id`` and ``host_id`` skip whole folders,
    filters on ``timestamp`` whole files. A missing or damaged file raises
    ``StoreFileError`` naming it.

    >>> store = opsapi.Store("never-synced")
    >>> store.scan(kind="disk", granularity="PT1H").collect().columns[-2:]
    ['timestamp', 'value']
    """
    plan = self._scan_files(kind=kind, granularity=granularity)
    files: list[str] = plan["files"]
    schema = _long_schema()
    if not files:
        return pl.LazyFrame(schema=schema)
    root_keys = set(plan["root_keys"])
    if root_keys & set(schema) or root_keys & set(_HIVE):
        frame = _per_host(files, plan["group_id"], plan["host_id"])
    else:
        hive = {**{k: pl.String for k in sorted(root_keys)}, **_HIVE}
        frame = pl.scan_parquet(files, hive_partitioning=True, hive_schema=hive)
    return frame.select(
        [pl.col(name).cast(dtype) for name, dtype in schema.items()],
    )


def _per_host(files: list[str], group_ids: list[str], host_ids: list[str]) -> pl.LazyFrame:
    """The files read host by host, the ids as constants (no hive parsing at all)."""
    by_host: dict[tuple[str, str], list[str]] = {}
    for f, g, h in zip(files, group_ids, host_ids):
        by_host.setdefault((g, h), []).append(f)
    return pl.concat(
        [
            pl.scan_parquet(fs, hive_partitioning=False).with_columns(
                group_id=pl.lit(g, pl.String), host_id=pl.lit(h, pl.String)
            )
            for (g, h), fs in by_host.items()
        ],
        how="vertical",
    )
