//! Measurement names, per flavour (`opsapi::flavour::measurements`): the tables are the
//! documented catalogs (Ops Manager's measurement types, Atlas's OpenAPI enums, both vendored
//! in `tests/fixtures/`); each simulator serves only its flavour's names (and on Atlas, its
//! units); a name only another flavour has is refused before any request, naming both, and
//! a name no catalog knows is sent for the server to judge; each flavour is asked in its
//! own words while frames carry one set of names; more names than an Atlas request may carry
//! are asked ten at a time and merged, and Ops Manager keeps one request per target.

use std::collections::BTreeSet;

use opsapi::api::measurements::Target;
use opsapi::flavour::measurements as names;
use opsapi::fleet::FleetOptions;
use opsapi::{Error, Flavour, Granularity, MeasurementsQuery, Operation};
use serde_json::Value;

use crate::flavours::{api_requests, client_of, sim_of};

/// The API requests that passed authentication (not Digest's first, unsigned round trip).
fn authorized(sim: &opsapi::sim::Simulator) -> Vec<opsapi::sim::RequestRecord> {
    api_requests(sim)
        .into_iter()
        .filter(|r| r.authorized)
        .collect()
}

const OPERATIONS: [(Operation, &str, &str); 3] = [
    (Operation::MeasurementsHost, "host", "measurements.host"),
    (Operation::MeasurementsDisk, "disk", "measurements.disk"),
    (
        Operation::MeasurementsDatabase,
        "database",
        "measurements.database",
    ),
];

/// A vendored catalog, or `None` in the published crate, which does not ship them (their
/// licence, CC BY-NC-SA, is not the crate's: `tests/fixtures/atlas-openapi/README.md`). In the
/// repository (where `pyproject.toml` is, which the crate does not ship either) a missing
/// catalog fails the test.
fn fixture(path: &str) -> Option<Value> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = root.join("tests/fixtures").join(path);
    if !path.exists() && !root.join("pyproject.toml").exists() {
        eprintln!("skipped: {} is not shipped in the crate", path.display());
        return None;
    }
    Some(serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap())
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// The spec's `m` parameter of an operation.
fn spec_m(spec: &Value, op: &str) -> Value {
    spec["operations"][op]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "m")
        .unwrap()["schema"]
        .clone()
}

/// The headroom's host measurements (`opsapi.capacity.HEADROOM_HOST_METRICS`): 17 names.
const SEVENTEEN: [&str; 17] = [
    "OPLOG_MASTER_TIME",
    "OPLOG_REPLICATION_LAG_TIME",
    "PROCESS_NORMALIZED_CPU_USER",
    "PROCESS_NORMALIZED_CPU_KERNEL",
    "SYSTEM_NORMALIZED_CPU_USER",
    "SYSTEM_NORMALIZED_CPU_KERNEL",
    "SYSTEM_NORMALIZED_CPU_NICE",
    "SYSTEM_NORMALIZED_CPU_IRQ",
    "SYSTEM_NORMALIZED_CPU_SOFTIRQ",
    "SYSTEM_NORMALIZED_CPU_STEAL",
    "CACHE_USED_BYTES",
    "CACHE_DIRTY_BYTES",
    "CACHE_FILL_RATIO",
    "DIRTY_FILL_RATIO",
    "CONNECTIONS",
    "TICKETS_AVAILABLE_READS",
    "TICKETS_AVAILABLE_WRITE",
];

fn query() -> MeasurementsQuery {
    let t = |s: &str| opsapi::query::parse_timestamp("t", s).unwrap();
    MeasurementsQuery::range(
        Granularity::PT1H,
        t("2026-03-01T00:00:00Z"),
        t("2026-03-01T06:00:00Z"),
    )
}

/// The `m` values of a logged request, in order.
fn m_of(r: &opsapi::sim::RequestRecord) -> Vec<String> {
    url::form_urlencoded::parse(r.query.as_deref().unwrap_or("").as_bytes())
        .filter(|(k, _)| k == "m")
        .map(|(_, v)| v.into_owned())
        .collect()
}

