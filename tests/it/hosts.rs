//! `client.hosts()`: one host, every field decoded; every host of a project, on one page and
//! on several; the disk partitions of a host. (A host's databases are in `databases.rs`.)

use opsapi::sim::SimConfig;

use crate::common::{authorized, client, seen, sim, start, warm, API};

/// The fields of a listed host next to the seeded host they must equal.
fn assert_host_is(got: &opsapi::Host, want: &opsapi::sim::Host) {
    let id = &want.id;
    assert_eq!(got.id.as_deref(), Some(id.as_str()));
    assert_eq!(
        got.group_id.as_deref(),
        Some(want.group_id.as_str()),
        "{id}"
    );
    assert_eq!(
        got.hostname.as_deref(),
        Some(want.hostname.as_str()),
        "{id}"
    );
    assert_eq!(got.port, Some(i64::from(want.port)), "{id}");
    assert_eq!(
        got.type_name.as_ref().map(|t| t.as_str()),
        Some(want.type_name.as_str()),
        "{id}"
    );
    assert_eq!(
        got.replica_state_name.as_ref().map(|s| s.as_str()),
        want.replica_state_name.as_deref(),
        "{id}"
    );
    assert_eq!(got.replica_set_name, want.replica_set_name, "{id}");
    assert_eq!(got.shard_name, want.shard_name, "{id}");
    assert_eq!(got.cluster_id, want.cluster_id, "{id}");
    assert_eq!(got.version.as_deref(), Some(want.version.as_str()), "{id}");
    assert_eq!(
        got.ip_address.as_deref(),
        Some(want.ip_address.as_str()),
        "{id}"
    );
    assert_eq!(got.created, Some(want.created), "{id}");
    assert_eq!(got.last_ping, Some(want.last_ping), "{id}");
    assert_eq!(got.last_restart, Some(want.last_restart), "{id}");
    assert_eq!(
        got.last_data_size_bytes,
        Some(want.last_data_size_bytes as i64),
        "{id}"
    );
    assert_eq!(
        got.last_index_size_bytes,
        Some(want.last_index_size_bytes as i64),
        "{id}"
    );
    let sys = got.system_info.as_ref().expect("systemInfo");
    assert_eq!(sys.mem_size_mb, Some(want.mem_size_mb as i64), "{id}");
    assert_eq!(sys.num_cores, Some(want.num_cores as i64), "{id}");
    assert_eq!(got.ssl_enabled, Some(want.ssl_enabled), "{id}");
}

#[tokio::test]
async fn get_host_sends_one_get_and_decodes_every_field() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let h = &world.hosts[0];
    let host = c.hosts().get(&h.group_id, &h.id).await.unwrap();
    assert_host_is(&host, h);
    let reqs = authorized(&sim);
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].method, "GET");
    assert_eq!(
        reqs[0].path,
        format!("{API}/groups/{}/hosts/{}", h.group_id, h.id)
    );
    assert_eq!(reqs[0].query, None);
    assert!(c.server_version().and_then(|v| v.git_hash).is_some());
}

#[tokio::test]
async fn list_hosts_sends_one_page_request_per_project_and_returns_the_seeded_hosts() {
    let sim = sim();
    let c = warm(&sim).await;
    let world = sim.world();
    let mut expected_lines = Vec::new();
    for p in &world.projects {
        let hosts = c.hosts().list(&p.id).await.unwrap();
        expected_lines.push(format!(
            "GET /groups/{}/hosts?pageNum=1&itemsPerPage=500 signed 200",
            p.id
        ));
        let want: Vec<&opsapi::sim::Host> =
            world.hosts.iter().filter(|h| h.group_id == p.id).collect();
        assert!(!want.is_empty());
        assert_eq!(hosts.len(), want.len(), "project {}", p.id);
        assert_eq!(hosts.total_count(), want.len() as u64);
        for (got, want) in hosts.iter().zip(&want) {
            assert_host_is(got, want);
        }
    }
    assert_eq!(seen(&sim), expected_lines);
    assert!(authorized(&sim).iter().all(|r| r.body.is_empty()));
}

#[tokio::test]
async fn list_hosts_of_a_project_of_two_pages_fetches_both_and_keeps_the_order() {
    // 501 hosts: a full first page of 500 and a second of 1.
    let sim = start(SimConfig {
        projects: 1,
        hosts_per_project: 501,
        ..SimConfig::default()
    });
    let c = warm(&sim).await;
    let world = sim.world();
    let g = &world.projects[0].id;
    let hosts = c.hosts().list(g).await.unwrap();
    let mut lines = seen(&sim);
    lines.sort();
    assert_eq!(
        lines,
        [
            format!("GET /groups/{g}/hosts?pageNum=1&itemsPerPage=500 signed 200"),
            format!("GET /groups/{g}/hosts?pageNum=2&itemsPerPage=500 signed 200"),
        ]
    );
    assert_eq!(world.hosts.len(), 501);
    assert_eq!(hosts.total_count(), 501);
    let got: Vec<&str> = hosts.iter().map(|h| h.id.as_deref().unwrap()).collect();
    let want: Vec<&str> = world.hosts.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(got, want, "server order across both pages");
    assert_host_is(&hosts[500], &world.hosts[500]);
}

#[tokio::test]
async fn partitions_send_one_page_request_and_name_every_seeded_partition() {
    let sim = sim();
    let c = warm(&sim).await;
    let world = sim.world();
    let truth = sim.partition_truth();
    // Every host, so that hosts with one partition and with several are both covered.
    let mut expected_lines = Vec::new();
    for h in &world.hosts {
        let parts = c.hosts().partitions(&h.group_id, &h.id).await.unwrap();
        expected_lines.push(format!(
            "GET /groups/{}/hosts/{}/disks?pageNum=1&itemsPerPage=500 signed 200",
            h.group_id, h.id
        ));
        let want: Vec<&str> = truth
            .iter()
            .filter(|t| t.host_id == h.id && t.group_id == h.group_id)
            .map(|t| t.partition_name.as_str())
            .collect();
        assert!(!want.is_empty());
        assert_eq!(parts, want, "host {}", h.id);
    }
    assert!(
        world.hosts.iter().any(|h| h.partitions.len() > 1),
        "some host has several partitions"
    );
    assert_eq!(seen(&sim), expected_lines);
    assert!(authorized(&sim).iter().all(|r| r.body.is_empty()));
}
