//! `client.hosts()`: one host, every field decoded. (The listing and partitions are in
//! `groups.rs`, a host's databases in `databases.rs`.)

use crate::common::{authorized, client, sim, API};

#[tokio::test]
async fn get_host_sends_one_get_and_decodes_every_field() {
    let sim = sim();
    let c = client(&sim);
    let world = sim.world();
    let h = &world.hosts[0];
    let host = c.hosts().get(&h.group_id, &h.id).await.unwrap();
    assert_eq!(host.id.as_deref(), Some(h.id.as_str()));
    assert_eq!(host.hostname.as_deref(), Some(h.hostname.as_str()));
    assert_eq!(host.port, Some(i64::from(h.port)));
    assert_eq!(
        host.type_name.as_ref().map(|t| t.as_str()),
        Some(h.type_name.as_str())
    );
    assert!(host.created.is_some() && host.last_ping.is_some());
    assert!(host
        .system_info
        .as_ref()
        .and_then(|s| s.num_cores)
        .is_some());
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
