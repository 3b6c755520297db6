//! The world's slow queries, which the Performance Advisor serves: each data-bearing mongod
//! runs a workload of query patterns on its own databases (a primary or standalone two to
//! four, a secondary at most one read), some served by an index, some scanning their
//! collection (a missing index: what the suggested indexes name). A pattern runs slowly a few
//! times an hour; which runs, when, and how slowly is a pure function of the seed, the host
//! and the hour, from a random stream of its own (the rest of the world does not move, and
//! any window gives the same queries).
//!
//! Seeded causes (slow queries that rise with the CPU or the connections that raised an
//! alert: `world/causes.rs`) enter through the host's hot spans, which [`load`] reads to scale
//! how often and how slowly a pattern runs at a time.

use chrono::{DateTime, TimeZone, Utc};

use super::{Host, SeededSeries};
use crate::sim::rng::{hash, unit, SplitMix64};

/// The stream of the workload: `hash(seed, host index, WORKLOAD)`.
const WORKLOAD: u64 = 0x776f_726b_6c6f_6164;

const COLLECTIONS: [&str; 8] = [
    "users", "orders", "items", "events", "sessions", "payments", "invoices", "carts",
];
const FIELDS: [&str; 10] = [
    "status",
    "customerId",
    "createdAt",
    "email",
    "sku",
    "region",
    "userId",
    "type",
    "updatedAt",
    "total",
];
/// The commands of the patterns (`find` twice: the commonest).
const COMMANDS: [&str; 4] = ["find", "find", "aggregate", "count"];
/// The databases every mongod has, which no application queries.
const SYSTEM: [&str; 3] = ["admin", "config", "local"];

/// One query pattern of a host's workload.
#[derive(Debug, Clone, PartialEq)]
pub struct Pattern {
    /// `<database>.<collection>`.
    pub namespace: String,
    /// `find`, `aggregate` or `count`.
    pub command: &'static str,
    /// The fields its filter names, in order.
    pub filter: Vec<&'static str>,
    /// Its sort (`{"createdAt": -1}`), if any.
    pub sort: Option<&'static str>,
    /// Whether an index serves it; else it scans its collection (the index the Performance
    /// Advisor suggests is its filter's fields, in order).
    pub indexed: bool,
    /// The collection's documents.
    pub documents: u64,
    /// How long a slow run takes, typically, in milliseconds.
    pub typical_ms: f64,
    /// Slow runs an hour, typically.
    pub per_hour: f64,
}

/// One slow run of a pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct SlowQuery {
    /// When it was logged (when it ended).
    pub at: DateTime<Utc>,
    /// Its pattern (an index into [`patterns`]).
    pub pattern: usize,
    /// Milliseconds.
    pub duration_ms: u64,
    /// Documents examined.
    pub docs_examined: u64,
    /// Index keys examined.
    pub keys_examined: u64,
    /// Documents returned.
    pub returned: u64,
    /// Its connection's number.
    pub connection: u64,
}

/// The workload of `host`: none on a mongos, a config server or a mongod without an
/// application database.
pub fn patterns(seed: u64, host: &Host) -> Vec<Pattern> {
    let databases: Vec<&str> = host
        .databases
        .iter()
        .map(|d| d.name.as_str())
        .filter(|d| !SYSTEM.contains(d))
        .collect();
    let count = match host.type_name.as_str() {
        // (Not 0: a secondary's 0 draws up to one pattern, which needs a database.)
        _ if databases.is_empty() => return Vec::new(),
        "STANDALONE" | "REPLICA_PRIMARY" | "SHARD_PRIMARY" => 2,
        "REPLICA_SECONDARY" | "SHARD_SECONDARY" => 0,
        _ => return Vec::new(),
    };
    let mut r = SplitMix64::new(hash(&[seed, host.index as u64, WORKLOAD]));
    let count = if count == 0 {
        r.range(0, 2) as usize
    } else {
        count + r.range(0, 3) as usize
    };
    (0..count)
        .map(|_| {
            let command: &'static str = COMMANDS[r.range(0, COMMANDS.len() as u64) as usize];
            let database = *r.pick(&databases);
            let collection = *r.pick(&COLLECTIONS);
            let first = *r.pick(&FIELDS);
            let mut filter = vec![first];
            if r.chance(0.5) {
                let second = *r.pick(&FIELDS);
                if second != first {
                    filter.push(second);
                }
            }
            let indexed = r.chance(0.6);
            let documents = r.range(20_000, 2_000_000);
            // A scan reads 5 000 to 20 000 documents a millisecond; an indexed query is slow
            // for the many documents it returns.
            let typical_ms = if indexed {
                r.range(110, 400) as f64
            } else {
                (documents as f64 / r.range(5_000, 20_000) as f64).max(110.0)
            };
            Pattern {
                namespace: format!("{database}.{collection}"),
                command,
                filter,
                sort: r.chance(0.3).then_some(r#"{"createdAt":-1}"#),
                indexed,
                documents,
                typical_ms,
                per_hour: 0.5 + 3.5 * r.f64(),
            }
        })
        .collect()
}

/// A span in which one pattern of a host runs hot: a seeded cause (`world/causes.rs`), slow
/// queries that rise with the load that raised an alert, or with a capacity finding's series.
#[derive(Debug, Clone, PartialEq)]
pub struct Hot {
    /// The pattern (an index into [`patterns`]).
    pub pattern: usize,
    /// The span's first instant.
    pub from: DateTime<Utc>,
    /// Its last.
    pub to: DateTime<Utc>,
    /// The finding's series it rises and falls with, if it follows one.
    pub follows: Option<Follows>,
}

/// A hot span that follows a capacity finding's series: the pattern runs slowly `rate` times
/// as often when the series is at its level (`SeededSeries::level`, at the anchor), in
/// proportion to the series at each hour (its trend and its daily cycle, not its noise).
#[derive(Debug, Clone, PartialEq)]
pub struct Follows {
    /// The series.
    pub series: SeededSeries,
    /// The world's anchor (the series' day 0), in seconds.
    pub anchor: i64,
    /// How many times more often it runs slowly at the series' level.
    pub rate: f64,
}

/// The share of a host's slow-query time that a pattern following a finding's series takes
/// when the series is at its level: most of it.
pub const DRIVE_SHARE: f64 = 0.8;

/// The rate (see [`Follows`]) at which `patterns[i]` takes [`DRIVE_SHARE`] of its host's
/// slow-query time (each slow run [`HOT_DURATION`] times as slow), at least [`HOT_RATE`].
pub fn drive_rate(patterns: &[Pattern], i: usize) -> f64 {
    let weight = |p: &Pattern| p.typical_ms * p.per_hour;
    let others: f64 = patterns
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != i)
        .map(|(_, p)| weight(p))
        .sum();
    let own = weight(&patterns[i]) * HOT_DURATION;
    let rate = DRIVE_SHARE / (1.0 - DRIVE_SHARE) * others / own.max(f64::MIN_POSITIVE);
    rate.max(HOT_RATE)
}

