//! `client.groups()` and the listings under a project: every project as seeded, one project,
//! and every identifier the seeded world holds found by walking down from the projects.

use std::collections::BTreeSet;

use opsapi::sim::SimConfig;

use crate::common::{authorized, seen, sim, start, warm};

#[tokio::test]
async fn list_groups_sends_one_page_request_and_returns_the_seeded_projects() {
    // Three projects of 12 hosts: replica sets, standalones and sharded clusters in each.
    let sim = start(SimConfig {
        projects: 3,
        hosts_per_project: 12,
        ..SimConfig::default()
    });
    let c = warm(&sim).await;
    let groups = c.groups().list().await.unwrap();
    assert_eq!(
        seen(&sim),
        ["GET /groups?pageNum=1&itemsPerPage=500 signed 200"]
    );
    assert!(authorized(&sim)[0].body.is_empty());
    let world = sim.world();
    assert_eq!(groups.total_count(), world.projects.len() as u64);
    assert_eq!(groups.len(), world.projects.len());
    for (g, p) in groups.iter().zip(&world.projects) {
        assert_eq!(g.id.as_deref(), Some(p.id.as_str()));
        assert_eq!(g.name.as_deref(), Some(p.name.as_str()));
        assert_eq!(g.org_id.as_deref(), Some(p.org_id.as_str()));
        assert_eq!(g.org_id.as_deref(), Some(world.org_id.as_str()));
        // The counts are those of the project's seeded hosts.
        let hosts: Vec<_> = world.hosts.iter().filter(|h| h.group_id == p.id).collect();
        let sets: BTreeSet<&str> = hosts
            .iter()
            .filter_map(|h| h.replica_set_name.as_deref())
            .collect();
        let shards: BTreeSet<&str> = hosts
            .iter()
            .filter_map(|h| h.shard_name.as_deref())
            .collect();
        assert_eq!(g.replica_set_count, Some(sets.len() as i64), "{}", p.id);
        assert_eq!(g.shard_count, Some(shards.len() as i64), "{}", p.id);
        let count = |types: &[&str]| {
            hosts
                .iter()
                .filter(|h| types.contains(&h.type_name.as_str()))
                .count()
        };
        let counts = g.host_counts.as_ref().expect("hostCounts");
        assert_eq!(
            counts["primary"],
            count(&["REPLICA_PRIMARY", "SHARD_PRIMARY"]),
            "{}",
            p.id
        );
        assert_eq!(
            counts["secondary"],
            count(&["REPLICA_SECONDARY", "SHARD_SECONDARY"]),
            "{}",
            p.id
        );
        assert_eq!(counts["mongos"], count(&["SHARD_MONGOS"]), "{}", p.id);
        assert_eq!(counts["config"], count(&["SHARD_CONFIG"]), "{}", p.id);
        assert_eq!(g.last_active_agent, Some(world.anchor));
        // One agent per host of the project.
        let hosts = world.hosts.iter().filter(|h| h.group_id == p.id).count();
        assert_eq!(g.active_agent_count, Some(hosts as i64), "{}", p.id);
        assert!(
            !sets.is_empty() && !shards.is_empty() && count(&["SHARD_MONGOS"]) > 0,
            "project {} has replica sets and a sharded cluster",
            p.id
        );
    }
}

#[tokio::test]
async fn get_group_sends_one_get_and_returns_the_seeded_project() {
    let sim = sim();
    let c = warm(&sim).await;
    let world = sim.world();
    let mut lines = Vec::new();
    for p in &world.projects {
        let g = c.groups().get(&p.id).await.unwrap();
        lines.push(format!("GET /groups/{} signed 200", p.id));
        assert_eq!(g.id.as_deref(), Some(p.id.as_str()));
        assert_eq!(g.name.as_deref(), Some(p.name.as_str()));
        assert_eq!(g.org_id.as_deref(), Some(p.org_id.as_str()));
        let sets: BTreeSet<&str> = world
            .hosts
            .iter()
            .filter(|h| h.group_id == p.id)
            .filter_map(|h| h.replica_set_name.as_deref())
            .collect();
        assert_eq!(g.replica_set_count, Some(sets.len() as i64), "{}", p.id);
    }
    assert_eq!(seen(&sim), lines);
    assert!(authorized(&sim).iter().all(|r| r.body.is_empty()));
}

#[tokio::test]
async fn listings_find_every_identifier() {
    let sim = sim();
    let c = warm(&sim).await;
    let world = sim.world();
    let groups = c.groups().list().await.unwrap();
    let got: Vec<&str> = groups.iter().map(|g| g.id.as_deref().unwrap()).collect();
    let want: Vec<&str> = world.projects.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(got, want);
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
    let got: Vec<&str> = configs.iter().map(|c| c.id.as_deref().unwrap()).collect();
    let want: Vec<&str> = world
        .alert_configs
        .iter()
        .filter(|c| c.group_id == g)
        .map(|c| c.id.as_str())
        .collect();
    assert!(!want.is_empty());
    assert_eq!(got, want);
    let events = c.events().list(&g).await.unwrap();
    let got: Vec<&str> = events.iter().map(|e| e.id.as_deref().unwrap()).collect();
    let want: Vec<&str> = world
        .events
        .iter()
        .filter(|e| e.group_id == g && e.served_on(sim.flavour()))
        .map(|e| e.id.as_str())
        .collect();
    assert!(!want.is_empty());
    assert_eq!(got, want);
    assert!(
        events.windows(2).all(|w| w[0].created >= w[1].created),
        "newest first"
    );
    // One request per listing, one after the other, each for its single page.
    let page = "pageNum=1&itemsPerPage=500";
    assert_eq!(
        seen(&sim),
        [
            format!("GET /groups?{page} signed 200"),
            format!("GET /groups/{g}/hosts?{page} signed 200"),
            format!("GET /groups/{g}/hosts/{}/disks?{page} signed 200", h.id),
            format!("GET /groups/{g}/alertConfigs?{page} signed 200"),
            format!("GET /groups/{g}/events?{page} signed 200"),
        ]
    );
}
