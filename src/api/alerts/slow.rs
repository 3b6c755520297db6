//! The slow queries of an alert's window, summarised by namespace and query shape, and the
//! indexes the Performance Advisor suggests for them with the shapes they serve: what the
//! context's `.slow_queries` and `.suggested_indexes` frames hold, and what its reading names.

use futures_util::StreamExt;
use serde_json::Value;

use super::alert_context::AlertContext;
use super::missing::part;
use crate::api::performance_advisor::AdvisorQuery;
use crate::iso8601::IsoDuration;
use crate::models::performance_advisor::mask;
use crate::models::slow_shapes::summarise;
use crate::models::{QueryShape, SuggestedIndexes};

/// At most this many shapes are kept in a context: the ones that took the most time.
pub const TOP_SHAPES: usize = 20;

pub use crate::models::{IndexSuggestion, SlowQueryShape};

/// The slow-query parts of a context: its shapes, the suggested indexes, and why either is
/// missing.
#[derive(Debug, Default)]
pub(crate) struct SlowParts {
    pub(crate) shapes: Vec<SlowQueryShape>,
    pub(crate) indexes: Vec<IndexSuggestion>,
    pub(crate) missing: Vec<(String, String)>,
}

/// At most this many hosts' Performance Advisors are asked (a replica set's members).
const MAX_HOSTS: usize = 7;

/// An index's keys as people write them: `{status: 1, createdAt: -1}`.
fn index_text(keys: &[Value]) -> String {
    let parts: Vec<String> = keys
        .iter()
        .filter_map(Value::as_object)
        .flat_map(|m| m.iter().map(|(k, v)| format!("{k}: {v}")))
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// The fields an index's keys name, in order.
fn index_fields(keys: &[Value]) -> Vec<&str> {
    keys.iter()
        .filter_map(Value::as_object)
        .flat_map(|m| m.keys().map(String::as_str))
        .collect()
}

/// A shape the Performance Advisor describes by an example's predicate (`{"find": {..}}`),
/// masked as the slow query log's shapes are (`find {"status":"?"}`).
fn predicate_shape(op: &Value) -> Option<String> {
    let predicate = op.get("predicates")?.as_array()?.first()?.as_object()?;
    let (command, filter) = predicate.iter().next()?;
    Some(format!("{command} {}", mask(filter)))
}

/// The suggested indexes of one host's answer, with the shapes each serves.
pub(crate) fn suggestions(host: &str, answer: &SuggestedIndexes) -> Vec<IndexSuggestion> {
    let shapes = answer.shapes.as_deref().unwrap_or_default();
    answer
        .indexes
        .iter()
        .flatten()
        .map(|i| {
            let keys = i.index.as_deref().unwrap_or_default();
            let served: Vec<&QueryShape> = shapes
                .iter()
                .filter(|s| {
                    i.impact
                        .iter()
                        .flatten()
                        .any(|id| s.id.as_deref() == Some(id))
                })
                .collect();
            let count: i64 = served.iter().filter_map(|s| s.count).sum();
            let weighted: i64 = served
                .iter()
                .filter_map(|s| Some(s.count? * s.avg_ms?))
                .sum();
            let mut described: Vec<String> = served
                .iter()
                .filter_map(|s| s.operations.as_deref()?.first().and_then(predicate_shape))
                .collect();
            described.dedup();
            IndexSuggestion {
                host: host.to_string(),
                namespace: i.namespace.clone().unwrap_or_default(),
                index: index_text(keys),
                fields: index_fields(keys).into_iter().map(str::to_string).collect(),
                shapes: described,
                count: count.max(0) as u64,
                avg_ms: (count > 0).then(|| weighted as f64 / count as f64),
                weight: i.weight,
            }
        })
        .collect()
}

impl super::Alerts<'_> {
    /// The window's slow queries on the context's host (or, for an alert without one, on
    /// the hosts it concerns: a replica set's members) and the indexes suggested for them,
    /// each host's two answers asked at once with `since` and `duration` at the window. A
    /// part the flavour or the key's permission does not offer is missing, with why.
    pub(crate) async fn slow_queries_of(
        &self,
        g: &str,
        ctx: &AlertContext,
    ) -> crate::Result<SlowParts> {
        let mut out = SlowParts::default();
        // Owned: a future borrowing its item cannot be sent to another task (Python).
        let hosts: Vec<String> = match ctx.host() {
            Some(h) => h.id.iter().cloned().collect(),
            None => ctx.hosts.iter().filter_map(|h| h.id.clone()).collect(),
        };
        if hosts.is_empty() {
            for part in ["slow_queries", "suggested_indexes"] {
                out.missing
                    .push((part.into(), "the alert names no host to ask".into()));
            }
            return Ok(out);
        }
        let seconds = (ctx.end - ctx.start).num_seconds().max(1) as u64;
        let q = AdvisorQuery::new()
            .since(ctx.start)
            .duration(IsoDuration::from_seconds(seconds));
        let advisor = self.client.performance_advisor();
        let (q, advisor) = (&q, &advisor);
        let asked: Vec<_> = futures_util::stream::iter(hosts.into_iter().take(MAX_HOSTS))
            .map(|h| async move {
                let (logs, indexes) = tokio::join!(
                    advisor.slow_query_logs(g, &h, q),
                    advisor.suggested_indexes(g, &h, q)
                );
                (h, logs, indexes)
            })
            .buffered(4)
            .collect()
            .await;
        let (mut rows, mut logs_missing, mut indexes_missing) = (Vec::new(), None, None);
        for (h, logs, indexes) in asked {
            match part(logs, "the Performance Advisor's slow query logs")? {
                Ok(l) => rows.extend(l.rows()),
                Err(why) => logs_missing = Some(why),
            }
            match part(indexes, "the Performance Advisor's suggested indexes")? {
                Ok(s) => out.indexes.extend(suggestions(&h, &s)),
                Err(why) => indexes_missing = Some(why),
            }
        }
        out.shapes = summarise(&rows, &out.indexes, TOP_SHAPES);
        out.missing
            .extend(logs_missing.map(|w| ("slow_queries".into(), w)));
        out.missing
            .extend(indexes_missing.map(|w| ("suggested_indexes".into(), w)));
        Ok(out)
    }
}
