//! A server's error answer becomes a typed API error carrying its status, errorCode, detail
//! and body; a server that cannot be reached, a transport error that names its URL.

use opsapi::{Client, Granularity, MeasurementsQuery};

use crate::common::{client, closed_port, sim};

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
    // A measurement no catalog of opsapi's knows is the server's to judge: sent as it is,
    // and its 404 INVALID_METRIC_NAME is the typed error, the name in its detail.
    let before = sim.requests().len();
    let q = MeasurementsQuery::period(Granularity::PT1M, "PT1H".parse().unwrap())
        .metrics(["NOT_A_METRIC"]);
    let err = c
        .measurements()
        .host(&h.group_id, &h.id, &q)
        .await
        .unwrap_err();
    let api = err.api().unwrap_or_else(|| panic!("{err:?}"));
    assert_eq!(
        (api.status, api.error_code.as_deref()),
        (404, Some("INVALID_METRIC_NAME"))
    );
    assert!(api.detail.as_deref().unwrap().contains("NOT_A_METRIC"));
    let sent = &sim.requests()[before..];
    assert_eq!(sent.len(), 1);
    assert!(sent[0]
        .query
        .as_deref()
        .unwrap()
        .ends_with("&m=NOT_A_METRIC"));
}

#[tokio::test]
async fn with_the_server_down_the_error_names_the_url_in_one_sentence() {
    // A port that refuses every connection, as a server that is down does.
    let (_held, port) = closed_port();
    let server = format!("http://127.0.0.1:{port}");
    let key = "5f1c2e3a-9b1d-4c6e-8f00-0123456789ab";
    let refused = |e: opsapi::Error, request: &str, url: &str| {
        let shown = e.to_string();
        let want = format!("transport error on {request}: could not connect to {url} (");
        // The operating system's own words for the refusal, and nothing of the HTTP stack's.
        assert!(
            shown.starts_with(&want) && shown.ends_with(')') && shown.contains("refused"),
            "{shown}"
        );
        assert!(!shown.contains("error sending request") && !shown.contains("tcp connect"));
        assert!(
            !shown.contains("os error") && !shown.contains(key),
            "{shown}"
        );
    };
    let c = Client::builder(&server)
        .credentials("pub", key)
        .max_retries(0)
        .build()
        .unwrap();
    let e = c.groups().list().await.unwrap_err();
    refused(
        e,
        "GET /groups",
        &format!("{server}/api/public/v1.0/groups"),
    );
    // The URL without its query.
    let q = MeasurementsQuery::period(Granularity::PT1M, "PT1H".parse().unwrap())
        .metrics(["CONNECTIONS"]);
    let e = c.measurements().host("g1", "h1", &q).await.unwrap_err();
    refused(
        e,
        "GET /groups/g1/hosts/h1/measurements",
        &format!("{server}/api/public/v1.0/groups/g1/hosts/h1/measurements"),
    );
    // The token endpoint of a service account names its own URL.
    let atlas = Client::atlas()
        .base_url(&server)
        .service_account("mdb_sa_id_1", key)
        .token_cache(false)
        .max_retries(0)
        .build()
        .unwrap();
    let e = atlas.groups().list().await.unwrap_err();
    refused(
        e,
        "POST /api/oauth/token",
        &format!("{server}/api/oauth/token"),
    );
}