#[test]
fn the_tables_are_the_documented_catalogs() {
    let (Some(catalog), Some(spec)) = (
        fixture("ops-manager-measurements/measurement-types.json"),
        fixture("atlas-openapi/spec.json"),
    ) else {
        return;
    };
    for (op, kind, name) in OPERATIONS {
        // Ops Manager's: the catalog's sections, in order, each name once.
        let mut om: Vec<String> = Vec::new();
        for section in catalog[kind].as_object().unwrap().values() {
            for n in strings(section) {
                if !om.contains(&n) {
                    om.push(n);
                }
            }
        }
        for f in [Flavour::OpsManager, Flavour::CloudManager] {
            assert_eq!(f.measurement_names(op), om, "{f} {kind}");
        }
        // Atlas's: the spec's enum of `m`, and its maxItems the limit of a request.
        let m = spec_m(&spec, name);
        assert_eq!(
            Flavour::Atlas.measurement_names(op),
            strings(&m["items"]["enum"]),
            "{kind}"
        );
        assert_eq!(m["maxItems"], names::ATLAS_MAX_MEASUREMENTS);
        assert_eq!(m["uniqueItems"], true);
    }
    assert_eq!(Flavour::Atlas.max_measurements(), Some(10));
    // The names Atlas gives a series of Ops Manager's: each is one flavour's only.
    let host = Operation::MeasurementsHost;
    for (om, atlas) in names::ATLAS_MEASUREMENT_NAMES {
        assert!(Flavour::OpsManager.measurement_names(host).contains(&om));
        assert!(!Flavour::OpsManager.measurement_names(host).contains(&atlas));
        assert!(Flavour::Atlas.measurement_names(host).contains(&atlas));
        assert!(!Flavour::Atlas.measurement_names(host).contains(&om));
    }
}

#[tokio::test]
async fn each_simulator_serves_only_its_flavours_names_and_units() {
    let Some(spec) = fixture("atlas-openapi/spec.json") else {
        return;
    };
    let units = strings(
        &spec["components"]["schemas"]["MetricsMeasurement_Atlas"]["properties"]["units"]["enum"],
    );
    for flavour in Flavour::ALL {
        let sim = sim_of(flavour);
        let c = client_of(&sim);
        let h = &sim.world().hosts[0];
        let id = if flavour == Flavour::Atlas {
            h.process_id()
        } else {
            h.id.clone()
        };
        let targets = [
            Target::host(&h.group_id, &id),
            Target::disk(&h.group_id, &id, &h.partitions[0].name),
            Target::database(&h.group_id, &id, &h.databases[0].name),
        ];
        for (t, (op, kind, _)) in targets.iter().zip(OPERATIONS) {
            // No `m`: every measurement the server has.
            let m = c.measurements().target(t, &query()).await.unwrap();
            assert!(!m.series.is_empty());
            let raw: Value = serde_json::from_str(m.raw_json().unwrap()).unwrap();
            for s in raw["measurements"].as_array().unwrap() {
                let name = s["name"].as_str().unwrap();
                assert!(
                    flavour.measurement_names(op).contains(&name),
                    "{flavour} serves {kind} measurement {name}"
                );
                if flavour == Flavour::Atlas {
                    let u = s["units"].as_str().unwrap();
                    assert!(units.iter().any(|x| x == u), "{name} in {u}");
                }
            }
        }
    }
}

#[tokio::test]
async fn a_name_only_another_flavour_has_is_refused_before_any_request_naming_both() {
    for (flavour, lacks, has) in [
        (
            Flavour::Atlas,
            "DB_INDEX_SIZE_TOTAL",
            "a host measurement of Ops Manager and Cloud Manager",
        ),
        (
            Flavour::OpsManager,
            "FTS_DISK_UTILIZATION",
            "a host measurement of Atlas",
        ),
        (
            Flavour::CloudManager,
            "DISK_QUEUE_DEPTH",
            "a disk measurement of Atlas",
        ),
    ] {
        let sim = sim_of(flavour);
        let c = client_of(&sim);
        let h = &sim.world().hosts[0];
        let q = query().metrics(["CONNECTIONS", lacks]);
        let single = c.measurements().host(&h.group_id, &h.id, &q).await;
        let fleet = c
            .measurements()
            .fleet(
                &[Target::host(&h.group_id, &h.id)],
                &q,
                &FleetOptions::new().keep_going(true),
            )
            .await;
        for e in [single.unwrap_err(), fleet.unwrap_err()] {
            let Error::InvalidArgument { argument, message } = &e else {
                panic!("{e:?}");
            };
            assert_eq!(argument, "metrics");
            assert_eq!(
                message,
                &format!("`{lacks}` is {has} that {flavour} does not have")
            );
        }
        assert!(api_requests(&sim).is_empty(), "{flavour}: nothing sent");
    }
}

