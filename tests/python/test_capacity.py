"""opsapi.capacity on synthetic long frames, and against the simulator's seeded truth."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import polars as pl
import pytest

from opsapi import capacity

GIB = 1024**3
T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)
SCHEMA = {
    "group_id": pl.String,
    "host_id": pl.String,
    "process_id": pl.String,
    "partition_name": pl.String,
    "measurement": pl.String,
    "units": pl.String,
    "timestamp": pl.Datetime("ms", "UTC"),
    "value": pl.Float64,
}


def disk_frame(
    used: list[float | None],
    *,
    capacity: float = 100 * GIB,
    step: timedelta = timedelta(hours=1),
    host: str = "h1",
    partition: str = "data",
    with_free: bool = True,
    with_percent: bool = False,
    start: datetime = T0,
) -> pl.DataFrame:
    """A long frame of one partition's disk series, one point per `step` from `start`."""
    rows = []
    for i, u in enumerate(used):
        ts = start + i * step
        series = [("DISK_PARTITION_SPACE_USED", "BYTES", u)]
        if with_free:
            series.append(
                ("DISK_PARTITION_SPACE_FREE", "BYTES", None if u is None else capacity - u)
            )
        if with_percent:
            series.append(
                (
                    "DISK_PARTITION_SPACE_PERCENT_USED",
                    "PERCENT",
                    None if u is None else u / capacity * 100,
                )
            )
        for name, units, v in series:
            rows.append(("g1", host, f"{host}:27017", partition, name, units, ts, v))
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")


def linear(n: int, start: float, per_day: float, step_hours: float = 1.0) -> list[float]:
    return [start + per_day * i * step_hours / 24 for i in range(n)]


def test_linear_fill_is_forecast_within_one_percent() -> None:
    per_day = 1.5 * GIB
    used = linear(14 * 24 + 1, 40 * GIB, per_day)
    out = capacity.disk_forecast(disk_frame(used), window="14d")
    assert out.height == 1
    row = out.row(0, named=True)
    assert row["trend"] == "growing"
    assert row["growth_bytes_per_day"] == pytest.approx(per_day, rel=0.01)
    assert row["capacity_bytes"] == pytest.approx(100 * GIB)
    assert row["used_bytes"] == pytest.approx(used[-1])
    assert row["percent_used"] == pytest.approx(used[-1] / (100 * GIB) * 100)
    expected_full = (100 * GIB - used[-1]) / per_day
    assert row["days_to_full"] == pytest.approx(expected_full, rel=0.01)
    assert row["days_to_80"] == pytest.approx((80 * GIB - used[-1]) / per_day, rel=0.01)
    assert row["days_to_90"] == pytest.approx((90 * GIB - used[-1]) / per_day, rel=0.01)
    now = T0 + timedelta(days=14)
    assert abs(row["date_full"] - (now + timedelta(days=expected_full))) < timedelta(hours=1)
    assert row["r2"] > 0.999


def test_threshold_already_passed_is_zero_days() -> None:
    used = linear(24 * 7, 85 * GIB, 0.5 * GIB)
    row = capacity.disk_forecast(disk_frame(used)).row(0, named=True)
    assert row["days_to_80"] == 0.0
    assert row["days_to_90"] > 0.0


def test_flat_disk_has_no_date() -> None:
    out = capacity.disk_forecast(disk_frame([50 * GIB] * (14 * 24)))
    row = out.row(0, named=True)
    assert row["trend"] == "flat"
    assert row["growth_bytes_per_day"] == 0.0
    assert row["days_to_full"] is None and row["date_full"] is None and row["days_to_80"] is None


def test_noisy_disk_without_trend_has_no_date() -> None:
    r = random.Random(7)
    used = [50 * GIB + r.uniform(-5, 5) * GIB for _ in range(14 * 24)]
    row = capacity.disk_forecast(disk_frame(used)).row(0, named=True)
    assert row["trend"] in ("flat", "poor_fit")
    assert row["days_to_full"] is None and row["days_to_90"] is None and row["date_full"] is None


def test_shrinking_disk_has_no_date() -> None:
    used = linear(14 * 24, 60 * GIB, -2 * GIB)
    row = capacity.disk_forecast(disk_frame(used)).row(0, named=True)
    assert row["trend"] == "shrinking"
    assert row["growth_bytes_per_day"] == pytest.approx(-2 * GIB, rel=0.01)
    assert row["days_to_full"] is None