/// How many times more often a hot pattern runs slowly.
pub const HOT_RATE: f64 = 10.0;
/// How many times slower its slow runs are.
pub const HOT_DURATION: f64 = 3.0;

/// How busy pattern `pattern` of `host` is in the hour from `t`, as factors of its rate and
/// its duration: 1 and 1, or [`HOT_RATE`] and [`HOT_DURATION`] in an hour an alert's hot span
/// touches; a span that follows a series runs its [`Follows::rate`] times the series over its
/// level, [`HOT_DURATION`] times as slowly (the busiest span, where several touch the hour).
pub fn load(host: &Host, pattern: usize, t: DateTime<Utc>) -> (f64, f64) {
    let end = t + chrono::Duration::hours(1);
    host.hot
        .iter()
        .filter(|h| h.pattern == pattern && h.from < end && t <= h.to)
        .map(|h| match &h.follows {
            None => (HOT_RATE, HOT_DURATION),
            Some(f) => {
                let (s, at) = (&f.series, t.timestamp());
                let v = s.value(f.anchor, at, super::series::busy(at, 3600), 0.0);
                (f.rate * v / s.level.max(f64::MIN_POSITIVE), HOT_DURATION)
            }
        })
        .fold((1.0, 1.0), |(r, d), (r2, d2)| {
            (f64::max(r, r2), f64::max(d, d2))
        })
}

/// The pattern a seeded cause makes hot: the heaviest collection scan (the most milliseconds
/// an hour), else the heaviest pattern.
pub fn heaviest(patterns: &[Pattern]) -> Option<usize> {
    let heavy = |p: &Pattern| p.typical_ms * p.per_hour;
    let best = |only_scans: bool| {
        patterns
            .iter()
            .enumerate()
            .filter(|(_, p)| !only_scans || !p.indexed)
            .max_by(|a, b| heavy(a.1).total_cmp(&heavy(b.1)))
            .map(|(i, _)| i)
    };
    best(true).or_else(|| best(false))
}

