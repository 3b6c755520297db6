//! Retries: which answers and transport failures are retried, for which methods (a PATCH is
//! never re-sent once it may have reached the server), and how long the client waits
//! (`Retry-After`, `max_retry_wait`).

use std::time::Duration;

use chrono::{TimeZone, Utc};
use opsapi::sim::{Fault, SimConfig, SimTls, Simulator};
use opsapi::{Client, Error};

use crate::common::{
    acknowledged, api_error, client, closed_port, for_an_hour, fresh_client, ids, listed,
    listen_on, on_retry, seen, sim, start, warm,
};

fn status(status: u16) -> Fault {
    Fault::Status {
        status,
        retry_after: None,
    }
}

#[tokio::test]
async fn transient_faults_are_retried_and_others_are_not() {
    let sim = sim();
    let c = client(&sim);
    let h = sim.world().hosts[0].clone();
    c.hosts().get(&h.group_id, &h.id).await.unwrap();

    for status in [429, 502, 503, 504] {
        sim.clear_requests();
        sim.inject(
            Fault::Status {
                status,
                retry_after: if status == 429 { Some(0) } else { None },
            },
            2,
        );
        c.hosts().get(&h.group_id, &h.id).await.unwrap();
        let statuses: Vec<u16> = sim.requests().iter().map(|r| r.status).collect();
        assert_eq!(statuses, vec![status, status, 200], "{status}");
    }

    sim.clear_requests();
    sim.inject(
        Fault::Status {
            status: 500,
            retry_after: None,
        },
        1,
    );
    let err = c.hosts().get(&h.group_id, &h.id).await.unwrap_err();
    assert_eq!(err.status(), Some(500));
    assert_eq!(sim.requests().len(), 1, "500 is not retried");

    sim.clear_requests();
    sim.inject(
        Fault::Status {
            status: 503,
            retry_after: None,
        },
        10,
    );
    let err = c.hosts().get(&h.group_id, &h.id).await.unwrap_err();
    assert_eq!(err.status(), Some(503));
    assert_eq!(sim.requests().len(), 4, "1 + max_retries (3)");
    sim.clear_injected();

    sim.clear_requests();
    sim.inject(Fault::Truncate, 1);
    c.hosts().get(&h.group_id, &h.id).await.unwrap();
    assert_eq!(sim.requests().len(), 2, "a cut body on GET is retried");

    sim.clear_requests();
    sim.inject(Fault::Reset, 1);
    c.hosts().get(&h.group_id, &h.id).await.unwrap();
    assert!(sim.requests().len() >= 2, "a reset on GET is retried");
}

#[tokio::test]
async fn retry_after_is_honoured() {
    let sim = sim();
    let c = client(&sim);
    let h = sim.world().hosts[0].clone();
    c.hosts().get(&h.group_id, &h.id).await.unwrap();
    sim.clear_requests();
    sim.inject(
        Fault::Status {
            status: 429,
            retry_after: Some(1),
        },
        1,
    );
    c.hosts().get(&h.group_id, &h.id).await.unwrap();
    // The simulator saw the retry a second or more after the refusal (a lower bound: a
    // loaded machine only makes the gap longer).
    let log = sim.requests();
    assert_eq!(
        log.iter().map(|r| r.status).collect::<Vec<_>>(),
        [429, 200],
        "{log:?}"
    );
    assert!(
        log[1].arrived - log[0].arrived >= Duration::from_secs(1),
        "{log:?}"
    );

    let impatient = Client::builder(sim.base_url())
        .credentials(sim.public_key(), sim.private_key())
        .max_retry_wait(Duration::from_millis(500))
        .build()
        .unwrap();
    impatient.groups().list().await.unwrap();
    sim.clear_requests();
    sim.inject(
        Fault::Status {
            status: 429,
            retry_after: Some(30),
        },
        1,
    );
    let err = impatient.hosts().get(&h.group_id, &h.id).await.unwrap_err();
    assert_eq!(err.status(), Some(429));
    assert_eq!(
        err.api().unwrap().retry_after,
        Some(Duration::from_secs(30))
    );
    // Not retried: a wait over max_retry_wait is the caller's to decide.
    assert_eq!(
        seen(&sim),
        [format!(
            "GET /groups/{}/hosts/{} signed 429 [status 429 retry-after 30]",
            h.group_id, h.id
        )]
    );
}