def test_nulls_are_ignored() -> None:
    per_day = 1 * GIB
    used: list[float | None] = list(linear(14 * 24, 30 * GIB, per_day))
    for i in range(0, len(used), 7):
        used[i] = None
    used[-1] = None  # the newest point is a gap: "now" is the last real observation
    row = capacity.disk_forecast(disk_frame(used)).row(0, named=True)
    assert row["trend"] == "growing"
    assert row["growth_bytes_per_day"] == pytest.approx(per_day, rel=0.01)
    assert row["used_bytes"] == pytest.approx(used[-2])
    assert row["points"] == sum(u is not None for u in used)


def test_spikes_do_not_bend_the_trend() -> None:
    per_day = 2 * GIB
    used = linear(14 * 24, 20 * GIB, per_day)
    for i in (30, 100, 200, 250):
        used[i] = 99 * GIB
    row = capacity.disk_forecast(disk_frame(used)).row(0, named=True)
    assert row["growth_bytes_per_day"] == pytest.approx(per_day, rel=0.01)
    assert row["outliers"] == 4
    assert row["trend"] == "growing"


def test_capacity_from_percent_used_when_free_is_missing() -> None:
    used = linear(24 * 10, 10 * GIB, 1 * GIB)
    frame = disk_frame(used, capacity=64 * GIB, with_free=False, with_percent=True)
    row = capacity.disk_forecast(frame).row(0, named=True)
    assert row["capacity_bytes"] == pytest.approx(64 * GIB, rel=1e-9)
    assert row["days_to_full"] == pytest.approx((64 * GIB - used[-1]) / GIB, rel=0.01)


def test_window_and_now_select_the_points() -> None:
    # Flat for 20 days, then growing 3 GiB/day for 10 days: a 7-day window sees only growth;
    # with now at day 15 the disk is flat.
    used = [20 * GIB] * (20 * 24) + linear(10 * 24, 20 * GIB, 3 * GIB)
    frame = disk_frame(used)
    recent = capacity.disk_forecast(frame, window="7d").row(0, named=True)
    assert recent["growth_bytes_per_day"] == pytest.approx(3 * GIB, rel=0.01)
    earlier = capacity.disk_forecast(frame, window=timedelta(days=7), now=T0 + timedelta(days=15))
    assert earlier.row(0, named=True)["trend"] == "flat"
    with pytest.raises(ValueError, match="naive"):
        capacity.disk_forecast(frame, now=datetime(2026, 3, 1))


def test_sorted_by_days_to_full_nulls_last() -> None:
    frames = [
        disk_frame([50 * GIB] * 200, host="flat"),
        disk_frame(linear(200, 10 * GIB, 1 * GIB), host="slow"),
        disk_frame(linear(200, 60 * GIB, 4 * GIB), host="fast"),
    ]
    out = capacity.disk_forecast(pl.concat(frames))
    assert out.get_column("host_id").to_list() == ["fast", "slow", "flat"]
    assert out.columns[:3] == ["group_id", "host_id", "partition_name"]


def test_custom_thresholds_name_their_columns() -> None:
    out = capacity.disk_forecast(
        disk_frame(linear(100, 10 * GIB, 1 * GIB)), thresholds=(0.75, 0.95)
    )
    assert {"days_to_75", "date_75", "days_to_95", "date_95"} <= set(out.columns)
    assert "days_to_full" not in out.columns


def host_frame(
    values: dict[str, list[float | None]], *, host: str = "h1", step=timedelta(hours=1)
) -> pl.DataFrame:
    rows = []
    for name, vals in values.items():
        for i, v in enumerate(vals):
            rows.append(("g1", host, f"{host}:27017", None, name, "SCALAR", T0 + i * step, v))
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")


def test_metric_summary_quantiles() -> None:
    vals: list[float | None] = [float(v) for v in range(1, 101)]
    frame = host_frame({"CONNECTIONS": [*vals, None, None], "OPCOUNTER_QUERY": [5.0] * 10})
    out = capacity.metric_summary(frame)
    conn = out.filter(pl.col("measurement") == "CONNECTIONS").row(0, named=True)
    # Linear interpolation over 1..100: position q * 99.
    assert conn["p50"] == pytest.approx(50.5)
    assert conn["p95"] == pytest.approx(95.05)
    assert conn["p99"] == pytest.approx(99.01)
    assert conn["max"] == 100.0
    assert conn["count"] == 100 and conn["nulls"] == 2
    q = out.filter(pl.col("measurement") == "OPCOUNTER_QUERY").row(0, named=True)
    assert (q["p50"], q["p99"], q["max"]) == (5.0, 5.0, 5.0)


