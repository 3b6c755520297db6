//! The alerts' breaches: the stretch of time each metric alert's measurement spent beyond its
//! configuration's threshold on its host. The served series show it (`metrics.rs`), and the
//! alert's `currentValue` is what they show at the alert's time, so that an alert's context
//! shows the breach it was raised for.
//!
//! A host holds one breach of a measurement at a time, and the next starts no sooner than
//! [`MARGIN`] after the last one ended (an alert of a configuration is raised again only
//! once its last one closed). An alert's context, which reads from two hours before it was
//! raised at hours at the coarsest for the world's 60 days of alerts, then always holds a
//! point within the threshold before the breach and one beyond it at its start.
//!
//! A disk-space alert is no breach of its own: its partition's series goes past the
//! threshold as it grows, and the alert is raised at the first minute it does
//! ([`raised_at`]).
//!
//! The history's alerts (`world/alerts.rs`) are placed first, the flapping and noisy ones
//! where their truths say; the global alerts (`world/activity.rs`) then move, each to the
//! free time nearest the one drawn for it (its id's timestamp with it), on its own host or
//! another of the right kind where that is nearer; one still open where none is free closes.

use super::series::{breach_point, disk_percent_used, host_metric, series_key};
use super::*;

/// A breach of a host's measurement, as its alert raised it.
#[derive(Debug, Clone, PartialEq)]
pub struct Breach {
    /// The host measurement (`CONNECTIONS`, ...).
    pub metric: String,
    /// The alert it was raised as.
    pub alert_id: String,
    /// When it started: the alert's creation (unix seconds).
    pub start: i64,
    /// When it ended (unix seconds): the alert's resolution; `None` while it is open.
    pub end: Option<i64>,
    /// Its level, in the measurement's units: the points within it are within 4 % of it.
    pub level: f64,
}

/// The least time between two breaches of a measurement on a host: an alert's context
/// reads two hours before it, and its coarsest points are an hour long.
pub const MARGIN: i64 = 3 * 3600;

/// Whether an alert of `event` on `metric` can be about `host`: replication lag is a
/// secondary's, a disk's space or a database's size a mongod's, a replica set without a
/// primary a member's; anything else any host's.
pub(super) fn eligible(host: &Host, metric: Option<&str>, event: &str) -> bool {
    match metric {
        Some(m) if m.starts_with("OPLOG_") => host.type_name.ends_with("_SECONDARY"),
        Some(m) if m.starts_with("DISK_") || m.starts_with("DATABASE_") => {
            host.type_name != "SHARD_MONGOS"
        }
        _ if event == "NO_PRIMARY" => host.replica_set_name.is_some(),
        _ => true,
    }
}

/// The start nearest `want` at which a breach lasting `len` seconds (`None`: still going on)
/// fits among the breaches `taken` with [`MARGIN`] on either side, starting at `lo` or later
/// and ending by `hi` (starting by then when it is still going on).
pub(super) fn place(
    taken: &[(i64, Option<i64>)],
    want: i64,
    len: Option<i64>,
    lo: i64,
    hi: i64,
) -> Option<i64> {
    let fits = |c: i64| -> bool {
        let end = len.map(|l| c + l);
        c >= lo
            && end.unwrap_or(c) <= hi
            && taken.iter().all(|&(s, e)| {
                e.is_some_and(|e| e + MARGIN <= c) || end.is_some_and(|end| end + MARGIN <= s)
            })
    };
    let mut candidates = vec![want];
    for &(s, e) in taken {
        candidates.extend(e.map(|e| e + MARGIN));
        candidates.extend(len.map(|l| s - MARGIN - l));
    }
    candidates
        .into_iter()
        .filter(|&c| fits(c))
        .min_by_key(|&c| ((c - want).abs(), c))
}

/// The minute a disk-space alert of `threshold` % on the host's data partition was raised:
/// the first at which its series was past the threshold (before it, none is), or the anchor
/// less three hours if it never was.
pub(super) fn raised_at(seed: u64, h: &Host, threshold: f64, anchor: i64) -> i64 {
    let p = &h.partitions[0];
    let key = series_key(seed, h.index, Some(0));
    let cap = p.capacity_bytes as f64;
    // Before the trend is within its noise of the threshold, no point is past it.
    let clear = threshold / 100.0 * cap - p.noise_bytes - p.used_bytes_at_anchor - 1.0;
    let days = if p.growth_bytes_per_day > 0.0 {
        (clear / p.growth_bytes_per_day).max(-120.0)
    } else {
        -120.0
    };
    let mut t = (anchor + (days * 86_400.0) as i64).div_euclid(60) * 60;
    while t < anchor {
        if disk_percent_used(key, p, anchor, t) > threshold {
            return t;
        }
        t += 60;
    }
    anchor - 3 * 3600
}

