//! The frames of an alert's context: its events, its slow queries by namespace and shape, and
//! the indexes suggested for them (`AlertContext::events_frame`, ...), one row each.

use polars::prelude::*;

use super::lists::Cols;
use super::polars_err;
use crate::error::Result;
use crate::models::event_kinds::{host_named, kind_of, said, EventKind};
use crate::models::{Event, IndexSuggestion, SlowQueryShape};

/// The columns of `AlertContext::events_frame`.
pub const EVENT_COLUMNS: [&str; 9] = [
    "created",
    "event_type_name",
    "kind",
    "said",
    "host",
    "replica_set_name",
    "id",
    "host_id",
    "alert_id",
];

/// The columns of `AlertContext::slow_queries_frame`.
pub const SLOW_QUERY_COLUMNS: [&str; 10] = [
    "namespace",
    "shape",
    "count",
    "total_ms",
    "median_ms",
    "docs_examined",
    "docs_returned",
    "examined_per_returned",
    "plan_summary",
    "index",
];

/// The columns of `AlertContext::suggested_indexes_frame`.
pub const INDEX_COLUMNS: [&str; 7] = [
    "host",
    "namespace",
    "index",
    "shapes",
    "count",
    "avg_ms",
    "weight",
];

/// The frame of a context's events (`AlertContext::events_frame`).
pub fn events_frame(e: &[Event]) -> Result<DataFrame> {
    event_columns(e).finish()
}

/// The events as a timeline (`EventList.timeline()` in Python): the columns of
/// [`events_frame`], then `charted` (whether a capacity chart marks its kind) and
/// `cluster_name` (Atlas's cluster events, which `Events::charted` names).
///
/// ```
/// let e: opsapi::Event = opsapi::decode_model(br#"{"eventTypeName":"DISK_AUTO_SCALE_INITIATED","clusterName":"orders"}"#).unwrap();
/// let f = opsapi::frame::context::timeline_frame(&[e]).unwrap();
/// assert_eq!(f.column("kind").unwrap().str().unwrap().get(0), Some("scaling"));
/// assert_eq!(f.column("charted").unwrap().bool().unwrap().get(0), Some(true));
/// assert_eq!(f.column("cluster_name").unwrap().str().unwrap().get(0), Some("orders"));
/// ```
pub fn timeline_frame(e: &[Event]) -> Result<DataFrame> {
    let mut c = event_columns(e);
    c.bool(
        "charted",
        e.iter().map(|x| {
            Some(
                x.event_type_name
                    .as_deref()
                    .and_then(kind_of)
                    .is_some_and(EventKind::charted),
            )
        }),
    );
    c.str("cluster_name", e.iter().map(|x| x.cluster_name.as_deref()));
    c.finish()
}

fn event_columns(e: &[Event]) -> Cols {
    let mut c = Cols::new(e.len());
    c.time("created", e.iter().map(|x| x.created));
    c.str(
        "event_type_name",
        e.iter().map(|x| x.event_type_name.as_deref()),
    );
    c.str(
        "kind",
        e.iter().map(|x| {
            x.event_type_name
                .as_deref()
                .and_then(kind_of)
                .map(|k| k.as_str())
        }),
    );
    let said: Vec<String> = e.iter().map(said).collect();
    c.str("said", said.iter().map(|s| Some(s.as_str())));
    let hosts: Vec<Option<String>> = e.iter().map(host_named).collect();
    c.str("host", hosts.iter().map(|h| h.as_deref()));
    c.str(
        "replica_set_name",
        e.iter().map(|x| x.replica_set_name.as_deref()),
    );
    c.str("id", e.iter().map(|x| x.id.as_deref()));
    c.str("host_id", e.iter().map(|x| x.host_id.as_deref()));
    c.str("alert_id", e.iter().map(|x| x.alert_id.as_deref()));
    c
}

