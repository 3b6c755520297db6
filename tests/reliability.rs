//! The client's reliability rules against the simulator's faults (issue 12): the time budget,
//! retries by method, the body cap, redirects, Digest refusals, repeated id-less pages and
//! bodies that are not the documented JSON. Each test asserts the exact requests that went
//! out (method, path, query, Authorization or not, status) and the result or error.

#![cfg(feature = "sim")] // against the simulator

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{TimeZone, Utc};
use futures_util::TryStreamExt;
use opsapi::sim::{Fault, Faults, SimConfig, SimTls, Simulator};
use opsapi::{AckUntil, Acknowledgement, Client, Error, GlobalAlertsQuery};

const API: &str = "/api/public/v1.0";

fn start(config: SimConfig) -> Simulator {
    Simulator::start(config).expect("simulator starts")
}

fn sim() -> Simulator {
    start(SimConfig::default())
}

fn builder(sim: &Simulator) -> opsapi::ClientBuilder {
    Client::builder(sim.base_url())
        .credentials(sim.public_key(), sim.private_key())
        .retry_backoff(Duration::from_millis(1))
        .timeout(Duration::from_secs(5))
}

fn client(sim: &Simulator) -> Client {
    builder(sim).build().unwrap()
}

/// A client that has done its Digest handshake, with the log emptied.
async fn warm(sim: &Simulator) -> Client {
    let c = client(sim);
    c.groups().list().await.unwrap();
    sim.clear_requests();
    c
}

/// The log, one line per request: `METHOD path[?query] signed|unsigned STATUS [faults]`,
/// the path under the API prefix.
fn seen(sim: &Simulator) -> Vec<String> {
    sim.requests()
        .iter()
        .map(|r| {
            let mut s = format!(
                "{} {}",
                r.method,
                r.path.strip_prefix(API).unwrap_or(&r.path)
            );
            if let Some(q) = &r.query {
                s.push('?');
                s.push_str(q);
            }
            s.push_str(if r.signed { " signed " } else { " unsigned " });
            s.push_str(&r.status.to_string());
            if !r.faults.is_empty() {
                s.push_str(&format!(" [{}]", r.faults.join(", ")));
            }
            s
        })
        .collect()
}

struct Ids {
    group: String,
    host: String,
    /// An open alert without a running acknowledgement.
    alert: String,
    entry: String,
}

fn ids(sim: &Simulator) -> Ids {
    let w = sim.world();
    let alert = w
        .alerts
        .iter()
        .find(|a| a.status == "OPEN" && a.acknowledged_until.is_none())
        .expect("an open alert that is not acknowledged");
    Ids {
        group: w.hosts[0].group_id.clone(),
        host: w.hosts[0].id.clone(),
        alert: alert.id.clone(),
        entry: w.access_list[0].id.clone(),
    }
}

fn acknowledged(sim: &Simulator, alert: &str) -> bool {
    sim.world()
        .alerts
        .iter()
        .any(|a| a.id == alert && a.acknowledged_until.is_some())
}

fn listed(sim: &Simulator, entry: &str) -> bool {
    sim.world().access_list.iter().any(|e| e.id == entry)
}

fn for_an_hour() -> Acknowledgement {
    Acknowledgement::new(AckUntil::For("PT1H".parse().unwrap()))
}

fn status(status: u16) -> Fault {
    Fault::Status {
        status,
        retry_after: None,
    }
}

fn api_error(err: &Error) -> &opsapi::ApiError {
    err.api()
        .unwrap_or_else(|| panic!("not an API error: {err:?}"))
}

// ---- the time budget ---------------------------------------------------------------------

