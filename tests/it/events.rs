//! `client.events()`: one event, with and without `includeRaw`; every event of a project.

use opsapi::Model;

use crate::common::{authorized, client, seen, sim, warm, API};

#[tokio::test]
async fn events_with_and_without_raw() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    // An event Ops Manager has (Atlas names some otherwise: `on_atlas`).
    let e = world
        .events
        .iter()
        .find(|e| e.served_on(opsapi::Flavour::OpsManager))
        .unwrap();
    let plain = c.events().get(&e.group_id, &e.id, false).await.unwrap();
    assert_eq!(plain.id.as_deref(), Some(e.id.as_str()));
    assert_eq!(
        plain.event_type_name.as_deref(),
        Some(e.event_type_name.as_str())
    );
    assert_eq!(plain.raw, None);
    assert_eq!(authorized(&sim).pop().unwrap().query, None);
    let raw = c.events().get(&e.group_id, &e.id, true).await.unwrap();
    assert!(raw.raw.is_some());
    let req = authorized(&sim).pop().unwrap();
    assert_eq!(req.method, "GET");
    assert_eq!(
        req.path,
        format!("{API}/groups/{}/events/{}", e.group_id, e.id)
    );
    assert_eq!(req.query.as_deref(), Some("includeRaw=true"));
}

#[tokio::test]
async fn list_events_sends_one_page_request_and_returns_the_seeded_events_newest_first() {
    let sim = sim();
    let c = warm(&sim).await;
    let world = sim.world();
    let mut lines = Vec::new();
    for p in &world.projects {
        let events = c.events().list(&p.id).await.unwrap();
        lines.push(format!(
            "GET /groups/{}/events?pageNum=1&itemsPerPage=500 signed 200",
            p.id
        ));
        // The project's events Ops Manager has (Atlas names some otherwise: `on_atlas`).
        let want: Vec<&opsapi::sim::Event> = world
            .events
            .iter()
            .filter(|e| e.group_id == p.id && e.served_on(opsapi::Flavour::OpsManager))
            .collect();
        assert!(want.len() > 1);
        assert_eq!(events.total_count(), want.len() as u64);
        assert_eq!(events.len(), want.len());
        for (got, want) in events.iter().zip(&want) {
            assert_eq!(got.id.as_deref(), Some(want.id.as_str()));
            assert_eq!(got.group_id.as_deref(), Some(want.group_id.as_str()));
            assert_eq!(
                got.event_type_name.as_deref(),
                Some(want.event_type_name.as_str())
            );
            assert_eq!(got.created, Some(want.created), "{}", want.id);
            assert_eq!(
                got.host_id.as_deref(),
                want.body.get("hostId").and_then(|v| v.as_str()),
                "{}",
                want.id
            );
            assert_eq!(
                got.username.as_deref(),
                want.body.get("username").and_then(|v| v.as_str()),
                "{}",
                want.id
            );
            assert_eq!(got.raw, None, "includeRaw was not asked for");
            // Every field as seeded, nothing else but the links.
            let mut sent = got.raw().clone();
            assert!(sent.remove("links").is_some());
            assert_eq!(
                serde_json::Value::Object(sent),
                want.body,
                "event {}",
                want.id
            );
        }
    }
    assert_eq!(seen(&sim), lines);
    assert!(authorized(&sim).iter().all(|r| r.body.is_empty()));
}
