//! The Performance Advisor of a host, over the world's workload (`world/workload.rs`), in each
//! flavour's shape (Ops Manager's documentation; Atlas's specification: `Namespaces`,
//! `PerformanceAdvisorSlowQueryList`, `PerformanceAdvisorResponse`):
//!
//! - the window: `since` (milliseconds since the epoch, not before 2008) and `duration`
//!   (milliseconds, more than 0); neither: the last 24 hours; `since` alone: to now;
//!   `duration` alone: that long before now (by the simulator's clock); else 400
//!   `INVALID_QUERY_PARAMETER`;
//! - namespaces: those of the window's slow queries, by name, at most 20 (`type`:
//!   `COLLECTION` on Ops Manager, `collection` on Atlas);
//! - slow query logs: the window's, newest first, of the `namespaces` asked (repeated), at
//!   most `nLogs` (0 to 20 000, the default);
//! - suggested indexes: for each pattern that scans its collection, its filter's fields as an
//!   index and its shape (count, mean duration, documents read per document returned, at
//!   most `nExamples` example operations, 5 by default: Ops Manager's with their log line
//!   `raw`, Atlas's without), the index serving the most milliseconds first, at most
//!   `nIndexes`; Atlas's indexes say their `weight` (their share of those milliseconds) and
//!   the collection's `avgObjSize`.

use super::*;
use crate::sim::world::workload::{index_keys, log_line, patterns, slow_queries, Pattern};

/// The operations this file's handlers serve (`super::HANDLERS`).
pub(super) const SERVES: &[Serve] = &[
    (Operation::PerformanceAdvisorNamespaces, |c, p, _| {
        c.advisor_namespaces(p.group(), p.get("host_id"))
    }),
    (Operation::PerformanceAdvisorSlowQueryLogs, |c, p, _| {
        c.slow_query_logs(p.group(), p.get("host_id"))
    }),
    (Operation::PerformanceAdvisorSuggestedIndexes, |c, p, _| {
        c.suggested_indexes(p.group(), p.get("host_id"))
    }),
];

/// Atlas's specification's earliest `since`: 2008-01-01 in milliseconds.
const EARLIEST_SINCE_MS: i64 = 1_199_145_600_000;

/// The slow queries of one request: the host, its workload and the window's runs (oldest
/// first) of the namespaces asked.
struct Asked {
    host: Host,
    patterns: Vec<Pattern>,
    runs: Vec<crate::sim::world::workload::SlowQuery>,
}