#[tokio::test]
async fn a_retry_after_beyond_the_budget_ends_the_call_at_once() {
    let sim = start(SimConfig {
        faults: Faults {
            rate_429: 1.0,
            retry_after_secs: 30,
            ..Faults::default()
        },
        ..SimConfig::default()
    });
    let i = ids(&sim);
    let c = client(&sim); // timeout 5 s
    let t = Instant::now();
    let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
    assert!(
        t.elapsed() < Duration::from_millis(900),
        "{:?}",
        t.elapsed()
    );
    let api = api_error(&err);
    assert_eq!(api.status, 429);
    assert_eq!(api.retry_after, Some(Duration::from_secs(30)));
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    assert_eq!(
        err.to_string(),
        format!(
            "HTTP 429 RATE_LIMITED on GET {path}: Resource {API}{path} is limited to 100 \
             requests every 1 minutes."
        )
    );
    assert_eq!(
        seen(&sim),
        [
            format!("GET {path} unsigned 401"),
            format!("GET {path} signed 429 [rate_429]"),
        ]
    );

    // Longer than max_retry_wait (60 s) with a budget that would allow it: at once, too.
    sim.set_faults(Faults::default());
    let patient = builder(&sim)
        .timeout(Duration::from_secs(600))
        .build()
        .unwrap();
    patient.groups().list().await.unwrap();
    sim.clear_requests();
    sim.inject(
        Fault::Status {
            status: 429,
            retry_after: Some(61),
        },
        1,
    );
    let t = Instant::now();
    let err = patient.hosts().get(&i.group, &i.host).await.unwrap_err();
    assert!(
        t.elapsed() < Duration::from_millis(900),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(api_error(&err).retry_after, Some(Duration::from_secs(61)));
    assert_eq!(
        seen(&sim),
        [format!("GET {path} signed 429 [status 429 retry-after 61]")]
    );
}

#[tokio::test]
async fn a_slow_retry_chain_stops_within_the_budget() {
    let sim = sim();
    let i = ids(&sim);
    let c = builder(&sim)
        .timeout(Duration::from_millis(2500))
        .max_retries(10)
        .build()
        .unwrap();
    c.groups().list().await.unwrap();
    sim.clear_requests();
    sim.inject(
        Fault::Status {
            status: 503,
            retry_after: Some(1),
        },
        10,
    );
    let t = Instant::now();
    let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
    let took = t.elapsed();
    // Attempts at 0 s, 1 s and 2 s; a third wait would end past 2.5 s, so the call ends at
    // about 2 s with the last answer.
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_millis(2500),
        "{took:?}"
    );
    assert_eq!(api_error(&err).status, 503);
    assert_eq!(api_error(&err).retry_after, Some(Duration::from_secs(1)));
    let line = format!(
        "GET /groups/{}/hosts/{} signed 503 [status 503 retry-after 1]",
        i.group, i.host
    );
    assert_eq!(seen(&sim), [line.clone(), line.clone(), line]);
    assert_eq!(sim.injected().len(), 7);
}

#[tokio::test]
async fn a_stalled_answer_is_a_timeout_and_not_retried() {
    let sim = sim();
    let i = ids(&sim);
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    for fault in [
        Fault::StallHeaders(Duration::from_secs(3)),
        Fault::StallBody(Duration::from_secs(3)),
        Fault::Drip(Duration::from_millis(50)),
    ] {
        let c = builder(&sim)
            .timeout(Duration::from_millis(300))
            .build()
            .unwrap();
        c.groups().list().await.unwrap();
        sim.clear_requests();
        sim.inject(fault.clone(), 1);
        let t = Instant::now();
        let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
        assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
        assert!(matches!(err, Error::Timeout { .. }), "{fault:?}: {err:?}");
        assert_eq!(
            err.to_string(),
            format!("timed out after 300ms on GET {path}")
        );
        assert_eq!(
            seen(&sim),
            [format!("GET {path} signed 200 [{}]", fault.label())]
        );
    }
}

// ---- retries by method -------------------------------------------------------------------

#[tokio::test]
async fn a_connect_error_is_retried_for_every_method_even_patch() {
    // The simulator comes up on the port only after the first attempt was refused.
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
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let c = Client::builder(format!("http://127.0.0.1:{port}"))
        .credentials(public, private)
        .retry_backoff(Duration::from_millis(400))
        .build()
        .unwrap();
    let starter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        start(SimConfig { port, ..config() })
    });
    let acked = c
        .global_alerts()
        .acknowledge(&alert, &for_an_hour())
        .await
        .unwrap();
    let sim = starter.join().unwrap();
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
    let err = client(&sim)
        .hosts()
        .get(&i.group, &i.host)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
    assert!(err.to_string().contains("ca_file"), "{err}");
    assert_eq!(sim.connections(), 1, "one handshake, not retried");
    assert!(sim.requests().is_empty());
}

