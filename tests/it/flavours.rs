//! One client for Ops Manager, Cloud Manager and Atlas: every operation a flavour has, run
//! against the simulator serving that flavour, with the exact request that went out (method,
//! path, the `Accept` header's version, Digest or Bearer) and the result against the seeded
//! world; the operations a flavour lacks refused before any request; the same world giving
//! the same frames through each flavour. (Service-account tokens are in `oauth.rs`.)

#[cfg(feature = "frames")]
use opsapi::api::measurements::Target;
#[cfg(feature = "frames")]
use opsapi::fleet::FleetOptions;
use opsapi::sim::{RequestRecord, SimConfig, Simulator};
use opsapi::{Client, Error, Flavour, Granularity, MeasurementsQuery, Operation};

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
    config: String,
    open_alerts: usize,
    /// A project alert of the group, and how many the group has.
    alert: String,
    alerts: usize,
}

fn ids(sim: &Simulator) -> Ids {
    let w = sim.world();
    let h = w.hosts.iter().find(|h| !h.databases.is_empty()).unwrap();
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
    let atlas = sim.flavour() == Flavour::Atlas;
    let alerts: Vec<_> = w
        .project_alerts(&h.group_id)
        .into_iter()
        .filter(|a| !atlas || !agents.contains(&a.alert_config_id.as_str()))
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
            .find(|e| e.group_id == h.group_id)
            .unwrap()
            .id
            .clone(),
        config: config.id.clone(),
        open_alerts: w
            .alerts
            .iter()
            .filter(|a| a.alert_config_id == config.id && a.status == "OPEN")
            .count(),
        alert: alerts
            .iter()
            .find(|a| !agents.contains(&a.alert_config_id.as_str()))
            .unwrap()
            .id
            .clone(),
        alerts: alerts.len(),
    }
}

fn query() -> MeasurementsQuery {
    let t = |s: &str| opsapi::query::parse_timestamp("start", s).unwrap();
    MeasurementsQuery::range(
        Granularity::PT1H,
        t("2026-03-01T00:00:00Z"),
        t("2026-03-01T06:00:00Z"),
    )
    .metrics(["CONNECTIONS"])
}

/// Runs `op` and says what came back, checked against the world where it is a list.
async fn call(c: &Client, op: Operation, ids: &Ids) -> opsapi::Result<String> {
    let (g, h) = (ids.group.as_str(), ids.host.as_str());
    let disk = MeasurementsQuery::range(
        Granularity::PT1H,
        opsapi::query::parse_timestamp("start", "2026-03-01T00:00:00Z")?,
        opsapi::query::parse_timestamp("end", "2026-03-01T06:00:00Z")?,
    )
    .metrics(["DISK_PARTITION_SPACE_USED"]);
    let database = MeasurementsQuery::range(
        Granularity::PT1H,
        opsapi::query::parse_timestamp("start", "2026-03-01T00:00:00Z")?,
        opsapi::query::parse_timestamp("end", "2026-03-01T06:00:00Z")?,
    )
    .metrics(["DATABASE_DATA_SIZE"]);
    Ok(match op {
        Operation::GroupsList => format!("{} groups", c.groups().list().await?.len()),
        Operation::GroupsGet => format!("group {:?}", c.groups().get(g).await?.id),
        Operation::HostsList => {
            let hosts = c.hosts().list(g).await?;
            assert!(hosts.iter().any(|x| x.id.as_deref() == Some(h)), "{h}");
            format!("{} hosts", hosts.len())
        }
        Operation::HostsGet => {
            let host = c.hosts().get(g, h).await?;
            assert_eq!(
                format!("{}:{}", host.hostname.unwrap(), host.port.unwrap()),
                ids.process
            );
            format!("host {:?}", host.id)
        }
        Operation::HostsPartitions => format!("{:?}", c.hosts().partitions(g, h).await?),
        Operation::HostsDatabases => format!("{:?}", c.hosts().databases(g, h).await?),
        Operation::MeasurementsHost => {
            let m = c.measurements().host(g, h, &query()).await?;
            assert_eq!(m.process_id.as_deref(), Some(ids.process.as_str()));
            format!("host {:?}: {} points", m.host_id, m.data_point_count())
        }
        Operation::MeasurementsDisk => {
            let m = c.measurements().disk(g, h, &ids.partition, &disk).await?;
            format!(
                "disk {:?}: {} points",
                m.partition_name,
                m.data_point_count()
            )
        }
        Operation::MeasurementsDatabase => {
            let m = c
                .measurements()
                .database(g, h, &ids.database, &database)
                .await?;
            format!(
                "database {:?}: {} points",
                m.database_name,
                m.data_point_count()
            )
        }
        Operation::EventsList => format!("{} events", c.events().list(g).await?.len()),
        Operation::EventsGet => {
            format!("event {:?}", c.events().get(g, &ids.event, false).await?.id)
        }
        Operation::AlertConfigsList => {
            format!("{} configs", c.alert_configs().list(g).await?.len())
        }
        Operation::AlertsList => {
            let alerts = c.alerts().list(g, &opsapi::AlertsQuery::new()).await?;
            assert_eq!(alerts.len(), ids.alerts);
            format!("{} project alerts", alerts.len())
        }
        Operation::AlertsGet => format!("alert {:?}", c.alerts().get(g, &ids.alert).await?.id),
        Operation::AlertConfigsOpenAlerts => {
            let open = c.alert_configs().open_alerts(g, &ids.config).await?;
            assert_eq!(open.len(), ids.open_alerts);
            format!("{} open alerts", open.len())
        }
        other => panic!("not a call of this table: {other:?}"),
    })
}

