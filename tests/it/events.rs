//! `client.events()`: one event, with and without `includeRaw`.

use crate::common::{authorized, client, sim, API};

#[tokio::test]
async fn events_with_and_without_raw() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let e = &world.events[0];
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
    assert_eq!(
        req.path,
        format!("{API}/groups/{}/events/{}", e.group_id, e.id)
    );
    assert_eq!(req.query.as_deref(), Some("includeRaw=true"));
}