/// The frame of a context's slow queries (`AlertContext::slow_queries_frame`).
pub fn slow_queries_frame(s: &[SlowQueryShape]) -> Result<DataFrame> {
    let mut c = Cols::new(s.len());
    c.str("namespace", s.iter().map(|x| Some(x.namespace.as_str())));
    c.str("shape", s.iter().map(|x| Some(x.shape.as_str())));
    c.i64("count", s.iter().map(|x| Some(x.count as i64)));
    c.f64("total_ms", s.iter().map(|x| Some(x.total_ms)));
    c.f64("median_ms", s.iter().map(|x| Some(x.median_ms)));
    c.i64(
        "docs_examined",
        s.iter().map(|x| Some(x.docs_examined as i64)),
    );
    c.i64(
        "docs_returned",
        s.iter().map(|x| Some(x.docs_returned as i64)),
    );
    c.f64(
        "examined_per_returned",
        s.iter().map(SlowQueryShape::examined_per_returned),
    );
    c.str("plan_summary", s.iter().map(|x| x.plan_summary.as_deref()));
    c.str("index", s.iter().map(|x| x.index.as_deref()));
    c.finish()
}

/// A host's slow query logs summarised by namespace and query shape, the most time first
/// (`SlowQueryLogs.summary()` in Python): the columns of [`slow_queries_frame`] and `share`,
/// each shape's share of the logs' whole slow-query time (0 to 1; null when the logs took
/// none). Every shape, not only the top few.
///
/// ```
/// let logs: opsapi::SlowQueryLogs = opsapi::decode_model(br#"{"slowQueries":[
///   {"namespace":"shop.orders","line":"{\"t\":{\"$date\":\"2026-03-01T10:00:00Z\"},\"attr\":{\"ns\":\"shop.orders\",\"command\":{\"find\":\"orders\",\"filter\":{\"status\":\"A\"}},\"durationMillis\":300}}"},
///   {"namespace":"shop.users","line":"{\"t\":{\"$date\":\"2026-03-01T10:01:00Z\"},\"attr\":{\"ns\":\"shop.users\",\"command\":{\"find\":\"users\",\"filter\":{\"email\":\"x\"}},\"durationMillis\":100}}"}
/// ]}"#).unwrap();
/// let f = opsapi::frame::context::slow_summary_frame(&logs).unwrap();
/// assert_eq!(f.column("share").unwrap().f64().unwrap().get(0), Some(0.75));
/// ```
pub fn slow_summary_frame(logs: &crate::models::SlowQueryLogs) -> Result<DataFrame> {
    let rows = logs.rows();
    let shapes = crate::models::slow_shapes::summarise(&rows, &[], usize::MAX);
    let total: f64 = shapes.iter().map(|s| s.total_ms).sum();
    let mut frame = slow_queries_frame(&shapes)?;
    let share: Vec<Option<f64>> = shapes
        .iter()
        .map(|s| (total > 0.0).then(|| s.total_ms / total))
        .collect();
    frame
        .with_column(Column::new("share".into(), share))
        .map_err(polars_err)?;
    Ok(frame)
}

/// The frame of a context's suggested indexes (`AlertContext::suggested_indexes_frame`).
pub fn suggested_indexes_frame(s: &[IndexSuggestion]) -> Result<DataFrame> {
    let mut c = Cols::new(s.len());
    c.str("host", s.iter().map(|x| Some(x.host.as_str())));
    c.str("namespace", s.iter().map(|x| Some(x.namespace.as_str())));
    c.str("index", s.iter().map(|x| Some(x.index.as_str())));
    let mut frame = c.finish()?;
    let shapes: Vec<Series> = s
        .iter()
        .map(|x| Series::new("".into(), x.shapes.clone()))
        .collect();
    let mut list = ListChunked::from_iter(shapes.into_iter().map(Some));
    list.rename("shapes".into());
    let list = list
        .cast(&DataType::List(Box::new(DataType::String)))
        .map_err(polars_err)?;
    let mut rest = Cols::new(s.len());
    rest.i64("count", s.iter().map(|x| Some(x.count as i64)));
    rest.f64("avg_ms", s.iter().map(|x| x.avg_ms));
    rest.f64("weight", s.iter().map(|x| x.weight));
    let rest = rest.finish()?;
    frame.with_column(list.into_column()).map_err(polars_err)?;
    frame.hstack_mut(rest.columns()).map_err(polars_err)?;
    Ok(frame)
}
