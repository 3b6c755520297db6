//! Writing through each flavour, and what a flavour lacks: a project alert acknowledged in
//! each flavour's words (Atlas's version and body), and the global operations refused on
//! Cloud Manager and Atlas before any request.

use opsapi::sim::RequestRecord;
use opsapi::{Error, Flavour};

use super::{api_requests, client_of, ids, sim_of};
use crate::common::fixed_now;

/// Acknowledging and un-acknowledging a project alert on each flavour: one PATCH each, with
/// the body and version the flavour takes (Atlas: `2024-05-30`, and `unacknowledgeAlert` to
/// un-acknowledge), and the alert as the server then holds it.
#[tokio::test]
async fn project_alerts_are_acknowledged_in_each_flavours_words() {
    for flavour in Flavour::ALL {
        let sim = sim_of(flavour);
        let c = client_of(&sim);
        let ids = ids(&sim);
        let path = format!(
            "{}/groups/{}/alerts/{}",
            flavour.api_path(),
            ids.group,
            ids.alert
        );
        let media = match flavour {
            Flavour::Atlas => "application/vnd.atlas.2024-05-30+json",
            _ => "application/json",
        };
        let until = opsapi::query::parse_timestamp("until", "2026-03-02T12:00:00Z").unwrap();
        let ack = opsapi::Acknowledgement::new(opsapi::AckUntil::Until(until)).comment("disk");
        c.groups().list().await.unwrap(); // the handshake or the token first
        sim.clear_requests();
        let acked = c
            .alerts()
            .acknowledge(&ids.group, &ids.alert, &ack)
            .await
            .unwrap();
        assert_eq!(acked.acknowledged_until, Some(until), "{flavour}");
        assert_eq!(
            acked.acknowledgement_comment.as_deref(),
            Some("disk"),
            "{flavour}"
        );
        let unacked = c
            .alerts()
            .unacknowledge(&ids.group, &ids.alert)
            .await
            .unwrap();
        assert_eq!(unacked.acknowledged_until, None, "{flavour}");
        let sent = api_requests(&sim);
        assert_eq!(sent.len(), 2, "{flavour}: {sent:?}");
        for r in &sent {
            // Ops Manager and Cloud Manager document 201, Atlas's specification 200.
            let status = if flavour == Flavour::Atlas { 200 } else { 201 };
            assert_eq!(
                (r.method.as_str(), r.path.as_str(), r.status),
                ("PATCH", path.as_str(), status),
                "{flavour}"
            );
            assert_eq!(r.accept.as_deref(), Some(media), "{flavour}");
            assert_eq!(r.content_type.as_deref(), Some(media), "{flavour}");
        }
        let body =
            |r: &RequestRecord| serde_json::from_slice::<serde_json::Value>(&r.body).unwrap();
        assert_eq!(
            body(&sent[0]),
            serde_json::json!({"acknowledgedUntil": "2026-03-02T12:00:00Z", "acknowledgementComment": "disk"}),
            "{flavour}"
        );
        if flavour == Flavour::Atlas {
            assert_eq!(
                body(&sent[1]),
                serde_json::json!({"unacknowledgeAlert": true})
            );
        } else {
            let b = body(&sent[1]);
            let past = b["acknowledgedUntil"].as_str().unwrap();
            let past = opsapi::query::parse_timestamp("past", past).unwrap();
            assert!(past < fixed_now(), "{flavour}: {b}");
        }
    }
}

#[tokio::test]
async fn global_alerts_and_the_access_list_are_refused_before_any_request() {
    for flavour in [Flavour::CloudManager, Flavour::Atlas] {
        let sim = sim_of(flavour);
        let c = client_of(&sim);
        let unsupported = |e: Error, want: &str| match e {
            Error::Unsupported {
                operation,
                flavour: f,
            } => {
                assert_eq!((operation, f), (want, flavour));
            }
            other => panic!("{flavour} {want}: {other:?}"),
        };
        let q = opsapi::GlobalAlertsQuery::new();
        let ack = crate::common::for_an_hour();
        unsupported(
            c.global_alerts().list(&q).await.unwrap_err(),
            "global_alerts.list",
        );
        unsupported(
            c.global_alerts().get("a1").await.unwrap_err(),
            "global_alerts.get",
        );
        let e = c.global_alerts().acknowledge("a1", &ack).await.unwrap_err();
        unsupported(e, "global_alerts.acknowledge");
        let e = c.global_alerts().unacknowledge("a1").await.unwrap_err();
        unsupported(e, "global_alerts.acknowledge");
        let none: [&str; 0] = [];
        let e = c
            .global_alerts()
            .acknowledge_many(&none, &ack)
            .await
            .unwrap_err();
        unsupported(e, "global_alerts.acknowledge");
        match c.global_alerts().stream(&q) {
            Err(e) => unsupported(e, "global_alerts.list"),
            Ok(_) => panic!("{flavour}: a stream of global alerts"),
        }
        unsupported(
            c.access_list().list().await.unwrap_err(),
            "access_list.list",
        );
        let e = c.access_list().delete("x1").await.unwrap_err();
        let message = e.to_string();
        unsupported(e, "access_list.delete");
        assert_eq!(
            message,
            format!(
                "`access_list.delete` is not available on {flavour}: it has no global API \
                 access list"
            )
        );
        assert!(sim.requests().is_empty(), "{flavour}: {:?}", sim.requests());
    }
}