// ---- the body cap ------------------------------------------------------------------------

#[tokio::test]
async fn bodies_over_max_response_bytes_end_in_response_too_large() {
    let sim = sim();
    let i = ids(&sim);
    let limit = 1 << 20;
    let c = builder(&sim)
        .max_response_bytes(limit as u64)
        .build()
        .unwrap();
    c.groups().list().await.unwrap();
    sim.clear_requests();
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    for fault in [
        Fault::Oversize(limit as u64 + 1),
        Fault::Oversize(1 << 40),
        Fault::EndlessBody,
    ] {
        sim.inject(fault.clone(), 1);
        let t = Instant::now();
        let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
        assert!(
            matches!(err, Error::ResponseTooLarge { limit: l, .. } if l == limit),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            format!(
                "the response to GET {path} is larger than max_response_bytes (1048576 \
                 bytes); it was not read further"
            )
        );
        assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    }
    assert_eq!(
        seen(&sim),
        [
            format!("GET {path} signed 200 [oversize 1048577]"),
            format!("GET {path} signed 200 [oversize 1099511627776]"),
            format!("GET {path} signed 200 [endless body]"),
        ],
        "not retried"
    );

    // Exactly the limit is read (a JSON object of unknown fields: a host with none set).
    sim.inject(Fault::Oversize(limit as u64), 1);
    let host = c.hosts().get(&i.group, &i.host).await.unwrap();
    assert_eq!(host.id, None);
}

// ---- redirects ---------------------------------------------------------------------------

#[tokio::test]
async fn same_origin_redirects_are_followed_and_each_hop_signed() {
    let sim = sim();
    let i = ids(&sim);
    let c = warm(&sim).await;
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    for code in [301, 302, 303, 307, 308] {
        // Absolute and relative Locations, to the same resource with a trailing slash.
        for location in [
            format!("{}{API}{path}/", sim.base_url()),
            format!("{API}{path}/"),
        ] {
            sim.clear_requests();
            sim.inject(
                Fault::Redirect {
                    status: code,
                    location,
                },
                1,
            );
            let host = c.hosts().get(&i.group, &i.host).await.unwrap();
            assert_eq!(host.id.as_deref(), Some(i.host.as_str()));
            assert_eq!(
                seen(&sim),
                [
                    format!("GET {path} signed {code} [redirect {code}]"),
                    format!("GET {path}/ signed 200"),
                ]
            );
            assert!(sim.requests()[1].authorized, "signed for its own URI");
        }
    }

    // A PATCH follows 307 and 308 only.
    let alert = format!("/globalAlerts/{}", i.alert);
    sim.clear_requests();
    sim.inject(
        Fault::Redirect {
            status: 301,
            location: format!("{API}{alert}/"),
        },
        1,
    );
    let err = c
        .global_alerts()
        .acknowledge(&i.alert, &for_an_hour())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "transport error on PATCH {alert}: the server answered 301 with a redirect to \
             `{API}{alert}/`; a PATCH is only re-sent to another URL on 307 or 308"
        )
    );
    assert!(!acknowledged(&sim, &i.alert));
    sim.inject(
        Fault::Redirect {
            status: 307,
            location: format!("{API}{alert}/"),
        },
        1,
    );
    c.global_alerts()
        .acknowledge(&i.alert, &for_an_hour())
        .await
        .unwrap();
    assert!(acknowledged(&sim, &i.alert));
    assert_eq!(
        seen(&sim),
        [
            format!("PATCH {alert} signed 301 [redirect 301]"),
            format!("PATCH {alert} signed 307 [redirect 307]"),
            format!("PATCH {alert}/ signed 201"),
        ]
    );
}

/// A port where nothing is accepted: whether any client connected to it shows afterwards.
struct OtherOrigin(TcpListener);

impl OtherOrigin {
    fn new() -> Self {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.set_nonblocking(true).unwrap();
        Self(l)
    }

    fn port(&self) -> u16 {
        self.0.local_addr().unwrap().port()
    }

    fn was_contacted(&self) -> bool {
        self.0.accept().is_ok()
    }
}

