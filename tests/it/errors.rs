//! A server's error answer becomes a typed API error carrying its status, errorCode, detail
//! and body.

use opsapi::{Granularity, MeasurementsQuery};

use crate::common::{client, sim};

#[tokio::test]
async fn not_found_errors_carry_the_api_body() {
    let sim = sim();
    let c = client(&sim);
    let g = sim.group_ids()[0].clone();
    let err = c.hosts().get(&g, "nope").await.unwrap_err();
    let api = err.api().unwrap();
    assert_eq!(api.status, 404);
    assert_eq!(api.error_code.as_deref(), Some("HOST_NOT_FOUND"));
    assert_eq!(api.reason.as_deref(), Some("Not Found"));
    assert!(api.detail.as_deref().unwrap().contains("nope"));
    assert!(api.body.contains("HOST_NOT_FOUND"));
    let h = sim.world().hosts[0].clone();
    // A measurement the server does not have is refused before it is asked (the server's
    // own 404 INVALID_METRIC_NAME is tests/sim's).
    let before = sim.requests().len();
    let q = MeasurementsQuery::period(Granularity::PT1M, "PT1H".parse().unwrap())
        .metrics(["NOT_A_METRIC"]);
    let err = c
        .measurements()
        .host(&h.group_id, &h.id, &q)
        .await
        .unwrap_err();
    assert!(
        matches!(err, opsapi::Error::InvalidArgument { ref message, .. }
            if message == "`NOT_A_METRIC` is not a host measurement of Ops Manager"),
        "{err:?}"
    );
    assert_eq!(sim.requests().len(), before);
}