def test_busiest_hours_and_profile() -> None:
    # Two days of hourly data; hour h has value h, except hour 3 which is the peak.
    vals: list[float | None] = [float(i % 24) for i in range(48)]
    vals[3] = vals[27] = 1000.0
    vals[23] = None
    frame = host_frame({"CONNECTIONS": vals})
    top = capacity.busiest_hours(frame, "CONNECTIONS", top=3)
    assert top.get_column("hour").to_list() == [3, 23, 22]
    assert top.get_column("rank").to_list() == [1, 2, 3]
    assert top.row(1, named=True)["mean"] == 23.0  # the null is not a zero

    profile = capacity.hour_of_day_profile(frame, "CONNECTIONS")
    assert profile.height == 24
    assert profile.get_column("hour").to_list() == list(range(24))
    assert profile.filter(pl.col("hour") == 23).row(0, named=True)["count"] == 1


# -- against the simulator (the session `sim` fixture of conftest.py) ---------------------------


def _pull_disks(sim) -> tuple[pl.DataFrame, list[tuple[str, str, str]]]:
    client = sim.client()
    targets = [
        (g, h.id, p)
        for g in sim.group_ids
        for h in client.hosts.list(g)
        for p in client.hosts.partitions(g, h.id)
    ]
    frame = client.measurements.fleet(
        targets,
        granularity="PT1H",
        period="P14D",
        metrics=["DISK_PARTITION_SPACE_USED", "DISK_PARTITION_SPACE_FREE"],
    )
    return frame, targets


def test_forecast_covers_every_simulated_partition(sim) -> None:
    frame, targets = _pull_disks(sim)
    out = capacity.disk_forecast(frame, window="14d")
    assert out.height == len(targets) > 0
    assert set(out.select(capacity._PARTITION).iter_rows()) == set(targets)


def test_fastest_filling_disk_matches_seeded_growth(sim) -> None:
    frame, _ = _pull_disks(sim)
    out = capacity.disk_forecast(frame, window="14d")
    truth = pl.DataFrame(
        [
            {
                "group_id": t["group_id"],
                "host_id": t["host_id"],
                "partition_name": t["partition_name"],
                "growth": t["growth_bytes_per_day"],
            }
            for t in sim.partition_truth()
        ]
    )
    fastest = truth.sort("growth", descending=True).row(0, named=True)
    got = out.filter(
        (pl.col("group_id") == fastest["group_id"])
        & (pl.col("host_id") == fastest["host_id"])
        & (pl.col("partition_name") == fastest["partition_name"])
    ).row(0, named=True)
    assert got["trend"] == "growing"
    assert got["growth_bytes_per_day"] == pytest.approx(fastest["growth"], rel=0.10)
    assert got["days_to_full"] is not None


# database_growth's match of a host's databases to the partition that holds them.


def database_frame(sizes: dict[str, list[float]], *, host: str = "h1") -> pl.DataFrame:
    """A long frame of database sizes, hourly from T0: storage 80 %, index 20 % of each."""
    rows = []
    for name, series in sizes.items():
        for i, size in enumerate(series):
            for measurement, share in (
                ("DATABASE_STORAGE_SIZE", 0.8),
                ("DATABASE_INDEX_SIZE", 0.2),
            ):
                rows.append(
                    ("g1", host, f"{host}:27017", None, name, measurement, "BYTES",
                     T0 + timedelta(hours=i), size * share)
                )  # fmt: skip
    return pl.DataFrame(
        rows, schema={**dict(list(SCHEMA.items())[:4]), "database_name": pl.String,
                      **dict(list(SCHEMA.items())[4:])}, orient="row",
    )  # fmt: skip


