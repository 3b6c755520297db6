//! The seeded activity of the world: alerts (for the alert configurations, on the hosts) and
//! project events, drawn from the world's random stream after everything they refer to.

use chrono::Duration as CDuration;
use serde_json::{json, Map, Value};

use super::breaches;
use super::*;

pub(super) fn gen_alerts(world: &mut World, r: &mut SplitMix64, count: usize) {
    if world.alert_configs.is_empty() {
        return;
    }
    let anchor = world.anchor;
    let nconf = world.alert_configs.len();
    let mut alerts = Vec::with_capacity(count);
    for i in 0..count {
        // The first alerts guarantee one open alert per configuration.
        let cfg = if i < nconf {
            world.alert_configs[i].clone()
        } else {
            world.alert_configs[r.range(0, nconf as u64) as usize].clone()
        };
        let status = if i < nconf {
            "OPEN"
        } else {
            *r.pick(&[
                "OPEN",
                "OPEN",
                "CLOSED",
                "CLOSED",
                "CLOSED",
                "TRACKING",
                "CANCELLED",
            ])
        };
        let with_ms = r.chance(0.2);
        let back = r.range(600, 60 * 86_400) as i64;
        // Tracking: the condition holds, not yet long enough to notify anyone.
        let back = if status == "TRACKING" {
            600 + back % 3000
        } else {
            back
        };
        let created = ms_time(r, anchor - CDuration::seconds(back), with_ms);
        // A host the alert can be about (world/breaches.rs): a secondary's replication lag.
        let hosts: Vec<&Host> = world
            .hosts
            .iter()
            .filter(|h| h.group_id == cfg.group_id)
            .filter(|h| breaches::eligible(h, cfg.metric_name.as_deref(), &cfg.event_type_name))
            .collect();
        let host = if hosts.is_empty() {
            None
        } else {
            Some(hosts[r.range(0, hosts.len() as u64) as usize])
        };
        let type_name = match cfg.event_type_name.as_str() {
            "OUTSIDE_METRIC_THRESHOLD" => "HOST_METRIC",
            "HOST_DOWN" => "HOST",
            "NO_PRIMARY" => "REPLICA_SET",
            _ => "AGENT",
        };
        let on_host = matches!(type_name, "HOST_METRIC" | "HOST");
        // Closed or cancelled five minutes after it was raised at the soonest.
        let later = r.range(300, 3 * 86_400) as i64;
        let updated = ms_time(r, created + CDuration::seconds(later), with_ms).min(anchor);
        let notified_after = r.range(5, 120) as i64;
        let notified = ms_time(r, created + CDuration::seconds(notified_after), with_ms);
        let last_notified = (status != "TRACKING").then_some(notified);
        let resolved = (status == "CLOSED").then_some(updated);
        // The breach's level; its `currentValue` is what the series shows (world/breaches.rs).
        let current_value = cfg.threshold.as_ref().map(|(t, u)| {
            let v = if *t == 0.0 {
                r.range(1, 40) as f64
            } else {
                (t * (1.05 + r.f64())).round()
            };
            (v, u.clone())
        });
        let acked = status == "OPEN" && r.chance(0.3);
        let (au, ac, an) = if acked {
            // Some acknowledgements still run, some have expired already.
            let until = anchor + CDuration::days(r.range(0, 400) as i64 - 30);
            (
                Some(until),
                r.chance(0.7).then(|| {
                    "Known issue, ticket OPS-".to_string() + &r.range(100, 9999).to_string()
                }),
                Some(r.letters(8)),
            )
        } else {
            (None, None, None)
        };
        alerts.push(Alert {
            id: r.object_id(created.timestamp()),
            group_id: cfg.group_id.clone(),
            alert_config_id: cfg.id.clone(),
            event_type_name: cfg.event_type_name.clone(),
            type_name: type_name.to_string(),
            status: status.to_string(),
            created,
            updated,
            last_notified,
            resolved,
            metric_name: cfg.metric_name.clone(),
            current_value,
            host_id: host.filter(|_| on_host).map(|h| h.id.clone()),
            hostname_and_port: host.filter(|_| on_host).map(Host::process_id),
            replica_set_name: host
                .filter(|_| on_host || type_name == "REPLICA_SET")
                .and_then(|h| h.replica_set_name.clone()),
            acknowledged_until: au,
            acknowledgement_comment: ac,
            acknowledging_username: an,
            cluster_name: None,
        });
    }
    alerts.sort_by(|a, b| a.created.cmp(&b.created).then(a.id.cmp(&b.id)));
    world.alerts = alerts;
}

