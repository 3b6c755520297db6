//! The seeded world: projects, hosts, partitions, databases, alert configurations, alerts,
//! events and the global access list. Everything here is a pure function of the seed and the anchor time.
//!
//! The alerts and events, which refer to everything else, are generated in `world/activity.rs`,
//! from the same random stream.
//!
//! (Over 600 lines: the model types and their one seeded generator; split further, the
//! generator's random streams and cross references would run through several files.)

use chrono::{DateTime, Duration as CDuration, TimeZone, Utc};
use serde_json::Value;

use super::fmt::iso;
use super::rng::SplitMix64;

mod activity;
mod alerts;
use activity::{gen_alerts, gen_events};
mod breaches;
mod causes;
mod clusters;
mod findings;
mod roles;
pub(crate) mod series;
pub(crate) mod workload;
pub use alerts::{
    Acknowledged, AlertTruth, FlappingTruth, MetricAlertTruth, NoisyHostTruth, SeededAlert,
};
pub use breaches::Breach;
pub use causes::{Causes, DriverCause, ElectionCause, RestartCause, ScalingCause, SlowCause};
pub use clusters::{tier_size, Cluster, ClusterPart, TIERS};
pub use findings::{Finding, SeededSeries, ShardGrowth, DIRTY_TRIGGER_PERCENT, OPLOG_TARGET_HOURS};

/// A project (a "group" in the API's paths).
#[derive(Debug, Clone, PartialEq)]
pub struct Project {
    /// 24-hex identifier.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Organization identifier.
    pub org_id: String,
    /// Creation time.
    pub created: DateTime<Utc>,
}

/// How a partition's used space evolves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Growth {
    /// Fills within weeks.
    Fast,
    /// Grows over months or years.
    Slow,
    /// Does not grow.
    Flat,
    /// Grows slowly under large noise.
    Noisy,
}

/// A disk partition of a host, with its seeded growth.
#[derive(Debug, Clone, PartialEq)]
pub struct Partition {
    /// Partition name (`data`, `journal`, `xvdb`, ...).
    pub name: String,
    /// Capacity in bytes.
    pub capacity_bytes: u64,
    /// Used bytes at the world's anchor time.
    pub used_bytes_at_anchor: f64,
    /// Linear growth in bytes per day (0 for flat disks).
    pub growth_bytes_per_day: f64,
    /// Amplitude of the noise around the trend, in bytes.
    pub noise_bytes: f64,
    /// The growth class.
    pub growth: Growth,
}

/// A database of a mongod. Its `DATABASE_STORAGE_SIZE + DATABASE_INDEX_SIZE` at `t` is
/// [`Database::size_at`]; the databases of a host add up to its `data` partition's used-space
/// trend minus [`Host::data_overhead_bytes`] (see [`Database::size_at`] for the slack).
#[derive(Debug, Clone, PartialEq)]
pub struct Database {
    /// Database name (`orders`, `admin`, ...).
    pub name: String,
    /// Storage plus index bytes at the anchor.
    pub size_at_anchor: f64,
    /// Growth of storage plus index, bytes per day (its share of the data partition's).
    pub growth_bytes_per_day: f64,
    /// The share of the size that is indexes (`DATABASE_INDEX_SIZE`).
    pub index_fraction: f64,
    /// Uncompressed data over storage (`DATABASE_DATA_SIZE / DATABASE_STORAGE_SIZE`).
    pub data_ratio: f64,
    /// Average document size in bytes (`DATABASE_AVERAGE_OBJECT_SIZE`).
    pub average_object_size: f64,
    /// Number of collections.
    pub collections: u64,
    /// Whether this database drives most of its disk's growth (at most one per host).
    pub drives_growth: bool,
}

impl Database {
    /// Storage plus index bytes at `anchor + days`, never below zero. With no clamp, the sum
    /// over a host's databases equals the data partition's trend minus the overhead exactly;
    /// the clamp can only act more than 60 days before the anchor (sizes are seeded so that
    /// every database is positive over those 60 days). The served disk series adds its noise
    /// (`Partition::noise_bytes`) on top: that is the stated slack.
    pub fn size_at(&self, days: f64) -> f64 {
        (self.size_at_anchor + self.growth_bytes_per_day * days).max(0.0)
    }
}

