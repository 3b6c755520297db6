//! Redirects: same-origin hops are followed and each signed for its own URI (a PATCH only on
//! 307 and 308); another origin is never contacted and its Location is shown without secrets.

use opsapi::sim::Fault;
use opsapi::Error;

use crate::common::{acknowledged, for_an_hour, ids, listed, seen, sim, warm, API};
use crate::loopback::OtherOrigin;

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
