//! An alert in its context: the alert's metric on the alert's host (or disk partition, or
//! database) around the time it was open, the threshold of its configuration, the state of
//! the hosts it concerns, and beside that what may say why: the deployment's events of the
//! window (`alerts/around.rs`), its slow queries and the indexes suggested for them
//! (`alerts/slow.rs`), and a one-line reading of what was found (`alerts/reading.rs`).
//!
//! What is asked, in order: the alert's host (`GET /groups/{g}/hosts/{h}` when the alert has
//! a `hostId`; on Atlas, whose alerts name a process by its `hostnameAndPort` alone,
//! `GET /groups/{g}/processes/{hostname:port}`; else the project's hosts, matched on
//! `hostnameAndPort` or `replicaSetName`) and, for a metric alert, the project's alert
//! configurations (for the threshold), both at once; then, at once, the measurements (a disk
//! alert: the host's partitions first; a database alert without `databaseName`: its databases
//! first) and the window's events (`eventType`, `minDate`, `maxDate`; on Atlas also the
//! cluster's own events by `clusterNames`). A part the server refuses (the key's permission,
//! an endpoint it lacks) is left out, and [`AlertContext::missing`] says why.

use std::collections::BTreeMap;

use chrono::{DateTime, TimeDelta, Utc};
use futures_util::StreamExt;

pub use super::alert_context::AlertContext;
use super::around::host_and_port;
pub use super::metric::{measurement_of, unit_factor, MetricKind};
use super::Alerts;
use crate::api::measurements::{Granularity, MeasurementsQuery, Target};
use crate::error::{Error, Result};
use crate::flavour::Flavour;
use crate::iso8601::IsoDuration;
use crate::models::{Alert, Host, Measurements, Model};

/// At most this many points per series: a window that would hold more at a granularity takes
/// a coarser one (a day of minutes, a chart's width).
pub const MAX_CONTEXT_POINTS: i64 = 1440;

/// How long a granularity's data are kept, as assumed for choosing one: Ops Manager's
/// retention is set per installation, and these are conservative defaults (minutes for two
/// days, five minutes for a week, hours for 63 days, days without end). Give a granularity to
/// [`ContextOptions::granularity`] where a server keeps more.
const RETENTION_DAYS: [(Granularity, Option<i64>); 4] = [
    (Granularity::PT1M, Some(2)),
    (Granularity::PT5M, Some(7)),
    (Granularity::PT1H, Some(63)),
    (Granularity::P1D, None),
];

/// The finest granularity for the window `start..=end` seen at `now`: the finest whose data
/// are still kept at `start` and that gives at most [`MAX_CONTEXT_POINTS`] points.
///
/// ```
/// use opsapi::{api::alerts::context::finest_granularity, Granularity};
/// let t = |s| opsapi::iso8601::parse_timestamp("t", s).unwrap();
/// let now = t("2024-06-03T12:00:00Z");
/// assert_eq!(finest_granularity(t("2024-06-03T08:00:00Z"), now, now), Granularity::PT1M);
/// assert_eq!(finest_granularity(t("2024-05-30T08:00:00Z"), t("2024-05-30T11:00:00Z"), now), Granularity::PT5M);
/// assert_eq!(finest_granularity(t("2024-04-01T00:00:00Z"), t("2024-04-01T03:00:00Z"), now), Granularity::P1D);
/// ```
pub fn finest_granularity(
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Granularity {
    let span = (end - start).num_seconds().max(0);
    RETENTION_DAYS
        .into_iter()
        .find(|(g, kept)| {
            span / g.seconds() as i64 <= MAX_CONTEXT_POINTS
                && kept.is_none_or(|days| start >= now - TimeDelta::days(days))
        })
        .map_or(Granularity::P1D, |(g, _)| g)
}

/// How much of the time around an alert [`Alerts::context`] reads, and at which granularity.
///
/// ```
/// use opsapi::ContextOptions;
/// let o = ContextOptions::from_parts(Some("PT30M"), Some("15m"), Some("PT1M")).unwrap();
/// assert_eq!(o.before, chrono::TimeDelta::minutes(30));
/// assert_eq!(o, ContextOptions::new().before(chrono::TimeDelta::minutes(30))
///     .after(chrono::TimeDelta::minutes(15)).granularity(opsapi::Granularity::PT1M));
/// assert!(ContextOptions::from_parts(Some("P1M"), None, None).is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ContextOptions {
    /// Before the alert was created (default 2 hours).
    pub before: TimeDelta,
    /// After it was resolved, or until now while it is open (default 1 hour; never past now).
    pub after: TimeDelta,
    /// The granularity; `None` (the default) takes the finest the window allows
    /// ([`finest_granularity`]).
    pub granularity: Option<Granularity>,
}

