//! The measurement catalog and the generator of data points.
//!
//! A value is a pure function of (seed, host, metric, timestamp): two requests for overlapping
//! windows agree on every shared timestamp, except that a rate series' first point in a
//! response is always null (as the service documents).
//!
//! An alert's breach ([`Breach`]) shows in its host's series of that measurement: every point
//! whose interval (`t` to `t + step`) holds part of the breach is the breach's level (within
//! 4 %), so that an alert's context shows what it alerted on at any granularity. (A real
//! server's coarser points average their interval and may hide a short breach; the
//! simulator's show its worst.) The point an alert was raised from is never missing.
//!
//! The catalog is in Ops Manager's names and units, every name one of its documented catalog
//! (`opsapi::flavour::measurements`). Atlas serves a series under its own name when it has it
//! ([`Face::of`]: `SYSTEM_NETWORK_IN` for `SYSTEM_NETWORK_BYTES_IN`, ...) and in the units of
//! its specification (bytes for megabytes and kilobytes, milliseconds for seconds and hours);
//! what Atlas does not have (`DB_INDEX_SIZE_TOTAL`, `DATABASE_FILE_SIZE`, ...) it does not
//! serve.

use super::fmt::{push_f64, push_str, push_timestamp};
use super::rng::{hash, unit};
use super::world::{Breach, Database, Host, Partition};
use crate::flavour::{Flavour, Operation};

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

/// Host measurements, in the order responses list them.
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

/// How a flavour serves one metric of the catalog: its name there, its units there, and the
/// factor from the catalog's units to those.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Face {
    pub name: &'static str,
    pub units: &'static str,
    pub factor: f64,
}

impl Face {
    /// How `flavour` serves `m` for the measurements operation `op`, or `None` when it has no
    /// such measurement.
    pub(crate) fn of(flavour: Flavour, op: Operation, m: &MetricDef) -> Option<Face> {
        let name = flavour.measurement_name(op, m.name).ok()?;
        let (units, factor) = match flavour {
            Flavour::Atlas => atlas_units(m.units),
            _ => (m.units, 1.0),
        };
        Some(Face {
            name,
            units,
            factor,
        })
    }
}

/// Atlas's units (its specification's enum: `BYTES`, `BYTES_PER_SECOND`, `GIGABYTES`,
/// `GIGABYTES_PER_HOUR`, `MEGABYTES_PER_SECOND`, `MICROSECONDS`, `MILLISECONDS`, `PERCENT`,
/// `SCALAR`, `SCALAR_PER_SECOND`) for the catalog's, with the factor between them.
fn atlas_units(units: &'static str) -> (&'static str, f64) {
    match units {
        "KILOBYTES" => ("BYTES", 1024.0),
        "MEGABYTES" => ("BYTES", 1024.0 * 1024.0),
        "SECONDS" => ("MILLISECONDS", 1e3),
        "MINUTES" => ("MILLISECONDS", 6e4),
        "HOURS" => ("MILLISECONDS", 3.6e6),
        other => (other, 1.0),
    }
}