def noisy(values: list[float], amplitude: float, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [v + rng.uniform(-amplitude, amplitude) for v in values]


def matched(growth: pl.DataFrame) -> set[str]:
    return set(growth.get_column("partition_name").cast(pl.String))


N = 14 * 24 + 1


def test_databases_matched_to_the_disk_they_fill_not_the_one_growing_alike() -> None:
    """The issue's case: `root` grows about as fast as the databases (and holds their size),
    but it is noisy and far from tight; `data` is the databases plus a constant overhead."""
    orders = linear(N, 30 * GIB, 0.30 * GIB)
    users = linear(N, 10 * GIB, 0.05 * GIB)
    dbs = database_frame({"orders": orders, "users": users, "admin": [0.1 * GIB] * N})
    total = [a + b + 0.1 * GIB for a, b in zip(orders, users)]
    data = noisy([t + 4 * GIB for t in total], 1.5 * GIB, 1)
    root = noisy(linear(N, 160 * GIB, 0.36 * GIB), 5 * GIB, 2)
    journal = noisy([8 * GIB] * N, 0.05 * GIB, 3)
    disks = pl.concat(
        [
            disk_frame(data, capacity=128 * GIB, partition="data"),
            disk_frame(root, capacity=256 * GIB, partition="root"),
            disk_frame(journal, capacity=16 * GIB, partition="journal"),
        ]
    )
    forecast = capacity.disk_forecast(disks, window="14d")
    by_series = capacity.database_growth(dbs, window="14d", disks=forecast, disk_frame=disks)
    by_forecast = capacity.database_growth(dbs, window="14d", disks=forecast)
    alone = capacity.database_growth(dbs, window="14d", disk_frame=disks)
    for growth in (by_series, by_forecast, alone):
        assert matched(growth) == {"data"}
        top = growth.row(0, named=True)
        assert top["database_name"] == "orders"
        assert top["growth_bytes_per_day"] == pytest.approx(0.30 * GIB, rel=0.01)
        assert top["share_of_host_growth"] == pytest.approx(0.30 / 0.35, rel=0.01)
        disk = forecast.filter(pl.col("partition_name") == "data").row(0, named=True)
        assert top["disk_growth_bytes_per_day"] == disk["growth_bytes_per_day"]
        assert top["share_of_disk_growth"] == pytest.approx(
            top["growth_bytes_per_day"] / disk["growth_bytes_per_day"]
        )
        assert top["date_full"] == disk["date_full"] is not None
        days = (disk["date_full"] - T0 - timedelta(days=14)).total_seconds() / 86_400
        assert top["size_at_full_bytes"] == pytest.approx(orders[-1] + 0.30 * GIB * days, rel=1e-3)


def test_a_bulk_load_moves_the_databases_and_their_disk_together() -> None:
    """40 GiB restored into `events` on day 7: point by point, used − Σ databases stays level
    on `data` (104 GiB of databases, 116 GiB used); `xvdb`, growing steadily at about the same
    average rate and fitting them tighter (110 GiB used), is not taken for it."""
    events = [
        v + (40 * GIB if i >= 7 * 24 else 0.0) for i, v in enumerate(linear(N, 50 * GIB, 0.5 * GIB))
    ]
    dbs = database_frame({"events": events, "local": [0.2 * GIB] * N})
    data = noisy([e + 0.2 * GIB + 12 * GIB for e in events], 0.3 * GIB, 4)
    xvdb = noisy(linear(N, 63.8 * GIB, 3.3 * GIB), 0.3 * GIB, 5)  # 110 GiB at the end
    disks = pl.concat(
        [
            disk_frame(data, capacity=512 * GIB, partition="data"),
            disk_frame(xvdb, capacity=512 * GIB, partition="xvdb"),
        ]
    )
    growth = capacity.database_growth(dbs, window="14d", disk_frame=disks)
    assert matched(growth) == {"data"}


def test_databases_that_do_not_grow_go_to_the_tightest_disk_that_holds_them() -> None:
    dbs = database_frame({"catalog": [50 * GIB] * N, "admin": [0.1 * GIB] * N})
    disks = pl.concat(
        [
            disk_frame(noisy([56 * GIB] * N, 0.1 * GIB, 6), partition="data"),
            disk_frame(noisy([30 * GIB] * N, 0.1 * GIB, 7), partition="root"),  # too small
            disk_frame(noisy([80 * GIB] * N, 0.1 * GIB, 8), partition="xvdb"),
            disk_frame(noisy(linear(N, 51 * GIB, 1 * GIB), 0.1 * GIB, 9), partition="logs"),
        ]
    )
    growth = capacity.database_growth(dbs, window="14d", disk_frame=disks)
    assert matched(growth) == {"data"}
    assert growth["share_of_disk_growth"].is_null().all()  # a flat disk: no share
    assert growth["date_full"].is_null().all()
