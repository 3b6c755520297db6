//! The world's series, below both the world and the measurements it is served as
//! (`sim/metrics.rs`): the catalog of measurements in Ops Manager's names and units, and the
//! pure functions of a series' points that the world's alerts are seeded from (a disk's
//! percent used, a host series' level in a breach), so that an alert and the series it was
//! raised from agree.

use super::Partition;
use crate::sim::rng::{hash, unit};

/// The shape of a series.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind {
    /// A level with a daily cycle; `int` rounds to whole numbers.
    Gauge {
        base: f64,
        cycle: f64,
        noise: f64,
        int: bool,
    },
    /// A per-second rate derived from a counter: the first point of a response is null.
    Rate {
        base: f64,
        cycle: f64,
        noise: f64,
    },
    /// A percentage, clamped to [0, 100].
    Pct {
        base: f64,
        cycle: f64,
        noise: f64,
    },
    /// Grows slowly over time (data sizes).
    Growing {
        base: f64,
        per_day: f64,
    },
    /// Disk space used (bytes), free (bytes), percent used, percent free.
    DiskUsed,
    DiskFree,
    DiskPctUsed,
    DiskPctFree,
    /// Database sizes (bytes), from [`Database::size_at`]: storage + index is the size.
    DbStorage,
    DbIndex,
    DbData,
    DbFile,
    /// Documents: data size over the average document size.
    DbObjects,
    DbAverageObjectSize,
    DbCollections,
}

/// One measurement name with its units and shape.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MetricDef {
    pub name: &'static str,
    pub units: &'static str,
    pub kind: Kind,
}

const fn g(
    name: &'static str,
    units: &'static str,
    base: f64,
    cycle: f64,
    noise: f64,
    int: bool,
) -> MetricDef {
    MetricDef {
        name,
        units,
        kind: Kind::Gauge {
            base,
            cycle,
            noise,
            int,
        },
    }
}
const fn rate(
    name: &'static str,
    units: &'static str,
    base: f64,
    cycle: f64,
    noise: f64,
) -> MetricDef {
    MetricDef {
        name,
        units,
        kind: Kind::Rate { base, cycle, noise },
    }
}
const fn pct(name: &'static str, base: f64, cycle: f64, noise: f64) -> MetricDef {
    MetricDef {
        name,
        units: "PERCENT",
        kind: Kind::Pct { base, cycle, noise },
    }
}
const fn grow(name: &'static str, base: f64, per_day: f64) -> MetricDef {
    MetricDef {
        name,
        units: "BYTES",
        kind: Kind::Growing { base, per_day },
    }
}

const SPS: &str = "SCALAR_PER_SECOND";
const BPS: &str = "BYTES_PER_SECOND";

