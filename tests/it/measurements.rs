//! `client.measurements()`: host and disk measurements, the query as it goes out (`m`
//! repeated) and the series that come back. (Database measurements are in `databases.rs`,
//! fleet pulls in `tests/frame.rs`.)

use opsapi::{Granularity, MeasurementsQuery};

use crate::common::{authorized, client, query_pairs, sim, API};

#[tokio::test]
async fn host_and_disk_measurements_with_repeated_m() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let h = &world.hosts[0];
    let q = MeasurementsQuery::period(Granularity::PT1M, "PT1H".parse().unwrap())
        .metrics(["CONNECTIONS", "OPCOUNTER_CMD"]);
    let m = c.measurements().host(&h.group_id, &h.id, &q).await.unwrap();
    let req = authorized(&sim).pop().unwrap();
    assert_eq!(
        req.path,
        format!("{API}/groups/{}/hosts/{}/measurements", h.group_id, h.id)
    );
    assert_eq!(
        query_pairs(&req),
        vec![
            ("granularity".into(), "PT1M".into()),
            ("period".into(), "PT1H".into()),
            ("m".into(), "CONNECTIONS".into()),
            ("m".into(), "OPCOUNTER_CMD".into()),
        ]
    );
    let names: Vec<&str> = m.series.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names.len(), 2);
    assert!(names.contains(&"CONNECTIONS") && names.contains(&"OPCOUNTER_CMD"));
    let ops = m.get("OPCOUNTER_CMD").unwrap();
    assert!(ops.len() >= 59);
    assert_eq!(
        ops.values[0], None,
        "the first point of a rate series is null"
    );
    assert!(ops.values[1..].iter().filter(|v| v.is_some()).count() > ops.len() / 2);
    assert!(ops.timestamps.windows(2).all(|w| w[1] - w[0] == 60_000));
    assert_eq!(m.group_id.as_deref(), Some(h.group_id.as_str()));

    let part = &h.partitions[0].name;
    let start = opsapi::query::parse_timestamp("start", "2024-05-01T00:00:00Z").unwrap();
    let end = opsapi::query::parse_timestamp("end", "2024-05-02T00:00:00Z").unwrap();
    let q = MeasurementsQuery::range(Granularity::PT1H, start, end)
        .metrics(["DISK_PARTITION_SPACE_USED"]);
    let d = c
        .measurements()
        .disk(&h.group_id, &h.id, part, &q)
        .await
        .unwrap();
    assert_eq!(d.partition_name.as_deref(), Some(part.as_str()));
    let used = d.get("DISK_PARTITION_SPACE_USED").unwrap();
    assert_eq!(used.units.as_deref(), Some("BYTES"));
    assert!(used.len() >= 24);
    let req = authorized(&sim).pop().unwrap();
    assert_eq!(
        req.path,
        format!(
            "{API}/groups/{}/hosts/{}/disks/{part}/measurements",
            h.group_id, h.id
        )
    );
    assert_eq!(
        query_pairs(&req),
        vec![
            ("granularity".into(), "PT1H".into()),
            ("start".into(), "2024-05-01T00:00:00Z".into()),
            ("end".into(), "2024-05-02T00:00:00Z".into()),
            ("m".into(), "DISK_PARTITION_SPACE_USED".into()),
        ]
    );
}