impl Ctx<'_> {
    /// A query parameter that is a whole number from `min` to `max`, if given.
    fn integer(&self, name: &str, min: i64, max: i64) -> Result<Option<i64>, Reply> {
        match self.query(name) {
            None => Ok(None),
            Some(v) => match v.trim().parse::<i64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(Some(n)),
                _ => Err(invalid_query(name, v)),
            },
        }
    }

    /// The host's runs in the request's window, of the namespaces it asks for.
    fn asked(&self, g: &str, h: &str) -> Result<Asked, Reply> {
        let host = self.find_host(g, h)?;
        let now = self.shared.clock.now();
        let since = self.integer("since", EARLIEST_SINCE_MS, i64::MAX)?;
        let duration = self.integer("duration", 1, i64::MAX)?;
        let ms = |n: i64| chrono::Duration::milliseconds(n);
        let (from, to) = match (since, duration) {
            (None, None) => (now - chrono::Duration::hours(24), now),
            (None, Some(d)) => (now - ms(d), now),
            (Some(s), d) => {
                let from = DateTime::from_timestamp_millis(s).unwrap_or(now);
                let to = d.map_or(now, |d| (from + ms(d)).min(now));
                (from, to)
            }
        };
        let seed = self.shared.config.seed;
        let patterns = patterns(seed, &host);
        let namespaces = if self.row.query.contains(&"namespaces") {
            self.query_all("namespaces")
        } else {
            Vec::new()
        };
        let runs = slow_queries(seed, &host, from, to)
            .into_iter()
            .filter(|q| {
                namespaces.is_empty()
                    || namespaces.contains(&patterns[q.pattern].namespace.as_str())
            })
            .collect();
        Ok(Asked {
            host,
            patterns,
            runs,
        })
    }

    /// `GET .../performanceAdvisor/namespaces`.
    pub(crate) fn advisor_namespaces(&self, g: &str, h: &str) -> Reply {
        let asked = match self.asked(g, h) {
            Ok(a) => a,
            Err(e) => return e,
        };
        let mut names: Vec<&str> = asked
            .runs
            .iter()
            .map(|q| asked.patterns[q.pattern].namespace.as_str())
            .collect();
        names.sort_unstable();
        names.dedup();
        let kind = if self.atlas() {
            "collection"
        } else {
            "COLLECTION"
        };
        let items: Vec<Value> = names
            .into_iter()
            .take(20)
            .map(|n| json!({"namespace": n, "type": kind}))
            .collect();
        self.r.entity(200, json!({ "namespaces": items }))
    }

    /// `GET .../performanceAdvisor/slowQueryLogs`.
    pub(crate) fn slow_query_logs(&self, g: &str, h: &str) -> Reply {
        let asked = match self.asked(g, h) {
            Ok(a) => a,
            Err(e) => return e,
        };
        let n = match self.integer("nLogs", 0, 20_000) {
            Ok(n) => n.unwrap_or(20_000) as usize,
            Err(e) => return e,
        };
        let items: Vec<Value> = asked
            .runs
            .iter()
            .rev()
            .take(n)
            .map(|q| {
                let p = &asked.patterns[q.pattern];
                json!({"line": log_line(&asked.host, p, q), "namespace": p.namespace})
            })
            .collect();
        self.r.entity(200, json!({ "slowQueries": items }))
    }

    /// `GET .../performanceAdvisor/suggestedIndexes`.
    pub(crate) fn suggested_indexes(&self, g: &str, h: &str) -> Reply {
        let asked = match self.asked(g, h) {
            Ok(a) => a,
            Err(e) => return e,
        };
        let (n_indexes, n_examples) = match (
            self.integer("nIndexes", 0, i64::MAX),
            self.integer("nExamples", 0, i64::MAX),
        ) {
            (Ok(i), Ok(e)) => (
                i.map_or(usize::MAX, |i| i as usize),
                e.unwrap_or(5) as usize,
            ),
            (Err(e), _) | (_, Err(e)) => return e,
        };
        // Each scanning pattern's runs, the most milliseconds first.
        let mut scans: Vec<(usize, Vec<&crate::sim::world::workload::SlowQuery>)> = Vec::new();
        for (i, p) in asked.patterns.iter().enumerate() {
            let runs: Vec<_> = asked.runs.iter().filter(|q| q.pattern == i).collect();
            if !p.indexed && !runs.is_empty() {
                scans.push((i, runs));
            }
        }
        let total_ms = |runs: &[&crate::sim::world::workload::SlowQuery]| -> u64 {
            runs.iter().map(|q| q.duration_ms).sum()
        };
        scans.sort_by_key(|(i, runs)| (std::cmp::Reverse(total_ms(runs)), *i));
        scans.truncate(n_indexes);
        let all_ms: u64 = scans
            .iter()
            .map(|(_, runs)| total_ms(runs))
            .sum::<u64>()
            .max(1);
        // 24 hex digits, as an ObjectId: the pattern's own, in this answer.
        let id = |i: usize, kind: u64| {
            let h = |n: u64| crate::sim::rng::hash(&[asked.host.index as u64, i as u64, kind, n]);
            format!("{:016x}{:08x}", h(0), h(1) as u32)
        };
        let mut shapes = Vec::new();
        let mut indexes = Vec::new();
        for (i, runs) in &scans {
            let p = &asked.patterns[*i];
            let count = runs.len() as u64;
            let read_per_returned: f64 = runs
                .iter()
                .map(|q| q.docs_examined as f64 / q.returned.max(1) as f64)
                .sum::<f64>()
                / count as f64;
            let operations: Vec<Value> = runs
                .iter()
                .rev()
                .take(n_examples)
                .map(|q| {
                    let line = log_line(&asked.host, p, q);
                    let command: Value = serde_json::from_str::<Value>(&line)
                        .ok()
                        .and_then(|v| v["attr"]["command"].as_object().cloned().map(Value::Object))
                        .unwrap_or_default();
                    let filter = ["filter", "query"]
                        .iter()
                        .find_map(|k| command.get(*k).cloned())
                        .or_else(|| command["pipeline"][0].get("$match").cloned())
                        .unwrap_or_default();
                    let mut predicate = Map::new();
                    predicate.insert(p.command.to_string(), filter);
                    let mut op = json!({
                        "predicates": [predicate],
                        "stats": {
                            "ms": q.duration_ms,
                            "nReturned": q.returned,
                            "nScanned": q.docs_examined,
                            "ts": q.at.timestamp_millis(),
                        },
                    });
                    if !self.atlas() {
                        op["raw"] = json!(line);
                    }
                    op
                })
                .collect();
            shapes.push(json!({
                "avgMs": total_ms(runs) / count,
                "count": count,
                "id": id(*i, 1),
                "inefficiencyScore": read_per_returned.round() as u64,
                "namespace": p.namespace,
                "operations": operations,
            }));
            let keys: Vec<Value> = index_keys(p)
                .into_iter()
                .map(|(field, order)| {
                    let mut key = Map::new();
                    key.insert(field.to_string(), json!(order));
                    Value::Object(key)
                })
                .collect();
            let mut index = json!({
                "id": id(*i, 2),
                "impact": [id(*i, 1)],
                "index": keys,
                "namespace": p.namespace,
            });
            if self.atlas() {
                index["weight"] = json!(total_ms(runs) as f64 / all_ms as f64);
                index["avgObjSize"] = json!(300.0 + (p.documents % 900) as f64);
            }
            indexes.push(index);
        }
        self.r
            .entity(200, json!({"shapes": shapes, "suggestedIndexes": indexes}))
    }
}
