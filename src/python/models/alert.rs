//! Python classes of alerts and alert configurations, made from their field lists.

use pyo3::prelude::*;

use super::{list_class, py_model, py_part};

crate::models::current_value_fields!(py_part
    "The value of the metric that triggered an alert: `number` and `units` (`RAW`, `BYTES`, ...).");

crate::models::alert_fields!(py_model
    "An alert: a global alert or an open alert of an alert configuration.\n\n\
     Every documented field is an attribute (`None` where the server left it out); timestamps \
     are timezone-aware datetimes; `to_dict()` gives back the server's JSON.\n\n\
     >>> alert = client.global_alerts.get(alert_id)  # doctest: +SKIP\n\
     >>> alert.status, alert.current_value.number  # doctest: +SKIP\n\
     ('OPEN', 12.0)");

crate::models::alert_config_fields!(py_model
    "An alert configuration of a project; `matchers`, `metric_threshold` and `notifications` \
     are the server's JSON as Python objects.");

list_class!(
    /// Alerts: a read-only sequence with `total_count` and `to_polars()`.
    AlertList("AlertList") of Alert(crate::Alert), crate::frame::alerts_frame, AlertListIterator
);