/// The breach of an alert: its host measurement, start and end (`None` while it is open or
/// tracking), if it is a metric alert about a host.
fn span(a: &Alert) -> Option<(&str, i64, Option<i64>)> {
    let metric = a.metric_name.as_deref()?;
    host_metric(metric)?;
    a.host_id.as_ref()?;
    let start = a.created.timestamp();
    let end = match a.status.as_str() {
        "OPEN" | "TRACKING" => None,
        _ => Some(a.resolved.unwrap_or(a.updated).timestamp().max(start + 60)),
    };
    Some((metric, start, end))
}

/// Moves the global alerts off the history's breaches and each other's (see the module's
/// documentation), then records every metric alert's breach on its host and sets its
/// `currentValue` to what the series shows at its time.
pub(super) fn settle(world: &mut World, seed: u64) {
    let anchor = world.anchor.timestamp();
    // The breaches of the history, by host and measurement.
    let mut taken: Vec<(String, String, i64, Option<i64>)> = world
        .alert_history
        .iter()
        .filter_map(|a| {
            let (m, s, e) = span(a)?;
            Some((a.host_id.clone()?, m.to_string(), s, e))
        })
        .collect();
    // The oldest open alert of each configuration first (the world holds one of each), then
    // the other open and tracking ones, then the closed: each in the order they were raised.
    let mut first_open: Vec<&str> = Vec::new();
    let mut tier = vec![2u8; world.alerts.len()];
    let mut by_age: Vec<usize> = (0..world.alerts.len()).collect();
    by_age.sort_by_key(|&i| (world.alerts[i].created, i));
    for &i in &by_age {
        let a = &world.alerts[i];
        if matches!(a.status.as_str(), "OPEN" | "TRACKING") {
            let first = a.status == "OPEN" && !first_open.contains(&a.alert_config_id.as_str());
            if first {
                first_open.push(&a.alert_config_id);
            }
            tier[i] = if first { 0 } else { 1 };
        }
    }
    let mut order = by_age.clone();
    order.sort_by_key(|&i| tier[i]);
    for i in order {
        let Some((metric, start, mut end)) = span(&world.alerts[i]) else {
            continue;
        };
        let metric = metric.to_string();
        let a = &world.alerts[i];
        let lo = (anchor - 60 * 86_400).min(start);
        let on = |host: &str| -> Vec<(i64, Option<i64>)> {
            taken
                .iter()
                .filter(|t| t.0 == host && t.1 == metric)
                .map(|t| (t.2, t.3))
                .collect()
        };
        // Its own host first, then the project's other hosts of its kind, in world order.
        let own = a.host_id.clone().unwrap_or_default();
        let config = world
            .alert_configs
            .iter()
            .find(|c| c.id == a.alert_config_id);
        let event = config.map_or("", |c| c.event_type_name.as_str());
        let others = world.hosts.iter().filter(|h| {
            h.group_id == a.group_id && h.id != own && eligible(h, Some(&metric), event)
        });
        let hosts: Vec<String> = std::iter::once(own.clone())
            .chain(others.map(|h| h.id.clone()))
            .collect();
        // The host where it moves least (its own where that is as little).
        let nearest = |len: Option<i64>| {
            hosts
                .iter()
                .filter_map(|h| place(&on(h), start, len, lo, anchor).map(|c| (h.clone(), c)))
                .min_by_key(|(_, c)| (c - start).abs())
        };
        let mut len = end.map(|e| e - start);
        let mut found = nearest(len);
        if found.is_none() && len.is_none() {
            // Still open where another of its measurement is: it closed, as drawn.
            let a = &world.alerts[i];
            let closed = (a.updated.timestamp() - start).max(3600);
            found = nearest(Some(closed));
            if found.is_some() {
                close(&mut world.alerts[i], closed);
                (len, end) = (Some(closed), Some(start + closed));
            }
        }
        let Some((host_id, at)) = found else {
            continue;
        };
        if host_id != own {
            let h = world.hosts.iter().find(|h| h.id == host_id).cloned();
            if let Some(h) = h {
                let a = &mut world.alerts[i];
                a.host_id = Some(h.id.clone());
                a.hostname_and_port = Some(h.process_id());
                a.replica_set_name = h.replica_set_name.clone();
            }
        }
        shift(&mut world.alerts[i], at - start, world.anchor);
        taken.push((host_id, metric, at, end.map(|e| e - start + at)));
    }
    world
        .alerts
        .sort_by(|a, b| a.created.cmp(&b.created).then(a.id.cmp(&b.id)));
    record(world, seed);
    world.alert_truth.metric_alerts = truth(world);
}

