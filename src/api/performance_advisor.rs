//! The Performance Advisor of a host (Ops Manager and Cloud Manager:
//! `/groups/{g}/hosts/{h}/performanceAdvisor`; Atlas: `/groups/{g}/processes/{hostname:port}/
//! performanceAdvisor`): the namespaces of its slow queries, their log lines, and the indexes
//! that would serve them, over a window ([`AdvisorQuery`]).

use chrono::{DateTime, Utc};

use crate::client::Client;
use crate::error::{Error, Result};
use crate::flavour::Operation;
use crate::iso8601::IsoDuration;
use crate::models::{Namespace, SlowQueryLogs, SuggestedIndexes};
use crate::request::Request;

/// `client.performance_advisor()`
#[derive(Debug, Clone, Copy)]
pub struct PerformanceAdvisor<'c> {
    pub(crate) client: &'c Client,
}

/// The window and filters of the Performance Advisor's requests, as each flavour documents
/// them: `since` (sent as milliseconds since the epoch) and `duration` (milliseconds) make the
/// window (neither: the last 24 hours; `since` alone: from it to now; `duration` alone: that
/// long before now); `namespaces` (`<database>.<collection>`, repeated), `n_logs` (slow query
/// logs, at most 20 000), `n_indexes` and `n_examples` (suggested indexes). Checked before any
/// request, for the operation it is sent with: a filter the operation does not take is an
/// argument error naming it.
///
/// ```
/// use opsapi::api::performance_advisor::AdvisorQuery;
/// use opsapi::{IsoDuration, Operation};
/// let since = opsapi::query::parse_timestamp("since", "2026-03-01T00:00:00Z").unwrap();
/// let q = AdvisorQuery::new()
///     .since(since)
///     .duration("PT2H".parse::<IsoDuration>().unwrap())
///     .namespace("orders.users")
///     .n_logs(100);
/// assert_eq!(q.to_pairs(Operation::PerformanceAdvisorSlowQueryLogs).unwrap(), vec![
///     ("since", "1772323200000".to_string()),
///     ("duration", "7200000".to_string()),
///     ("namespaces", "orders.users".to_string()),
///     ("nLogs", "100".to_string()),
/// ]);
/// let e = q.to_pairs(Operation::PerformanceAdvisorNamespaces).unwrap_err();
/// assert_eq!(e.to_string(), "invalid argument `namespaces`: performance_advisor.namespaces does not take it");
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct AdvisorQuery {
    /// `since`: the window's start.
    pub since: Option<DateTime<Utc>>,
    /// `duration`: the window's length (a fixed length: no months or years).
    pub duration: Option<IsoDuration>,
    /// `namespaces`: of these namespaces only (`<database>.<collection>`).
    pub namespaces: Vec<String>,
    /// `nLogs`: at most this many log lines (the service's default and maximum: 20 000).
    pub n_logs: Option<u64>,
    /// `nIndexes`: at most this many suggested indexes.
    pub n_indexes: Option<u64>,
    /// `nExamples`: at most this many example queries of each shape (the service's default: 5).
    pub n_examples: Option<u64>,
}

/// The most log lines one request may ask for (both flavours' documented default; Atlas's
/// specification's `maximum`).
pub const MAX_LOGS: u64 = 20_000;

/// The earliest `since` (Atlas's specification's `minimum`: 2008-01-01, in milliseconds).
const EARLIEST_SINCE_MS: i64 = 1_199_145_600_000;

impl AdvisorQuery {
    /// The last 24 hours, every namespace.
    pub fn new() -> Self {
        Self::default()
    }

    /// From `t`.
    pub fn since(mut self, t: DateTime<Utc>) -> Self {
        self.since = Some(t);
        self
    }

    /// For `d` (from `since`, or before now).
    pub fn duration(mut self, d: IsoDuration) -> Self {
        self.duration = Some(d);
        self
    }

