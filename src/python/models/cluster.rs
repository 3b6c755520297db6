//! Python classes of clusters, made from their field lists.

use pyo3::prelude::*;

use super::{list_class, py_model, py_part};

crate::models::auto_scaling_fields!(py_part
    "An Atlas cluster's auto-scaling: compute between `compute_min_instance_size` and \
     `compute_max_instance_size` (when `compute_enabled`), and disk (`disk_gb_enabled`: \
     Atlas grows the disk when it is 90 % full).");

crate::models::cluster_fields!(py_model
    "A cluster: a replica set or a sharded cluster. `type` is its kind in one word \
     (`replica_set`, `sharded`, `geosharded`, `config_servers`); Ops Manager and Cloud \
     Manager also list each replica set within a sharded cluster (a shard's: `shard_name`), \
     named after it; Atlas gives its configuration (`instance_size`, `disk_size_gb`, \
     `auto_scaling`, `state`).\n\n\
     >>> c = client.clusters.get(group_id, \"orders\")  # Atlas: by name  # doctest: +SKIP\n\
     >>> c.type, c.instance_size, c.auto_scaling.compute_max_instance_size  # doctest: +SKIP\n\
     ('replica_set', 'M30', 'M50')");

list_class!(
    /// Clusters: a read-only sequence with `total_count` and `to_polars()`.
    ClusterList("ClusterList") of Cluster(crate::Cluster), crate::frame::clusters_frame, ClusterListIterator
);

#[pymethods]
impl Cluster {
    /// Whether a process is one of this cluster's, mongos and config servers included: its
    /// `cluster_id` (Ops Manager) is the cluster's `id`, or (Atlas, whose processes do not
    /// name their cluster) its `name` (a host's `user_alias`, else its `hostname`) is one of
    /// the standard connection string's hosts or named after the cluster's SRV host, as Atlas
    /// names every process of a cluster, or its `replica_set_name` is the cluster's.
    ///
    /// >>> c.serves("orders-config-00-01.ab1cd.mongodb.net")  # SRV orders.ab1cd.mongodb.net  # doctest: +SKIP
    /// True
    #[pyo3(signature = (name, *, cluster_id=None, replica_set_name=None))]
    fn serves(&self, name: &str, cluster_id: Option<&str>, replica_set_name: Option<&str>) -> bool {
        self.model().serves(cluster_id, name, replica_set_name)
    }
}
