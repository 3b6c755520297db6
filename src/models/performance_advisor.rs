//! The Performance Advisor's answers: the namespaces of a host's slow queries, their log lines
//! (and what each line says: [`SlowQueryLogs::rows`]), and the suggested indexes with the query
//! shapes they serve. Each model's fields are declared once, in its `<model>_fields!` list.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::{declare_model, declare_part};

/// The fields of [`Namespace`], declared once.
macro_rules! namespace_fields {
    ($then:ident $($args:tt)*) => {
        $then! {
            ($($args)*)
            /// A namespace of a host's slow queries (`{"namespace": "orders.users", "type":
            /// "COLLECTION"}`; Atlas says `collection`).
            Namespace {} {
                /// `namespace`: `<database>.<collection>`.
                namespace: Option<String>,
                /// `type`
                r#type: Option<String>,
            }
        }
    };
}
#[cfg_attr(not(feature = "python"), allow(unused_imports))]
pub(crate) use namespace_fields;
namespace_fields!(declare_part);

declare_model! {
    ()
    /// `GET .../performanceAdvisor/namespaces`: the namespaces (the handle returns them).
    Namespaces { raw: raw } {
        /// `namespaces`
        namespaces: Option<Vec<Namespace>>,
    }
}

/// The fields of [`SlowQuery`], declared once.
macro_rules! slow_query_fields {
    ($then:ident $($args:tt)*) => {
        $then! {
            ($($args)*)
            /// A slow query's log line, as the Performance Advisor lists it.
            SlowQuery {} {
                /// `line`: the log line (MongoDB's structured JSON since 4.4, text before).
                line: Option<String>,
                /// `namespace`
                namespace: Option<String>,
                /// `opType` (Atlas, when asked for).
                #[serde(rename = "opType")]
                op_type: Option<String>,
                /// `replicaState` (Atlas, when asked for).
                #[serde(rename = "replicaState")]
                replica_state: Option<String>,
                /// `metrics` (Atlas, when asked for): as sent.
                metrics: Option<serde_json::Value>,
            }
        }
    };
}
#[cfg_attr(not(feature = "python"), allow(unused_imports))]
pub(crate) use slow_query_fields;
slow_query_fields!(declare_part);

/// The fields of [`SlowQueryLogs`], declared once.
macro_rules! slow_query_logs_fields {
    ($then:ident $($args:tt)*) => {
        $then! {
            ($($args)*)
            /// The log lines of a host's slow queries (`GET .../performanceAdvisor/slowQueryLogs`).
            ///
            /// ```
            /// let line = r#"{"t":{"$date":"2026-03-01T10:00:00.000+00:00"},"attr":{"ns":"shop.users","command":{"find":"users","filter":{"email":"a@b.c"}},"planSummary":"COLLSCAN","docsExamined":50000,"nreturned":1,"durationMillis":34}}"#;
            /// let body = serde_json::json!({"slowQueries": [{"line": line, "namespace": "shop.users"}]});
            /// let logs: opsapi::SlowQueryLogs = opsapi::decode_model(body.to_string().as_bytes()).unwrap();
            /// let row = &logs.rows()[0];
            /// assert_eq!(row.shape.as_deref(), Some(r#"find {"email":"?"}"#));
            /// assert_eq!((row.duration_ms, row.docs_examined, row.docs_returned), (Some(34), Some(50000), Some(1)));
            /// ```
            SlowQueryLogs { raw: raw, repr: [] } {
                /// `slowQueries`
                slow_queries: Option<Vec<$crate::models::SlowQuery>>,
            }
        }
    };
}
#[cfg_attr(not(feature = "python"), allow(unused_imports))]
pub(crate) use slow_query_logs_fields;
slow_query_logs_fields!(declare_model);