    /// Of this namespace too.
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespaces.push(namespace.into());
        self
    }

    /// At most `n` log lines.
    pub fn n_logs(mut self, n: u64) -> Self {
        self.n_logs = Some(n);
        self
    }

    /// At most `n` suggested indexes.
    pub fn n_indexes(mut self, n: u64) -> Self {
        self.n_indexes = Some(n);
        self
    }

    /// At most `n` example queries per shape.
    pub fn n_examples(mut self, n: u64) -> Self {
        self.n_examples = Some(n);
        self
    }

    /// The query parameters of `operation`, in the server's words, once every filter is
    /// checked.
    pub fn to_pairs(&self, operation: Operation) -> Result<Vec<(&'static str, String)>> {
        let takes = operation.row().query;
        let given: [(&str, &'static str, bool); 4] = [
            ("namespaces", "namespaces", !self.namespaces.is_empty()),
            ("n_logs", "nLogs", self.n_logs.is_some()),
            ("n_indexes", "nIndexes", self.n_indexes.is_some()),
            ("n_examples", "nExamples", self.n_examples.is_some()),
        ];
        if let Some((argument, ..)) = given.iter().find(|(_, w, set)| *set && !takes.contains(w)) {
            return Err(Error::invalid_argument(
                *argument,
                format!("{} does not take it", operation.name()),
            ));
        }
        let mut out = Vec::new();
        if let Some(t) = self.since {
            let ms = t.timestamp_millis();
            if ms < EARLIEST_SINCE_MS {
                return Err(Error::invalid_argument(
                    "since",
                    "must be 2008-01-01 or later (the Performance Advisor has nothing older)",
                ));
            }
            out.push(("since", ms.to_string()));
        }
        if let Some(d) = &self.duration {
            out.push(("duration", duration_ms(d)?.to_string()));
        }
        for (i, ns) in self.namespaces.iter().enumerate() {
            let whole = ns.split_once('.').is_some_and(|(db, coll)| {
                !db.is_empty() && !coll.is_empty() && !ns.chars().any(char::is_whitespace)
            });
            if !whole {
                return Err(Error::invalid_argument(
                    format!("namespaces[{i}]"),
                    format!("`{ns}` is not a namespace (<database>.<collection>)"),
                ));
            }
            out.push(("namespaces", ns.clone()));
        }
        if let Some(n) = self.n_logs {
            if n > MAX_LOGS {
                return Err(Error::invalid_argument(
                    "n_logs",
                    format!("must be at most {MAX_LOGS}"),
                ));
            }
            out.push(("nLogs", n.to_string()));
        }
        if let Some(n) = self.n_indexes {
            out.push(("nIndexes", n.to_string()));
        }
        if let Some(n) = self.n_examples {
            out.push(("nExamples", n.to_string()));
        }
        Ok(out)
    }
}

/// A duration in whole milliseconds, more than none: months and years have no fixed length.
fn duration_ms(d: &IsoDuration) -> Result<u64> {
    let secs = d.fixed_seconds().ok_or_else(|| {
        Error::invalid_argument(
            "duration",
            format!("`{d}` has no fixed length: months and years depend on the calendar"),
        )
    })?;
    let ms = (secs * 1000.0).round();
    if ms < 1.0 || ms > i64::MAX as f64 {
        return Err(Error::invalid_argument(
            "duration",
            format!("`{d}` must be from 1 ms to about 292 million years"),
        ));
    }
    Ok(ms as u64)
}

/// The request of `operation` for a host, with the query.
fn request(
    operation: Operation,
    group_id: &str,
    host_id: &str,
    query: &AdvisorQuery,
) -> Result<Request> {
    let pairs = query.to_pairs(operation)?;
    Ok(operation.request(&[group_id, host_id])?.query(pairs))
}

/// `GET /groups/{group_id}/hosts/{host_id}/performanceAdvisor/namespaces` with the window.
///
/// ```
/// use opsapi::api::performance_advisor::{namespaces_request, AdvisorQuery};
/// let req = namespaces_request("g1", "db-0:27017", &AdvisorQuery::new()).unwrap();
/// assert_eq!(req.path, "/groups/g1/hosts/db-0%3A27017/performanceAdvisor/namespaces");
/// ```
pub fn namespaces_request(group_id: &str, host_id: &str, query: &AdvisorQuery) -> Result<Request> {
    request(
        Operation::PerformanceAdvisorNamespaces,
        group_id,
        host_id,
        query,
    )
}