/// Application database names; `admin`, `config` and `local` are added to each mongod.
const DATABASE_NAMES: [&str; 10] = [
    "orders",
    "customers",
    "inventory",
    "events",
    "sessions",
    "analytics",
    "billing",
    "catalog",
    "audit",
    "payments",
];

/// The databases of a mongod whose data partition is `data`, from an RNG of their own (the
/// rest of the world is the same with or without them). Returns them with the constant bytes of
/// the partition that no database accounts for (journal, diagnostics, the OS). A config
/// server holds the system databases alone: `config` (the cluster's metadata) takes the
/// growth, `local` (its oplog) most of the rest.
fn databases(r: &mut SplitMix64, data: &Partition, config_server: bool) -> (Vec<Database>, f64) {
    const SYSTEM: [&str; 3] = ["admin", "config", "local"];
    let growth = data.growth_bytes_per_day;
    let used = data.used_bytes_at_anchor;
    // What the databases must hold 60 days back for none to go negative.
    let history = growth * 60.0;
    let overhead = ((used - history).max(0.0) * (0.05 + 0.15 * r.f64())).round();
    let total = used - overhead;
    let spare = (total - history).max(0.0);
    if config_server {
        return (roles::config_databases(r, total, growth), overhead);
    }
    let mut names: Vec<&str> = DATABASE_NAMES.to_vec();
    let apps = r.range(2, 5) as usize;
    let mut picked: Vec<&str> = Vec::new();
    for _ in 0..apps {
        let i = r.range(0, names.len() as u64) as usize;
        picked.push(names.remove(i));
    }
    // Growth shares: one application database takes 60-85 % of the growth when there is any.
    let driver = r.range(0, apps as u64) as usize;
    let driver_share = 0.6 + 0.25 * r.f64();
    let others: Vec<f64> = (0..apps).map(|_| 0.2 + r.f64()).collect();
    let others_sum: f64 = others
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != driver)
        .map(|(_, w)| w)
        .sum();
    let grow_share = |i: usize| {
        if i == driver {
            driver_share
        } else {
            (1.0 - driver_share) * others[i] / others_sum
        }
    };
    // Size shares of what is left once the history is covered: system databases are tiny.
    let size_weights: Vec<f64> = (0..apps).map(|_| 0.2 + r.f64()).collect();
    let system_total = (spare * 0.002).min(64.0 * 1024.0 * 1024.0);
    let app_spare = spare - system_total;
    let weight_sum: f64 = size_weights.iter().sum();
    let mut out = Vec::new();
    for (i, name) in picked.iter().enumerate() {
        let g = growth * grow_share(i);
        out.push(Database {
            name: (*name).to_string(),
            size_at_anchor: g * 60.0 + app_spare * size_weights[i] / weight_sum,
            growth_bytes_per_day: g,
            index_fraction: 0.08 + 0.2 * r.f64(),
            data_ratio: 1.5 + 1.5 * r.f64(),
            average_object_size: (200.0 + 1800.0 * r.f64()).round(),
            collections: r.range(3, 60),
            drives_growth: growth > 0.0 && i == driver,
        });
    }
    for name in SYSTEM {
        out.push(Database {
            name: name.to_string(),
            size_at_anchor: system_total / SYSTEM.len() as f64,
            growth_bytes_per_day: 0.0,
            index_fraction: 0.2,
            data_ratio: 1.2,
            average_object_size: (100.0 + 400.0 * r.f64()).round(),
            collections: r.range(1, 8),
            drives_growth: false,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    (out, overhead)
}

/// A monitored host (a mongod or mongos process).
#[derive(Debug, Clone, PartialEq)]
pub struct Host {
    /// Index in [`World::hosts`] (also the generator's key).
    pub index: usize,
    /// 32-hex host identifier.
    pub id: String,
    /// Project identifier.
    pub group_id: String,
    /// Host name, e.g. `rs0-1.prod.example.net`.
    pub hostname: String,
    /// Port.
    pub port: u16,
    /// `REPLICA_PRIMARY`, `SHARD_MONGOS`, `STANDALONE`, ...
    pub type_name: String,
    /// `PRIMARY`, `SECONDARY`, ... (absent for standalones and mongos).
    pub replica_state_name: Option<String>,
    /// Replica set name.
    pub replica_set_name: Option<String>,
    /// Shard name, for shard members.
    pub shard_name: Option<String>,
    /// Cluster identifier (replica set or sharded cluster).
    pub cluster_id: Option<String>,
    /// MongoDB version.
    pub version: String,
    /// IP address.
    pub ip_address: String,
    /// Creation time.
    pub created: DateTime<Utc>,
    /// Last restart.
    pub last_restart: DateTime<Utc>,
    /// Last ping.
    pub last_ping: DateTime<Utc>,
    /// RAM in MB.
    pub mem_size_mb: u64,
    /// CPU cores.
    pub num_cores: u64,
    /// Data size in bytes at the anchor.
    pub last_data_size_bytes: u64,
    /// Index size in bytes at the anchor.
    pub last_index_size_bytes: u64,
    /// Whether TLS is on.
    pub ssl_enabled: bool,
    /// Disk partitions (1 to 3).
    pub partitions: Vec<Partition>,
    /// Databases (none on a mongos), sorted by name.
    pub databases: Vec<Database>,
    /// Bytes of the `data` partition that no database accounts for (constant).
    pub data_overhead_bytes: f64,
    /// Host series replaced by a seeded capacity finding (`world/findings.rs`).
    pub seeded: Vec<SeededSeries>,
    /// Its alerts' breaches of its measurements (`world/breaches.rs`), which its series show.
    pub breaches: Vec<Breach>,
    /// Its alias as Atlas names it after its cluster (`userAlias`; `world/clusters.rs`).
    pub alias: Option<String>,
    /// The spans in which a pattern of its workload runs hot (a seeded cause:
    /// `world/causes.rs`).
    pub hot: Vec<workload::Hot>,
}

impl Host {
    /// `hostname:port`, the measurements' `processId`.
    pub fn process_id(&self) -> String {
        format!("{}:{}", self.hostname, self.port)
    }
}

/// A project alert configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct AlertConfig {
    /// 24-hex identifier.
    pub id: String,
    /// Project identifier.
    pub group_id: String,
    /// `OUTSIDE_METRIC_THRESHOLD`, `HOST_DOWN`, ...
    pub event_type_name: String,
    /// The metric, for metric thresholds.
    pub metric_name: Option<String>,
    /// Threshold and its units, for metric thresholds.
    pub threshold: Option<(f64, String)>,
    /// Creation time.
    pub created: DateTime<Utc>,
}

/// An alert (the same objects are listed by `/globalAlerts` and `/groups/{g}/alerts`).
#[derive(Debug, Clone, PartialEq)]
pub struct Alert {
    /// 24-hex identifier.
    pub id: String,
    /// Project identifier.
    pub group_id: String,
    /// The configuration that raised it.
    pub alert_config_id: String,
    /// Event type.
    pub event_type_name: String,
    /// `HOST_METRIC`, `AGENT`, `HOST`, `REPLICA_SET`, `BACKUP`.
    pub type_name: String,
    /// `TRACKING`, `OPEN`, `CLOSED` or `CANCELLED`.
    pub status: String,
    /// Creation time (some with milliseconds).
    pub created: DateTime<Utc>,
    /// Last update.
    pub updated: DateTime<Utc>,
    /// Last notification (not for TRACKING alerts).
    pub last_notified: Option<DateTime<Utc>>,
    /// Resolution time (CLOSED alerts).
    pub resolved: Option<DateTime<Utc>>,
    /// The metric, for metric alerts.
    pub metric_name: Option<String>,
    /// `currentValue {number, units}`, for metric alerts.
    pub current_value: Option<(f64, String)>,
    /// The host concerned.
    pub host_id: Option<String>,
    /// `hostname:port` of the host concerned.
    pub hostname_and_port: Option<String>,
    /// Replica set concerned.
    pub replica_set_name: Option<String>,
    /// Acknowledged until (may be in the past: then it no longer counts).
    pub acknowledged_until: Option<DateTime<Utc>>,
    /// Acknowledgement comment.
    pub acknowledgement_comment: Option<String>,
    /// Who acknowledged.
    pub acknowledging_username: Option<String>,
    /// The name of its host's cluster (Atlas's `clusterName`), set once the clusters are
    /// named (`world/causes.rs`).
    pub cluster_name: Option<String>,
}

impl Alert {
    /// Drops an acknowledgement whose time has passed.
    pub fn expire_ack(&mut self, now: DateTime<Utc>) {
        if self.acknowledged_until.is_some_and(|u| u <= now) {
            self.acknowledged_until = None;
            self.acknowledgement_comment = None;
            self.acknowledging_username = None;
        }
    }
}

/// A project event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// 24-hex identifier.
    pub id: String,
    /// Project identifier.
    pub group_id: String,
    /// Creation time.
    pub created: DateTime<Utc>,
    /// Event type.
    pub event_type_name: String,
    /// The whole JSON object as served (without `links` and `raw`).
    pub body: Value,
    /// The cluster it is about where its body names no host (Atlas's cluster events, which
    /// its `clusterNames` filter finds): else the cluster of the host it names.
    pub cluster_id: Option<String>,
    /// The flavours that have it: `None` every flavour, `Some(true)` Atlas alone (its
    /// auto-scaling), `Some(false)` Ops Manager and Cloud Manager alone (a name Atlas's
    /// specification does not have, such as `HOST_RESTARTED`).
    pub on_atlas: Option<bool>,
}