/// Host measurements, in the order responses list them. (Its rows share a shape, which
/// `duplicates` pairs: one measurement's data each, not logic written twice.)
#[rustfmt::skip]
pub(crate) const HOST_METRICS: &[MetricDef] = &[
    rate("ASSERT_REGULAR", SPS, 0.0, 0.5, 1.0), // none but in a breach (its alerts' threshold is 0)
    rate("ASSERT_WARNING", SPS, 0.01, 0.5, 1.0),
    rate("ASSERT_MSG", SPS, 0.005, 0.0, 1.0),
    rate("ASSERT_USER", SPS, 0.3, 1.0, 0.8),
    rate("CACHE_BYTES_READ_INTO", BPS, 4.0e6, 1.5, 0.4),
    rate("CACHE_BYTES_WRITTEN_FROM", BPS, 2.0e6, 1.5, 0.4),
    g("CACHE_DIRTY_BYTES", "BYTES", 1.2e8, 0.8, 0.3, true),
    g("CACHE_USED_BYTES", "BYTES", 3.0e9, 0.2, 0.05, true),
    pct("CACHE_FILL_RATIO", 70.0, 0.15, 0.05),
    pct("DIRTY_FILL_RATIO", 2.0, 0.8, 0.3),
    g("TICKETS_AVAILABLE_READS", "SCALAR", 124.0, -0.05, 0.02, true),
    g("TICKETS_AVAILABLE_WRITE", "SCALAR", 126.0, -0.03, 0.02, true),
    g("CONNECTIONS", "SCALAR", 180.0, 1.6, 0.08, true),
    g("CURSORS_TOTAL_OPEN", "SCALAR", 25.0, 1.2, 0.2, true),
    rate("CURSORS_TOTAL_TIMED_OUT", SPS, 0.01, 0.5, 1.0),
    rate("EXTRA_INFO_PAGE_FAULTS", SPS, 3.0, 1.0, 0.6),
    g("GLOBAL_LOCK_CURRENT_QUEUE_TOTAL", "SCALAR", 2.0, 2.0, 0.8, true),
    g("GLOBAL_LOCK_CURRENT_QUEUE_READERS", "SCALAR", 1.0, 2.0, 0.8, true),
    g("GLOBAL_LOCK_CURRENT_QUEUE_WRITERS", "SCALAR", 1.0, 2.0, 0.8, true),
    g("MEMORY_RESIDENT", "MEGABYTES", 6000.0, 0.1, 0.02, true),
    g("MEMORY_VIRTUAL", "MEGABYTES", 9000.0, 0.05, 0.01, true),
    g("COMPUTED_MEMORY", "MEGABYTES", 6500.0, 0.1, 0.02, true),
    rate("NETWORK_BYTES_IN", BPS, 2.5e5, 1.8, 0.25),
    rate("NETWORK_BYTES_OUT", BPS, 1.2e6, 1.8, 0.25),
    rate("NETWORK_NUM_REQUESTS", SPS, 900.0, 1.8, 0.2),
    g("OPLOG_REPLICATION_LAG_TIME", "SECONDS", 1.0, 1.5, 0.9, false),
    g("OPLOG_RATE_GB_PER_HOUR", "GIGABYTES_PER_HOUR", 0.4, 1.6, 0.3, false),
    g("OPLOG_MASTER_TIME", "HOURS", 60.0, -0.3, 0.02, false),
    g("OPLOG_MASTER_LAG_TIME_DIFF", "SECONDS", 58.0, -0.3, 0.05, false),
    grow("DB_STORAGE_TOTAL", 4.0e10, 0.004),
    grow("DB_DATA_SIZE_TOTAL", 6.0e10, 0.004),
    grow("DB_DATA_SIZE_TOTAL_WO_SYSTEM", 5.9e10, 0.004),
    grow("DB_INDEX_SIZE_TOTAL", 8.0e9, 0.003),
    rate("OPCOUNTER_CMD", SPS, 350.0, 1.5, 0.2),
    rate("OPCOUNTER_QUERY", SPS, 500.0, 1.8, 0.2),
    rate("OPCOUNTER_UPDATE", SPS, 120.0, 1.6, 0.25),
    rate("OPCOUNTER_DELETE", SPS, 15.0, 1.2, 0.4),
    rate("OPCOUNTER_GETMORE", SPS, 60.0, 1.5, 0.3),
    rate("OPCOUNTER_INSERT", SPS, 80.0, 1.6, 0.3),
    rate("OPCOUNTER_REPL_CMD", SPS, 5.0, 0.5, 0.3),
    rate("OPCOUNTER_REPL_UPDATE", SPS, 110.0, 1.6, 0.25),
    rate("OPCOUNTER_REPL_DELETE", SPS, 14.0, 1.2, 0.4),
    rate("OPCOUNTER_REPL_INSERT", SPS, 75.0, 1.6, 0.3),
    rate("DOCUMENT_METRICS_RETURNED", SPS, 2500.0, 1.8, 0.25),
    rate("DOCUMENT_METRICS_INSERTED", SPS, 80.0, 1.6, 0.3),
    rate("DOCUMENT_METRICS_UPDATED", SPS, 120.0, 1.6, 0.25),
    rate("DOCUMENT_METRICS_DELETED", SPS, 15.0, 1.2, 0.4),
    rate("OPERATIONS_SCAN_AND_ORDER", SPS, 4.0, 1.5, 0.5),
    g("OP_EXECUTION_TIME_READS", "MILLISECONDS", 0.8, 0.9, 0.3, false),
    g("OP_EXECUTION_TIME_WRITES", "MILLISECONDS", 1.5, 0.9, 0.3, false),
    g("OP_EXECUTION_TIME_COMMANDS", "MILLISECONDS", 0.6, 0.6, 0.3, false),
    g("RESTARTS_IN_LAST_HOUR", "SCALAR", 0.0, 0.0, 0.0, true),
    rate("QUERY_EXECUTOR_SCANNED", SPS, 4000.0, 1.8, 0.3),
    rate("QUERY_EXECUTOR_SCANNED_OBJECTS", SPS, 9000.0, 1.8, 0.3),
    g("QUERY_TARGETING_SCANNED_PER_RETURNED", "SCALAR", 1.6, 0.5, 0.3, false),
    g("QUERY_TARGETING_SCANNED_OBJECTS_PER_RETURNED", "SCALAR", 3.6, 0.5, 0.3, false),
    pct("PROCESS_CPU_USER", 18.0, 2.0, 0.15),
    pct("PROCESS_CPU_KERNEL", 4.0, 1.5, 0.2),
    pct("PROCESS_NORMALIZED_CPU_USER", 4.5, 2.0, 0.15),
    pct("PROCESS_NORMALIZED_CPU_KERNEL", 1.0, 1.5, 0.2),
    pct("SYSTEM_CPU_USER", 22.0, 2.0, 0.15),
    pct("SYSTEM_CPU_KERNEL", 5.0, 1.5, 0.2),
    pct("SYSTEM_CPU_NICE", 0.1, 0.0, 0.5),
    pct("SYSTEM_CPU_IOWAIT", 1.5, 1.5, 0.5),
    pct("SYSTEM_CPU_IRQ", 0.2, 1.0, 0.3),
    pct("SYSTEM_CPU_SOFTIRQ", 0.6, 1.2, 0.3),
    pct("SYSTEM_CPU_GUEST", 0.0, 0.0, 0.0),
    pct("SYSTEM_CPU_STEAL", 0.3, 0.5, 0.6),
    pct("SYSTEM_NORMALIZED_CPU_USER", 5.5, 2.0, 0.15),
    pct("SYSTEM_NORMALIZED_CPU_KERNEL", 1.25, 1.5, 0.2),
    pct("SYSTEM_NORMALIZED_CPU_NICE", 0.03, 0.0, 0.5),
    pct("SYSTEM_NORMALIZED_CPU_IOWAIT", 0.4, 1.5, 0.5),
    pct("SYSTEM_NORMALIZED_CPU_IRQ", 0.05, 1.0, 0.3),
    pct("SYSTEM_NORMALIZED_CPU_SOFTIRQ", 0.15, 1.2, 0.3),
    pct("SYSTEM_NORMALIZED_CPU_GUEST", 0.0, 0.0, 0.0),
    pct("SYSTEM_NORMALIZED_CPU_STEAL", 0.08, 0.5, 0.6),
    g("SYSTEM_MEMORY_USED", "KILOBYTES", 1.2e7, 0.1, 0.02, true),
    g("SYSTEM_MEMORY_FREE", "KILOBYTES", 2.0e6, -0.3, 0.05, true),
    g("SYSTEM_MEMORY_AVAILABLE", "KILOBYTES", 4.0e6, -0.3, 0.05, true),
    rate("SYSTEM_NETWORK_BYTES_IN", BPS, 3.0e5, 1.8, 0.25),
    rate("SYSTEM_NETWORK_BYTES_OUT", BPS, 1.4e6, 1.8, 0.25),
    g("SWAP_USAGE_USED", "KILOBYTES", 1.0e4, 0.0, 0.01, true),
    g("SWAP_USAGE_FREE", "KILOBYTES", 2.0e6, 0.0, 0.0, true),
];

