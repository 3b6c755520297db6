//! The seeded alert history of the projects: project alerts that `/globalAlerts` does not
//! list (`/groups/{g}/alerts` lists them with the world's other alerts of the project), and
//! the acknowledgements made of them as project events (`ALERT_ACKNOWLEDGED_AUDIT`).
//!
//! Over the 14 days before the anchor: a quiet background of short alerts, most of them
//! acknowledged within minutes; one flapping configuration (the same configuration on the
//! same host closed and opened again within minutes, several times, the day before the
//! anchor); one noisy host (many alerts of several configurations, far apart); a disk-space
//! configuration per project with an open alert on its fullest growing data partition, raised
//! at the minute its series first went past the threshold; and a closed replica-set alert per
//! project with a replica set. [`AlertTruth`] says which, for the analyses that should find
//! them. Each metric alert is a breach of its host's series (`world/breaches.rs`): the
//! background's alerts keep clear of each other's and of the flapping and noisy ones.
//!
//! Drawn from a random stream of its own after the rest of the world is made, so that nothing
//! seeded before it moves.

use chrono::Duration as CDuration;
use serde_json::{json, Map, Value};

use super::activity::add_events;
use super::breaches::{eligible, place, raised_at};
use super::series::{disk_percent_used, series_key};
use super::*;

/// The seeded flapping configuration: closed and re-opened on one host within minutes.
#[derive(Debug, Clone, PartialEq)]
pub struct FlappingTruth {
    /// Project.
    pub group_id: String,
    /// The configuration that flaps.
    pub alert_config_id: String,
    /// Its metric.
    pub metric_name: String,
    /// The host it flaps on.
    pub host_id: String,
    /// `hostname:port` of that host, as its alerts name it.
    pub hostname_and_port: String,
    /// How many times it opened in a row (each re-opening within the gap below).
    pub episodes: usize,
    /// The longest time between a close and the next opening, in minutes (rounded up).
    pub longest_gap_minutes: i64,
}

/// The seeded noisy host: many more alerts than any other host.
#[derive(Debug, Clone, PartialEq)]
pub struct NoisyHostTruth {
    /// Project.
    pub group_id: String,
    /// The host.
    pub host_id: String,
    /// `hostname:port`, as its alerts name it.
    pub hostname_and_port: String,
    /// The alerts seeded on it for being noisy (its other alerts come on top).
    pub alerts: usize,
    /// The configurations of those alerts.
    pub alert_config_ids: Vec<String>,
}

/// A seeded alert an analysis or a context should be able to place.
#[derive(Debug, Clone, PartialEq)]
pub struct SeededAlert {
    /// Project.
    pub group_id: String,
    /// The alert.
    pub alert_id: String,
    /// Its configuration.
    pub alert_config_id: String,
    /// Its host, for a host or disk alert.
    pub host_id: Option<String>,
    /// The partition (disk alerts) it is about.
    pub partition_name: Option<String>,
    /// Its replica set (replica-set alerts).
    pub replica_set_name: Option<String>,
    /// The configuration's threshold, for a metric alert.
    pub threshold: Option<f64>,
}

/// A metric alert about a host, global or of the history, and the breach its series show:
/// what its context should show crossing its threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricAlertTruth {
    /// Project.
    pub group_id: String,
    /// The alert.
    pub alert_id: String,
    /// Whether `/globalAlerts` lists it (else only `/groups/{g}/alerts`).
    pub global: bool,
    /// Its host.
    pub host_id: String,
    /// `hostname:port` of that host.
    pub process_id: String,
    /// The alert's `metricName`.
    pub metric_name: String,
    /// The partition, for a disk alert.
    pub partition_name: Option<String>,
    /// The configuration's threshold.
    pub threshold: f64,
    /// The alert's `currentValue.number`: what the series shows at the minute it was raised.
    pub current_value: f64,
    /// When the series went past the threshold (the alert's creation).
    pub start: DateTime<Utc>,
    /// When it came back (the alert's resolution); `None` while the alert is open.
    pub end: Option<DateTime<Utc>>,
}

