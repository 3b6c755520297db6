//! Arguments: a bad one is an argument error naming it, before any request; identifiers are
//! percent-encoded single path segments, so none can change the path or add a query.

use opsapi::{AlertStatus, Error, GlobalAlertsQuery, Granularity, MeasurementsQuery};

use crate::common::{authorized, client, sim, API};

#[tokio::test]
async fn argument_errors_are_raised_before_any_request() {
    let sim = sim();
    let c = client(&sim);
    let arg = |e: Error| match e {
        Error::InvalidArgument { argument, .. } => argument,
        other => panic!("{other:?}"),
    };
    assert_eq!(arg(c.hosts().get("", "h").await.unwrap_err()), "group_id");
    assert_eq!(arg(c.hosts().get("g", "..").await.unwrap_err()), "host_id");
    assert_eq!(
        arg(c.events().get("g", " ", false).await.unwrap_err()),
        "event_id"
    );
    assert_eq!(
        arg(c.access_list().delete("").await.unwrap_err()),
        "entry_id"
    );
    let q = MeasurementsQuery::range(
        Granularity::PT1M,
        opsapi::query::parse_timestamp("s", "2024-01-02T00:00:00Z").unwrap(),
        opsapi::query::parse_timestamp("e", "2024-01-01T00:00:00Z").unwrap(),
    );
    assert_eq!(
        arg(c.measurements().host("g", "h", &q).await.unwrap_err()),
        "start"
    );
    assert_eq!(
        arg(c
            .global_alerts()
            .list(&GlobalAlertsQuery::new().status(AlertStatus::Cancelled))
            .await
            .unwrap_err()),
        "status"
    );
    assert!(sim.requests().is_empty(), "nothing was sent");
}

#[tokio::test]
async fn identifiers_cannot_change_the_path() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let g = &world.hosts[0].group_id;
    for evil in ["x/../../admin/accessList", "a?b=c", "a#frag", "100%", "a b"] {
        let err = c.hosts().get(g, evil).await.unwrap_err();
        assert_eq!(err.error_code(), Some("HOST_NOT_FOUND"), "{evil}: {err}");
    }
    let paths: Vec<String> = authorized(&sim).into_iter().map(|r| r.path).collect();
    assert_eq!(
        paths,
        vec![
            format!("{API}/groups/{g}/hosts/x%2F..%2F..%2Fadmin%2FaccessList"),
            format!("{API}/groups/{g}/hosts/a%3Fb%3Dc"),
            format!("{API}/groups/{g}/hosts/a%23frag"),
            format!("{API}/groups/{g}/hosts/100%25"),
            format!("{API}/groups/{g}/hosts/a%20b"),
        ]
    );
    assert!(authorized(&sim).iter().all(|r| r.query.is_none()));
}