#[tokio::test]
async fn cross_origin_redirects_are_refused_and_name_the_location() {
    let sim = sim();
    let i = ids(&sim);
    let other = OtherOrigin::new();
    let port = other.port();
    let c = warm(&sim).await;
    let host = format!("/groups/{}/hosts/{}", i.group, i.host);
    let alert = format!("/globalAlerts/{}", i.alert);
    let entry = format!("/admin/accessList/{}", i.entry);
    for code in [301, 302, 307] {
        let location =
            format!("http://ops:hunter2@127.0.0.1:{port}{API}/groups/x?token=s3cret&a=b");
        let shown = format!("http://***@127.0.0.1:{port}{API}/groups/x?***");
        let redirect = || Fault::Redirect {
            status: code,
            location: location.clone(),
        };
        sim.clear_requests();
        sim.inject(redirect(), 3);
        let errors = [
            c.hosts().get(&i.group, &i.host).await.unwrap_err(),
            c.global_alerts()
                .acknowledge(&i.alert, &for_an_hour())
                .await
                .unwrap_err(),
            c.access_list().delete(&i.entry).await.unwrap_err(),
        ];
        for (err, (method, path)) in
            errors
                .iter()
                .zip([("GET", &host), ("PATCH", &alert), ("DELETE", &entry)])
        {
            assert!(matches!(err, Error::Transport { .. }), "{err:?}");
            assert_eq!(
                err.to_string(),
                format!(
                    "transport error on {method} {path}: the server answered {code} with a \
                     redirect to another origin, `{shown}`; it was not followed, because \
                     credentials are never sent to another origin (if that server is the \
                     API, make it the base_url)"
                )
            );
        }
        assert_eq!(
            seen(&sim),
            [
                format!("GET {host} signed {code} [redirect {code}]"),
                format!("PATCH {alert} signed {code} [redirect {code}]"),
                format!("DELETE {entry} signed {code} [redirect {code}]"),
            ]
        );
    }
    // Via a same-origin hop first: still refused, and the other origin never contacted.
    sim.clear_requests();
    sim.inject(
        Fault::Redirect {
            status: 302,
            location: format!("{API}{host}/"),
        },
        1,
    );
    sim.inject(
        Fault::Redirect {
            status: 302,
            location: format!("http://127.0.0.1:{port}{API}{host}"),
        },
        1,
    );
    let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
    assert_eq!(seen(&sim).len(), 2);
    assert!(!other.was_contacted(), "a request reached the other origin");
    assert!(!acknowledged(&sim, &i.alert));
    assert!(listed(&sim, &i.entry));
}

// ---- Digest ------------------------------------------------------------------------------

#[tokio::test]
async fn a_fresh_client_fetches_the_challenge_with_one_unsigned_request() {
    let sim = sim();
    let i = ids(&sim);
    let c = client(&sim);
    c.hosts().get(&i.group, &i.host).await.unwrap();
    c.hosts().get(&i.group, &i.host).await.unwrap();
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    assert_eq!(
        seen(&sim),
        [
            format!("GET {path} unsigned 401"),
            format!("GET {path} signed 200"),
            format!("GET {path} signed 200"),
        ]
    );
}

#[tokio::test]
async fn a_stale_nonce_costs_exactly_one_request_on_a_fresh_and_a_warm_client() {
    let sim = sim();
    let i = ids(&sim);
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    // Fresh: the first signed request, right after the handshake, meets the stale nonce.
    let c = client(&sim);
    sim.inject(Fault::StaleNonce, 1);
    c.hosts().get(&i.group, &i.host).await.unwrap();
    assert_eq!(
        seen(&sim),
        [
            format!("GET {path} unsigned 401"),
            format!("GET {path} signed 401 [stale nonce]"),
            format!("GET {path} signed 200"),
        ]
    );
    // Warm, and for a write too.
    sim.clear_requests();
    sim.inject(Fault::StaleNonce, 1);
    c.global_alerts()
        .acknowledge(&i.alert, &for_an_hour())
        .await
        .unwrap();
    assert_eq!(
        seen(&sim),
        [
            format!("PATCH /globalAlerts/{} signed 401 [stale nonce]", i.alert),
            format!("PATCH /globalAlerts/{} signed 201", i.alert),
        ]
    );
    // A nonce that expires by time on a fresh client's first signed request.
    let sim = start(SimConfig {
        nonce_lifetime: Duration::ZERO,
        ..SimConfig::default()
    });
    let err = client(&sim)
        .hosts()
        .get(&i.group, &i.host)
        .await
        .unwrap_err();
    assert!(err.is_unauthorized(), "{err:?}");
    assert_eq!(
        seen(&sim),
        [
            format!("GET {path} unsigned 401"),
            format!("GET {path} signed 401"),
            format!("GET {path} signed 401"),
        ],
        "every nonce is stale at once: one renewal, then the error"
    );
}

