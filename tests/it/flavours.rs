//! One client for Ops Manager, Cloud Manager and Atlas: every operation of the flavour table
//! (`Operation::ALL`) run against the simulator serving each flavour, with the exact request
//! that went out (method, path, the `Accept` header's version, Digest or Bearer) and the
//! result against the seeded world where the flavour has it, refused before any request where
//! it does not; the flavour a base URL names. The calls and the exact requests are the table
//! of calls' (`tests/fixtures/calls.json`; its Rust calls: `flavours/calls.rs`). Writes and
//! what a flavour lacks are in `flavours/writes.rs`, the same frames through each flavour in
//! `flavours/frames.rs`.
//! (Service-account tokens are in `oauth.rs`.)

mod calls;
#[cfg(feature = "frames")] // fleet pulls
mod frames;
mod writes;

use opsapi::sim::{RequestRecord, SimConfig, Simulator};
use opsapi::{Client, Error, Flavour, Operation};

use self::calls::{call, Call, CALLS};
use crate::common::{fixed_now, start};

/// A simulator of `flavour` on the fixed clock.
pub fn sim_of(flavour: Flavour) -> Simulator {
    start(SimConfig {
        flavour,
        now: Some(fixed_now()),
        ..SimConfig::default()
    })
}

/// The client a user of `sim`'s flavour builds: an API key for Ops Manager and Cloud Manager,
/// the service account for Atlas. (Its tokens are its own: the machine's token cache is the
/// subject of tests/it/oauth.rs's tests, which give it a folder of their own.)
pub fn client_of(sim: &Simulator) -> Client {
    let b = match sim.flavour() {
        Flavour::Atlas => Client::atlas()
            .base_url(sim.base_url())
            .service_account(sim.client_id(), sim.client_secret())
            .token_cache(false),
        f => Client::builder(sim.base_url())
            .flavour(f)
            .credentials(sim.public_key(), sim.private_key()),
    };
    b.retry_backoff(std::time::Duration::from_millis(1))
        .build()
        .unwrap()
}

/// The world's hosts that `sim`'s flavour serves: on Atlas, not its standalones (Atlas has no
/// standalone processes).
#[cfg(feature = "frames")] // its users pull fleets
pub fn served_hosts(sim: &Simulator) -> Vec<opsapi::sim::Host> {
    let atlas = sim.flavour() == Flavour::Atlas;
    sim.world()
        .hosts
        .into_iter()
        .filter(|h| !atlas || h.type_name != "STANDALONE")
        .collect()
}

/// The alert types of Ops Manager's agents, which Atlas does not have (nor serves).
pub const AGENT_ALERTS: [&str; 2] = ["MONITORING_AGENT_DOWN", "BACKUP_AGENT_DOWN"];

/// Requests to the API (not the token endpoint).
pub fn api_requests(sim: &Simulator) -> Vec<RequestRecord> {
    sim.requests()
        .into_iter()
        .filter(|r| r.path != "/api/oauth/token")
        .collect()
}

/// The identifiers a call needs, as the flavour names them.
struct Ids {
    group: String,
    /// The host's id: hex on Ops Manager and Cloud Manager, `hostname:port` on Atlas.
    host: String,
    process: String,
    partition: String,
    database: String,
    event: String,
    /// The group's events that every flavour serves (Atlas names a restart otherwise and has
    /// auto-scaling alone: `Event::served_on`), which the flavours' listings must agree on.
    shared_events: Vec<String>,
    /// How many of the group's events this flavour serves.
    served_events: usize,
    config: String,
    open_alerts: usize,
    /// A project alert of the group, and how many the group has.
    alert: String,
    alerts: usize,
    /// An open alert of `/globalAlerts`, and an entry of the global API access list (Ops
    /// Manager's alone, but every world has them).
    global_alert: String,
    entry: String,
    /// A cluster of the group: its id on Ops Manager and Cloud Manager, its name on Atlas;
    /// and its name.
    cluster: String,
    cluster_name: String,
}

