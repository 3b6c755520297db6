//! The query and body types of the operations, by their old module name. Each type lives with
//! its resource now ([`crate::api::global_alerts`], [`crate::api::measurements`]) and user
//! input parsing in [`crate::iso8601`]; these names keep working.

pub use crate::api::global_alerts::{AckUntil, Acknowledgement, GlobalAlertsQuery};
pub use crate::api::measurements::{Granularity, MeasurementsQuery, Window};
pub use crate::iso8601::{parse_timestamp, IsoDuration, MAX_DURATION_YEARS};