/// The path of `op` under the flavour's API prefix, encoded as the client sends it.
fn want_path(flavour: Flavour, op: Operation, ids: &Ids) -> String {
    let enc = |s: &str| s.replace(':', "%3A");
    let hosts = if flavour == Flavour::Atlas {
        "processes"
    } else {
        "hosts"
    };
    let host = format!("/groups/{}/{hosts}/{}", ids.group, enc(&ids.host));
    let rest = match op {
        Operation::GroupsList => "/groups".to_string(),
        Operation::GroupsGet => format!("/groups/{}", ids.group),
        Operation::HostsList => format!("/groups/{}/{hosts}", ids.group),
        Operation::HostsGet => host,
        Operation::HostsPartitions => format!("{host}/disks"),
        Operation::HostsDatabases => format!("{host}/databases"),
        Operation::MeasurementsHost => format!("{host}/measurements"),
        Operation::MeasurementsDisk => format!("{host}/disks/{}/measurements", ids.partition),
        Operation::MeasurementsDatabase => {
            format!("{host}/databases/{}/measurements", ids.database)
        }
        Operation::EventsList => format!("/groups/{}/events", ids.group),
        Operation::EventsGet => format!("/groups/{}/events/{}", ids.group, ids.event),
        Operation::AlertsList => format!("/groups/{}/alerts", ids.group),
        Operation::AlertsGet => format!("/groups/{}/alerts/{}", ids.group, ids.alert),
        Operation::AlertConfigsList => format!("/groups/{}/alertConfigs", ids.group),
        Operation::AlertConfigsOpenAlerts => {
            format!("/groups/{}/alertConfigs/{}/alerts", ids.group, ids.config)
        }
        other => panic!("{other:?}"),
    };
    format!("{}{rest}", flavour.api_path())
}

/// Every operation of the table that reads: each flavour has them all (acknowledging a
/// project alert: `project_alerts_are_acknowledged_in_each_flavours_words`).
const OPERATIONS: [Operation; 15] = [
    Operation::GroupsList,
    Operation::GroupsGet,
    Operation::HostsList,
    Operation::HostsGet,
    Operation::HostsPartitions,
    Operation::HostsDatabases,
    Operation::MeasurementsHost,
    Operation::MeasurementsDisk,
    Operation::MeasurementsDatabase,
    Operation::EventsList,
    Operation::EventsGet,
    Operation::AlertConfigsList,
    Operation::AlertConfigsOpenAlerts,
    Operation::AlertsList,
    Operation::AlertsGet,
];

