//! `client.performance_advisor`: a host's slow queries and the indexes that would serve them.

use super::{handle_pair, twins};
use crate::api::performance_advisor::AdvisorQuery;
use crate::python::models::{Namespace, SlowQueryLogs, SuggestedIndexes};

handle_pair!(
    /// The Performance Advisor of hosts (Ops Manager and Cloud Manager:
    /// `/groups/{group_id}/hosts/{host_id}/performanceAdvisor`; Atlas:
    /// `/groups/{group_id}/processes/{hostname:port}/performanceAdvisor`). Each call takes a
    /// window: `since` (a datetime, sent as epoch milliseconds) and `duration` (a timedelta or
    /// ISO 8601, sent in milliseconds); neither: the last 24 hours.
    PerformanceAdvisor,
    AsyncPerformanceAdvisor
);

/// The query of the arguments given.
fn query(
    since: Option<chrono::DateTime<chrono::Utc>>,
    duration: Option<crate::IsoDuration>,
) -> AdvisorQuery {
    let mut q = AdvisorQuery::new();
    q.since = since;
    q.duration = duration;
    q
}

twins! {
    /// The namespaces of a host's slow queries in the window (at most 20).
    ///
    PerformanceAdvisor
    /// >>> [n.namespace for n in client.performance_advisor.namespaces(group_id, host_id)]  # doctest: +SKIP
    AsyncPerformanceAdvisor
    /// >>> names = await client.performance_advisor.namespaces(group_id, host_id)  # doctest: +SKIP
    fn namespaces(group_id: Text, host_id: Text; since: Timestamp, duration: Duration)
        -> "list[Namespace]"
    {
        |c| {
            let q = query(since, duration);
            let list = c.performance_advisor().namespaces(&group_id, &host_id, &q).await?;
            Ok(list.into_iter().map(Namespace::from).collect::<Vec<_>>())
        }
    }
}

twins! {
    /// The log lines of a host's slow queries in the window, newest first, of the
    /// `namespaces` given (all: none given), at most `n_logs` (20 000).
    ///
    PerformanceAdvisor
    /// >>> client.performance_advisor.slow_query_logs(group_id, host_id).to_polars()  # doctest: +SKIP
    AsyncPerformanceAdvisor
    /// >>> logs = await client.performance_advisor.slow_query_logs(group_id, host_id)  # doctest: +SKIP
    fn slow_query_logs(
        group_id: Text,
        host_id: Text;
        since: Timestamp,
        duration: Duration,
        namespaces: Texts,
        n_logs: Count,
    ) -> "SlowQueryLogs" {
        |c| {
            let mut q = query(since, duration);
            q.namespaces = namespaces.unwrap_or_default();
            q.n_logs = n_logs;
            let advisor = c.performance_advisor();
            Ok(SlowQueryLogs::from(advisor.slow_query_logs(&group_id, &host_id, &q).await?))
        }
    }
}

twins! {
    /// The indexes suggested for a host's slow queries in the window (`.indexes`) and the
    /// query shapes they serve (`.shapes`), of the `namespaces` given, at most `n_indexes`,
    /// each shape with at most `n_examples` example queries (5).
    ///
    PerformanceAdvisor
    /// >>> client.performance_advisor.suggested_indexes(group_id, host_id).indexes  # doctest: +SKIP
    AsyncPerformanceAdvisor
    /// >>> s = await client.performance_advisor.suggested_indexes(group_id, host_id)  # doctest: +SKIP
    fn suggested_indexes(
        group_id: Text,
        host_id: Text;
        since: Timestamp,
        duration: Duration,
        namespaces: Texts,
        n_indexes: Count,
        n_examples: Count,
    ) -> "SuggestedIndexes" {
        |c| {
            let mut q = query(since, duration);
            q.namespaces = namespaces.unwrap_or_default();
            q.n_indexes = n_indexes;
            q.n_examples = n_examples;
            let advisor = c.performance_advisor();
            Ok(SuggestedIndexes::from(advisor.suggested_indexes(&group_id, &host_id, &q).await?))
        }
    }
}