/// When a seeded alert was acknowledged (its `ALERT_ACKNOWLEDGED_AUDIT` event).
#[derive(Debug, Clone, PartialEq)]
pub struct Acknowledged {
    /// The alert.
    pub alert_id: String,
    /// When it was acknowledged.
    pub at: DateTime<Utc>,
}

/// What the seeded alert history holds, for the tests of analyses that should find it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AlertTruth {
    /// The flapping configuration (none in a world without hosts).
    pub flapping: Option<FlappingTruth>,
    /// The noisy host (none in a world without hosts).
    pub noisy_host: Option<NoisyHostTruth>,
    /// The open disk-space alert of each project with hosts.
    pub disk_alerts: Vec<SeededAlert>,
    /// The closed replica-set alert (no primary) of each project with a replica set.
    pub replica_set_alerts: Vec<SeededAlert>,
    /// Every acknowledgement of a history alert, oldest first.
    pub acknowledged: Vec<Acknowledged>,
    /// Every metric alert about a host, global ones first, each list oldest first.
    pub metric_alerts: Vec<MetricAlertTruth>,
}

impl World {
    /// The alerts `/groups/{group_id}/alerts` lists: the project's alerts of both lists,
    /// oldest first (then by id).
    ///
    /// ```
    /// let sim = opsapi::sim::Simulator::start(Default::default()).unwrap();
    /// let world = sim.world();
    /// let g = &world.projects[0].id;
    /// let of_g = world.project_alerts(g);
    /// assert!(of_g.iter().any(|a| world.alert_history.contains(a)));
    /// assert!(of_g.iter().all(|a| &a.group_id == g));
    /// ```
    pub fn project_alerts<'a>(&'a self, group_id: &'a str) -> Vec<&'a Alert> {
        let mut out: Vec<&Alert> = self
            .alerts
            .iter()
            .chain(&self.alert_history)
            .filter(|a| a.group_id == group_id)
            .collect();
        out.sort_by(|a, b| a.created.cmp(&b.created).then(a.id.cmp(&b.id)));
        out
    }
}

const DAY: i64 = 86_400;
const HISTORY_DAYS: i64 = 14;

/// A plan of one history alert, before its identifier and details are drawn.
struct Plan<'a> {
    config: &'a AlertConfig,
    host: Option<&'a Host>,
    created: DateTime<Utc>,
    open_secs: i64,
    /// Seconds after `created` it was acknowledged.
    ack_after: Option<i64>,
    status: &'static str,
    /// Where a truth puts it (the flapping and noisy alerts): the background moves instead.
    fixed: bool,
}

fn config<'a>(
    configs: &'a [AlertConfig],
    g: &str,
    metric: Option<&str>,
    event: &str,
) -> Option<&'a AlertConfig> {
    configs.iter().find(|c| {
        c.group_id == g && c.event_type_name == event && c.metric_name.as_deref() == metric
    })
}

