//! The one-line reading of an alert's context: what happened, and beside it what the context
//! found that may say why (the slow queries that dominate its window and the index that would
//! serve them, the deployment's events), built only from what was found: a part that is
//! empty or missing adds nothing, and the sentence never guesses.

use chrono::{DateTime, Utc};

use super::alert_context::AlertContext;
use crate::models::event_kinds::{event_type, said, EventKind, EventScope};

/// At most this many events are named; the rest are counted.
const MAX_EVENTS: usize = 3;

/// A number as people read it: whole numbers with thin groups (`4 100`), others to three
/// significant digits.
///
/// ```
/// use opsapi::api::alerts::reading::number;
/// assert_eq!(number(4100.0), "4 100");
/// assert_eq!(number(60000.0), "60 000");
/// assert_eq!(number(0.2345), "0.234");
/// assert_eq!(number(93.5), "93.5");
/// ```
pub fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        let digits = format!("{}", v.abs() as u64);
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(' ');
            }
            out.push(c);
        }
        return if v < 0.0 { format!("-{out}") } else { out };
    }
    let magnitude = v.abs().log10().floor() as i32;
    let decimals = (2 - magnitude).clamp(0, 6) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A time of the window: `02:10`, or `Jun 3 02:10` on another day than the alert's.
fn at(t: DateTime<Utc>, day: DateTime<Utc>) -> String {
    if t.date_naive() == day.date_naive() {
        t.format("%H:%M").to_string()
    } else {
        t.format("%b %-d %H:%M").to_string()
    }
}

/// What the alert says happened: its metric past its threshold, or its event.
fn what(ctx: &AlertContext) -> String {
    let a = &ctx.alert;
    let created = a.created.unwrap_or(ctx.start);
    let when = at(created, created);
    let host = a
        .hostname_and_port
        .as_deref()
        .or(a.replica_set_name.as_deref());
    let on = host.map(|h| format!(" on {h}")).unwrap_or_default();
    // The measurement's name, one set across flavours (Atlas's alerts name some otherwise).
    let metric = ctx.measurement.as_deref().or(a.metric_name.as_deref());
    match (metric, ctx.threshold) {
        (Some(m), Some(t)) => {
            let units = ctx
                .threshold_units
                .as_deref()
                .filter(|u| !matches!(*u, "RAW" | "SCALAR"))
                .map(|u| format!(" {}", u.to_lowercase()))
                .unwrap_or_default();
            let words = m.to_lowercase().replace('_', " ");
            format!("{words} crossed {}{units}{on} at {when}", number(t))
        }
        (Some(m), None) => {
            format!(
                "{} alerted{on} at {when}",
                m.to_lowercase().replace('_', " ")
            )
        }
        (None, _) => {
            let event = a.event_type_name.as_deref().unwrap_or("the alert");
            format!("{}{on} at {when}", event.to_lowercase().replace('_', " "))
        }
    }
}

/// How much an event kind says about why: failovers, restarts, a host down, scaling and
/// cluster changes first, configuration and upgrades next, a host coming up last.
fn weight(kind: EventKind) -> u8 {
    match kind {
        EventKind::Configuration | EventKind::Upgrade => 1,
        EventKind::HostUp => 2,
        _ => 0,
    }
}

/// The events worth naming (not the alert's own acknowledgements): at most [`MAX_EVENTS`],
/// the telling kinds first and of those the nearest the alert's creation, named oldest first
/// with their time; the rest counted.
fn events(ctx: &AlertContext) -> Vec<String> {
    let day = ctx.alert.created.unwrap_or(ctx.start);
    let cluster = ctx.alert.cluster_name.as_deref();
    let mut found: Vec<(u8, i64, DateTime<Utc>, String)> = ctx
        .events
        .iter()
        .filter_map(|e| {
            let name = e.event_type_name.as_deref()?;
            let t = event_type(name)?;
            let created = e.created?;
            if t.kind == EventKind::Alert {
                return None;
            }
            let mut what = said(e);
            if let (EventScope::Cluster, Some(c)) = (t.scope, cluster) {
                what.push_str(&format!(" of {c}"));
            }
            let distance = (created - day).num_seconds().abs();
            Some((weight(t.kind), distance, created, what))
        })
        .collect();
    let total = found.len();
    found.sort_by_key(|f| (f.0, f.1));
    found.truncate(MAX_EVENTS);
    found.sort_by_key(|f| f.2);
    let mut out: Vec<String> = found
        .into_iter()
        .map(|(_, _, t, what)| format!("{what} at {}", at(t, day)))
        .collect();
    if total > MAX_EVENTS {
        let more = total - MAX_EVENTS;
        out.push(format!(
            "{more} more event{}",
            if more == 1 { "" } else { "s" }
        ));
    }
    out
}

/// What the reading says of the slow queries: the namespace whose slow queries took the
/// most time in the window, how many, and the index missing for its top shape (`4 100 slow
/// queries on orders.items (no index on {status: 1, createdAt: 1})`); `None` without any.
fn slow_said(ctx: &AlertContext) -> Option<String> {
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

/// The reading of a context (see the module's documentation): what happened, then what the
/// context found beside it.
///
/// ```no_run
/// # async fn f(client: opsapi::Client, alert: opsapi::Alert) -> opsapi::Result<()> {
/// let ctx = client.alerts().context(&alert, &opsapi::ContextOptions::new()).await?;
/// // "connections crossed 2 000 on rs0-1.example.net:27017 at 02:03, with 412 slow queries
/// // on orders.items (no index on {status: 1, createdAt: 1}); Atlas began compute
/// // auto-scaling at 02:10"
/// println!("{}", ctx.reading);
/// # Ok(()) }
/// ```
pub fn reading(ctx: &AlertContext) -> String {
    let mut out = what(ctx);
    if let Some(slow) = slow_said(ctx) {
        out.push_str(", with ");
        out.push_str(&slow);
    }
    let events = events(ctx);
    if !events.is_empty() {
        out.push_str("; ");
        out.push_str(&events.join("; "));
    }
    out
}