/// Disk partition measurements, in the documented order.
#[rustfmt::skip]
pub(crate) const DISK_METRICS: &[MetricDef] = &[
    rate("DISK_PARTITION_IOPS_READ", SPS, 120.0, 1.5, 0.3),
    rate("DISK_PARTITION_IOPS_WRITE", SPS, 80.0, 1.5, 0.3),
    rate("DISK_PARTITION_IOPS_TOTAL", SPS, 200.0, 1.5, 0.3),
    g("DISK_PARTITION_LATENCY_READ", "MILLISECONDS", 0.9, 0.6, 0.3, false),
    g("DISK_PARTITION_LATENCY_WRITE", "MILLISECONDS", 1.4, 0.6, 0.3, false),
    MetricDef {
        name: "DISK_PARTITION_SPACE_FREE",
        units: "BYTES",
        kind: Kind::DiskFree,
    },
    MetricDef {
        name: "DISK_PARTITION_SPACE_USED",
        units: "BYTES",
        kind: Kind::DiskUsed,
    },
    MetricDef {
        name: "DISK_PARTITION_SPACE_PERCENT_FREE",
        units: "PERCENT",
        kind: Kind::DiskPctFree,
    },
    MetricDef {
        name: "DISK_PARTITION_SPACE_PERCENT_USED",
        units: "PERCENT",
        kind: Kind::DiskPctUsed,
    },
];