impl Default for ContextOptions {
    fn default() -> Self {
        Self {
            before: TimeDelta::hours(2),
            after: TimeDelta::hours(1),
            granularity: None,
        }
    }
}

impl ContextOptions {
    /// Two hours before, one hour after, the finest granularity.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets how long before the alert was created.
    pub fn before(mut self, d: TimeDelta) -> Self {
        self.before = d;
        self
    }
    /// Sets how long after it was resolved.
    pub fn after(mut self, d: TimeDelta) -> Self {
        self.after = d;
        self
    }
    /// Sets the granularity.
    pub fn granularity(mut self, g: Granularity) -> Self {
        self.granularity = Some(g);
        self
    }

    /// From the keyword arguments of the Python face: durations as ISO 8601 (`PT2H`) or as
    /// people type them (`2h`), `None` for the default.
    pub fn from_parts(
        before: Option<&str>,
        after: Option<&str>,
        granularity: Option<&str>,
    ) -> Result<Self> {
        let fixed = |argument: &str, s: &str| -> Result<TimeDelta> {
            let d = IsoDuration::parse_lenient(argument, s)?;
            d.fixed_seconds()
                .and_then(|secs| TimeDelta::try_milliseconds((secs * 1000.0).round() as i64))
                .ok_or_else(|| {
                    Error::invalid_argument(
                        argument,
                        format!("`{s}` has months or years, whose length depends on the date"),
                    )
                })
        };
        let mut o = Self::new();
        if let Some(s) = before {
            o.before = fixed("before", s)?;
        }
        if let Some(s) = after {
            o.after = fixed("after", s)?;
        }
        if let Some(s) = granularity {
            o.granularity = Some(Granularity::parse("granularity", s)?);
        }
        o.validate()?;
        Ok(o)
    }

    /// Checks the options without sending anything.
    pub fn validate(&self) -> Result<()> {
        for (name, d) in [("before", self.before), ("after", self.after)] {
            if d < TimeDelta::zero() {
                return Err(Error::invalid_argument(name, "must not be negative"));
            }
            if d > TimeDelta::days(3653) {
                return Err(Error::invalid_argument(name, "must be at most ten years"));
            }
        }
        Ok(())
    }
}