pub(super) fn gen_events(world: &mut World, r: &mut SplitMix64) {
    let anchor = world.anchor;
    for project in &world.projects {
        let hosts: Vec<&Host> = world
            .hosts
            .iter()
            .filter(|h| h.group_id == project.id)
            .collect();
        let mut events = Vec::new();
        for _ in 0..40 {
            let created = anchor - CDuration::seconds(r.range(60, 60 * 86_400) as i64);
            let id = r.object_id(created.timestamp());
            let kind = r.range(0, 6);
            let mut body = Map::new();
            body.insert("created".into(), json!(iso(&created)));
            body.insert("groupId".into(), json!(project.id));
            body.insert("id".into(), json!(id));
            body.insert("isGlobalAdmin".into(), json!(false));
            let host = if hosts.is_empty() {
                None
            } else {
                Some(hosts[r.range(0, hosts.len() as u64) as usize])
            };
            let mut about: Option<&Host> = None;
            let etype = match (kind, host) {
                (0, Some(h)) => {
                    about = Some(h);
                    add_host(&mut body, h);
                    "HOST_UP"
                }
                (1, Some(h)) => {
                    about = Some(h);
                    add_host(&mut body, h);
                    "HOST_DOWN"
                }
                (2, Some(h)) if h.replica_set_name.is_some() => {
                    about = Some(h);
                    add_host(&mut body, h);
                    "PRIMARY_ELECTED"
                }
                (3, _) => {
                    body.insert("userId".into(), json!(r.object_id(created.timestamp())));
                    body.insert(
                        "username".into(),
                        json!(format!("{}@example.com", r.letters(6))),
                    );
                    body.insert(
                        "remoteAddress".into(),
                        json!(format!("10.0.{}.{}", r.range(0, 255), r.range(1, 255))),
                    );
                    "JOINED_GROUP"
                }
                _ => {
                    let user = format!("{}@example.com", r.letters(6));
                    body.insert("userId".into(), json!(r.object_id(created.timestamp())));
                    body.insert("username".into(), json!(user));
                    body.insert(
                        "remoteAddress".into(),
                        json!(format!("10.0.{}.{}", r.range(0, 255), r.range(1, 255))),
                    );
                    body.insert("diffs".into(), diffs(r));
                    "AUTOMATION_CONFIG_PUBLISHED_AUDIT"
                }
            };
            body.insert("eventTypeName".into(), json!(etype));
            events.push(Event {
                id,
                group_id: project.id.clone(),
                created,
                event_type_name: etype.to_string(),
                body: Value::Object(body),
                cluster_id: about.and_then(|h| h.cluster_id.clone()),
                on_atlas: None,
            });
        }
        events.sort_by(|a, b| b.created.cmp(&a.created).then(b.id.cmp(&a.id)));
        world.events.extend(events);
    }
}

pub(super) fn add_host(body: &mut Map<String, Value>, h: &Host) {
    body.insert("hostId".into(), json!(h.id));
    body.insert("hostname".into(), json!(h.hostname));
    body.insert("port".into(), json!(h.port));
    if let Some(rs) = &h.replica_set_name {
        body.insert("replicaSetName".into(), json!(rs));
    }
}

fn diffs(r: &mut SplitMix64) -> Value {
    let actions = [
        "moveChunk",
        "splitChunk",
        "splitVector",
        "enableSharding",
        "viewRole",
    ];
    let n = r.range(1, 4) as usize;
    let params: Vec<Value> = (0..n)
        .map(|i| {
            let p = format!("config.system.sessions: {}", actions[i % actions.len()]);
            json!({"display": "Added Privilege", "new": p, "old": null, "param": p})
        })
        .collect();
    let user = format!("{}@admin", r.letters(5));
    json!([{
        "id": user,
        "name": null,
        "params": params,
        "priviileges": [
            {"actions": ["moveChunk"], "resource": {"collection": "system.sessions", "db": "config"}},
            {"actions": ["enableSharding"], "resource": {"cluster": true}}
        ],
        "roles": [
            {"db": "admin", "role": "readWriteAnyDatabase"},
            {"db": "admin", "role": "clusterMonitor"}
        ],
        "status": "MODIFIED",
        "type": "ROLES"
    }])
}

/// Adds events to their projects' events, keeping each project's newest first.
pub(super) fn add_events(world: &mut World, events: Vec<Event>) {
    if events.is_empty() {
        return;
    }
    let order: Vec<String> = world.projects.iter().map(|p| p.id.clone()).collect();
    let rank = |g: &str| order.iter().position(|x| x == g).unwrap_or(usize::MAX);
    world.events.extend(events);
    world.events.sort_by(|a, b| {
        rank(&a.group_id)
            .cmp(&rank(&b.group_id))
            .then(b.created.cmp(&a.created))
            .then(b.id.cmp(&a.id))
    });
}