impl Event {
    /// Whether `flavour`'s API serves the event (`on_atlas`): what a user of that flavour can
    /// list. The one rule the simulator's events handler, `Simulator.world()` and the tests
    /// read.
    ///
    /// ```
    /// use opsapi::sim::{SimConfig, Simulator};
    /// use opsapi::Flavour;
    ///
    /// let sim = Simulator::start(SimConfig::default()).unwrap();
    /// let w = sim.world();
    /// // Atlas alone has its auto-scaling events: Ops Manager serves fewer than the world has.
    /// let om = w.events.iter().filter(|e| e.served_on(Flavour::OpsManager)).count();
    /// assert!(0 < om && om < w.events.len());
    /// sim.shutdown();
    /// ```
    pub fn served_on(&self, flavour: crate::Flavour) -> bool {
        self.on_atlas
            .is_none_or(|atlas| atlas == (flavour == crate::Flavour::Atlas))
    }
}

/// A global API access list entry.
#[derive(Debug, Clone, PartialEq)]
pub struct AccessListEntry {
    /// 24-hex identifier.
    pub id: String,
    /// CIDR block.
    pub cidr_block: String,
    /// Description.
    pub description: String,
    /// Creation time.
    pub created: DateTime<Utc>,
}

/// The whole seeded data set.
#[derive(Debug, Clone, PartialEq)]
pub struct World {
    /// The instant relative to which times were seeded (midnight UTC of the start day unless
    /// configured).
    pub anchor: DateTime<Utc>,
    /// The organization of every project.
    pub org_id: String,
    /// Projects.
    pub projects: Vec<Project>,
    /// Hosts of all projects.
    pub hosts: Vec<Host>,
    /// Alert configurations of all projects.
    pub alert_configs: Vec<AlertConfig>,
    /// All alerts, ordered by creation time.
    pub alerts: Vec<Alert>,
    /// Project alerts that `/globalAlerts` does not list: the seeded history
    /// (`world/alerts.rs`), ordered by creation time.
    pub alert_history: Vec<Alert>,
    /// What the seeded history holds (the flapping configuration, the noisy host, ...).
    pub alert_truth: AlertTruth,
    /// Events of all projects, newest first within a project.
    pub events: Vec<Event>,
    /// The global access list (entries disappear when deleted).
    pub access_list: Vec<AccessListEntry>,
    /// The seeded shard that grows faster than the others (`world/findings.rs`), if any.
    pub shard_growth: Option<ShardGrowth>,
    /// The replica sets and sharded clusters by name, with their Atlas configuration
    /// (`world/clusters.rs`).
    pub clusters: Vec<Cluster>,
    /// What the world seeded as the causes of its alerts and findings (`world/causes.rs`).
    pub causes: Causes,
}