/// A name no catalog knows (servers add measurements; an Atlas *alert* metric is not a
/// measurement) is sent as it is, and the server's refusal is the typed error: 404
/// `INVALID_METRIC_NAME` with the name in its detail, the status Atlas's specification
/// documents for the measurements too (its only 4xx besides 401, 403 and 429).
#[tokio::test]
async fn a_name_no_catalog_knows_is_sent_and_the_server_judges_it() {
    for flavour in Flavour::ALL {
        for unknown in ["NEXT_YEARS_MEASUREMENT", "CACHE_USAGE_USED"] {
            let sim = sim_of(flavour);
            let c = client_of(&sim);
            let h = sim
                .world()
                .hosts
                .iter()
                .find(|h| h.type_name != "STANDALONE")
                .unwrap()
                .clone();
            let id = if flavour == Flavour::Atlas {
                h.process_id()
            } else {
                h.id.clone()
            };
            let q = query().metrics(["CONNECTIONS", unknown]);
            let e = c
                .measurements()
                .host(&h.group_id, &id, &q)
                .await
                .unwrap_err();
            let api = e.api().unwrap_or_else(|| panic!("{flavour}: {e:?}"));
            assert_eq!(
                (api.status, api.error_code.as_deref()),
                (404, Some("INVALID_METRIC_NAME")),
                "{flavour}"
            );
            assert!(
                api.detail.as_deref().is_some_and(|d| d.contains(unknown)),
                "{flavour}: {api:?}"
            );
            assert!(e.is_not_found());
            let sent = authorized(&sim);
            assert_eq!(sent.len(), 1, "{flavour}");
            assert_eq!(m_of(&sent[0]), ["CONNECTIONS", unknown], "{flavour}");
        }
    }
}

#[tokio::test]
async fn each_flavour_is_asked_in_its_own_names_and_frames_carry_one_set() {
    let asked = [
        "OPLOG_REPLICATION_LAG_TIME",
        "SYSTEM_NETWORK_BYTES_IN",
        "CACHE_DIRTY_BYTES",
    ];
    let mut series = Vec::new();
    for flavour in [Flavour::OpsManager, Flavour::Atlas] {
        let sim = sim_of(flavour);
        let c = client_of(&sim);
        let h = &sim.world().hosts[0];
        let id = if flavour == Flavour::Atlas {
            h.process_id()
        } else {
            h.id.clone()
        };
        let m = c
            .measurements()
            .host(&h.group_id, &id, &query().metrics(asked))
            .await
            .unwrap();
        let sent = authorized(&sim);
        assert_eq!(sent.len(), 1);
        let want: &[&str] = match flavour {
            Flavour::Atlas => &[
                "OPLOG_REPLICATION_LAG",
                "SYSTEM_NETWORK_IN",
                "CACHE_DIRTY_BYTES",
            ],
            _ => &asked,
        };
        assert_eq!(m_of(&sent[0]), want);
        // The frame's names whatever the flavour (the server's order: the catalog's).
        let got: BTreeSet<&str> = m.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(got, asked.into_iter().collect());
        series.push(m.series);
    }
    // The same series; Atlas gives the lag in milliseconds where Ops Manager gives seconds.
    let (om, atlas) = (&series[0], &series[1]);
    for s in om {
        let a = atlas.iter().find(|x| x.name == s.name).unwrap();
        assert_eq!(a.timestamps, s.timestamps);
        let factor = if s.name == "OPLOG_REPLICATION_LAG_TIME" {
            assert_eq!(
                (s.units.as_deref(), a.units.as_deref()),
                (Some("SECONDS"), Some("MILLISECONDS"))
            );
            1000.0
        } else {
            assert_eq!(a.units, s.units);
            1.0
        };
        let scaled: Vec<Option<f64>> = s.values.iter().map(|v| v.map(|v| v * factor)).collect();
        assert_eq!(a.values.len(), scaled.len());
        for (x, y) in a.values.iter().zip(&scaled) {
            assert!(
                x.zip(*y)
                    .is_none_or(|(x, y)| (x - y).abs() <= 1e-9 * y.abs()),
                "{}",
                s.name
            );
        }
    }
}

