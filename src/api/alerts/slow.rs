//! The slow queries of an alert's window, summarised by namespace and query shape, and the
//! indexes the Performance Advisor suggests for them with the shapes they serve: what the
//! context's `.slow_queries` and `.suggested_indexes` frames hold, and what its reading names.

use super::context::AlertContext;
use super::reading::number;

/// At most this many shapes are kept in a context: the ones that took the most time.
pub const TOP_SHAPES: usize = 20;

/// The slow queries of one namespace and query shape in a window.
///
/// ```
/// let s = opsapi::api::alerts::slow::SlowQueryShape {
///     namespace: "orders.items".into(), shape: r#"find {"status":"?"}"#.into(), count: 3,
///     total_ms: 900.0, median_ms: 300.0, docs_examined: 3_000_000, docs_returned: 30,
///     plan_summary: Some("COLLSCAN".into()), index: None,
/// };
/// assert_eq!(s.examined_per_returned(), Some(100_000.0));
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SlowQueryShape {
    /// `<database>.<collection>`.
    pub namespace: String,
    /// The command and its filter with every value masked (`find {"status":"?"}`), its sort
    /// after ` sort `.
    pub shape: String,
    /// How many of the window's slow queries have it.
    pub count: u64,
    /// Their total duration, in milliseconds.
    pub total_ms: f64,
    /// Their median duration, in milliseconds.
    pub median_ms: f64,
    /// Documents they examined.
    pub docs_examined: u64,
    /// Documents they returned.
    pub docs_returned: u64,
    /// Their commonest plan (`COLLSCAN`, `IXSCAN { status: 1 }`).
    pub plan_summary: Option<String>,
    /// The suggested index that would serve them (`{status: 1, createdAt: 1}`), if one is.
    pub index: Option<String>,
}

impl SlowQueryShape {
    /// Documents examined per document returned (`None` when none was returned and none
    /// examined; the examined count when none was returned).
    pub fn examined_per_returned(&self) -> Option<f64> {
        match (self.docs_examined, self.docs_returned) {
            (0, 0) => None,
            (e, 0) => Some(e as f64),
            (e, r) => Some(e as f64 / r as f64),
        }
    }
}

/// An index the Performance Advisor suggests for the window's namespaces, with the shapes it
/// serves.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct IndexSuggestion {
    /// The host whose queries it would serve (`hostname:port` on Atlas, the host id else).
    pub host: String,
    /// `<database>.<collection>`.
    pub namespace: String,
    /// Its keys, in order: `{status: 1, createdAt: 1}`.
    pub index: String,
    /// The shapes it serves, as the Performance Advisor describes them (its example
    /// queries' filters, masked), with their count and mean duration.
    pub shapes: Vec<String>,
    /// Queries of those shapes the Performance Advisor examined.
    pub count: u64,
    /// Their mean duration, in milliseconds, weighted by count.
    pub avg_ms: Option<f64>,
    /// Atlas's `weight`: its share of the improvement.
    pub weight: Option<f64>,
}

/// What the reading says of the slow queries: the namespace whose slow queries took the
/// most time in the window, how many, and the index missing for its top shape (`4 100 slow
/// queries on orders.items (no index on {status: 1, createdAt: 1})`); `None` without any.
pub(crate) fn said(ctx: &AlertContext) -> Option<String> {
    let mut by_ns: Vec<(&str, u64, f64)> = Vec::new();
    for s in &ctx.slow_queries {
        match by_ns.iter_mut().find(|(ns, _, _)| *ns == s.namespace) {
            Some(x) => {
                x.1 += s.count;
                x.2 += s.total_ms;
            }
            None => by_ns.push((&s.namespace, s.count, s.total_ms)),
        }
    }
    let (ns, count, _) = by_ns
        .into_iter()
        .max_by(|a, b| a.2.total_cmp(&b.2).then(b.0.cmp(a.0)))?;
    let top = ctx
        .slow_queries
        .iter()
        .filter(|s| s.namespace == ns)
        .max_by(|a, b| a.total_ms.total_cmp(&b.total_ms))?;
    let plural = if count == 1 { "query" } else { "queries" };
    let mut out = format!("{} slow {plural} on {ns}", number(count as f64));
    if let Some(index) = &top.index {
        out.push_str(&format!(" (no index on {index})"));
    } else if top.plan_summary.as_deref() == Some("COLLSCAN") {
        out.push_str(" (collection scans)");
    }
    Some(out)
}

/// The slow-query parts of a context: its shapes, the suggested indexes, and why either is
/// missing.
#[derive(Debug, Default)]
pub(crate) struct SlowParts {
    pub(crate) shapes: Vec<SlowQueryShape>,
    pub(crate) indexes: Vec<IndexSuggestion>,
    pub(crate) missing: Vec<(String, String)>,
}

impl super::Alerts<'_> {
    /// The window's slow queries on the alert's host and the indexes suggested for them.
    pub(crate) async fn slow_queries_of(
        &self,
        _g: &str,
        _ctx: &AlertContext,
    ) -> crate::Result<SlowParts> {
        let why = "not read yet: the Performance Advisor endpoints are not in this build";
        Ok(SlowParts {
            missing: vec![
                ("slow_queries".into(), why.into()),
                ("suggested_indexes".into(), why.into()),
            ],
            ..SlowParts::default()
        })
    }
}