/// The fields of [`QueryShape`], declared once.
macro_rules! query_shape_fields {
    ($then:ident $($args:tt)*) => {
        $then! {
            ($($args)*)
            /// A query shape that suggested indexes serve: its queries' count and mean duration,
            /// and example operations.
            QueryShape {} {
                /// `id`: the shape's id in this answer (what an index's `impact` names).
                id: Option<String>,
                /// `namespace`
                namespace: Option<String>,
                /// `count`: queries of the shape examined.
                count: Option<i64>,
                /// `avgMs`: their mean duration in milliseconds.
                #[serde(rename = "avgMs")]
                avg_ms: Option<i64>,
                /// `inefficiencyScore`: documents read per document returned.
                #[serde(rename = "inefficiencyScore")]
                inefficiency_score: Option<i64>,
                /// `operations`: example queries (`predicates`, `stats`; Ops Manager's `raw`
                /// line too), as sent.
                operations: Option<Vec<serde_json::Value>>,
            }
        }
    };
}
#[cfg_attr(not(feature = "python"), allow(unused_imports))]
pub(crate) use query_shape_fields;
query_shape_fields!(declare_part);

/// The fields of [`SuggestedIndex`], declared once.
macro_rules! suggested_index_fields {
    ($then:ident $($args:tt)*) => {
        $then! {
            ($($args)*)
            /// An index the Performance Advisor suggests: its keys and the shapes it serves.
            SuggestedIndex {} {
                /// `id`
                id: Option<String>,
                /// `namespace`
                namespace: Option<String>,
                /// `index`: its keys in order, each `{field: 1}` (ascending) or `-1`.
                index: Option<Vec<serde_json::Value>>,
                /// `impact`: the ids of the shapes it serves.
                impact: Option<Vec<String>>,
                /// `weight` (Atlas): its share of the improvement.
                weight: Option<f64>,
                /// `avgObjSize` (Atlas): the collection's mean document size in bytes.
                #[serde(rename = "avgObjSize")]
                avg_obj_size: Option<f64>,
            }
        }
    };
}
#[cfg_attr(not(feature = "python"), allow(unused_imports))]
pub(crate) use suggested_index_fields;
suggested_index_fields!(declare_part);

/// The fields of [`SuggestedIndexes`], declared once.
macro_rules! suggested_indexes_fields {
    ($then:ident $($args:tt)*) => {
        $then! {
            ($($args)*)
            /// The indexes suggested for a host's slow queries and the shapes they serve
            /// (`GET .../performanceAdvisor/suggestedIndexes`).
            SuggestedIndexes { raw: raw, repr: [] } {
                /// `suggestedIndexes`
                #[serde(rename = "suggestedIndexes")]
                indexes: Option<Vec<$crate::models::SuggestedIndex>>,
                /// `shapes`
                shapes: Option<Vec<$crate::models::QueryShape>>,
            }
        }
    };
}
#[cfg_attr(not(feature = "python"), allow(unused_imports))]
pub(crate) use suggested_indexes_fields;
suggested_indexes_fields!(declare_model);

/// The slow queries of one namespace and query shape in a window.
///
/// ```no_run
/// # async fn f(client: opsapi::Client, alert: opsapi::Alert) -> opsapi::Result<()> {
/// let ctx = client.alerts().context(&alert, &opsapi::ContextOptions::new()).await?;
/// for s in &ctx.slow_queries {
///     println!("{} {} x{} {:?}/returned", s.namespace, s.shape, s.count, s.examined_per_returned());
/// }
/// # Ok(()) }
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
    /// The fields its keys name, in order.
    pub fields: Vec<String>,
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

/// What one slow query's log line says ([`SlowQueryLogs::rows`]): each part `None` where the
/// line does not say it.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct SlowQueryRow {
    /// When it was logged.
    pub timestamp: Option<DateTime<Utc>>,
    /// Its namespace (the listing's, else the line's).
    pub namespace: Option<String>,
    /// Its shape: the command and its filter with every value replaced by `?`
    /// (`find {"status":"?","region":"?"}`), and its sort after ` sort `.
    pub shape: Option<String>,
    /// How long it took, in milliseconds.
    pub duration_ms: Option<i64>,
    /// Documents it examined.
    pub docs_examined: Option<i64>,
    /// Documents it returned.
    pub docs_returned: Option<i64>,
    /// Its plan (`COLLSCAN`, `IXSCAN { status: 1 }`).
    pub plan_summary: Option<String>,
    /// The line.
    pub line: Option<String>,
}

impl SlowQueryLogs {
    /// What each line says, in order: the structured JSON lines of MongoDB 4.4 and later and
    /// the text lines before it alike.
    pub fn rows(&self) -> Vec<SlowQueryRow> {
        self.slow_queries
            .iter()
            .flatten()
            .map(|q| {
                let mut row = q.line.as_deref().map(parse_line).unwrap_or_default();
                row.namespace = q.namespace.clone().or(row.namespace);
                row.line = q.line.clone();
                row
            })
            .collect()
    }
}

