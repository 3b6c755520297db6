//! The documented payloads of the API decode, and give back exactly what they were.

use opsapi::{decode_model, Alert, Decode, Event, Host, Measurements, Model};
use serde_json::Value;

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap()
}

/// Decodes `name` as `T` and checks that serializing it gives back the same JSON value.
fn round_trip<T: Decode + serde::Serialize>(name: &str) -> T {
    let bytes = fixture(name);
    let model: T = decode_model(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(
        serde_json::to_value(&model).unwrap(),
        json(&bytes),
        "{name} does not round-trip"
    );
    model
}

#[test]
fn hosts_decode_every_documented_field() {
    let h: Host = round_trip("get-host.json");
    assert_eq!(h.hostname.as_deref(), Some("server1.example.com"));
    assert_eq!(h.port, Some(27017));
    assert_eq!(h.type_name, Some(opsapi::HostType::ReplicaPrimary));
    assert_eq!(h.replica_state_name, Some(opsapi::ReplicaState::Primary));
    assert_eq!(h.last_data_size_bytes, Some(633_208_918));
    assert_eq!(h.uptime_msec, Some(1_827_300_394));
    assert_eq!(h.system_info.as_ref().unwrap().mem_size_mb, Some(65536));
    assert_eq!(h.system_info.as_ref().unwrap().num_cores, Some(16));
    assert_eq!(
        h.aliases.as_deref(),
        Some(
            &[
                "server1.example.com:27017".to_string(),
                "10.1.0.10:27017".to_string()
            ][..]
        )
    );
    assert_eq!(
        h.last_ping.unwrap().to_rfc3339(),
        "2016-08-18T11:23:41+00:00"
    );

    let legacy: Host = round_trip("get-host-legacy-onprem.json");
    assert_eq!(legacy.deactivated, Some(false));
    assert_eq!(legacy.munin_enabled, Some(false));
    assert_eq!(legacy.system_info, None);
}

#[test]
fn global_alerts_and_acknowledgements_decode() {
    for name in [
        "get-global-alert-legacy.json",
        "ack-global-alert-legacy.json",
        "ack-global-alert.json",
    ] {
        let a: Alert = round_trip(name);
        assert_eq!(a.status, Some(opsapi::AlertStatus::Open), "{name}");
    }
    let acked: Alert = round_trip("ack-global-alert.json");
    assert_eq!(acked.acknowledgement_comment.as_deref(), Some("test"));
    assert_eq!(acked.acknowledging_username.as_deref(), Some("rwqvzark"));
    assert_eq!(
        acked.acknowledged_until.unwrap().to_rfc3339(),
        "2020-04-10T20:20:38+00:00"
    );
    let legacy: Alert = round_trip("ack-global-alert-legacy.json");
    assert_eq!(legacy.source_type_name.as_deref(), Some("REPLICA_SET"));
    assert_eq!(legacy.cluster_name.as_deref(), Some("shardedCluster"));
}

#[test]
fn list_items_decode_with_fractional_timestamps_and_current_values() {
    for name in [
        "list-global-alerts.json",
        "list-open-alerts-for-alert-config.json",
        "list-project-alerts-open.json",
    ] {
        let list = json(&fixture(name));
        for item in list["results"].as_array().unwrap() {
            let bytes = serde_json::to_vec(item).unwrap();
            let a: Alert = decode_model(&bytes).unwrap();
            assert_eq!(serde_json::to_value(&a).unwrap(), *item, "{name}");
        }
    }
    let list = json(&fixture("list-open-alerts-for-alert-config.json"));
    let a: Alert = decode_model(&serde_json::to_vec(&list["results"][0]).unwrap()).unwrap();
    assert_eq!(a.created.unwrap().timestamp_millis(), 1_398_182_233_562);
    let cv = a.current_value.unwrap();
    assert_eq!((cv.number, cv.units.as_deref()), (Some(0.0), Some("RAW")));
    assert_eq!(a.metric_name.as_deref(), Some("ASSERT_REGULAR"));
}

#[test]
fn events_keep_nulls_and_unknown_fields() {
    let e: Event = round_trip("get-project-event.json");
    let diffs = e.diffs.as_ref().unwrap();
    assert_eq!(diffs.len(), 1);
    assert_eq!(diffs[0].name, None);
    assert_eq!(diffs[0].diff_type.as_deref(), Some("ROLES"));
    assert_eq!(diffs[0].params.as_ref().unwrap().len(), 3);
    // The doc's misspelt `priviileges` is not a field this library knows, but it is kept.
    assert!(e.raw()["diffs"][0]["priviileges"].is_array());
}

#[test]
fn the_invalid_doc_texts_fail_with_a_decode_error() {
    for name in [
        "get-project-event.doc-verbatim.txt",
        "host-measurements.doc-verbatim.txt",
    ] {
        let err = decode_model::<Event>(&fixture(name)).unwrap_err();
        assert!(matches!(err, opsapi::Error::Decode { .. }), "{name}: {err}");
    }
    let err =
        decode_model::<Measurements>(&fixture("host-measurements.doc-verbatim.txt")).unwrap_err();
    assert!(err.to_string().contains("body starts with"), "{err}");
}

#[test]
fn measurements_decode_into_columns_and_round_trip() {
    let m: Measurements = round_trip("host-measurements.json");
    assert_eq!(m.series.len(), 3);
    assert_eq!(m.granularity.as_deref(), Some("P1T12H"));
    assert_eq!(m.series[0].name, "CONNECTIONS");
    assert_eq!(m.series[0].values, vec![Some(5.0)]);

    let disk: Measurements = round_trip("disk-measurements-gofixture.json");
    assert_eq!(disk.partition_name.as_deref(), Some("xvdb"));
    assert_eq!(disk.series[0].values, vec![None, None]);
    assert_eq!(disk.links[1].rel, "http://mms.mongodb.com/hostID");

    let empty: Measurements = round_trip("disk-measurements.json");
    assert_eq!(empty.series.len(), 9);
    assert_eq!(empty.data_point_count(), 0);
    assert_eq!(empty.start, None);

    let db: Measurements = round_trip("database-measurements.json");
    assert_eq!(db.database_name.as_deref(), Some("markets"));
    assert_eq!(db.series[1].values, vec![Some(51.780589415213704)]);
}

#[test]
fn atlas_examples_decode_exactly() {
    let m: Measurements = round_trip("atlas-process-measurements-gofixture.json");
    let process = Some("shard-00-00.mongodb.net:27017");
    assert_eq!(
        (m.host_id.as_deref(), m.process_id.as_deref()),
        (process, process)
    );
    assert_eq!(m.group_id.as_deref(), Some("12345678"));
    assert_eq!(m.granularity.as_deref(), Some("PT1M"));
    assert_eq!(m.series.len(), 1);
    assert_eq!(m.series[0].name, "ASSERT_REGULAR");
    assert_eq!(m.series[0].units.as_deref(), Some("SCALAR_PER_SECOND"));
    assert_eq!(m.series[0].values, vec![None, None]);
    assert_eq!(m.links[1].rel, "http://mms.mongodb.com/host");
    assert_eq!(m.start.unwrap().to_rfc3339(), "2017-08-22T20:30:45+00:00");

    let list = json(&fixture("atlas-list-project-alerts-gofixture.json"));
    assert_eq!(list["totalCount"], 1);
    let item = &list["results"][0];
    let a: Alert = decode_model(&serde_json::to_vec(item).unwrap()).unwrap();
    assert_eq!(serde_json::to_value(&a).unwrap(), *item);
    assert_eq!(a.id.as_deref(), Some("533dc40ae4b00835ff81eaee"));
    assert_eq!(a.group_id.as_deref(), Some("535683b3794d371327b"));
    assert_eq!(
        a.event_type_name.as_deref(),
        Some("OUTSIDE_METRIC_THRESHOLD")
    );
    // Fields of an alert configuration this model does not have are kept, not dropped.
    assert_eq!(a.raw()["matchers"][0]["fieldName"], "HOSTNAME_AND_PORT");

    let acked: Alert = round_trip("atlas-ack-project-alert-gofixture.json");
    assert_eq!(acked.status, Some(opsapi::AlertStatus::Open));
    assert_eq!(
        acked.acknowledged_until.unwrap().to_rfc3339(),
        "2016-10-01T04:00:00+00:00"
    );
    assert_eq!(
        acked.acknowledgement_comment.as_deref(),
        Some("This is normal. Please ignore.")
    );
    assert_eq!(
        acked.acknowledging_username.as_deref(),
        Some("someuser@example.com")
    );
    let cv = acked.current_value.unwrap();
    assert_eq!((cv.number, cv.units.as_deref()), (Some(0.0), Some("RAW")));
    assert_eq!(
        acked.metric_name.as_deref(),
        Some("ASSERTS_REGULAR"),
        "as the fixture spells it"
    );
}

#[test]
fn measurement_values_are_f64_not_f32() {
    // 1 TiB + 64 KiB: a float32 would round it to 1 TiB.
    let body = br#"{"measurements":[{"name":"DISK_PARTITION_SPACE_USED","units":"BYTES","dataPoints":[{"timestamp":"2024-01-01T00:00:00Z","value":1099511693312}]}]}"#;
    let m: Measurements = decode_model(body).unwrap();
    assert_eq!(m.series[0].values[0], Some(1_099_511_693_312.0));
}

#[test]
fn measurement_decode_errors_name_the_field() {
    let body = br#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-01-01T00:00:00Z","value":1},{"timestamp":"yesterday","value":2}]}]}"#;
    let err = decode_model::<Measurements>(body).unwrap_err();
    match &err {
        opsapi::Error::Decode { field, .. } => {
            assert_eq!(field, "measurements[0].dataPoints[1].timestamp")
        }
        other => panic!("{other:?}"),
    }
    let body = br#"{"measurements":[{"name":"A","dataPoints":[{"timestamp":"2024-01-01T00:00:00Z","value":"high"}]}]}"#;
    let err = decode_model::<Measurements>(body).unwrap_err();
    assert!(
        err.to_string()
            .contains("measurements[0].dataPoints[0].value"),
        "{err}"
    );
}

#[test]
fn envelopes_decode_for_every_model() {
    let host = fixture("get-host.json");
    let wrapped = format!(
        r#"{{"status": 200, "content": {}}}"#,
        String::from_utf8(host.clone()).unwrap()
    );
    let h: Host = decode_model(wrapped.as_bytes()).unwrap();
    assert_eq!(serde_json::to_value(&h).unwrap(), json(&host));

    let m = fixture("host-measurements.json");
    let wrapped = format!(
        r#"{{"content": {}, "status": 200}}"#,
        String::from_utf8(m.clone()).unwrap()
    );
    let decoded: Measurements = decode_model(wrapped.as_bytes()).unwrap();
    assert_eq!(serde_json::to_value(&decoded).unwrap(), json(&m));
}

#[test]
fn error_bodies_of_the_docs_become_api_errors() {
    for (name, status, code) in [
        (
            "error-400-openapi-example.json",
            400,
            Some("INVALID_PROVIDER"),
        ),
        ("error-401-unauthorized.json", 401, None),
        (
            "error-403-openapi-example.json",
            403,
            Some("CANNOT_CHANGE_GROUP_NAME"),
        ),
        ("error-404-host-legacy-mms.json", 404, None),
        (
            "error-404-openapi-example.json",
            404,
            Some("RESOURCE_NOT_FOUND"),
        ),
        (
            "error-409-gofixture.json",
            409,
            Some("GROUP_ALREADY_EXISTS"),
        ),
        (
            "error-429-atlas-v2.json",
            429,
            Some("RATE_LIMITED_TOKEN_BUCKET"),
        ),
    ] {
        let e = opsapi::ApiError::from_response(status, &fixture(name), None);
        assert_eq!(e.error_code.as_deref(), code, "{name}");
        assert!(e.detail.is_some(), "{name}");
        assert!(e.reason.is_some(), "{name}");
    }
    let e = opsapi::ApiError::from_response(429, &fixture("error-429-atlas-v2.json"), None);
    assert_eq!(e.parameters[1], 55);
    assert_eq!(e.parameters[0], "api/atlas/v2/orgs");
}