/// `GET /groups/{group_id}/hosts/{host_id}/performanceAdvisor/slowQueryLogs` with the query.
///
/// ```
/// use opsapi::api::performance_advisor::{slow_query_logs_request, AdvisorQuery};
/// let req = slow_query_logs_request("g1", "h1", &AdvisorQuery::new().n_logs(10)).unwrap();
/// assert_eq!(req.path, "/groups/g1/hosts/h1/performanceAdvisor/slowQueryLogs");
/// assert_eq!(req.query, vec![("nLogs", "10".to_string())]);
/// ```
pub fn slow_query_logs_request(
    group_id: &str,
    host_id: &str,
    query: &AdvisorQuery,
) -> Result<Request> {
    request(
        Operation::PerformanceAdvisorSlowQueryLogs,
        group_id,
        host_id,
        query,
    )
}

/// `GET /groups/{group_id}/hosts/{host_id}/performanceAdvisor/suggestedIndexes` with the
/// query.
///
/// ```
/// use opsapi::api::performance_advisor::{suggested_indexes_request, AdvisorQuery};
/// let req = suggested_indexes_request("g1", "h1", &AdvisorQuery::new().n_examples(2)).unwrap();
/// assert_eq!(req.path, "/groups/g1/hosts/h1/performanceAdvisor/suggestedIndexes");
/// assert_eq!(req.query, vec![("nExamples", "2".to_string())]);
/// ```
pub fn suggested_indexes_request(
    group_id: &str,
    host_id: &str,
    query: &AdvisorQuery,
) -> Result<Request> {
    request(
        Operation::PerformanceAdvisorSuggestedIndexes,
        group_id,
        host_id,
        query,
    )
}

impl PerformanceAdvisor<'_> {
    /// The namespaces of a host's slow queries in the window (at most 20, the service's
    /// limit; a secondary that served no read has none).
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::api::performance_advisor::AdvisorQuery;
    /// for ns in client.performance_advisor().namespaces("5e9f...", "a1b2...", &AdvisorQuery::new()).await? {
    ///     println!("{:?}", ns.namespace);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn namespaces(
        &self,
        group_id: &str,
        host_id: &str,
        query: &AdvisorQuery,
    ) -> Result<Vec<Namespace>> {
        let req = namespaces_request(group_id, host_id, query)?;
        let list: crate::models::Namespaces = self.client.send_decoded(req).await?;
        Ok(list.namespaces.unwrap_or_default())
    }

    /// The log lines of a host's slow queries in the window (newest first, as the service
    /// lists them); [`SlowQueryLogs::rows`] reads each line.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::api::performance_advisor::AdvisorQuery;
    /// let logs = client.performance_advisor()
    ///     .slow_query_logs("5e9f...", "a1b2...", &AdvisorQuery::new().namespace("orders.users"))
    ///     .await?;
    /// for row in logs.rows() { println!("{:?} {:?}ms", row.shape, row.duration_ms); }
    /// # Ok(()) }
    /// ```
    pub async fn slow_query_logs(
        &self,
        group_id: &str,
        host_id: &str,
        query: &AdvisorQuery,
    ) -> Result<SlowQueryLogs> {
        let req = slow_query_logs_request(group_id, host_id, query)?;
        self.client.send_decoded(req).await
    }

    /// The indexes the Performance Advisor suggests for a host's slow queries in the window,
    /// and the query shapes each would serve.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::api::performance_advisor::AdvisorQuery;
    /// let s = client.performance_advisor().suggested_indexes("5e9f...", "a1b2...", &AdvisorQuery::new()).await?;
    /// for index in s.indexes.unwrap_or_default() { println!("{:?} {:?}", index.namespace, index.index); }
    /// # Ok(()) }
    /// ```
    pub async fn suggested_indexes(
        &self,
        group_id: &str,
        host_id: &str,
        query: &AdvisorQuery,
    ) -> Result<SuggestedIndexes> {
        let req = suggested_indexes_request(group_id, host_id, query)?;
        self.client.send_decoded(req).await
    }
}
