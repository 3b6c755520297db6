//! `client.groups()` and the listings under a project: every identifier the seeded world holds
//! is found by walking down from the projects.

use crate::common::{client, sim};

#[tokio::test]
async fn listings_find_every_identifier() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let groups = c.groups().list().await.unwrap();
    assert_eq!(groups.len(), world.projects.len());
    let g = groups[0].id.clone().unwrap();
    let hosts = c.hosts().list(&g).await.unwrap();
    let want: Vec<&str> = world
        .hosts
        .iter()
        .filter(|h| h.group_id == g)
        .map(|h| h.id.as_str())
        .collect();
    let got: Vec<&str> = hosts.iter().map(|h| h.id.as_deref().unwrap()).collect();
    assert_eq!(got, want);
    let h = world.hosts.iter().find(|h| h.group_id == g).unwrap();
    let parts = c.hosts().partitions(&g, &h.id).await.unwrap();
    let want: Vec<&str> = h.partitions.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(parts, want);
    let configs = c.alert_configs().list(&g).await.unwrap();
    assert!(!configs.is_empty());
    let events = c.events().list(&g).await.unwrap();
    assert!(
        events.windows(2).all(|w| w[0].created >= w[1].created),
        "newest first"
    );
}
