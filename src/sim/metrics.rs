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
use super::world::series::{breach_point, busy, disk_used, series_key, Kind};
pub(crate) use super::world::series::{MetricDef, DATABASE_METRICS, DISK_METRICS, HOST_METRICS};
use super::world::{Breach, Database, Host, Partition};
use crate::flavour::{Flavour, Operation};

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