#[tokio::test]
async fn a_plain_401_right_after_the_handshake_is_a_wrong_key() {
    let sim = sim();
    let i = ids(&sim);
    let c = Client::builder(sim.base_url())
        .credentials(sim.public_key(), "00000000-wrong-key")
        .build()
        .unwrap();
    let t = Instant::now();
    let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
    assert!(t.elapsed() < Duration::from_secs(1));
    assert!(err.is_unauthorized(), "{err:?}");
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    assert_eq!(
        err.to_string(),
        format!("HTTP 401 UNAUTHORIZED on GET {path}: You are not authorized for this resource.")
    );
    assert_eq!(
        seen(&sim),
        [
            format!("GET {path} unsigned 401"),
            format!("GET {path} signed 401"),
        ]
    );
}

#[tokio::test]
async fn a_warm_client_retries_one_plain_401_once() {
    let sim = sim();
    let i = ids(&sim);
    let c = warm(&sim).await;
    sim.inject(Fault::Challenge { stale: false }, 1);
    c.access_list().delete(&i.entry).await.unwrap();
    assert_eq!(
        seen(&sim),
        [
            format!(
                "DELETE /admin/accessList/{} signed 401 [challenge stale=false]",
                i.entry
            ),
            format!("DELETE /admin/accessList/{} signed 204", i.entry),
        ]
    );
}

#[tokio::test]
async fn a_401_without_a_challenge_is_an_authentication_error() {
    let sim = sim();
    let i = ids(&sim);
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    // Fresh: the handshake itself gets no challenge.
    sim.inject(Fault::Unauthorized, 1);
    let err = client(&sim)
        .hosts()
        .get(&i.group, &i.host)
        .await
        .unwrap_err();
    assert!(err.is_unauthorized(), "{err:?}");
    assert_eq!(
        seen(&sim),
        [format!("GET {path} unsigned 401 [unauthorized]")]
    );
    // Warm.
    let c = warm(&sim).await;
    sim.inject(Fault::Unauthorized, 1);
    let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("HTTP 401 UNAUTHORIZED on GET {path}: You are not authorized for this resource.")
    );
    assert_eq!(
        seen(&sim),
        [format!("GET {path} signed 401 [unauthorized]")]
    );
}

#[tokio::test]
async fn endless_401s_end_after_at_most_three_requests() {
    let sim = sim();
    let i = ids(&sim);
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    for stale in [false, true] {
        let label = format!("[challenge stale={stale}]");
        // Fresh client: the handshake, then one signed try (and one more for stale).
        sim.clear_requests();
        sim.inject(Fault::Challenge { stale }, 100);
        let err = client(&sim)
            .hosts()
            .get(&i.group, &i.host)
            .await
            .unwrap_err();
        assert!(err.is_unauthorized(), "{err:?}");
        let mut want = vec![
            format!("GET {path} unsigned 401 {label}"),
            format!("GET {path} signed 401 {label}"),
        ];
        if stale {
            want.push(format!("GET {path} signed 401 {label}"));
        }
        assert_eq!(seen(&sim), want, "fresh, stale={stale}");
        // Warm client: one retry.
        sim.clear_injected();
        let c = warm(&sim).await;
        sim.inject(Fault::Challenge { stale }, 100);
        let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
        assert!(err.is_unauthorized(), "{err:?}");
        assert_eq!(
            seen(&sim),
            [
                format!("GET {path} signed 401 {label}"),
                format!("GET {path} signed 401 {label}"),
            ],
            "warm, stale={stale}"
        );
        sim.clear_injected();
    }
}