const fn db(name: &'static str, units: &'static str, kind: Kind) -> MetricDef {
    MetricDef { name, units, kind }
}

/// Database measurements, in the documented order.
pub(crate) const DATABASE_METRICS: &[MetricDef] = &[
    pct("DATABASE_WRITE_LOCK_PERCENTAGE", 2.0, 1.0, 0.5),
    db(
        "DATABASE_AVERAGE_OBJECT_SIZE",
        "BYTES",
        Kind::DbAverageObjectSize,
    ),
    db("DATABASE_COLLECTION_COUNT", "SCALAR", Kind::DbCollections),
    db("DATABASE_DATA_SIZE", "BYTES", Kind::DbData),
    db("DATABASE_FILE_SIZE", "BYTES", Kind::DbFile),
    db("DATABASE_STORAGE_SIZE", "BYTES", Kind::DbStorage),
    db("DATABASE_INDEX_SIZE", "BYTES", Kind::DbIndex),
    g("DATABASE_INDEX_COUNT", "SCALAR", 12.0, 0.0, 0.0, true),
    g("DATABASE_EXTENT_COUNT", "SCALAR", 0.0, 0.0, 0.0, true),
    db("DATABASE_OBJECT_COUNT", "SCALAR", Kind::DbObjects),
];

/// Used bytes of a partition at `t` (trend only, clamped to the disk).
pub(crate) fn disk_trend(p: &Partition, anchor: i64, t: i64) -> f64 {
    let cap = p.capacity_bytes as f64;
    let v = p.used_bytes_at_anchor + p.growth_bytes_per_day * (t - anchor) as f64 / 86_400.0;
    v.clamp(cap * 0.01, cap)
}

/// The key of a host's own series (and, with `partition`, of a partition's): what the noise
/// of every value of them is drawn from.
pub(crate) fn series_key(seed: u64, host_index: usize, partition: Option<usize>) -> u64 {
    hash(&[
        seed,
        host_index as u64,
        partition.map_or(u64::MAX, |p| p as u64),
    ])
}

/// The percent used a partition's series shows at `t` (its trend plus its noise): what a
/// disk-space alert compares with its threshold. `key` is [`series_key`] of the partition.
pub(crate) fn disk_percent_used(key: u64, p: &Partition, anchor: i64, t: i64) -> f64 {
    let used = disk_used(key, p, anchor, t);
    ((used / p.capacity_bytes as f64 * 100.0) * 100.0).round() / 100.0
}

/// Used bytes a partition's series shows at `t`: the trend plus the noise of `t`.
pub(crate) fn disk_used(key: u64, p: &Partition, anchor: i64, t: i64) -> f64 {
    let cap = p.capacity_bytes as f64;
    let dn = unit(hash(&[key, 0x6469_736b, t as u64])) * 2.0 - 1.0;
    (disk_trend(p, anchor, t) + p.noise_bytes * dn)
        .clamp(0.0, cap)
        .round()
}

/// Where a host measurement sits in [`HOST_METRICS`], and whether it is a whole number.
pub(crate) fn host_metric(name: &str) -> Option<(usize, bool)> {
    let i = HOST_METRICS.iter().position(|m| m.name == name)?;
    let int = matches!(HOST_METRICS[i].kind, Kind::Gauge { int: true, .. });
    Some((i, int))
}

/// The value a host series shows at `t` within a breach of `level`: the level within 4 %, by
/// the noise of the point. `key` is [`series_key`] of the host, `(mi, int)` [`host_metric`].
pub(crate) fn breach_point(key: u64, (mi, int): (usize, bool), level: f64, t: i64) -> f64 {
    let n = unit(hash(&[key, mi as u64, t as u64])) * 2.0 - 1.0;
    let v = (level * (1.0 + 0.04 * n)).max(0.0);
    if int {
        v.round()
    } else {
        (v * 100.0).round() / 100.0
    }
}

/// Business-hours load in [0, 1]: a bump between 07:00 and 21:00 UTC, lower at weekends.
pub(crate) fn busy(t: i64, granularity: i64) -> f64 {
    if granularity >= 86_400 {
        return 0.4;
    }
    let h = t.rem_euclid(86_400) as f64 / 3600.0;
    let b = if (7.0..21.0).contains(&h) {
        (std::f64::consts::PI * (h - 7.0) / 14.0).sin()
    } else {
        0.0
    };
    let dow = (t.div_euclid(86_400) + 3).rem_euclid(7); // 0 = Monday
    if dow >= 5 {
        b * 0.5
    } else {
        b
    }
}
