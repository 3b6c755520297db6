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

    ``granularity`` may also be several (a tuple, as a sync keeps them with ``keep=``): then
    each resource's whole stored history, the finest granularity where it exists and the
    coarser before, with a ``granularity`` column (Categorical) before ``timestamp``.

    >>> store = opsapi.Store("never-synced")
    >>> store.scan(kind="disk", granularity="PT1H").collect().columns[-2:]
    ['timestamp', 'value']
    >>> store.scan(kind="disk", granularity=("PT1M", "PT1H", "P1D")).collect().columns[-3:]
    ['granularity', 'timestamp', 'value']
    """
    if isinstance(granularity, (list, tuple)):
        return _history(self, kind, list(granularity))
    plan = self._scan_files(kind=kind, granularity=granularity)
    schema = _long_schema()
    if not plan["files"]:
        return pl.LazyFrame(schema=schema)
    frame = _read(plan["files"], plan["group_id"], plan["host_id"], plan["root_keys"])
    return frame.select([pl.col(name).cast(dtype) for name, dtype in schema.items()])


def _history(store: Any, kind: str, granularities: list[Any]) -> pl.LazyFrame:
    """``scan`` over several granularities: each file read whole, or up to where a finer
    granularity takes over (``before``, from the native side)."""
    plan = store._scan_history(kind=kind, granularities=granularities)
    schema = _long_schema()
    names = list(schema)
    at = names.index("timestamp")
    schema = {**{n: schema[n] for n in names[:at]}, "granularity": pl.Categorical,
              **{n: schema[n] for n in names[at:]}}  # fmt: skip
    files: list[str] = plan["files"]
    if not files:
        return pl.LazyFrame(schema=schema)
    groups: dict[tuple[str, Any], list[int]] = {}
    for i, key in enumerate(zip(plan["granularity"], plan["before"])):
        groups.setdefault(key, []).append(i)
    frames = []
    for (g, before), idx in groups.items():
        frame = _read(
            [files[i] for i in idx],
            [plan["group_id"][i] for i in idx],
            [plan["host_id"][i] for i in idx],
            plan["root_keys"],
        )
        if before is not None:
            frame = frame.filter(pl.col("timestamp").dt.epoch("ms") < before)
        frames.append(frame.with_columns(granularity=pl.lit(g, pl.String)))
    frame = pl.concat(frames, how="vertical_relaxed")
    return frame.select([pl.col(name).cast(dtype) for name, dtype in schema.items()])


def _read(
    files: list[str], group_ids: list[str], host_ids: list[str], root_keys: list[str]
) -> pl.LazyFrame:
    """The files as one LazyFrame with ``group_id`` and ``host_id``: from their hive folders
    below the store's own path, or (where that path holds one of the store's column names as
    a ``key=``) host by host, the ids as constants."""
    keys = set(root_keys)
    if keys & set(_long_schema()) or keys & set(_HIVE):
        return _per_host(files, group_ids, host_ids)
    hive = {**{k: pl.String for k in sorted(keys)}, **_HIVE}
    return pl.scan_parquet(files, hive_partitioning=True, hive_schema=hive)


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