/// The slow runs of `host`'s workload logged from `from` to `to` (each included), oldest
/// first.
pub fn slow_queries(
    seed: u64,
    host: &Host,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Vec<SlowQuery> {
    let patterns = patterns(seed, host);
    let mut out = Vec::new();
    if patterns.is_empty() || to < from {
        return out;
    }
    let (first, last) = (
        from.timestamp().div_euclid(3600),
        to.timestamp().div_euclid(3600),
    );
    for hour in first..=last {
        let start = Utc.timestamp_opt(hour * 3600, 0).single().unwrap_or(from);
        for (i, p) in patterns.iter().enumerate() {
            let (rate, slower) = load(host, i, start);
            let h = hash(&[seed, host.index as u64, WORKLOAD, i as u64, hour as u64]);
            let runs = (p.per_hour * rate + unit(h)).floor() as u64;
            for run in 0..runs {
                let h = hash(&[h, run]);
                let ms = (unit(h) * 3_600_000.0) as i64;
                let at = start + chrono::Duration::milliseconds(ms);
                if at < from || at > to {
                    continue;
                }
                let u = unit(hash(&[h, 1]));
                let returned = if p.indexed {
                    200 + (u * 4800.0) as u64
                } else {
                    (u * 50.0) as u64
                };
                let (docs_examined, keys_examined) = if p.indexed {
                    (returned, returned)
                } else {
                    (p.documents, 0)
                };
                out.push(SlowQuery {
                    at,
                    pattern: i,
                    // Slower than `slowms` (100 ms), or it would not be logged.
                    duration_ms: (p.typical_ms * slower * (0.7 + 0.6 * unit(hash(&[h, 2]))))
                        .round()
                        .max(101.0) as u64,
                    docs_examined,
                    keys_examined,
                    returned,
                    connection: 1000 + hash(&[h, 3]) % 9000,
                });
            }
        }
    }
    out.sort_by_key(|q| q.at);
    out
}

/// The filter of a run of `p`, its values drawn from the run.
fn filter_json(p: &Pattern, h: u64) -> serde_json::Value {
    let mut m = serde_json::Map::new();
    for (i, field) in p.filter.iter().enumerate() {
        let v = hash(&[h, i as u64]);
        let value = match *field {
            "createdAt" | "updatedAt" => {
                serde_json::json!({"$gte": {"$date": v % 1_800_000_000_000}})
            }
            "total" => serde_json::json!({"$gt": v % 500}),
            "status" => serde_json::json!(["A", "B", "C", "D"][(v % 4) as usize]),
            _ => serde_json::json!(format!("{:08x}", v as u32)),
        };
        m.insert((*field).to_string(), value);
    }
    serde_json::Value::Object(m)
}

/// A JSON object with its keys in the order given (as MongoDB writes its log lines; a
/// `serde_json::Map` would sort them).
fn object(pairs: &[(&str, String)]) -> String {
    let body: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{}:{v}", serde_json::Value::from(*k)))
        .collect();
    format!("{{{}}}", body.join(","))
}

/// The command of a run of `p`, as its log line shows it (the command's name first).
fn command_json(p: &Pattern, q: &SlowQuery) -> String {
    let (database, collection) = p.namespace.split_once('.').unwrap_or((&p.namespace, ""));
    let filter = filter_json(p, hash(&[q.at.timestamp_millis() as u64, q.pattern as u64]));
    let mut pairs = vec![(p.command, serde_json::Value::from(collection).to_string())];
    match p.command {
        "aggregate" => {
            pairs.push((
                "pipeline",
                serde_json::json!([{"$match": filter}]).to_string(),
            ));
            pairs.push(("cursor", "{}".to_string()));
        }
        "count" => pairs.push(("query", filter.to_string())),
        _ => pairs.push(("filter", filter.to_string())),
    }
    if let Some(sort) = p.sort {
        pairs.push(("sort", sort.to_string()));
    }
    pairs.push(("$db", serde_json::Value::from(database).to_string()));
    object(&pairs)
}

/// The log line of a run (MongoDB's structured log since 4.4: the world's versions are all
/// 4.4 or later), its keys in MongoDB's order.
pub fn log_line(host: &Host, p: &Pattern, q: &SlowQuery) -> String {
    let plan = if p.indexed {
        let keys: Vec<String> = p.filter.iter().map(|f| format!("{f}: 1")).collect();
        format!("IXSCAN {{ {} }}", keys.join(", "))
    } else {
        "COLLSCAN".to_string()
    };
    let text = |s: &str| serde_json::Value::from(s).to_string();
    let attr = object(&[
        ("type", text("command")),
        ("ns", text(&p.namespace)),
        ("appName", text("orders-service")),
        ("command", command_json(p, q)),
        ("planSummary", text(&plan)),
        ("keysExamined", q.keys_examined.to_string()),
        ("docsExamined", q.docs_examined.to_string()),
        ("nreturned", q.returned.to_string()),
        (
            "queryHash",
            text(&format!(
                "{:08X}",
                hash(&[host.index as u64, q.pattern as u64]) as u32
            )),
        ),
        ("numYields", (q.docs_examined / 128).to_string()),
        ("reslen", (200 + q.returned * 90).to_string()),
        ("protocol", text("op_msg")),
        ("durationMillis", q.duration_ms.to_string()),
    ]);
    object(&[
        (
            "t",
            object(&[(
                "$date",
                text(&q.at.format("%Y-%m-%dT%H:%M:%S%.3f+00:00").to_string()),
            )]),
        ),
        ("s", text("I")),
        ("c", text("COMMAND")),
        ("id", "51803".to_string()),
        ("ctx", text(&format!("conn{}", q.connection))),
        ("msg", text("Slow query")),
        ("attr", attr),
    ])
}

/// The keys of the index that would serve `p`: its filter's fields, ascending, in order.
pub fn index_keys(p: &Pattern) -> Vec<(&'static str, i32)> {
    p.filter.iter().map(|f| (*f, 1)).collect()
}
