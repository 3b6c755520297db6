//! Python classes of projects and access-list entries, made from their field lists.

use pyo3::prelude::*;

use super::py_model;

crate::models::group_fields!(py_model
    "A project (the API's group); `host_counts` is the server's JSON as Python objects.");

crate::models::access_list_entry_fields!(py_model
    "An entry of the global API access list: `id`, `cidr_block`, `description`, `created`.");