#[tokio::test]
async fn a_connect_error_is_retried_for_every_method_even_patch() {
    // The port refuses the first attempt (bound, not listening) and listens, with the
    // simulator behind it, once the client has decided to retry: it never lets the port go.
    let anchor = Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).single();
    let config = move || SimConfig {
        anchor,
        ..SimConfig::default()
    };
    let probe = start(config());
    let (alert, public, private) = (
        ids(&probe).alert,
        probe.public_key().to_string(),
        probe.private_key().to_string(),
    );
    drop(probe);
    let (socket, port) = closed_port();
    let c = Client::builder(format!("http://127.0.0.1:{port}"))
        .credentials(public, private)
        .retry_backoff(Duration::from_millis(400))
        .build()
        .unwrap();
    let mut signal = on_retry();
    let call = {
        let alert = alert.clone();
        tokio::spawn(async move { c.global_alerts().acknowledge(&alert, &for_an_hour()).await })
    };
    let why = signal.retries.recv().await.unwrap();
    assert!(
        why.contains(&format!("could not connect to http://127.0.0.1:{port}/")),
        "{why}"
    );
    let sim = Simulator::start_on(listen_on(socket), config()).unwrap();
    let acked = call.await.unwrap().unwrap();
    assert!(acked.acknowledged_until.is_some());
    assert!(acknowledged(&sim, &alert));
    assert_eq!(
        seen(&sim),
        [
            format!("PATCH /globalAlerts/{alert} unsigned 401"),
            format!("PATCH /globalAlerts/{alert} signed 201"),
        ]
    );
}

#[tokio::test]
async fn a_429_is_retried_for_every_method() {
    let sim = sim();
    let i = ids(&sim);
    let c = warm(&sim).await;
    let fault = || Fault::Status {
        status: 429,
        retry_after: Some(0),
    };
    let label = "[status 429 retry-after 0]";

    sim.inject(fault(), 1);
    c.hosts().get(&i.group, &i.host).await.unwrap();
    sim.inject(fault(), 1);
    c.global_alerts()
        .acknowledge(&i.alert, &for_an_hour())
        .await
        .unwrap();
    sim.inject(fault(), 1);
    c.access_list().delete(&i.entry).await.unwrap();
    let host = format!("/groups/{}/hosts/{}", i.group, i.host);
    assert_eq!(
        seen(&sim),
        [
            format!("GET {host} signed 429 {label}"),
            format!("GET {host} signed 200"),
            format!("PATCH /globalAlerts/{} signed 429 {label}", i.alert),
            format!("PATCH /globalAlerts/{} signed 201", i.alert),
            format!("DELETE /admin/accessList/{} signed 429 {label}", i.entry),
            format!("DELETE /admin/accessList/{} signed 204", i.entry),
        ]
    );
    assert!(acknowledged(&sim, &i.alert));
    assert!(!listed(&sim, &i.entry));
}

#[tokio::test]
async fn gateway_errors_are_retried_for_get_and_delete_never_for_patch() {
    for code in [502, 503, 504] {
        let sim = sim();
        let i = ids(&sim);
        let c = warm(&sim).await;
        let label = format!("[status {code}]");
        sim.inject(status(code), 1);
        c.hosts().get(&i.group, &i.host).await.unwrap();
        sim.inject(status(code), 1);
        c.access_list().delete(&i.entry).await.unwrap();
        sim.inject(status(code), 1);
        let err = c
            .global_alerts()
            .acknowledge(&i.alert, &for_an_hour())
            .await
            .unwrap_err();
        assert_eq!(api_error(&err).status, code);
        let host = format!("/groups/{}/hosts/{}", i.group, i.host);
        assert_eq!(
            seen(&sim),
            [
                format!("GET {host} signed {code} {label}"),
                format!("GET {host} signed 200"),
                format!("DELETE /admin/accessList/{} signed {code} {label}", i.entry),
                format!("DELETE /admin/accessList/{} signed 204", i.entry),
                format!("PATCH /globalAlerts/{} signed {code} {label}", i.alert),
            ],
            "{code}"
        );
        assert!(!listed(&sim, &i.entry));
        assert!(!acknowledged(&sim, &i.alert), "{code}: the 502 came first");
    }
}

