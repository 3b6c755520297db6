//! What a host's role does to its disks and databases, as a DBA expects them.
//!
//! - A config server holds the cluster's metadata: the system databases alone, a few GiB on
//!   a small disk, growing by megabytes a day (`config`'s chunks and changelog).
//! - A mongos holds no data: its one disk is the system's (`root`: the OS and its logs),
//!   which grows as slowly.
//! - Any other mongod (a shard's or replica set's member, a standalone) keeps the disks drawn
//!   for it.
//!
//! Shaped from the values drawn for every host, drawing nothing more: the rest of the world
//! is the same whatever the roles do.

use super::*;

/// A small disk for a host without application data: 64 GiB where a large one was drawn,
/// else 32 GiB.
fn small(drawn: u64) -> u64 {
    if drawn >= 512 * GIB {
        64 * GIB
    } else {
        32 * GIB
    }
}

/// Reshapes the disks drawn for a host of `type_name` (see the module's documentation).
pub(super) fn shape_disks(type_name: &str, parts: &mut Vec<Partition>) {
    match type_name {
        "SHARD_CONFIG" => {
            for (i, p) in parts.iter_mut().enumerate() {
                // u: how full the drawn disk was, in (0, 1].
                let u = p.used_bytes_at_anchor / p.capacity_bytes as f64;
                let cap = small(p.capacity_bytes);
                let c = cap as f64;
                p.capacity_bytes = cap;
                p.used_bytes_at_anchor = (c * (0.04 + 0.12 * u)).round();
                if i == 0 {
                    p.growth = Growth::Slow;
                    p.growth_bytes_per_day = (c * (0.0002 + 0.0002 * u)).round();
                    p.noise_bytes = (c * 0.002).round();
                } else {
                    p.growth = Growth::Flat;
                    p.growth_bytes_per_day = 0.0;
                    p.noise_bytes = (c * 0.001).round();
                }
            }
        }
        "SHARD_MONGOS" => {
            parts.truncate(1);
            let p = &mut parts[0];
            let u = p.used_bytes_at_anchor / p.capacity_bytes as f64;
            let cap = small(p.capacity_bytes);
            let c = cap as f64;
            *p = Partition {
                name: "root".to_string(),
                capacity_bytes: cap,
                used_bytes_at_anchor: (c * (0.15 + 0.3 * u)).round(),
                growth_bytes_per_day: (c * (0.0003 + 0.0003 * u)).round(),
                noise_bytes: (c * 0.002).round(),
                growth: Growth::Slow,
            };
        }
        _ => {}
    }
}

/// A config server's databases: `config` takes the growth and about half the space,
/// `local` (the oplog, capped) most of the rest, `admin` a little; they add up to `total`
/// at the anchor and hold 60 days of growth before it.
pub(super) fn config_databases(r: &mut SplitMix64, total: f64, growth: f64) -> Vec<Database> {
    let history = growth * 60.0;
    let spare = (total - history).max(0.0);
    let shares = [("admin", 0.02), ("config", 0.5), ("local", 0.48)];
    shares
        .into_iter()
        .map(|(name, share)| {
            let grows = name == "config";
            Database {
                name: name.to_string(),
                size_at_anchor: spare * share + if grows { history } else { 0.0 },
                growth_bytes_per_day: if grows { growth } else { 0.0 },
                index_fraction: 0.1 + 0.2 * r.f64(),
                data_ratio: 1.2 + 0.8 * r.f64(),
                average_object_size: (150.0 + 600.0 * r.f64()).round(),
                collections: r.range(3, 30),
                drives_growth: grows && growth > 0.0,
            }
        })
        .collect()
}