/// Seeds the history (see the module's documentation).
pub(super) fn seed_history(world: &mut World, seed: u64) {
    let mut r = SplitMix64::new(super::super::rng::hash(&[seed, 0x616c_6572_7473]));
    let anchor = world.anchor;
    // A disk-space configuration per project, with the threshold just under its fullest
    // growing data partition's use at the anchor (so that its alert is open now), made before
    // the partition's series first went past it; the alert was raised then.
    let mut disk: Vec<(String, usize, i64, f64)> = Vec::new(); // group, host index, raised, threshold
    for p in &world.projects {
        let mine = || {
            world
                .hosts
                .iter()
                .filter(|h| h.group_id == p.id && h.type_name != "SHARD_MONGOS")
        };
        let growing = mine().any(|h| h.partitions[0].growth_bytes_per_day > 0.0);
        let fullest = mine()
            .filter(|h| !growing || h.partitions[0].growth_bytes_per_day > 0.0)
            .map(|h| {
                let d = &h.partitions[0];
                (
                    h.index,
                    d.used_bytes_at_anchor / d.capacity_bytes as f64 * 100.0,
                )
            })
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let Some((index, pct)) = fullest else {
            continue;
        };
        let threshold = (((pct - 2.0) / 5.0).floor() * 5.0).max(5.0);
        let raised = raised_at(seed, &world.hosts[index], threshold, anchor.timestamp());
        let drawn = anchor - CDuration::days(r.range(30, 120) as i64);
        let c = drawn.min(at_secs(raised) - CDuration::days(1));
        world.alert_configs.push(AlertConfig {
            id: r.object_id(c.timestamp()),
            group_id: p.id.clone(),
            event_type_name: "OUTSIDE_METRIC_THRESHOLD".into(),
            metric_name: Some("DISK_PARTITION_SPACE_USED_DATA".into()),
            threshold: Some((threshold, "RAW".into())),
            created: c,
        });
        disk.push((p.id.clone(), index, raised, threshold));
    }
    let (world_ref, mut plans) = (&*world, Vec::new());
    let configs = &world_ref.alert_configs;
    let hosts_of =
        |g: &str| -> Vec<&Host> { world_ref.hosts.iter().filter(|h| h.group_id == g).collect() };
    let start = anchor - CDuration::days(HISTORY_DAYS);
    let at = |secs: i64| start + CDuration::seconds(secs);
    let mut truth = AlertTruth::default();
    // The background: short alerts of any configuration, most acknowledged within minutes.
    for p in &world_ref.projects {
        let hosts = hosts_of(&p.id);
        // Disk space is the open disk alert's alone: a disk does not empty and fill again.
        let mine: Vec<&AlertConfig> = configs
            .iter()
            .filter(|c| c.group_id == p.id)
            .filter(|c| {
                !c.metric_name
                    .as_deref()
                    .is_some_and(|m| m.starts_with("DISK_"))
            })
            .collect();
        if hosts.is_empty() || mine.is_empty() {
            continue;
        }
        for _ in 0..12 {
            let cfg = *r.pick(&mine);
            let created = at(r.range(0, (HISTORY_DAYS - 1) as u64 * DAY as u64) as i64);
            let open_secs = r.range(600, 6 * 3600) as i64;
            let ack_after = r.chance(0.7).then(|| r.range(120, 1800) as i64);
            let fit: Vec<&Host> = hosts
                .iter()
                .copied()
                .filter(|h| eligible(h, cfg.metric_name.as_deref(), &cfg.event_type_name))
                .collect();
            let host = *r.pick(if fit.is_empty() { &hosts } else { &fit });
            plans.push(Plan {
                config: cfg,
                host: Some(host),
                created,
                open_secs,
                ack_after,
                status: "CLOSED",
                fixed: false,
            });
        }
        // A replica set without a primary for a few minutes, on a replica set of the project.
        if let (Some(cfg), Some(member)) = (
            config(configs, &p.id, None, "NO_PRIMARY"),
            hosts.iter().find(|h| h.replica_set_name.is_some()),
        ) {
            let created = at(r.range(DAY as u64, 10 * DAY as u64) as i64);
            let open_secs = r.range(240, 600) as i64;
            plans.push(Plan {
                config: cfg,
                host: Some(member),
                created,
                open_secs,
                ack_after: None,
                status: "CLOSED",
                fixed: false,
            });
        }
    }
    // The flapping configuration: connections of one host of the first project, opening and
    // closing within minutes, sixteen times in a row the day before the anchor (where minutes
    // are still kept: its contexts show each flap), never acknowledged (enough for its host
    // to be among the noisy ones for its flaps alone, whatever the size of the world).
    let first = world_ref
        .projects
        .first()
        .map(|p| hosts_of(&p.id))
        .unwrap_or_default();
    let flapping = world_ref.projects.first().and_then(|p| {
        let cfg = config(
            configs,
            &p.id,
            Some("CONNECTIONS"),
            "OUTSIDE_METRIC_THRESHOLD",
        )?;
        let candidates: Vec<&Host> = first
            .iter()
            .copied()
            .filter(|h| h.type_name != "SHARD_MONGOS")
            .collect();
        if candidates.is_empty() {
            return None;
        }
        Some((cfg, *r.pick(&candidates)))
    });
    if let Some((cfg, host)) = flapping {
        let mut t = at((HISTORY_DAYS - 1) * DAY + r.range(9 * 3600, 15 * 3600) as i64);
        let mut longest = 0;
        let episodes = 16;
        for i in 0..episodes {
            let open_secs = r.range(180, 540) as i64;
            plans.push(Plan {
                config: cfg,
                host: Some(host),
                created: t,
                open_secs,
                ack_after: None,
                status: "CLOSED",
                fixed: true,
            });
            let gap = r.range(120, 600) as i64;
            if i + 1 < episodes {
                longest = longest.max(gap);
            }
            t += CDuration::seconds(open_secs + gap);
        }
        truth.flapping = Some(FlappingTruth {
            group_id: cfg.group_id.clone(),
            alert_config_id: cfg.id.clone(),
            metric_name: "CONNECTIONS".into(),
            host_id: host.id.clone(),
            hostname_and_port: host.process_id(),
            episodes,
            longest_gap_minutes: (longest + 59) / 60,
        });
    }
    // The noisy host: forty alerts of three configurations over the two weeks, far apart, on
    // one host of the last project (another than the flapping one).
    let noisy = world_ref.projects.last().and_then(|p| {
        let hosts: Vec<&Host> = hosts_of(&p.id)
            .into_iter()
            .filter(|h| Some(&h.id) != truth.flapping.as_ref().map(|f| &f.host_id))
            .collect();
        let host = *hosts.get(r.range(0, hosts.len().max(1) as u64) as usize)?;
        let cfgs: Vec<&AlertConfig> = [
            (Some("ASSERT_REGULAR"), "OUTSIDE_METRIC_THRESHOLD"),
            (Some("CONNECTIONS"), "OUTSIDE_METRIC_THRESHOLD"),
            (None, "HOST_DOWN"),
        ]
        .into_iter()
        .filter_map(|(m, e)| config(configs, &p.id, m, e))
        .collect();
        (!cfgs.is_empty()).then_some((host, cfgs))
    });
    if let Some((host, cfgs)) = noisy {
        let n = 40;
        let spacing = (HISTORY_DAYS - 1) * DAY / n as i64;
        for k in 0..n {
            let created = at(k as i64 * spacing + r.range(0, 2 * 3600) as i64);
            let open_secs = r.range(1200, 3 * 3600) as i64;
            let ack_after = r.chance(0.5).then(|| r.range(300, 2700) as i64);
            plans.push(Plan {
                config: cfgs[k % cfgs.len()],
                host: Some(host),
                created,
                open_secs,
                ack_after,
                status: "CLOSED",
                fixed: true,
            });
        }
        truth.noisy_host = Some(NoisyHostTruth {
            group_id: host.group_id.clone(),
            host_id: host.id.clone(),
            hostname_and_port: host.process_id(),
            alerts: n,
            alert_config_ids: cfgs.iter().map(|c| c.id.clone()).collect(),
        });
    }
    // The open disk alerts.
    let mut disk_plans = Vec::new();
    for (g, index, raised, threshold) in &disk {
        let cfg = configs.iter().rev().find(|c| {
            &c.group_id == g && c.metric_name.as_deref() == Some("DISK_PARTITION_SPACE_USED_DATA")
        });
        if let Some(cfg) = cfg {
            let _ = r.range(3 * 3600, 8 * 3600); // (when it was hours before the anchor)
            let host = &world_ref.hosts[*index];
            let key = series_key(seed, host.index, Some(0));
            let pct = disk_percent_used(key, &host.partitions[0], anchor.timestamp(), *raised);
            disk_plans.push((cfg, host, at_secs(*raised), pct, *threshold));
        }
    }
    settle(&mut plans, start.timestamp(), anchor.timestamp());
    let mut history = Vec::new();
    let mut events = Vec::new();
    for plan in plans {
        let (alert, ack) = make(&mut r, &plan, anchor);
        if let Some(at) = ack {
            events.push(ack_event(&mut r, &alert, at));
            truth.acknowledged.push(Acknowledged {
                alert_id: alert.id.clone(),
                at,
            });
        }
        if alert.type_name == "REPLICA_SET" && alert.replica_set_name.is_some() {
            truth.replica_set_alerts.push(seeded(&alert, None, None));
        }
        history.push(alert);
    }
    for (cfg, host, created, pct, threshold) in disk_plans {
        let with_ms = r.chance(0.2);
        let created = ms_time(&mut r, created, with_ms);
        let alert = Alert {
            id: r.object_id(created.timestamp()),
            group_id: cfg.group_id.clone(),
            alert_config_id: cfg.id.clone(),
            event_type_name: cfg.event_type_name.clone(),
            type_name: "HOST_METRIC".into(),
            status: "OPEN".into(),
            created,
            updated: created,
            last_notified: Some(created + CDuration::seconds(r.range(5, 120) as i64)),
            resolved: None,
            metric_name: cfg.metric_name.clone(),
            current_value: Some((pct, "RAW".into())),
            host_id: Some(host.id.clone()),
            hostname_and_port: Some(host.process_id()),
            replica_set_name: host.replica_set_name.clone(),
            acknowledged_until: None,
            acknowledgement_comment: None,
            acknowledging_username: None,
            cluster_name: None,
        };
        truth.disk_alerts.push(seeded(
            &alert,
            Some(host.partitions[0].name.clone()),
            Some(threshold),
        ));
        history.push(alert);
    }
    history.sort_by(|a, b| a.created.cmp(&b.created).then(a.id.cmp(&b.id)));
    truth
        .acknowledged
        .sort_by(|a, b| a.at.cmp(&b.at).then(a.alert_id.cmp(&b.alert_id)));
    world.alert_history = history;
    world.alert_truth = truth;
    add_events(world, events);
}