const ENVS: [&str; 6] = ["prod", "staging", "analytics", "dev", "qa", "reporting"];
const VERSIONS: [&str; 5] = ["4.4.29", "5.0.26", "6.0.15", "7.0.12", "8.0.3"];
const PARTITION_NAMES: [&str; 4] = ["journal", "xvdb", "root", "nvme1n1"];
const GIB: u64 = 1 << 30;

pub(super) fn ms_time(r: &mut SplitMix64, t: DateTime<Utc>, with_ms: bool) -> DateTime<Utc> {
    let t = t.with_timezone(&Utc).timestamp().max(0);
    let base = Utc.timestamp_opt(t, 0).single().unwrap_or_default();
    if with_ms {
        base + CDuration::milliseconds(r.range(1, 1000) as i64)
    } else {
        base
    }
}

struct HostPlan {
    hostname: String,
    port: u16,
    type_name: &'static str,
    state: Option<&'static str>,
    rs: Option<String>,
    shard: Option<String>,
    cluster: usize,
}

fn plan_hosts(p: usize, n: usize, domain: &str) -> Vec<HostPlan> {
    let mut plans = Vec::with_capacity(n);
    let mut cluster = 0usize;
    let (mut rs_i, mut sa_i, mut sh_i) = (0usize, 0usize, 0usize);
    let mut kind = p % 3;
    while plans.len() < n {
        // Never a lone mongos or a one-member replica set at the end: standalones instead.
        let remaining = n - plans.len();
        if (kind == 2 && remaining < 4) || (kind == 0 && remaining < 2) {
            kind = 1;
        }
        match kind {
            0 => {
                let rs = format!("rs{rs_i}");
                for (i, (t, s)) in [
                    ("REPLICA_PRIMARY", "PRIMARY"),
                    ("REPLICA_SECONDARY", "SECONDARY"),
                    ("REPLICA_SECONDARY", "SECONDARY"),
                ]
                .into_iter()
                .enumerate()
                {
                    plans.push(HostPlan {
                        hostname: format!("{rs}-{i}.{domain}"),
                        port: 27017,
                        type_name: t,
                        state: Some(s),
                        rs: Some(rs.clone()),
                        shard: None,
                        cluster,
                    });
                }
                rs_i += 1;
            }
            1 => {
                plans.push(HostPlan {
                    hostname: format!("standalone{sa_i}.{domain}"),
                    port: 27017,
                    type_name: "STANDALONE",
                    state: None,
                    rs: None,
                    shard: None,
                    cluster,
                });
                sa_i += 1;
            }
            _ => {
                let c = sh_i;
                plans.push(HostPlan {
                    hostname: format!("mongos{c}-0.{domain}"),
                    port: 27017,
                    type_name: "SHARD_MONGOS",
                    state: None,
                    rs: None,
                    shard: None,
                    cluster,
                });
                plans.push(HostPlan {
                    hostname: format!("cfg{c}-0.{domain}"),
                    port: 27019,
                    type_name: "SHARD_CONFIG",
                    state: Some("PRIMARY"),
                    rs: Some(format!("cfg{c}")),
                    shard: None,
                    cluster,
                });
                for s in 0..2 {
                    let name = format!("sh{c}-{s}");
                    for (i, (t, st)) in [
                        ("SHARD_PRIMARY", "PRIMARY"),
                        ("SHARD_SECONDARY", "SECONDARY"),
                    ]
                    .into_iter()
                    .enumerate()
                    {
                        plans.push(HostPlan {
                            hostname: format!("{name}-{i}.{domain}"),
                            port: 27018,
                            type_name: t,
                            state: Some(st),
                            rs: Some(name.clone()),
                            shard: Some(name.clone()),
                            cluster,
                        });
                    }
                }
                sh_i += 1;
            }
        }
        cluster += 1;
        kind = (kind + 1) % 3;
    }
    plans.truncate(n);
    plans
}