fn ids(sim: &Simulator) -> Ids {
    let w = sim.world();
    // A primary with an application's databases: it has slow queries to advise on.
    let h = w
        .hosts
        .iter()
        .find(|h| h.type_name.ends_with("_PRIMARY") && h.databases.len() > 3)
        .unwrap();
    // An alert type every flavour has; the project's alerts as the flavour serves them.
    let agents: Vec<&str> = w
        .alert_configs
        .iter()
        .filter(|c| AGENT_ALERTS.contains(&c.event_type_name.as_str()))
        .map(|c| c.id.as_str())
        .collect();
    let config = w
        .alert_configs
        .iter()
        .filter(|c| !agents.contains(&c.id.as_str()))
        .find(|c| {
            w.alerts
                .iter()
                .any(|a| a.alert_config_id == c.id && a.status == "OPEN")
        })
        .unwrap();
    let cluster = w
        .clusters
        .iter()
        .find(|c| c.group_id == h.group_id)
        .unwrap();
    let atlas = sim.flavour() == Flavour::Atlas;
    // Atlas serves no alert of an agent, nor of a process it does not have (a standalone).
    let standalones: Vec<&str> = w
        .hosts
        .iter()
        .filter(|h| h.type_name == "STANDALONE")
        .map(|h| h.id.as_str())
        .collect();
    let served = |a: &opsapi::sim::Alert| {
        !atlas
            || !(agents.contains(&a.alert_config_id.as_str())
                || a.host_id
                    .as_deref()
                    .is_some_and(|h| standalones.contains(&h)))
    };
    let alerts: Vec<_> = w
        .project_alerts(&h.group_id)
        .into_iter()
        .filter(|a| served(a))
        .collect();
    Ids {
        group: h.group_id.clone(),
        host: if sim.flavour() == Flavour::Atlas {
            h.process_id()
        } else {
            h.id.clone()
        },
        process: h.process_id(),
        partition: h.partitions[0].name.clone(),
        database: h.databases[0].name.clone(),
        event: w
            .events
            .iter()
            .find(|e| e.group_id == h.group_id && e.on_atlas.is_none())
            .unwrap()
            .id
            .clone(),
        shared_events: w
            .events
            .iter()
            .filter(|e| e.group_id == h.group_id && e.on_atlas.is_none())
            .map(|e| e.id.clone())
            .collect(),
        served_events: w
            .events
            .iter()
            .filter(|e| e.group_id == h.group_id && e.served_on(sim.flavour()))
            .count(),
        config: config.id.clone(),
        open_alerts: w
            .project_alerts(&config.group_id)
            .into_iter()
            .filter(|a| a.alert_config_id == config.id && a.status == "OPEN" && served(a))
            .count(),
        alert: alerts
            .iter()
            .find(|a| !agents.contains(&a.alert_config_id.as_str()))
            .unwrap()
            .id
            .clone(),
        alerts: alerts.len(),
        global_alert: w
            .alerts
            .iter()
            .find(|a| a.status == "OPEN")
            .unwrap()
            .id
            .clone(),
        entry: w.access_list[0].id.clone(),
        cluster: if sim.flavour() == Flavour::Atlas {
            cluster.name.clone()
        } else {
            cluster.id.clone()
        },
        cluster_name: cluster.name.clone(),
    }
}