fn at_secs(t: i64) -> DateTime<Utc> {
    DateTime::<Utc>::from_timestamp(t, 0).unwrap_or_default()
}

/// Moves the background's metric alerts clear of the flapping and noisy ones' breaches and of
/// each other's (`world/breaches.rs`), within `lo..hi`; one that fits nowhere stays.
fn settle(plans: &mut [Plan<'_>], lo: i64, hi: i64) {
    let key = |p: &Plan<'_>| -> Option<(String, String)> {
        let m = p.config.metric_name.clone()?;
        super::series::host_metric(&m)?;
        Some((p.host?.id.clone(), m))
    };
    let mut taken: Vec<((String, String), i64, Option<i64>)> = plans
        .iter()
        .filter(|p| p.fixed)
        .filter_map(|p| {
            let s = p.created.timestamp();
            Some((key(p)?, s, Some(s + p.open_secs)))
        })
        .collect();
    let mut order: Vec<usize> = (0..plans.len()).filter(|&i| !plans[i].fixed).collect();
    order.sort_by_key(|&i| (plans[i].created, i));
    for i in order {
        let Some(k) = key(&plans[i]) else {
            continue;
        };
        let on: Vec<(i64, Option<i64>)> = taken
            .iter()
            .filter(|t| t.0 == k)
            .map(|t| (t.1, t.2))
            .collect();
        let (want, len) = (plans[i].created.timestamp(), plans[i].open_secs);
        if let Some(c) = place(&on, want, Some(len), lo, hi) {
            plans[i].created = at_secs(c);
            taken.push((k, c, Some(c + len)));
        }
    }
}