#[tokio::test]
async fn more_names_than_an_atlas_request_carries_are_asked_ten_at_a_time_and_merged() {
    for flavour in [Flavour::OpsManager, Flavour::Atlas] {
        let sim = sim_of(flavour);
        let c = client_of(&sim);
        let w = sim.world();
        let id = |h: &opsapi::sim::Host| {
            if flavour == Flavour::Atlas {
                h.process_id()
            } else {
                h.id.clone()
            }
        };
        let q = query().metrics(SEVENTEEN);
        // One target.
        let h = &w.hosts[0];
        let m = c
            .measurements()
            .host(&h.group_id, &id(h), &q)
            .await
            .unwrap();
        let got: BTreeSet<&str> = m.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(got, SEVENTEEN.into_iter().collect(), "{flavour}");
        let sent: Vec<Vec<String>> = authorized(&sim).iter().map(m_of).collect();
        let counts: Vec<usize> = sent.iter().map(Vec::len).collect();
        if flavour == Flavour::Atlas {
            // Ten, then seven, in the order asked; no body holds the merged answer.
            assert_eq!(counts, [10, 7]);
            assert_eq!(sent[0][1], "OPLOG_REPLICATION_LAG");
            assert!(m.raw_json().is_none());
        } else {
            // Ops Manager and Cloud Manager state no limit: one request, its body kept.
            assert_eq!(counts, [17]);
            assert!(m.raw_json().is_some());
        }
        // A fleet: the same per target, merged into one frame.
        sim.clear_requests();
        let targets: Vec<Target> = crate::flavours::served_hosts(&sim)
            .iter()
            .take(4)
            .map(|h| Target::host(&h.group_id, id(h)))
            .collect();
        let pulled = c
            .measurements()
            .fleet(&targets, &q, &FleetOptions::new())
            .await
            .unwrap();
        let per_target = if flavour == Flavour::Atlas { 2 } else { 1 };
        assert_eq!(authorized(&sim).len(), per_target * targets.len());
        let measurement = pulled
            .frame
            .column("measurement")
            .unwrap()
            .as_materialized_series()
            .cast(&polars::prelude::DataType::String)
            .unwrap();
        let names: BTreeSet<String> = measurement
            .str()
            .unwrap()
            .iter()
            .flatten()
            .map(str::to_string)
            .collect();
        assert_eq!(names, SEVENTEEN.iter().map(|s| s.to_string()).collect());
    }
}

#[tokio::test]
async fn a_sync_asking_a_name_the_flavour_lacks_is_refused_before_any_request() {
    use opsapi::store::{Kind, Store, SyncOptions};
    let sim = sim_of(Flavour::Atlas);
    let c = client_of(&sim);
    let dir = tempfile::tempdir().unwrap();
    let options = SyncOptions::new(Granularity::PT1H, "P1D".parse().unwrap())
        .metrics(Kind::Database, ["DATABASE_DATA_SIZE", "DATABASE_FILE_SIZE"]);
    let e = c
        .measurements()
        .sync(&Store::new(dir.path().join("store")), &options)
        .await
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid argument `metrics`: `DATABASE_FILE_SIZE` is a database measurement of Ops \
         Manager and Cloud Manager that Atlas does not have"
    );
    assert!(sim.requests().is_empty(), "nothing sent");
}