fn partition(r: &mut SplitMix64, name: &str) -> Partition {
    let capacity_bytes = GIB * *r.pick(&[64u64, 128, 256, 512, 1024, 2048]);
    let cap = capacity_bytes as f64;
    let roll = r.f64();
    // Linear histories stay above 5 % for the 60 days before the anchor, so that a forecast
    // over the recent past sees a straight line, not a clamp.
    let (growth, used_frac, per_day_frac, noise) = if roll < 0.3 {
        let days = 7.0 + 33.0 * r.f64();
        let g = 0.95 / (days + 60.0) * (0.6 + 0.4 * r.f64());
        (Growth::Fast, 1.0 - days * g, g, 0.002)
    } else if roll < 0.55 {
        (Growth::Flat, 0.2 + 0.6 * r.f64(), 0.0, 0.001)
    } else if roll < 0.75 {
        let days = 90.0 + 300.0 * r.f64();
        let g = 0.9 / (days + 60.0) * (0.5 + 0.5 * r.f64());
        (Growth::Noisy, 1.0 - days * g, g, 0.02)
    } else {
        let days = 100.0 + 900.0 * r.f64();
        let g = 0.9 / (days + 60.0) * (0.3 + 0.7 * r.f64());
        (Growth::Slow, 1.0 - days * g, g, 0.003)
    };
    Partition {
        name: name.to_string(),
        capacity_bytes,
        used_bytes_at_anchor: (cap * used_frac).round(),
        growth_bytes_per_day: (cap * per_day_frac).round(),
        noise_bytes: (cap * noise).round(),
        growth,
    }
}