fn seeded(a: &Alert, partition_name: Option<String>, threshold: Option<f64>) -> SeededAlert {
    SeededAlert {
        group_id: a.group_id.clone(),
        alert_id: a.id.clone(),
        alert_config_id: a.alert_config_id.clone(),
        host_id: a.host_id.clone(),
        partition_name,
        replica_set_name: a.replica_set_name.clone(),
        threshold,
    }
}

/// One closed history alert, and when it was acknowledged.
fn make(r: &mut SplitMix64, p: &Plan<'_>, anchor: DateTime<Utc>) -> (Alert, Option<DateTime<Utc>>) {
    let with_ms = r.chance(0.2);
    let created = ms_time(r, p.created, with_ms);
    let resolved = (created + CDuration::seconds(p.open_secs)).min(anchor);
    let (type_name, on_host) = match p.config.event_type_name.as_str() {
        "OUTSIDE_METRIC_THRESHOLD" => ("HOST_METRIC", true),
        "HOST_DOWN" => ("HOST", true),
        "NO_PRIMARY" => ("REPLICA_SET", false),
        _ => ("AGENT", false),
    };
    let current_value = p.config.threshold.as_ref().map(|(t, u)| {
        let v = if *t == 0.0 {
            r.range(1, 40) as f64
        } else {
            (t * (1.05 + 0.5 * r.f64())).round()
        };
        (v, u.clone())
    });
    let host = p.host;
    let alert = Alert {
        id: r.object_id(created.timestamp()),
        group_id: p.config.group_id.clone(),
        alert_config_id: p.config.id.clone(),
        event_type_name: p.config.event_type_name.clone(),
        type_name: type_name.into(),
        status: p.status.into(),
        created,
        updated: resolved,
        last_notified: Some(created + CDuration::seconds(r.range(5, 60) as i64)),
        resolved: Some(resolved),
        metric_name: p.config.metric_name.clone(),
        current_value,
        host_id: host.filter(|_| on_host).map(|h| h.id.clone()),
        hostname_and_port: host.filter(|_| on_host).map(Host::process_id),
        replica_set_name: host.and_then(|h| h.replica_set_name.clone()),
        acknowledged_until: None,
        acknowledgement_comment: None,
        acknowledging_username: None,
        cluster_name: None,
    };
    let ack = p
        .ack_after
        .map(|s| created + CDuration::seconds(s))
        .filter(|t| *t < resolved);
    (alert, ack)
}

