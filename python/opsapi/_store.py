"""``Store.scan``: a polars LazyFrame over the files a store's manifest lists.

Defined in Python (polars' lazy engine is Python polars'), set on the native
:class:`opsapi.Store` by ``import opsapi``; the files, their hive folders and the columns come
from the native side.
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
    Categorical, ``timestamp`` Datetime(ms, UTC), ``value`` Float64). It reads the files the
    manifest lists when the frame is collected: filters on ``group_id`` and ``host_id`` skip
    whole folders, filters on ``timestamp`` whole files.

    >>> store = opsapi.Store("never-synced")
    >>> store.scan(kind="disk", granularity="PT1H").collect().columns[-2:]
    ['timestamp', 'value']
    """
    files = self.files(kind=kind, granularity=granularity)
    schema = _long_schema()
    if not files:
        return pl.LazyFrame(schema=schema)
    frame = pl.scan_parquet(files, hive_partitioning=True, hive_schema=_HIVE)
    return frame.select(
        [pl.col(name).cast(dtype) for name, dtype in schema.items()],
    )