/// The window of an alert's context at `now`: from `created - before` to `(resolved or now) +
/// after` (a closed alert without `resolved`: its `updated`), never past `now`, both ends
/// floored to the granularity's step, and that granularity.
///
/// ```
/// use opsapi::{api::alerts::context::window, ContextOptions, Granularity};
/// let t = |s| opsapi::iso8601::parse_timestamp("t", s).unwrap();
/// let alert: opsapi::Alert = opsapi::decode_model(
///     br#"{"id":"a1","status":"CLOSED","created":"2024-06-03T08:10:30Z","resolved":"2024-06-03T09:00:00Z"}"#,
/// ).unwrap();
/// let (start, end, g) = window(&alert, &ContextOptions::new(), t("2024-06-03T12:00:00Z"));
/// assert_eq!((start, end, g), (t("2024-06-03T06:10:00Z"), t("2024-06-03T10:00:00Z"), Granularity::PT1M));
/// ```
pub fn window(
    alert: &Alert,
    options: &ContextOptions,
    now: DateTime<Utc>,
) -> (DateTime<Utc>, DateTime<Utc>, Granularity) {
    let created = alert.created.unwrap_or(now).min(now);
    let closed = !matches!(
        alert.status,
        Some(crate::models::AlertStatus::Open | crate::models::AlertStatus::Tracking)
    );
    let until = match alert.resolved {
        Some(t) => t,
        None if closed => alert.updated.unwrap_or(now),
        None => now,
    };
    let start = created - options.before;
    let end = (until.max(created) + options.after).min(now).max(start);
    let g = options
        .granularity
        .unwrap_or_else(|| finest_granularity(start, end, now));
    let step = g.seconds() as i64;
    let floor = |t: DateTime<Utc>| {
        DateTime::<Utc>::from_timestamp(t.timestamp().div_euclid(step) * step, 0).unwrap_or(t)
    };
    (floor(start), floor(end), g)
}

/// The measurements of a context, or why there are none.
#[derive(Debug, Default)]
struct Measured {
    kind: Option<MetricKind>,
    measurement: Option<String>,
    measurements: Vec<Measurements>,
    note: Option<String>,
}

/// The note of a context whose metric the server does not measure.
fn no_measurement(kind: MetricKind, measurement: &str) -> String {
    format!(
        "the server has no {} measurement {measurement}",
        kind.as_str()
    )
}

/// The threshold in the units of the series it is drawn against, where the configuration
/// gives it in other units of the same kind: Atlas's replication lag is measured in
/// milliseconds, and its alert configurations say seconds.
fn in_series_units(ctx: &mut AlertContext) {
    let series = ctx.measurements.iter().flat_map(|m| &m.series).next();
    let (Some(threshold), Some(from), Some(to)) = (
        ctx.threshold,
        ctx.threshold_units.as_deref(),
        series.and_then(|s| s.units.as_deref()),
    ) else {
        return;
    };
    if let Some(factor) = unit_factor(from, to) {
        ctx.threshold = Some(threshold * factor);
        ctx.threshold_units = Some(to.to_string());
    }
}