/// What a log line says.
fn parse_line(line: &str) -> SlowQueryRow {
    match serde_json::from_str::<Value>(line) {
        Ok(Value::Object(m)) => parse_json_line(&m),
        _ => parse_text_line(line),
    }
}

/// A structured log line (`{"t":{"$date":..},"attr":{"ns":..,"command":{..},..}}`).
fn parse_json_line(m: &Map<String, Value>) -> SlowQueryRow {
    let attr = m.get("attr").and_then(Value::as_object);
    let int = |k: &str| attr.and_then(|a| a.get(k)).and_then(Value::as_i64);
    let timestamp = m
        .get("t")
        .and_then(|t| t.get("$date"))
        .and_then(Value::as_str)
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc));
    let command = attr
        .and_then(|a| a.get("command"))
        .and_then(Value::as_object);
    SlowQueryRow {
        timestamp,
        namespace: attr
            .and_then(|a| a.get("ns"))
            .and_then(Value::as_str)
            .map(str::to_string),
        shape: command.map(|c| {
            let kind = attr.and_then(|a| a.get("type")).and_then(Value::as_str);
            json_shape(c, kind)
        }),
        duration_ms: int("durationMillis"),
        docs_examined: int("docsExamined"),
        docs_returned: int("nreturned").or_else(|| int("nReturned")),
        plan_summary: attr
            .and_then(|a| a.get("planSummary"))
            .and_then(Value::as_str)
            .map(str::to_string),
        line: None,
    }
}

/// The commands a slow query log line names, as their documents' first keys.
const COMMANDS: [&str; 9] = [
    "find",
    "aggregate",
    "count",
    "distinct",
    "findAndModify",
    "update",
    "delete",
    "getMore",
    "insert",
];

/// A command's shape: its name and its filter (`filter`, `query`, `q`, or an aggregation's
/// first `$match`), values masked and keys sorted (two queries that differ only in their
/// keys' order have one shape); its sort after ` sort `. `kind`: the line's `attr.type`
/// (`update`, `remove`), for a statement that names no command.
fn json_shape(command: &Map<String, Value>, kind: Option<&str>) -> String {
    let name = COMMANDS
        .iter()
        .copied()
        .find(|c| command.contains_key(*c))
        .or(kind.filter(|k| *k != "command"))
        .unwrap_or("command");
    let first_match = || {
        command
            .get("pipeline")?
            .as_array()?
            .first()?
            .get("$match")
            .cloned()
    };
    let filter = ["filter", "query", "q"]
        .iter()
        .find_map(|k| command.get(*k).cloned())
        .or_else(first_match)
        .unwrap_or_else(|| Value::Object(Map::new()));
    let mut shape = format!("{name} {}", mask(&filter));
    if let Some(sort) = command.get("sort") {
        shape.push_str(&format!(" sort {sort}"));
    }
    shape
}

/// `v` with every scalar replaced by `"?"` (keys and operators kept).
pub(crate) fn mask(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), mask(v))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(mask).collect()),
        _ => Value::String("?".into()),
    }
}