struct ConfigPlan {
    event: &'static str,
    metric: Option<(&'static str, f64, &'static str)>,
}

const CONFIGS: [ConfigPlan; 7] = [
    ConfigPlan {
        event: "OUTSIDE_METRIC_THRESHOLD",
        metric: Some(("ASSERT_REGULAR", 0.0, "RAW")),
    },
    ConfigPlan {
        event: "OUTSIDE_METRIC_THRESHOLD",
        metric: Some(("CONNECTIONS", 2000.0, "RAW")),
    },
    ConfigPlan {
        event: "OUTSIDE_METRIC_THRESHOLD",
        metric: Some(("OPLOG_REPLICATION_LAG_TIME", 60.0, "SECONDS")),
    },
    ConfigPlan {
        event: "HOST_DOWN",
        metric: None,
    },
    ConfigPlan {
        event: "MONITORING_AGENT_DOWN",
        metric: None,
    },
    ConfigPlan {
        event: "NO_PRIMARY",
        metric: None,
    },
    ConfigPlan {
        event: "BACKUP_AGENT_DOWN",
        metric: None,
    },
];

/// Builds the world for a seed.
pub fn generate(
    seed: u64,
    projects: usize,
    hosts_per_project: usize,
    global_alerts: usize,
    anchor: DateTime<Utc>,
) -> World {
    let mut r = SplitMix64::new(seed ^ 0x6f70_7361_7069_0001);
    let a = anchor.timestamp();
    let org_id = r.object_id(a - 400 * 86_400);
    let mut world = World {
        anchor,
        org_id: org_id.clone(),
        projects: Vec::new(),
        hosts: Vec::new(),
        alert_configs: Vec::new(),
        alerts: Vec::new(),
        alert_history: Vec::new(),
        alert_truth: AlertTruth::default(),
        events: Vec::new(),
        access_list: Vec::new(),
        shard_growth: None,
        clusters: Vec::new(),
        causes: Causes::default(),
    };
    for p in 0..projects {
        let created = anchor - CDuration::days(r.range(200, 900) as i64);
        let env = ENVS[p % ENVS.len()];
        let suffix = if p >= ENVS.len() {
            format!("{}", p / ENVS.len())
        } else {
            String::new()
        };
        let project = Project {
            id: r.object_id(created.timestamp()),
            name: format!(
                "{}{}",
                capitalize(env),
                if suffix.is_empty() {
                    String::new()
                } else {
                    format!(" {suffix}")
                }
            ),
            org_id: org_id.clone(),
            created,
        };
        let domain = format!("{env}{suffix}.example.net");
        let mut cluster_ids: Vec<String> = Vec::new();
        for plan in plan_hosts(p, hosts_per_project, &domain) {
            while cluster_ids.len() <= plan.cluster {
                let t = created.timestamp() + r.range(0, 86_400 * 30) as i64;
                cluster_ids.push(r.object_id(t));
            }
            let index = world.hosts.len();
            let hcreated = created + CDuration::seconds(r.range(3600, 86_400 * 60) as i64);
            let mut parts = vec![partition(&mut r, "data")];
            let extra = r.range(0, 3) as usize;
            let mut names: Vec<&str> = PARTITION_NAMES.to_vec();
            for _ in 0..extra {
                let i = r.range(0, names.len() as u64) as usize;
                let name = names.remove(i);
                parts.push(partition(&mut r, name));
            }
            // A config server's disks are small and slow, a mongos has its system disk alone.
            roles::shape_disks(plan.type_name, &mut parts);
            // Databases draw from their own stream, so the rest of the world does not move.
            let mut dbr = SplitMix64::new(super::rng::hash(&[seed, index as u64, 0x6462_7321]));
            let (dbs, overhead) = match plan.type_name {
                "SHARD_MONGOS" => (Vec::new(), 0.0),
                t => databases(&mut dbr, &parts[0], t == "SHARD_CONFIG"),
            };
            let mem = *r.pick(&[8192u64, 16_384, 32_768, 65_536, 131_072]);
            let data = r.range(200_000_000, 400_000_000_000);
            world.hosts.push(Host {
                index,
                id: format!("{:016x}{:016x}", r.next_u64(), r.next_u64()),
                group_id: project.id.clone(),
                hostname: plan.hostname,
                port: plan.port,
                type_name: plan.type_name.to_string(),
                replica_state_name: plan.state.map(str::to_string),
                replica_set_name: plan.rs,
                shard_name: plan.shard,
                cluster_id: (plan.type_name != "STANDALONE")
                    .then(|| cluster_ids[plan.cluster].clone()),
                version: r.pick(&VERSIONS).to_string(),
                ip_address: format!("10.{}.{}.{}", p % 250, r.range(0, 250), r.range(2, 250)),
                created: hcreated,
                last_restart: anchor - CDuration::seconds(r.range(3600, 86_400 * 40) as i64),
                last_ping: anchor - CDuration::seconds(r.range(5, 60) as i64),
                mem_size_mb: mem,
                num_cores: mem / 4096,
                last_data_size_bytes: data,
                last_index_size_bytes: data / r.range(4, 12),
                ssl_enabled: r.chance(0.7),
                partitions: parts,
                databases: dbs,
                data_overhead_bytes: overhead,
                seeded: Vec::new(),
                breaches: Vec::new(),
                alias: None,
                hot: Vec::new(),
            });
        }
        for plan in CONFIGS.iter() {
            let c = anchor - CDuration::days(r.range(60, 190) as i64);
            world.alert_configs.push(AlertConfig {
                id: r.object_id(c.timestamp()),
                group_id: project.id.clone(),
                event_type_name: plan.event.to_string(),
                metric_name: plan.metric.map(|m| m.0.to_string()),
                threshold: plan.metric.map(|m| (m.1, m.2.to_string())),
                created: c,
            });
        }
        world.projects.push(project);
    }
    gen_alerts(&mut world, &mut r, global_alerts);
    gen_events(&mut world, &mut r);
    for i in 0..6u64 {
        let c = anchor - CDuration::days(r.range(10, 300) as i64);
        world.access_list.push(AccessListEntry {
            id: r.object_id(c.timestamp()),
            cidr_block: if i % 2 == 0 {
                format!("192.0.2.{}/32", 10 + i)
            } else {
                format!("198.51.100.0/{}", 24 + i)
            },
            description: format!("CI runner {i}"),
            created: c,
        });
    }
    // The capacity findings, from a stream of their own: nothing above moves.
    findings::seed(&mut world, seed);
    alerts::seed_history(&mut world, seed);
    breaches::settle(&mut world, seed);
    // The findings on hosts, where no breach hides or outranks them.
    findings::seed_hosts(&mut world, seed);
    // The clusters' names and Atlas configuration, from a stream of their own.
    clusters::seed(&mut world, seed);
    // The causes of the alerts and findings, from a stream of their own, last: they are
    // drawn from where everything above placed the alerts.
    causes::seed(&mut world, seed);
    world
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}