/// Every metric alert about a host, as [`MetricAlertTruth`]: the global ones, then the
/// history's.
fn truth(world: &World) -> Vec<MetricAlertTruth> {
    let at = |t: i64| DateTime::<Utc>::from_timestamp(t, 0).unwrap_or_default();
    let global = world.alerts.iter().map(|a| (a, true));
    let history = world.alert_history.iter().map(|a| (a, false));
    global
        .chain(history)
        .filter_map(|(a, global)| {
            let metric = a.metric_name.clone()?;
            let host = world
                .hosts
                .iter()
                .find(|h| Some(&h.id) == a.host_id.as_ref())?;
            let config = world
                .alert_configs
                .iter()
                .find(|c| c.id == a.alert_config_id)?;
            let disk = world
                .alert_truth
                .disk_alerts
                .iter()
                .find(|d| d.alert_id == a.id);
            Some(MetricAlertTruth {
                group_id: a.group_id.clone(),
                alert_id: a.id.clone(),
                global,
                host_id: host.id.clone(),
                process_id: host.process_id(),
                metric_name: metric,
                partition_name: disk.and_then(|d| d.partition_name.clone()),
                threshold: config.threshold.as_ref()?.0,
                current_value: a.current_value.as_ref()?.0,
                start: a.created,
                end: span(a).and_then(|s| s.2).map(at),
            })
        })
        .collect()
}

/// Closes an open or tracking alert `secs` after it was raised (notified, not acknowledged).
fn close(a: &mut Alert, secs: i64) {
    let end = a.created + CDuration::seconds(secs);
    a.status = "CLOSED".to_string();
    a.updated = end;
    a.resolved = Some(end);
    a.last_notified = a.last_notified.or(Some(a.created + CDuration::seconds(60)));
    a.acknowledged_until = None;
    a.acknowledgement_comment = None;
    a.acknowledging_username = None;
}

/// Moves an alert's times by `secs` (its id's timestamp with them), never past `anchor`.
fn shift(a: &mut Alert, secs: i64, anchor: DateTime<Utc>) {
    if secs == 0 {
        return;
    }
    let d = CDuration::seconds(secs);
    a.created += d;
    a.updated = (a.updated + d).min(anchor).max(a.created);
    a.last_notified = a.last_notified.map(|t| t + d);
    a.resolved = a.resolved.map(|t| (t + d).min(anchor));
    let stamp = a.created.timestamp().clamp(0, u32::MAX as i64) as u32;
    a.id = format!("{stamp:08x}{}", &a.id[8..]);
}

/// Records each metric alert's breach on its host, and its `currentValue`: the series' value
/// at the minute it was raised (the level drawn for it was its `currentValue` until now).
fn record(world: &mut World, seed: u64) {
    for h in world.hosts.iter_mut() {
        h.breaches.clear();
    }
    let index: std::collections::HashMap<String, usize> = world
        .hosts
        .iter()
        .map(|h| (h.id.clone(), h.index))
        .collect();
    let (hosts, alerts) = (&mut world.hosts, world.alerts.iter_mut());
    for a in alerts.chain(world.alert_history.iter_mut()) {
        let Some((metric, start, end)) = span(a) else {
            continue;
        };
        let (Some(&hi), Some(level)) = (
            a.host_id.as_ref().and_then(|h| index.get(h)),
            a.current_value.as_ref().map(|v| v.0),
        ) else {
            continue;
        };
        let Some(def) = host_metric(metric) else {
            continue;
        };
        let minute = start.div_euclid(60) * 60;
        let value = breach_point(series_key(seed, hi, None), def, level, minute);
        hosts[hi].breaches.push(Breach {
            metric: metric.to_string(),
            alert_id: a.id.clone(),
            start,
            end,
            level,
        });
        if let Some(v) = a.current_value.as_mut() {
            v.0 = value;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: i64 = 3600;

    #[test]
    fn a_breach_goes_where_it_is_clear_of_the_others() {
        let taken = [(10 * H, Some(12 * H)), (30 * H, None)];
        // Free where drawn.
        assert_eq!(place(&taken, 20 * H, Some(H), 0, 40 * H), Some(20 * H));
        // Too close after the first: moved to three hours after it ended.
        assert_eq!(place(&taken, 13 * H, Some(H), 0, 40 * H), Some(15 * H));
        // Too close before it: moved to end three hours before it starts.
        assert_eq!(place(&taken, 7 * H, Some(H), 0, 40 * H), Some(6 * H));
        // Nothing after one still going on; one still going on goes after all the others.
        assert_eq!(place(&taken, 31 * H, Some(H), 0, 40 * H), Some(26 * H));
        assert_eq!(place(&taken, 5 * H, None, 0, 40 * H), None);
        assert_eq!(place(&taken[..1], 5 * H, None, 0, 40 * H), Some(15 * H));
        // Bounds: not before `lo`, not ending after `hi`.
        assert_eq!(place(&[], 5 * H, Some(2 * H), 6 * H, 40 * H), None);
        assert_eq!(place(&[], 39 * H, Some(2 * H), 0, 40 * H), None);
    }
}
