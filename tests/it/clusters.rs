//! `client.clusters()`: the exact requests and the seeded clusters they return, as Ops Manager
//! lists them (a sharded cluster and each replica set within it, named after it) and as Atlas
//! describes them (tier, disk, auto-scaling, connection strings naming the processes), one
//! by id or name, every project at once, and the errors.

use opsapi::sim::{SimConfig, Simulator};
use opsapi::{ClusterType, Error, Flavour, Model};

use crate::common::{api_error, fixed_now, seen, sim, start, warm};
use crate::flavours::{client_of, sim_of};

const PAGE: &str = "pageNum=1&itemsPerPage=500";

/// One entry of an Ops Manager listing: (id, typeName, clusterName, replicaSetName,
/// shardName).
type Entry = (String, &'static str, String, Option<String>, Option<String>);

/// What Ops Manager lists of a world's clusters, in order.
fn om_listing(sim: &Simulator, g: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    for c in sim.world().clusters.into_iter().filter(|c| c.group_id == g) {
        if !c.sharded {
            out.push((c.id, "REPLICA_SET", c.name, c.replica_set_name, None));
            continue;
        }
        out.push((
            c.id.clone(),
            "SHARDED_REPLICA_SET",
            c.name.clone(),
            None,
            None,
        ));
        for s in &c.shards {
            let rs = Some(s.replica_set_name.clone());
            out.push((s.id.clone(), "REPLICA_SET", c.name.clone(), rs.clone(), rs));
        }
        if let Some(cfg) = &c.config_servers {
            let rs = Some(cfg.replica_set_name.clone());
            out.push((
                cfg.id.clone(),
                "CONFIG_SERVER_REPLICA_SET",
                c.name.clone(),
                rs,
                None,
            ));
        }
    }
    out
}

#[tokio::test]
async fn ops_manager_lists_each_cluster_and_the_replica_sets_within_a_sharded_one() {
    let sim = sim();
    let c = warm(&sim).await;
    let world = sim.world();
    let mut lines = Vec::new();
    for p in &world.projects {
        let list = c.clusters().list(&p.id).await.unwrap();
        lines.push(format!("GET /groups/{}/clusters?{PAGE} signed 200", p.id));
        let got: Vec<_> = list
            .iter()
            .map(|x| {
                (
                    x.id.clone().unwrap(),
                    x.type_name.clone().unwrap(),
                    x.name.clone().unwrap(),
                    x.replica_set_name.clone(),
                    x.shard_name.clone(),
                )
            })
            .collect();
        let want: Vec<_> = om_listing(&sim, &p.id)
            .into_iter()
            .map(|(id, t, n, rs, s)| (id, t.to_string(), n, rs, s))
            .collect();
        assert_eq!(got, want, "{}", p.id);
        assert_eq!(list.total_count(), want.len() as u64);
        assert!(list
            .iter()
            .all(|x| x.group_id.as_deref() == Some(p.id.as_str())));
        // Ops Manager sends no configuration: Atlas's fields are None.
        assert!(list
            .iter()
            .all(|x| x.instance_size.is_none() && x.auto_scaling.is_none()));
        assert!(list.iter().all(|x| x.last_heartbeat.is_some()));
    }
    assert_eq!(seen(&sim), lines);
    // The default world: a replica set, a sharded cluster of one shard, one of two.
    let kinds: Vec<_> = world
        .clusters
        .iter()
        .map(|c| (c.sharded, c.shards.len()))
        .collect();
    assert_eq!(kinds, [(false, 0), (true, 1), (true, 2)]);
    // Every host of a cluster names it by the id of the cluster's first entry.
    for h in world.hosts.iter().filter(|h| h.cluster_id.is_some()) {
        let cluster = world
            .clusters
            .iter()
            .find(|c| h.cluster_id.as_ref() == Some(&c.id));
        assert!(
            cluster.is_some_and(|c| c.members.contains(&h.process_id())),
            "{}",
            h.id
        );
    }
}

#[tokio::test]
async fn ops_manager_gets_a_cluster_by_id_and_types_it() {
    let sim = sim();
    let c = warm(&sim).await;
    let world = sim.world();
    let sharded = world.clusters.iter().find(|c| c.shards.len() == 2).unwrap();
    let g = &sharded.group_id;
    let top = c.clusters().get(g, &sharded.id).await.unwrap();
    assert_eq!(top.r#type, Some(ClusterType::Sharded));
    assert_eq!(top.name.as_deref(), Some(sharded.name.as_str()));
    let shard = c.clusters().get(g, &sharded.shards[1].id).await.unwrap();
    assert_eq!(shard.r#type, Some(ClusterType::ReplicaSet));
    assert_eq!(
        shard.shard_name.as_deref(),
        Some(sharded.shards[1].replica_set_name.as_str())
    );
    assert_eq!(shard.name, top.name, "named after its parent");
    let cfg = sharded.config_servers.as_ref().unwrap();
    let config = c.clusters().get(g, &cfg.id).await.unwrap();
    assert_eq!(config.r#type, Some(ClusterType::ConfigServers));
    assert_eq!(config.raw()["typeName"], "CONFIG_SERVER_REPLICA_SET");
    assert_eq!(
        seen(&sim),
        [&sharded.id, &sharded.shards[1].id, &cfg.id]
            .map(|id| format!("GET /groups/{g}/clusters/{id} signed 200"))
    );
    // An unknown id: 404 CLUSTER_NOT_FOUND.
    let e = c
        .clusters()
        .get(g, "000000000000000000000000")
        .await
        .unwrap_err();
    let api = api_error(&e);
    assert_eq!(
        (api.status, api.error_code.as_deref()),
        (404, Some("CLUSTER_NOT_FOUND"))
    );
}

#[tokio::test]
async fn atlas_describes_each_cluster_with_its_tier_disk_and_auto_scaling() {
    let sim = sim_of(Flavour::Atlas);
    let c = client_of(&sim);
    let world = sim.world();
    for p in &world.projects {
        let list = c.clusters().list(&p.id).await.unwrap();
        let want: Vec<_> = world
            .clusters
            .iter()
            .filter(|c| c.group_id == p.id)
            .collect();
        assert_eq!(list.len(), want.len(), "Atlas lists each cluster once");
        for (got, w) in list.iter().zip(&want) {
            assert_eq!(got.id.as_deref(), Some(w.id.as_str()));
            assert_eq!(got.name.as_deref(), Some(w.name.as_str()));
            let kind = if w.sharded {
                ClusterType::Sharded
            } else {
                ClusterType::ReplicaSet
            };
            assert_eq!(got.r#type.as_ref(), Some(&kind));
            assert_eq!(got.instance_size.as_deref(), Some(w.instance_size));
            assert_eq!(got.disk_size_gb, Some(w.disk_size_gb));
            assert_eq!(got.state.as_deref(), Some("IDLE"));
            assert_eq!(got.replica_set_name, w.replica_set_name);
            assert_eq!(got.shard_count, w.sharded.then_some(w.shards.len() as i64));
            let a = got.auto_scaling.clone().unwrap();
            assert_eq!(a.compute_enabled, Some(w.compute_auto_scaling.is_some()));
            assert_eq!(
                a.compute_max_instance_size.as_deref(),
                w.compute_auto_scaling.map(|(_, max)| max)
            );
            assert_eq!(a.disk_gb_enabled, Some(w.disk_auto_scaling));
            // The processes' memory is the tier's.
            let (mem, _) = opsapi::sim::tier_size(w.instance_size).unwrap();
            for h in world
                .hosts
                .iter()
                .filter(|h| h.cluster_id.as_ref() == Some(&w.id))
            {
                assert_eq!(h.mem_size_mb, mem, "{}", h.hostname);
            }
        }
    }
    // The truths: compute auto-scaling on one cluster, disk auto-scaling on another.
    let compute: Vec<_> = world
        .clusters
        .iter()
        .filter(|c| c.compute_auto_scaling.is_some())
        .collect();
    let disk: Vec<_> = world
        .clusters
        .iter()
        .filter(|c| c.disk_auto_scaling)
        .collect();
    assert_eq!((compute.len(), disk.len()), (1, 1));
    assert_ne!(compute[0].id, disk[0].id);
    let (min, max) = compute[0].compute_auto_scaling.unwrap();
    assert_eq!(min, compute[0].instance_size);
    let tiers: Vec<&str> = opsapi::sim::TIERS.iter().map(|t| t.name).collect();
    let at = |t| tiers.iter().position(|x| *x == t).unwrap();
    assert_eq!(at(max), (at(min) + 2).min(tiers.len() - 1));
    // One by name; an unknown name: 404 CLUSTER_NOT_FOUND.
    let one = &world.clusters[1];
    let got = c.clusters().get(&one.group_id, &one.name).await.unwrap();
    assert_eq!(got.id.as_deref(), Some(one.id.as_str()));
    let e = c.clusters().get(&one.group_id, "nope").await.unwrap_err();
    assert_eq!(
        api_error(&e).error_code.as_deref(),
        Some("CLUSTER_NOT_FOUND")
    );
    // Every request asked for the version the specification gives now.
    let accepts: Vec<_> = sim
        .requests()
        .into_iter()
        .filter(|r| r.path.contains("/clusters"))
        .map(|r| r.accept.unwrap_or_default())
        .collect();
    assert!(
        accepts
            .iter()
            .all(|a| a == "application/vnd.atlas.2024-08-05+json"),
        "{accepts:?}"
    );
}

#[tokio::test]
async fn atlas_connection_strings_name_the_processes_by_their_aliases() {
    let sim = sim_of(Flavour::Atlas);
    let c = client_of(&sim);
    let world = sim.world();
    let g = &world.projects[2].id;
    let processes = c.hosts().list(g).await.unwrap();
    for cluster in c.clusters().list(g).await.unwrap().iter() {
        let w = world
            .clusters
            .iter()
            .find(|x| Some(&x.id) == cluster.id.as_ref())
            .unwrap();
        let srv = cluster.connection_strings.as_ref().unwrap()["standardSrv"]
            .as_str()
            .unwrap();
        assert_eq!(srv, format!("mongodb+srv://{}", w.srv_host()));
        let hosts = cluster.connection_hosts();
        // A sharded cluster's standard string names its mongos; every process of it has an
        // alias `<label>-...` in the SRV name's domain.
        let mongos: Vec<String> = processes
            .iter()
            .filter(|p| w.members.contains(p.id.as_ref().unwrap()))
            .filter(|p| p.type_name.as_ref().map(|t| t.as_str()) == Some("SHARD_MONGOS"))
            .map(|p| format!("{}:{}", p.user_alias.clone().unwrap(), p.port.unwrap()))
            .collect();
        assert_eq!(hosts, mongos);
        let (label, domain) = w
            .srv_host()
            .split_once('.')
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .unwrap();
        for p in processes
            .iter()
            .filter(|p| w.members.contains(p.id.as_ref().unwrap()))
        {
            let alias = p.user_alias.as_deref().unwrap();
            assert!(
                alias.starts_with(&format!("{label}-")) && alias.ends_with(&format!(".{domain}")),
                "{alias}"
            );
            assert_ne!(Some(alias), p.hostname.as_deref());
        }
    }
}

#[tokio::test]
async fn list_all_lists_every_project_and_checks_ids_before_sending() {
    let sim = sim();
    let c = warm(&sim).await;
    let world = sim.world();
    let all = c.clusters().list_all(None).await.unwrap();
    let want: Vec<String> = world
        .projects
        .iter()
        .flat_map(|p| om_listing(&sim, &p.id).into_iter().map(|x| x.0))
        .collect();
    let got: Vec<String> = all.iter().map(|x| x.id.clone().unwrap()).collect();
    assert_eq!(got, want);
    assert_eq!(all.total_count(), want.len() as u64);
    let mut lines = vec![format!("GET /groups?{PAGE} signed 200")];
    for p in &world.projects {
        lines.push(format!("GET /groups/{}/clusters?{PAGE} signed 200", p.id));
    }
    let mut got_lines = seen(&sim);
    got_lines[1..].sort();
    lines[1..].sort();
    assert_eq!(got_lines, lines);
    // Only the projects given; a bad id is named by its position, before any request.
    sim.clear_requests();
    let one = [world.projects[1].id.as_str()];
    let some = c.clusters().list_all(Some(&one)).await.unwrap();
    assert_eq!(some.len(), om_listing(&sim, one[0]).len());
    assert_eq!(
        seen(&sim),
        [format!("GET /groups/{}/clusters?{PAGE} signed 200", one[0])]
    );
    sim.clear_requests();
    let e = c
        .clusters()
        .list_all(Some(&[one[0], ".."]))
        .await
        .unwrap_err();
    assert!(
        matches!(&e, Error::InvalidArgument { argument, .. } if argument == "groups[1]"),
        "{e}"
    );
    let e = c.clusters().get("g", "").await.unwrap_err();
    assert!(
        matches!(&e, Error::InvalidArgument { argument, .. } if argument == "cluster"),
        "{e}"
    );
    assert!(sim.requests().is_empty());
}

#[tokio::test]
async fn cloud_manager_serves_the_same_clusters_and_a_larger_world_names_them_apart() {
    let sim = sim_of(Flavour::CloudManager);
    let c = client_of(&sim);
    let g = sim.world().projects[0].id.clone();
    let got: Vec<_> = c
        .clusters()
        .list(&g)
        .await
        .unwrap()
        .iter()
        .map(|x| x.id.clone().unwrap())
        .collect();
    let want: Vec<_> = om_listing(&sim, &g).into_iter().map(|x| x.0).collect();
    assert_eq!(got, want);
    // Within a project, every cluster's name is its own.
    let big = start(SimConfig {
        projects: 2,
        hosts_per_project: 40,
        now: Some(fixed_now()),
        ..SimConfig::default()
    });
    let w = big.world();
    for p in &w.projects {
        let mut names: Vec<&str> = w
            .clusters
            .iter()
            .filter(|c| c.group_id == p.id)
            .map(|c| c.name.as_str())
            .collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert!(n > 5 && names.len() == n, "{names:?}");
    }
    // A larger world has a cluster seeded clearly oversized: an M60 whose disks are flat.
    let big_one = w
        .clusters
        .iter()
        .find(|c| c.oversized)
        .expect("an oversized cluster");
    assert_eq!(big_one.instance_size, "M60");
    for h in w
        .hosts
        .iter()
        .filter(|h| h.cluster_id.as_ref() == Some(&big_one.id))
    {
        assert!(
            h.partitions.iter().all(|p| p.growth_bytes_per_day == 0.0),
            "{}",
            h.hostname
        );
        assert!(
            h.seeded.is_empty()
                && !h
                    .breaches
                    .iter()
                    .any(|b| b.metric == "OPLOG_REPLICATION_LAG_TIME")
        );
    }
}
