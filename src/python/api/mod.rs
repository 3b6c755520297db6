//! The Python face of the operations: one file per resource, where each operation is a
//! function shared by the sync class (`Hosts`) and the async class (`AsyncHosts`), whose two
//! methods sit next to each other. A method converts its arguments (by name, so that an
//! error names the argument) and either waits for the core's future with the GIL released
//! (sync) or hands it to asyncio (async).

mod access_list;
mod acknowledgement;
mod alert_configs;
mod alerts;
mod client;
mod events;
mod global_alerts;
mod groups;
mod hosts;
mod measurements;
mod store;
mod store_report;
mod store_sync;

pub use access_list::{AccessList, AsyncAccessList};
pub use alert_configs::{AlertConfigs, AsyncAlertConfigs};
pub use alerts::{Alerts, AsyncAlerts};
pub use client::{AsyncClient, Client};
pub use events::{AsyncEvents, Events};
pub use global_alerts::{AlertIterator, AsyncAlertIterator, AsyncGlobalAlerts, GlobalAlerts};
pub use groups::{AsyncGroups, Groups};
pub use hosts::{AsyncHosts, Hosts};
pub(crate) use measurements::_check_targets;
pub use measurements::{AsyncMeasurementsApi, MeasurementsApi};
pub use store::{Store, StoreCheck};
pub use store_report::SyncReport;

/// Declares the sync and the async class of one resource handle; each holds the client.
macro_rules! handle_pair {
    ($(#[$meta:meta])* $sync:ident, $async:ident) => {
        $(#[$meta])*
        #[pyo3::pyclass(frozen, module = "opsapi._native")]
        pub struct $sync {
            pub(crate) client: crate::Client,
        }

        $(#[$meta])*
        #[doc = ""]
        #[doc = "The async twin: every method that talks to the server returns an awaitable."]
        #[pyo3::pyclass(frozen, module = "opsapi._native")]
        pub struct $async {
            pub(crate) client: crate::Client,
        }
    };
}
pub(crate) use handle_pair;