#[tokio::test]
async fn a_change_applied_then_answered_502_is_reported_once_for_patch_and_as_done_for_delete() {
    for (fault, label) in [
        (
            Fault::StatusAfterApplied {
                status: 502,
                retry_after: None,
            },
            "status 502 after applied",
        ),
        (
            Fault::HtmlPageAfterApplied { status: 502 },
            "html 502 after applied",
        ),
    ] {
        let sim = sim();
        let i = ids(&sim);
        let c = warm(&sim).await;
        sim.inject(fault.clone(), 1);
        let err = c
            .global_alerts()
            .acknowledge(&i.alert, &for_an_hour())
            .await
            .unwrap_err();
        let api = api_error(&err);
        assert_eq!(api.status, 502);
        if label.starts_with("html") {
            assert_eq!(api.error_code, None);
            assert!(
                api.body.contains("<title>502 Bad Gateway</title>"),
                "{api:?}"
            );
            assert!(err.to_string().starts_with(&format!(
                "HTTP 502 on PATCH /globalAlerts/{}: <!DOCTYPE html>",
                i.alert
            )));
        } else {
            assert_eq!(
                err.to_string(),
                format!(
                    "HTTP 502 UNEXPECTED_ERROR on PATCH /globalAlerts/{}: Bad Gateway",
                    i.alert
                )
            );
        }
        assert!(acknowledged(&sim, &i.alert), "the server applied it");

        sim.inject(fault.clone(), 1);
        c.access_list().delete(&i.entry).await.unwrap();
        assert!(!listed(&sim, &i.entry));
        assert_eq!(
            seen(&sim),
            [
                format!("PATCH /globalAlerts/{} signed 502 [{label}]", i.alert),
                format!("DELETE /admin/accessList/{} signed 502 [{label}]", i.entry),
                format!("DELETE /admin/accessList/{} signed 404", i.entry),
            ]
        );
    }
}

#[tokio::test]
async fn resets_and_cut_bodies_are_retried_for_get_and_delete_never_for_patch() {
    for (fault, applied) in [
        (Fault::Reset, false),
        (Fault::ResetAfterApplied, true),
        (Fault::Truncate, true),
    ] {
        let sim = sim();
        let i = ids(&sim);
        let c = warm(&sim).await;
        let label = fault.label();
        // What the struck request's log line says: no status after a reset.
        let struck = match fault {
            Fault::Truncate => 200,
            _ => 0,
        };
        sim.inject(fault.clone(), 1);
        c.hosts().get(&i.group, &i.host).await.unwrap();
        sim.inject(fault.clone(), 1);
        let err = c
            .global_alerts()
            .acknowledge(&i.alert, &for_an_hour())
            .await
            .unwrap_err();
        assert!(
            matches!(&err, Error::Transport { method, path, .. }
                if method == "PATCH" && *path == format!("/globalAlerts/{}", i.alert)),
            "{label}: {err:?}"
        );
        assert_eq!(acknowledged(&sim, &i.alert), applied, "{label}");
        sim.inject(fault.clone(), 1);
        let deleted = c.access_list().delete(&i.entry).await;
        let host = format!("/groups/{}/hosts/{}", i.group, i.host);
        let mut want = vec![
            format!("GET {host} signed {struck} [{label}]"),
            format!("GET {host} signed 200"),
            format!(
                "PATCH /globalAlerts/{} signed {} [{label}]",
                i.alert,
                if struck == 200 { 201 } else { 0 }
            ),
        ];
        match fault {
            // A DELETE's 204 has no body to cut: the fault waits for the next body.
            Fault::Truncate => {
                want.push(format!("DELETE /admin/accessList/{} signed 204", i.entry));
                assert_eq!(sim.injected(), [Fault::Truncate]);
            }
            _ => {
                want.push(format!(
                    "DELETE /admin/accessList/{} signed 0 [{label}]",
                    i.entry
                ));
                want.push(format!(
                    "DELETE /admin/accessList/{} signed {}",
                    i.entry,
                    if applied { 404 } else { 204 }
                ));
            }
        }
        deleted.unwrap();
        assert!(!listed(&sim, &i.entry));
        assert_eq!(seen(&sim), want, "{label}");
    }
}

#[tokio::test]
async fn a_500_is_not_retried() {
    let sim = sim();
    let i = ids(&sim);
    let c = warm(&sim).await;
    sim.inject(status(500), 1);
    let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "HTTP 500 UNEXPECTED_ERROR on GET /groups/{}/hosts/{}: Unexpected error.",
            i.group, i.host
        )
    );
    sim.inject(status(500), 1);
    let err = c.access_list().delete(&i.entry).await.unwrap_err();
    assert_eq!(api_error(&err).status, 500);
    assert_eq!(
        seen(&sim),
        [
            format!(
                "GET /groups/{}/hosts/{} signed 500 [status 500]",
                i.group, i.host
            ),
            format!(
                "DELETE /admin/accessList/{} signed 500 [status 500]",
                i.entry
            ),
        ]
    );
    assert!(listed(&sim, &i.entry));
}

#[tokio::test]
async fn a_refused_certificate_is_not_retried() {
    let sim = start(SimConfig {
        tls: Some(SimTls::InternalCa),
        ..SimConfig::default()
    });
    let i = ids(&sim);
    // No ca_file: the simulator's internal CA is unknown to the system's roots.
    let err = fresh_client(&sim)
        .hosts()
        .get(&i.group, &i.host)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
    assert!(err.to_string().contains("ca_file"), "{err}");
    assert_eq!(sim.connections(), 1, "one handshake, not retried");
    assert!(sim.requests().is_empty());
}