impl Alerts<'_> {
    /// The alert in its context: its metric on its host (or disk partition, or database)
    /// from `options.before` before it was created to `options.after` after it was resolved
    /// (or now while it is open), at the finest granularity that window allows; the threshold
    /// of its configuration; the hosts it concerns; the deployment's events of the window;
    /// its slow queries and the indexes suggested for them; and a one-line reading of what was
    /// found. For global and project alerts alike.
    ///
    /// An alert without a metric (a replica set without a primary, a host down) gives no
    /// measurements but its hosts' state and the events of the window, and so does one whose
    /// host or metric the server does not know: [`AlertContext::note`] says why. A part the
    /// flavour or the key's permission does not offer is left out, and
    /// [`AlertContext::missing`] says why; any other API failure (the server failing, the
    /// network) is an error as for any call.
    ///
    /// ```no_run
    /// # async fn f(client: opsapi::Client) -> opsapi::Result<()> {
    /// use opsapi::{AlertStatus, AlertsQuery, ContextOptions};
    /// let open = client.alerts().list("5e9f...", &AlertsQuery::new().status(AlertStatus::Open)).await?;
    /// let ctx = client.alerts().context(&open[0], &ContextOptions::new()).await?;
    /// println!("{:?} at {}: {:?} points, threshold {:?}",
    ///     ctx.measurement, ctx.granularity, ctx.measurements.first().map(|m| m.data_point_count()), ctx.threshold);
    /// println!("{}; missing: {:?}", ctx.reading, ctx.missing);
    /// # Ok(()) }
    /// ```
    pub async fn context(&self, alert: &Alert, options: &ContextOptions) -> Result<AlertContext> {
        options.validate()?;
        let client = self.client;
        let now = client.server_time();
        let (start, end, granularity) = window(alert, options, now);
        let mut ctx = AlertContext {
            alert: alert.clone(),
            kind: None,
            measurement: None,
            start,
            end,
            granularity,
            hosts: Vec::new(),
            measurements: Vec::new(),
            threshold: None,
            threshold_units: None,
            events: Vec::new(),
            slow_queries: Vec::new(),
            suggested_indexes: Vec::new(),
            reading: String::new(),
            missing: BTreeMap::new(),
            note: None,
        };
        let Some(g) = alert.group_id.as_deref() else {
            ctx.note = Some("the alert has no groupId".into());
            for part in ["events", "slow_queries", "suggested_indexes"] {
                ctx.missing
                    .insert(part.into(), "the alert names no project".into());
            }
            ctx.reading = super::reading::reading(&ctx);
            return Ok(ctx);
        };
        let config = async {
            match (&alert.metric_name, &alert.alert_config_id) {
                (Some(_), Some(c)) => {
                    let configs = client.alert_configs().list(g).await?;
                    Ok(configs
                        .into_vec()
                        .into_iter()
                        .find(|x| x.id.as_ref() == Some(c)))
                }
                _ => Ok(None),
            }
        };
        let (hosts, config) = tokio::join!(self.hosts_of(g, alert), config);
        let (hosts, host_note) = hosts?;
        if let Some(th) = config?.and_then(|c| c.metric_threshold) {
            ctx.threshold = th.get("threshold").and_then(|v| v.as_f64());
            ctx.threshold_units = th.get("units").and_then(|v| v.as_str()).map(str::to_string);
        }
        ctx.hosts = hosts;
        // The window again, from the server's clock as its answers told it.
        let (start, end, granularity) = window(alert, options, client.server_time());
        (ctx.start, ctx.end, ctx.granularity) = (start, end, granularity);
        let (measured, events, slow) = tokio::join!(
            self.measured(g, &ctx, host_note),
            self.deployment_events(g, &ctx),
            self.slow_queries_of(g, &ctx),
        );
        let measured = measured?;
        (ctx.kind, ctx.measurement) = (measured.kind, measured.measurement);
        (ctx.measurements, ctx.note) = (measured.measurements, measured.note);
        match events? {
            Ok(events) => ctx.events = events,
            Err(why) => {
                ctx.missing.insert("events".into(), why);
            }
        }
        let slow = slow?;
        ctx.slow_queries = slow.shapes;
        ctx.suggested_indexes = slow.indexes;
        ctx.missing.extend(slow.missing);
        in_series_units(&mut ctx);
        ctx.reading = super::reading::reading(&ctx);
        Ok(ctx)
    }

    /// The measurements of the alert's metric over the context's window, or why there are
    /// none.
    async fn measured(
        &self,
        g: &str,
        ctx: &AlertContext,
        host_note: Option<String>,
    ) -> Result<Measured> {
        let client = self.client;
        let alert = &ctx.alert;
        let mut out = Measured::default();
        let Some(metric) = alert.metric_name.as_deref() else {
            out.note = Some(match host_note {
                Some(n) => format!("the alert carries no metric; {n}"),
                None => "the alert carries no metric".into(),
            });
            return Ok(out);
        };
        let (kind, measurement, role) = measurement_of(metric);
        (out.kind, out.measurement) = (Some(kind), Some(measurement.clone()));
        let Some(host) = ctx.host() else {
            out.note = Some(host_note.unwrap_or_else(|| "the alert names no host".into()));
            return Ok(out);
        };
        let Some(h) = host.id.as_deref() else {
            out.note = Some("the alert's host has no id".into());
            return Ok(out);
        };
        // A measurement the catalogs know the flavour not to have is not asked (the client
        // would refuse it before sending); one they do not know is, and the server judges it.
        let op = match kind {
            MetricKind::Host => crate::Operation::MeasurementsHost,
            MetricKind::Disk => crate::Operation::MeasurementsDisk,
            MetricKind::Database => crate::Operation::MeasurementsDatabase,
        };
        if client.flavour().ask_measurement(op, &measurement).is_err() {
            out.note = Some(no_measurement(kind, &measurement));
            return Ok(out);
        }
        let targets = match kind {
            MetricKind::Host => vec![Target::host(g, h)],
            MetricKind::Disk => {
                let parts = client.hosts().partitions(g, h).await?;
                let named = role.map(str::to_ascii_lowercase);
                let pick: Vec<String> =
                    match parts.iter().find(|p| Some(p.to_ascii_lowercase()) == named) {
                        Some(p) => vec![p.clone()],
                        None => parts,
                    };
                pick.iter().map(|p| Target::disk(g, h, p)).collect()
            }
            MetricKind::Database => {
                let named = alert.raw().get("databaseName").and_then(|v| v.as_str());
                let dbs = match named {
                    Some(d) => vec![d.to_string()],
                    None => client.hosts().databases(g, h).await?,
                };
                dbs.iter().map(|d| Target::database(g, h, d)).collect()
            }
        };
        let q = MeasurementsQuery::range(ctx.granularity, ctx.start, ctx.end)
            .metrics([measurement.as_str()]);
        let (api, q) = (client.measurements(), &q);
        // Owned targets: a future borrowing its item cannot be sent to another task (Python).
        let pulled: Vec<Result<Measurements>> = futures_util::stream::iter(targets.clone())
            .map(move |t| async move { api.target(&t, q).await })
            .buffered(client.max_concurrency())
            .collect()
            .await;
        for m in pulled {
            match m {
                Ok(m) => out.measurements.push(m),
                // The server does not measure this metric (a name this library does not map).
                Err(e) if e.error_code() == Some("INVALID_METRIC_NAME") => {
                    out.note = Some(no_measurement(kind, &measurement));
                    out.measurements.clear();
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        if targets.is_empty() {
            out.note = Some(format!(
                "host {h} has no {}",
                if kind == MetricKind::Disk {
                    "partitions"
                } else {
                    "databases"
                }
            ));
        }
        Ok(out)
    }

    /// The hosts an alert concerns, and why there are none when there are none.
    async fn hosts_of(&self, g: &str, alert: &Alert) -> Result<(Vec<Host>, Option<String>)> {
        let hosts = self.client.hosts();
        // The host by its id: Ops Manager's `hostId`; on Atlas, the process's `hostname:port`
        // (its id there), which its alerts carry as `hostnameAndPort`.
        let id = match self.client.flavour() {
            Flavour::Atlas => alert.hostname_and_port.as_deref(),
            _ => alert.host_id.as_deref(),
        };
        if let Some(h) = id {
            return match hosts.get(g, h).await {
                Ok(host) => Ok((vec![host], None)),
                Err(e) if e.is_not_found() => {
                    Ok((Vec::new(), Some(format!("host {h} is not in project {g}"))))
                }
                Err(e) => Err(e),
            };
        }
        if let Some(hp) = alert.hostname_and_port.as_deref() {
            let all = hosts.list(g).await?;
            let found: Vec<Host> = all
                .into_vec()
                .into_iter()
                .filter(|x| host_and_port(x).is_some_and(|s| s.eq_ignore_ascii_case(hp)))
                .take(1)
                .collect();
            let note = found
                .is_empty()
                .then(|| format!("no host of project {g} is {hp}"));
            return Ok((found, note));
        }
        if let Some(rs) = alert.replica_set_name.as_deref() {
            let all = hosts.list(g).await?;
            let members: Vec<Host> = all
                .into_vec()
                .into_iter()
                .filter(|x| x.replica_set_name.as_deref() == Some(rs))
                .collect();
            let note = members
                .is_empty()
                .then(|| format!("no host of project {g} is in replica set {rs}"));
            return Ok((members, note));
        }
        Ok((
            Vec::new(),
            Some("the alert names no host or replica set".into()),
        ))
    }
}
