//! Slow query lines summarised by namespace and query shape: what an alert's context shows
//! (`.slow_queries`) and what names a capacity finding's driver (`SlowQueryLogs::summary` in
//! Python): count, total and median duration, documents examined and returned, the commonest
//! plan, and the suggested index that would serve each shape.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{IndexSuggestion, SlowQueryRow, SlowQueryShape};

/// The top-level fields of a shape's filter (`find {"status":"?","sku":"?"} sort ..` gives
/// `status` and `sku`).
fn shape_fields(shape: &str) -> Vec<String> {
    let filter = shape
        .split_once(' ')
        .map(|(_, rest)| rest.split(" sort ").next().unwrap_or(rest))
        .unwrap_or("");
    match serde_json::from_str::<Value>(filter) {
        Ok(Value::Object(m)) => m.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

/// The middle of sorted durations (the mean of the two middle ones for an even count).
fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// Slow query lines summarised by namespace and shape, the most time first (at most `top`);
/// each shape given the suggested index that serves its filter's fields, if one does (same
/// namespace, the index's first field in its filter).
///
/// ```
/// use opsapi::models::slow_shapes::summarise;
/// let logs: opsapi::SlowQueryLogs = opsapi::decode_model(br#"{"slowQueries":[
///   {"namespace":"shop.orders","line":"{\"t\":{\"$date\":\"2026-03-01T10:00:00Z\"},\"attr\":{\"ns\":\"shop.orders\",\"command\":{\"find\":\"orders\",\"filter\":{\"status\":\"A\"}},\"durationMillis\":300}}"},
///   {"namespace":"shop.users","line":"{\"t\":{\"$date\":\"2026-03-01T10:01:00Z\"},\"attr\":{\"ns\":\"shop.users\",\"command\":{\"find\":\"users\",\"filter\":{\"email\":\"x\"}},\"durationMillis\":100}}"}
/// ]}"#).unwrap();
/// let shapes = summarise(&logs.rows(), &[], 10);
/// assert_eq!((shapes[0].namespace.as_str(), shapes[0].total_ms), ("shop.orders", 300.0));
/// ```
pub fn summarise(
    rows: &[SlowQueryRow],
    indexes: &[IndexSuggestion],
    top: usize,
) -> Vec<SlowQueryShape> {
    struct Acc<'a> {
        durations: Vec<f64>,
        examined: u64,
        returned: u64,
        plans: BTreeMap<&'a str, usize>,
    }
    let mut by: BTreeMap<(&str, &str), Acc<'_>> = BTreeMap::new();
    for r in rows {
        let (Some(ns), Some(shape)) = (r.namespace.as_deref(), r.shape.as_deref()) else {
            continue;
        };
        let acc = by.entry((ns, shape)).or_insert_with(|| Acc {
            durations: Vec::new(),
            examined: 0,
            returned: 0,
            plans: BTreeMap::new(),
        });
        acc.durations.push(r.duration_ms.unwrap_or(0) as f64);
        acc.examined += r.docs_examined.unwrap_or(0).max(0) as u64;
        acc.returned += r.docs_returned.unwrap_or(0).max(0) as u64;
        if let Some(p) = r.plan_summary.as_deref() {
            *acc.plans.entry(p).or_default() += 1;
        }
    }
    let mut out: Vec<SlowQueryShape> = by
        .into_iter()
        .map(|((ns, shape), mut acc)| {
            acc.durations.sort_by(f64::total_cmp);
            let fields = shape_fields(shape);
            // The index whose every field the filter names, the most fields first; else
            // one whose first field it names.
            let of_ns = || indexes.iter().filter(|i| i.namespace == ns);
            let names = |f: &String| fields.contains(f);
            let index = of_ns()
                .filter(|i| !i.fields.is_empty() && i.fields.iter().all(names))
                .max_by_key(|i| i.fields.len())
                .or_else(|| of_ns().find(|i| i.fields.first().is_some_and(names)))
                .map(|i| i.index.clone());
            SlowQueryShape {
                namespace: ns.to_string(),
                shape: shape.to_string(),
                count: acc.durations.len() as u64,
                total_ms: acc.durations.iter().sum(),
                median_ms: median(&acc.durations),
                docs_examined: acc.examined,
                docs_returned: acc.returned,
                plan_summary: acc
                    .plans
                    .iter()
                    .max_by_key(|(p, n)| (**n, std::cmp::Reverse(**p)))
                    .map(|(p, _)| p.to_string()),
                index,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.total_ms
            .total_cmp(&a.total_ms)
            .then_with(|| (&a.namespace, &a.shape).cmp(&(&b.namespace, &b.shape)))
    });
    out.truncate(top);
    out
}