/// Runs every operation with `c` against `sim` and checks each request: one, with the path,
/// `Accept` and scheme of the flavour, answered 200, with the same result on every flavour.
async fn every_operation(sim: &Simulator, c: &Client, scheme: &str) -> Vec<String> {
    let flavour = sim.flavour();
    let ids = ids(sim);
    let accept = match flavour {
        Flavour::Atlas => "application/vnd.atlas.2023-01-01+json",
        _ => "application/json",
    };
    let mut results = Vec::new();
    for op in OPERATIONS {
        sim.clear_requests();
        let got = call(c, op, &ids)
            .await
            .unwrap_or_else(|e| panic!("{flavour} {op:?}: {e}"));
        let sent = api_requests(sim);
        assert_eq!(sent.len(), 1, "{flavour} {op:?}: {sent:?}");
        let r = &sent[0];
        assert_eq!(
            (r.method.as_str(), r.path.as_str(), r.status),
            ("GET", want_path(flavour, op, &ids).as_str(), 200),
            "{flavour} {op:?}"
        );
        assert_eq!(r.accept.as_deref(), Some(accept), "{flavour} {op:?}");
        assert_eq!(r.auth.as_deref(), Some(scheme), "{flavour} {op:?}");
        // The host's own id differs between flavours (hex, or hostname:port): not compared.
        results.push(got.replace(&ids.host, "HOST"));
    }
    results
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
    // Atlas serves the world without its standalones, agent alerts and their configurations:
    // the same results but those counts (each checked against the world above).
    let counted = |r: &String| {
        r.ends_with(" hosts") || r.ends_with(" project alerts") || r.ends_with(" configs")
    };
    let same = |v: &Vec<String>| {
        v.iter()
            .filter(|r| !counted(r))
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(same(&by_flavour[0]), same(&by_flavour[2]), "Atlas");
}

/// Acknowledging and un-acknowledging a project alert on each flavour: one PATCH each, with
/// the body and version the flavour takes (Atlas: `2024-05-30`, and `unacknowledgeAlert` to
/// un-acknowledge), and the alert as the server then holds it.
#[tokio::test]
async fn project_alerts_are_acknowledged_in_each_flavours_words() {
    for flavour in Flavour::ALL {
        let sim = sim_of(flavour);
        let c = client_of(&sim);
        let ids = ids(&sim);
        let path = format!(
            "{}/groups/{}/alerts/{}",
            flavour.api_path(),
            ids.group,
            ids.alert
        );
        let media = match flavour {
            Flavour::Atlas => "application/vnd.atlas.2024-05-30+json",
            _ => "application/json",
        };
        let until = opsapi::query::parse_timestamp("until", "2026-03-02T12:00:00Z").unwrap();
        let ack = opsapi::Acknowledgement::new(opsapi::AckUntil::Until(until)).comment("disk");
        c.groups().list().await.unwrap(); // the handshake or the token first
        sim.clear_requests();
        let acked = c
            .alerts()
            .acknowledge(&ids.group, &ids.alert, &ack)
            .await
            .unwrap();
        assert_eq!(acked.acknowledged_until, Some(until), "{flavour}");
        assert_eq!(
            acked.acknowledgement_comment.as_deref(),
            Some("disk"),
            "{flavour}"
        );
        let unacked = c
            .alerts()
            .unacknowledge(&ids.group, &ids.alert)
            .await
            .unwrap();
        assert_eq!(unacked.acknowledged_until, None, "{flavour}");
        let sent = api_requests(&sim);
        assert_eq!(sent.len(), 2, "{flavour}: {sent:?}");
        for r in &sent {
            // Ops Manager and Cloud Manager document 201, Atlas's specification 200.
            let status = if flavour == Flavour::Atlas { 200 } else { 201 };
            assert_eq!(
                (r.method.as_str(), r.path.as_str(), r.status),
                ("PATCH", path.as_str(), status),
                "{flavour}"
            );
            assert_eq!(r.accept.as_deref(), Some(media), "{flavour}");
            assert_eq!(r.content_type.as_deref(), Some(media), "{flavour}");
        }
        let body =
            |r: &RequestRecord| serde_json::from_slice::<serde_json::Value>(&r.body).unwrap();
        assert_eq!(
            body(&sent[0]),
            serde_json::json!({"acknowledgedUntil": "2026-03-02T12:00:00Z", "acknowledgementComment": "disk"}),
            "{flavour}"
        );
        if flavour == Flavour::Atlas {
            assert_eq!(
                body(&sent[1]),
                serde_json::json!({"unacknowledgeAlert": true})
            );
        } else {
            let b = body(&sent[1]);
            let past = b["acknowledgedUntil"].as_str().unwrap();
            let past = opsapi::query::parse_timestamp("past", past).unwrap();
            assert!(past < fixed_now(), "{flavour}: {b}");
        }
    }
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

#[tokio::test]
async fn global_alerts_and_the_access_list_are_refused_before_any_request() {
    for flavour in [Flavour::CloudManager, Flavour::Atlas] {
        let sim = sim_of(flavour);
        let c = client_of(&sim);
        let unsupported = |e: Error, want: &str| match e {
            Error::Unsupported {
                operation,
                flavour: f,
            } => {
                assert_eq!((operation, f), (want, flavour));
            }
            other => panic!("{flavour} {want}: {other:?}"),
        };
        let q = opsapi::GlobalAlertsQuery::new();
        let ack = crate::common::for_an_hour();
        unsupported(
            c.global_alerts().list(&q).await.unwrap_err(),
            "global_alerts.list",
        );
        unsupported(
            c.global_alerts().get("a1").await.unwrap_err(),
            "global_alerts.get",
        );
        let e = c.global_alerts().acknowledge("a1", &ack).await.unwrap_err();
        unsupported(e, "global_alerts.acknowledge");
        let e = c.global_alerts().unacknowledge("a1").await.unwrap_err();
        unsupported(e, "global_alerts.acknowledge");
        let none: [&str; 0] = [];
        let e = c
            .global_alerts()
            .acknowledge_many(&none, &ack)
            .await
            .unwrap_err();
        unsupported(e, "global_alerts.acknowledge");
        match c.global_alerts().stream(&q) {
            Err(e) => unsupported(e, "global_alerts.list"),
            Ok(_) => panic!("{flavour}: a stream of global alerts"),
        }
        unsupported(
            c.access_list().list().await.unwrap_err(),
            "access_list.list",
        );
        let e = c.access_list().delete("x1").await.unwrap_err();
        let message = e.to_string();
        unsupported(e, "access_list.delete");
        assert_eq!(
            message,
            format!(
                "`access_list.delete` is not available on {flavour}: it has no global API \
                 access list"
            )
        );
        assert!(sim.requests().is_empty(), "{flavour}: {:?}", sim.requests());
    }
}

#[cfg(feature = "frames")] // fleet pulls
#[tokio::test]
async fn the_same_world_gives_the_same_frames_through_each_flavour() {
    let q = MeasurementsQuery::range(
        Granularity::PT1H,
        opsapi::query::parse_timestamp("start", "2026-02-28T00:00:00Z").unwrap(),
        opsapi::query::parse_timestamp("end", "2026-03-01T00:00:00Z").unwrap(),
    );
    let mut frames = Vec::new();
    for flavour in Flavour::ALL {
        let sim = sim_of(flavour);
        let c = client_of(&sim);
        let w = sim.world();
        let name = |h: &opsapi::sim::Host| {
            if flavour == Flavour::Atlas {
                h.process_id()
            } else {
                h.id.clone()
            }
        };
        // The hosts Atlas serves (not the world's standalones), on every flavour.
        let mut targets = Vec::new();
        for h in w.hosts.iter().filter(|h| h.type_name != "STANDALONE") {
            targets.push(Target::host(&h.group_id, name(h)));
            for p in &h.partitions {
                targets.push(Target::disk(&h.group_id, name(h), &p.name));
            }
        }
        let disks = q
            .clone()
            .metrics(["DISK_PARTITION_SPACE_USED", "DISK_PARTITION_SPACE_FREE"]);
        let hosts = q
            .clone()
            .metrics(["CONNECTIONS", "OPCOUNTER_CMD", "SYSTEM_CPU_USER"]);
        let host_targets: Vec<_> = targets
            .iter()
            .filter(|t| matches!(t, Target::Host { .. }))
            .cloned()
            .collect();
        let disk_targets: Vec<_> = targets
            .iter()
            .filter(|t| matches!(t, Target::Disk { .. }))
            .cloned()
            .collect();
        let o = FleetOptions::new();
        let host_frame = c
            .measurements()
            .fleet(&host_targets, &hosts, &o)
            .await
            .unwrap();
        let disk_frame = c
            .measurements()
            .fleet(&disk_targets, &disks, &o)
            .await
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let written = c
            .measurements()
            .fleet_to_parquet(&disk_targets, &disks, dir.path(), &o)
            .await
            .unwrap();
        assert_eq!(written.rows as usize, disk_frame.frame.height());
        if flavour == Flavour::Atlas {
            // host_id is the process, hostname:port.
            let text = |f: &polars::prelude::DataFrame, name: &str| {
                f.column(name)
                    .unwrap()
                    .as_materialized_series()
                    .cast(&polars::prelude::DataType::String)
                    .unwrap()
            };
            for f in [&host_frame.frame, &disk_frame.frame] {
                assert!(text(f, "host_id").equals(&text(f, "process_id")));
            }
        }
        let sent: Vec<_> = api_requests(&sim)
            .iter()
            .filter(|r| r.path.ends_with("/measurements") && r.status == 200)
            .map(|r| r.accept.clone().unwrap_or_default())
            .collect();
        assert_eq!(sent.len(), host_targets.len() + 2 * disk_targets.len());
        assert!(sent.iter().all(|a| a.contains(match flavour {
            Flavour::Atlas => "vnd.atlas.2023-01-01",
            _ => "application/json",
        })));
        frames.push((
            host_frame.frame.drop("host_id").unwrap(),
            disk_frame.frame.drop("host_id").unwrap(),
        ));
    }
    for (i, f) in frames.iter().enumerate().skip(1) {
        assert!(
            frames[0].0.equals_missing(&f.0),
            "host frame of {:?}",
            Flavour::ALL[i]
        );
        assert!(
            frames[0].1.equals_missing(&f.1),
            "disk frame of {:?}",
            Flavour::ALL[i]
        );
    }
    assert!(frames[0].0.height() > 0 && frames[0].1.height() > 0);
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
