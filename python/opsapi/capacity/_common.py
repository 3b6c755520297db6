"""What the capacity analyses share: the key columns, the disk points and the robust fit."""

from __future__ import annotations

from datetime import datetime, timezone

import polars as pl

from opsapi._native import LONG_KEY_COLUMNS

USED = "DISK_PARTITION_SPACE_USED"
FREE = "DISK_PARTITION_SPACE_FREE"
PERCENT_USED = "DISK_PARTITION_SPACE_PERCENT_USED"

STORAGE_SIZE = "DATABASE_STORAGE_SIZE"
INDEX_SIZE = "DATABASE_INDEX_SIZE"

# The long frame's key columns (the native module's list): Categorical, as opsapi's frames
# hold them, so that every frame this module returns joins with every frame the client returns
# as it is.
_KEYS = LONG_KEY_COLUMNS
_PARTITION = ["group_id", "host_id", "partition_name"]
_DATABASE = ["group_id", "host_id", "database_name"]
_MS_PER_DAY = 86_400_000.0
# 1.4826 * MAD estimates the standard deviation of normal noise; robust to spikes.
_MAD_TO_SIGMA = 1.4826


def threshold_label(threshold: float) -> str:
    """Column suffix for a threshold: ``0.8`` → ``"80"``, ``1.0`` → ``"full"``.

    >>> threshold_label(0.85), threshold_label(1.0)
    ('85', 'full')
    """
    if threshold >= 1.0:
        return "full"
    pct = threshold * 100
    return str(int(pct)) if float(pct).is_integer() else f"{pct:g}".replace(".", "_")


def _as_utc(now: datetime | str | None) -> datetime | None:
    if now is None:
        return None
    if isinstance(now, str):
        now = datetime.fromisoformat(now.replace("Z", "+00:00"))
    if now.tzinfo is None:
        raise ValueError("now: a naive datetime is ambiguous; pass a timezone-aware one")
    return now.astimezone(timezone.utc)


def _keyed(frame: pl.DataFrame | pl.LazyFrame) -> pl.LazyFrame:
    """The frame, lazy, with its key columns Categorical (a frame built by hand may hold them
    as String)."""
    lazy = frame.lazy()
    names = lazy.collect_schema().names()
    return lazy.with_columns(pl.col(c).cast(pl.Categorical) for c in _KEYS if c in names)


def _disk_points(frame: pl.DataFrame | pl.LazyFrame) -> pl.LazyFrame:
    """One row per (partition, timestamp) with used bytes and per-point capacity."""
    m = pl.col("measurement")
    return (
        _keyed(frame)
        .filter(m.is_in([USED, FREE, PERCENT_USED]) & pl.col("value").is_not_null())
        .group_by([*_PARTITION, "timestamp"])
        .agg(
            used=pl.col("value").filter(m == USED).first(),
            free=pl.col("value").filter(m == FREE).first(),
            pct=pl.col("value").filter(m == PERCENT_USED).first(),
        )
        .filter(pl.col("used").is_not_null())
        .with_columns(
            point_capacity=pl.when(pl.col("free").is_not_null())
            .then(pl.col("used") + pl.col("free"))
            .when(pl.col("pct") > 0)
            .then(pl.col("used") * 100.0 / pl.col("pct"))
        )
    )


def _theil_sen(points: pl.LazyFrame, keys: list[str], max_fit_points: int) -> pl.LazyFrame:
    """The Theil–Sen slope of ``y`` over ``x`` per ``keys``: the median of the pairwise slopes
    of up to ``max_fit_points`` evenly spaced points (``points`` sorted by ``x`` per key)."""
    sub = points.with_columns(
        _i=pl.int_range(pl.len()).over(keys),
        _step=((pl.len() + max_fit_points - 1) // max_fit_points).over(keys),
    ).filter(pl.col("_i") % pl.col("_step") == 0)
    pairs = sub.select([*keys, "x", "y"])
    return (
        pairs.join(pairs, on=keys, suffix="_r", nulls_equal=True)
        .filter(pl.col("x_r") > pl.col("x"))
        .group_by(keys)
        .agg(slope=((pl.col("y_r") - pl.col("y")) / (pl.col("x_r") - pl.col("x"))).median())
    )


def _reference_now(timestamps: pl.Series, now: datetime | str | None) -> datetime:
    """``now`` in UTC, or the newest timestamp of the frame, or the current time."""
    now_utc = _as_utc(now)
    if now_utc is None:
        now_utc = timestamps.max() if timestamps.len() else None  # type: ignore[assignment]
    return now_utc if now_utc is not None else datetime.now(timezone.utc)


def _days_before(now: pl.Expr) -> pl.Expr:
    """``timestamp`` as days relative to ``now`` (negative before it)."""
    return (pl.col("timestamp") - now).dt.total_milliseconds().cast(pl.Float64) / _MS_PER_DAY