// ---- bodies that are not the documented JSON ---------------------------------------------

#[tokio::test]
async fn bodies_that_are_not_the_documented_json_are_decode_errors() {
    let sim = sim();
    let i = ids(&sim);
    let c = warm(&sim).await;
    let path = format!("/groups/{}/hosts/{}", i.group, i.host);
    for (fault, message) in [
        (
            Fault::HtmlPage { status: 200 },
            "expected value at line 1 column 1",
        ),
        (Fault::GarbledJson, "expected `:` at line 1 column "),
        (
            Fault::InvalidUtf8,
            "invalid unicode code point at line 1 column ",
        ),
    ] {
        sim.clear_requests();
        sim.inject(fault.clone(), 1);
        let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
        match &err {
            Error::Decode {
                path: p,
                message: m,
                body_start,
                ..
            } => {
                assert_eq!(p, &path);
                assert!(m.starts_with(message), "{fault:?}: {err}");
                assert!(!body_start.is_empty());
            }
            other => panic!("{fault:?}: {other:?}"),
        }
        assert_eq!(
            seen(&sim),
            [format!("GET {path} signed 200 [{}]", fault.label())],
            "not retried"
        );
    }
    sim.inject(Fault::HtmlPage { status: 200 }, 1);
    let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
    assert!(
        err.to_string().starts_with(&format!(
            "cannot decode the response of {path}: at `.`: expected value at line 1 column 1; \
             body starts with: <!DOCTYPE html>"
        )),
        "{err}"
    );

    // A gateway's HTML 502 page, every time: retried, then kept as text.
    sim.clear_requests();
    sim.inject(Fault::HtmlPage { status: 502 }, 4);
    let err = c.hosts().get(&i.group, &i.host).await.unwrap_err();
    let api = api_error(&err);
    assert_eq!((api.status, api.error_code.as_deref()), (502, None));
    assert!(api.body.starts_with("<!DOCTYPE html>"), "{}", api.body);
    assert!(api.body.contains("<title>502 Bad Gateway</title>"));
    assert_eq!(
        seen(&sim),
        vec![format!("GET {path} signed 502 [html 502]"); 4]
    );
}

// ---- repeated pages without ids ----------------------------------------------------------