impl Ids {
    /// The identifiers by the names the table of calls gives them (`{group}`, `{host}`, ...).
    fn by_name(&self) -> [(&'static str, String); 10] {
        [
            ("group", self.group.clone()),
            ("host", self.host.clone()),
            ("partition", self.partition.clone()),
            ("database", self.database.clone()),
            ("event", self.event.clone()),
            ("alert_config", self.config.clone()),
            ("alert", self.alert.clone()),
            ("global_alert", self.global_alert.clone()),
            ("entry", self.entry.clone()),
            ("cluster", self.cluster.clone()),
        ]
    }
}

/// Runs every operation of the table (`Operation::ALL`) with `c` against `sim`, in the
/// table's order (a read of a resource before a write to it). One the flavour has sends one
/// request, with the method, path, `Accept` (Atlas: the operation's version) and scheme of the
/// flavour, answered with success; one it lacks is refused before any request. Returns what
/// came back from the operations every flavour has, to be the same on every flavour.
async fn every_operation(sim: &Simulator, c: &Client, scheme: &str) -> Vec<String> {
    let flavour = sim.flavour();
    let ids = ids(sim);
    let mut results = Vec::new();
    for op in Operation::ALL {
        sim.clear_requests();
        let entry = Call::of(op, &ids);
        // The flavours the table of calls names are those the row gives the operation.
        let named: Vec<Flavour> = entry.sent.iter().map(|(f, _)| *f).collect();
        let has: Vec<Flavour> = Flavour::ALL
            .into_iter()
            .filter(|f| f.supports(op))
            .collect();
        assert_eq!(
            named, has,
            "{op:?}: the flavours of tests/fixtures/calls.json"
        );
        let got = call(c, op, &entry, &ids).await;
        let Some((_, [method, path, accept, status])) =
            entry.sent.iter().find(|(f, _)| *f == flavour)
        else {
            match got {
                Err(Error::Unsupported {
                    operation,
                    flavour: f,
                }) => assert_eq!((operation, f), (op.name(), flavour)),
                other => panic!("{flavour} {op:?}: {other:?}"),
            }
            assert!(sim.requests().is_empty(), "{flavour} {op:?}");
            continue;
        };
        let got = got.unwrap_or_else(|e| panic!("{flavour} {op:?}: {e}"));
        let sent = api_requests(sim);
        assert_eq!(sent.len(), 1, "{flavour} {op:?}: {sent:?}");
        let r = &sent[0];
        let sent_path = match &r.query {
            Some(q) => format!("{}?{q}", r.path),
            None => r.path.clone(),
        };
        assert_eq!(
            (
                r.method.as_str(),
                sent_path.as_str(),
                r.accept.as_deref().unwrap_or(""),
                r.status.to_string().as_str()
            ),
            (
                method.as_str(),
                path.as_str(),
                accept.as_str(),
                status.as_str()
            ),
            "{flavour} {op:?}"
        );
        assert_eq!(r.auth.as_deref(), Some(scheme), "{flavour} {op:?}");
        if Flavour::ALL.iter().all(|f| f.supports(op)) {
            // The host's own id differs between flavours (hex, or hostname:port): not compared.
            results.push(got.replace(&ids.host, "HOST"));
        }
    }
    results
}

#[test]
fn the_table_of_calls_has_no_call_of_no_operation() {
    let calls: serde_json::Value = serde_json::from_str(CALLS).unwrap();
    let names: Vec<&str> = Operation::ALL.iter().map(|op| op.name()).collect();
    for name in calls["calls"].as_object().unwrap().keys() {
        assert!(
            names.contains(&name.as_str()),
            "{name}: no row of that name"
        );
    }
}

#[tokio::test]
async fn every_operation_of_each_flavour_sends_its_request_and_gets_the_same_world() {
    let mut by_flavour = Vec::new();
    for flavour in Flavour::ALL {
        let sim = sim_of(flavour);
        let c = client_of(&sim);
        assert_eq!(c.flavour(), flavour);
        c.groups().list().await.unwrap(); // the handshake or the token first
        let scheme = if flavour == Flavour::Atlas {
            "Bearer"
        } else {
            "Digest"
        };
        by_flavour.push(every_operation(&sim, &c, scheme).await);
    }
    assert_eq!(by_flavour[0], by_flavour[1], "Cloud Manager");
    // Atlas serves the world without its standalones, agent alerts and their configurations,
    // and lists each cluster once: the same results but those counts (each checked against the world above).
    // (Ops Manager lists a sharded cluster's replica sets as clusters too: Atlas fewer.)
    let counted = |r: &String| {
        [" hosts", " project alerts", " configs", " clusters"]
            .iter()
            .any(|s| r.ends_with(s))
    };
    let same = |v: &Vec<String>| {
        v.iter()
            .filter(|r| !counted(r))
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(same(&by_flavour[0]), same(&by_flavour[2]), "Atlas");
}

#[tokio::test]
async fn an_atlas_api_key_signs_every_operation_with_digest() {
    let sim = sim_of(Flavour::Atlas);
    let c = Client::atlas()
        .base_url(sim.base_url())
        .credentials(sim.public_key(), sim.private_key())
        .build()
        .unwrap();
    c.groups().list().await.unwrap();
    every_operation(&sim, &c, "Digest").await;
    assert!(
        sim.requests().iter().all(|r| r.path != "/api/oauth/token"),
        "no token bought"
    );
}

#[test]
fn the_flavour_follows_the_base_url_unless_given() {
    let f = |url: &str| Client::builder(url).build().unwrap();
    let cm = f("https://cloud.mongodb.com");
    assert_eq!(
        (cm.flavour(), cm.base_url()),
        (
            Flavour::CloudManager,
            "https://cloud.mongodb.com/api/public/v1.0"
        )
    );
    assert_eq!(
        f("https://cloud.mongodb.com/api/public/v1.0").flavour(),
        Flavour::CloudManager
    );
    assert_eq!(
        f("https://cloud.mongodb.com/api/atlas/v2").flavour(),
        Flavour::Atlas
    );
    assert_eq!(
        f("https://om.example.com:8443").flavour(),
        Flavour::OpsManager
    );
    let given = Client::builder("https://cloud.mongodb.com")
        .flavour(Flavour::OpsManager)
        .build()
        .unwrap();
    assert_eq!(given.flavour(), Flavour::OpsManager);
    let e = Client::builder("https://om:8443")
        .service_account("id", "secret-secret")
        .build()
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("invalid argument `client_id`: service accounts are Atlas's"),
        "{e}"
    );
    let e = Client::atlas()
        .credentials("pub", "private-key")
        .service_account("id", "secret-secret")
        .build()
        .unwrap_err();
    assert!(e.to_string().contains("not both"), "{e}");
    let e = Client::atlas()
        .base_url("https://om:8443/api/public/v1.0")
        .build()
        .unwrap_err();
    assert!(e.to_string().contains("/api/atlas/v2"), "{e}");
}