/// A text log line of MongoDB before 4.4 (`... command db.coll ... command: find { find: "c",
/// filter: { a: 1 } } planSummary: COLLSCAN ... docsExamined:50000 ... nreturned:1 ... 34ms`).
fn parse_text_line(line: &str) -> SlowQueryRow {
    let after = |key: &str| line.split_once(key).map(|(_, rest)| rest);
    let number = |key: &str| {
        after(key).and_then(|r| {
            let digits: String = r.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
    };
    let timestamp = line
        .split_whitespace()
        .next()
        .and_then(|t| DateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S%.f%z").ok())
        .map(|t| t.with_timezone(&Utc));
    let duration_ms = line
        .trim_end()
        .strip_suffix("ms")
        .and_then(|r| r.rsplit(|c: char| !c.is_ascii_digit()).next())
        .and_then(|d| d.parse().ok());
    let name = after("command: ").and_then(|r| r.split_whitespace().next());
    let shape = name.map(|name| {
        let filter = after("filter: ")
            .or_else(|| after("query: "))
            .and_then(braced)
            .map_or_else(|| "{}".to_string(), mask_text);
        format!("{name} {filter}")
    });
    SlowQueryRow {
        timestamp,
        namespace: after("command ")
            .and_then(|r| r.split_whitespace().next())
            .filter(|ns| ns.contains('.'))
            .map(str::to_string),
        shape,
        duration_ms,
        docs_examined: number("docsExamined:"),
        docs_returned: number("nreturned:"),
        plan_summary: after("planSummary: ")
            .and_then(|r| r.split_whitespace().next())
            .map(str::to_string),
        line: None,
    }
}

/// The balanced `{...}` at the start of `s`.
fn braced(s: &str) -> Option<&str> {
    let mut depth = 0usize;
    let mut in_string = false;
    for (i, c) in s.char_indices() {
        match c {
            '"' => in_string = !in_string,
            '{' if !in_string => depth += 1,
            '}' if !in_string => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(&s[..=i]);
                }
            }
            _ if depth == 0 && !c.is_whitespace() => return None,
            _ => {}
        }
    }
    None
}

/// A text filter (`{ emails: "la@sa.kp", age: { $gt: 3 } }`) with its values as `?` and its
/// keys kept: `{ emails: ?, age: { $gt: ? } }`.
fn mask_text(filter: &str) -> String {
    let mut out = String::with_capacity(filter.len());
    let mut chars = filter.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' | '}' | '[' | ']' | ',' | ':' => out.push(c),
            c if c.is_whitespace() => out.push(c),
            _ => {
                // A word or a quoted string: a key when a `:` follows it, else a value.
                let mut word = c.to_string();
                let quoted = c == '"';
                while let Some(&n) = chars.peek() {
                    let ends = if quoted {
                        word.len() > 1 && word.ends_with('"')
                    } else {
                        matches!(n, ',' | '}' | ']' | ':') || n.is_whitespace()
                    };
                    if ends {
                        break;
                    }
                    word.push(n);
                    chars.next();
                }
                let rest: String = chars.clone().collect();
                if rest.trim_start().starts_with(':') {
                    out.push_str(&word);
                } else {
                    out.push('?');
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_line_of_ops_managers_documentation_is_read() {
        // The Ops Manager documentation's example (Get Suggested Indexes, `raw`).
        let line = r#"2018-08-15T17:14:11.115+0000 I COMMAND  [conn4576] command test.users appName: "MongoDB Shell" command: find { find: "users", filter: { emails: "la@sa.kp" }, lsid: { id: UUID("1a4e71d3-9b67-4e9c-b078-9fdf3fae9091") }, $db: "test" } planSummary: COLLSCAN keysExamined:0 docsExamined:50000 cursorExhausted:1 numYields:391 nreturned:1 reslen:339 locks:{ Global: { acquireCount: { r: 784 } } } protocol:op_msg 34ms"#;
        let row = parse_line(line);
        assert_eq!(row.namespace.as_deref(), Some("test.users"));
        assert_eq!(row.shape.as_deref(), Some("find { emails: ? }"));
        assert_eq!(row.duration_ms, Some(34));
        assert_eq!(
            (row.docs_examined, row.docs_returned),
            (Some(50000), Some(1))
        );
        assert_eq!(row.plan_summary.as_deref(), Some("COLLSCAN"));
        assert_eq!(
            row.timestamp.map(|t| t.to_rfc3339()),
            Some("2018-08-15T17:14:11.115+00:00".to_string())
        );
    }

    #[test]
    fn a_structured_line_gives_its_shape_with_operators_and_sort() {
        let line = r#"{"t":{"$date":"2026-03-01T10:00:00.250Z"},"attr":{"ns":"shop.orders","command":{"aggregate":"orders","pipeline":[{"$match":{"status":"A","total":{"$gt":5}}}],"sort":{"created":-1}},"durationMillis":120}}"#;
        let row = parse_line(line);
        assert_eq!(
            row.shape.as_deref(),
            Some(r#"aggregate {"status":"?","total":{"$gt":"?"}} sort {"created":-1}"#)
        );
        assert_eq!(row.duration_ms, Some(120));
        assert_eq!(row.docs_examined, None);
        assert_eq!(parse_line("not a log line").shape, None);
    }
}