/// A loopback server that answers Digest (any signature) and serves the same page of id-less
/// items for every page of `/disks` and `/globalAlerts`, claiming 1000 items in all.
struct SamePage {
    port: u16,
    log: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl SamePage {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let log = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (log2, stop2) = (log.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let open = Arc::new(AtomicUsize::new(0));
            while !stop2.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let (log, stop, open) = (log2.clone(), stop2.clone(), open.clone());
                        open.fetch_add(1, Ordering::SeqCst);
                        std::thread::spawn(move || {
                            let _ = Self::serve(stream, &log, &stop);
                            open.fetch_sub(1, Ordering::SeqCst);
                        });
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(2)),
                }
            }
            while open.load(Ordering::SeqCst) > 0 {
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        Self {
            port,
            log,
            stop,
            thread: Some(thread),
        }
    }

    fn serve(
        stream: TcpStream,
        log: &Mutex<Vec<String>>,
        stop: &AtomicBool,
    ) -> std::io::Result<()> {
        stream.set_read_timeout(Some(Duration::from_millis(50)))?;
        let mut reader = BufReader::new(stream.try_clone()?);
        let mut out = stream;
        while !stop.load(Ordering::Relaxed) {
            let mut head = String::new();
            let mut line = String::new();
            loop {
                match reader.read_line(&mut line) {
                    Ok(0) => return Ok(()),
                    Ok(_) if line.ends_with('\n') => {
                        if line == "\r\n" {
                            break;
                        }
                        head.push_str(&line);
                        line.clear();
                    }
                    Ok(_) => {}
                    Err(e)
                        if e.kind() == std::io::ErrorKind::WouldBlock
                            || e.kind() == std::io::ErrorKind::TimedOut =>
                    {
                        if stop.load(Ordering::Relaxed) {
                            return Ok(());
                        }
                    }
                    Err(e) => return Err(e),
                }
            }
            let target = head.split(' ').nth(1).unwrap_or("").to_string();
            let signed = head
                .lines()
                .any(|l| l.to_ascii_lowercase().starts_with("authorization:"));
            log.lock().unwrap().push(format!(
                "GET {target} {}",
                if signed { "signed" } else { "unsigned" }
            ));
            let (status, extra, body) = if !signed {
                (
                    "401 Unauthorized",
                    "WWW-Authenticate: Digest realm=\"MMS Public API\", nonce=\"n0\", algorithm=MD5, qop=\"auth\"\r\n",
                    String::new(),
                )
            } else if target.contains("/disks") {
                (
                    "200 OK",
                    "",
                    r#"{"results":[{"partitionName":"data"},{"partitionName":"journal"}],"totalCount":1000,"links":[]}"#.to_string(),
                )
            } else {
                (
                    "200 OK",
                    "",
                    r#"{"results":[{"status":"OPEN","eventTypeName":"HOST_DOWN"},{"status":"OPEN","eventTypeName":"HOST_DOWN"}],"totalCount":1000,"links":[]}"#.to_string(),
                )
            };
            write!(
                out,
                "HTTP/1.1 {status}\r\n{extra}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )?;
            out.flush()?;
        }
        Ok(())
    }

    fn requests(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for SamePage {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[tokio::test]
async fn every_page_the_same_without_ids_is_a_paging_error_for_list_and_stream() {
    let server = SamePage::start();
    let c = Client::builder(format!("http://127.0.0.1:{}", server.port))
        .credentials("public", "private-key")
        .build()
        .unwrap();
    let err = c.hosts().partitions("g", "h").await.unwrap_err();
    let disks = format!("{API}/groups/g/hosts/h/disks");
    assert_eq!(
        err.to_string(),
        "inconsistent paging on /groups/g/hosts/h/disks: page 2 holds the same items as page \
         1: the server repeated a page"
    );
    let seen = server.requests();
    assert_eq!(
        seen[0],
        format!("GET {disks}?pageNum=1&itemsPerPage=500 unsigned")
    );
    assert_eq!(
        seen[1],
        format!("GET {disks}?pageNum=1&itemsPerPage=500 signed")
    );
    assert!(seen[2..].iter().all(|s| s.ends_with(" signed")), "{seen:?}");
    // Pages 2 and on were asked for concurrently; no more than max_concurrency of them.
    assert!(seen.len() <= 2 + 8, "{seen:?}");

    let mut stream = c.global_alerts().stream(&GlobalAlertsQuery::new()).unwrap();
    let mut items = 0;
    let err = loop {
        match stream.try_next().await {
            Ok(Some(_)) => items += 1,
            Ok(None) => panic!("the stream ended after {items} items"),
            Err(e) => break e,
        }
    };
    assert_eq!(items, 2, "page 1's items, and no duplicate");
    assert!(matches!(err, Error::Paging { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "inconsistent paging on /globalAlerts: page 2 holds the same items as page 1: the \
         server repeated a page"
    );
    // (Late requests of the aborted listing may still arrive: only /globalAlerts counts.)
    let alerts: Vec<String> = server
        .requests()
        .into_iter()
        .filter(|r| r.contains("/globalAlerts"))
        .collect();
    assert_eq!(
        alerts,
        [
            format!("GET {API}/globalAlerts?pageNum=1&itemsPerPage=500 signed"),
            format!("GET {API}/globalAlerts?pageNum=2&itemsPerPage=500 signed"),
        ]
    );
}

/// The field a syntax error sits in is named, as for a wrong type (`port`): a body garbled
/// or holding bytes that are not UTF-8 part-way is not the same as one that is not JSON at
/// all (`.`).
#[tokio::test]
async fn garbled_json_and_invalid_utf8_name_the_field_they_sit_in() {
    let sim = sim();
    let i = ids(&sim);
    let c = warm(&sim).await;
    for fault in [Fault::GarbledJson, Fault::InvalidUtf8] {
        sim.inject(fault.clone(), 1);
        match c.hosts().get(&i.group, &i.host).await.unwrap_err() {
            Error::Decode { field, .. } => assert_ne!(field, ".", "{fault:?}"),
            other => panic!("{fault:?}: {other:?}"),
        }
    }
}