/// The `ALERT_ACKNOWLEDGED_AUDIT` event of an acknowledgement.
fn ack_event(r: &mut SplitMix64, a: &Alert, at: DateTime<Utc>) -> Event {
    let id = r.object_id(at.timestamp());
    let mut body = Map::new();
    body.insert("alertConfigId".into(), json!(a.alert_config_id));
    body.insert("alertId".into(), json!(a.id));
    body.insert("created".into(), json!(iso(&at)));
    body.insert("eventTypeName".into(), json!("ALERT_ACKNOWLEDGED_AUDIT"));
    body.insert("groupId".into(), json!(a.group_id));
    body.insert("id".into(), json!(id));
    body.insert("isGlobalAdmin".into(), json!(false));
    body.insert(
        "remoteAddress".into(),
        json!(format!("10.0.{}.{}", r.range(0, 255), r.range(1, 255))),
    );
    body.insert("userId".into(), json!(r.object_id(at.timestamp())));
    body.insert(
        "username".into(),
        json!(format!("{}@example.com", r.letters(6))),
    );
    Event {
        id,
        group_id: a.group_id.clone(),
        created: at,
        event_type_name: "ALERT_ACKNOWLEDGED_AUDIT".into(),
        body: Value::Object(body),
        cluster_id: None,
        on_atlas: None,
    }
}
