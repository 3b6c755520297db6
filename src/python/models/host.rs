//! Python classes of hosts, made from their field lists.

use pyo3::prelude::*;

use super::{list_class, py_model, py_part};

crate::models::system_info_fields!(py_part
    "`systemInfo` of a host: `mem_size_mb` and `num_cores`.");

crate::models::host_fields!(py_model
    "A monitored MongoDB process.\n\n\
     >>> host = client.hosts.get(group_id, host_id)  # doctest: +SKIP\n\
     >>> host.hostname, host.port, host.replica_state_name  # doctest: +SKIP\n\
     ('db1.example.com', 27017, 'PRIMARY')");

list_class!(
    /// Hosts: a read-only sequence with `total_count` and `to_polars()`.
    HostList("HostList") of Host(crate::Host), crate::frame::hosts_frame, HostListIterator
);