/// Business-hours load in [0, 1]: a bump between 07:00 and 21:00 UTC, lower at weekends.
fn busy(t: i64, granularity: i64) -> f64 {
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
fn disk_used(key: u64, p: &Partition, anchor: i64, t: i64) -> f64 {
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

/// Whether the point at `t` of `step` seconds holds part of the breach.
fn overlaps(b: &Breach, t: i64, step: i64) -> bool {
    b.start < t + step && b.end.is_none_or(|e| e > t)
}

/// What to generate for: the seed, the host, the partition (for disks) or the database (for
/// databases), and the anchor time.
pub(crate) struct Source<'a> {
    pub seed: u64,
    pub host: &'a Host,
    pub partition: Option<(usize, &'a Partition)>,
    pub database: Option<(usize, &'a Database)>,
    pub anchor: i64,
}

impl Source<'_> {
    fn key(&self) -> u64 {
        let (seed, host) = (self.seed, self.host.index as u64);
        match self.database {
            // Host and disk keys are those from before databases existed: same seed, same data.
            None => series_key(seed, self.host.index, self.partition.map(|p| p.0)),
            Some((d, _)) => hash(&[seed, host, u64::MAX, 0x6462_0000 | d as u64]),
        }
    }

    /// The per-series level factor in [0.5, 1.5).
    fn level(key: u64, mi: u64) -> f64 {
        0.5 + unit(hash(&[key, mi, 0x6866]))
    }

    /// One value, or `None` for a gap. `key` is [`Self::key`], `hf` is [`Self::level`].
    /// Whether the sample at `t` is missing: every series of the host is null then.
    fn gap(key: u64, t: i64) -> bool {
        unit(hash(&[key, 0x6761_7073, t as u64])) < 0.003
    }

    /// Whether the point at `t` of `step` seconds is the one an alert was raised from (it
    /// holds a breach's start): never a gap.
    fn raised_from(&self, t: i64, step: i64) -> bool {
        self.partition.is_none()
            && self.database.is_none()
            && self
                .host
                .breaches
                .iter()
                .any(|b| b.start >= t && b.start < t + step)
    }

    /// One value (never a gap: see [`Self::gap`]) of the point at `t` of `step` seconds. `key`
    /// is [`Self::key`], `hf` is [`Self::level`], `cyc` is the load cycle at `t`.
    #[allow(clippy::too_many_arguments)]
    fn value(
        &self,
        key: u64,
        hf: f64,
        m: &MetricDef,
        mi: u64,
        t: i64,
        step: i64,
        cyc: f64,
    ) -> Option<f64> {
        // An alert's breach of a host series (world/breaches.rs).
        if self.partition.is_none() && self.database.is_none() {
            let int = matches!(m.kind, Kind::Gauge { int: true, .. });
            if let Some(b) = self
                .host
                .breaches
                .iter()
                .find(|b| b.metric == m.name && overlaps(b, t, step))
            {
                return Some(breach_point(key, (mi as usize, int), b.level, t));
            }
        }
        let n = unit(hash(&[key, mi, t as u64])) * 2.0 - 1.0;
        // A host series a capacity finding replaces (world/findings.rs).
        if let Some(s) = self.host.seeded.iter().find(|s| s.metric == m.name) {
            if self.partition.is_none() && self.database.is_none() {
                return Some(s.value(self.anchor, t, cyc, n));
            }
        }
        let round2 = |v: f64| (v * 100.0).round() / 100.0;
        let v = match m.kind {
            Kind::Gauge {
                base,
                cycle,
                noise,
                int,
            } => {
                let v = (base * hf * (1.0 + cycle * (cyc - 0.3)) * (1.0 + noise * n)).max(0.0);
                if int {
                    v.round()
                } else {
                    round2(v)
                }
            }
            Kind::Rate { base, cycle, noise } => {
                round2((base * hf * (1.0 + cycle * (cyc - 0.3)) * (1.0 + noise * n)).max(0.0))
            }
            Kind::Pct { base, cycle, noise } => round2(
                (base * hf * (1.0 + cycle * (cyc - 0.3)) * (1.0 + noise * n)).clamp(0.0, 100.0),
            ),
            Kind::Growing { base, per_day } => {
                let days = (t - self.anchor) as f64 / 86_400.0;
                (base * hf * (1.0 + per_day * days).max(0.05) * (1.0 + 0.001 * n)).round()
            }
            Kind::DiskUsed | Kind::DiskFree | Kind::DiskPctUsed | Kind::DiskPctFree => {
                let (_, p) = self.partition?;
                let cap = p.capacity_bytes as f64;
                let used = disk_used(key, p, self.anchor, t);
                match m.kind {
                    Kind::DiskUsed => used,
                    Kind::DiskFree => cap - used,
                    Kind::DiskPctUsed => round2(used / cap * 100.0),
                    _ => round2((cap - used) / cap * 100.0),
                }
            }
            Kind::DbCollections => self.database?.1.collections as f64,
            Kind::DbAverageObjectSize => self.database?.1.average_object_size,
            Kind::DbStorage | Kind::DbIndex | Kind::DbData | Kind::DbFile | Kind::DbObjects => {
                let (_, d) = self.database?;
                let size = d.size_at((t - self.anchor) as f64 / 86_400.0);
                let index = (size * d.index_fraction).round();
                let storage = size.round() - index;
                let data = (storage * d.data_ratio).round();
                match m.kind {
                    Kind::DbStorage => storage,
                    Kind::DbIndex => index,
                    Kind::DbData => data,
                    // Files hold free space the storage engine has not returned.
                    Kind::DbFile => (storage * 1.1).round(),
                    _ => (data / d.average_object_size).round(),
                }
            }
        };
        Some(v)
    }
}

/// Appends the `measurements` array for the given metrics (indices into `catalog`, each with
/// the [`Face`] it is served with: the flavour's name, units and factor) and the aligned
/// timestamps `first..=last` stepping by `step` seconds.
pub(crate) fn render_measurements(
    out: &mut Vec<u8>,
    src: &Source<'_>,
    catalog: &[MetricDef],
    metrics: &[(usize, Face)],
    (first, last, step): (i64, i64, i64),
) {
    let mut buf = ryu::Buffer::new();
    let key = src.key();
    // What every series shares: the rendered timestamps, the gaps and the load cycle.
    let mut stamps: Vec<u8> = Vec::new();
    let mut gaps: Vec<bool> = Vec::new();
    let mut cycle: Vec<f64> = Vec::new();
    let mut t = first;
    while t <= last {
        push_timestamp(&mut stamps, t);
        gaps.push(Source::gap(key, t) && !src.raised_from(t, step));
        cycle.push(busy(t, step));
        t += step;
    }
    const TS: usize = 20; // "YYYY-MM-DDTHH:MM:SSZ"
    out.push(b'[');
    for (k, &(mi, face)) in metrics.iter().enumerate() {
        let m = &catalog[mi];
        let hf = Source::level(key, mi as u64);
        if k > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"dataPoints\":[");
        for (i, gap) in gaps.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"timestamp\":\"");
            out.extend_from_slice(&stamps[i * TS..(i + 1) * TS]);
            out.extend_from_slice(b"\",\"value\":");
            let v = if *gap || (i == 0 && matches!(m.kind, Kind::Rate { .. })) {
                None
            } else {
                let t = first + step * i as i64;
                src.value(key, hf, m, mi as u64, t, step, cycle[i])
            };
            match v {
                Some(v) if face.factor != 1.0 => push_f64(out, &mut buf, v * face.factor),
                Some(v) => push_f64(out, &mut buf, v),
                None => out.extend_from_slice(b"null"),
            }
            out.push(b'}');
        }
        out.extend_from_slice(b"],\"name\":");
        push_str(out, face.name);
        out.extend_from_slice(b",\"units\":");
        push_str(out, face.units);
        out.push(b'}');
    }
    out.push(b']');
}
